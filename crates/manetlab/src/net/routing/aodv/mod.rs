//! AODV: Ad hoc On-Demand Distance Vector routing (RFC 3561).
//!
//! One [`Aodv`] per node. The files follow the RFC's concepts:
//! - `packet.rs`: RREQ, RREP (and HELLO, a RREP), RERR with wire sizes (§5);
//! - `table.rs`: the routing table and sequence-number rules (§6.1, §6.2),
//!   and the neighbour list for HELLO link detection (§6.9), in one map;
//! - `rreq_cache.rs`: duplicate RREQ detection (§6.5);
//! - `buffer.rs`: packets awaiting a route (§6.3);
//! - `config.rs`: parameters and derived values (§10).
//!
//! This file is the protocol: route discovery with an expanding ring and
//! binary exponential backoff (§6.3, §6.4), RREQ processing and RREP
//! generation by the destination and by intermediate nodes (§6.5, §6.6),
//! RREP forwarding (§6.7), HELLOs (§6.9), link breaks and RERRs (§6.11),
//! local repair (§6.12). `docs/aodv.md` describes the model and its limits.
//!
//! Messages travel hop by hop: a RREP or unicast RERR is addressed (IP and
//! MAC) to the neighbour that must process it, which re-sends it to the
//! next one (keeping the packet uid, so traces follow one message).

pub mod buffer;
pub mod config;
mod discovery;
mod ns2_quirks;
mod ns2_timing;
pub use crate::wire::aodv as packet;
pub mod rreq_cache;
mod slots;
pub mod table;
#[cfg(test)]
mod table_reference;

pub use config::{AodvConfig, LinkDetection, RreqTiming};
pub use packet::{AodvMsg, MsgKind, Rerr, RerrElfn, Rrep, Rreq};

use super::{MsgCount, Origin, RouteCtx, RouteTimer, Routing, RoutingCounters, RoutingStats};
use crate::net::{Body, LinkFailureNotice, NodeId, Packet, BROADCAST};
use crate::sim::DropReason;
use crate::sim::Time;
use buffer::SendBuffer;
use rreq_cache::RreqCache;
use std::collections::{BTreeMap, VecDeque};
use table::{seq_at_least, seq_newer, Offer, RouteState, RouteTable};

// Timer kinds (`RouteTimer::kind`); arguments in `a` and `b`.
const T_HELLO: u8 = 1;
const T_NEIGHBOURS: u8 = 2;
/// a = destination, b = generation (24 bits)
const T_DISCOVERY: u8 = 3;
/// a = slot of the delayed packet
const T_SEND: u8 = 4;
const T_BUFFER: u8 = 5;
const T_PURGE: u8 = 6;
/// a = destination (ns-2.35 repair give-up timer, `ns2_quirks`)
const T_REPAIR_DEADLINE: u8 = 7;
const GEN_MASK: u64 = 0xFF_FFFF;

/// Housekeeping period: expired routes are purged.
const PURGE_INTERVAL: Time = Time::from_secs(1);
const ONE_SECOND: Time = Time::from_secs(1);
/// Every `MsgKind`, in discriminant order (`Aodv::received`).
const MSG_KINDS: [MsgKind; 4] = [MsgKind::Rreq, MsgKind::Rrep, MsgKind::Rerr, MsgKind::Hello];


/// A route discovery in progress (§6.3, §6.4), or a local repair (§6.12).
#[derive(Clone, Debug)]
struct Discovery {
    /// TTL of the last (or next, if deferred) RREQ.
    ttl: u8,
    /// RREQs sent at TTL = NET_DIAMETER so far.
    at_max: u32,
    /// Generation of the pending timer (stale timers are ignored).
    gen: u32,
    /// Held back by the RREQ rate limit; the timer sends it.
    deferred: bool,
    /// Local repair: the route's hop count before the break.
    repair: Option<u8>,
    /// `ns2_quirks`: retries ran out; no RREQ until the timer fires.
    holdoff: bool,
    /// `rreq_timing = "ns2"`: what the discovery waits for.
    wait: ns2_timing::Wait,
    /// When the last RREQ was sent (its discovery latency, ns-2 timing).
    sent_at: Time,
}

