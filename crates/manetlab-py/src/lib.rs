//! `manetlab._native`: the Rust half of the `manetlab` Python package.
//!
//! Thin bindings over the library's front-end API ([`manetlab::exec`]):
//! the pure-Python `manetlab/__init__.py` wraps these functions into the
//! documented API (`Scenario`, `run`, `sweep`, `load`, `study`). Runs
//! execute with the GIL released on a rayon pool (see [`wait`]); results
//! cross into Python as Arrow tables ([`arrow`]) built in Rust
//! ([`tables`]), and `summary.json` text built by the same function the
//! command line writes it with.

mod arrow;
mod sweeps;
mod tables;
mod wait;

use arrow::ArrowTable;
use manetlab::exec::{self, Cancel, ExecError};
use manetlab::scenario::{Scenario, ScenarioError as RsScenarioError};
use manetlab::Report;
use pyo3::exceptions::{PyKeyError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use wait::{run_detached, Progress, Show};

pyo3::create_exception!(
    manetlab,
    ScenarioError,
    PyValueError,
    "A scenario that cannot be read or is invalid. `str(e)` is `file:line:col: msg` (or `file: --set key=value: msg`); \
     attributes: origin, line, col (1-based, None without a position), msg, kind, override."
);

/// Where a scenario comes from: a file, or text with a name.
#[derive(Clone, Debug, FromPyObject)]
#[pyo3(from_item_all)]
pub struct Source {
    /// "file" or "text".
    kind: String,
    /// The path (file) or the TOML text (text).
    body: String,
    /// The name in error messages (text; a file is named by its path).
    origin: String,
    overrides: Vec<String>,
}

impl Source {
    fn load(&self) -> Result<Scenario, RsScenarioError> {
        self.load_with(&[])
    }
    fn load_with(&self, extra: &[String]) -> Result<Scenario, RsScenarioError> {
        let mut set = self.overrides.clone();
        set.extend(extra.iter().cloned());
        if self.kind == "file" {
            Scenario::load(Path::new(&self.body), &set)
        } else {
            Scenario::parse(&self.body, &self.origin, &set)
        }
    }
}

fn scenario_err(py: Python<'_>, e: &RsScenarioError, prefix: Option<&str>) -> PyErr {
    let text = match prefix {
        Some(p) => format!("{p}: {e}"),
        None => e.to_string(),
    };
    let err = ScenarioError::new_err(text);
    let v = err.value(py);
    let _ = v.setattr("origin", e.origin());
    let _ = v.setattr("line", e.line());
    let _ = v.setattr("col", e.column());
    let _ = v.setattr("msg", e.message());
    let _ = v.setattr("kind", format!("{:?}", e.kind()));
    let _ = v.setattr("override", e.override_arg());
    err
}

fn exec_err(py: Python<'_>, e: ExecError) -> PyErr {
    match e {
        ExecError::Scenario(s) => scenario_err(py, &s, None),
        ExecError::Build { .. } => PyValueError::new_err(e.to_string()),
        ExecError::Cancelled => pyo3::exceptions::PyKeyboardInterrupt::new_err("cancelled"),
        ExecError::Other(m) => PyRuntimeError::new_err(m),
    }
}

fn load_source(py: Python<'_>, src: &Source) -> PyResult<Scenario> {
    src.load().map_err(|e| scenario_err(py, &e, None))
}

/// Validates a scenario; returns a few facts about it.
#[pyfunction]
fn check<'py>(py: Python<'py>, src: Source) -> PyResult<Bound<'py, PyDict>> {
    let sc = load_source(py, &src)?;
    let cfg = sc.config(sc.seed());
    let d = PyDict::new(py);
    d.set_item("name", &sc.name)?;
    d.set_item("nodes", cfg.nodes.len())?;
    d.set_item("flows", cfg.flows.iter().map(|f| f.name.clone()).collect::<Vec<_>>())?;
    d.set_item("duration_s", cfg.duration.as_secs_f64())?;
    d.set_item("seed", sc.seed())?;
    d.set_item("replications", sc.replications)?;
    d.set_item("sweep", sc.sweep.iter().map(|a| (a.key.clone(), a.values.clone())).collect::<Vec<_>>())?;
    Ok(d)
}

