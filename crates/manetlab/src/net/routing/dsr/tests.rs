//! Protocol unit tests: one `Dsr` instance driven directly, its actions
//! inspected (no radio, no MAC).

use super::*;
use crate::net::routing::NetAction;
use crate::net::{FLOW_NONE, IP_HEADER_BYTES};

type Node = super::super::harness::Harness<Dsr>;

fn node(me: NodeId, cfg: DsrConfig) -> Node {
    Node::new(me, Dsr::new(me, cfg))
}

impl Node {}

fn sent(acts: &[NetAction]) -> Vec<Packet> {
    acts.iter()
        .filter_map(|a| match a {
            NetAction::Transmit(p) => Some(*p),
            _ => None,
        })
        .collect()
}

fn data(uid: u64, src: NodeId, dst: NodeId) -> Packet {
    Packet {
        uid,
        src,
        dst,
        ttl: 64,
        dscp: 0,
        size: 532,
        next_hop: dst,
        prev_hop: src,
        created: Time::ZERO,
        flow: 0,
        body: Body::Udp { sport: 1, dport: 1, seq: uid },
        sr: SourceRoute::EMPTY,
    }
}

#[test]
fn packet_stays_small() {
    let n = std::mem::size_of::<Packet>();
    assert!(n <= 160, "Packet is {n} bytes");
    assert_eq!(std::mem::size_of::<SourceRoute>(), 36);
}

#[test]
fn ring_zero_then_backoff_doubling_to_the_maximum() {
    // Without jitter, to read the schedule exactly (jitter: next test).
    let mut n = node(0, DsrConfig { jitter: Time::ZERO, ..DsrConfig::default() });
    n.call(|d, ctx| d.route(ctx, data(1, 0, 9), Origin::Local));
    let out = n.take();
    let reqs = sent(&out);
    assert_eq!(reqs.len(), 1);
    assert_eq!((reqs[0].ttl, reqs[0].dst), (1, BROADCAST));
    assert_eq!(reqs[0].size, IP_HEADER_BYTES + 4 + 8 + 4);
    assert!(reqs[0].is_control() && reqs[0].flow == FLOW_NONE);
    assert_eq!(n.proto.buffered(), 1);
    // Request times: 0 (ring 0), 30 ms, then +2, +8, +10 s (ns-2.35
    // BackOffTest: 0.5 s × 4^k, at most 10 s).
    let mut times = Vec::new();
    let mut t = Time::ZERO;
    while t < Time::from_secs(40) {
        t += Time::from_ms(10);
        n.run_until(t);
        for p in sent(&n.take()) {
            if matches!(p.body, Body::Dsr(DsrMsg::Rreq { .. })) {
                times.push((n.now.as_ns() / 1_000_000, p.ttl));
            }
        }
    }
    let got: Vec<u64> = times.iter().map(|&(ms, _)| ms).collect();
    assert_eq!(got, [30, 2030, 10030, 20030], "{times:?}");
    assert!(times.iter().all(|&(_, ttl)| ttl as usize == MAX_SR_LEN));
    // The send buffer times out after 30 s (NRTE), ending the discovery.
    assert_eq!(n.proto.buffered(), 0);
    assert!(n.proto.stats.to_stats().event_count("send_buffer_timeouts") == 1);
}

/// Request times (ms, TTL) of a discovery for node 9 started at `start` on
/// `n`, up to `until`.
fn request_times(n: &mut Node, start: Time, until: Time) -> Vec<(u64, u8)> {
    n.run_until(start);
    n.call(|d, ctx| d.route(ctx, data(2, 0, 9), Origin::Local));
    let mut times: Vec<(u64, u8)> = sent(&n.take()).iter().map(|p| (n.now.as_ns() / 1_000_000, p.ttl)).collect();
    let mut t = start;
    while t < until {
        t += Time::from_ms(10);
        n.run_until(t);
        for p in sent(&n.take()) {
            if matches!(p.body, Body::Dsr(DsrMsg::Rreq { .. })) {
                times.push((n.now.as_ns() / 1_000_000, p.ttl));
            }
        }
    }
    times
}

