use super::*;
use crate::net::routing::harness::Net;
use crate::wire::board::WireBoard;

fn chain(n: usize, cfg: DsdvConfig) -> (Net<Dsdv>, WireBoard) {
    let board = WireBoard::new();
    let nodes = (0..n as NodeId).map(|i| Dsdv::new(i, cfg.clone(), board.clone())).collect();
    (Net::chain(nodes), board)
}

/// The entries of a DSDV packet, decoded from the board.
fn entries(board: &WireBoard, p: &Packet) -> Vec<(NodeId, u32, u32)> {
    let Body::Routing(RoutingMsg { wire: r, name: "DSDV", .. }) = p.body else { panic!("not DSDV") };
    board
        .read(r, |b| {
            b.chunks_exact(12).map(|e| (wire::addr_at(e, 0), wire::be_u32(e, 4), wire::be_u32(e, 8))).collect()
        })
        .expect("fresh")
}

/// Every node has the shortest route to every other node of the chain.
fn converged(net: &Net<Dsdv>) -> bool {
    let n = net.nodes.len() as NodeId;
    (0..n).all(|i| {
        (0..n).filter(|&j| j != i).all(|j| {
            let want_nh = if j > i { i + 1 } else { i - 1 };
            net.nodes[i as usize]
                .entry(j)
                .is_some_and(|r| r.is_valid() && r.metric as u32 == i.abs_diff(j) && r.next_hop == want_nh)
        })
    })
}

#[test]
fn chain_converges_within_hops_times_interval() {
    for n in [3usize, 6, 10] {
        let cfg = DsdvConfig::default();
        let bound = cfg.update_interval * (n as u64 - 1);
        let (mut net, _) = chain(n, cfg.clone());
        net.start();
        let mut t = Time::ZERO;
        while !converged(&net) && t <= bound {
            t += Time::from_ms(100);
            net.run_until(t);
        }
        println!(
            "{n} nodes ({} hops): converged at {:.1} s (bound {:.0} s)",
            n - 1,
            t.as_secs_f64(),
            bound.as_secs_f64()
        );
        assert!(converged(&net), "{n}-node chain not converged within {bound}");
        // Triggered updates carry news at once: nobody waits for a periodic
        // dump per hop, so the chain converges within about one interval.
        assert!(t <= cfg.update_interval + Time::from_secs(1), "{n} nodes: {t}");
        // Sequence numbers: every destination's number is even while it is reachable.
        for i in 0..n {
            for j in 0..n as NodeId {
                if let Some(r) = net.nodes[i].entry(j) {
                    assert_eq!(r.seq % 2, 0);
                }
            }
        }
    }
}

#[test]
fn long_settling_time_still_converges() {
    // With the settling time longer than the run, only periodic dumps carry
    // changes of metric; new destinations still go out in triggered updates
    // (paper §III.B: new routes are significant). The bound holds either way.
    let cfg = DsdvConfig { settling_time: Time::from_secs(1000), ..DsdvConfig::default() };
    let (mut net, _) = chain(5, cfg.clone());
    net.start();
    net.run_until(cfg.update_interval * 4);
    assert!(converged(&net));
}

#[test]
fn broken_link_is_advertised_with_odd_seq_and_infinite_metric() {
    let (mut net, board) = chain(6, DsdvConfig::default());
    net.start();
    net.run_until(Time::from_secs(40));
    assert!(converged(&net));
    let before: Vec<u32> = (3..6).map(|j| net.nodes[2].entry(j).unwrap().seq).collect();
    // The link 2-3 breaks; a packet from 0 to 5 fails at node 2 (MAC feedback).
    net.link(2, 3, false);
    let t0 = net.now;
    let mark = net.sent.len();
    net.send_data(0, 5, 1);
    net.run_until(t0 + Time::from_ms(50));
    let upd = net.sent[mark..]
        .iter()
        .find(|(_, from, p)| *from == 2 && matches!(p.body, Body::Routing(m) if m.wire.kind == KIND_INCREMENTAL))
        .map(|(t, _, p)| (*t, entries(&board, p)))
        .expect("node 2 sends an incremental update at once");
    println!("node 2 at {:.3} s advertises {:?}", upd.0.as_secs_f64(), upd.1);
    assert!(upd.0 - t0 <= Time::from_ms(10), "immediately, not at the next dump");
    for (k, j) in (3..6).enumerate() {
        let e = upd.1.iter().find(|e| e.0 == j).expect("every destination behind the break");
        assert_eq!(e.1, INFINITY as u32, "destination {j}: infinite metric");
        assert_eq!(e.2 % 2, 1, "destination {j}: odd sequence number");
        assert_eq!(e.2, before[k] + 1, "the next number after the last one heard");
    }
    // Destinations before the break are not in the update.
    assert!(upd.1.iter().all(|e| e.0 >= 3 || e.0 == 2));
    // The packet was dropped (no other route), and node 0 learns the break.
    assert!(net.dropped.iter().any(|(n, p, _)| *n == 2 && !p.is_control()));
    assert!(!net.nodes[0].entry(5).unwrap().is_valid());
    assert_eq!(net.nodes[0].entry(5).unwrap().seq % 2, 1);
    // When the link comes back, node 5's next even number supersedes the break.
    net.link(2, 3, true);
    net.run_until(t0 + Time::from_secs(40));
    assert!(converged(&net));
    assert_eq!(net.nodes[0].entry(5).unwrap().seq % 2, 0);
}

