//! DSR route maintenance (RFC 4728 §8.3, §8.4): what a node does when the
//! MAC gives up on a packet, as ns-2.35's `dsragent.cc` does it
//! (`xmitFailed`, `xmitFlowFailed`, `undeliverablePkt`).
//!
//! A flow-state packet (`SourceRoute::flow`, no source route on the air)
//! is handled exactly as a source-routed one: ns-2.35's
//! `xmitFlowFailed` refills the packet's source route from the relay's
//! flow table and calls `xmitFailed`, so the route error (and an ELFN
//! notice riding on it) goes to the flow's source at once. Here every
//! packet carries its route (flow state only hides it from learning), so
//! the same code serves both.

use super::{Backoff, Dsr, DsrMsg, Link, SourceRoute, T_CHECK};
use crate::net::routing::{RouteCtx, RouteTimer};
use crate::net::{LinkFailureNotice, NodeId, Packet};
use crate::sim::DropReason;
use crate::sim::Time;

impl Dsr {
    /// ns-2.35's `noticeRouteUsed` (mobicache): from a source route this
    /// node forwards, or overhears from its node at `t`, it learns only
    /// the part ahead: from itself if it is on the route, else itself +
    /// the transmitter + the rest (`routecache.cc` pre_noticeRouteUsed).
    /// Nothing behind the transmitter, nothing reversed.
    pub(super) fn notice_route_used(&mut self, path: &[NodeId], t: usize, now: Time) {
        let stub: Vec<NodeId> = match path.iter().position(|&n| n == self.me) {
            Some(0) => return, // own packet (ns-2's tap ignores them)
            Some(c) => path[c..].to_vec(),
            None => std::iter::once(self.me).chain(path[t..].iter().copied()).take(super::MAX_SR_LEN).collect(),
        };
        if self.cache.add_seen(&stub, now) {
            self.stats.event("routes_snooped");
        }
    }

    pub(super) fn link_broken(&mut self, link: Link) {
        if self.cache.remove_link(link.from, link.to) > 0 {
            self.stats.event("cache_links_removed");
        }
        // ns-2 FlowTable::noticeDeadLink: own flows over the link expire.
        self.flows.retain(|f| !f.route.hops[..f.route.len()].windows(2).any(|w| w == [link.from as u16, link.to as u16]));
    }

    /// Whether this node originated `pkt` (ns-2's `undeliverablePkt`
    /// compares the IP source with itself): its own packets, and those of
    /// the wired hosts it routes for as a gateway.
    fn originates(&self, pkt: &Packet) -> bool {
        pkt.src == self.me || self.proxied.contains(&pkt.src)
    }

    /// A packet that could not cross `self.me → pkt.next_hop`.
    pub(super) fn broken(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        let link = Link { from: self.me, to: pkt.next_hop };
        if pkt.is_control() {
            // Route replies and errors on a broken link are lost (ns-2 does
            // not salvage them either).
            return ctx.drop(pkt, DropReason::Cbk);
        }
        let me_at = (pkt.sr.cur as usize).saturating_sub(1);
        // With `salvage_requests` a packet salvaged here earlier (its route
        // starts here, its source is another node) is salvaged again, as
        // ns-2 does; otherwise this node treats it as its own.
        let own = me_at == 0 && (self.cfg.salvage_requests == 0 || self.originates(&pkt));
        if pkt.sr.is_empty() || own {
            // This node originated the source route: route it again. No
            // route error goes to oneself (ns-2's `xmitFailed`), so no ELFN
            // notice either: the packet is rerouted, not lost.
            self.stats.event("rerouted_by_source");
            return self.send_or_buffer(ctx, pkt);
        }
        let notify = pkt.sr.node(0);
        if self.errors_now.0 != ctx.now {
            self.errors_now = (ctx.now, Vec::new());
        }
        if me_at > 0 && !self.errors_now.1.contains(&(link, notify)) {
            self.errors_now.1.push((link, notify));
            let mut back: Vec<NodeId> = pkt.sr.path()[..=me_at].to_vec();
            back.reverse();
            let travel = SourceRoute::from_path(&back).unwrap();
            // ELFN rides on the error when it goes to the segment's source
            // (not to a node that salvaged the packet).
            let elfn = LinkFailureNotice::for_packet(&pkt).filter(|n| n.src == notify);
            if elfn.is_some() {
                self.stats.event("elfn_notices_sent");
            }
            if pkt.sr.flow {
                self.stats.event("flow_errors_sent");
            }
            let p = self.control(ctx, notify, travel, DsrMsg::Rerr { link, elfn });
            self.emit(ctx, p);
        }
        if self.cfg.salvage && pkt.sr.salvaged < self.cfg.max_salvage {
            if let Some(path) = self.cache.find(pkt.dst, ctx.now) {
                self.stats.event("salvaged");
                let mut p = pkt;
                p.sr.salvaged += 1;
                return self.send_on(ctx, p, &path);
            }
            if self.cfg.salvage_requests > 0 {
                return self.salvage_later(ctx, pkt);
            }
        }
        self.stats.event("salvage_failed");
        ctx.drop(pkt, DropReason::Cbk);
    }

