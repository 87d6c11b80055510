//! IEEE 802.11e EDCA access categories and their default parameters
//! (IEEE 802.11-2016 §10.22.2 and table 9-137, "default EDCA parameter set"
//! for a non-AP station).
//!
//! Two categories are modelled, voice (AC_VO) and best effort (AC_BE):
//!
//! | AC | AIFSN | CWmin | CWmax | TXOP limit (OFDM / DSSS) |
//! |---|---|---|---|---|
//! | AC_VO | 2 | (aCWmin + 1)/4 − 1 | (aCWmin + 1)/2 − 1 | 1.504 ms / 3.264 ms |
//! | AC_BE | 3 | aCWmin | aCWmax | 0 (one frame exchange) |
//!
//! AIFS[AC] = SIFS + AIFSN × slot. With OFDM (aCWmin 15, aCWmax 1023):
//! AC_VO contends with CW 3..7 after 34 µs, AC_BE with 15..1023 after 43 µs
//! (DIFS = 34 µs for plain DCF).

use crate::phy::{PhyMode, PhyStandard};
use crate::sim::Time;

/// An EDCA access category.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AccessCategory {
    /// AC_VO: routing control and voice (DSCP EF).
    Voice = 0,
    /// AC_BE: everything else.
    BestEffort = 1,
}

impl AccessCategory {
    /// Highest priority first (internal collisions go to the earlier one).
    pub const ALL: [AccessCategory; 2] = [AccessCategory::Voice, AccessCategory::BestEffort];
    pub fn index(self) -> usize {
        self as usize
    }

    /// The TID a QoS data frame of this category carries: with EDCA the
    /// TID is the frame's user priority (IEEE 802.11-2016 §9.2.4.5.2), and
    /// table 10-1 maps UP 6 and 7 to AC_VO, UP 0 and 3 to AC_BE; we use 6
    /// and 0 (802.1D's "voice" and "best effort").
    pub fn tid(self) -> u8 {
        match self {
            AccessCategory::Voice => 6,
            AccessCategory::BestEffort => 0,
        }
    }
}

/// Channel-access parameters of one access category.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EdcaParams {
    pub aifsn: u32,
    pub cw_min: u32,
    pub cw_max: u32,
    /// Longest transmit opportunity; zero = one frame exchange per access.
    pub txop: Time,
}

impl EdcaParams {
    /// The standard's default parameters of `ac` for `phy`.
    pub fn default_for(ac: AccessCategory, phy: &PhyMode) -> EdcaParams {
        let (a_min, a_max) = (phy.cw_min(), phy.cw_max());
        match ac {
            AccessCategory::Voice => EdcaParams {
                aifsn: 2,
                cw_min: (a_min + 1) / 4 - 1,
                cw_max: a_min.div_ceil(2) - 1, // (aCWmin + 1)/2 - 1
                txop: match phy.standard {
                    PhyStandard::Ofdm => Time::from_us(1504),
                    PhyStandard::Dsss => Time::from_us(3264),
                },
            },
            AccessCategory::BestEffort => EdcaParams { aifsn: 3, cw_min: a_min, cw_max: a_max, txop: Time::ZERO },
        }
    }
    /// AIFS = SIFS + AIFSN x slot.
    pub fn aifs(&self, phy: &PhyMode) -> Time {
        phy.sifs() + phy.slot() * self.aifsn as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::Preamble;

    #[test]
    fn default_parameter_set_for_ofdm_and_dsss() {
        let ofdm = PhyMode {
            standard: PhyStandard::Ofdm,
            preamble: Preamble::Long,
            data_rate: 12_000_000,
            basic_rate: 6_000_000,
        };
        let vo = EdcaParams::default_for(AccessCategory::Voice, &ofdm);
        let be = EdcaParams::default_for(AccessCategory::BestEffort, &ofdm);
        assert_eq!((vo.aifsn, vo.cw_min, vo.cw_max, vo.txop), (2, 3, 7, Time::from_us(1504)));
        assert_eq!((be.aifsn, be.cw_min, be.cw_max, be.txop), (3, 15, 1023, Time::ZERO));
        // 802.11a: slot 9 us, SIFS 16 us: AIFS 34 us (= DIFS) and 43 us.
        assert_eq!(vo.aifs(&ofdm), Time::from_us(34));
        assert_eq!(be.aifs(&ofdm), Time::from_us(43));
        assert_eq!(vo.aifs(&ofdm), ofdm.difs());
        let dsss = PhyMode { standard: PhyStandard::Dsss, ..ofdm };
        let vo = EdcaParams::default_for(AccessCategory::Voice, &dsss);
        assert_eq!((vo.cw_min, vo.cw_max, vo.txop), (7, 15, Time::from_us(3264)));
        assert_eq!(EdcaParams::default_for(AccessCategory::BestEffort, &dsss).aifs(&dsss), Time::from_us(70));
    }
}
