//! Sweep tables: `sweep-runs` (tidy: one row per point, replication and
//! flow) and `sweep` (per point and flow: n / mean / sd / ci95 of every
//! summarised flow metric). Axis values are numbers in SI units with the
//! unit in the column name (`mobility.pause_s`, `flow.0.rate_bps`), or text
//! when an axis is not a quantity (`routing.protocol`).

use super::aggregate::aggregate;
use super::flows::{flows_columns, push_flow_rows, summarised_metrics, FLOW_KEYS};
use super::table::{Column, Kind, Table, Value};
use crate::scenario::sweep::SweepAxis;
use crate::scenario::units::{DataRate, Distance, Duration, Frequency, Power, Size, Speed};
use crate::Report;

/// How an axis's value strings read as numbers: the column-name suffix,
/// the unit, and the parser (SI value).
type Reader = (&'static str, &'static str, fn(&str) -> Option<f64>);

fn db(v: &str, unit: &str) -> Option<f64> {
    let n = v.trim().strip_suffix(unit)?;
    n.trim().parse::<f64>().ok().filter(|x| x.is_finite())
}

const READERS: [Reader; 10] = [
    ("", "", |v| v.trim().parse::<f64>().ok().filter(|x| x.is_finite())),
    ("_s", "s", |v| v.parse::<Duration>().ok().map(|d| d.0.as_secs_f64())),
    ("_bps", "bit/s", |v| v.parse::<DataRate>().ok().map(|r| r.0 as f64)),
    ("_bytes", "B", |v| v.parse::<Size>().ok().map(|s| s.0 as f64)),
    ("_mps", "m/s", |v| v.parse::<Speed>().ok().map(|s| s.0)),
    ("_m", "m", |v| v.parse::<Distance>().ok().map(|d| d.0)),
    ("_Hz", "Hz", |v| v.parse::<Frequency>().ok().map(|f| f.0)),
    ("_dBm", "dBm", |v| db(v, "dBm")),
    ("_dB", "dB", |v| db(v, "dB")),
    ("_W", "W", |v| v.parse::<Power>().ok().map(|p| p.0)),
];

/// An axis as a column and its values in order.
pub fn axis_column(axis: &SweepAxis) -> (Column, Vec<Value>) {
    for (suffix, unit, read) in READERS {
        let vals: Option<Vec<f64>> = axis.values.iter().map(|v| read(v)).collect();
        if let Some(vals) = vals {
            let about = if unit.is_empty() {
                format!("sweep axis {} (a number)", axis.key)
            } else {
                format!("sweep axis {} in {unit}", axis.key)
            };
            return (
                Column::new(format!("{}{suffix}", axis.key), unit, Kind::F64, about),
                vals.into_iter().map(Value::f).collect(),
            );
        }
    }
    (
        Column::new(axis.key.clone(), "", Kind::Str, format!("sweep axis {} (text)", axis.key)),
        axis.values.iter().map(Value::s).collect(),
    )
}

/// An axis's value texts as TOML arrays of one length (list-valued
/// points such as `mobility.speed = [["0.1m/s", "5m/s"], ...]`): the
/// element texts per value, or None.
fn list_elements(axis: &SweepAxis) -> Option<Vec<Vec<String>>> {
    let mut out = Vec::new();
    for v in &axis.values {
        if !v.trim_start().starts_with('[') {
            return None;
        }
        let t: toml::Table = toml::from_str(&format!("v = {v}")).ok()?;
        let toml::Value::Array(a) = &t["v"] else { return None };
        let texts: Option<Vec<String>> = a
            .iter()
            .map(|e| match e {
                toml::Value::String(s) => Some(s.clone()),
                toml::Value::Integer(i) => Some(i.to_string()),
                toml::Value::Float(f) => Some(f.to_string()),
                toml::Value::Boolean(b) => Some(b.to_string()),
                _ => None,
            })
            .collect();
        out.push(texts?);
    }
    let n = out.first()?.len();
    (n > 0 && out.iter().all(|e| e.len() == n)).then_some(out)
}

/// An axis as its columns and their values in order: one column, or for
/// list-valued points one column per element (`mobility.speed.0_mps`,
/// `mobility.speed.1_mps`), each numeric in SI units when it can be.
pub fn axis_columns(axis: &SweepAxis) -> Vec<(Column, Vec<Value>)> {
    match list_elements(axis) {
        Some(el) => (0..el[0].len())
            .map(|j| {
                let sub =
                    SweepAxis { key: format!("{}.{j}", axis.key), values: el.iter().map(|e| e[j].clone()).collect() };
                axis_column(&sub)
            })
            .collect(),
        None => vec![axis_column(axis)],
    }
}

/// The names of every axis column, in order.
pub fn axis_column_names(axes: &[SweepAxis]) -> Vec<String> {
    axes.iter().flat_map(axis_columns).map(|(c, _)| c.name).collect()
}

