//! DSDV: Destination-Sequenced Distance-Vector routing (C. E. Perkins and
//! P. Bhagwat, "Highly Dynamic Destination-Sequenced Distance-Vector Routing
//! (DSDV) for Mobile Computers", SIGCOMM 1994).
//!
//! One [`Dsdv`] per node. Every node broadcasts its whole table (a *full
//! dump*) every `update_interval` (15 s), stamping its own entry with a new
//! even sequence number; a change of metric is broadcast earlier in an
//! *incremental* update holding the changed entries only. A route is
//! replaced by one with a newer sequence number, or the same number and a
//! smaller metric (paper §III.B). A broken link gives every route through
//! that neighbour the metric infinity and the next *odd* sequence number,
//! advertised at once (§III.D); only the destination issues even numbers,
//! so its next advertisement supersedes the break. Route damping (§III.C):
//! the time between the first arrival of a sequence number and the arrival
//! of its best route is averaged (the weighted settling time); a new metric
//! is advertised 2 x that time after its sequence number first arrived,
//! while packets use the new route at once.
//!
//! Where the paper leaves room, ns-2's and ns-3's choices are taken (read
//! for their semantics only): ns-3's constants (15 s, settling time 5 s,
//! weight 0.875, hold 3 periods, buffering of local packets while there is
//! no route: 500 packets, 30 s); ns-2's link breaking on MAC retry failure
//! (`mac_feedback`, ns-3 has none); a lost neighbour after 3 silent periods.
//!
//! Wire format (documented, as ns-3's): UDP port 269, the payload a list of
//! 12-byte entries: destination IPv4 address, hop count (32 bits), sequence
//! number (32 bits); infinity is hop count [`INFINITY`]. The sender's own
//! entry is in every update. A dump longer than one 1500-byte datagram is
//! split. Messages travel as bytes on the run's [`WireBoard`].

pub mod config;

pub use config::DsdvConfig;

use super::aodv::buffer::SendBuffer;
use super::{Origin, RouteCtx, RouteTimer, Routing, RoutingCounters, RoutingStats};
use crate::net::{Body, NodeId, Packet, BROADCAST, IP_HEADER_BYTES, UDP_HEADER_BYTES};
use crate::sim::DropReason;
use crate::sim::Time;
use crate::wire::board::{self as wire, RoutingMsg, WireBoard, WireRef};

/// ns-3's DSDV port.
pub const DSDV_PORT: u16 = 269;
/// Bytes per advertised route.
pub const ENTRY_BYTES: u32 = 12;
/// The metric of an unreachable destination.
pub const INFINITY: u8 = 255;
/// [`WireRef::kind`] of a full dump and of an incremental update.
pub const KIND_FULL: u8 = 0;
pub const KIND_INCREMENTAL: u8 = 1;
/// Entries per datagram (1500-byte IP MTU).
const MAX_ENTRIES: usize = ((1500 - IP_HEADER_BYTES - UDP_HEADER_BYTES) / ENTRY_BYTES) as usize;

const T_PERIODIC: u8 = 1;
const T_TRIGGER: u8 = 2;
const T_BUFFER: u8 = 3;
/// Jitter added to each periodic update (ns-3: up to 25 ms).
const PERIODIC_JITTER: Time = Time::from_ms(25);
/// Triggered updates wait up to this long, so changes learnt together go
/// out together (ns-3: up to 1 ms).
const TRIGGER_JITTER: Time = Time::from_ms(1);

/// The name of a message kind in reports.
pub fn kind_name(kind: u8) -> &'static str {
    if kind == KIND_FULL {
        "FULL"
    } else {
        "INCREMENTAL"
    }
}

/// One routing-table entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    pub next_hop: NodeId,
    /// Hops to the destination; [`INFINITY`] when broken.
    pub metric: u8,
    pub seq: u32,
    /// When `seq` was first heard.
    seq_at: Time,
    /// Weighted settling time, seconds.
    wst: f64,
    /// Waiting to be advertised in an incremental update, not before `adv_at`.
    pending: bool,
    adv_at: Time,
    /// When the route broke (metric infinity).
    broken_at: Time,
}