#[test]
fn silent_neighbour_times_out_without_mac_feedback() {
    let cfg = DsdvConfig { mac_feedback: false, ..DsdvConfig::default() };
    let (mut net, board) = chain(4, cfg.clone());
    net.start();
    net.run_until(Time::from_secs(40));
    assert!(converged(&net));
    let t0 = net.now;
    net.switch_off(3);
    let mark = net.sent.len();
    net.run_until(t0 + cfg.hold_time() + cfg.update_interval + Time::from_secs(1));
    let (t, _, p) = net.sent[mark..]
        .iter()
        .find(|(_, f, p)| *f == 2 && entries(&board, p).iter().any(|e| e.0 == 3 && e.1 == INFINITY as u32))
        .expect("node 2 advertises the lost neighbour");
    let e = entries(&board, p).into_iter().find(|e| e.0 == 3).unwrap();
    assert_eq!(e.2 % 2, 1);
    let waited = *t - t0;
    println!("lost neighbour advertised {:.1} s after it fell silent", waited.as_secs_f64());
    assert!(waited > cfg.hold_time() - cfg.update_interval && waited <= cfg.hold_time() + cfg.update_interval * 2);
    assert!(!net.nodes[0].entry(3).unwrap().is_valid());
}

#[test]
fn buffers_until_a_route_exists() {
    let (mut net, _) = chain(4, DsdvConfig::default());
    net.start();
    net.send_data(0, 3, 7);
    assert!(net.dropped.is_empty(), "held, not dropped");
    net.run_until(Time::from_secs(20));
    assert_eq!(net.delivered.len(), 1);
    assert_eq!(net.delivered[0].1.dst, 3);
    // Without buffering (ns-2), a packet without a route is dropped at once.
    let (mut net, _) = chain(4, DsdvConfig { buffer_size: 0, ..DsdvConfig::default() });
    net.start();
    net.send_data(0, 3, 7);
    assert_eq!(net.dropped.len(), 1);
    assert_eq!(net.dropped[0].2, DropReason::Nrte);
}

#[test]
fn ns2_holds_the_last_five_packets_without_a_route() {
    // ns-2.35 dsdv.cc: MAX_QUEUE_LENGTH 5 per destination, the oldest
    // dropped (ns-2 DROP_RTR_QFULL; here NRTE), no timeout: 8 packets
    // before any route, the last 5 delivered.
    let cfg = DsdvConfig::ns2();
    assert!(!cfg.mac_feedback && cfg.settling_time == Time::from_secs(6));
    let (mut net, _) = chain(4, cfg);
    net.start();
    for seq in 0..8 {
        net.send_data(0, 3, seq);
    }
    assert_eq!(net.dropped.len(), 3, "3 oldest pushed out");
    assert!(net.dropped.iter().all(|d| d.2 == DropReason::Nrte));
    net.run_until(Time::from_secs(40));
    let mut got: Vec<u64> = net
        .delivered
        .iter()
        .filter_map(|(_, p)| if let Body::Udp { seq, .. } = p.body { Some(seq) } else { None })
        .collect();
    got.sort_unstable();
    assert_eq!(got, [3, 4, 5, 6, 7]);
}

#[test]
fn full_dump_wire_format() {
    let (mut net, board) = chain(3, DsdvConfig::default());
    net.start();
    net.run_until(Time::from_secs(31));
    let (_, _, p) = net
        .sent
        .iter()
        .rev()
        .find(|(_, f, p)| *f == 1 && matches!(p.body, Body::Routing(m) if m.wire.kind == KIND_FULL))
        .unwrap();
    let e = entries(&board, p);
    assert_eq!(p.size, 20 + 8 + 12 * 3, "IP + UDP + 3 entries");
    assert_eq!(e[0], (1, 0, net.nodes[1].own_seq()), "own entry first, metric 0");
    let r0 = net.nodes[1].entry(0).unwrap();
    assert!(e.contains(&(0, 1, r0.seq)), "node 0 one hop away, its last number");
    assert_eq!(r0.seq % 2, 0);
    assert_eq!(p.ttl, 1);
}