/// The scenario text with the overrides applied (what a run uses).
#[pyfunction]
fn effective_toml(py: Python<'_>, src: Source) -> PyResult<String> {
    Ok(load_source(py, &src)?.effective_toml().to_string())
}

/// TOML text from a JSON object (for `Scenario.from_dict`).
#[pyfunction]
fn toml_from_json(json: &str) -> PyResult<String> {
    let v: toml::Value = serde_json::from_str(json).map_err(|e| PyValueError::new_err(format!("{e}")))?;
    toml::to_string(&v).map_err(|e| PyValueError::new_err(format!("cannot write this dict as a scenario: {e}")))
}

/// The replications of one scenario (or of a sweep point).
#[pyclass(module = "manetlab._native", frozen)]
struct Results {
    name: String,
    seeds: Vec<u64>,
    reports: Vec<Report>,
}

#[pymethods]
impl Results {
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }
    #[getter]
    fn seeds(&self) -> Vec<u64> {
        self.seeds.clone()
    }
    /// The text of summary.json, byte for byte as the command line writes it.
    fn summary_json(&self, py: Python<'_>) -> String {
        py.detach(|| exec::summary::summary_json(&self.name, &self.seeds, &self.reports))
    }
    /// One table, as the CLI writes it (`manetlab::output`): "flows",
    /// "flows-summary", "network", "network-summary", "flow-drops",
    /// "histograms", "nodes" or "timeseries".
    fn table(&self, py: Python<'_>, name: &str) -> PyResult<ArrowTable> {
        match py.detach(|| tables::run_table(name, &self.reports)) {
            Some(t) => ArrowTable::new(&t),
            None => Err(PyKeyError::new_err(format!("no table {name:?}; tables: {}", tables::RUN_TABLES.join(", ")))),
        }
    }
    /// Writes summary.json into `dir` (created if needed).
    fn write_summary(&self, dir: PathBuf) -> PyResult<()> {
        std::fs::create_dir_all(&dir).map_err(|e| PyOSError::new_err(format!("{}: {e}", dir.display())))?;
        exec::summary::write_summary(&dir, &self.name, &self.seeds, &self.reports)
            .map_err(|e| PyOSError::new_err(format!("{}: {e}", dir.display())))
    }
    /// Pickling (for process pools and distributed executors): the
    /// summary.json text, read back with `results_from_summary`.
    fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, (String,))> {
        let f = py.import("manetlab._native")?.getattr("results_from_summary")?.unbind();
        Ok((f, (self.summary_json(py),)))
    }
    fn __repr__(&self) -> String {
        format!("<manetlab Results {:?}: {} replication(s), seeds {:?}>", self.name, self.reports.len(), self.seeds)
    }
}

/// Results from the text of a summary.json.
#[pyfunction]
fn results_from_summary(text: &str) -> PyResult<Results> {
    let (name, seeds, reports) =
        exec::summary::read_summary(text).map_err(|e| PyValueError::new_err(format!("not a summary.json: {e}")))?;
    Ok(Results { name, seeds, reports })
}

/// Runs the seeds of a scenario in parallel (GIL released; Ctrl-C stops it).
#[pyfunction]
#[pyo3(signature = (src, seeds=None, jobs=None, progress=true))]
fn run(py: Python<'_>, src: Source, seeds: Option<Vec<u64>>, jobs: Option<usize>, progress: bool) -> PyResult<Results> {
    let sc = load_source(py, &src)?;
    let seeds = seeds.unwrap_or_else(|| sc.seeds().collect());
    if seeds.is_empty() {
        return Err(PyValueError::new_err("no seeds to run"));
    }
    let cancel = Cancel::new();
    let prog = Progress::default();
    prog.total.store(sc.config(seeds[0]).duration.as_ns() * seeds.len() as u64, Ordering::Relaxed);
    let show = Show { bar: progress, runs: false };
    let reports = run_detached(py, jobs, &cancel, &prog, show, || {
        exec::run_scenario(&sc, &seeds, &cancel, &prog.done)
    })?
    .map_err(|e| exec_err(py, e))?;
    Ok(Results { name: sc.name.clone(), seeds, reports })
}

