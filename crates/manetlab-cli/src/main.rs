//! `manetlab`: run scenario files and paper reproductions.
//!
//! A thin front end: parsing, validation and simulation live in the library;
//! this crate turns them into commands, tables, files and progress bars.

mod output;
mod progress;
mod signals;
mod sweep;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use manetlab::scenario::Scenario;
use manetlab::sim::Time;
use manetlab::transport::tcp::TcpTrace;
use manetlab::{Report, Simulation};
use rayon::prelude::*;
use signals::STOP;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[cfg(test)]
mod tests {
    use super::study_exit;
    use manetlab::study::Check;

    #[test]
    fn strict_exits_1_only_when_a_check_fails() {
        let c = |p| Check::new("c", p, "");
        assert_eq!(study_exit(&[c(true), c(false)], false), 0);
        assert_eq!(study_exit(&[c(true), c(false)], true), 1);
        assert_eq!(study_exit(&[c(true), c(true)], true), 0);
        assert_eq!(study_exit(&[], true), 0);
    }
}

/// Deterministic packet-level simulator for multi-hop 802.11 ad hoc networks.
#[derive(Parser)]
#[command(name = "manetlab", version, about)]
struct Cli {
    /// Threads for parallel runs (replications, sweep points, study runs);
    /// default: every core (or RAYON_NUM_THREADS). Results do not depend on it.
    #[arg(long, short = 'j', global = true, value_name = "N")]
    jobs: Option<usize>,
    /// Let scenario files name paths outside their own folder
    /// (`mobility.file`) and outside the working directory (`output.dir`).
    /// Off by default: a scenario from someone else cannot read or write
    /// elsewhere (docs/reliability.md).
    #[arg(long, global = true)]
    allow_paths: bool,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Args)]
pub(crate) struct RunArgs {
    /// The scenario (TOML), see docs/scenario.md.
    file: PathBuf,
    /// Seed of the first replication (overrides [run] seed).
    #[arg(long)]
    seed: Option<u64>,
    /// Override a key, e.g. --set mac.data_rate=11Mbps (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Number of replications (overrides [run] replications).
    #[arg(long)]
    runs: Option<u32>,
    /// Output directory (default: [output] dir, else out/<scenario file stem>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
    /// Write each TCP flow's cwnd/ssthresh/SRTT/RTO series and time-sequence
    /// log (CSV, SVG, PNG) for the first replication.
    #[arg(long)]
    tcp_trace: bool,
    /// Per-link views of flows (comma-separated indices or names, or
    /// "all"), first replication: each hop's inter-packet delivery time,
    /// the route's hop count over time (CSV, SVG, PNG) and, for TCP flows,
    /// the time-sequence log as --tcp-trace.
    #[arg(long = "link-view", value_name = "FLOWS")]
    link_view: Option<String>,
    /// Packet traces: comma-separated ns2, ns2-old, pcap, per-node (pcap one
    /// file per node). Overrides [output] trace. With several replications
    /// each seed's traces go to <out>/seed-<seed>/.
    #[arg(long, value_name = "FORMATS")]
    trace: Option<String>,
    /// Write viz.html, a self-contained browser viewer of the first
    /// replication (and its data, viz.json); see docs/viz.md. [output]
    /// viz_window / viz_decimate / viz_sensed tune the recording.
    #[arg(long)]
    viz: bool,
    /// Sweep a key over values: KEY=V1,V2,..., KEY=FROM..TO:STEP, e.g.
    /// --sweep flow.0.interval=10ms..50ms:10ms, or KEY=[TOML array of
    /// points], e.g. --sweep 'mobility.speed=[["1m/s","5m/s"],["1m/s","20m/s"]]'
    /// (repeatable, once per key: the cartesian product is run; adds to or
    /// replaces the file's [sweep] axes).
    #[arg(long = "sweep", value_name = "KEY=VALUES")]
    sweep: Vec<String>,
    /// Reuse the runs an interrupted sweep already finished (<out>/runs/).
    #[arg(long)]
    resume: bool,
    /// Write timeseries.csv (sweep-timeseries.csv in a sweep): per interval
    /// of this length, per flow and per node (docs/outputs.md). Same as
    /// --set output.interval=DURATION.
    #[arg(long, value_name = "DURATION")]
    interval: Option<String>,
    /// Record each flow's shortest-path profile in mobile runs and write
    /// path-<flow>-spans.csv and its figure (and the expected throughput
    /// of mobile TCP flows). Same as --set output.path_profile=true.
    #[arg(long = "path-profile")]
    path_profile: bool,
    /// Sweep: run only shard I of N (0-based; a run belongs to the shard
    /// its key hashes to), e.g. --shard $SLURM_ARRAY_TASK_ID/10; aggregate
    /// the shard folders with `manetlab merge`. See docs/cluster.md.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Sweep: also store every run's full report (<out>/runs/full/).
    #[arg(long)]
    full_reports: bool,
}

