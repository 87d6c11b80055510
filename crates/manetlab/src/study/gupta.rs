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
//! 2 Mbit/s with RTS/CTS, AODV with HELLO messages, interface queue 50
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

use super::sweep::{self, Aggregate, Job};
use super::{write_file, Check, Figure, Progress, Series, StudyError, StudyOptions, StudyOutput};
use crate::config::{FlowConfig, SimConfig, Traffic};
use crate::metrics::Report;
use crate::net::routing::aodv::{AodvConfig, LinkDetection};
use crate::net::routing::RoutingConfig;
use crate::queue::{BackpressureConfig, ClassKey, Knowledge, QueueKind};
use crate::sim::Time;
use crate::transport::tcp::{DataSource, TcpConfig, TcpVariant};
use serde::{Deserialize, Serialize};

pub const SIDE: usize = 13;
pub const SERVER: u32 = 84;
pub const CLIENTS: [u32; 8] = [0, 12, 156, 168, 6, 78, 90, 162];
pub const MSS: u32 = 1460;
/// 800 KB/s (kilobytes, as the paper's table 1) in 1460-byte datagrams.
pub const UDP_BYTES_PER_S: f64 = 800e3;
pub const UDP_SIZE: u32 = 1460;
pub const TCP_START_S: f64 = 1.0;
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
    /// The two UDP flows (source, destination).
    pub fn udp(self) -> [(u32, u32); 2] {
        match self {
            Case::Encircle => [(80, 88), (32, 136)],
            Case::OpenSide => [(80, 88), (32, 88)],
        }
    }
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

/// The config of one run; `udp = false` gives the "initial" network.
pub fn config(scheme: Scheme, case: Case, udp: bool, seed: u64, duration: Time) -> SimConfig {
    let mut cfg = SimConfig {
        seed,
        duration,
        warmup: Time::from_secs_f64(UDP_START_S),
        nodes: SimConfig::grid_positions(SIDE, SIDE, 200.0),
        ..SimConfig::default()
    };
    let (short, long) = if scheme == Scheme::Default { (7, 4) } else { (21, 12) };
    cfg.mac.short_retry_limit = short;
    cfg.mac.long_retry_limit = long;
    cfg.routing = RoutingConfig::Aodv(AodvConfig { link_detection: LinkDetection::Hello, ..AodvConfig::default() });
    let fair = |key| QueueKind::Fair { key, quantum: None, class_limit: usize::MAX };
    match scheme {
        Scheme::Default | Scheme::Retry | Scheme::Tdma { .. } => {}
        Scheme::Fq(key) => cfg.queue.kind = fair(key),
        Scheme::Bp { key, k, knowledge } => {
            cfg.queue.kind = fair(key);
            cfg.queue.backpressure = Some(BackpressureConfig { threshold: k, key, knowledge, udp_only: true, ..Default::default() });
        }
    }
    let tcp = TcpConfig { mss: MSS, variant: TcpVariant::Reno, ..TcpConfig::default() };
    for (i, &c) in CLIENTS.iter().enumerate() {
        cfg.flows.push(FlowConfig {
            name: format!("client{}-{c}", i + 1),
            src: c,
            dst: SERVER,
            traffic: Traffic::Tcp { tcp: tcp.clone(), data: DataSource::Bulk },
            start: Time::from_secs_f64(TCP_START_S + 0.1 * i as f64),
            stop: None,
        });
    }
    if udp {
        for (j, (s, d)) in case.udp().into_iter().enumerate() {
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
        }
    }
    pub fn tcp_bps(&self) -> f64 {
        self.client_bps.iter().sum()
    }
}
