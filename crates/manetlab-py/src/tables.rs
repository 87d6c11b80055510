//! The result tables handed to Python, built from reports in Rust.
//!
//! The flows table has the columns of the command line's `flows.csv` (one
//! row per replication and flow); the sweep runs table has the columns of
//! `sweep-runs.csv` (metrics in the order of `manetlab::exec::sweep::METRICS`,
//! which the CLI writes it from). The nodes table is every node's report
//! (`summary.json` `replications[].nodes[]`) flattened into columns, so it
//! follows the report's own definition. Flow statistics are read through
//! [`AsOpt`], so an undefined statistic is null whether the report stores
//! it as `f64` or as `Option<f64>`.
//!
//! Interim: when the library's single definition of the output tables
//! (`manetlab::output`, issue 16) lands, `flows`, `network` and the sweep
//! tables switch to it (`output::Table::column` gives the typed columns).

use crate::arrow::{Data, Table};
use manetlab::metrics::FlowReport;
use manetlab::Report;
use std::collections::HashMap;

/// A flow statistic as an optional number: undefined (a flow that
/// delivered nothing has no delay) and non-finite values are null. Works
/// whether the report stores the statistic as `f64` or `Option<f64>`.
trait AsOpt {
    fn opt(self) -> Option<f64>;
}

impl AsOpt for f64 {
    fn opt(self) -> Option<f64> {
        self.is_finite().then_some(self)
    }
}

impl AsOpt for Option<f64> {
    fn opt(self) -> Option<f64> {
        self.filter(|x| x.is_finite())
    }
}

fn col(t: &mut Table, name: &str, unit: Option<&str>, d: Data) {
    t.columns.push((name.to_string(), unit.map(str::to_string), d));
}

/// The unit of a column, from its name's SI suffix.
fn unit_of(name: &str) -> Option<&'static str> {
    if name.ends_with("_bps") {
        Some("bit/s")
    } else if name.ends_with("_s") {
        Some("s")
    } else if name.ends_with("_bytes") || name.ends_with("bytes_on_air") {
        Some("B")
    } else if name.ends_with("_ns") {
        Some("ns")
    } else if name == "x" || name == "y" {
        Some("m")
    } else {
        None
    }
}

/// A flow column's getter.
#[derive(Clone, Copy)]
enum Get {
    U(fn(&FlowReport) -> u64),
    F(fn(&FlowReport) -> Option<f64>),
}

/// The measured columns of `flows.csv`, in its order.
const FLOW_COLUMNS: [(&str, Get); 12] = [
    ("sent_packets", Get::U(|f| f.sent_packets)),
    ("received_packets", Get::U(|f| f.received_packets)),
    ("delivery_ratio", Get::F(|f| f.delivery_ratio.opt())),
    ("goodput_bps", Get::F(|f| f.goodput_bps.opt())),
    ("offered_bps", Get::F(|f| f.offered_bps.opt())),
    ("delay_mean_s", Get::F(|f| f.delay_mean_s.opt())),
    ("delay_p50_s", Get::F(|f| f.delay_p50_s.opt())),
    ("delay_p95_s", Get::F(|f| f.delay_p95_s.opt())),
    ("delay_max_s", Get::F(|f| f.delay_max_s.opt())),
    ("jitter_s", Get::F(|f| f.jitter_s.opt())),
    ("jitter_rfc3550_s", Get::F(|f| f.jitter_rfc3550_s.opt())),
    ("duplicates", Get::U(|f| f.duplicates)),
];

/// Identifying columns plus [`FLOW_COLUMNS`] for every flow of `rows`.
fn flow_rows<'a>(t: &mut Table, rows: impl Iterator<Item = &'a FlowReport> + Clone) {
    col(t, "flow", None, Data::Str(rows.clone().map(|f| Some(f.name.clone())).collect()));
    col(t, "kind", None, Data::Str(rows.clone().map(|f| Some(f.kind.clone())).collect()));
    col(t, "src", None, Data::U64(rows.clone().map(|f| Some(f.src as u64)).collect()));
    col(t, "dst", None, Data::U64(rows.clone().map(|f| Some(f.dst as u64)).collect()));
    for (name, g) in FLOW_COLUMNS {
        let d = match g {
            Get::U(g) => Data::U64(rows.clone().map(|f| Some(g(f))).collect()),
            Get::F(g) => Data::F64(rows.clone().map(g).collect()),
        };
        col(t, name, unit_of(name), d);
    }
}