#[derive(clap::Args)]
pub(crate) struct PlanArgs {
    /// The scenario (TOML), see docs/scenario.md.
    file: PathBuf,
    /// Seed of the first replication (overrides [run] seed).
    #[arg(long)]
    seed: Option<u64>,
    /// Override a key (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Number of replications (overrides [run] replications).
    #[arg(long)]
    runs: Option<u32>,
    /// Sweep a key over values, as for `run` (repeatable).
    #[arg(long = "sweep", value_name = "KEY=VALUES")]
    sweep: Vec<String>,
    /// Only the runs of shard I of N.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario file: prints a per-flow table, writes summary.json and flows.csv.
    Run(RunArgs),
    /// Aggregate the run stores of sweep folders (shards) into sweep.csv,
    /// sweep-runs.csv and sweep.json without running anything; lists missing
    /// runs and exits 1 if any.
    Merge {
        /// Sweep folders (each written by `run --sweep ... --out DIR`, any --shard).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where to write the sweep files (may be one of the folders).
        #[arg(long)]
        out: PathBuf,
        /// Print nothing but errors.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Print a sweep's runs as JSON lines (key, point, seed, fingerprint)
    /// without running them, for other engines.
    Plan(PlanArgs),
    /// Validate a scenario file without running it.
    Check {
        /// The scenario (TOML), see docs/scenario.md.
        file: PathBuf,
        /// Override a key, e.g. --set mac.data_rate=11Mbps (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// Write a scenario's node movement (for one seed) as an ns-2 movement
    /// file, readable by ns-2, BonnMotion tools and `[mobility] model = "ns2-file"`.
    Movement {
        /// The scenario (TOML) whose [mobility] is written.
        file: PathBuf,
        /// Seed of the movement (random waypoint, patterns); default: [run] seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Override a key, e.g. --set mobility.pause=5s (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Output file (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Why two simulator profiles disagree on a scenario: runs it under both,
    /// switches each differing choice of the profile table (docs/profiles.md)
    /// one at a time, and writes explain.md, explain.csv, waterfall.csv and
    /// waterfall SVGs attributing each flow's goodput, delay and delivery
    /// difference to the choices.
    Explain {
        /// The scenario (TOML).
        file: PathBuf,
        /// The first profile (ns2, ns3, cmu1999).
        #[arg(long, default_value = "ns2")]
        profile: String,
        /// The profile to compare with.
        #[arg(long)]
        vs: String,
        /// Seeds per configuration.
        #[arg(long, default_value_t = 1)]
        runs: u32,
        /// First seed (default: [run] seed).
        #[arg(long)]
        seed: Option<u64>,
        /// How many of the choices that interact most (first and last
        /// effects differ most) are also switched two at a time.
        #[arg(long, default_value_t = 6)]
        pairs: usize,
        /// Orders the choices are switched in for the Shapley values (with
        /// --groups: orders sampled inside a group too large to enumerate).
        #[arg(long, default_value_t = 8)]
        orders: usize,
        /// Exact attributions for interacting rows: exact Shapley values of
        /// row groups (TCP, radio, MAC, queue and ARP, routing) and exact
        /// Owen values of the rows inside them; writes groups.md and
        /// groups.csv instead of the per-row files (docs/profiles.md).
        #[arg(long)]
        groups: bool,
        /// Override a key (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Output directory (default: out/explain-<file stem>).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Reproduce a paper's experiment: runs, report.md with published numbers beside ours, figures.
    Study {
        /// Study name (see --list).
        name: Option<String>,
        /// List the studies.
        #[arg(long)]
        list: bool,
        /// Replications (seeds) per point.
        #[arg(long)]
        runs: Option<u32>,
        /// Fewer seeds and shorter runs.
        #[arg(long)]
        quick: bool,
        /// First seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output directory (default: out/study-<name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Reuse the runs an interrupted invocation already finished (<out>/runs/).
        #[arg(long)]
        resume: bool,
        /// Exit with status 1 when any check does not reproduce (default: 0,
        /// the report says which).
        #[arg(long)]
        strict: bool,
        /// Figures without titles (for a paper, where the caption is the title).
        #[arg(long)]
        no_title: bool,
    },
}

fn main() {
    let cli = Cli::parse();
    if let Some(n) = cli.jobs {
        if n == 0 {
            eprintln!("error: --jobs takes a number of threads >= 1");
            std::process::exit(2);
        }
        if let Err(e) = rayon::ThreadPoolBuilder::new().num_threads(n).build_global() {
            eprintln!("error: --jobs {n}: {e}");
            std::process::exit(1);
        }
    }
    manetlab::scenario::input::set_allow_paths(cli.allow_paths);
    let code = match cli.cmd {
        Cmd::Run(args) => run(args),
        Cmd::Check { file, set } => check(file, set),
        Cmd::Merge { dirs, out, quiet } => sweep::merge(&dirs, &out, quiet),
        Cmd::Plan(args) => plan(args),
        Cmd::Movement { file, seed, set, out } => movement(file, seed, set, out),
        Cmd::Explain { file, profile, vs, runs, seed, pairs, orders, groups, set, out } => {
            explain(file, &profile, &vs, runs, seed, (pairs, orders, groups), set, out)
        }
        Cmd::Study { name, list, runs, quick, seed, out, resume, strict, no_title } => {
            let style = manetlab::study::FigureStyle { title: !no_title };
            study(name, list, StudyArgs { runs, quick, seed, out, resume, strict, style })
        }
    };
    std::process::exit(code);
}

/// Loads a scenario; on error prints it and returns exit code 2.
fn load(file: &std::path::Path, set: &[String]) -> Result<Scenario, i32> {
    Scenario::load(file, set).map_err(|e| {
        eprintln!("error: {e}");
        2
    })
}

#[allow(clippy::too_many_arguments)]
fn explain(
    file: PathBuf,
    a: &str,
    b: &str,
    runs: u32,
    seed: Option<u64>,
    (pairs, orders, groups): (usize, usize, bool),
    set: Vec<String>,
    out: Option<PathBuf>,
) -> i32 {
    use manetlab::scenario::Profile;
    let names = || Profile::ALL.map(|p| p.name()).join(", ");
    let (Some(pa), Some(pb)) = (Profile::parse(a), Profile::parse(b)) else {
        eprintln!("error: profiles are {}; got --profile {a} --vs {b}", names());
        return 2;
    };
    let sc = match load(&file, &set) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let first = seed.unwrap_or(sc.seed());
    let seeds: Vec<u64> = (0..runs.max(1) as u64).map(|i| first + i).collect();
    let dir = out.unwrap_or_else(|| {
        PathBuf::from("out").join(format!(
            "explain-{}",
            file.file_stem().map_or("scenario".into(), |s| s.to_string_lossy().into_owned())
        ))
    });
    if groups {
        return explain_grouped(&file, &set, (pa, pb), &seeds, orders, &dir);
    }
    let ex = match manetlab::exec::explain::explain(&file, &set, pa, pb, &seeds, pairs, orders) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if let Err(e) = ex.write(&dir) {
        eprintln!("error: writing {}: {e}", dir.display());
        return 1;
    }
    for (f, name) in ex.flow_names.iter().enumerate() {
        let g = |p: &manetlab::exec::explain::Point| p.values[f][0].map_or("-".into(), |v| format!("{v:.1}"));
        let pct = |x: Option<f64>| x.map_or("-".into(), |x| format!("{:.0}%", x * 100.0));
        println!(
            "{name}: goodput {pa} {} kbit/s, {pb} {} kbit/s; attributed to named choices: {} (unsettled between them: {})",
            g(&ex.base_a),
            g(&ex.base_b),
            pct(ex.attributed(f, 0)),
            pct(ex.unsettled(f, 0))
        );
        for x in ex.attributions(f, 0) {
            let ci = x.shapley_ci95.map_or(String::new(), |c| format!(" ± {c:.1}"));
            println!(
                "  {:<16} {:>+9.1}{ci} kbit/s (alone: {:+.1})",
                x.choice,
                x.shapley.unwrap_or(0.0),
                x.first.unwrap_or(0.0)
            );
        }
    }
    println!("wrote {}", dir.join("explain.md").display());
    0
}

/// `explain --groups`: exact group attributions (exec/explain_groups.rs).
fn explain_grouped(
    file: &std::path::Path,
    set: &[String],
    (pa, pb): (manetlab::scenario::Profile, manetlab::scenario::Profile),
    seeds: &[u64],
    orders: usize,
    dir: &std::path::Path,
) -> i32 {
    let ex = match manetlab::exec::explain_groups::explain_groups(file, set, pa, pb, seeds, orders) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if let Err(e) = ex.write(dir) {
        eprintln!("error: writing {}: {e}", dir.display());
        return 1;
    }
    let pm = |v: manetlab::exec::explain_groups::Value| match (v.mean, v.ci95) {
        (Some(x), Some(c)) => format!("{x:+.1} ± {c:.1}"),
        (Some(x), None) => format!("{x:+.1}"),
        _ => "-".into(),
    };
    let pct = |x: Option<f64>| x.map_or("-".into(), |x| format!("{:.0}%", x * 100.0));
    for (f, name) in ex.flow_names.iter().enumerate() {
        println!(
            "{name}: goodput {pa} {} kbit/s, {pb} {} kbit/s, difference {}; attributed to named groups: {} \
             (seed noise: {}); {} configurations x {} seeds",
            pm(ex.base(false, f, 0)),
            pm(ex.base(true, f, 0)),
            pm(ex.total(f, 0)),
            pct(ex.attributed(f, 0)),
            pct(ex.seed_noise(f, 0)),
            ex.configurations(),
            seeds.len()
        );
        for (k, g) in ex.groups.iter().enumerate() {
            println!("  {:<20} {:>18} kbit/s (exact)", g.name, pm(ex.group_value(k, f, 0)));
            if g.rows.len() > 1 {
                for (i, row) in g.rows.iter().enumerate() {
                    let how = if g.exact { "exact" } else { "sampled" };
                    println!("    {:<18} {:>18} kbit/s ({how})", row, pm(ex.row_value(k, i, f, 0)));
                }
            }
        }
    }
    println!("wrote {}", dir.join("groups.md").display());
    0
}

/// The sweep axes of a scenario and `--sweep` arguments; exit 2 on error.
fn sweep_axes(scenario: &Scenario, args: &[String]) -> Result<manetlab::scenario::sweep::SweepSpec, i32> {
    let mut cli_axes = Vec::new();
    for a in args {
        match manetlab::scenario::sweep::SweepAxis::parse(a) {
            Ok(ax) => cli_axes.push(ax),
            Err(e) => {
                eprintln!("error: {e}");
                return Err(2);
            }
        }
    }
    scenario.sweep.merge(&cli_axes).map_err(|e| {
        eprintln!("error: {e}");
        2
    })
}

fn plan(args: PlanArgs) -> i32 {
    let scenario = match load(&args.file, &args.set) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let shard = match args.shard.as_deref().map(manetlab::exec::sweep::Shard::parse).transpose() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let axes = match sweep_axes(&scenario, &args.sweep) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let plan = match sweep::make_plan(&args.file, &args.set, args.seed, args.runs, &scenario, axes) {
        Ok(p) => p,
        Err(code) => return code,
    };
    match sweep::print_plan(&plan, &scenario.name, shard) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e:#}");
            1
        }
    }
}

fn check(file: PathBuf, set: Vec<String>) -> i32 {
    let s = match load(&file, &set) {
        Ok(s) => s,
        Err(code) => return code,
    };
    // Every sweep point must load too (D12: check ok, run exit 2).
    let points = match s.sweep.check(|point| {
        let mut all = set.clone();
        all.extend(point.iter().cloned());
        Scenario::load(&file, &all)
    }) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let cfg = s.config(s.seed());
    println!(
        "{}: ok ({} nodes, {} flows, {} s, {} replication{}; profile {})",
        file.display(),
        cfg.nodes.len(),
        cfg.flows.len(),
        cfg.duration.as_secs_f64(),
        s.replications,
        if s.replications == 1 { "" } else { "s" },
        s.profile
    );
    for w in &s.warnings {
        eprintln!("warning: {}: {w}", file.display());
    }
    if !s.sweep.is_empty() {
        println!("sweep: {points} point{} (each point checked)", if points == 1 { "" } else { "s" });
    }
    let phys = manetlab::scenario::physics::Physics::of(&cfg);
    print!("{phys}");
    println!("flows (seed {}):", s.seed());
    for (f, hops) in cfg.flows.iter().zip(&phys.connectivity.flow_hops) {
        let path = match hops {
            Some(h) => format!("{h} hop{}", if *h == 1 { "" } else { "s" }),
            None => "no path at t = 0".to_string(),
        };
        println!(
            "  {:<10} {:<4} {:>4} -> {:<4} start {:>10.3} s  {path}",
            f.name,
            f.traffic.kind(),
            f.src,
            f.dst,
            f.start.as_secs_f64()
        );
    }
    0
}

fn run(mut args: RunArgs) -> i32 {
    // The output flags are scenario keys: they reach every replication and
    // sweep point, the resolved scenario and the sweep fingerprint.
    if let Some(iv) = &args.interval {
        args.set.push(format!("output.interval={iv}"));
    }
    if args.path_profile {
        args.set.push("output.path_profile=true".into());
    }
    let scenario = match load(&args.file, &args.set) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if scenario.node_count() >= HUGE_PAGE_NODES {
        reexec_with_huge_pages();
    }
    let axes = match sweep_axes(&scenario, &args.sweep) {
        Ok(a) => a,
        Err(code) => return code,
    };
    if !axes.is_empty() || args.resume || args.shard.is_some() {
        let dir = output_dir(&scenario, &args);
        return match sweep::run_sweep(&args, &scenario, axes, &dir) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("error: {e:#}");
                1
            }
        };
    }
    match run_loaded(&scenario, &args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            failure_code(&e)
        }
    }
}

