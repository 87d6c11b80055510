//! OLSR HNA (RFC 3626 §12): a gateway announces the wired-only host behind
//! it and wireless nodes route to that host (which runs no OLSR) through
//! the association; the messages are dissected by Wireshark
//! (`trace_routing.rs`).

mod common;
use common::*;
use manetlab::config::{Position, SimConfig};
use manetlab::net::routing::olsr::msg::{self, Header, HNA};
use manetlab::net::routing::{OlsrConfig, RoutingConfig};
use manetlab::net::wired::{LinkConfig, WiredConfig};
use manetlab::sim::Time;

/// 0 - 1 - 2 wireless chain (200 m), node 2 is the gateway of wired-only
/// host 3 (10 Mbit/s, 5 ms). Flows both ways from 12 s (OLSR has
/// converged and the first HNA, sent within 5 s, has arrived), plus one
/// from 0.2 s that starts before any route exists.
pub fn gateway(secs: u64) -> SimConfig {
    let mut cfg = base(
        vec![Position::new(0.0, 0.0), Position::new(200.0, 0.0), Position::new(400.0, 0.0), Position::new(2000.0, 0.0)],
        secs,
    );
    cfg.routing = RoutingConfig::Olsr(OlsrConfig::default());
    let link = LinkConfig { a: 2, b: 3, bandwidth_bps: 10_000_000, delay: Time::from_ms(5), queue: 50 };
    cfg.wired = WiredConfig { links: vec![link], wired_only: vec![3] };
    cfg.flows = vec![
        cbr("up", 0, 3, 512, 100e3, 12.0),
        cbr("down", 3, 0, 512, 100e3, 12.5),
        cbr("early", 1, 3, 64, 2048.0, 0.2),
    ];
    cfg
}

#[test]
fn wireless_nodes_reach_the_wired_host_through_the_hna_association() {
    let r = run(gateway(40));
    for f in &r.flows[..2] {
        println!("{}: {} of {}, delay {:.4} s", f.name, f.received_packets, f.sent_packets, f.delay_mean_s.unwrap());
        assert!(f.delivery_ratio.unwrap() > 0.97, "{}: {f:?}", f.name);
        // Two radio hops plus the wire's 5 ms.
        assert!(f.delay_mean_s.unwrap() > 0.005);
    }
    // Only the gateway announces; node 1 (the MPR of 0 and 2) floods it on.
    let hna = |n: usize| r.nodes[n].routing.sent.get("HNA").map_or(0, |c| c.packets);
    println!("HNA sent: {:?}", (0..3).map(hna).collect::<Vec<_>>());
    assert!((7..=10).contains(&hna(2)), "HNA every 5 s for 40 s: {}", hna(2));
    assert_eq!(hna(0), 0);
    assert!(hna(1) > 0, "the MPR forwards HNA messages");
    // The early flow: its first packets find no route (dropped NRTE at its
    // source) until the HELLOs, TCs and the first HNA have arrived; then
    // it is delivered.
    let early = &r.flows[2];
    let nrte: u64 = early.drops.iter().filter(|d| d.reason == "NRTE").map(|d| d.packets).sum();
    println!("early: {} of {}, {} NRTE", early.received_packets, early.sent_packets, nrte);
    assert!(nrte > 0 && nrte < 40, "{early:?}");
    assert!(early.received_packets + nrte + 2 >= early.sent_packets, "{early:?}");
    assert!(r.audit.balances());
}

#[test]
fn hna_messages_round_trip_and_cover_hosts_with_fewest_prefixes() {
    // Hosts 4..=7 are 10.0.0.5..=10.0.0.8: 10.0.0.5/32, 10.0.0.6/31,
    // 10.0.0.8/32; 7..=10 (10.0.0.8..=10.0.0.11) is one /30.
    let p = msg::covering_prefixes(&[6, 4, 5, 7]);
    assert_eq!(p, vec![(0x0a00_0005, u32::MAX), (0x0a00_0006, 0xffff_fffe), (0x0a00_0008, u32::MAX)]);
    assert_eq!(msg::covering_prefixes(&[7, 8, 9, 10]), vec![(0x0a00_0008, 0xffff_fffc)]);
    let h = Header { kind: HNA, vtime: Time::from_secs(15), orig: 0, ttl: 255, hops: 0, seq: 3 };
    let mut v = Vec::new();
    msg::write_packet(&mut v, 1, &h, |v| msg::write_hna(v, &p));
    assert_eq!(v.len(), 4 + 12 + 8 * 3);
    let (h2, body) = msg::read_packet(&v).unwrap();
    assert_eq!(h2, h);
    let mut out = Vec::new();
    assert_eq!(msg::read_hna(body, &mut out), Some(()));
    assert_eq!(out, p);
    assert_eq!(msg::read_hna(&body[1..], &mut out), None);
}
