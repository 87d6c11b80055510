//! OLSR: Optimized Link State Routing (RFC 3626), one interface per node.
//!
//! One [`Olsr`] per node. Files follow the RFC:
//! - `msg.rs`: packet and message formats, HELLO and TC bodies, validity
//!   time coding (§3.3, §6.1, §9.1, §18.3);
//! - `mpr.rs`: MPR selection, the heuristic of §8.3.1;
//! - `config.rs`: the constants of §18 (HELLO 2 s, TC 5 s, NEIGHB_HOLD_TIME
//!   6 s, TOP_HOLD_TIME 15 s, DUP_HOLD_TIME 30 s, willingness).
//!
//! This file is the protocol: HELLO generation and link sensing (§6, §7.1),
//! neighbour and 2-hop neighbour detection (§8.1, §8.2), MPR selector set
//! (§8.4), TC generation with ANSN and empty TCs after the selector set
//! empties (§9.2, §9.3), TC processing into the topology set (§9.5), the
//! duplicate set and default forwarding through MPRs (§3.4), and the routing
//! table (§10). Periodic messages are jittered and forwarded messages
//! delayed by up to MAXJITTER = HELLO_INTERVAL / 4 (RFC 5148 §5).
//!
//! HNA (§12): a gateway (a node with wired-only hosts behind it,
//! `Routing::set_proxied`) announces them every HNA_INTERVAL (= TC_INTERVAL)
//! as the fewest CIDR (network, netmask) pairs covering them, valid for
//! HNA_HOLD_TIME (3 x HNA_INTERVAL), flooded like TCs; every node keeps the
//! association set (§12.4) and routes a destination that is no OLSR node
//! through the nearest gateway announcing a network containing it (§12.6,
//! longest prefix first).
//!
//! Tuples expire by time; the MPR set and the routing table are recomputed
//! lazily, when a set changed or the earliest tuple expired, before a packet
//! is routed or a message generated. Packets carry one message each (as
//! bytes on the run's [`WireBoard`], UDP port 698). Not modelled: multiple
//! interfaces and MID (§5), link hysteresis (§14), redundancy
//! of TC contents beyond the MPR selectors (TC_REDUNDANCY 0), link-layer
//! notification (§13); data packets without a route are dropped (as ns-3).

pub mod config;
pub mod mpr;
pub mod msg;

pub use config::OlsrConfig;

use super::delayed::Parked;
use super::{Origin, RouteCtx, RouteTimer, Routing, RoutingCounters, RoutingStats};
use crate::net::{Body, NodeId, Packet, BROADCAST};
use crate::sim::DropReason;
use crate::sim::Time;
use crate::wire::board::{RoutingMsg, WireBoard, WireRef};
use config::WILL_NEVER;
use msg::{Header, HELLO, HNA, TC};
use std::collections::BTreeMap;

const T_HELLO: u8 = 1;
const T_TC: u8 = 2;
/// a = slot of the parked packet
const T_SEND: u8 = 3;
const T_HNA: u8 = 4;

/// A link tuple (§4.2.1) merged with its neighbour tuple (§4.3.1): one
/// interface per node, so the neighbour's main address is its address.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Link {
    /// L_SYM_time, L_ASYM_time, L_time.
    sym: Time,
    asym: Time,
    until: Time,
    /// N_willingness.
    will: u8,
}

