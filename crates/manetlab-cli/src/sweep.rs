//! Sweeps on the command line:
//! - `manetlab run FILE --sweep key=values [--resume] [--shard I/N]`: a
//!   scenario run at every point of a parameter grid times its
//!   replications, in parallel, each finished run appended at once to the
//!   run store under `<out>/runs/` (so an interrupted sweep resumes where it
//!   stopped); with `--shard` only the runs whose key hashes to I of N;
//! - `manetlab merge DIR... --out DIR`: the sweep files from the stores of
//!   shard folders, without running anything; missing runs are listed and
//!   the exit status is 1;
//! - `manetlab plan FILE --sweep ...`: the runs as JSON lines (key, point,
//!   seed, fingerprint) for any other engine.

use crate::RunArgs;
use anyhow::{bail, Context, Result};
use manetlab::exec::store::Store;
use manetlab::exec::sweep::{self, PlanError, RunOptions, Shard, Spec, SweepMeta, SweepPlan};
use manetlab::exec::sweep_out;
use manetlab::exec::Cancel;
use manetlab::output::{Table, Value};
use manetlab::scenario::sweep::SweepSpec;
use manetlab::scenario::Scenario;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The plan of a sweep from the command line's scenario, overrides, seeds
/// and axes; `Err(2)` (after printing why) when a point is invalid.
pub fn make_plan(
    file: &Path,
    set: &[String],
    seed: Option<u64>,
    runs: Option<u32>,
    base: &Scenario,
    axes: SweepSpec,
) -> Result<SweepPlan, i32> {
    let first_seed = seed.unwrap_or(base.seed());
    let reps = runs.unwrap_or(base.replications).max(1);
    let seeds: Vec<u64> = (0..reps as u64).map(|k| first_seed + k).collect();
    // Load and check every point before running any.
    sweep::plan(axes, &seeds, |point| {
        let mut s = set.to_vec();
        s.extend(point.iter().cloned());
        Scenario::load(file, &s)
    })
    .map_err(|e| {
        match e {
            e @ PlanError::Point { .. } => eprintln!("error: {e}"),
            e => eprintln!("error: {}: {e}", file.display()),
        }
        2
    })
}

pub fn run_sweep(args: &RunArgs, base: &Scenario, axes: SweepSpec, dir: &Path) -> Result<i32> {
    if args.tcp_trace || args.trace.is_some() || args.link_view.is_some() || args.viz {
        bail!(
            "--tcp-trace, --trace, --link-view and --viz record one run; with a sweep, run the point of interest alone with --set"
        );
    }
    let shard = match args.shard.as_deref().map(Shard::parse).transpose() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(2);
        }
    };
    crate::warn_if_no_flows(base, &args.file);
    let plan = match make_plan(&args.file, &args.set, args.seed, args.runs, base, axes) {
        Ok(p) => p,
        Err(code) => return Ok(code),
    };
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let (meta, specs) = (sweep::meta(&plan, &base.name), sweep::specs(&plan));
    // The plan and the base scenario first: `merge` needs them, and a
    // killed sweep leaves a folder that says what it was.
    sweep::write_plan_files(dir, &meta, &specs).with_context(|| format!("writing the plan in {}", dir.display()))?;
    // The base scenario as run (without the swept keys, which the sweep
    // axes in sweep.json give).
    manetlab::output::table::write_atomic(
        &dir.join("scenario.resolved.toml"),
        manetlab::output::manifest::resolved_toml(base, &plan.seeds).as_bytes(),
    )
    .with_context(|| format!("writing scenario.resolved.toml in {}", dir.display()))?;
    let pts = &plan.points;
    let reps = plan.seeds.len();
    if !args.quiet {
        eprintln!(
            "sweep: {} point{} x {} replication{} = {} runs{}{}",
            pts.len(),
            if pts.len() == 1 { "" } else { "s" },
            reps,
            if reps == 1 { "" } else { "s" },
            plan.jobs.len(),
            match shard {
                Some(s) => format!(
                    "; shard {}/{}: {} of them",
                    s.index,
                    s.count,
                    specs.iter().filter(|x| s.owns(&x.key)).count()
                ),
                None => String::new(),
            },
            if args.resume { " (resuming finished runs from runs/)" } else { "" }
        );
    }
    let bar = crate::runs_bar(args.quiet);
    let started = Instant::now();
    let opts = RunOptions {
        resume: args.resume,
        shard,
        full_reports: args.full_reports,
        cancel: &Cancel::new(),
        progress: &|done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        },
    };
    let out = sweep::run(&plan, Some(&dir.join("runs")), &opts)?;
    bar.finish_and_clear();
    drop(plan);
    if let Some(s) = shard {
        if !args.quiet {
            println!(
                "shard {}/{}: {} runs ({} run, {} already stored) in {:.1} s; store in {}; \
                 aggregate the shard folders with `manetlab merge DIR... --out DIR`",
                s.index,
                s.count,
                out.ran + out.loaded,
                out.ran,
                out.loaded,
                started.elapsed().as_secs_f64(),
                dir.join("runs").display()
            );
        }
        return Ok(0);
    }
    let mut store = out.store;
    aggregate(dir, &meta, &specs, &mut store, started, args.quiet)
}

