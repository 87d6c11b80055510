//! Per-flow tables: `flows` (one row per replication and flow), its
//! summary over replications `flows-summary`, `flow-drops` (where and why a
//! flow's data packets were dropped) and `histograms` (delay and jitter
//! histograms, ns-3 FlowMonitor style).

use super::aggregate::aggregate;
use super::table::{Column, Kind, Table, Value};
use crate::metrics::FlowReport;
use crate::Report;

/// One per-flow metric: its column and how to read it from a report.
pub struct FlowMetric {
    pub name: &'static str,
    pub unit: &'static str,
    pub kind: Kind,
    pub about: &'static str,
    pub get: fn(&FlowReport) -> Value,
    /// Summarised over replications in `flows-summary` and `sweep`.
    pub summarised: bool,
}

impl FlowMetric {
    pub fn column(&self) -> Column {
        Column::new(self.name, self.unit, self.kind, self.about)
    }
}

const fn m(
    name: &'static str,
    unit: &'static str,
    kind: Kind,
    about: &'static str,
    get: fn(&FlowReport) -> Value,
    summarised: bool,
) -> FlowMetric {
    FlowMetric { name, unit, kind, about, get, summarised }
}

/// Every per-flow metric, in column order.
pub const FLOW_METRICS: &[FlowMetric] = &[
    m(
        "sent_packets",
        "",
        Kind::U64,
        "packets the application sent after the warm-up",
        |f| Value::U64(f.sent_packets),
        true,
    ),
    m("sent_bytes", "B", Kind::U64, "application payload bytes sent", |f| Value::U64(f.sent_bytes), true),
    m(
        "received_packets",
        "",
        Kind::U64,
        "packets received by the application (first copies)",
        |f| Value::U64(f.received_packets),
        true,
    ),
    m("received_bytes", "B", Kind::U64, "application payload bytes received", |f| Value::U64(f.received_bytes), true),
    m("duplicates", "", Kind::U64, "duplicate copies received", |f| Value::U64(f.duplicates), true),
    m(
        "delivery_ratio",
        "",
        Kind::F64,
        "received / sent packets (null if nothing was sent)",
        |f| Value::opt(f.delivery_ratio),
        true,
    ),
    m(
        "goodput_bps",
        "bit/s",
        Kind::F64,
        "payload bits received per second of the flow's measured interval",
        |f| Value::f(f.goodput_bps),
        true,
    ),
    m(
        "offered_bps",
        "bit/s",
        Kind::F64,
        "payload bits sent per second of the flow's measured interval",
        |f| Value::f(f.offered_bps),
        true,
    ),
    m(
        "delay_mean_s",
        "s",
        Kind::F64,
        "mean one-way delay of received packets (null if none)",
        |f| Value::opt(f.delay_mean_s),
        true,
    ),
    m(
        "delay_p50_s",
        "s",
        Kind::F64,
        "median one-way delay (within 0.4%; null if none)",
        |f| Value::opt(f.delay_p50_s),
        true,
    ),
    m(
        "delay_p95_s",
        "s",
        Kind::F64,
        "95th percentile one-way delay (within 0.4%; null if none)",
        |f| Value::opt(f.delay_p95_s),
        true,
    ),
    m("delay_max_s", "s", Kind::F64, "largest one-way delay (null if none)", |f| Value::opt(f.delay_max_s), true),
    m(
        "jitter_s",
        "s",
        Kind::F64,
        "mean |delay_i - delay_(i-1)| of consecutive received packets (null below 2)",
        |f| Value::opt(f.jitter_s),
        true,
    ),
    m(
        "jitter_rfc3550_s",
        "s",
        Kind::F64,
        "RFC 3550 interarrival jitter at the end (null below 2 packets)",
        |f| Value::opt(f.jitter_rfc3550_s),
        true,
    ),
    m(
        "hops_mean",
        "",
        Kind::F64,
        "mean hop count of data packets reaching the destination (null if none)",
        |f| Value::opt(f.hops_mean),
        true,
    ),
    m(
        "dropped_packets",
        "",
        Kind::U64,
        "data packets of the flow dropped anywhere (see flow-drops.csv)",
        |f| Value::U64(f.dropped_packets),
        true,
    ),
    m(
        "interruption_max_s",
        "s",
        Kind::F64,
        "longest time without a delivery in the measured interval, edges included",
        |f| Value::opt(f.interruption_max_s),
        true,
    ),
    m(
        "first_sent_s",
        "s",
        Kind::F64,
        "time of the first packet sent (null if none)",
        |f| Value::opt(f.first_sent_s),
        false,
    ),
    m(
        "last_sent_s",
        "s",
        Kind::F64,
        "time of the last packet sent (null if none)",
        |f| Value::opt(f.last_sent_s),
        false,
    ),
    m(
        "first_received_s",
        "s",
        Kind::F64,
        "time of the first packet received (null if none)",
        |f| Value::opt(f.first_received_s),
        false,
    ),
    m(
        "last_received_s",
        "s",
        Kind::F64,
        "time of the last packet received (null if none)",
        |f| Value::opt(f.last_received_s),
        false,
    ),
    m(
        "expected_bps",
        "bit/s",
        Kind::F64,
        "expected TCP throughput from the path profile (mobile TCP flows; else null)",
        |f| Value::opt(f.expected_bps),
        true,
    ),
];