/// `flows`: one row per replication and flow (the columns of `flows.csv`).
pub fn flows(seeds: &[u64], reports: &[Report]) -> Table {
    let mut t = Table::default();
    let idx: Vec<(usize, u64)> = reports
        .iter()
        .enumerate()
        .flat_map(|(k, r)| std::iter::repeat_n((k, seeds.get(k).copied().unwrap_or(r.seed)), r.flows.len()))
        .collect();
    col(&mut t, "replication", None, Data::U64(idx.iter().map(|&(k, _)| Some(k as u64)).collect()));
    col(&mut t, "seed", None, Data::U64(idx.iter().map(|&(_, s)| Some(s)).collect()));
    flow_rows(&mut t, reports.iter().flat_map(|r| r.flows.iter()));
    t
}

/// Columns of flattened JSON objects, filled row by row: `prefix_key`
/// names (numbers, strings, booleans; arrays are left out), in order of
/// first appearance; a column absent from a row is null there.
#[derive(Default)]
struct JsonColumns {
    names: Vec<String>,
    index: HashMap<String, usize>,
    values: Vec<Vec<Option<serde_json::Value>>>,
    rows: usize,
}

impl JsonColumns {
    fn push_row(&mut self, v: &serde_json::Value) {
        let mut path = String::new();
        self.walk(&mut path, v);
        self.rows += 1;
        for col in &mut self.values {
            col.resize(self.rows, None);
        }
    }

    fn walk(&mut self, path: &mut String, v: &serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    let len = path.len();
                    if !path.is_empty() {
                        path.push('_');
                    }
                    path.push_str(k);
                    self.walk(path, x);
                    path.truncate(len);
                }
            }
            serde_json::Value::Array(_) => {}
            leaf => {
                let i = match self.index.get(path.as_str()) {
                    Some(&i) => i,
                    None => {
                        self.names.push(path.clone());
                        self.index.insert(path.clone(), self.names.len() - 1);
                        self.values.push(vec![None; self.rows]);
                        self.names.len() - 1
                    }
                };
                let col = &mut self.values[i];
                col.resize(self.rows, None);
                col.push(Some(leaf.clone()));
            }
        }
    }

    /// Appends the columns to `t`, typed by their values; counters under
    /// `drops_` (a map of counts) are 0, not null, where absent.
    fn into_table(self, mut t: Table) -> Table {
        for (name, mut vals) in self.names.into_iter().zip(self.values) {
            if name.starts_with("drops_") {
                for v in &mut vals {
                    if v.is_none() {
                        *v = Some(serde_json::Value::from(0u64));
                    }
                }
            }
            let present = || vals.iter().flatten().filter(|v| !v.is_null());
            let d = if present().all(|v| v.is_u64() || v.is_boolean()) {
                Data::U64(vals.iter().map(|v| v.as_ref().and_then(|v| v.as_u64().or(v.as_bool().map(u64::from)))).collect())
            } else if present().all(|v| v.is_i64()) {
                Data::I64(vals.iter().map(|v| v.as_ref().and_then(|v| v.as_i64())).collect())
            } else if present().all(|v| v.is_number()) {
                Data::F64(vals.iter().map(|v| v.as_ref().and_then(|v| v.as_f64())).collect())
            } else {
                Data::Str(
                    vals.iter()
                        .map(|v| {
                            v.as_ref().filter(|v| !v.is_null()).map(|v| match v {
                                serde_json::Value::String(s) => s.clone(),
                                o => o.to_string(),
                            })
                        })
                        .collect(),
                )
            };
            col(&mut t, &name, unit_of(&name), d);
        }
        t
    }
}

