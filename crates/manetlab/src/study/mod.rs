//! Studies: reproductions of the papers' experiments.
//!
//! A study is a set of runs (scenario x seed) plus the published numbers it
//! is judged against, stored as data in `data/published/` with their source.
//! Running a study executes its runs in parallel (each run is a pure
//! function of its config), then writes a Markdown report with the
//! published values beside ours, figures (SVG + PNG, each with a CSV of the
//! plotted data) and `results.json` into the output directory.

pub mod chain;
pub mod gupta;
pub mod holland;
pub mod kim;
#[cfg(feature = "plot")]
pub mod plot;
pub mod runner;
pub mod sweep;
pub mod testbed;
pub mod zaini;

use std::path::{Path, PathBuf};

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
}

impl StudyOptions {
    /// Default options writing to `out`.
    pub fn new(out: impl Into<PathBuf>) -> StudyOptions {
        StudyOptions { runs: None, quick: false, out: out.into(), seed: 1, resume: false }
    }

    /// How this study's sweeps store and resume runs: one file per run in
    /// `<out>/runs/`.
    pub fn sweep_options<'a>(&self, progress: Progress<'a>) -> sweep::SweepOptions<'a> {
        sweep::SweepOptions { dir: Some(self.out.join("runs")), resume: self.resume, progress }
    }
}

/// A check of a published claim or acceptance criterion.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Check {
    pub what: String,
    pub passed: bool,
    pub detail: String,
}

/// What a study produced.
#[derive(Clone, Debug)]
pub struct StudyOutput {
    /// The Markdown report (also written to `report.md`).
    pub markdown: String,
    /// Every file written, report included.
    pub files: Vec<PathBuf>,
    pub checks: Vec<Check>,
    /// Simulation runs executed.
    pub runs: usize,
}

/// Called with (runs done, runs total) as runs finish.
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

pub struct StudyInfo {
    pub name: &'static str,
    pub paper: &'static str,
    pub about: &'static str,
}

/// The studies this build knows.
pub const STUDIES: &[StudyInfo] = &[StudyInfo {
    name: "chain",
    paper: "tcp-manet-elfn.txt, figure 1",
    about: "TCP-Reno goodput over a static chain of 1..10 hops (calibration of expected throughput)",
},
StudyInfo {
    name: "holland",
    paper: "tcp-manet-elfn.txt, figures 3-16",
    about: "TCP-Reno over mobile DSR: measured vs expected throughput, cache replies, background traffic, ELFN variants",
},
StudyInfo {
    name: "gupta",
    paper: "backpressure-tcp-udp.txt, figures 2-6",
    about: "8 TCP clients starved by 2 UDP flows on a 13x13 grid: retry limits, fair queueing, backpressure",
},
StudyInfo {
    name: "zaini",
    paper: "tfrc-tcp-aodv-dsr.txt, tables 2-7",
    about: "TFRC and TCP over AODV vs DSR with random waypoint mobility: throughput, jitter, delay",
},
StudyInfo {
    name: "testbed",
    paper: "testbed-tcp-udp-interaction.txt, table 1 and figures 2, 3, 5, 7",
    about: "TCP/UDP interaction in the APE testbed scenarios S1-S3, threshold and SINR reception",
},
StudyInfo {
    name: "kim",
    paper: "voip-tcp-coexistence.txt, table 1 and figures 4-5",
    about: "VoIP calls and TCP on a 4-hop 802.11a string behind a gateway: burstiness, TCP variants, priority, gateway control",
}];

#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    #[error("unknown study '{0}'; known studies: {1}")]
    Unknown(String, String),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Other(String),
}

/// Runs study `name`.
pub fn run(name: &str, opts: &StudyOptions, progress: Progress) -> Result<StudyOutput, StudyError> {
    std::fs::create_dir_all(&opts.out)?;
    match name {
        "chain" => chain::run(opts, progress),
        "holland" => holland::run(opts, progress),
        "gupta" => gupta::run(opts, progress),
        "zaini" => zaini::run(opts, progress),
        "testbed" => testbed::run(opts, progress),
        "kim" => kim::run(opts, progress),
        _ => Err(StudyError::Unknown(name.to_string(), STUDIES.iter().map(|s| s.name).collect::<Vec<_>>().join(", "))),
    }
}

/// Writes `text` to `dir/name` atomically and records the path.
pub(crate) fn write_file(dir: &Path, name: &str, text: &str, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, &path)?;
    files.push(path);
    Ok(())
}

/// One plotted series: name, points (x, y, optional ± error).
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64, Option<f64>)>,
    /// Draw markers only (scatter), no line.
    pub scatter: bool,
}

/// A figure: written as SVG and PNG when plotting is compiled in, and
/// always as CSV (one row per point: series, x, y, err).
#[derive(Clone, Debug)]
pub struct Figure {
    pub file_stem: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// Step plot (for time series that change by steps, like cwnd).
    pub steps: bool,
}

impl Figure {
    /// A line plot (no steps).
    pub fn lines(file_stem: &str, title: &str, x_label: &str, y_label: &str, series: Vec<Series>) -> Figure {
        Figure {
            file_stem: file_stem.into(),
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            series,
            steps: false,
        }
    }

    pub fn csv(&self) -> String {
        let mut s = String::from("series,x,y,err\n");
        for se in &self.series {
            for (x, y, e) in &se.points {
                s += &format!(
                    "{},{},{},{}\n",
                    se.name.replace(',', ";"),
                    x,
                    y,
                    e.map(|v| v.to_string()).unwrap_or_default()
                );
            }
        }
        s
    }

    /// Writes CSV, SVG and PNG; returns the Markdown to embed the figure.
    pub fn write(&self, dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<String> {
        write_file(dir, &format!("{}.csv", self.file_stem), &self.csv(), files)?;
        #[cfg(feature = "plot")]
        {
            for ext in ["svg", "png"] {
                let path = dir.join(format!("{}.{ext}", self.file_stem));
                plot::draw(self, &path)
                    .map_err(|e| std::io::Error::other(format!("plotting {}: {e}", path.display())))?;
                files.push(path);
            }
            Ok(format!(
                "![{}]({}.svg)\n\n(data: [{}.csv]({}.csv))\n",
                self.title, self.file_stem, self.file_stem, self.file_stem
            ))
        }
        #[cfg(not(feature = "plot"))]
        Ok(format!(
            "Figure '{}': data in [{}.csv]({}.csv) (built without plotting)\n",
            self.title, self.file_stem, self.file_stem
        ))
    }
}
