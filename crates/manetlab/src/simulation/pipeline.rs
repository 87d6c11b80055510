//! The per-node pipeline: what the kernel does with each layer's actions.
//!
//! Outbound: endpoint (`do_endpoint`) -> network (`route_out`, the routing
//! protocol, `do_net`) -> [ARP] -> interface queue (`enqueue`) -> MAC
//! (`feed_mac`, `do_mac`) -> air. Inbound the reverse: MAC `Deliver` ->
//! `net_input` (ARP, routing control, local delivery demultiplexed by port,
//! or forwarding) -> endpoint. The cross-layer stages (ARP, backpressure,
//! wires, the gateway) are called at fixed points and live in their own
//! files; every observer hook goes through `observe.rs`.

use super::backpressure::bp_transmit;
use super::{Event, Simulation, FLOW_PORT_BASE};
use crate::config::{NodeAction, Traffic};
use crate::mac::dcf::MacAction;
use crate::metrics::observe::FlowWhat;
use crate::metrics::trace::{Action, Layer};
use crate::metrics::DropReason;
use crate::net::routing::{NetAction, Origin, RouteCtx};
use crate::net::{Body, NodeId, Packet, BROADCAST};
use crate::phy::channel::Hearer;
use crate::transport::EndpointAction;

/// What `sent_at_once` did with the MAC's actions.
pub(super) enum Sent {
    /// Not a lone transmission: the actions are left as they are.
    No,
    /// The frame is on the air, its stream queued.
    Queued,
    /// The frame is on the air and its stream's first signal is the next
    /// event, counted and the clock moved to it: run the stream now.
    Now(u32),
}

/// `transmit`'s answer when the frame's stream was queued (or not run
/// at once).
const QUEUED: u32 = u32::MAX;

/// The beacon counts of a frame heard by `hearers` (after the warm-up).
#[inline(always)]
fn count_air(c: &mut super::AirCounts, hearers: &[Hearer], now: crate::sim::Time, cfg: &crate::config::SimConfig) {
    if now >= cfg.warmup {
        let rx = cfg.radio.rx_threshold_w;
        let near = hearers.iter().filter(|h| h.power >= rx).count() as u64;
        c.frames += 1;
        c.in_range += near;
        c.sensed_only += hearers.len() as u64 - near;
    }
}

impl Simulation {
    /// A scripted node event: switch a radio off or on.
    pub(super) fn node_event(&mut self, node: NodeId, action: NodeAction) {
        if self.wired.is_wired_only(node) {
            return; // no radio to switch
        }
        let off = action == NodeAction::RadioOff;
        let was = std::mem::replace(&mut self.radio_off[node as usize], off);
        match (was, off) {
            (false, true) => self.radios_off += 1,
            (true, false) => self.radios_off -= 1,
            _ => {}
        }
    }

    /// `handle`'s rare events: the protocols' timers and the cross-layer
    /// stages' events. Out of line (session 23): inlined into the event
    /// loop, their bodies (a context built on the stack, ARP's and the
    /// stages' handlers) shared its registers and frame with the common
    /// events. (An endpoint's timer, the 2-hop's CBR source at 5 % of its
    /// events, stays inline: out of line it cost that run +0.2 %.)
    #[inline(never)]
    pub(super) fn other_event(&mut self, ev: Event) {
        match ev {
            Event::Routing { node, kind, a, b } => {
                let timer = crate::net::routing::RouteTimer { kind, a, b };
                self.with_routing(node, |r, ctx| r.on_timer(ctx, timer))
            }
            Event::Arp { node, timer } => self.arp_timer(node, timer),
            Event::Backpressure { node } => self.bp_recheck(node),
            Event::Wire { dir, arrive } => self.wire_event(dir, arrive),
            Event::Gateway { to_wire } => self.gateway_release(to_wire),
            Event::Node { node, action } => self.node_event(node, action),
            Event::Frame { .. } | Event::TxEnd { .. } | Event::Mac { .. } | Event::Endpoint { .. } => {
                unreachable!("`handle` takes it")
            }
        }
    }

