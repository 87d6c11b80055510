//! manet-routing-compare: ns-3's best-known MANET example
//! (`examples/routing/manet-routing-compare.cc`) for AODV, DSR, DSDV and
//! OLSR, with reference numbers measured on the same scenario in ns-3.37
//! (`scripts/ns3/mrc/`) and ns-2.35 (`scripts/ns2/mrc/`, AODV, DSR, DSDV),
//! stored in `data/reference/mrc/` (read at analysis time) so the study
//! never needs either.
//!
//! The scenario, as ns-3's example sets it:
//! - 50 nodes in 300 m x 1500 m, random waypoint: every leg's speed uniform
//!   in [0, max], a constant pause, waypoints uniform in the rectangle;
//! - 802.11b at 11 Mbit/s for data, control and broadcast frames, long
//!   preamble, no RTS/CTS; 7.5 dBm, Friis loss at 5.15 GHz (ns-3's
//!   `FriisPropagationLossModel` default, which the example keeps);
//! - SINR reception with the DSSS error-rate curves (`docs/sinr.md`), noise
//!   figure 7 dB; frames are locked onto from -82 dBm (ns-3's preamble
//!   detection minimum RSSI) and the medium is busy from -82 dBm (ns-3's
//!   PHY is in RX, so CCA busy, for every detected preamble; its -62 dBm
//!   CCA-ED threshold only matters for undetected signals);
//! - 10 CBR/UDP flows of 64-byte payloads at 2048 bit/s (4 packets/s), node
//!   10+i -> node i, starting at 100 + 0.1 i s (ns-3 draws each start
//!   uniformly in [100, 101] s), until the end at 200 s;
//! - ARP with a 3-packet queue and 4 requests on the cache's 1 s timer
//!   (ns-3's ArpCache: the first + MaxRetries 3), an interface queue of 500 packets without priority for control
//!   (ns-3's WifiMacQueue), ns-3's ARP failure handling (a failed address
//!   is dead for 100 s and routing is not told: `ArpConfig::ns3`; the
//!   `arp-manetlab` variant at 20 m/s keeps manetlab's default, failure
//!   reported to routing, to show what that choice is worth; the paired
//!   variants at 20 m/s: ns-2.35's ARP and DSDV against ns-2.35, and for
//!   DSR every ARP loss reported to routing, `[arp] report_drops`, against
//!   ns-3.37), and each protocol with ns-3's defaults where
//!   they differ from manetlab's: AODV gratuitous replies on; DSDV as
//!   ns-3.37's (`DsdvConfig::ns3`: no MAC feedback, new sequence numbers
//!   advertised at once, breaks believed from the next hop only, packets
//!   sent by the next hop's own route), with a 500-packet buffer.
//!
//! Metrics (identical definitions in the ns-3 program and the ns-2
//! summarizer): PDR = packets received / packets the applications
//! generated; goodput = received payload bits / 100 s; delay = mean one-way
//! delay of received packets; normalized routing load = routing packets
//! handed to the MAC (each hop) / packets received; mean degree and the
//! fraction of (flow, second) pairs whose ends are connected in the
//! unit-disk graph of the receive range, sampled every second of the
//! traffic window.

pub mod counters;
pub mod paired;
mod report;

use counters::{Fate, Ns3Counters};
use manetlab::config::{FlowConfig, SimConfig, Traffic};
use manetlab::net::arp::ArpConfig;
use manetlab::scenario::Scenario;
use manetlab::sim::{Position, Time};
use manetlab::study::report::{deviation, num, Table};
use manetlab::study::sweep::{Aggregate, Job};
use manetlab::study::{Analysis, Figure, ReportDoc, Runs, Series, Study, StudyError, StudyInfo, StudyOptions};
use manetlab::BuildError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Name, paper and one line, as `manetlab study --list` shows them.
pub const INFO: StudyInfo = StudyInfo {
    name: "mrc",
    paper: "ns-3 examples/routing/manet-routing-compare.cc",
    about: "AODV, DSR, DSDV, OLSR in ns-3's manet-routing-compare scenario, beside ns-3.37 and ns-2.35 runs",
};

