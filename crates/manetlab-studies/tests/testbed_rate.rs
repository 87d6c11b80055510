//! The testbed study's scenarios under the realistic setting of
//! `examples/testbed_rate.rs` ("arf-budget": SINR, per-link correlated
//! shadowing, Nakagami m = 4, ARF, a link budget in which the frame's rate
//! decides reception): the paper's UDP ordering S1 > S2 > S3 holds, TCP
//! falls from the fixed-rate 3.4 Mbit/s towards the paper's 1.34, and the
//! counters show why (node 2's UDP frames collide at node 1, ARF takes the
//! collisions for a bad channel and drops node 2 to 1 Mbit/s, whose long
//! frames take half the airtime). docs/rate.md, docs/testbed.md.

use manetlab::config::SimConfig;
use manetlab::mac::RateControlKind;
use manetlab::metrics::Report;
use manetlab::net::routing::RoutingConfig;
use manetlab::phy::{FadingConfig, ShadowingProcess};
use manetlab::Simulation;
use manetlab_studies::testbed::{config, Model, Scenario, UDP_BPS};

fn realistic(scn: Scenario, seed: u64) -> SimConfig {
    let mut cfg = config(scn, Model::Sinr, seed, UDP_BPS, scn.duration(), false);
    cfg.radio.tx_power_w = 10f64.powf(0.14) * 1e-3; // 1.4 dBm: 10 dB mean SNR at 200 m
    cfg.radio.set_ranges(Some(420.0), Some(420.0));
    if matches!(cfg.routing, RoutingConfig::Static { .. }) {
        cfg.routing = RoutingConfig::Static { paths: vec![vec![2, 1, 0]] };
    }
    cfg.mac.rate_control = RateControlKind::Arf;
    cfg.radio.fading = FadingConfig {
        nakagami_m: Some(4.0),
        shadowing: ShadowingProcess::Correlated { decorrelation_m: 5.0, coherence_s: Some(2.0) },
    };
    cfg
}

fn runs(scn: Scenario) -> Vec<Report> {
    (1..=3).map(|s| Simulation::new(realistic(scn, s)).unwrap().run()).collect()
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = v.collect();
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn realistic_setting_orders_udp_delivery_and_slows_tcp_by_rate_fallback() {
    let [s1, s2, s3] = Scenario::ALL.map(runs);
    let udp = |rs: &[Report]| mean(rs.iter().map(|r| r.flows[0].delivery_ratio.expect("UDP flow sent packets")));
    let tcp = |rs: &[Report]| mean(rs.iter().map(|r| r.flows[1].goodput_bps / 1e6));
    let (u1, u2, u3) = (udp(&s1), udp(&s2), udp(&s3));
    let (t2, t3) = (tcp(&s2), tcp(&s3));
    eprintln!("UDP delivery S1 {u1:.3} S2 {u2:.3} S3 {u3:.3}; TCP S2 {t2:.2} S3 {t3:.2} Mbit/s (paper 1.34 / 0.93)");
    assert!(u1 > u2 && u2 > u3, "S1 > S2 > S3: {u1} {u2} {u3}");
    assert!(u1 > 0.99);
    // Fixed 11 Mbit/s under SINR gives 3.4 / 1.8 Mbit/s; with ARF TCP
    // comes within 30 % of the paper's numbers (1.66 / 1.11 over 10 seeds).
    assert!((t2 / 1.34 - 1.0).abs() < 0.3, "S2 TCP {t2}");
    assert!((t3 / 0.93 - 1.0).abs() < 0.3, "S3 TCP {t3}");
    // The mechanism: node 2 spends most DATA attempts at 1 Mbit/s in S2
    // (its frames collide at node 1 with hidden node 3/0 traffic) and
    // about half the airtime.
    let (mut at1, mut all, mut air) = (0u64, 0u64, 0u64);
    for r in &s2 {
        for c in r.nodes[2].data_rates.as_ref().unwrap() {
            all += c.attempts;
            if c.rate_mbps == 1.0 {
                at1 += c.attempts;
            }
        }
        air += r.nodes[2].mac.airtime_ns;
    }
    let share = at1 as f64 / all as f64;
    let air = air as f64 / 1e9 / 3.0 / 60.0;
    eprintln!("S2 node 2: {:.0} % of attempts at 1 Mbit/s, airtime {:.0} %", 100.0 * share, 100.0 * air);
    assert!(share > 0.8, "{share}");
    assert!(air > 0.35, "{air}");
    // S1 alone: node 2 mostly at the higher rates (no collisions).
    let mut fast = 0u64;
    let mut all1 = 0u64;
    for r in &s1 {
        for c in r.nodes[2].data_rates.as_ref().unwrap() {
            all1 += c.attempts;
            if c.rate_mbps >= 5.5 {
                fast += c.attempts;
            }
        }
    }
    assert!(fast as f64 / all1 as f64 > 0.6, "S1 node 2 at >= 5.5 Mbit/s: {fast} of {all1}");
}
