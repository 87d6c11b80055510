//! `manetlab run FILE --sweep key=values [--resume]`: a scenario run at every
//! point of a parameter grid times its replications, in parallel, each
//! finished run stored at once under `<out>/runs/` so an interrupted sweep
//! resumes where it stopped.

use crate::RunArgs;
use anyhow::{bail, Context, Result};
use manetlab::metrics::FlowReport;
use manetlab::scenario::sweep::{label, points, SweepAxis};
use manetlab::scenario::Scenario;
use manetlab::study::sweep::{self, Aggregate, Job, SweepOptions};
use manetlab::study::{Figure, Series};
use manetlab::Report;
use serde_json::json;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

/// The metrics aggregated per point and flow: (column name, getter).
type Metric = (&'static str, fn(&FlowReport) -> f64);
const METRICS: [Metric; 6] = [
    ("goodput_bps", |f| f.goodput_bps),
    ("delivery_ratio", |f| f.delivery_ratio),
    ("delay_mean_s", |f| f.delay_mean_s),
    ("delay_p95_s", |f| f.delay_p95_s),
    ("jitter_s", |f| f.jitter_s),
    ("offered_bps", |f| f.offered_bps),
];

pub fn run_sweep(args: &RunArgs, base: &Scenario, axes: Vec<SweepAxis>, dir: &Path) -> Result<i32> {
    if args.tcp_trace || args.trace.is_some() || args.link_view.is_some() || args.viz {
        bail!(
            "--tcp-trace, --trace, --link-view and --viz record one run; with a sweep, run the point of interest alone with --set"
        );
    }
    let pts = points(&axes);
    let first_seed = args.seed.unwrap_or(base.seed());
    let reps = args.runs.unwrap_or(base.replications).max(1);
    // Load and check every point before running any.
    let mut jobs = Vec::new();
    for p in &pts {
        let mut set = args.set.clone();
        set.extend(p.iter().map(|(k, v)| format!("{k}={v}")));
        let sc = match Scenario::load(&args.file, &set) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: sweep point {}: {e}", label(p));
                return Ok(2);
            }
        };
        for s in 0..reps as u64 {
            let seed = first_seed + s;
            let key = if p.is_empty() { format!("seed={seed}") } else { format!("{}/seed={seed}", label(p)) };
            let cfg = sc.config(seed);
            manetlab::Simulation::new(cfg.clone()).with_context(|| format!("{}: {key}", args.file.display()))?;
            jobs.push(Job::new(key, cfg));
        }
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    if !args.quiet {
        eprintln!(
            "sweep: {} point{} x {} replication{} = {} runs{}",
            pts.len(),
            if pts.len() == 1 { "" } else { "s" },
            reps,
            if reps == 1 { "" } else { "s" },
            jobs.len(),
            if args.resume { " (resuming finished runs from runs/)" } else { "" }
        );
    }
    let bar = crate::runs_bar(args.quiet);
    let started = Instant::now();
    let opts = SweepOptions {
        dir: Some(dir.join("runs")),
        resume: args.resume,
        progress: &|done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        },
    };
    let reports = sweep::run_reports(&jobs, &opts)?;
    bar.finish_and_clear();
    let wall = started.elapsed().as_secs_f64();
    write_outputs(dir, base, &axes, &pts, reps as usize, first_seed, &reports)?;
    if !args.quiet {
        print_table(&axes, &pts, reps as usize, &reports);
        println!("\n{} runs in {wall:.1} s; results in {}", jobs.len(), dir.display());
    }
    Ok(0)
}

