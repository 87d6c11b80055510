//! Helpers shared by the integration tests: small scenario builders.
#![allow(dead_code)]

use manetlab::config::{FlowConfig, Position, SimConfig, Traffic};
use manetlab::metrics::trace::{MemorySink, PacketEvent, TraceSink};
use manetlab::phy::{PhyMode, PhyStandard, Preamble};
use manetlab::sim::Time;
use manetlab::{Report, Simulation};
use std::sync::{Arc, Mutex};

pub fn cbr(name: &str, src: u32, dst: u32, size: u32, rate_bps: f64, start: f64) -> FlowConfig {
    FlowConfig {
        name: name.into(),
        src,
        dst,
        traffic: Traffic::Cbr { size, interval: Time::from_secs_f64(size as f64 * 8.0 / rate_bps), jitter: Time::ZERO },
        start: Time::from_secs_f64(start),
        stop: None,
    }
}

pub fn dsss(data_mbps: f64, basic_mbps: f64) -> PhyMode {
    PhyMode {
        standard: PhyStandard::Dsss,
        preamble: Preamble::Long,
        data_rate: (data_mbps * 1e6) as u64,
        basic_rate: (basic_mbps * 1e6) as u64,
    }
}

pub fn base(nodes: Vec<Position>, secs: u64) -> SimConfig {
    SimConfig { duration: Time::from_secs(secs), nodes, ..SimConfig::default() }
}

/// Runs a config and checks that its packet audit balances.
pub fn run(cfg: SimConfig) -> Report {
    let r = Simulation::new(cfg).unwrap().run();
    assert!(r.audit.balances(), "{:?}", r.audit);
    r
}

/// Lets a test read a memory trace after the simulation consumed the sink.
pub struct Shared(pub Arc<Mutex<MemorySink>>);
impl TraceSink for Shared {
    fn packet(&mut self, ev: &PacketEvent) {
        self.0.lock().unwrap().packet(ev);
    }
}

/// Runs with a memory trace (one line per packet event); checks the audit.
pub fn traced(cfg: SimConfig) -> (Report, Vec<String>) {
    let mem = Arc::new(Mutex::new(MemorySink::default()));
    let mut sim = Simulation::new(cfg).unwrap();
    sim.set_tracer(Box::new(Shared(mem.clone())));
    let r = sim.run();
    assert!(r.audit.balances(), "{:?}", r.audit);
    let lines = mem.lock().unwrap().lines.clone();
    (r, lines)
}

/// Times at which node `node`'s agent received a packet of type `ty`.
pub fn agent_receptions(lines: &[String], node: u32, ty: &str) -> Vec<f64> {
    let tag = format!("_{node}_");
    lines
        .iter()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0] == "r" && f[2] == tag && f[3] == "AGT" && f[6] == ty).then(|| f[1].parse().unwrap())
        })
        .collect()
}