#[test]
fn request_backoff_persists_across_discoveries_until_a_reply() {
    let cfg = DsrConfig { jitter: Time::ZERO, ..DsrConfig::default() };
    let run = |persist: bool| {
        let mut n = node(0, DsrConfig { request_backoff_persists: persist, ..cfg.clone() });
        // A first discovery that fails: requests at 0.03, 2.03, 10.03, 20.03 s.
        request_times(&mut n, Time::ZERO, Time::from_secs(31));
        // A second one from 35 s.
        let t = request_times(&mut n, Time::from_secs(35), Time::from_secs(48));
        (n, t)
    };
    let (mut n, kept) = run(true);
    // ns-2: ring 0 at once; the propagating request may go (the last was
    // 15 s ago, more than the 10-s cap), then the next only 10 s later.
    assert_eq!(kept, [(35000, 1), (35030, 16), (45030, 16)]);
    let (_, fresh) = run(false);
    assert_eq!(fresh, [(35000, 1), (35030, 16), (37030, 16), (45030, 16)]);
    // A route reply for 9 clears the backoff: the next discovery after it
    // starts again at 0.5 s × 4.
    let mut rrep = data(0, 9, 0);
    rrep.flow = FLOW_NONE;
    rrep.body = Body::Dsr(DsrMsg::Rrep { route: SourceRoute::from_path(&[0, 5, 9]).unwrap(), from_cache: false });
    n.call(|d, ctx| d.on_control(ctx, &rrep));
    n.take();
    // The route breaks at once: a new discovery, with a fresh backoff.
    let mut p = data(3, 0, 9);
    p.sr = SourceRoute::from_path(&[0, 5, 9]).unwrap();
    p.sr.cur = 1;
    p.next_hop = 5;
    let t0 = n.now;
    n.call(|d, ctx| d.on_link_failure(ctx, p));
    let mut rel: Vec<(u64, u8)> = sent(&n.take()).iter().filter(|p| p.dst == BROADCAST).map(|p| (0, p.ttl)).collect();
    let mut t = t0;
    while t < t0 + Time::from_secs(3) {
        t += Time::from_ms(10);
        n.run_until(t);
        for p in sent(&n.take()).iter().filter(|p| p.dst == BROADCAST) {
            rel.push(((n.now - t0).as_ns() / 1_000_000, p.ttl));
        }
    }
    assert_eq!(rel, [(0, 1), (30, 16), (2030, 16)]);
}

#[test]
fn originated_requests_are_jittered_by_up_to_10_ms() {
    // ns-2.35 dsragent.cc jitters every route request (RREQ_JITTER, 10 ms),
    // the originator's included.
    let mut delays = Vec::new();
    for me in 0..20 {
        let mut n = node(me, DsrConfig::default());
        n.call(|d, ctx| d.route(ctx, data(1, me, 99), Origin::Local));
        assert!(sent(&n.take()).is_empty(), "parked, not sent at once");
        let mut t = Time::ZERO;
        while sent(&n.out).is_empty() {
            t += Time::from_us(100);
            n.run_until(t);
        }
        delays.push(t);
    }
    assert!(delays.iter().all(|&d| d <= Time::from_ms(10)), "{delays:?}");
    let mut distinct = delays.clone();
    distinct.sort();
    distinct.dedup();
    assert!(distinct.len() >= 15, "drawn per node: {delays:?}");
}

