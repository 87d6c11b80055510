//! The kernel: one run's event loop (this file), the per-node pipeline that
//! carries actions between layers (`pipeline.rs`), the cross-layer stages
//! with their own state and events (`arp.rs`, `backpressure.rs`,
//! `wired.rs`, `gateway.rs`), the observer hub (`observe.rs`), the builder
//! (`build.rs`) and the report and audit (`report.rs`).
//!
//! Each event is handed to the layer it belongs to. A layer answers with
//! actions (transmit a frame, deliver a packet up, queue a packet, set a
//! timer); these go into a FIFO work list that is drained before the next
//! event, so the order of everything that happens at one instant is fixed by
//! the code, never by hashing or threads (docs/architecture.md, "One
//! event"). Scratch buffers are reused: the steady state allocates nothing
//! per event.

mod arp;
mod backpressure;
mod build;
#[cfg(feature = "event-counts")]
mod counts;
mod frames;
mod gateway;
mod observe;
mod pipeline;
mod report;
mod routed;
mod timers;
mod wired;

pub use build::BuildError;

use crate::config::{NodeAction, SimConfig};
use crate::mac::dcf::{MacAction, MacTimer};
use crate::net::arp::ArpAction;
use crate::net::routing::{self, NetAction, RouteCtx};
use crate::net::{NodeId, Packet};
use crate::node::Node;
use crate::phy::channel::{Channel, Hearer, TxId};
use crate::sim::{EventQueue, RngStream, Time};
use crate::transport::{Endpoint, EndpointAction, EndpointCtx};
use observe::Observers;

/// Kernel events. Small and `Copy`: the queue stores them by value, 16
/// bytes (a queue entry is 32 with its key: two 16-byte moves per
/// insertion step; `event_is_16_bytes`).
#[derive(Copy, Clone, Debug)]
enum Event {
    /// The earliest pending signal (first or last bit at one receiver) of
    /// a frame on the air (`frames.rs`).
    Frame {
        stream: u32,
        tx: TxId,
    },
    /// `node`'s own transmission ends, for a frame that no radio hears;
    /// otherwise its frame's stream carries it (`frames.rs`, `TX_END`).
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
        timer: crate::transport::EndpointTimer,
    },
    /// A routing timer, its `RouteTimer`'s fields flattened (kind, a, b:
    /// as one struct they would make the event 20 bytes).
    Routing {
        node: NodeId,
        kind: u8,
        a: u32,
        b: u32,
    },
    Arp {
        node: NodeId,
        timer: crate::net::arp::ArpTimer,
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
    /// A node blocked by backpressure looks at its queue again (its estimates may have gone stale).
    Backpressure {
        node: NodeId,
    },
    /// A gateway shaper releases its head packet: the ACK shaper
    /// (`to_wire`) or the data shaper (`net/gateway.rs`).
    Gateway {
        to_wire: bool,
    },
}

impl Event {
    fn routing(node: NodeId, t: routing::RouteTimer) -> Event {
        Event::Routing { node, kind: t.kind, a: t.a, b: t.b }
    }
}

/// Work produced while handling one event, executed in FIFO order.
/// Work items name an action by its index in the layer's output vector, so
/// an action is moved once (when it is carried out), not through the queue.
#[derive(Copy, Clone, Debug)]
enum Work {
    Mac(NodeId, u32),
    Net(NodeId, u32),
    Endpoint(NodeId, u16, u32),
}

/// First port used by flows: flow i uses port FLOW_PORT_BASE + i at both ends.
const FLOW_PORT_BASE: u32 = 10_000;

pub struct Simulation {
    cfg: SimConfig,
    queue: EventQueue<Event>,
    nodes: Vec<Node>,
    channel: Channel,
    /// Per endpoint (node, index) random stream, seeded by flow.
    endpoint_rngs: Vec<Vec<RngStream>>,
    executed: u64,
    /// The limit of the current `run_until` (no event after it runs).
    until: Time,
    started: bool,
    /// The FIFO work list: appended at the back, read front to back by
    /// `drain_items` with a cursor, cleared when drained.
    work: Vec<Work>,
    mac_out: Vec<MacAction>,
    net_out: Vec<NetAction>,
    ep_out: Vec<EndpointAction>,
    /// How many entries of each output vector already have work items.
    queued: [usize; 3],
    hearers: Vec<Hearer>,
    arp_out: Vec<ArpAction>,
    /// Everything watching the run (traces, link view, recorders).
    obs: Observers,
    /// Reused buffer for routing tables handed to observers.
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
    /// The bytes of variable-length routing messages (`wire/board.rs`).
    board: crate::wire::board::WireBoard,
    /// Frames on the air, one event stream each (`frames.rs`).
    streams: frames::Streams,
    /// Per node: its MAC access timer's queue entry and last arming (`timers.rs`).
    access: Vec<timers::AccessSlot>,
    /// Beacon runs: radios in decode / carrier-sense range per frame sent.
    air_counts: Option<AirCounts>,
    #[cfg(feature = "event-counts")]
    counts: counts::Counts,
}

