//! The end-of-run report: per-flow and per-node results and the packet
//! audit. Contains only simulated quantities (no wall-clock time), so two
//! runs with the same scenario and seed produce identical reports.

use crate::mac::dcf::MacStats;
use crate::net::routing::RoutingStats;
use crate::phy::radio::RadioStats;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize, PartialEq, Deserialize)]
pub struct FlowReport {
    pub id: u32,
    pub name: String,
    pub kind: String,
    pub src: u32,
    pub dst: u32,
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub received_packets: u64,
    pub received_bytes: u64,
    pub duplicates: u64,
    /// Datagrams the application offered that backpressure kept it from
    /// injecting (included in `sent_packets`).
    pub not_injected: u64,
    /// received / sent packets; `None` (null) when nothing was sent.
    pub delivery_ratio: Option<f64>,
    /// Application payload bits received per second of the measured interval.
    pub goodput_bps: f64,
    /// Application payload bits sent per second of the measured interval.
    pub offered_bps: f64,
    /// One-way delay of the received packets: mean, median, 95th
    /// percentile, maximum. `None` (null in JSON, empty in CSV) when the
    /// flow delivered nothing: an undefined statistic is never 0.
    pub delay_mean_s: Option<f64>,
    pub delay_p50_s: Option<f64>,
    pub delay_p95_s: Option<f64>,
    pub delay_max_s: Option<f64>,
    /// Mean |d_i - d_{i-1}| over consecutive received packets; `None` with
    /// fewer than two received packets.
    pub jitter_s: Option<f64>,
    /// RFC 3550 interarrival jitter at the end of the run; `None` with
    /// fewer than two received packets.
    pub jitter_rfc3550_s: Option<f64>,
    /// Times of the first and last packet sent and received in the
    /// measured interval, seconds of simulated time; `None` if none.
    pub first_sent_s: Option<f64>,
    pub last_sent_s: Option<f64>,
    pub first_received_s: Option<f64>,
    pub last_received_s: Option<f64>,
    /// Longest time without a delivery inside the flow's measured interval
    /// (from its start, or the warm-up, to its stop or the end of the run),
    /// counting the stretches before the first and after the last delivery;
    /// the whole interval for a flow that delivered nothing. `None` for an
    /// empty interval.
    pub interruption_max_s: Option<f64>,
    /// Mean hop count of the flow's data packets that reached the
    /// destination (network layer; TCP retransmissions included). `None`
    /// if none did.
    pub hops_mean: Option<f64>,
    /// Data packets of the flow dropped (after the warm-up), total.
    pub dropped_packets: u64,
    /// Where and why: one entry per (node, ns-2 reason) in node order.
    pub drops: Vec<FlowDrop>,
    /// One-way delay histogram of received packets (16 log-linear bins per
    /// octave, see `metrics::stats::Histogram::coarse_buckets`), non-empty
    /// bins only.
    pub delay_histogram: Vec<HistogramBin>,
    /// Histogram of |delay_i − delay_{i−1}| over consecutive received
    /// packets (ns-3 FlowMonitor's jitter histogram), same bins.
    pub jitter_histogram: Vec<HistogramBin>,
    /// Mobile runs: the shortest-path hop count between src and dst over
    /// time (receive range links), see `metrics::path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_profile: Option<Vec<crate::metrics::path::Span>>,
    /// Expected throughput (tcp-manet-elfn.txt eq. 1) when a chain table was
    /// supplied (`manetlab run` fills it for TCP flows in mobile runs), bit/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_bps: Option<f64>,
    /// TCP sender counters (TCP flows only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp: Option<crate::transport::tcp::TcpSummary>,
    /// Per-direction voice quality and MOS (VoIP calls only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub voip: Option<crate::metrics::voip::VoipReport>,
}

/// Data packets of one flow dropped at one node for one reason.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, Deserialize)]
pub struct FlowDrop {
    pub node: u32,
    /// ns-2 drop reason code ("IFQ", "RET", "NRTE", ...).
    pub reason: String,
    pub packets: u64,
}

/// One histogram bin: values in [low_s, high_s] seconds (both inclusive at
/// nanosecond resolution), `count` packets.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Deserialize)]
pub struct HistogramBin {
    pub low_s: f64,
    pub high_s: f64,
    pub count: u64,
}

impl HistogramBin {
    /// The bins of a nanosecond histogram at 2^`sub_bits` bins per octave.
    pub fn of_ns(h: &crate::metrics::stats::Histogram, sub_bits: u32) -> Vec<HistogramBin> {
        h.coarse_buckets(sub_bits)
            .map(|(lo, hi, count)| HistogramBin { low_s: lo as f64 / 1e9, high_s: hi as f64 / 1e9, count })
            .collect()
    }
}

#[derive(Clone, Debug, Serialize, PartialEq, Deserialize)]
pub struct NodeReport {
    pub id: u32,
    pub x: f64,
    pub y: f64,
    pub originated: u64,
    pub forwarded: u64,
    pub delivered: u64,
    pub link_failures: u64,
    /// Network/queue-layer drops at this node by ns-2 reason code.
    pub drops: BTreeMap<String, u64>,
    pub mac: MacStats,
    pub radio: RadioStats,
    /// ARP counters (when ARP is on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arp: Option<crate::net::arp::ArpStats>,
    /// Routing control-plane counters (empty for static routing).
    pub routing: RoutingStats,
    /// Unicast DATA attempts and ACKs per rate (with rate control only:
    /// absent under `rate_control = "constant"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_rates: Option<Vec<crate::mac::RateCount>>,
}