#[test]
fn target_replies_on_reversed_record_and_intermediate_from_cache() {
    // Node 3 receives a request from 0 recorded as 0-1-2 for target 3.
    let mut t = node(3, DsrConfig::default());
    let mut rreq = data(0, 0, BROADCAST);
    rreq.flow = FLOW_NONE;
    rreq.body = Body::Dsr(DsrMsg::Rreq { target: 3, id: 7, last_error: None });
    rreq.sr = SourceRoute::from_path(&[0, 1, 2]).unwrap();
    rreq.prev_hop = 2;
    t.call(|d, ctx| d.on_control(ctx, &rreq));
    let out = sent(&t.take());
    assert_eq!(out.len(), 1);
    let rep = out[0];
    assert_eq!((rep.dst, rep.next_hop), (0, 2));
    assert_eq!(rep.sr.path(), vec![3, 2, 1, 0]);
    match rep.body {
        Body::Dsr(DsrMsg::Rrep { route, from_cache }) => {
            assert_eq!(route.path(), vec![0, 1, 2, 3]);
            assert!(!from_cache);
        }
        b => panic!("{b:?}"),
    }
    assert_eq!(t.proto.cache().find(0, Time::ZERO), Some(vec![3, 2, 1, 0]));

    // Node 2 has 2-5-3 cached; a request 0-1 for 3 is answered from cache,
    // unless cache replies are off (then it is propagated).
    for replies in [true, false] {
        let mut m = node(2, DsrConfig { cache_replies: replies, jitter: Time::ZERO, ..DsrConfig::default() });
        m.proto.cache.add_asked(&[2, 5, 3], Time::ZERO);
        let mut q = rreq;
        q.sr = SourceRoute::from_path(&[0, 1]).unwrap();
        q.ttl = 10;
        m.call(|d, ctx| d.on_control(ctx, &q));
        let out = sent(&m.take());
        assert_eq!(out.len(), 1);
        match out[0].body {
            Body::Dsr(DsrMsg::Rrep { route, from_cache }) => {
                assert!(replies);
                assert!(from_cache);
                assert_eq!(route.path(), vec![0, 1, 2, 5, 3]);
                assert_eq!(out[0].sr.path(), vec![2, 1, 0]);
            }
            Body::Dsr(DsrMsg::Rreq { .. }) => {
                assert!(!replies);
                assert_eq!(out[0].sr.path(), vec![0, 1, 2]);
                assert_eq!(out[0].ttl, 9);
            }
            b => panic!("{b:?}"),
        }
        // The same request again is discarded.
        m.call(|d, ctx| d.on_control(ctx, &q));
        assert!(sent(&m.take()).is_empty());
    }
}

#[test]
fn link_failure_sends_route_error_and_salvages() {
    // Node 2 forwards 0-1-2-3-4; its link to 3 fails; it has 2-6-4 cached.
    let mut n = node(2, DsrConfig::default());
    n.proto.cache.add_asked(&[2, 6, 4], Time::ZERO);
    let mut p = data(5, 0, 4);
    p.sr = SourceRoute::from_path(&[0, 1, 2, 3, 4]).unwrap();
    p.sr.cur = 3;
    p.next_hop = 3;
    p.size += p.sr.header_bytes();
    n.call(|d, ctx| d.on_link_failure(ctx, p));
    let out = n.take();
    let tx = sent(&out);
    assert_eq!(tx.len(), 2, "{out:?}");
    let err = tx.iter().find(|p| p.is_control()).unwrap();
    assert_eq!(err.body, Body::Dsr(DsrMsg::Rerr { link: Link { from: 2, to: 3 }, elfn: None }));
    assert_eq!((err.dst, err.next_hop), (0, 1));
    assert_eq!(err.sr.path(), vec![2, 1, 0]);
    let salvaged = tx.iter().find(|p| !p.is_control()).unwrap();
    assert_eq!(salvaged.sr.path(), vec![2, 6, 4]);
    assert_eq!((salvaged.next_hop, salvaged.sr.salvaged, salvaged.sr.cur), (6, 1, 1));
    assert_eq!(salvaged.size, 532 + 12);
    assert!(out.iter().any(|a| matches!(a, NetAction::Reclaim { next_hop: 3 })));
    assert_eq!(n.proto.stats.to_stats().event_count("salvaged"), 1);

    // Without salvaging (or an alternative) the packet is dropped, CBK.
    let mut n = node(2, DsrConfig { salvage: false, ..DsrConfig::default() });
    n.proto.cache.add_asked(&[2, 6, 4], Time::ZERO);
    n.call(|d, ctx| d.on_link_failure(ctx, p));
    let out = n.take();
    assert_eq!(sent(&out).len(), 1);
    assert!(out.iter().any(|a| matches!(a, NetAction::Drop(q, DropReason::Cbk) if q.uid == 5)));
}