/// From this many nodes a run asks for transparent huge pages (below).
/// 1,000: the mrc family's heap (~30 MB at 1,000 nodes, ~55 MB at 2,000)
/// outgrows what the TLB covers with 4 KiB pages; huge pages cut its CPU
/// time by 12-18 % there, 2 % at 400 nodes (docs/performance.md, "fourth
/// sitting").
const HUGE_PAGE_NODES: usize = 1_000;

/// Large networks (10^3-10^6 nodes: tens of megabytes to gigabytes of node
/// state touched at random by the channel) spend much of each event in TLB
/// misses on 4 KiB pages. Where the kernel's transparent huge pages are `madvise`-only (the
/// common default), glibc backs the heap with 2 MiB pages when started with
/// `GLIBC_TUNABLES=glibc.malloc.hugetlb=1` (glibc 2.35+): the process
/// re-executes itself once with it. Only the memory layout changes, never a
/// result (docs/performance.md, "Large networks"). Skipped when
/// `GLIBC_TUNABLES` is already set or `MANETLAB_HUGE_PAGES=0`.
fn reexec_with_huge_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::os::unix::process::CommandExt;
        if std::env::var_os("GLIBC_TUNABLES").is_some()
            || std::env::var_os("MANETLAB_HUGE_PAGES").is_some_and(|v| v == "0")
        {
            return;
        }
        let Ok(exe) = std::env::current_exe() else { return };
        let mut args = std::env::args_os();
        let Some(arg0) = args.next() else { return };
        // exec only returns on failure: then carry on without huge pages.
        let _ = std::process::Command::new(exe)
            .arg0(arg0)
            .args(args)
            .env("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1")
            .exec();
    }
}