pub const PROTOCOLS: [&str; 4] = ["aodv", "dsr", "dsdv", "olsr"];
/// (maximum speed m/s, pause s) of the full study.
pub const POINTS: [(f64, f64); 3] = [(1.0, 0.0), (20.0, 0.0), (20.0, 100.0)];
const NODES: u32 = 50;
const FLOWS: u32 = 10;
const PAYLOAD: u32 = 64;
const INTERVAL_MS: u64 = 250;
/// Transmit power (dBm), Friis frequency (Hz), lock / carrier-sense level (dBm).
const TX_DBM: f64 = 7.5;
const FREQUENCY_HZ: f64 = 5.15e9;
const RX_DBM: f64 = -82.0;
/// The acceptance band: PDR within 15 % of the reference mean.
pub const BAND: f64 = 0.15;

/// The reference runs live in the source tree and are read when the study
/// analyses (not compiled in: re-running a reference script needs no
/// rebuild); `MANETLAB_MRC_REFERENCE` names another folder.
fn reference_dir() -> std::path::PathBuf {
    std::env::var_os("MANETLAB_MRC_REFERENCE").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/reference/mrc"),
        std::path::PathBuf::from,
    )
}

/// Runs per point and their length: full 5 seeds x 200 s (`--runs N` for
/// another count), traffic from 100 s (as ns-3's example); quick 1 seed x
/// 60 s, traffic from 30 s, at one point.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Scale {
    pub seeds: usize,
    pub duration_s: u64,
    pub traffic_start_s: u64,
}

pub fn scale(opts: &StudyOptions) -> Scale {
    let seeds = opts.seeds(1, 5) as usize;
    if opts.quick {
        Scale { seeds, duration_s: 60, traffic_start_s: 30 }
    } else {
        Scale { seeds, duration_s: 200, traffic_start_s: 100 }
    }
}

fn points(opts: &StudyOptions) -> &'static [(f64, f64)] {
    if opts.quick {
        &POINTS[1..2]
    } else {
        &POINTS
    }
}

/// The distance at which Friis from 7.5 dBm at 5.15 GHz falls to -82 dBm
/// (138.3 m): the unit-disk range of the degree and connectivity figures.
pub fn range_m() -> f64 {
    let lambda = 299_792_458.0 / FREQUENCY_HZ;
    let ratio = 10f64.powf((TX_DBM - RX_DBM) / 10.0);
    lambda / (4.0 * std::f64::consts::PI) * ratio.sqrt()
}

/// How the study's manetlab runs handle an ARP failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ArpVariant {
    /// ns-3.37's ArpCache (`ArpConfig::ns3`): failure not reported to
    /// routing, the address dead for 100 s (the study's configuration).
    Ns3,
    /// manetlab's default queue mode: the first held packet goes back to
    /// routing as a link failure, no dead time (the ablation).
    Manetlab,
    /// ns-2.35's settings: its ARP (`ArpConfig::ns2`: one packet held per
    /// address, no request timer, failure to routing after 3 requests) and,
    /// for DSDV, its DSDV (`DsdvConfig::ns2`): the paired ablation against
    /// ns-2.35 (`paired::NS2_ARP`).
    Ns2,
    /// ns-3's ARP with every ARP loss handed to routing (`report_drops`),
    /// as ns-3.37's DSR notices them by its link acknowledgements: the
    /// paired DSR diagnostic against ns-3.37 (`paired::NS3_REPORT`).
    Ns3Reported,
}

/// The ablation point: the ARP variant is run at (20 m/s, pause 0), where
/// ARP failures are most frequent.
pub const ABLATION: (f64, f64) = (20.0, 0.0);

/// Where a run's movement comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Movement {
    /// manetlab's random waypoint drawn from the run seed (the independent
    /// draws: each simulator draws its own movement).
    Draw,
    /// The point's setdest movement file number RUN in `data/mrc/moves/`,
    /// the file ns-2.35 and ns-3.37 run on (the paired comparison).
    File(u64),
}