impl Discovery {
    fn new(ttl: u8, repair: Option<u8>) -> Discovery {
        Discovery {
            ttl,
            at_max: 0,
            gen: 0,
            deferred: false,
            repair,
            holdoff: false,
            wait: ns2_timing::Wait::Reply,
            sent_at: Time::ZERO,
        }
    }
}

/// What detected a link break.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Cause {
    Hello,
    Mac,
}

/// `repr(C, align(64))`: the fields read or written for (nearly) every
/// packet heard come first, in the box's first five cache lines (the route
/// table and neighbour list, the received-message counters, the RREQ
/// cache, the configuration's first fields), then the send buffer (whose
/// length a HELLO checks); the rest follows. At 1,000-2,000 nodes the time per packet heard is
/// cache misses on this per-node state (docs/performance.md, "Fifth
/// sitting"; `tests::hot_fields_lead_the_box` checks the offsets).
#[repr(C, align(64))]
pub struct Aodv {
    table: RouteTable,
    me: NodeId,
    neighbour_timer: bool,
    buffer_timer: bool,
    /// Duplicate RREQs heard (the event `rreq_duplicates`, counted here,
    /// not in `stats`: half the packets heard at 1,000 nodes).
    rreq_duplicates: u64,
    /// Control messages received, by `MsgKind` (`stats` gets them at the
    /// end, as `count_received` would have counted them).
    received: [MsgCount; MSG_KINDS.len()],
    cache: RreqCache,
    cfg: AodvConfig,
    buffer: SendBuffer,
    /// This node's own sequence number.
    seq: u32,
    rreq_id: u32,
    discoveries: BTreeMap<NodeId, Discovery>,
    /// ns-2.35's per-destination request state (`rreq_timing = "ns2"`).
    ns2_routes: BTreeMap<NodeId, ns2_timing::Ns2Route>,
    next_gen: u32,
    /// When this node originated its recent RREQs / sent its recent RERRs.
    rreq_times: VecDeque<Time>,
    rerr_times: VecDeque<Time>,
    /// Control packets waiting out their jitter.
    delayed: super::delayed::Parked,
    last_broadcast: Option<Time>,
    next_hello: Time,
    stats: RoutingCounters,
    /// Wired-only hosts this node answers RREQs for (gateway).
    proxied: Vec<NodeId>,
}

impl Aodv {
    pub fn new(me: NodeId, cfg: AodvConfig) -> Aodv {
        Aodv {
            me,
            rreq_duplicates: 0,
            received: [MsgCount::default(); MSG_KINDS.len()],
            seq: 0,
            rreq_id: 0,
            table: RouteTable::new(cfg.delete_period(), cfg.neighbour_timeout()),
            cache: RreqCache::new(cfg.path_discovery_time()),
            buffer: SendBuffer::new(cfg.buffer_size, cfg.buffer_timeout),
            buffer_timer: false,
            discoveries: BTreeMap::new(),
            ns2_routes: BTreeMap::new(),
            next_gen: 0,
            neighbour_timer: false,
            rreq_times: VecDeque::new(),
            rerr_times: VecDeque::new(),
            delayed: Default::default(),
            last_broadcast: None,
            next_hello: Time::ZERO,
            stats: RoutingCounters::default(),
            proxied: Vec::new(),
            cfg,
        }
    }

    pub fn config(&self) -> &AodvConfig {
        &self.cfg
    }
    /// The routing table (read-only, for tests and inspection).
    pub fn table(&self) -> &RouteTable {
        &self.table
    }
    /// This node's own sequence number.
    pub fn own_seq(&self) -> u32 {
        self.seq
    }
    /// Whether a route discovery (or local repair) for `dst` is under way.
    pub fn discovering(&self, dst: NodeId) -> bool {
        self.discoveries.contains_key(&dst)
    }
    /// Packets waiting for a route.
    pub fn buffered(&self) -> usize {
        self.buffer.len()
    }

