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

pub use reno::reno_increase;

/// The registry of congestion controllers: one line per controller, naming
/// the [`TcpVariant`] it is selected by and the module and type
/// implementing [`CongestionModel`] (its scenario names and how a fresh
/// instance is built). The macro declares the module, re-exports the type,
/// and generates `TcpVariant`, its `build`/`name` dispatch and
/// [`TcpVariant::NAMES`], the table the scenario parser reads
/// (`flow.N.variant`); nothing else in the tree names a controller.
macro_rules! controllers {
    ($( $(#[$doc:meta])* $variant:ident => $module:ident :: $model:ident, )*) => {
        $( mod $module; pub use $module::$model; )*

        /// Which congestion-control / loss-recovery variant a sender runs:
        /// one variant per registered controller.
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum TcpVariant {
            $( $(#[$doc])* $variant, )*
        }

        impl TcpVariant {
            /// Every registered variant, in registration order.
            pub const ALL: &'static [TcpVariant] = &[$( TcpVariant::$variant, )*];

            /// A fresh congestion-control instance for this variant.
            pub fn build(self) -> Box<dyn CongestionControl> {
                match self {
                    $( TcpVariant::$variant => <$module::$model as CongestionModel>::build(), )*
                }
            }

            /// Canonical scenario name (the first of the model's `NAMES`).
            pub fn name(self) -> &'static str {
                match self {
                    $( TcpVariant::$variant => <$module::$model as CongestionModel>::NAMES[0], )*
                }
            }

            /// Every variant with its scenario name (`variant = "..."`):
            /// first every canonical name in registration order, then the
            /// aliases.
            pub const NAMES: &'static [(&'static str, TcpVariant)] = &{
                const N: usize = 0 $( + <$module::$model as CongestionModel>::NAMES.len() )*;
                let mut t: [(&'static str, TcpVariant); N] = [("", TcpVariant::DEFAULT); N];
                let mut i = 0;
                $(
                    t[i] = (<$module::$model as CongestionModel>::NAMES[0], TcpVariant::$variant);
                    i += 1;
                )*
                $(
                    let names = <$module::$model as CongestionModel>::NAMES;
                    let mut j = 1;
                    while j < names.len() {
                        t[i] = (names[j], TcpVariant::$variant);
                        i += 1;
                        j += 1;
                    }
                )*
                assert!(i == N);
                t
            };
        }
    };
}

controllers! {
    /// RFC 5681 fast retransmit / fast recovery; recovery ends on the first
    /// new ACK (ns-2 `Agent/TCP/Reno`).
    Reno => reno::Reno,
    /// RFC 6582 partial-ACK handling (ns-2 `Agent/TCP/Newreno`).
    #[default]
    NewReno => newreno::NewReno,
    /// Delay-based: keeps 1..3 segments queued (`congestion/vegas.rs`).
    Vegas => vegas::Vegas,
    /// Loss window from the ACK-rate bandwidth estimate
    /// (`congestion/westwood.rs`).
    WestwoodPlus => westwood::WestwoodPlus,
    /// RFC 9438 (`congestion/cubic.rs`).
    Cubic => cubic::Cubic,
    /// ns-3.37's `TcpCubic`, ns-3's default (`congestion/cubic_ns3.rs`).
    Ns3Cubic => cubic_ns3::Ns3Cubic,
    /// Loss window plus delay window (`congestion/compound.rs`).
    Compound => compound::Compound,
    /// RFC 3649 (`congestion/highspeed.rs`).
    HighSpeed => highspeed::HighSpeed,
}

impl TcpVariant {
    /// The default variant as a constant (the table above starts from it).
    const DEFAULT: TcpVariant = TcpVariant::NewReno;
}

/// A congestion controller as the scenario file and the sender see it,
/// implemented beside the controller and registered in [`controllers!`].
pub trait CongestionModel {
    /// Its names in scenario files (`flow.N.variant`), case-insensitive:
    /// the canonical one first (reports, `TcpVariant::name`), then aliases.
    const NAMES: &'static [&'static str];
    /// A fresh instance for one sender.
    fn build() -> Box<dyn CongestionControl>;
}

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

/// Any ACK that reached the established sender (new or duplicate).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct AckArrival {
    /// Bytes it acknowledges for the first time (0 for a duplicate).
    pub newly_acked: u64,
    /// Its cumulative acknowledgment (the sender's `snd_una` after it).
    pub ack: u64,
    /// One past the highest byte the sender has sent.
    pub snd_max: u64,
    /// Round-trip time from the echoed timestamp (RFC 7323 §4: now − the
    /// send time the receiver echoes), on ACKs of new data while the
    /// sender is recovering from no loss (as ns-3 keeps no sample of a
    /// retransmitted segment); `None` otherwise.
    pub echo_rtt: Option<Time>,
}

impl AckArrival {
    /// An arrival that acknowledges `bytes` (sequence numbers, RTT unknown).
    pub fn bytes(bytes: u64) -> Self {
        AckArrival { newly_acked: bytes, ..Default::default() }
    }
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
    /// every other hook of the same ACK. For ACK-rate estimators
    /// (Westwood+), which must also count duplicates and ACKs during
    /// recovery, when `on_ack` is not called, and for controllers that act
    /// on every ACK's sequence numbers and timestamp RTT (ns-3's CUBIC).
    fn on_ack_arrival(&mut self, _st: &mut CcState, _arrival: &AckArrival, _now: Time) {}

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
