//! One run: the nodes, the channel, the event queue, and the dispatch that
//! carries actions between layers.
//!
//! Each event is handed to the layer it belongs to. A layer answers with
//! actions (transmit a frame, deliver a packet up, queue a packet, set a
//! timer); these go into a FIFO work list that is drained before the next
//! event, so the order of everything that happens at one instant is fixed by
//! the code, never by hashing or threads. Scratch buffers are reused: the
//! steady state allocates nothing per event.

use crate::config::{NodeAction, SimConfig, Traffic};
use crate::mac::dcf::{Dcf, MacAction, MacTimer};
use crate::mac::{Mac, MacKind, Tdma};
use crate::metrics::report::{Audit, FlowReport, NodeReport, Report};
use crate::metrics::trace::{Action, FrameDir, FrameEvent, Interest, Layer, PacketEvent, Reception, TraceSink};
use crate::metrics::{DropReason, Fate, Metrics};
use crate::net::arp::{Arp, ArpAction, ArpConfig, ArpOp, ARP_BYTES};
use crate::net::routing::{self, NetAction, Origin, RouteCtx, RoutingConfig};
use crate::net::{Body, NodeId, Packet, BROADCAST, FLOW_NONE};
use crate::node::{NetStats, Node};
use crate::phy::channel::{Channel, Hearer, TxId};
use crate::phy::radio::{CaptureRule, Radio, RxOutcome};
use crate::sim::{EventQueue, Purpose, RngStream, Time};
use crate::transport::tcp::{TcpSink, TcpSource};
use crate::transport::udp::{UdpSender, UdpSink};
use crate::transport::voip::VoipEndpoint;
use crate::transport::{Endpoint, EndpointAction, EndpointCtx};
use std::collections::{BTreeMap, VecDeque};

/// Kernel events. Small and `Copy`: the queue stores them by value.
#[derive(Copy, Clone, Debug)]
enum Event {
    /// The first bit of a transmission reaches `node`.
    SignalStart {
        node: NodeId,
        tx: TxId,
        power: f64,
    },
    /// The last bit of a transmission passes `node`.
    SignalEnd {
        node: NodeId,
        tx: TxId,
    },
    /// `node`'s own transmission ends.
    TxEnd {
        node: NodeId,
    },
    Mac {
        node: NodeId,
        kind: MacTimer,
        gen: u32,
    },
    Endpoint {
        node: NodeId,
        idx: u16,
        token: u64,
    },
    Routing {
        node: NodeId,
        token: u64,
    },
    Arp {
        node: NodeId,
        token: u64,
    },
    /// A wired link direction finished serialising (`arrive = false`) or
    /// its oldest propagating packet reaches the far end (`arrive = true`).
    Wire {
        dir: u32,
        arrive: bool,
    },
    /// A scripted node event (`SimConfig::node_events`).
    Node {
        node: NodeId,
        action: NodeAction,
    },
    /// A node blocked by backpressure looks at its queue again (its
    /// estimates may have gone stale).
    Backpressure {
        node: NodeId,
    },
    /// A gateway shaper releases its head packet: the ACK shaper
    /// (`to_wire`) or the data shaper (`net/gateway.rs`).
    Gateway {
        to_wire: bool,
    },
}

/// Work produced while handling one event, executed in FIFO order.
#[derive(Debug)]
/// Work items name an action by its index in the layer's output vector, so
/// an action is moved once (when it is carried out), not through the queue.
enum Work {
    Mac(NodeId, u32),
    Net(NodeId, u32),
    Endpoint(NodeId, u16, u32),
}

/// Why a configuration cannot be run.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum BuildError {
    #[error("flow '{flow}': node {node} does not exist (the scenario has {nodes} nodes)")]
    NoSuchNode { flow: String, node: u32, nodes: usize },
    #[error("flow '{0}': source and destination are the same node")]
    SelfFlow(String),
    #[error("routing path {0:?} names a node that does not exist")]
    BadPath(Vec<u32>),
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

/// First port used by flows: flow i uses port FLOW_PORT_BASE + i at both ends.
const FLOW_PORT_BASE: u32 = 10_000;

