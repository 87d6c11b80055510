//! DSR: the Dynamic Source Routing protocol (RFC 4728), with the semantics
//! of the CMU implementation in ns-2 (`dsr/`).
//!
//! One [`Dsr`] per node. Files:
//! - `header.rs`: the source route every data packet carries (`Packet::sr`);
//! - `packet.rs`: Route Request, Route Reply, Route Error and their sizes;
//! - `cache.rs`: the path cache;
//! - `mobicache.rs`: ns-2.35's two-level cache (`cache = "mobicache"`);
//! - `request_table.rs`: duplicate request suppression;
//! - `config.rs`: parameters (ns-2 defaults).
//!
//! This file is the protocol: route discovery (a non-propagating request,
//! then propagating requests with exponential backoff), replies from the
//! target and from caches, source-routed forwarding, route maintenance from
//! MAC feedback (route errors, salvaging), the send buffer and snooping.
//! `docs/dsr.md` describes the model and its limits.

pub mod cache;
pub mod config;
mod forward;
mod maintenance;
pub mod mobicache;
pub use crate::wire::dsr as packet;
pub use crate::wire::source_route as header;
pub mod request_table;

pub use cache::PathCache;
pub use config::DsrConfig;
pub use mobicache::{CacheKind, MobiCache, RouteCache};
pub use header::{SourceRoute, MAX_SR_LEN};
pub use packet::{DsrMsg, Link, MsgKind};

use super::aodv::buffer::SendBuffer;
use super::{Origin, RouteCtx, RouteTimer, Routing, RoutingCounters, RoutingStats};
use crate::net::{Body, NodeId, Packet, BROADCAST};
use crate::sim::DropReason;
use crate::sim::Time;
use forward::route_nodes;
use request_table::RequestTable;
use std::collections::BTreeMap;

/// a = target, b = generation
const T_DISCOVERY: u8 = 1;
/// a = slot of a jittered packet
const T_SEND: u8 = 2;
const T_BUFFER: u8 = 3;
/// the periodic send buffer check
const T_CHECK: u8 = 4;
const GEN_MASK: u64 = 0xFF_FFFF;

/// A route discovery under way for one target.
#[derive(Clone, Debug)]
struct Discovery {
    gen: u32,
    /// A propagating request has been sent (not just the ring-0 one).
    propagated: bool,
}

/// A flow this node is the source of (ns-2.35 flow state, `flow_state`):
/// packets to `dst` on `route`, how many showed the route, when the last
/// did, when the flow was last used.
#[derive(Copy, Clone, Debug)]
struct Flow {
    route: SourceRoute,
    shown: u32,
    last_shown: Time,
    last_used: Time,
}

/// ns-2.35 `flowstruct.h` `END_TO_END_COUNT`: a new flow shows its route
/// while it has been shown at most this many times.
const FLOW_SHOW_COUNT: u32 = 2;
/// `dsragent.cc` `min_adv_interval`: an established flow shows its route
/// again after this long.
const FLOW_READVERTISE: Time = Time::from_secs(5);
/// `dsragent.cc` `default_flow_timeout` (refreshed on every use).
const FLOW_TIMEOUT: Time = Time::from_secs(60);

/// ns-2.35 `grat_hold_down_time`: at most one gratuitous reply per route
/// and second ...
const GRAT_HOLD_DOWN: Time = Time::from_secs(1);
/// ... remembered for this many routes (`RTREP_HOLDOFF_SIZE`).
const GRAT_HOLD_SLOTS: usize = 10;

/// Propagating requests sent for one target since its last route reply, and
/// when the last went (ns-2's request table entry).
#[derive(Copy, Clone, Debug, Default)]
struct Backoff {
    sent: u32,
    last: Option<Time>,
}

