//! Hop-by-hop backpressure on a 5-node chain with a saturating UDP source
//! (issue 7): with backpressure the source injects about what the chain
//! delivers and no node holds more than `threshold` packets of the flow;
//! with drop-tail the source injects far more than is delivered.

mod common;
use common::*;
use manetlab::config::SimConfig;
use manetlab::queue::{BackpressureConfig, ClassKey, Knowledge, QueueKind};
use manetlab::{Report, Simulation};

fn chain(bp: Option<BackpressureConfig>, fair: bool) -> (Report, Vec<u32>) {
    let mut cfg = base(SimConfig::chain_positions(5, 200.0), 30);
    cfg.flows = vec![cbr("udp", 0, 4, 1460, 2e6, 1.0)];
    cfg.queue.backpressure = bp;
    if fair {
        cfg.queue.kind = QueueKind::Fair { key: ClassKey::Src, quantum: None, class_limit: usize::MAX };
    }
    let mut sim = Simulation::new(cfg).unwrap();
    sim.run_until(manetlab::sim::Time::from_secs(30));
    let max: Vec<u32> = (0..5).map(|n| sim.backpressure().map_or(0, |b| b.max_held(n, 0))).collect();
    let r = sim.finish();
    assert!(r.audit.balances(), "{:?}", r.audit);
    (r, max)
}

fn ratio(r: &Report) -> (u64, u64, f64) {
    let f = &r.flows[0];
    let injected = f.sent_packets - f.not_injected;
    (injected, f.received_packets, injected as f64 / f.received_packets.max(1) as f64)
}

#[test]
fn drop_tail_injects_far_more_than_is_delivered() {
    let (r, _) = chain(None, false);
    let (inj, del, q) = ratio(&r);
    println!("drop-tail: injected {inj}, delivered {del}, ratio {q:.2}");
    assert_eq!(r.flows[0].not_injected, 0);
    assert!(del > 500, "{del}");
    assert!(q > 2.0, "drop-tail injected/delivered {q:.2}");
}

#[test]
fn threshold_one_oracle_holds_one_packet_per_node_and_throttles_the_source() {
    for fair in [false, true] {
        let bp = BackpressureConfig {
            threshold: 1,
            key: ClassKey::FiveTuple,
            knowledge: Knowledge::Oracle,
            ..Default::default()
        };
        let (r, max) = chain(Some(bp), fair);
        let (inj, del, q) = ratio(&r);
        println!("oracle k=1 fair={fair}: injected {inj}, delivered {del}, ratio {q:.3}, max held {max:?}");
        assert!(del > 500, "{del}");
        assert!(q < 1.2, "injected/delivered {q:.3}");
        assert!(r.flows[0].not_injected > inj, "the source is held back most of the time");
        for (n, m) in max.iter().enumerate().take(4) {
            assert_eq!(*m, 1, "node {n} held {m} packets of the flow");
        }
        assert_eq!(max[4], 0, "the destination holds nothing");
    }
}

#[test]
fn larger_thresholds_bound_each_node_and_realistic_knowledge_throttles_too() {
    let (dt, _) = chain(None, false);
    let delivered_dt = dt.flows[0].received_packets;
    for (k, knowledge) in [(3, Knowledge::Oracle), (1, Knowledge::Overhear), (1, Knowledge::Explicit)] {
        let bp = BackpressureConfig { threshold: k, key: ClassKey::FiveTuple, knowledge, ..Default::default() };
        let (r, max) = chain(Some(bp), false);
        let (inj, del, q) = ratio(&r);
        println!("{knowledge:?} k={k}: injected {inj}, delivered {del}, ratio {q:.3}, max held {max:?}");
        assert!(q < 1.2, "{knowledge:?}: injected/delivered {q:.3}");
        // Throttling at the source does not cost goodput.
        assert!(del as f64 > 0.85 * delivered_dt as f64, "{del} vs drop-tail {delivered_dt}");
        if knowledge == Knowledge::Oracle {
            assert!(max.iter().all(|&m| m <= k), "{max:?}");
        }
    }
}