/// `nodes`: one row per replication and node, every field of the node's
/// report (`drops_<reason>`, `mac_<counter>`, `radio_<counter>`,
/// `routing_...`).
pub fn nodes(seeds: &[u64], reports: &[Report]) -> Table {
    let mut cols = JsonColumns::default();
    let mut ids = Vec::new();
    for (k, r) in reports.iter().enumerate() {
        for n in &r.nodes {
            cols.push_row(&serde_json::to_value(n).expect("a node report serializes"));
            ids.push((k as u64, seeds.get(k).copied().unwrap_or(r.seed)));
        }
    }
    let mut t = Table::default();
    col(&mut t, "replication", None, Data::U64(ids.iter().map(|&(k, _)| Some(k)).collect()));
    col(&mut t, "seed", None, Data::U64(ids.iter().map(|&(_, s)| Some(s)).collect()));
    let mut t = cols.into_table(t);
    // "id" becomes "node", after the seed.
    if let Some(i) = t.columns.iter().position(|c| c.0 == "id") {
        let mut c = t.columns.remove(i);
        c.0 = "node".into();
        t.columns.insert(2, c);
    }
    t
}

/// `network`: one row per replication: data packets sent and received over
/// all flows, their ratio, the packet-weighted mean delay, routing packets
/// and bytes sent, and the normalized routing load (routing packets sent /
/// data packets delivered, Broch et al. 1998); null where undefined.
pub fn network(seeds: &[u64], reports: &[Report]) -> Table {
    let mut t = Table::default();
    let n = reports.len();
    let sent: Vec<u64> = reports.iter().map(|r| r.flows.iter().map(|f| f.sent_packets).sum()).collect();
    let recv: Vec<u64> = reports.iter().map(|r| r.flows.iter().map(|f| f.received_packets).sum()).collect();
    let delay: Vec<Option<f64>> = reports
        .iter()
        .zip(&recv)
        .map(|(r, &rx)| {
            let with: Vec<(f64, u64)> =
                r.flows.iter().filter_map(|f| f.delay_mean_s.opt().map(|d| (d, f.received_packets))).collect();
            let n: u64 = with.iter().map(|w| w.1).sum();
            (rx > 0 && n > 0).then(|| with.iter().map(|&(d, k)| d * k as f64).sum::<f64>() / n as f64)
        })
        .collect();
    let rt: Vec<(u64, u64)> = reports
        .iter()
        .map(|r| {
            let s = r.routing.sent_total();
            (s.packets, s.bytes)
        })
        .collect();
    col(&mut t, "replication", None, Data::U64((0..n as u64).map(Some).collect()));
    col(
        &mut t,
        "seed",
        None,
        Data::U64(reports.iter().enumerate().map(|(k, r)| Some(seeds.get(k).copied().unwrap_or(r.seed))).collect()),
    );
    col(&mut t, "data_sent_packets", None, Data::U64(sent.iter().map(|&x| Some(x)).collect()));
    col(&mut t, "data_received_packets", None, Data::U64(recv.iter().map(|&x| Some(x)).collect()));
    col(
        &mut t,
        "delivery_ratio",
        None,
        Data::F64(sent.iter().zip(&recv).map(|(&s, &r)| (s > 0).then(|| r as f64 / s as f64)).collect()),
    );
    col(&mut t, "delay_mean_s", Some("s"), Data::F64(delay));
    col(&mut t, "routing_packets", None, Data::U64(rt.iter().map(|x| Some(x.0)).collect()));
    col(&mut t, "routing_bytes", Some("B"), Data::U64(rt.iter().map(|x| Some(x.1)).collect()));
    col(
        &mut t,
        "normalized_routing_load",
        None,
        Data::F64(rt.iter().zip(&recv).map(|(x, &r)| (r > 0).then(|| x.0 as f64 / r as f64)).collect()),
    );
    t
}

/// `timeseries`: per-interval series. Not recorded by this build (empty,
/// with its identifying columns).
pub fn timeseries() -> Table {
    let mut t = Table::default();
    for c in ["replication", "seed", "t_s"] {
        col(&mut t, c, unit_of(c), Data::U64(Vec::new()));
    }
    t
}