    // ---- sending ----------------------------------------------------------

    /// Hands a control packet to the interface queue now, counting it.
    fn emit(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        if let Body::Aodv(m) = &pkt.body {
            self.stats.count_sent(m.kind().name(), pkt.size);
            // Other broadcasts stand in for a HELLO (§6.9); HELLOs themselves
            // keep their own schedule.
            if pkt.next_hop == BROADCAST && m.kind() != MsgKind::Hello {
                self.last_broadcast = Some(ctx.now);
            }
        }
        ctx.transmit(pkt);
    }

    /// Sends a broadcast after a uniform jitter in [0, cfg.jitter].
    fn emit_jittered(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        if let Some(now) = self.delayed.send_later(ctx, pkt, self.cfg.jitter, |slot| RouteTimer::with(T_SEND, slot, 0)) {
            self.emit(ctx, now);
        }
    }

    fn new_msg(&self, ctx: &mut RouteCtx, to: NodeId, msg: AodvMsg, ttl: u8) -> Packet {
        let mut p = ctx.new_packet(to, msg.l4_bytes(), Body::Aodv(msg));
        p.ttl = ttl;
        p
    }

    /// Re-sends a received message to the next node (same uid).
    fn relay(&self, pkt: &Packet, to: NodeId, msg: AodvMsg, ttl: u8) -> Packet {
        let mut p = *pkt;
        p.src = self.me;
        p.dst = to;
        p.next_hop = to;
        p.prev_hop = self.me;
        p.ttl = ttl;
        p.size = crate::net::IP_HEADER_BYTES + msg.l4_bytes();
        p.body = Body::Aodv(msg);
        p
    }

    /// Counts a send against a per-second rate limit; false if over it.
    fn within_rate(times: &mut VecDeque<Time>, limit: u32, now: Time) -> bool {
        while times.front().is_some_and(|&t| t + ONE_SECOND <= now) {
            times.pop_front();
        }
        if times.len() >= limit as usize {
            return false;
        }
        times.push_back(now);
        true
    }

    /// Sends RERRs for `dests` (destination, sequence number) to
    /// `recipients`: unicast to a single one, broadcast otherwise (§6.11).
    fn send_rerr(&mut self, ctx: &mut RouteCtx, dests: &[(NodeId, u32)], recipients: &[NodeId], no_delete: bool) {
        if dests.is_empty() || recipients.is_empty() {
            return;
        }
        for chunk in dests.chunks(packet::RERR_MAX_DESTS) {
            if !Self::within_rate(&mut self.rerr_times, self.cfg.rerr_ratelimit, ctx.now) {
                self.stats.event("rerr_rate_limited");
                continue;
            }
            let mut e = Rerr::new(no_delete);
            for &(d, s) in chunk {
                e.push(d, s);
            }
            if recipients.len() == 1 {
                let p = self.new_msg(ctx, recipients[0], AodvMsg::Rerr(e), 1);
                self.emit(ctx, p);
            } else {
                let p = self.new_msg(ctx, BROADCAST, AodvMsg::Rerr(e), 1);
                self.emit_jittered(ctx, p);
            }
        }
    }

    /// Sends a RERR for `dst` carrying an ELFN notice to `recipients`
    /// (unicast to one, broadcast otherwise; same rate limit as RERRs).
    fn send_rerr_elfn(&mut self, ctx: &mut RouteCtx, dst: (NodeId, u32), recipients: &[NodeId], n: LinkFailureNotice) {
        if recipients.is_empty() {
            return;
        }
        if !Self::within_rate(&mut self.rerr_times, self.cfg.rerr_ratelimit, ctx.now) {
            self.stats.event("rerr_rate_limited");
            return;
        }
        let msg = AodvMsg::RerrElfn(RerrElfn { no_delete: false, dst: dst.0, seq: dst.1, notice: n });
        if recipients.len() == 1 {
            let p = self.new_msg(ctx, recipients[0], msg, 1);
            self.emit(ctx, p);
        } else {
            let p = self.new_msg(ctx, BROADCAST, msg, 1);
            self.emit_jittered(ctx, p);
        }
    }

