//! A packet routed to one next hop and sent from where it lies (session 24).
//!
//! Routing answers a packet on an active route with one `Transmit` of a
//! copy of it (`ctx.transmit`): the 160-B packet copied into `net_out`, a
//! work item pushed, the drain's loop, dispatch and `net_item`, then
//! `transmit_in_place`. `Routing::route_hop` returns that next hop instead
//! (AODV's active route; DSR's flow-state forward, session 25; other
//! protocols route as before), and where the
//! `Transmit` would have been the next work item carried out, the kernel
//! sends the packet at once, from the endpoint's action (a CBR datagram:
//! not copied above the queue) or from a copy on the stack (a forwarded packet,
//! read in the MAC's action vector, which the MAC writes to).
//!
//! The order of everything is kept: a new work item is carried out after
//! those already in the list, so the packet goes at once only when no
//! other item follows it: the MAC's `Deliver` being the last item (the
//! DATA frame's ACK timer is queued before it), and a sender's datagram
//! followed only by its own next timer, which is armed first here, as the
//! drain would have armed it between the routing and the `Transmit`.

use super::{Event, Simulation, Work};
use crate::mac::dcf::MacAction;
use crate::metrics::trace::{Action, Layer};
use crate::metrics::DropReason;
use crate::net::routing::{NetAction, Origin, RouteCtx};
use crate::net::{NodeId, Packet};
use crate::transport::{EndpointAction, EndpointTimer};

impl Simulation {
    /// An endpoint's timer (`handle`). A datagram followed by the
    /// endpoint's next timer (a UDP sender's departure: 5 % of the 2-hop's
    /// events), routed over the radio, goes to `send_then_arm`; anything
    /// else to the work list, as `with_endpoint` leaves it.
    #[inline(always)]
    pub(super) fn endpoint_timer(&mut self, node: NodeId, idx: u16, timer: EndpointTimer) {
        self.with_endpoint(node, idx, |ep, ctx| ep.on_timer(ctx, timer));
        if let [EndpointAction::Send(ref p), EndpointAction::Timer { at, timer }] = self.ep_out[..] {
            // `endpoint_item`'s test for `send_in_place`.
            if self.bp.is_none() && self.wired.next_hop(node, p.dst).is_none() && tests::at_once() {
                self.send_then_arm(node, idx, at, timer);
            }
        }
    }

    /// What the drain does with the work list `[Send, Timer]` of endpoint
    /// `idx` (the event's only work): `send_in_place`, the timer armed,
    /// then routing's actions; a `Transmit` to the next hop `route_hop`
    /// named is carried out from the endpoint's action (lent out: sending
    /// a packet writes to no endpoint's vector).
    #[inline(never)]
    fn send_then_arm(&mut self, node: NodeId, idx: u16, at: crate::sim::Time, timer: EndpointTimer) {
        assert!(self.work.len() == 2 && self.net_out.is_empty() && self.mac_out.is_empty());
        self.work.clear();
        let now = self.queue.now();
        let EndpointAction::Send(pkt) = &mut self.ep_out[0] else { unreachable!("a Send action") };
        self.obs.packet(now, node, Layer::Agent, Action::Send, pkt, None);
        let n = &mut self.nodes[node as usize];
        n.net.originated += 1;
        let mut ctx =
            RouteCtx { now, node, out: &mut self.net_out, rng: &mut n.routing_rng, uids: &mut self.obs.metrics.fate };
        let hop = n.routing.route_hop(&mut ctx, pkt, Origin::Local);
        let hop = Self::alone_or_pushed(&mut self.net_out, self.queued[1], hop, pkt);
        self.routing_done(node, true);
        self.queue.schedule(at, Event::Endpoint { node, idx, timer });
        if let Some(nh) = hop {
            let mut out = std::mem::take(&mut self.ep_out);
            let EndpointAction::Send(pkt) = &mut out[0] else { unreachable!("a Send action") };
            pkt.next_hop = nh;
            self.transmit_routed(node, pkt);
            assert!(self.ep_out.is_empty());
            self.ep_out = out;
        }
        self.ep_out.clear();
        self.queued[2] = 0;
    }

    /// `route_hop`'s next hop `hop` for `pkt` when routing pushed no action
    /// (`out` still `queued` long): the `Transmit` is then routing's only
    /// answer. Otherwise the `Transmit` `route_ref` would have pushed after
    /// the others is pushed, and `None`.
    #[inline(always)]
    fn alone_or_pushed(out: &mut Vec<NetAction>, queued: usize, hop: Option<NodeId>, pkt: &Packet) -> Option<NodeId> {
        let nh = hop?;
        if out.len() == queued {
            return Some(nh);
        }
        out.push(NetAction::Transmit(Packet { next_hop: nh, ..*pkt }));
        None
    }

