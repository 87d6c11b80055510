//! Measurement: per-flow statistics, per-node counters, packet fates and
//! the end-of-run report.

pub mod analytic;
pub mod flow;
pub mod linkview;
pub mod observe;
pub mod path;
mod path_incr;
pub mod report;
pub mod stats;
pub mod timeseries;
pub mod trace;
pub mod trace_dsr;
pub mod trace_ns2;
pub mod trace_payload;
pub mod trace_pcap;
pub mod viz;
pub mod voip;

pub use crate::sim::{drop, fate};
pub use crate::sim::{DropReason, Fate, FateTable};
pub use flow::FlowStats;
pub use report::{Audit, FlowReport, NodeReport, Report};

use crate::sim::Time;

/// Live measurement state of a run.
pub struct Metrics {
    /// Events before this time are not counted in flow statistics.
    pub warmup: Time,
    pub flows: Vec<FlowStats>,
    pub fate: FateTable,
}

impl Metrics {
    pub fn new(warmup: Time, flows: usize) -> Metrics {
        Metrics { warmup, flows: (0..flows).map(|_| FlowStats::default()).collect(), fate: FateTable::default() }
    }
    pub fn flow_sent(&mut self, flow: u32, now: Time, payload: u32) {
        if now >= self.warmup {
            if let Some(f) = self.flows.get_mut(flow as usize) {
                f.on_sent(now, payload);
            }
        }
    }
    /// A data packet of `flow` reached the flow's destination after `hops`
    /// hops (counted after the warm-up).
    pub fn flow_hops(&mut self, flow: u32, now: Time, hops: u32) {
        if now >= self.warmup {
            if let Some(f) = self.flows.get_mut(flow as usize) {
                f.on_delivered_hops(hops);
            }
        }
    }
    /// A data packet of `flow` was dropped at `node` (counted after the
    /// warm-up).
    pub fn flow_dropped(&mut self, flow: u32, now: Time, node: u32, why: DropReason) {
        if now >= self.warmup {
            if let Some(f) = self.flows.get_mut(flow as usize) {
                f.on_dropped(node, why);
            }
        }
    }
    /// Payload reached the application (`first` = not a duplicate).
    /// Everything received after the warm-up counts, whenever it was sent.
    pub fn flow_received(&mut self, flow: u32, now: Time, created: Time, payload: u32, first: bool) {
        if now < self.warmup {
            return;
        }
        if let Some(f) = self.flows.get_mut(flow as usize) {
            if first {
                f.on_received(now, created, payload);
            } else {
                f.duplicates += 1;
            }
        }
    }
}

/// The flow statistics and the fate table are the first, built-in
/// observer: `simulation/observe.rs` calls this statically (no virtual
/// call) before any registered observer, for every flow event.
impl observe::Observer for Metrics {
    /// Always inlined into `Observers::flow` (itself always inlined): each
    /// call site names one `FlowWhat`, so only its arm is left.
    #[inline(always)]
    fn flow(&mut self, ev: &observe::FlowEvent) {
        use observe::FlowWhat;
        match ev.what {
            FlowWhat::Sent { payload } => self.flow_sent(ev.flow, ev.time, payload),
            FlowWhat::Received { created, payload, first } => {
                self.flow_received(ev.flow, ev.time, created, payload, first)
            }
            FlowWhat::Hops { hops } => self.flow_hops(ev.flow, ev.time, hops),
            FlowWhat::Dropped { node, why, uid } => {
                self.fate.dropped(uid, why);
                self.flow_dropped(ev.flow, ev.time, node, why);
                if why == DropReason::Bps {
                    // Refused at the source, whatever the warm-up.
                    if let Some(s) = self.flows.get_mut(ev.flow as usize) {
                        s.not_injected += 1;
                    }
                }
            }
            FlowWhat::Delivered { uid } => {
                self.fate.delivered(uid);
            }
        }
    }
}

impl crate::transport::FlowRecorder for Metrics {
    fn flow_sent(&mut self, flow: u32, now: Time, payload: u32) {
        Metrics::flow_sent(self, flow, now, payload)
    }
    fn flow_received(&mut self, flow: u32, now: Time, created: Time, payload: u32, first: bool) {
        Metrics::flow_received(self, flow, now, created, payload, first)
    }
    fn fate(&mut self) -> &mut FateTable {
        &mut self.fate
    }
}

#[cfg(test)]
mod tests {
    use super::Metrics;
    use crate::sim::Time;
    use crate::transport::FlowRecorder;

    /// `create_sent` and `delivered_received` record what the two calls
    /// they stand for recorded (uids, fates, every flow statistic),
    /// duplicates and the warm-up included.
    #[test]
    fn one_call_records_what_the_two_calls_recorded() {
        let (mut a, mut b) = (Metrics::new(Time(20), 2), Metrics::new(Time(20), 2));
        for i in 0..40u64 {
            let (now, flow, payload) = (Time(i * 3), (i % 2) as u32, 100 + i as u32);
            let ua = a.create_sent(flow, now, payload);
            let ub = b.fate().create(now);
            b.flow_sent(flow, now, payload);
            assert_eq!(ua, ub);
        }
        for (k, uid) in [3u64, 7, 7, 12, 3, 39, 0, 21, 22].into_iter().enumerate() {
            let (now, created, flow) = (Time(10 + k as u64 * 11), Time(uid * 3), (uid % 2) as u32);
            let fa = a.delivered_received(uid, flow, now, created, 64 + k as u32);
            let fb = b.fate().delivered(uid);
            b.flow_received(flow, now, created, 64 + k as u32, fb);
            assert_eq!(fa, fb, "uid {uid}");
        }
        assert!(a.fate.iter().eq(b.fate.iter()) && a.fate.len() == 40);
        for (x, y) in a.flows.iter().zip(&b.flows) {
            assert_eq!(format!("{x:?}"), format!("{y:?}"));
            assert!(x.delay == y.delay && x.jitter_hist == y.jitter_hist && x.jitter == y.jitter);
            assert!(x.sent_packets > 0 && x.received_packets > 0);
        }
        assert_eq!(a.flows.iter().map(|f| f.duplicates).sum::<u64>(), 2);
    }
}