pub struct Dsr {
    cfg: DsrConfig,
    me: NodeId,
    cache: RouteCache,
    buffer: SendBuffer,
    buffer_timer: Option<Time>,
    /// Packets of other sources this node could not forward and waits to
    /// salvage (`salvage_requests`, ns-2 `NEW_SALVAGE_LOGIC`) ...
    salvage_buf: SendBuffer,
    /// The next send buffer check (ns-2 `sendBufferCheck`), when armed.
    check_at: Option<Time>,
    requests: RequestTable,
    next_request_id: u32,
    discoveries: BTreeMap<NodeId, Discovery>,
    backoff: BTreeMap<NodeId, Backoff>,
    next_gen: u32,
    /// The last link this node learnt was broken (piggybacked on its next
    /// route request).
    last_error: Option<Link>,
    /// Route errors sent at the current instant: (link, notified node).
    errors_now: (Time, Vec<(Link, NodeId)>),
    delayed: super::delayed::Parked,
    /// Flows this node is the source of (`flow_state`).
    flows: Vec<Flow>,
    /// Routes this node sent a gratuitous reply for, and when
    /// (`grat_replies`; ns-2 `grat_hold`, 10 entries, round-robin).
    grat_hold: Vec<(SourceRoute, Time)>,
    grat_victim: usize,
    stats: RoutingCounters,
    /// Wired-only hosts this node answers route requests for (gateway).
    proxied: Vec<NodeId>,
}

impl Dsr {
    pub fn new(me: NodeId, cfg: DsrConfig) -> Dsr {
        assert!(me < u16::MAX as NodeId, "DSR source routes hold 16-bit node ids");
        Dsr {
            me,
            cache: RouteCache::new(&cfg),
            buffer: SendBuffer::new(cfg.send_buffer, cfg.send_buffer_timeout),
            buffer_timer: None,
            salvage_buf: SendBuffer::new(cfg.send_buffer, cfg.send_buffer_timeout),
            check_at: None,
            requests: RequestTable::default(),
            next_request_id: 0,
            discoveries: BTreeMap::new(),
            backoff: BTreeMap::new(),
            next_gen: 0,
            last_error: None,
            errors_now: (Time::ZERO, Vec::new()),
            delayed: Default::default(),
            flows: Vec::new(),
            grat_hold: Vec::new(),
            grat_victim: 0,
            stats: RoutingCounters::default(),
            proxied: Vec::new(),
            cfg,
        }
    }

    pub fn config(&self) -> &DsrConfig {
        &self.cfg
    }
    /// The route cache (read-only, for tests and inspection).
    pub fn cache(&self) -> &RouteCache {
        &self.cache
    }
    pub fn buffered(&self) -> usize {
        self.buffer.len()
    }
    /// Packets of other sources waiting in the send buffer to be salvaged.
    pub fn salvage_buffered(&self) -> usize {
        self.salvage_buf.len()
    }
    pub fn discovering(&self, dst: NodeId) -> bool {
        self.discoveries.contains_key(&dst)
    }

    // ---- sending ----------------------------------------------------------

    fn emit(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        if let Body::Dsr(m) = &pkt.body {
            self.stats.count_sent(m.kind().name(), pkt.size);
        }
        ctx.transmit(pkt);
    }

    fn emit_jittered(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        if let Some(now) = self.delayed.send_later(ctx, pkt, self.cfg.jitter, |slot| RouteTimer::with(T_SEND, slot, 0)) {
            self.emit(ctx, now);
        }
    }

    /// A control message from this node to `dst` along `travel` (which
    /// starts here), or broadcast when `travel` has one node.
    fn control(&mut self, ctx: &mut RouteCtx, dst: NodeId, travel: SourceRoute, msg: DsrMsg) -> Packet {
        let mut p = ctx.new_packet(dst, msg.l4_bytes(&travel), Body::Dsr(msg));
        p.sr = travel;
        if dst != BROADCAST {
            p.sr.cur = 1;
            p.next_hop = travel.node(1);
        }
        p
    }

