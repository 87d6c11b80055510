//! The proactive protocols (DSDV, OLSR) in whole simulations: CBR over a
//! chain through the real MAC and radio.

mod common;
use common::*;
use manetlab::config::Position;
use manetlab::net::routing::{DsdvConfig, OlsrConfig, RoutingConfig};
use manetlab::Report;

/// A chain of `n` nodes 200 m apart, 64-byte CBR at 4 packets/s end to end
/// in both directions (the manet-routing-compare traffic), 60 s.
fn chain_cbr(n: usize, routing: RoutingConfig) -> Report {
    let nodes = (0..n).map(|i| Position::new(200.0 * i as f64, 0.0)).collect();
    let mut cfg = base(nodes, 60);
    let last = n as u32 - 1;
    cfg.flows = vec![cbr("fwd", 0, last, 64, 64.0 * 8.0 * 4.0, 1.0), cbr("back", last, 0, 64, 64.0 * 8.0 * 4.0, 1.5)];
    cfg.routing = routing;
    run(cfg)
}

#[test]
fn cbr_over_dsdv_is_delivered() {
    let r = chain_cbr(5, RoutingConfig::Dsdv(DsdvConfig::default()));
    assert_eq!(r.routing_protocol, "dsdv");
    for f in &r.flows {
        println!(
            "{}: sent {} received {} ratio {:.3} delay {:.4} s",
            f.name,
            f.sent_packets,
            f.received_packets,
            f.delivery_ratio.unwrap(),
            f.delay_mean_s.unwrap()
        );
        assert!(f.sent_packets >= 230);
        // Packets wait in the buffer until the first dumps have spread; none is lost.
        assert!(f.delivery_ratio.unwrap() >= 0.99, "{}: {:?}", f.name, f.delivery_ratio);
        assert!(f.delay_mean_s.unwrap() < 0.5);
    }
    let full = r.routing.sent.get("FULL").expect("periodic dumps");
    // 5 nodes, one dump per 15 s: 4 (or 5) each in 60 s.
    assert!((20..=25).contains(&full.packets), "{full:?}");
    // A dump lists every destination known (all 5 once the first round
    // has spread; fewer in the very first dumps).
    assert!(full.bytes <= full.packets * (20 + 8 + 12 * 5));
    assert!(full.bytes >= (full.packets - 5) * (20 + 8 + 12 * 5), "{full:?}");
    assert_eq!(r.routing.event_count("stale_messages"), 0);
    println!("routing: {:?}", r.routing);
}

#[test]
fn cbr_over_olsr_is_delivered() {
    let r = chain_cbr(5, RoutingConfig::Olsr(OlsrConfig::default()));
    assert_eq!(r.routing_protocol, "olsr");
    for f in &r.flows {
        println!(
            "{}: sent {} received {} ratio {:.3} delay {:.4} s",
            f.name,
            f.sent_packets,
            f.received_packets,
            f.delivery_ratio.unwrap(),
            f.delay_mean_s.unwrap()
        );
        // OLSR drops packets while it has no route (no buffer, as ns-3):
        // the first seconds are lost until links are symmetric and TCs
        // have spread, then everything arrives.
        assert!(f.delivery_ratio.unwrap() >= 0.85, "{}: {:?}", f.name, f.delivery_ratio);
        assert!(f.delay_mean_s.unwrap() < 0.5);
    }
    let hello = r.routing.sent.get("HELLO").expect("HELLOs");
    // 5 nodes, one HELLO per 2 s minus up to 0.5 s jitter, 60 s.
    assert!((150..=175).contains(&hello.packets), "{hello:?}");
    assert!(r.routing.sent_of("TC") > 0);
    assert_eq!(r.routing.event_count("stale_messages"), 0);
    // Drops before convergence are NRTE, at the sources only.
    println!("routing: {:?}\ndrops {:?}", r.routing, r.audit.dropped);
}
