//! Helpers shared by the integration tests: small scenario builders.
#![allow(dead_code)]

use manetlab::config::{FlowConfig, Position, SimConfig, Traffic};
use manetlab::phy::{PhyMode, PhyStandard, Preamble};
use manetlab::sim::Time;

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