    // ---- routes in use ------------------------------------------------------

    /// A data packet goes out over `next_hop`: the routes to its source,
    /// destination, next hop and previous hop stay up (§6.2).
    fn use_route(&mut self, now: Time, pkt: &Packet, next_hop: NodeId) {
        let until = now + self.cfg.active_route_timeout;
        self.table.refresh(pkt.dst, until, now);
        self.refresh_others(now, until, pkt, next_hop);
    }

    /// The active route's next hop, the packet not copied (`route_ref`
    /// sends it there, the kernel sends it from where it lies after
    /// `route_hop`); the rest goes to `route_unrouted`.
    #[inline(always)]
    fn active_hop(&mut self, ctx: &mut RouteCtx, pkt: &Packet, origin: Origin) -> Option<NodeId> {
        let now = ctx.now;
        if origin == Origin::Forward {
            self.heard(ctx, pkt.prev_hop);
        }
        // `active` then `use_route`, with the destination's entry found once.
        if pkt.dst != BROADCAST {
            let until = now + self.cfg.active_route_timeout;
            if let Some(nh) = self.table.use_active(pkt.dst, until, now) {
                self.refresh_others(now, until, pkt, nh);
                return Some(nh);
            }
        }
        self.route_unrouted(ctx, pkt, origin);
        None
    }

    /// `use_route` after the destination's route was refreshed: the next
    /// hop's, source's and previous hop's. A refresh with the same `until`
    /// and `now` as one already done on the same entry changes nothing
    /// (the lifetime is then at least `until`), so each key is refreshed
    /// once: on the last hop (next hop = destination) and the first
    /// (previous hop = source) that is one probe instead of two.
    #[inline(always)]
    fn refresh_others(&mut self, now: Time, until: Time, pkt: &Packet, next_hop: NodeId) {
        if next_hop != pkt.dst {
            self.table.refresh(next_hop, until, now);
        }
        if pkt.src != self.me {
            if pkt.src != pkt.dst && pkt.src != next_hop {
                self.table.refresh(pkt.src, until, now);
            }
            let p = pkt.prev_hop;
            if p != pkt.dst && p != next_hop && p != pkt.src {
                self.table.refresh(p, until, now);
            }
        }
    }


    /// Sends every buffered packet that now has an active route.
    fn flush_buffer(&mut self, ctx: &mut RouteCtx) {
        if self.buffer.is_empty() {
            return;
        }
        let now = ctx.now;
        let mut ready = Vec::new();
        let table = &self.table;
        self.buffer.take_if(|p| table.active(p.dst, now).is_some(), &mut ready);
        for mut p in ready {
            let nh = self.table.active(p.dst, now).map(|r| r.next_hop).unwrap();
            self.use_route(now, &p, nh);
            p.next_hop = nh;
            ctx.transmit(p);
        }
    }

    fn buffer_packet(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        if let Some(old) = self.buffer.push(pkt, ctx.now) {
            self.stats.event("buffer_overflows");
            ctx.drop(old, DropReason::Nrte);
        }
        if !self.buffer_timer {
            if let Some(d) = self.buffer.next_deadline() {
                self.buffer_timer = true;
                ctx.timer(d, RouteTimer::of(T_BUFFER));
            }
        }
    }

    fn drop_buffered_for(&mut self, ctx: &mut RouteCtx, dst: NodeId) {
        let mut gone = Vec::new();
        self.buffer.take_if(|p| p.dst == dst, &mut gone);
        for p in gone {
            ctx.drop(p, DropReason::Nrte);
        }
    }

