//! The `gupta` study (backpressure-tcp-udp.txt): 8 FTP clients to a server
//! at the centre of a 13 x 13 grid, starved by two heavy CBR/UDP flows whose
//! paths cross the server, and the schemes the paper compares: 802.11 retry
//! limits (7,4) and (21,12), fair queueing by IP source / destination / next
//! hop / previous hop, and hop-by-hop backpressure (threshold 1..6, keyed by
//! IP source or destination, with oracle, overhearing or explicit knowledge
//! of the neighbour's queue). TDMA on a 5 x 5 grid (FIFO and fair queueing)
//! is the paper's fair-MAC experiment.
//!
//! Setup (issue 7, after the paper's section 3.1 and table 1): 200 m grid,
//! 250 m range (only the four axis neighbours are in range), 802.11 DSSS at
//! 2 Mbit/s with RTS/CTS, AODV with HELLO messages every 9 s (the paper's
//! tuned interval, `HELLO_INTERVAL`), interface queue 50
//! packets, clients at nodes 0, 12, 156, 168, 6, 78, 90, 162 sending bulk
//! TCP-Reno (MSS 1460) to node 84 from 1 s (staggered by 0.1 s), two CBR
//! flows of 800 KB/s in 1460-byte datagrams from 13 s (12 s after TCP) on
//! 8-hop paths through the server. Case 1 ("encircle"): 80 -> 88 along the
//! server's row and 32 -> 136 along its column, so every neighbour of the
//! server carries UDP. Case 2 ("open side"): 80 -> 88 and 32 -> 88 (down the
//! column to the server, then along the row when AODV picks that shortest
//! path), leaving the server's lower side free. Goodput is measured from
//! 13 s to the end (150 s runs, 10 seeds; quick: case 1, 40 s, 2 seeds).
//!
//! "Initial" is the same network without the UDP flows, with the scheme's
//! own retry limits and queue.
//!
//! Variant "UDP through the server" ([`Routes::Pinned`]): static routes,
//! both UDP flows pinned to their 8-hop paths through node 84, corner
//! clients on diagonals ([`staircase`]), so the server's queue holds its
//! ACKs beside UDP as the paper's explanation of FQ-dst > FQ-src assumes
//! (with AODV the UDP flows mostly avoid the server). Quick: case 1,
//! (7,4), FQ-src and FQ-dst; full: (7,4), (21,12), FQ-src, FQ-dst, both
//! cases. The server's DATA frames are counted by payload (ACK share).

mod report;
mod study;
pub use study::{Findings, Gupta, Plan};

use manetlab::config::{FlowConfig, SimConfig, Traffic};
use manetlab::mac::{FrameKind, MacKind};
use manetlab::metrics::trace::{Action, Layer, PacketEvent, TraceSink};
use manetlab::metrics::Report;
use manetlab::net::routing::aodv::{AodvConfig, LinkDetection};
use manetlab::net::routing::RoutingConfig;
use manetlab::net::Body;
use manetlab::queue::{BackpressureConfig, ClassKey, Knowledge, QueueKind};
use manetlab::sim::Time;
use manetlab::study::StudyOptions;
use manetlab::transport::tcp::{DataSource, TcpConfig, TcpVariant};
use serde::{Deserialize, Serialize};

pub const SIDE: usize = 13;
pub const SERVER: u32 = 84;
pub const CLIENTS: [u32; 8] = [0, 12, 156, 168, 6, 78, 90, 162];
pub const MSS: u32 = 1460;
/// The TDMA experiment: 5 x 5 grid, clients at the corners, server at the centre.
pub const TDMA_SIDE: usize = 5;
pub const TDMA_SERVER: u32 = 12;
pub const TDMA_CLIENTS: [u32; 4] = [0, 4, 20, 24];
/// 800 KB/s (kilobytes, as the paper's table 1) in 1460-byte datagrams.
pub const UDP_BYTES_PER_S: f64 = 800e3;
pub const UDP_SIZE: u32 = 1460;
pub const TCP_START_S: f64 = 1.0;
/// The paper's tuned AODV HELLO interval (table 1: "Hello Messages,
/// messages interval 9 seconds", chosen for the highest TCP goodput without
/// UDP). With ALLOWED_HELLO_LOSS = 2 a neighbour is lost after 18.1 s of
/// silence, so congestion (HELLOs lost to collisions and to a neighbour
/// that cannot win the channel) no longer breaks routes: the paper's
/// "stabilized routing". With the RFC's 1 s the UDP sources lost a
/// neighbour about every 4 s and rediscovered their routes 7-9 times per
/// 17 s (study docs, docs/backpressure.md).
pub const HELLO_INTERVAL: Time = Time::from_secs(9);
pub const UDP_START_S: f64 = TCP_START_S + 12.0;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Case {
    /// UDP paths surround the server (figure 1a).
    Encircle,
    /// UDP paths leave one side of the server open (figure 1b).
    OpenSide,
}

