//! The `kim` study (voip-tcp-coexistence.txt): VoIP calls and downstream
//! TCP sharing a 4-hop 802.11a string behind an Internet gateway.
//!
//! Topology: an Internet server (a wired-only node) -- wired link (100
//! Mbit/s, one-way delay half the "Internet delay", which the paper counts
//! as a round trip) -- gateway G (node 0, also the first radio node) --
//! `hops` radio hops 200 m apart, 802.11a at 12 Mbit/s (basic rate 6) --
//! client (node `hops`). TCP flows go server -> client with 1460-byte
//! segments. A VoIP call is two-way between the gateway and the client: the
//! paper's calls go "to/from an IP-PBX through the gateway" (figure 1), i.e.
//! the PBX sits at the gateway's end of the string and the voice never
//! crosses the Internet link (table 1's 13 ms VoIP delay has no room for
//! 30 ms of Internet delay). Static routes. See `docs/kim.md`.
//!
//! Parts: (a) table 1, bursty CBR data and the calls it leaves room for;
//! (b) capacity: calls alone, TCP alone, 5 calls + 3 TCP; (c) figure 4, the
//! TCP variants vs the number of calls; (d) priority queue / 802.11e EDCA /
//! RTS-CTS vs the number of hops; (e) figure 5, the largest TCP goodput
//! that keeps every call acceptable under window control, data pacing and
//! ACK pacing at the gateway (`net/gateway.rs`), found by searching W or R;
//! (f) scalability with the number of TCP flows and the Internet delay.

use manetlab::study::{sweep, write_file, Check, Figure, Progress, Series, StudyError, StudyOptions, StudyOutput};
use manetlab::config::{FlowConfig, Position, SimConfig, Traffic};
use manetlab::metrics::Report;
use manetlab::net::gateway::GatewayConfig;
use manetlab::net::wired::LinkConfig;
use manetlab::phy::{PhyMode, PhyStandard, Preamble};
use manetlab::queue::QueueKind;
use manetlab::sim::Time;
use manetlab::transport::tcp::{DataSource, TcpConfig, TcpVariant};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// TCP payload per segment (1500-byte IP packets).
pub const MSS: u32 = 1460;
/// A call is supported at this MOS (both directions).
pub const SUPPORTED_MOS: f64 = 3.6;
/// "Unrestricted" TCP: the largest window the sender may use, segments.
pub const TCP_WINDOW: u32 = 64;
/// Table 1's data: 550 kb/s of 1500-byte IP packets.
pub const DATA_BPS: u64 = 550_000;
pub const DATA_IP_BYTES: u32 = 1500;
/// RTS/CTS precedes unicast frames larger than this (MAC bytes): the
/// 1500-byte data frames, not the voice packets nor the TCP ACKs. With it
/// the string carries the paper's 11 calls alone and about 1.4-1.5 Mb/s of
/// TCP alone (paper 1.35); with RTS/CTS on every frame only 6 calls fit,
/// without any TCP alone reaches 1.9 Mb/s.
pub const RTS_THRESHOLD: u32 = 1000;

/// What protects the voice inside the string.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// Drop-tail FIFO, plain DCF.
    Fifo,
    /// Strict-priority queue (voice first) at every node.
    Priority,
    /// Priority queue and 802.11e EDCA (AC_VO / AC_BE).
    Edca,
    /// Priority queue and EDCA without RTS/CTS (the others use RTS/CTS for
    /// frames over [`RTS_THRESHOLD`] bytes).
    EdcaNoRts,
}

impl Scheme {
    pub const ALL: [Scheme; 4] = [Scheme::Fifo, Scheme::Priority, Scheme::Edca, Scheme::EdcaNoRts];
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Fifo => "fifo",
            Scheme::Priority => "priority",
            Scheme::Edca => "priority+edca",
            Scheme::EdcaNoRts => "priority+edca, no RTS",
        }
    }
}

/// The data competing with the calls.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Data {
    None,
    /// `flows` bulk TCP connections server -> client.
    Tcp {
        flows: u32,
        variant: TcpVariant,
    },
    /// Table 1: 550 kb/s of 1500-byte UDP packets in bursts of `burst`,
    /// gateway -> client.
    Bursty {
        burst: u32,
    },
}

/// TCP control at the gateway (`net/gateway.rs`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Gw {
    None,
    /// Advertised window of forwarded ACKs clamped to W segments.
    Window(u32),
    /// TCP data entering the radio shaped to R bit/s.
    Pacing(u64),
    /// ACKs spaced so that the data they release arrives at R bit/s.
    AckPacing(u64),
}

impl Gw {
    fn key(self) -> String {
        match self {
            Gw::None => "none".into(),
            Gw::Window(w) => format!("window{w}"),
            Gw::Pacing(r) => format!("pacing{}k", r / 1000),
            Gw::AckPacing(r) => format!("ackpacing{}k", r / 1000),
        }
    }
}

/// One point of the study (without the seed).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Setup {
    pub hops: u32,
    pub calls: u32,
    pub data: Data,
    pub scheme: Scheme,
    /// Round-trip delay of the wired part.
    pub internet_delay: Time,
    pub gw: Gw,
    pub duration: Time,
}

impl Setup {
    /// The 4-hop string with `calls` calls and `data`, FIFO, 30 ms.
    pub fn string(calls: u32, data: Data, duration: Time) -> Setup {
        Setup { hops: 4, calls, data, scheme: Scheme::Fifo, internet_delay: Time::from_ms(30), gw: Gw::None, duration }
    }

    /// Unique, readable key of the point (the sweep adds the seed).
    pub fn key(&self) -> String {
        let data = match self.data {
            Data::None => "none".to_string(),
            Data::Tcp { flows, variant } => format!("tcp{flows}-{}", variant.name()),
            Data::Bursty { burst } => format!("cbr-burst{burst}"),
        };
        format!(
            "hops={}/calls={}/data={}/scheme={}/inet={}ms/gw={}/dur={}s",
            self.hops,
            self.calls,
            data,
            self.scheme.name(),
            self.internet_delay.as_ns() / 1_000_000,
            self.gw.key(),
            self.duration.as_secs_f64()
        )
    }

