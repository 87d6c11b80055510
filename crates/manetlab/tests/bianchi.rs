//! n saturated stations in one collision domain against Bianchi's (2000)
//! saturation-throughput model (metrics::analytic::bianchi).
//!
//! Busy times for this MAC (δ = propagation delay):
//! - success, basic: Ts = DATA + SIFS + δ + ACK + DIFS + δ
//! - success, RTS:   Ts = RTS + SIFS + δ + CTS + SIFS + δ + DATA + SIFS + δ + ACK + DIFS + δ
//! - collision: every station, colliders included, saw a frame it could not
//!   decode and defers EIFS (= SIFS + ACK@1Mbit/s + DIFS) instead of DIFS,
//!   so Tc = DATA + EIFS + δ (basic), RTS + EIFS + δ (RTS/CTS).
//!
//! W = CWmin + 1 = 32, m = log2((CWmax + 1)/W) = 5. Bianchi assumes no retry
//! limit; with the limit of 7 attempts the difference is p^7 < 0.1%.

mod common;
use common::*;
use manetlab::config::Position;
use manetlab::mac::frame::{ACK_BYTES, CTS_BYTES, DATA_OVERHEAD_BYTES, RTS_BYTES};
use manetlab::metrics::analytic::{bianchi, BianchiParams, BusyTimes};
use manetlab::sim::Time;
use manetlab::Simulation;

const PAYLOAD: u32 = 1500;

fn model(n: u32, rts: bool) -> f64 {
    let m = dsss(2.0, 2.0);
    let s = |t: Time| t.as_secs_f64();
    let delta = 20.0 / 3e8;
    let data = s(m.frame_time(PAYLOAD + 28 + DATA_OVERHEAD_BYTES, m.data_rate));
    let ack = s(m.frame_time(ACK_BYTES, m.basic_rate));
    let (sifs, difs, eifs) = (s(m.sifs()), s(m.difs()), s(m.eifs()));
    let busy = if rts {
        let r = s(m.frame_time(RTS_BYTES, m.basic_rate));
        let c = s(m.frame_time(CTS_BYTES, m.basic_rate));
        BusyTimes { ts: r + c + data + ack + 3.0 * sifs + difs + 4.0 * delta, tc: r + eifs + delta }
    } else {
        BusyTimes { ts: data + sifs + ack + difs + 2.0 * delta, tc: data + eifs + delta }
    };
    let p = BianchiParams::from_cw(n, m.cw_min(), m.cw_max(), s(m.slot()), PAYLOAD as f64 * 8.0, busy);
    bianchi(&p).throughput
}

fn simulate(n: u32, rts: bool) -> f64 {
    // n senders on a 20 m circle around a common receiver (node n).
    let mut nodes: Vec<Position> = (0..n)
        .map(|i| {
            let a = i as f64 * std::f64::consts::TAU / n as f64;
            Position::new(20.0 * a.cos(), 20.0 * a.sin())
        })
        .collect();
    nodes.push(Position::new(0.0, 0.0));
    let mut cfg = base(nodes, 60);
    cfg.mac.phy = dsss(2.0, 2.0);
    cfg.mac.rts_threshold = if rts { Some(0) } else { None };
    cfg.warmup = Time::from_secs(2);
    cfg.flows = (0..n).map(|i| cbr(&format!("s{i}"), i, n, PAYLOAD, 1e6, 0.01 * i as f64)).collect();
    let r = Simulation::new(cfg).unwrap().run();
    assert!(r.audit.balances());
    r.flows.iter().map(|f| f.goodput_bps).sum()
}

fn check(n: u32, rts: bool) {
    let sim = simulate(n, rts);
    let want = model(n, rts);
    let err = (sim - want) / want;
    println!(
        "n={n:2} rts={rts}: simulated {:.1} kbit/s, Bianchi {:.1} kbit/s, {:+.2}%",
        sim / 1e3,
        want / 1e3,
        err * 100.0
    );
    assert!(err.abs() < 0.05, "n={n} rts={rts}: {sim} vs {want}");
}

#[test]
fn bianchi_basic_access() {
    for n in [5, 10, 20] {
        check(n, false);
    }
}

#[test]
fn bianchi_rts_cts() {
    for n in [5, 10, 20] {
        check(n, true);
    }
}
