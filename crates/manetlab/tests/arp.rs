//! ARP in the stack: resolution costs one request/reply per link, and the
//! two failure behaviours (ns-2's single held packet without timer, and the
//! queueing mode that reports failure to routing).

mod common;
use common::*;
use manetlab::config::{Position, SimConfig};
use manetlab::net::arp::ArpConfig;
use manetlab::net::routing::RoutingConfig;
use manetlab::phy::CaptureRule;
use manetlab::sim::Time;
use manetlab::study::chain;
use manetlab::Simulation;

#[test]
fn tcp_chain_with_arp_resolves_each_link_once_and_keeps_its_goodput() {
    let run = |arp: ArpConfig| {
        let mut cfg = chain::config(4, 1, Time::from_secs(60), CaptureRule::Ns2);
        cfg.arp = arp;
        let r = Simulation::new(cfg).unwrap().run();
        assert!(r.audit.balances(), "{:?}", r.audit);
        r
    };
    let without = run(ArpConfig::Off);
    let with = run(ArpConfig::ns2());
    let requests: u64 = with.nodes.iter().map(|n| n.arp.unwrap().requests_sent).sum();
    let resolved: u64 = with.nodes.iter().map(|n| n.arp.unwrap().resolved).sum();
    println!(
        "ARP: {requests} requests, {resolved} resolutions; goodput {:.1} vs {:.1} kbit/s",
        with.flows[0].goodput_bps / 1e3,
        without.flows[0].goodput_bps / 1e3
    );
    // Data needs 0->1, 1->2, 2->3, 3->4 resolved; the target of each request
    // learns the requester (RFC 826), so the ACKs' reverse links need no
    // request of their own: 4 requests, unless a request or reply was lost.
    assert_eq!(resolved, 4);
    assert!((4..=6).contains(&requests), "{requests}");
    let (g0, g1) = (without.flows[0].goodput_bps, with.flows[0].goodput_bps);
    assert!((g1 - g0).abs() / g0 < 0.08, "{g1} vs {g0}");
}

/// Node 0 has a static route straight to node 2, which is out of range:
/// ARP requests are never answered.
fn unreachable_next_hop(arp: ArpConfig) -> manetlab::Report {
    let mut cfg = base(vec![Position::new(0.0, 0.0), Position::new(200.0, 0.0), Position::new(600.0, 0.0)], 10);
    cfg.routing = RoutingConfig::Static { paths: vec![vec![0, 2]] };
    cfg.arp = arp;
    cfg.flows = vec![cbr("u", 0, 2, 500, 8.0 * 500.0 * 2.0, 1.0)]; // 2 packets/s, from 1 s: 18 packets
    let r = Simulation::new(cfg).unwrap().run();
    assert!(r.audit.balances(), "{:?}", r.audit);
    r
}

#[test]
fn ns2_arp_drops_replaced_packets_and_never_times_out() {
    let r = unreachable_next_hop(ArpConfig::ns2());
    let arp = r.nodes[0].arp.unwrap();
    println!("{:?} {:?}", r.audit, arp);
    assert_eq!(r.audit.created, 18);
    assert_eq!(r.audit.delivered, 0);
    // Every packet but the last one held is dropped with reason ARP.
    assert_eq!(r.audit.dropped.get("ARP"), Some(&17));
    assert_eq!(r.audit.held_at_end.get("arp"), Some(&1));
    // One request per packet, except every 4th packet which finds the
    // request count exhausted and resets it.
    assert_eq!(arp.requests_sent, 14);
    assert_eq!(r.nodes[0].link_failures, 0, "ns-2's ARP never reports failure");
}

#[test]
fn queue_arp_retries_then_reports_a_link_failure() {
    let r = unreachable_next_hop(ArpConfig::queue());
    let arp = r.nodes[0].arp.unwrap();
    println!("{:?} {:?}", r.audit, arp);
    assert!(arp.failures >= 2, "{arp:?}");
    assert!(r.nodes[0].link_failures >= 2);
    // The link failure hands the first held packet to routing (static: RET).
    assert_eq!(r.audit.dropped.get("RET"), Some(&arp.failures));
    assert!(r.audit.dropped.get("ARP").copied().unwrap_or(0) > 0);
    let _ = SimConfig::default();
}

