//! Building a run from its configuration: checks, then one instance of
//! every layer per node, the endpoints of every flow, the channel and the
//! cross-layer stages.

use super::{Event, Observers, Simulation, FLOW_PORT_BASE};
use crate::config::{SimConfig, Traffic};
use crate::mac::{Mac, MacEnv};
use crate::metrics::Metrics;
use crate::net::arp::{Arp, ArpConfig};
use crate::net::routing;
use crate::net::NodeId;
use crate::node::{NetStats, Node};
use crate::phy::channel::Channel;
use crate::phy::radio::Radio;
use crate::queue::QueueEnv;
use crate::sim::{EventQueue, Purpose, RngStream, Time};

/// Why a configuration cannot be run.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum BuildError {
    #[error("flow '{flow}': node {node} does not exist (the scenario has {nodes} nodes)")]
    NoSuchNode { flow: String, node: u32, nodes: usize },
    #[error("flow '{0}': source and destination are the same node")]
    SelfFlow(String),
    /// The routing protocol refused the run (e.g. a static path naming a
    /// node that does not exist).
    #[error("{0}")]
    Routing(String),
    #[error("the scenario has no nodes")]
    NoNodes,
    #[error("too many flows ({0}); at most 50000")]
    TooManyFlows(usize),
    #[error("node event at {at}: node {node} does not exist (the scenario has {nodes} nodes)")]
    NoSuchEventNode { node: u32, at: Time, nodes: usize },
    #[error("wired link {a} - {b}: {why}")]
    BadLink { a: u32, b: u32, why: &'static str },
    #[error("wired-only node {0} does not exist")]
    BadWiredNode(u32),
    #[error("gateway node {node}: {why}")]
    BadGateway { node: usize, why: &'static str },
}

impl Simulation {
    pub fn new(cfg: SimConfig) -> Result<Simulation, BuildError> {
        let n = cfg.nodes.len();
        if n == 0 {
            return Err(BuildError::NoNodes);
        }
        if cfg.flows.len() > 50_000 {
            return Err(BuildError::TooManyFlows(cfg.flows.len()));
        }
        for f in &cfg.flows {
            for node in [f.src, f.dst] {
                if node as usize >= n {
                    return Err(BuildError::NoSuchNode { flow: f.name.clone(), node, nodes: n });
                }
            }
            if f.src == f.dst {
                return Err(BuildError::SelfFlow(f.name.clone()));
            }
        }
        if let Some(e) = cfg.node_events.iter().find(|e| e.node as usize >= n) {
            return Err(BuildError::NoSuchEventNode { node: e.node, at: e.at, nodes: n });
        }
        for l in &cfg.wired.links {
            let bad = |why| Err(BuildError::BadLink { a: l.a, b: l.b, why });
            if l.a as usize >= n || l.b as usize >= n {
                return bad("names a node that does not exist");
            }
            if l.a == l.b {
                return bad("joins a node to itself");
            }
            if l.bandwidth_bps == 0 {
                return bad("bandwidth must be greater than zero");
            }
            if cfg.wired.links.iter().filter(|m| (m.a.min(m.b), m.a.max(m.b)) == (l.a.min(l.b), l.a.max(l.b))).count()
                > 1
            {
                return bad("is given twice");
            }
        }
        if let Some(&w) = cfg.wired.wired_only.iter().find(|&&w| w as usize >= n) {
            return Err(BuildError::BadWiredNode(w));
        }
        let wired = crate::net::wired::Wired::new(&cfg.wired, n);
        let gateway = match &cfg.gateway {
            Some(g) => Some(Self::build_gateway(&cfg, g, &wired)?),
            None => None,
        };
        let channel = Channel::build(
            &cfg.radio,
            &cfg.mac.phy,
            cfg.seed,
            cfg.nodes.clone(),
            cfg.mobility.trajectories(&cfg.nodes),
        );
        // Variable-length routing messages travel as bytes on this board
        // (`wire/board.rs`); the pcap writer reads them there too.
        let board = crate::wire::board::WireBoard::new();
        let wires = crate::net::wired::Wired::edges(&cfg.wired);
        let env = routing::NetEnv {
            positions: &cfg.nodes,
            rx_range: cfg.radio.rx_range(),
            wires: &wires,
            wired_only: &cfg.wired.wired_only,
            board: &board,
        };
        let mut routings = cfg.routing.build(&env).map_err(BuildError::Routing)?.into_iter();
        let mut nodes = Vec::with_capacity(n);
        for id in 0..n as NodeId {
            let mut routing = routings.next().expect("one routing instance per node");
            routing.set_proxied(wired.proxied(id));
            nodes.push(Node {
                id,
                radio: Radio::from_config(
                    &cfg.radio,
                    &cfg.mac.phy,
                    RngStream::new(cfg.seed, id as u64, Purpose::Phy, 0),
                ),
                mac: Mac::build(&cfg.mac, &MacEnv { node: id, nodes: n, radio: &cfg.radio, seed: cfg.seed }),
                ifq: crate::queue::build(&cfg.queue, &QueueEnv { node: id, seed: cfg.seed }),
                ifq_life: cfg.queue.max_delay.map(|d| crate::queue::Lifetime::new(d, cfg.queue.limit)),
                arp: (cfg.arp != ArpConfig::Off).then(|| Arp::new(cfg.arp.clone())),
                routing,
                endpoints: Vec::new(),
                routing_rng: RngStream::new(cfg.seed, id as u64, Purpose::Routing, 0),
                app_rng: RngStream::new(cfg.seed, id as u64, Purpose::AppJitter, 0),
                net: NetStats::default(),
                stride_pad: [0; 64],
            });
        }
        for node in nodes.iter_mut() {
            // Only backpressure reads a MAC's successes, and backpressure or
            // a listening protocol its overheard packets (`do_mac`): the
            // MAC leaves out what nobody reads (`mac/dcf/reports.rs`).
            let bp = cfg.queue.backpressure.is_some();
            node.mac.set_reports(bp, bp || node.routing.wants_overheard());
        }
        let mut endpoint_rngs: Vec<Vec<RngStream>> = (0..n).map(|_| Vec::new()).collect();
        for (i, f) in cfg.flows.iter().enumerate() {
            let port = (FLOW_PORT_BASE + i as u32) as u16;
            let flow_entity = (1u64 << 32) | i as u64;
            let stop = f.stop.unwrap_or(cfg.duration).min(cfg.duration);
            let env = crate::app::FlowEnv {
                flow: i as u32,
                port,
                src: f.src,
                dst: f.dst,
                start: f.start,
                stop,
                warmup: cfg.warmup,
            };
            let crate::app::Endpoints { sender, sink } = f.traffic.endpoints(&env);
            nodes[f.src as usize].endpoints.push(sender);
            endpoint_rngs[f.src as usize].push(RngStream::new(cfg.seed, flow_entity, Purpose::AppJitter, 0));
            nodes[f.dst as usize].endpoints.push(sink);
            endpoint_rngs[f.dst as usize].push(RngStream::new(cfg.seed, flow_entity, Purpose::AppJitter, 1));
        }
        if let Some(b) = &cfg.beacon {
            // Every node beacons, from its own stream (entity = node id).
            let b = std::sync::Arc::new(b.clone());
            for (i, node) in nodes.iter_mut().enumerate() {
                node.endpoints.push(Box::new(crate::app::beacon::BeaconEndpoint::new(b.clone(), cfg.warmup)));
                endpoint_rngs[i].push(RngStream::new(cfg.seed, i as u64, Purpose::AppJitter, 2));
            }
        }
        let metrics = Metrics::new(cfg.warmup, cfg.flows.len());
        let air_counts = cfg.beacon.is_some().then(super::AirCounts::default);
        let mut queue = EventQueue::new();
        for e in &cfg.node_events {
            queue.schedule(e.at, Event::Node { node: e.node, action: e.action });
        }
        let mut obs = Observers::new(metrics);
        if let Some(iv) = cfg.record.interval {
            // Time series: an observer like any other, only when asked.
            obs.add(Box::new(crate::metrics::timeseries::TimeSeriesRecorder::new(iv)));
        }
        Ok(Simulation {
            queue,
            nodes,
            channel,
            endpoint_rngs,
            executed: 0,
            until: crate::sim::Time::ZERO,
            started: false,
            work: Vec::with_capacity(64),
            queued: [0; 3],
            mac_out: Vec::with_capacity(16),
            net_out: Vec::with_capacity(16),
            ep_out: Vec::with_capacity(16),
            hearers: Vec::with_capacity(64),
            arp_out: Vec::with_capacity(8),
            obs,
            route_buf: Vec::new(),
            radio_off: (0..n as NodeId).map(|i| wired.is_wired_only(i)).collect(),
            radios_off: (0..n as NodeId).filter(|&i| wired.is_wired_only(i)).count(),
            reclaimed: Vec::new(),
            bp: cfg.queue.backpressure.map(|b| crate::queue::Backpressure::new(b, n, cfg.flows.len())),
            bp_wake: Vec::new(),
            cfg,
            wired,
            gateway,
            board,
            streams: Default::default(),
            access: vec![Default::default(); n],
            air_counts,
            #[cfg(feature = "event-counts")]
            counts: Default::default(),
        })
    }

    fn build_gateway(
        cfg: &SimConfig,
        g: &crate::net::gateway::GatewayConfig,
        wired: &crate::net::wired::Wired,
    ) -> Result<crate::net::gateway::Gateway, BuildError> {
        let bad = |why| Err(BuildError::BadGateway { node: g.node, why });
        if g.node >= cfg.nodes.len() {
            return bad("does not exist");
        }
        let id = g.node as NodeId;
        if !cfg.wired.links.iter().any(|l| l.a == id || l.b == id) {
            return bad("has no wired link: the gateway joins a wire and the radio");
        }
        if wired.is_wired_only(id) {
            return bad("is wired only: the gateway joins a wire and the radio");
        }
        if g.window == Some(0) {
            return bad("window must be at least 1 segment");
        }
        if [g.pacing, g.ack_pacing].iter().flatten().any(|r| !(r.is_finite() && *r > 0.0)) {
            return bad("pacing rates must be greater than zero");
        }
        if g.pacing_queue == 0 {
            return bad("pacing_queue must be at least 1 packet");
        }
        let mss: Vec<u32> = cfg
            .flows
            .iter()
            .map(|f| match &f.traffic {
                Traffic::Tcp { tcp, .. } => tcp.mss,
                _ => 0,
            })
            .collect();
        Ok(crate::net::gateway::Gateway::new(g, &mss))
    }
}