/// The configuration of one run (independent draw, ns-3's ARP).
pub fn config(protocol: &str, max_speed: f64, pause: f64, seed: u64, s: Scale) -> SimConfig {
    config_with(protocol, max_speed, pause, seed, s, ArpVariant::Ns3, Movement::Draw)
}

/// The configuration of one run with the given ARP failure handling and
/// movement.
pub fn config_with(
    protocol: &str,
    max_speed: f64,
    pause: f64,
    seed: u64,
    s: Scale,
    arp: ArpVariant,
    movement: Movement,
) -> SimConfig {
    let routing = match (protocol, arp) {
        ("aodv", _) => "gratuitous_rrep = true\n",
        // ns-2.35's DSDV with the ns-2 variant (DsdvConfig::ns2: use_mac_ 0,
        // wst0_ 6 s, 5 packets held without a route, no timeout).
        ("dsdv", ArpVariant::Ns2) => {
            "mac_feedback = false\nsettling_time = \"6s\"\nbuffer_size = 5\nbuffer_timeout = \"1000000s\"\n"
        }
        // ns-3.37's DSDV (DsdvConfig::ns3, the ns3 profile's `dsdv` row).
        ("dsdv", _) => {
            "mac_feedback = false\nbuffer_size = 500\nadvertise_new_seq = true\nbreak_from_next_hop_only = true\n\
             resolve_next_hop = true\n"
        }
        _ => "",
    };
    let mobility = match movement {
        Movement::Draw => {
            format!("model = \"random-waypoint\"\nspeed = [\"0m/s\", \"{max_speed}m/s\"]\npause = \"{pause}s\"\n")
        }
        Movement::File(run) => {
            format!("model = \"ns2-file\"\nfile = \"{}\"\n", paired::moves_name(max_speed, pause, run))
        }
    };
    let text = format!(
        "[run]\nduration = \"{d}s\"\n\n\
         [topology]\nkind = \"random\"\nnodes = {NODES}\narea = [\"300m\", \"1500m\"]\n\n\
         [mobility]\n{mobility}\n\
         [radio]\npropagation = \"friis\"\nfrequency = \"{f}MHz\"\ntx_power = \"{TX_DBM}dBm\"\n\
         reception = \"sinr\"\nnoise_figure = \"7dB\"\nrx_threshold = \"{RX_DBM}dBm\"\ncs_threshold = \"{RX_DBM}dBm\"\n\n\
         [mac]\nstandard = \"dsss\"\ndata_rate = \"11Mbps\"\nbasic_rate = \"11Mbps\"\nrts_threshold = \"off\"\n\n\
         [queue]\nlimit = 500\ncontrol_first = false\n\n\
         [arp]\nmode = \"queue\"\n\n\
         [routing]\nprotocol = \"{protocol}\"\n{routing}",
        d = s.duration_s,
        f = FREQUENCY_HZ / 1e6,
    );
    // A movement file is named relative to the scenario's folder: the
    // scenario "lives" in the movement files' folder.
    let origin = paired::moves_dir().join("mrc.toml");
    let sc = Scenario::parse(&text, &origin.to_string_lossy(), &[] as &[&str])
        .unwrap_or_else(|e| panic!("the mrc scenario is valid: {e}"));
    let mut cfg = sc.config(seed);
    match arp {
        ArpVariant::Ns3 => cfg.arp = ArpConfig::ns3(),
        ArpVariant::Ns2 => cfg.arp = ArpConfig::ns2(),
        ArpVariant::Ns3Reported => {
            cfg.arp = ArpConfig::ns3();
            if let ArpConfig::Queue { report_drops, .. } = &mut cfg.arp {
                *report_drops = true;
            }
        }
        ArpVariant::Manetlab => {}
    }
    for i in 0..FLOWS {
        cfg.flows.push(FlowConfig {
            name: format!("cbr{i}"),
            src: FLOWS + i,
            dst: i,
            traffic: Traffic::Cbr { size: PAYLOAD, interval: Time::from_ms(INTERVAL_MS), jitter: Time::ZERO },
            start: Time::from_ms(s.traffic_start_s * 1000 + 100 * i as u64),
            stop: None,
        });
    }
    cfg
}