impl Case {
    pub fn name(self) -> &'static str {
        match self {
            Case::Encircle => "case1",
            Case::OpenSide => "case2",
        }
    }
    /// The two UDP flows on the 5 x 5 TDMA grid (server 12).
    pub fn udp_tdma(self) -> [(u32, u32); 2] {
        match self {
            Case::Encircle => [(10, 14), (2, 22)],
            Case::OpenSide => [(10, 14), (2, 14)],
        }
    }
    /// The two UDP flows (source, destination).
    pub fn udp(self) -> [(u32, u32); 2] {
        match self {
            Case::Encircle => [(80, 88), (32, 136)],
            Case::OpenSide => [(80, 88), (32, 88)],
        }
    }
}

/// How routes are found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Routes {
    /// AODV with HELLOs (the paper's protocol): the routes the UDP flows
    /// take are AODV's choice and usually avoid the TCP-loaded server.
    Aodv,
    /// "UDP through the server": static routing, fixed for the run. Every
    /// node uses a shortest path (the static tables' BFS tie rule), and the
    /// two UDP flows are pinned to the 8-hop paths through node 84 the
    /// paper's setup states ([`Case::udp_path`]). No routing packets, no
    /// route breaks.
    Pinned,
}

impl Routes {
    pub fn name(self) -> &'static str {
        match self {
            Routes::Aodv => "aodv",
            Routes::Pinned => "pinned",
        }
    }
}

impl Case {
    /// The node sequence of UDP flow `j` (0 or 1) through the server: case 1
    /// along the server's row and column (the unique shortest paths), case 2
    /// flow 2 down the column to the server, then along its row.
    pub fn udp_path(self, j: usize) -> Vec<u32> {
        let s = SIDE as u32;
        let row = |r: u32, c0: u32, c1: u32| (c0..=c1).map(move |c| r * s + c);
        let col = |c: u32, r0: u32, r1: u32| (r0..=r1).map(move |r| r * s + c);
        match (self, j) {
            (_, 0) => row(6, 2, 10).collect(),
            (Case::Encircle, _) => col(6, 2, 10).collect(),
            (Case::OpenSide, _) => col(6, 2, 6).chain(row(6, 7, 10)).collect(),
        }
    }
}

/// A shortest path on the 13 x 13 grid from `a` to `b` alternating column
/// and row steps, starting with a column step if `col_first` (a corner
/// client's diagonal through its quadrant, reaching the server's row or
/// column one hop before the server). The static tables' tie rule would
/// instead send clients 0 and 12 along the top edge and down the UDP column
/// for 6 hops, 156 and 168 along the edges and the UDP row.
pub fn staircase(a: u32, b: u32, col_first: bool) -> Vec<u32> {
    let s = SIDE as i64;
    let (mut r, mut c) = (a as i64 / s, a as i64 % s);
    let (rb, cb) = (b as i64 / s, b as i64 % s);
    let mut p = vec![a];
    let mut col_step = col_first;
    while (r, c) != (rb, cb) {
        if (col_step && c != cb) || r == rb {
            c += (cb - c).signum();
        } else {
            r += (rb - r).signum();
        }
        col_step = !col_step;
        p.push((r * s + c) as u32);
    }
    p
}

/// A scheme the paper compares.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// 802.11 with retry limits (7,4), drop-tail.
    Default,
    /// Retry limits (21,12), drop-tail (the paper's base for what follows).
    Retry,
    /// (21,12) and fair queueing by the key.
    Fq(ClassKey),
    /// (21,12), fair queueing by the key and backpressure on the same key.
    Bp { key: ClassKey, k: u32, knowledge: Knowledge },
    /// TDMA MAC on a 5 x 5 grid, drop-tail or fair queueing by destination.
    Tdma { fq: bool },
}

