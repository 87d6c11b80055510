//! One-way TCP (ns-2 `Agent/TCP/Reno`, `Agent/TCP/Newreno` + `TCPSink`) as
//! pure, event-free state machines in the style of smoltcp.
//!
//! Nothing here reads a clock or schedules events: every method takes the
//! current [`Time`](crate::sim::Time), timers are deadlines reported by
//! `poll_at`, and the simulator calls `on_timer` when one is due. The
//! simulator's loop for one connection is:
//!
//! - sender: after `TcpSender::new`, and after every `on_segment`,
//!   `on_timer` or `write`, drain `poll_transmit(now)` until `None` and put
//!   each segment on the network; (re)schedule a wake-up at `poll_at()`;
//! - receiver: for each arriving data segment send the `ack` of the
//!   [`RecvOutcome`] (if any) and hand `delivered` bytes to the
//!   application; schedule a wake-up at `poll_at()` and send what
//!   `on_timer` returns.
//!
//! Units: sequence numbers are bytes (first payload byte = 0, no
//! wrap-around); the congestion window is in segments (see
//! [`congestion`]).

mod config;
pub mod congestion;
pub mod endpoint;
mod receiver;
mod rtt;
mod sender;
mod trace;

pub use config::{ElfnConfig, ElfnProbe, ElfnRestore, TcpConfig, TcpRecovery, TcpVariant};
pub use congestion::{AckSample, CcState, CongestionControl, RecoveryStyle};
pub use endpoint::{TcpSink, TcpSource, TcpSummary};
pub use receiver::{RecvOutcome, TcpReceiver};
pub use rtt::RttEstimator;
pub use sender::{DataSource, SenderState, TcpSender};
pub use trace::{ReceiverStats, SenderStats, SeqEvent, SeqRecord, Series, TcpTrace};

#[cfg(test)]
mod tests;
