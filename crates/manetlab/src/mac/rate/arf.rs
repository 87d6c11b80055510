//! Auto Rate Fallback (ARF): A. Kamerman and L. Monteban, "WaveLAN-II: a
//! high-performance wireless LAN for the unlicensed band", Bell Labs
//! Technical Journal, 1997, as described by Lacage et al. (MSWiM 2004)
//! and ns-3's `ArfWifiManager` (read for the semantics, not copied):
//!
//! * after [`SUCCESS_THRESHOLD`] (10) consecutive acknowledged attempts, or
//!   when the timer expires ([`TIMER_THRESHOLD`] = 15 attempts at the
//!   current rate since the last change, counted in attempts as ns-3
//!   does), the next higher rate is tried;
//! * the first attempt after moving up is a *probe*: if it fails, the rate
//!   falls back at once (recovery fallback);
//! * otherwise the rate falls one step after 2 consecutive failed attempts
//!   (and again after every further 2, as the original description; ns-3's
//!   implementation handles a long run of failures differently and may
//!   fall less far).
//!
//! The state machine is shared with AARF (`aarf.rs`), which only changes
//! the thresholds on a failed probe and on a normal fallback.

use super::{PerNeighbour, RateControl};
use crate::mac::frame::MacAddr;
use crate::sim::Time;

/// Consecutive successes that move the rate up.
pub const SUCCESS_THRESHOLD: u32 = 10;
/// Attempts at one rate after which the rate moves up anyway.
pub const TIMER_THRESHOLD: u32 = 15;

/// One neighbour's ARF state.
#[derive(Clone, Debug)]
pub struct ArfState {
    /// Index into the rate set.
    pub rate: usize,
    pub success: u32,
    /// Consecutive failed attempts.
    pub failed: u32,
    pub timer: u32,
    /// The last change was a move up: the next attempt is a probe.
    pub recovery: bool,
    pub success_threshold: u32,
    pub timer_threshold: u32,
}

/// What happened, for the AARF threshold policy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fallback {
    /// The probe after a move up failed.
    Recovery,
    /// Two consecutive failures at a rate that was not being probed.
    Normal,
}

/// The ARF state machine with a hook on fallbacks.
#[derive(Clone, Debug)]
pub struct ArfCore {
    pub rates: Vec<u64>,
    pub st: PerNeighbour<ArfState>,
}

impl ArfCore {
    /// Starts every neighbour at the highest rate (the cards' behaviour).
    pub fn new(rates: Vec<u64>, success_threshold: u32, timer_threshold: u32) -> ArfCore {
        let top = rates.len() - 1;
        ArfCore {
            rates,
            st: PerNeighbour::new(ArfState {
                rate: top,
                success: 0,
                failed: 0,
                timer: 0,
                recovery: false,
                success_threshold,
                timer_threshold,
            }),
        }
    }

    pub fn rate(&mut self, dst: MacAddr) -> u64 {
        let i = self.st.get(dst).rate;
        self.rates[i]
    }

    pub fn ok(&mut self, dst: MacAddr) {
        let top = self.rates.len() - 1;
        let s = self.st.get(dst);
        s.timer += 1;
        s.success += 1;
        s.failed = 0;
        s.recovery = false;
        if (s.success >= s.success_threshold || s.timer >= s.timer_threshold) && s.rate < top {
            s.rate += 1;
            s.timer = 0;
            s.success = 0;
            s.recovery = true;
        }
    }

    /// A failed attempt; returns the fallback it caused, if any.
    pub fn failed(&mut self, dst: MacAddr) -> Option<Fallback> {
        let s = self.st.get(dst);
        s.timer += 1;
        s.failed += 1;
        s.success = 0;
        if s.recovery {
            // The probe failed: straight back down.
            s.recovery = false;
            s.timer = 0;
            if s.rate > 0 {
                s.rate -= 1;
            }
            s.failed = 0;
            return Some(Fallback::Recovery);
        }
        if s.failed >= 2 {
            s.failed = 0;
            s.timer = 0;
            if s.rate > 0 {
                s.rate -= 1;
            }
            return Some(Fallback::Normal);
        }
        None
    }
}

pub struct Arf {
    core: ArfCore,
}

impl Arf {
    pub fn new(rates: Vec<u64>) -> Arf {
        Arf { core: ArfCore::new(rates, SUCCESS_THRESHOLD, TIMER_THRESHOLD) }
    }
}

impl RateControl for Arf {
    fn data_rate(&mut self, _now: Time, dst: MacAddr, _bytes: u32, _attempt: u32) -> u64 {
        self.core.rate(dst)
    }
    fn on_data_ok(&mut self, _now: Time, dst: MacAddr, _rate: u64, _attempt: u32) {
        self.core.ok(dst);
    }
    fn on_data_failed(&mut self, _now: Time, dst: MacAddr, _rate: u64, _attempt: u32) {
        self.core.failed(dst);
    }
}