    /// Sends a data packet along `path` (from this node to its destination).
    fn send_on(&mut self, ctx: &mut RouteCtx, mut pkt: Packet, path: &[NodeId]) {
        let salvaged = pkt.sr.salvaged;
        if !pkt.sr.is_empty() {
            pkt.size -= pkt.sr.header_bytes();
        }
        pkt.sr = SourceRoute::from_path(path).expect("cached paths fit a source route");
        pkt.sr.salvaged = salvaged;
        pkt.sr.cur = 1;
        if self.cfg.flow_state && pkt.src == self.me {
            pkt.sr.flow = self.flow_hides(pkt.sr, ctx.now);
        }
        pkt.size += pkt.sr.header_bytes();
        pkt.next_hop = path[1];
        ctx.transmit(pkt);
    }

    /// ns-2.35 `sendOutPacketWithRoute` with flow state: whether this
    /// packet of this node's flow on `route` goes without its source route.
    fn flow_hides(&mut self, route: SourceRoute, now: Time) -> bool {
        let live = |f: &Flow| f.last_used + FLOW_TIMEOUT >= now;
        let Some(f) = self.flows.iter_mut().find(|f| f.route.hops == route.hops && f.route.len == route.len && live(f))
        else {
            self.flows.retain(live);
            self.flows.push(Flow { route, shown: 1, last_shown: now, last_used: now });
            self.stats.event("flows_established");
            return false;
        };
        f.last_used = now;
        if f.shown <= FLOW_SHOW_COUNT || f.last_shown + FLOW_READVERTISE < now {
            f.shown += 1;
            f.last_shown = now;
            return false;
        }
        true
    }

    /// Sends `pkt` (originated here) on a cached route, or buffers it and
    /// starts a discovery.
    fn send_or_buffer(&mut self, ctx: &mut RouteCtx, mut pkt: Packet) {
        if let Some(path) = self.cache.find_for_use(pkt.dst, ctx.now) {
            return self.send_on(ctx, pkt, &path);
        }
        if !pkt.sr.is_empty() {
            pkt.size -= pkt.sr.header_bytes();
            pkt.sr = SourceRoute { salvaged: pkt.sr.salvaged, ..SourceRoute::EMPTY };
        }
        let dst = pkt.dst;
        if let Some(old) = self.buffer.push(pkt, ctx.now) {
            self.stats.event("send_buffer_overflows");
            ctx.drop(old, DropReason::Nrte);
        }
        self.arm_buffer_timer(ctx);
        self.arm_check(ctx);
        self.discover(ctx, dst);
    }

    fn arm_buffer_timer(&mut self, ctx: &mut RouteCtx) {
        let next = [self.buffer.next_deadline(), self.salvage_buf.next_deadline()].into_iter().flatten().min();
        if let Some(d) = next {
            if self.buffer_timer.is_none_or(|t| t > d) {
                self.buffer_timer = Some(d);
                ctx.timer(d, RouteTimer::of(T_BUFFER));
            }
        }
    }

    /// Sends every buffered packet whose destination is now in the cache.
    fn flush(&mut self, ctx: &mut RouteCtx) {
        let mut out = Vec::new();
        let (cache, now) = (&self.cache, ctx.now);
        self.buffer.take_if(|p| cache.has(p.dst, now), &mut out);
        let own = out.len();
        self.salvage_buf.take_if(|p| cache.has(p.dst, now), &mut out);
        for (i, mut p) in out.into_iter().enumerate() {
            let path = if i < own {
                self.cache.find_for_use(p.dst, ctx.now).unwrap()
            } else {
                // Salvaged from the send buffer (no promotion: ns-2's
                // salvage lookup does not promote).
                self.stats.event("salvaged");
                p.sr.salvaged += 1;
                self.cache.find(p.dst, ctx.now).unwrap()
            };
            self.send_on(ctx, p, &path);
        }
        let done: Vec<NodeId> =
            self.discoveries.keys().copied().filter(|&d| self.cache.has(d, ctx.now)).collect();
        for d in done {
            self.discoveries.remove(&d);
        }
    }

    // ---- route discovery --------------------------------------------------

