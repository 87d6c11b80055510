//! TFRC and TCP over AODV and DSR in a mobile network (tfrc-tcp-aodv-dsr.txt,
//! Zaini et al.): tables 2-7 (throughput, jitter, delay of the measured flow
//! at 5, 10, 15, 20 m/s) with the paper's numbers beside ours, and its
//! claims checked.
//!
//! The paper leaves most settings open; what we chose (also stated in the
//! report):
//! - 30 nodes placed uniformly in 1000 m x 1000 m, random waypoint with every
//!   leg at exactly the speed of the point (5/10/15/20 m/s) and 10 s pauses;
//!   802.11b DSSS at 2 Mbit/s, two-ray ground, 250 m range (ns-2 defaults),
//!   ARP as ns-2, interface queue 50 with routing packets first;
//! - the measured pair is nodes 0 -> 1 (random positions), from 5 s;
//! - TCP (NewReno, window 20, 100-byte segments) carries a CBR application
//!   writing 100 bytes every 80 ms (0.01 Mbit/s, the paper's Table 1);
//! - TFRC (RFC 5348, 100-byte packets) is greedy: the paper's TFRC
//!   throughputs (29-193 kbit/s) are far above 0.01 Mbit/s, so its TFRC was
//!   not held to the CBR rate (ns-2's TFRC agent sends at the allowed rate);
//! - background: 10 CBR/UDP flows, 100-byte packets at 0.01 Mbit/s, between
//!   the disjoint pairs (2,3), (4,5), ..., (20,21), starting at 1-10 s;
//! - metrics of the measured flow after a 5 s warm-up: throughput = payload
//!   delivered to the application per second of the flow; delay = mean
//!   one-way delay per packet (TCP: per segment delivered to the
//!   application); jitter = mean |delay difference| of consecutive packets.

use super::{sweep, write_file, Check, Figure, Progress, Series, StudyError, StudyOptions, StudyOutput};
use crate::config::{FlowConfig, SimConfig, Traffic};
use crate::scenario::Scenario;
use crate::sim::Time;
use crate::transport::tcp::{DataSource, TcpConfig};
use crate::transport::tfrc::TfrcConfig;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

pub const SPEEDS: [f64; 4] = [5.0, 10.0, 15.0, 20.0];
pub const PROTOCOLS: [&str; 2] = ["aodv", "dsr"];
pub const TRANSPORTS: [&str; 2] = ["tfrc", "tcp"];
const BACKGROUND: u32 = 10;
const PACKET: u32 = 100;
/// 100 bytes every 80 ms = 0.01 Mbit/s.
const CBR_INTERVAL_MS: u64 = 80;

#[derive(Deserialize)]
struct Published {
    source: String,
    table: Vec<PublishedTable>,
}

#[derive(Deserialize)]
struct PublishedTable {
    number: u32,
    title: String,
    transport: String,
    metric: String,
    unit: String,
    /// speed, AODV, DSR, difference %.
    rows: Vec<[f64; 4]>,
}

fn published() -> Published {
    toml::from_str(include_str!("../../data/published/zaini.toml")).expect("data/published/zaini.toml is valid")
}

/// What one run keeps: the measured flow's numbers.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Outcome {
    throughput_kbps: f64,
    /// `None` when the run delivered nothing (jitter: fewer than two).
    delay_ms: Option<f64>,
    jitter_ms: Option<f64>,
    delivered: u64,
    /// Background CBR delivery ratio (all flows together).
    background_delivery: f64,
}

