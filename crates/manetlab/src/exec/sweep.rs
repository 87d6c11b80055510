//! Parameter sweeps for front ends: the runs of a grid (every point times
//! every seed), executed in parallel into the run store of [`super::store`]
//! (`<dir>/runs/*.jsonl`, one compact checksummed record per run), and the
//! sweep files aggregated from it ([`super::sweep_out`]). The command line
//! (`manetlab run FILE --sweep ...`, `--shard I/N`, `manetlab merge`,
//! `manetlab plan`) and the Python package (`ml.sweep`, with any executor)
//! share all of it, so either can resume or merge the other's store.
//!
//! A sweep folder holds `sweep-plan.json` (scenario name, axes, points,
//! seeds, the digest of the plan) and `plan.jsonl` (one line per run: key,
//! point, seed, fingerprint), written before any run, so `merge` can
//! aggregate shards without the scenario file.

use super::store::{records_file, Record, Store, Writer};
use super::{run_config, Cancel, ExecError};
use crate::scenario::sweep::{label, SweepAxis, SweepSpec};
use crate::scenario::{Scenario, ScenarioError};
use crate::study::sweep::{self as runstore, fingerprint, Job};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

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

/// One shard of a sweep: runs whose key hashes to `index` modulo `count`
/// (CRC-32 of the key: the same on every machine, whatever the order or
/// number of runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// `I/N` with `0 <= I < N`.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let bad = || format!("--shard {s:?}: expected I/N with 0 <= I < N, e.g. 0/3");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (i.trim().parse::<u32>().map_err(|_| bad())?, n.trim().parse::<u32>().map_err(|_| bad())?);
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
    /// Whether run `key` belongs to this shard.
    pub fn owns(&self, key: &str) -> bool {
        crc32fast::hash(key.as_bytes()) % self.count == self.index
    }
}

/// Whether run `key` is in `shard` (every run is when there is no shard).
fn owned(shard: Option<Shard>, key: &str) -> bool {
    match shard {
        Some(s) => s.owns(key),
        None => true,
    }
}

/// One run of a plan as `manetlab plan` prints it and `plan.jsonl` holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub key: String,
    /// Index of the run's point in [`SweepMeta::points`].
    pub point: usize,
    pub seed: u64,
    pub fingerprint: String,
}

/// What the sweep tables need of a plan besides its runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepMeta {
    /// The scenario name.
    pub scenario: String,
    #[serde(with = "axes_serde")]
    pub axes: Vec<SweepAxis>,
    /// The points: (key, value) per axis, in plan order.
    pub points: Vec<Vec<(String, String)>>,
    pub seeds: Vec<u64>,
}

/// Axes as `[{"key", "values"}]` in `sweep-plan.json`.
mod axes_serde {
    use super::SweepAxis;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    #[derive(Serialize, Deserialize)]
    struct Axis {
        key: String,
        values: Vec<String>,
    }
    pub fn serialize<S: Serializer>(axes: &[SweepAxis], s: S) -> Result<S::Ok, S::Error> {
        axes.iter().map(|a| Axis { key: a.key.clone(), values: a.values.clone() }).collect::<Vec<_>>().serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SweepAxis>, D::Error> {
        let v = Vec::<Axis>::deserialize(d)?;
        Ok(v.into_iter().map(|a| SweepAxis { key: a.key, values: a.values }).collect())
    }
}

/// The runs of `plan` (plan order: point-major).
pub fn specs(plan: &SweepPlan) -> Vec<Spec> {
    let reps = plan.seeds.len();
    plan.jobs
        .iter()
        .enumerate()
        .map(|(i, j)| Spec {
            key: j.key.clone(),
            point: i / reps,
            seed: plan.seeds[i % reps],
            fingerprint: fingerprint(&j.config),
        })
        .collect()
}

/// The meta of `plan` for scenario `name`.
pub fn meta(plan: &SweepPlan, name: &str) -> SweepMeta {
    SweepMeta { scenario: name.into(), axes: plan.axes.clone(), points: plan.points.clone(), seeds: plan.seeds.clone() }
}

/// A point as a JSON object with its keys in axis order.
struct Point<'a>(&'a [(String, String)]);

impl Serialize for Point<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// One run as a JSON line (without newline): `{"key", "point" (axis key
/// to value, in axis order), "point_index", "seed", "fingerprint"}`.
pub fn spec_line(meta: &SweepMeta, s: &Spec) -> String {
    #[derive(Serialize)]
    struct Line<'a> {
        key: &'a str,
        point: Point<'a>,
        point_index: usize,
        seed: u64,
        fingerprint: &'a str,
    }
    serde_json::to_string(&Line {
        key: &s.key,
        point: Point(&meta.points[s.point]),
        point_index: s.point,
        seed: s.seed,
        fingerprint: &s.fingerprint,
    })
    .expect("a plan line serializes")
}

