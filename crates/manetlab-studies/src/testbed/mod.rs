//! The `testbed` study (testbed-tcp-udp-interaction.txt): the three APE
//! testbed scenarios in simulation, with both reception models.
//!
//! Geometry (nodes 0, 1, 2 on a line 200 m apart; 250 m receive and 420 m
//! carrier-sense range, so only neighbours decode each other; nodes two
//! hops apart (400 m) barely sense each other and a node 30 m beyond node 0
//! is hidden from node 2, as the paper concludes for S3):
//!
//! * **S1** static 2 -> 1 -> 0, CBR UDP 1470-byte packets, static routes:
//!   a rate sweep 0.5-5 Mbit/s (figure 2) and 192 kbit/s for 60 s (delivery
//!   ratio, per-link inter-packet delivery time, figure 3).
//! * **S2** adds node 3 at (50, 215) m: in range of node 0, outside node
//!   1's range, within carrier sense of node 2; it walks to (0, 10) m between
//!   t = 10 and 38 s. TCP 3 -> 0 (one hop, bulk) beside the UDP flow; static
//!   routes.
//! * **S3** AODV (HELLO link sensing, as AODV-UU): node 3 starts 30 m from
//!   node 0 on the far side (hidden from node 2) and walks along the line at
//!   10.5 m/s, so its route to 0 grows to 2 hops at t = 27 s and 3 hops at
//!   46 s; it turns at 62 s (620 m) and walks back at 12.3 m/s, back in
//!   direct range at 92 s. TCP 3 -> 0 and UDP 2 -> 0 start together at 0.5 s.
//!
//! 802.11b at 11 Mbit/s for data, 2 Mbit/s for ACKs (basic rate), long
//! preamble, no RTS/CTS (the cards' default), 15 dBm at 2.4 GHz, drop-tail
//! 50, TCP NewReno with 1460-byte segments. Models: `threshold` (ns-2's
//! threshold reception, two-ray ground) and `sinr` (SINR reception, noise
//! figure 7 dB, two-ray ground with 4 dB log-normal shadowing per frame:
//! links near the range edge become intermittent).

mod report;
mod study;
pub use study::{Findings, Testbed};

use manetlab::config::{FlowConfig, Position, SimConfig, Traffic};
use manetlab::metrics::linkview::{longest_gap, FlowView, LinkViewSink};
use manetlab::metrics::Report;
use manetlab::mobility::{MobilityConfig, Trajectory};
use manetlab::net::routing::aodv::{AodvConfig, LinkDetection};
use manetlab::net::routing::RoutingConfig;
use manetlab::phy::{PhyMode, PhyStandard, Preamble, Propagation, Reception};
use manetlab::sim::Time;
use manetlab::study::sweep::Aggregate;
use manetlab::study::Series;
use manetlab::transport::tcp::{DataSource, SeqEvent, TcpConfig, TcpVariant};
use manetlab::Simulation;
use serde::{Deserialize, Serialize};

pub const UDP_BYTES: u32 = 1470;
pub const UDP_BPS: f64 = 192_000.0;
pub const MSS: u32 = 1460;
const SPACING: f64 = 200.0;
/// Receive and carrier-sense ranges: nodes two hops apart (400 m) neither
/// decode nor sense each other (the paper's hidden terminals).
pub const RX_RANGE: f64 = 250.0;
pub const CS_RANGE: f64 = 420.0;
/// S2: node 3 starts in range of node 0 (221 m), outside node 1's range
/// (262 m) and within carrier sense of node 2 (411 m), and walks to
/// [`S2_END`] "close to node 0" between 10 and 38 s, where it is "in direct
/// contact with node 1" and "potentially more affected by channel
/// contention from both node 1 and node 2" (400 m from node 2). A start on
/// the line left of node 0 ([`S2_FAR_LEFT`], a diagnosis variant) walks
/// through a zone where node 3 is hidden from node 2 yet corrupts its frames
/// at node 1: heavy UDP loss the paper did not see (docs/testbed.md).
pub const S2_START: Position = Position { x: 50.0, y: 215.0, z: 0.0 };
/// The diagnosis variant's start: on the line, 200 m left of node 0.
pub const S2_FAR_LEFT: Position = Position { x: -200.0, y: 0.0, z: 0.0 };
pub const S2_END: Position = Position { x: 0.0, y: 10.0, z: 0.0 };
/// S3: node 3 starts 30 m from node 0 on the far side, 430 m from node 2:
/// hidden from it, as the paper concludes ("node 2 was previously a hidden
/// terminal for node 3, causing massive collisions at node 1").
pub const S3_START: Position = Position { x: -30.0, y: 0.0, z: 0.0 };
/// Shadowing deviation of the `sinr` model, dB.
pub const SIGMA_DB: f64 = 4.0;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Scenario {
    S1,
    S2,
    S3,
}