/// The values of each point's axes, as cells of the axis columns. `points`
/// holds (key, value text) per axis in axis order.
pub fn point_cells(axes: &[SweepAxis], cols: &[Vec<(Column, Vec<Value>)>], point: &[(String, String)]) -> Vec<Value> {
    point
        .iter()
        .zip(axes.iter().zip(cols))
        .flat_map(|((_, v), (a, cs))| {
            let i = a.values.iter().position(|x| x == v).expect("point value is one of the axis values");
            cs.iter().map(move |(_, vals)| vals[i].clone())
        })
        .collect()
}

/// `sweep-runs`: one row per (point, replication, flow). `reports` holds
/// `reps` reports per point, points in order.
pub fn sweep_runs(axes: &[SweepAxis], points: &[Vec<(String, String)>], reps: usize, reports: &[Report]) -> Table {
    let cols: Vec<Vec<(Column, Vec<Value>)>> = axes.iter().map(axis_columns).collect();
    let prefix: Vec<Column> = cols.iter().flatten().map(|(c, _)| c.clone()).collect();
    let mut t = Table::new("sweep-runs", flows_columns(&prefix));
    for (pi, p) in points.iter().enumerate() {
        let cells = point_cells(axes, &cols, p);
        for (k, r) in reports[pi * reps..(pi + 1) * reps].iter().enumerate() {
            push_flow_rows(&mut t, &cells, k, r);
        }
    }
    t
}

/// `sweep-timeseries`: the `timeseries` rows of every run (recorded with
/// `[output] interval`), after the point's axis columns.
pub fn sweep_timeseries(
    axes: &[SweepAxis],
    points: &[Vec<(String, String)>],
    reps: usize,
    reports: &[Report],
) -> Table {
    use super::timeseries::{push_timeseries_rows, timeseries_columns};
    let cols: Vec<Vec<(Column, Vec<Value>)>> = axes.iter().map(axis_columns).collect();
    let prefix: Vec<Column> = cols.iter().flatten().map(|(c, _)| c.clone()).collect();
    let mut t = Table::new("sweep-timeseries", timeseries_columns(&prefix));
    for (pi, p) in points.iter().enumerate() {
        let cells = point_cells(axes, &cols, p);
        for (k, r) in reports[pi * reps..(pi + 1) * reps].iter().enumerate() {
            push_timeseries_rows(&mut t, &cells, k, r);
        }
    }
    t
}

/// `sweep`: per point and flow, n / mean / sd / ci95 of every summarised
/// flow metric over the replications.
pub fn sweep_summary(runs: &Table, axes: &[SweepAxis]) -> Table {
    let axis_names = axis_column_names(axes);
    let mut keys: Vec<&str> = axis_names.iter().map(String::as_str).collect();
    keys.extend(FLOW_KEYS);
    aggregate("sweep", runs, &keys, &summarised_metrics())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(key: &str, vals: &[&str]) -> SweepAxis {
        SweepAxis { key: key.into(), values: vals.iter().map(|s| s.to_string()).collect() }
    }

    #[test]
    fn axes_become_si_numbers_with_the_unit_in_the_name() {
        let (c, v) = axis_column(&axis("mobility.pause", &["0s", "30s", "500ms"]));
        assert_eq!(c.name, "mobility.pause_s");
        assert_eq!(v, [Value::F64(0.0), Value::F64(30.0), Value::F64(0.5)]);
        let (c, v) = axis_column(&axis("flow.0.rate", &["100kbps", "1.5Mbps"]));
        assert_eq!(c.name, "flow.0.rate_bps");
        assert_eq!(v, [Value::F64(100e3), Value::F64(1.5e6)]);
        let (c, _) = axis_column(&axis("mac.rts_threshold", &["0", "3000"]));
        assert_eq!((c.name.as_str(), c.kind), ("mac.rts_threshold", Kind::F64));
        let (c, v) = axis_column(&axis("flow.0.packet_size", &["512B", "1.5KB"]));
        assert_eq!(c.name, "flow.0.packet_size_bytes");
        assert_eq!(v[1], Value::F64(1500.0));
        let (c, v) = axis_column(&axis("radio.tx_power", &["15dBm", "24.5dBm"]));
        assert_eq!(c.name, "radio.tx_power_dBm");
        assert_eq!(v[1], Value::F64(24.5));
        let (c, v) = axis_column(&axis("routing.protocol", &["aodv", "dsr"]));
        assert_eq!((c.name.as_str(), c.kind), ("routing.protocol", Kind::Str));
        assert_eq!(v[0], Value::s("aodv"));
    }

    #[test]
    fn list_points_become_one_numeric_column_per_element() {
        let a = axis("mobility.speed", &[r#"["0.1m/s", "5m/s"]"#, r#"["0.1m/s", "20m/s"]"#]);
        let cs = axis_columns(&a);
        let names: Vec<&str> = cs.iter().map(|(c, _)| c.name.as_str()).collect();
        assert_eq!(names, ["mobility.speed.0_mps", "mobility.speed.1_mps"]);
        assert_eq!(cs[1].1, [Value::F64(5.0), Value::F64(20.0)]);
        assert_eq!(cs[0].0.kind, Kind::F64);
        // Scalars keep their one column.
        assert_eq!(axis_columns(&axis("x", &["1", "2"])).len(), 1);
    }
}