    fn discover(&mut self, ctx: &mut RouteCtx, target: NodeId) {
        if self.discoveries.contains_key(&target) {
            return;
        }
        self.stats.event("route_discoveries");
        if !self.cfg.request_backoff_persists {
            self.backoff.remove(&target);
        }
        if self.cfg.ring_zero {
            let gen = self.new_discovery(target, false);
            self.send_request(ctx, target, 1);
            ctx.timer(ctx.now + self.cfg.nonprop_timeout, RouteTimer::with(T_DISCOVERY, target, gen));
        } else {
            self.new_discovery(target, false);
            self.propagate(ctx, target, false);
        }
    }

    fn new_discovery(&mut self, target: NodeId, propagated: bool) -> u32 {
        let gen = self.next_gen;
        self.next_gen = (self.next_gen + 1) & GEN_MASK as u32;
        self.discoveries.insert(target, Discovery { gen, propagated });
        gen
    }

    /// The gap that must follow the `sent`-th propagating request
    /// (`request_period` × factor^sent, capped).
    fn gap(&self, sent: u32) -> Time {
        let f = (self.cfg.request_backoff_factor.max(1) as u64).saturating_pow(sent.min(30));
        Time::from_ns(self.cfg.request_period.as_ns().saturating_mul(f).min(self.cfg.request_backoff_max.as_ns()))
    }

    /// Sends a propagating request for `target` if its backoff allows it
    /// now (ns-2 BackOffTest), and sets the discovery timer for the next
    /// moment one is allowed.
    fn propagate(&mut self, ctx: &mut RouteCtx, target: NodeId, retry: bool) {
        let b = self.backoff.get(&target).copied().unwrap_or_default();
        let allowed = b.last.is_none_or(|l| l + self.gap(b.sent) <= ctx.now);
        let b = if allowed {
            if retry {
                self.stats.event("request_retries");
            }
            self.send_request(ctx, target, MAX_SR_LEN as u8);
            let b = Backoff { sent: (b.sent + 1).min(15), last: Some(ctx.now) };
            self.backoff.insert(target, b);
            b
        } else {
            self.stats.event("requests_held_by_backoff");
            b
        };
        let gen = self.new_discovery(target, true);
        let at = b.last.unwrap() + self.gap(b.sent);
        ctx.timer(at.max(ctx.now), RouteTimer::with(T_DISCOVERY, target, gen));
    }

    fn send_request(&mut self, ctx: &mut RouteCtx, target: NodeId, ttl: u8) {
        let id = self.next_request_id;
        self.next_request_id = self.next_request_id.wrapping_add(1);
        self.requests.insert(self.me, id);
        let last_error = if self.cfg.propagate_last_error { self.last_error } else { None };
        let record = SourceRoute::from_path(&[self.me]).unwrap();
        let mut p = self.control(ctx, BROADCAST, record, DsrMsg::Rreq { target, id, last_error });
        p.ttl = ttl;
        self.stats.event(if ttl == 1 { "requests_nonpropagating" } else { "requests_propagating" });
        // ns-2.35 dsragent.cc sendOutPacketWithRoute jitters every route
        // request, its own included, by up to RREQ_JITTER (10 ms); RFC 5148.
        self.emit_jittered(ctx, p);
    }

    fn discovery_timeout(&mut self, ctx: &mut RouteCtx, target: NodeId, gen: u32) {
        let Some(d) = self.discoveries.get(&target) else { return };
        if d.gen != gen {
            return;
        }
        // Without a send buffer (send_buffer = 0) no packet ever waits, so
        // the ring-0 request still escalates once to a propagating one:
        // otherwise a multi-hop route is never found (every packet would
        // start a new ring-0 discovery and be dropped).
        let unbuffered_first = self.cfg.send_buffer == 0 && !d.propagated;
        if !unbuffered_first && !self.buffer.has_packet_for(target) {
            self.discoveries.remove(&target);
            return;
        }
        if self.cache.has(target, ctx.now) {
            self.flush(ctx);
            return;
        }
        self.propagate(ctx, target, true);
    }