/// `sweep-plan.json`.
#[derive(Serialize, Deserialize)]
struct PlanHeader {
    format: u32,
    #[serde(flatten)]
    meta: SweepMeta,
    runs: usize,
    /// CRC-32 of `plan.jsonl`: shards of one sweep have the same.
    digest: String,
    /// The binary that wrote it ([`runstore::binary_version`]).
    binary: String,
}

/// Writes `sweep-plan.json` and `plan.jsonl` into `dir` (atomically).
/// Returns the digest.
pub fn write_plan_files(dir: &Path, meta: &SweepMeta, specs: &[Spec]) -> std::io::Result<String> {
    use crate::output::table::write_atomic;
    let mut lines = String::with_capacity(specs.len() * 160);
    for s in specs {
        lines.push_str(&spec_line(meta, s));
        lines.push('\n');
    }
    let digest = format!("{:08x}", crc32fast::hash(lines.as_bytes()));
    write_atomic(&dir.join("plan.jsonl"), lines.as_bytes())?;
    let h = PlanHeader {
        format: 1,
        meta: meta.clone(),
        runs: specs.len(),
        digest: digest.clone(),
        binary: runstore::binary_version(),
    };
    write_atomic(&dir.join("sweep-plan.json"), (serde_json::to_string_pretty(&h).expect("json") + "\n").as_bytes())?;
    Ok(digest)
}

/// Reads `sweep-plan.json` and `plan.jsonl` back from a sweep folder:
/// (meta, runs, digest).
pub fn read_plan_files(dir: &Path) -> Result<(SweepMeta, Vec<Spec>, String), String> {
    let hp = dir.join("sweep-plan.json");
    let text = std::fs::read_to_string(&hp).map_err(|e| format!("{}: {e}", hp.display()))?;
    let h: PlanHeader = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", hp.display()))?;
    let lp = dir.join("plan.jsonl");
    let f = std::fs::File::open(&lp).map_err(|e| format!("{}: {e}", lp.display()))?;
    #[derive(Deserialize)]
    struct Line {
        key: String,
        point_index: usize,
        seed: u64,
        fingerprint: String,
    }
    let mut specs = Vec::with_capacity(h.runs);
    let mut crc = crc32fast::Hasher::new();
    for (n, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = line.map_err(|e| format!("{}: {e}", lp.display()))?;
        crc.update(line.as_bytes());
        crc.update(b"\n");
        let l: Line = serde_json::from_str(&line).map_err(|e| format!("{}:{}: {e}", lp.display(), n + 1))?;
        if l.point_index >= h.meta.points.len() {
            return Err(format!("{}:{}: point_index out of range", lp.display(), n + 1));
        }
        specs.push(Spec { key: l.key, point: l.point_index, seed: l.seed, fingerprint: l.fingerprint });
    }
    let digest = format!("{:08x}", crc.finalize());
    if digest != h.digest || specs.len() != h.runs {
        return Err(format!("{}: does not match {} (damaged or from another sweep)", lp.display(), hp.display()));
    }
    Ok((h.meta, specs, digest))
}

/// How [`run`] runs a plan.
pub struct RunOptions<'a> {
    /// Reuse the runs the store already holds (same key and fingerprint).
    pub resume: bool,
    /// Run only this shard's share.
    pub shard: Option<Shard>,
    /// Also store every run's full report (`runs/full/<key>.json`).
    pub full_reports: bool,
    pub cancel: &'a Cancel,
    /// Called with (runs done, runs total) as runs finish (loaded runs count
    /// as done; totals count this shard's runs only).
    pub progress: &'a (dyn Fn(usize, usize) + Sync),
}

/// What [`run`] did.
pub struct RunOutcome {
    /// Runs found in the store (resume).
    pub loaded: usize,
    /// Runs executed.
    pub ran: usize,
    /// The store holding every run of this shard (read back from `dir`, or
    /// in memory without one).
    pub store: Store,
}