    pub(super) fn do_mac(&mut self, node: NodeId, a: &mut MacAction) {
        let now = self.queue.now();
        match a {
            &mut MacAction::Transmit(d) => self.transmit_frame(node, d),
            &mut MacAction::Timer { at, kind, gen } => self.arm_mac_timer(node, at, kind, gen),
            MacAction::Deliver(pkt, from) => {
                let from = *from;
                self.bp_heard(node, from, pkt);
                self.net_input(node, pkt, from, false)
            }
            MacAction::Overheard(pkt, from) => {
                self.bp_heard(node, *from, pkt);
                if self.nodes[node as usize].routing.wants_overheard() {
                    self.with_routing(node, |r, ctx| r.on_overheard(ctx, pkt));
                }
            }
            MacAction::TxSuccess(pkt) => self.bp_tx_success(node, pkt),
            // The queue lifetime ended while the MAC held the packet
            // (`queue.expire_in_flight`; backpressure is refused with it).
            MacAction::Expired(pkt) => self.drop_packet(node, pkt, DropReason::Ifq),
            MacAction::TxFailed(pkt) => {
                let pkt = *pkt;
                self.bp_left(node, &pkt);
                self.nodes[node as usize].net.link_failures += 1;
                if self.nodes[node as usize].routing.xmit_failure_callback() {
                    // ns-2's MAC discards its copy at the retry limit (trace
                    // `D ... MAC ... RET`) and hands another to routing; the
                    // packet's fate is what routing then does with it.
                    self.trace(node, Layer::Mac, Action::Drop(DropReason::Ret), &pkt, None);
                }
                self.obs.link_failure(now, node, pkt.next_hop);
                self.with_routing(node, |r, ctx| r.on_link_failure(ctx, pkt));
            }
            MacAction::Ready => self.feed_mac(node),
        }
    }

    /// After a MAC timer (`handle`): when its one action is a frame to send
    /// (an access, a response), the frame goes on the air now, as the work
    /// list's only item would (`transmit_frame` adds no work), without the
    /// item and the drain. (Not with `event-counts`, which reads `mac_out`
    /// after the event.)
    /// `Sent::Now(stream)`: the frame's first signal is the next event
    /// and was counted as executed, the clock moved to it
    /// (`transmit_at_once`); the caller runs the stream (`frame_events`).
    #[inline(always)]
    pub(super) fn sent_at_once(&mut self, node: NodeId) -> Sent {
        #[cfg(not(feature = "event-counts"))]
        if let [MacAction::Transmit(d)] = self.mac_out[..] {
            debug_assert!(self.work.is_empty() && self.queued[0] == 0);
            self.mac_out.clear();
            return match self.transmit_at_once(node, d) {
                QUEUED => Sent::Queued,
                id => Sent::Now(id),
            };
        }
        let _ = node;
        Sent::No
    }

    /// The MAC's `Transmit(d)`: its frame ([`crate::mac::Mac::tx_frame`])
    /// goes on the air for `d` at every radio that hears it. Adds no work
    /// item (the frame's signals are queued as its stream, `frames.rs`).
    #[inline(always)]
    pub(super) fn transmit_frame(&mut self, node: NodeId, d: crate::sim::Time) {
        self.transmit::<false>(node, d);
    }

    /// [`Simulation::transmit_frame`] as an event's last work (a MAC
    /// timer's lone action, `sent_at_once`: no work is left and the run
    /// loop pops the queue's head next): a static sender's frame whose
    /// first signal comes before everything queued (and by the run's
    /// limit) is not queued; that signal is counted as executed, the clock
    /// moved to it, and its stream returned for `handle` to run as if
    /// popped (as `next_after` runs a stream's next signal in place).
    /// Session 24: no push, pop and dispatch of the stream's first entry
    /// (taken by ~98 % of the 2-hop's frames; 2-hop -1.8 %, chains -2.0 %
    /// instructions). [`QUEUED`] otherwise.
    #[inline(always)]
    pub(super) fn transmit_at_once(&mut self, node: NodeId, d: crate::sim::Time) -> u32 {
        self.transmit::<true>(node, d)
    }