/// Most replications one command runs: every replication's report is kept
/// for summary.json, so memory grows with them (docs/reliability.md).
pub(crate) const MAX_RUNS: u32 = 10_000;

/// An input error found before anything ran: exit status 2.
#[derive(Debug)]
pub(crate) struct InputError(pub String);
impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for InputError {}

/// The seeds of `--runs`/`--seed`: refuses 0 runs, more than [`MAX_RUNS`],
/// and seeds that would pass the largest u64.
pub(crate) fn replication_seeds(first: u64, runs: u32) -> Result<Vec<u64>, InputError> {
    if runs == 0 {
        return Err(InputError("--runs / run.replications must be at least 1".into()));
    }
    if runs > MAX_RUNS {
        return Err(InputError(format!(
            "{runs} replications: at most {MAX_RUNS} run in one command (each keeps its report in memory); \
             split them with --seed"
        )));
    }
    if first.checked_add(runs as u64 - 1).is_none() {
        return Err(InputError(format!(
            "--seed {first} with {runs} replications passes the largest seed ({}); seeds would wrap",
            u64::MAX
        )));
    }
    Ok((0..runs as u64).map(|i| first + i).collect())
}

/// Creates the output folder before anything is simulated, so a bad
/// `--out` costs nothing.
pub(crate) fn prepare_out(dir: &std::path::Path) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(InputError(format!("output folder {} exists and is not a folder", dir.display())).into());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(())
}

