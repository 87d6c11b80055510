//! Per-link views (metrics/linkview.rs): receptions per hop, inter-packet
//! delivery times and the hop count of the route in use.

mod common;
use common::*;
use manetlab::config::SimConfig;
use manetlab::metrics::linkview::LinkViewSink;
use manetlab::sim::Time;
use manetlab::Simulation;

#[test]
fn chain_receptions_per_hop_and_hop_count() {
    // 4-node chain, CBR 3 -> 0 at 10 packets/s: every packet crosses the
    // links 3->2, 2->1, 1->0, receptions spaced by the CBR interval.
    let mut cfg = base(SimConfig::chain_positions(4, 200.0), 20);
    cfg.flows = vec![cbr("udp", 3, 0, 1000, 80_000.0, 1.0)];
    let (sink, views) = LinkViewSink::for_flows(&cfg, &[0]);
    let mut sim = Simulation::new(cfg).unwrap();
    sim.set_tracer(Box::new(sink));
    let r = sim.run();
    let v = views.lock().unwrap().clone();
    let f = v.flow(0).unwrap();
    let delivered = r.flows[0].received_packets as usize;
    assert!(delivered > 180);
    assert_eq!(f.links.keys().copied().collect::<Vec<_>>(), vec![(1, 0), (2, 1), (3, 2)]);
    for (a, b) in [(3, 2), (2, 1), (1, 0)] {
        assert!(f.received(a, b) >= delivered, "{a}->{b}");
        let gaps = f.inter_delivery(a, b);
        let mean = gaps.iter().map(|g| g.1).sum::<f64>() / gaps.len() as f64;
        assert!((mean - 0.1).abs() < 0.002, "{a}->{b}: mean gap {mean}");
    }
    assert_eq!(f.hops.len(), delivered);
    assert!(f.hops.iter().all(|h| h.1 == 3));
    assert_eq!(f.hop_changes(), vec![(f.hops[0].0.as_secs_f64(), 3)]);
    assert!((f.share_of_time_at(3, Time::from_secs(2), Time::from_secs(20)) - 1.0).abs() < 1e-9);
    // No silence longer than two packet intervals.
    assert!(f.longest_gap((1, 0), Time::from_secs(2), Time::from_secs(20)) < 0.2);
}