/// Where every packet created by an endpoint ended up.
#[derive(Clone, Debug, Serialize, PartialEq, Default, Deserialize)]
pub struct Audit {
    pub created: u64,
    pub delivered: u64,
    pub dropped: BTreeMap<String, u64>,
    /// Still held at the end, by place: "queue", "mac", "routing", "air".
    pub held_at_end: BTreeMap<String, u64>,
    /// Neither delivered, dropped nor found anywhere: must be zero.
    pub unaccounted: u64,
    /// The uids of the first unaccounted packets (diagnosis; not written).
    #[serde(skip)]
    pub unaccounted_uids: Vec<u64>,
}

impl Audit {
    pub fn balances(&self) -> bool {
        let dropped: u64 = self.dropped.values().sum();
        let held: u64 = self.held_at_end.values().sum();
        self.unaccounted == 0 && self.created == self.delivered + dropped + held
    }
}

#[derive(Clone, Debug, Serialize, PartialEq, Deserialize)]
pub struct Report {
    pub seed: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    /// Events executed by the kernel.
    pub events: u64,
    /// The routing protocol ("static", "aodv").
    pub routing_protocol: String,
    /// Routing control counters summed over all nodes.
    pub routing: RoutingStats,
    pub flows: Vec<FlowReport>,
    pub nodes: Vec<NodeReport>,
    pub audit: Audit,
    /// Gateway control counters (runs with `SimConfig::gateway` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<crate::net::gateway::GatewayStats>,
    /// Per-interval series (runs with `SimConfig::record.interval` only;
    /// `metrics/timeseries.rs`, `timeseries.csv`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeseries: Option<super::timeseries::TimeSeries>,
    /// The per-node counters summed over all nodes, when the per-node rows
    /// are left out (`[output] nodes = false`; id = number of nodes,
    /// position 0, 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_totals: Option<NodeReport>,
    /// Beaconing node discovery (runs with `[beacon]` only, `app/beacon.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon: Option<crate::app::beacon::BeaconReport>,
}

impl NodeReport {
    /// Adds another node's counters (positions, ARP and per-rate counts
    /// are not summed).
    pub fn add(&mut self, o: &NodeReport) {
        self.originated += o.originated;
        self.forwarded += o.forwarded;
        self.delivered += o.delivered;
        self.link_failures += o.link_failures;
        for (k, v) in &o.drops {
            *self.drops.entry(k.clone()).or_default() += v;
        }
        let (m, a) = (&mut self.mac, &o.mac);
        m.data_sent += a.data_sent;
        m.rts_sent += a.rts_sent;
        m.cts_sent += a.cts_sent;
        m.ack_sent += a.ack_sent;
        m.broadcast_sent += a.broadcast_sent;
        m.retries += a.retries;
        m.rts_failures += a.rts_failures;
        m.ack_failures += a.ack_failures;
        m.retry_drops += a.retry_drops;
        m.unicast_success += a.unicast_success;
        m.duplicates += a.duplicates;
        m.bytes_on_air += a.bytes_on_air;
        m.airtime_ns += a.airtime_ns;
        m.internal_collisions += a.internal_collisions;
        m.txop_continuations += a.txop_continuations;
        let (r, b) = (&mut self.radio, &o.radio);
        r.decoded += b.decoded;
        r.collisions += b.collisions;
        r.errors += b.errors;
        r.captures += b.captures;
        r.preempted += b.preempted;
        self.routing.merge(&o.routing);
    }
}

impl Report {
    /// Every node's counters: the per-node rows, or their sum when those
    /// were left out.
    pub fn node_rows(&self) -> impl Iterator<Item = &NodeReport> {
        self.nodes.iter().chain(&self.node_totals)
    }
    pub fn flow(&self, name: &str) -> Option<&FlowReport> {
        self.flows.iter().find(|f| f.name == name)
    }
    /// Sum of MAC counters over all nodes.
    pub fn mac_totals(&self) -> MacStats {
        let mut t = MacStats::default();
        for n in self.nodes.iter().chain(&self.node_totals) {
            let m = &n.mac;
            t.data_sent += m.data_sent;
            t.rts_sent += m.rts_sent;
            t.cts_sent += m.cts_sent;
            t.ack_sent += m.ack_sent;
            t.broadcast_sent += m.broadcast_sent;
            t.retries += m.retries;
            t.rts_failures += m.rts_failures;
            t.ack_failures += m.ack_failures;
            t.retry_drops += m.retry_drops;
            t.unicast_success += m.unicast_success;
            t.duplicates += m.duplicates;
            t.bytes_on_air += m.bytes_on_air;
            t.airtime_ns += m.airtime_ns;
        }
        t
    }
    pub fn radio_totals(&self) -> RadioStats {
        let mut t = RadioStats::default();
        for n in self.nodes.iter().chain(&self.node_totals) {
            t.decoded += n.radio.decoded;
            t.collisions += n.radio.collisions;
            t.errors += n.radio.errors;
            t.captures += n.radio.captures;
            t.preempted += n.radio.preempted;
        }
        t
    }
}
