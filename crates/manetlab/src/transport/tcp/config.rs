//! TCP parameters (ns-2 `Agent/TCP` and `Agent/TCPSink` semantics).

pub use super::congestion::TcpVariant;
use crate::sim::Time;

/// What the sender restores when an ACK ends ELFN standby
/// (tcp-manet-elfn.txt figure 13).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum ElfnRestore {
    /// Congestion window and RTO as they were when the notice arrived
    /// (the paper's "ELFN").
    #[default]
    Keep,
    /// Congestion window = 1 segment ("W/ELFN").
    Cwnd1,
    /// Congestion window = 1 and the RTO back to `initial_rto`, the RTT
    /// estimate forgotten ("RTO/W/ELFN").
    Cwnd1Rto,
}

/// Which segment a standby sender sends as its probe
/// (tcp-manet-elfn.txt figure 14).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum ElfnProbe {
    /// The first segment of the window (`snd_una`): "First/ELFN".
    #[default]
    First,
    /// The lowest sequence number reported lost by the notices received in
    /// this standby period (`snd_una` if none is still unacknowledged):
    /// "Lowest Rcvd/ELFN".
    LowestLost,
}

/// How the sender recovers from a loss signalled by duplicate ACKs.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum TcpRecovery {
    /// The variant's own: RFC 5681 fast recovery with window inflation, and
    /// RFC 6582 partial ACKs for the NewReno-style variants (ns-2).
    #[default]
    Classic,
    /// ns-3.37's loss recovery without SACK (`TcpPrrRecovery`, RFC 6937
    /// as ns-3 computes it, over `TcpTxBuffer`'s Reno-SACK scoreboard):
    /// see `sender/ns3.rs`.
    Ns3Prr,
}

/// Explicit Link Failure Notification (tcp-manet-elfn.txt §6): on a notice
/// the sender disables its retransmission timer and enters standby, sending
/// one probe every `probe_interval` until an ACK arrives.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ElfnConfig {
    /// Time between probes, the first one `probe_interval` after the notice.
    pub probe_interval: Time,
    pub restore: ElfnRestore,
    pub probe: ElfnProbe,
}

impl Default for ElfnConfig {
    /// The paper's main setting: 2 s probes, state kept, first segment.
    fn default() -> Self {
        ElfnConfig { probe_interval: Time::from_secs(2), restore: ElfnRestore::Keep, probe: ElfnProbe::First }
    }
}

/// Parameters shared by a sender and its receiver.
///
/// `Default` gives ns-2's values (`tcpTick_` 10 ms, `minrto_` 0.2 s,
/// `maxrto_` 60 s, `rtxcur_init_` 3 s, `window_` 20, `numdupacks_` 3),
/// except `initial_cwnd` = 1 (ns-2's pre-2001 `windowInit_`, used by the
/// papers we reproduce) and `packetSize_` = 1460.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Payload bytes per full segment (ns-2 `packetSize_`: the payload; the
    /// network layer adds TCP/IP headers).
    pub mss: u32,
    /// Largest number of segments in flight (ns-2 `window_`, the receiver's
    /// window as the sender assumes it).
    pub max_window: u32,
    /// Congestion window at start, segments (ns-2 `windowInit_`).
    pub initial_cwnd: u32,
    /// Slow-start threshold at start, segments. `None` = `max_window`, which
    /// is what ns-2's `reset()` does (`ssthresh_ = window_`); use a large
    /// number for RFC 5681's "arbitrarily high" initial value.
    pub initial_ssthresh: Option<u32>,
    /// Window the receiver advertises, bytes (`TcpSeg::wnd`). The default
    /// never limits the sender, as with ns-2's `TCPSink`.
    pub rcv_window: u32,
    /// RTO before any RTT sample (RFC 6298 §2.1).
    pub initial_rto: Time,
    /// Lower bound on the RTO (RFC 6298 §2.4).
    pub min_rto: Time,
    /// Upper bound on the RTO, backoff included (RFC 6298 §2.5).
    pub max_rto: Time,
    /// Clock granularity G of RFC 6298 §2.2 (ns-2 `tcpTick_`).
    pub tick: Time,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681 §3.2).
    pub dupack_threshold: u32,
    /// RFC 3042 limited transmit: one new segment on each of the first two
    /// duplicate ACKs (ns-2 `singledup_`). Off by default.
    pub limited_transmit: bool,
    /// Receiver delays ACKs: one ACK per two full segments, or after
    /// `delack_timeout` (RFC 5681 §4.2; ns-2 `TCPSink/DelAck`).
    pub delayed_ack: bool,
    /// Longest an ACK is delayed.
    pub delack_timeout: Time,
    /// RTT samples from the echoed timestamp on every ACK of new data
    /// outside any recovery (RFC 7323 §4.1; ns-3.37's default `Timestamp`,
    /// `TcpSocketBase::EstimateRtt`), instead of one timed segment per
    /// round trip. Every segment carries the 12-byte option (RFC 7323 §3,
    /// padded as ns-3 pads it).
    pub timestamps: bool,
    /// Every ACK of new data recomputes the RTO from the estimate, ending
    /// any backoff (ns-3.37 `TcpSocketBase::NewAck`); otherwise only a new
    /// RTT sample ends it (RFC 6298 §5.7, ns-2).
    pub rto_reset_on_ack: bool,
    /// Loss recovery on duplicate ACKs.
    pub recovery: TcpRecovery,
    /// Open with SYN, SYN-ACK, ACK. With `false` the sender starts
    /// established, like ns-2's one-way TCP.
    pub handshake: bool,
    pub variant: TcpVariant,
    /// Explicit Link Failure Notification; `None` (default): notices are
    /// neither asked for nor acted on.
    pub elfn: Option<ElfnConfig>,
    /// Record cwnd/ssthresh/srtt/rto series in the sender's trace.
    pub record_series: bool,
    /// Record the time-sequence log in the sender's trace.
    pub record_seq_log: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            max_window: 20,
            initial_cwnd: 1,
            initial_ssthresh: None,
            rcv_window: 1 << 30,
            initial_rto: Time::from_secs(3),
            min_rto: Time::from_ms(200),
            max_rto: Time::from_secs(60),
            tick: Time::from_ms(10),
            dupack_threshold: 3,
            limited_transmit: false,
            delayed_ack: false,
            delack_timeout: Time::from_ms(200),
            timestamps: false,
            rto_reset_on_ack: false,
            recovery: TcpRecovery::Classic,
            handshake: false,
            variant: TcpVariant::default(),
            elfn: None,
            record_series: true,
            record_seq_log: true,
        }
    }
}