/// Node 0 learns a one-hop route to node 2 without ever resolving it (DSR:
/// by overhearing 2's packets to 3; AODV: from 2's broadcasts), node 2 then
/// moves out of 0's range (but stays in range of relay 1), and only then does
/// 0 start sending to 2. ns-2-mode ARP gives up after three unanswered
/// requests; the packets go back to routing as a link failure (ns-2.35
/// `mac/arp.cc` `arpresolve`: the packets' `xmit_failure_` callback), which
/// repairs the route through node 1.
fn arp_give_up_scenario(routing: RoutingConfig) -> manetlab::Report {
    use manetlab::mobility::{MobilityConfig, Trajectory};
    let nodes = vec![
        Position::new(0.0, 0.0),     // 0: source of flow "b"
        Position::new(200.0, 100.0), // 1: relay, in range of everybody
        Position::new(200.0, 0.0),   // 2: moves away at 1 s
        Position::new(400.0, 0.0),   // 3: destination of flow "a"
    ];
    let mut traj: Vec<Trajectory> = nodes.iter().map(|&p| Trajectory::fixed(p)).collect();
    traj[2].set_dest(Time::from_secs(1), Position::new(400.0, 200.0), 200.0); // there at 2.41 s
    let mut cfg = base(nodes, 20);
    cfg.mobility = MobilityConfig::Trajectories(traj);
    cfg.routing = routing;
    cfg.arp = ArpConfig::ns2();
    let mut a = cbr("a", 2, 3, 512, 8.0 * 512.0 * 10.0, 0.5);
    a.stop = Some(Time::from_secs_f64(0.95));
    cfg.flows = vec![a, cbr("b", 0, 2, 512, 8.0 * 512.0 * 10.0, 2.5)];
    let r = Simulation::new(cfg).unwrap().run();
    assert!(r.audit.balances(), "{:?}", r.audit);
    r
}

fn assert_arp_give_up_repairs(r: &manetlab::Report) {
    let b = &r.flows[1];
    let arp = r.nodes[0].arp.unwrap();
    println!(
        "b: sent {} received {}; node 0 ARP {:?}, link failures {}, drops {:?}, routing {:?}",
        b.sent_packets, b.received_packets, arp, r.nodes[0].link_failures, r.nodes[0].drops, r.nodes[0].routing.events
    );
    // ARP gave up on node 2 once, and routing heard of it.
    assert_eq!(arp.failures, 1, "{arp:?}");
    assert!(r.nodes[0].link_failures >= 2, "the held packet and the new one go to routing");
    // The route was repaired through node 1: after the first few packets
    // (two replaced in ARP's hold, some in the repair) all are delivered.
    assert!(b.sent_packets >= 170, "{}", b.sent_packets);
    assert!(b.received_packets + 8 >= b.sent_packets, "{} of {}", b.received_packets, b.sent_packets);
    assert!(r.nodes[1].forwarded >= b.received_packets, "delivered through the relay");
    assert!(r.nodes[0].drops.get("ARP").copied().unwrap_or(0) <= 2, "{:?}", r.nodes[0].drops);
}

#[test]
fn ns2_arp_give_up_goes_to_dsr_which_repairs_the_route() {
    let r = arp_give_up_scenario(RoutingConfig::Dsr(Default::default()));
    assert_arp_give_up_repairs(&r);
    assert!(r.nodes[0].routing.event_count("routes_snooped") >= 1, "the stale route came from the tap");
    assert!(r.nodes[0].routing.event_count("link_breaks") >= 1);
}

#[test]
fn ns2_arp_give_up_goes_to_aodv_which_repairs_the_route() {
    use manetlab::net::routing::aodv::{AodvConfig, LinkDetection};
    // ns-2's AODV: link-layer detection, no HELLOs (with HELLOs the
    // neighbour would be lost before flow "b" starts).
    let cfg = AodvConfig { link_detection: LinkDetection::Mac, ..Default::default() };
    let r = arp_give_up_scenario(RoutingConfig::Aodv(cfg));
    assert_arp_give_up_repairs(&r);
}