/// Exit status of a failed command: 2 for input errors, 1 otherwise.
fn failure_code(e: &anyhow::Error) -> i32 {
    if e.downcast_ref::<InputError>().is_some() {
        2
    } else {
        1
    }
}

fn run_loaded(scenario: &Scenario, args: &RunArgs) -> Result<i32> {
    let file = &args.file;
    warn_if_no_flows(scenario, file);
    let first_seed = args.seed.unwrap_or(scenario.seed());
    let reps = args.runs.unwrap_or(scenario.replications);
    let seeds = replication_seeds(first_seed, reps)?;
    let trace_opts = match &args.trace {
        Some(t) => parse_trace_flag(t).map_err(|e| InputError(e.to_string()))?,
        None => scenario.trace,
    };
    let first_cfg = scenario.config(seeds[0]);
    let link_view = match &args.link_view {
        Some(l) => parse_link_view(l, &first_cfg).map_err(|e| InputError(e.to_string()))?,
        None => Vec::new(),
    };
    let dir = output_dir(scenario, args);
    prepare_out(&dir)?;
    // Replications are built when they start (lazily), so memory holds the
    // runs in progress and the finished reports, not every run at once.
    let mut first = Some(first_cfg);
    let mut configs = Vec::with_capacity(seeds.len());
    for &seed in &seeds {
        configs.push(if seed == seeds[0] { first.take() } else { None });
    }
    let views: std::sync::Mutex<Option<_>> = std::sync::Mutex::new(None);
    let build = |k: usize, seed: u64, cfg: Option<manetlab::config::SimConfig>| -> Result<Simulation> {
        let mut cfg = cfg.unwrap_or_else(|| scenario.config(seed));
        if k == 0 {
            for (i, f) in cfg.flows.iter_mut().enumerate() {
                if args.tcp_trace || link_view.contains(&(i as u32)) {
                    if let manetlab::config::Traffic::Tcp { tcp, .. } = &mut f.traffic {
                        tcp.record_series = true;
                        tcp.record_seq_log = true;
                    }
                }
            }
        }
        let mut sim = Simulation::new(cfg).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        let mut sink = None;
        if !trace_opts.is_off() {
            let tdir = if seeds.len() > 1 { dir.join(format!("seed-{}", sim.config().seed)) } else { dir.clone() };
            let positions = sim.config().nodes.clone();
            sink = manetlab::metrics::trace::open(&tdir, &trace_opts, &positions)
                .with_context(|| format!("opening trace files in {}", tdir.display()))?;
        }
        if k == 0 && (args.viz || scenario.viz) {
            let opts = scenario.viz_options;
            let (rec, _) = manetlab::metrics::viz::VizRecorder::new(sim.config(), &scenario.name, opts);
            let rec: Box<dyn manetlab::metrics::trace::TraceSink> = Box::new(rec.write_to(dir.clone()));
            sink = Some(match sink {
                Some(next) => Box::new(manetlab::metrics::trace::Tee(vec![rec, next])),
                None => rec,
            });
        }
        if k == 0 && !link_view.is_empty() {
            let (lv, handle) = manetlab::metrics::linkview::LinkViewSink::for_flows(sim.config(), &link_view);
            *views.lock().unwrap() = Some(handle);
            sink = Some(Box::new(match sink {
                Some(next) => lv.chain(next),
                None => lv,
            }));
        }
        if let Some(sink) = sink {
            sim.set_tracer(sink);
        }
        Ok(sim)
    };

    // SIGINT / SIGTERM: stop every replication at its next slice, write
    // the outputs for the simulated time so far, exit 130. A second signal
    // exits at once.
    signals::install();
    let duration = scenario.duration();
    let total_ns: u64 = duration.as_ns().saturating_mul(seeds.len() as u64);
    let bar = progress::Meter::simulated(total_ns, args.quiet);
    let done = AtomicU64::new(0);
    let started = Instant::now();
    // Slices of at most 100 ms simulated: a signal is seen within one slice.
    let slice = Time::from_ms(100).max(Time(duration.as_ns() / 100_000));
    let run_one = |(k, (seed, cfg)): (usize, (u64, Option<manetlab::config::SimConfig>))| -> Result<_> {
        let mut sim = build(k, seed, cfg)?;
        let mut last = Time::ZERO;
        let mut t = Time::ZERO;
        while t < duration {
            if STOP.load(Ordering::Relaxed) {
                sim.end_now();
                break;
            }
            t = (t + slice).min(duration);
            sim.run_until(t);
            let now = sim.now();
            let d = done.fetch_add((now - last).as_ns(), Ordering::Relaxed) + (now - last).as_ns();
            last = now;
            if started.elapsed() > Duration::from_secs(2) {
                bar.set_position(d);
            }
        }
        let traces = if (args.tcp_trace || !link_view.is_empty()) && k == 0 {
            (0..sim.config().flows.len()).map(|i| sim.tcp_trace(i)).collect()
        } else {
            Vec::new()
        };
        Ok((sim.finish(), traces))
    };
    // One replication runs on this thread (no pool to start); several run
    // in parallel. Results are in seed order either way.
    let jobs = seeds.iter().copied().zip(configs).enumerate();
    let results: Vec<(Report, Vec<Option<TcpTrace>>)> = if seeds.len() == 1 {
        jobs.map(run_one).collect::<Result<_>>()?
    } else {
        jobs.collect::<Vec<_>>().into_par_iter().map(run_one).collect::<Result<_>>()?
    };
    let interrupted = STOP.load(Ordering::SeqCst);
    bar.finish_and_clear();
    let wall = started.elapsed().as_secs_f64();
    let (mut reports, traces): (Vec<Report>, Vec<Vec<Option<TcpTrace>>>) = results.into_iter().unzip();
    // Building a chain table takes 6-50 s the first time per setting: a
    // bar on a terminal, nothing in batch jobs or under --quiet.
    let chain_bar = progress::Meter::runs(args.quiet || !std::io::IsTerminal::is_terminal(&std::io::stderr()));
    manetlab::exec::add_expected_throughput_with(scenario, &mut reports, args.quiet, &|done, total| {
        chain_bar.set_length(total as u64);
        chain_bar.set_position(done as u64);
    });
    chain_bar.finish_and_clear();

    output::write_run(&dir, &scenario.name, &seeds, &reports)?;
    let resolved = dir.join("scenario.resolved.toml");
    manetlab::output::table::write_atomic(
        &resolved,
        manetlab::output::manifest::resolved_toml(scenario, &seeds).as_bytes(),
    )
    .with_context(|| format!("writing {}", resolved.display()))?;
    let mut manifest = manetlab::output::manifest::Manifest::new("run", &scenario.name, &seeds);
    manifest.runs = reports.len() as u64;
    manifest.events = Some(reports.iter().map(|r| r.events).sum());
    manifest.wall_time_s = started.elapsed().as_secs_f64();
    manifest.interrupted = interrupted;
    manifest.write(&dir).with_context(|| format!("writing manifest.json in {}", dir.display()))?;
    let mut traced = if args.tcp_trace || !link_view.is_empty() {
        output::write_tcp_traces(&dir, &reports[0], &traces[0])?
    } else {
        Vec::new()
    };
    if let Some(v) = views.into_inner().unwrap_or_default() {
        let v = v.lock().map(|v| v.clone()).unwrap_or_default();
        traced.extend(output::write_link_views(&dir, &reports[0], &v)?);
    }
    traced.extend(output::write_path_profiles(&dir, &reports[0])?);
    if !args.quiet {
        output::print_table(&scenario.name, &seeds, &reports);
        let events: u64 = reports.iter().map(|r| r.events).sum();
        println!(
            "\n{} events in {:.3} s wall ({:.2} M events/s); results in {}",
            events,
            wall,
            events as f64 / wall.max(1e-9) / 1e6,
            dir.display()
        );
        for f in traced {
            println!("wrote {}", f.display());
        }
        if args.viz || scenario.viz {
            println!("wrote {}", dir.join(manetlab::metrics::viz::HTML_FILE_NAME).display());
        }
        for r in &reports {
            if !r.audit.balances() {
                eprintln!("warning: seed {}: packet audit does not balance: {:?}", r.seed, r.audit);
            }
        }
    }
    if interrupted {
        eprintln!(
            "interrupted: wrote the results of the simulated time so far ({} s) to {} (manifest.json says \"interrupted\": true)",
            reports.first().map_or(0.0, |r| r.duration_s),
            dir.display()
        );
        return Ok(130);
    }
    Ok(0)
}

