//! Sweeps for Python, on the library's run store (`manetlab::exec::store`):
//! the local sweep (rayon, GIL released), the pieces of a sweep on any
//! executor ([`SweepJob`]: the tasks, [`run_record`] on a worker, records
//! streamed back into the store as they finish) and reading a sweep folder.
//! Both ways end in [`Sweep`], whose tables are `sweep-runs` and `sweep`
//! as the command line writes them (`manetlab::exec::sweep_out::tables`), so
//! a sweep gives the same DataFrame whichever executor ran it.

use crate::arrow::ArrowTable;
use crate::wait::{run_detached, Progress, Show};
use crate::{exec_err, load_source, scenario_err, Results, Source};
use manetlab::exec::store::{Record, Store, Writer};
use manetlab::exec::sweep::{self as xsweep, PlanError, RunOptions, Spec, SweepMeta, SweepPlan};
use manetlab::exec::{sweep_out, Cancel};
use manetlab::output::Table;
use manetlab::scenario::sweep::SweepAxis;
use manetlab::scenario::Scenario;
use pyo3::exceptions::{PyIndexError, PyKeyError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

/// An output table as an Arrow table (units as field metadata).
pub fn arrow_of(t: &Table) -> PyResult<ArrowTable> {
    ArrowTable::new(&crate::tables::convert(t))
}

fn os_err(what: &Path, e: impl std::fmt::Display) -> PyErr {
    PyOSError::new_err(format!("{}: {e}", what.display()))
}

/// A sweep's runs: its plan and its tables.
#[pyclass(module = "manetlab._native", frozen)]
pub struct Sweep {
    meta: SweepMeta,
    specs: Vec<Spec>,
    runs: Table,
    summary: Table,
    timeseries: Table,
    loaded: usize,
    ran: usize,
    store: Option<PathBuf>,
}

impl Sweep {
    fn build(
        meta: SweepMeta,
        specs: Vec<Spec>,
        store: &mut Store,
        loaded: usize,
        ran: usize,
        dir: Option<PathBuf>,
    ) -> PyResult<Sweep> {
        let gone = sweep_out::missing(&specs, store);
        if !gone.is_empty() {
            let names: Vec<&str> = gone.iter().take(10).map(|s| s.key.as_str()).collect();
            return Err(PyRuntimeError::new_err(format!(
                "{} of {} runs are missing from the store: {}{}",
                gone.len(),
                specs.len(),
                names.join(", "),
                if gone.len() > 10 { ", ..." } else { "" }
            )));
        }
        if let Some(d) = &dir {
            xsweep::write_plan_files(d, &meta, &specs).map_err(|e| os_err(d, e))?;
            sweep_out::write_outputs(d, &meta, &specs, store).map_err(|e| os_err(d, e))?;
        }
        let (runs, summary, timeseries) =
            sweep_out::tables(&meta, &specs, store).map_err(|e| PyOSError::new_err(e.to_string()))?;
        Ok(Sweep { meta, specs, runs, summary, timeseries, loaded, ran, store: dir })
    }
}

#[pymethods]
impl Sweep {
    #[getter]
    fn name(&self) -> &str {
        &self.meta.scenario
    }
    /// The axes: [(key, [values])].
    #[getter]
    fn axes(&self) -> Vec<(String, Vec<String>)> {
        self.meta.axes.iter().map(|a| (a.key.clone(), a.values.clone())).collect()
    }
    #[getter]
    fn seeds(&self) -> Vec<u64> {
        self.meta.seeds.clone()
    }
    /// The run keys, in plan order.
    #[getter]
    fn keys(&self) -> Vec<String> {
        self.specs.iter().map(|s| s.key.clone()).collect()
    }
    /// Runs read back from the store instead of run.
    #[getter]
    fn loaded(&self) -> usize {
        self.loaded
    }
    /// Runs executed by this call.
    #[getter]
    fn ran(&self) -> usize {
        self.ran
    }
    /// "runs" (sweep-runs.csv: one row per run and flow), "timeseries"
    /// (sweep-timeseries.csv, with an interval) or "summary"
    /// (sweep.csv: per point and flow, <metric>_n, _mean, _sd, _ci95).
    fn table(&self, name: &str) -> PyResult<ArrowTable> {
        match name {
            "runs" => arrow_of(&self.runs),
            "summary" => arrow_of(&self.summary),
            "timeseries" => arrow_of(&self.timeseries),
            _ => Err(PyKeyError::new_err(format!("no sweep table {name:?}; tables: runs, summary, timeseries"))),
        }
    }
    /// The runs of point `index` (plan order) as Results: needs the full
    /// reports in the store (`full_reports=True`, `--full-reports`).
    fn point(&self, index: usize) -> PyResult<Results> {
        if index >= self.meta.points.len() {
            return Err(PyIndexError::new_err(index));
        }
        let Some(dir) = &self.store else {
            return Err(PyRuntimeError::new_err("point(): the sweep has no store (give store= and full_reports=True)"));
        };
        let full = dir.join("runs").join("full");
        let mut reports = Vec::new();
        for s in self.specs.iter().filter(|s| s.point == index) {
            let job = manetlab::study::sweep::Job::new(s.key.clone(), Default::default());
            let path = full.join(manetlab::study::sweep::file_name(&s.key));
            let text = std::fs::read_to_string(&path).map_err(|e| {
                PyRuntimeError::new_err(format!(
                    "{}: {e}; full reports are stored only when asked (full_reports=True, --full-reports)",
                    path.display()
                ))
            })?;
            manetlab::study::sweep::unseal(&text).map_err(|e| PyValueError::new_err(format!("{}: {e}", path.display())))?;
            #[derive(serde::Deserialize)]
            struct Stored {
                key: String,
                fingerprint: String,
                result: manetlab::Report,
            }
            let st: Stored =
                serde_json::from_str(&text).map_err(|e| PyValueError::new_err(format!("{}: {e}", path.display())))?;
            if st.key != job.key || st.fingerprint != s.fingerprint {
                return Err(PyValueError::new_err(format!("{}: holds another run or build", path.display())));
            }
            reports.push(st.result);
        }
        Ok(Results { name: self.meta.scenario.clone(), seeds: self.meta.seeds.clone(), reports })
    }
    fn __repr__(&self) -> String {
        format!(
            "<manetlab Sweep {:?}: {} points x {} seeds ({} loaded from the store)>",
            self.meta.scenario,
            self.meta.points.len(),
            self.meta.seeds.len(),
            self.loaded
        )
    }
}

fn plan_err(py: Python<'_>, e: PlanError) -> PyErr {
    match e {
        PlanError::Point { point, err } => scenario_err(py, &err, Some(&format!("sweep point {point}"))),
        e @ PlanError::Build { .. } => PyValueError::new_err(e.to_string()),
    }
}

fn make_plan(
    py: Python<'_>,
    src: &Source,
    axes: Vec<(String, Vec<String>)>,
    seeds: &[u64],
) -> PyResult<(Scenario, SweepPlan)> {
    let base = load_source(py, src)?;
    let axes: Vec<SweepAxis> = axes.into_iter().map(|(key, values)| SweepAxis { key, values }).collect();
    if axes.iter().any(|a| a.values.is_empty()) {
        return Err(PyValueError::new_err("a sweep axis has no values"));
    }
    if seeds.is_empty() {
        return Err(PyValueError::new_err("no seeds to run"));
    }
    let plan = xsweep::plan(axes, seeds, |extra| src.load_with(extra)).map_err(|e| plan_err(py, e))?;
    Ok((base, plan))
}

/// Runs a sweep here: every point of `axes` x `seeds`, in parallel on all
/// cores (or `jobs`), each run appended to the store `<store>/runs/` as it
/// finishes (resumable; shared with the command line) and, with a store,
/// the sweep files written.
#[pyfunction]
#[pyo3(signature = (src, axes, seeds, jobs=None, store=None, resume=true, progress=true, full_reports=false))]
#[allow(clippy::too_many_arguments)]
pub fn sweep(
    py: Python<'_>,
    src: Source,
    axes: Vec<(String, Vec<String>)>,
    seeds: Vec<u64>,
    jobs: Option<usize>,
    store: Option<PathBuf>,
    resume: bool,
    progress: bool,
    full_reports: bool,
) -> PyResult<Sweep> {
    let (base, plan) = make_plan(py, &src, axes, &seeds)?;
    let cancel = Cancel::new();
    let prog = Progress::default();
    let runs_dir = store.as_ref().map(|d| d.join("runs"));
    if let Some(d) = &store {
        std::fs::create_dir_all(d).map_err(|e| os_err(d, e))?;
        xsweep::write_plan_files(d, &xsweep::meta(&plan, &base.name), &xsweep::specs(&plan)).map_err(|e| os_err(d, e))?;
    }
    let out = run_detached(py, jobs, &cancel, &prog, Show { bar: progress, runs: true }, || {
        let opts = RunOptions {
            resume,
            shard: None,
            full_reports,
            cancel: &cancel,
            progress: &|done, total| {
                prog.done.store(done as u64, Ordering::Relaxed);
                prog.total.store(total as u64, Ordering::Relaxed);
            },
        };
        xsweep::run(&plan, runs_dir.as_deref(), &opts)
    })?
    .map_err(|e| exec_err(py, e))?;
    let (meta, specs) = (xsweep::meta(&plan, &base.name), xsweep::specs(&plan));
    drop(plan);
    let mut st = out.store;
    py.detach(|| Sweep::build(meta, specs, &mut st, out.loaded, out.ran, store))
}

/// One run of a sweep on a worker: (scenario text of the point, seed) in,
/// the run's record (one sealed JSON line) out. `key` names the run.
#[pyfunction]
#[pyo3(signature = (text, origin, seed, key))]
pub fn run_record(py: Python<'_>, text: &str, origin: &str, seed: u64, key: &str) -> PyResult<String> {
    let sc = Scenario::from_str(text, origin).map_err(|e| scenario_err(py, &e, None))?;
    let cfg = sc.config(seed);
    let fp = manetlab::study::sweep::fingerprint(&cfg);
    let report = py
        .detach(|| manetlab::exec::run_config(cfg, &Cancel::new(), &std::sync::atomic::AtomicU64::new(0)))
        .map_err(|e| exec_err(py, e))?;
    Ok(Record::of(key, &fp, &report).to_line())
}

/// A sweep run by an executor: the plan, the tasks still to run, and the
/// store the records stream into as they come back.
#[pyclass(module = "manetlab._native")]
pub struct SweepJob {
    meta: SweepMeta,
    specs: Vec<Spec>,
    /// Per point: the scenario text with the point's overrides applied.
    texts: Vec<String>,
    origin: String,
    dir: Option<PathBuf>,
    writer: Option<Writer>,
    store: Store,
    /// Runs not stored yet (plan indices).
    todo: Vec<usize>,
    loaded: usize,
    ran: usize,
    want: std::collections::HashMap<String, usize>,
}

#[pymethods]
impl SweepJob {
    /// Plans the sweep and opens the store (`<store>/runs/`; with `resume`,
    /// runs already stored are not tasks).
    #[new]
    #[pyo3(signature = (src, axes, seeds, store=None, resume=true))]
    fn new(
        py: Python<'_>,
        src: Source,
        axes: Vec<(String, Vec<String>)>,
        seeds: Vec<u64>,
        store: Option<PathBuf>,
        resume: bool,
    ) -> PyResult<SweepJob> {
        let (base, plan) = make_plan(py, &src, axes, &seeds)?;
        let (meta, specs) = (xsweep::meta(&plan, &base.name), xsweep::specs(&plan));
        drop(plan);
        let mut texts = Vec::with_capacity(meta.points.len());
        for p in &meta.points {
            let set: Vec<String> = p.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let sc = src.load_with(&set).map_err(|e| scenario_err(py, &e, None))?;
            texts.push(sc.effective_toml().to_string());
        }
        let (stored, writer) = match &store {
            Some(d) => {
                std::fs::create_dir_all(d).map_err(|e| os_err(d, e))?;
                xsweep::write_plan_files(d, &meta, &specs).map_err(|e| os_err(d, e))?;
                let runs = d.join("runs");
                let st = if resume { Store::open(std::slice::from_ref(&runs), true) } else { Ok(Store::memory()) };
                let st = st.map_err(|e| os_err(&runs, e))?;
                let w = Writer::open(&runs, "runs.jsonl", !resume).map_err(|e| os_err(&runs, e))?;
                (st, Some(w))
            }
            None => (Store::memory(), None),
        };
        let todo: Vec<usize> = (0..specs.len()).filter(|&i| !stored.contains(&specs[i].key, &specs[i].fingerprint)).collect();
        let loaded = specs.len() - todo.len();
        let want = specs.iter().enumerate().map(|(i, s)| (s.key.clone(), i)).collect();
        Ok(SweepJob {
            meta,
            specs,
            texts,
            origin: src.origin.clone(),
            dir: store,
            writer,
            store: Store::memory(),
            todo,
            loaded,
            ran: 0,
            want,
        })
    }

    /// The runs still to do: [(key, text, origin, seed)] (text: the point's
    /// scenario; hand each to `run_record` on a worker).
    fn tasks(&self) -> Vec<(String, String, String, u64)> {
        self.todo
            .iter()
            .map(|&i| {
                let s = &self.specs[i];
                (s.key.clone(), self.texts[s.point].clone(), self.origin.clone(), s.seed)
            })
            .collect()
    }

    /// Takes one record line back from a worker: checks its checksum, that
    /// it is a run of this plan and that the worker computed the same
    /// fingerprint (same config, same build), then appends it to the store.
    fn add(&mut self, line: &str) -> PyResult<String> {
        let rec = Record::from_line(line).map_err(|e| PyValueError::new_err(format!("a returned record: {e}")))?;
        let Some(&i) = self.want.get(&rec.key) else {
            return Err(PyValueError::new_err(format!("run {:?} is not part of this sweep", rec.key)));
        };
        if rec.fingerprint != self.specs[i].fingerprint {
            return Err(PyValueError::new_err(format!(
                "run {}: the worker's fingerprint {} differs from {} (another manetlab build on the worker, or \
                 another scenario text)",
                rec.key, rec.fingerprint, self.specs[i].fingerprint
            )));
        }
        match &mut self.writer {
            Some(w) => w.append(&rec).map_err(|e| PyOSError::new_err(e.to_string()))?,
            None => self.store.insert(rec.clone()),
        }
        self.ran += 1;
        Ok(rec.key)
    }

    /// Number of runs in the plan.
    fn __len__(&self) -> usize {
        self.specs.len()
    }

    /// Closes the store and aggregates: the Sweep (and, with a store, the
    /// sweep files). Raises if runs are missing.
    fn finish(&mut self, py: Python<'_>) -> PyResult<Sweep> {
        if let Some(w) = self.writer.take() {
            w.close().map_err(|e| PyOSError::new_err(e.to_string()))?;
        }
        let mut st = match &self.dir {
            Some(d) => Store::open(&[d.join("runs")], false).map_err(|e| os_err(d, e))?,
            None => std::mem::take(&mut self.store),
        };
        let (meta, specs) = (self.meta.clone(), self.specs.clone());
        let (loaded, ran, dir) = (self.loaded, self.ran, self.dir.clone());
        py.detach(|| Sweep::build(meta, specs, &mut st, loaded, ran, dir))
    }
}

/// Reads a sweep folder: its plan (sweep-plan.json, plan.jsonl) and the
/// records of its store.
#[pyfunction]
pub fn load_sweep(path: PathBuf) -> PyResult<Sweep> {
    let (meta, specs, _) = xsweep::read_plan_files(&path).map_err(PyValueError::new_err)?;
    let mut st = Store::open(&[path.join("runs")], true).map_err(|e| os_err(&path, e))?;
    let n = specs.len();
    Sweep::build(meta, specs, &mut st, n, 0, None).map(|mut s| {
        s.store = Some(path);
        s
    })
}
