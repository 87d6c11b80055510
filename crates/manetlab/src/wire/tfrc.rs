//! TFRC packet bodies (RFC 5348 §3.2.1 data, §3.2.2 feedback), carried in UDP.

use crate::sim::Time;

/// A TFRC packet body.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TfrcMsg {
    pub sport: u16,
    pub dport: u16,
    pub kind: TfrcKind,
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TfrcKind {
    /// A data packet: its sequence number, when it was sent, and the
    /// sender's current RTT estimate (zero while unknown).
    Data { seq: u64, ts: Time, rtt: Time },
    /// Receiver feedback: the timestamp of the last data packet received,
    /// the time it was held before this report, the receive rate since the
    /// last report (bytes/s) and the loss event rate.
    Feedback { ts_echo: Time, t_delay: Time, x_recv: f64, p: f64 },
}