    /// `transmit_frame` (`AT_ONCE`: `transmit_at_once`, whose answer it
    /// returns; [`QUEUED`] when not `AT_ONCE`).
    #[inline(never)]
    fn transmit<const AT_ONCE: bool>(&mut self, node: NodeId, d: crate::sim::Time) -> u32 {
        let now = self.queue.now();
        // The frame stays in the MAC until the channel copies it
        // (`Channel::begin`): no copy on the way. (Borrowed from the node
        // once: the steps up to `begin` touch other fields.)
        let n = &mut self.nodes[node as usize];
        let frame = n.mac.tx_frame();
        self.obs.transmit(now, node, frame, d);
        if let Some(bp) = self.bp.as_mut() {
            bp_transmit(bp, node, frame);
        }
        n.radio.start_tx();
        self.channel.refresh(now);
        // A static sender's cached arrival order is read in place (session
        // 21; no copy into `hearers`, no lend and give-back) when nothing
        // below would change it: no radio is off (the filter below) and
        // the frame takes the one-pass layout (`frames::one_pass`; the
        // general case sorts `hearers`). What follows is `air_frame`'s
        // one-pass branch on the cached list.
        // The frame's slot in the channel is its stream's index, taken here
        // (session 23: `Channel::begin_at`).
        if self.radios_off == 0 {
            // A static sender's later frames from its stream's template
            // alone (session 23: no look-up of the arrival list, which the
            // template implies; `Streams::templated_stream`), unless the
            // hearers are counted (`count_air` reads the list).
            if self.air_counts.is_none() {
                let queue = &mut self.queue;
                if let Some((id, first)) = self.streams.templated_stream(node, now, d, |n| queue.reserve(n)) {
                    // (`now + d` in range: `Template::accepts`)
                    self.channel.begin_at(id, node, frame, now, crate::sim::Time(now.0 + d.0));
                    if AT_ONCE && self.first_at_once(first) {
                        return id;
                    }
                    super::frames::queue_stream(&mut self.queue, &self.nodes, id, first, id);
                    return QUEUED;
                }
            }
            let streams = &mut self.streams;
            let slot = |h: &[Hearer]| {
                let ok = super::frames::one_pass(now, d, h[0].delay, h[h.len() - 1].delay);
                // (the transmission's `end - start`, begun from `now` to `now + d`)
                ok.then(|| streams.take((now + d) - now))
            };
            if let Some((id, h)) = self.channel.begin_cached(node, frame, now, now + d, slot) {
                if let Some(c) = &mut self.air_counts {
                    count_air(c, h, now, &self.cfg);
                }
                let base = self.queue.reserve(2 * h.len() as u64 + 1);
                let first = self.streams.cached_stream(h, id, now, d, base, node);
                super::frames::queue_stream(&mut self.queue, &self.nodes, id, first, id);
                return QUEUED;
            }
        }
        self.transmit_general(node, d);
        QUEUED
    }

    /// `transmit_frame` past the static sender's cached path: the arrival
    /// list copied into `hearers` (radios off filtered out), any layout.
    /// Out of line (session 22): the cached path's function keeps a small
    /// frame.
    #[inline(never)]
    fn transmit_general(&mut self, node: NodeId, d: crate::sim::Time) {
        let now = self.queue.now();
        let frame = self.nodes[node as usize].mac.tx_frame();
        self.channel.hearers_by_arrival(node, now, &mut self.hearers);
        if self.radios_off > 0 {
            // A switched-off radio neither sends nor hears.
            let off = &self.radio_off;
            if off[node as usize] {
                self.hearers.clear();
            } else {
                self.hearers.retain(|h| !off[h.node as usize]);
            }
        }
        if let Some(c) = &mut self.air_counts {
            count_air(c, &self.hearers, now, &self.cfg);
        }
        if !self.hearers.is_empty() {
            // The frame's stream, whose index is its slot in the channel
            // (session 23), held while any of its signals is pending.
            let id = self.streams.take((now + d) - now);
            self.channel.begin_at(id, node, frame, now, now + d);
            // (the frame's stream also carries the sender's `TxEnd`)
            self.air_frame(id, d, node);
        } else {
            self.queue.schedule(now + d, Event::TxEnd { node });
        }
    }