fn key(p: &str, v: f64, pause: f64, seed: u64, s: Scale) -> String {
    format!("{p}/v={v}/pause={pause}/seed={seed}/d={}", s.duration_s)
}

fn ablation_key(p: &str, seed: u64, s: Scale) -> String {
    format!("{}/arp-manetlab", key(p, ABLATION.0, ABLATION.1, seed, s))
}

/// What one run keeps.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Outcome {
    pub offered: u64,
    pub received: u64,
    pub pdr: Option<f64>,
    pub goodput_kbps: f64,
    pub delay_ms: Option<f64>,
    pub routing_tx: u64,
    pub routing_bytes: u64,
    /// Data packets handed to the MAC (originated + forwarded, each hop).
    pub data_tx: u64,
    pub nrl: Option<f64>,
    pub mean_degree: f64,
    pub connected: f64,
    /// Drops of every packet (data and control) by ns-2 reason, all nodes.
    pub drops: BTreeMap<String, u64>,
    pub mac_retries: u64,
    pub collisions: u64,
    /// Data packets dropped, by ns-2 reason (all flows).
    pub data_drops: BTreeMap<String, u64>,
    /// Data packets dropped NRTE at their flow's source node.
    pub source_nrte: u64,
    /// Control packets dropped after the MAC's retries (RET drops that are
    /// not data).
    pub control_ret: u64,
    /// Routing packets handed to the MAC by kind (each hop).
    pub routing_sent: BTreeMap<String, u64>,
    /// Routing protocol events, all nodes.
    pub routing_events: BTreeMap<String, u64>,
    /// ARP: requests sent, failed resolutions, packets dropped for a dead
    /// address (all nodes).
    pub arp_requests: u64,
    pub arp_failures: u64,
    pub arp_dead_drops: u64,
}

/// Mean degree and the fraction of (flow, sample) pairs whose ends are
/// connected, in the unit-disk graph of `range`, sampled every second in
/// [from, to).
pub fn topology(cfg: &SimConfig, range: f64, from: u64, to: u64) -> (f64, f64) {
    let traj: Vec<_> = cfg.mobility.trajectories(&cfg.nodes).iter().map(|t| t.materialized()).collect();
    let n = traj.len();
    let (mut degree, mut samples, mut conn, mut pairs) = (0usize, 0usize, 0usize, 0usize);
    let mut adj = vec![Vec::new(); n];
    let mut seen = vec![false; n];
    let mut stack = Vec::new();
    for t in from..to {
        let pos: Vec<Position> = traj.iter().map(|tr| tr.position(Time::from_secs(t))).collect();
        adj.iter_mut().for_each(|a: &mut Vec<usize>| a.clear());
        for i in 0..n {
            for j in i + 1..n {
                if pos[i].distance(&pos[j]) <= range {
                    adj[i].push(j);
                    adj[j].push(i);
                }
            }
        }
        degree += adj.iter().map(Vec::len).sum::<usize>();
        samples += n;
        for f in &cfg.flows {
            seen.iter_mut().for_each(|s| *s = false);
            stack.clear();
            stack.push(f.src as usize);
            seen[f.src as usize] = true;
            while let Some(u) = stack.pop() {
                for &v in &adj[u] {
                    if !seen[v] {
                        seen[v] = true;
                        stack.push(v);
                    }
                }
            }
            conn += seen[f.dst as usize] as usize;
            pairs += 1;
        }
    }
    (degree as f64 / samples.max(1) as f64, conn as f64 / pairs.max(1) as f64)
}

