//! The result tables handed to Python: the library's own definitions
//! (`manetlab::output`, the same that write the command line's CSV files),
//! converted column by column to the Arrow-bound [`Table`]. No table is
//! defined here: same names, columns, units and nulls as the CLI writes.

use crate::arrow::{Data, Table};
use manetlab::output::{self, ColumnData};
use manetlab::Report;

/// A library table as an Arrow-bound table (units as field metadata).
pub fn convert(t: &output::Table) -> Table {
    let mut out = Table::default();
    for (i, c) in t.columns.iter().enumerate() {
        let data = match t.column(i) {
            ColumnData::F64(v) => Data::F64(v),
            ColumnData::U64(v) => Data::U64(v),
            ColumnData::I64(v) => Data::I64(v),
            ColumnData::Str(v) => Data::Str(v),
        };
        let unit = (!c.unit.is_empty()).then(|| c.unit.clone());
        out.columns.push((c.name.clone(), unit, data));
    }
    out
}

/// The names of the run tables (`Results.table`): the CSV file stems.
pub const RUN_TABLES: [&str; 9] = [
    "flows",
    "flows-summary",
    "network",
    "network-summary",
    "flow-drops",
    "histograms",
    "nodes",
    "timeseries",
    "summary",
];

/// One run table by name (`summary` is an alias of `flows-summary`).
/// `timeseries` is empty (columns only) when the runs recorded none.
pub fn run_table(name: &str, reports: &[Report]) -> Option<Table> {
    let t = match name {
        "flows" => output::flows::flows(reports),
        "flows-summary" | "summary" => output::flows::flows_summary(&output::flows::flows(reports)),
        "network" => output::network::network(reports),
        "nodes" => output::nodes::nodes(reports),
        "timeseries" => output::timeseries::timeseries(reports),
        "flow-drops" => output::flows::flow_drops(reports),
        "histograms" => output::flows::histograms(reports),
        "network-summary" => output::run_tables(reports).into_iter().find(|t| t.name == "network-summary")?,
        _ => return None,
    };
    Some(convert(&t))
}