impl Scenario {
    pub const ALL: [Scenario; 3] = [Scenario::S1, Scenario::S2, Scenario::S3];
    pub fn name(self) -> &'static str {
        match self {
            Scenario::S1 => "S1",
            Scenario::S2 => "S2",
            Scenario::S3 => "S3",
        }
    }
    /// Run length of the scenario (the paper's figures: 60 s, 60 s, ~120 s).
    pub fn duration(self) -> Time {
        Time::from_secs(match self {
            Scenario::S1 | Scenario::S2 => 60,
            Scenario::S3 => 120,
        })
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Model {
    Threshold,
    Sinr,
}

impl Model {
    pub const ALL: [Model; 2] = [Model::Threshold, Model::Sinr];
    pub fn name(self) -> &'static str {
        match self {
            Model::Threshold => "threshold",
            Model::Sinr => "sinr",
        }
    }
}

/// The radio, MAC and queue shared by all scenarios.
fn base(model: Model, seed: u64, duration: Time, nodes: Vec<Position>) -> SimConfig {
    let mut cfg = SimConfig { seed, duration, nodes, ..SimConfig::default() };
    cfg.mac.phy =
        PhyMode { standard: PhyStandard::Dsss, preamble: Preamble::Long, data_rate: 11_000_000, basic_rate: 2_000_000 };
    cfg.mac.rts_threshold = None;
    let r = &mut cfg.radio;
    r.frequency_hz = 2.4e9;
    r.tx_power_w = 10f64.powf(1.5) * 1e-3; // 15 dBm
    if model == Model::Sinr {
        r.reception = Reception::Sinr { noise_figure_db: 7.0 };
        let h = r.antenna_height_m;
        if let Propagation::Shadowing { exponent, ref_distance_m, .. } = Propagation::two_ray_equivalent(r, h) {
            r.propagation = Propagation::Shadowing { exponent, ref_distance_m, sigma_db: SIGMA_DB };
        }
    }
    r.set_ranges(Some(RX_RANGE), Some(CS_RANGE));
    cfg
}

fn udp(start: Time, rate_bps: f64) -> FlowConfig {
    FlowConfig {
        name: "udp 2->0".into(),
        src: 2,
        dst: 0,
        traffic: Traffic::Cbr {
            size: UDP_BYTES,
            interval: Time::from_secs_f64(UDP_BYTES as f64 * 8.0 / rate_bps),
            jitter: Time::ZERO,
        },
        start,
        stop: None,
    }
}

fn tcp(start: Time, trace: bool) -> FlowConfig {
    let tcp = TcpConfig {
        mss: MSS,
        variant: TcpVariant::NewReno,
        record_series: false,
        record_seq_log: trace,
        ..TcpConfig::default()
    };
    FlowConfig {
        name: "tcp 3->0".into(),
        src: 3,
        dst: 0,
        traffic: Traffic::Tcp { tcp, data: DataSource::Bulk },
        start,
        stop: None,
    }
}

