//! Measurement: per-flow and per-node counters, drop reasons, statistics.

pub mod analytic;
pub mod drop;
pub mod stats;

pub use drop::DropReason;