#[test]
fn elfn_notice_rides_on_the_route_error_to_the_tcp_source() {
    use crate::net::{LinkFailureNotice, TcpSeg};
    let seg = TcpSeg { sport: 7, dport: 7, seq: 14600, len: 1460, flags: TcpSeg::ACK, elfn: true, ..TcpSeg::default() };
    let mut p = Packet { body: Body::Tcp(seg), size: 1500, ..data(5, 0, 4) };
    p.sr = SourceRoute::from_path(&[0, 1, 2, 3, 4]).unwrap();
    p.sr.cur = 3;
    p.next_hop = 3;
    p.size += p.sr.header_bytes();
    // Node 2's link to 3 breaks: its route error to 0 carries the notice.
    let mut n = node(2, DsrConfig { salvage: false, ..DsrConfig::default() });
    n.call(|d, ctx| d.on_link_failure(ctx, p));
    let err = sent(&n.take()).into_iter().find(|p| p.is_control()).unwrap();
    let want = LinkFailureNotice { src: 0, dst: 4, sport: 7, dport: 7, seq: 14600 };
    assert_eq!(err.body, Body::Dsr(DsrMsg::Rerr { link: Link { from: 2, to: 3 }, elfn: Some(want) }));
    assert_eq!(err.size, IP_HEADER_BYTES + 12 + 16 + 20, "source route header + RERR option + notice");
    assert_eq!(n.proto.stats.to_stats().event_count("elfn_notices_sent"), 1);
    // Node 1 forwards it unchanged; node 0 hands the notice to transport.
    let mut relay = node(1, DsrConfig::default());
    let mut at1 = err;
    at1.sr.cur = 1;
    relay.call(|d, ctx| d.route(ctx, at1, Origin::Forward));
    let fwd = sent(&relay.take());
    assert_eq!(fwd.len(), 1);
    assert_eq!(fwd[0].body, err.body);
    let mut src = node(0, DsrConfig::default());
    src.call(|d, ctx| d.on_control(ctx, &fwd[0]));
    let out = src.take();
    assert!(out.iter().any(|a| matches!(a, NetAction::Notify(n) if *n == want)), "{out:?}");
    // Without the flag (sender did not ask), a plain route error; a UDP
    // packet never gets a notice.
    let mut q = p;
    q.body = Body::Tcp(TcpSeg { elfn: false, ..seg });
    let mut n = node(2, DsrConfig { salvage: false, ..DsrConfig::default() });
    n.call(|d, ctx| d.on_link_failure(ctx, q));
    let err = sent(&n.take()).into_iter().find(|p| p.is_control()).unwrap();
    assert_eq!(err.body, Body::Dsr(DsrMsg::Rerr { link: Link { from: 2, to: 3 }, elfn: None }));
    // The source's own first hop: rerouted, no notice to itself.
    let mut s = node(0, DsrConfig::default());
    let mut own = p;
    own.sr.cur = 1;
    own.next_hop = 1;
    s.call(|d, ctx| d.on_link_failure(ctx, own));
    assert!(!s.take().iter().any(|a| matches!(a, NetAction::Notify(_))));
}