    /// The run config for `seed`.
    pub fn config(&self, seed: u64) -> SimConfig {
        let radios = self.hops as usize + 1;
        let server = radios as u32;
        let client = self.hops;
        let mut nodes = SimConfig::chain_positions(radios, 200.0);
        nodes.push(Position::new(-1000.0, 0.0));
        let mut cfg =
            SimConfig { seed, duration: self.duration, warmup: Time::from_secs(3), nodes, ..SimConfig::default() };
        cfg.mac.phy = PhyMode {
            standard: PhyStandard::Ofdm,
            preamble: Preamble::Long,
            data_rate: 12_000_000,
            basic_rate: 6_000_000,
        };
        cfg.mac.rts_threshold = Some(RTS_THRESHOLD);
        match self.scheme {
            Scheme::Fifo => {}
            Scheme::Priority => cfg.queue.kind = QueueKind::Priority,
            Scheme::Edca => {
                cfg.queue.kind = QueueKind::Priority;
                cfg.mac.edca = true;
            }
            Scheme::EdcaNoRts => {
                cfg.queue.kind = QueueKind::Priority;
                cfg.mac.edca = true;
                cfg.mac.rts_threshold = None;
            }
        }
        cfg.wired.links.push(LinkConfig {
            a: server,
            b: 0,
            bandwidth_bps: 100_000_000,
            delay: Time::from_ns(self.internet_delay.as_ns() / 2),
            queue: 100,
        });
        cfg.wired.wired_only.push(server);
        if self.gw != Gw::None {
            let mut g = GatewayConfig { node: 0, ..GatewayConfig::default() };
            match self.gw {
                Gw::None => {}
                Gw::Window(w) => g.window = Some(w),
                Gw::Pacing(r) => g.pacing = Some(r as f64),
                Gw::AckPacing(r) => g.ack_pacing = Some(r as f64),
            }
            cfg.gateway = Some(g);
        }
        for i in 0..self.calls {
            cfg.flows.push(FlowConfig {
                name: format!("call{}", i + 1),
                src: 0,
                dst: client,
                traffic: Traffic::Voip(manetlab::app::voip::VoipConfig::default()),
                start: Time::ZERO,
                stop: None,
            });
        }
        match self.data {
            Data::None => {}
            Data::Tcp { flows, variant } => {
                for i in 0..flows {
                    let tcp = TcpConfig {
                        mss: MSS,
                        max_window: TCP_WINDOW,
                        variant,
                        record_series: false,
                        record_seq_log: false,
                        ..TcpConfig::default()
                    };
                    cfg.flows.push(FlowConfig {
                        name: format!("tcp{}", i + 1),
                        src: server,
                        dst: client,
                        traffic: Traffic::Tcp { tcp, data: DataSource::Bulk },
                        start: Time::from_ms(500 + 200 * i as u64),
                        stop: None,
                    });
                }
            }
            Data::Bursty { burst } => {
                let size = DATA_IP_BYTES - manetlab::net::IP_HEADER_BYTES - manetlab::net::packet::UDP_HEADER_BYTES;
                let interval = Time::from_ns(DATA_IP_BYTES as u64 * 8 * 1_000_000_000 / DATA_BPS);
                let traffic = if burst <= 1 {
                    Traffic::Cbr { size, interval, jitter: Time::ZERO }
                } else {
                    Traffic::BurstyCbr { size, interval, burst }
                };
                cfg.flows.push(FlowConfig {
                    name: "data".into(),
                    src: 0,
                    dst: client,
                    traffic,
                    start: Time::from_ms(500),
                    stop: None,
                });
            }
        }
        cfg
    }
}

/// What the study keeps of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Each call's MOS (its worse direction).
    pub mos: Vec<f64>,
    /// Calls with MOS >= 3.6 in both directions.
    pub supported: u32,
    /// Mean over calls and directions of the total loss (network + late), %.
    pub voip_loss_pct: Option<f64>,
    /// Mean over calls and directions of the mean one-way network delay, ms.
    pub voip_delay_ms: Option<f64>,
    /// Goodput of the data (TCP or CBR) flows, summed, kbit/s.
    pub data_kbps: f64,
    /// Mean one-way delay of the data flows' packets, ms.
    pub data_delay_ms: Option<f64>,
    /// TCP: bytes acknowledged / bytes sent (retransmissions included).
    pub goodput_ratio: Option<f64>,
    pub retransmissions: u64,
    pub timeouts: u64,
    /// Packets the gateway's shapers dropped (FIFO full).
    pub pacing_drops: u64,
    /// The run's packet audit balanced.
    pub audit_ok: bool,
}

impl RunSummary {
    pub fn of(r: &Report) -> RunSummary {
        let mut mos = Vec::new();
        let (mut loss, mut delay, mut nd) = (0.0, 0.0, 0usize);
        let (mut data_bps, mut data_delay, mut ndata) = (0.0, 0.0, 0usize);
        let (mut acked, mut sent, mut retx, mut tos) = (0u64, 0u64, 0u64, 0u64);
        let mut supported = 0;
        for f in &r.flows {
            if let Some(v) = &f.voip {
                mos.push(v.mos);
                supported += v.supported as u32;
                for d in [&v.forward, &v.backward] {
                    loss += d.total_loss * 100.0;
                    if d.delay_mean_ms.is_finite() {
                        delay += d.delay_mean_ms;
                    }
                    nd += 1;
                }
            } else {
                data_bps += f.goodput_bps;
                if f.delay_mean_s.is_finite() {
                    data_delay += f.delay_mean_s * 1e3;
                    ndata += 1;
                }
                if let Some(t) = &f.tcp {
                    acked += t.bytes_acked;
                    sent += t.segments_sent * MSS as u64;
                    retx += t.retransmissions;
                    tos += t.timeouts;
                }
            }
        }
        // None rather than NaN: JSON has no NaN, and a run file must load back.
        let avg = |s: f64, n: usize| (n > 0).then(|| s / n as f64);
        RunSummary {
            mos,
            supported,
            voip_loss_pct: avg(loss, nd),
            voip_delay_ms: avg(delay, nd),
            data_kbps: data_bps / 1e3,
            data_delay_ms: avg(data_delay, ndata),
            goodput_ratio: (sent > 0).then(|| acked as f64 / sent as f64),
            retransmissions: retx,
            timeouts: tos,
            pacing_drops: r.gateway.map_or(0, |g| g.pacing_drops),
            audit_ok: r.audit.balances(),
        }
    }

    /// The worst call's MOS (infinite without calls: nothing to protect).
    pub fn worst_mos(&self) -> f64 {
        self.mos.iter().copied().fold(f64::INFINITY, f64::min)
    }

    pub fn mean_mos(&self) -> f64 {
        self.mos.iter().sum::<f64>() / self.mos.len() as f64
    }
}

/// The runs of a study, keyed by point, each point run with every seed.
pub struct Plan {
    seeds: Vec<u64>,
    jobs: Vec<sweep::Job>,
    index: HashMap<String, usize>,
    results: Vec<RunSummary>,
}

impl Plan {
    pub fn new(seeds: Vec<u64>) -> Plan {
        Plan { seeds, jobs: Vec::new(), index: HashMap::new(), results: Vec::new() }
    }

    /// Adds a point (once, however often it is asked for).
    pub fn add(&mut self, s: &Setup) {
        let key = s.key();
        if self.index.contains_key(&key) {
            return;
        }
        self.index.insert(key.clone(), self.jobs.len());
        for &seed in &self.seeds {
            self.jobs.push(sweep::Job::new(format!("{key}/seed={seed}"), s.config(seed)));
        }
    }

    pub fn runs(&self) -> usize {
        self.jobs.len()
    }

    /// Runs every job (in parallel, resumable).
    pub fn run(&mut self, opts: &StudyOptions, progress: Progress) -> Result<(), StudyError> {
        self.results = sweep::run(&self.jobs, &opts.sweep_options(progress), |cfg| {
            Ok(RunSummary::of(&manetlab::Simulation::new(cfg.clone())?.run()))
        })?;
        Ok(())
    }

    /// The runs of a point, one per seed.
    pub fn get(&self, s: &Setup) -> &[RunSummary] {
        let i = *self.index.get(&s.key()).unwrap_or_else(|| panic!("point {} not planned", s.key()));
        &self.results[i..i + self.seeds.len()]
    }

    /// Mean over seeds of `f`.
    pub fn mean(&self, s: &Setup, f: impl Fn(&RunSummary) -> f64) -> f64 {
        let r = self.get(s);
        r.iter().map(f).sum::<f64>() / r.len() as f64
    }