/// Runs the plan's jobs (this shard's, those not in the store when
/// resuming) in parallel on the current rayon pool, each record appended to
/// the store in `dir` (the `runs/` folder) as its run finishes, or kept in
/// memory without `dir`. Reports are not kept. A [`Cancel`] stops the runs
/// in flight; runs finished before it stay stored.
pub fn run(plan: &SweepPlan, dir: Option<&Path>, opts: &RunOptions) -> Result<RunOutcome, ExecError> {
    let jobs = &plan.jobs;
    let mut seen = HashSet::new();
    for j in jobs {
        if !seen.insert(runstore::file_name(&j.key)) {
            return Err(ExecError::Other(format!("sweep: two runs share the key (or file name) {:?}", j.key)));
        }
    }
    let io = |what: &Path, e: std::io::Error| ExecError::Other(format!("{}: {e}", what.display()));
    let specs = specs(plan);
    let mine: Vec<usize> = (0..jobs.len()).filter(|&i| owned(opts.shard, &jobs[i].key)).collect();
    let existing = match (dir, opts.resume) {
        (Some(d), true) => Store::open(&[d.to_path_buf()], true).map_err(|e| io(d, e))?,
        _ => Store::memory(),
    };
    let todo: Vec<usize> =
        mine.iter().copied().filter(|&i| !existing.contains(&specs[i].key, &specs[i].fingerprint)).collect();
    let loaded = mine.len() - todo.len();
    let total = mine.len();
    let done = AtomicUsize::new(loaded);
    (opts.progress)(loaded, total);
    let writer = match dir {
        Some(d) => Some(Mutex::new(
            Writer::open(d, &records_file(opts.shard.map(|s| (s.index, s.count))), !opts.resume)
                .map_err(|e| io(d, e))?,
        )),
        None => None,
    };
    let full_dir = dir.map(|d| d.join("full"));
    if let (Some(f), true) = (&full_dir, opts.full_reports) {
        std::fs::create_dir_all(f).map_err(|e| io(f, e))?;
    }
    let memory = Mutex::new(Vec::new());
    let sim_ns = AtomicU64::new(0);
    let results: Vec<Result<(), ExecError>> = todo
        .into_par_iter()
        .map(|i| {
            let (job, spec) = (&jobs[i], &specs[i]);
            let report = run_config(job.config.clone(), opts.cancel, &sim_ns)?;
            let rec = Record::of(&spec.key, &spec.fingerprint, &report);
            if let (Some(f), true) = (&full_dir, opts.full_reports) {
                runstore::store(f, job, &report).map_err(|e| ExecError::Other(e.to_string()))?;
            }
            match &writer {
                Some(w) => {
                    let mut w = w.lock().expect("store writer");
                    let path = w.path().to_path_buf();
                    w.append(&rec).map_err(|e| io(&path, e))?;
                }
                None => memory.lock().expect("records").push(rec),
            }
            (opts.progress)(done.fetch_add(1, Ordering::Relaxed) + 1, total);
            Ok(())
        })
        .collect();
    if let Some(w) = writer {
        let w = w.into_inner().expect("store writer");
        let path = w.path().to_path_buf();
        w.close().map_err(|e| io(&path, e))?;
    }
    let ran = results.iter().filter(|r| r.is_ok()).count();
    results.into_iter().collect::<Result<Vec<()>, _>>()?;
    let store = match dir {
        Some(d) => Store::open(&[d.to_path_buf()], false).map_err(|e| io(d, e))?,
        None => {
            let mut s = existing;
            for r in memory.into_inner().expect("records") {
                s.insert(r);
            }
            s
        }
    };
    Ok(RunOutcome { loaded, ran, store })
}

/// The run store folders of sweep folders (`<dir>/runs`).
pub fn runs_dirs(dirs: &[PathBuf]) -> Vec<PathBuf> {
    dirs.iter().map(|d| d.join("runs")).collect()
}

/// Prints `plan` as JSON lines (as `manetlab plan`) to `out`; with a
/// shard, only its runs.
pub fn print_plan(out: &mut dyn Write, meta: &SweepMeta, specs: &[Spec], shard: Option<Shard>) -> std::io::Result<()> {
    for s in specs.iter().filter(|s| owned(shard, &s.key)) {
        writeln!(out, "{}", spec_line(meta, s))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_runs_stably() {
        assert_eq!(Shard::parse("1/3"), Ok(Shard { index: 1, count: 3 }));
        for bad in ["3/3", "1", "a/2", "0/0", "-1/2"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        let keys: Vec<String> = (0..300).map(|i| format!("flow.0.rate={i}kbps/seed={}", i % 7)).collect();
        let shards: Vec<Shard> = (0..3).map(|index| Shard { index, count: 3 }).collect();
        let mut sizes = [0usize; 3];
        for k in &keys {
            let owners: Vec<usize> = (0..3).filter(|&i| shards[i].owns(k)).collect();
            assert_eq!(owners.len(), 1, "{k}");
            sizes[owners[0]] += 1;
        }
        assert!(sizes.iter().all(|&n| n > 70), "{sizes:?}");
        // Stable: a fixed function of the key (CRC-32 IEEE).
        assert_eq!(crc32fast::hash(b"123456789"), 0xcbf4_3926);
    }
}
