//! Single-hop saturation throughput against the DCF timing formula.
//!
//! One saturated station and no contention: every packet costs
//! DIFS + mean backoff + [RTS + SIFS + CTS + SIFS] + DATA + SIFS + ACK,
//! with mean backoff = CWmin/2 slots (post-backoff after every frame).

mod common;
use common::*;
use manetlab::config::Position;
use manetlab::mac::frame::{ACK_BYTES, CTS_BYTES, DATA_OVERHEAD_BYTES, RTS_BYTES};
use manetlab::phy::PhyMode;
use manetlab::Simulation;

const PAYLOAD: u32 = 1500;
/// UDP (8) + IP (20) headers on top of the payload.
const L3_L4: u32 = 28;

fn formula_bps(m: &PhyMode, rts: bool) -> f64 {
    let us = |t: manetlab::sim::Time| t.as_us_f64();
    let data = m.frame_time(PAYLOAD + L3_L4 + DATA_OVERHEAD_BYTES, m.data_rate);
    let ack = m.frame_time(ACK_BYTES, m.basic_rate);
    let backoff = m.cw_min() as f64 / 2.0 * us(m.slot());
    let mut cycle = us(m.difs()) + backoff + us(data) + us(m.sifs()) + us(ack);
    if rts {
        cycle +=
            us(m.frame_time(RTS_BYTES, m.basic_rate)) + us(m.frame_time(CTS_BYTES, m.basic_rate)) + 2.0 * us(m.sifs());
    }
    PAYLOAD as f64 * 8.0 / (cycle * 1e-6)
}

fn simulate(m: PhyMode, rts: bool) -> f64 {
    let mut cfg = base(vec![Position::new(0.0, 0.0), Position::new(100.0, 0.0)], 60);
    cfg.mac.phy = m;
    cfg.mac.rts_threshold = if rts { Some(0) } else { None };
    // Offer far more than the channel carries.
    cfg.flows = vec![cbr("sat", 0, 1, PAYLOAD, 2.0 * m.data_rate as f64, 0.0)];
    cfg.warmup = manetlab::sim::Time::from_secs(1);
    let r = Simulation::new(cfg).unwrap().run();
    assert!(r.audit.balances(), "{:?}", r.audit);
    r.flows[0].goodput_bps
}

fn check(m: PhyMode, rts: bool) {
    let sim = simulate(m, rts);
    let want = formula_bps(&m, rts);
    let err = (sim - want).abs() / want;
    println!(
        "rate {} rts {rts}: simulated {:.1} kbit/s, formula {:.1} kbit/s, error {:.2}%",
        m.data_rate,
        sim / 1e3,
        want / 1e3,
        err * 100.0
    );
    assert!(err < 0.03, "simulated {sim} vs formula {want}");
}

#[test]
fn saturated_2mbps_with_rts() {
    check(dsss(2.0, 2.0), true);
}

#[test]
fn saturated_2mbps_without_rts() {
    check(dsss(2.0, 2.0), false);
}

#[test]
fn saturated_11mbps_without_rts() {
    check(dsss(11.0, 1.0), false);
}

#[test]
fn saturated_11mbps_with_rts() {
    check(dsss(11.0, 2.0), true);
}