    fn on_request(&mut self, ctx: &mut RouteCtx, pkt: &Packet, target: NodeId, id: u32, last_error: Option<Link>) {
        let record = pkt.sr;
        let initiator = record.node(0);
        if initiator == self.me {
            return;
        }
        if let Some(l) = last_error {
            self.cache.remove_link(l.from, l.to);
        }
        if target == self.me || self.proxied.contains(&target) {
            // Reply along the reversed record (links are symmetric); every
            // copy that reaches the target is answered (ns-2 default). A
            // gateway answers for its wired-only hosts: the route ends with
            // the wired hop to the host.
            let mut route = record;
            route.cur = 0;
            route.salvaged = 0;
            if !route.push(self.me) || (target != self.me && !route.push(target)) {
                return;
            }
            let mut back = route.path();
            if target != self.me {
                back.pop();
            }
            back.reverse();
            self.cache.add_asked(&back, ctx.now);
            self.reply(ctx, initiator, route, &back, false);
            return;
        }
        if record.contains(self.me) || !self.requests.insert(initiator, id) {
            self.stats.event("requests_discarded");
            return;
        }
        if self.cfg.cache_replies {
            if let Some(tail) = self.cache.find(target, ctx.now) {
                let mut route = record.path();
                route.extend_from_slice(&tail);
                let loops = route.iter().enumerate().any(|(i, n)| route[i + 1..].contains(n));
                if !loops && route.len() <= MAX_SR_LEN {
                    let mut back = record.path();
                    back.push(self.me);
                    back.reverse();
                    if self.cache.is_mobi() {
                        // ns-2 replyFromRouteCache caches the reversed
                        // record (to the initiator) in its primary cache.
                        self.cache.add_asked(&back, ctx.now);
                    }
                    self.stats.event("replies_from_cache");
                    let route = SourceRoute::from_path(&route).unwrap();
                    self.reply(ctx, initiator, route, &back, true);
                    return;
                }
            }
        }
        if pkt.ttl <= 1 || record.len() >= MAX_SR_LEN {
            return;
        }
        let mut p = *pkt;
        p.sr.push(self.me);
        p.ttl -= 1;
        p.size += 4;
        p.prev_hop = self.me;
        p.next_hop = BROADCAST;
        self.emit_jittered(ctx, p);
    }

    fn reply(&mut self, ctx: &mut RouteCtx, initiator: NodeId, route: SourceRoute, back: &[NodeId], from_cache: bool) {
        let travel = SourceRoute::from_path(back).unwrap();
        let p = self.control(ctx, initiator, travel, DsrMsg::Rrep { route, from_cache });
        self.emit(ctx, p);
    }

    // ---- learning ---------------------------------------------------------

    /// Learns from a route overheard from its node at `t` (this node is not
    /// on it): this node, then the transmitter, then either direction.
    fn learn_overheard(&mut self, route: &SourceRoute, t: usize, now: Time) {
        if route.contains(self.me) {
            return;
        }
        let (nodes, n) = route_nodes(route);
        let path = &nodes[..n];
        // On the stack: this runs for every overheard source route.
        let mut fwd = [self.me; MAX_SR_LEN + 1];
        fwd[1..=n - t].copy_from_slice(&path[t..]);
        let mut back = [self.me; MAX_SR_LEN + 1];
        back[1..=t + 1].copy_from_slice(&path[..=t]);
        back[1..=t + 1].reverse();
        if self.cache.add_seen(&fwd[..=n - t], now) | self.cache.add_seen(&back[..=t + 1], now) {
            self.stats.event("routes_snooped");
        }
    }

    /// What [`Routing::on_overheard`] learns from a frame that carries its
    /// source route (not a flow-state one): ns-2's tap with the mobicache,
    /// else the route errors, the route ahead and behind the transmitter,
    /// and with `snoop_control` the routes of replies and errors.
    #[inline(never)]
    fn snoop_overheard(&mut self, ctx: &mut RouteCtx, pkt: &Packet) {
        if self.cache.is_mobi() {
            return self.tap_ns2(ctx, pkt);
        }
        match pkt.body {
            Body::Dsr(DsrMsg::Rerr { link, .. }) => {
                self.stats.event("route_errors_snooped");
                self.link_broken(link);
            }
            Body::Dsr(_) => {}
            _ => {
                let t = (pkt.sr.cur as usize).saturating_sub(1);
                if t < pkt.sr.len() && pkt.sr.node(t) == pkt.prev_hop {
                    self.learn_overheard(&pkt.sr, t, ctx.now);
                }
            }
        }
        let t = (pkt.sr.cur as usize).saturating_sub(1);
        let replies_errors = matches!(pkt.body, Body::Dsr(DsrMsg::Rrep { .. } | DsrMsg::Rerr { .. }));
        if self.cfg.snoop_control && replies_errors && t < pkt.sr.len() && pkt.sr.node(t) == pkt.prev_hop {
            self.notice_route_used(&pkt.sr.path(), t, ctx.now);
        }
    }