/// One run of a reference simulator, as its CSV stores it.
#[derive(Clone, Debug, Deserialize)]
pub struct RefRow {
    pub protocol: String,
    pub max_speed: f64,
    pub pause: f64,
    pub run: u64,
    pub offered: u64,
    pub received: u64,
    pub pdr: Option<f64>,
    pub goodput_kbps: f64,
    pub delay_ms: Option<f64>,
    pub routing_tx: u64,
    pub nrl: Option<f64>,
    #[serde(default)]
    pub sent: Option<u64>,
    #[serde(default)]
    pub mean_degree: Option<f64>,
    #[serde(default)]
    pub connected: Option<f64>,
}

/// The stored runs of one reference (`ns3` or `ns2`); empty (the report
/// then shows `-`) when the file is missing.
pub fn reference(which: &str) -> Vec<RefRow> {
    let path = reference_dir().join(format!("{which}-runs.csv"));
    let Ok(text) = std::fs::read_to_string(&path) else { return Vec::new() };
    csv::Reader::from_reader(text.as_bytes())
        .deserialize()
        .collect::<Result<Vec<RefRow>, _>>()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Aggregates of one (source, protocol, point).
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    pub pdr: Aggregate,
    pub goodput_kbps: Aggregate,
    pub delay_ms: Aggregate,
    pub nrl: Aggregate,
    pub mean_degree: Aggregate,
    pub connected: Aggregate,
    /// Reference only: packets ns-3's sockets refused at the source (no
    /// route), summed over runs.
    pub refused: Option<u64>,
}

fn cell_of_refs(rows: &[&RefRow], ns3: bool) -> Cell {
    Cell {
        pdr: Aggregate::of(rows.iter().filter_map(|r| r.pdr)),
        goodput_kbps: Aggregate::of(rows.iter().map(|r| r.goodput_kbps)),
        delay_ms: Aggregate::of(rows.iter().filter_map(|r| r.delay_ms)),
        nrl: Aggregate::of(rows.iter().filter_map(|r| r.nrl)),
        mean_degree: Aggregate::of(rows.iter().filter_map(|r| r.mean_degree)),
        connected: Aggregate::of(rows.iter().filter_map(|r| r.connected)),
        refused: ns3.then(|| rows.iter().map(|r| r.offered - r.sent.unwrap_or(r.offered).min(r.offered)).sum()),
    }
}

fn cell_of_ours(rows: &[&Outcome]) -> Cell {
    Cell {
        pdr: Aggregate::of(rows.iter().filter_map(|r| r.pdr)),
        goodput_kbps: Aggregate::of(rows.iter().map(|r| r.goodput_kbps)),
        delay_ms: Aggregate::of(rows.iter().filter_map(|r| r.delay_ms)),
        nrl: Aggregate::of(rows.iter().filter_map(|r| r.nrl)),
        mean_degree: Aggregate::of(rows.iter().map(|r| r.mean_degree)),
        connected: Aggregate::of(rows.iter().map(|r| r.connected)),
        refused: None,
    }
}

/// One protocol at one point: manetlab and the references.
#[derive(Clone, Debug, Serialize)]
pub struct PointRow {
    pub protocol: String,
    pub max_speed: f64,
    pub pause: f64,
    pub ours: Cell,
    pub ns3: Option<Cell>,
    pub ns2: Option<Cell>,
    /// Our drops by reason summed over runs (the counters that explain).
    pub drops: BTreeMap<String, u64>,
    /// What became of the data packets, mean per run: ours and ns-3's
    /// (from its counters file; `None` without counters for this point).
    pub fate: Fate,
    pub ns3_fate: Option<Fate>,
    pub ns2_fate: Option<Fate>,
    /// Control packets by kind, mean per run.
    pub control: BTreeMap<String, f64>,
    pub ns3_control: Option<BTreeMap<String, f64>>,
    /// The ARP ablation (manetlab's default ARP failure handling) at
    /// `ABLATION`: PDR and the data packets' fate.
    pub arp_manetlab: Option<(Aggregate, Fate)>,
    /// Per reference: "within 15 %" or the counter-based explanation.
    pub verdict_ns3: Option<String>,
    pub verdict_ns2: Option<String>,
}