    /// Routing's `Transmit` of `pkt`, carried out now: `net_item`'s two
    /// arms (`transmit_in_place` or `net_transmit`).
    #[inline(always)]
    fn transmit_routed(&mut self, node: NodeId, pkt: &Packet) {
        if self.queues_by_radio(node, pkt) {
            self.transmit_packet(node, pkt)
        } else {
            self.net_transmit(node, pkt)
        }
    }

    /// The MAC's `Deliver` action `i` of a packet `forwards_by_radio`, with
    /// no backpressure (`bp_heard` does nothing): what `do_mac` and
    /// `net_input` then `route_out` do with it, the packet routed from the
    /// action instead of copied out of it first, and sent at once when its
    /// `Transmit` would be the next work item (this item is the last).
    pub(super) fn forward_in_place(&mut self, node: NodeId, i: usize) {
        // The last item: the list's last, or, with no item yet, the last of
        // the actions `drain_items` carries out ahead of the list (`drain_mac`:
        // the list is never empty while one of its own items runs).
        let last = match self.work.last() {
            Some(&Work::Mac(m, j)) => m == node && j as usize == i,
            Some(_) => false,
            None => i + 1 == self.mac_out.len(),
        };
        let MacAction::Deliver(pkt, from) = &mut self.mac_out[i] else { unreachable!("a Deliver action") };
        pkt.prev_hop = *from;
        pkt.ttl -= 1;
        let now = self.queue.now();
        let n = &mut self.nodes[node as usize];
        n.net.forwarded += 1;
        let mut ctx =
            RouteCtx { now, node, out: &mut self.net_out, rng: &mut n.routing_rng, uids: &mut self.obs.metrics.fate };
        let hop = n.routing.route_hop(&mut ctx, pkt, Origin::Forward);
        let hop = match hop {
            Some(nh) if !last || !tests::at_once() => {
                self.net_out.push(NetAction::Transmit(Packet { next_hop: nh, ..*pkt }));
                None
            }
            h => Self::alone_or_pushed(&mut self.net_out, self.queued[1], h, pkt),
        };
        // One copy, made where it is sent: `hop.map` into an `Option`,
        // then moved out of it, copied the packet twice (~30 instructions
        // each, line by line in callgrind). (The whole packet copied after
        // its next hop is set in the action is a `memcpy` call: +0.2 M on
        // the AODV chain.)
        let Some(nh) = hop else { return self.routing_done(node, true) };
        let pkt = Packet { next_hop: nh, ..*pkt };
        self.routing_done(node, true);
        tests::forwarded_at_once();
        self.transmit_routed(node, &pkt);
    }

    /// Routing's `Transmit` action `i`, of a packet `queues_by_radio`:
    /// `transmit_packet` with the packet read in the action (the vector
    /// lent out for the call: sending a packet adds no routing action).
    pub(super) fn transmit_in_place(&mut self, node: NodeId, i: usize) {
        let out = std::mem::take(&mut self.net_out);
        let NetAction::Transmit(pkt) = &out[i] else { unreachable!("a Transmit action") };
        self.transmit_packet(node, pkt);
        assert!(self.net_out.is_empty());
        self.net_out = out;
    }

    /// Routing's `Transmit` of a packet `queues_by_radio`: what
    /// `net_transmit` then `enqueue` do with it (the trace, then the
    /// queue), the packet read where it lies (`QueueDisc::enqueue_ref`).
    fn transmit_packet(&mut self, node: NodeId, pkt: &Packet) {
        let now = self.queue.now();
        let action = if pkt.src == node { Action::Send } else { Action::Forward };
        self.obs.packet(now, node, Layer::Router, action, pkt, None);
        let n = &self.nodes[node as usize];
        if n.ifq.refuses(pkt) {
            // `enqueue`'s first branch.
            return self.drop_packet(node, pkt, DropReason::Ifq);
        }
        if self.straight_to_mac(n, pkt) {
            self.nodes[node as usize].mac.enqueue_ref(now, pkt, &mut self.mac_out);
            return self.collect_mac(node);
        }
        if self.bp.is_none() && n.ifq_life.is_none() && !self.cfg.queue.expire_in_flight {
            // `enqueue`'s general path with no books kept on the queue.
            let n = &mut self.nodes[node as usize];
            let r = n.ifq.enqueue_ref(pkt);
            let mine = matches!(&r, Err(p) if p.uid == pkt.uid);
            if !mine {
                self.obs.queue(now, node, &*n.ifq);
            }
            if let Err(p) = r {
                // Refused (`mine`), or another pushed out (fair queueing).
                self.drop_packet(node, &p, DropReason::Ifq);
            }
            if !mine {
                self.feed_mac(node);
            }
            return;
        }
        self.enqueue(node, pkt)
    }
}

