//! The `chain` study (tcp-manet-elfn.txt, figure 1): TCP-Reno goodput over
//! a static chain of 1..10 hops, the basis of the ELFN paper's "expected
//! throughput".
//!
//! Setup: nodes 200 m apart, 2 Mbit/s DSSS for data and control, RTS/CTS on
//! every unicast frame, 250 m / 550 m ranges (ns-2 WaveLAN), drop-tail 50,
//! one TCP-Reno bulk flow from node 0 to node i, 1460-byte segments, maximum
//! window 8 packets, static shortest-path routing, goodput over 10-200 s,
//! 10 seeds per point (quick: 3 seeds, 10-100 s). Every point is run with
//! both capture rules; the acceptance band applies to the default `ns2`.

use super::{runner, sweep, write_file, Check, Figure, Progress, Series, StudyError, StudyOptions, StudyOutput};
use crate::config::{FlowConfig, SimConfig, Traffic};
use crate::mac::frame::{ACK_BYTES, CTS_BYTES, DATA_OVERHEAD_BYTES, RTS_BYTES};
use crate::metrics::analytic::DcfTimings;
use crate::metrics::stats::Summary;
use crate::metrics::Report;
use crate::net::packet::TCP_HEADER_BYTES;
use crate::net::IP_HEADER_BYTES;
use crate::phy::{CaptureRule, PhyMode};
use crate::sim::Time;
use crate::transport::tcp::{DataSource, SeqEvent, TcpConfig, TcpVariant};
use serde::Deserialize;

pub const HOPS: u32 = 10;
pub const MSS: u32 = 1460;

#[derive(Deserialize)]
struct Column {
    source: String,
    kbps: Vec<f64>,
}

#[derive(Deserialize)]
struct Published {
    published: Column,
    ns2_dsr: Column,
    ns2_aodv: Column,
}

fn published() -> Published {
    toml::from_str(include_str!("../../data/published/chain.toml")).expect("data/published/chain.toml is valid")
}

/// The run config of one point.
pub fn config(hops: u32, seed: u64, duration: Time, rule: CaptureRule) -> SimConfig {
    let mut cfg = SimConfig {
        seed,
        duration,
        warmup: Time::from_secs(10),
        nodes: SimConfig::chain_positions(hops as usize + 1, 200.0),
        ..SimConfig::default()
    };
    cfg.radio.capture_rule = rule;
    let tcp = TcpConfig {
        mss: MSS,
        max_window: 8,
        variant: TcpVariant::Reno,
        record_series: false,
        record_seq_log: false,
        ..TcpConfig::default()
    };
    cfg.flows = vec![FlowConfig {
        name: format!("tcp-{hops}hop"),
        src: 0,
        dst: hops,
        traffic: Traffic::Tcp { tcp, data: DataSource::Bulk },
        start: Time::ZERO,
        stop: None,
    }];
    cfg
}

/// One-hop goodput from the DCF timing: per segment one RTS/CTS/DATA/ACK
/// exchange for the data and one for the TCP ACK, each after DIFS and a
/// mean backoff of CWmin/2 slots (no collisions between the two stations).
pub fn one_hop_dcf_bps(m: &PhyMode) -> f64 {
    let s = |t: Time| t.as_secs_f64();
    let exchange = |ip_bytes: u32, payload_bits: f64| DcfTimings {
        difs: s(m.difs()),
        sifs: s(m.sifs()),
        slot: s(m.slot()),
        cw_min: m.cw_min(),
        rts: s(m.frame_time(RTS_BYTES, m.basic_rate)),
        cts: s(m.frame_time(CTS_BYTES, m.basic_rate)),
        data: s(m.frame_time(ip_bytes + DATA_OVERHEAD_BYTES, m.data_rate)),
        ack: s(m.frame_time(ACK_BYTES, m.basic_rate)),
        use_rts: true,
        payload_bits,
        prop_delay: 0.0,
    };
    let data = exchange(MSS + TCP_HEADER_BYTES + IP_HEADER_BYTES, MSS as f64 * 8.0);
    let ack = exchange(TCP_HEADER_BYTES + IP_HEADER_BYTES, 0.0);
    MSS as f64 * 8.0 / (data.cycle_time() + ack.cycle_time())
}

/// Aggregates of one (rule, hops) point.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Point {
    pub rule: String,
    pub hops: u32,
    pub goodput_kbps: crate::metrics::stats::SummaryValues,
    pub mac_retries: f64,
    pub mac_retry_drops: f64,
    pub collisions: f64,
    pub tcp_timeouts: f64,
    pub tcp_retransmissions: f64,
}

