//! Adaptive ARF: M. Lacage, M. H. Manshaei and T. Turletti, "IEEE 802.11
//! rate adaptation: a practical approach", ACM MSWiM 2004, §4.
//!
//! ARF's state machine (`arf.rs`) with an adaptive success threshold: when
//! the probe sent after moving up fails, the rate falls back and the
//! threshold doubles (at most [`MAX_SUCCESS_THRESHOLD`], 50 in the paper),
//! so a link whose higher rate keeps failing is probed exponentially less
//! often; a normal fallback (2 consecutive failures) resets it to 10. The
//! timer threshold follows the same rule from 15 (as ns-3's
//! `AarfWifiManager`: doubled with the success threshold, reset with it).

use super::arf::{ArfCore, Fallback, SUCCESS_THRESHOLD, TIMER_THRESHOLD};
use super::RateControl;
use crate::mac::frame::MacAddr;
use crate::sim::Time;

/// Upper bound of the doubled success threshold (Lacage et al. 2004).
pub const MAX_SUCCESS_THRESHOLD: u32 = 50;

pub struct Aarf {
    core: ArfCore,
}

impl Aarf {
    pub fn new(rates: Vec<u64>) -> Aarf {
        Aarf { core: ArfCore::new(rates, SUCCESS_THRESHOLD, TIMER_THRESHOLD) }
    }
    /// The success threshold towards `dst` now.
    pub fn success_threshold(&mut self, dst: MacAddr) -> u32 {
        self.core.st.get(dst).success_threshold
    }
}

impl RateControl for Aarf {
    fn data_rate(&mut self, _now: Time, dst: MacAddr, _bytes: u32, _attempt: u32) -> u64 {
        self.core.rate(dst)
    }
    fn on_data_ok(&mut self, _now: Time, dst: MacAddr, _rate: u64, _attempt: u32) {
        self.core.ok(dst);
    }
    fn on_data_failed(&mut self, _now: Time, dst: MacAddr, _rate: u64, _attempt: u32) {
        match self.core.failed(dst) {
            Some(Fallback::Recovery) => {
                let s = self.core.st.get(dst);
                s.success_threshold = (s.success_threshold * 2).min(MAX_SUCCESS_THRESHOLD);
                s.timer_threshold = (s.timer_threshold * 2).max(TIMER_THRESHOLD);
            }
            Some(Fallback::Normal) => {
                let s = self.core.st.get(dst);
                s.success_threshold = SUCCESS_THRESHOLD;
                s.timer_threshold = TIMER_THRESHOLD;
            }
            None => {}
        }
    }
}