impl Route {
    pub fn is_valid(&self) -> bool {
        self.metric < INFINITY
    }
}

pub struct Dsdv {
    cfg: DsdvConfig,
    me: NodeId,
    seq: u32,
    board: WireBoard,
    routes: Vec<Option<Route>>,
    /// Last time each neighbour was heard.
    heard: Vec<Time>,
    pending: Vec<NodeId>,
    trigger_at: Option<Time>,
    buffer: SendBuffer,
    buffer_timer: bool,
    entries: Vec<(NodeId, u32, u32)>,
    out: Vec<(NodeId, u8, u32)>,
    stats: RoutingCounters,
}

impl Dsdv {
    pub fn new(me: NodeId, cfg: DsdvConfig, board: WireBoard) -> Dsdv {
        Dsdv {
            me,
            seq: 0,
            board,
            routes: Vec::new(),
            heard: Vec::new(),
            pending: Vec::new(),
            trigger_at: None,
            buffer: SendBuffer::new(cfg.buffer_size, cfg.buffer_timeout),
            buffer_timer: false,
            entries: Vec::new(),
            out: Vec::new(),
            stats: RoutingCounters::default(),
            cfg,
        }
    }

    /// This node's own (even) sequence number.
    pub fn own_seq(&self) -> u32 {
        self.seq
    }
    /// The table entry for `dst` (valid or broken).
    pub fn entry(&self, dst: NodeId) -> Option<&Route> {
        self.routes.get(dst as usize).and_then(Option::as_ref)
    }
    fn valid(&self, dst: NodeId) -> Option<&Route> {
        self.entry(dst).filter(|r| r.is_valid())
    }

    /// The neighbour a packet for `dst` goes to (`resolve_next_hop`: the
    /// next hop of the route to the route's next hop, as ns-3 does).
    fn next_hop(&self, dst: NodeId) -> Option<NodeId> {
        next_hop_in(&self.routes, self.cfg.resolve_next_hop, dst)
    }

    fn heard(&mut self, now: Time, n: NodeId) {
        if n == BROADCAST || n == self.me {
            return;
        }
        if self.heard.len() <= n as usize {
            self.heard.resize(n as usize + 1, Time::ZERO);
        }
        self.heard[n as usize] = now;
    }

    /// Queues `dst` for the next incremental update, not before `at`.
    fn mark(&mut self, ctx: &mut RouteCtx, dst: NodeId, at: Time) {
        let Some(r) = self.routes.get_mut(dst as usize).and_then(Option::as_mut) else { return };
        r.adv_at = if r.pending { r.adv_at.min(at) } else { at };
        if !r.pending {
            r.pending = true;
            self.pending.push(dst);
        }
        let at = r.adv_at.max(ctx.now);
        self.schedule_trigger(ctx, at);
    }

    fn schedule_trigger(&mut self, ctx: &mut RouteCtx, at: Time) {
        let at = at + super::delayed::jitter(ctx, TRIGGER_JITTER);
        if self.trigger_at.is_none_or(|t| at < t) {
            self.trigger_at = Some(at);
            ctx.timer(at, RouteTimer::of(T_TRIGGER));
        }
    }

    /// Broadcasts `self.out` (split into datagrams).
    fn send(&mut self, ctx: &mut RouteCtx, kind: u8) {
        for chunk in self.out.chunks(MAX_ENTRIES) {
            let r: WireRef = self.board.post(self.me, kind, |v| {
                for &(dst, metric, seq) in chunk {
                    v.extend_from_slice(&wire::ipv4(dst));
                    v.extend_from_slice(&(metric as u32).to_be_bytes());
                    v.extend_from_slice(&seq.to_be_bytes());
                }
            });
            let mut p = ctx.board_packet(BROADCAST, "DSDV", DSDV_PORT, r);
            p.next_hop = BROADCAST;
            p.ttl = 1;
            self.stats.count_sent(kind_name(kind), p.size);
            ctx.transmit(p);
        }
    }

