//! The output files of a run, a sweep or a study, defined once.
//!
//! Every table is a [`Table`]: columns with a name (the SI unit is part of
//! the name: `goodput_bps`, `delay_mean_s`), a unit, a type and a meaning,
//! and rows produced from [`crate::Report`]s by one function here. The CLI
//! writes them as CSV (`Table::save_csv`, through the `csv` crate) and as
//! JSON objects with the same keys; a columnar writer takes
//! [`Table::column`]. `docs/outputs.md` and `docs/outputs.schema.json`
//! describe every file, and a test checks that they match what is written.
//!
//! Rules: one row per observation (tidy); undefined values are null (JSON)
//! or empty (CSV), never 0, and never enter a mean; every statistic over
//! runs carries its own `n`; statistics are named `<metric>_n`, `_mean`,
//! `_sd`, `_ci95` in every file.

pub mod aggregate;
pub mod flows;
pub mod manifest;
pub mod network;
pub mod nodes;
pub mod schema;
pub mod sweep;
pub mod table;
pub mod timeseries;

pub use aggregate::{aggregate, Stat};
pub use table::{Column, ColumnData, Kind, Table, Value};

use crate::Report;

/// Version of the output format (files, columns, JSON fields). Bumped when
/// a column or field is renamed, removed or changes meaning.
pub const SCHEMA_VERSION: u32 = 2;

/// The tables of a run (one or more replications of one scenario), in the
/// order they are written: `flows`, `flows-summary`, `network`,
/// `network-summary`, `flow-drops`, `histograms`, `nodes`, and `timeseries` when the
/// runs recorded one (`[output] interval`).
pub fn run_tables(reports: &[Report]) -> Vec<Table> {
    let fl = flows::flows(reports);
    let summary = flows::flows_summary(&fl);
    let net = network::network(reports);
    let metrics = network::network_metrics();
    let names: Vec<&str> = metrics.iter().map(String::as_str).collect();
    let net_summary = aggregate("network-summary", &net, &[], &names);
    let mut v = vec![
        fl,
        summary,
        net,
        net_summary,
        flows::flow_drops(reports),
        flows::histograms(reports),
        nodes::nodes(reports),
    ];
    if timeseries::recorded(reports) {
        v.push(timeseries::timeseries(reports));
    }
    v
}

/// `summary.json`: every replication's full report, and the `flows-summary`
/// (as `aggregate`), `network` and `network-summary` tables as objects
/// with the CSV column names.
pub fn summary_json(scenario: &str, seeds: &[u64], reports: &[Report], tables: &[Table]) -> serde_json::Value {
    let get = |name: &str| tables.iter().find(|t| t.name == name).map(Table::to_json_rows).unwrap_or_default();
    serde_json::json!({
        "schema_version": SCHEMA_VERSION,
        "scenario": scenario,
        "seeds": seeds,
        "replications": reports,
        "aggregate": get("flows-summary"),
        "network": get("network"),
        "network_aggregate": get("network-summary").into_iter().next().unwrap_or(serde_json::Value::Null),
    })
}