/// Fraction of samples (every 100 ms in [40, 100) s) at which node 0 does
/// not yet know node 5's latest sequence number, on a 6-node chain.
fn stale_fraction(cfg: DsdvConfig) -> (f64, usize) {
    let (mut net, board) = chain(6, cfg);
    net.start();
    net.run_until(Time::from_secs(40));
    let (mut stale, mut n) = (0, 0);
    let mut t = Time::from_secs(40);
    while t < Time::from_secs(100) {
        t += Time::from_ms(100);
        net.run_until(t);
        n += 1;
        stale += (net.nodes[0].entry(5).unwrap().seq < net.nodes[5].own_seq()) as usize;
    }
    let incremental = net
        .sent
        .iter()
        .filter(|(_, _, p)| matches!(p.body, Body::Routing(m) if m.wire.kind == KIND_INCREMENTAL))
        .count();
    let _ = board;
    (stale as f64 / n as f64, incremental)
}

#[test]
fn ns3_advertises_a_new_sequence_number_at_once() {
    // ns-2 / the paper: an unchanged route waits for the next full dump, so
    // node 5's new number crosses the chain one dump per hop; ns-3.37
    // (`advertise_new_seq`): each node passes it on in a triggered update.
    let (off, inc_off) = stale_fraction(DsdvConfig::default());
    let (on, inc_on) = stale_fraction(DsdvConfig { advertise_new_seq: true, ..DsdvConfig::default() });
    println!("node 0 behind node 5's number: {off:.2} of the time (ns-2), {on:.2} (ns-3); incremental updates {inc_off} / {inc_on}");
    assert!(off > 0.3, "ns-2: stale {off}");
    assert!(on < 0.02, "ns-3: stale {on}");
    assert!(inc_on > inc_off);
}

#[test]
fn ns3_believes_a_break_only_from_the_next_hop() {
    // 0 - 1 - 3 and 0 - 2 - 4 - 3: node 0 reaches 3 through 1, node 2
    // through 4. The link 4-3 breaks and node 2 advertises 3 as unreachable
    // (newer odd number, infinite metric).
    for only_next_hop in [false, true] {
        let cfg = DsdvConfig { break_from_next_hop_only: only_next_hop, ..DsdvConfig::default() };
        let board = WireBoard::new();
        let mut net = Net::new((0..5).map(|i| Dsdv::new(i, cfg.clone(), board.clone())).collect());
        for (a, b) in [(0, 1), (1, 3), (0, 2), (2, 4), (4, 3)] {
            net.link(a, b, true);
        }
        net.start();
        net.run_until(Time::from_secs(40));
        assert_eq!(net.nodes[0].entry(3).map(|r| (r.next_hop, r.metric)), Some((1, 2)));
        assert_eq!(net.nodes[2].entry(3).map(|r| (r.next_hop, r.metric)), Some((4, 2)));
        net.link(4, 3, false);
        let mark = net.sent.len();
        net.send_data(2, 3, 1);
        net.run_until(net.now + Time::from_ms(50));
        let unreachable_from = |n: NodeId| {
            net.sent[mark..]
                .iter()
                .filter(|(_, f, p)| *f == n && matches!(p.body, Body::Routing(_)))
                .any(|(_, _, p)| entries(&board, p).iter().any(|e| e.0 == 3 && e.1 == INFINITY as u32))
        };
        assert!(unreachable_from(2), "node 2 advertises the break");
        // ns-2 / the paper: the newer number wins whoever sends it, so node 0
        // breaks its working route through 1 and passes the break on; ns-3:
        // it keeps the route and says nothing.
        assert_eq!(unreachable_from(0), !only_next_hop, "break_from_next_hop_only = {only_next_hop}");
        if only_next_hop {
            assert_eq!(net.nodes[0].entry(3).map(|r| (r.next_hop, r.metric)), Some((1, 2)));
        }
    }
}

#[test]
fn ns3_forwards_by_the_next_hops_own_route() {
    let route = |next_hop, metric| {
        Some(Route {
            next_hop,
            metric,
            seq: 2,
            seq_at: Time::ZERO,
            wst: 5.0,
            pending: false,
            adv_at: Time::ZERO,
            broken_at: Time::ZERO,
        })
    };
    // Destination 5 via 2 (3 hops); node 2 itself now 2 hops away via 1.
    let mut routes = vec![None; 6];
    routes[5] = route(2, 3);
    routes[2] = route(1, 2);
    routes[1] = route(1, 1);
    assert_eq!(next_hop_in(&routes, false, 5), Some(2));
    assert_eq!(next_hop_in(&routes, true, 5), Some(1), "ns-3: the next hop's own gateway");
    // No (valid) route to the next hop: no route at all under ns-3.
    routes[2] = route(1, INFINITY);
    assert_eq!(next_hop_in(&routes, false, 5), Some(2));
    assert_eq!(next_hop_in(&routes, true, 5), None);
    routes[2] = None;
    assert_eq!(next_hop_in(&routes, true, 5), None);
}