impl Scheme {
    pub fn id(self) -> String {
        match self {
            Scheme::Default => "default".into(),
            Scheme::Retry => "retry".into(),
            Scheme::Fq(k) => format!("fq-{}", k.name()),
            Scheme::Bp { key, k, knowledge } => format!("bp-{}-k{k}-{}", key.name(), knowledge.name()),
            Scheme::Tdma { fq } => format!("tdma-{}", if fq { "fq" } else { "fifo" }),
        }
    }
    pub fn label(self) -> String {
        match self {
            Scheme::Default => "802.11 (7,4)".into(),
            Scheme::Retry => "802.11 (21,12)".into(),
            Scheme::Fq(k) => format!("FQ {}", k.name()),
            Scheme::Bp { key, k, knowledge } => format!("BP {} k={k} {}", key.name(), knowledge.name()),
            Scheme::Tdma { fq } => format!("TDMA 5x5 {}", if fq { "FQ dst" } else { "FIFO" }),
        }
    }
    /// Every scheme of the full study.
    pub fn all() -> Vec<Scheme> {
        let mut v = vec![Scheme::Default, Scheme::Retry];
        v.extend([ClassKey::Src, ClassKey::Dst, ClassKey::NextHop, ClassKey::PrevHop].map(Scheme::Fq));
        v.extend([Scheme::Tdma { fq: false }, Scheme::Tdma { fq: true }]);
        for knowledge in [Knowledge::Oracle, Knowledge::Overhear, Knowledge::Explicit] {
            for key in [ClassKey::Src, ClassKey::Dst] {
                for k in 1..=6 {
                    v.push(Scheme::Bp { key, k, knowledge });
                }
            }
        }
        v
    }
}

/// The config of one run (AODV routes); `udp = false` gives the "initial"
/// network.
pub fn config(scheme: Scheme, case: Case, udp: bool, seed: u64, duration: Time) -> SimConfig {
    config_with(scheme, case, udp, seed, duration, Routes::Aodv)
}

/// As [`config`], with the routes chosen (`Routes::Pinned` is for the
/// 13 x 13 grid, not TDMA).
pub fn config_with(scheme: Scheme, case: Case, udp: bool, seed: u64, duration: Time, routes: Routes) -> SimConfig {
    let tdma = matches!(scheme, Scheme::Tdma { .. });
    let side = if tdma { TDMA_SIDE } else { SIDE };
    let mut cfg = SimConfig {
        seed,
        duration,
        warmup: Time::from_secs_f64(UDP_START_S),
        nodes: SimConfig::grid_positions(side, side, 200.0),
        ..SimConfig::default()
    };
    if tdma {
        cfg.mac.kind = MacKind::Tdma { max_packet: 1500, guard: Time::from_us(20) };
    }
    let (clients, server, udp_flows): (&[u32], u32, [(u32, u32); 2]) =
        if tdma { (&TDMA_CLIENTS, TDMA_SERVER, case.udp_tdma()) } else { (&CLIENTS, SERVER, case.udp()) };
    let (short, long) = if scheme == Scheme::Default { (7, 4) } else { (21, 12) };
    cfg.mac.short_retry_limit = short;
    cfg.mac.long_retry_limit = long;
    cfg.routing = match routes {
        Routes::Aodv => RoutingConfig::Aodv(AodvConfig {
            link_detection: LinkDetection::Hello,
            hello_interval: HELLO_INTERVAL,
            ..AodvConfig::default()
        }),
        Routes::Pinned => {
            assert!(!tdma, "pinned routes are for the 13 x 13 grid");
            let mut paths: Vec<Vec<u32>> = (0..2).map(|j| case.udp_path(j)).collect();
            // Corner clients on diagonals, each entering the server through
            // a different neighbour: 0 via 71, 12 via 85, 156 via 83, 168 via 97.
            paths.extend(CLIENTS[..4].iter().map(|&c| staircase(c, SERVER, c == 0 || c == 168)));
            RoutingConfig::Static { paths }
        }
    };
    let fair = |key| QueueKind::Fair { key, quantum: None, class_limit: usize::MAX };
    match scheme {
        Scheme::Default | Scheme::Retry | Scheme::Tdma { fq: false } => {}
        Scheme::Tdma { fq: true } => cfg.queue.kind = fair(ClassKey::Dst),
        Scheme::Fq(key) => cfg.queue.kind = fair(key),
        Scheme::Bp { key, k, knowledge } => {
            cfg.queue.kind = fair(key);
            cfg.queue.backpressure =
                Some(BackpressureConfig { threshold: k, key, knowledge, udp_only: true, ..Default::default() });
        }
    }
    let tcp = TcpConfig { mss: MSS, variant: TcpVariant::Reno, ..TcpConfig::default() };
    for (i, &c) in clients.iter().enumerate() {
        cfg.flows.push(FlowConfig {
            name: format!("client{}-{c}", i + 1),
            src: c,
            dst: server,
            traffic: Traffic::Tcp { tcp: tcp.clone(), data: DataSource::Bulk },
            start: Time::from_secs_f64(TCP_START_S + 0.1 * i as f64),
            stop: None,
        });
    }
    if udp {
        for (j, (s, d)) in udp_flows.into_iter().enumerate() {
            cfg.flows.push(FlowConfig {
                name: format!("udp{}-{s}-{d}", j + 1),
                src: s,
                dst: d,
                traffic: Traffic::Cbr {
                    size: UDP_SIZE,
                    interval: Time::from_secs_f64(UDP_SIZE as f64 / UDP_BYTES_PER_S),
                    jitter: Time::ZERO,
                },
                start: Time::from_secs_f64(UDP_START_S + 0.05 * j as f64),
                stop: None,
            });
        }
    }
    cfg
}