#[derive(Serialize)]
pub struct Findings {
    pub scale: Scale,
    pub range_m: f64,
    /// The paired comparison on identical movement (the acceptance).
    pub paired: Vec<paired::PairedRow>,
    /// The independent draws (each simulator its own random waypoint).
    pub rows: Vec<PointRow>,
}

/// `ours` within BAND of `reference` (relative).
pub fn within(ours: f64, reference: f64) -> bool {
    reference > 0.0 && ((ours - reference) / reference).abs() <= BAND
}

/// A row against one reference: "within 15 % (...)", or "explained: ..."
/// when one loss group, or the two largest together (the second at least
/// 20 %), account for 50-150 % of the difference in delivered packets per
/// run (and point the right way: more losses where fewer packets arrive),
/// or "not explained: ..." otherwise (no counters, or the losses differ in
/// several places that offset each other). The bool is the band alone.
pub fn verdict(ours: &Cell, c: &Cell, fate: &Fate, reference: Option<&Fate>, name: &str) -> (bool, String) {
    verdict_of(ours.pdr.mean, c.pdr.mean, fate, reference, name)
}

/// [`verdict`] on two mean PDRs.
pub fn verdict_of(a: f64, b: f64, fate: &Fate, reference: Option<&Fate>, name: &str) -> (bool, String) {
    if within(a, b) {
        return (true, format!("within 15 % of {name} ({})", deviation(a, b)));
    }
    let Some(rf) = reference else {
        return (
            false,
            format!("not explained: {} against {name} (no {name} loss counters at this point)", deviation(a, b)),
        );
    };
    if rf.counts_copies() {
        return (
            false,
            format!(
                "not explained: {} against {name}; {name}'s drop counters count copies of packets (other / in flight \
                 {:.0} per run), so its loss groups are not per data packet and cannot explain the difference",
                deviation(a, b),
                rf.other
            ),
        );
    }
    let gap = fate.delivered - rf.delivered;
    // Each loss group's share of the difference in deliveries (positive:
    // the reference loses more there, where it delivers less), largest first.
    let (mine, theirs) = (fate.groups(), rf.groups());
    let mut shares: Vec<(usize, f64)> =
        (0..counters::GROUPS.len()).map(|i| (i, if gap != 0.0 { (theirs[i] - mine[i]) / gap } else { 0.0 })).collect();
    shares.sort_by(|p, q| q.1.total_cmp(&p.1));
    let part = |(i, sh): (usize, f64)| {
        format!(
            "{} losses {:.0} per run in manetlab, {:.0} in {name} ({:.0} %)",
            counters::GROUPS[i],
            mine[i],
            theirs[i],
            sh * 100.0
        )
    };
    let head = format!("{} against {name} ({:.0} packets per run delivered more by manetlab)", deviation(a, b), gap);
    let band = 0.5..=1.5;
    let (ok, text) = if band.contains(&shares[0].1) {
        (true, format!("{head}: {}", part(shares[0])))
    } else if shares[1].1 >= 0.2 && band.contains(&(shares[0].1 + shares[1].1)) {
        (true, format!("{head}: {} and {}", part(shares[0]), part(shares[1])))
    } else {
        (false, format!("{head}: offsetting counters: {}; {}", part(shares[0]), part(shares[1])))
    };
    (false, if ok { format!("explained: {text}") } else { format!("not explained: {text}") })
}

/// The study: manet-routing-compare beside ns-3.37 and ns-2.35.
pub struct Mrc;

impl Study for Mrc {
    const INFO: StudyInfo = INFO;
    type Outcome = Outcome;
    type Findings = Findings;

