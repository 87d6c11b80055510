//! TDMA MAC (issue 7): one slot per node, no contention, no ACKs. On a
//! 5-node chain with a saturating UDP source each node forwards at most one
//! packet per frame, so the chain delivers one packet per frame of 5 slots,
//! with no collisions anywhere; the 802.11 DCF on the same chain collides.

mod common;
use common::*;
use manetlab::config::SimConfig;
use manetlab::mac::{MacConfig, MacKind, Tdma};
use manetlab::sim::Time;

#[test]
fn tdma_chain_delivers_one_packet_per_frame_without_collisions() {
    let guard = Time::from_us(20);
    let mut cfg = base(SimConfig::chain_positions(5, 200.0), 20);
    cfg.mac.kind = MacKind::Tdma { max_packet: 1500, guard };
    cfg.flows = vec![cbr("udp", 0, 4, 1460, 2e6, 1.0)];
    let r = run(cfg.clone());
    let slot = Tdma::slot_length(&MacConfig::default(), 1500, guard);
    let frame_s = slot.as_secs_f64() * 5.0;
    let expected_bps = 1460.0 * 8.0 / frame_s;
    let got = r.flows[0].goodput_bps;
    println!("TDMA chain: {got:.0} bit/s, one packet per frame = {expected_bps:.0} bit/s");
    assert!((got / expected_bps - 1.0).abs() < 0.05, "{got} vs {expected_bps}");
    let collisions: u64 = r.nodes.iter().map(|n| n.radio.collisions).sum();
    assert_eq!(collisions, 0);
    assert!(r.nodes.iter().all(|n| n.mac.retries == 0 && n.mac.ack_failures == 0 && n.mac.ack_sent == 0));
    // The same chain over the DCF: contention and collisions.
    cfg.mac.kind = MacKind::Dcf;
    let d = run(cfg);
    assert!(d.nodes.iter().map(|n| n.radio.collisions).sum::<u64>() > 0);
}