/// What the study keeps of one run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Outcome {
    /// Per client: TCP goodput, bit/s.
    pub client_bps: Vec<f64>,
    /// Per client: TCP data packets (segments) sent by the source and
    /// received by the server.
    pub tcp_sent: Vec<u64>,
    pub tcp_received: Vec<u64>,
    /// Per UDP flow: datagrams injected (offered minus held back) and delivered.
    pub udp_injected: Vec<u64>,
    pub udp_delivered: Vec<u64>,
    pub udp_bps: Vec<f64>,
    pub audit_balances: bool,
    /// Packets the server forwarded: UDP datagrams whose route crosses it
    /// (TCP ends there). The paper's case for IP-destination queueing
    /// needs UDP in the server's queue beside its ACKs.
    #[serde(default)]
    pub server_forwarded: u64,
    /// DATA frames the server's MAC put on the air from the UDP start to the
    /// end (retransmissions included), by what they carried: TCP (the
    /// server's ACKs), UDP (forwarded datagrams), other (routing).
    #[serde(default)]
    pub server_frames: [u64; 3],
}

/// Counts the server's DATA frames by payload (a trace sink: tracing calls
/// it for every MAC transmission).
struct ServerFrames {
    server: u32,
    from: Time,
    counts: std::sync::Arc<std::sync::Mutex<[u64; 3]>>,
}

impl TraceSink for ServerFrames {
    fn packet(&mut self, ev: &PacketEvent) {
        if ev.node != self.server || ev.layer != Layer::Mac || ev.action != Action::Send || ev.time < self.from {
            return;
        }
        if ev.frame.is_some_and(|f| f.kind == FrameKind::Data) {
            let i = match ev.pkt.body {
                Body::Tcp(_) => 0,
                Body::Udp { .. } => 1,
                _ => 2,
            };
            self.counts.lock().unwrap()[i] += 1;
        }
    }
}

