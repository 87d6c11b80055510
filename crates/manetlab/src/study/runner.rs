//! Runs many simulations in parallel across cores; results come back in
//! input order whatever the thread count.

use crate::config::SimConfig;
use crate::metrics::Report;
use crate::simulation::{BuildError, Simulation};
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs every config (in parallel) and returns the reports in order.
pub fn run_all(configs: Vec<SimConfig>, progress: super::Progress) -> Result<Vec<Report>, BuildError> {
    let total = configs.len();
    let sims = configs.into_iter().map(Simulation::new).collect::<Result<Vec<_>, _>>()?;
    let done = AtomicUsize::new(0);
    Ok(sims
        .into_par_iter()
        .map(|s| {
            let r = s.run();
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
            r
        })
        .collect())
}

/// Keeps a simulation's report together with the sender's TCP trace.
pub fn run_with_tcp_trace(
    cfg: SimConfig,
    flow: usize,
) -> Result<(Report, Option<crate::transport::tcp::TcpTrace>), BuildError> {
    let mut sim = Simulation::new(cfg)?;
    let d = sim.config().duration;
    sim.run_until(d);
    let trace = sim.tcp_trace(flow);
    Ok((sim.report(), trace))
}