    fn plan(&self, opts: &StudyOptions) -> Vec<Job> {
        let s = scale(opts);
        let mut jobs = Vec::new();
        // The paired comparison: movement file RUN (1..=5) of each point,
        // run seed opts.seed + RUN - 1.
        for &(v, pause) in points(opts) {
            for p in PROTOCOLS {
                for run in paired::runs(s) {
                    let seed = opts.seed + run - 1;
                    let cfg = config_with(p, v, pause, seed, s, ArpVariant::Ns3, Movement::File(run));
                    jobs.push(Job::new(paired::key(p, v, pause, run, s), cfg));
                    if paired::ns2_arp_at(p, v, opts) {
                        let cfg = config_with(p, v, pause, seed, s, ArpVariant::Ns2, Movement::File(run));
                        jobs.push(Job::new(paired::ns2_arp_key(p, v, pause, run, s), cfg));
                    }
                    if paired::ns3_report_at(p, v, opts) {
                        let cfg = config_with(p, v, pause, seed, s, ArpVariant::Ns3Reported, Movement::File(run));
                        jobs.push(Job::new(paired::ns3_report_key(p, v, pause, run, s), cfg));
                    }
                }
            }
        }
        for &(v, pause) in points(opts) {
            for p in PROTOCOLS {
                for k in 0..s.seeds {
                    let seed = opts.seed + k as u64;
                    jobs.push(Job::new(key(p, v, pause, seed, s), config(p, v, pause, seed, s)));
                    if (v, pause) == ABLATION && !opts.quick {
                        let cfg = config_with(p, v, pause, seed, s, ArpVariant::Manetlab, Movement::Draw);
                        jobs.push(Job::new(ablation_key(p, seed, s), cfg));
                    }
                }
            }
        }
        jobs
    }

    fn outcome(&self, opts: &StudyOptions, cfg: &SimConfig) -> Result<Outcome, BuildError> {
        let s = scale(opts);
        let r = manetlab::Simulation::new(cfg.clone())?.run();
        let offered: u64 = r.flows.iter().map(|f| f.sent_packets).sum();
        let received: u64 = r.flows.iter().map(|f| f.received_packets).sum();
        let bytes: u64 = r.flows.iter().map(|f| f.received_bytes).sum();
        let delay_sum: f64 = r.flows.iter().filter_map(|f| f.delay_mean_s.map(|d| d * f.received_packets as f64)).sum();
        let routing = r.routing.sent_total();
        let mut drops = BTreeMap::new();
        for n in &r.nodes {
            for (k, v) in &n.drops {
                *drops.entry(k.clone()).or_insert(0) += v;
            }
        }
        let mut data_drops = BTreeMap::new();
        let mut source_nrte = 0;
        for f in &r.flows {
            for d in &f.drops {
                *data_drops.entry(d.reason.clone()).or_insert(0) += d.packets;
                if d.reason == "NRTE" && d.node == f.src {
                    source_nrte += d.packets;
                }
            }
        }
        let ret = |m: &BTreeMap<String, u64>| m.get("RET").copied().unwrap_or(0);
        let control_ret = ret(&drops).saturating_sub(ret(&data_drops));
        let arp = r.nodes.iter().filter_map(|n| n.arp.as_ref());
        let (mut arp_requests, mut arp_failures, mut arp_dead_drops) = (0, 0, 0);
        for a in arp {
            arp_requests += a.requests_sent;
            arp_failures += a.failures;
            arp_dead_drops += a.dead_drops;
        }
        let (mean_degree, connected) = topology(cfg, range_m(), s.traffic_start_s, s.duration_s);
        let window = (s.duration_s - s.traffic_start_s) as f64;
        Ok(Outcome {
            offered,
            received,
            pdr: (offered > 0).then(|| received as f64 / offered as f64),
            goodput_kbps: bytes as f64 * 8.0 / window / 1e3,
            delay_ms: (received > 0).then(|| delay_sum / received as f64 * 1e3),
            routing_tx: routing.packets,
            routing_bytes: routing.bytes,
            data_tx: r.nodes.iter().map(|n| n.originated + n.forwarded).sum(),
            nrl: (received > 0).then(|| routing.packets as f64 / received as f64),
            mean_degree,
            connected,
            drops,
            mac_retries: r.mac_totals().retries,
            collisions: r.radio_totals().collisions,
            data_drops,
            source_nrte,
            control_ret,
            routing_sent: r.routing.sent.iter().map(|(k, c)| (k.clone(), c.packets)).collect(),
            routing_events: r.routing.events.clone(),
            arp_requests,
            arp_failures,
            arp_dead_drops,
        })
    }

