//! 802.11 PHY modes: DSSS (802.11/802.11b) and OFDM (802.11a) timing and
//! frame durations (IEEE 802.11-2016, clauses 15-17).

use crate::sim::Time;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PhyStandard {
    /// DSSS/HR-DSSS: 1, 2, 5.5, 11 Mbit/s.
    Dsss,
    /// OFDM 802.11a: 6, 9, 12, 18, 24, 36, 48, 54 Mbit/s.
    Ofdm,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Preamble {
    /// 144-bit preamble + 48-bit PLCP header at 1 Mbit/s: 192 us.
    Long,
    /// 72-bit preamble at 1 Mbit/s + 48-bit header at 2 Mbit/s: 96 us.
    Short,
}

/// The PHY mode of every radio: timing plus data and basic (control) rates.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PhyMode {
    pub standard: PhyStandard,
    pub preamble: Preamble,
    /// Rate of unicast and broadcast data frames, bit/s.
    pub data_rate: u64,
    /// Rate of RTS, CTS and ACK frames, bit/s.
    pub basic_rate: u64,
}

impl Default for PhyMode {
    fn default() -> Self {
        PhyMode { standard: PhyStandard::Dsss, preamble: Preamble::Long, data_rate: 2_000_000, basic_rate: 2_000_000 }
    }
}

pub const DSSS_RATES: [u64; 4] = [1_000_000, 2_000_000, 5_500_000, 11_000_000];
pub const OFDM_RATES: [u64; 8] =
    [6_000_000, 9_000_000, 12_000_000, 18_000_000, 24_000_000, 36_000_000, 48_000_000, 54_000_000];

impl PhyMode {
    pub fn valid_rates(standard: PhyStandard) -> &'static [u64] {
        match standard {
            PhyStandard::Dsss => &DSSS_RATES,
            PhyStandard::Ofdm => &OFDM_RATES,
        }
    }
    pub fn slot(&self) -> Time {
        match self.standard {
            PhyStandard::Dsss => Time::from_us(20),
            PhyStandard::Ofdm => Time::from_us(9),
        }
    }
    pub fn sifs(&self) -> Time {
        match self.standard {
            PhyStandard::Dsss => Time::from_us(10),
            PhyStandard::Ofdm => Time::from_us(16),
        }
    }
    /// DIFS = SIFS + 2 slots.
    pub fn difs(&self) -> Time {
        self.sifs() + self.slot() * 2
    }
    pub fn cw_min(&self) -> u32 {
        match self.standard {
            PhyStandard::Dsss => 31,
            PhyStandard::Ofdm => 15,
        }
    }
    pub fn cw_max(&self) -> u32 {
        1023
    }
    /// Duration of the PLCP preamble and header.
    pub fn plcp_time(&self) -> Time {
        match (self.standard, self.preamble) {
            (PhyStandard::Dsss, Preamble::Long) => Time::from_us(192),
            (PhyStandard::Dsss, Preamble::Short) => Time::from_us(96),
            (PhyStandard::Ofdm, _) => Time::from_us(20),
        }
    }
    /// Air time of a frame of `bytes` (MAC header + body + FCS) at `rate`.
    pub fn frame_time(&self, bytes: u32, rate: u64) -> Time {
        match self.standard {
            PhyStandard::Dsss => self.plcp_time() + Time::for_bits(bytes as u64 * 8, rate),
            PhyStandard::Ofdm => {
                // SERVICE (16) + data + tail (6) bits, in 4 us symbols.
                let bits_per_symbol = rate * 4 / 1_000_000;
                let bits = 16 + 8 * bytes as u64 + 6;
                let symbols = bits.div_ceil(bits_per_symbol);
                self.plcp_time() + Time::from_us(4 * symbols)
            }
        }
    }
    /// The lowest mandatory rate, used for the ACK time inside EIFS.
    pub fn lowest_rate(&self) -> u64 {
        match self.standard {
            PhyStandard::Dsss => 1_000_000,
            PhyStandard::Ofdm => 6_000_000,
        }
    }
    /// EIFS = SIFS + ACK at the lowest mandatory rate + DIFS (used after a
    /// bad frame). The lowest DSSS rate (1 Mbit/s) always uses the long
    /// preamble, so EIFS does not depend on the preamble setting.
    pub fn eifs(&self) -> Time {
        let lowest = PhyMode { preamble: Preamble::Long, ..*self };
        self.sifs() + lowest.frame_time(crate::wire::frame::ACK_BYTES, self.lowest_rate()) + self.difs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn dsss_durations() {
        let m = PhyMode::default();
        // 14-byte ACK at 2 Mbit/s: 192 + 56 us.
        assert_eq!(m.frame_time(14, 2_000_000), Time::from_us(248));
        assert_eq!(m.difs(), Time::from_us(50));
        // EIFS = 10 + (192 + 112) + 50.
        assert_eq!(m.eifs(), Time::from_us(364));
    }
    #[test]
    fn ofdm_durations() {
        let m = PhyMode {
            standard: PhyStandard::Ofdm,
            preamble: Preamble::Long,
            data_rate: 12_000_000,
            basic_rate: 6_000_000,
        };
        // ACK 14 bytes at 6 Mbit/s: 16+112+6 = 134 bits / 24 = 6 symbols -> 20 + 24 us.
        assert_eq!(m.frame_time(14, 6_000_000), Time::from_us(44));
        assert_eq!(m.difs(), Time::from_us(34));
        // 1536 bytes at 12 Mbit/s: (16+12288+6)/48 = 256.46 -> 257 symbols.
        assert_eq!(m.frame_time(1536, 12_000_000), Time::from_us(20 + 4 * 257));
    }
}
