//! Parameter sweeps for front ends: the runs of a grid (every point times
//! every seed), executed in parallel with the resumable per-run store of
//! [`crate::study::sweep`] (`<dir>/runs/<key>.json`), and the sweep files
//! (`sweep-runs.csv`, `sweep.csv`, `sweep.json`, `sweep-goodput.svg`).
//! The command line (`manetlab run FILE --sweep ...`) and the Python
//! package (`ml.sweep`) share all of it, so either can resume the other's
//! store.

use super::{run_config, Cancel, ExecError};
use crate::scenario::sweep::{label, SweepAxis, SweepSpec};
use crate::scenario::{Scenario, ScenarioError};
use crate::study::sweep::{self as store, Aggregate, Job};
use crate::Report;
use rayon::prelude::*;
use serde_json::json;
use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Every run of a sweep, in point-major order (`jobs[p * seeds.len() + k]`
/// is point `p`, seed `seeds[k]`).
#[derive(Clone, Debug)]
pub struct SweepPlan {
    pub axes: Vec<SweepAxis>,
    /// The points: `(key, value)` per axis, first axis slowest.
    pub points: Vec<Vec<(String, String)>>,
    pub seeds: Vec<u64>,
    pub jobs: Vec<Job>,
}

/// Why a sweep could not be planned.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// A point's overrides make the scenario invalid.
    #[error("sweep point {point}: {err}")]
    Point { point: String, err: Box<ScenarioError> },
    /// A run cannot be built (a flow to a node that does not exist...).
    #[error("{key}: {err}")]
    Build { key: String, err: crate::simulation::BuildError },
}

/// The store key of a run: `key=value,.../seed=N` (`seed=N` alone without
/// axes). Names its file under `runs/`.
pub fn run_key(point: &[(String, String)], seed: u64) -> String {
    if point.is_empty() {
        format!("seed={seed}")
    } else {
        format!("{}/seed={seed}", label(point))
    }
}

/// Plans the sweep of `spec` (axes, or a [`SweepSpec`] with zipped groups)
/// x `seeds`: `load(overrides)` gives the scenario with a point's
/// `key=value` overrides applied (after any the caller already has). Every
/// point is checked and every run built before any runs.
pub fn plan(
    spec: impl Into<SweepSpec>,
    seeds: &[u64],
    load: impl Fn(&[String]) -> Result<Scenario, ScenarioError>,
) -> Result<SweepPlan, PlanError> {
    let spec: SweepSpec = spec.into();
    let axes = spec.axes();
    let pts = spec.points();
    let mut jobs = Vec::with_capacity(pts.len() * seeds.len());
    for p in &pts {
        let set: Vec<String> = p.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let sc = load(&set).map_err(|err| PlanError::Point { point: label(p), err: Box::new(spec.locate(p, err)) })?;
        for &seed in seeds {
            let key = run_key(p, seed);
            let cfg = sc.config(seed);
            crate::Simulation::new(cfg.clone()).map_err(|err| PlanError::Build { key: key.clone(), err })?;
            jobs.push(Job::new(key, cfg));
        }
    }
    Ok(SweepPlan { axes, points: pts, seeds: seeds.to_vec(), jobs })
}

/// Runs the plan's jobs in parallel on the current rayon pool. With `dir`,
/// each finished run is stored at once in `dir` (the `runs/` folder) and,
/// with `resume`, runs already stored for the same key and config are
/// loaded instead of run. `progress(done, total)` is called as runs finish
/// (loaded runs count as done); `loaded` receives how many were loaded.
/// A [`Cancel`] stops the runs in flight; runs finished before it stay
/// stored. Reports come back in job order.
pub fn run(
    plan: &SweepPlan,
    dir: Option<&Path>,
    resume: bool,
    cancel: &Cancel,
    progress: &(dyn Fn(usize, usize) + Sync),
    loaded: &AtomicUsize,
) -> Result<Vec<Report>, ExecError> {
    let jobs = &plan.jobs;
    let mut seen = HashSet::new();
    for j in jobs {
        if !seen.insert(store::file_name(&j.key)) {
            return Err(ExecError::Other(format!("sweep: two runs share the key (or file name) {:?}", j.key)));
        }
    }
    if let Some(d) = dir {
        std::fs::create_dir_all(d).map_err(|e| ExecError::Other(format!("creating {}: {e}", d.display())))?;
    }
    let total = jobs.len();
    let mut slots: Vec<Option<Report>> = jobs
        .iter()
        .map(|j| match (dir, resume) {
            (Some(d), true) => store::load(d, j),
            _ => None,
        })
        .collect();
    let resumed = slots.iter().filter(|s| s.is_some()).count();
    loaded.store(resumed, Ordering::Relaxed);
    let done = AtomicUsize::new(resumed);
    progress(resumed, total);
    let todo: Vec<usize> = (0..jobs.len()).filter(|&i| slots[i].is_none()).collect();
    let sim_ns = AtomicU64::new(0);
    let fresh: Vec<(usize, Result<Report, ExecError>)> = todo
        .into_par_iter()
        .map(|i| {
            let job = &jobs[i];
            let out = run_config(job.config.clone(), cancel, &sim_ns).and_then(|r| match dir {
                Some(d) => store::store(d, job, &r).map(|()| r).map_err(|e| ExecError::Other(e.to_string())),
                None => Ok(r),
            });
            if out.is_ok() {
                progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
            }
            (i, out)
        })
        .collect();
    for (i, r) in fresh {
        slots[i] = Some(r?);
    }
    Ok(slots.into_iter().map(|s| s.expect("every job has a result")).collect())
}