    fn periodic(&mut self, ctx: &mut RouteCtx) {
        let now = ctx.now;
        let hold = self.cfg.hold_time();
        // Neighbours silent for the hold time are lost; routes broken for
        // as long are forgotten.
        for d in 0..self.routes.len() as NodeId {
            let Some(r) = self.routes[d as usize].as_ref() else { continue };
            if r.is_valid() && r.metric == 1 && r.next_hop == d {
                let last = self.heard.get(d as usize).copied().unwrap_or(Time::ZERO);
                if now.saturating_sub(last) > hold {
                    self.stats.event("neighbour_timeouts");
                    self.link_break(ctx, d);
                }
            } else if !r.is_valid() && !r.pending && now.saturating_sub(r.broken_at) > hold {
                self.routes[d as usize] = None;
            }
        }
        self.seq += 2;
        self.out.clear();
        self.out.push((self.me, 0, self.seq));
        for (d, r) in self.routes.iter_mut().enumerate() {
            if let Some(r) = r {
                r.pending = false;
                self.out.push((d as NodeId, r.metric, r.seq));
            }
        }
        self.pending.clear();
        self.send(ctx, KIND_FULL);
        let next = now + self.cfg.update_interval + super::delayed::jitter(ctx, PERIODIC_JITTER);
        ctx.timer(next, RouteTimer::of(T_PERIODIC));
    }

    fn trigger(&mut self, ctx: &mut RouteCtx) {
        let now = ctx.now;
        self.trigger_at = None;
        self.out.clear();
        self.out.push((self.me, 0, self.seq));
        let mut later: Option<Time> = None;
        let mut i = 0;
        while i < self.pending.len() {
            let d = self.pending[i];
            match self.routes.get_mut(d as usize).and_then(Option::as_mut) {
                Some(r) if r.pending && r.adv_at > now => {
                    later = Some(later.map_or(r.adv_at, |l: Time| l.min(r.adv_at)));
                    i += 1;
                    continue;
                }
                Some(r) if r.pending => {
                    r.pending = false;
                    self.out.push((d, r.metric, r.seq));
                }
                _ => {}
            }
            self.pending.swap_remove(i);
        }
        self.stats.event("triggered_updates");
        self.send(ctx, KIND_INCREMENTAL);
        if let Some(at) = later {
            self.schedule_trigger(ctx, at);
        }
    }

    /// The link to neighbour `n` is broken: every route through it gets
    /// metric infinity and the next odd sequence number (paper §III.D).
    fn link_break(&mut self, ctx: &mut RouteCtx, n: NodeId) {
        let now = ctx.now;
        self.stats.event("link_breaks");
        for d in 0..self.routes.len() as NodeId {
            let Some(r) = self.routes[d as usize].as_mut() else { continue };
            if r.is_valid() && r.next_hop == n {
                r.metric = INFINITY;
                r.seq |= 1;
                r.broken_at = now;
                self.mark(ctx, d, now);
            }
        }
        if let Some(h) = self.heard.get_mut(n as usize) {
            *h = Time::ZERO;
        }
        ctx.reclaim(n);
    }

