//! Quick speed probe (the real benchmark is scripts/bench.sh).
use manetlab::config::{FlowConfig, Position, SimConfig, Traffic};
use manetlab::phy::{PhyMode, PhyStandard, Preamble};
use manetlab::sim::Time;
use manetlab::Simulation;
use std::time::Instant;

fn main() {
    let mut cfg = SimConfig {
        duration: Time::from_secs(100),
        nodes: SimConfig::chain_positions(3, 200.0),
        ..SimConfig::default()
    };
    cfg.mac.phy =
        PhyMode { standard: PhyStandard::Dsss, preamble: Preamble::Long, data_rate: 11_000_000, basic_rate: 1_000_000 };
    cfg.mac.rts_threshold = None;
    cfg.flows = vec![FlowConfig {
        name: "u".into(),
        src: 2,
        dst: 0,
        traffic: Traffic::Cbr { size: 1470, interval: Time::from_secs_f64(1470.0 * 8.0 / 5e6), jitter: Time::ZERO },
        start: Time::ZERO,
        stop: None,
    }];
    let t = Instant::now();
    let r = Simulation::new(cfg).unwrap().run();
    let wall = t.elapsed().as_secs_f64();
    println!(
        "2-hop: events {} wall {:.3}s  {:.2} Mev/s goodput {:.3} Mbit/s",
        r.events,
        wall,
        r.events as f64 / wall / 1e6,
        r.flows[0].goodput_bps / 1e6
    );
    let pos: Vec<Position> = (0..100)
        .map(|i| {
            let s = manetlab::sim::rng::mix64(i);
            Position::new((s % 1500) as f64, ((s >> 20) % 1500) as f64)
        })
        .collect();
    let _ = pos;
}
