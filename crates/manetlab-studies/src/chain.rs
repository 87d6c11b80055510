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
//!
//! Like with like (issue 24): the same chain is also run with DSR and with
//! AODV under profile `ns2` (ns-2's ARP, flow from 1 s; AODV as ns-2.35
//! runs it: link-layer detection, local repair, `ns2_quirks`), each beside
//! its ns-2.35 counterpart (`data/published/chain.toml`, from
//! `scripts/ns2/results/s4.log`); static routes stay as the reference line.

use manetlab::config::{SimConfig, Traffic};
use manetlab::mac::frame::{ACK_BYTES, CTS_BYTES, DATA_OVERHEAD_BYTES, RTS_BYTES};
use manetlab::metrics::analytic::DcfTimings;
use manetlab::metrics::stats::{Summary, SummaryValues};
use manetlab::metrics::Report;
use manetlab::net::packet::TCP_HEADER_BYTES;
use manetlab::net::IP_HEADER_BYTES;
use manetlab::phy::{CaptureRule, PhyMode};
use manetlab::sim::Time;
pub use manetlab::study::chain_table::{config, HOPS, MSS};
use manetlab::study::report::{deviation, Table};
use manetlab::study::sweep::Job;
use manetlab::study::{
    runner, Analysis, Check, Figure, ReportDoc, Runs, Series, Study, StudyError, StudyInfo, StudyOptions,
};
use manetlab::transport::tcp::SeqEvent;
use manetlab::BuildError;
use serde::{Deserialize, Serialize};

/// Name, paper and one line, as `manetlab study --list` shows them.
pub const INFO: StudyInfo = StudyInfo {
    name: "chain",
    paper: "tcp-manet-elfn.txt, figure 1",
    about: "TCP-Reno goodput over a static chain of 1..10 hops (calibration of expected throughput)",
};

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
    toml::from_str(include_str!("../data/published/chain.toml")).expect("data/published/chain.toml is valid")
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
#[derive(Clone, Debug, Serialize)]
pub struct Point {
    pub rule: String,
    pub hops: u32,
    pub goodput_kbps: SummaryValues,
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

const RULES: [CaptureRule; 2] = [CaptureRule::Ns2, CaptureRule::StrongerWins];

/// The routed variants run beside ns-2.35's DSR and AODV.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Routed {
    Dsr,
    Aodv,
}
const ROUTED: [Routed; 2] = [Routed::Dsr, Routed::Aodv];

impl Routed {
    fn name(self) -> &'static str {
        match self {
            Routed::Dsr => "dsr",
            Routed::Aodv => "aodv",
        }
    }
}

/// The chain with `r` under profile ns2, as scripts/ns2/compare_profiles.py
/// runs it against ns-2.35: ns-2's ARP, the flow from 1 s (ns-2's start),
/// DSR with its ns2 defaults, AODV as ns-2.35's stock agent.
fn routed_config(r: Routed, hops: u32, seed: u64, duration: Time) -> SimConfig {
    use manetlab::net::arp::ArpConfig;
    use manetlab::net::routing::aodv::RreqTiming;
    use manetlab::net::routing::{AodvConfig, DsrConfig, LinkDetection, RoutingConfig};
    let mut cfg = config(hops, seed, duration, CaptureRule::Ns2);
    cfg.arp = ArpConfig::ns2();
    cfg.flows[0].start = Time::from_secs(1);
    cfg.routing = match r {
        Routed::Dsr => RoutingConfig::Dsr(DsrConfig::default()),
        Routed::Aodv => RoutingConfig::Aodv(AodvConfig {
            link_detection: LinkDetection::Mac,
            local_repair: true,
            ns2_quirks: true,
            rreq_timing: RreqTiming::Ns2,
            ..AodvConfig::default()
        }),
    };
    cfg
}

fn routed_key(r: Routed, hops: u32, seed: u64) -> String {
    format!("routing={}/hops={hops}/seed={seed}", r.name())
}

/// Seeds per point and run length: quick 3 x 100 s, full 10 x 200 s.
fn size(opts: &StudyOptions) -> (u64, Time) {
    (opts.seeds(3, 10) as u64, Time::from_secs(if opts.quick { 100 } else { 200 }))
}

fn key(rule: CaptureRule, hops: u32, seed: u64) -> String {
    format!("capture={rule:?}/hops={hops}/seed={seed}")
}