    /// Gives the MAC the next queued packet if it can take one (with
    /// backpressure: the next eligible one). The common cases of the
    /// static chains are carried out in this small function, without
    /// `feed_queued`'s frame (six registers, 0x358 bytes of stack: its
    /// general path holds packets by value): a busy MAC (the queue fed
    /// behind it), the head packet copied once into an idle MAC (no
    /// lifetime or backpressure: `feed_queued`'s own first path, as it
    /// was), and an empty queue (the MAC's `Ready` at a relay; with no
    /// backpressure and no queue lifetime `feed_queued` would find nothing
    /// and block nothing). Anything else goes to `feed_queued`.
    ///
    /// The busy MAC returns from this small function (no saved registers:
    /// 35.7 K of the 2-hop's 85.8 K calls); the rest is `feed_idle`.
    #[inline(never)]
    pub(super) fn feed_mac(&mut self, node: NodeId) {
        let n = &self.nodes[node as usize];
        if !n.mac.is_edca() && tests::idle_at_once() && !n.mac.can_accept() {
            return tests::took();
        }
        self.feed_idle(node)
    }

    /// `feed_mac` past a busy MAC.
    #[inline(never)]
    fn feed_idle(&mut self, node: NodeId) {
        let now = self.queue.now();
        let n = &mut self.nodes[node as usize];
        // (an idle DCF here: `feed_mac` returned for a busy one)
        if !n.mac.is_edca() && tests::idle_at_once() && self.bp.is_none() && n.ifq_life.is_none() {
            if let Some(p) = n.ifq.peek_next() {
                n.mac.enqueue_ref(now, p, &mut self.mac_out);
                n.ifq.discard_next();
                self.obs.queue(now, node, &*n.ifq);
                tests::took();
                return self.collect_mac(node);
            }
            if n.ifq.is_empty() {
                return tests::took();
            }
        }
        self.feed_queued(node)
    }

    /// `feed_mac`'s work.
    #[inline(never)]
    fn feed_queued(&mut self, node: NodeId) {
        let now = self.queue.now();
        let n = &mut self.nodes[node as usize];
        if !n.mac.is_edca() {
            if !n.mac.can_accept() {
                return;
            }
            let mut next = match &self.bp {
                None => n.ifq.dequeue(),
                Some(bp) => n.ifq.dequeue_where(&mut |p| bp.eligible(node, now, p)),
            };
            // A queue lifetime (ns-3 WifiMacQueue MaxDelay): packets that
            // waited too long are dropped as the MAC reaches them.
            let mut expires = None;
            while let Some(p) = next {
                match self.nodes[node as usize].ifq_life.as_mut().and_then(|l| l.take(p.uid)) {
                    Some(end) if end <= now => {
                        // (the scenario refuses max_delay with backpressure)
                        self.drop_packet(node, &p, DropReason::Ifq);
                        let n = &mut self.nodes[node as usize];
                        next = match &self.bp {
                            None => n.ifq.dequeue(),
                            Some(bp) => n.ifq.dequeue_where(&mut |p| bp.eligible(node, now, p)),
                        };
                    }
                    end => {
                        expires = end.filter(|_| self.cfg.queue.expire_in_flight);
                        break;
                    }
                }
            }
            let n = &mut self.nodes[node as usize];
            if let Some(p) = next {
                self.obs.queue(now, node, &*n.ifq);
                n.mac.enqueue(now, p, &mut self.mac_out);
                if let Some(end) = expires {
                    n.mac.set_expiry(end);
                }
                self.collect_mac(node);
            } else if !n.ifq.is_empty() {
                self.bp_block(node);
            }
            return;
        }
        // 802.11e: one backoff entity per access category (no backpressure).
        for ac in crate::mac::edca::AccessCategory::ALL {
            let n = &mut self.nodes[node as usize];
            if n.mac.can_accept_ac(ac) {
                let mut next = n.ifq.dequeue_ac(ac);
                while let Some(p) = next.filter(|p| self.ifq_expired(node, p.uid, now)) {
                    self.drop_packet(node, &p, DropReason::Ifq);
                    next = self.nodes[node as usize].ifq.dequeue_ac(ac);
                }
                let n = &mut self.nodes[node as usize];
                if let Some(p) = next {
                    self.obs.queue(now, node, &*n.ifq);
                    n.mac.enqueue_ac(now, p, ac, &mut self.mac_out);
                    self.collect_mac(node);
                }
            }
        }
    }

