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
pub mod sorted_json;
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
/// with the CSV column names. The file is written from [`Summary`]
/// without this `Value` (`exec/summary.rs`), to the same text.
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

/// [`summary_json`]'s fields, serialized without a `serde_json::Value` by
/// [`sorted_json::to_string_pretty_sorted`] (which sorts the keys as the
/// `Value`'s maps do).
#[derive(serde::Serialize)]
pub struct Summary<'a> {
    pub schema_version: u32,
    pub scenario: &'a str,
    pub seeds: &'a [u64],
    pub replications: &'a [Report],
    pub aggregate: Rows<'a>,
    pub network: Rows<'a>,
    /// The first row of `network-summary`, or null.
    pub network_aggregate: Option<Row<'a>>,
}

impl<'a> Summary<'a> {
    pub fn new(scenario: &'a str, seeds: &'a [u64], reports: &'a [Report], tables: &'a [Table]) -> Summary<'a> {
        let get = |name: &str| tables.iter().find(|t| t.name == name);
        let net_summary = get("network-summary");
        Summary {
            schema_version: SCHEMA_VERSION,
            scenario,
            seeds,
            replications: reports,
            aggregate: Rows(get("flows-summary")),
            network: Rows(get("network")),
            network_aggregate: net_summary.filter(|t| !t.rows.is_empty()).map(|t| Row(t, 0)),
        }
    }
}

/// A table's rows as [`Table::to_json_rows`] makes them (none without a table).
pub struct Rows<'a>(pub Option<&'a Table>);

/// Row `.1` of a table as an object keyed by column name.
pub struct Row<'a>(pub &'a Table, pub usize);

impl serde::Serialize for Rows<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let n = self.0.map_or(0, |t| t.rows.len());
        let mut seq = s.serialize_seq(Some(n))?;
        if let Some(t) = self.0 {
            for i in 0..n {
                seq.serialize_element(&Row(t, i))?;
            }
        }
        seq.end()
    }
}

impl serde::Serialize for Row<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let (t, i) = (self.0, self.1);
        let mut map = s.serialize_map(Some(t.columns.len()))?;
        for (c, v) in t.columns.iter().zip(&t.rows[i]) {
            map.serialize_key(&c.name)?;
            match v {
                // As `table::Value::to_json`: a non-finite float is null.
                Value::F64(x) if x.is_finite() => map.serialize_value(x)?,
                Value::F64(_) | Value::Null => map.serialize_value(&())?,
                Value::I64(x) => map.serialize_value(x)?,
                Value::U64(x) => map.serialize_value(x)?,
                Value::Str(x) => map.serialize_value(x)?,
            }
        }
        map.end()
    }
}