fn movement(file: PathBuf, seed: Option<u64>, set: Vec<String>, out: Option<PathBuf>) -> i32 {
    let s = match load(&file, &set) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let cfg = s.config(seed.unwrap_or(s.seed()));
    // Streamed leg by leg: memory does not grow with the run's duration.
    let trajs = cfg.mobility.trajectories(&cfg.nodes);
    let write = |w: &mut dyn std::io::Write| {
        let mut w = std::io::BufWriter::new(w);
        manetlab::mobility::ns2::write_to(&trajs, &mut w)?;
        std::io::Write::flush(&mut w)
    };
    match out {
        Some(p) => match std::fs::File::create(&p).and_then(|mut f| write(&mut f)) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("error: writing {}: {e}", p.display());
                1
            }
        },
        None => match write(&mut std::io::stdout().lock()) {
            Ok(()) => 0,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
            Err(e) => {
                eprintln!("error: writing the movement file: {e}");
                1
            }
        },
    }
}

struct StudyArgs {
    runs: Option<u32>,
    quick: bool,
    seed: u64,
    out: Option<PathBuf>,
    resume: bool,
    strict: bool,
    style: manetlab::study::FigureStyle,
}

/// The exit status of a study that ran: 0, or with `--strict` 1 when any
/// check does not reproduce.
fn study_exit(checks: &[manetlab::study::Check], strict: bool) -> i32 {
    i32::from(strict && checks.iter().any(|c| !c.passed))
}