    /// One advertised entry `(dst, metric, seq)` heard from neighbour `from`;
    /// true if it made `dst` reachable.
    fn learn(&mut self, ctx: &mut RouteCtx, from: NodeId, dst: NodeId, metric: u32, seq: u32) -> bool {
        let now = ctx.now;
        if dst == self.me {
            // Someone advertises this node as unreachable with a newer
            // number: answer with a still newer even one.
            if seq > self.seq {
                self.seq = (seq | 1) + 1;
                self.stats.event("own_seq_raised");
                self.schedule_trigger(ctx, now);
            }
            return false;
        }
        let nm = if metric >= INFINITY as u32 { INFINITY } else { (metric + 1).min(INFINITY as u32) as u8 };
        if self.routes.len() <= dst as usize {
            self.routes.resize(dst as usize + 1, None);
        }
        let settle0 = self.cfg.settling_time.as_secs_f64();
        let w = self.cfg.settling_weight;
        let Some(r) = self.routes[dst as usize].as_mut() else {
            if nm == INFINITY {
                return false;
            }
            self.routes[dst as usize] = Some(Route {
                next_hop: from,
                metric: nm,
                seq,
                seq_at: now,
                wst: settle0,
                pending: false,
                adv_at: now,
                broken_at: Time::ZERO,
            });
            self.mark(ctx, dst, now);
            return true;
        };
        let was_valid = r.is_valid();
        if seq > r.seq {
            if nm == INFINITY {
                if self.cfg.break_from_next_hop_only && from != r.next_hop {
                    // ns-3: a break heard from another neighbour is ignored.
                    return false;
                }
                r.seq = seq;
                if was_valid {
                    r.metric = INFINITY;
                    r.next_hop = from;
                    r.broken_at = now;
                    self.mark(ctx, dst, now);
                }
                return false;
            }
            let changed = !was_valid || nm != r.metric || from != r.next_hop;
            let same_metric = was_valid && nm == r.metric;
            r.seq = seq;
            r.seq_at = now;
            r.metric = nm;
            r.next_hop = from;
            if self.cfg.advertise_new_seq && same_metric {
                // ns-3: the new number (and next hop) goes out at once, undamped.
                self.mark(ctx, dst, now);
            } else if changed {
                // A route back from infinity is news; a new metric waits for
                // the settling time (damping).
                let at = if was_valid { now + Time::from_secs_f64(2.0 * r.wst) } else { now };
                self.mark(ctx, dst, at);
            }
            !was_valid
        } else if seq == r.seq && nm < r.metric {
            // A better route with the same sequence number: it settled this
            // long after the first one.
            let dt = now.saturating_sub(r.seq_at).as_secs_f64();
            r.wst = w * r.wst + (1.0 - w) * dt;
            r.metric = nm;
            r.next_hop = from;
            let at = if was_valid { (r.seq_at + Time::from_secs_f64(2.0 * r.wst)).max(now) } else { now };
            self.mark(ctx, dst, at);
            !was_valid
        } else {
            false
        }
    }

    fn buffer_packet(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        if let Some(old) = self.buffer.push(pkt, ctx.now) {
            ctx.drop(old, DropReason::Nrte);
        }
        if !self.buffer_timer {
            if let Some(d) = self.buffer.next_deadline() {
                self.buffer_timer = true;
                ctx.timer(d, RouteTimer::of(T_BUFFER));
            }
        }
    }

    /// Sends `pkt` on a route other than through `not_via`, buffers it if it
    /// is this node's own, or drops it.
    fn reroute(&mut self, ctx: &mut RouteCtx, mut pkt: Packet, why: DropReason) {
        if let Some(nh) = self.next_hop(pkt.dst) {
            pkt.next_hop = nh;
            return ctx.transmit(pkt);
        }
        if pkt.src == self.me && self.cfg.buffer_size > 0 {
            return self.buffer_packet(ctx, pkt);
        }
        ctx.drop(pkt, why);
    }

    fn flush_buffer(&mut self, ctx: &mut RouteCtx) {
        if self.buffer.is_empty() {
            return;
        }
        let mut out = Vec::new();
        let (routes, resolve) = (&self.routes, self.cfg.resolve_next_hop);
        self.buffer.take_if(|p| next_hop_in(routes, resolve, p.dst).is_some(), &mut out);
        for mut p in out {
            p.next_hop = self.next_hop(p.dst).expect("selected for its route");
            ctx.transmit(p);
        }
    }
}

/// [`Dsdv::next_hop`] on a route table.
fn next_hop_in(routes: &[Option<Route>], resolve: bool, dst: NodeId) -> Option<NodeId> {
    let valid = |d: NodeId| routes.get(d as usize).and_then(Option::as_ref).filter(|r| r.is_valid());
    let nh = valid(dst)?.next_hop;
    if !resolve {
        return Some(nh);
    }
    valid(nh).map(|r| r.next_hop)
}