#[test]
fn flow_state_shows_the_route_in_three_packets_then_every_5s_and_hides_it_from_learning() {
    let cfg = DsrConfig { flow_state: true, jitter: Time::ZERO, ..DsrConfig::default() };
    let mut n = node(0, cfg.clone());
    n.proto.cache.add_asked(&[0, 1, 2, 3], Time::ZERO);
    let mut shown = Vec::new();
    let mut last = None;
    for (uid, at_ms) in [(1, 0), (2, 10), (3, 20), (4, 30), (5, 40), (6, 5100)] {
        n.run_until(Time::from_ms(at_ms));
        n.call(|d, ctx| d.route(ctx, data(uid, 0, 3), Origin::Local));
        let p = sent(&n.take())[0];
        assert_eq!(p.sr.path(), vec![0, 1, 2, 3]);
        // A shown route adds 4 + 4 × 3 bytes; a flow-only packet nothing.
        assert_eq!(p.size, 532 + if p.sr.flow { 0 } else { 16 });
        shown.push(!p.sr.flow);
        last = Some(p);
    }
    assert_eq!(shown, [true, true, true, false, false, true]);
    assert_eq!(n.proto.stats.to_stats().event_count("flows_established"), 1);
    // A broken link on the route ends the flow: the next packet shows
    // its (new) route again.
    n.call(|d, _| d.link_broken(Link { from: 1, to: 2 }));
    n.proto.cache.add_asked(&[0, 1, 4, 3], Time::ZERO);
    n.call(|d, ctx| d.route(ctx, data(7, 0, 3), Origin::Local));
    let p = sent(&n.take())[0];
    assert!(!p.sr.flow && p.sr.path() == vec![0, 1, 4, 3]);

    // A relay forwards a flow-only packet without learning from it; from
    // a shown route it learns.
    for flow in [true, false] {
        let mut r = node(1, cfg.clone());
        let mut p = last.unwrap();
        p.sr.flow = flow;
        p.sr.cur = 1;
        p.next_hop = 1;
        r.call(|d, ctx| d.route(ctx, p, Origin::Forward));
        let out = sent(&r.take());
        assert_eq!(out[0].next_hop, 2);
        assert_eq!(r.proto.cache().find(3, Time::ZERO).is_some(), !flow);
    }
}

#[test]
fn route_shortening_sends_a_gratuitous_reply_once_per_second() {
    let cfg = DsrConfig { grat_replies: true, jitter: Time::ZERO, ..DsrConfig::default() };
    let mut n = node(3, cfg);
    // 1 sends to 2 a packet on 0-1-2-3-4: node 3 hears it one hop early.
    let mut p = data(1, 0, 4);
    p.sr = SourceRoute::from_path(&[0, 1, 2, 3, 4]).unwrap();
    p.sr.cur = 2;
    p.prev_hop = 1;
    p.next_hop = 2;
    n.call(|d, ctx| d.on_overheard(ctx, &p));
    let out = sent(&n.take());
    let rep = out.iter().find(|q| matches!(q.body, Body::Dsr(DsrMsg::Rrep { .. }))).expect("a gratuitous reply");
    assert_eq!((rep.dst, rep.next_hop), (0, 1));
    assert_eq!(rep.sr.path(), vec![3, 1, 0]);
    match rep.body {
        Body::Dsr(DsrMsg::Rrep { route, .. }) => assert_eq!(route.path(), vec![0, 1, 3, 4]),
        b => panic!("{b:?}"),
    }
    assert_eq!(n.proto.cache().find(0, Time::ZERO), Some(vec![3, 1, 0]));
    // Held down for a second, then sent again.
    n.run_until(Time::from_ms(500));
    n.call(|d, ctx| d.on_overheard(ctx, &p));
    assert!(!sent(&n.take()).iter().any(|q| matches!(q.body, Body::Dsr(DsrMsg::Rrep { .. }))));
    n.run_until(Time::from_ms(1001));
    n.call(|d, ctx| d.on_overheard(ctx, &p));
    assert!(sent(&n.take()).iter().any(|q| matches!(q.body, Body::Dsr(DsrMsg::Rrep { .. }))));
    assert_eq!(n.proto.stats.to_stats().event_count("grat_replies_sent"), 2);
    // A packet to this node itself, or one it is not on, gives nothing.
    let mut n = node(5, DsrConfig { grat_replies: true, ..DsrConfig::default() });
    n.call(|d, ctx| d.on_overheard(ctx, &p));
    assert!(sent(&n.take()).is_empty());
}