pub struct Simulation {
    cfg: SimConfig,
    queue: EventQueue<Event>,
    nodes: Vec<Node>,
    channel: Channel,
    metrics: Metrics,
    /// Per endpoint (node, index) random stream, seeded by flow.
    endpoint_rngs: Vec<Vec<RngStream>>,
    executed: u64,
    started: bool,
    work: VecDeque<Work>,
    mac_out: Vec<MacAction>,
    net_out: Vec<NetAction>,
    ep_out: Vec<EndpointAction>,
    /// How many entries of each output vector already have work items.
    queued: [usize; 3],
    hearers: Vec<Hearer>,
    arp_out: Vec<ArpAction>,
    tracer: Option<Box<dyn TraceSink>>,
    /// The tracer's optional hooks (all off without a tracer).
    interest: Interest,
    /// Reused buffer for `Interest::routes`.
    route_buf: Vec<routing::RouteEntry>,
    /// Per node: radio switched off by a node event.
    radio_off: Vec<bool>,
    radios_off: usize,
    reclaimed: Vec<Packet>,
    /// Hop-by-hop backpressure state (`queue/backpressure.rs`), when on.
    bp: Option<crate::queue::Backpressure>,
    bp_wake: Vec<NodeId>,
    /// Point-to-point links and wired routing (`net/wired.rs`).
    wired: crate::net::wired::Wired,
    /// TCP controls at the Internet gateway, when configured.
    gateway: Option<crate::net::gateway::Gateway>,
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
        let mut tables = match &cfg.routing {
            RoutingConfig::Static { paths } => {
                if let Some(p) = paths.iter().find(|p| p.iter().any(|&x| x as usize >= n)) {
                    return Err(BuildError::BadPath(p.clone()));
                }
                routing::static_routes::build_tables_wired(
                    &cfg.nodes,
                    cfg.radio.rx_range(),
                    paths,
                    &crate::net::wired::Wired::edges(&cfg.wired),
                    &cfg.wired.wired_only,
                )
            }
            RoutingConfig::Aodv(_) | RoutingConfig::Dsr(_) => Vec::new(),
        }
        .into_iter();
        let nav_on_capture = cfg.radio.capture_rule == CaptureRule::Ns2;
        let mut nodes = Vec::with_capacity(n);
        for id in 0..n as NodeId {
            let mut routing: Box<dyn routing::Routing> = match &cfg.routing {
                RoutingConfig::Static { .. } => Box::new(routing::StaticRouting::from_table(tables.next().unwrap())),
                // A wired-only node runs no MANET routing: its wired table
                // (`net/wired.rs`) covers everything it sends.
                _ if wired.is_wired_only(id) => Box::new(routing::StaticRouting::from_table(Vec::new())),
                RoutingConfig::Aodv(c) => Box::new(routing::Aodv::new(id, c.clone())),
                RoutingConfig::Dsr(c) => Box::new(routing::Dsr::new(id, c.clone())),
            };
            routing.set_proxied(wired.proxied(id));
            nodes.push(Node {
                id,
                radio: Radio::from_config(
                    &cfg.radio,
                    &cfg.mac.phy,
                    RngStream::new(cfg.seed, id as u64, Purpose::Phy, 0),
                ),
                mac: match cfg.mac.kind {
                    MacKind::Dcf => Mac::Dcf(Dcf::new(
                        id,
                        &cfg.mac,
                        nav_on_capture,
                        RngStream::new(cfg.seed, id as u64, Purpose::MacBackoff, 0),
                    )),
                    MacKind::Tdma { max_packet, guard } => Mac::Tdma(Tdma::new(id, n, &cfg.mac, max_packet, guard)),
                },
                ifq: crate::queue::build(&cfg.queue),
                arp: (cfg.arp != ArpConfig::Off).then(|| Arp::new(cfg.arp.clone())),
                routing,
                endpoints: Vec::new(),
                routing_rng: RngStream::new(cfg.seed, id as u64, Purpose::Routing, 0),
                app_rng: RngStream::new(cfg.seed, id as u64, Purpose::AppJitter, 0),
                net: NetStats::default(),
            });
        }
        let mut endpoint_rngs: Vec<Vec<RngStream>> = (0..n).map(|_| Vec::new()).collect();
        for (i, f) in cfg.flows.iter().enumerate() {
            let port = (FLOW_PORT_BASE + i as u32) as u16;
            let flow_entity = (1u64 << 32) | i as u64;
            let stop = f.stop.unwrap_or(cfg.duration).min(cfg.duration);
            let sender: Box<dyn Endpoint> = match &f.traffic {
                Traffic::Cbr { size, interval, jitter } => {
                    let cbr = crate::app::Cbr::new(*size, *interval, *jitter, f.start, stop);
                    Box::new(UdpSender::new(i as u32, port, f.dst, port, Box::new(cbr)))
                }
                Traffic::Tcp { tcp, data } => {
                    Box::new(TcpSource::new(i as u32, port, f.dst, tcp.clone(), *data, f.start, stop))
                }
                Traffic::Tfrc { tfrc, rate_bps } => Box::new(crate::transport::tfrc::TfrcSender::new(
                    i as u32,
                    port,
                    f.dst,
                    tfrc.clone(),
                    *rate_bps,
                    f.start,
                    stop,
                )),
                Traffic::Voip(v) => Box::new(VoipEndpoint::new(i as u32, port, f.dst, v, f.start, stop, cfg.warmup)),
                Traffic::BurstyCbr { size, interval, burst } => {
                    let src = crate::app::cbr::BurstyCbr::new(*size, *interval, *burst, f.start, stop);
                    Box::new(UdpSender::new(i as u32, port, f.dst, port, Box::new(src)))
                }
            };
            let sink: Box<dyn Endpoint> = match &f.traffic {
                Traffic::Cbr { .. } | Traffic::BurstyCbr { .. } => Box::new(UdpSink::new(i as u32, port)),
                Traffic::Tcp { tcp, .. } => Box::new(TcpSink::new(i as u32, port, tcp)),
                Traffic::Tfrc { tfrc, .. } => Box::new(crate::transport::tfrc::TfrcReceiver::new(i as u32, port, tfrc)),
                Traffic::Voip(v) => Box::new(VoipEndpoint::new(i as u32, port, f.src, v, f.start, stop, cfg.warmup)),
            };
            nodes[f.src as usize].endpoints.push(sender);
            endpoint_rngs[f.src as usize].push(RngStream::new(cfg.seed, flow_entity, Purpose::AppJitter, 0));
            nodes[f.dst as usize].endpoints.push(sink);
            endpoint_rngs[f.dst as usize].push(RngStream::new(cfg.seed, flow_entity, Purpose::AppJitter, 1));
        }
        let metrics = Metrics::new(cfg.warmup, cfg.flows.len());
        let mut queue = EventQueue::new();
        for e in &cfg.node_events {
            queue.schedule(e.at, Event::Node { node: e.node, action: e.action });
        }
        Ok(Simulation {
            queue,
            nodes,
            channel,
            metrics,
            endpoint_rngs,
            executed: 0,
            started: false,
            work: VecDeque::with_capacity(64),
            queued: [0; 3],
            mac_out: Vec::with_capacity(16),
            net_out: Vec::with_capacity(16),
            ep_out: Vec::with_capacity(16),
            hearers: Vec::with_capacity(64),
            arp_out: Vec::with_capacity(8),
            tracer: None,
            interest: Interest::default(),
            route_buf: Vec::new(),
            radio_off: (0..n as NodeId).map(|i| wired.is_wired_only(i)).collect(),
            radios_off: (0..n as NodeId).filter(|&i| wired.is_wired_only(i)).count(),
            reclaimed: Vec::new(),
            bp: cfg.queue.backpressure.map(|b| crate::queue::Backpressure::new(b, n, cfg.flows.len())),
            bp_wake: Vec::new(),
            cfg,
            wired,
            gateway,
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

    /// Installs a trace sink (tracing is off, and free, without one).
    pub fn set_tracer(&mut self, sink: Box<dyn TraceSink>) {
        self.interest = sink.interest();
        self.tracer = Some(sink);
    }

    /// `Interest::receptions`: what `node` made of transmission `tx`.
    fn trace_reception(&mut self, node: NodeId, tx: crate::phy::TxId, power_w: f64, outcome: Reception) {
        if let Some(t) = self.tracer.as_mut() {
            let x = self.channel.get(tx);
            let ev = crate::metrics::trace::ReceptionEvent {
                time: self.queue.now(),
                node,
                sender: x.sender,
                tx_start: x.start,
                frame: &x.frame,
                power_w,
                outcome,
            };
            t.reception(&ev);
        }
    }

    /// `Interest::queues`: the length of `node`'s interface queue.
    fn trace_queue(&mut self, node: NodeId) {
        if self.interest.queues {
            let len = self.nodes[node as usize].ifq.len();
            if let Some(t) = self.tracer.as_mut() {
                t.queue_len(self.queue.now(), node, len);
            }
        }
    }

    /// `Interest::routes`: `node`'s routing table.
    fn trace_routes(&mut self, node: NodeId) {
        if let Some(t) = self.tracer.as_mut() {
            let now = self.queue.now();
            self.route_buf.clear();
            self.nodes[node as usize].routing.route_table(now, &mut self.route_buf);
            t.routes(now, node, &self.route_buf);
        }
    }

    #[inline]
    fn trace(&mut self, node: NodeId, layer: Layer, action: Action, pkt: &Packet, frame: Option<&crate::mac::Frame>) {
        if let Some(t) = self.tracer.as_mut() {
            t.packet(&PacketEvent { time: self.queue.now(), node, layer, action, pkt, frame });
        }
    }

    #[inline]
    fn trace_frame(&mut self, node: NodeId, dir: FrameDir, frame: &crate::mac::Frame, duration: Time, power_w: f64) {
        if let Some(t) = self.tracer.as_mut() {
            t.frame(&FrameEvent { time: self.queue.now(), node, dir, frame, duration, power_w });
        }
    }

    pub fn config(&self) -> &SimConfig {
        &self.cfg
    }
    pub fn now(&self) -> Time {
        self.queue.now()
    }
    /// Events executed so far.
    pub fn events(&self) -> u64 {
        self.executed
    }

    /// Runs to the configured duration and returns the report.
    pub fn run(mut self) -> Report {
        self.run_until(self.cfg.duration);
        self.finish()
    }

    /// Ends the run: traces every packet still held as an END drop, flushes
    /// the trace sink, and returns the report.
    pub fn finish(mut self) -> Report {
        let report = self.report();
        if let Some(mut t) = self.tracer.take() {
            let now = self.queue.now();
            let mut held: Vec<(NodeId, Packet)> = Vec::new();
            for n in &self.nodes {
                n.ifq.for_each(&mut |p| held.push((n.id, *p)));
                n.mac.held(&mut |p| held.push((n.id, *p)));
                n.routing.held(&mut |p| held.push((n.id, *p)));
                if let Some(a) = &n.arp {
                    a.held(&mut |p| held.push((n.id, *p)));
                }
            }
            for (node, pkt) in &held {
                let layer = Layer::of_drop(DropReason::End);
                t.packet(&PacketEvent {
                    time: now,
                    node: *node,
                    layer,
                    action: Action::Drop(DropReason::End),
                    pkt,
                    frame: None,
                });
            }
            if let Err(e) = t.finish() {
                eprintln!("warning: trace output: {e}");
            }
        }
        report
    }

    /// Runs to the end in `steps` slices, calling `progress(now, events)`
    /// after each (for progress bars); the result equals `run()`.
    pub fn run_with_progress(mut self, steps: u32, progress: impl FnMut(Time, u64)) -> Report {
        self.run_in_steps(steps, progress);
        self.finish()
    }

    /// Runs to the end in `steps` slices without finishing, so that state
    /// (e.g. TCP traces) can still be read before `finish()`.
    pub fn run_in_steps(&mut self, steps: u32, mut progress: impl FnMut(Time, u64)) {
        let steps = steps.max(1) as u64;
        let total = self.cfg.duration.as_ns();
        for k in 1..=steps {
            self.run_until(Time(total / steps * k + if k == steps { total % steps } else { 0 }));
            progress(self.now(), self.executed);
        }
    }

    /// Executes every event up to and including time `t` (capped at the
    /// configured duration). Can be called repeatedly to show progress.
    pub fn run_until(&mut self, t: Time) {
        let t = t.min(self.cfg.duration);
        if !self.started {
            self.started = true;
            for node in 0..self.nodes.len() {
                self.with_routing(node as NodeId, |r, ctx| r.start(ctx));
            }
            for node in 0..self.nodes.len() {
                for idx in 0..self.nodes[node].endpoints.len() {
                    self.with_endpoint(node as NodeId, idx as u16, |ep, ctx| ep.start(ctx));
                }
            }
            self.drain_work();
        }
        while let Some(next) = self.queue.peek_time() {
            if next > t {
                break;
            }
            let (_, ev) = self.queue.pop().unwrap();
            self.executed += 1;
            self.handle(ev);
            self.drain_work();
        }
        self.queue.advance_to(t);
    }

    fn handle(&mut self, ev: Event) {
        let now = self.queue.now();
        match ev {
            Event::SignalStart { node, tx, power } => {
                // Every receiver hears the whole frame: it ends one frame
                // duration after its first bit arrives.
                let t = self.channel.get(tx);
                let end = now + (t.end - t.start);
                let rate = t.frame.rate;
                let n = &mut self.nodes[node as usize];
                let o = n.radio.begin_signal(now, tx, power, end, rate);
                if o.became_busy {
                    n.mac.on_sense_busy(now);
                }
                if o.captured_out {
                    n.mac.on_captured_out(now, end, &mut self.mac_out);
                    if self.interest.receptions {
                        self.trace_reception(node, tx, power, Reception::Captured);
                    }
                }
            }
            Event::SignalEnd { node, tx } => {
                let n = &mut self.nodes[node as usize];
                let (outcome, idle) = n.radio.finish_signal(now, tx);
                match outcome {
                    RxOutcome::Decoded(id) => {
                        n.mac.on_rx_end(now, Some(&self.channel.get(id).frame), idle, &mut self.mac_out);
                        if self.tracer.is_some() {
                            let frame = self.channel.get(id).frame;
                            let t = self.channel.get(id);
                            let (d, p) = (t.end - t.start, self.channel.power_between(t.sender, node, t.start));
                            self.trace_frame(node, FrameDir::Rx, &frame, d, p);
                            if let (Some(pkt), true) = (frame.packet, frame.dst == node || frame.dst == BROADCAST) {
                                self.trace(node, Layer::Mac, Action::Recv, &pkt, Some(&frame));
                            }
                        }
                    }
                    RxOutcome::Failed { tx: id, collided } => {
                        n.mac.on_rx_end(now, None, idle, &mut self.mac_out);
                        if self.tracer.is_some() {
                            let t = self.channel.get(id);
                            let frame = t.frame;
                            let (d, p) = (t.end - t.start, self.channel.power_between(t.sender, node, t.start));
                            let why = if collided { DropReason::Col } else { DropReason::Err };
                            self.trace_frame(node, FrameDir::Lost(why), &frame, d, p);
                            if let (Some(pkt), true) = (frame.packet, frame.dst == node) {
                                self.trace(node, Layer::Mac, Action::Drop(why), &pkt, Some(&frame));
                            }
                        }
                    }
                    RxOutcome::Nothing => n.mac.on_signal_end(now, idle, &mut self.mac_out),
                }
                if self.interest.receptions {
                    let t = self.channel.get(tx);
                    let p = self.channel.power_between(t.sender, node, t.start);
                    let r = match outcome {
                        RxOutcome::Decoded(_) => Reception::Decoded,
                        RxOutcome::Failed { collided: true, .. } => Reception::Collided,
                        RxOutcome::Failed { collided: false, .. } => Reception::Error,
                        RxOutcome::Nothing => Reception::NotLocked,
                    };
                    self.trace_reception(node, tx, p, r);
                }
                self.channel.signal_ended(tx);
            }
            Event::TxEnd { node } => {
                let n = &mut self.nodes[node as usize];
                n.radio.end_tx();
                n.mac.on_tx_end(now, &mut self.mac_out);
            }
            Event::Mac { node, kind, gen } => {
                self.nodes[node as usize].mac.on_timer(now, kind, gen, &mut self.mac_out);
            }
            Event::Endpoint { node, idx, token } => {
                self.with_endpoint(node, idx, |ep, ctx| ep.on_timer(ctx, token));
                return;
            }
            Event::Routing { node, token } => {
                self.with_routing(node, |r, ctx| r.on_timer(ctx, token));
                return;
            }
            Event::Arp { node, token } => {
                let mut acts = std::mem::take(&mut self.arp_out);
                if let Some(a) = self.nodes[node as usize].arp.as_mut() {
                    a.on_timer(now, token, &mut acts);
                }
                self.do_arp(node, &mut acts);
                self.arp_out = acts;
                return;
            }
            Event::Backpressure { node } => {
                if self.bp.as_ref().is_some_and(|b| b.is_blocked(node)) {
                    self.bp.as_mut().unwrap().clear_blocked(node);
                    self.feed_mac(node);
                }
                return;
            }
            Event::Wire { dir, arrive: false } => {
                let (arrival, next) = self.wired.tx_end(dir, now);
                self.schedule_wire(arrival);
                if let Some(e) = next {
                    self.schedule_wire(e);
                }
                return;
            }
            Event::Wire { dir, arrive: true } => {
                let from = self.wired.far_end(dir ^ 1);
                let (to, pkt) = self.wired.arrive(dir);
                self.net_input(to, pkt, from, true);
                return;
            }
            Event::Gateway { to_wire } => {
                let gw = self.gateway.as_mut().expect("a gateway event without a gateway");
                let (node, (pkt, next)) = (gw.node(), gw.release(to_wire, now));
                if let Some(at) = next {
                    self.queue.schedule(at, Event::Gateway { to_wire });
                }
                if to_wire {
                    self.trace(node, Layer::Router, Action::Forward, &pkt, None);
                    let dir = self.wired.iface(node, pkt.next_hop).expect("wired next hops are wired neighbours");
                    self.wire_send(node, dir, pkt);
                } else {
                    self.with_routing(node, |r, ctx| r.route(ctx, pkt, Origin::Local));
                }
                return;
            }
            Event::Node { node, action } => {
                if self.wired.is_wired_only(node) {
                    return; // no radio to switch
                }
                let off = action == NodeAction::RadioOff;
                let was = std::mem::replace(&mut self.radio_off[node as usize], off);
                match (was, off) {
                    (false, true) => self.radios_off += 1,
                    (true, false) => self.radios_off -= 1,
                    _ => {}
                }
                return;
            }
        }
        self.collect_mac(match ev {
            Event::SignalStart { node, .. }
            | Event::SignalEnd { node, .. }
            | Event::TxEnd { node }
            | Event::Mac { node, .. } => node,
            _ => unreachable!(),
        });
    }

    fn collect_mac(&mut self, node: NodeId) {
        for i in self.queued[0]..self.mac_out.len() {
            self.work.push_back(Work::Mac(node, i as u32));
        }
        self.queued[0] = self.mac_out.len();
    }

    fn with_routing(&mut self, node: NodeId, f: impl FnOnce(&mut dyn routing::Routing, &mut RouteCtx)) {
        let now = self.queue.now();
        let n = &mut self.nodes[node as usize];
        let mut ctx =
            RouteCtx { now, node, out: &mut self.net_out, rng: &mut n.routing_rng, uids: &mut self.metrics.fate };
        f(n.routing.as_mut(), &mut ctx);
        if self.interest.routes {
            self.trace_routes(node);
        }
        for i in self.queued[1]..self.net_out.len() {
            self.work.push_back(Work::Net(node, i as u32));
        }
        self.queued[1] = self.net_out.len();
    }

    fn with_endpoint(&mut self, node: NodeId, idx: u16, f: impl FnOnce(&mut dyn Endpoint, &mut EndpointCtx)) {
        let now = self.queue.now();
        let n = &mut self.nodes[node as usize];
        let rng = &mut self.endpoint_rngs[node as usize][idx as usize];
        let mut ctx = EndpointCtx { now, node, rng, out: &mut self.ep_out, metrics: &mut self.metrics };
        f(n.endpoints[idx as usize].as_mut(), &mut ctx);
        for i in self.queued[2]..self.ep_out.len() {
            self.work.push_back(Work::Endpoint(node, idx, i as u32));
        }
        self.queued[2] = self.ep_out.len();
    }

    fn drain_work(&mut self) {
        while let Some(w) = self.work.pop_front() {
            // Each index is taken exactly once; a cheap placeholder stays.
            match w {
                Work::Mac(node, i) => {
                    let a = std::mem::replace(&mut self.mac_out[i as usize], MacAction::Ready);
                    self.do_mac(node, a)
                }
                Work::Net(node, i) => {
                    let a =
                        std::mem::replace(&mut self.net_out[i as usize], NetAction::Timer { at: Time::ZERO, token: 0 });
                    self.do_net(node, a)
                }
                Work::Endpoint(node, idx, i) => {
                    let a = std::mem::replace(
                        &mut self.ep_out[i as usize],
                        EndpointAction::Timer { at: Time::ZERO, token: 0 },
                    );
                    self.do_endpoint(node, idx, a)
                }
            }
        }
        self.mac_out.clear();
        self.net_out.clear();
        self.ep_out.clear();
        self.queued = [0; 3];
    }

    fn do_mac(&mut self, node: NodeId, a: MacAction) {
        let now = self.queue.now();
        match a {
            MacAction::Transmit(d) => {
                let frame = *self.nodes[node as usize].mac.tx_frame();
                if self.tracer.is_some() {
                    self.trace_frame(node, FrameDir::Tx, &frame, d, 0.0);
                    if let Some(pkt) = frame.packet {
                        self.trace(node, Layer::Mac, Action::Send, &pkt, Some(&frame));
                    }
                }
                if let (Some(bp), Some(p)) = (self.bp.as_mut(), frame.packet) {
                    if frame.kind == crate::mac::FrameKind::Data {
                        bp.on_transmit(node, &p);
                    }
                }
                self.nodes[node as usize].radio.start_tx();
                self.channel.refresh(now);
                self.channel.hearers(node, now, &mut self.hearers);
                if self.radios_off > 0 {
                    // A switched-off radio neither sends nor hears.
                    let off = &self.radio_off;
                    if off[node as usize] {
                        self.hearers.clear();
                    } else {
                        self.hearers.retain(|h| !off[h.node as usize]);
                    }
                }
                if !self.hearers.is_empty() {
                    let end = now + d;
                    let tx = self.channel.begin(node, frame, now, end, self.hearers.len() as u32);
                    for h in &self.hearers {
                        let start = now + h.delay;
                        self.queue.schedule(start, Event::SignalStart { node: h.node, tx, power: h.power });
                        self.queue.schedule(start + d, Event::SignalEnd { node: h.node, tx });
                    }
                }
                self.queue.schedule(now + d, Event::TxEnd { node });
            }
            MacAction::Timer { at, kind, gen } => self.queue.schedule(at, Event::Mac { node, kind, gen }),
            MacAction::Deliver(pkt, from) => {
                self.bp_heard(node, from, &pkt);
                self.net_input(node, pkt, from, false)
            }
            MacAction::Overheard(pkt, from) => {
                self.bp_heard(node, from, &pkt);
                if self.nodes[node as usize].routing.wants_overheard() {
                    self.with_routing(node, |r, ctx| r.on_overheard(ctx, &pkt));
                }
            }
            MacAction::TxSuccess(pkt) => {
                if let Some(bp) = self.bp.as_mut() {
                    bp.on_tx_success(node, now, &pkt);
                    if bp.left(node, &pkt) {
                        self.bp_wake_all();
                    }
                }
            }
            MacAction::TxFailed(pkt) => {
                if let Some(bp) = self.bp.as_mut() {
                    if bp.left(node, &pkt) {
                        self.bp_wake_all();
                    }
                }
                self.nodes[node as usize].net.link_failures += 1;
                if let Some(t) = self.tracer.as_mut() {
                    t.link_failure(now, node, pkt.next_hop);
                }
                self.with_routing(node, |r, ctx| r.on_link_failure(ctx, pkt));
            }
            MacAction::Ready => self.feed_mac(node),
        }
    }

    /// Gives the MAC the next queued packet if it can take one (with
    /// backpressure: the next eligible one).
    fn feed_mac(&mut self, node: NodeId) {
        let now = self.queue.now();
        let n = &mut self.nodes[node as usize];
        if !n.mac.is_edca() {
            if !n.mac.can_accept() {
                return;
            }
            let next = match &self.bp {
                None => n.ifq.dequeue(),
                Some(bp) => n.ifq.dequeue_where(&mut |p| bp.eligible(node, now, p)),
            };
            if let Some(p) = next {
                n.mac.enqueue(now, p, &mut self.mac_out);
                self.collect_mac(node);
                self.trace_queue(node);
            } else if !n.ifq.is_empty() {
                if let Some(bp) = self.bp.as_mut() {
                    if !bp.is_blocked(node) {
                        bp.set_blocked(node);
                        if bp.config().knowledge != crate::queue::Knowledge::Oracle {
                            let at = now + bp.config().stale;
                            self.queue.schedule(at, Event::Backpressure { node });
                        }
                    }
                }
            }
            return;
        }
        // 802.11e: one backoff entity per access category (no backpressure).
        for ac in crate::mac::edca::AccessCategory::ALL {
            let n = &mut self.nodes[node as usize];
            if n.mac.can_accept_ac(ac) {
                if let Some(p) = n.ifq.dequeue_ac(ac) {
                    n.mac.enqueue_ac(now, p, ac, &mut self.mac_out);
                    self.collect_mac(node);
                    self.trace_queue(node);
                }
            }
        }
    }

    /// Backpressure: `node` decoded a data frame carrying `pkt` from `from`.
    fn bp_heard(&mut self, node: NodeId, from: NodeId, pkt: &Packet) {
        let now = self.queue.now();
        if let Some(bp) = self.bp.as_mut() {
            if pkt.next_hop != BROADCAST && bp.on_heard(node, from, now, pkt) {
                bp.clear_blocked(node);
                self.feed_mac(node);
            }
        }
    }

    /// Backpressure (oracle): every blocked node looks at its queue again.
    fn bp_wake_all(&mut self) {
        let mut wake = std::mem::take(&mut self.bp_wake);
        if let Some(bp) = self.bp.as_mut() {
            bp.take_blocked(&mut wake);
        }
        for &n in &wake {
            self.feed_mac(n);
        }
        self.bp_wake = wake;
    }

    /// Backpressure state, when on (tests, studies).
    pub fn backpressure(&self) -> Option<&crate::queue::Backpressure> {
        self.bp.as_ref()
    }

    fn do_net(&mut self, node: NodeId, a: NetAction) {
        match a {
            NetAction::Transmit(pkt) => {
                let action = if pkt.src == node { Action::Send } else { Action::Forward };
                self.trace(node, Layer::Router, action, &pkt, None);
                if let Some(dir) = self.wired.iface(node, pkt.next_hop) {
                    self.wire_send(node, dir, pkt);
                } else if pkt.next_hop != BROADCAST && self.nodes[node as usize].arp.is_some() {
                    let mut acts = std::mem::take(&mut self.arp_out);
                    let now = self.queue.now();
                    self.nodes[node as usize].arp.as_mut().unwrap().output(now, pkt, &mut acts);
                    self.do_arp(node, &mut acts);
                    self.arp_out = acts;
                } else {
                    self.enqueue(node, pkt);
                }
            }
            NetAction::Drop(pkt, why) => self.drop_packet(node, pkt, why),
            NetAction::Timer { at, token } => self.queue.schedule(at, Event::Routing { node, token }),
            NetAction::Reclaim { next_hop } => {
                let mut back = std::mem::take(&mut self.reclaimed);
                self.nodes[node as usize].ifq.drain_next_hop(next_hop, &mut back);
                self.trace_queue(node);
                if let Some(bp) = self.bp.as_mut() {
                    let mut wake = false;
                    for p in &back {
                        wake |= bp.left(node, p);
                    }
                    if wake {
                        self.bp_wake_all();
                    }
                }
                for p in back.drain(..) {
                    self.with_routing(node, |r, ctx| r.on_reclaimed(ctx, p));
                }
                self.reclaimed = back;
            }
            NetAction::Notify(notice) => {
                if let Some(idx) = self.nodes[node as usize].endpoint_for_port(notice.sport) {
                    self.with_endpoint(node, idx as u16, |ep, ctx| ep.on_link_failure_notice(ctx, &notice));
                }
            }
        }
    }

    /// Puts a packet on the interface queue (IFQ drop when full).
    fn enqueue(&mut self, node: NodeId, pkt: Packet) {
        let n = &mut self.nodes[node as usize];
        match n.ifq.enqueue(pkt) {
            Err(p) if p.uid == pkt.uid => self.drop_packet(node, p, DropReason::Ifq),
            r => {
                // Accepted; possibly another packet pushed out (fair queueing).
                let mut wake = false;
                if let Some(bp) = self.bp.as_mut() {
                    bp.entered(node, &pkt);
                    if let Err(v) = &r {
                        wake = bp.left(node, v);
                    }
                }
                if let Err(v) = r {
                    self.drop_packet(node, v, DropReason::Ifq);
                }
                if wake {
                    self.bp_wake_all();
                }
                self.trace_queue(node);
                self.feed_mac(node);
            }
        }
    }

    /// Carries out ARP's actions (drains `acts`).
    fn do_arp(&mut self, node: NodeId, acts: &mut Vec<ArpAction>) {
        let now = self.queue.now();
        for a in acts.drain(..) {
            match a {
                ArpAction::Queue(p) => self.enqueue(node, p),
                ArpAction::Drop(p, why) => self.drop_packet(node, p, why),
                ArpAction::LinkFailure(p) => {
                    self.nodes[node as usize].net.link_failures += 1;
                    if let Some(t) = self.tracer.as_mut() {
                        t.link_failure(now, node, p.next_hop);
                    }
                    self.with_routing(node, |r, ctx| r.on_link_failure(ctx, p));
                }
                ArpAction::Request { target } => self.send_arp(node, ArpOp::Request, BROADCAST, target),
                ArpAction::Reply { to } => self.send_arp(node, ArpOp::Reply, to, to),
                ArpAction::Timer { at, token } => self.queue.schedule(at.max(now), Event::Arp { node, token }),
            }
        }
    }

    fn send_arp(&mut self, node: NodeId, op: ArpOp, dst: NodeId, target: NodeId) {
        let pkt = Packet {
            uid: self.metrics.fate.create_untracked(),
            src: node,
            dst,
            ttl: 1,
            dscp: 0,
            size: ARP_BYTES,
            next_hop: dst,
            prev_hop: node,
            created: self.queue.now(),
            flow: FLOW_NONE,
            body: Body::Arp { op, sender: node, target },
            sr: Default::default(),
        };
        self.trace(node, Layer::Ifq, Action::Send, &pkt, None);
        self.enqueue(node, pkt);
    }

    fn do_endpoint(&mut self, node: NodeId, idx: u16, a: EndpointAction) {
        match a {
            EndpointAction::Send(pkt) => {
                if let Some(bp) = &self.bp {
                    if matches!(pkt.body, Body::Udp { .. }) && !bp.may_inject(node, &pkt) {
                        // Backpressure reached the source: the datagram is
                        // refused at the socket, never injected.
                        return self.drop_packet(node, pkt, DropReason::Bps);
                    }
                }
                self.trace(node, Layer::Agent, Action::Send, &pkt, None);
                self.nodes[node as usize].net.originated += 1;
                self.route_out(node, pkt, Origin::Local, false);
            }
            EndpointAction::Timer { at, token } => self.queue.schedule(at, Event::Endpoint { node, idx, token }),
        }
    }

    fn drop_packet(&mut self, node: NodeId, pkt: Packet, why: DropReason) {
        self.trace(node, Layer::of_drop(why), Action::Drop(why), &pkt, None);
        self.nodes[node as usize].net.drops[why.index()] += 1;
        if !pkt.is_control() {
            self.metrics.fate.dropped(pkt.uid, why);
            if why == DropReason::Bps {
                if let Some(s) = self.metrics.flows.get_mut(pkt.flow as usize) {
                    s.not_injected += 1;
                }
            }
            // Tell the flow's source (TCP time-sequence logs show drops).
            if let Some(f) = self.cfg.flows.get(pkt.flow as usize) {
                if f.src == pkt.src && matches!(f.traffic, Traffic::Tcp { .. }) {
                    let port = (FLOW_PORT_BASE + pkt.flow) as u16;
                    if let Some(idx) = self.nodes[f.src as usize].endpoint_for_port(port) {
                        let now = self.queue.now();
                        self.nodes[f.src as usize].endpoints[idx].on_dropped(now, &pkt);
                    }
                }
            }
        }
    }

    /// A packet decoded by this node's MAC (addressed to it or broadcast).
    /// `wired`: it arrived over a point-to-point link (the MANET routing
    /// protocol does not learn neighbours from it).
    fn net_input(&mut self, node: NodeId, mut pkt: Packet, from: NodeId, wired: bool) {
        pkt.prev_hop = from;
        if let Body::Arp { op, sender, target } = pkt.body {
            if let Some(a) = self.nodes[node as usize].arp.as_mut() {
                let mut acts = std::mem::take(&mut self.arp_out);
                a.input(node, op, sender, target, &mut acts);
                self.do_arp(node, &mut acts);
                self.arp_out = acts;
            }
            return;
        }
        if pkt.dst == node || pkt.dst == BROADCAST {
            if pkt.is_control() {
                self.trace(node, Layer::Router, Action::Recv, &pkt, None);
                self.with_routing(node, |r, ctx| r.on_control(ctx, &pkt));
                return;
            }
            self.trace(node, Layer::Agent, Action::Recv, &pkt, None);
            if !wired {
                self.with_routing(node, |r, ctx| r.on_delivered(ctx, &pkt));
            }
            let n = &mut self.nodes[node as usize];
            n.net.delivered += 1;
            let port = match pkt.body {
                Body::Udp { dport, .. } => dport,
                Body::Tfrc(m) => m.dport,
                Body::Tcp(s) => s.dport,
                Body::Arp { .. } => unreachable!("ARP is handled above"),
                Body::Aodv(_) | Body::Dsr(_) => 0,
            };
            match n.endpoint_for_port(port) {
                Some(idx) => self.with_endpoint(node, idx as u16, |ep, ctx| ep.on_packet(ctx, &pkt)),
                None => {
                    self.metrics.fate.delivered(pkt.uid);
                }
            }
            return;
        }
        if pkt.ttl <= 1 {
            return self.drop_packet(node, pkt, DropReason::Ttl);
        }
        pkt.ttl -= 1;
        self.nodes[node as usize].net.forwarded += 1;
        self.route_out(node, pkt, Origin::Forward, wired);
    }

    /// Routes a packet leaving `node`: over the wires when the wired table
    /// has a next hop for its destination, else by the MANET protocol. A
    /// packet from a wire that goes on over the radio is injected by this
    /// node (the gateway) as if it originated it.
    fn route_out(&mut self, node: NodeId, mut pkt: Packet, origin: Origin, from_wire: bool) {
        if let Some(nh) = self.wired.next_hop(node, pkt.dst) {
            if !pkt.sr.is_empty() {
                // Leaving the MANET: the DSR source route stays behind.
                pkt.size -= pkt.sr.header_bytes();
                pkt.sr = Default::default();
            }
            pkt.next_hop = nh;
            if origin == Origin::Forward && !from_wire && self.gateway.as_ref().is_some_and(|g| g.node() == node) {
                // Radio -> wire at the gateway: ACK window and pacing.
                let now = self.queue.now();
                let v = self.gateway.as_mut().unwrap().to_wire(pkt, now);
                match self.gateway_verdict(node, v, true) {
                    Some(p) => pkt = p,
                    None => return,
                }
            }
            let action = if pkt.src == node { Action::Send } else { Action::Forward };
            self.trace(node, Layer::Router, action, &pkt, None);
            let dir = self.wired.iface(node, nh).expect("wired next hops are wired neighbours");
            return self.wire_send(node, dir, pkt);
        }
        let origin = if from_wire { Origin::Local } else { origin };
        if from_wire && self.gateway.as_ref().is_some_and(|g| g.node() == node) {
            // Wire -> radio at the gateway: data pacing.
            let now = self.queue.now();
            let v = self.gateway.as_mut().unwrap().to_radio(pkt, now);
            match self.gateway_verdict(node, v, false) {
                Some(p) => pkt = p,
                None => return,
            }
        }
        self.with_routing(node, |r, ctx| r.route(ctx, pkt, origin));
    }

    /// Carries out a gateway verdict: the packet to send on now, if any.
    fn gateway_verdict(&mut self, node: NodeId, v: crate::net::gateway::Verdict, to_wire: bool) -> Option<Packet> {
        use crate::net::gateway::Verdict;
        match v {
            Verdict::Pass(p) => Some(p),
            Verdict::Held(at) => {
                if let Some(at) = at {
                    self.queue.schedule(at, Event::Gateway { to_wire });
                }
                None
            }
            Verdict::Drop(p) => {
                self.drop_packet(node, p, DropReason::Pace);
                None
            }
        }
    }

    /// Offers `pkt` to wired interface `dir` of `node` (IFQ drop when its
    /// queue is full).
    fn wire_send(&mut self, node: NodeId, dir: u32, pkt: Packet) {
        let now = self.queue.now();
        match self.wired.send(dir, pkt, now) {
            Ok(Some(e)) => self.schedule_wire(e),
            Ok(None) => {}
            Err(p) => self.drop_packet(node, p, DropReason::Ifq),
        }
    }

    fn schedule_wire(&mut self, e: crate::net::wired::WireEvent) {
        use crate::net::wired::WireEvent;
        match e {
            WireEvent::TxEnd { dir, at } => self.queue.schedule(at, Event::Wire { dir, arrive: false }),
            WireEvent::Arrive { dir, at } => self.queue.schedule(at, Event::Wire { dir, arrive: true }),
        }
    }

    /// Counters of wired direction `dir` (2i: link i from `a` to `b`,
    /// 2i + 1: back).
    pub fn link_stats(&self, dir: u32) -> crate::net::wired::LinkStats {
        self.wired.stats(dir)
    }

    /// The TFRC sender of flow `flow` (None for other flows).
    pub fn tfrc_sender(&self, flow: usize) -> Option<&crate::transport::tfrc::TfrcSender> {
        let f = self.cfg.flows.get(flow)?;
        let port = (FLOW_PORT_BASE + flow as u32) as u16;
        self.nodes[f.src as usize].endpoints.iter().find(|e| e.port() == port)?.tfrc_sender()
    }

    /// A copy of the TCP sender trace of flow `flow` (None for non-TCP flows).
    pub fn tcp_trace(&self, flow: usize) -> Option<crate::transport::tcp::TcpTrace> {
        let f = self.cfg.flows.get(flow)?;
        let port = (FLOW_PORT_BASE + flow as u32) as u16;
        let ep = self.nodes[f.src as usize].endpoints.iter().find(|e| e.port() == port)?;
        ep.tcp_sender().map(|t| t.trace().clone())
    }

    /// Builds the report from the current state (normally at the end).
    pub fn report(&self) -> Report {
        let end = self.queue.now().max(self.cfg.duration);
        // Path profiles of every flow's endpoints, in mobile runs.
        let profiles: Vec<Option<Vec<crate::metrics::path::Span>>> = if self.channel.is_mobile() {
            let trajs = self.cfg.mobility.trajectories(&self.cfg.nodes);
            let range = self.cfg.radio.rx_range();
            let pairs: Vec<(usize, usize)> = self.cfg.flows.iter().map(|f| (f.src as usize, f.dst as usize)).collect();
            crate::metrics::path::path_profiles(&trajs, &pairs, range, end).into_iter().map(Some).collect()
        } else {
            Vec::new()
        };
        let flows = self
            .cfg
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let s = &self.metrics.flows[i];
                let from = f.start.max(self.cfg.warmup);
                let until = f.stop.unwrap_or(end).min(end);
                let span = until.saturating_sub(from).as_secs_f64();
                let per_s = |bytes: u64| if span > 0.0 { bytes as f64 * 8.0 / span } else { 0.0 };
                let q = |p: f64| s.delay.quantile(p).unwrap_or(0) as f64 * 1e-9;
                let n = s.received_packets;
                let endpoint = |node: u32| {
                    let port = (FLOW_PORT_BASE + i as u32) as u16;
                    self.nodes[node as usize].endpoints.iter().find(|e| e.port() == port)
                };
                let voip = match (&f.traffic, endpoint(f.src), endpoint(f.dst)) {
                    (Traffic::Voip(v), Some(a), Some(b)) => match (a.voip_record(), b.voip_record()) {
                        (Some(a), Some(b)) => Some(crate::metrics::voip::VoipReport::new(&v.quality, a, b)),
                        _ => None,
                    },
                    _ => None,
                };
                FlowReport {
                    voip,
                    id: i as u32,
                    name: f.name.clone(),
                    kind: f.traffic.kind().into(),
                    path_profile: profiles.get(i).cloned().flatten(),
                    expected_bps: None,
                    tcp: self.nodes[f.src as usize]
                        .endpoints
                        .iter()
                        .find(|e| e.port() == (FLOW_PORT_BASE + i as u32) as u16)
                        .and_then(|e| e.tcp_summary()),
                    src: f.src,
                    dst: f.dst,
                    sent_packets: s.sent_packets,
                    sent_bytes: s.sent_bytes,
                    received_packets: n,
                    received_bytes: s.received_bytes,
                    duplicates: s.duplicates,
                    not_injected: s.not_injected,
                    delivery_ratio: if s.sent_packets > 0 { n as f64 / s.sent_packets as f64 } else { 0.0 },
                    goodput_bps: per_s(s.received_bytes),
                    offered_bps: per_s(s.sent_bytes),
                    delay_mean_s: s.delay.mean().unwrap_or(0.0) * 1e-9,
                    delay_p50_s: q(0.5),
                    delay_p95_s: q(0.95),
                    delay_max_s: s.delay.max().unwrap_or(0) as f64 * 1e-9,
                    jitter_s: if n > 1 { s.jitter.mean_abs_diff() } else { 0.0 },
                    jitter_rfc3550_s: if n > 1 { s.jitter.rfc3550() } else { 0.0 },
                }
            })
            .collect();
        let nodes = self
            .nodes
            .iter()
            .map(|n| {
                let p = self.cfg.nodes[n.id as usize];
                NodeReport {
                    id: n.id,
                    x: p.x,
                    y: p.y,
                    originated: n.net.originated,
                    forwarded: n.net.forwarded,
                    delivered: n.net.delivered,
                    link_failures: n.net.link_failures,
                    drops: DropReason::ALL
                        .iter()
                        .filter(|r| n.net.drops[r.index()] > 0)
                        .map(|r| (r.code().to_string(), n.net.drops[r.index()]))
                        .collect(),
                    mac: n.mac.stats(),
                    radio: n.radio.stats,
                    arp: n.arp.as_ref().map(|a| a.stats),
                    routing: n.routing.stats(),
                }
            })
            .collect::<Vec<NodeReport>>();
        let mut routing_totals = routing::RoutingStats::default();
        for n in &nodes {
            routing_totals.merge(&n.routing);
        }
        Report {
            seed: self.cfg.seed,
            duration_s: self.cfg.duration.as_secs_f64(),
            warmup_s: self.cfg.warmup.as_secs_f64(),
            events: self.executed,
            routing_protocol: self.cfg.routing.name().to_string(),
            routing: routing_totals,
            flows,
            nodes,
            audit: self.audit(),
            gateway: self.gateway.as_ref().map(|g| g.stats()),
        }
    }