fn line() -> Vec<Position> {
    (0..3).map(|i| Position::new(i as f64 * SPACING, 0.0)).collect()
}

/// The config of one run. `udp_bps` is the CBR rate (S1's sweep varies it;
/// the scenarios use 192 kbit/s). `trace` records the TCP time-sequence log.
pub fn config(scn: Scenario, model: Model, seed: u64, udp_bps: f64, duration: Time, trace: bool) -> SimConfig {
    match scn {
        Scenario::S1 => {
            let mut cfg = base(model, seed, duration, line());
            cfg.flows = vec![udp(Time::from_secs(1), udp_bps)];
            cfg
        }
        Scenario::S2 => {
            let mut nodes = line();
            nodes.push(S2_START);
            let mut cfg = base(model, seed, duration, nodes.clone());
            let mut t: Vec<Trajectory> = nodes.iter().map(|&p| Trajectory::fixed(p)).collect();
            // To 10 m from node 0 between 10 s and 38 s.
            t[3].set_dest(Time::from_secs(10), S2_END, S2_START.distance(&S2_END) / 28.0);
            cfg.mobility = MobilityConfig::Trajectories(t);
            cfg.flows = vec![udp(Time::from_secs(1), udp_bps), tcp(Time::from_secs(1), trace)];
            cfg
        }
        Scenario::S3 => {
            let mut nodes = line();
            nodes.push(S3_START);
            let mut cfg = base(model, seed, duration, nodes.clone());
            let mut t: Vec<Trajectory> = nodes.iter().map(|&p| Trajectory::fixed(p)).collect();
            t[3].set_dest(Time::ZERO, Position::new(620.0, 0.0), (620.0 - S3_START.x) / 62.0);
            // Back in direct range of node 0 (250 m) at 92 s: 370 m in 30 s.
            t[3].set_dest(Time::from_secs(62), S3_START, 370.0 / 30.0);
            cfg.mobility = MobilityConfig::Trajectories(t);
            cfg.routing =
                RoutingConfig::Aodv(AodvConfig { link_detection: LinkDetection::Hello, ..AodvConfig::default() });
            let start = Time::from_ms(500);
            cfg.flows = vec![udp(start, udp_bps), tcp(start, trace)];
            cfg
        }
    }
}

/// The paper's S2 TCP throughput (table 1), for the paced-TCP diagnosis.
pub const PAPER_S2_TCP_BPS: f64 = 1.34e6;

/// Variants of the scenarios that locate where the losses come from
/// (the study's "Diagnosis" section, docs/testbed.md).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Diag {
    /// S1 with hop 1 -> 0 this long (node 0 moved out along the line).
    S1Hop10(u32),
    /// S2 with the TCP application paced at the paper's 1.34 Mbit/s.
    S2TcpPaced,
    /// S2 under the SINR model without shadowing (sigma 0).
    S2NoShadowing,
    /// S2 with node 3 starting on the line 200 m left of node 0.
    S2FarLeft,
}

impl Diag {
    pub const ALL: [Diag; 5] =
        [Diag::S1Hop10(225), Diag::S1Hop10(245), Diag::S2TcpPaced, Diag::S2NoShadowing, Diag::S2FarLeft];
    pub fn key(self) -> String {
        match self {
            Diag::S1Hop10(m) => format!("D-S1-hop10={m}m"),
            Diag::S2TcpPaced => "D-S2-tcp-paced".into(),
            Diag::S2NoShadowing => "D-S2-sigma0".into(),
            Diag::S2FarLeft => "D-S2-far-left".into(),
        }
    }
    pub fn about(self) -> String {
        match self {
            Diag::S1Hop10(m) => format!("S1, hop 1 -> 0 {m} m (2 -> 1 stays 200 m)"),
            Diag::S2TcpPaced => "S2, TCP application paced at the paper's 1.34 Mbit/s".into(),
            Diag::S2NoShadowing => "S2, no shadowing (sigma 0)".into(),
            Diag::S2FarLeft => "S2, node 3 starts on the line 200 m left of node 0".into(),
        }
    }
    pub fn scenario(self) -> Scenario {
        match self {
            Diag::S1Hop10(_) => Scenario::S1,
            _ => Scenario::S2,
        }
    }
    pub fn models(self) -> &'static [Model] {
        match self {
            Diag::S2NoShadowing => &[Model::Sinr],
            _ => &Model::ALL,
        }
    }
}

