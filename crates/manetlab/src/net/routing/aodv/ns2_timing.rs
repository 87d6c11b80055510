//! `rreq_timing = "ns2"`: when ns-2.35's AODV sends the next RREQ of a
//! discovery, and with which TTL (issue 24), modelled from reading
//! `aodv/aodv.cc` and `aodv/aodv_rtable.cc` (not copied).
//!
//! - TTL (`sendRequest`, session 9): base = max(`rt_req_last_ttl`,
//!   `rt_last_hop_count`); TTL_START if the base is 0, base +
//!   TTL_INCREMENT below TTL_THRESHOLD, else NETWORK_DIAMETER (a
//!   network-wide request, counted for the retries and the wait).
//!   `rt_last_hop_count` is INFINITY2 until the route first goes down
//!   (`rt_down` sets it to the hop count then), so the base is never 0:
//!   the first request for a destination, and a relay's first local
//!   repair, flood the whole network at once. `rt_req_last_ttl` is the TTL
//!   last used, or the hop count of the reply (`recvReply`, at every node
//!   the reply updates) or of the destination's own request (`recvRequest`
//!   while a discovery for it is pending). RFC 3561 §6.4 starts every ring
//!   at TTL_START, or at the last known hop count + TTL_INCREMENT.
//! - `sendRequest`: a RREQ is refused while `rt_req_timeout` lies in the
//!   future. After each RREQ that timeout is set to
//!   2 × TTL × `PerHopTime(rt)`, multiplied by the number of network-wide
//!   RREQs so far once there has been one, and capped at MAX_RREQ_TIMEOUT
//!   (10 s).
//! - `PerHopTime`: the mean of the non-zero entries of the route entry's
//!   `rt_disc_latency` history (MAX_HISTORY = 3), or NODE_TRAVERSAL_TIME
//!   when there is none. `recvReply` adds (now − the RREQ's timestamp) /
//!   hop count whenever a RREP for this node's own request updates the
//!   route. On a 3-hop chain a discovery takes a few milliseconds, so the
//!   next RREQ may go 20-40 ms after a lost one, where RFC 3561's
//!   RING_TRAVERSAL_TIME waits 560 ms (TTL 5, 40 ms per node).
//! - There is no retry timer: `sendRequest` is called by `rt_resolve` for
//!   every packet the node originates for the destination, by
//!   `local_rt_repair`, and by `rt_purge`, which the `RouteCacheTimer`
//!   runs every 0.5 s (from time 0) for every route that is not up and has
//!   packets waiting. So once the wait is over the next RREQ goes out with
//!   the next originated packet, or at the next multiple of 0.5 s while
//!   packets wait (also forwarded packets held by a repair).
//!
//! manetlab keeps its discovery timer for the wait (one event per RREQ, as
//! in RFC mode) and, when it fires, arms one poll at the next multiple of
//! 0.5 s instead of ns-2's periodic timer; the poll asks again if packets
//! wait, else the discovery stays idle until a packet arrives. The
//! latency is measured from the last RREQ the node sent (ns-2 carries the
//! answered RREQ's timestamp in the RREP; they differ only when a reply to
//! an earlier RREQ arrives after a later one was sent).

use super::config::{RreqTiming, NS2_INFINITY, NS2_LATENCY_HISTORY, NS2_MAX_RREQ_TIMEOUT, NS2_POLL_INTERVAL};
use super::*;

/// What ns-2.35 keeps in a destination's route entry for `sendRequest`:
/// the last discovery latencies per hop (`rt_disc_latency`, `hist_indx`;
/// zero = no sample), the TTL to grow the next request from
/// (`rt_req_last_ttl`) and the hop count the route had when it last went
/// down (`rt_last_hop_count`, [`NS2_INFINITY`] until it first does).
#[derive(Clone, Debug)]
pub(super) struct Ns2Route {
    per_hop: [Time; NS2_LATENCY_HISTORY],
    next: u8,
    last_ttl: u8,
    last_hops: u8,
}

impl Default for Ns2Route {
    fn default() -> Ns2Route {
        Ns2Route { per_hop: [Time::ZERO; NS2_LATENCY_HISTORY], next: 0, last_ttl: 0, last_hops: NS2_INFINITY }
    }
}

/// What a discovery (with `rreq_timing = "ns2"`) waits for.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) enum Wait {
    /// A RREP: the timer is the RREQ's wait.
    #[default]
    Reply,
    /// The wait is over; the timer is the next 0.5 s poll.
    Poll,
    /// The wait is over and no packet waited at the last poll: no timer;
    /// the next packet for the destination asks again.
    Idle,
}

impl Aodv {
    pub(super) fn ns2_timing(&self) -> bool {
        self.cfg.rreq_timing == RreqTiming::Ns2
    }

    /// `PerHopTime`: the mean recorded per-hop latency, else NODE_TRAVERSAL_TIME.
    fn ns2_per_hop_time(&self, dst: NodeId) -> Time {
        let Some(l) = self.ns2_routes.get(&dst) else { return self.cfg.node_traversal_time };
        let (n, sum) = l.per_hop.iter().filter(|t| **t > Time::ZERO).fold((0u64, 0u64), |(n, s), t| (n + 1, s + t.as_ns()));
        sum.checked_div(n).map_or(self.cfg.node_traversal_time, Time::from_ns)
    }

