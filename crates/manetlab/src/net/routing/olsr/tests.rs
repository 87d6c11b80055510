use super::*;
use crate::net::routing::harness::Net;

fn net(n: usize, edges: &[(usize, usize)]) -> Net<Olsr> {
    let board = WireBoard::new();
    let nodes = (0..n as NodeId).map(|i| Olsr::new(i, OlsrConfig::default(), board.clone())).collect();
    let mut net = Net::new(nodes);
    for &(a, b) in edges {
        net.link(a, b, true);
    }
    net
}

fn grid_edges(w: usize) -> Vec<(usize, usize)> {
    let mut e = Vec::new();
    for y in 0..w {
        for x in 0..w {
            let i = y * w + x;
            if x + 1 < w {
                e.push((i, i + 1));
            }
            if y + 1 < w {
                e.push((i, i + w));
            }
        }
    }
    e
}

/// Hop distances from `s` over the live links.
fn bfs(net: &Net<Olsr>, s: usize) -> Vec<Option<u8>> {
    let n = net.nodes.len();
    let mut d = vec![None; n];
    d[s] = Some(0u8);
    let mut q = std::collections::VecDeque::from([s]);
    while let Some(u) = q.pop_front() {
        for v in 0..n {
            if net.links[u][v] && d[v].is_none() {
                d[v] = Some(d[u].unwrap() + 1);
                q.push_back(v);
            }
        }
    }
    d
}

/// Every live node routes to every node it can reach along a shortest path
/// (hop count right, next hop a live neighbour one hop closer), and has no
/// route to a node it cannot reach.
fn shortest_paths(net: &mut Net<Olsr>) -> bool {
    let n = net.nodes.len();
    let now = net.now;
    let dist: Vec<Vec<Option<u8>>> = (0..n).map(|s| bfs(net, s)).collect();
    (0..n).filter(|&i| net.alive[i]).all(|i| {
        net.nodes[i].update(now);
        (0..n).filter(|&j| j != i && net.alive[j]).all(|j| match (dist[i][j], net.nodes[i].route_to(j as NodeId)) {
            (Some(d), Some((nh, h))) => h == d && net.links[i][nh as usize] && dist[nh as usize][j] == Some(d - 1),
            (None, None) => true,
            _ => false,
        })
    })
}

#[test]
fn mpr_sets_equal_the_heuristic_on_hand_built_topologies() {
    // The topology of mpr.rs's first case, around node 0, plus links among
    // the others: 1-2, 4-5, 5-6, 6-7 (7 is three hops from 0).
    let edges = [(0, 1), (0, 2), (0, 3), (1, 4), (1, 5), (2, 5), (2, 6), (3, 6), (1, 2), (4, 5), (5, 6), (6, 7)];
    let mut net = net(8, &edges);
    net.start();
    net.run_until(Time::from_secs(20));
    let now = net.now;
    for i in 0..8 {
        net.nodes[i].update(now);
        let nbrs: Vec<(NodeId, u8)> = (0..8).filter(|&j| net.links[i][j]).map(|j| (j as NodeId, 3)).collect();
        let two: Vec<(NodeId, NodeId)> = nbrs
            .iter()
            .flat_map(|&(v, _)| {
                (0..8)
                    .filter(move |&t| edges.contains(&(v as usize, t)) || edges.contains(&(t, v as usize)))
                    .map(move |t| (v, t as NodeId))
            })
            .collect();
        let want = mpr::select(i as NodeId, &nbrs, &two);
        assert_eq!(net.nodes[i].mpr_set(), &want[..], "node {i}");
        assert_eq!(net.nodes[i].symmetric_neighbours(now).len(), nbrs.len(), "node {i}: all links symmetric");
    }
    // By hand (§8.3.1): node 0 needs 1 (sole provider of 4) and 2 (6 via 2 or
    // 3; D(2) = 2 > D(3) = 1); node 7's only neighbour 6 reaches 2, 3 and 5.
    assert_eq!(net.nodes[0].mpr_set(), &[1, 2]);
    assert_eq!(net.nodes[7].mpr_set(), &[6]);
    assert_eq!(net.nodes[3].mpr_set(), &[0, 6], "0 alone reaches 1; 6 alone reaches 5 and 7");
    // MPR selectors mirror the MPR sets.
    for i in 0..8 {
        for &m in net.nodes[i].mpr_set().to_vec().iter() {
            assert!(net.nodes[m as usize].mpr_selectors(now).contains(&(i as NodeId)), "{m} knows {i} selected it");
        }
    }
    assert!(shortest_paths(&mut net));
}

