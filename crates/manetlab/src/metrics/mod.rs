//! Measurement: per-flow and per-node counters, drop reasons, statistics.

pub mod drop;

pub use drop::DropReason;
