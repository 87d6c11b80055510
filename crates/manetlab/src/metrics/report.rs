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
    /// received / sent packets.
    pub delivery_ratio: f64,
    /// Application payload bits received per second of the measured interval.
    pub goodput_bps: f64,
    /// Application payload bits sent per second of the measured interval.
    pub offered_bps: f64,
    pub delay_mean_s: f64,
    pub delay_p50_s: f64,
    pub delay_p95_s: f64,
    pub delay_max_s: f64,
    /// Mean |d_i - d_{i-1}| over consecutive received packets.
    pub jitter_s: f64,
    /// RFC 3550 interarrival jitter at the end of the run.
    pub jitter_rfc3550_s: f64,
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
}

impl Report {
    pub fn flow(&self, name: &str) -> Option<&FlowReport> {
        self.flows.iter().find(|f| f.name == name)
    }
    /// Sum of MAC counters over all nodes.
    pub fn mac_totals(&self) -> MacStats {
        let mut t = MacStats::default();
        for n in &self.nodes {
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
        for n in &self.nodes {
            t.decoded += n.radio.decoded;
            t.collisions += n.radio.collisions;
            t.errors += n.radio.errors;
            t.captures += n.radio.captures;
            t.preempted += n.radio.preempted;
        }
        t
    }
}