fn study(name: Option<String>, list: bool, a: StudyArgs) -> i32 {
    use manetlab::study::{StudyError, StudyOptions};
    let Some(name) = name.filter(|_| !list) else {
        println!("studies:");
        for s in manetlab_studies::list() {
            println!("  {:<10} {} ({})", s.name, s.about, s.paper);
        }
        return if list { 0 } else { 2 };
    };
    // The name becomes a folder: check it before anything is created.
    if !manetlab_studies::list().iter().any(|s| s.name == name) {
        let known: Vec<&str> = manetlab_studies::list().iter().map(|s| s.name).collect();
        eprintln!("error: unknown study {name:?}; the studies are: {}", known.join(", "));
        return 2;
    }
    let out = a.out.unwrap_or_else(|| PathBuf::from("out").join(format!("study-{name}")));
    let opts =
        StudyOptions { runs: a.runs, quick: a.quick, out: out.clone(), seed: a.seed, resume: a.resume, style: a.style };
    let bar = runs_bar(false);
    let started = Instant::now();
    let res = manetlab_studies::run(&name, &opts, &|done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    match res {
        Ok(r) => {
            // The study's manifest: seeds holds the first seed (each point
            // uses seed, seed + 1, ...; see report.md).
            let mut m = manetlab::output::manifest::Manifest::new("study", &name, &[a.seed]);
            m.runs = r.runs as u64;
            m.wall_time_s = started.elapsed().as_secs_f64();
            if let Err(e) = m.write(&out) {
                eprintln!("warning: writing {}: {e}", out.join("manifest.json").display());
            }
            println!("{}", r.markdown);
            println!(
                "{} runs in {:.1} s; report: {}",
                r.runs,
                started.elapsed().as_secs_f64(),
                out.join("report.md").display()
            );
            println!("{}", r.summary());
            study_exit(&r.checks, a.strict)
        }
        Err(e @ StudyError::Unknown(..)) => {
            eprintln!("error: {e}");
            2
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

/// A scenario without flows runs (routing, MAC and radio counters are
/// still reported) but measures no traffic: say so rather than run
/// silently. Also prints the scenario's warnings (random waypoint with a
/// minimum speed of 0, no warm-up).
pub(crate) fn warn_if_no_flows(scenario: &Scenario, file: &std::path::Path) {
    for w in &scenario.warnings {
        eprintln!("warning: {}: {w}", file.display());
    }
    if scenario.flow_count() == 0 {
        eprintln!("warning: {}: the scenario has no [[flow]]: no traffic will be measured", file.display());
    }
}

/// `--trace ns2,pcap,per-node` as trace options.
fn parse_trace_flag(s: &str) -> Result<manetlab::metrics::trace::TraceOptions> {
    use manetlab::metrics::trace::{Ns2Format, PcapMode, TraceOptions};
    let mut o = TraceOptions::default();
    for w in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        match w.to_ascii_lowercase().as_str() {
            "ns2" | "ns2-new" => o.ns2 = Some(Ns2Format::New),
            "ns2-old" => o.ns2 = Some(Ns2Format::Old),
            "pcap" => o.pcap = Some(o.pcap.unwrap_or(PcapMode::Merged)),
            "per-node" => o.pcap = Some(PcapMode::PerNode),
            "merged" => o.pcap = Some(PcapMode::Merged),
            other => anyhow::bail!("--trace: unknown format {other:?}; expected ns2, ns2-old, pcap, per-node, merged"),
        }
    }
    Ok(o)
}

/// `--link-view 0,tcp 3->0` / `all` as flow indices (a name or an index
/// per item).
fn parse_link_view(s: &str, cfg: &manetlab::config::SimConfig) -> Result<Vec<u32>> {
    if s.trim().eq_ignore_ascii_case("all") {
        return Ok((0..cfg.flows.len() as u32).collect());
    }
    let mut out = Vec::new();
    for w in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        let i = match cfg.flows.iter().position(|f| f.name == w) {
            Some(i) => i,
            None => match w.parse::<usize>() {
                Ok(i) if i < cfg.flows.len() => i,
                _ => anyhow::bail!(
                    "--link-view: no flow {w:?}; the scenario has flows 0..{} ({})",
                    cfg.flows.len(),
                    cfg.flows.iter().map(|f| format!("{:?}", f.name)).collect::<Vec<_>>().join(", ")
                ),
            },
        };
        if !out.contains(&(i as u32)) {
            out.push(i as u32);
        }
    }
    anyhow::ensure!(!out.is_empty(), "--link-view: no flow given");
    Ok(out)
}

/// `--out`, else `[output] dir`, else `out/<scenario file stem>`.
fn output_dir(scenario: &Scenario, args: &RunArgs) -> PathBuf {
    args.out
        .clone()
        .or_else(|| scenario.output_dir.clone())
        .unwrap_or_else(|| PathBuf::from("out").join(args.file.file_stem().unwrap_or_default()))
}

/// A meter over runs (studies, sweeps): a bar on a terminal, else a plain
/// line every few seconds.
pub(crate) fn runs_bar(quiet: bool) -> progress::Meter {
    progress::Meter::runs(quiet)
}
