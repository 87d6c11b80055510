//! Parameter sweeps for front ends: the runs of a grid (every point times
//! every seed), executed in parallel with the resumable per-run store of
//! [`crate::study::sweep`] (`<dir>/runs/<key>.json`), and the sweep files
//! (`sweep-runs.csv`, `sweep.csv`, `sweep.json`, `sweep-goodput.svg`).
//! The command line (`manetlab run FILE --sweep ...`) and the Python
//! package (`ml.sweep`) share all of it, so either can resume the other's
//! store.

use super::{run_config, Cancel, ExecError};
use crate::metrics::FlowReport;
use crate::scenario::sweep::{label, points, SweepAxis};
use crate::scenario::{Scenario, ScenarioError};
use crate::study::sweep::{self as store, Aggregate, Job};
use crate::Report;
use rayon::prelude::*;
use serde_json::json;
use std::collections::HashSet;
use std::fmt::Write as _;
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
    Point { point: String, err: ScenarioError },
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

/// Plans the sweep of `axes` x `seeds`: `load(overrides)` gives the
/// scenario with a point's `key=value` overrides applied (after any the
/// caller already has). Every point is checked and every run built before
/// any runs.
pub fn plan(
    axes: Vec<SweepAxis>,
    seeds: &[u64],
    load: impl Fn(&[String]) -> Result<Scenario, ScenarioError>,
) -> Result<SweepPlan, PlanError> {
    let pts = points(&axes);
    let mut jobs = Vec::with_capacity(pts.len() * seeds.len());
    for p in &pts {
        let set: Vec<String> = p.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let sc = load(&set).map_err(|err| PlanError::Point { point: label(p), err })?;
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

/// The metrics aggregated per point and flow: (column name, getter).
type Metric = (&'static str, fn(&FlowReport) -> f64);
pub const METRICS: [Metric; 6] = [
    ("goodput_bps", |f| f.goodput_bps),
    ("delivery_ratio", |f| f.delivery_ratio),
    ("delay_mean_s", |f| f.delay_mean_s),
    ("delay_p95_s", |f| f.delay_p95_s),
    ("jitter_s", |f| f.jitter_s),
    ("offered_bps", |f| f.offered_bps),
];

/// Writes `sweep-runs.csv` (every run and flow), `sweep.csv` (mean, sd and
/// 95% CI per point and flow), `sweep.json` and, with one numeric axis,
/// the `sweep-goodput` figure into `dir`. `reports` are in plan order.
pub fn write_outputs(dir: &Path, name: &str, plan: &SweepPlan, reports: &[Report]) -> std::io::Result<()> {
    let axes = &plan.axes;
    let pts = &plan.points;
    let reps = plan.seeds.len();
    let keys: Vec<&str> = axes.iter().map(|a| a.key.as_str()).collect();
    // Every run, every flow.
    let mut runs = keys.join(",");
    if !runs.is_empty() {
        runs.push(',');
    }
    runs += "seed,flow,kind,src,dst,sent_packets,received_packets";
    for (m, _) in METRICS {
        runs += &format!(",{m}");
    }
    runs.push('\n');
    // Aggregates per point and flow.
    let mut agg = keys.join(",");
    if !agg.is_empty() {
        agg.push(',');
    }
    agg += "flow,n";
    for (m, _) in METRICS {
        agg += &format!(",{m}_mean,{m}_sd,{m}_ci95");
    }
    agg.push('\n');
    let mut json_points = Vec::new();
    for (pi, p) in pts.iter().enumerate() {
        let rs = &reports[pi * reps..(pi + 1) * reps];
        let vals: String = p.iter().map(|(_, v)| format!("{},", v.replace(',', ";"))).collect();
        for (k, r) in rs.iter().enumerate() {
            for f in &r.flows {
                let _ = write!(
                    runs,
                    "{vals}{},{},{},{},{},{},{}",
                    plan.seeds[k], f.name, f.kind, f.src, f.dst, f.sent_packets, f.received_packets
                );
                for (_, g) in METRICS {
                    let _ = write!(runs, ",{}", g(f));
                }
                runs.push('\n');
            }
        }
        let mut flows_json = Vec::new();
        for (i, f) in rs[0].flows.iter().enumerate() {
            let _ = write!(agg, "{vals}{},{}", f.name, rs.len());
            let mut fj = serde_json::Map::new();
            fj.insert("flow".into(), json!(f.name));
            for (m, g) in METRICS {
                let a = Aggregate::of(rs.iter().map(|r| g(&r.flows[i])));
                let _ = write!(agg, ",{},{},{}", a.mean, a.sd, a.ci95);
                fj.insert(m.into(), json!(a));
            }
            agg.push('\n');
            flows_json.push(serde_json::Value::Object(fj));
        }
        json_points.push(json!({
            "point": p.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
            "seeds": plan.seeds,
            "flows": flows_json,
        }));
    }
    atomic_write(&dir.join("sweep-runs.csv"), &runs)?;
    atomic_write(&dir.join("sweep.csv"), &agg)?;
    let summary = json!({
        "scenario": name,
        "axes": axes.iter().map(|a| json!({"key": a.key, "values": a.values})).collect::<Vec<_>>(),
        "replications": reps,
        "points": json_points,
    });
    atomic_write(&dir.join("sweep.json"), &(serde_json::to_string_pretty(&summary).expect("json") + "\n"))?;
    write_figure(dir, name, plan, reports)?;
    Ok(())
}

/// One numeric axis: goodput (mean ± CI) against it, one line per flow.
fn write_figure(dir: &Path, name: &str, plan: &SweepPlan, reports: &[Report]) -> std::io::Result<()> {
    use crate::study::{Figure, Series};
    let (axes, pts, reps) = (&plan.axes, &plan.points, plan.seeds.len());
    if axes.len() != 1 || reports.is_empty() {
        return Ok(());
    }
    let xs: Vec<Option<f64>> = pts.iter().map(|p| leading_number(&p[0].1)).collect();
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
        x_label: axes[0].key.clone(),
        y_label: "goodput (kbit/s)".into(),
        series,
        steps: false,
    };
    fig.write(dir, &mut Vec::new())?;
    Ok(())
}

fn leading_number(s: &str) -> Option<f64> {
    let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).unwrap_or(s.len());
    s[..end].parse().ok()
}

fn atomic_write(path: &Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}
