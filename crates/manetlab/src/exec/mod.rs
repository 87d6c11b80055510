//! Executing scenarios for front ends: the command line (`manetlab-cli`)
//! and the Python package (`crates/manetlab-py`) call the same functions,
//! so a run, a sweep and the files they write are the same whichever
//! front end started them.
//!
//! - [`run_scenario`]: the replications of one scenario, in parallel, with
//!   a [`Cancel`] flag checked between slices of simulated time (Ctrl-C in
//!   Python), and the expected throughput of mobile TCP flows filled in;
//! - [`summary::summary_json`]: the text of `summary.json`;
//! - [`sweep`]: parameter sweeps with the resumable per-run store of
//!   [`crate::study::sweep`] and the sweep tables;
//! - [`run_task`]: one run as a pure function of (resolved scenario text,
//!   seed), the unit a distributed executor ships to a worker.

pub mod explain;
pub mod explain_groups;
pub mod store;
pub mod summary;
pub mod sweep;
pub mod sweep_out;

use crate::config::SimConfig;
use crate::scenario::{Scenario, ScenarioError};
use crate::sim::Time;
use crate::simulation::BuildError;
use crate::{Report, Simulation};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// A cancellation flag shared between the thread that waits for runs and
/// the threads that execute them. Cloning shares the flag.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }
    /// Asks every run using this flag to stop at its next slice boundary.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Why runs did not produce reports.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    #[error("seed {seed}: {err}")]
    Build { seed: u64, err: BuildError },
    #[error("cancelled")]
    Cancelled,
    #[error("{0}")]
    Other(String),
}

/// Slices of simulated time a run is cut into so that a [`Cancel`] is seen
/// promptly: each slice ends with a check of the flag. Cutting a run into
/// slices does not change it (`Simulation::run_until` is resumable).
pub const SLICES: u32 = 1000;

/// Runs one config to its report, checking `cancel` between slices and
/// adding the simulated nanoseconds of each slice to `progress_ns`.
pub fn run_config(cfg: SimConfig, cancel: &Cancel, progress_ns: &AtomicU64) -> Result<Report, ExecError> {
    let seed = cfg.seed;
    let mut sim = Simulation::new(cfg).map_err(|err| ExecError::Build { seed, err })?;
    let total = sim.config().duration.as_ns();
    let steps = SLICES as u64;
    let mut last = 0u64;
    for k in 1..=steps {
        if cancel.is_cancelled() {
            return Err(ExecError::Cancelled);
        }
        let t = if k == steps { total } else { total / steps * k };
        sim.run_until(Time(t));
        progress_ns.fetch_add(t - last, Ordering::Relaxed);
        last = t;
    }
    Ok(sim.finish())
}

/// Runs `seeds` replications of `scenario` in parallel on the current rayon
/// pool (one replication runs on the calling thread) and fills in the
/// expected throughput of mobile TCP flows (see
/// [`add_expected_throughput`]). Every replication is built before any
/// runs, so a config error costs no simulation time. Reports are in seed
/// order.
pub fn run_scenario(
    scenario: &Scenario,
    seeds: &[u64],
    cancel: &Cancel,
    progress_ns: &AtomicU64,
) -> Result<Vec<Report>, ExecError> {
    let configs: Vec<SimConfig> = seeds.iter().map(|&s| scenario.config(s)).collect();
    for c in &configs {
        Simulation::new(c.clone()).map_err(|err| ExecError::Build { seed: c.seed, err })?;
    }
    let mut reports: Vec<Report> = if configs.len() == 1 {
        configs.into_iter().map(|c| run_config(c, cancel, progress_ns)).collect::<Result<_, _>>()?
    } else {
        configs.into_par_iter().map(|c| run_config(c, cancel, progress_ns)).collect::<Result<_, _>>()?
    };
    add_expected_throughput(scenario, &mut reports, true);
    Ok(reports)
}