/// A TCP segment from 0 to 4 that asks for ELFN notices, at relay 2 of
/// 0-1-2-3-4 on its way to 3.
fn tcp_at_relay_2(flow_only: bool) -> Packet {
    use crate::net::TcpSeg;
    let seg = TcpSeg { sport: 7, dport: 7, seq: 14600, len: 1460, flags: TcpSeg::ACK, elfn: true, ..TcpSeg::default() };
    let mut p = Packet { body: Body::Tcp(seg), size: 1500, ..data(5, 0, 4) };
    p.sr = SourceRoute::from_path(&[0, 1, 2, 3, 4]).unwrap();
    p.sr.flow = flow_only;
    p.sr.cur = 3;
    p.next_hop = 3;
    p.size += p.sr.header_bytes();
    p
}

#[test]
fn a_flow_only_packet_break_is_reported_to_the_source_at_once_as_a_source_routed_one() {
    // ns-2.35 xmitFlowFailed refills the source route from the flow table
    // and calls xmitFailed: the same route error, at the same instant.
    use crate::net::LinkFailureNotice;
    let mut errs = Vec::new();
    for flow_only in [false, true] {
        let p = tcp_at_relay_2(flow_only);
        assert_eq!(p.size, 1500 + if flow_only { 0 } else { 20 });
        let mut n = node(2, DsrConfig { flow_state: true, salvage_requests: 1, ..DsrConfig::default() });
        n.run_until(Time::from_secs(10));
        n.call(|d, ctx| d.on_link_failure(ctx, p));
        let out = sent(&n.take());
        let err = *out.iter().find(|q| q.is_control()).expect("a route error, sent at once");
        assert_eq!((err.dst, err.next_hop, err.sr.path()), (0, 1, vec![2, 1, 0]));
        let want = LinkFailureNotice { src: 0, dst: 4, sport: 7, dport: 7, seq: 14600 };
        assert_eq!(err.body, Body::Dsr(DsrMsg::Rerr { link: Link { from: 2, to: 3 }, elfn: Some(want) }));
        assert_eq!(n.proto.stats.to_stats().event_count("flow_errors_sent"), flow_only as u64);
        assert_eq!(n.proto.stats.to_stats().event_count("elfn_notices_sent"), 1);
        errs.push((err.body, err.size));
    }
    assert_eq!(errs[0], errs[1], "flow-only and source-routed: the same error");
}

