//! Per-flow statistics (FlowMonitor-like: ns-3's FlowMonitor, Carneiro et
//! al. 2009): counts, first/last times, the one-way delay distribution and
//! jitter, hop counts of delivered packets, drops by node and reason.
//! Fixed-size state: recording a packet allocates nothing (a drop allocates
//! only the first time a (node, reason) pair drops one of the flow's
//! packets).

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
    /// |delay_i - delay_{i-1}| of consecutive received packets, ns (ns-3
    /// FlowMonitor's jitter histogram).
    pub jitter_hist: Histogram,
    prev_delay: Option<u64>,
    /// Longest time between consecutive deliveries so far (ns).
    pub max_gap: u64,
    /// Network-layer deliveries of this flow's data packets at its
    /// destination (duplicates and TCP retransmissions included) and the
    /// sum of their hop counts.
    pub hop_packets: u64,
    pub hop_sum: u64,
    /// Data packets of this flow dropped, by (node, drop reason index);
    /// one entry per (node, reason) that ever dropped one.
    pub drops: std::collections::BTreeMap<(u32, u8), u64>,
}

impl FlowStats {
    pub fn on_sent(&mut self, now: Time, payload: u32) {
        self.sent_packets += 1;
        self.sent_bytes += payload as u64;
        self.first_sent.get_or_insert(now);
        self.last_sent = Some(now);
    }
    pub fn on_received(&mut self, now: Time, created: Time, payload: u32) {
        let d = (now - created).as_ns();
        self.delay.record(d);
        if let Some(p) = self.prev_delay {
            self.jitter_hist.record(d.abs_diff(p));
        }
        self.prev_delay = Some(d);
        self.jitter.record(created.as_secs_f64(), now.as_secs_f64());
        self.received_packets += 1;
        self.received_bytes += payload as u64;
        if let Some(last) = self.last_received {
            self.max_gap = self.max_gap.max((now - last).as_ns());
        }
        self.first_received.get_or_insert(now);
        self.last_received = Some(now);
    }
}

impl FlowStats {
    /// A data packet of this flow reached its destination's network layer
    /// after `hops` hops.
    pub fn on_delivered_hops(&mut self, hops: u32) {
        self.hop_packets += 1;
        self.hop_sum += hops as u64;
    }
    /// A data packet of this flow was dropped at `node` for `reason`.
    pub fn on_dropped(&mut self, node: u32, reason: super::DropReason) {
        *self.drops.entry((node, reason.index() as u8)).or_default() += 1;
    }
}
