//! Congestion control: the window arithmetic of each TCP variant.
//!
//! The sender owns the loss-detection machinery (duplicate-ACK counting,
//! the RFC 6582 `recover` point, retransmissions, timers) and calls the
//! hooks of a [`CongestionControl`] at each congestion event; the hooks
//! change the shared [`CcState`]. A variant overrides only what differs.
//!
//! **Unit: `cwnd` and `ssthresh` are in segments (packets of `mss`
//! payload bytes), as `f64`**, like ns-2's `cwnd_`: congestion avoidance
//! grows it by fractions of a segment, the sender uses `floor(cwnd)`
//! segments, and `max_window` (ns-2 `window_`) is in the same unit.
//!
//! Like ns-2 (`maxcwnd_` = 0) the congestion window is not capped by
//! `max_window`; only sending is.

mod compound;
mod cubic;
mod newreno;
mod reno;
mod vegas;
mod westwood;

pub use compound::Compound;
pub use cubic::Cubic;
pub use newreno::NewReno;
pub use reno::{reno_increase, Reno};
pub use vegas::Vegas;
pub use westwood::WestwoodPlus;

use crate::sim::Time;
use std::fmt;

/// Congestion state shared by the sender and its [`CongestionControl`].
#[derive(Clone, Debug, PartialEq)]
pub struct CcState {
    /// Congestion window, segments. During fast recovery it includes the
    /// RFC 5681 §3.2 inflation by duplicate ACKs.
    pub cwnd: f64,
    /// Slow-start threshold, segments.
    pub ssthresh: f64,
    /// Payload bytes per full segment.
    pub mss: u32,
    /// Duplicate-ACK threshold (inflation applied on fast retransmit).
    pub dupack_threshold: u32,
}

impl CcState {
    /// RFC 5681 §3.1: slow start while cwnd < ssthresh.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What one ACK acknowledged.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct AckSample {
    /// Newly acknowledged payload bytes (0 for a duplicate ACK).
    pub bytes: u64,
    /// The same in segments (`bytes / mss`, fractional for short segments).
    pub segments: f64,
    /// A valid (Karn) RTT measurement taken from this ACK, if any.
    pub rtt: Option<Time>,
}

/// How the sender leaves fast recovery.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RecoveryStyle {
    /// RFC 5681: the first ACK of new data ends fast recovery.
    Reno,
    /// RFC 6582: a partial ACK retransmits the next hole and recovery lasts
    /// until everything sent before the loss (`recover`) is acknowledged.
    NewReno,
}

/// Window arithmetic of a TCP variant (cf. ns-3 `TcpCongestionOps`).
///
/// `flight` arguments are the segments outstanding when the event
/// happened (`ceil((snd_nxt - snd_una) / mss)`), RFC 5681's FlightSize.
/// Defaults implement RFC 5681 Reno arithmetic; only `on_ack` is required.
pub trait CongestionControl: fmt::Debug + Send {
    /// Short name for traces ("reno", "newreno", ...).
    fn name(&self) -> &'static str;

    /// How fast recovery ends.
    fn recovery_style(&self) -> RecoveryStyle;

    /// An ACK of new data arrived outside fast recovery: grow the window
    /// (slow start / congestion avoidance, RFC 5681 §3.1).
    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample, now: Time);

    /// A valid RTT measurement was taken (delay-based variants). Called
    /// before the `on_ack`/`on_partial_ack` of the same ACK. The sender
    /// times one segment at a time (the next new segment sent after the
    /// previous measurement completes), so samples arrive about once per
    /// round trip: Vegas and Compound make their per-RTT decision here.
    fn on_rtt_sample(&mut self, _st: &mut CcState, _rtt: Time, _now: Time) {}

    /// Any ACK reached the established sender (new or duplicate), before
    /// every other hook of the same ACK. `newly_acked` is the number of
    /// bytes it acknowledges for the first time (0 for a duplicate). For
    /// ACK-rate estimators (Westwood+), which must also count duplicates
    /// and ACKs during recovery, when `on_ack` is not called.
    fn on_ack_arrival(&mut self, _st: &mut CcState, _newly_acked: u64, _now: Time) {}

    /// The new ssthresh after a loss: RFC 5681 eq. (4),
    /// max(FlightSize/2, 2) segments, rounded down to a whole segment as
    /// ns-2 does.
    fn ssthresh_on_loss(&self, _st: &CcState, flight: f64) -> f64 {
        (flight / 2.0).floor().max(2.0)
    }

    /// Third duplicate ACK: fast retransmit is being sent
    /// (RFC 5681 §3.2 steps 2–3): ssthresh from the flight size,
    /// cwnd = ssthresh + dupack_threshold.
    fn on_triple_dupack(&mut self, st: &mut CcState, flight: f64, _now: Time) {
        st.ssthresh = self.ssthresh_on_loss(st, flight);
        st.cwnd = st.ssthresh + st.dupack_threshold as f64;
    }

    /// A duplicate ACK that did not trigger fast retransmit. In fast
    /// recovery each one inflates cwnd by a segment (RFC 5681 §3.2 step 4).
    fn on_dupack(&mut self, st: &mut CcState, in_recovery: bool, _now: Time) {
        if in_recovery {
            st.cwnd += 1.0;
        }
    }

    /// A partial ACK during NewReno fast recovery (RFC 6582 §3.2 step 5):
    /// deflate cwnd by the newly acknowledged amount and add back one
    /// segment if at least one full segment was acknowledged.
    fn on_partial_ack(&mut self, st: &mut CcState, ack: &AckSample, _now: Time) {
        st.cwnd -= ack.segments;
        if ack.bytes >= st.mss as u64 {
            st.cwnd += 1.0;
        }
        st.cwnd = st.cwnd.max(1.0);
    }

    /// Fast recovery ends: deflate to ssthresh (RFC 5681 §3.2 step 6;
    /// RFC 6582 §3.2 step 6, option 2, as ns-2).
    fn on_recovery_exit(&mut self, st: &mut CcState, _now: Time) {
        st.cwnd = st.ssthresh;
    }

    /// Retransmission timeout (RFC 5681 §3.1 eq. (4)): ssthresh from the
    /// flight size, cwnd = 1 segment (the loss window).
    fn on_timeout(&mut self, st: &mut CcState, flight: f64, _now: Time) {
        st.ssthresh = self.ssthresh_on_loss(st, flight);
        st.cwnd = 1.0;
    }
}
