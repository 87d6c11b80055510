//! The experiment kit: what a study of many runs is built from.
//!
//! - [`sweep`]: resumable parallel runs ([`sweep::Job`]s, one file per
//!   finished run) and [`sweep::Aggregate`] statistics;
//! - [`figure`] (and `plot`, with the `plot` feature): figures as CSV, a
//!   matplotlib script, SVG and PNG;
//! - [`report`]: the published-vs-ours report builder ([`ReportDoc`],
//!   [`Table`], checks counted "N of M checks reproduce");
//! - the [`Study`] trait and its driver [`run_study`]: a study plans its
//!   runs, analyses their outcomes into findings and checks, and writes its
//!   report; the driver runs the plan (in parallel, resumable), writes
//!   `results.json` (findings + checks) and `report.md`;
//! - [`chain_table`]: the reference static chain whose throughput table
//!   gives a mobile TCP flow its expected throughput.
//!
//! The paper reproductions themselves live in the `manetlab-studies` crate,
//! one file per study.

pub mod chain_table;
pub mod figure;
#[cfg(feature = "plot")]
pub mod plot;
pub mod report;
pub mod runner;
pub mod sweep;

pub use figure::{write_file, Figure, FigureStyle, Series};
pub use report::{ReportDoc, Table};

use crate::config::SimConfig;
use crate::simulation::BuildError;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;

/// How a study is run.
#[derive(Clone, Debug)]
pub struct StudyOptions {
    /// Replications (seeds) per point; None = the study's default.
    pub runs: Option<u32>,
    /// Fewer seeds and shorter runs (what the test suite runs).
    pub quick: bool,
    pub out: PathBuf,
    /// First seed.
    pub seed: u64,
    /// Load runs finished by an earlier, interrupted invocation from
    /// `<out>/runs/` instead of running them again (see [`sweep`]).
    pub resume: bool,
    /// How figures are drawn (titles on or off).
    pub style: FigureStyle,
}

impl StudyOptions {
    /// Default options writing to `out`.
    pub fn new(out: impl Into<PathBuf>) -> StudyOptions {
        StudyOptions {
            runs: None,
            quick: false,
            out: out.into(),
            seed: 1,
            resume: false,
            style: FigureStyle::default(),
        }
    }

    /// How this study's sweeps store and resume runs: one file per run in
    /// `<out>/runs/`.
    pub fn sweep_options<'a>(&self, progress: Progress<'a>) -> sweep::SweepOptions<'a> {
        sweep::SweepOptions { dir: Some(self.out.join("runs")), resume: self.resume, progress }
    }

    /// The replications per point: `--runs`, else `quick` or `full`.
    pub fn seeds(&self, quick: u32, full: u32) -> u32 {
        self.runs.unwrap_or(if self.quick { quick } else { full }).max(1)
    }
}

/// A check of a published claim or acceptance criterion.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Check {
    pub what: String,
    pub passed: bool,
    pub detail: String,
}

impl Check {
    pub fn new(what: impl Into<String>, passed: bool, detail: impl Into<String>) -> Check {
        Check { what: what.into(), passed, detail: detail.into() }
    }
}

/// What a study produced.
#[derive(Clone, Debug)]
pub struct StudyOutput {
    /// The Markdown report (also written to `report.md`).
    pub markdown: String,
    /// Every file written, report included.
    pub files: Vec<PathBuf>,
    pub checks: Vec<Check>,
    /// Simulation runs executed (or resumed) by the plan.
    pub runs: usize,
}

impl StudyOutput {
    /// "N of M checks reproduce".
    pub fn summary(&self) -> String {
        report::checks_summary(&self.checks)
    }
}

/// Called with (runs done, runs total) as runs finish.
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// What `manetlab study --list` shows.
#[derive(Clone, Copy, Debug)]
pub struct StudyInfo {
    pub name: &'static str,
    pub paper: &'static str,
    pub about: &'static str,
}

#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    #[error("unknown study '{0}'; known studies: {1}")]
    Unknown(String, String),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Other(String),
}

impl From<BuildError> for StudyError {
    fn from(e: BuildError) -> StudyError {
        StudyError::Other(e.to_string())
    }
}

/// The outcomes of a study's planned runs, in plan order, findable by key.
pub struct Runs<T> {
    pub jobs: Vec<sweep::Job>,
    pub outcomes: Vec<T>,
    index: HashMap<String, usize>,
}

impl<T> Runs<T> {
    pub fn new(jobs: Vec<sweep::Job>, outcomes: Vec<T>) -> Runs<T> {
        let index = jobs.iter().enumerate().map(|(i, j)| (j.key.clone(), i)).collect();
        Runs { jobs, outcomes, index }
    }