    /// Every call acceptable: the mean over seeds of the worst call's MOS is
    /// at least 3.6.
    pub fn acceptable(&self, s: &Setup) -> bool {
        self.mean(s, |r| r.worst_mos().min(5.0)) >= SUPPORTED_MOS
    }

    pub fn all_audits_balance(&self) -> (usize, usize) {
        (self.results.iter().filter(|r| r.audit_ok).count(), self.results.len())
    }
}

/// The number of calls supported: the largest count of `counts` (ascending)
/// such that it and every smaller count in the list are acceptable.
pub fn capacity(counts: &[u32], ok: impl Fn(u32) -> bool) -> u32 {
    let mut best = 0;
    for &n in counts {
        if !ok(n) {
            break;
        }
        best = n;
    }
    best
}

#[derive(Deserialize)]
struct Table1 {
    source: String,
    burst: Vec<u32>,
    calls: Vec<u32>,
    voip_loss_pct: Vec<f64>,
    voip_delay_ms: Vec<f64>,
    data_kbps: Vec<f64>,
    data_delay_ms: Vec<f64>,
}

#[derive(Deserialize)]
struct Capacity {
    source: String,
    calls_alone: u32,
    tcp_alone_mbps: f64,
    mixed_calls: u32,
    mixed_tcp_flows: u32,
    mixed_mos_below: f64,
    mixed_tcp_mbps: f64,
}

#[derive(Deserialize)]
struct Variants {
    source: String,
    mos_below_at_10_calls: f64,
    westwood_goodput_ratio: f64,
}

#[derive(Deserialize)]
struct Priority {
    source: String,
    capacity_fraction: f64,
    max_hops_with_calls: u32,
}

#[derive(Deserialize)]
struct Window {
    source: String,
    calls: u32,
    max_flows_30ms: u32,
    max_flows_150ms: u32,
    example_calls: u32,
    example_window: u32,
    example_tcp_kbps: f64,
    example_window_100ms: u32,
    improvement_without_voip: f64,
}

#[derive(Deserialize)]
struct Published {
    table1: Table1,
    capacity: Capacity,
    variants: Variants,
    priority: Priority,
    window: Window,
}

fn published() -> Published {
    toml::from_str(include_str!("../data/published/kim.toml")).expect("data/published/kim.toml is valid")
}

/// The five variants of figure 4.
pub const VARIANTS: [TcpVariant; 5] =
    [TcpVariant::Reno, TcpVariant::Vegas, TcpVariant::WestwoodPlus, TcpVariant::Cubic, TcpVariant::Compound];

fn variant_label(v: TcpVariant) -> &'static str {
    match v {
        TcpVariant::Reno => "Reno",
        TcpVariant::NewReno => "NewReno",
        TcpVariant::Vegas => "Vegas",
        TcpVariant::WestwoodPlus => "Westwood+",
        TcpVariant::Cubic => "CUBIC",
        TcpVariant::Compound => "Compound",
    }
}

/// How much of the study to run.
struct Sizes {
    duration: Time,
    /// Call counts searched for table 1 (with data) and calls alone.
    table1_calls: Vec<u32>,
    alone_calls: Vec<u32>,
    /// Call counts of figure 4.
    fig4_calls: Vec<u32>,
    /// Hop counts and call counts of the priority part.
    prio_hops: Vec<u32>,
    prio_calls: Vec<u32>,
    prio_schemes: Vec<Scheme>,
    /// Figure 5: call counts, windows (segments) and rates (bit/s) tried.
    fig5_calls: Vec<u32>,
    fig5_windows: Vec<u32>,
    fig5_rates: Vec<u64>,
    /// Scalability: TCP flow counts, Internet delays (ms), windows, rates.
    scal_flows: Vec<u32>,
    scal_delays: Vec<u64>,
    scal_windows: Vec<u32>,
    scal_rates: Vec<u64>,
}

impl Sizes {
    fn new(quick: bool) -> Sizes {
        if quick {
            Sizes {
                duration: Time::from_secs(13),
                table1_calls: (1..=7).collect(),
                alone_calls: (1..=14).collect(),
                fig4_calls: vec![2, 6, 10],
                prio_hops: vec![1, 4],
                prio_calls: vec![1, 2, 3, 4, 6, 8, 12, 16, 24, 32],
                prio_schemes: vec![Scheme::Fifo, Scheme::Edca],
                fig5_calls: vec![0, 1, 3, 6, 9],
                fig5_windows: vec![1, 2, 4, 8],
                fig5_rates: vec![300_000, 600_000, 900_000],
                scal_flows: vec![2, 16],
                scal_delays: vec![30],
                scal_windows: vec![1, 2, 4],
                scal_rates: vec![300_000, 600_000],
            }
        } else {
            Sizes {
                duration: Time::from_secs(30),
                table1_calls: (1..=10).collect(),
                alone_calls: (1..=16).collect(),
                fig4_calls: (1..=12).collect(),
                prio_hops: vec![1, 2, 3, 4],
                prio_calls: vec![1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64],
                prio_schemes: Scheme::ALL.to_vec(),
                fig5_calls: (0..=11).collect(),
                fig5_windows: vec![1, 2, 3, 4, 5, 6, 8, 10, 12, 16],
                fig5_rates: (1..=10).map(|k| k * 150_000).collect(),
                scal_flows: vec![1, 2, 4, 6, 8, 10, 12, 14, 16, 20],
                scal_delays: vec![30, 100, 150],
                scal_windows: vec![1, 2, 3, 4, 6, 8, 12, 16],
                scal_rates: vec![150_000, 300_000, 450_000, 600_000, 900_000, 1_200_000, 1_500_000],
            }
        }
    }
}

/// The best control setting: the largest mean TCP goodput (kbit/s) among
/// the settings that keep every call acceptable, with the setting.
fn best<P: Copy>(plan: &Plan, params: &[P], setup: impl Fn(P) -> Setup) -> Option<(P, f64)> {
    params
        .iter()
        .map(|&p| (p, setup(p)))
        .filter(|(_, s)| plan.acceptable(s))
        .map(|(p, s)| (p, plan.mean(&s, |r| r.data_kbps)))
        .fold(None, |acc: Option<(P, f64)>, x| match acc {
            Some(a) if a.1 >= x.1 => Some(a),
            _ => Some(x),
        })
}

fn reno(flows: u32) -> Data {
    Data::Tcp { flows, variant: TcpVariant::Reno }
}

