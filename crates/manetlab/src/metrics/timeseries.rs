//! Time series: per interval, per flow and per node, recorded by an
//! [`Observer`] that the simulation registers only when
//! `SimConfig::record.interval` is set (`[output] interval = "1s"`,
//! `--interval 1s`). A run without it pays nothing.
//!
//! The intervals cover the measured part of the run: `[warmup, duration)`
//! cut into pieces of `interval` (the last one may be shorter). Per flow
//! and interval: application packets and payload bytes sent and received
//! (first copies), the sum of their one-way delays (for the mean) and data
//! packets dropped; counted exactly as `flows.csv` counts them, so summing
//! a flow's intervals gives its run totals. Per node and interval: the
//! interface queue length (time-weighted mean and maximum), the fraction of
//! the interval the medium was busy for the node's MAC (transmitting, or
//! physical carrier sense busy; virtual carrier sense (NAV) is not
//! counted) and the routing control packets the node transmitted
//! (originated or forwarded: the RTR `s`/`f` events of the ns-2 trace).
//!
//! All storage is allocated at the start; recording an event allocates
//! nothing and touches only the node or flow concerned (intervals a node
//! has no event in are filled when its next event or the end comes).

use super::observe::{Action, FlowEvent, FlowWhat, FrameDir, FrameEvent, Layer, Observer, PacketEvent, QueueEvent};
use crate::config::SimConfig;
use crate::net::NodeId;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// The time series of one run, column vectors indexed by interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeSeries {
    /// Start of the first interval (the warm-up), seconds.
    pub start_s: f64,
    /// Interval length, seconds (the last interval ends at `end_s`).
    pub interval_s: f64,
    /// End of the run, seconds.
    pub end_s: f64,
    pub flows: Vec<FlowSeries>,
    pub nodes: Vec<NodeSeries>,
}

/// One flow's counters per interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlowSeries {
    pub sent_packets: Vec<u64>,
    pub sent_bytes: Vec<u64>,
    pub received_packets: Vec<u64>,
    pub received_bytes: Vec<u64>,
    /// Sum of the one-way delays of the packets received, seconds.
    pub delay_sum_s: Vec<f64>,
    pub dropped_packets: Vec<u64>,
}

/// One node's values per interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeSeries {
    /// Time-weighted mean interface queue length, packets.
    pub queue_mean: Vec<f64>,
    /// Largest interface queue length, packets.
    pub queue_max: Vec<u64>,
    /// Fraction of the interval the medium was busy for the node.
    pub busy_fraction: Vec<f64>,
    /// Routing control packets transmitted (originated or forwarded).
    pub routing_packets: Vec<u64>,
}

impl TimeSeries {
    /// Number of intervals.
    pub fn len(&self) -> usize {
        self.bounds().len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `[start, end)` of every interval, seconds.
    pub fn bounds(&self) -> Vec<(f64, f64)> {
        let n = intervals(self.start_s, self.end_s, self.interval_s);
        (0..n)
            .map(|k| {
                let a = self.start_s + k as f64 * self.interval_s;
                (a, (a + self.interval_s).min(self.end_s))
            })
            .collect()
    }
}

fn intervals(start: f64, end: f64, iv: f64) -> usize {
    if iv <= 0.0 || end <= start {
        return 0;
    }
    ((end - start) / iv - 1e-9).ceil().max(1.0) as usize
}

/// Live per-node state.
#[derive(Clone, Debug, Default)]
struct NodeState {
    /// Interval the accumulators below belong to.
    k: usize,
    /// Time of the last state change, ns.
    last: u64,
    len: usize,
    /// ∫ len dt over the current interval so far, packet·ns.
    area: f64,
    max: usize,
    sensed: bool,
    tx_until: u64,
    busy_ns: u64,
}

/// The recorder ([`Observer`]). Created by the simulation when
/// `SimConfig::record.interval` is set; its [`Observer::report`] puts the
/// [`TimeSeries`] into `Report::timeseries`.
pub struct TimeSeriesRecorder {
    interval: u64,
    start: u64,
    end: u64,
    n: usize,
    nodes: Vec<NodeState>,
    out: TimeSeries,
}

impl TimeSeriesRecorder {
    pub fn new(interval: Time) -> TimeSeriesRecorder {
        TimeSeriesRecorder {
            interval: interval.as_ns().max(1),
            start: 0,
            end: 0,
            n: 0,
            nodes: Vec::new(),
            out: TimeSeries::default(),
        }
    }

    /// The interval containing `t` (ns), if `t` is in the measured part.
    #[inline]
    fn slot(&self, t: u64) -> Option<usize> {
        (t >= self.start && t <= self.end && self.n > 0)
            .then(|| (((t - self.start) / self.interval) as usize).min(self.n - 1))
    }

    fn bounds(&self, k: usize) -> (u64, u64) {
        let a = self.start + k as u64 * self.interval;
        (a, (a + self.interval).min(self.end))
    }