    /// ns-2.35 `DSRAgent::tap` with the mobicache: an overheard route
    /// error removes its link; an overheard reply whose route holds this
    /// node gives the part from it on; and every overheard source route
    /// (data or control) gives this node + the transmitter + the rest.
    fn tap_ns2(&mut self, ctx: &mut RouteCtx, pkt: &Packet) {
        match pkt.body {
            Body::Dsr(DsrMsg::Rerr { link, .. }) => {
                self.stats.event("route_errors_snooped");
                self.link_broken(link);
            }
            Body::Dsr(DsrMsg::Rrep { route, .. }) => {
                if let Some(c) = route.position(self.me) {
                    let path = route.path();
                    if self.cache.add_seen(&path[c..], ctx.now) {
                        self.stats.event("routes_snooped");
                    }
                }
            }
            Body::Dsr(DsrMsg::Rreq { .. }) => return,
            _ => {}
        }
        let t = (pkt.sr.cur as usize).saturating_sub(1);
        if t < pkt.sr.len() && pkt.sr.node(t) == pkt.prev_hop {
            let path = pkt.sr.path();
            self.notice_route_used(&path, t, ctx.now);
        }
    }

    /// ns-2.35 `tap` + `sendRouteShortening`: this node overheard a data
    /// packet sent to the node at `cur` of its route, but stands later on
    /// it, at `at`: the nodes between can be skipped. The source gets a
    /// gratuitous reply with the shorter route, along this node, the
    /// transmitter and back along the route (which this node caches).
    fn shorten(&mut self, ctx: &mut RouteCtx, sr: &SourceRoute, cur: usize, at: usize) {
        let same = |r: &SourceRoute| r.len == sr.len && r.hops == sr.hops;
        match self.grat_hold.iter_mut().find(|(r, _)| same(r)) {
            Some((_, t)) if *t + GRAT_HOLD_DOWN > ctx.now => return,
            Some((_, t)) => *t = ctx.now,
            None => {
                let e = (SourceRoute { cur: 0, salvaged: 0, flow: false, ..*sr }, ctx.now);
                if self.grat_hold.len() < GRAT_HOLD_SLOTS {
                    self.grat_hold.push(e);
                } else {
                    self.grat_hold[self.grat_victim] = e;
                    self.grat_victim = (self.grat_victim + 1) % GRAT_HOLD_SLOTS;
                }
            }
        }
        let path = sr.path();
        let mut short = path[..cur].to_vec();
        short.extend_from_slice(&path[at..]);
        let mut back = vec![self.me];
        back.extend(path[..cur].iter().rev());
        let (Some(route), true) = (SourceRoute::from_path(&short), back.len() >= 2) else { return };
        self.cache.add_asked(&back, ctx.now);
        self.stats.event("grat_replies_sent");
        self.reply(ctx, path[0], route, &back, false);
    }
}