fn aggregate(rule: CaptureRule, hops: u32, reports: &[&Report]) -> (Point, Summary) {
    let g: Summary = reports.iter().map(|r| r.flows[0].goodput_bps / 1e3).collect();
    let mean = |f: &dyn Fn(&Report) -> f64| reports.iter().map(|r| f(r)).sum::<f64>() / reports.len() as f64;
    let tcp = |r: &Report| r.flows[0].tcp.clone().unwrap_or_default();
    (
        Point {
            rule: rule.name().into(),
            hops,
            goodput_kbps: g.values(),
            mac_retries: mean(&|r| r.mac_totals().retries as f64),
            mac_retry_drops: mean(&|r| r.mac_totals().retry_drops as f64),
            collisions: mean(&|r| r.radio_totals().collisions as f64),
            tcp_timeouts: mean(&|r| tcp(r).timeouts as f64),
            tcp_retransmissions: mean(&|r| tcp(r).retransmissions as f64),
        },
        g,
    )
}

pub fn run(opts: &StudyOptions, progress: Progress) -> Result<StudyOutput, StudyError> {
    let seeds = opts.runs.unwrap_or(if opts.quick { 3 } else { 10 }).max(1) as u64;
    let duration = Time::from_secs(if opts.quick { 100 } else { 200 });
    let rules = [CaptureRule::Ns2, CaptureRule::StrongerWins];
    let mut jobs = Vec::new();
    for rule in rules {
        for hops in 1..=HOPS {
            for k in 0..seeds {
                let key = format!("capture={rule:?}/hops={hops}/seed={}", opts.seed + k);
                jobs.push(sweep::Job::new(key, config(hops, opts.seed + k, duration, rule)));
            }
        }
    }
    let reports = sweep::run_reports(&jobs, &opts.sweep_options(progress))?;
    let pubd = published();
    let mut points: Vec<Point> = Vec::new();
    let mut sums: Vec<Summary> = Vec::new();
    for (ri, rule) in rules.iter().enumerate() {
        for hops in 1..=HOPS {
            let base = (ri * HOPS as usize + hops as usize - 1) * seeds as usize;
            let rs: Vec<&Report> = reports[base..base + seeds as usize].iter().collect();
            let (p, s) = aggregate(*rule, hops, &rs);
            points.push(p);
            sums.push(s);
        }
    }
    let ns2: &[Summary] = &sums[..HOPS as usize];
    let sw: &[Summary] = &sums[HOPS as usize..];
    let phy = crate::mac::MacConfig::default().phy;
    let formula = one_hop_dcf_bps(&phy) / 1e3;

    // Acceptance checks (issue 3), on the default ns2 capture rule.
    let mut checks = Vec::new();
    let m = |i: usize| ns2[i].mean();
    let e1 = (m(0) - formula) / formula;
    checks.push(Check {
        what: "1 hop within 3% of the DCF timing (one DATA and one TCP-ACK exchange per segment)".into(),
        passed: e1.abs() <= 0.03,
        detail: format!("{:.1} vs {:.1} kbit/s ({:+.1}%)", m(0), formula, e1 * 100.0),
    });
    let e2 = (m(1) - m(0) / 2.0) / (m(0) / 2.0);
    checks.push(Check {
        what: "2 hops within 5% of half the 1-hop value".into(),
        passed: e2.abs() <= 0.05,
        detail: format!("{:.1} vs {:.1} kbit/s ({:+.1}%)", m(1), m(0) / 2.0, e2 * 100.0),
    });
    for i in 2..HOPS as usize {
        let lo = 0.75 * pubd.published.kbps[i].min(pubd.ns2_aodv.kbps[i]);
        let hi = 1.25 * pubd.published.kbps[i].max(pubd.ns2_aodv.kbps[i]);
        checks.push(Check {
            what: format!("{} hops inside [0.75 min(published, ns-2 AODV), 1.25 max(...)]", i + 1),
            passed: (lo..=hi).contains(&m(i)),
            detail: format!("{:.1} in [{lo:.1}, {hi:.1}]", m(i)),
        });
    }
    let rising: Vec<String> = (1..HOPS as usize)
        .filter(|&i| {
            m(i) > m(i - 1)
                + ns2[i].ci95_half_width().max(0.0)
                + ns2[i - 1].ci95_half_width().max(0.0)
                + 0.02 * m(i - 1)
        })
        .map(|i| format!("{}->{} hops", i, i + 1))
        .collect();
    checks.push(Check {
        what: "non-increasing with hop count beyond noise".into(),
        passed: rising.is_empty(),
        detail: if rising.is_empty() { "yes".into() } else { format!("rises at {}", rising.join(", ")) },
    });
    let plateau: Vec<f64> = (6..10).map(|i| (m(i) - m(5)) / m(5)).collect();
    checks.push(Check {
        what: "plateau: 7-10 hop means within 25% of the 6-hop mean".into(),
        passed: plateau.iter().all(|d| d.abs() <= 0.25),
        detail: plateau.iter().map(|d| format!("{:+.0}%", d * 100.0)).collect::<Vec<_>>().join(", "),
    });

    // Report.
    let mut md = String::new();
    md += "# Chain study: TCP-Reno over a static chain (tcp-manet-elfn.txt, figure 1)\n\n";
    md += &format!(
        "Nodes 200 m apart, 2 Mbit/s DSSS (long PLCP preamble), RTS/CTS on every unicast frame, 250 m / 550 m ranges, \
         drop-tail 50, TCP-Reno 1460-byte segments, max window 8, static routes, goodput over 10-{} s, {} seed(s) per point{}.\n\n",
        duration.as_secs_f64(),
        seeds,
        if opts.quick { " (quick mode)" } else { "" }
    );
    md += &format!("Sources: published = {}. ns-2.35 = {}.\n\n", pubd.published.source, pubd.ns2_aodv.source);
    md += "| hops | published | ns-2.35 DSR | ns-2.35 AODV | manetlab (ns2 capture) | vs published | manetlab (stronger-wins) | MAC retries (ns2) | collisions (ns2) | TCP timeouts (ns2) |\n";
    md += "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for i in 0..HOPS as usize {
        let p = &points[i];
        md += &format!(
            "| {} | {:.1} | {:.0} | {:.0} | {:.1} ± {:.1} | {:+.0}% | {:.1} ± {:.1} | {:.0} | {:.0} | {:.1} |\n",
            i + 1,
            pubd.published.kbps[i],
            pubd.ns2_dsr.kbps[i],
            pubd.ns2_aodv.kbps[i],
            m(i),
            ns2[i].ci95_half_width().max(0.0),
            (m(i) - pubd.published.kbps[i]) / pubd.published.kbps[i] * 100.0,
            sw[i].mean(),
            sw[i].ci95_half_width().max(0.0),
            p.mac_retries,
            p.collisions,
            p.tcp_timeouts,
        );
    }
    md += &format!("\nAll goodputs in kbit/s; manetlab columns are mean ± 95% CI. Counter columns: mean per run with the ns2 capture rule, summed over all nodes, whole run (warm-up included). One-hop DCF timing value: {formula:.1} kbit/s.\n\n");
    md += "## Checks\n\n| check | result | detail |\n|---|---|---|\n";
    for c in &checks {
        md += &format!("| {} | {} | {} |\n", c.what, if c.passed { "pass" } else { "FAIL" }, c.detail);
    }

    let mut files = Vec::new();
    let err = |s: &Summary| Some(s.ci95_half_width()).filter(|v| v.is_finite());
    let fig = Figure {
        file_stem: "chain_goodput".into(),
        title: "TCP-Reno goodput over a static chain".into(),
        x_label: "hops".into(),
        y_label: "goodput (kbit/s)".into(),
        series: vec![
            Series {
                name: "published (CMU ns-2, 1999)".into(),
                points: (0..10).map(|i| (i as f64 + 1.0, pubd.published.kbps[i], None)).collect(),
                scatter: false,
            },
            Series {
                name: "ns-2.35 AODV".into(),
                points: (0..10).map(|i| (i as f64 + 1.0, pubd.ns2_aodv.kbps[i], None)).collect(),
                scatter: false,
            },
            Series {
                name: "ns-2.35 DSR".into(),
                points: (0..10).map(|i| (i as f64 + 1.0, pubd.ns2_dsr.kbps[i], None)).collect(),
                scatter: false,
            },
            Series {
                name: "manetlab (ns2 capture)".into(),
                points: (0..10).map(|i| (i as f64 + 1.0, ns2[i].mean(), err(&ns2[i]))).collect(),
                scatter: false,
            },
            Series {
                name: "manetlab (stronger-wins)".into(),
                points: (0..10).map(|i| (i as f64 + 1.0, sw[i].mean(), err(&sw[i]))).collect(),
                scatter: false,
            },
        ],
        steps: false,
    };
    md += "\n## Figures\n\n";
    md += &fig.write(&opts.out, &mut files)?;

    // Time-sequence graph and cwnd of one 4-hop run, as in the testbed paper.
    let mut cfg = config(4, opts.seed, Time::from_secs(20), CaptureRule::Ns2);
    if let Traffic::Tcp { tcp, .. } = &mut cfg.flows[0].traffic {
        tcp.record_series = true;
        tcp.record_seq_log = true;
    }
    let (_, trace) = runner::run_with_tcp_trace(cfg, 0).map_err(|e| StudyError::Other(e.to_string()))?;
    if let Some(t) = trace {
        let pick = |ev: SeqEvent| -> Vec<(f64, f64, Option<f64>)> {
            t.seq
                .iter()
                .filter(|r| r.event == ev)
                .map(|r| (r.time.as_secs_f64(), (r.seq / MSS as u64) as f64, None))
                .collect()
        };
        let ts = Figure {
            file_stem: "chain_4hop_timeseq".into(),
            title: "TCP time-sequence, 4 hops, seed 1".into(),
            x_label: "time (s)".into(),
            y_label: "segment number".into(),
            series: vec![
                Series { name: "sent".into(), points: pick(SeqEvent::Sent), scatter: true },
                Series { name: "retransmitted".into(), points: pick(SeqEvent::Retransmitted), scatter: true },
                Series { name: "acked".into(), points: pick(SeqEvent::Acked), scatter: true },
            ],
            steps: false,
        };
        md += "\n";
        md += &ts.write(&opts.out, &mut files)?;
        let cw = Figure {
            file_stem: "chain_4hop_cwnd".into(),
            title: "cwnd and ssthresh, 4 hops, seed 1".into(),
            x_label: "time (s)".into(),
            y_label: "segments".into(),
            series: vec![
                Series {
                    name: "cwnd".into(),
                    points: t.cwnd.points().iter().map(|&(x, y)| (x.as_secs_f64(), y, None)).collect(),
                    scatter: false,
                },
                Series {
                    name: "ssthresh".into(),
                    points: t.ssthresh.points().iter().map(|&(x, y)| (x.as_secs_f64(), y.min(64.0), None)).collect(),
                    scatter: false,
                },
            ],
            steps: true,
        };
        md += "\n";
        md += &cw.write(&opts.out, &mut files)?;
    }

    let json = serde_json::json!({ "study": "chain", "seeds": seeds, "duration_s": duration.as_secs_f64(), "points": points, "checks": checks, "one_hop_dcf_kbps": formula });
    write_file(&opts.out, "results.json", &(serde_json::to_string_pretty(&json).unwrap() + "\n"), &mut files)?;
    write_file(&opts.out, "report.md", &md, &mut files)?;
    Ok(StudyOutput { markdown: md, files, checks, runs: reports.len() })
}

