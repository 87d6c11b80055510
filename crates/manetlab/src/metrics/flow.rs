//! Per-flow statistics (FlowMonitor-like).

use crate::sim::Time;

#[derive(Clone, Debug, Default)]
pub struct FlowStats {
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub received_packets: u64,
    pub received_bytes: u64,
    pub duplicates: u64,
    pub first_sent: Option<Time>,
    pub last_sent: Option<Time>,
    pub first_received: Option<Time>,
    pub last_received: Option<Time>,
    /// One-way delays in nanoseconds, in arrival order.
    pub delays: Vec<u64>,
    /// Sum over consecutive arrivals of |delay_i - delay_{i-1}|.
    pub delay_abs_diff_sum: u128,
    /// RFC 3550 §6.4.1 interarrival jitter estimate, ns.
    pub rfc3550_jitter: f64,
}

impl FlowStats {
    pub fn on_sent(&mut self, now: Time, payload: u32) {
        self.sent_packets += 1;
        self.sent_bytes += payload as u64;
        self.first_sent.get_or_insert(now);
        self.last_sent = Some(now);
    }
    pub fn on_received(&mut self, now: Time, created: Time, payload: u32) {
        let delay = (now - created).as_ns();
        if let Some(&prev) = self.delays.last() {
            let d = delay.abs_diff(prev);
            self.delay_abs_diff_sum += d as u128;
            self.rfc3550_jitter += (d as f64 - self.rfc3550_jitter) / 16.0;
        }
        self.delays.push(delay);
        self.received_packets += 1;
        self.received_bytes += payload as u64;
        self.first_received.get_or_insert(now);
        self.last_received = Some(now);
    }
}
