//! The `holland` study: TCP over a mobile DSR network, with and without
//! ELFN (tcp-manet-elfn.txt, sections 4-6, figures 3-16).
//!
//! 30 nodes in 1500 m x 300 m move by the paper's pattern scheme (random
//! waypoint, pause 0, node speeds uniform in [0.9v, 1.1v]; the same pattern is
//! replayed at every mean speed v, faster). 802.11 at 2 Mbit/s, 250 m range,
//! DSR with ARP, TCP-Reno with 1460-byte segments and a window of 8 between
//! nodes 0 and 1. Every run of every variant is one job of a resumable sweep
//! (`<out>/runs/`); each run stores the TCP goodput and the expected
//! throughput of its path profile (eq. 1, from the chain table of the same
//! radio/MAC/TCP settings).
//!
//! Run length: 200 s per run (the minimum). The paper's patterns are
//! much longer, but its figures average over 50 patterns; with 200 s the
//! per-pattern path profile at 2 m/s still changes several times (a node
//! covers ~400 m), the standard error of the 50-pattern mean is ~5% of the
//! mean, and the full study fits in 15 minutes on two cores.

use manetlab::study::{chain, sweep, write_file, Check, Figure, Progress, Series, StudyError, StudyOptions, StudyOutput};
use manetlab::config::{SimConfig, Traffic};
use manetlab::metrics::path::{expected_throughput, Span};
use manetlab::metrics::stats::Summary;
use manetlab::scenario::Scenario;
use manetlab::sim::Time;
use manetlab::transport::tcp::SeqEvent;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

pub const SPEEDS: [f64; 4] = [2.0, 10.0, 20.0, 30.0];
const CBR_PPS: [u32; 3] = [5, 10, 20];
const PROBES: [&str; 6] = ["0.5s", "1s", "2s", "5s", "10s", "30s"];
/// The five TCP connections of figures 9 and 16 (the first is the single
/// connection of the other figures).
const FIVE_TCP: [(u32, u32); 5] = [(0, 1), (2, 3), (4, 5), (6, 7), (8, 9)];
/// Ten CBR connections among the eight nodes 2..9.
const CBR_PAIRS: [(u32, u32); 10] = [(2, 3), (4, 5), (6, 7), (8, 9), (3, 6), (5, 8), (7, 2), (9, 4), (2, 8), (5, 3)];

#[derive(Deserialize)]
struct Published {
    source: String,
    finding: Vec<Finding>,
}

#[derive(Deserialize)]
struct Finding {
    id: String,
    figure: String,
    text: String,
}