    /// Some packet was received from neighbour `nb`.
    fn heard(&mut self, ctx: &mut RouteCtx, nb: NodeId) {
        if !self.cfg.link_detection.uses_hello() || nb == self.me || nb == BROADCAST {
            return;
        }
        self.table.heard(nb, ctx.now);
        if !self.neighbour_timer {
            self.neighbour_timer = true;
            ctx.timer(ctx.now + self.cfg.neighbour_timeout(), RouteTimer::of(T_NEIGHBOURS));
        }
    }

    fn recv_rerr(&mut self, ctx: &mut RouteCtx, pkt: &Packet, e: Rerr) {
        let (dests, recipients) = self.apply_rerr(ctx, pkt, &e);
        self.send_rerr(ctx, &dests, &recipients, e.no_delete);
    }

    /// A RERR with an ELFN notice: processed as a RERR for its destination;
    /// the notice goes up to TCP here if this node is the segment's source,
    /// else it travels on with the relayed RERR.
    fn recv_rerr_elfn(&mut self, ctx: &mut RouteCtx, pkt: &Packet, e: RerrElfn) {
        let mut r = Rerr::new(e.no_delete);
        r.push(e.dst, e.seq);
        let (dests, recipients) = self.apply_rerr(ctx, pkt, &r);
        if e.notice.src == self.me {
            self.stats.event("elfn_notices_delivered");
            ctx.notify(e.notice);
        } else if let Some(&d) = dests.first() {
            self.send_rerr_elfn(ctx, d, &recipients, e.notice);
        }
    }

    /// Invalidates the routes a RERR from `pkt.prev_hop` reports; returns the
    /// destinations to report further and the precursors to tell (§6.11).
    fn apply_rerr(&mut self, ctx: &mut RouteCtx, pkt: &Packet, e: &Rerr) -> (Vec<(NodeId, u32)>, Vec<NodeId>) {
        let now = ctx.now;
        let from = pkt.prev_hop;
        let mut dests = Vec::new();
        let mut recipients: Vec<NodeId> = Vec::new();
        for &(d, s) in e.dests() {
            let Some(r) = self.table.get(d) else { continue };
            if !(r.is_active(now) && r.next_hop == from) {
                continue;
            }
            let (seq, pre) = if e.no_delete {
                (s, self.table.precursors(d).to_vec())
            } else {
                self.stats.event("route_invalidations");
                self.ns2_route_down(d);
                self.table.invalidate(d, Some(s), now).unwrap()
            };
            if !pre.is_empty() {
                dests.push((d, seq));
                for p in pre {
                    if !recipients.contains(&p) {
                        recipients.push(p);
                    }
                }
            }
        }
        (dests, recipients)
    }

    // ---- link breaks (§6.11) and local repair (§6.12) ----------------------

