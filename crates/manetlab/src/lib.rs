//! manetlab: a deterministic packet-level simulator for multi-hop 802.11 ad
//! hoc networks.
//!
//! The modules mirror the protocol stack, bottom up:
//! - [`sim`]: integer-nanosecond clock, event queue, named random streams;
//! - [`phy`]: propagation, the shared channel, each node's radio;
//! - [`mac`]: IEEE 802.11 DCF;
//! - [`queue`]: interface queue disciplines;
//! - [`net`]: packets, forwarding and routing protocols;
//! - [`transport`]: UDP and TCP endpoints;
//! - [`app`]: traffic sources and sinks;
//! - [`mobility`]: node movement;
//! - [`metrics`]: counters, per-flow statistics, drop accounting;
//! - [`scenario`]: scenario files, validation, building a run;
//! - [`study`]: the experiment kit (sweeps, statistics, figures, the study
//!   trait and report builder); the paper reproductions are in the
//!   `manetlab-studies` crate.
//!
//! [`config::SimConfig`] describes one run; `Simulation` executes it.

pub mod app;
pub mod config;
pub mod mac;
pub mod metrics;
pub mod mobility;
pub mod net;
pub mod node;
pub mod phy;
pub mod queue;
pub mod scenario;
pub mod sim;
pub mod simulation;
pub mod study;
pub mod transport;
pub use config::SimConfig;
pub use metrics::Report;
pub use simulation::{BuildError, Simulation};