pub struct Olsr {
    cfg: OlsrConfig,
    me: NodeId,
    board: WireBoard,
    links: BTreeMap<NodeId, Link>,
    /// 2-hop neighbour set: (neighbour, 2-hop node) -> N_time.
    two_hop: BTreeMap<(NodeId, NodeId), Time>,
    /// MPR selector set: selector -> MS_time.
    selectors: BTreeMap<NodeId, Time>,
    /// Topology set: (T_last_addr, T_dest_addr) -> (T_seq, T_time).
    topology: BTreeMap<(NodeId, NodeId), (u16, Time)>,
    /// Duplicate set: (D_addr, D_seq_num) -> D_time.
    dup: BTreeMap<(NodeId, u16), Time>,
    mprs: Vec<NodeId>,
    /// Routing table (§10): destination -> (next hop, hops).
    routes: Vec<Option<(NodeId, u8)>>,
    dirty: bool,
    /// When the earliest tuple used by the last computation expires.
    earliest: Time,
    pkt_seq: u16,
    msg_seq: u16,
    ansn: u16,
    advertised: Vec<NodeId>,
    /// Empty TCs are sent until then (§9.3).
    tc_empty_until: Time,
    delayed: Parked,
    next_hello: Time,
    next_tc: Time,
    /// HNA: the networks this node announces (§12.1), as (network, netmask).
    local_nets: Vec<(u32, u32)>,
    /// Association set (§12.4): (A_gateway_addr, A_network_addr, A_netmask) -> A_time.
    assoc: BTreeMap<(NodeId, u32, u32), Time>,
    /// Routes to announced networks (§12.6): (network, netmask, next hop,
    /// hops), longest netmask first.
    hna_routes: Vec<(u32, u32, NodeId, u8)>,
    scratch_nets: Vec<(u32, u32)>,
    scratch_links: Vec<(u8, NodeId)>,
    scratch_addrs: Vec<NodeId>,
    scratch_bytes: Vec<u8>,
    stats: RoutingCounters,
}


impl Olsr {
    pub fn new(me: NodeId, cfg: OlsrConfig, board: WireBoard) -> Olsr {
        Olsr {
            me,
            board,
            links: BTreeMap::new(),
            two_hop: BTreeMap::new(),
            selectors: BTreeMap::new(),
            topology: BTreeMap::new(),
            dup: BTreeMap::new(),
            mprs: Vec::new(),
            routes: Vec::new(),
            dirty: false,
            earliest: Time::from_ns(u64::MAX),
            pkt_seq: 0,
            msg_seq: 0,
            ansn: 0,
            advertised: Vec::new(),
            tc_empty_until: Time::ZERO,
            delayed: Parked::default(),
            next_hello: Time::ZERO,
            next_tc: Time::ZERO,
            local_nets: Vec::new(),
            assoc: BTreeMap::new(),
            hna_routes: Vec::new(),
            scratch_nets: Vec::new(),
            scratch_links: Vec::new(),
            scratch_addrs: Vec::new(),
            scratch_bytes: Vec::new(),
            stats: RoutingCounters::default(),
            cfg,
        }
    }

    /// The MPR set as last computed (call [`Olsr::update`] first).
    pub fn mpr_set(&self) -> &[NodeId] {
        &self.mprs
    }
    /// The route to `dst` as last computed: (next hop, hops).
    pub fn route_to(&self, dst: NodeId) -> Option<(NodeId, u8)> {
        self.routes.get(dst as usize).copied().flatten()
    }
    /// The route towards `dst` through an HNA association (§12.6), as last
    /// computed: (next hop, hops to the gateway).
    pub fn hna_route_to(&self, dst: NodeId) -> Option<(NodeId, u8)> {
        let ip = u32::from_be_bytes(crate::wire::board::ipv4(dst));
        self.hna_routes.iter().find(|r| ip & r.1 == r.0).map(|r| (r.2, r.3))
    }
    /// The networks this node announces in HNA messages.
    pub fn local_networks(&self) -> &[(u32, u32)] {
        &self.local_nets
    }
    /// The association set at `now`: (gateway, network, netmask).
    pub fn associations(&self, now: Time) -> Vec<(NodeId, u32, u32)> {
        self.assoc.iter().filter(|&(_, &t)| t > now).map(|(&k, _)| k).collect()
    }
    /// The symmetric neighbours at `now`.
    pub fn symmetric_neighbours(&self, now: Time) -> Vec<NodeId> {
        self.links.iter().filter(|(_, l)| l.sym > now).map(|(&n, _)| n).collect()
    }
    /// The MPR selectors at `now`.
    pub fn mpr_selectors(&self, now: Time) -> Vec<NodeId> {
        self.selectors.iter().filter(|&(_, &t)| t > now).map(|(&n, _)| n).collect()
    }

    fn is_sym(&self, n: NodeId, now: Time) -> bool {
        self.links.get(&n).is_some_and(|l| l.sym > now)
    }