fn write_outputs(
    dir: &Path,
    base: &Scenario,
    axes: &[SweepAxis],
    pts: &[Vec<(String, String)>],
    reps: usize,
    first_seed: u64,
    reports: &[Report],
) -> Result<()> {
    let keys: Vec<&str> = axes.iter().map(|a| a.key.as_str()).collect();
    // Every run, every flow.
    let mut runs = keys.join(",");
    if !runs.is_empty() {
        runs.push(',');
    }
    runs += "seed,flow,kind,src,dst,sent_packets,received_packets";
    for (m, _) in METRICS {
        runs += &format!(",{m}");
    }
    runs.push('\n');
    // Aggregates per point and flow.
    let mut agg = keys.join(",");
    if !agg.is_empty() {
        agg.push(',');
    }
    agg += "flow,n";
    for (m, _) in METRICS {
        agg += &format!(",{m}_mean,{m}_sd,{m}_ci95");
    }
    agg.push('\n');
    let mut json_points = Vec::new();
    for (pi, p) in pts.iter().enumerate() {
        let rs = &reports[pi * reps..(pi + 1) * reps];
        let vals: String = p.iter().map(|(_, v)| format!("{},", v.replace(',', ";"))).collect();
        for (k, r) in rs.iter().enumerate() {
            for f in &r.flows {
                let _ = write!(
                    runs,
                    "{vals}{},{},{},{},{},{},{}",
                    first_seed + k as u64,
                    f.name,
                    f.kind,
                    f.src,
                    f.dst,
                    f.sent_packets,
                    f.received_packets
                );
                for (_, g) in METRICS {
                    let _ = write!(runs, ",{}", g(f));
                }
                runs.push('\n');
            }
        }
        let mut flows_json = Vec::new();
        for (i, f) in rs[0].flows.iter().enumerate() {
            let _ = write!(agg, "{vals}{},{}", f.name, rs.len());
            let mut fj = serde_json::Map::new();
            fj.insert("flow".into(), json!(f.name));
            for (m, g) in METRICS {
                let a = Aggregate::of(rs.iter().map(|r| g(&r.flows[i])));
                let _ = write!(agg, ",{},{},{}", a.mean, a.sd, a.ci95);
                fj.insert(m.into(), json!(a));
            }
            agg.push('\n');
            flows_json.push(serde_json::Value::Object(fj));
        }
        json_points.push(json!({
            "point": p.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
            "seeds": (0..reps as u64).map(|k| first_seed + k).collect::<Vec<_>>(),
            "flows": flows_json,
        }));
    }
    atomic_write(&dir.join("sweep-runs.csv"), &runs)?;
    atomic_write(&dir.join("sweep.csv"), &agg)?;
    let summary = json!({
        "scenario": base.name,
        "axes": axes.iter().map(|a| json!({"key": a.key, "values": a.values})).collect::<Vec<_>>(),
        "replications": reps,
        "points": json_points,
    });
    atomic_write(&dir.join("sweep.json"), &(serde_json::to_string_pretty(&summary)? + "\n"))?;
    // One numeric axis: goodput (mean ± CI) against it, one line per flow.
    if axes.len() == 1 {
        let xs: Vec<Option<f64>> = pts.iter().map(|p| leading_number(&p[0].1)).collect();
        if xs.iter().all(Option::is_some) && !reports.is_empty() {
            let series = reports[0]
                .flows
                .iter()
                .enumerate()
                .map(|(i, f)| Series {
                    name: f.name.clone(),
                    points: xs
                        .iter()
                        .enumerate()
                        .map(|(pi, x)| {
                            let a = Aggregate::of(
                                reports[pi * reps..(pi + 1) * reps].iter().map(|r| r.flows[i].goodput_bps / 1e3),
                            );
                            (x.unwrap(), a.mean, (reps > 1).then_some(a.ci95))
                        })
                        .collect(),
                    scatter: false,
                })
                .collect();
            let fig = Figure {
                file_stem: "sweep-goodput".into(),
                title: format!("{}: goodput vs {}", base.name, axes[0].key),
                x_label: axes[0].key.clone(),
                y_label: "goodput (kbit/s)".into(),
                series,
                steps: false,
            };
            fig.write(dir, &mut Vec::new())?;
        }
    }
    Ok(())
}

fn leading_number(s: &str) -> Option<f64> {
    let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).unwrap_or(s.len());
    s[..end].parse().ok()
}

fn atomic_write(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

fn print_table(axes: &[SweepAxis], pts: &[Vec<(String, String)>], reps: usize, reports: &[Report]) {
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
            let d = Aggregate::of(rs.iter().map(|r| r.flows[i].delay_mean_s * 1e3));
            let pdr = Aggregate::of(rs.iter().map(|r| r.flows[i].delivery_ratio * 100.0));
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