/// Writes the sweep files and the manifest into `dir` from `store`; 1 (and
/// the missing runs listed) when the store lacks runs.
fn aggregate(
    dir: &Path,
    meta: &SweepMeta,
    specs: &[Spec],
    store: &mut Store,
    started: Instant,
    quiet: bool,
) -> Result<i32> {
    let gone = sweep_out::missing(specs, store);
    if !gone.is_empty() {
        let list: String = gone.iter().map(|s| format!("{}\n", s.key)).collect();
        let path = dir.join("missing-runs.txt");
        manetlab::output::table::write_atomic(&path, list.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        eprintln!("error: {} of {} runs are missing (list in {}):", gone.len(), specs.len(), path.display());
        for s in gone.iter().take(20) {
            let why = if store.stale(&s.key, &s.fingerprint) { " (stored for another config or binary)" } else { "" };
            eprintln!("  {}{why}", s.key);
        }
        if gone.len() > 20 {
            eprintln!("  ... and {} more", gone.len() - 20);
        }
        return Ok(1);
    }
    let _ = std::fs::remove_file(dir.join("missing-runs.txt"));
    let totals = sweep_out::write_outputs(dir, meta, specs, store)
        .with_context(|| format!("writing the sweep files in {}", dir.display()))?;
    let mut manifest = manetlab::output::manifest::Manifest::new("sweep", &meta.scenario, &meta.seeds);
    manifest.runs = totals.runs;
    manifest.events = Some(totals.events);
    manifest.wall_time_s = started.elapsed().as_secs_f64();
    manifest.write(dir).with_context(|| format!("writing manifest.json in {}", dir.display()))?;
    if !quiet {
        print_table(meta, &totals.summary);
        println!("\n{} runs in {:.1} s; results in {}", totals.runs, started.elapsed().as_secs_f64(), dir.display());
    }
    for k in totals.unbalanced.iter().take(5) {
        eprintln!("warning: run {k}: packet audit does not balance");
    }
    Ok(0)
}

/// `manetlab merge DIR... --out DIR`.
pub fn merge(dirs: &[PathBuf], out: &Path, quiet: bool) -> i32 {
    match merge_inner(dirs, out, quiet) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            1
        }
    }
}

fn merge_inner(dirs: &[PathBuf], out: &Path, quiet: bool) -> Result<i32> {
    let started = Instant::now();
    let Some(first) = dirs.first() else {
        eprintln!("error: merge: name at least one sweep folder");
        return Ok(2);
    };
    let (meta, specs, digest) = match sweep::read_plan_files(first) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e} (not a sweep folder written by `manetlab run --sweep`?)");
            return Ok(2);
        }
    };
    for d in &dirs[1..] {
        match sweep::read_plan_files(d) {
            Ok((_, _, dg)) if dg == digest => {}
            Ok(_) => {
                eprintln!(
                    "error: {} holds another sweep than {} (different plan: scenario, axes, seeds or binary)",
                    d.display(),
                    first.display()
                );
                return Ok(2);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return Ok(2);
            }
        }
    }
    let mut store = Store::open(&sweep::runs_dirs(dirs), true).context("reading the run stores")?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    if !dirs.iter().any(|d| same_dir(d, out)) {
        sweep::write_plan_files(out, &meta, &specs)
            .with_context(|| format!("writing the plan in {}", out.display()))?;
        if let Some(src) = dirs.iter().map(|d| d.join("scenario.resolved.toml")).find(|p| p.is_file()) {
            std::fs::copy(&src, out.join("scenario.resolved.toml"))
                .with_context(|| format!("copying {}", src.display()))?;
        }
    }
    if !quiet {
        eprintln!("merge: {} runs planned, {} stored in {} folder(s)", specs.len(), store.len(), dirs.len());
    }
    aggregate(out, &meta, &specs, &mut store, started, quiet)
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// `manetlab plan FILE --sweep ...`: the runs as JSON lines on standard
/// output.
pub fn print_plan(plan: &SweepPlan, name: &str, shard: Option<Shard>) -> Result<()> {
    let (meta, specs) = (sweep::meta(plan, name), sweep::specs(plan));
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    sweep::print_plan(&mut out, &meta, &specs, shard)?;
    std::io::Write::flush(&mut out)?;
    Ok(())
}

/// The per point and flow goodput, PDR and delay of the `sweep` table.
fn print_table(meta: &SweepMeta, summary: &Table) {
    let reps = meta.seeds.len();
    let head: Vec<&str> = meta.axes.iter().map(|a| a.key.as_str()).collect();
    println!(
        "{:<40} {:<12} {:>20} {:>7} {:>18}   ({reps} replication{}, mean ± 95% CI)",
        if head.is_empty() { "point".to_string() } else { head.join(", ") },
        "flow",
        "goodput kbit/s",
        "PDR%",
        "delay ms",
        if reps == 1 { "" } else { "s" }
    );
    let col = |name: &str| summary.index(name);
    let naxes = meta.axes.len();
    let get = |row: &[Value], name: &str| col(name).and_then(|i| row[i].as_f64());
    let pm = |m: Option<f64>, c: Option<f64>, scale: f64, p: usize| match (m, c) {
        (Some(m), Some(c)) => format!("{:.p$} ± {:.p$}", m * scale, c * scale),
        (Some(m), None) => format!("{:.p$}", m * scale),
        _ => "-".into(),
    };
    let mut last: Option<Vec<String>> = None;
    for row in &summary.rows {
        let point: Vec<String> = row[..naxes].iter().map(Value::to_field).collect();
        let label = if last.as_ref() == Some(&point) { String::new() } else { point.join(", ") };
        last = Some(point);
        let flow = col("flow").map(|i| row[i].to_field()).unwrap_or_default();
        println!(
            "{:<40} {:<12} {:>20} {:>7} {:>18}",
            label,
            flow,
            pm(get(row, "goodput_bps_mean"), get(row, "goodput_bps_ci95"), 1e-3, 1),
            pm(get(row, "delivery_ratio_mean"), None, 100.0, 1),
            pm(get(row, "delay_mean_s_mean"), get(row, "delay_mean_s_ci95"), 1e3, 2),
        );
    }
}