/// Frames sent after the warm-up and the radios that heard them: in decode
/// range (power at least the receive threshold) or only sensing them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AirCounts {
    pub frames: u64,
    pub in_range: u64,
    pub sensed_only: u64,
}

impl Simulation {
    /// Executes every event up to and including time `t` (capped at the
    /// configured duration). Can be called repeatedly to show progress.
    pub fn run_until(&mut self, t: Time) {
        let t = t.min(self.cfg.duration);
        self.until = t;
        if !self.started {
            self.started = true;
            self.obs.start(&self.cfg);
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
        while let Some(&ev) = self.queue.pop_until_ref(t) {
            #[cfg(feature = "event-counts")]
            let mark = self.count_pop();
            self.executed += 1;
            self.handle(ev);
            #[cfg(feature = "event-counts")]
            self.count_handled(&ev, mark);
            #[cfg(feature = "event-counts")]
            self.drain_work();
            #[cfg(test)]
            timers::assert_drained(self);
        }
        self.queue.advance_to(t);
    }

    fn handle(&mut self, ev: Event) {
        let now = self.queue.now();
        // (a stream popped, or sent by a MAC timer with its first signal
        // due next: `sent_at_once`; one call site, one inlined loop)
        let (stream, tx) = match ev {
            Event::Frame { stream, tx } => (stream, tx),
            Event::TxEnd { node } => {
                self.tx_end(node);
                self.collect_mac(node);
                return self.drained();
            }
            Event::Mac { node, kind, gen } => {
                let gen = match kind {
                    MacTimer::Access => match self.access_entry(node, gen) {
                        Some(g) => g,
                        None => return,
                    },
                    _ => gen,
                };
                self.nodes[node as usize].mac.on_timer(now, kind, gen, &mut self.mac_out);
                match self.sent_at_once(node) {
                    pipeline::Sent::No => return self.drain_mac(node),
                    pipeline::Sent::Queued => return,
                    pipeline::Sent::Now(id) => (id, id), // (a frame's stream index is its transmission's)
                }
            }
            Event::Endpoint { node, idx, timer } => {
                self.endpoint_timer(node, idx, timer);
                return self.drained();
            }
            // The protocols' and stages' events (`pipeline.rs`).
            _ => {
                self.other_event(ev);
                return self.drained();
            }
        };
        self.frame_events(stream, tx)
    }

    fn collect_mac(&mut self, node: NodeId) {
        for i in self.queued[0]..self.mac_out.len() {
            self.work.push(Work::Mac(node, i as u32));
        }
        self.queued[0] = self.mac_out.len();
    }

    fn with_routing(&mut self, node: NodeId, f: impl FnOnce(&mut dyn routing::Routing, &mut RouteCtx)) {
        self.call_routing(node, true, f)
    }

    /// Whether the node's protocol hands a data packet addressed to it up
    /// (`Routing::accept_local`; false for a copy already delivered).
    fn routing_accepts(&mut self, node: NodeId, pkt: &crate::net::Packet) -> bool {
        self.call_routing(node, false, |r, ctx| r.accept_local(ctx, pkt))
    }

    /// Calls into a node's protocol and queues its answers; `tables`: show
    /// the viewer its routing table afterwards.
    fn call_routing<R>(
        &mut self,
        node: NodeId,
        tables: bool,
        f: impl FnOnce(&mut dyn routing::Routing, &mut RouteCtx) -> R,
    ) -> R {
        let now = self.queue.now();
        let n = &mut self.nodes[node as usize];
        let mut ctx =
            RouteCtx { now, node, out: &mut self.net_out, rng: &mut n.routing_rng, uids: &mut self.obs.metrics.fate };
        let r = f(n.routing.as_mut(), &mut ctx);
        self.routing_done(node, tables);
        r
    }

    /// After a call into `node`'s protocol (`call_routing`): its table to
    /// the observers that want it (`tables`), a work item per new action.
    #[inline(always)]
    fn routing_done(&mut self, node: NodeId, tables: bool) {
        if tables && self.obs.interest().routes {
            let now = self.queue.now();
            self.route_buf.clear();
            self.nodes[node as usize].routing.route_table(now, &mut self.route_buf);
            self.obs.routes(now, node, &self.route_buf);
        }
        for i in self.queued[1]..self.net_out.len() {
            self.work.push(Work::Net(node, i as u32));
        }
        self.queued[1] = self.net_out.len();
    }

    fn with_endpoint(&mut self, node: NodeId, idx: u16, f: impl FnOnce(&mut dyn Endpoint, &mut EndpointCtx)) {
        let now = self.queue.now();
        let n = &mut self.nodes[node as usize];
        let rng = &mut self.endpoint_rngs[node as usize][idx as usize];
        let tap = &mut observe::Tap { obs: &mut self.obs };
        let mut ctx = EndpointCtx { now, node, rng, out: &mut self.ep_out, metrics: tap };
        f(n.endpoints[idx as usize].as_mut(), &mut ctx);
        for i in self.queued[2]..self.ep_out.len() {
            self.work.push(Work::Endpoint(node, idx, i as u32));
        }
        self.queued[2] = self.ep_out.len();
    }

    /// `n`: the first `n` actions of `mac_out` are `node`'s and have no
    /// work item (`drain_mac`): carried out first, as their items would be.
    #[inline(never)]
    fn drain_items(&mut self, node: NodeId, n: usize) {
        for i in 0..n {
            self.mac_item(node, i);
        }
        let mut next = 0;
        while let Some(&w) = self.work.get(next) {
            next += 1;
            match w {
                Work::Mac(node, i) => self.mac_item(node, i as usize),
                Work::Net(node, i) => self.net_item(node, i as usize),
                Work::Endpoint(node, idx, i) => self.endpoint_item(node, idx, i as usize),
            }
        }
        self.work.clear();
        self.mac_out.clear();
        self.net_out.clear();
        self.ep_out.clear();
        self.queued = [0; 3];
    }

    /// Carries out the MAC's action `i`. Each index is taken exactly once.
    /// The actions without a packet (timers, a transmission, "ready": most
    /// of them) and those with nothing to do here are read in place; only
    /// those whose packet goes on are moved out (a `mem::replace` copies
    /// the whole enum, packet room included: `memmove` was 11-22 % of the
    /// small runs).
    #[inline(always)]
    fn mac_item(&mut self, node: NodeId, i: usize) {
        match self.mac_out[i] {
            MacAction::Timer { at, kind, gen } => self.arm_mac_timer(node, at, kind, gen),
            MacAction::Transmit(d) => self.transmit_frame(node, d),
            MacAction::Ready => self.feed_mac(node),
            // `bp_tx_success` does nothing without backpressure.
            MacAction::TxSuccess(_) if self.bp.is_none() => {}
            // `do_mac`'s `Overheard` arm: `bp_heard` does nothing without
            // backpressure, and the protocol may not listen.
            MacAction::Overheard(..) if self.bp.is_none() && !self.nodes[node as usize].routing.wants_overheard() => {}
            // A packet to forward over the radio or data for this node: carried out from the action.
            MacAction::Deliver(ref p, _) if self.bp.is_none() && self.in_place(node, p) => self.carry_out(node, i),
            _ => {
                let mut a = std::mem::replace(&mut self.mac_out[i], MacAction::Ready);
                self.do_mac(node, &mut a)
            }
        }
    }

    /// Carries out the routing protocol's action `i` (see `mac_item`).
    #[inline(always)]
    fn net_item(&mut self, node: NodeId, i: usize) {
        match self.net_out[i] {
            NetAction::Timer { at, timer } => self.queue.schedule(at, Event::routing(node, timer)),
            // A packet for the interface queue: handed on from the action.
            NetAction::Transmit(ref pkt) if self.queues_by_radio(node, pkt) => self.transmit_in_place(node, i),
            // Otherwise the packet alone is copied out (`NetAction` is not `Copy`).
            NetAction::Transmit(ref pkt) => {
                let pkt = *pkt;
                self.net_transmit(node, &pkt)
            }
            _ => {
                let a = std::mem::replace(
                    &mut self.net_out[i],
                    NetAction::Timer { at: Time::ZERO, timer: routing::RouteTimer::of(0) },
                );
                self.do_net(node, &a)
            }
        }
    }

    /// Carries out the endpoint's action `i` (`EndpointAction` is `Copy`: read, not replaced).
    #[inline(always)]
    fn endpoint_item(&mut self, node: NodeId, idx: u16, i: usize) {
        match self.ep_out[i] {
            EndpointAction::Timer { at, timer } => self.queue.schedule(at, Event::Endpoint { node, idx, timer }),
            // A datagram routed over the radio: routed from the action.
            EndpointAction::Send(ref p) if self.bp.is_none() && self.wired.next_hop(node, p.dst).is_none() => {
                self.send_in_place(node, i)
            }
            mut a => self.do_endpoint(node, idx, &mut a),
        }
    }
}