    /// The link to `nb` is gone: routes through it are invalidated and their
    /// precursors told; packets queued for `nb` come back. `failed` is the
    /// packet whose transmission failed (MAC detection).
    fn link_break(&mut self, ctx: &mut RouteCtx, nb: NodeId, cause: Cause, failed: Option<Packet>) {
        let now = ctx.now;
        self.table.remove_neighbour(nb);
        // (`precursor`: whether `remove_precursor` below has anything to
        // remove; nothing in between adds a precursor)
        let (dests, precursor) = self.table.active_via_and_precursor(nb, now);
        let repair = failed.filter(|p| {
            self.cfg.local_repair
                && !p.is_control()
                && p.src != self.me
                && dests.contains(&p.dst)
                && self.table.get(p.dst).is_some_and(|r| r.hops <= self.cfg.max_repair_ttl())
                && (!self.cfg.ns2_quirks || self.ns2_repairs_here(p))
        });
        if let (true, Some(p)) = (self.cfg.ns2_quirks, repair) {
            // ns-2.35 `rt_ll_failed` returns right after `local_rt_repair`:
            // the neighbour stays, other routes through it stay up (no
            // RERR), and packets queued for it are not taken back.
            self.stats.event("link_breaks_mac");
            return self.start_repair(ctx, p);
        }
        // A break of a route in use: one leading beyond the neighbour, or
        // the neighbour's own route if others were told to use it.
        let in_use = dests.iter().any(|&d| d != nb)
            || self.table.active(nb, now).is_some() && !self.table.precursors(nb).is_empty();
        if in_use {
            self.stats.event(match cause {
                Cause::Hello => "link_breaks_hello",
                Cause::Mac => "link_breaks_mac",
            });
        }
        // ELFN: the failed segment's source hears of the break through the
        // RERR for its destination (none when this node is the source: as
        // with DSR, route errors are not sent to oneself).
        let notice = failed.and_then(|p| LinkFailureNotice::for_packet(&p)).filter(|_| repair.is_none());
        let mut elfn_rerr = None;
        let mut unreachable = Vec::new();
        let mut recipients: Vec<NodeId> = Vec::new();
        for d in dests {
            if repair.is_some_and(|p| p.dst == d) {
                continue;
            }
            self.stats.event("route_invalidations");
            self.ns2_route_down(d);
            let (seq, pre) = self.table.invalidate(d, None, now).unwrap();
            let pre: Vec<NodeId> = pre.into_iter().filter(|&p| p != nb).collect();
            if let Some(n) = notice.filter(|n| n.dst == d && n.src != self.me && !pre.is_empty()) {
                elfn_rerr = Some(((d, seq), pre, n));
                continue;
            }
            if !pre.is_empty() {
                unreachable.push((d, seq));
                for p in pre {
                    if !recipients.contains(&p) {
                        recipients.push(p);
                    }
                }
            }
        }
        if precursor {
            self.table.remove_precursor(nb);
        }
        self.send_rerr(ctx, &unreachable, &recipients, false);
        if let Some((d, pre, n)) = elfn_rerr {
            self.stats.event("elfn_notices_sent");
            self.send_rerr_elfn(ctx, d, &pre, n);
        }
        ctx.reclaim(nb);
        match (repair, failed) {
            (Some(p), _) => self.start_repair(ctx, p),
            (None, Some(p)) => ctx.drop(p, DropReason::Cbk),
            (None, None) => {}
        }
    }

    fn start_repair(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        let dst = pkt.dst;
        let old_hops = self.table.get(dst).map_or(1, |r| r.hops);
        let to_src = self.table.get(pkt.src).map_or(0, |r| r.hops);
        let ttl = if self.ns2_timing() {
            // ns-2.35 `local_rt_repair` asks with `sendRequest`'s TTL.
            self.ns2_rreq_ttl(dst)
        } else {
            ((old_hops.max(to_src / 2) as u32 + config::LOCAL_ADD_TTL as u32).min(self.cfg.net_diameter as u32)) as u8
        };
        let wait = if self.ns2_timing() { self.ns2_rreq_wait(dst, ttl, 0) } else { self.cfg.ring_traversal_time(ttl) };
        self.table.start_repair(dst, ctx.now + wait, !self.cfg.ns2_quirks);
        self.stats.event("local_repairs");
        self.buffer_packet(ctx, pkt);
        self.discoveries.insert(dst, Discovery::new(ttl, Some(old_hops)));
        self.send_rreq(ctx, dst);
        if self.cfg.ns2_quirks {
            self.ns2_arm_repair_deadline(ctx, dst, wait);
        }
    }

    fn repair_failed(&mut self, ctx: &mut RouteCtx, dst: NodeId) {
        self.discoveries.remove(&dst);
        self.stats.event("local_repair_failures");
        self.stats.event("route_invalidations");
        let seq = self.table.get(dst).map(|r| r.seq);
        self.ns2_route_down(dst);
        if let Some((seq, pre)) = self.table.invalidate(dst, seq, ctx.now) {
            self.send_rerr(ctx, &[(dst, seq)], &pre, false);
        }
        self.drop_buffered_for(ctx, dst);
    }