    /// Removes expired tuples and recomputes the MPR set and the routing
    /// table, if anything changed since the last computation.
    pub fn update(&mut self, now: Time) {
        if !self.dirty && now < self.earliest {
            return;
        }
        self.links.retain(|_, l| l.until > now);
        let links = &self.links;
        let sym = |n: &NodeId| links.get(n).is_some_and(|l| l.sym > now);
        // §8.5: a lost neighbour takes its 2-hop tuples and selector tuple along.
        self.two_hop.retain(|(via, _), t| *t > now && sym(via));
        self.selectors.retain(|n, t| *t > now && sym(n));
        self.topology.retain(|_, (_, t)| *t > now);
        self.assoc.retain(|_, t| *t > now);
        self.dup.retain(|_, t| *t > now);
        // MPR set (§8.3).
        let nbrs: Vec<(NodeId, u8)> = links.iter().filter(|(_, l)| l.sym > now).map(|(&n, l)| (n, l.will)).collect();
        let pairs: Vec<(NodeId, NodeId)> = self.two_hop.keys().copied().collect();
        let mprs = mpr::select(self.me, &nbrs, &pairs);
        if mprs != self.mprs {
            self.stats.event("mpr_changes");
            self.mprs = mprs;
        }
        // Routing table (§10).
        self.routes.iter_mut().for_each(|r| *r = None);
        let me = self.me;
        let set = |routes: &mut Vec<Option<(NodeId, u8)>>, d: NodeId, v: (NodeId, u8)| -> bool {
            if d == me || d == BROADCAST {
                return false;
            }
            if routes.len() <= d as usize {
                routes.resize(d as usize + 1, None);
            }
            if routes[d as usize].is_some() {
                return false;
            }
            routes[d as usize] = Some(v);
            true
        };
        let mut earliest = Time::from_ns(u64::MAX);
        for &(n, _) in &nbrs {
            set(&mut self.routes, n, (n, 1));
        }
        for l in self.links.values() {
            earliest = earliest.min(l.until);
            if l.sym > now {
                earliest = earliest.min(l.sym);
            }
        }
        for (&(via, t), &time) in &self.two_hop {
            earliest = earliest.min(time);
            if nbrs.iter().any(|&(n, w)| n == via && w != WILL_NEVER) {
                set(&mut self.routes, t, (via, 2));
            }
        }
        for &(_, t) in self.topology.values() {
            earliest = earliest.min(t);
        }
        let mut h = 2u8;
        loop {
            let mut added = false;
            for &(last, dest) in self.topology.keys() {
                if let Some(Some((nh, d))) = self.routes.get(last as usize).copied() {
                    if d == h && set(&mut self.routes, dest, (nh, h + 1)) {
                        added = true;
                    }
                }
            }
            if !added || h == u8::MAX - 1 {
                break;
            }
            h += 1;
        }
        // §12.6: a route to each announced network through its nearest
        // gateway with a route.
        self.hna_routes.clear();
        for (&(gw, net, mask), &t) in &self.assoc {
            earliest = earliest.min(t);
            let Some(Some((nh, hops))) = self.routes.get(gw as usize).copied() else { continue };
            match self.hna_routes.iter_mut().find(|r| r.0 == net && r.1 == mask) {
                Some(r) if r.3 > hops => *r = (net, mask, nh, hops),
                Some(_) => {}
                None => self.hna_routes.push((net, mask, nh, hops)),
            }
        }
        self.hna_routes.sort_by_key(|r| std::cmp::Reverse(r.1.count_ones()));
        self.earliest = earliest;
        self.dirty = false;
    }

    /// Posts a packet with one message and returns it, ready to broadcast.
    fn packet(&mut self, ctx: &mut RouteCtx, h: &Header, body: impl FnOnce(&mut Vec<u8>)) -> Packet {
        self.pkt_seq = self.pkt_seq.wrapping_add(1);
        let pkt_seq = self.pkt_seq;
        let r: WireRef = self.board.post(self.me, h.kind, |v| msg::write_packet(v, pkt_seq, h, body));
        let mut p = ctx.board_packet(BROADCAST, "OLSR", msg::OLSR_PORT, r);
        p.next_hop = BROADCAST;
        p.ttl = 1;
        p
    }