pub fn run(opts: &StudyOptions, progress: Progress) -> Result<StudyOutput, StudyError> {
    let n_seeds = opts.runs.unwrap_or(if opts.quick { 1 } else { 3 }).max(1) as u64;
    let seeds: Vec<u64> = (0..n_seeds).map(|k| opts.seed + k).collect();
    let z = Sizes::new(opts.quick);
    let dur = z.duration;
    let pubd = published();
    let mut plan = Plan::new(seeds.clone());

    // (a) table 1.
    for burst in 1..=5 {
        for &n in &z.table1_calls {
            plan.add(&Setup::string(n, Data::Bursty { burst }, dur));
        }
        plan.add(&Setup::string(5, Data::Bursty { burst }, dur));
    }
    // (b) capacity.
    for &n in &z.alone_calls {
        plan.add(&Setup::string(n, Data::None, dur));
    }
    plan.add(&Setup::string(0, reno(1), dur));
    plan.add(&Setup::string(pubd.capacity.mixed_calls, reno(pubd.capacity.mixed_tcp_flows), dur));
    for &n in &z.table1_calls {
        plan.add(&Setup::string(n, reno(1), dur));
    }
    // (c) figure 4.
    for v in VARIANTS {
        plan.add(&Setup::string(0, Data::Tcp { flows: 1, variant: v }, dur));
        for &n in &z.fig4_calls {
            plan.add(&Setup::string(n, Data::Tcp { flows: 1, variant: v }, dur));
        }
    }
    // (d) priority vs hops.
    for &h in &z.prio_hops {
        for &n in &z.prio_calls {
            plan.add(&Setup { hops: h, ..Setup::string(n, Data::None, dur) });
            plan.add(&Setup { hops: h, scheme: Scheme::Edca, ..Setup::string(n, Data::None, dur) });
            for &s in &z.prio_schemes {
                plan.add(&Setup { hops: h, scheme: s, ..Setup::string(n, reno(1), dur) });
            }
        }
    }

    // (e) figure 5.
    let fig5 = |n: u32, gw: Gw| Setup { gw, ..Setup::string(n, reno(1), dur) };
    for &n in &z.fig5_calls {
        plan.add(&fig5(n, Gw::None));
        for &w in &z.fig5_windows {
            plan.add(&fig5(n, Gw::Window(w)));
        }
        for &r in &z.fig5_rates {
            plan.add(&fig5(n, Gw::Pacing(r)));
            plan.add(&fig5(n, Gw::AckPacing(r)));
        }
    }
    // (f) scalability: 3 calls, F flows, Internet delay d.
    let scal_calls = pubd.window.calls;
    let scal = |f: u32, d: u64, gw: Gw| Setup {
        internet_delay: Time::from_ms(d),
        gw,
        ..Setup::string(scal_calls, reno(f), dur)
    };
    for &f in &z.scal_flows {
        for &d in &z.scal_delays {
            for &w in &z.scal_windows {
                plan.add(&scal(f, d, Gw::Window(w)));
            }
            for &r in &z.scal_rates {
                plan.add(&scal(f, d, Gw::Pacing(r)));
            }
        }
    }

    plan.run(opts, progress)?;

    let mut md = String::new();
    let mut checks = Vec::new();
    let mut files = Vec::new();
    let mut json = serde_json::Map::new();
    md += "# Kim study: VoIP and TCP coexistence in a wireless multihop string (voip-tcp-coexistence.txt)\n\n";
    md += &format!(
        "Server -- wired link (100 Mbit/s, Internet delay 30 ms round trip) -- gateway -- 4 hops of 802.11a at 12 Mbit/s, \
         200 m apart -- client; static routes; drop-tail 50 and DCF unless stated; RTS/CTS before frames over {RTS_THRESHOLD} bytes \
         (the data frames). Calls are two-way G.729a (50 packets/s, 20-byte \
         voice) between the gateway (the IP-PBX side) and the client; a call is supported at MOS >= 3.6 in both directions. \
         TCP: bulk, server -> client, 1460-byte segments, window up to {TCP_WINDOW} segments (\"unrestricted\"). \
         {} s runs (first 3 s not measured), {} seed(s) per point{}. A number of calls is *acceptable* when the mean over \
         seeds of the worst call's MOS is >= 3.6; *calls supported* is the largest count such that it and every smaller \
         count tried are acceptable.\n\n",
        dur.as_secs_f64(),
        seeds.len(),
        if opts.quick { " (quick mode: fewer points, shorter runs)" } else { "" }
    );

    // ---- (a) table 1 ----
    let t1 = &pubd.table1;
    md += "## Table 1: data burstiness\n\n";
    md += &format!("Source: {}.\n\n", t1.source);
    md += "550 kb/s of 1500-byte UDP data from the gateway to the client in bursts of k packets (same mean rate). \
           Loss and delays are at 5 calls, as in the paper's caption.\n\n";
    md += "| burst | calls (paper) | calls (ours) | VoIP loss % (paper) | ours | VoIP delay ms (paper) | ours | data kb/s (paper) | ours | data delay ms (paper) | ours |\n";
    md += "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    let mut t1_calls = Vec::new();
    let mut t1_rows = Vec::new();
    for (i, &b) in t1.burst.iter().enumerate() {
        let cap = capacity(&z.table1_calls, |n| plan.acceptable(&Setup::string(n, Data::Bursty { burst: b }, dur)));
        let s5 = Setup::string(5, Data::Bursty { burst: b }, dur);
        let row = (
            plan.mean(&s5, |r| r.voip_loss_pct.unwrap_or(f64::NAN)),
            plan.mean(&s5, |r| r.voip_delay_ms.unwrap_or(f64::NAN)),
            plan.mean(&s5, |r| r.data_kbps),
            plan.mean(&s5, |r| r.data_delay_ms.unwrap_or(f64::NAN)),
        );
        md += &format!(
            "| {b} | {} | {cap} | {:.2} | {:.2} | {:.0} | {:.1} | {:.0} | {:.0} | {:.0} | {:.1} |\n",
            t1.calls[i],
            t1.voip_loss_pct[i],
            row.0,
            t1.voip_delay_ms[i],
            row.1,
            t1.data_kbps[i],
            row.2,
            t1.data_delay_ms[i],
            row.3
        );
        t1_calls.push(cap);
        t1_rows.push(row);
    }
    json.insert(
        "table1".into(),
        serde_json::json!({ "calls": t1_calls, "at5": t1_rows.iter().map(|r| serde_json::json!({"voip_loss_pct": r.0, "voip_delay_ms": r.1, "data_kbps": r.2, "data_delay_ms": r.3})).collect::<Vec<_>>() }),
    );
    md += "\n";
    md += &Figure {
        file_stem: "kim_table1".into(),
        title: "Calls supported beside 550 kb/s of bursty data".into(),
        x_label: "burst length (packets)".into(),
        y_label: "calls supported".into(),
        series: vec![
            Series {
                name: "paper".into(),
                points: t1.burst.iter().zip(&t1.calls).map(|(&b, &c)| (b as f64, c as f64, None)).collect(),
                scatter: false,
            },
            Series {
                name: "manetlab".into(),
                points: t1.burst.iter().zip(&t1_calls).map(|(&b, &c)| (b as f64, c as f64, None)).collect(),
                scatter: false,
            },
        ],
        steps: false,
    }
    .write(&opts.out, &mut files)?;
    md += "\n";
    checks.push(Check {
        what: "table 1: calls supported do not increase with the burst length".into(),
        passed: t1_calls.windows(2).all(|w| w[1] <= w[0]),
        detail: format!("{t1_calls:?} (paper {:?})", t1.calls),
    });
    checks.push(Check {
        what: "table 1: at 5 calls, bursts of 5 give the calls a higher delay than bursts of 1".into(),
        passed: t1_rows[4].1 > t1_rows[0].1,
        detail: format!("{:.1} vs {:.1} ms (paper 21 vs 13)", t1_rows[4].1, t1_rows[0].1),
    });
    checks.push(Check {
        what: "table 1: at 5 calls, bursts of 5 give the data a higher delay than bursts of 1".into(),
        passed: t1_rows[4].3 > t1_rows[0].3,
        detail: format!("{:.1} vs {:.1} ms (paper 31 vs 15)", t1_rows[4].3, t1_rows[0].3),
    });

    // ---- (b) capacity ----
    let c = &pubd.capacity;
    let alone = capacity(&z.alone_calls, |n| plan.acceptable(&Setup::string(n, Data::None, dur)));
    let with_tcp = capacity(&z.table1_calls, |n| plan.acceptable(&Setup::string(n, reno(1), dur)));
    let tcp_alone = plan.mean(&Setup::string(0, reno(1), dur), |r| r.data_kbps) / 1e3;
    let mixed = Setup::string(c.mixed_calls, reno(c.mixed_tcp_flows), dur);
    let mixed_worst = plan.mean(&mixed, |r| r.worst_mos());
    let mixed_mean = plan.mean(&mixed, |r| r.mean_mos());
    let mixed_tcp = plan.mean(&mixed, |r| r.data_kbps) / 1e3;
    md += "## Capacity of the string\n\n";
    md += &format!("Source: {}.\n\n", c.source);
    md += "| case | paper | manetlab |\n|---|---:|---:|\n";
    md += &format!(
        "| calls supported, VoIP alone (searched up to {}) | {} | {alone} |\n",
        z.alone_calls.last().unwrap(),
        c.calls_alone
    );
    md += &format!("| TCP-Reno goodput, TCP alone (1 flow) | {:.2} Mb/s | {tcp_alone:.2} Mb/s |\n", c.tcp_alone_mbps);
    md += &format!(
        "| {} calls + {} TCP-Reno flows: MOS (worst call / mean) | < {:.0} | {mixed_worst:.2} / {mixed_mean:.2} |\n",
        c.mixed_calls, c.mixed_tcp_flows, c.mixed_mos_below
    );
    md += &format!(
        "| {} calls + {} TCP-Reno flows: TCP goodput | {:.2} Mb/s | {mixed_tcp:.2} Mb/s |\n",
        c.mixed_calls, c.mixed_tcp_flows, c.mixed_tcp_mbps
    );
    md += &format!("| calls supported beside 1 unrestricted TCP-Reno flow | (not given) | {with_tcp} |\n\n");
    json.insert(
        "capacity".into(),
        serde_json::json!({"calls_alone": alone, "calls_with_tcp": with_tcp, "tcp_alone_mbps": tcp_alone, "mixed_worst_mos": mixed_worst, "mixed_mean_mos": mixed_mean, "mixed_tcp_mbps": mixed_tcp}),
    );
    checks.push(Check {
        what: "acceptance: VoIP alone supports more calls than beside unrestricted TCP".into(),
        passed: alone > with_tcp,
        detail: format!("{alone} alone vs {with_tcp} with 1 TCP-Reno flow"),
    });
    checks.push(Check {
        what: "calls alone within 30% of the paper's 11".into(),
        passed: (alone as f64 - c.calls_alone as f64).abs() <= 0.3 * c.calls_alone as f64,
        detail: format!("{alone}"),
    });
    checks.push(Check {
        what: "TCP alone within 25% of the paper's 1.35 Mb/s".into(),
        passed: (tcp_alone - c.tcp_alone_mbps).abs() <= 0.25 * c.tcp_alone_mbps,
        detail: format!("{tcp_alone:.2} Mb/s"),
    });
    checks.push(Check {
        what: "5 calls + 3 TCP flows: the calls are not supported (paper: MOS < 2)".into(),
        passed: mixed_worst < SUPPORTED_MOS,
        detail: format!("worst MOS {mixed_worst:.2}, mean {mixed_mean:.2}"),
    });
    checks.push(Check {
        what: "5 calls + 3 TCP flows: TCP gets less than TCP alone (paper 0.84 vs 1.35 Mb/s)".into(),
        passed: mixed_tcp < tcp_alone,
        detail: format!("{mixed_tcp:.2} vs {tcp_alone:.2} Mb/s"),
    });

    // ---- (c) figure 4 ----
    let v = &pubd.variants;
    md += "## Figure 4: TCP variants\n\n";
    md += &format!("Source: {}.\n\n", v.source);
    md += "One TCP flow of each variant beside 1..N calls. Left: mean MOS of the calls; right: TCP goodput; \
           also goodput / sent (bytes acknowledged over bytes sent, retransmissions included).\n\n";
    let mut s_mos = Vec::new();
    let mut s_gp = Vec::new();
    let mut s_ratio = Vec::new();
    md += "| variant | calls supported | mean MOS over the call counts | TCP alone Mb/s | mean goodput with calls Mb/s | goodput / sent | timeouts / run |\n|---|---:|---:|---:|---:|---:|---:|\n";
    let mut var_rows = Vec::new();
    for vt in VARIANTS {
        let d = Data::Tcp { flows: 1, variant: vt };
        let pts = |f: &dyn Fn(&RunSummary) -> f64| -> Vec<(f64, f64, Option<f64>)> {
            z.fig4_calls.iter().map(|&n| (n as f64, plan.mean(&Setup::string(n, d, dur), f), None)).collect()
        };
        let mos = pts(&|r| r.mean_mos());
        let gp = pts(&|r| r.data_kbps / 1e3);
        let ratio = pts(&|r| r.goodput_ratio.unwrap_or(f64::NAN));
        let cap = capacity(&z.fig4_calls, |n| plan.acceptable(&Setup::string(n, d, dur)));
        let alone = plan.mean(&Setup::string(0, d, dur), |r| r.data_kbps / 1e3);
        let avg = |p: &[(f64, f64, Option<f64>)]| p.iter().map(|x| x.1).sum::<f64>() / p.len() as f64;
        let tos =
            z.fig4_calls.iter().map(|&n| plan.mean(&Setup::string(n, d, dur), |r| r.timeouts as f64)).sum::<f64>()
                / z.fig4_calls.len() as f64;
        let row = (vt, cap, avg(&mos), alone, avg(&gp), avg(&ratio));
        md += &format!(
            "| {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.1} |\n",
            variant_label(vt),
            row.1,
            row.2,
            row.3,
            row.4,
            row.5,
            tos
        );
        var_rows.push(row);
        let name = variant_label(vt).to_string();
        s_mos.push(Series { name: name.clone(), points: mos, scatter: false });
        s_gp.push(Series { name: name.clone(), points: gp, scatter: false });
        s_ratio.push(Series { name, points: ratio, scatter: false });
    }
    md += "\n";
    s_mos.push(Series {
        name: "MOS 3.6".into(),
        points: vec![
            (*z.fig4_calls.first().unwrap() as f64, SUPPORTED_MOS, None),
            (*z.fig4_calls.last().unwrap() as f64, SUPPORTED_MOS, None),
        ],
        scatter: false,
    });
    for (stem, title, y, series) in [
        ("kim_fig4_mos", "VoIP quality beside one TCP flow", "mean MOS of the calls", s_mos),
        ("kim_fig4_goodput", "TCP goodput beside the calls", "TCP goodput (Mb/s)", s_gp),
        ("kim_fig4_ratio", "TCP goodput / sent", "bytes acknowledged / bytes sent", s_ratio),
    ] {
        md += &Figure::lines(stem, title, "VoIP calls", y, series).write(&opts.out, &mut files)?;
        md += "\n";
    }
    json.insert(
        "variants".into(),
        serde_json::Value::Array(
            var_rows
                .iter()
                .map(|r| serde_json::json!({"variant": r.0.name(), "calls_supported": r.1, "mean_mos": r.2, "tcp_alone_mbps": r.3, "mean_goodput_mbps": r.4, "goodput_ratio": r.5}))
                .collect(),
        ),
    );
    let max_cap = var_rows.iter().map(|r| r.1).max().unwrap_or(0);
    checks.push(Check {
        what: "figure 4: no TCP variant protects VoIP (each supports fewer calls than VoIP alone)".into(),
        passed: max_cap < alone,
        detail: var_rows.iter().map(|r| format!("{} {}", variant_label(r.0), r.1)).collect::<Vec<_>>().join(", ")
            + &format!(" vs {alone} alone"),
    });
    if z.fig4_calls.contains(&10) {
        let at10: Vec<f64> = VARIANTS
            .iter()
            .map(|&vt| plan.mean(&Setup::string(10, Data::Tcp { flows: 1, variant: vt }, dur), |r| r.mean_mos()))
            .collect();
        checks.push(Check {
            what: format!("figure 4: mean MOS < {} with 10 calls for every variant", v.mos_below_at_10_calls),
            passed: at10.iter().all(|&m| m < v.mos_below_at_10_calls),
            detail: at10.iter().map(|m| format!("{m:.2}")).collect::<Vec<_>>().join(", "),
        });
    }
    let best_mos = var_rows.iter().max_by(|a, b| a.2.total_cmp(&b.2)).unwrap();
    checks.push(Check {
        what: "figure 4: Vegas protects VoIP best (highest mean MOS)".into(),
        passed: best_mos.0 == TcpVariant::Vegas,
        detail: format!("best: {} ({:.2})", variant_label(best_mos.0), best_mos.2),
    });
    let ww = var_rows.iter().find(|r| r.0 == TcpVariant::WestwoodPlus).unwrap();
    let worst_ratio = var_rows.iter().min_by(|a, b| a.5.total_cmp(&b.5)).unwrap();
    checks.push(Check {
        what: format!("figure 4: Westwood+ wastes most (lowest goodput / sent; paper ~{})", v.westwood_goodput_ratio),
        passed: worst_ratio.0 == TcpVariant::WestwoodPlus,
        detail: format!("Westwood+ {:.2}; lowest {} {:.2}", ww.5, variant_label(worst_ratio.0), worst_ratio.5),
    });

    // ---- (d) priority vs hops ----
    let p = &pubd.priority;
    md += "## Priority queues, 802.11e and RTS/CTS vs the number of hops\n\n";
    md += &format!("Source: {}.\n\n", p.source);
    md += &format!(
        "Calls supported beside one unrestricted TCP-Reno flow, on strings of 1..4 hops, call counts tried: {:?}.\n\n",
        z.prio_calls
    );
    md += "| hops | VoIP alone (fifo) | VoIP alone (priority+edca) |";
    for s in &z.prio_schemes {
        md += &format!(" {} |", s.name());
    }
    md += "\n|---:|---:|---:|";
    for _ in &z.prio_schemes {
        md += "---:|";
    }
    md += "\n";
    let mut prio_series: Vec<Series> = std::iter::once("VoIP alone")
        .chain(z.prio_schemes.iter().map(|s| s.name()))
        .map(|n| Series { name: n.into(), points: Vec::new(), scatter: false })
        .collect();
    let mut prio_tab = Vec::new();
    for &h in &z.prio_hops {
        let a = capacity(&z.prio_calls, |n| plan.acceptable(&Setup { hops: h, ..Setup::string(n, Data::None, dur) }));
        let ae = capacity(&z.prio_calls, |n| {
            plan.acceptable(&Setup { hops: h, scheme: Scheme::Edca, ..Setup::string(n, Data::None, dur) })
        });
        md += &format!("| {h} | {a} | {ae} |");
        prio_series[0].points.push((h as f64, a as f64, None));
        let mut row = vec![a, ae];
        for (k, &s) in z.prio_schemes.iter().enumerate() {
            let cap = capacity(&z.prio_calls, |n| {
                plan.acceptable(&Setup { hops: h, scheme: s, ..Setup::string(n, reno(1), dur) })
            });
            md += &format!(" {cap} |");
            prio_series[k + 1].points.push((h as f64, cap as f64, None));
            row.push(cap);
        }
        md += "\n";
        prio_tab.push((h, row));
    }
    md += "\n";
    md += &Figure::lines(
        "kim_priority_hops",
        "Calls supported beside one TCP flow",
        "wireless hops",
        "calls supported",
        prio_series,
    )
    .write(&opts.out, &mut files)?;
    md += "\n";
    json.insert(
        "priority".into(),
        serde_json::Value::Array(
            prio_tab.iter().map(|(h, row)| serde_json::json!({"hops": h, "alone_then_schemes": row})).collect(),
        ),
    );
    // Columns of a row: alone (fifo), alone (priority+edca), then the schemes.
    let prio_idx = z.prio_schemes.iter().position(|&s| s == Scheme::Edca).map(|i| i + 2);
    if let Some(k) = prio_idx {
        let far: Vec<(u32, u32)> =
            prio_tab.iter().filter(|(h, _)| *h > p.max_hops_with_calls).map(|(h, r)| (*h, r[k])).collect();
        checks.push(Check {
            what: format!(
                "priority + EDCA supports no call beyond {} hops (paper: none at 3+ hops)",
                p.max_hops_with_calls
            ),
            passed: far.iter().all(|x| x.1 == 0),
            detail: far.iter().map(|(h, c)| format!("{h} hops: {c}")).collect::<Vec<_>>().join(", "),
        });
        let near: Vec<String> = prio_tab
            .iter()
            .filter(|(h, _)| *h <= p.max_hops_with_calls)
            .map(|(h, r)| format!("{h} hops: {} of {} ({:.0}%)", r[k], r[1], 100.0 * r[k] as f64 / r[1].max(1) as f64))
            .collect();
        checks.push(Check {
            what: format!(
                "priority + EDCA beside TCP keeps at most about {:.0}% of its voice capacity without TCP at 1-2 hops (paper: 20%; we allow up to 40%)",
                p.capacity_fraction * 100.0
            ),
            passed: prio_tab
                .iter()
                .filter(|(h, _)| *h <= p.max_hops_with_calls)
                .all(|(_, r)| (r[k] as f64) <= 2.0 * p.capacity_fraction * r[1] as f64),
            detail: near.join(", "),
        });
    }

    // ---- (e) figure 5 ----
    let wpub = &pubd.window;
    md += "## Figure 5: TCP controlled at the gateway\n\n";
    md += "Source: section 'Window resizing vs. pacing', figure 5, and the summary.\n\n";
    md += &format!(
        "One TCP-Reno flow (window up to {TCP_WINDOW}) beside n calls. For each control, the largest TCP goodput among the \
         settings tried that keeps every call acceptable: window W in {:?} segments (advertised window rewritten in the \
         ACKs at the gateway), data pacing and ACK pacing at R in {:?} kbit/s. Plain TCP is shown whether or not the \
         calls are supported.\n\n",
        z.fig5_windows,
        z.fig5_rates.iter().map(|r| r / 1000).collect::<Vec<_>>()
    );
    md += "| calls | window: W | Mb/s | data pacing: R kb/s | Mb/s | ACK pacing: R kb/s | Mb/s | plain TCP Mb/s | plain: worst MOS |\n";
    md += "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    let mut f5: Vec<Series> = ["window control", "data pacing", "ACK pacing", "plain TCP (calls not protected)"]
        .iter()
        .map(|n| Series { name: (*n).into(), points: Vec::new(), scatter: false })
        .collect();
    let mut f5_rows = Vec::new();
    let fmt_best = |b: &Option<(String, f64)>| match b {
        Some((p, k)) => format!("{p} | {:.2}", k / 1e3),
        None => "- | 0 (none)".into(),
    };
    for &n in &z.fig5_calls {
        let w = best(&plan, &z.fig5_windows, |w| fig5(n, Gw::Window(w))).map(|(p, k)| (p.to_string(), k));
        let dp = best(&plan, &z.fig5_rates, |r| fig5(n, Gw::Pacing(r))).map(|(p, k)| ((p / 1000).to_string(), k));
        let ap = best(&plan, &z.fig5_rates, |r| fig5(n, Gw::AckPacing(r))).map(|(p, k)| ((p / 1000).to_string(), k));
        let plain = plan.mean(&fig5(n, Gw::None), |r| r.data_kbps);
        let plain_mos = plan.mean(&fig5(n, Gw::None), |r| r.worst_mos());
        md += &format!(
            "| {n} | {} | {} | {} | {:.2} | {} |\n",
            fmt_best(&w),
            fmt_best(&dp),
            fmt_best(&ap),
            plain / 1e3,
            if n == 0 { "-".to_string() } else { format!("{plain_mos:.2}") }
        );
        for (k, b) in [&w, &dp, &ap].iter().enumerate() {
            f5[k].points.push((n as f64, b.as_ref().map_or(0.0, |x| x.1 / 1e3), None));
        }
        f5[3].points.push((n as f64, plain / 1e3, None));
        f5_rows.push((n, w, dp, ap, plain, plain_mos));
    }
    md += "\n";
    md += &Figure::lines(
        "kim_fig5",
        "TCP goodput keeping every call at MOS >= 3.6",
        "VoIP calls",
        "TCP goodput (Mb/s)",
        f5,
    )
    .write(&opts.out, &mut files)?;
    md += "\n";
    json.insert(
        "fig5".into(),
        serde_json::Value::Array(
            f5_rows
                .iter()
                .map(|r| {
                    let b = |x: &Option<(String, f64)>| serde_json::json!(x.as_ref().map(|v| serde_json::json!({"param": v.0, "kbps": v.1})));
                    serde_json::json!({"calls": r.0, "window": b(&r.1), "pacing": b(&r.2), "ack_pacing": b(&r.3), "plain_kbps": r.4, "plain_worst_mos": r.5})
                })
                .collect(),
        ),
    );
    let positive: Vec<u32> = z.fig5_calls.iter().copied().filter(|&n| n > 0).collect();
    let row = |n: u32| f5_rows.iter().find(|r| r.0 == n).unwrap();
    let win_cap = capacity(&positive, |n| row(n).1.as_ref().is_some_and(|b| b.1 > 0.0));
    let plain_cap = capacity(&positive, |n| plan.acceptable(&fig5(n, Gw::None)));
    checks.push(Check {
        what: "acceptance: window control at the gateway supports more calls than plain sharing".into(),
        passed: win_cap > plain_cap,
        detail: format!("{win_cap} with window control (TCP still carried) vs {plain_cap} with plain TCP"),
    });
    let mean_of = |k: usize| {
        positive
            .iter()
            .map(|&n| {
                let r = row(n);
                [&r.1, &r.2, &r.3][k].as_ref().map_or(0.0, |b| b.1)
            })
            .sum::<f64>()
            / positive.len().max(1) as f64
    };
    let (mw, mp, ma) = (mean_of(0), mean_of(1), mean_of(2));
    checks.push(Check {
        what: "figure 5: window control attains the best utilisation (mean TCP goodput over 1..11 calls)".into(),
        passed: mw >= mp && mw >= ma,
        detail: format!("window {:.2}, data pacing {:.2}, ACK pacing {:.2} Mb/s", mw / 1e3, mp / 1e3, ma / 1e3),
    });
    if let Some(r0) = f5_rows.iter().find(|r| r.0 == 0) {
        let ctl = r0.1.as_ref().map_or(0.0, |b| b.1);
        let gain = ctl / r0.4 - 1.0;
        checks.push(Check {
            what: format!(
                "without VoIP, window control beats plain TCP (paper: +{:.0}%)",
                wpub.improvement_without_voip * 100.0
            ),
            passed: gain > 0.0,
            detail: format!("{:.2} vs {:.2} Mb/s ({:+.0}%)", ctl / 1e3, r0.4 / 1e3, gain * 100.0),
        });
    }
    if let Some(r6) = f5_rows.iter().find(|r| r.0 == wpub.example_calls) {
        md += &format!(
            "Paper's worked example: at {} calls the optimal window is W = {} and TCP can use {:.0} kb/s; ours: {}.\n\n",
            wpub.example_calls,
            wpub.example_window,
            wpub.example_tcp_kbps,
            r6.1.as_ref().map_or("no window keeps the calls".into(), |b| format!("W = {}, {:.0} kb/s", b.0, b.1))
        );
    }

    // ---- (f) scalability ----
    md += "## Scalability: number of TCP flows and Internet delay\n\n";
    md += &format!("Source: {}.\n\n", wpub.source);
    md += &format!(
        "{scal_calls} calls beside F TCP-Reno flows; Internet delay (round trip of the wired part) {:?} ms. For each (F, delay), \
         the best window W* (per connection, searched over {:?}) and data-pacing rate R* (aggregate, over {:?} kb/s) that \
         keep the 3 calls acceptable, with the TCP goodput. \"fails\": no setting tried works (window control would need \
         W < 1 packet).\n\n",
        z.scal_delays,
        z.scal_windows,
        z.scal_rates.iter().map(|r| r / 1000).collect::<Vec<_>>()
    );
    md += "| flows |";
    for d in &z.scal_delays {
        md += &format!(" {d} ms: W* | Mb/s | R* kb/s | Mb/s |");
    }
    md += "\n|---:|";
    for _ in &z.scal_delays {
        md += "---:|---:|---:|---:|";
    }
    md += "\n";
    let mut sw: Vec<Series> = Vec::new();
    let mut st: Vec<Series> = Vec::new();
    let mut scal_rows = Vec::new();
    for &d in &z.scal_delays {
        sw.push(Series { name: format!("W*, {d} ms"), points: Vec::new(), scatter: false });
        st.push(Series { name: format!("window, {d} ms"), points: Vec::new(), scatter: false });
        st.push(Series { name: format!("pacing, {d} ms"), points: Vec::new(), scatter: false });
    }
    for &f in &z.scal_flows {
        md += &format!("| {f} |");
        for (di, &d) in z.scal_delays.iter().enumerate() {
            let w = best(&plan, &z.scal_windows, |w| scal(f, d, Gw::Window(w)));
            let r = best(&plan, &z.scal_rates, |r| scal(f, d, Gw::Pacing(r)));
            md += &match w {
                Some((w, k)) => format!(" {w} | {:.2} |", k / 1e3),
                None => " fails | 0 |".into(),
            };
            md += &match r {
                Some((r, k)) => format!(" {} | {:.2} |", r / 1000, k / 1e3),
                None => " fails | 0 |".into(),
            };
            sw[di].points.push((f as f64, w.map_or(0.0, |x| x.0 as f64), None));
            st[2 * di].points.push((f as f64, w.map_or(0.0, |x| x.1 / 1e3), None));
            st[2 * di + 1].points.push((f as f64, r.map_or(0.0, |x| x.1 / 1e3), None));
            scal_rows.push((f, d, w, r));
        }
        md += "\n";
    }
    md += "\n";
    for (stem, title, y, series) in [
        ("kim_scal_window", "Best window per connection (0 = window control fails)", "W* (segments)", sw),
        ("kim_scal_goodput", "TCP goodput keeping 3 calls at MOS >= 3.6", "TCP goodput (Mb/s)", st),
    ] {
        md += &Figure::lines(stem, title, "TCP flows", y, series).write(&opts.out, &mut files)?;
        md += "\n";
    }
    json.insert(
        "scalability".into(),
        serde_json::Value::Array(
            scal_rows
                .iter()
                .map(|(f, d, w, r)| serde_json::json!({"flows": f, "internet_delay_ms": d, "window": w.map(|x| serde_json::json!({"w": x.0, "kbps": x.1})), "pacing": r.map(|x| serde_json::json!({"bps": x.0, "kbps": x.1}))}))
                .collect(),
        ),
    );
    // Largest flow count (contiguous from the smallest) that window control supports, per delay.
    let max_flows = |d: u64, win: bool| {
        capacity(&z.scal_flows, |f| {
            scal_rows.iter().any(|r| r.0 == f && r.1 == d && if win { r.2.is_some() } else { r.3.is_some() })
        })
    };
    let (d_lo, d_hi) = (*z.scal_delays.first().unwrap(), *z.scal_delays.last().unwrap());
    let first_fail =
        z.scal_flows.iter().copied().find(|&f| scal_rows.iter().any(|r| r.0 == f && r.1 == d_lo && r.2.is_none()));
    checks.push(Check {
        what: format!(
            "window control fails (W < 1 packet) beyond some number of flows at {d_lo} ms (paper: beyond {})",
            wpub.max_flows_30ms
        ),
        passed: first_fail.is_some(),
        detail: match first_fail {
            Some(f) => format!("supports up to {} flows, fails at {f}", max_flows(d_lo, true)),
            None => format!("never fails up to {} flows", z.scal_flows.last().unwrap()),
        },
    });
    if d_hi > d_lo {
        checks.push(Check {
            what: format!(
                "window control supports at least as many flows at {d_hi} ms as at {d_lo} ms (paper: {} vs {})",
                wpub.max_flows_150ms, wpub.max_flows_30ms
            ),
            passed: max_flows(d_hi, true) >= max_flows(d_lo, true),
            detail: format!("{} vs {}", max_flows(d_hi, true), max_flows(d_lo, true)),
        });
        let w1 = |d: u64| scal_rows.iter().find(|r| r.0 == z.scal_flows[0] && r.1 == d).and_then(|r| r.2).map(|x| x.0);
        checks.push(Check {
            what: format!(
                "{} flow(s): a longer Internet delay needs a larger window (paper: W = {} -> {} at 100 ms)",
                z.scal_flows[0], wpub.example_window, wpub.example_window_100ms
            ),
            passed: matches!((w1(d_lo), w1(d_hi)), (Some(a), Some(b)) if b > a),
            detail: format!("W* {:?} at {d_lo} ms, {:?} at {d_hi} ms", w1(d_lo), w1(d_hi)),
        });
    }
    checks.push(Check {
        what: format!(
            "shaping scales better: data pacing supports at least as many flows as window control at {d_lo} ms"
        ),
        passed: max_flows(d_lo, false) >= max_flows(d_lo, true),
        detail: format!("pacing {} vs window {}", max_flows(d_lo, false), max_flows(d_lo, true)),
    });

    // ---- checks ----
    let (ok, total) = plan.all_audits_balance();
    checks.push(Check {
        what: "every run's packet audit balances".into(),
        passed: ok == total,
        detail: format!("{ok} of {total}"),
    });
    md += "## Checks\n\n| check | result | detail |\n|---|---|---|\n";
    for c in &checks {
        md += &format!("| {} | {} | {} |\n", c.what, if c.passed { "pass" } else { "FAIL" }, c.detail);
    }
    json.insert("checks".into(), serde_json::to_value(&checks).unwrap());
    json.insert("seeds".into(), serde_json::json!(seeds));
    json.insert("duration_s".into(), serde_json::json!(dur.as_secs_f64()));
    write_file(
        &opts.out,
        "results.json",
        &(serde_json::to_string_pretty(&serde_json::Value::Object(json)).unwrap() + "\n"),
        &mut files,
    )?;
    write_file(&opts.out, "report.md", &md, &mut files)?;
    Ok(StudyOutput { markdown: md, files, checks, runs: plan.runs() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topology_is_server_link_gateway_string_client() {
        let s = Setup::string(2, reno(3), Time::from_secs(10));
        let c = s.config(7);
        assert_eq!(c.nodes.len(), 6);
        assert_eq!(c.wired.wired_only, vec![5]);
        let l = &c.wired.links[0];
        assert_eq!((l.a, l.b, l.delay), (5, 0, Time::from_ms(15)));
        let calls: Vec<_> = c.flows.iter().filter(|f| matches!(f.traffic, Traffic::Voip(_))).collect();
        assert_eq!(calls.len(), 2);
        assert!(calls.iter().all(|f| f.src == 0 && f.dst == 4));
        let tcp: Vec<_> = c.flows.iter().filter(|f| matches!(f.traffic, Traffic::Tcp { .. })).collect();
        assert_eq!(tcp.len(), 3);
        assert!(tcp.iter().all(|f| f.src == 5 && f.dst == 4));
        assert_eq!(c.mac.phy.data_rate, 12_000_000);
    }

    #[test]
    fn bursty_data_has_the_table_1_mean_rate() {
        let c = Setup::string(0, Data::Bursty { burst: 3 }, Time::from_secs(10)).config(1);
        let Traffic::BurstyCbr { size, interval, burst } = c.flows[0].traffic else { panic!() };
        assert_eq!((size, burst), (1472, 3));
        let ip_bps = DATA_IP_BYTES as f64 * 8.0 / interval.as_secs_f64();
        assert!((ip_bps - 550_000.0).abs() < 1.0, "{ip_bps}");
    }

    #[test]
    fn a_run_without_data_or_calls_stores_and_loads_back() {
        let s = Setup::string(1, Data::None, Time::from_secs(5));
        let r = RunSummary::of(&manetlab::Simulation::new(s.config(1)).unwrap().run());
        assert_eq!((r.data_delay_ms, r.goodput_ratio), (None, None));
        assert!(r.voip_delay_ms.is_some_and(|d| d > 0.0) && r.mos.len() == 1, "{r:?}");
        let back: RunSummary = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn capacity_stops_at_the_first_unacceptable_count() {
        assert_eq!(capacity(&[1, 2, 3, 4], |n| n != 3), 2);
        assert_eq!(capacity(&[1, 2, 3], |_| true), 3);
        assert_eq!(capacity(&[1, 2, 3], |_| false), 0);
    }

    #[test]
    fn keys_differ_by_every_setting() {
        let a = Setup::string(3, reno(1), Time::from_secs(10));
        let others = [
            Setup { hops: 3, ..a },
            Setup { calls: 4, ..a },
            Setup { data: Data::Tcp { flows: 1, variant: TcpVariant::Vegas }, ..a },
            Setup { scheme: Scheme::Edca, ..a },
            Setup { internet_delay: Time::from_ms(100), ..a },
            Setup { gw: Gw::Window(2), ..a },
            Setup { gw: Gw::Pacing(2000), ..a },
            Setup { gw: Gw::AckPacing(2000), ..a },
            Setup { duration: Time::from_secs(11), ..a },
        ];
        for o in others {
            assert_ne!(a.key(), o.key());
        }
    }
}
