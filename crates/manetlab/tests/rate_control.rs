//! Rate control and fading end to end: a single link swept in distance
//! under the SINR model (the chosen rate steps down as the SNR falls and
//! goodput falls monotonically), the scenario keys, and determinism.

mod common;
use common::*;
use manetlab::config::{Position, SimConfig};
use manetlab::mac::RateControlKind;
use manetlab::metrics::Report;
use manetlab::phy::{FadingConfig, Reception, ShadowingProcess};
use manetlab::scenario::Scenario;

/// One saturated 802.11b link of `d` metres: SINR reception (7 dB noise
/// figure), two-ray ground, -5.6 dBm so that the SNR runs from ~15 dB at
/// 100 m to ~-4 dB at 300 m, and every frame above the noise is locked on
/// (receive threshold at 400 m).
fn link(d: f64, rc: RateControlKind) -> SimConfig {
    let mut cfg = base(vec![Position::new(0.0, 0.0), Position::new(d, 0.0)], 10);
    cfg.mac.phy = dsss(11.0, 2.0);
    cfg.mac.rts_threshold = None;
    cfg.mac.rate_control = rc;
    cfg.radio.reception = Reception::Sinr { noise_figure_db: 7.0 };
    cfg.radio.tx_power_w = 10f64.powf(-0.56) * 1e-3;
    cfg.radio.set_ranges(Some(400.0), Some(450.0));
    cfg.flows = vec![cbr("u", 0, 1, 1470, 8e6, 0.5)];
    cfg
}

/// The rate with most DATA attempts at node 0, Mbit/s.
fn main_rate(r: &Report) -> f64 {
    let rates = r.nodes[0].data_rates.as_ref().expect("rate counters with rate control");
    rates.iter().max_by_key(|c| c.attempts).map(|c| c.rate_mbps).unwrap()
}

#[test]
fn rate_steps_down_and_goodput_falls_with_distance() {
    let ds = [100.0, 140.0, 170.0, 200.0, 230.0, 260.0, 290.0];
    for rc in [RateControlKind::Ideal, RateControlKind::Minstrel, RateControlKind::Arf] {
        let mut rows = Vec::new();
        for &d in &ds {
            let r = run(link(d, rc));
            rows.push((d, main_rate(&r), r.flows[0].goodput_bps / 1e6));
        }
        eprintln!("{rc:?}: (distance m, main rate Mbit/s, goodput Mbit/s) {rows:?}");
        for w in rows.windows(2) {
            assert!(w[1].1 <= w[0].1, "{rc:?}: rate rose from {:?} to {:?}", w[0], w[1]);
            assert!(w[1].2 <= w[0].2 * 1.01, "{rc:?}: goodput rose from {:?} to {:?}", w[0], w[1]);
        }
        let distinct = {
            let mut v: Vec<u64> = rows.iter().map(|r| (r.1 * 10.0) as u64).collect();
            v.dedup();
            v.len()
        };
        assert!(distinct >= 3, "{rc:?}: the rate takes {distinct} values over the sweep");
        assert_eq!(rows[0].1, 11.0, "{rc:?} at 100 m");
        assert!(rows[0].2 > 4.0, "{rc:?}: {} Mbit/s at 100 m", rows[0].2);
        assert!(rows.last().unwrap().1 <= 2.0, "{rc:?} at 290 m");
    }
    // The constant rate at 11 Mbit/s collapses where the adaptive ones
    // still deliver.
    let c = run(link(230.0, RateControlKind::Constant));
    let a = run(link(230.0, RateControlKind::Ideal));
    assert!(c.nodes[0].data_rates.is_none(), "no rate counters without rate control");
    assert!(
        a.flows[0].goodput_bps > 2.0 * c.flows[0].goodput_bps.max(1.0),
        "{} vs {}",
        a.flows[0].goodput_bps,
        c.flows[0].goodput_bps
    );
}

#[test]
fn per_rate_counters_add_up_to_the_mac_counters() {
    let r = run(link(200.0, RateControlKind::Minstrel));
    let rates = r.nodes[0].data_rates.clone().unwrap();
    let attempts: u64 = rates.iter().map(|c| c.attempts).sum();
    let acked: u64 = rates.iter().map(|c| c.acked).sum();
    assert_eq!(attempts, r.nodes[0].mac.data_sent);
    assert_eq!(acked, r.nodes[0].mac.unicast_success);
    assert!(rates.len() >= 3, "Minstrel samples several rates: {rates:?}");
}

#[test]
fn scenario_keys_select_rate_control_and_fading() {
    let text = r#"
[run]
duration = "5s"
[topology]
kind = "chain"
nodes = 2
spacing = "50m"
[radio]
propagation = "shadowing"
path_loss_exponent = 3.0
shadowing_deviation = "4dB"
shadowing = "correlated"
shadowing_decorrelation = "15m"
shadowing_coherence_time = "2s"
fading = "nakagami"
nakagami_m = 1.5
reception = "sinr"
[mac]
standard = "dsss"
data_rate = "11Mbps"
basic_rate = "2Mbps"
rate_control = "aarf"
[[flow]]
src = 0
dst = 1
type = "cbr"
packet_size = "1000B"
rate = "500kbps"
"#;
    let s = Scenario::from_str(text, "t.toml").unwrap();
    let c = s.config(1);
    assert_eq!(c.mac.rate_control, RateControlKind::Aarf);
    assert_eq!(
        c.radio.fading,
        FadingConfig {
            nakagami_m: Some(1.5),
            shadowing: ShadowingProcess::Correlated { decorrelation_m: 15.0, coherence_s: Some(2.0) }
        }
    );
    for (key, bad) in [
        ("rate_control = \"aarf\"", "rate_control = \"onoe\""),
        ("nakagami_m = 1.5", "nakagami_m = 0.2"),
        ("shadowing = \"correlated\"", "shadowing = \"smooth\""),
    ] {
        assert!(Scenario::from_str(&text.replace(key, bad), "t.toml").is_err(), "{bad} accepted");
    }
    let r = run(c.clone());
    let again = run(c);
    assert_eq!(serde_json::to_string(&r).unwrap(), serde_json::to_string(&again).unwrap());
    assert!(r.flows[0].received_packets > 0);
}
