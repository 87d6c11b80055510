//! Protocol unit tests: one `Aodv` instance driven directly, its actions
//! inspected (no radio, no MAC).

use super::*;
use crate::net::routing::NetAction;
use crate::net::{FLOW_NONE, IP_HEADER_BYTES};

/// One node's AODV with a clock and its pending timers.
type Node = super::super::harness::Harness<Aodv>;

fn node(me: NodeId, cfg: AodvConfig) -> Node {
    Node::new(me, Aodv::new(me, cfg))
}

impl Node {
    /// Sent control messages (with their packets) among `acts`.
    fn sent(acts: &[NetAction]) -> Vec<(Packet, AodvMsg)> {
        acts.iter()
            .filter_map(|a| match a {
                NetAction::Transmit(p) => match p.body {
                    Body::Aodv(m) => Some((*p, m)),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }
    fn drops(acts: &[NetAction]) -> Vec<(u64, DropReason)> {
        acts.iter()
            .filter_map(|a| match a {
                NetAction::Drop(p, r) => Some((p.uid, *r)),
                _ => None,
            })
            .collect()
    }
    fn receive(&mut self, from: NodeId, to: NodeId, ttl: u8, msg: AodvMsg) {
        let p = Packet {
            uid: 0,
            src: from,
            dst: to,
            ttl,
            dscp: 0,
            size: IP_HEADER_BYTES + msg.l4_bytes(),
            next_hop: to,
            prev_hop: from,
            created: self.now,
            flow: FLOW_NONE,
            body: Body::Aodv(msg),
            sr: Default::default(),
        };
        self.call(|a, ctx| a.on_control(ctx, &p));
    }
}

fn data(uid: u64, src: NodeId, dst: NodeId, prev: NodeId) -> Packet {
    Packet {
        uid,
        src,
        dst,
        ttl: 64,
        dscp: 0,
        size: 1000,
        next_hop: dst,
        prev_hop: prev,
        created: Time::ZERO,
        flow: 0,
        body: Body::Udp { sport: 1, dport: 1, seq: uid },
        sr: Default::default(),
    }
}

fn mac_only() -> AodvConfig {
    AodvConfig { link_detection: LinkDetection::Mac, jitter: Time::ZERO, ..AodvConfig::default() }
}

fn rreq(orig: NodeId, id: u32, orig_seq: u32, dst: NodeId, dst_seq: Option<u32>, hops: u8) -> AodvMsg {
    AodvMsg::Rreq(Rreq {
        gratuitous: false,
        dest_only: false,
        unknown_seq: dst_seq.is_none(),
        hop_count: hops,
        id,
        dst,
        dst_seq: dst_seq.unwrap_or(0),
        orig,
        orig_seq,
    })
}

fn ms(t: u64) -> Time {
    Time::from_ms(t)
}

#[test]
fn expanding_ring_then_backoff_then_give_up() {
    let mut n = node(0, mac_only());
    n.call(|a, ctx| a.route(ctx, data(7, 0, 9, 0), Origin::Local));
    let mut ttls = Vec::new();
    let mut times = Vec::new();
    let mut ids = Vec::new();
    loop {
        for (p, m) in Node::sent(&n.take()) {
            let AodvMsg::Rreq(q) = m else { panic!("{m:?}") };
            assert_eq!((p.dst, p.src, q.orig, q.dst, q.hop_count), (BROADCAST, 0, 0, 9, 0));
            assert!(q.unknown_seq, "destination never heard of");
            ttls.push(p.ttl);
            times.push(n.now);
            ids.push((q.id, q.orig_seq));
        }
        if n.timers.is_empty() {
            break;
        }
        let next = n.timers.iter().map(|t| t.0).min().unwrap();
        n.run_until(next);
        if !n.proto.discovering(9) {
            break;
        }
    }
    // TTL 1, 3, 5, 7 (ring), then NET_DIAMETER three times (RREQ_RETRIES = 2).
    assert_eq!(ttls, vec![1, 3, 5, 7, 35, 35, 35]);
    // Waits: RING_TRAVERSAL_TIME = 2 * 40 ms * (TTL + 2): 240, 400, 560, 720 ms;
    // then NET_TRAVERSAL_TIME = 2.8 s doubled each time: 2.8, 5.6, 11.2 s.
    let gaps: Vec<u64> = times.windows(2).map(|w| (w[1] - w[0]).as_ns() / 1_000_000).collect();
    assert_eq!(gaps, vec![240, 400, 560, 720, 2800, 5600]);
    assert_eq!(n.now - times[6], Time::from_ms(11_200), "last wait before giving up");
    // Each RREQ has a new ID and a new originator sequence number (§6.3).
    assert!(ids.windows(2).all(|w| w[1].0 == w[0].0 + 1 && w[1].1 == w[0].1 + 1), "{ids:?}");
    // The buffered packet is dropped with NRTE when the discovery fails.
    assert_eq!(Node::drops(&n.out), vec![(7, DropReason::Nrte)]);
    assert_eq!(n.proto.buffered(), 0);
    let s = n.proto.stats();
    assert_eq!(s.event_count("route_discoveries"), 1);
    assert_eq!(s.event_count("route_discovery_failures"), 1);
    assert_eq!(s.sent_of("RREQ"), 7);
    assert_eq!(s.sent["RREQ"].bytes, 7 * 52);
}

#[test]
fn last_known_hop_count_seeds_the_ring() {
    let mut n = node(0, mac_only());
    // A route to 9 that is 4 hops long, then broken.
    n.receive(1, 0, 64, AodvMsg::Rrep(Rrep { hop_count: 3, dst: 9, dst_seq: 5, orig: 0, lifetime_ms: 3000 }));
    assert_eq!(n.proto.table().active(9, n.now).unwrap().hops, 4);
    n.call(|a, ctx| a.on_link_failure(ctx, data(1, 0, 9, 0).with_next_hop(1)));
    n.take();
    n.call(|a, ctx| a.route(ctx, data(2, 0, 9, 0), Origin::Local));
    let sent = Node::sent(&n.take());
    let (p, AodvMsg::Rreq(q)) = sent[0] else { panic!() };
    assert_eq!(p.ttl, 6, "last hop count 4 + TTL_INCREMENT");
    assert!(!q.unknown_seq);
    assert_eq!(q.dst_seq, 6, "sequence number incremented when the route broke");
}

trait WithNextHop {
    fn with_next_hop(self, nh: NodeId) -> Self;
}
impl WithNextHop for Packet {
    fn with_next_hop(mut self, nh: NodeId) -> Self {
        self.next_hop = nh;
        self
    }
}

#[test]
fn rreq_rate_limit_defers_originations() {
    let cfg = AodvConfig { rreq_ratelimit: 3, ..mac_only() };
    let mut n = node(0, cfg);
    for d in 10..15 {
        n.call(|a, ctx| a.route(ctx, data(d as u64, 0, d, 0), Origin::Local));
    }
    assert_eq!(Node::sent(&n.take()).len(), 3, "three RREQs in the first second");
    assert_eq!(n.proto.stats().event_count("rreq_rate_limited"), 2);
    // Ring timeouts (240 ms) also wait for the limiter; by 1 s the window reopens.
    n.run_until(ms(999));
    assert!(Node::sent(&n.take()).is_empty());
    n.run_until(ms(1000));
    assert_eq!(Node::sent(&n.take()).len(), 3);
}

#[test]
fn duplicate_rreqs_are_suppressed_and_forwarded_once() {
    let mut n = node(5, mac_only());
    n.receive(1, BROADCAST, 3, rreq(0, 1, 1, 9, None, 0));
    n.receive(2, BROADCAST, 3, rreq(0, 1, 1, 9, None, 1));
    let sent = Node::sent(&n.take());
    assert_eq!(sent.len(), 1, "forwarded once");
    let (p, AodvMsg::Rreq(q)) = sent[0] else { panic!() };
    assert_eq!((p.ttl, p.src, p.dst, q.hop_count), (2, 5, BROADCAST, 1), "TTL - 1, hop count + 1");
    assert_eq!(n.proto.stats().event_count("rreq_duplicates"), 1);
    // Reverse route to the originator through the first neighbour, and
    // neighbour routes to both senders.
    let t = n.proto.table();
    assert_eq!((t.active(0, n.now).unwrap().next_hop, t.active(0, n.now).unwrap().hops), (1, 1));
    assert!(t.active(1, n.now).is_some() && t.active(2, n.now).is_some());
    // A new RREQ ID from the same originator is processed; TTL 1 is not forwarded.
    n.receive(1, BROADCAST, 1, rreq(0, 2, 2, 9, None, 0));
    assert!(Node::sent(&n.take()).is_empty(), "TTL 1: not forwarded");
    assert_eq!(n.proto.stats().event_count("rreq_duplicates"), 1);
}

#[test]
fn destination_reply_sequence_numbers() {
    let mut n = node(9, mac_only());
    // Unknown destination sequence number: own number unchanged (0).
    n.receive(4, BROADCAST, 5, rreq(0, 1, 1, 9, None, 2));
    let sent = Node::sent(&n.take());
    let (p, AodvMsg::Rrep(r)) = sent[0] else { panic!("{sent:?}") };
    assert_eq!((p.dst, r.dst, r.dst_seq, r.orig, r.hop_count, r.lifetime_ms), (4, 9, 0, 0, 0, 6000));
    // The originator asks for a fresher number: the destination adopts it (§6.1).
    n.receive(4, BROADCAST, 5, rreq(0, 2, 2, 9, Some(5), 2));
    let (_, AodvMsg::Rrep(r)) = Node::sent(&n.take())[0] else { panic!() };
    assert_eq!(r.dst_seq, 5);
    assert_eq!(n.proto.own_seq(), 5);
    // An older number in the RREQ does not lower it.
    n.receive(4, BROADCAST, 5, rreq(0, 3, 3, 9, Some(2), 2));
    let (_, AodvMsg::Rrep(r)) = Node::sent(&n.take())[0] else { panic!() };
    assert_eq!(r.dst_seq, 5);
}

#[test]
fn intermediate_reply_needs_a_fresh_enough_route() {
    let mut n = node(1, mac_only());
    // Route to 9 via 2, 3 hops, seq 10.
    n.receive(2, 1, 64, AodvMsg::Rrep(Rrep { hop_count: 2, dst: 9, dst_seq: 10, orig: 1, lifetime_ms: 3000 }));
    // Fresh enough (10 >= 10): reply for the destination.
    n.receive(0, BROADCAST, 5, rreq(0, 1, 1, 9, Some(10), 0));
    let sent = Node::sent(&n.take());
    assert_eq!(sent.len(), 1);
    let (p, AodvMsg::Rrep(r)) = sent[0] else { panic!() };
    assert_eq!((p.dst, r.dst, r.dst_seq, r.hop_count, r.orig), (0, 9, 10, 3, 0));
    assert_eq!(n.proto.table().precursors(9), vec![0], "the RREQ sender becomes a precursor");
    assert_eq!(n.proto.table().precursors(0), vec![2]);
    // Not fresh enough (11 > 10): forwarded, carrying 11.
    n.receive(0, BROADCAST, 5, rreq(0, 2, 2, 9, Some(11), 0));
    let (_, AodvMsg::Rreq(q)) = Node::sent(&n.take())[0] else { panic!() };
    assert_eq!(q.dst_seq, 11);
    // Unknown sequence number ('U'): any valid route is fresh enough.
    n.receive(0, BROADCAST, 5, rreq(0, 3, 3, 9, None, 0));
    assert!(matches!(Node::sent(&n.take())[0].1, AodvMsg::Rrep(_)));
    // Destination only: forwarded, with the known sequence number.
    let mut m = rreq(0, 4, 4, 9, None, 0);
    if let AodvMsg::Rreq(q) = &mut m {
        q.dest_only = true;
    }
    n.receive(0, BROADCAST, 5, m);
    let (_, AodvMsg::Rreq(q)) = Node::sent(&n.take())[0] else { panic!() };
    assert!(q.dest_only && !q.unknown_seq && q.dst_seq == 10);
}

#[test]
fn gratuitous_rrep_goes_to_the_destination() {
    let mut n = node(1, mac_only());
    n.receive(2, 1, 64, AodvMsg::Rrep(Rrep { hop_count: 2, dst: 9, dst_seq: 10, orig: 1, lifetime_ms: 3000 }));
    let mut m = rreq(0, 1, 7, 9, Some(10), 1);
    if let AodvMsg::Rreq(q) = &mut m {
        q.gratuitous = true;
    }
    n.receive(3, BROADCAST, 5, m);
    let sent = Node::sent(&n.take());
    assert_eq!(sent.len(), 2);
    let (p, AodvMsg::Rrep(g)) = sent[1] else { panic!() };
    assert_eq!((p.dst, g.dst, g.dst_seq, g.orig, g.hop_count), (2, 0, 7, 9, 2));
}

/// Node 1 relays between 0 (originator) and 2 (destination).
fn relay_with_route() -> Node {
    let mut n = node(1, mac_only());
    n.receive(0, BROADCAST, 5, rreq(0, 1, 1, 2, None, 0));
    n.take();
    n.receive(2, 1, 64, AodvMsg::Rrep(Rrep { hop_count: 0, dst: 2, dst_seq: 4, orig: 0, lifetime_ms: 6000 }));
    let sent = Node::sent(&n.take());
    let (p, AodvMsg::Rrep(r)) = sent[0] else { panic!() };
    assert_eq!((p.dst, r.hop_count, r.dst_seq), (0, 1, 4), "RREP forwarded to the originator, one hop more");
    n
}

#[test]
fn link_break_sends_rerr_to_the_single_precursor() {
    let mut n = relay_with_route();
    assert_eq!(n.proto.table().precursors(2), vec![0]);
    n.now = ms(100);
    n.call(|a, ctx| a.route(ctx, data(11, 0, 2, 0), Origin::Forward));
    let acts = n.take();
    let NetAction::Transmit(p) = acts[0] else { panic!() };
    assert_eq!(p.next_hop, 2);
    n.call(|a, ctx| a.on_link_failure(ctx, p));
    let acts = n.take();
    let sent = Node::sent(&acts);
    assert_eq!(sent.len(), 1);
    let (p, AodvMsg::Rerr(e)) = sent[0] else { panic!() };
    assert_eq!(p.dst, 0, "one precursor: unicast");
    assert_eq!(e.dests(), &[(2, 5)], "seq incremented");
    assert_eq!(Node::drops(&acts), vec![(11, DropReason::Cbk)]);
    assert!(acts.iter().any(|a| matches!(a, NetAction::Reclaim { next_hop: 2 })));
    assert!(n.proto.table().active(2, n.now).is_none());
    // Data for 2 arriving now: no route, RERR (case ii) back to the sender, NRTE.
    n.call(|a, ctx| a.route(ctx, data(12, 0, 2, 0), Origin::Forward));
    let acts = n.take();
    assert_eq!(Node::drops(&acts), vec![(12, DropReason::Nrte)]);
    let (p, AodvMsg::Rerr(e)) = Node::sent(&acts)[0] else { panic!() };
    assert_eq!((p.dst, e.dests()[0]), (0, (2, 5)));
    let s = n.proto.stats();
    assert_eq!(s.event_count("link_breaks_mac"), 1);
    assert_eq!(s.sent_of("RERR"), 2);
}

#[test]
fn several_precursors_get_a_broadcast_rerr_and_rerr_propagates() {
    let mut n = relay_with_route();
    // A second originator, 3, also routes to 2 through us.
    n.receive(3, BROADCAST, 5, rreq(3, 1, 1, 2, Some(4), 0));
    let (_, m) = Node::sent(&n.take())[0];
    assert!(matches!(m, AodvMsg::Rrep(_)), "we have a fresh route: intermediate reply");
    assert_eq!(n.proto.table().precursors(2), vec![0, 3]);
    // The destination's neighbour reports it unreachable.
    n.receive(
        2,
        BROADCAST,
        1,
        AodvMsg::Rerr({
            let mut e = Rerr::new(false);
            e.push(2, 9);
            e.push(77, 1); // a destination we do not route to: ignored
            e
        }),
    );
    let sent = Node::sent(&n.take());
    assert_eq!(sent.len(), 1);
    let (p, AodvMsg::Rerr(e)) = sent[0] else { panic!() };
    assert_eq!(p.dst, BROADCAST, "two precursors: broadcast");
    assert_eq!(p.ttl, 1);
    assert_eq!(e.dests(), &[(2, 9)], "the RERR's sequence number is adopted");
    assert_eq!(n.proto.table().get(2).unwrap().state, RouteState::Invalid);
    // A RERR from a node that is not our next hop changes nothing.
    let mut m = relay_with_route();
    m.receive(
        5,
        BROADCAST,
        1,
        AodvMsg::Rerr({
            let mut e = Rerr::new(false);
            e.push(2, 9);
            e
        }),
    );
    assert!(m.proto.table().active(2, m.now).is_some());
    assert!(Node::sent(&m.take()).is_empty());
}

#[test]
fn rerr_without_precursors_is_not_sent() {
    let mut n = node(0, mac_only());
    n.receive(1, 0, 64, AodvMsg::Rrep(Rrep { hop_count: 1, dst: 2, dst_seq: 3, orig: 0, lifetime_ms: 6000 }));
    n.call(|a, ctx| a.on_link_failure(ctx, data(1, 0, 2, 0).with_next_hop(1)));
    assert!(Node::sent(&n.take()).is_empty(), "the source has no precursors");
    assert_eq!(n.proto.stats().event_count("route_invalidations"), 2, "routes to 2 and to neighbour 1");
}

#[test]
fn buffer_limit_and_timeout_drop_with_nrte() {
    let cfg = AodvConfig { buffer_size: 3, buffer_timeout: ms(100), ..mac_only() };
    let mut n = node(0, cfg);
    for uid in 0..5 {
        n.call(|a, ctx| a.route(ctx, data(uid, 0, 9, 0), Origin::Local));
    }
    assert_eq!(Node::drops(&n.take()), vec![(0, DropReason::Nrte), (1, DropReason::Nrte)], "oldest go first");
    let mut held = Vec::new();
    n.proto.held(&mut |p| held.push(p.uid));
    assert_eq!(held, vec![2, 3, 4]);
    assert_eq!(n.proto.stats().event_count("route_discoveries"), 1, "one discovery per destination");
    n.run_until(ms(100));
    assert_eq!(Node::drops(&n.take()), vec![(2, DropReason::Nrte), (3, DropReason::Nrte), (4, DropReason::Nrte)]);
    assert_eq!(n.proto.stats().event_count("buffer_timeouts"), 3);
    assert_eq!(n.proto.stats().event_count("buffer_overflows"), 2);
}

#[test]
fn rrep_releases_buffered_packets() {
    let mut n = node(0, mac_only());
    n.call(|a, ctx| a.route(ctx, data(1, 0, 9, 0), Origin::Local));
    n.call(|a, ctx| a.route(ctx, data(2, 0, 9, 0), Origin::Local));
    n.take();
    n.now = ms(30);
    n.receive(4, 0, 64, AodvMsg::Rrep(Rrep { hop_count: 2, dst: 9, dst_seq: 1, orig: 0, lifetime_ms: 6000 }));
    let out: Vec<(u64, NodeId)> = n
        .take()
        .iter()
        .filter_map(|a| match a {
            NetAction::Transmit(p) => Some((p.uid, p.next_hop)),
            _ => None,
        })
        .collect();
    assert_eq!(out, vec![(1, 4), (2, 4)], "in order, via the RREP's sender");
    assert!(!n.proto.discovering(9));
    assert_eq!(n.proto.stats().event_count("route_discoveries_succeeded"), 1);
    // The stale ring timer does nothing.
    n.run_until(ms(5000));
    assert!(Node::sent(&n.take()).is_empty());
}

#[test]
fn data_keeps_routes_alive() {
    let mut n = relay_with_route();
    let t0 = n.proto.table().get(2).unwrap().lifetime;
    n.now = ms(5000);
    n.call(|a, ctx| a.route(ctx, data(1, 0, 2, 0), Origin::Forward));
    n.take();
    let t1 = n.proto.table().get(2).unwrap().lifetime;
    assert!(t1 >= t0 && t1 >= ms(8000), "{t0} -> {t1}");
    assert!(n.proto.table().get(0).unwrap().lifetime >= ms(8000), "reverse route refreshed too");
    n.now = ms(8001);
    n.call(|a, ctx| a.route(ctx, data(2, 0, 2, 0), Origin::Forward));
    assert_eq!(Node::drops(&n.take()), vec![(2, DropReason::Nrte)], "expired after ACTIVE_ROUTE_TIMEOUT unused");
}

#[test]
fn hellos_and_neighbour_loss() {
    let cfg = AodvConfig { link_detection: LinkDetection::Hello, ..AodvConfig::default() };
    let mut n = node(1, cfg);
    n.call(|a, ctx| a.start(ctx));
    let first = n.timers.iter().map(|t| t.0).min().unwrap();
    assert!(first < ms(1000), "random phase within the first interval");
    n.run_until(first + ms(2500));
    let hellos: Vec<(Packet, AodvMsg)> = Node::sent(&n.take());
    assert_eq!(hellos.len(), 3, "one per second");
    for (p, m) in &hellos {
        assert_eq!(m.kind(), MsgKind::Hello);
        assert_eq!((p.ttl, p.dst, p.size), (1, BROADCAST, 48));
    }
    // A route through 2 (learnt from a RREP) with a precursor 0.
    n.receive(0, BROADCAST, 5, rreq(0, 1, 1, 9, None, 0));
    n.receive(2, 1, 64, AodvMsg::Rrep(Rrep { hop_count: 1, dst: 9, dst_seq: 3, orig: 0, lifetime_ms: 6000 }));
    n.take();
    // Neighbour 0 keeps talking (HELLOs); 2 goes silent.
    let heard_2 = n.now;
    for k in 1..=2 {
        n.run_until(heard_2 + ms(700 * k));
        n.receive(0, BROADCAST, 1, AodvMsg::hello(0, 1, 2000));
    }
    n.run_until(heard_2 + ms(2099));
    assert!(n.proto.table().active(9, n.now).is_some(), "not lost before ALLOWED_HELLO_LOSS * HELLO_INTERVAL + slack");
    n.run_until(heard_2 + ms(2100));
    let acts = n.take();
    let rerrs: Vec<_> = Node::sent(&acts).into_iter().filter(|(_, m)| m.kind() == MsgKind::Rerr).collect();
    assert_eq!(rerrs.len(), 1, "{acts:?}");
    let (p, AodvMsg::Rerr(e)) = rerrs[0] else { panic!() };
    // Both the neighbour itself (sequence number unknown: 0) and the
    // destination behind it (3 + 1) are unreachable; 0 is a precursor of both.
    assert_eq!((p.dst, e.dests()), (0, &[(2, 0), (9, 4)][..]));
    assert!(acts.iter().any(|a| matches!(a, NetAction::Reclaim { next_hop: 2 })));
    assert_eq!(n.proto.stats().event_count("link_breaks_hello"), 1);
    assert!(n.proto.table().active(0, n.now).is_some(), "the talking neighbour is kept");
    // With HELLO detection only, a MAC failure just drops the packet (RET).
    n.call(|a, ctx| a.on_link_failure(ctx, data(5, 0, 0, 3).with_next_hop(0)));
    assert_eq!(Node::drops(&n.take()), vec![(5, DropReason::Ret)]);
    assert!(n.proto.table().active(0, n.now).is_some());
}

#[test]
fn hello_suppressed_after_a_recent_broadcast() {
    let cfg = AodvConfig { link_detection: LinkDetection::Hello, jitter: Time::ZERO, ..AodvConfig::default() };
    let mut n = node(1, cfg);
    n.call(|a, ctx| a.start(ctx));
    let first = n.timers.iter().map(|t| t.0).min().unwrap();
    n.run_until(first);
    assert_eq!(Node::sent(&n.take()).len(), 1);
    // A RREQ forwarded half an interval later counts as a broadcast.
    n.run_until(first + ms(500));
    n.receive(0, BROADCAST, 5, rreq(0, 1, 1, 9, None, 0));
    assert_eq!(Node::sent(&n.take()).len(), 1);
    n.run_until(first + ms(1000));
    assert!(Node::sent(&n.take()).is_empty(), "HELLO skipped: a broadcast went out within the interval");
    n.run_until(first + ms(2000));
    assert_eq!(Node::sent(&n.take()).len(), 1);
}

#[test]
fn local_repair_buffers_and_rediscovers() {
    let cfg = AodvConfig { local_repair: true, ..mac_only() };
    let mut n = node(1, cfg);
    n.receive(0, BROADCAST, 5, rreq(0, 1, 1, 2, None, 0));
    n.receive(3, 1, 64, AodvMsg::Rrep(Rrep { hop_count: 1, dst: 2, dst_seq: 4, orig: 0, lifetime_ms: 6000 }));
    n.take();
    n.call(|a, ctx| a.on_link_failure(ctx, data(11, 0, 2, 0).with_next_hop(3)));
    let acts = n.take();
    assert!(Node::drops(&acts).is_empty(), "the packet is kept for the repair");
    let sent = Node::sent(&acts);
    // The lost neighbour 3 itself is reported (0 was told to use it), the
    // destination under repair is not.
    let rerr_dests: Vec<NodeId> = sent
        .iter()
        .flat_map(|(_, m)| match m {
            AodvMsg::Rerr(e) => e.dests().iter().map(|d| d.0).collect(),
            _ => vec![],
        })
        .collect();
    assert_eq!(rerr_dests, vec![3]);
    let rreqs: Vec<_> = sent.iter().filter(|(_, m)| m.kind() == MsgKind::Rreq).collect();
    assert_eq!(rreqs.len(), 1);
    let (p, AodvMsg::Rreq(q)) = *rreqs[0] else { panic!() };
    // TTL = max(MIN_REPAIR_TTL = 2 hops, 1/2 of 1 hop back) + LOCAL_ADD_TTL.
    assert_eq!((p.ttl, q.dst, q.dst_seq), (4, 2, 5));
    assert_eq!(n.proto.buffered(), 1);
    // Packets in transit for 2 wait too.
    n.call(|a, ctx| a.route(ctx, data(12, 0, 2, 0), Origin::Forward));
    assert!(n.take().is_empty());
    // A RREP through 4, three hops: longer than before, so a RERR with 'N'.
    n.receive(4, 1, 64, AodvMsg::Rrep(Rrep { hop_count: 2, dst: 2, dst_seq: 5, orig: 1, lifetime_ms: 6000 }));
    let acts = n.take();
    let nh: Vec<(u64, NodeId)> = acts
        .iter()
        .filter_map(|a| match a {
            NetAction::Transmit(p) if !p.is_control() => Some((p.uid, p.next_hop)),
            _ => None,
        })
        .collect();
    assert_eq!(nh, vec![(11, 4), (12, 4)]);
    let rerr: Vec<Rerr> = Node::sent(&acts)
        .into_iter()
        .filter_map(|(_, m)| match m {
            AodvMsg::Rerr(e) => Some(e),
            _ => None,
        })
        .collect();
    assert!(rerr.len() == 1 && rerr[0].no_delete, "{rerr:?}");
    assert_eq!(n.proto.stats().event_count("local_repairs_succeeded"), 1);
}

#[test]
fn failed_local_repair_sends_rerr_and_drops() {
    let cfg = AodvConfig { local_repair: true, ..mac_only() };
    let mut n = node(1, cfg);
    n.receive(0, BROADCAST, 5, rreq(0, 1, 1, 2, None, 0));
    n.receive(3, 1, 64, AodvMsg::Rrep(Rrep { hop_count: 1, dst: 2, dst_seq: 4, orig: 0, lifetime_ms: 6000 }));
    n.take();
    n.call(|a, ctx| a.on_link_failure(ctx, data(11, 0, 2, 0).with_next_hop(3)));
    n.take();
    n.run_until(ms(479));
    assert!(n.take().is_empty());
    n.run_until(ms(480)); // RING_TRAVERSAL_TIME for TTL 4
    let acts = n.take();
    assert_eq!(Node::drops(&acts), vec![(11, DropReason::Nrte)]);
    let (p, AodvMsg::Rerr(e)) = Node::sent(&acts)[0] else { panic!("{acts:?}") };
    assert_eq!((p.dst, e.no_delete, e.dests()), (0, false, &[(2, 5)][..]));
    assert_eq!(n.proto.stats().event_count("local_repair_failures"), 1);
}

fn tcp_data(uid: u64, src: NodeId, dst: NodeId, prev: NodeId, elfn: bool) -> Packet {
    let seg = crate::net::TcpSeg { sport: 7, dport: 7, seq: 2920, len: 1460, elfn, ..Default::default() };
    Packet { body: Body::Tcp(seg), size: 1500, ..data(uid, src, dst, prev) }
}

#[test]
fn elfn_notice_rides_on_the_rerr_to_the_tcp_source() {
    use crate::net::LinkFailureNotice;
    let want = LinkFailureNotice { src: 0, dst: 2, sport: 7, dport: 7, seq: 2920 };
    let mut n = relay_with_route();
    n.now = ms(100);
    n.call(|a, ctx| a.route(ctx, tcp_data(11, 0, 2, 0, true), Origin::Forward));
    let NetAction::Transmit(p) = n.take()[0] else { panic!() };
    n.call(|a, ctx| a.on_link_failure(ctx, p));
    let acts = n.take();
    let sent = Node::sent(&acts);
    assert_eq!(sent.len(), 1, "{sent:?}");
    let (p, AodvMsg::RerrElfn(e)) = sent[0] else { panic!("{sent:?}") };
    assert_eq!((p.dst, e.dst, e.seq, e.notice), (0, 2, 5, want));
    assert_eq!(p.size, 60);
    assert_eq!(n.proto.stats().sent_of("RERR"), 1, "counted as a RERR");
    assert_eq!(Node::drops(&acts), vec![(11, DropReason::Cbk)]);
    assert!(n.proto.table().active(2, n.now).is_none());
    // Case (ii): data in transit with no route also gets a notice.
    n.call(|a, ctx| a.route(ctx, tcp_data(12, 0, 2, 0, true), Origin::Forward));
    let (_, m) = Node::sent(&n.take())[0];
    assert!(matches!(m, AodvMsg::RerrElfn(e) if e.notice == want));
    // The source: the RERR invalidates its route and the notice goes up.
    let mut s = node(0, mac_only());
    s.receive(1, 0, 64, AodvMsg::Rrep(Rrep { hop_count: 1, dst: 2, dst_seq: 3, orig: 0, lifetime_ms: 6000 }));
    s.take();
    s.receive(1, 0, 1, m);
    let acts = s.take();
    assert!(acts.iter().any(|a| matches!(a, NetAction::Notify(x) if *x == want)), "{acts:?}");
    assert!(s.proto.table().active(2, s.now).is_none());
    assert_eq!(s.proto.stats().event_count("elfn_notices_delivered"), 1);
    // A relay between them passes the notice on to its precursor.
    let mut r = relay_with_route();
    r.receive(2, 1, 1, AodvMsg::RerrElfn(RerrElfn { no_delete: false, dst: 2, seq: 9, notice: want }));
    let sent = Node::sent(&r.take());
    assert!(
        matches!(sent[..], [(p, AodvMsg::RerrElfn(e))] if p.dst == 0 && e.notice == want && e.seq == 9),
        "{sent:?}"
    );
    // A segment whose sender did not ask: the plain RERR.
    let mut n = relay_with_route();
    n.call(|a, ctx| a.route(ctx, tcp_data(13, 0, 2, 0, false), Origin::Forward));
    let NetAction::Transmit(p) = n.take()[0] else { panic!() };
    n.call(|a, ctx| a.on_link_failure(ctx, p));
    assert!(matches!(Node::sent(&n.take())[..], [(_, AodvMsg::Rerr(_))]));
}

#[path = "ns2_quirks_tests.rs"]
mod ns2_quirks_tests;

#[path = "ns2_timing_tests.rs"]
mod ns2_timing_tests;

#[test]
fn received_counts_and_duplicates_reach_the_report() {
    let mut n = node(5, mac_only());
    assert!(n.proto.stats().received.is_empty() && !n.proto.stats().events.contains_key("rreq_duplicates"));
    n.receive(1, BROADCAST, 3, rreq(0, 1, 1, 9, None, 0));
    n.receive(2, BROADCAST, 3, rreq(0, 1, 1, 9, None, 1));
    n.receive(3, BROADCAST, 3, rreq(0, 1, 1, 9, None, 2));
    n.receive(3, BROADCAST, 1, AodvMsg::hello(3, 4, 2000));
    let s = n.proto.stats();
    assert_eq!(s.received.keys().collect::<Vec<_>>(), ["HELLO", "RREQ"], "kinds never heard are not named");
    assert_eq!(s.received["RREQ"].packets, 3);
    assert_eq!(s.received["RREQ"].bytes, 3 * (IP_HEADER_BYTES + rreq(0, 1, 1, 9, None, 0).l4_bytes()) as u64);
    assert_eq!(s.received["HELLO"].packets, 1);
    assert_eq!(s.event_count("rreq_duplicates"), 2);
}

#[test]
fn hot_fields_lead_the_box() {
    use std::mem::offset_of;
    // What a packet heard reads or writes: the table's map and counts, the
    // node id and timer flags, the received counters, the RREQ cache, the
    // configuration's first fields, then the send buffer (`Aodv`).
    assert_eq!(std::mem::align_of::<Aodv>(), 64);
    assert_eq!(offset_of!(Aodv, table), 0);
    let cfg = offset_of!(Aodv, cfg);
    let hot_end = cfg + offset_of!(AodvConfig, active_route_timeout) + 8;
    assert!(hot_end <= 5 * 64, "{hot_end}");
    for f in [offset_of!(Aodv, received), offset_of!(Aodv, cache), offset_of!(Aodv, me)] {
        assert!(f < cfg);
    }
    assert_eq!(offset_of!(Aodv, buffer), cfg + std::mem::size_of::<AodvConfig>());
    assert!(offset_of!(AodvConfig, link_detection) < offset_of!(AodvConfig, node_traversal_time));
}