    /// Packet `uid` leaves `node`'s queue for the MAC at `now`: true if it
    /// outlived the queue's lifetime (`queue/lifetime.rs`).
    fn ifq_expired(&mut self, node: NodeId, uid: u64, now: crate::sim::Time) -> bool {
        self.nodes[node as usize].ifq_life.as_mut().is_some_and(|l| l.expired(uid, now))
    }

    pub(super) fn do_net(&mut self, node: NodeId, a: &NetAction) {
        match a {
            NetAction::Transmit(pkt) => self.net_transmit(node, pkt),
            NetAction::Drop(pkt, why) => self.drop_packet(node, pkt, *why),
            &NetAction::Timer { at, timer } => self.queue.schedule(at, Event::routing(node, timer)),
            &NetAction::Reclaim { next_hop } => {
                let mut back = std::mem::take(&mut self.reclaimed);
                self.nodes[node as usize].ifq.drain_next_hop(next_hop, &mut back);
                if let Some(l) = self.nodes[node as usize].ifq_life.as_mut() {
                    back.iter().for_each(|p| l.forget(p.uid));
                }
                self.obs.queue(self.queue.now(), node, &*self.nodes[node as usize].ifq);
                self.bp_left_all(node, &back);
                for p in back.drain(..) {
                    self.with_routing(node, |r, ctx| r.on_reclaimed(ctx, p));
                }
                self.reclaimed = back;
            }
            &NetAction::Notify(notice) => {
                if let Some(idx) = self.nodes[node as usize].endpoint_for_port(notice.sport) {
                    self.with_endpoint(node, idx as u16, |ep, ctx| ep.on_link_failure_notice(ctx, &notice));
                }
            }
        }
    }

    /// Routing's `Transmit`: over a wire, through ARP or to the queue.
    pub(super) fn net_transmit(&mut self, node: NodeId, pkt: &Packet) {
        let action = if pkt.src == node { Action::Send } else { Action::Forward };
        self.trace(node, Layer::Router, action, pkt, None);
        if let Some(dir) = self.wired.iface(node, pkt.next_hop) {
            self.wire_send(node, dir, *pkt);
        } else if pkt.next_hop != BROADCAST && self.nodes[node as usize].arp.is_some() {
            self.arp_output(node, pkt);
        } else {
            self.enqueue(node, pkt);
        }
    }

    /// Whether `net_transmit` would put routing's `pkt` on `node`'s
    /// interface queue with `enqueue`: no wire towards its next hop, and no
    /// ARP on the way or a next hop ARP has resolved (`arp_output` then
    /// calls `enqueue` and nothing else).
    #[inline(always)]
    pub(super) fn queues_by_radio(&self, node: NodeId, pkt: &Packet) -> bool {
        (pkt.next_hop == BROADCAST
            || self.nodes[node as usize].arp.as_ref().is_none_or(|a| a.is_resolved(pkt.next_hop)))
            && self.wired.iface(node, pkt.next_hop).is_none()
    }

