//! The bottom of the house: integer-nanosecond clock, event queue, named
//! random streams, and the vocabulary every layer shares (node ids and
//! addresses, positions, drop reasons, packet uids and fates).

pub mod drop;
pub mod fate;
pub mod idhash;
pub mod params;
pub mod queue;
pub mod rng;
pub mod time;
pub mod vocab;

pub use drop::DropReason;
pub use fate::{Fate, FateTable};
pub use queue::EventQueue;
pub use rng::{Purpose, RngStream};
pub use time::Time;
pub use vocab::{NodeId, Position, BROADCAST, FLOW_NONE};