#[cfg(not(test))]
mod tests {
    /// Outside tests the packet is always sent at once where it may be.
    #[inline(always)]
    pub(super) fn at_once() -> bool {
        true
    }

    #[inline(always)]
    pub(super) fn forwarded_at_once() {}
}

#[cfg(test)]
mod tests {
    use crate::sim::queue::record_pushes;
    use crate::simulation::pipeline::tests::logged_run;
    use std::cell::Cell;

    thread_local! {
        /// Whether a routed packet may be sent at once (`false`: every
        /// `Transmit` goes through the work list).
        static AT_ONCE: Cell<bool> = const { Cell::new(true) };
        /// How many times a packet could be sent at once (the paths entered).
        static TAKEN: Cell<u64> = const { Cell::new(0) };
        /// How many forwarded packets were sent at once (`forward_in_place`).
        static FORWARDED: Cell<u64> = const { Cell::new(0) };
    }

    pub(super) fn forwarded_at_once() {
        FORWARDED.with(|t| t.set(t.get() + 1));
    }

    pub(super) fn at_once() -> bool {
        let on = AT_ONCE.with(Cell::get);
        TAKEN.with(|t| t.set(t.get() + on as u64));
        on
    }

    /// A packet routed to one next hop and sent at once gives the same
    /// run, to the event, as when its `Transmit` goes through the work
    /// list: the same frames, packets and medium changes in the same
    /// order, the same report and `events` count. The 2-hop CBR chain
    /// (datagrams dropped at the full queue too), the TCP chains (AODV;
    /// DSR, its flow-state forwards), backpressure, a wired gateway, AODV
    /// routes lost and found again (a relay switched off; the mobile ELFN
    /// scenario under AODV).
    #[test]
    fn routed_at_once_changes_nothing() {
        let cases: [(&str, &[&str]); 8] = [
            // Unsaturated: the sender's MAC idle at each departure, so the
            // send itself schedules (the queue's pushes compared below).
            ("../../scenarios/bench/ns2/twohop-aodv.toml", &["run.duration=15s", "flow.0.rate=400kbps"]),
            ("../../scenarios/bench/ns2/twohop-aodv.toml", &["run.duration=15s"]),
            ("../../scenarios/bench/ns2/chain10-tcp-aodv.toml", &["run.duration=25s"]),
            ("../../scenarios/bench/ns2/chain10-tcp-dsr.toml", &["run.duration=20s"]),
            ("tests/snapshots/backpressure.toml", &[]),
            ("tests/snapshots/wired-gateway.toml", &[]),
            ("../../scenarios/aodv-link-break.toml", &[]),
            ("../../scenarios/elfn-mobile.toml", &["routing.protocol=aodv", "run.duration=60s"]),
        ];
        for (rel, ov) in cases {
            for observed in [true, false] {
                TAKEN.with(|t| t.set(0));
                FORWARDED.with(|t| t.set(0));
                let (fast, fast_pushes) = record_pushes(|| logged_run(rel, ov, observed, |_| {}));
                let taken = TAKEN.with(Cell::get);
                let forwarded = FORWARDED.with(Cell::get);
                AT_ONCE.with(|c| c.set(false));
                let (slow, slow_pushes) = record_pushes(|| logged_run(rel, ov, observed, |_| {}));
                AT_ONCE.with(|c| c.set(true));
                // The same entries queued in the same order, ties or not (a
                // CBR sender's next departure armed before its datagram's
                // send, as the work list arms it: a same-instant tie with
                // what the send schedules would be decided by this order).
                assert!(fast_pushes == slow_pushes, "{rel}: the queue's pushes differ");
                if observed {
                    assert!(fast.0.len() > 1000, "{rel}: {} logged", fast.0.len());
                }
                assert!(fast.0 == slow.0, "{rel}: the runs differ");
                assert_eq!(fast.1, slow.1, "{rel}");
                assert_eq!(fast.2, slow.2, "{rel}: events");
                if rel.contains("twohop") && ov.len() == 1 {
                    // 15 s: ~7.6 K datagrams and forwards.
                    assert!(taken > 5_000, "{rel}: sent at once {taken} times");
                    // The relay's forwards, most of them after a DATA's end
                    // whose actions `drain_mac` carries out ahead of the work
                    // list (~3.4 K in 15 s).
                    if !observed {
                        assert!(forwarded > 2_000, "{rel}: forwarded at once {forwarded} times");
                    }
                }
                if rel.contains("dsr") && !observed {
                    // DSR's flow-state forwards go through its `route_hop`
                    // (session 25): the relays' forwards sent at once (~4.3 K
                    // in 20 s; none with the trait's default `route_hop`).
                    assert!(forwarded > 3_000, "{rel}: forwarded at once {forwarded} times");
                }
            }
        }
    }
}