    /// The outcome of the run planned under `key`; panics if none was (a
    /// mistake in the study, not in its input).
    pub fn get(&self, key: &str) -> &T {
        match self.index.get(key) {
            Some(&i) => &self.outcomes[i],
            None => panic!("study analysis asks for run {key:?}, which its plan does not have"),
        }
    }

    pub fn len(&self) -> usize {
        self.outcomes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.outcomes.is_empty()
    }
}

/// What a study's analysis found: the findings (written to `results.json`)
/// and the checks of the published claims.
pub struct Analysis<F> {
    pub findings: F,
    pub checks: Vec<Check>,
}

/// A paper reproduction: plan the runs -> analyse their outcomes -> report.
///
/// A new study is one file implementing this trait plus one line in the
/// studies' registry (see docs/architecture.md, "Adding a study").
pub trait Study: Sync {
    /// What one run keeps (stored per run in `<out>/runs/` for `--resume`;
    /// undefined values as `Option`, never NaN).
    type Outcome: Serialize + DeserializeOwned + Send;
    /// What the analysis finds; serialised into `results.json` (fields only
    /// the report needs can be `#[serde(skip)]`).
    type Findings: Serialize;

    /// Name, paper and one line (`manetlab study --list`).
    const INFO: StudyInfo;

    /// The runs: one [`sweep::Job`] (unique key + config) per run.
    fn plan(&self, opts: &StudyOptions) -> Vec<sweep::Job>;

    /// Runs one planned config (on any thread) to its outcome.
    fn outcome(&self, opts: &StudyOptions, cfg: &SimConfig) -> Result<Self::Outcome, BuildError>;

    /// From the outcomes (in plan order) to findings and checks. May run a
    /// few extra illustrative simulations (a trace of one run).
    fn analyse(&self, opts: &StudyOptions, runs: &Runs<Self::Outcome>) -> Result<Analysis<Self::Findings>, StudyError>;

    /// The report: the published numbers beside ours, figures, the checks
    /// (`doc.checks(heading)` writes the analysis' checks).
    fn report(&self, opts: &StudyOptions, findings: &Self::Findings, doc: &mut ReportDoc) -> Result<(), StudyError>;
}

/// Runs a study: plan, run (parallel, resumable), analyse, report; writes
/// `results.json` (`study`, the findings' fields, `checks`) and `report.md`.
pub fn run_study<S: Study>(study: &S, opts: &StudyOptions, progress: Progress) -> Result<StudyOutput, StudyError> {
    std::fs::create_dir_all(&opts.out)?;
    let jobs = study.plan(opts);
    let outcomes = sweep::run(&jobs, &opts.sweep_options(progress), |cfg| study.outcome(opts, cfg))?;
    let runs = Runs::new(jobs, outcomes);
    let Analysis { findings, checks } = study.analyse(opts, &runs)?;
    let mut doc = ReportDoc::new(&opts.out, opts.style).with_checks(checks.clone());
    study.report(opts, &findings, &mut doc)?;
    let mut json = match serde_json::to_value(&findings).map_err(|e| StudyError::Other(e.to_string()))? {
        serde_json::Value::Object(m) => m,
        other => {
            let mut m = serde_json::Map::new();
            m.insert("findings".into(), other);
            m
        }
    };
    json.insert("study".into(), S::INFO.name.into());
    json.insert("checks".into(), serde_json::to_value(&checks).map_err(|e| StudyError::Other(e.to_string()))?);
    let text =
        serde_json::to_string_pretty(&serde_json::Value::Object(json)).map_err(|e| StudyError::Other(e.to_string()))?;
    doc.file("results.json", &(text + "\n"))?;
    let (markdown, files) = doc.finish()?;
    Ok(StudyOutput { markdown, files, checks, runs: runs.len() })
}

/// A study behind a pointer, for registries: `&dyn AnyStudy`.
pub trait AnyStudy: Sync {
    fn info(&self) -> StudyInfo;
    fn run(&self, opts: &StudyOptions, progress: Progress) -> Result<StudyOutput, StudyError>;
}

impl<S: Study> AnyStudy for S {
    fn info(&self) -> StudyInfo {
        S::INFO
    }
    fn run(&self, opts: &StudyOptions, progress: Progress) -> Result<StudyOutput, StudyError> {
        run_study(self, opts, progress)
    }
}

/// Finds `name` among `studies` and runs it.
pub fn run_named(
    studies: &[&dyn AnyStudy],
    name: &str,
    opts: &StudyOptions,
    progress: Progress,
) -> Result<StudyOutput, StudyError> {
    match studies.iter().find(|s| s.info().name == name) {
        Some(s) => s.run(opts, progress),
        None => Err(StudyError::Unknown(
            name.to_string(),
            studies.iter().map(|s| s.info().name).collect::<Vec<_>>().join(", "),
        )),
    }
}