impl Routing for Dsr {
    fn name(&self) -> &'static str {
        "dsr"
    }

    fn route_table(&self, now: Time, out: &mut Vec<super::RouteEntry>) {
        self.cache.routes(now, out);
    }

    /// A flow-state data forward (nothing learnt): `route`'s step, one copy.
    #[inline]
    fn route_ref(&mut self, ctx: &mut RouteCtx, pkt: &Packet, origin: Origin) {
        let Some(nh) = self.flow_hop(pkt, origin) else { return self.route(ctx, *pkt, origin) };
        let sr = SourceRoute { cur: pkt.sr.cur + 1, ..pkt.sr };
        ctx.transmit(Packet { sr, next_hop: nh, prev_hop: self.me, ..*pkt })
    }

    /// `route_ref` with a flow-state forward's step made in `pkt` itself,
    /// sent by the kernel (`simulation/routed.rs`): no copy, no work item.
    #[inline]
    fn route_hop(&mut self, ctx: &mut RouteCtx, pkt: &mut Packet, origin: Origin) -> Option<NodeId> {
        let hop = self.flow_hop(pkt, origin);
        match hop {
            Some(_) => (pkt.sr.cur, pkt.prev_hop) = (pkt.sr.cur + 1, self.me),
            None => self.route(ctx, *pkt, origin),
        }
        hop
    }

    fn route(&mut self, ctx: &mut RouteCtx, mut pkt: Packet, origin: Origin) {
        match origin {
            Origin::Local => {
                if pkt.dst == BROADCAST || pkt.dst == self.me {
                    pkt.next_hop = pkt.dst;
                    return ctx.transmit(pkt);
                }
                self.send_or_buffer(ctx, pkt)
            }
            Origin::Forward => {
                let i = pkt.sr.cur as usize;
                if pkt.sr.is_empty() || i + 1 >= pkt.sr.len() || pkt.sr.node(i) != self.me {
                    self.stats.event("bad_source_routes");
                    return ctx.drop(pkt, DropReason::Nrte);
                }
                match pkt.body {
                    Body::Dsr(DsrMsg::Rerr { link, .. }) => {
                        self.stats.count_received(MsgKind::Rerr.name(), pkt.size);
                        self.link_broken(link);
                    }
                    Body::Dsr(DsrMsg::Rrep { route, .. }) => {
                        self.stats.count_received(MsgKind::Rrep.name(), pkt.size);
                        if self.cache.is_mobi() {
                            // ns-2 learns the route the reply travels on
                            // (towards the initiator), not its content.
                        } else if let Some(j) = route.position(self.me) {
                            self.learn_through(&route, j, ctx.now);
                        }
                    }
                    Body::Dsr(_) => {}
                    _ if self.cache.is_mobi() || pkt.sr.flow => {}
                    _ => self.learn_through(&pkt.sr, i, ctx.now),
                }
                if self.cache.is_mobi() && self.cfg.snoop && !pkt.sr.flow {
                    // ns-2 handleForwarding: noticeRouteUsed on every
                    // forwarded source route (data, replies, errors), from
                    // this node on (`dsragent_snoop_source_routes`).
                    let path = pkt.sr.path();
                    self.notice_route_used(&path, i, ctx.now);
                }
                pkt.sr.cur += 1;
                pkt.next_hop = pkt.sr.node(i + 1);
                pkt.prev_hop = self.me;
                if let Body::Dsr(m) = &pkt.body {
                    self.stats.count_sent(m.kind().name(), pkt.size);
                }
                ctx.transmit(pkt);
            }
        }
    }

    fn on_link_failure(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        let nb = pkt.next_hop;
        self.stats.event("link_breaks");
        self.link_broken(Link { from: self.me, to: nb });
        self.last_error = Some(Link { from: self.me, to: nb });
        self.broken(ctx, pkt);
        // Packets queued for the same neighbour get the same treatment.
        ctx.reclaim(nb);
    }

    fn xmit_failure_callback(&self) -> bool {
        true
    }

    fn on_reclaimed(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        self.broken(ctx, pkt);
    }

    fn on_control(&mut self, ctx: &mut RouteCtx, pkt: &Packet) {
        let Body::Dsr(m) = pkt.body else { return };
        self.stats.count_received(m.kind().name(), pkt.size);
        match m {
            DsrMsg::Rreq { target, id, last_error } => self.on_request(ctx, pkt, target, id, last_error),
            DsrMsg::Rrep { route, from_cache } => {
                if route.node(0) == self.me {
                    if from_cache {
                        self.stats.event("cached_replies_received");
                    }
                    if self.cache.add_asked(&route.path(), ctx.now) {
                        self.stats.event("routes_learnt");
                    }
                    // A reply clears the target's request backoff (ns-2
                    // acceptRouteReply).
                    self.backoff.remove(&route.node(route.len() - 1));
                    self.flush(ctx);
                }
            }
            DsrMsg::Rerr { link, elfn } => {
                self.stats.event("route_errors_received");
                self.link_broken(link);
                self.last_error = Some(link);
                if let Some(n) = elfn.filter(|n| n.src == self.me) {
                    self.stats.event("elfn_notices_delivered");
                    ctx.notify(n);
                }
            }
        }
    }

    fn on_delivered(&mut self, ctx: &mut RouteCtx, pkt: &Packet) {
        if !self.cfg.learn_at_destination || pkt.sr.flow {
            // ns-2.35: the destination learns nothing from data packets.
            return;
        }
        if let Some(i) = pkt.sr.position(self.me) {
            self.learn_through(&pkt.sr, i, ctx.now);
            if !self.buffer.is_empty() {
                self.flush(ctx);
            }
        }
    }

    /// Runs for every frame a DSR node overhears (381 K calls on the 30-node
    /// benchmark, ~98 % of them flow-state packets that end after the
    /// gratuitous-reply check): that check scans the hops ahead in one pass
    /// over the 16-bit ids, and the rest is [`Dsr::snoop_overheard`], out of
    /// line, so that the common return saves and restores few registers
    /// (issue 25: ~100 instructions a call before).
    fn on_overheard(&mut self, ctx: &mut RouteCtx, pkt: &Packet) {
        if !self.cfg.snoop || pkt.sr.is_empty() {
            return;
        }
        if self.cfg.grat_replies && !pkt.is_control() && pkt.src != self.me {
            // ns-2 shortens from source-routed packets (tap) and, by its
            // flow tables, from flow-only ones (processFlowARS).
            let cur = pkt.sr.cur as usize;
            let hops = &pkt.sr.hops[..pkt.sr.len()];
            if cur >= 1 && cur < hops.len() && hops[cur] as NodeId != self.me {
                // The first later position of this node (as `node(i)` reads it).
                if let Some(k) = hops[cur + 1..].iter().position(|&h| h as NodeId == self.me) {
                    let sr = pkt.sr;
                    self.shorten(ctx, &sr, cur, cur + 1 + k);
                }
            }
        }
        if pkt.sr.flow {
            return;
        }
        self.snoop_overheard(ctx, pkt);
    }

    fn wants_overheard(&self) -> bool {
        self.cfg.snoop
    }

    fn set_proxied(&mut self, hosts: &[NodeId]) {
        self.proxied = hosts.to_vec();
    }

    fn on_timer(&mut self, ctx: &mut RouteCtx, t: RouteTimer) {
        match t.kind {
            T_SEND => {
                if let Some(p) = self.delayed.take(t.a as usize) {
                    self.emit(ctx, p);
                }
            }
            T_DISCOVERY => self.discovery_timeout(ctx, t.a, t.b),
            T_CHECK if self.check_at == Some(ctx.now) => self.buffer_check(ctx),
            T_BUFFER => {
                if self.buffer_timer != Some(ctx.now) {
                    return;
                }
                self.buffer_timer = None;
                let mut out = Vec::new();
                self.buffer.expire(ctx.now, &mut out);
                self.salvage_buf.expire(ctx.now, &mut out);
                for p in out {
                    self.stats.event("send_buffer_timeouts");
                    ctx.drop(p, DropReason::Nrte);
                }
                self.arm_buffer_timer(ctx);
            }
            _ => {}
        }
    }

    fn held(&self, f: &mut dyn FnMut(&Packet)) {
        for p in self.buffer.iter().chain(self.salvage_buf.iter()) {
            f(p);
        }
        for p in self.delayed.iter() {
            f(p);
        }
    }

    fn stats(&self) -> RoutingStats {
        self.stats.to_stats()
    }
}

#[cfg(test)]
mod tests;