/// The config of one diagnosis run.
pub fn diag_config(d: Diag, model: Model, seed: u64) -> SimConfig {
    let scn = d.scenario();
    let mut cfg = config(scn, model, seed, UDP_BPS, scn.duration(), false);
    match d {
        Diag::S1Hop10(m) => cfg.nodes[0] = Position::new(SPACING - m as f64, 0.0),
        Diag::S2TcpPaced => {
            if let Traffic::Tcp { data, .. } = &mut cfg.flows[1].traffic {
                *data = DataSource::Paced {
                    bytes: MSS,
                    interval: Time::from_secs_f64(MSS as f64 * 8.0 / PAPER_S2_TCP_BPS),
                };
            }
        }
        Diag::S2NoShadowing => {
            if let Propagation::Shadowing { sigma_db, .. } = &mut cfg.radio.propagation {
                *sigma_db = 0.0;
            }
        }
        Diag::S2FarLeft => {
            cfg.nodes[3] = S2_FAR_LEFT;
            let mut t: Vec<Trajectory> = cfg.nodes.iter().map(|&p| Trajectory::fixed(p)).collect();
            t[3].set_dest(Time::from_secs(10), S2_END, S2_FAR_LEFT.distance(&S2_END) / 28.0);
            cfg.mobility = MobilityConfig::Trajectories(t);
        }
    }
    cfg
}

/// Per-link statistics of the UDP flow in one run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct LinkStats {
    /// Packets received at node 1 from node 2, at node 0 from node 1.
    pub rx_21: u64,
    pub rx_10: u64,
    /// Standard deviation of the inter-packet delivery time, seconds.
    pub jitter_21: f64,
    pub jitter_10: f64,
}

/// What one run of the study keeps.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunOut {
    pub report: Report,
    /// Packets node 2 put on the air (sent minus its queue drops).
    pub udp_transmitted: u64,
    pub links: LinkStats,
    /// TCP: share of [5 s, end) the delivered segments took 1, 2, 3 hops.
    pub tcp_hop_share: [f64; 3],
    /// TCP: first delivery time at 2 hops, at 3 hops, and back at 1 hop after 62 s.
    pub tcp_hop_times: [Option<f64>; 3],
    /// Longest gap in TCP deliveries around the 1->2 and 2->3 hop changes
    /// (20-35 s, 40-55 s) and in steady periods (5-20 s, 100-115 s), S3.
    pub tcp_gap_change: [f64; 2],
    pub tcp_gap_steady: [f64; 2],
    /// UDP packets delivered in the first 10 s of the flow, and the rest (per second).
    pub udp_rate_first10: f64,
    pub udp_rate_after: f64,
    /// Series of the representative run (first seed) only.
    pub series: Option<RunSeries>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RunSeries {
    pub gaps_21: Vec<(f64, f64)>,
    pub gaps_10: Vec<(f64, f64)>,
    pub tcp_sent: Vec<(f64, f64)>,
    pub tcp_acked: Vec<(f64, f64)>,
    pub tcp_hops: Vec<(f64, u32)>,
}

fn std_dev(g: &[(f64, f64)]) -> f64 {
    if g.len() < 2 {
        return 0.0;
    }
    let m = g.iter().map(|x| x.1).sum::<f64>() / g.len() as f64;
    (g.iter().map(|x| (x.1 - m).powi(2)).sum::<f64>() / (g.len() - 1) as f64).sqrt()
}