    fn emit(&mut self, ctx: &mut RouteCtx, p: Packet) {
        if let Body::Routing(RoutingMsg { wire: r, .. }) = p.body {
            self.stats.count_sent(msg::kind_name(r.kind), p.size);
        }
        ctx.transmit(p);
    }

    fn next_msg_seq(&mut self) -> u16 {
        self.msg_seq = self.msg_seq.wrapping_add(1);
        self.msg_seq
    }

    fn send_hello(&mut self, ctx: &mut RouteCtx) {
        let now = ctx.now;
        self.update(now);
        let mut links = std::mem::take(&mut self.scratch_links);
        links.clear();
        for (&n, l) in &self.links {
            let lt = if l.sym > now {
                msg::SYM_LINK
            } else if l.asym > now {
                msg::ASYM_LINK
            } else {
                msg::LOST_LINK
            };
            let nt = if self.mprs.contains(&n) {
                msg::MPR_NEIGH
            } else if l.sym > now {
                msg::SYM_NEIGH
            } else {
                msg::NOT_NEIGH
            };
            links.push((msg::link_code(lt, nt), n));
        }
        links.sort_by_key(|&(c, _)| c);
        let h = Header {
            kind: HELLO,
            vtime: self.cfg.neighb_hold_time(),
            orig: self.me,
            ttl: 1,
            hops: 0,
            seq: self.next_msg_seq(),
        };
        let (htime, will) = (self.cfg.hello_interval, self.cfg.willingness);
        let p = self.packet(ctx, &h, |v| msg::write_hello(v, htime, will, &links));
        self.scratch_links = links;
        self.emit(ctx, p);
    }

    fn send_tc(&mut self, ctx: &mut RouteCtx) {
        let now = ctx.now;
        self.update(now);
        let adv = self.mpr_selectors(now);
        if adv != self.advertised {
            self.ansn = self.ansn.wrapping_add(1);
            self.advertised = adv;
        }
        if !self.advertised.is_empty() {
            self.tc_empty_until = now + self.cfg.top_hold_time();
        } else if now >= self.tc_empty_until {
            return;
        }
        let h = Header {
            kind: TC,
            vtime: self.cfg.top_hold_time(),
            orig: self.me,
            ttl: 255,
            hops: 0,
            seq: self.next_msg_seq(),
        };
        let ansn = self.ansn;
        let adv = std::mem::take(&mut self.advertised);
        let p = self.packet(ctx, &h, |v| msg::write_tc(v, ansn, &adv));
        self.advertised = adv;
        self.emit(ctx, p);
    }

    /// §12.2: an HNA message listing this node's networks.
    fn send_hna(&mut self, ctx: &mut RouteCtx) {
        let h = Header {
            kind: HNA,
            vtime: self.cfg.top_hold_time(),
            orig: self.me,
            ttl: 255,
            hops: 0,
            seq: self.next_msg_seq(),
        };
        let nets = std::mem::take(&mut self.local_nets);
        let p = self.packet(ctx, &h, |v| msg::write_hna(v, &nets));
        self.local_nets = nets;
        self.emit(ctx, p);
    }

    /// §12.5 HNA processing into the association set.
    fn process_hna(&mut self, now: Time, h: &Header, body: &[u8]) {
        let mut nets = std::mem::take(&mut self.scratch_nets);
        nets.clear();
        if msg::read_hna(body, &mut nets).is_some() {
            for &(net, mask) in &nets {
                if self.assoc.insert((h.orig, net & mask, mask), now + h.vtime).is_none() {
                    self.dirty = true;
                }
            }
        }
        self.scratch_nets = nets;
    }