/// Writes `sweep-runs.csv` (every run and flow), `sweep.csv` (n, mean, sd
/// and 95% CI per point and flow), `sweep.json` and, with one numeric axis,
/// the `sweep-goodput` figure into `dir`. `reports` are in plan order. The
/// tables are defined in [`crate::output::sweep`].
pub fn write_outputs(dir: &Path, name: &str, plan: &SweepPlan, reports: &[Report]) -> std::io::Result<()> {
    use crate::output::sweep::{axis_columns, sweep_runs, sweep_summary};
    let axes = &plan.axes;
    let runs = sweep_runs(axes, &plan.points, plan.seeds.len(), reports);
    let agg = sweep_summary(&runs, axes);
    runs.save_csv(dir)?;
    agg.save_csv(dir)?;
    if crate::output::timeseries::recorded(reports) {
        crate::output::sweep::sweep_timeseries(axes, &plan.points, plan.seeds.len(), reports).save_csv(dir)?;
    }
    let summary = json!({
        "schema_version": crate::output::SCHEMA_VERSION,
        "scenario": name,
        "axes": axes.iter().map(|a| {
            let cols = axis_columns(a);
            let (c, vals) = &cols[0];
            json!({"key": a.key, "column": c.name, "unit": c.unit, "values": a.values,
                   "numbers": vals.iter().map(|v| v.to_json()).collect::<Vec<_>>(),
                   "columns": cols.iter().map(|(c, vals)| json!({"name": c.name, "unit": c.unit,
                       "numbers": vals.iter().map(|v| v.to_json()).collect::<Vec<_>>()})).collect::<Vec<_>>()})
        }).collect::<Vec<_>>(),
        "replications": plan.seeds.len(),
        "seeds": plan.seeds,
        "rows": agg.to_json_rows(),
    });
    atomic_write(&dir.join("sweep.json"), &(serde_json::to_string_pretty(&summary).expect("json") + "\n"))?;
    write_figure(dir, name, plan, reports)?;
    Ok(())
}

/// One numeric axis: goodput (mean ± CI) against it, one line per flow.
fn write_figure(dir: &Path, name: &str, plan: &SweepPlan, reports: &[Report]) -> std::io::Result<()> {
    use crate::output::sweep::axis_columns;
    use crate::study::{Figure, Series};
    let (axes, pts, reps) = (&plan.axes, &plan.points, plan.seeds.len());
    if axes.len() != 1 || reports.is_empty() {
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
    let xs: Vec<Option<f64>> = pts
        .iter()
        .map(|p| axes[0].values.iter().position(|v| *v == p[0].1).and_then(|i| numbers[i].as_f64()))
        .collect();
    if !xs.iter().all(Option::is_some) {
        return Ok(());
    }
    let series = reports[0]
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| Series {
            name: f.name.clone(),
            points: xs
                .iter()
                .enumerate()
                .map(|(pi, x)| {
                    let a =
                        Aggregate::of(reports[pi * reps..(pi + 1) * reps].iter().map(|r| r.flows[i].goodput_bps / 1e3));
                    (x.unwrap(), a.mean, (reps > 1).then_some(a.ci95))
                })
                .collect(),
            scatter: false,
        })
        .collect();
    let fig = Figure {
        file_stem: "sweep-goodput".into(),
        title: format!("{name}: goodput vs {}", axes[0].key),
        x_label: col.name,
        y_label: "goodput (kbit/s)".into(),
        series,
        steps: false,
    };
    fig.write(dir, &mut Vec::new())?;
    Ok(())
}

fn atomic_write(path: &Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}
