//! The skeleton of a study (docs/studies.md): copy it to
//! `src/<name>.rs`, add one line to `STUDIES` in `src/lib.rs`, fill in.
//! Runnable as it stands: `cargo run --release -p manetlab-studies
//! --example study_skeleton` runs it in quick mode into out/study-skeleton.

use manetlab::config::{FlowConfig, SimConfig, Traffic};
use manetlab::sim::Time;
use manetlab::study::report::Table;
use manetlab::study::sweep::{Aggregate, Job};
use manetlab::study::{
    run_study, Analysis, Check, Figure, ReportDoc, Runs, Series, Study, StudyError, StudyInfo, StudyOptions,
};
use manetlab::BuildError;
use serde::{Deserialize, Serialize};

/// Name, paper and one line, as `manetlab study --list` shows them.
pub const INFO: StudyInfo =
    StudyInfo { name: "skeleton", paper: "none", about: "CBR goodput over a static chain (the study skeleton)" };

/// The points of the study: here, hops of a static chain.
const HOPS: [u32; 3] = [1, 2, 3];
/// What the paper says (normally data/published/<name>.toml, with its source).
const PUBLISHED_KBPS: [f64; 3] = [1600.0, 800.0, 530.0];

fn key(hops: u32, seed: u64) -> String {
    format!("hops={hops}/seed={seed}")
}

/// The config of one run.
fn config(hops: u32, seed: u64, duration: Time) -> SimConfig {
    let mut cfg = SimConfig {
        seed,
        duration,
        nodes: SimConfig::chain_positions(hops as usize + 1, 200.0),
        ..SimConfig::default()
    };
    cfg.flows.push(FlowConfig {
        name: "cbr".into(),
        src: 0,
        dst: hops,
        traffic: Traffic::Cbr { size: 1000, interval: Time::from_ms(2), jitter: Time::ZERO },
        start: Time::ZERO,
        stop: None,
    });
    cfg
}

/// What one run keeps (undefined values as Option, never NaN).
#[derive(Serialize, Deserialize)]
pub struct Outcome {
    goodput_kbps: f64,
}

/// What the analysis finds (written to results.json).
#[derive(Serialize)]
pub struct Findings {
    seeds: u32,
    goodput_kbps: Vec<Aggregate>,
}

pub struct Skeleton;

impl Study for Skeleton {
    const INFO: StudyInfo = INFO;
    type Outcome = Outcome;
    type Findings = Findings;

    fn plan(&self, opts: &StudyOptions) -> Vec<Job> {
        let secs = if opts.quick { 2 } else { 20 };
        let mut jobs = Vec::new();
        for h in HOPS {
            for k in 0..opts.seeds(2, 5) as u64 {
                jobs.push(Job::new(key(h, opts.seed + k), config(h, opts.seed + k, Time::from_secs(secs))));
            }
        }
        jobs
    }

    fn outcome(&self, _: &StudyOptions, cfg: &SimConfig) -> Result<Outcome, BuildError> {
        let r = manetlab::Simulation::new(cfg.clone())?.run();
        Ok(Outcome { goodput_kbps: r.flows[0].goodput_bps / 1e3 })
    }

    fn analyse(&self, opts: &StudyOptions, runs: &Runs<Outcome>) -> Result<Analysis<Findings>, StudyError> {
        let seeds = opts.seeds(2, 5);
        let goodput_kbps: Vec<Aggregate> = HOPS
            .iter()
            .map(|&h| Aggregate::of((0..seeds as u64).map(|k| runs.get(&key(h, opts.seed + k)).goodput_kbps)))
            .collect();
        let falls = goodput_kbps.windows(2).all(|w| w[1].mean < w[0].mean);
        let means: Vec<String> = goodput_kbps.iter().map(|a| format!("{:.0}", a.mean)).collect();
        let checks = vec![Check::new("goodput falls with every hop", falls, means.join(" > "))];
        Ok(Analysis { findings: Findings { seeds, goodput_kbps }, checks })
    }

    fn report(&self, _: &StudyOptions, f: &Findings, doc: &mut ReportDoc) -> Result<(), StudyError> {
        doc.title("Skeleton: CBR over a static chain");
        let mut t = Table::new(&["hops", "published kbit/s", "ours kbit/s"]).align("rrr");
        for (i, a) in f.goodput_kbps.iter().enumerate() {
            t.row([HOPS[i].to_string(), format!("{:.0}", PUBLISHED_KBPS[i]), format!("{a:.0}")]);
        }
        doc.table(&t);
        let pts = |v: Vec<(f64, Option<f64>)>| v.into_iter().zip(HOPS).map(|((y, e), h)| (h as f64, y, e)).collect();
        doc.figure(&Figure::lines(
            "skeleton_goodput",
            "CBR goodput over a static chain",
            "hops",
            "goodput (kbit/s)",
            vec![
                Series {
                    name: "published".into(),
                    points: pts(PUBLISHED_KBPS.map(|y| (y, None)).to_vec()),
                    scatter: false,
                },
                Series {
                    name: "manetlab".into(),
                    points: pts(f.goodput_kbps.iter().map(|a| (a.mean, Some(a.ci95))).collect()),
                    scatter: false,
                },
            ],
        ))?;
        doc.checks("Checks");
        Ok(())
    }
}

fn main() {
    let opts = StudyOptions { quick: true, ..StudyOptions::new("out/study-skeleton") };
    match run_study(&Skeleton, &opts, &|_, _| {}) {
        Ok(out) => println!("{}\n{}", out.markdown, out.summary()),
        Err(e) => eprintln!("error: {e}"),
    }
}
