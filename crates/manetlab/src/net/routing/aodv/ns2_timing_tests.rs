//! `rreq_timing = "ns2"` (ns-2.35 `sendRequest`, `PerHopTime`, `rt_purge`)
//! and quirk 4 (the destination's new sequence number, `recvRequest`).

use super::*;

fn ns2_timing() -> AodvConfig {
    AodvConfig { rreq_timing: RreqTiming::Ns2, ..mac_only() }
}

/// The RREQs (time, TTL) among the actions.
fn rreqs(now: Time, acts: &[NetAction]) -> Vec<(Time, u8)> {
    Node::sent(acts).into_iter().filter(|(_, m)| matches!(m, AodvMsg::Rreq(_))).map(|(p, _)| (now, p.ttl)).collect()
}

#[test]
fn next_rreq_waits_for_a_packet_or_the_half_second_poll() {
    let mut n = node(0, AodvConfig { net_diameter: 5, ..ns2_timing() });
    let mut sent = Vec::new();
    n.call(|a, ctx| a.route(ctx, data(1, 0, 9, 0), Origin::Local));
    sent.extend(rreqs(n.now, &n.take()));
    // The destination never had a route (ns-2: INFINITY2 hops), so the
    // first request floods at NET_DIAMETER (no ring) and waits 2 x TTL 5 x
    // NODE_TRAVERSAL_TIME (40 ms) = 400 ms; when that ends nothing is sent
    // (ns-2 has no retry timer).
    n.run_until(ms(450));
    assert!(n.take().is_empty(), "nothing at the end of the wait");
    // The next packet the node originates asks again at once (rt_resolve).
    n.call(|a, ctx| a.route(ctx, data(2, 0, 9, 0), Origin::Local));
    sent.extend(rreqs(n.now, &n.take()));
    // The second network-wide request waits twice as long (800 ms, until
    // 1250 ms); no packet comes: the 0.5 s poll (rt_purge) sends the next
    // one, since packets wait.
    n.run_until(ms(1499));
    assert!(n.take().is_empty());
    n.run_until(ms(1500));
    sent.extend(rreqs(n.now, &n.take()));
    assert_eq!(sent, vec![(ms(0), 5), (ms(450), 5), (ms(1500), 5)]);

    // RFC timing: an expanding ring from TTL_START with a timer per RREQ,
    // 2 x 40 ms x (TTL + 2) = 240 ms for TTL 1.
    let mut n = node(0, mac_only());
    n.call(|a, ctx| a.route(ctx, data(1, 0, 9, 0), Origin::Local));
    assert_eq!(rreqs(n.now, &n.take()), vec![(ms(0), 1)]);
    n.run_until(ms(240));
    assert_eq!(rreqs(n.now, &n.take()), vec![(ms(240), 3)]);
}

#[test]
fn the_wait_follows_the_measured_per_hop_latency() {
    let mut n = node(0, ns2_timing());
    n.call(|a, ctx| a.route(ctx, data(1, 0, 9, 0), Origin::Local));
    n.take();
    // The reply comes 12 ms later over 3 hops: 4 ms per hop.
    n.run_until(ms(12));
    n.receive(1, 0, 64, AodvMsg::Rrep(Rrep { hop_count: 2, dst: 9, dst_seq: 5, orig: 0, lifetime_ms: 3000 }));
    assert_eq!(Node::sent(&n.take()).len(), 0);
    assert!(n.proto.table().active(9, n.now).is_some());
    // The route breaks; the next discovery starts at TTL 3 + 2 = 5 and waits
    // 2 x 5 x 4 ms = 40 ms: a packet at +39 ms does not ask, one at +41 ms does.
    n.run_until(ms(100));
    n.call(|a, ctx| a.on_link_failure(ctx, data(2, 0, 9, 0).with_next_hop(1)));
    n.call(|a, ctx| a.route(ctx, data(3, 0, 9, 0), Origin::Local));
    assert_eq!(rreqs(n.now, &n.take()), vec![(ms(100), 5)]);
    n.run_until(ms(139));
    n.call(|a, ctx| a.route(ctx, data(4, 0, 9, 0), Origin::Local));
    assert!(rreqs(n.now, &n.take()).is_empty(), "still within the wait");
    n.run_until(ms(141));
    n.call(|a, ctx| a.route(ctx, data(5, 0, 9, 0), Origin::Local));
    assert_eq!(rreqs(n.now, &n.take()), vec![(ms(141), 7)]);
    // From TTL_THRESHOLD (7) on, the next one floods the network.
    n.run_until(ms(200));
    n.call(|a, ctx| a.route(ctx, data(6, 0, 9, 0), Origin::Local));
    assert_eq!(rreqs(n.now, &n.take()), vec![(ms(200), 35)]);
}

#[test]
fn a_route_that_went_down_at_7_hops_or_more_asks_network_wide_at_once() {
    // ns-2.35 `sendRequest`: the ring grows from the hop count the route
    // had when it went down; from TTL_THRESHOLD hops on there is no ring.
    for (hops, want) in [(7u8, 35u8), (9, 35), (4, 6)] {
        let mut n = node(0, ns2_timing());
        n.call(|a, ctx| a.route(ctx, data(1, 0, 9, 0), Origin::Local));
        assert_eq!(rreqs(n.now, &n.take()), vec![(ms(0), 35)], "never up: no ring");
        n.run_until(ms(20));
        let rrep = Rrep { hop_count: hops - 1, dst: 9, dst_seq: 5, orig: 0, lifetime_ms: 3000 };
        n.receive(1, 0, 64, AodvMsg::Rrep(rrep));
        n.take();
        n.run_until(ms(100));
        n.call(|a, ctx| a.on_link_failure(ctx, data(2, 0, 9, 0).with_next_hop(1)));
        n.call(|a, ctx| a.route(ctx, data(3, 0, 9, 0), Origin::Local));
        assert_eq!(rreqs(n.now, &n.take()), vec![(ms(100), want)], "{hops} hops");
    }
}

#[test]
fn quirk_4_the_destination_always_answers_with_a_new_sequence_number() {
    for (quirks, want) in [(true, 4), (false, 3)] {
        let mut n = node(2, AodvConfig { ns2_quirks: quirks, ..mac_only() });
        // Make the destination's own number 3 (three RREQs of its own).
        for i in 0..3 {
            n.call(|a, ctx| a.route(ctx, data(10 + i, 2, 7 + i as NodeId, 2), Origin::Local));
        }
        n.take();
        assert_eq!(n.proto.own_seq(), 3);
        // A request that already knows sequence number 3.
        n.receive(1, BROADCAST, 5, rreq(0, 1, 1, 2, Some(3), 1));
        let rrep = Node::sent(&n.take()).into_iter().find_map(|(_, m)| match m {
            AodvMsg::Rrep(r) => Some(r),
            _ => None,
        });
        assert_eq!(rrep.map(|r| r.dst_seq), Some(want), "ns2_quirks = {quirks}");
    }
}