    /// Whether `enqueue` may hand `pkt` straight to `n`'s idle MAC: an
    /// empty FIFO, and nothing watching the queue or keeping books on it
    /// (no observer, lifetime or backpressure).
    #[inline(always)]
    pub(super) fn straight_to_mac(&self, n: &crate::node::Node, pkt: &Packet) -> bool {
        n.ifq.passes_through(pkt)
            && self.bp.is_none()
            && n.ifq_life.is_none()
            && !self.cfg.queue.expire_in_flight
            && self.obs.is_empty()
            && !n.mac.is_edca()
            && n.mac.can_accept()
    }

    /// Puts a packet on the interface queue (IFQ drop when full).
    pub(super) fn enqueue(&mut self, node: NodeId, pkt: &Packet) {
        let n = &self.nodes[node as usize];
        if n.ifq.refuses(pkt) {
            // The same as `enqueue` handing it back, without the moves.
            return self.drop_packet(node, pkt, DropReason::Ifq);
        }
        if self.straight_to_mac(n, pkt) {
            let n = &mut self.nodes[node as usize];
            // An empty FIFO and an idle MAC: what `enqueue` then `feed_mac`
            // below do when nothing watches the queue and no lifetime or
            // backpressure keeps books on it, without the two moves through
            // the queue.
            let now = self.queue.now();
            n.mac.enqueue_ref(now, pkt, &mut self.mac_out);
            return self.collect_mac(node);
        }
        let n = &mut self.nodes[node as usize];
        match n.ifq.enqueue_ref(pkt) {
            Err(p) if p.uid == pkt.uid => self.drop_packet(node, &p, DropReason::Ifq),
            r => {
                // Accepted; possibly another packet pushed out (fair queueing).
                if let Some(l) = n.ifq_life.as_mut() {
                    l.entered(pkt.uid, self.queue.now());
                    if let Err(v) = &r {
                        l.forget(v.uid);
                    }
                }
                self.obs.queue(self.queue.now(), node, &*n.ifq);
                let wake = self.bp_entered(node, pkt, r.as_ref().err());
                if let Err(v) = r {
                    self.drop_packet(node, &v, DropReason::Ifq);
                }
                if wake {
                    self.bp_wake_all();
                }
                if self.cfg.queue.expire_in_flight {
                    // ns-3.37 Txop::Queue wipes expired MPDUs, the one the
                    // MAC is retrying included (`mac/dcf/ns3.rs`).
                    let now = self.queue.now();
                    self.nodes[node as usize].mac.on_queue_enqueue(now, &mut self.mac_out);
                    self.collect_mac(node);
                }
                self.feed_mac(node);
            }
        }
    }

    pub(super) fn do_endpoint(&mut self, node: NodeId, idx: u16, a: &mut EndpointAction) {
        match a {
            EndpointAction::Send(pkt) => {
                if self.bp_refuses(node, pkt) {
                    // Backpressure reached the source: the datagram is
                    // refused at the socket, never injected.
                    return self.drop_packet(node, pkt, DropReason::Bps);
                }
                self.trace(node, Layer::Agent, Action::Send, pkt, None);
                self.nodes[node as usize].net.originated += 1;
                self.route_out(node, pkt, Origin::Local, false);
            }
            &mut EndpointAction::Timer { at, timer } => self.queue.schedule(at, Event::Endpoint { node, idx, timer }),
        }
    }

    pub(super) fn drop_packet(&mut self, node: NodeId, pkt: &Packet, why: DropReason) {
        self.trace(node, Layer::of_drop(why), Action::Drop(why), pkt, None);
        self.nodes[node as usize].net.drops[why.index()] += 1;
        if !pkt.is_control() {
            // The packet's fate and the flow's drop count: the built-in
            // observer (flow statistics and fate table) and the others.
            let now = self.queue.now();
            self.obs.flow(now, pkt.flow, FlowWhat::Dropped { node, why, uid: pkt.uid });
            // Tell the flow's source (TCP time-sequence logs show drops).
            if let Some(f) = self.cfg.flows.get(pkt.flow as usize) {
                if f.src == pkt.src && matches!(f.traffic, Traffic::Tcp { .. }) {
                    let port = (FLOW_PORT_BASE + pkt.flow) as u16;
                    if let Some(idx) = self.nodes[f.src as usize].endpoint_for_port(port) {
                        let now = self.queue.now();
                        self.nodes[f.src as usize].endpoints[idx].on_dropped(now, pkt);
                    }
                }
            }
        }
    }