/// Runs one config with link views on both flows.
pub fn run_one(cfg: &SimConfig, keep_series: bool) -> Result<RunOut, manetlab::simulation::BuildError> {
    let flows: Vec<u32> = (0..cfg.flows.len() as u32).collect();
    let (sink, views) = LinkViewSink::for_flows(cfg, &flows);
    let duration = cfg.duration;
    let udp_start = cfg.flows[0].start;
    let mut sim = Simulation::new(cfg.clone())?;
    sim.set_tracer(Box::new(sink));
    sim.run_until(duration);
    let trace = if cfg.flows.len() > 1 { sim.tcp_trace(1) } else { None };
    let report = sim.finish();
    let views = views.lock().map(|v| v.clone()).unwrap_or_default();
    let u: &FlowView = views.flow(0).expect("udp view");
    let (g21, g10) = (u.inter_delivery(2, 1), u.inter_delivery(1, 0));
    let links = LinkStats {
        rx_21: u.received(2, 1) as u64,
        rx_10: u.received(1, 0) as u64,
        jitter_21: std_dev(&g21),
        jitter_10: std_dev(&g10),
    };
    let ifq2 = report.nodes[2].drops.get("IFQ").copied().unwrap_or(0);
    let udp_transmitted = report.flows[0].sent_packets.saturating_sub(ifq2);
    let secs = |s: u64| Time::from_secs(s);
    let (mut share, mut times, mut gc, mut gs) = ([0.0; 3], [None; 3], [0.0; 2], [0.0; 2]);
    let mut hops = Vec::new();
    if let Some(t) = views.flow(1) {
        for (i, s) in share.iter_mut().enumerate() {
            *s = t.share_of_time_at(i as u32 + 1, secs(5), duration);
        }
        hops = t.hop_changes();
        times[0] = t.hops.iter().find(|h| h.1 == 2).map(|h| h.0.as_secs_f64());
        times[1] = t.hops.iter().find(|h| h.1 == 3).map(|h| h.0.as_secs_f64());
        times[2] = t.hops.iter().find(|h| h.0 >= secs(62) && h.1 == 1).map(|h| h.0.as_secs_f64());
        // Gaps between TCP deliveries at the destination, any link.
        let delivered = t.delivery_times();
        let gap = |a, b| longest_gap(&delivered, secs(a), secs(b).min(duration));
        if duration >= secs(115) {
            gc = [gap(20, 35), gap(40, 55)];
            gs = [gap(5, 20), gap(100, 115)];
        }
    }
    let first10 =
        u.links.get(&(1, 0)).map_or(0, |l| l.times.iter().filter(|&&x| x < udp_start + secs(10)).count()) as f64 / 10.0;
    let span_after = duration.saturating_sub(udp_start + secs(10)).as_secs_f64().max(1e-9);
    let after = (links.rx_10 as f64 - first10 * 10.0) / span_after;
    let series = keep_series.then(|| {
        let pick = |ev: SeqEvent| -> Vec<(f64, f64)> {
            trace
                .as_ref()
                .map(|t| {
                    t.seq
                        .iter()
                        .filter(|r| r.event == ev)
                        .map(|r| (r.time.as_secs_f64(), (r.seq / MSS as u64) as f64))
                        .collect()
                })
                .unwrap_or_default()
        };
        RunSeries {
            gaps_21: g21.clone(),
            gaps_10: g10.clone(),
            tcp_sent: pick(SeqEvent::Sent),
            tcp_acked: pick(SeqEvent::Acked),
            tcp_hops: hops,
        }
    });
    Ok(RunOut {
        report,
        udp_transmitted,
        links,
        tcp_hop_share: share,
        tcp_hop_times: times,
        tcp_gap_change: gc,
        tcp_gap_steady: gs,
        udp_rate_first10: first10,
        udp_rate_after: after,
        series,
    })
}