#[test]
fn only_mprs_forward_tcs() {
    // A star: 0 in the middle of 1..=5, and a tail 5 - 6. Only 5 (the sole
    // path from 0 to 6) and 0 (for the leaves) are MPRs.
    let edges = [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (5, 6)];
    let mut net = net(7, &edges);
    net.start();
    net.run_until(Time::from_secs(60));
    let fwd: Vec<u64> = net.nodes.iter().map(|o| o.stats.to_stats().event_count("forwarded_messages")).collect();
    println!("forwarded per node {fwd:?}");
    for (i, &n) in fwd.iter().enumerate().take(5).skip(1) {
        assert_eq!(n, 0, "leaf {i} is nobody's MPR");
    }
    assert_eq!(fwd[6], 0);
    // Only 0 and 5 have MPR selectors, so only they send TCs (one per 5 s,
    // 12 in 60 s), and each relays the other's once.
    assert_eq!(net.nodes[0].stats.to_stats().sent_of("TC"), 24);
    assert_eq!((fwd[0], fwd[5]), (12, 12));
    assert!(shortest_paths(&mut net));
}

#[test]
fn grid_converges_to_shortest_paths_within_three_tc_intervals() {
    let w = 5;
    let mut net = net(w * w, &grid_edges(w));
    let bound = OlsrConfig::default().tc_interval * 3;
    net.start();
    let mut t = Time::ZERO;
    while t < bound {
        t += Time::from_ms(250);
        net.run_until(t);
        if shortest_paths(&mut net) {
            break;
        }
    }
    println!(
        "5x5 grid: shortest-path routes everywhere at {:.2} s (bound {:.0} s)",
        t.as_secs_f64(),
        bound.as_secs_f64()
    );
    assert!(shortest_paths(&mut net), "not converged within {bound}");
    // And they stay (no flapping) over a minute.
    for k in 1..=12 {
        net.run_until(t + Time::from_secs(5 * k));
        assert!(shortest_paths(&mut net), "at {}", net.now);
    }
    let hello = net.nodes[0].stats.to_stats().sent_of("HELLO");
    assert!((36..=41).contains(&hello), "HELLO every 2 s minus jitter: {hello} in 75 s");
}

#[test]
fn routes_repair_after_a_node_is_switched_off() {
    let w = 4;
    let mut net = net(w * w, &grid_edges(w));
    net.start();
    net.run_until(Time::from_secs(30));
    assert!(shortest_paths(&mut net));
    // Node 5 (interior) carries routes from 4 to 6, among others.
    assert_eq!(net.nodes[4].route_to(6).map(|r| r.1), Some(2));
    let t0 = net.now;
    net.switch_off(5);
    let hold = OlsrConfig::default().top_hold_time();
    let mut t = t0;
    while t < t0 + hold {
        t += Time::from_ms(250);
        net.run_until(t);
        if shortest_paths(&mut net) {
            break;
        }
    }
    println!(
        "repaired {:.2} s after the switch-off (holding time {:.0} s)",
        (t - t0).as_secs_f64(),
        hold.as_secs_f64()
    );
    assert!(shortest_paths(&mut net), "not repaired within TOP_HOLD_TIME");
    // Neighbours need NEIGHB_HOLD_TIME (6 s) to notice.
    assert!(t - t0 >= Time::from_secs(4));
    for i in (0..w * w).filter(|&i| i != 5) {
        assert!(net.nodes[i].route_to(5).is_none(), "{i} still routes to the dead node");
    }
    // Data from 4 to 6 goes around.
    net.send_data(4, 6, 1);
    net.run_until(t + Time::from_secs(1));
    assert_eq!(net.delivered.last().map(|d| d.1.dst), Some(6));
}
