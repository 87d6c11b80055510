//! The kernel: integer-nanosecond clock, event queue, named random streams.

pub mod queue;
pub mod rng;
pub mod time;

pub use queue::EventQueue;
pub use rng::{Purpose, RngStream};
pub use time::Time;
