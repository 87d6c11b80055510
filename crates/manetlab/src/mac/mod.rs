//! Medium access: IEEE 802.11 DCF.
//!
//! `frame` defines the frames and their sizes, `dcf` the distributed
//! coordination function (carrier sense, NAV, backoff, RTS/CTS/DATA/ACK,
//! retries, duplicate detection, link-failure feedback).

pub mod dcf;
pub mod edca;
pub mod frame;

pub use dcf::{Dcf, MacAction, MacTimer};
pub use frame::{Frame, FrameKind, MacAddr};

use crate::phy::PhyMode;

#[derive(Clone, Debug, PartialEq)]
pub struct MacConfig {
    pub phy: PhyMode,
    /// Unicast frames whose MAC size exceeds this use RTS/CTS; `None` = never.
    /// ns-2's default 0 means every unicast frame.
    pub rts_threshold: Option<u32>,
    /// dot11ShortRetryLimit (attempts of frames not protected by RTS, and of RTS).
    pub short_retry_limit: u32,
    /// dot11LongRetryLimit (attempts of frames sent after RTS/CTS).
    pub long_retry_limit: u32,
    /// Overrides of the PHY's CWmin / CWmax.
    pub cw_min: Option<u32>,
    pub cw_max: Option<u32>,
    /// 802.11e EDCA with AC_VO and AC_BE and the standard's default
    /// parameters (`edca.rs`) instead of plain DCF.
    pub edca: bool,
}

impl Default for MacConfig {
    fn default() -> Self {
        MacConfig {
            phy: PhyMode::default(),
            rts_threshold: Some(0),
            short_retry_limit: 7,
            long_retry_limit: 4,
            cw_min: None,
            cw_max: None,
            edca: false,
        }
    }
}

impl MacConfig {
    pub fn cw_min(&self) -> u32 {
        self.cw_min.unwrap_or(self.phy.cw_min())
    }
    pub fn cw_max(&self) -> u32 {
        self.cw_max.unwrap_or(self.phy.cw_max())
    }
}

#[cfg(test)]
mod tests;