    /// §7.1.1 link sensing, §8.1.1 neighbour willingness, §8.2.1 2-hop
    /// neighbours, §8.4.1 MPR selectors.
    fn process_hello(&mut self, now: Time, from: NodeId, vtime: Time, body: &[u8]) {
        let mut links = std::mem::take(&mut self.scratch_links);
        links.clear();
        let Some(will) = msg::read_hello(body, &mut links) else {
            self.scratch_links = links;
            return;
        };
        let hold = self.cfg.neighb_hold_time();
        let old = self.links.get(&from).copied();
        let l = self.links.entry(from).or_insert(Link { sym: Time::ZERO, asym: Time::ZERO, until: now + vtime, will });
        l.asym = now + vtime;
        for &(code, addr) in &links {
            if addr != self.me {
                continue;
            }
            match code & 3 {
                msg::LOST_LINK => l.sym = Time::ZERO,
                msg::SYM_LINK | msg::ASYM_LINK => {
                    l.sym = now + vtime;
                    l.until = l.sym + hold;
                }
                _ => {}
            }
        }
        l.until = l.until.max(l.asym);
        l.will = will;
        let sym = l.sym > now;
        if old.is_none_or(|o| (o.sym > now) != sym || o.will != will) {
            self.dirty = true;
        }
        if sym {
            for &(code, addr) in &links {
                match code >> 2 {
                    msg::SYM_NEIGH | msg::MPR_NEIGH
                        if addr != self.me && self.two_hop.insert((from, addr), now + vtime).is_none() =>
                    {
                        self.dirty = true;
                    }
                    msg::NOT_NEIGH if self.two_hop.remove(&(from, addr)).is_some() => {
                        self.dirty = true;
                    }
                    _ => {}
                }
            }
            if links.iter().any(|&(c, a)| a == self.me && c >> 2 == msg::MPR_NEIGH) {
                self.selectors.insert(from, now + vtime);
            }
        }
        self.scratch_links = links;
    }

    /// §9.5 TC processing.
    fn process_tc(&mut self, now: Time, h: &Header, body: &[u8]) {
        let mut adv = std::mem::take(&mut self.scratch_addrs);
        adv.clear();
        let Some(ansn) = msg::read_tc(body, &mut adv) else {
            self.scratch_addrs = adv;
            return;
        };
        let range = (h.orig, 0)..=(h.orig, NodeId::MAX);
        if self.topology.range(range.clone()).any(|(_, &(s, _))| msg::seq_newer(s, ansn)) {
            self.scratch_addrs = adv;
            return;
        }
        let before = self.topology.len();
        self.topology.retain(|&(last, _), &mut (s, _)| last != h.orig || !msg::seq_newer(ansn, s));
        if self.topology.len() != before {
            self.dirty = true;
        }
        for &dest in &adv {
            if self.topology.insert((h.orig, dest), (ansn, now + h.vtime)).is_none() {
                self.dirty = true;
            }
        }
        self.scratch_addrs = adv;
    }
}