/// The configuration of one run.
pub fn config(protocol: &str, transport: &str, speed: f64, seed: u64, duration_s: u64) -> SimConfig {
    let text = format!(
        "[run]\nduration = \"{duration_s}s\"\nwarmup = \"5s\"\n\n\
         [topology]\nkind = \"random\"\nnodes = 30\narea = [\"1000m\", \"1000m\"]\n\n\
         [mobility]\nmodel = \"random-waypoint\"\nspeed = [\"{speed}m/s\", \"{speed}m/s\"]\npause = \"10s\"\n\n\
         [mac]\nstandard = \"dsss\"\ndata_rate = \"2Mbps\"\nbasic_rate = \"2Mbps\"\n\n\
         [routing]\nprotocol = \"{protocol}\"\n\n[arp]\nmode = \"ns2\"\n"
    );
    let sc = Scenario::parse(&text, "zaini", &[] as &[&str]).expect("the zaini scenario is valid");
    let mut cfg = sc.config(seed);
    let start = Time::from_secs(5);
    let traffic = match transport {
        "tfrc" => Traffic::Tfrc { tfrc: TfrcConfig { packet_size: PACKET, ..TfrcConfig::default() }, rate_bps: None },
        _ => Traffic::Tcp {
            tcp: TcpConfig { mss: PACKET, record_series: false, record_seq_log: false, ..TcpConfig::default() },
            data: DataSource::Paced { bytes: PACKET, interval: Time::from_ms(CBR_INTERVAL_MS) },
        },
    };
    cfg.flows.push(FlowConfig { name: transport.into(), src: 0, dst: 1, traffic, start, stop: None });
    for i in 0..BACKGROUND {
        cfg.flows.push(FlowConfig {
            name: format!("cbr{i}"),
            src: 2 + 2 * i,
            dst: 3 + 2 * i,
            traffic: Traffic::Cbr { size: PACKET, interval: Time::from_ms(CBR_INTERVAL_MS), jitter: Time::ZERO },
            start: Time::from_secs(1 + i as u64),
            stop: None,
        });
    }
    cfg
}

fn diff_pct(a: f64, b: f64) -> f64 {
    if a.max(b) > 0.0 {
        (a - b).abs() / a.max(b) * 100.0
    } else {
        0.0
    }
}