/// The columns naming a flow (the same in every per-flow table).
pub fn flow_key_columns() -> Vec<Column> {
    vec![
        Column::new("flow_id", "", Kind::U64, "flow index in the scenario (0-based)"),
        Column::new("flow", "", Kind::Str, "flow name"),
        Column::new("kind", "", Kind::Str, "traffic kind (cbr, tcp, voip, tfrc, ...)"),
        Column::new("src", "", Kind::U64, "source node"),
        Column::new("dst", "", Kind::U64, "destination node"),
    ]
}

/// Names of the flow key columns.
pub const FLOW_KEYS: [&str; 5] = ["flow_id", "flow", "kind", "src", "dst"];

fn flow_key(f: &FlowReport) -> Vec<Value> {
    vec![
        Value::U64(f.id as u64),
        Value::s(&f.name),
        Value::s(&f.kind),
        Value::U64(f.src as u64),
        Value::U64(f.dst as u64),
    ]
}

/// The run-identifying columns.
pub fn run_columns() -> Vec<Column> {
    vec![
        Column::new("replication", "", Kind::U64, "replication index (0-based)"),
        Column::new("seed", "", Kind::U64, "the replication's random seed"),
    ]
}

/// Columns of `flows` after `prefix` (a sweep's axis columns).
pub fn flows_columns(prefix: &[Column]) -> Vec<Column> {
    let mut c = prefix.to_vec();
    c.extend(run_columns());
    c.extend(flow_key_columns());
    c.extend(FLOW_METRICS.iter().map(FlowMetric::column));
    c
}

/// A flow's cells of a `flows`-shaped row after the run columns: its key
/// columns, then every metric of [`FLOW_METRICS`] (what a sweep's run
/// store keeps per flow).
pub fn flow_cells(f: &FlowReport) -> Vec<Value> {
    let mut row = flow_key(f);
    row.extend(FLOW_METRICS.iter().map(|m| (m.get)(f)));
    row
}

/// Appends one row per flow of `r` (replication `k`) to a `flows`-shaped
/// table, after the `prefix` values.
pub fn push_flow_rows(t: &mut Table, prefix: &[Value], k: usize, r: &Report) {
    for f in &r.flows {
        let mut row = prefix.to_vec();
        row.extend([Value::U64(k as u64), Value::U64(r.seed)]);
        row.extend(flow_cells(f));
        t.push(row);
    }
}

/// `flows`: one row per (replication, flow).
pub fn flows(reports: &[Report]) -> Table {
    let mut t = Table::new("flows", flows_columns(&[]));
    for (k, r) in reports.iter().enumerate() {
        push_flow_rows(&mut t, &[], k, r);
    }
    t
}

/// Names of the summarised metrics.
pub fn summarised_metrics() -> Vec<&'static str> {
    FLOW_METRICS.iter().filter(|m| m.summarised).map(|m| m.name).collect()
}

/// `flows-summary`: per flow, n / mean / sd / ci95 of every summarised
/// metric over the replications.
pub fn flows_summary(flows: &Table) -> Table {
    aggregate("flows-summary", flows, &FLOW_KEYS, &summarised_metrics())
}

/// `flow-drops`: per replication, flow, node and reason, the data packets
/// dropped.
pub fn flow_drops(reports: &[Report]) -> Table {
    let mut c = run_columns();
    c.extend([
        Column::new("flow_id", "", Kind::U64, "flow index in the scenario (0-based)"),
        Column::new("flow", "", Kind::Str, "flow name"),
        Column::new("node", "", Kind::U64, "node where the packets were dropped"),
        Column::new("reason", "", Kind::Str, "ns-2 drop reason code (IFQ, RET, NRTE, ARP, TTL, ...)"),
        Column::new("packets", "", Kind::U64, "data packets dropped"),
    ]);
    let mut t = Table::new("flow-drops", c);
    for (k, r) in reports.iter().enumerate() {
        for f in &r.flows {
            for d in &f.drops {
                t.push(vec![
                    Value::U64(k as u64),
                    Value::U64(r.seed),
                    Value::U64(f.id as u64),
                    Value::s(&f.name),
                    Value::U64(d.node as u64),
                    Value::s(&d.reason),
                    Value::U64(d.packets),
                ]);
            }
        }
    }
    t
}

/// `histograms`: per replication and flow, the non-empty bins of the delay
/// and jitter histograms (16 log-linear bins per octave).
pub fn histograms(reports: &[Report]) -> Table {
    let mut c = run_columns();
    c.extend([
        Column::new("flow_id", "", Kind::U64, "flow index in the scenario (0-based)"),
        Column::new("flow", "", Kind::Str, "flow name"),
        Column::new("metric", "", Kind::Str, "delay (one-way) or jitter (|delay_i - delay_(i-1)|)"),
        Column::new("low_s", "s", Kind::F64, "lowest value in the bin"),
        Column::new("high_s", "s", Kind::F64, "highest value in the bin (inclusive, ns resolution)"),
        Column::new("count", "", Kind::U64, "packets in the bin"),
    ]);
    let mut t = Table::new("histograms", c);
    for (k, r) in reports.iter().enumerate() {
        for f in &r.flows {
            for (metric, bins) in [("delay", &f.delay_histogram), ("jitter", &f.jitter_histogram)] {
                for b in bins {
                    t.push(vec![
                        Value::U64(k as u64),
                        Value::U64(r.seed),
                        Value::U64(f.id as u64),
                        Value::s(&f.name),
                        Value::s(metric),
                        Value::f(b.low_s),
                        Value::f(b.high_s),
                        Value::U64(b.count),
                    ]);
                }
            }
        }
    }
    t
}