#[test]
fn a_relay_without_a_salvage_route_buffers_the_packet_and_asks_its_neighbours_once() {
    // ns-2.35 NEW_SALVAGE_LOGIC: relay 2 of 0-1-2-3-4 loses its link to 3
    // and has no other route to 4: the packet waits in its send buffer, the
    // buffer check (30-60 ms) sends one non-propagating request.
    let cfg = DsrConfig { salvage_requests: 1, jitter: Time::ZERO, ..DsrConfig::default() };
    let start = |cfg: &DsrConfig| {
        let mut n = node(2, cfg.clone());
        n.run_until(Time::from_secs(10));
        n.call(|d, ctx| d.on_link_failure(ctx, tcp_at_relay_2(true)));
        let out = n.take();
        assert!(!out.iter().any(|a| matches!(a, NetAction::Drop(..))), "{out:?}");
        assert_eq!(sent(&out).len(), 1, "only the route error at once");
        assert_eq!(n.proto.salvage_buffered(), 1);
        let mut reqs = Vec::new();
        let mut t = n.now;
        while t < Time::from_ms(10_100) {
            t += Time::from_ms(1);
            n.run_until(t);
            for q in sent(&n.take()) {
                reqs.push(((t - Time::from_secs(10)).as_ns() / 1_000_000, q));
            }
        }
        (n, reqs)
    };
    let (mut n, reqs) = start(&cfg);
    assert_eq!(reqs.len(), 1, "{reqs:?}");
    let (ms, req) = reqs[0];
    assert!((30..=60).contains(&ms), "at the first buffer check: {ms} ms");
    assert_eq!((req.ttl, req.dst), (1, BROADCAST));
    assert!(matches!(req.body, Body::Dsr(DsrMsg::Rreq { target: 4, .. })));
    // Neighbour 6 answers from its cache: the packet goes on 2-6-4, as a
    // salvaged packet (full source route, no flow state).
    let mut rrep = data(0, 6, 2);
    rrep.flow = FLOW_NONE;
    rrep.body = Body::Dsr(DsrMsg::Rrep { route: SourceRoute::from_path(&[2, 6, 4]).unwrap(), from_cache: true });
    n.call(|d, ctx| d.on_control(ctx, &rrep));
    let out = sent(&n.take());
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].uid, out[0].next_hop, out[0].sr.path()), (5, 6, vec![2, 6, 4]));
    assert!(!out[0].sr.flow && out[0].sr.salvaged == 1);
    assert_eq!(out[0].size, 1500 + 12);
    assert_eq!(n.proto.salvage_buffered(), 0);

    // No answer: no propagating request follows; when the backoff allows
    // the next request (2 s after the first), the packet is dropped, NRTE.
    let (mut n, _) = start(&cfg);
    let (mut later, mut drops) = (Vec::new(), Vec::new());
    let mut t = n.now;
    while t < Time::from_secs(13) {
        t += Time::from_ms(5);
        n.run_until(t);
        for a in n.take() {
            if matches!(a, NetAction::Drop(q, DropReason::Nrte) if q.uid == 5) {
                drops.push(t);
            }
            later.push(a);
        }
    }
    assert!(sent(&later).is_empty(), "{later:?}");
    assert_eq!(drops.len(), 1);
    let after = drops[0] - Time::from_secs(12);
    assert!(after >= Time::from_ms(30) && after <= Time::from_ms(125), "dropped {after} after 12 s");
    assert_eq!(n.proto.salvage_buffered(), 0);
    assert_eq!(n.proto.stats.to_stats().event_count("salvage_requests"), 1);
    assert_eq!(n.proto.stats.to_stats().event_count("salvage_failed"), 1);

    // salvage_requests = 0: dropped at once (CBK), as before.
    let mut n = node(2, DsrConfig { salvage_requests: 0, ..cfg });
    n.call(|d, ctx| d.on_link_failure(ctx, tcp_at_relay_2(true)));
    assert!(n.take().iter().any(|a| matches!(a, NetAction::Drop(q, DropReason::Cbk) if q.uid == 5)));
}

/// `snoop_control` (path cache): a node that overhears a route reply on its
/// way 4 -> 0 learns itself + the transmitter + the rest (9-4-0), as
/// ns-2.35's tap does (`pre_noticeRouteUsed`); without the key, overheard
/// control packets teach the path cache nothing (data packets do).
#[test]
fn snoop_control_learns_the_route_an_overheard_reply_travels_on() {
    let mut p = data(1, 4, 0);
    p.body = Body::Dsr(DsrMsg::Rrep { route: SourceRoute::from_path(&[0, 4, 7, 1]).unwrap(), from_cache: true });
    p.sr = SourceRoute::from_path(&[4, 0]).unwrap();
    p.sr.cur = 1;
    p.prev_hop = 4;
    p.next_hop = 0;
    for on in [false, true] {
        let mut n = node(9, DsrConfig { snoop_control: on, ..DsrConfig::default() });
        n.call(|d, ctx| d.on_overheard(ctx, &p));
        assert_eq!(n.proto.cache().find(0, Time::ZERO), on.then(|| vec![9, 4, 0]), "snoop_control = {on}");
        // Nothing learnt towards the reply's content (1), nor backwards.
        assert_eq!(n.proto.cache().find(1, Time::ZERO), None);
    }
}

