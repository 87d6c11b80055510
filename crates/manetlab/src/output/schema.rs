//! The machine-readable description of every output table
//! (`docs/outputs.schema.json`) and its Markdown rendering (the column
//! tables of `docs/outputs.md`), generated from the same [`Table`]
//! definitions that write the files, so the documentation cannot drift: a
//! test regenerates both and compares them with the committed files, and
//! checks the files a run writes against them.

use super::table::{Column, Table};
use crate::scenario::sweep::SweepAxis;

/// Every CSV file a run or sweep writes, as an empty table (columns only).
/// Sweep tables are shown with one example axis, `mobility.pause` in
/// seconds: a real sweep has one such column per axis.
pub fn tables() -> Vec<(String, Table)> {
    let mut out: Vec<(String, Table)> =
        super::run_tables(&[]).into_iter().map(|t| (format!("{}.csv", t.name), t)).collect();
    let axes = [SweepAxis { key: "mobility.pause".into(), values: vec!["0s".into()] }];
    let runs = super::sweep::sweep_runs(&axes, &[], 1, &[]);
    let agg = super::sweep::sweep_summary(&runs, &axes);
    out.push(("timeseries.csv".into(), super::timeseries::timeseries(&[])));
    out.push(("sweep-runs.csv".into(), runs));
    out.push(("sweep.csv".into(), agg));
    out.push(("sweep-timeseries.csv".into(), super::sweep::sweep_timeseries(&axes, &[], 1, &[])));
    out
}

/// The metrics of `timeseries.csv` (`metric` column), with scope, unit and
/// meaning.
fn timeseries_metrics() -> Vec<serde_json::Value> {
    super::timeseries::METRICS
        .iter()
        .map(|m| serde_json::json!({"scope": m.scope.name(), "metric": m.name, "unit": m.unit, "about": m.about}))
        .collect()
}

/// Top-level fields of `summary.json`, with their meaning.
pub const SUMMARY_FIELDS: [(&str, &str); 7] = [
    ("schema_version", "version of the output format (this schema)"),
    ("scenario", "scenario name ([run] name, default the file stem)"),
    ("seeds", "seed of each replication, in order"),
    (
        "replications",
        "the full report of each replication (fields below); runs with [output] interval also have `timeseries` \
         (start_s, interval_s, end_s, and per flow and node the timeseries.csv values as vectors over the intervals)",
    ),
    ("aggregate", "the rows of flows-summary.csv as objects (same keys)"),
    ("network", "the rows of network.csv as objects (same keys)"),
    ("network_aggregate", "the row of network-summary.csv as an object (same keys)"),
];

/// Fields of each flow in `summary.json` `replications[].flows[]` beyond
/// the flows.csv columns of the same name.
pub const FLOW_JSON_FIELDS: [(&str, &str); 12] = [
    ("id", "flow index (flows.csv flow_id)"),
    ("name", "flow name (flows.csv flow)"),
    ("not_injected", "datagrams backpressure kept the application from injecting (in sent_packets)"),
    ("drops", "list of {node, reason, packets}: data packets dropped by node and ns-2 reason (flow-drops.csv)"),
    ("delay_histogram", "list of {low_s, high_s, count}: one-way delay bins, 16 per octave (histograms.csv)"),
    ("jitter_histogram", "list of {low_s, high_s, count}: |delay_i - delay_(i-1)| bins (histograms.csv)"),
    (
        "path_profile",
        "mobile runs with [output] path_profile = true: list of {start_s, end_s, hops}: shortest-path hop count over time (hops null: no path)",
    ),
    ("tcp", "TCP flows: sender counters (segments, retransmissions, timeouts, ...)"),
    ("voip", "VoIP calls: per-direction loss, delay, playout and MOS"),
    ("expected_bps", "see flows.csv"),
    ("src", "see flows.csv"),
    ("dst", "see flows.csv"),
];

/// `docs/outputs.schema.json`.
pub fn schema_json() -> serde_json::Value {
    let files: serde_json::Map<String, serde_json::Value> =
        tables().into_iter().map(|(file, t)| (file, serde_json::json!({ "columns": t.columns }))).collect();
    serde_json::json!({
        "schema_version": super::SCHEMA_VERSION,
        "null": "undefined values are an empty CSV field and JSON null, never 0",
        "csv": files,
        "timeseries.csv metrics": timeseries_metrics(),
        "summary.json": SUMMARY_FIELDS.iter().map(|(k, v)| (k.to_string(), serde_json::json!(v))).collect::<serde_json::Map<_, _>>(),
        "summary.json flow": FLOW_JSON_FIELDS.iter().map(|(k, v)| (k.to_string(), serde_json::json!(v))).collect::<serde_json::Map<_, _>>(),
    })
}

fn md_table(cols: &[Column]) -> String {
    let mut s = String::from("| column | unit | type | meaning |\n|---|---|---|---|\n");
    for c in cols {
        let unit = if c.unit.is_empty() { "" } else { &c.unit };
        s += &format!("| `{}` | {} | {} | {} |\n", c.name, unit, c.kind.name(), c.about.replace('|', "\\|"));
    }
    s
}

/// The generated part of `docs/outputs.md`: one column table per file and
/// the summary.json fields.
pub fn markdown() -> String {
    let mut s = String::new();
    for (file, t) in tables() {
        s += &format!("### `{file}`\n\n{}\n", md_table(&t.columns));
    }
    s += "### `timeseries.csv` metrics\n\n| scope | metric | unit | meaning |\n|---|---|---|---|\n";
    for m in super::timeseries::METRICS {
        s += &format!("| {} | `{}` | {} | {} |\n", m.scope.name(), m.name, m.unit, m.about);
    }
    s += "\n";
    s += "### `summary.json`\n\n| field | meaning |\n|---|---|\n";
    for (k, v) in SUMMARY_FIELDS {
        s += &format!("| `{k}` | {v} |\n");
    }
    s += "\nEach flow in `replications[].flows[]` has the numeric fields of `flows.csv` \
          (same names, same units; `null` where the CSV is empty) and:\n\n| field | meaning |\n|---|---|\n";
    for (k, v) in FLOW_JSON_FIELDS {
        s += &format!("| `{k}` | {v} |\n");
    }
    s
}
