//! `timeseries`: the per-interval series of runs recorded with
//! `[output] interval` (`--interval`), in tidy long format: one row per
//! (replication, interval, flow or node, metric) with the value in one
//! numeric column, so `df[df.metric == "goodput_bps"]` is one series per
//! flow. The metrics and their units are [`METRICS`]; the recorder is
//! `metrics/timeseries.rs`.

use super::flows::run_columns;
use super::table::{Column, Kind, Table, Value};
use crate::metrics::timeseries::TimeSeries;
use crate::Report;

/// Whether a metric is per flow or per node (the `scope` column).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    Flow,
    Node,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::Flow => "flow",
            Scope::Node => "node",
        }
    }
}

/// One time-series metric: scope, name (unit in it), unit, meaning, and how
/// to read interval `k` of entity `i` (None: undefined, an empty field).
pub struct SeriesMetric {
    pub scope: Scope,
    pub name: &'static str,
    pub unit: &'static str,
    pub about: &'static str,
    pub get: fn(&TimeSeries, usize, usize, f64) -> Option<f64>,
}

const fn m(
    scope: Scope,
    name: &'static str,
    unit: &'static str,
    about: &'static str,
    get: fn(&TimeSeries, usize, usize, f64) -> Option<f64>,
) -> SeriesMetric {
    SeriesMetric { scope, name, unit, about, get }
}

/// Every metric of `timeseries.csv`, in row order within an interval (flow
/// metrics for each flow, then node metrics for each node). The closures
/// take (series, entity, interval, interval length in s).
pub const METRICS: &[SeriesMetric] = &[
    m(Scope::Flow, "sent_packets", "", "packets the application sent", |s, i, k, _| {
        Some(s.flows[i].sent_packets[k] as f64)
    }),
    m(Scope::Flow, "sent_bytes", "B", "application payload bytes sent", |s, i, k, _| {
        Some(s.flows[i].sent_bytes[k] as f64)
    }),
    m(Scope::Flow, "received_packets", "", "packets received by the application (first copies)", |s, i, k, _| {
        Some(s.flows[i].received_packets[k] as f64)
    }),
    m(Scope::Flow, "received_bytes", "B", "application payload bytes received", |s, i, k, _| {
        Some(s.flows[i].received_bytes[k] as f64)
    }),
    m(Scope::Flow, "goodput_bps", "bit/s", "payload bits received / interval length", |s, i, k, d| {
        (d > 0.0).then(|| s.flows[i].received_bytes[k] as f64 * 8.0 / d)
    }),
    m(
        Scope::Flow,
        "delay_mean_s",
        "s",
        "mean one-way delay of the packets received in the interval (empty if none)",
        |s, i, k, _| {
            let n = s.flows[i].received_packets[k];
            (n > 0).then(|| s.flows[i].delay_sum_s[k] / n as f64)
        },
    ),
    m(Scope::Flow, "dropped_packets", "", "data packets of the flow dropped anywhere", |s, i, k, _| {
        Some(s.flows[i].dropped_packets[k] as f64)
    }),
    m(
        Scope::Node,
        "queue_mean_packets",
        "",
        "interface queue length, time-weighted mean over the interval",
        |s, i, k, _| Some(s.nodes[i].queue_mean[k]),
    ),
    m(Scope::Node, "queue_max_packets", "", "largest interface queue length in the interval", |s, i, k, _| {
        Some(s.nodes[i].queue_max[k] as f64)
    }),
    m(
        Scope::Node,
        "mac_busy_fraction",
        "",
        "fraction of the interval the medium was busy for the node's MAC: transmitting or carrier sense busy (NAV not counted)",
        |s, i, k, _| Some(s.nodes[i].busy_fraction[k]),
    ),
    m(
        Scope::Node,
        "routing_packets",
        "",
        "routing control packets the node transmitted (originated or forwarded)",
        |s, i, k, _| Some(s.nodes[i].routing_packets[k] as f64),
    ),
];

/// Columns of `timeseries` after `prefix` (a sweep's axis columns).
pub fn timeseries_columns(prefix: &[Column]) -> Vec<Column> {
    let mut c = prefix.to_vec();
    c.extend(run_columns());
    c.extend([
        Column::new("start_s", "s", Kind::F64, "start of the interval (the first starts at run.warmup)"),
        Column::new("end_s", "s", Kind::F64, "end of the interval (the last ends at run.duration)"),
        Column::new("scope", "", Kind::Str, "flow or node"),
        Column::new("id", "", Kind::U64, "flow_id (scope flow) or node (scope node)"),
        Column::new("metric", "", Kind::Str, "metric name, unit in the name (see the metric list)"),
        Column::new("value", "", Kind::F64, "the metric's value (empty if undefined)"),
    ]);
    c
}

/// Appends the rows of replication `k`'s series (if recorded) after the
/// `prefix` values.
pub fn push_timeseries_rows(t: &mut Table, prefix: &[Value], k: usize, r: &Report) {
    let Some(s) = &r.timeseries else { return };
    for (ki, (a, b)) in s.bounds().into_iter().enumerate() {
        for scope in [Scope::Flow, Scope::Node] {
            let n = if scope == Scope::Flow { s.flows.len() } else { s.nodes.len() };
            for i in 0..n {
                for m in METRICS.iter().filter(|m| m.scope == scope) {
                    let mut row = prefix.to_vec();
                    row.extend([
                        Value::U64(k as u64),
                        Value::U64(r.seed),
                        Value::f(a),
                        Value::f(b),
                        Value::s(scope.name()),
                        Value::U64(i as u64),
                        Value::s(m.name),
                        Value::opt((m.get)(s, i, ki, b - a)),
                    ]);
                    t.push(row);
                }
            }
        }
    }
}

/// `timeseries`: every replication's series.
pub fn timeseries(reports: &[Report]) -> Table {
    let mut t = Table::new("timeseries", timeseries_columns(&[]));
    for (k, r) in reports.iter().enumerate() {
        push_timeseries_rows(&mut t, &[], k, r);
    }
    t
}

/// Whether any report carries a time series (the file is written only then).
pub fn recorded(reports: &[Report]) -> bool {
    reports.iter().any(|r| r.timeseries.is_some())
}
