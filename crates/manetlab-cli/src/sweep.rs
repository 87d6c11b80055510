//! `manetlab run FILE --sweep key=values [--resume]`: a scenario run at every
//! point of a parameter grid times its replications, in parallel, each
//! finished run stored at once under `<out>/runs/` so an interrupted sweep
//! resumes where it stopped.

use crate::RunArgs;
use anyhow::{bail, Context, Result};
use manetlab::exec::sweep::{self, PlanError, SweepPlan};
use manetlab::exec::Cancel;
use manetlab::scenario::sweep::SweepSpec;
use manetlab::scenario::Scenario;
use manetlab::study::sweep::Aggregate;
use manetlab::Report;
use std::path::Path;
use std::sync::atomic::AtomicUsize;
use std::time::Instant;

pub fn run_sweep(args: &RunArgs, base: &Scenario, axes: SweepSpec, dir: &Path) -> Result<i32> {
    if args.tcp_trace || args.trace.is_some() || args.link_view.is_some() || args.viz {
        bail!(
            "--tcp-trace, --trace, --link-view and --viz record one run; with a sweep, run the point of interest alone with --set"
        );
    }
    crate::warn_if_no_flows(base, &args.file);
    let first_seed = args.seed.unwrap_or(base.seed());
    let reps = args.runs.unwrap_or(base.replications).max(1);
    let seeds: Vec<u64> = (0..reps as u64).map(|k| first_seed + k).collect();
    // Load and check every point before running any.
    let plan = match sweep::plan(axes, &seeds, |point| {
        let mut set = args.set.clone();
        set.extend(point.iter().cloned());
        Scenario::load(&args.file, &set)
    }) {
        Ok(p) => p,
        Err(e @ PlanError::Point { .. }) => {
            eprintln!("error: {e}");
            return Ok(2);
        }
        Err(e) => bail!("{}: {e}", args.file.display()),
    };
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let pts = &plan.points;
    if !args.quiet {
        eprintln!(
            "sweep: {} point{} x {} replication{} = {} runs{}",
            pts.len(),
            if pts.len() == 1 { "" } else { "s" },
            reps,
            if reps == 1 { "" } else { "s" },
            plan.jobs.len(),
            if args.resume { " (resuming finished runs from runs/)" } else { "" }
        );
    }
    let bar = crate::runs_bar(args.quiet);
    let started = Instant::now();
    let reports = sweep::run(
        &plan,
        Some(&dir.join("runs")),
        args.resume,
        &Cancel::new(),
        &|done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        },
        &AtomicUsize::new(0),
    )?;
    bar.finish_and_clear();
    let wall = started.elapsed().as_secs_f64();
    sweep::write_outputs(dir, &base.name, &plan, &reports)
        .with_context(|| format!("writing the sweep files in {}", dir.display()))?;
    let mut manifest = manetlab::output::manifest::Manifest::new("sweep", &base.name, &plan.seeds);
    manifest.runs = reports.len() as u64;
    manifest.events = Some(reports.iter().map(|r| r.events).sum());
    manifest.wall_time_s = started.elapsed().as_secs_f64();
    manifest.write(dir).with_context(|| format!("writing manifest.json in {}", dir.display()))?;
    // The base scenario as run (without the swept keys, which the sweep
    // axes in sweep.json give).
    manetlab::output::table::write_atomic(
        &dir.join("scenario.resolved.toml"),
        manetlab::output::manifest::resolved_toml(base, &plan.seeds).as_bytes(),
    )
    .with_context(|| format!("writing scenario.resolved.toml in {}", dir.display()))?;
    if !args.quiet {
        print_table(&plan, &reports);
        println!("\n{} runs in {wall:.1} s; results in {}", plan.jobs.len(), dir.display());
    }
    Ok(0)
}

fn print_table(plan: &SweepPlan, reports: &[Report]) {
    let (axes, pts, reps) = (&plan.axes, &plan.points, plan.seeds.len());
    let head: Vec<&str> = axes.iter().map(|a| a.key.as_str()).collect();
    println!(
        "{:<40} {:<12} {:>20} {:>7} {:>18}   ({reps} replication{}, mean ± 95% CI)",
        if head.is_empty() { "point".to_string() } else { head.join(", ") },
        "flow",
        "goodput kbit/s",
        "PDR%",
        "delay ms",
        if reps == 1 { "" } else { "s" }
    );
    for (pi, p) in pts.iter().enumerate() {
        let rs = &reports[pi * reps..(pi + 1) * reps];
        let vals: Vec<&str> = p.iter().map(|(_, v)| v.as_str()).collect();
        for (i, f) in rs[0].flows.iter().enumerate() {
            let g = Aggregate::of(rs.iter().map(|r| r.flows[i].goodput_bps / 1e3));
            // Runs where a value is undefined (nothing delivered) stay out.
            let d = Aggregate::of(rs.iter().filter_map(|r| r.flows[i].delay_mean_s).map(|d| d * 1e3));
            let pdr = Aggregate::of(rs.iter().filter_map(|r| r.flows[i].delivery_ratio).map(|p| p * 100.0));
            println!(
                "{:<40} {:<12} {:>20} {:>7.1} {:>18}",
                if i == 0 { vals.join(", ") } else { String::new() },
                f.name,
                format!("{g:.1}"),
                pdr.mean,
                format!("{d:.2}")
            );
        }
    }
}
