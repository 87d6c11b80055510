//! `ns2_quirks` (ns-2.35 `aodv.cc` behaviours, issue 24 item 3).

use super::*;

fn quirks() -> AodvConfig {
    AodvConfig { local_repair: true, ns2_quirks: true, ..mac_only() }
}

/// Relay 1, three hops from the source 0 (via 5), two from the destination
/// 2 (via 3, sequence number 4); at 1 s its link to 3 fails.
fn relay_in_repair(cfg: AodvConfig) -> (Node, Vec<NetAction>) {
    let mut n = node(1, cfg);
    n.run_until(ms(1000));
    n.receive(5, BROADCAST, 5, rreq(0, 1, 1, 2, None, 2));
    n.receive(3, 1, 64, AodvMsg::Rrep(Rrep { hop_count: 1, dst: 2, dst_seq: 4, orig: 0, lifetime_ms: 60_000 }));
    n.take();
    n.call(|a, ctx| a.on_link_failure(ctx, data(11, 0, 2, 5).with_next_hop(3)));
    let acts = n.take();
    (n, acts)
}

#[test]
fn repair_rejects_an_equal_sequence_rrep_that_is_not_shorter() {
    let (mut n, acts) = relay_in_repair(quirks());
    assert!(Node::drops(&acts).is_empty(), "the packet is kept for the repair");
    let rreq: Vec<Rreq> = Node::sent(&acts)
        .into_iter()
        .filter_map(|(_, m)| match m {
            AodvMsg::Rreq(q) => Some(q),
            _ => None,
        })
        .collect();
    assert_eq!(rreq.len(), 1);
    assert_eq!(Node::sent(&acts).len(), 1, "only the RREQ: no RERR for the neighbour (rt_ll_failed returns)");
    assert!(n.proto.table().active(3, n.now).is_some(), "the route to the neighbour itself stays up");
    assert_eq!(rreq[0].dst_seq, 4, "ns-2.35 does not increment the sequence number at a repair");
    // Node 3 still has its route: its reply is as long as the old route
    // (2 hops) with the same sequence number: rejected, nothing sent.
    n.receive(3, 1, 64, AodvMsg::Rrep(Rrep { hop_count: 1, dst: 2, dst_seq: 4, orig: 1, lifetime_ms: 6000 }));
    assert!(n.take().is_empty());
    assert_eq!(n.proto.stats().event_count("ns2_rrep_rejected_in_repair"), 1);
    assert_eq!(n.proto.buffered(), 1);
    // The destination's own reply has a newer sequence number: accepted,
    // even though it is longer (3 hops), and no RERR for the longer route.
    n.receive(4, 1, 64, AodvMsg::Rrep(Rrep { hop_count: 2, dst: 2, dst_seq: 6, orig: 1, lifetime_ms: 6000 }));
    let acts = n.take();
    let out: Vec<(u64, NodeId)> = acts
        .iter()
        .filter_map(|a| match a {
            NetAction::Transmit(p) => Some((p.uid, p.next_hop)),
            _ => None,
        })
        .collect();
    assert_eq!(out, vec![(11, 4)]);

    // Without the switch the same reply from 3 repairs the route (RFC 3561:
    // the sequence number was incremented, and an invalid route takes an
    // equal one).
    let (mut n, acts) = relay_in_repair(AodvConfig { ns2_quirks: false, ..quirks() });
    let q = Node::sent(&acts).into_iter().find_map(|(_, m)| match m {
        AodvMsg::Rreq(q) => Some(q),
        _ => None,
    });
    assert_eq!(q.unwrap().dst_seq, 5);
    n.receive(3, 1, 64, AodvMsg::Rrep(Rrep { hop_count: 1, dst: 2, dst_seq: 5, orig: 1, lifetime_ms: 6000 }));
    assert!(n.take().iter().any(|a| matches!(a, NetAction::Transmit(p) if p.uid == 11)));
}

#[test]
fn repair_is_tried_only_past_the_middle_of_the_route() {
    // Relay 1 one hop from the source and two from the destination: no repair.
    let mut n = node(1, quirks());
    n.receive(0, BROADCAST, 5, rreq(0, 1, 1, 2, None, 0));
    n.receive(3, 1, 64, AodvMsg::Rrep(Rrep { hop_count: 1, dst: 2, dst_seq: 4, orig: 0, lifetime_ms: 6000 }));
    n.take();
    n.call(|a, ctx| a.on_link_failure(ctx, data(11, 0, 2, 0).with_next_hop(3)));
    assert_eq!(Node::drops(&n.take()), vec![(11, DropReason::Cbk)]);
    assert_eq!(n.proto.stats().event_count("local_repairs"), 0);
}

#[test]
fn repair_give_up_timer_fires_at_twice_the_start_time() {
    let (mut n, _) = relay_in_repair(quirks());
    // Started at 1 s, first RREQ waits RING_TRAVERSAL_TIME(TTL 4) = 480 ms:
    // the give-up timer is due at 1 s + (1 s + 0.48 s) = 2.48 s. Until then
    // the repair goes on as a discovery (TTL 6, 35, ...) instead of
    // failing at 1.48 s.
    n.run_until(ms(2479));
    assert!(Node::drops(&n.out).is_empty(), "{:?}", n.out);
    assert_eq!(n.proto.stats().event_count("local_repair_failures"), 0);
    assert!(n.proto.stats().sent_of("RREQ") >= 2);
    // (The RERR for the lost neighbour 3 itself went out at the break.)
    let rerrs = n.proto.stats().sent_of("RERR");
    n.run_until(ms(2480));
    let s = n.proto.stats();
    assert_eq!(s.event_count("ns2_repair_deadlines"), 1);
    let r = n.proto.table().get(2).unwrap();
    assert_eq!(r.state, RouteState::Invalid, "brought down, no RERR");
    assert_eq!(s.sent_of("RERR"), rerrs);
    // The waiting packet asks for a route again (ns-2's rt_purge).
    assert!(n.proto.discovering(2));
    assert_eq!(n.proto.buffered(), 1);
}

#[test]
fn exhausted_retries_drop_the_buffer_and_hold_off_for_ten_seconds() {
    let mut n = node(0, quirks());
    n.call(|a, ctx| a.route(ctx, data(7, 0, 9, 0), Origin::Local));
    // TTL 1, 3, 5, 7, then NET_DIAMETER three times, as without the switch.
    let give_up = Time::from_ms(240 + 400 + 560 + 720 + 2800 + 5600 + 11_200);
    n.run_until(give_up - ms(1));
    assert!(Node::drops(&n.out).is_empty());
    n.run_until(give_up);
    assert_eq!(Node::drops(&n.out), vec![(7, DropReason::Nrte)]);
    assert_eq!(n.proto.stats().event_count("ns2_rreq_holdoffs"), 1);
    let rreqs = n.proto.stats().sent_of("RREQ");
    assert_eq!(rreqs, 7);
    // A new packet within the 10 s waits without a RREQ ...
    n.run_until(give_up + ms(3000));
    n.call(|a, ctx| a.route(ctx, data(8, 0, 9, 0), Origin::Local));
    n.run_until(give_up + ms(9999));
    assert_eq!(n.proto.stats().sent_of("RREQ"), rreqs);
    assert_eq!(n.proto.buffered(), 1);
    // ... and the hold-off's end sends one, network-wide.
    n.take();
    n.run_until(give_up + ms(10_000));
    let sent = Node::sent(&n.take());
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].0.ttl, 35);
}