    /// A packet decoded by this node's MAC (addressed to it or broadcast).
    /// `wired`: it arrived over a point-to-point link (the MANET routing
    /// protocol does not learn neighbours from it).
    pub(super) fn net_input(&mut self, node: NodeId, pkt: &mut Packet, from: NodeId, wired: bool) {
        pkt.prev_hop = from;
        if let Body::Arp { op, sender, target } = pkt.body {
            return self.arp_input(node, op, sender, target);
        }
        if pkt.dst == node || pkt.dst == BROADCAST {
            if pkt.is_control() {
                self.trace(node, Layer::Router, Action::Recv, pkt, None);
                self.with_routing(node, |r, ctx| r.on_control(ctx, pkt));
                return;
            }
            if !wired && !self.routing_accepts(node, pkt) {
                return;
            }
            self.trace(node, Layer::Agent, Action::Recv, pkt, None);
            if !wired {
                self.with_routing(node, |r, ctx| r.on_delivered(ctx, pkt));
            }
            if !pkt.is_control() && self.cfg.flows.get(pkt.flow as usize).is_some_and(|f| f.dst == node) {
                // Hops = TTL decrements + 1 (forwarders decrement it).
                let hops = (Packet::DEFAULT_TTL.saturating_sub(pkt.ttl)) as u32 + 1;
                let now = self.queue.now();
                self.obs.flow(now, pkt.flow, FlowWhat::Hops { hops });
            }
            let n = &mut self.nodes[node as usize];
            n.net.delivered += 1;
            match pkt.dport().and_then(|port| n.endpoint_for_port(port)) {
                Some(idx) => self.with_endpoint(node, idx as u16, |ep, ctx| ep.on_packet(ctx, pkt)),
                None => {
                    let now = self.queue.now();
                    self.obs.flow(now, pkt.flow, FlowWhat::Delivered { uid: pkt.uid });
                }
            }
            return;
        }
        if pkt.ttl <= 1 {
            return self.drop_packet(node, pkt, DropReason::Ttl);
        }
        pkt.ttl -= 1;
        self.nodes[node as usize].net.forwarded += 1;
        self.route_out(node, pkt, Origin::Forward, wired);
    }

    /// Whether `net_input` would forward `pkt`, decoded by `node`'s MAC,
    /// over the radio: not ARP, not for this node, TTL left, and no wired
    /// next hop for its destination (`route_out`'s radio path).
    #[inline(always)]
    pub(super) fn forwards_by_radio(&self, node: NodeId, pkt: &Packet) -> bool {
        !matches!(pkt.body, Body::Arp { .. })
            && pkt.dst != node
            && pkt.dst != BROADCAST
            && pkt.ttl > 1
            && self.wired.next_hop(node, pkt.dst).is_none()
    }

    /// Whether the MAC's `Deliver` of `pkt` at `node` is a data packet for
    /// `node` (not ARP, not routing control): `net_input`'s local delivery,
    /// which reaches the protocol, the flow statistics and the endpoint
    /// but never the MAC.
    #[inline(always)]
    pub(super) fn local_data(node: NodeId, pkt: &Packet) -> bool {
        pkt.dst == node && !pkt.is_control() && !matches!(pkt.body, Body::Arp { .. })
    }

    /// The MAC's `Deliver` action `i` of a packet `local_data`, with no
    /// backpressure (`bp_heard` does nothing): what `do_mac` then
    /// `net_input` do with it, the packet read in the action. No MAC is
    /// called on that path (`local_data`), so the MAC's action vector is
    /// lent out for the call (three words moved) instead of the 160-B
    /// action copied out of it.
    pub(super) fn deliver_local(&mut self, node: NodeId, i: usize) {
        let mut out = std::mem::take(&mut self.mac_out);
        let MacAction::Deliver(pkt, from) = &mut out[i] else { unreachable!("a Deliver action") };
        let from = *from;
        self.net_input(node, pkt, from, false);
        debug_assert!(self.mac_out.is_empty() && self.queued[0] == out.len());
        self.mac_out = out;
    }