    /// ns-2.35 `NEW_SALVAGE_LOGIC` (`undeliverablePkt`): a relay with no
    /// cached route for a packet it cannot forward keeps it in its send
    /// buffer (`stickPacketInSendBuffer`); the buffer check then looks for
    /// a route for it.
    fn salvage_later(&mut self, ctx: &mut RouteCtx, mut pkt: Packet) {
        pkt.size -= pkt.sr.header_bytes();
        pkt.sr = SourceRoute { salvaged: pkt.sr.salvaged, ..SourceRoute::EMPTY };
        if let Some(old) = self.salvage_buf.push(pkt, ctx.now) {
            self.stats.event("send_buffer_overflows");
            ctx.drop(old, DropReason::Nrte);
        }
        self.stats.event("salvage_buffered");
        self.arm_buffer_timer(ctx);
        self.arm_check(ctx);
    }

    /// ns-2.35's send buffer check (`sendBufferCheck`, every `BUFFER_CHECK`
    /// 30 ms + U(0, 30 ms)), run while packets wait to be salvaged or, with
    /// `buffer_check`, while own packets wait: packets with a route in the
    /// cache go (however it was learnt: a reply, a snooped route, a
    /// gratuitous reply). Then, for each packet of another source still
    /// waiting, in buffer order, `getRouteForPacket`: when its target's
    /// request backoff (the entry shared with this node's own discoveries,
    /// `BackOffTest`) allows a request, the count goes up, and past
    /// `salvage_requests` that packet is dropped (NRTE, ns-2
    /// `DROP_RTR_NO_ROUTE`), else one non-propagating request goes (no
    /// propagating one: `dsr_salvage_allow_propagating` = 0). Own packets
    /// keep their discovery's schedule (`discover`).
    pub(super) fn buffer_check(&mut self, ctx: &mut RouteCtx) {
        self.check_at = None;
        self.flush(ctx);
        let waiting: Vec<(u64, NodeId)> = self.salvage_buf.iter().map(|p| (p.uid, p.dst)).collect();
        let (mut refused, mut ask) = (Vec::new(), Vec::new());
        for (uid, dst) in waiting {
            let b = self.backoff.get(&dst).copied().unwrap_or_default();
            if b.last.is_some_and(|l| l + self.gap(b.sent) > ctx.now) {
                continue;
            }
            let sent = (b.sent + 1).min(15);
            self.backoff.insert(dst, Backoff { sent, last: Some(ctx.now) });
            if sent > self.cfg.salvage_requests {
                refused.push(uid);
            } else {
                ask.push(dst);
            }
        }
        if !refused.is_empty() {
            let mut out = Vec::new();
            self.salvage_buf.take_if(|p| refused.contains(&p.uid), &mut out);
            for p in out {
                self.stats.event("salvage_failed");
                ctx.drop(p, DropReason::Nrte);
            }
        }
        for dst in ask {
            self.stats.event("salvage_requests");
            self.send_request(ctx, dst, 1);
        }
        self.arm_check(ctx);
    }

    /// Arms the buffer check if packets wait for it and it is not armed.
    pub(super) fn arm_check(&mut self, ctx: &mut RouteCtx) {
        let waiting = !self.salvage_buf.is_empty() || (self.cfg.buffer_check && !self.buffer.is_empty());
        if self.check_at.is_some() || !waiting {
            return;
        }
        let at = ctx.now + BUFFER_CHECK + Time::from_secs_f64(ctx.rng.range_f64(0.0, BUFFER_CHECK.as_secs_f64()));
        self.check_at = Some(at);
        ctx.timer(at, RouteTimer::of(T_CHECK));
    }
}

/// ns-2 `dsragent.h` `BUFFER_CHECK`.
const BUFFER_CHECK: Time = Time::from_ms(30);