/// A fixed 64-bit FNV-1a hash (stable across Rust versions and machines).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The i-hop chain throughput table (bit/s, i = 1..=HOPS) for the radio,
/// MAC, queue and TCP settings of `like`: the basis of expected throughput.
/// Static chain, 200 m spacing, bulk TCP, `seeds` seeds of `duration` each.
/// Cached in `cache_dir` under a hash of the settings: computed once per
/// distinct setting, recomputed when any of them differs.
pub fn table(like: &SimConfig, tcp: &TcpConfig, cache_dir: &std::path::Path, seeds: u64, duration: Time) -> Vec<f64> {
    let mut tcp = tcp.clone();
    tcp.record_series = false;
    tcp.record_seq_log = false;
    let key_text = format!(
        "v1 {:?} {:?} {:?} {:?} {:?} seeds={seeds} duration={}",
        like.radio,
        like.mac,
        like.queue,
        like.arp,
        tcp,
        duration.as_ns()
    );
    let path = cache_dir.join(format!("chain-table-{:016x}.json", fnv1a(&key_text)));
    if let Ok(text) = std::fs::read_to_string(&path) {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
            if v["settings"] == key_text.as_str() {
                if let Some(t) = v["bps"].as_array().map(|a| a.iter().filter_map(|x| x.as_f64()).collect::<Vec<_>>()) {
                    if t.len() == HOPS as usize {
                        return t;
                    }
                }
            }
        }
    }
    let mut configs = Vec::new();
    for hops in 1..=HOPS {
        for s in 1..=seeds {
            let mut c = config(hops, s, duration, like.radio.capture_rule);
            c.radio = like.radio.clone();
            c.mac = like.mac.clone();
            c.queue = like.queue.clone();
            c.arp = like.arp.clone();
            if let Traffic::Tcp { tcp: t, .. } = &mut c.flows[0].traffic {
                *t = tcp.clone();
            }
            configs.push(c);
        }
    }
    let reports = runner::run_all(configs, &|_, _| {}).expect("chain configs are valid");
    let t: Vec<f64> = reports
        .chunks(seeds as usize)
        .map(|rs| rs.iter().map(|r| r.flows[0].goodput_bps).sum::<f64>() / rs.len() as f64)
        .collect();
    let _ = std::fs::create_dir_all(cache_dir);
    let json = serde_json::json!({ "settings": key_text, "bps": t });
    let tmp = path.with_extension("tmp");
    if std::fs::write(&tmp, json.to_string()).is_ok() {
        let _ = std::fs::rename(&tmp, &path);
    }
    t
}