    /// Whether the MAC's `Deliver` of `pkt` at `node` is carried out from
    /// its action (with no backpressure): data for `node` or a packet it
    /// forwards over the radio.
    #[inline(always)]
    pub(super) fn in_place(&self, node: NodeId, pkt: &Packet) -> bool {
        Self::local_data(node, pkt) || self.forwards_by_radio(node, pkt)
    }

    /// The MAC's `Deliver` action `i` of a packet `in_place` (`local_data`
    /// is addressed to `node`, `forwards_by_radio` is not).
    #[inline(always)]
    pub(super) fn carry_out(&mut self, node: NodeId, i: usize) {
        let MacAction::Deliver(p, _) = &self.mac_out[i] else { unreachable!("a Deliver action") };
        if p.dst == node {
            self.deliver_local(node, i)
        } else {
            self.forward_in_place(node, i)
        }
    }

    /// The endpoint's `Send` action `i` of a packet with no wired next hop,
    /// with no backpressure (`bp_refuses` is false): what `do_endpoint` and
    /// `route_out` do with it, the packet routed from the action instead of
    /// copied out of it first.
    pub(super) fn send_in_place(&mut self, node: NodeId, i: usize) {
        let EndpointAction::Send(pkt) = &self.ep_out[i] else { unreachable!("a Send action") };
        let now = self.queue.now();
        self.obs.packet(now, node, Layer::Agent, Action::Send, pkt, None);
        let n = &mut self.nodes[node as usize];
        n.net.originated += 1;
        let mut ctx =
            RouteCtx { now, node, out: &mut self.net_out, rng: &mut n.routing_rng, uids: &mut self.obs.metrics.fate };
        n.routing.route_ref(&mut ctx, pkt, Origin::Local);
        self.routing_done(node, true);
    }

    /// Routes a packet leaving `node`: over the wires when the wired table
    /// has a next hop for its destination, else by the MANET protocol. A
    /// packet from a wire that goes on over the radio is injected by this
    /// node (the gateway) as if it originated it.
    pub(super) fn route_out(&mut self, node: NodeId, pkt: &mut Packet, origin: Origin, from_wire: bool) {
        if let Some(nh) = self.wired.next_hop(node, pkt.dst) {
            if !pkt.sr.is_empty() {
                // Leaving the MANET: the DSR source route stays behind.
                pkt.size -= pkt.sr.header_bytes();
                pkt.sr = Default::default();
            }
            pkt.next_hop = nh;
            if origin == Origin::Forward && !from_wire {
                // Radio -> wire at the gateway: ACK window and pacing.
                match self.gateway_to_wire(node, *pkt) {
                    Some(p) => *pkt = p,
                    None => return,
                }
            }
            let action = if pkt.src == node { Action::Send } else { Action::Forward };
            self.trace(node, Layer::Router, action, pkt, None);
            let dir = self.wired.iface(node, nh).expect("wired next hops are wired neighbours");
            return self.wire_send(node, dir, *pkt);
        }
        let origin = if from_wire { Origin::Local } else { origin };
        if from_wire {
            // Wire -> radio at the gateway: data pacing.
            match self.gateway_to_radio(node, *pkt) {
                Some(p) => *pkt = p,
                None => return,
            }
        }
        let pkt = &*pkt;
        self.with_routing(node, |r, ctx| r.route_ref(ctx, pkt, origin));
    }
}

#[cfg(test)]
#[path = "pipeline_tests.rs"]
pub(super) mod tests;

/// Outside tests the fast paths are always taken.
#[cfg(not(test))]
mod tests {
    #[inline(always)]
    pub(super) fn idle_at_once() -> bool {
        true
    }
    #[inline(always)]
    pub(super) fn took() {}
}
