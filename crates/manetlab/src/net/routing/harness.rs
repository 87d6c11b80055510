//! Unit-test harness for routing protocols: one protocol instance driven
//! directly, its timers fired in time order, its other actions collected.

use super::{NetAction, RouteCtx, Routing};
use crate::net::NodeId;
use crate::sim::FateTable;
use crate::sim::{Purpose, RngStream, Time};

pub struct Harness<R> {
    pub proto: R,
    pub me: NodeId,
    pub now: Time,
    pub timers: Vec<(Time, super::RouteTimer)>,
    pub rng: RngStream,
    pub uids: FateTable,
    /// Actions other than timers, in order, since the last `take`.
    pub out: Vec<NetAction>,
}

impl<R: Routing> Harness<R> {
    pub fn new(me: NodeId, proto: R) -> Self {
        Harness {
            proto,
            me,
            now: Time::ZERO,
            timers: Vec::new(),
            rng: RngStream::new(1, me as u64, Purpose::Routing, 0),
            uids: FateTable::default(),
            out: Vec::new(),
        }
    }
    /// Runs `f` on the protocol with a context at the current time.
    pub fn call(&mut self, f: impl FnOnce(&mut R, &mut RouteCtx)) {
        let mut acts = Vec::new();
        let mut ctx =
            RouteCtx { now: self.now, node: self.me, out: &mut acts, rng: &mut self.rng, uids: &mut self.uids };
        f(&mut self.proto, &mut ctx);
        for a in acts {
            match a {
                NetAction::Timer { at, timer } => self.timers.push((at, timer)),
                a => self.out.push(a),
            }
        }
    }
    /// Fires timers in time order up to and including `t`.
    pub fn run_until(&mut self, t: Time) {
        while let Some(i) = (0..self.timers.len()).filter(|&i| self.timers[i].0 <= t).min_by_key(|&i| self.timers[i]) {
            let (at, tok) = self.timers.remove(i);
            self.now = at;
            self.call(|a, ctx| a.on_timer(ctx, tok));
        }
        self.now = t;
    }
    pub fn take(&mut self) -> Vec<NetAction> {
        std::mem::take(&mut self.out)
    }
}

/// Several protocol instances joined by ideal links: a packet handed to
/// the interface reaches its next hop (every neighbour, for a broadcast)
/// `delay` later, never lost; a unicast over a missing link comes back to
/// its sender as a MAC failure after `delay`. Nodes can be switched off.
pub struct Net<R> {
    pub nodes: Vec<R>,
    pub links: Vec<Vec<bool>>,
    pub alive: Vec<bool>,
    pub now: Time,
    pub delay: Time,
    /// Every transmission: (time, sender, packet).
    pub sent: Vec<(Time, NodeId, crate::net::Packet)>,
    /// Data packets that reached their destination: (time, packet).
    pub delivered: Vec<(Time, crate::net::Packet)>,
    pub dropped: Vec<(NodeId, crate::net::Packet, crate::sim::DropReason)>,
    events: std::collections::BTreeMap<(Time, u64), NetEv>,
    seq: u64,
    rngs: Vec<RngStream>,
    uids: FateTable,
}

enum NetEv {
    Timer(NodeId, super::RouteTimer),
    Rx { from: NodeId, to: NodeId, pkt: crate::net::Packet },
    Fail(NodeId, crate::net::Packet),
}

