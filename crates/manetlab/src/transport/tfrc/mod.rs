//! TCP-Friendly Rate Control (RFC 5348): an equation-based, rate-paced
//! unicast transport, and the application that feeds it.
//!
//! - `equation.rs`: the TCP throughput equation (t_RTO = 4R) and its inverse;
//! - `loss.rs`: the receiver's loss-interval history and average;
//! - `sender.rs`: rate control (slow start, receive-rate limit, the
//!   no-feedback timer), pacing, and the application offering data at a
//!   given rate;
//! - `receiver.rs`: loss detection, loss events, feedback once per RTT.
//!
//! See `docs/tfrc.md`.

pub mod equation;
pub mod loss;
pub mod receiver;
pub mod sender;

pub use crate::wire::tfrc::{TfrcKind, TfrcMsg};
pub use receiver::TfrcReceiver;
pub use sender::{TfrcSender, TfrcSummary};

use crate::sim::Time;

/// TFRC data header above UDP: sequence number, timestamp and the
/// sender's RTT estimate (RFC 5348 §3.2.1), 4 bytes each.
pub const DATA_HEADER_BYTES: u32 = 12;
/// Feedback above UDP: timestamp echo, t_delay, X_recv and p (§3.2.2).
pub const FEEDBACK_BYTES: u32 = 16;

#[derive(Clone, Debug, PartialEq)]
pub struct TfrcConfig {
    /// Payload bytes of every data packet: the fixed packet size `s` of
    /// the equation.
    pub packet_size: u32,
    /// History discounting of the loss intervals (RFC 5348 §5.5).
    pub history_discounting: bool,
    /// Packets the application may queue while TFRC holds them back; more
    /// are discarded by the application (counted, not packets yet).
    pub app_buffer: u32,
    /// Maximum back-off interval t_mbi (RFC 5348: 64 s).
    pub t_mbi: Time,
    /// Oscillation prevention (RFC 5348 §4.5): pace at X * sqrt-mean-RTT /
    /// sqrt(latest RTT sample), so a growing queue slows the sender at once.
    pub oscillation_prevention: bool,
    /// Record the allowed rate at each change (tests, plots).
    pub record_rate: bool,
}

impl Default for TfrcConfig {
    fn default() -> Self {
        TfrcConfig {
            packet_size: 1000,
            history_discounting: true,
            app_buffer: 100,
            t_mbi: Time::from_secs(64),
            oscillation_prevention: true,
            record_rate: false,
        }
    }
}
