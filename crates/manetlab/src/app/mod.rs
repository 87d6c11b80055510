//! Applications: traffic sources that decide when packets leave and how big
//! they are. A transport endpoint asks its source for each departure.

pub mod beacon;
pub mod cbr;
pub mod quality;
pub mod voip;

pub use cbr::{BurstyCbr, Cbr};

use crate::sim::{RngStream, Time};

pub trait TrafficSource: Send {
    /// The time of the next packet, given the current time; None = done.
    fn next_departure(&mut self, now: Time, rng: &mut RngStream) -> Option<Time>;
    /// Payload bytes of packet number `seq`.
    fn payload_bytes(&self, seq: u64) -> u32;
}