#[derive(Serialize)]
pub struct Findings {
    pub seeds: u64,
    pub duration_s: f64,
    pub points: Vec<Point>,
    pub one_hop_dcf_kbps: f64,
    /// Goodput (kbit/s) per hop count, ns2 capture rule and stronger-wins.
    #[serde(skip)]
    ns2: Vec<Summary>,
    #[serde(skip)]
    sw: Vec<Summary>,
    /// Goodput (kbit/s) per hop count with DSR and with AODV (profile ns2).
    #[serde(skip)]
    dsr: Vec<Summary>,
    #[serde(skip)]
    aodv: Vec<Summary>,
    /// TCP trace of one 4-hop run (time-sequence graph, cwnd).
    #[serde(skip)]
    trace: Option<manetlab::transport::tcp::TcpTrace>,
}

/// The study: figure 1 of tcp-manet-elfn.txt.
pub struct Chain;

impl Study for Chain {
    const INFO: StudyInfo = INFO;
    type Outcome = Report;
    type Findings = Findings;

    fn plan(&self, opts: &StudyOptions) -> Vec<Job> {
        let (seeds, duration) = size(opts);
        let mut jobs = Vec::new();
        for rule in RULES {
            for hops in 1..=HOPS {
                for k in 0..seeds {
                    jobs.push(Job::new(key(rule, hops, opts.seed + k), config(hops, opts.seed + k, duration, rule)));
                }
            }
        }
        for r in ROUTED {
            for hops in 1..=HOPS {
                for k in 0..seeds {
                    let seed = opts.seed + k;
                    jobs.push(Job::new(routed_key(r, hops, seed), routed_config(r, hops, seed, duration)));
                }
            }
        }
        jobs
    }

    fn outcome(&self, _: &StudyOptions, cfg: &SimConfig) -> Result<Report, BuildError> {
        Ok(manetlab::Simulation::new(cfg.clone())?.run())
    }

    fn analyse(&self, opts: &StudyOptions, runs: &Runs<Report>) -> Result<Analysis<Findings>, StudyError> {
        let (seeds, duration) = size(opts);
        let pubd = published();
        let (mut points, mut sums) = (Vec::new(), Vec::new());
        for rule in RULES {
            for hops in 1..=HOPS {
                let rs: Vec<&Report> = (0..seeds).map(|k| runs.get(&key(rule, hops, opts.seed + k))).collect();
                let (p, s) = aggregate(rule, hops, &rs);
                points.push(p);
                sums.push(s);
            }
        }
        let mut routed = Vec::new();
        for r in ROUTED {
            let mut v = Vec::new();
            for hops in 1..=HOPS {
                let rs: Vec<&Report> = (0..seeds).map(|k| runs.get(&routed_key(r, hops, opts.seed + k))).collect();
                let (mut p, s) = aggregate(CaptureRule::Ns2, hops, &rs);
                p.rule = r.name().into();
                points.push(p);
                v.push(s);
            }
            routed.push(v);
        }
        let aodv = routed.pop().unwrap();
        let dsr = routed.pop().unwrap();
        let sw = sums.split_off(HOPS as usize);
        let ns2 = sums;
        let formula = one_hop_dcf_bps(&manetlab::mac::MacConfig::default().phy) / 1e3;

        // Acceptance checks (issue 3), on the default ns2 capture rule.
        let mut checks = Vec::new();
        let m = |i: usize| ns2[i].mean();
        let ci = |i: usize| ns2[i].ci95_half_width().max(0.0);
        let e1 = (m(0) - formula) / formula;
        checks.push(Check::new(
            "1 hop within 3% of the DCF timing (one DATA and one TCP-ACK exchange per segment)",
            e1.abs() <= 0.03,
            format!("{:.1} vs {:.1} kbit/s ({:+.1}%)", m(0), formula, e1 * 100.0),
        ));
        let e2 = (m(1) - m(0) / 2.0) / (m(0) / 2.0);
        checks.push(Check::new(
            "2 hops within 5% of half the 1-hop value",
            e2.abs() <= 0.05,
            format!("{:.1} vs {:.1} kbit/s ({:+.1}%)", m(1), m(0) / 2.0, e2 * 100.0),
        ));
        for i in 2..HOPS as usize {
            let lo = 0.75 * pubd.published.kbps[i].min(pubd.ns2_aodv.kbps[i]);
            let hi = 1.25 * pubd.published.kbps[i].max(pubd.ns2_aodv.kbps[i]);
            checks.push(Check::new(
                format!("{} hops inside [0.75 min(published, ns-2 AODV), 1.25 max(...)]", i + 1),
                (lo..=hi).contains(&m(i)),
                format!("{:.1} in [{lo:.1}, {hi:.1}]", m(i)),
            ));
        }
        let rising: Vec<String> = (1..HOPS as usize)
            .filter(|&i| m(i) > m(i - 1) + ci(i) + ci(i - 1) + 0.02 * m(i - 1))
            .map(|i| format!("{}->{} hops", i, i + 1))
            .collect();
        checks.push(Check::new(
            "non-increasing with hop count beyond noise",
            rising.is_empty(),
            if rising.is_empty() { "yes".into() } else { format!("rises at {}", rising.join(", ")) },
        ));
        let plateau: Vec<f64> = (6..10).map(|i| (m(i) - m(5)) / m(5)).collect();
        checks.push(Check::new(
            "plateau: 7-10 hop means within 25% of the 6-hop mean",
            plateau.iter().all(|d| d.abs() <= 0.25),
            plateau.iter().map(|d| format!("{:+.0}%", d * 100.0)).collect::<Vec<_>>().join(", "),
        ));

        // Time-sequence graph and cwnd of one 4-hop run, as in the testbed paper.
        let mut cfg = config(4, opts.seed, Time::from_secs(20), CaptureRule::Ns2);
        if let Traffic::Tcp { tcp, .. } = &mut cfg.flows[0].traffic {
            tcp.record_series = true;
            tcp.record_seq_log = true;
        }
        let (_, trace) = runner::run_with_tcp_trace(cfg, 0)?;
        let findings = Findings {
            seeds,
            duration_s: duration.as_secs_f64(),
            points,
            one_hop_dcf_kbps: formula,
            ns2,
            sw,
            dsr,
            aodv,
            trace,
        };
        Ok(Analysis { findings, checks })
    }