    /// Accounts node `i`'s state from its last change up to `t` (ns),
    /// closing every interval passed on the way.
    fn advance(&mut self, i: usize, t: u64) {
        let t = t.min(self.end);
        if t <= self.start || self.n == 0 {
            // Before the measured part: only the state matters.
            self.nodes[i].last = t;
            return;
        }
        loop {
            let s = &mut self.nodes[i];
            let from = s.last.max(self.start);
            let b = (self.start + (s.k as u64 + 1) * self.interval).min(self.end);
            let upto = t.min(b);
            if upto > from {
                let d = upto - from;
                s.area += s.len as f64 * d as f64;
                s.busy_ns += if s.sensed { d } else { s.tx_until.clamp(from, upto) - from };
                s.last = upto;
            }
            if t < b || s.k + 1 >= self.n {
                break;
            }
            // Interval k is complete: store it and open the next.
            self.close(i);
        }
    }

    fn close(&mut self, i: usize) {
        let k = self.nodes[i].k;
        let (a, b) = self.bounds(k);
        let len_ns = (b - a).max(1) as f64;
        let s = &mut self.nodes[i];
        let o = &mut self.out.nodes[i];
        o.queue_mean[k] = s.area / len_ns;
        o.queue_max[k] = s.max as u64;
        o.busy_fraction[k] = s.busy_ns as f64 / len_ns;
        s.k = k + 1;
        s.area = 0.0;
        s.busy_ns = 0;
        s.max = s.len;
        s.last = s.last.max(b);
    }
}

impl Observer for TimeSeriesRecorder {
    fn start(&mut self, cfg: &SimConfig) {
        self.start = cfg.warmup.as_ns();
        self.end = cfg.duration.as_ns();
        let (a, b, iv) = (self.start as f64 / 1e9, self.end as f64 / 1e9, self.interval as f64 / 1e9);
        self.n = intervals(a, b, iv);
        let n = self.n;
        self.out = TimeSeries {
            start_s: a,
            interval_s: iv,
            end_s: b,
            flows: (0..cfg.flows.len())
                .map(|_| FlowSeries {
                    sent_packets: vec![0; n],
                    sent_bytes: vec![0; n],
                    received_packets: vec![0; n],
                    received_bytes: vec![0; n],
                    delay_sum_s: vec![0.0; n],
                    dropped_packets: vec![0; n],
                })
                .collect(),
            nodes: (0..cfg.nodes.len())
                .map(|_| NodeSeries {
                    queue_mean: vec![0.0; n],
                    queue_max: vec![0; n],
                    busy_fraction: vec![0.0; n],
                    routing_packets: vec![0; n],
                })
                .collect(),
        };
        self.nodes = vec![NodeState::default(); cfg.nodes.len()];
    }

    fn flow(&mut self, ev: &FlowEvent) {
        let Some(k) = self.slot(ev.time.as_ns()) else { return };
        let Some(f) = self.out.flows.get_mut(ev.flow as usize) else { return };
        match ev.what {
            FlowWhat::Sent { payload } => {
                f.sent_packets[k] += 1;
                f.sent_bytes[k] += payload as u64;
            }
            FlowWhat::Received { created, payload, first: true } => {
                f.received_packets[k] += 1;
                f.received_bytes[k] += payload as u64;
                f.delay_sum_s[k] += (ev.time - created).as_secs_f64();
            }
            FlowWhat::Received { first: false, .. } => {}
            FlowWhat::Dropped { .. } => f.dropped_packets[k] += 1,
            FlowWhat::Hops { .. } | FlowWhat::Delivered { .. } => {}
        }
    }

    fn packet(&mut self, ev: &PacketEvent) {
        if ev.layer == Layer::Router && matches!(ev.action, Action::Send | Action::Forward) && ev.pkt.is_control() {
            if let (Some(k), Some(n)) = (self.slot(ev.time.as_ns()), self.out.nodes.get_mut(ev.node as usize)) {
                n.routing_packets[k] += 1;
            }
        }
    }

    fn queue(&mut self, ev: &QueueEvent) {
        let i = ev.node as usize;
        if i >= self.nodes.len() {
            return;
        }
        self.advance(i, ev.time.as_ns());
        let before = ev.time.as_ns() < self.start;
        let s = &mut self.nodes[i];
        s.len = ev.len;
        s.max = if before { ev.len } else { s.max.max(ev.len) };
    }

    fn frame(&mut self, ev: &FrameEvent) {
        let i = ev.node as usize;
        if ev.dir != FrameDir::Tx || i >= self.nodes.len() {
            return;
        }
        self.advance(i, ev.time.as_ns());
        let s = &mut self.nodes[i];
        s.tx_until = s.tx_until.max((ev.time + ev.duration).as_ns());
    }

    fn medium(&mut self, time: Time, node: NodeId, busy: bool) {
        let i = node as usize;
        if i >= self.nodes.len() {
            return;
        }
        self.advance(i, time.as_ns());
        self.nodes[i].sensed = busy;
    }

    fn report(&mut self, report: &mut crate::Report) {
        for i in 0..self.nodes.len() {
            if self.n > 0 {
                self.advance(i, self.end);
                if self.nodes[i].k < self.n {
                    self.close(i);
                }
            }
        }
        report.timeseries = Some(std::mem::take(&mut self.out));
    }
}