/// One run as a pure function of (scenario text, seed): the task a
/// distributed executor ships to a worker.
#[pyfunction]
#[pyo3(signature = (text, seed, origin="<task>"))]
fn run_task(py: Python<'_>, text: &str, seed: u64, origin: &str) -> PyResult<Results> {
    let cancel = Cancel::new();
    let prog = Progress::default();
    let show = Show { bar: false, runs: false };
    let report = run_detached(py, Some(1), &cancel, &prog, show, || exec::run_task(text, origin, seed, &cancel))?
        .map_err(|e| exec_err(py, e))?;
    let name = Scenario::from_str(text, origin).map(|s| s.name).unwrap_or_default();
    Ok(Results { name, seeds: vec![seed], reports: vec![report] })
}

/// Reads a run folder (summary.json) as Results.
#[pyfunction]
fn load_run(path: PathBuf) -> PyResult<Results> {
    let text = std::fs::read_to_string(path.join("summary.json"))
        .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.join("summary.json").display())))?;
    results_from_summary(&text)
}

/// Runs a paper reproduction; returns its report, checks and files.
#[pyfunction]
#[pyo3(signature = (name, quick=false, runs=None, seed=1, out=None, resume=false, progress=true, jobs=None))]
#[allow(clippy::too_many_arguments)]
fn study<'py>(
    py: Python<'py>,
    name: &str,
    quick: bool,
    runs: Option<u32>,
    seed: u64,
    out: Option<PathBuf>,
    resume: bool,
    progress: bool,
    jobs: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    use manetlab::study::{StudyError, StudyOptions};
    let out = out.unwrap_or_else(|| PathBuf::from("out").join(format!("study-{name}")));
    let mut opts = StudyOptions::new(out.clone());
    opts.runs = runs;
    opts.quick = quick;
    opts.seed = seed;
    opts.resume = resume;
    let cancel = Cancel::new();
    let prog = Progress::default();
    let res = run_detached(py, jobs, &cancel, &prog, Show { bar: progress, runs: true }, || {
        manetlab_studies::run(name, &opts, &|done, total| {
            prog.done.store(done as u64, Ordering::Relaxed);
            prog.total.store(total as u64, Ordering::Relaxed);
        })
    })?;
    let r = match res {
        Ok(r) => r,
        Err(e @ StudyError::Unknown(..)) => return Err(PyKeyError::new_err(e.to_string())),
        Err(e) => return Err(PyRuntimeError::new_err(e.to_string())),
    };
    let d = PyDict::new(py);
    d.set_item("name", name)?;
    d.set_item("out", out.display().to_string())?;
    d.set_item("markdown", &r.markdown)?;
    d.set_item("runs", r.runs)?;
    d.set_item("files", r.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>())?;
    let checks: Vec<(String, bool, String)> =
        r.checks.iter().map(|c| (c.what.clone(), c.passed, c.detail.clone())).collect();
    d.set_item("checks", checks)?;
    Ok(d)
}

/// The studies this build knows: [(name, paper, about)].
#[pyfunction]
fn studies() -> Vec<(&'static str, &'static str, &'static str)> {
    manetlab_studies::list().into_iter().map(|s| (s.name, s.paper, s.about)).collect()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<ArrowTable>()?;
    m.add_class::<Results>()?;
    m.add_class::<sweeps::Sweep>()?;
    m.add_class::<sweeps::SweepJob>()?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(effective_toml, m)?)?;
    m.add_function(wrap_pyfunction!(toml_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_task, m)?)?;
    m.add_function(wrap_pyfunction!(results_from_summary, m)?)?;
    m.add_function(wrap_pyfunction!(sweeps::sweep, m)?)?;
    m.add_function(wrap_pyfunction!(sweeps::run_record, m)?)?;
    m.add_function(wrap_pyfunction!(load_run, m)?)?;
    m.add_function(wrap_pyfunction!(sweeps::load_sweep, m)?)?;
    m.add_function(wrap_pyfunction!(study, m)?)?;
    m.add_function(wrap_pyfunction!(studies, m)?)?;
    Ok(())
}