    fn report(&self, opts: &StudyOptions, f: &Findings, doc: &mut ReportDoc) -> Result<(), StudyError> {
        let pubd = published();
        doc.title("Chain study: TCP-Reno over a static chain (tcp-manet-elfn.txt, figure 1)");
        doc.para(format!(
            "Nodes 200 m apart, 2 Mbit/s DSSS (long PLCP preamble), RTS/CTS on every unicast frame, 250 m / 550 m ranges, \
             drop-tail 50, TCP-Reno 1460-byte segments, max window 8, static routes, goodput over 10-{} s, {} seed(s) per point{}.",
            f.duration_s,
            f.seeds,
            if opts.quick { " (quick mode)" } else { "" }
        ));
        doc.para(format!("Sources: published = {}. ns-2.35 = {}.", pubd.published.source, pubd.ns2_aodv.source));
        let mut t = Table::new(&[
            "hops",
            "published",
            "ns-2.35 DSR",
            "ns-2.35 AODV",
            "manetlab (ns2 capture)",
            "vs published",
            "manetlab (stronger-wins)",
            "MAC retries (ns2)",
            "collisions (ns2)",
            "TCP timeouts (ns2)",
        ])
        .align("rrrrrrrrrr");
        let pm = |s: &Summary| format!("{:.1} ± {:.1}", s.mean(), s.ci95_half_width().max(0.0));
        for (i, p) in f.points.iter().take(HOPS as usize).enumerate() {
            t.row([
                (i + 1).to_string(),
                format!("{:.1}", pubd.published.kbps[i]),
                format!("{:.0}", pubd.ns2_dsr.kbps[i]),
                format!("{:.0}", pubd.ns2_aodv.kbps[i]),
                pm(&f.ns2[i]),
                deviation(f.ns2[i].mean(), pubd.published.kbps[i]),
                pm(&f.sw[i]),
                format!("{:.0}", p.mac_retries),
                format!("{:.0}", p.collisions),
                format!("{:.1}", p.tcp_timeouts),
            ]);
        }
        doc.table_with_note(
            &t,
            format!(
                "All goodputs in kbit/s; manetlab columns are mean ± 95% CI. Counter columns: mean per run with the ns2 \
                 capture rule, summed over all nodes, whole run (warm-up included). One-hop DCF timing value: {:.1} kbit/s.",
                f.one_hop_dcf_kbps
            ),
        );
        doc.checks("Checks");

        doc.section("Like with like: DSR and AODV beside ns-2.35");
        doc.para(
            "The same chain with routing under profile ns2, as scripts/ns2/compare_profiles.py runs it against ns-2.35: \
             ns-2's ARP, the flow from 1 s, DSR with its ns2 defaults, AODV as ns-2.35's stock agent (link-layer \
             detection, local repair, `ns2_quirks`). Static routes (first table) are the reference line: ns-2.35 has \
             no static multi-hop routing. Ratio = manetlab / ns-2.35; docs/profiles.md says per row what is not \
             modelled where a ratio is outside 0.85-1.15.",
        );
        let mut lw = Table::new(&[
            "hops",
            "ns-2.35 DSR",
            "manetlab DSR",
            "ratio",
            "ns-2.35 AODV",
            "manetlab AODV",
            "ratio",
            "manetlab static",
        ])
        .align("rrrrrrrr");
        let ratio = |a: f64, b: f64| if b > 0.0 { format!("{:.2}", a / b) } else { "n/a".into() };
        for i in 0..HOPS as usize {
            lw.row([
                (i + 1).to_string(),
                format!("{:.1}", pubd.ns2_dsr.kbps[i]),
                pm(&f.dsr[i]),
                ratio(f.dsr[i].mean(), pubd.ns2_dsr.kbps[i]),
                format!("{:.1}", pubd.ns2_aodv.kbps[i]),
                pm(&f.aodv[i]),
                ratio(f.aodv[i].mean(), pubd.ns2_aodv.kbps[i]),
                pm(&f.ns2[i]),
            ]);
        }
        doc.table_with_note(
            &lw,
            format!(
                "Goodput in kbit/s; manetlab mean ± 95% CI over {} seed(s){}. ns-2.35: {}",
                f.seeds,
                if opts.quick { " (quick mode: 100 s runs, ns-2.35 ran 200 s)" } else { "" },
                pubd.ns2_dsr.source
            ),
        );

        doc.section("Figures");
        let hops = |v: &[f64]| (0..HOPS as usize).map(|i| (i as f64 + 1.0, v[i], None)).collect();
        let ours = |s: &[Summary]| {
            let err = |s: &Summary| Some(s.ci95_half_width()).filter(|v| v.is_finite());
            (0..HOPS as usize).map(|i| (i as f64 + 1.0, s[i].mean(), err(&s[i]))).collect()
        };
        let line = |name: &str, points| Series { name: name.into(), points, scatter: false };
        doc.figure(&Figure::lines(
            "chain_goodput",
            "TCP-Reno goodput over a chain: static routes, and DSR / AODV beside ns-2.35",
            "hops",
            "goodput (kbit/s)",
            vec![
                line("published (CMU ns-2, 1999)", hops(&pubd.published.kbps)),
                line("ns-2.35 AODV", hops(&pubd.ns2_aodv.kbps)),
                line("ns-2.35 DSR", hops(&pubd.ns2_dsr.kbps)),
                line("manetlab static (ns2 capture)", ours(&f.ns2)),
                line("manetlab static (stronger-wins)", ours(&f.sw)),
                line("manetlab AODV (profile ns2)", ours(&f.aodv)),
                line("manetlab DSR (profile ns2)", ours(&f.dsr)),
            ],
        ))?;
        if let Some(t) = &f.trace {
            let pick = |name: &str, ev: SeqEvent| Series {
                name: name.into(),
                points: t
                    .seq
                    .iter()
                    .filter(|r| r.event == ev)
                    .map(|r| (r.time.as_secs_f64(), (r.seq / MSS as u64) as f64, None))
                    .collect(),
                scatter: true,
            };
            doc.figure(&Figure::lines(
                "chain_4hop_timeseq",
                "TCP time-sequence, 4 hops, seed 1",
                "time (s)",
                "segment number",
                vec![
                    pick("sent", SeqEvent::Sent),
                    pick("retransmitted", SeqEvent::Retransmitted),
                    pick("acked", SeqEvent::Acked),
                ],
            ))?;
            let series = |s: &manetlab::transport::tcp::Series, cap: f64| -> Vec<(f64, f64, Option<f64>)> {
                s.points().iter().map(|&(x, y)| (x.as_secs_f64(), y.min(cap), None)).collect()
            };
            let cw = Figure {
                steps: true,
                ..Figure::lines(
                    "chain_4hop_cwnd",
                    "cwnd and ssthresh, 4 hops, seed 1",
                    "time (s)",
                    "segments",
                    vec![line("cwnd", series(&t.cwnd, f64::INFINITY)), line("ssthresh", series(&t.ssthresh, 64.0))],
                )
            };
            doc.figure(&cw)?;
        }
        Ok(())
    }
}