impl Routing for Dsdv {
    fn name(&self) -> &'static str {
        "dsdv"
    }

    fn start(&mut self, ctx: &mut RouteCtx) {
        // Each node's dumps keep a random phase in the period.
        let phase = ctx.rng.range_f64(0.0, self.cfg.update_interval.as_secs_f64());
        ctx.timer(ctx.now + Time::from_secs_f64(phase), RouteTimer::of(T_PERIODIC));
    }

    fn route(&mut self, ctx: &mut RouteCtx, mut pkt: Packet, origin: Origin) {
        if origin == Origin::Forward {
            self.heard(ctx.now, pkt.prev_hop);
        }
        if pkt.dst == BROADCAST {
            pkt.next_hop = BROADCAST;
            return ctx.transmit(pkt);
        }
        if let Some(nh) = self.next_hop(pkt.dst) {
            pkt.next_hop = nh;
            return ctx.transmit(pkt);
        }
        if origin == Origin::Local && self.cfg.buffer_size > 0 {
            return self.buffer_packet(ctx, pkt);
        }
        ctx.drop(pkt, DropReason::Nrte);
    }

    fn on_link_failure(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        if !self.cfg.mac_feedback || pkt.next_hop == BROADCAST || pkt.is_control() {
            return ctx.drop(pkt, DropReason::Ret);
        }
        if self.valid(pkt.dst).is_some_and(|r| r.next_hop == pkt.next_hop) {
            self.link_break(ctx, pkt.next_hop);
        }
        self.reroute(ctx, pkt, DropReason::Cbk);
    }

    fn on_reclaimed(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        if pkt.is_control() {
            return ctx.drop(pkt, DropReason::Cbk);
        }
        self.reroute(ctx, pkt, DropReason::Cbk);
    }

    fn on_control(&mut self, ctx: &mut RouteCtx, pkt: &Packet) {
        let Body::Routing(RoutingMsg { wire: r, .. }) = pkt.body else { return };
        let from = pkt.prev_hop;
        self.heard(ctx.now, from);
        self.stats.count_received(kind_name(r.kind), pkt.size);
        let mut entries = std::mem::take(&mut self.entries);
        entries.clear();
        let ok = self.board.read(r, |b| {
            for e in b.chunks_exact(ENTRY_BYTES as usize) {
                entries.push((wire::addr_at(e, 0), wire::be_u32(e, 4), wire::be_u32(e, 8)));
            }
        });
        if ok.is_none() {
            self.stats.event("stale_messages");
        }
        let mut gained = false;
        for &(dst, metric, seq) in &entries {
            gained |= self.learn(ctx, from, dst, metric, seq);
        }
        self.entries = entries;
        if gained {
            self.flush_buffer(ctx);
        }
    }

    fn on_delivered(&mut self, ctx: &mut RouteCtx, pkt: &Packet) {
        self.heard(ctx.now, pkt.prev_hop);
    }

    fn on_timer(&mut self, ctx: &mut RouteCtx, timer: RouteTimer) {
        match timer.kind {
            T_PERIODIC => self.periodic(ctx),
            T_TRIGGER if self.trigger_at.is_some_and(|t| t <= ctx.now) => {
                self.trigger(ctx);
            }
            T_BUFFER => {
                self.buffer_timer = false;
                let mut out = Vec::new();
                self.buffer.expire(ctx.now, &mut out);
                for p in out {
                    ctx.drop(p, DropReason::Nrte);
                }
                if let Some(d) = self.buffer.next_deadline() {
                    self.buffer_timer = true;
                    ctx.timer(d, RouteTimer::of(T_BUFFER));
                }
            }
            _ => {}
        }
    }

    fn held(&self, f: &mut dyn FnMut(&Packet)) {
        self.buffer.iter().for_each(f);
    }

    fn stats(&self) -> RoutingStats {
        self.stats.to_stats()
    }
}

#[cfg(test)]
mod tests;
