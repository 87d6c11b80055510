//! Medium access: IEEE 802.11 DCF.
//!
//! `frame` defines the frames and their sizes, `dcf` the distributed
//! coordination function (carrier sense, NAV, backoff, RTS/CTS/DATA/ACK,
//! retries, duplicate detection, link-failure feedback).

pub mod dcf;
pub mod edca;
pub use crate::wire::frame;
pub mod rate;
pub mod tdma;

pub use dcf::{Dcf, MacAction, MacStats, MacTimer};
pub use frame::{Frame, FrameKind, MacAddr};
pub use rate::{RateControlKind, RateCount};
pub use tdma::Tdma;

use crate::phy::PhyMode;
use crate::sim::Time;
use crate::wire::Packet;

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
    /// Which MAC: the 802.11 DCF (default) or TDMA.
    pub kind: MacKind,
    /// 802.11e EDCA with AC_VO and AC_BE and the standard's default
    /// parameters (`edca.rs`) instead of plain DCF.
    pub edca: bool,
    /// Data-rate control per neighbour (`rate/`); with anything but
    /// `Constant`, `phy.data_rate` is the highest rate used.
    pub rate_control: RateControlKind,
}

/// The medium access protocol of every node.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum MacKind {
    #[default]
    Dcf,
    /// Fixed frame of one slot per node (`mac/tdma.rs`): a slot fits one
    /// `max_packet`-byte IP datagram plus `guard`.
    Tdma { max_packet: u32, guard: Time },
}

/// A node's MAC: dispatches to the DCF or TDMA (same calls, same actions).
#[allow(clippy::large_enum_variant)]
pub enum Mac {
    Dcf(Dcf),
    Tdma(Tdma),
}

macro_rules! both {
    ($self:ident, $m:ident => $e:expr) => {
        match $self {
            Mac::Dcf($m) => $e,
            Mac::Tdma($m) => $e,
        }
    };
}

impl Mac {
    #[inline]
    pub fn can_accept(&self) -> bool {
        both!(self, m => m.can_accept())
    }
    #[inline]
    pub fn current(&self) -> Option<&Packet> {
        both!(self, m => m.current())
    }
    #[inline]
    pub fn tx_frame(&self) -> &Frame {
        both!(self, m => m.tx_frame())
    }
    #[inline]
    pub fn stats(&self) -> MacStats {
        both!(self, m => m.stats)
    }
    #[inline]
    pub fn enqueue(&mut self, now: Time, pkt: Packet, out: &mut Vec<MacAction>) {
        both!(self, m => m.enqueue(now, pkt, out))
    }
    #[inline]
    pub fn on_timer(&mut self, now: Time, kind: MacTimer, gen: u32, out: &mut Vec<MacAction>) {
        both!(self, m => m.on_timer(now, kind, gen, out))
    }
    #[inline]
    pub fn on_tx_end(&mut self, now: Time, out: &mut Vec<MacAction>) {
        both!(self, m => m.on_tx_end(now, out))
    }
    #[inline]
    pub fn on_rx_end(&mut self, now: Time, decoded: Option<&Frame>, idle: bool, out: &mut Vec<MacAction>) {
        both!(self, m => m.on_rx_end(now, decoded, idle, out))
    }
    #[inline]
    pub fn on_sense_busy(&mut self, now: Time) {
        if let Mac::Dcf(m) = self {
            m.on_sense_busy(now)
        }
    }
    #[inline]
    pub fn on_captured_out(&mut self, now: Time, end: Time, out: &mut Vec<MacAction>) {
        if let Mac::Dcf(m) = self {
            m.on_captured_out(now, end, out)
        }
    }
    #[inline]
    pub fn on_signal_end(&mut self, now: Time, idle: bool, out: &mut Vec<MacAction>) {
        if let Mac::Dcf(m) = self {
            m.on_signal_end(now, idle, out)
        }
    }
    #[inline]
    pub fn is_edca(&self) -> bool {
        matches!(self, Mac::Dcf(m) if m.is_edca())
    }
    #[inline]
    pub fn can_accept_ac(&self, ac: crate::mac::edca::AccessCategory) -> bool {
        match self {
            Mac::Dcf(m) => m.can_accept_ac(ac),
            Mac::Tdma(m) => ac == crate::mac::edca::AccessCategory::BestEffort && m.can_accept(),
        }
    }
    #[inline]
    pub fn enqueue_ac(
        &mut self,
        now: Time,
        pkt: Packet,
        ac: crate::mac::edca::AccessCategory,
        out: &mut Vec<MacAction>,
    ) {
        match self {
            Mac::Dcf(m) => m.enqueue_ac(now, pkt, ac, out),
            Mac::Tdma(m) => m.enqueue(now, pkt, out),
        }
    }
    /// Rate control: a frame from `src` decoded at power `power_w`.
    #[inline]
    pub fn on_rx_power(&mut self, src: MacAddr, power_w: f64) {
        if let Mac::Dcf(m) = self {
            m.on_rx_power(src, power_w)
        }
    }
    /// DATA attempts and ACKs per rate (DCF only).
    pub fn rate_counts(&self) -> Vec<RateCount> {
        match self {
            Mac::Dcf(m) => m.rate_counts(),
            Mac::Tdma(_) => Vec::new(),
        }
    }
    /// Every packet the MAC holds (being sent or waiting per access category).
    pub fn held(&self, f: &mut dyn FnMut(&Packet)) {
        match self {
            Mac::Dcf(m) => m.held(f),
            Mac::Tdma(m) => {
                if let Some(p) = m.current() {
                    f(p)
                }
            }
        }
    }
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
            kind: MacKind::Dcf,
            edca: false,
            rate_control: RateControlKind::Constant,
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
