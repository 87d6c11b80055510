//! `[routing] ns2_quirks = true`: three behaviours of ns-2.35's
//! `aodv/aodv.cc` that are not RFC 3561 (issue 24, item 3), modelled from
//! reading that file. Off by default: manetlab's AODV follows the RFC; the
//! ns-2 comparison runs (`scripts/ns2/compare_profiles.py`) turn it on.
//!
//! 1. `recvReply` (~862) updates a route only for a newer sequence number,
//!    or an equal one with *fewer* hops than the entry's. `local_rt_repair`
//!    neither increments the sequence number nor clears the hop count, so a
//!    relay repairing a route rejects the equal-sequence RREP of a
//!    neighbour that still has the old route (on a chain: the next node,
//!    whose reply is exactly as long) and does not forward it. Only the
//!    destination's own reply (newer sequence number) repairs the route,
//!    and it comes only once the neighbours' cached routes have expired.
//! 2. `sendRequest` (~1093-1101): after RREQ_RETRIES network-wide requests
//!    the node drops every packet buffered for the destination and sends no
//!    request for MAX_RREQ_TIMEOUT = 10 s (packets arriving meanwhile are
//!    buffered). A repair is not given up at its first timeout: `rt_purge`
//!    keeps asking for the buffered packets, so it goes through the same
//!    retries and hold-offs.
//! 3. `local_rt_repair` (~399) schedules its give-up timer with
//!    `rt_req_timeout`, an absolute time, as the delay: it fires at
//!    2 × (start time) + wait, and then brings the route down if it is still
//!    under repair (`LocalRepairTimer::handle`, no RERR is sent).
//!
//! 4. `recvRequest`: the destination answers every RREQ with a new
//!    sequence number, one above the larger of its own and the request's
//!    (ns-2 rounds it up to the next even number; its odd numbers mark
//!    invalidated routes), where RFC 3561 §6.6.1 takes the larger of the
//!    two. So the destination's reply always repairs routes that quirk 1
//!    holds at an equal sequence number, and relays whose route to the
//!    destination is still up forward it instead of discarding it as no
//!    better than theirs.
//!
//! Also `rt_ll_failed`: local repair only when the break is closer to the
//! destination than to the source (`num_forwards > rt_hops`), and when it
//! repairs, nothing else happens: the neighbour is not forgotten, other
//! routes through it stay up (no RERR), packets queued for it stay queued.

use super::config::NS2_MAX_RREQ_TIMEOUT;
use super::*;

impl Aodv {
    /// `rt_ll_failed`: repair only if this node is farther from the
    /// packet's source than from its destination.
    pub(super) fn ns2_repairs_here(&self, p: &Packet) -> bool {
        let to_src = self.table.get(p.src).map_or(0, |r| r.hops);
        let to_dst = self.table.get(p.dst).map_or(u8::MAX, |r| r.hops);
        to_src > to_dst
    }

    /// Quirk 1: a route under repair takes an equal-sequence RREP only if
    /// it is strictly shorter than the route before the break.
    pub(super) fn ns2_rejects_rrep(&mut self, r: &Rrep, hops: u8) -> bool {
        if !self.cfg.ns2_quirks {
            return false;
        }
        let reject = self.table.get(r.dst).is_some_and(|e| {
            e.state == RouteState::Repairing && e.valid_seq && e.seq == r.dst_seq && hops >= e.hops
        });
        if reject {
            self.stats.event("ns2_rrep_rejected_in_repair");
        }
        reject
    }

    /// Quirk 4: the destination's sequence number for its RREP.
    pub(super) fn ns2_seq_for_reply(&mut self, q: &Rreq) {
        if !q.unknown_seq && seq_newer(q.dst_seq, self.seq) {
            self.seq = q.dst_seq;
        }
        self.seq = self.seq.wrapping_add(1);
    }

    /// Quirk 2: retries ran out: drop what waits for `dst`, keep the
    /// discovery (new packets wait without a new RREQ) for 10 s.
    pub(super) fn ns2_holdoff(&mut self, ctx: &mut RouteCtx, dst: NodeId) {
        self.stats.event("route_discovery_failures");
        self.stats.event("ns2_rreq_holdoffs");
        self.drop_buffered_for(ctx, dst);
        if let Some(d) = self.discoveries.get_mut(&dst) {
            d.holdoff = true;
            d.at_max = 0;
        }
        self.arm_discovery_timer(ctx, dst, ctx.now + NS2_MAX_RREQ_TIMEOUT);
    }

    /// The 10 s are over: ask again if packets wait (the TTL stays at
    /// NET_DIAMETER, as ns-2's `rt_req_last_ttl` does), else stop.
    pub(super) fn ns2_holdoff_over(&mut self, ctx: &mut RouteCtx, dst: NodeId) {
        let waiting = self.buffer.has_packet_for(dst);
        if !waiting || self.table.active(dst, ctx.now).is_some() {
            self.discoveries.remove(&dst);
            return self.flush_buffer(ctx);
        }
        if let Some(d) = self.discoveries.get_mut(&dst) {
            d.holdoff = false;
            d.ttl = self.cfg.net_diameter;
        }
        if self.ns2_timing() {
            return self.ns2_after_holdoff(ctx, dst);
        }
        self.send_rreq(ctx, dst);
    }

    /// Quirk 3: the give-up timer of a repair started now, whose first
    /// RREQ waits `wait`, is due at now + (now + wait).
    pub(super) fn ns2_arm_repair_deadline(&mut self, ctx: &mut RouteCtx, dst: NodeId, wait: Time) {
        let at = ctx.now + ctx.now + wait;
        ctx.timer(at, RouteTimer::with(T_REPAIR_DEADLINE, dst, 0));
    }

    /// The give-up timer: a route still under repair goes down (no RERR);
    /// packets waiting for it ask for a route again (`rt_purge`).
    pub(super) fn ns2_repair_deadline(&mut self, ctx: &mut RouteCtx, dst: NodeId) {
        if !self.table.get(dst).is_some_and(|r| r.state == RouteState::Repairing) {
            return;
        }
        self.stats.event("ns2_repair_deadlines");
        self.stats.event("local_repair_failures");
        self.discoveries.remove(&dst);
        let seq = self.table.get(dst).map(|r| r.seq);
        self.ns2_route_down(dst);
        self.table.invalidate(dst, seq, ctx.now);
        if self.buffer.has_packet_for(dst) {
            self.start_discovery(ctx, dst);
        }
    }
}