impl<R: Routing> Net<R> {
    pub fn new(nodes: Vec<R>) -> Self {
        let n = nodes.len();
        Net {
            links: vec![vec![false; n]; n],
            alive: vec![true; n],
            now: Time::ZERO,
            delay: Time::from_ms(1),
            sent: Vec::new(),
            delivered: Vec::new(),
            dropped: Vec::new(),
            events: Default::default(),
            seq: 0,
            rngs: (0..n).map(|i| RngStream::new(1, i as u64, Purpose::Routing, 0)).collect(),
            uids: FateTable::default(),
            nodes,
        }
    }
    pub fn link(&mut self, a: usize, b: usize, up: bool) {
        self.links[a][b] = up;
        self.links[b][a] = up;
    }
    /// A chain 0 - 1 - ... - n-1.
    pub fn chain(nodes: Vec<R>) -> Self {
        let mut net = Net::new(nodes);
        for i in 1..net.nodes.len() {
            net.link(i - 1, i, true);
        }
        net
    }
    /// Switches node `i` off: it drops out of every link and does nothing.
    pub fn switch_off(&mut self, i: usize) {
        self.alive[i] = false;
        for j in 0..self.nodes.len() {
            self.link(i, j, false);
        }
    }
    fn push(&mut self, at: Time, ev: NetEv) {
        self.seq += 1;
        self.events.insert((at, self.seq), ev);
    }
    /// Runs `f` on node `i` at the current time and carries out its actions.
    pub fn call(&mut self, i: usize, f: impl FnOnce(&mut R, &mut RouteCtx)) {
        if !self.alive[i] {
            return;
        }
        let mut acts = Vec::new();
        let mut ctx =
            RouteCtx { now: self.now, node: i as NodeId, out: &mut acts, rng: &mut self.rngs[i], uids: &mut self.uids };
        f(&mut self.nodes[i], &mut ctx);
        for a in acts {
            match a {
                NetAction::Timer { at, timer } => self.push(at, NetEv::Timer(i as NodeId, timer)),
                NetAction::Transmit(p) => {
                    self.sent.push((self.now, i as NodeId, p));
                    let at = self.now + self.delay;
                    if p.next_hop == crate::net::BROADCAST {
                        for j in 0..self.nodes.len() {
                            if self.links[i][j] {
                                self.push(at, NetEv::Rx { from: i as NodeId, to: j as NodeId, pkt: p });
                            }
                        }
                    } else if (p.next_hop as usize) < self.nodes.len() && self.links[i][p.next_hop as usize] {
                        self.push(at, NetEv::Rx { from: i as NodeId, to: p.next_hop, pkt: p });
                    } else {
                        self.push(at, NetEv::Fail(i as NodeId, p));
                    }
                }
                NetAction::Drop(p, why) => self.dropped.push((i as NodeId, p, why)),
                _ => {}
            }
        }
    }
    pub fn start(&mut self) {
        for i in 0..self.nodes.len() {
            self.call(i, |r, ctx| r.start(ctx));
        }
    }
    /// Processes every event up to and including `t`.
    pub fn run_until(&mut self, t: Time) {
        while let Some((&(at, s), _)) = self.events.iter().next() {
            if at > t {
                break;
            }
            let ev = self.events.remove(&(at, s)).expect("present");
            self.now = at;
            match ev {
                NetEv::Timer(n, tok) => self.call(n as usize, |r, ctx| r.on_timer(ctx, tok)),
                NetEv::Fail(n, p) => self.call(n as usize, |r, ctx| r.on_link_failure(ctx, p)),
                NetEv::Rx { from, to, mut pkt } => {
                    if !self.alive[to as usize] || !self.links[from as usize][to as usize] {
                        continue;
                    }
                    pkt.prev_hop = from;
                    if pkt.is_control() {
                        self.call(to as usize, |r, ctx| r.on_control(ctx, &pkt));
                    } else if pkt.dst == to {
                        self.delivered.push((at, pkt));
                        self.call(to as usize, |r, ctx| r.on_delivered(ctx, &pkt));
                    } else {
                        pkt.ttl = pkt.ttl.saturating_sub(1);
                        self.call(to as usize, |r, ctx| r.route(ctx, pkt, super::Origin::Forward));
                    }
                }
            }
        }
        self.now = t;
    }
    /// Hands node `src` a new data packet for `dst` (UDP, 64 bytes).
    pub fn send_data(&mut self, src: usize, dst: NodeId, seq: u64) {
        let body = crate::net::Body::Udp { sport: 1, dport: 1, seq };
        let p = crate::net::Packet::new(self.uids.create(self.now), src as NodeId, dst, 72, 0, body, self.now);
        self.call(src, |r, ctx| r.route(ctx, p, super::Origin::Local));
    }
}
