//! The sweep files from a run store ([`super::store`]), in one pass over
//! the runs in plan order (point-major): `sweep-runs.csv` is written row by
//! row as the records are read; `sweep.csv` and `sweep.json` (one row per
//! point and flow) and the `sweep-goodput` figure are built per point. So
//! memory depends on the number of points, not on the number of runs
//! (beyond the store's index of about 100 bytes per run). The tables are
//! those of [`crate::output::sweep`], cell for cell: a test checks the
//! files against the tables built from reports in memory.

use super::store::{flow_cells_columns, timeseries_cells_columns, Record, Store};
use super::sweep::{Spec, SweepMeta};
use crate::output::aggregate::aggregate;
use crate::output::flows::{flows_columns, summarised_metrics, FLOW_KEYS};
use crate::output::sweep::{axis_column_names, axis_columns, point_cells, sweep_summary};
use crate::output::timeseries::timeseries_columns;
use crate::output::{Column, Table, Value};
use crate::study::sweep::Aggregate;
use serde_json::json;
use std::io::Write;
use std::path::Path;

/// [`sweep_summary`] of one point's rows, with the axis column names worked
/// out once (not per point: an axis may have thousands of values).
struct Summarizer {
    keys: Vec<String>,
    metrics: Vec<&'static str>,
}

impl Summarizer {
    fn new(meta: &SweepMeta) -> Summarizer {
        let mut keys: Vec<String> = axis_column_names(&meta.axes);
        keys.extend(FLOW_KEYS.iter().map(|k| k.to_string()));
        Summarizer { keys, metrics: summarised_metrics() }
    }
    fn of(&self, runs: &Table) -> Table {
        let keys: Vec<&str> = self.keys.iter().map(String::as_str).collect();
        aggregate("sweep", runs, &keys, &self.metrics)
    }
}

/// The runs of `specs` the store does not hold (with their fingerprint).
pub fn missing<'a>(specs: &'a [Spec], store: &Store) -> Vec<&'a Spec> {
    specs.iter().filter(|s| !store.contains(&s.key, &s.fingerprint)).collect()
}

/// What a pass over the runs found.
pub struct Totals {
    pub runs: u64,
    pub events: u64,
    /// Runs whose packet audit did not balance.
    pub unbalanced: Vec<String>,
    /// The `sweep` table (per point and flow).
    pub summary: Table,
}

/// The columns of one axis with their values (one per axis, or per
/// element of a list-valued axis).
type AxisCols = Vec<(Column, Vec<Value>)>;

/// The axis columns of `meta`, and all of them flattened.
fn axis_cols(meta: &SweepMeta) -> (Vec<AxisCols>, Vec<Column>) {
    let cols: Vec<AxisCols> = meta.axes.iter().map(axis_columns).collect();
    let prefix = cols.iter().flatten().map(|(c, _)| c.clone()).collect();
    (cols, prefix)
}