pub fn run(opts: &StudyOptions, progress: Progress) -> Result<StudyOutput, StudyError> {
    let (duration_s, seeds) = if opts.quick { (60, 1) } else { (500, 10) };
    let seeds = opts.runs.map_or(seeds, |r| r as usize);
    let publ = published();
    let mut jobs = Vec::new();
    for t in TRANSPORTS {
        for p in PROTOCOLS {
            for v in SPEEDS {
                for k in 0..seeds {
                    let seed = opts.seed + k as u64;
                    jobs.push(sweep::Job::new(
                        format!("{t}/{p}/v={v}/seed={seed}/d={duration_s}"),
                        config(p, t, v, seed, duration_s),
                    ));
                }
            }
        }
    }
    let outcomes = sweep::run(&jobs, &opts.sweep_options(progress), |cfg| {
        let r = crate::Simulation::new(cfg.clone())?.run();
        let f = &r.flows[0];
        let bg = &r.flows[1..];
        let (sent, got) = bg.iter().fold((0u64, 0u64), |a, f| (a.0 + f.sent_packets, a.1 + f.received_packets));
        Ok(Outcome {
            throughput_kbps: f.goodput_bps / 1e3,
            delay_ms: f.delay_mean_s.map(|d| d * 1e3),
            jitter_ms: f.jitter_s.map(|j| j * 1e3),
            delivered: f.received_packets,
            background_delivery: if sent > 0 { got as f64 / sent as f64 } else { 0.0 },
        })
    })?;
    // outcomes[(t, p, v, k)]
    let at = |t: usize, p: usize, v: usize| -> &[Outcome] {
        let i = ((t * PROTOCOLS.len() + p) * SPEEDS.len() + v) * seeds;
        &outcomes[i..i + seeds]
    };
    let metric = |o: &Outcome, m: &str| match m {
        "throughput" => Some(o.throughput_kbps),
        "jitter" => o.jitter_ms,
        _ => o.delay_ms,
    };
    let agg = |t: usize, p: usize, v: usize, m: &str| {
        // Jitter and delay average over runs that delivered something.
        let runs = at(t, p, v).iter().filter(|o| m == "throughput" || o.delivered > 1);
        sweep::Aggregate::of(runs.filter_map(|o| metric(o, m)))
    };

    let mut md = String::new();
    let mut files = Vec::new();
    let mut checks = Vec::new();
    let _ = writeln!(md, "# TFRC and TCP over AODV and DSR (zaini)\n");
    let _ = writeln!(md, "Paper: {}.\n", publ.source);
    let _ = writeln!(
        md,
        "Ours: {seeds} seed(s) per point, {duration_s} s runs{}; mean ± 95 % confidence half-width over seeds. \
         Settings the paper leaves open and that we chose: 30 nodes uniform in 1000 m x 1000 m, random waypoint \
         with every leg at the point's speed and 10 s pauses, 802.11 DSSS 2 Mbit/s, 250 m range, ns-2 ARP, \
         IFQ 50. Measured pair 0 -> 1 from 5 s (warm-up 5 s). TCP (NewReno, window 20, 100-byte segments) carries \
         a CBR application of 100 bytes every 80 ms (0.01 Mbit/s); TFRC (RFC 5348, s = 100 bytes) is greedy \
         (the paper's TFRC throughputs are 3-19 times the CBR rate). Background: {BACKGROUND} CBR/UDP flows of \
         100-byte packets at 0.01 Mbit/s between the pairs (2,3) ... (20,21). Throughput = application payload \
         per second of the flow; delay = mean one-way delay per packet delivered to the application (TCP: per \
         segment, including the wait for earlier holes); jitter = mean |difference| of consecutive delays.\n",
        if opts.quick { " (quick mode: far too few for conclusions)" } else { "" }
    );
    let mut json_tables = Vec::new();
    for tab in &publ.table {
        let t = TRANSPORTS.iter().position(|&x| x == tab.transport).expect("transport of a published table");
        let _ = writeln!(md, "## Table {}: {} ({})\n", tab.number, tab.title, tab.unit);
        let _ = writeln!(
            md,
            "| speed (m/s) | paper AODV | paper DSR | paper diff % | ours AODV | ours DSR | ours diff % |"
        );
        let _ = writeln!(md, "|---|---|---|---|---|---|---|");
        let mut rows = Vec::new();
        for (vi, row) in tab.rows.iter().enumerate() {
            let a = agg(t, 0, vi, &tab.metric);
            let d = agg(t, 1, vi, &tab.metric);
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {:.2} | {:.2} | {:.1} |",
                row[0],
                row[1],
                row[2],
                row[3],
                a,
                d,
                diff_pct(a.mean, d.mean)
            );
            rows.push(serde_json::json!({
                "speed": row[0], "paper_aodv": row[1], "paper_dsr": row[2], "paper_diff_pct": row[3],
                "aodv": a, "dsr": d, "diff_pct": diff_pct(a.mean, d.mean),
            }));
        }
        md.push('\n');
        json_tables.push(serde_json::json!({"table": tab.number, "title": tab.title, "unit": tab.unit, "rows": rows}));
        let fig = Figure {
            file_stem: format!("table{}", tab.number),
            title: format!("Table {}: {}", tab.number, tab.title),
            x_label: "speed (m/s)".into(),
            y_label: format!("{} ({})", tab.metric, tab.unit),
            series: vec![
                Series {
                    name: "paper AODV".into(),
                    points: tab.rows.iter().map(|r| (r[0], r[1], None)).collect(),
                    scatter: false,
                },
                Series {
                    name: "paper DSR".into(),
                    points: tab.rows.iter().map(|r| (r[0], r[2], None)).collect(),
                    scatter: false,
                },
                Series {
                    name: "ours AODV".into(),
                    points: (0..SPEEDS.len())
                        .map(|v| {
                            let a = agg(t, 0, v, &tab.metric);
                            (SPEEDS[v], a.mean, Some(a.ci95))
                        })
                        .collect(),
                    scatter: false,
                },
                Series {
                    name: "ours DSR".into(),
                    points: (0..SPEEDS.len())
                        .map(|v| {
                            let a = agg(t, 1, v, &tab.metric);
                            (SPEEDS[v], a.mean, Some(a.ci95))
                        })
                        .collect(),
                    scatter: false,
                },
            ],
            steps: false,
        };
        md += &fig.write(&opts.out, &mut files)?;
        md.push('\n');
    }

    // The claims.
    let mean_over_speeds = |t: usize, p: usize, m: &str| {
        (0..SPEEDS.len()).map(|v| agg(t, p, v, m).mean).filter(|x| x.is_finite()).sum::<f64>() / SPEEDS.len() as f64
    };
    let count = |t: usize, m: &str| (0..SPEEDS.len()).filter(|&v| agg(t, 1, v, m).mean > agg(t, 0, v, m).mean).count();
    for (m, what) in [("throughput", "more throughput"), ("jitter", "more jitter"), ("delay", "more delay")] {
        let n = count(0, m);
        let (a, d) = (mean_over_speeds(0, 0, m), mean_over_speeds(0, 1, m));
        checks.push(Check {
            what: format!("DSR gives TFRC {what} than AODV (paper: at every speed)"),
            passed: d > a && n >= 3,
            detail: format!("DSR higher at {n} of 4 speeds; mean over speeds AODV {a:.2}, DSR {d:.2}"),
        });
    }
    let worst = (0..SPEEDS.len())
        .map(|v| diff_pct(agg(1, 0, v, "throughput").mean, agg(1, 1, v, "throughput").mean))
        .fold(0.0f64, f64::max);
    checks.push(Check {
        what: "TCP throughput hardly depends on the routing protocol (paper: at most 5.84 % apart)".into(),
        passed: worst < 10.0,
        detail: format!("largest AODV/DSR difference {worst:.1} % (threshold 10 %)"),
    });
    let tfrc_over_tcp =
        (0..PROTOCOLS.len()).all(|p| mean_over_speeds(0, p, "throughput") > mean_over_speeds(1, p, "throughput"));
    checks.push(Check {
        what: "TFRC gets more throughput than TCP with both protocols (paper: figure 1, tables 2-3)".into(),
        passed: tfrc_over_tcp,
        detail: format!(
            "TFRC {:.1}/{:.1}, TCP {:.1}/{:.1} kbit/s (AODV/DSR, mean over speeds)",
            mean_over_speeds(0, 0, "throughput"),
            mean_over_speeds(0, 1, "throughput"),
            mean_over_speeds(1, 0, "throughput"),
            mean_over_speeds(1, 1, "throughput")
        ),
    });
    let bg: Vec<f64> = outcomes.iter().map(|o| o.background_delivery).collect();
    let _ = writeln!(md, "## Claims\n");
    let _ = writeln!(md, "| claim | reproduced | detail |\n|---|---|---|");
    for c in &checks {
        let _ = writeln!(md, "| {} | {} | {} |", c.what, if c.passed { "yes" } else { "no" }, c.detail);
    }
    let _ = writeln!(
        md,
        "\nBackground CBR delivery ratio over all runs: {:.3} (mean).\n",
        bg.iter().sum::<f64>() / bg.len().max(1) as f64
    );
    let json = serde_json::json!({
        "study": "zaini", "seeds": seeds, "duration_s": duration_s, "tables": json_tables, "checks": checks,
    });
    write_file(&opts.out, "results.json", &(serde_json::to_string_pretty(&json).unwrap() + "\n"), &mut files)?;
    write_file(&opts.out, "report.md", &md, &mut files)?;
    Ok(StudyOutput { markdown: md, files, checks, runs: jobs.len() })
}
