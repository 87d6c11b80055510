//! `rreq_timing = "ns2"`: when ns-2.35's AODV sends the next RREQ of a
//! discovery (issue 24), modelled from reading `aodv/aodv.cc` (not copied).
//!
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

use super::config::{RreqTiming, NS2_LATENCY_HISTORY, NS2_MAX_RREQ_TIMEOUT, NS2_POLL_INTERVAL};
use super::*;

/// A destination's last discovery latencies per hop (ns-2 `rt_disc_latency`,
/// `hist_indx`); zero = no sample.
#[derive(Clone, Debug, Default)]
pub(super) struct Latencies {
    per_hop: [Time; NS2_LATENCY_HISTORY],
    next: u8,
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
        let Some(l) = self.latencies.get(&dst) else { return self.cfg.node_traversal_time };
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
        let l = self.latencies.entry(dst).or_default();
        l.per_hop[l.next as usize] = per_hop;
        l.next = (l.next + 1) % NS2_LATENCY_HISTORY as u8;
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