fn published() -> Published {
    toml::from_str(include_str!("../data/published/holland.toml")).expect("data/published/holland.toml is valid")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Background {
    None,
    Cbr(u32),
    FiveTcp,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Elfn {
    probe: &'static str,
    restore: &'static str,
    probe_packet: &'static str,
}

const ELFN_2S: Elfn = Elfn { probe: "2s", restore: "keep", probe_packet: "first" };
const ELFN_4S: Elfn = Elfn { probe: "4s", restore: "keep", probe_packet: "first" };

/// One configuration of the network run over speeds x patterns.
#[derive(Clone, Debug)]
struct Variant {
    id: String,
    label: String,
    cache_replies: bool,
    elfn: Option<Elfn>,
    background: Background,
    /// Patterns run (the first `patterns` of the study's pattern numbers).
    patterns: usize,
}

impl Variant {
    fn new(id: impl Into<String>, label: impl Into<String>, patterns: usize) -> Variant {
        Variant {
            id: id.into(),
            label: label.into(),
            cache_replies: true,
            elfn: None,
            background: Background::None,
            patterns,
        }
    }
    fn no_cache(mut self) -> Self {
        self.cache_replies = false;
        self
    }
    fn elfn(mut self, e: Elfn) -> Self {
        self.elfn = Some(e);
        self
    }
    fn background(mut self, b: Background) -> Self {
        self.background = b;
        self
    }

    /// The scenario file of this variant at mean speed `v`.
    fn scenario_text(&self, v: f64, duration_s: u64) -> String {
        let mut s = format!(
            "[run]\nname = \"holland {}\"\nduration = \"{duration_s}s\"\n\n\
             [topology]\nkind = \"random\"\nnodes = 30\narea = [\"1500m\", \"300m\"]\n\n\
             [mobility]\nmodel = \"pattern\"\nmean_speed = \"{v}m/s\"\npause = \"0s\"\n\n\
             [mac]\nstandard = \"dsss\"\ndata_rate = \"2Mbps\"\nbasic_rate = \"2Mbps\"\n\n\
             [routing]\nprotocol = \"dsr\"\ncache_replies = {}\n\n[arp]\nmode = \"ns2\"\n",
            self.id, self.cache_replies
        );
        let tcp_pairs: &[(u32, u32)] = if self.background == Background::FiveTcp { &FIVE_TCP } else { &FIVE_TCP[..1] };
        for (i, (a, b)) in tcp_pairs.iter().enumerate() {
            let _ = write!(
                s,
                "\n[[flow]]\nname = \"tcp{i}\"\nsrc = {a}\ndst = {b}\ntype = \"tcp\"\nvariant = \"reno\"\n\
                 mss = \"1460B\"\nmax_window = 8\ninitial_rto = \"6s\"\n"
            );
            if let Some(e) = self.elfn {
                let _ = write!(
                    s,
                    "elfn = true\nelfn_probe = \"{}\"\nelfn_restore = \"{}\"\nelfn_probe_packet = \"{}\"\n",
                    e.probe, e.restore, e.probe_packet
                );
            }
        }
        if let Background::Cbr(pps) = self.background {
            for (i, (a, b)) in CBR_PAIRS.iter().enumerate() {
                let _ = write!(
                    s,
                    "\n[[flow]]\nname = \"cbr{i}\"\nsrc = {a}\ndst = {b}\ntype = \"cbr\"\npacket_size = \"512B\"\n\
                     interval = \"{}ms\"\nstart = \"{}s\"\n",
                    1000 / pps,
                    2 * (i + 1)
                );
            }
        }
        s
    }
}

/// What one run keeps.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Outcome {
    /// Goodput of each TCP flow, bit/s.
    goodput_bps: Vec<f64>,
    /// Expected throughput of each TCP flow's path profile, bit/s.
    expected_bps: Vec<f64>,
    /// Retransmission timeouts of each TCP flow.
    timeouts: Vec<u64>,
    /// The first TCP flow's path profile.
    profile: Vec<Span>,
}

struct Plan {
    duration_s: u64,
    patterns: usize,
    minor_patterns: usize,
    /// Probe intervals of figure 12 (2 s is always run).
    probes: Vec<&'static str>,
    /// CBR rates of figures 8 and 15.
    cbr: Vec<u32>,
    variants: Vec<Variant>,
}

fn plan(opts: &StudyOptions) -> Plan {
    // Quick mode: fewer patterns, shorter runs, and the extreme probe
    // intervals and the middle CBR rate only (every figure still drawn).
    let (duration_s, patterns, minor) = if opts.quick { (100, 8, 2) } else { (200, 50, 10) };
    let patterns = opts.runs.map_or(patterns, |r| r as usize).max(1);
    let minor = minor.min(patterns);
    let probes: Vec<&'static str> = if opts.quick { vec!["0.5s", "2s", "30s"] } else { PROBES.to_vec() };
    let cbr: Vec<u32> = if opts.quick { vec![10] } else { CBR_PPS.to_vec() };
    let mut v = vec![
        Variant::new("reno", "TCP-Reno", patterns),
        Variant::new("reno-nc", "TCP-Reno, no cache replies", patterns).no_cache(),
        Variant::new("elfn-2s", "ELFN, 2 s probes", patterns).elfn(ELFN_2S),
    ];
    for &p in &probes {
        if p != "2s" {
            v.push(
                Variant::new(format!("elfn-{p}"), format!("ELFN, {p} probes"), minor)
                    .elfn(Elfn { probe: p, ..ELFN_2S }),
            );
        }
    }
    v.push(Variant::new("elfn-cwnd1", "W/ELFN (cwnd 1 on restore)", minor).elfn(Elfn { restore: "cwnd1", ..ELFN_2S }));
    v.push(
        Variant::new("elfn-cwnd1-rto", "RTO/W/ELFN (cwnd 1, RTO 6 s on restore)", minor)
            .elfn(Elfn { restore: "cwnd1-rto", ..ELFN_2S }),
    );
    v.push(
        Variant::new("elfn-lowest", "Lowest Rcvd/ELFN (probe lowest lost)", minor)
            .elfn(Elfn { probe_packet: "lost", ..ELFN_2S }),
    );
    for &pps in &cbr {
        let bg = Background::Cbr(pps);
        v.push(Variant::new(format!("cbr{pps}"), format!("{pps} pps CBR"), minor).background(bg));
        v.push(Variant::new(format!("cbr{pps}-nc"), format!("{pps} pps CBR, NC"), minor).background(bg).no_cache());
        v.push(
            Variant::new(format!("cbr{pps}-elfn"), format!("{pps} pps CBR, ELFN"), minor).background(bg).elfn(ELFN_4S),
        );
    }
    v.push(Variant::new("tcp5", "five TCP", minor).background(Background::FiveTcp));
    v.push(Variant::new("tcp5-nc", "five TCP, NC", minor).background(Background::FiveTcp).no_cache());
    v.push(Variant::new("tcp5-elfn", "five TCP, ELFN", minor).background(Background::FiveTcp).elfn(ELFN_4S));
    Plan { duration_s, patterns, minor_patterns: minor, probes, cbr, variants: v }
}

/// Results of one variant: `runs[speed][pattern]`.
struct VariantResult {
    variant: Variant,
    runs: Vec<Vec<Outcome>>,
}

impl VariantResult {
    /// Mean over patterns (and flows) of goodput, bit/s.
    fn mean(&self, si: usize) -> Summary {
        self.runs[si].iter().map(|o| o.goodput_bps.iter().sum::<f64>() / o.goodput_bps.len() as f64).collect()
    }
    fn mean_first(&self, si: usize, n: usize) -> Summary {
        self.runs[si].iter().take(n).map(|o| o.goodput_bps.iter().sum::<f64>() / o.goodput_bps.len() as f64).collect()
    }
    fn expected(&self, si: usize) -> Summary {
        self.runs[si].iter().map(|o| o.expected_bps.iter().sum::<f64>() / o.expected_bps.len() as f64).collect()
    }
    /// Mean measured as a percentage of mean expected.
    fn pct_of_expected(&self, si: usize) -> f64 {
        100.0 * self.mean(si).mean() / self.expected(si).mean().max(1e-9)
    }
}

fn pattern_seed(opts: &StudyOptions, p: usize) -> u64 {
    opts.seed + p as u64
}

pub fn run(opts: &StudyOptions, progress: Progress) -> Result<StudyOutput, StudyError> {
    let pl = plan(opts);
    let duration = Time::from_secs(pl.duration_s);
    let publ = published();

    // Parse every (variant, speed) scenario once; a pattern is a seed.
    let mut scenarios: Vec<Vec<Scenario>> = Vec::new();
    for v in &pl.variants {
        let mut row = Vec::new();
        for &speed in &SPEEDS {
            let text = v.scenario_text(speed, pl.duration_s);
            let sc = Scenario::parse(&text, &format!("holland/{}", v.id), &[] as &[&str])
                .map_err(|e| StudyError::Other(format!("variant {}: {e}", v.id)))?;
            row.push(sc);
        }
        scenarios.push(row);
    }
    // The chain table for expected throughput (same radio/MAC/ARP/TCP).
    let reno_cfg = scenarios[0][0].config(1);
    let Traffic::Tcp { tcp, .. } = &reno_cfg.flows[0].traffic else { unreachable!("flow 0 is TCP") };
    let cache =
        std::env::var_os("MANETLAB_CACHE").map(std::path::PathBuf::from).unwrap_or_else(|| opts.out.join("cache"));
    let (chain_seeds, chain_dur) = if opts.quick { (2, 60) } else { (5, 200) };
    let table = chain::table(&reno_cfg, tcp, &cache, chain_seeds, Time::from_secs(chain_dur));

    let mut jobs = Vec::new();
    for (vi, v) in pl.variants.iter().enumerate() {
        for (si, &speed) in SPEEDS.iter().enumerate() {
            for p in 0..v.patterns {
                let seed = pattern_seed(opts, p);
                let mut cfg = scenarios[vi][si].config(seed);
                cfg.duration = duration;
                jobs.push(sweep::Job::new(format!("{}/v={speed}/pattern={seed}", v.id), cfg));
            }
        }
    }
    let outcomes = sweep::run(&jobs, &opts.sweep_options(progress), |cfg| {
        let r = manetlab::Simulation::new(cfg.clone())?.run();
        let tcp_flows: Vec<&manetlab::metrics::FlowReport> = r.flows.iter().filter(|f| f.kind == "tcp").collect();
        Ok(Outcome {
            goodput_bps: tcp_flows.iter().map(|f| f.goodput_bps).collect(),
            expected_bps: tcp_flows
                .iter()
                .map(|f| f.path_profile.as_deref().map_or(0.0, |p| expected_throughput(p, &table, 0.0)))
                .collect(),
            timeouts: tcp_flows.iter().map(|f| f.tcp.as_ref().map_or(0, |t| t.timeouts)).collect(),
            profile: tcp_flows[0].path_profile.clone().unwrap_or_default(),
        })
    })?;
    let mut it = outcomes.into_iter();
    let results: Vec<VariantResult> = pl
        .variants
        .iter()
        .map(|v| VariantResult {
            variant: v.clone(),
            runs: SPEEDS.iter().map(|_| it.by_ref().take(v.patterns).collect()).collect(),
        })
        .collect();
    let by_id: BTreeMap<&str, &VariantResult> = results.iter().map(|r| (r.variant.id.as_str(), r)).collect();
    let get = |id: &str| by_id[id];

    let mut files = Vec::new();
    let mut checks = Vec::new();
    let mut md = String::new();
    let _ = writeln!(md, "# TCP over a mobile ad hoc network, with and without ELFN (holland)\n");
    let _ = writeln!(md, "Reproduces {}.\n", publ.source);
    let _ = writeln!(
        md,
        "Setup: 30 nodes, 1500 m x 300 m, pattern mobility (random waypoint, pause 0, speeds uniform in \
         [0.9v, 1.1v], the same pattern replayed at every v), 2 Mbit/s 802.11 (WaveLAN, 250 m), DSR with ARP, \
         TCP-Reno 1460 B, window 8, initial RTO 6 s, flow 0 -> 1. **{} s per run**{}; {} patterns for figures \
         3, 4, 7, 11 and the first {} of them for the other figures (the paper: 50 and 30). Expected throughput: \
         eq. 1 over each run's exact path profile, with the chain table of the same settings ({} seeds x {} s): {}.\n",
        pl.duration_s,
        if opts.quick { " (quick mode)" } else { "" },
        pl.patterns,
        pl.minor_patterns,
        chain_seeds,
        chain_dur,
        table.iter().map(|b| format!("{:.0}", b / 1e3)).collect::<Vec<_>>().join(", ") + " kbit/s for 1..10 hops"
    );

    let kb = |x: f64| x / 1e3;
    let speed_series = |r: &VariantResult, name: &str, f: &dyn Fn(&VariantResult, usize) -> Summary| Series {
        name: name.to_string(),
        points: (0..SPEEDS.len())
            .map(|si| {
                let s = f(r, si);
                (SPEEDS[si], kb(s.mean()), Some(kb(s.ci95_half_width())))
            })
            .collect(),
        scatter: false,
    };
    let line = |file_stem: &str, title: &str, series: Vec<Series>| Figure {
        file_stem: file_stem.into(),
        title: title.into(),
        x_label: "mean speed (m/s)".into(),
        y_label: "throughput (kbit/s)".into(),
        series,
        steps: false,
    };

    // ---- Figure 3a: mean measured and expected vs speed.
    let reno = get("reno");
    let _ = writeln!(md, "## Figure 3a: mean throughput vs speed\n");
    let _ = writeln!(
        md,
        "| speed (m/s) | measured (kbit/s) | expected (kbit/s) | measured/expected | RTO timeouts per run |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|");
    for (si, v) in SPEEDS.iter().enumerate() {
        let m = reno.mean(si);
        let e = reno.expected(si);
        let to: Summary = reno.runs[si].iter().map(|o| o.timeouts[0] as f64).collect();
        let _ = writeln!(
            md,
            "| {v} | {:.1} ± {:.1} | {:.1} ± {:.1} | {:.0}% | {:.1} |",
            kb(m.mean()),
            kb(m.ci95_half_width()),
            kb(e.mean()),
            kb(e.ci95_half_width()),
            reno.pct_of_expected(si),
            to.mean()
        );
    }
    md += "\n";
    md += &line(
        "fig3a_mean_vs_speed",
        "Figure 3a: TCP-Reno mean throughput vs speed",
        vec![speed_series(reno, "measured", &|r, s| r.mean(s)), speed_series(reno, "expected", &|r, s| r.expected(s))],
    )
    .write(&opts.out, &mut files)?;

    // ---- Figure 3b: per-pattern throughput at 20 and 30 m/s, sorted.
    let sorted = |si: usize| -> Vec<(f64, f64, Option<f64>)> {
        let mut g: Vec<f64> = reno.runs[si].iter().map(|o| kb(o.goodput_bps[0])).collect();
        g.sort_by(|a, b| a.total_cmp(b));
        g.into_iter().enumerate().map(|(i, y)| ((i + 1) as f64, y, None)).collect()
    };
    md += "\n## Figure 3b: per-pattern throughput at 20 and 30 m/s (sorted)\n\n";
    md += &Figure {
        file_stem: "fig3b_per_pattern".into(),
        title: "Figure 3b: per-pattern throughput (sorted)".into(),
        x_label: "pattern (sorted by throughput)".into(),
        y_label: "throughput (kbit/s)".into(),
        series: vec![
            Series { name: "20 m/s".into(), points: sorted(2), scatter: true },
            Series { name: "30 m/s".into(), points: sorted(3), scatter: true },
        ],
        steps: false,
    }
    .write(&opts.out, &mut files)?;

    // ---- Figures 4 and 11: measured vs expected scatter per speed.
    let scatter = |r: &VariantResult, stem: &str, title: &str| -> Figure {
        let mut series: Vec<Series> = SPEEDS
            .iter()
            .enumerate()
            .map(|(si, v)| Series {
                name: format!("{v} m/s"),
                points: r.runs[si].iter().map(|o| (kb(o.expected_bps[0]), kb(o.goodput_bps[0]), None)).collect(),
                scatter: true,
            })
            .collect();
        let top = table.first().copied().map_or(1500.0, kb);
        series.push(Series {
            name: "diagonal".into(),
            points: vec![(0.0, 0.0, None), (top, top, None)],
            scatter: false,
        });
        Figure {
            file_stem: stem.into(),
            title: title.into(),
            x_label: "expected throughput (kbit/s)".into(),
            y_label: "measured throughput (kbit/s)".into(),
            series,
            steps: false,
        }
    };
    md += "\n## Figure 4: measured vs expected, per pattern\n\n";
    md +=
        &scatter(reno, "fig4_scatter_reno", "Figure 4: TCP-Reno, measured vs expected").write(&opts.out, &mut files)?;
    let below: Vec<f64> = (0..SPEEDS.len())
        .map(|si| {
            let n = reno.runs[si].len() as f64;
            reno.runs[si].iter().filter(|o| o.goodput_bps[0] <= o.expected_bps[0] * 1.05 + 1e3).count() as f64 / n
        })
        .collect();
    let _ = writeln!(
        md,
        "\nPatterns at or below the diagonal (within 5%): {}.\n",
        SPEEDS.iter().zip(&below).map(|(v, b)| format!("{v} m/s {:.0}%", b * 100.0)).collect::<Vec<_>>().join(", ")
    );

    // ---- Figures 5 and 10: patterns found automatically.
    let g = |p: usize, si: usize| reno.runs[si][p].goodput_bps[0];
    let n_pat = reno.runs[0].len();
    let rising = (0..n_pat)
        .max_by(|&a, &b| {
            let score = |p: usize| (g(p, 2) + g(p, 3)) - (g(p, 0) + g(p, 1));
            score(a).total_cmp(&score(b)).then(b.cmp(&a))
        })
        .unwrap_or(0);
    let zero = (0..n_pat)
        .min_by(|&a, &b| {
            let s = |p: usize| (0..SPEEDS.len()).map(|si| g(p, si)).sum::<f64>();
            s(a).total_cmp(&s(b)).then(a.cmp(&b))
        })
        .unwrap_or(0);
    for (fig, p, what) in [
        ("5", rising, "throughput rises with speed"),
        ("10", zero, "lowest throughput over all speeds (zero-throughput pattern)"),
    ] {
        let seed = pattern_seed(opts, p);
        let _ = writeln!(
            md,
            "\n## Figure {fig}: pattern {seed}, {what}\n\nMeasured throughput at 2/10/20/30 m/s: {}.\n",
            (0..SPEEDS.len()).map(|si| format!("{:.1}", kb(g(p, si)))).collect::<Vec<_>>().join(" / ") + " kbit/s"
        );
        // (a) the path profile, against the fraction of the pattern played
        // (the same movie at every speed: 2 m/s plays 1/15 of what 30 m/s does).
        let profile = |si: usize| -> Vec<(f64, f64, Option<f64>)> {
            let prof = &reno.runs[si][p].profile;
            let mut pts: Vec<(f64, f64, Option<f64>)> =
                prof.iter().map(|s| (s.start_s, s.hops.map_or(0.0, |h| h as f64), None)).collect();
            if let Some(last) = prof.last() {
                pts.push((last.end_s, last.hops.map_or(0.0, |h| h as f64), None));
            }
            pts
        };
        md += &Figure {
            file_stem: format!("fig{fig}a_path_profile"),
            title: format!("Figure {fig}a: shortest path 0 -> 1, pattern {seed} (0 = partitioned)"),
            x_label: "time (s)".into(),
            y_label: "hops".into(),
            series: SPEEDS
                .iter()
                .enumerate()
                .map(|(si, v)| Series { name: format!("{v} m/s"), points: profile(si), scatter: false })
                .collect(),
            steps: true,
        }
        .write(&opts.out, &mut files)?;
        // (b) throughput per second at each speed.
        let mut series = Vec::new();
        for (si, &speed) in SPEEDS.iter().enumerate() {
            let mut cfg = scenarios[0][si].config(seed);
            cfg.duration = duration;
            series.push(Series { name: format!("{speed} m/s"), points: per_second(cfg)?, scatter: false });
        }
        md += "\n";
        md += &Figure {
            file_stem: format!("fig{fig}b_per_second"),
            title: format!("Figure {fig}b: TCP throughput per 1 s, pattern {seed}"),
            x_label: "time (s)".into(),
            y_label: "throughput (kbit/s)".into(),
            series,
            steps: true,
        }
        .write(&opts.out, &mut files)?;
    }

    // ---- Figure 7: cache replies on/off.
    let nc = get("reno-nc");
    md += "\n## Figure 7: DSR replies from cache on and off\n\n";
    md += &line(
        "fig7_cache",
        "Figure 7: TCP-Reno, replies from cache on / off",
        vec![
            speed_series(reno, "cache replies", &|r, s| r.mean(s)),
            speed_series(nc, "no cache replies", &|r, s| r.mean(s)),
            speed_series(reno, "expected", &|r, s| r.expected(s)),
        ],
    )
    .write(&opts.out, &mut files)?;

    // ---- Figure 8: with CBR background, cache vs no cache.
    let m = pl.minor_patterns;
    let first_n = |id: &str, name: &str| speed_series(get(id), name, &|r, s| r.mean_first(s, m));
    md += "\n## Figure 8: with 10 CBR connections, cache vs no cache (NC)\n\n";
    let mut s8 = Vec::new();
    for pps in &pl.cbr {
        s8.push(first_n(&format!("cbr{pps}"), &format!("{pps} pps")));
        s8.push(first_n(&format!("cbr{pps}-nc"), &format!("{pps} pps NC")));
    }
    md += &line("fig8_cbr_cache", "Figure 8: TCP-Reno with 10 CBR flows, cache vs NC", s8)
        .write(&opts.out, &mut files)?;

    // ---- Figure 9: five TCP connections.
    md += "\n## Figure 9: five TCP connections, cache vs no cache\n\n";
    md += &line(
        "fig9_five_tcp",
        "Figure 9: mean per-connection throughput of five TCP flows",
        vec![first_n("tcp5", "cache replies"), first_n("tcp5-nc", "no cache replies")],
    )
    .write(&opts.out, &mut files)?;

    // ---- Figure 11: ELFN scatter.
    let elfn = get("elfn-2s");
    md += "\n## Figure 11: TCP with ELFN (2 s probes), measured vs expected\n\n";
    md += &scatter(elfn, "fig11_scatter_elfn", "Figure 11: ELFN (2 s probes), measured vs expected")
        .write(&opts.out, &mut files)?;

    // ---- Figure 12: probe intervals, % of expected.
    md += "\n## Figure 12: probe interval (measured as % of expected)\n\n";
    let pct_first = |r: &VariantResult, si: usize| -> f64 {
        let n = m.min(r.runs[si].len());
        let meas: f64 = r.runs[si][..n].iter().map(|o| o.goodput_bps[0]).sum();
        let exp: f64 = r.runs[si][..n].iter().map(|o| o.expected_bps[0]).sum();
        100.0 * meas / exp.max(1e-9)
    };
    let pct_series = |r: &VariantResult, name: &str| Series {
        name: name.into(),
        points: (0..SPEEDS.len()).map(|si| (SPEEDS[si], pct_first(r, si), None)).collect(),
        scatter: false,
    };
    let mut s12 = vec![pct_series(reno, "TCP-Reno")];
    let _ = writeln!(md, "| variant | {} |", SPEEDS.map(|v| format!("{v} m/s")).join(" | "));
    let _ = writeln!(md, "|---|---|---|---|---|");
    let row = |r: &VariantResult, md: &mut String| {
        let _ = writeln!(
            md,
            "| {} | {} |",
            r.variant.label,
            (0..SPEEDS.len()).map(|si| format!("{:.0}%", pct_first(r, si))).collect::<Vec<_>>().join(" | ")
        );
    };
    row(reno, &mut md);
    for p in &pl.probes {
        let r = get(&format!("elfn-{p}"));
        s12.push(pct_series(r, &format!("ELFN {p}")));
        row(r, &mut md);
    }
    md += "\n";
    md += &Figure {
        file_stem: "fig12_probe_interval".into(),
        title: "Figure 12: measured as % of expected, by probe interval".into(),
        x_label: "mean speed (m/s)".into(),
        y_label: "% of expected throughput".into(),
        series: s12,
        steps: false,
    }
    .write(&opts.out, &mut files)?;

    // ---- Figure 13: restore variants; figure 14: probe choice.
    md += "\n## Figure 13: window and RTO on restore\n\n";
    md += &line(
        "fig13_restore",
        "Figure 13: ELFN restore variants (2 s probes)",
        vec![
            first_n("reno", "TCP-Reno"),
            first_n("elfn-2s", "ELFN (state kept)"),
            first_n("elfn-cwnd1", "W/ELFN"),
            first_n("elfn-cwnd1-rto", "RTO/W/ELFN"),
        ],
    )
    .write(&opts.out, &mut files)?;
    md += "\n## Figure 14: choice of probe packet\n\n";
    md += &line(
        "fig14_probe_packet",
        "Figure 14: probe = first of window vs lowest reported lost",
        vec![first_n("reno", "TCP-Reno"), first_n("elfn-2s", "First/ELFN"), first_n("elfn-lowest", "Lowest Rcvd/ELFN")],
    )
    .write(&opts.out, &mut files)?;

    // ---- Figures 15 and 16: ELFN (4 s) with other traffic.
    md += "\n## Figure 15: ELFN (4 s probes) with 10 CBR connections\n\n";
    let mut s15 = Vec::new();
    for pps in &pl.cbr {
        s15.push(first_n(&format!("cbr{pps}"), &format!("{pps} pps")));
        s15.push(first_n(&format!("cbr{pps}-elfn"), &format!("{pps} pps ELFN")));
    }
    md += &line("fig15_cbr_elfn", "Figure 15: TCP-Reno vs ELFN with 10 CBR flows", s15).write(&opts.out, &mut files)?;
    md += "\n## Figure 16: ELFN (4 s probes) with five TCP connections\n\n";
    md += &line(
        "fig16_five_tcp_elfn",
        "Figure 16: five TCP connections, Reno vs ELFN",
        vec![first_n("tcp5", "TCP-Reno"), first_n("tcp5-elfn", "ELFN")],
    )
    .write(&opts.out, &mut files)?;

    // ---- The paper's findings beside ours.
    let mean = |id: &str, si: usize| get(id).mean_first(si, m).mean();
    let full = |id: &str, si: usize| get(id).mean(si).mean();
    let avg_over_speeds = |f: &dyn Fn(usize) -> f64| (0..SPEEDS.len()).map(f).sum::<f64>() / SPEEDS.len() as f64;
    let mut verdicts: Vec<(String, String, bool, String)> = Vec::new(); // (id, paper, agree, ours)
    let ms: Vec<f64> = (0..4).map(|si| full("reno", si)).collect();
    let es: Vec<f64> = (0..4).map(|si| reno.expected(si).mean()).collect();
    verdicts.push((
        "drop-then-flat".into(),
        String::new(),
        ms[0] > ms[1] && (ms[0] - ms[1]) > (ms[1] - ms[3]).abs(),
        format!(
            "mean {:.0} / {:.0} / {:.0} / {:.0} kbit/s at 2/10/20/30 m/s: drop 2->10 of {:.0}, change 10->30 of {:.0}",
            kb(ms[0]),
            kb(ms[1]),
            kb(ms[2]),
            kb(ms[3]),
            kb(ms[0] - ms[1]),
            kb(ms[3] - ms[1])
        ),
    ));
    verdicts.push((
        "below-expected".into(),
        String::new(),
        ms.iter().zip(&es).all(|(m, e)| m <= e) && below.iter().all(|&b| b >= 0.85),
        format!(
            "mean measured/expected {}; patterns at or below the diagonal {}",
            (0..4).map(|si| format!("{:.0}%", 100.0 * ms[si] / es[si].max(1e-9))).collect::<Vec<_>>().join(" / "),
            below.iter().map(|b| format!("{:.0}%", b * 100.0)).collect::<Vec<_>>().join(" / ")
        ),
    ));
    let near_zero_low = reno.runs[0].iter().filter(|o| o.goodput_bps[0] < 0.1 * o.expected_bps[0].max(1.0)).count();
    let high_fast =
        reno.runs[3].iter().filter(|o| o.goodput_bps[0] > 0.6 * o.expected_bps[0] && o.goodput_bps[0] > 200e3).count();
    verdicts.push((
        "near-zero".into(),
        String::new(),
        near_zero_low > 0 && high_fast > 0,
        format!(
            "{near_zero_low} of {n_pat} patterns below 10% of expected at 2 m/s; {high_fast} above 60% of expected (and 200 kbit/s) at 30 m/s"
        ),
    ));
    let rise = (0..4).map(|si| kb(g(rising, si))).collect::<Vec<_>>();
    verdicts.push((
        "rises-with-speed".into(),
        String::new(),
        rise[2] + rise[3] > rise[0] + rise[1],
        format!(
            "pattern {}: {:.0} / {:.0} / {:.0} / {:.0} kbit/s at 2/10/20/30 m/s",
            pattern_seed(opts, rising),
            rise[0],
            rise[1],
            rise[2],
            rise[3]
        ),
    ));
    let nc_gain = avg_over_speeds(&|si| full("reno-nc", si)) / avg_over_speeds(&|si| full("reno", si)).max(1e-9);
    verdicts.push((
        "no-cache".into(),
        String::new(),
        nc_gain > 1.1,
        format!(
            "no-cache / cache mean throughput {:.2} (per speed {})",
            nc_gain,
            (0..4)
                .map(|si| format!("{:.2}", full("reno-nc", si) / full("reno", si).max(1e-9)))
                .collect::<Vec<_>>()
                .join(" / ")
        ),
    ));
    let ratio = |a: &str, b: &str, si: usize| mean(a, si) / mean(b, si).max(1e-9);
    let cbr_txt = pl
        .cbr
        .iter()
        .map(|p| {
            format!(
                "{p} pps NC/cache {}",
                (0..4)
                    .map(|si| format!("{:.2}", ratio(&format!("cbr{p}-nc"), &format!("cbr{p}"), si)))
                    .collect::<Vec<_>>()
                    .join("/")
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let cbr_hi = pl.cbr.iter().filter(|&&p| p <= 10).all(|p| {
        ratio(&format!("cbr{p}-nc"), &format!("cbr{p}"), 2) + ratio(&format!("cbr{p}-nc"), &format!("cbr{p}"), 3) > 2.0
    });
    verdicts.push(("no-cache-cbr".into(), String::new(), cbr_hi, cbr_txt + " (2/10/20/30 m/s)"));
    let t5 = (0..4).map(|si| ratio("tcp5-nc", "tcp5", si)).collect::<Vec<_>>();
    verdicts.push((
        "no-cache-five-tcp".into(),
        String::new(),
        t5[2] + t5[3] > 2.0,
        format!(
            "five TCP, NC/cache {} at 2/10/20/30 m/s",
            t5.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>().join(" / ")
        ),
    ));
    let el: Vec<f64> = (0..4).map(|si| full("elfn-2s", si) / full("reno", si).max(1e-9)).collect();
    let spread = |id: &str| -> f64 {
        // Mean |measured - expected| / expected over patterns with expected > 0.
        let r = get(id);
        let v: Vec<f64> = r
            .runs
            .iter()
            .flatten()
            .filter(|o| o.expected_bps[0] > 1e3)
            .map(|o| (o.expected_bps[0] - o.goodput_bps[0]).abs() / o.expected_bps[0])
            .collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    verdicts.push((
        "elfn-improves".into(),
        String::new(),
        el.iter().all(|&x| x >= 0.97) && spread("elfn-2s") <= spread("reno"),
        format!(
            "ELFN/Reno mean throughput {} at 2/10/20/30 m/s; mean distance from the diagonal {:.0}% (Reno {:.0}%)",
            el.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>().join(" / "),
            100.0 * spread("elfn-2s"),
            100.0 * spread("reno")
        ),
    ));
    let p30 = avg_over_speeds(&|si| mean("elfn-30s", si)) / avg_over_speeds(&|si| mean("reno", si)).max(1e-9);
    let p2 = avg_over_speeds(&|si| mean("elfn-2s", si)) / avg_over_speeds(&|si| mean("reno", si)).max(1e-9);
    verdicts.push((
        "probe-30s-worse".into(),
        String::new(),
        p30 < 1.0 && p30 < p2,
        format!("ELFN/Reno over speeds: 30 s probes {p30:.2}, 2 s probes {p2:.2}"),
    ));
    let w = avg_over_speeds(&|si| mean("elfn-cwnd1", si)) / avg_over_speeds(&|si| mean("elfn-2s", si)).max(1e-9);
    let rto = avg_over_speeds(&|si| mean("elfn-cwnd1-rto", si)) / avg_over_speeds(&|si| mean("elfn-2s", si)).max(1e-9);
    verdicts.push((
        "restore-window".into(),
        String::new(),
        (w - 1.0).abs() < 0.1 && (rto - 1.0).abs() > (w - 1.0).abs(),
        format!("relative to ELFN keeping its state: cwnd 1 {w:.2}, cwnd 1 + RTO 6 s {rto:.2}"),
    ));
    let lo = avg_over_speeds(&|si| mean("elfn-lowest", si)) / avg_over_speeds(&|si| mean("elfn-2s", si)).max(1e-9);
    verdicts.push((
        "probe-choice".into(),
        String::new(),
        (lo - 1.0).abs() < 0.1,
        format!("lowest-lost probe / first-of-window probe: {lo:.2}"),
    ));
    let e15: Vec<f64> = pl
        .cbr
        .iter()
        .map(|p| {
            avg_over_speeds(&|si| mean(&format!("cbr{p}-elfn"), si))
                / avg_over_speeds(&|si| mean(&format!("cbr{p}"), si)).max(1e-9)
        })
        .collect();
    let e16 = avg_over_speeds(&|si| mean("tcp5-elfn", si)) / avg_over_speeds(&|si| mean("tcp5", si)).max(1e-9);
    verdicts.push((
        "elfn-multi".into(),
        String::new(),
        e15.iter().all(|&x| x >= 0.97) && e16 >= 0.97,
        format!(
            "ELFN/Reno with CBR {} ({} pps), with five TCP {e16:.2}",
            e15.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>().join(" / "),
            pl.cbr.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("/")
        ),
    ));
    md += "\n## The paper's findings beside ours\n\n| figure | the paper says | we measure | agree |\n|---|---|---|---|\n";
    for (id, _, agree, ours) in &verdicts {
        let f = publ.finding.iter().find(|f| &f.id == id).expect("every verdict has a published finding");
        let _ = writeln!(md, "| {} | {} | {} | {} |", f.figure, f.text, ours, if *agree { "yes" } else { "**no**" });
    }

    // ---- Acceptance checks (the issue's).
    for (si, v) in SPEEDS.iter().enumerate() {
        checks.push(Check {
            what: format!("mean measured <= mean expected at {v} m/s"),
            passed: ms[si] <= es[si],
            detail: format!("{:.1} <= {:.1} kbit/s", kb(ms[si]), kb(es[si])),
        });
    }
    checks.push(Check {
        what: "2 m/s mean above the 10 m/s mean".into(),
        passed: ms[0] > ms[1],
        detail: format!("{:.1} > {:.1} kbit/s", kb(ms[0]), kb(ms[1])),
    });
    let elfn_avg = avg_over_speeds(&|si| full("elfn-2s", si));
    let reno_avg = avg_over_speeds(&|si| full("reno", si));
    checks.push(Check {
        what: "ELFN (2 s probes) not worse than Reno on the mean".into(),
        passed: elfn_avg >= reno_avg * 0.98,
        detail: format!("{:.1} vs {:.1} kbit/s averaged over speeds", kb(elfn_avg), kb(reno_avg)),
    });
    md += "\n## Acceptance checks\n\n| check | result | detail |\n|---|---|---|\n";
    for c in &checks {
        let _ = writeln!(md, "| {} | {} | {} |", c.what, if c.passed { "pass" } else { "**FAIL**" }, c.detail);
    }

    let json = serde_json::json!({
        "study": "holland",
        "duration_s": pl.duration_s,
        "patterns": pl.patterns,
        "minor_patterns": pl.minor_patterns,
        "chain_table_bps": table,
        "variants": results.iter().map(|r| serde_json::json!({
            "id": r.variant.id,
            "label": r.variant.label,
            "speeds": SPEEDS.iter().enumerate().map(|(si, v)| serde_json::json!({
                "speed_mps": v,
                "mean_bps": r.mean(si).values(),
                "expected_bps": r.expected(si).values(),
                "per_pattern_bps": r.runs[si].iter().map(|o| o.goodput_bps[0]).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "findings": verdicts.iter().map(|(id, _, agree, ours)| serde_json::json!({"id": id, "agree": agree, "ours": ours})).collect::<Vec<_>>(),
        "checks": checks,
    });
    write_file(&opts.out, "results.json", &(serde_json::to_string_pretty(&json).unwrap() + "\n"), &mut files)?;
    write_file(&opts.out, "report.md", &md, &mut files)?;
    Ok(StudyOutput { markdown: md, files, checks, runs: jobs.len() })
}

/// TCP flow 0's throughput per 1 s interval of one run, kbit/s.
fn per_second(mut cfg: SimConfig) -> Result<Vec<(f64, f64, Option<f64>)>, StudyError> {
    if let Traffic::Tcp { tcp, .. } = &mut cfg.flows[0].traffic {
        tcp.record_seq_log = true;
    }
    let secs = cfg.duration.as_secs_f64().ceil() as usize;
    let (_, trace) = super::runner::run_with_tcp_trace(cfg, 0).map_err(|e| StudyError::Other(e.to_string()))?;
    let mut bytes = vec![0u64; secs.max(1)];
    let mut acked = 0u64;
    for r in trace.iter().flat_map(|t| &t.seq).filter(|r| r.event == SeqEvent::Acked) {
        let s = (r.time.as_secs_f64() as usize).min(bytes.len() - 1);
        bytes[s] += r.seq.saturating_sub(acked);
        acked = acked.max(r.seq);
    }
    Ok(bytes.iter().enumerate().map(|(s, &b)| (s as f64, b as f64 * 8.0 / 1e3, None)).collect())
}