impl Outcome {
    pub fn of(r: &Report) -> Outcome {
        let tcp: Vec<_> = r.flows.iter().filter(|f| f.kind == "tcp").collect();
        let udp: Vec<_> = r.flows.iter().filter(|f| f.kind == "cbr").collect();
        Outcome {
            client_bps: tcp.iter().map(|f| f.goodput_bps).collect(),
            tcp_sent: tcp.iter().map(|f| f.sent_packets).collect(),
            tcp_received: tcp.iter().map(|f| f.received_packets).collect(),
            udp_injected: udp.iter().map(|f| f.sent_packets - f.not_injected).collect(),
            udp_delivered: udp.iter().map(|f| f.received_packets).collect(),
            udp_bps: udp.iter().map(|f| f.goodput_bps).collect(),
            audit_balances: r.audit.balances(),
            server_forwarded: r.nodes.get(SERVER as usize).map_or(0, |n| n.forwarded),
            server_frames: [0; 3],
        }
    }
    /// Runs `cfg` (a 13 x 13 grid, server 84) counting the server's frames.
    pub fn measure(cfg: &SimConfig) -> Result<Outcome, manetlab::BuildError> {
        let counts = std::sync::Arc::new(std::sync::Mutex::new([0u64; 3]));
        let mut sim = manetlab::Simulation::new(cfg.clone())?;
        sim.set_tracer(Box::new(ServerFrames { server: SERVER, from: cfg.warmup, counts: counts.clone() }));
        let mut o = Outcome::of(&sim.run());
        o.server_frames = *counts.lock().unwrap();
        Ok(o)
    }
    /// The server's ACKs' share of its DATA frames, %.
    pub fn ack_share(&self) -> f64 {
        let [a, u, x] = self.server_frames;
        100.0 * a as f64 / (a + u + x).max(1) as f64
    }
    pub fn tcp_bps(&self) -> f64 {
        self.client_bps.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use manetlab::net::routing::static_routes::build_tables;

    /// Follows the static tables from `src` to `dst`.
    fn path(t: &[Vec<u32>], src: u32, dst: u32) -> Vec<u32> {
        let mut p = vec![src];
        while *p.last().unwrap() != dst {
            p.push(t[*p.last().unwrap() as usize][dst as usize]);
            assert!(p.len() <= 30, "loop {p:?}");
        }
        p
    }

    #[test]
    fn pinned_routes_cross_the_server() {
        for case in [Case::Encircle, Case::OpenSide] {
            let mut entries = Vec::new();
            let cfg = config_with(Scheme::Retry, case, true, 1, Time::from_secs(1), Routes::Pinned);
            let paths = match &cfg.routing {
                RoutingConfig::Static { paths } => paths.clone(),
                _ => panic!("pinned routes are static"),
            };
            let t = build_tables(&cfg.nodes, cfg.radio.rx_range(), &paths);
            for (j, (s, d)) in case.udp().into_iter().enumerate() {
                let p = path(&t, s, d);
                assert_eq!(p, case.udp_path(j));
                assert_eq!(p.len(), 9, "8 hops");
                assert!(p[1..8].contains(&SERVER), "{p:?} crosses the server");
            }
            // Clients and the server's ACKs use shortest paths (Manhattan
            // distance on the grid) in both directions; corner clients meet
            // the UDP paths only at a neighbour of the server.
            for c in CLIENTS {
                let md = |a: u32, b: u32| {
                    let (s, a, b) = (SIDE as i64, a as i64, b as i64);
                    ((a / s - b / s).abs() + (a % s - b % s).abs()) as usize
                };
                assert_eq!(path(&t, c, SERVER).len() - 1, md(c, SERVER));
                assert_eq!(path(&t, SERVER, c).len() - 1, md(c, SERVER));
                if CLIENTS[..4].contains(&c) {
                    let p = path(&t, c, SERVER);
                    let on_udp = p.iter().filter(|n| (0..2).any(|j| case.udp_path(j).contains(n))).count();
                    assert!(on_udp <= 2, "{c}: {p:?}");
                    assert_eq!(p, path(&t, SERVER, c).into_iter().rev().collect::<Vec<_>>(), "ACKs take the reverse");
                }
                entries.push(path(&t, c, SERVER)[md(c, SERVER) - 1]);
            }
            // Each neighbour of the server relays one corner and one axis client.
            entries.sort_unstable();
            assert_eq!(entries, [71, 71, 83, 83, 85, 85, 97, 97]);
        }
    }

    #[test]
    #[ignore = "prints the clients' static paths"]
    fn print_client_paths() {
        let cfg = config_with(Scheme::Retry, Case::Encircle, true, 1, Time::from_secs(1), Routes::Pinned);
        let paths = match &cfg.routing {
            RoutingConfig::Static { paths } => paths.clone(),
            _ => unreachable!(),
        };
        let t = build_tables(&cfg.nodes, cfg.radio.rx_range(), &paths);
        for c in CLIENTS {
            println!("{c} -> 84: {:?}\n84 -> {c}: {:?}", path(&t, c, SERVER), path(&t, SERVER, c));
            let on_udp =
                path(&t, c, SERVER).iter().filter(|n| (0..2).any(|j| Case::Encircle.udp_path(j).contains(n))).count();
            println!("  nodes on a UDP path (incl. the server): {on_udp}");
        }
    }
}

#[cfg(test)]
mod measure_tests {
    use super::*;

    /// Counting the server's frames through a trace sink changes nothing
    /// in the run, and the counts match the server's forwarding.
    #[test]
    fn measuring_does_not_perturb() {
        let cfg = config_with(Scheme::Fq(ClassKey::Src), Case::Encircle, true, 1, Time::from_secs(16), Routes::Pinned);
        let plain = Outcome::of(&manetlab::Simulation::new(cfg.clone()).unwrap().run());
        let m = Outcome::measure(&cfg).unwrap();
        assert_eq!(plain.client_bps, m.client_bps);
        assert_eq!(plain.udp_delivered, m.udp_delivered);
        let [ack, udp, other] = m.server_frames;
        assert!(ack > 0 && udp > 0 && other == 0, "{:?}", m.server_frames);
        // Every UDP datagram the server sends was forwarded by it (frames
        // include retransmissions, forwarded includes queue drops).
        assert!(m.server_forwarded > 0);
    }
}