/// One run as a pure function of (scenario text, seed): parses `text`
/// (`origin` names it in errors and anchors relative paths), runs the seed
/// and returns its report, expected throughput included. The same text
/// and seed give the same report on any machine, so a distributed executor
/// can ship `(Scenario::effective_toml(), seed)` to a worker.
pub fn run_task(text: &str, origin: &str, seed: u64, cancel: &Cancel) -> Result<Report, ExecError> {
    let sc = Scenario::from_str(text, origin)?;
    let mut r = run_scenario(&sc, &[seed], cancel, &AtomicU64::new(0))?;
    Ok(r.remove(0))
}

/// Fills `expected_bps` of every TCP flow that has a path profile (mobile
/// runs) from the chain table for the scenario's settings, cached under
/// `$MANETLAB_CACHE` (default `out/cache`). With `quiet` false, says on
/// standard error when it computes or loads a table.
pub fn add_expected_throughput(scenario: &Scenario, reports: &mut [Report], quiet: bool) {
    add_expected_throughput_with(scenario, reports, quiet, &|_, _| {});
}

/// [`add_expected_throughput`], reporting `progress(done, total)` over the
/// chain runs while a table is computed (the first mobile TCP run per
/// setting: 6-50 s; a front end shows it as a bar).
pub fn add_expected_throughput_with(
    scenario: &Scenario,
    reports: &mut [Report],
    quiet: bool,
    progress: crate::study::Progress,
) {
    use crate::config::Traffic;
    use crate::study::chain_table as chain;
    let cfg = scenario.config(scenario.seed());
    let cache = std::env::var_os("MANETLAB_CACHE").map(std::path::PathBuf::from).unwrap_or_else(|| "out/cache".into());
    for (i, f) in cfg.flows.iter().enumerate() {
        let Traffic::Tcp { tcp, .. } = &f.traffic else { continue };
        if reports.iter().all(|r| r.flows[i].path_profile.is_none()) {
            continue;
        }
        if !quiet {
            eprintln!(
                "expected throughput: chain table for these radio/MAC/TCP settings (computed once per setting, \
                 then cached in {})",
                cache.display()
            );
        }
        let table = chain::table_with_progress(&cfg, tcp, &cache, 3, Time::from_secs(100), progress);
        let from = cfg.warmup.as_secs_f64().max(f.start.as_secs_f64());
        for r in reports.iter_mut() {
            if let Some(p) = &r.flows[i].path_profile {
                r.flows[i].expected_bps = Some(crate::metrics::path::expected_throughput(p, &table, from));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHAIN: &str = r#"
[run]
duration = "2s"
[topology]
kind = "chain"
nodes = 3
spacing = "200m"
[[flow]]
src = 2
dst = 0
type = "cbr"
rate = "500kbps"
packet_size = "512B"
"#;

    #[test]
    fn sliced_run_equals_plain_run_and_counts_progress() {
        let sc = Scenario::from_str(CHAIN, "chain.toml").unwrap();
        let cfg = sc.config(3);
        let plain = Simulation::new(cfg.clone()).unwrap().run();
        let done = AtomicU64::new(0);
        let sliced = run_config(cfg.clone(), &Cancel::new(), &done).unwrap();
        assert_eq!(plain, sliced);
        assert_eq!(done.load(Ordering::Relaxed), cfg.duration.as_ns());
        assert!(plain.flows[0].received_packets > 100, "{:?}", plain.flows[0]);
    }

    #[test]
    fn a_cancelled_flag_stops_before_running() {
        let sc = Scenario::from_str(CHAIN, "chain.toml").unwrap();
        let c = Cancel::new();
        c.cancel();
        let done = AtomicU64::new(0);
        assert!(matches!(run_scenario(&sc, &[1, 2], &c, &done), Err(ExecError::Cancelled)));
        assert_eq!(done.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn run_task_is_a_function_of_text_and_seed() {
        let sc = Scenario::parse(CHAIN, "chain.toml", &["flow.0.rate=300kbps"]).unwrap();
        let a = run_task(sc.effective_toml(), "chain.toml", 7, &Cancel::new()).unwrap();
        let b = run_scenario(&sc, &[7], &Cancel::new(), &AtomicU64::new(0)).unwrap();
        assert_eq!(a, b[0]);
        assert_eq!(a.seed, 7);
    }
}