    /// `sendRequest`'s wait after a RREQ with `ttl`, the `wide`-th at
    /// NET_DIAMETER (0 for a ring): 2 × ttl × PerHopTime × max(1, wide), ≤ 10 s.
    pub(super) fn ns2_rreq_wait(&self, dst: NodeId, ttl: u8, wide: u32) -> Time {
        let w = self.ns2_per_hop_time(dst) * (2 * ttl as u64 * wide.max(1) as u64);
        w.min(NS2_MAX_RREQ_TIMEOUT)
    }

    /// `recvReply` at the request's originator: one more latency sample.
    pub(super) fn ns2_record_latency(&mut self, dst: NodeId, sent_at: Time, now: Time, hops: u8) {
        if !self.ns2_timing() || hops == 0 {
            return;
        }
        let per_hop = Time::from_ns(now.saturating_sub(sent_at).as_ns() / hops as u64);
        let l = self.ns2_routes.entry(dst).or_default();
        l.per_hop[l.next as usize] = per_hop;
        l.next = (l.next + 1) % NS2_LATENCY_HISTORY as u8;
    }

    /// `sendRequest`'s TTL for the next RREQ to `dst`: grow from the larger
    /// of the last TTL (or reply hop count) and the hop count the route had
    /// when it last went down: TTL_START from 0, + TTL_INCREMENT below
    /// TTL_THRESHOLD, else NET_DIAMETER. A destination whose route never
    /// went down counts as INFINITY2 hops away, so its first request (and a
    /// relay's first repair) floods the network: no expanding ring.
    pub(super) fn ns2_rreq_ttl(&self, dst: NodeId) -> u8 {
        let c = &self.cfg;
        let (last_ttl, last_hops) = self.ns2_routes.get(&dst).map_or((0, NS2_INFINITY), |r| (r.last_ttl, r.last_hops));
        match last_ttl.max(last_hops) {
            0 => c.ttl_start,
            b if b < c.ttl_threshold => (b as u32 + c.ttl_increment as u32).min(c.net_diameter as u32) as u8,
            _ => c.net_diameter,
        }
    }

    /// `sendRequest` remembers the TTL it used; `recvReply` (any node whose
    /// route the reply updates) and `recvRequest` (a pending discovery for
    /// the originator) set it to the hop count heard.
    pub(super) fn ns2_set_last_ttl(&mut self, dst: NodeId, ttl: u8) {
        if self.ns2_timing() {
            self.ns2_routes.entry(dst).or_default().last_ttl = ttl;
        }
    }

    /// `rt_down`: the route to `dst` (valid or under repair) goes down;
    /// remember its hop count. Call before invalidating it.
    pub(super) fn ns2_route_down(&mut self, dst: NodeId) {
        if !self.ns2_timing() {
            return;
        }
        if let Some(r) = self.table.get(dst).filter(|r| r.state != RouteState::Invalid) {
            let hops = r.hops;
            self.ns2_routes.entry(dst).or_default().last_hops = hops;
        }
    }

    /// The discovery timer fired (not deferred, not holding off, no route
    /// yet): may the next RREQ go out now? If not, the poll or the next
    /// packet will ask again.
    pub(super) fn ns2_may_ask(&mut self, ctx: &mut RouteCtx, dst: NodeId) -> bool {
        let waiting = self.buffer.has_packet_for(dst);
        let Some(d) = self.discoveries.get_mut(&dst) else { return false };
        match d.wait {
            Wait::Reply => {
                d.wait = Wait::Poll;
                self.ns2_arm_poll(ctx, dst);
                false
            }
            Wait::Poll | Wait::Idle if waiting => {
                d.wait = Wait::Reply;
                true
            }
            Wait::Poll | Wait::Idle => {
                d.wait = Wait::Idle;
                false
            }
        }
    }

    /// The next `rt_purge` instant: the smallest multiple of 0.5 s not before now.
    fn ns2_arm_poll(&mut self, ctx: &mut RouteCtx, dst: NodeId) {
        let p = NS2_POLL_INTERVAL.as_ns();
        let at = Time::from_ns(ctx.now.as_ns().div_ceil(p) * p);
        self.arm_discovery_timer(ctx, dst, at);
    }

    /// A packet for `dst` was just buffered while its discovery waits: a
    /// packet this node originated asks again at once (`rt_resolve`); a
    /// forwarded one (held by a repair) at the next poll.
    pub(super) fn ns2_packet_buffered(&mut self, ctx: &mut RouteCtx, dst: NodeId, local: bool) {
        if !self.ns2_timing() {
            return;
        }
        let Some(d) = self.discoveries.get_mut(&dst) else { return };
        if d.holdoff || d.deferred || d.wait == Wait::Reply {
            return;
        }
        if local {
            let gen = d.gen;
            self.discovery_timer(ctx, dst, gen);
        } else if d.wait == Wait::Idle {
            d.wait = Wait::Poll;
            self.ns2_arm_poll(ctx, dst);
        }
    }

    /// Quirk 2's hold-off is over and packets wait: with ns-2 timing the
    /// next RREQ (at NET_DIAMETER) waits for a trigger like any other.
    pub(super) fn ns2_after_holdoff(&mut self, ctx: &mut RouteCtx, dst: NodeId) {
        if let Some(d) = self.discoveries.get_mut(&dst) {
            d.wait = Wait::Poll;
        }
        self.ns2_arm_poll(ctx, dst);
    }
}
