//! Per-flow statistics (FlowMonitor-like): counts, first/last times, the
//! one-way delay distribution and jitter. Fixed-size state: recording a
//! packet allocates nothing.

use super::stats::{Histogram, Jitter};
use crate::sim::Time;

#[derive(Clone, Debug, Default)]
pub struct FlowStats {
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub received_packets: u64,
    pub received_bytes: u64,
    pub duplicates: u64,
    /// Datagrams the application offered but backpressure did not let it
    /// inject (counted in `sent_packets` too).
    pub not_injected: u64,
    pub first_sent: Option<Time>,
    pub last_sent: Option<Time>,
    pub first_received: Option<Time>,
    pub last_received: Option<Time>,
    /// One-way delays, nanoseconds.
    pub delay: Histogram,
    /// Jitter over one-way delays, seconds.
    pub jitter: Jitter,
}

impl FlowStats {
    pub fn on_sent(&mut self, now: Time, payload: u32) {
        self.sent_packets += 1;
        self.sent_bytes += payload as u64;
        self.first_sent.get_or_insert(now);
        self.last_sent = Some(now);
    }
    pub fn on_received(&mut self, now: Time, created: Time, payload: u32) {
        self.delay.record((now - created).as_ns());
        self.jitter.record(created.as_secs_f64(), now.as_secs_f64());
        self.received_packets += 1;
        self.received_bytes += payload as u64;
        self.first_received.get_or_insert(now);
        self.last_received = Some(now);
    }
}