/// Calls `f` for every point with its rows of `sweep-runs` (a table of the
/// point's runs and flows), of `sweep-timeseries` (empty unless recorded)
/// and its records, in plan order.
fn for_each_point(
    meta: &SweepMeta,
    specs: &[Spec],
    store: &mut Store,
    mut f: impl FnMut(usize, Table, Table, &[Record]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let (axis_cols, prefix) = axis_cols(meta);
    let columns = flows_columns(&prefix);
    let ts_columns = timeseries_columns(&prefix);
    let kinds: Vec<_> = flow_cells_columns().iter().map(|c| c.kind).collect();
    let ts_kinds: Vec<_> = timeseries_cells_columns().iter().map(|c| c.kind).collect();
    let mut i = 0;
    while i < specs.len() {
        let p = specs[i].point;
        let end = i + specs[i..].iter().take_while(|s| s.point == p).count();
        let cells = point_cells(&meta.axes, &axis_cols, &meta.points[p]);
        let mut t = Table::new("sweep-runs", columns.clone());
        let mut ts = Table::new("sweep-timeseries", ts_columns.clone());
        let mut recs = Vec::with_capacity(end - i);
        for (k, s) in specs[i..end].iter().enumerate() {
            let r = store
                .get(&s.key, &s.fingerprint)?
                .ok_or_else(|| std::io::Error::other(format!("run {} is not in the store", s.key)))?;
            for flow in r.cells(&kinds).map_err(std::io::Error::other)? {
                let mut row = cells.clone();
                row.extend([Value::U64(k as u64), Value::U64(r.seed)]);
                row.extend(flow);
                t.push(row);
            }
            for cell in r.timeseries_cells(&ts_kinds).map_err(std::io::Error::other)? {
                let mut row = cells.clone();
                row.extend([Value::U64(k as u64), Value::U64(r.seed)]);
                row.extend(cell);
                ts.push(row);
            }
            recs.push(r);
        }
        f(p, t, ts, &recs)?;
        i = end;
    }
    Ok(())
}

/// The `sweep-runs`, `sweep` and `sweep-timeseries` tables in memory (for
/// the Python package).
pub fn tables(meta: &SweepMeta, specs: &[Spec], store: &mut Store) -> std::io::Result<(Table, Table, Table)> {
    let (_, prefix) = axis_cols(meta);
    let mut runs = Table::new("sweep-runs", flows_columns(&prefix));
    let summarize = Summarizer::new(meta);
    let mut summary = summarize.of(&runs);
    let mut series = Table::new("sweep-timeseries", timeseries_columns(&prefix));
    for_each_point(meta, specs, store, |_, t, ts, _| {
        summary.rows.extend(summarize.of(&t).rows);
        runs.rows.extend(t.rows);
        series.rows.extend(ts.rows);
        Ok(())
    })?;
    Ok((runs, summary, series))
}

/// Writes `sweep-runs.csv`, `sweep.csv`, `sweep.json` and, with one
/// numeric axis, the `sweep-goodput` figure into `dir` from the records of
/// `specs` in `store` (every one must be there: see [`missing`]).
pub fn write_outputs(dir: &Path, meta: &SweepMeta, specs: &[Spec], store: &mut Store) -> std::io::Result<Totals> {
    let runs_path = dir.join("sweep-runs.csv");
    let tmp = dir.join(".sweep-runs.csv.tmp");
    let mut w = csv::Writer::from_writer(std::io::BufWriter::new(std::fs::File::create(&tmp)?));
    let (_, prefix) = axis_cols(meta);
    w.write_record(flows_columns(&prefix).iter().map(|c| c.name.as_str()))?;
    // sweep-timeseries.csv, opened at the first recorded row.
    let ts_tmp = dir.join(".sweep-timeseries.csv.tmp");
    let mut ts_w: Option<csv::Writer<std::io::BufWriter<std::fs::File>>> = None;
    let mut summary: Option<Table> = None;
    let mut totals = Totals { runs: 0, events: 0, unbalanced: Vec::new(), summary: Table::new("sweep", Vec::new()) };
    // Goodput (kbit/s) per point and flow, for the figure.
    let mut goodput: Vec<(usize, Vec<Aggregate>)> = Vec::new();
    let mut flow_names: Vec<String> = Vec::new();
    let gi = flows_columns(&prefix).iter().position(|c| c.name == "goodput_bps").expect("goodput column");
    let fi = flows_columns(&prefix).iter().position(|c| c.name == "flow").expect("flow column");
    let summarize = Summarizer::new(meta);
    for_each_point(meta, specs, store, |p, t, ts, recs| {
        for row in &t.rows {
            w.write_record(row.iter().map(Value::to_field))?;
        }
        if !ts.rows.is_empty() && ts_w.is_none() {
            let mut tw = csv::Writer::from_writer(std::io::BufWriter::new(std::fs::File::create(&ts_tmp)?));
            tw.write_record(ts.columns.iter().map(|c| c.name.as_str()))?;
            ts_w = Some(tw);
        }
        if let Some(tw) = &mut ts_w {
            for row in &ts.rows {
                tw.write_record(row.iter().map(Value::to_field))?;
            }
        }
        let nflows = recs.first().map_or(0, |r| r.flows.len());
        if flow_names.is_empty() {
            flow_names = t.rows.iter().take(nflows).map(|r| r[fi].to_field()).collect();
        }
        goodput.push((
            p,
            (0..nflows)
                .map(|i| {
                    Aggregate::of(
                        t.rows.iter().skip(i).step_by(nflows.max(1)).map(|r| r[gi].as_f64().unwrap_or(f64::NAN) / 1e3),
                    )
                })
                .collect(),
        ));
        for r in recs {
            totals.runs += 1;
            totals.events += r.events;
            if !r.balanced {
                totals.unbalanced.push(r.key.clone());
            }
        }
        let s = summarize.of(&t);
        match &mut summary {
            Some(a) => a.rows.extend(s.rows),
            None => summary = Some(s),
        }
        Ok(())
    })?;
    let mut file = w.into_inner().map_err(|e| std::io::Error::other(e.to_string()))?;
    file.flush()?;
    file.get_ref().sync_data()?;
    drop(file);
    std::fs::rename(&tmp, &runs_path)?;
    if let Some(tw) = ts_w {
        let mut file = tw.into_inner().map_err(|e| std::io::Error::other(e.to_string()))?;
        file.flush()?;
        file.get_ref().sync_data()?;
        drop(file);
        std::fs::rename(&ts_tmp, dir.join("sweep-timeseries.csv"))?;
    }
    let agg = summary.unwrap_or_else(|| sweep_summary(&Table::new("sweep-runs", flows_columns(&prefix)), &meta.axes));
    agg.save_csv(dir)?;
    let summary_json = json!({
        "schema_version": crate::output::SCHEMA_VERSION,
        "scenario": meta.scenario,
        "axes": meta.axes.iter().map(|a| {
            let cols = axis_columns(a);
            let (c, vals) = &cols[0];
            json!({"key": a.key, "column": c.name, "unit": c.unit, "values": a.values,
                   "numbers": vals.iter().map(|v| v.to_json()).collect::<Vec<_>>(),
                   "columns": cols.iter().map(|(c, vals)| json!({"name": c.name, "unit": c.unit,
                       "numbers": vals.iter().map(|v| v.to_json()).collect::<Vec<_>>()})).collect::<Vec<_>>()})
        }).collect::<Vec<_>>(),
        "replications": meta.seeds.len(),
        "seeds": meta.seeds,
        "rows": agg.to_json_rows(),
    });
    crate::output::table::write_atomic(
        &dir.join("sweep.json"),
        (serde_json::to_string_pretty(&summary_json).expect("json") + "\n").as_bytes(),
    )?;
    write_figure(dir, meta, &goodput, &flow_names)?;
    totals.summary = agg;
    Ok(totals)
}

/// One numeric axis: goodput (mean ± CI) against it, one line per flow.
fn write_figure(
    dir: &Path,
    meta: &SweepMeta,
    goodput: &[(usize, Vec<Aggregate>)],
    flow_names: &[String],
) -> std::io::Result<()> {
    use crate::study::{Figure, Series};
    let (axes, pts, reps) = (&meta.axes, &meta.points, meta.seeds.len());
    if axes.len() != 1 || goodput.is_empty() {
        return Ok(());
    }
    // The x axis: the one column of the axis whose values vary (a list
    // axis such as [min, max] speeds: the element that changes).
    let cols = axis_columns(&axes[0]);
    let varying: Vec<_> = cols.iter().filter(|(_, v)| v.iter().any(|x| *x != v[0])).collect();
    let Some((col, numbers)) = (if cols.len() == 1 { cols.first() } else { varying.first().copied() }) else {
        return Ok(());
    };
    if varying.len() > 1 {
        return Ok(());
    }
    let col = col.clone();
    let xs: Vec<Option<f64>> = goodput
        .iter()
        .map(|(p, _)| axes[0].values.iter().position(|v| *v == pts[*p][0].1).and_then(|i| numbers[i].as_f64()))
        .collect();
    if !xs.iter().all(Option::is_some) {
        return Ok(());
    }
    let series = flow_names
        .iter()
        .enumerate()
        .map(|(i, name)| Series {
            name: name.clone(),
            points: xs
                .iter()
                .zip(goodput)
                .filter_map(|(x, (_, g))| g.get(i).map(|a| (x.unwrap(), a.mean, (reps > 1).then_some(a.ci95))))
                .collect(),
            scatter: false,
        })
        .collect();
    let fig = Figure {
        file_stem: "sweep-goodput".into(),
        title: format!("{}: goodput vs {}", meta.scenario, axes[0].key),
        x_label: col.name,
        y_label: "goodput (kbit/s)".into(),
        series,
        steps: false,
    };
    fig.write(dir, &mut Vec::new())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::sweep::{self, RunOptions};
    use super::super::Cancel;
    use super::*;
    use crate::output::sweep::sweep_runs;
    use crate::scenario::sweep::SweepAxis;
    use crate::scenario::Scenario;

    const CHAIN: &str = r#"
[run]
name = "chain"
duration = "1s"
[topology]
kind = "chain"
nodes = 3
spacing = "200m"
[[flow]]
src = 2
dst = 0
type = "cbr"
rate = "300kbps"
packet_size = "512B"
[[flow]]
name = "far"
src = 0
dst = 2
type = "cbr"
rate = "8kbps"
packet_size = "512B"
start = "0.99s"
"#;

    #[test]
    fn streamed_files_equal_the_tables_of_the_reports() {
        let axes = vec![
            SweepAxis { key: "flow.0.rate".into(), values: vec!["100kbps".into(), "400kbps".into()] },
            SweepAxis { key: "mac.rts_threshold".into(), values: vec!["0B".into(), "off".into()] },
        ];
        let plan = sweep::plan(axes.clone(), &[5, 6, 7], |set| Scenario::parse(CHAIN, "chain.toml", set)).unwrap();
        let dir = std::env::temp_dir().join(format!("manetlab-sweep-out-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let opts = RunOptions {
            resume: false,
            shard: None,
            full_reports: false,
            cancel: &Cancel::new(),
            progress: &|_, _| {},
        };
        let out = sweep::run(&plan, Some(&dir.join("runs")), &opts).unwrap();
        assert_eq!((out.loaded, out.ran), (0, 12));
        let mut store = out.store;
        let (meta, specs) = (sweep::meta(&plan, "chain"), sweep::specs(&plan));
        let totals = write_outputs(&dir, &meta, &specs, &mut store).unwrap();
        assert_eq!(totals.runs, 12);
        // The same tables from reports held in memory.
        let reports: Vec<_> =
            plan.jobs.iter().map(|j| crate::Simulation::new(j.config.clone()).unwrap().run()).collect();
        let runs = sweep_runs(&plan.axes, &plan.points, 3, &reports);
        let agg = sweep_summary(&runs, &plan.axes);
        assert_eq!(std::fs::read_to_string(dir.join("sweep-runs.csv")).unwrap(), runs.to_csv());
        assert_eq!(std::fs::read_to_string(dir.join("sweep.csv")).unwrap(), agg.to_csv());
        assert_eq!(totals.events, reports.iter().map(|r| r.events).sum::<u64>());
        let (t_runs, t_sum, t_series) = tables(&meta, &specs, &mut store).unwrap();
        assert!(t_series.rows.is_empty(), "no interval, no time series");
        assert_eq!((t_runs, t_sum), (runs, agg));
        // Resumed: nothing runs; a record missing is named.
        let resume = RunOptions { resume: true, ..opts };
        let again = sweep::run(&plan, Some(&dir.join("runs")), &resume).unwrap();
        assert_eq!((again.loaded, again.ran), (12, 0));
        let mut mem = Store::memory();
        mem.insert(store.get(&specs[3].key, &specs[3].fingerprint).unwrap().unwrap());
        let gone = missing(&specs, &mem);
        assert_eq!(gone.len(), 11);
        assert!(!gone.iter().any(|s| s.key == specs[3].key));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
