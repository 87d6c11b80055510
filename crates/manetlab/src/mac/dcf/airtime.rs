//! A frame's air time without a division for the frames that repeat.
//!
//! `PhyMode::frame_time` divides once per frame (bits * 10^9 / rate); most
//! frames of a run repeat a few (size, rate) pairs: the 14-B CTS and ACK
//! and the 20-B RTS at the basic rate, and a flow's DATA frames. Those
//! three control frames' times are computed in `Dcf::new`; the last two
//! other (size, rate) pairs are remembered (a TCP flow's DATA frames carry
//! segments one way and ACKs the other: two sizes; session 20).

use super::*;

impl Dcf {
    /// `self.phy.frame_time(bytes, rate)`, read from `ack_basic` (a CTS is
    /// as long as an ACK), `rts_basic` or the last other frame's entry
    /// when one of them is for this size and rate.
    #[inline(always)]
    pub(super) fn air_time(&mut self, bytes: u32, rate: u64) -> Time {
        const { assert!(frame::ACK_BYTES == frame::CTS_BYTES) };
        if rate == self.phy.basic_rate {
            if bytes == frame::ACK_BYTES {
                return self.ack_basic;
            }
            if bytes == frame::RTS_BYTES {
                return self.rts_basic;
            }
        }
        let Some(key) = air_key(bytes, rate) else { return self.frame_time_cold(bytes, rate) };
        // Read in place (a `for` over the array copied it to the stack first).
        if self.last_air[0].0 == key {
            return self.last_air[0].1;
        }
        if self.last_air[1].0 == key {
            return self.last_air[1].1;
        }
        self.air_time_new(key, bytes, rate)
    }

    /// `air_time` when it needs no call: a control frame's fixed time or
    /// a remembered entry (`None`: a size and rate to compute).
    #[inline(always)]
    pub(super) fn air_time_known(&self, bytes: u32, rate: u64) -> Option<Time> {
        if rate == self.phy.basic_rate {
            if bytes == frame::ACK_BYTES {
                return Some(self.ack_basic);
            }
            if bytes == frame::RTS_BYTES {
                return Some(self.rts_basic);
            }
        }
        let key = air_key(bytes, rate)?;
        if self.last_air[0].0 == key {
            return Some(self.last_air[0].1);
        }
        if self.last_air[1].0 == key {
            return Some(self.last_air[1].1);
        }
        None
    }

    /// A rate of 2^31 bit/s or more (no key): computed each time, out of
    /// line. Inlined, `PhyMode::frame_time`'s divisions made `transmit`,
    /// which inlines `air_time`, save six registers on every call.
    #[cold]
    #[inline(never)]
    fn frame_time_cold(&self, bytes: u32, rate: u64) -> Time {
        self.phy.frame_time(bytes, rate)
    }

    /// A size and rate not remembered: computed and remembered in place of
    /// the older entry (out of line: `transmit`, which inlines `air_time`,
    /// stays small).
    #[inline(never)]
    fn air_time_new(&mut self, key: u64, bytes: u32, rate: u64) -> Time {
        let d = self.phy.frame_time(bytes, rate);
        self.last_air = [(key, d), self.last_air[0]];
        d
    }
}

/// A key no (size, rate) has (`air_key` leaves the top bit clear).
pub(super) const NO_AIR_KEY: u64 = u64::MAX;

/// The remembered entries' key of a (size, rate) pair: one word (an entry
/// is 16 bytes, and the two fit in the DCF's size of before: the node's
/// fields stay within 32 cache lines, 33 with its pad, `node::tests`); `None` for rates of 2^31 bit/s
/// and more, which are computed each time.
#[inline(always)]
pub(super) fn air_key(bytes: u32, rate: u64) -> Option<u64> {
    (rate < 1 << 31).then_some(rate << 32 | bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mac::MacConfig;
    use crate::phy::{PhyStandard, Preamble};
    use proptest::prelude::*;

    /// Rates of 2^31 bit/s and more have no key: `frame_time_cold` gives
    /// `frame_time`'s answer, each time, and the remembered entries stay
    /// as they were.
    #[test]
    fn rates_without_a_key_are_computed_each_time() {
        let cfg = MacConfig::default();
        let phy = cfg.phy;
        let mut d = Dcf::new(1, &cfg, false, RngStream::new(1, 1, crate::sim::Purpose::MacBackoff, 0));
        let before = d.last_air;
        for (bytes, rate) in [(1500u32, 1u64 << 31), (14, 3_000_000_000), (1500, 1 << 31), (0, 1_000_000_000_000)] {
            assert_eq!(air_key(bytes, rate), None);
            assert_eq!(d.air_time(bytes, rate), phy.frame_time(bytes, rate), "{bytes} B at {rate}");
        }
        assert_eq!(d.last_air, before);
    }

    proptest! {
        /// Any sequence of (size, rate) pairs, the control frames' among
        /// them, gets `frame_time`'s answer each time: DSSS (long and short
        /// preamble) and OFDM, any valid basic and data rates.
        #[test]
        fn air_time_is_frame_time(
            ofdm in any::<bool>(),
            short in any::<bool>(),
            basic in 0..4usize,
            data in 0..8usize,
            frames in proptest::collection::vec(
                (prop_oneof![Just(14u32), Just(20), Just(1534), Just(86), 0..3000u32], 0..8usize), 1..40),
        ) {
            let standard = if ofdm { PhyStandard::Ofdm } else { PhyStandard::Dsss };
            let rates = PhyMode::valid_rates(standard);
            let pick = |i: usize| rates[i % rates.len()];
            let preamble = if short { Preamble::Short } else { Preamble::Long };
            let phy = PhyMode { standard, preamble, data_rate: pick(data), basic_rate: pick(basic) };
            let cfg = MacConfig { phy, ..MacConfig::default() };
            let mut d = Dcf::new(1, &cfg, false, RngStream::new(1, 1, crate::sim::Purpose::MacBackoff, 0));
            for (bytes, r) in frames {
                let rate = if r == 0 { phy.basic_rate } else { pick(r) };
                prop_assert_eq!(d.air_time(bytes, rate), phy.frame_time(bytes, rate), "{} B at {}", bytes, rate);
            }
        }
    }
}