    /// Accounts for every packet created by an endpoint.
    pub fn audit(&self) -> Audit {
        let mut where_held: BTreeMap<u64, &'static str> = BTreeMap::new();
        for n in &self.nodes {
            n.ifq.for_each(&mut |p| {
                where_held.insert(p.uid, "queue");
            });
            n.mac.held(&mut |p| {
                where_held.insert(p.uid, "mac");
            });
            n.routing.held(&mut |p| {
                where_held.insert(p.uid, "routing");
            });
            if let Some(a) = &n.arp {
                a.held(&mut |p| {
                    where_held.insert(p.uid, "arp");
                });
            }
        }
        for t in self.channel.in_flight() {
            if let Some(p) = t.frame.packet {
                where_held.entry(p.uid).or_insert("air");
            }
        }
        self.wired.held(&mut |p| {
            where_held.insert(p.uid, "link");
        });
        if let Some(g) = &self.gateway {
            g.held(&mut |p| {
                where_held.insert(p.uid, "gateway");
            });
        }
        let mut a = Audit::default();
        for (uid, fate) in self.metrics.fate.iter() {
            if fate == Fate::Untracked {
                continue;
            }
            a.created += 1;
            match fate {
                Fate::Delivered => a.delivered += 1,
                Fate::Untracked => {}
                Fate::Dropped(r) => *a.dropped.entry(r.code().to_string()).or_default() += 1,
                Fate::InFlight => match where_held.get(&uid) {
                    Some(place) => *a.held_at_end.entry(place.to_string()).or_default() += 1,
                    None => a.unaccounted += 1,
                },
            }
        }
        a
    }
}