impl Routing for Olsr {
    fn name(&self) -> &'static str {
        "olsr"
    }

    fn start(&mut self, ctx: &mut RouteCtx) {
        // Random phases (RFC 5148 §5.1: jitter on periodic messages).
        let j = ctx.rng.range_f64(0.0, self.cfg.hello_interval.as_secs_f64());
        self.next_hello = ctx.now + Time::from_secs_f64(j);
        ctx.timer(self.next_hello, RouteTimer::of(T_HELLO));
        let j = ctx.rng.range_f64(0.0, self.cfg.tc_interval.as_secs_f64());
        self.next_tc = ctx.now + Time::from_secs_f64(j);
        ctx.timer(self.next_tc, RouteTimer::of(T_TC));
        if !self.local_nets.is_empty() {
            // HNA_INTERVAL = TC_INTERVAL (§18.2).
            let j = ctx.rng.range_f64(0.0, self.cfg.tc_interval.as_secs_f64());
            ctx.timer(ctx.now + Time::from_secs_f64(j), RouteTimer::of(T_HNA));
        }
    }

    fn set_proxied(&mut self, hosts: &[NodeId]) {
        self.local_nets = msg::covering_prefixes(hosts);
    }

    fn route(&mut self, ctx: &mut RouteCtx, mut pkt: Packet, _origin: Origin) {
        if pkt.dst == BROADCAST {
            pkt.next_hop = BROADCAST;
            return ctx.transmit(pkt);
        }
        self.update(ctx.now);
        match self.route_to(pkt.dst).or_else(|| self.hna_route_to(pkt.dst)) {
            Some((nh, _)) => {
                pkt.next_hop = nh;
                ctx.transmit(pkt)
            }
            None => ctx.drop(pkt, DropReason::Nrte),
        }
    }

    fn on_control(&mut self, ctx: &mut RouteCtx, pkt: &Packet) {
        let Body::Routing(RoutingMsg { wire: r, .. }) = pkt.body else { return };
        let now = ctx.now;
        let from = pkt.prev_hop;
        self.stats.count_received(msg::kind_name(r.kind), pkt.size);
        let mut bytes = std::mem::take(&mut self.scratch_bytes);
        bytes.clear();
        if self.board.read(r, |b| bytes.extend_from_slice(b)).is_none() {
            self.stats.event("stale_messages");
            self.scratch_bytes = bytes;
            return;
        }
        if let Some((h, body)) = msg::read_packet(&bytes) {
            // §3.4: drop messages with TTL 0 and this node's own.
            if h.ttl > 0 && h.orig != self.me {
                let dup = self.dup.get(&(h.orig, h.seq)).is_some_and(|&t| t > now);
                if !dup {
                    match h.kind {
                        HELLO => self.process_hello(now, from, h.vtime, body),
                        TC if self.is_sym(from, now) => self.process_tc(now, &h, body),
                        HNA if self.is_sym(from, now) => self.process_hna(now, &h, body),
                        _ => {}
                    }
                }
                // §3.4.1 default forwarding (HELLOs are never forwarded).
                if !dup && h.kind != HELLO && self.is_sym(from, now) {
                    self.dup.insert((h.orig, h.seq), now + self.cfg.dup_hold_time());
                    let selector = self.selectors.get(&from).is_some_and(|&t| t > now);
                    if selector && h.ttl > 1 {
                        let fwd = Header { ttl: h.ttl - 1, hops: h.hops.saturating_add(1), ..h };
                        let p = self.packet(ctx, &fwd, |v| v.extend_from_slice(body));
                        self.stats.event("forwarded_messages");
                        let max = self.cfg.max_jitter();
                        if let Some(p) = self.delayed.send_later(ctx, p, max, |s| RouteTimer::with(T_SEND, s, 0)) {
                            self.emit(ctx, p);
                        }
                    }
                }
            }
        }
        self.scratch_bytes = bytes;
    }

    fn on_timer(&mut self, ctx: &mut RouteCtx, t: RouteTimer) {
        let jitter = |ctx: &mut RouteCtx, max: Time| super::delayed::jitter(ctx, max);
        match t.kind {
            T_HELLO => {
                self.send_hello(ctx);
                // RFC 5148 §5.1: interval minus a jitter in [0, MAXJITTER).
                self.next_hello = ctx.now + self.cfg.hello_interval - jitter(ctx, self.cfg.max_jitter());
                ctx.timer(self.next_hello, RouteTimer::of(T_HELLO));
            }
            T_TC => {
                self.send_tc(ctx);
                self.next_tc = ctx.now + self.cfg.tc_interval - jitter(ctx, self.cfg.max_jitter());
                ctx.timer(self.next_tc, RouteTimer::of(T_TC));
            }
            T_HNA => {
                self.send_hna(ctx);
                let next = ctx.now + self.cfg.tc_interval - jitter(ctx, self.cfg.max_jitter());
                ctx.timer(next, RouteTimer::of(T_HNA));
            }
            T_SEND => {
                if let Some(p) = self.delayed.take(t.a as usize) {
                    self.emit(ctx, p);
                }
            }
            _ => {}
        }
    }

    /// Messages waiting out their jitter (control packets: traced as END
    /// drops when the run ends, not part of the data audit).
    fn held(&self, f: &mut dyn FnMut(&Packet)) {
        self.delayed.iter().for_each(f);
    }

    fn stats(&self) -> RoutingStats {
        self.stats.to_stats()
    }
}

#[cfg(test)]
mod tests;