#[derive(Deserialize)]
struct PubScenario {
    udp_delivery_pct: f64,
    #[serde(default)]
    tcp_mbps: Option<f64>,
    #[serde(default)]
    best_transmitted_mbps: Option<f64>,
    #[serde(default)]
    max_transmitted_mbps: Option<f64>,
    #[serde(default)]
    hop_change_s: Option<Vec<f64>>,
    name: String,
}

#[derive(Deserialize)]
struct Published {
    source: String,
    s1: PubScenario,
    s2: PubScenario,
    s3: PubScenario,
}

fn published() -> Published {
    toml::from_str(include_str!("../../data/published/testbed.toml")).expect("data/published/testbed.toml is valid")
}

/// Aggregates of one (scenario, model) cell of table 1.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    pub scenario: String,
    pub model: String,
    pub udp_delivery_pct: Aggregate,
    pub tcp_mbps: Option<Aggregate>,
    /// UDP packets lost on hop 2->1 and on hop 1->0, % of those sent.
    pub udp_loss_21_pct: Aggregate,
    pub udp_loss_10_pct: Aggregate,
    pub jitter_21_ms: Aggregate,
    pub jitter_10_ms: Aggregate,
    pub tcp_hop_share: [f64; 3],
    pub tcp_gap_change_s: Aggregate,
    pub tcp_gap_steady_s: Aggregate,
    pub udp_rate_first10: Aggregate,
    pub udp_rate_after: Aggregate,
    pub neighbours_lost: f64,
    pub route_discoveries: f64,
}

fn cell(scn: Scenario, model: Model, runs: &[&RunOut]) -> Cell {
    let pct = |num: u64, den: u64| if den > 0 { num as f64 / den as f64 * 100.0 } else { 0.0 };
    let has_tcp = scn != Scenario::S1;
    let ev = |r: &RunOut, k: &str| r.report.routing.events.get(k).copied().unwrap_or(0) as f64;
    let n = runs.len().max(1) as f64;
    Cell {
        scenario: scn.name().into(),
        model: model.name().into(),
        udp_delivery_pct: Aggregate::of(
            runs.iter().filter_map(|r| r.report.flows[0].delivery_ratio).map(|d| d * 100.0),
        ),
        tcp_mbps: has_tcp.then(|| Aggregate::of(runs.iter().map(|r| r.report.flows[1].goodput_bps / 1e6))),
        udp_loss_21_pct: Aggregate::of(
            runs.iter().map(|r| pct(r.udp_transmitted.saturating_sub(r.links.rx_21), r.report.flows[0].sent_packets)),
        ),
        udp_loss_10_pct: Aggregate::of(
            runs.iter().map(|r| pct(r.links.rx_21.saturating_sub(r.links.rx_10), r.report.flows[0].sent_packets)),
        ),
        jitter_21_ms: Aggregate::of(runs.iter().map(|r| r.links.jitter_21 * 1e3)),
        jitter_10_ms: Aggregate::of(runs.iter().map(|r| r.links.jitter_10 * 1e3)),
        tcp_hop_share: [0, 1, 2].map(|i| runs.iter().map(|r| r.tcp_hop_share[i]).sum::<f64>() / n),
        tcp_gap_change_s: Aggregate::of(runs.iter().map(|r| r.tcp_gap_change[0].max(r.tcp_gap_change[1]))),
        tcp_gap_steady_s: Aggregate::of(runs.iter().map(|r| r.tcp_gap_steady[0].max(r.tcp_gap_steady[1]))),
        udp_rate_first10: Aggregate::of(runs.iter().map(|r| r.udp_rate_first10)),
        udp_rate_after: Aggregate::of(runs.iter().map(|r| r.udp_rate_after)),
        neighbours_lost: runs.iter().map(|r| ev(r, "neighbours_lost")).sum::<f64>() / n,
        route_discoveries: runs.iter().map(|r| ev(r, "route_discoveries")).sum::<f64>() / n,
    }
}
