//! `manetlab`: run scenario files and paper reproductions.
//!
//! A thin front end: parsing, validation and simulation live in the library;
//! this crate turns them into commands, tables, files and progress bars.

mod output;
mod progress;
mod sweep;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use manetlab::scenario::Scenario;
use manetlab::sim::Time;
use manetlab::transport::tcp::TcpTrace;
use manetlab::{Report, Simulation};
use rayon::prelude::*;
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
    /// Sweep a key over values: KEY=V1,V2,... or KEY=FROM..TO:STEP, e.g.
    /// --sweep flow.0.interval=10ms..50ms:10ms (repeatable: the cartesian
    /// product is run; adds to or replaces the file's [sweep] table).
    #[arg(long = "sweep", value_name = "KEY=VALUES")]
    sweep: Vec<String>,
    /// Reuse the runs an interrupted sweep already finished (<out>/runs/).
    #[arg(long)]
    resume: bool,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario file: prints a per-flow table, writes summary.json and flows.csv.
    Run(RunArgs),
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
        /// Orders the choices are switched in for the Shapley values.
        #[arg(long, default_value_t = 8)]
        orders: usize,
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
    let code = match cli.cmd {
        Cmd::Run(args) => run(args),
        Cmd::Check { file, set } => check(file, set),
        Cmd::Movement { file, seed, set, out } => movement(file, seed, set, out),
        Cmd::Explain { file, profile, vs, runs, seed, pairs, orders, set, out } => {
            explain(file, &profile, &vs, runs, seed, (pairs, orders), set, out)
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

fn check(file: PathBuf, set: Vec<String>) -> i32 {
    match load(&file, &set) {
        Ok(s) => {
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
            0
        }
        Err(code) => code,
    }
}

#[allow(clippy::too_many_arguments)]
fn explain(
    file: PathBuf,
    a: &str,
    b: &str,
    runs: u32,
    seed: Option<u64>,
    (pairs, orders): (usize, usize),
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

fn run(args: RunArgs) -> i32 {
    let scenario = match load(&args.file, &args.set) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let mut cli_axes = Vec::new();
    for a in &args.sweep {
        match manetlab::scenario::sweep::SweepAxis::parse(a) {
            Ok(ax) => cli_axes.push(ax),
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        }
    }
    let axes = manetlab::scenario::sweep::merge(&scenario.sweep, &cli_axes);
    if !axes.is_empty() || args.resume {
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
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e:#}");
            1
        }
    }
}

fn run_loaded(scenario: &Scenario, args: &RunArgs) -> Result<()> {
    let file = &args.file;
    warn_if_no_flows(scenario, file);
    let first_seed = args.seed.unwrap_or(scenario.seed());
    let reps = args.runs.unwrap_or(scenario.replications).max(1);
    let seeds: Vec<u64> = (0..reps as u64).map(|i| first_seed + i).collect();
    let mut configs: Vec<_> = seeds.iter().map(|&s| scenario.config(s)).collect();
    let link_view = match &args.link_view {
        Some(l) => parse_link_view(l, &configs[0])?,
        None => Vec::new(),
    };
    for (i, f) in configs[0].flows.iter_mut().enumerate() {
        if args.tcp_trace || link_view.contains(&(i as u32)) {
            if let manetlab::config::Traffic::Tcp { tcp, .. } = &mut f.traffic {
                tcp.record_series = true;
                tcp.record_seq_log = true;
            }
        }
    }
    let dir = output_dir(scenario, args);
    let trace_opts = match &args.trace {
        Some(t) => parse_trace_flag(t)?,
        None => scenario.trace,
    };
    // Validate every replication before spending time on any.
    let mut sims: Vec<Simulation> = configs
        .into_iter()
        .map(|c| Simulation::new(c).map_err(|e| anyhow::anyhow!("{}: {e}", file.display())))
        .collect::<Result<_>>()?;
    let mut views = None;
    for (k, sim) in sims.iter_mut().enumerate() {
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
            views = Some(handle);
            sink = Some(Box::new(match sink {
                Some(next) => lv.chain(next),
                None => lv,
            }));
        }
        if let Some(sink) = sink {
            sim.set_tracer(sink);
        }
    }

    let total_ns: u64 = sims.iter().map(|s| s.config().duration.as_ns()).sum();
    let bar = progress::Meter::simulated(total_ns, args.quiet);
    let done = AtomicU64::new(0);
    let started = Instant::now();
    let run_one = |(k, mut sim): (usize, Simulation)| {
        let mut last = Time::ZERO;
        sim.run_in_steps(100, |now, _| {
            let d = done.fetch_add((now - last).as_ns(), Ordering::Relaxed) + (now - last).as_ns();
            last = now;
            if started.elapsed() > Duration::from_secs(2) {
                bar.set_position(d);
            }
        });
        let traces = if (args.tcp_trace || !link_view.is_empty()) && k == 0 {
            (0..sim.config().flows.len()).map(|i| sim.tcp_trace(i)).collect()
        } else {
            Vec::new()
        };
        (sim.finish(), traces)
    };
    // One replication runs on this thread (no pool to start); several run
    // in parallel. Results are in seed order either way.
    let results: Vec<(Report, Vec<Option<TcpTrace>>)> = if sims.len() == 1 {
        sims.into_iter().enumerate().map(run_one).collect()
    } else {
        sims.into_par_iter().enumerate().map(run_one).collect()
    };
    bar.finish_and_clear();
    let wall = started.elapsed().as_secs_f64();
    let (mut reports, traces): (Vec<Report>, Vec<Vec<Option<TcpTrace>>>) = results.into_iter().unzip();
    manetlab::exec::add_expected_throughput(scenario, &mut reports, args.quiet);

    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
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
    manifest.write(&dir).with_context(|| format!("writing manifest.json in {}", dir.display()))?;
    let mut traced = if args.tcp_trace || !link_view.is_empty() {
        output::write_tcp_traces(&dir, &reports[0], &traces[0])?
    } else {
        Vec::new()
    };
    if let Some(v) = views {
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
    Ok(())
}

fn movement(file: PathBuf, seed: Option<u64>, set: Vec<String>, out: Option<PathBuf>) -> i32 {
    let s = match load(&file, &set) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let cfg = s.config(seed.unwrap_or(s.seed()));
    let text = manetlab::mobility::ns2::write(&cfg.mobility.trajectories(&cfg.nodes));
    match out {
        Some(p) => match std::fs::write(&p, text) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("error: writing {}: {e}", p.display());
                1
            }
        },
        None => {
            print!("{text}");
            0
        }
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
/// still reported) but measures no traffic: say so rather than run silently.
pub(crate) fn warn_if_no_flows(scenario: &Scenario, file: &std::path::Path) {
    if scenario.config(scenario.seed()).flows.is_empty() {
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