    fn analyse(&self, opts: &StudyOptions, runs: &Runs<Outcome>) -> Result<Analysis<Findings>, StudyError> {
        let s = scale(opts);
        let (ns3, ns2) = (reference("ns3"), reference("ns2"));
        let (ns3c, ns2c) = (counters::ns3_counters(), counters::ns2_counters());
        let refs = |rows: &[RefRow], p: &str, v: f64, pause: f64, is3: bool| {
            let sel: Vec<&RefRow> = rows
                .iter()
                .filter(|r| r.protocol.eq_ignore_ascii_case(p) && r.max_speed == v && r.pause == pause)
                .collect();
            (!sel.is_empty()).then(|| cell_of_refs(&sel, is3))
        };
        let mut rows = Vec::new();
        let mut checks = Vec::new();
        for &(v, pause) in points(opts) {
            for p in PROTOCOLS {
                let ours: Vec<&Outcome> =
                    (0..s.seeds).map(|k| runs.get(&key(p, v, pause, opts.seed + k as u64, s))).collect();
                let mut drops = BTreeMap::new();
                for o in &ours {
                    for (k, n) in &o.drops {
                        *drops.entry(k.clone()).or_insert(0) += n;
                    }
                }
                let c3: Vec<&Ns3Counters> = ns3c
                    .iter()
                    .filter(|r| r.protocol.eq_ignore_ascii_case(p) && r.max_speed == v && r.pause == pause)
                    .collect();
                let c2: Vec<&counters::Ns2Counters> = ns2c
                    .iter()
                    .filter(|r| r.protocol.eq_ignore_ascii_case(p) && r.max_speed == v && r.pause == pause)
                    .collect();
                let arp_manetlab = ((v, pause) == ABLATION && !opts.quick).then(|| {
                    let alt: Vec<&Outcome> =
                        (0..s.seeds).map(|k| runs.get(&ablation_key(p, opts.seed + k as u64, s))).collect();
                    (Aggregate::of(alt.iter().filter_map(|r| r.pdr)), Fate::of_ours(p, &alt))
                });
                let mut row = PointRow {
                    protocol: p.into(),
                    max_speed: v,
                    pause,
                    ours: cell_of_ours(&ours),
                    ns3: refs(&ns3, p, v, pause, true),
                    ns2: refs(&ns2, p, v, pause, false),
                    drops,
                    fate: Fate::of_ours(p, &ours),
                    ns3_fate: (!c3.is_empty()).then(|| Fate::of_ns3(&c3)),
                    ns2_fate: (!c2.is_empty()).then(|| Fate::of_ns2(&c2)),
                    control: counters::control_of_ours(p, &ours),
                    ns3_control: (!c3.is_empty()).then(|| counters::control_of_ns3(p, &c3)),
                    arp_manetlab,
                    verdict_ns3: None,
                    verdict_ns2: None,
                };
                // The independent draws: verdicts for the table; the
                // acceptance checks are the paired comparison's.
                if let Some(c) = &row.ns3 {
                    row.verdict_ns3 = Some(verdict(&row.ours, c, &row.fate, row.ns3_fate.as_ref(), "ns-3").1);
                }
                if let Some(c) = &row.ns2 {
                    row.verdict_ns2 = Some(verdict(&row.ours, c, &row.fate, row.ns2_fate.as_ref(), "ns-2").1);
                }
                rows.push(row);
            }
        }
        let paired = paired::analyse(opts, runs, &ns2, &ns2c, &mut checks);
        Ok(Analysis { findings: Findings { scale: s, range_m: range_m(), paired, rows }, checks })
    }

    fn report(&self, opts: &StudyOptions, f: &Findings, doc: &mut ReportDoc) -> Result<(), StudyError> {
        report::report(opts, f, doc)
    }
}