/// `route_ref`'s flow-state forward (session 22) against `route` of a copy
/// (the default `route_ref`): the same actions, counters and cache on every
/// kind of packet a relay is handed (flow state on and off, data and DSR
/// bodies, this node at, before and past the route's current hop, routes
/// of every length up to the maximum, both cache kinds); and `route_hop`
/// (session 25) with the kernel's `Transmit` of the next hop it gives.
#[test]
fn route_ref_forwards_as_route_of_a_copy() {
    let me: NodeId = 3;
    let bodies = [
        Body::Udp { sport: 1, dport: 1, seq: 7 },
        Body::Dsr(DsrMsg::Rerr { link: Link { from: 5, to: 6 }, elfn: None }),
        Body::Dsr(DsrMsg::Rrep { route: SourceRoute::from_path(&[0, 3, 9]).unwrap(), from_cache: false }),
    ];
    let (mut cases, mut hops) = (0, 0);
    for cache in [mobicache::CacheKind::Path, mobicache::CacheKind::Mobicache] {
        for len in 0..=MAX_SR_LEN {
            // Paths with this node at position 1 (and one without it).
            let path: Vec<NodeId> = (0..len as NodeId).map(|i| if i == 1 { me } else { 10 + i }).collect();
            let other: Vec<NodeId> = (0..len as NodeId).map(|i| 10 + i).collect();
            for p in [&path, &other] {
                for cur in 0..=len.max(1) as u8 {
                    for flow in [false, true] {
                        for body in bodies {
                            let mut pkt = data(1, 10, 99);
                            pkt.body = body;
                            pkt.sr = SourceRoute::from_path(p).unwrap();
                            pkt.sr.cur = cur;
                            pkt.sr.flow = flow;
                            let cfg = || DsrConfig { cache, ..DsrConfig::default() };
                            let (mut a, mut b) = (node(me, cfg()), node(me, cfg()));
                            a.call(|d, ctx| d.route_ref(ctx, &pkt, Origin::Forward));
                            b.call(|d, ctx| d.route(ctx, pkt, Origin::Forward));
                            let acts = format!("{:?}", a.take());
                            assert_eq!(acts, format!("{:?}", b.take()), "{pkt:?}");
                            same_state(&a, &b);
                            // `route_hop`, its next hop sent as the kernel
                            // sends it: the same actions, the same state; the
                            // packet unchanged when it gives no next hop.
                            let (mut c, mut p, mut hop) = (node(me, cfg()), pkt, None);
                            c.call(|d, ctx| hop = d.route_hop(ctx, &mut p, Origin::Forward));
                            let mut sent = c.take();
                            match hop {
                                Some(nh) => sent.push(NetAction::Transmit(Packet { next_hop: nh, ..p })),
                                None => assert!(p == pkt),
                            }
                            assert_eq!(acts, format!("{sent:?}"), "{pkt:?}");
                            same_state(&a, &c);
                            hops += hop.is_some() as u32;
                            cases += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(cases > 1000 && hops > 20, "{cases} {hops}");
}

/// The protocol state `route_ref_forwards_as_route_of_a_copy` compares:
/// timers, counters, the route cache.
fn same_state(a: &Node, b: &Node) {
    assert_eq!(format!("{:?}", a.timers), format!("{:?}", b.timers));
    assert_eq!(format!("{:?}", a.proto.stats.to_stats()), format!("{:?}", b.proto.stats.to_stats()));
    let mut routes = (Vec::new(), Vec::new());
    a.proto.route_table(a.now, &mut routes.0);
    b.proto.route_table(b.now, &mut routes.1);
    assert_eq!(format!("{:?}", routes.0), format!("{:?}", routes.1));
}