    fn send_hello(&mut self, ctx: &mut RouteCtx) {
        let ms = (self.cfg.hello_lifetime().as_ns() / 1_000_000).min(u32::MAX as u64) as u32;
        let p = self.new_msg(ctx, BROADCAST, AodvMsg::hello(self.me, self.seq, ms), 1);
        self.emit_jittered(ctx, p);
    }
}

impl Routing for Aodv {
    fn name(&self) -> &'static str {
        "aodv"
    }

    fn route_table(&self, now: Time, out: &mut Vec<super::RouteEntry>) {
        out.extend(self.table.iter().map(|r| super::RouteEntry {
            dst: r.dst,
            next_hop: r.next_hop,
            hops: Some(r.hops as u32),
            valid: r.is_active(now),
            seq: r.valid_seq.then_some(r.seq),
        }));
    }

    fn start(&mut self, ctx: &mut RouteCtx) {
        if self.cfg.link_detection.uses_hello() {
            // Each node's HELLOs keep a random phase in the interval.
            let phase = ctx.rng.range_f64(0.0, self.cfg.hello_interval.as_secs_f64());
            self.next_hello = ctx.now + Time::from_secs_f64(phase);
            ctx.timer(self.next_hello, RouteTimer::of(T_HELLO));
        }
        ctx.timer(ctx.now + PURGE_INTERVAL, RouteTimer::of(T_PURGE));
    }

    fn route(&mut self, ctx: &mut RouteCtx, pkt: Packet, origin: Origin) {
        self.route_ref(ctx, &pkt, origin)
    }

    /// `route` with the packet copied only when it is sent or kept.
    fn route_ref(&mut self, ctx: &mut RouteCtx, pkt: &Packet, origin: Origin) {
        if let Some(nh) = self.active_hop(ctx, pkt, origin) {
            ctx.transmit(Packet { next_hop: nh, ..*pkt });
        }
    }

    /// `active_hop`: `pkt` is never changed.
    #[inline]
    fn route_hop(&mut self, ctx: &mut RouteCtx, pkt: &mut Packet, origin: Origin) -> Option<NodeId> {
        self.active_hop(ctx, pkt, origin)
    }


    fn on_link_failure(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        if !self.cfg.link_detection.uses_mac() || pkt.next_hop == BROADCAST {
            return ctx.drop(pkt, DropReason::Ret);
        }
        self.link_break(ctx, pkt.next_hop, Cause::Mac, Some(pkt));
    }

    fn prefetch_heard(&self, from: NodeId, pkt: Option<&Packet>) {
        // The box's hot lines after the first (the received counters, the
        // RREQ cache's header, the configuration's first fields:
        // `tests::hot_fields_lead_the_box`), by address: no load waits.
        let at = self as *const Aodv as *const u8;
        for line in 1..5 {
            slots::prefetch_line(at.wrapping_add(64 * line));
        }
        // Every packet heard looks up its previous hop's entry (`heard`):
        // one cache miss per packet at 400 nodes (docs/performance.md,
        // "Session 13 (branch s13big)"); a RREQ, most of what is heard
        // there, also its (originator, id) in the RREQ cache (session 18).
        self.table.prefetch(from);
        if let Some(Packet { body: Body::Aodv(AodvMsg::Rreq(q)), .. }) = pkt {
            self.cache.prefetch(q.orig, q.id);
        }
    }

    fn xmit_failure_callback(&self) -> bool {
        // Without link-layer detection a MAC failure only drops the packet
        // (RET), traced by that drop.
        self.cfg.link_detection.uses_mac()
    }

    fn on_reclaimed(&mut self, ctx: &mut RouteCtx, mut pkt: Packet) {
        if pkt.is_control() {
            return ctx.drop(pkt, DropReason::Cbk);
        }
        let now = ctx.now;
        if let Some(nh) = self.table.active(pkt.dst, now).map(|r| r.next_hop) {
            if nh != pkt.next_hop {
                pkt.next_hop = nh;
                return ctx.transmit(pkt);
            }
        }
        if self.table.get(pkt.dst).is_some_and(|r| r.state == RouteState::Repairing) {
            return self.buffer_packet(ctx, pkt);
        }
        ctx.drop(pkt, DropReason::Cbk);
    }

    fn on_control(&mut self, ctx: &mut RouteCtx, pkt: &Packet) {
        let Body::Aodv(msg) = pkt.body else { return };
        let kind = msg.kind();
        self.received[kind as usize].add(pkt.size);
        self.heard(ctx, pkt.prev_hop);
        match msg {
            AodvMsg::Rreq(q) => self.recv_rreq(ctx, pkt, q),
            AodvMsg::Rrep(r) if kind == MsgKind::Hello => self.recv_hello(ctx, r),
            AodvMsg::Rrep(r) => self.recv_rrep(ctx, pkt, r),
            AodvMsg::Rerr(e) => self.recv_rerr(ctx, pkt, e),
            AodvMsg::RerrElfn(e) => self.recv_rerr_elfn(ctx, pkt, e),
        }
    }

    fn on_delivered(&mut self, ctx: &mut RouteCtx, pkt: &Packet) {
        let now = ctx.now;
        self.heard(ctx, pkt.prev_hop);
        let until = now + self.cfg.active_route_timeout;
        self.table.refresh(pkt.src, until, now);
        // (a second refresh of the same entry changes nothing)
        if pkt.prev_hop != pkt.src {
            self.table.refresh(pkt.prev_hop, until, now);
        }
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
            T_HELLO => {
                self.next_hello += self.cfg.hello_interval;
                ctx.timer(self.next_hello, RouteTimer::of(T_HELLO));
                // §6.9: only if nothing was broadcast within the last interval.
                let recent = self.last_broadcast.is_some_and(|t| t + self.cfg.hello_interval > ctx.now);
                if !recent {
                    self.send_hello(ctx);
                }
            }
            T_NEIGHBOURS => {
                self.neighbour_timer = false;
                for nb in self.table.take_lost(ctx.now) {
                    self.stats.event("neighbours_lost");
                    self.link_break(ctx, nb, Cause::Hello, None);
                }
                if let Some(at) = self.table.next_expiry() {
                    self.neighbour_timer = true;
                    ctx.timer(at, RouteTimer::of(T_NEIGHBOURS));
                }
            }
            T_DISCOVERY => {
                self.discovery_timer(ctx, t.a, t.b);
            }
            T_REPAIR_DEADLINE => self.ns2_repair_deadline(ctx, t.a),
            T_BUFFER => {
                self.buffer_timer = false;
                let mut gone = Vec::new();
                self.buffer.expire(ctx.now, &mut gone);
                for p in gone {
                    self.stats.event("buffer_timeouts");
                    ctx.drop(p, DropReason::Nrte);
                }
                if let Some(d) = self.buffer.next_deadline() {
                    self.buffer_timer = true;
                    ctx.timer(d, RouteTimer::of(T_BUFFER));
                }
            }
            T_PURGE => {
                // (the RREQ cache forgets its keys by their own times)
                self.table.purge(ctx.now);
                ctx.timer(ctx.now + PURGE_INTERVAL, RouteTimer::of(T_PURGE));
            }
            _ => {}
        }
    }

    fn held(&self, f: &mut dyn FnMut(&Packet)) {
        self.buffer.iter().for_each(&mut *f);
        // Jittered broadcasts waiting for their timer.
        self.delayed.iter().for_each(f);
    }

    fn stats(&self) -> RoutingStats {
        let mut c = self.stats.clone();
        for (kind, n) in MSG_KINDS.iter().zip(&self.received) {
            if n.packets > 0 {
                c.add_received(kind.name(), *n);
            }
        }
        if self.rreq_duplicates > 0 {
            c.add_event("rreq_duplicates", self.rreq_duplicates);
        }
        c.to_stats()
    }
}

#[cfg(test)]
mod tests;
