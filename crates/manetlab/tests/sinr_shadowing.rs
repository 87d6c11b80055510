//! The SINR reception model and log-normal shadowing, end to end: scenario
//! keys, shadowing with deviation 0 equal to the deterministic model, and
//! what interference does to a run under the SINR model.

mod common;
use common::*;
use manetlab::config::{Position, SimConfig};
use manetlab::phy::{Propagation, Reception};
use manetlab::scenario::Scenario;

fn chain_udp(n: usize, rate_bps: f64) -> SimConfig {
    let mut cfg = base(SimConfig::chain_positions(n, 200.0), 30);
    cfg.mac.phy = dsss(11.0, 2.0);
    cfg.flows = vec![cbr("udp", n as u32 - 1, 0, 1470, rate_bps, 1.0)];
    cfg
}

#[test]
fn shadowing_with_zero_deviation_runs_exactly_like_two_ray_ground() {
    // Exponent 4 from the two-ray crossover distance and no deviation is
    // two-ray ground: same powers, so the same run, event for event.
    for reception in [Reception::Threshold, Reception::Sinr { noise_figure_db: 7.0 }] {
        let mut a = chain_udp(4, 2.5e6);
        a.radio.reception = reception;
        let mut b = a.clone();
        b.radio.propagation = Propagation::two_ray_equivalent(&b.radio, b.radio.antenna_height_m);
        assert_ne!(a.radio.propagation, b.radio.propagation);
        let (ra, rb) = (run(a), run(b));
        assert!(ra.flows[0].received_packets > 100);
        assert_eq!(ra.events, rb.events, "{reception:?}");
        assert_eq!(serde_json::to_string(&ra).unwrap(), serde_json::to_string(&rb).unwrap());
    }
}

#[test]
fn shadowing_makes_a_marginal_link_intermittent() {
    // One hop at 240 m of a 250 m range: deterministic models always
    // deliver; with 6 dB shadowing a share of frames falls below the
    // receive threshold and MAC retries (and some drops) appear.
    let mut cfg = base(vec![Position::new(0.0, 0.0), Position::new(240.0, 0.0)], 20);
    cfg.mac.phy = dsss(11.0, 2.0);
    cfg.flows = vec![cbr("udp", 0, 1, 1470, 0.2e6, 1.0)];
    let det = run(cfg.clone());
    assert_eq!(det.mac_totals().retries, 0);
    cfg.radio.propagation = Propagation::Shadowing { exponent: 4.0, ref_distance_m: 86.14, sigma_db: 6.0 };
    cfg.radio.set_ranges(Some(250.0), Some(550.0));
    let sh = run(cfg);
    let retries = sh.mac_totals().retries;
    assert!(retries > 50, "retries {retries}");
    assert!(sh.flows[0].delivery_ratio.unwrap() > 0.5, "{}", sh.flows[0].delivery_ratio.unwrap());
}

#[test]
fn sinr_hidden_terminals_collide_and_interference_sums() {
    // Two senders 500 m apart (hidden from each other beyond carrier sense
    // of 450 m) both send to the middle node: under the threshold model and
    // under SINR the overlapping equal-power frames are lost and the MAC
    // retries; a lone sender sees no loss under either model.
    for reception in [Reception::Threshold, Reception::Sinr { noise_figure_db: 7.0 }] {
        let nodes = vec![Position::new(0.0, 0.0), Position::new(250.0, 0.0), Position::new(500.0, 0.0)];
        let mut cfg = base(nodes, 20);
        cfg.mac.phy = dsss(11.0, 2.0);
        cfg.radio.reception = reception;
        cfg.radio.set_ranges(Some(260.0), Some(450.0));
        cfg.flows = vec![cbr("a", 0, 1, 1470, 2e6, 1.0)];
        let alone = run(cfg.clone());
        assert_eq!(alone.radio_totals().collisions, 0, "{reception:?}");
        assert!(alone.flows[0].delivery_ratio.unwrap() > 0.999);
        cfg.flows.push(cbr("b", 2, 1, 1470, 2e6, 1.0));
        let both = run(cfg);
        assert!(both.radio_totals().collisions > 100, "{reception:?}: {:?}", both.radio_totals());
        assert!(both.mac_totals().retries > 100);
    }
}

#[test]
fn scenario_keys_select_the_models() {
    let text = r#"
[run]
duration = "5s"
[topology]
kind = "chain"
nodes = 3
spacing = "100m"
[radio]
propagation = "shadowing"
path_loss_exponent = 2.7
reference_distance = "2m"
shadowing_deviation = "4dB"
reception = "sinr"
noise_figure = "9dB"
rx_range = "150m"
cs_range = "300m"
[[flow]]
src = 2
dst = 0
type = "cbr"
packet_size = "500B"
rate = "100kbps"
"#;
    let sc = Scenario::from_str(text, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let c = sc.config(1);
    match c.radio.propagation {
        Propagation::Shadowing { exponent, ref_distance_m, sigma_db } => {
            assert_eq!(exponent, 2.7);
            assert_eq!(ref_distance_m, 2.0);
            assert!((sigma_db - 4.0).abs() < 1e-9);
        }
        p => panic!("{p:?}"),
    }
    match c.radio.reception {
        Reception::Sinr { noise_figure_db } => assert!((noise_figure_db - 9.0).abs() < 1e-9),
        r => panic!("{r:?}"),
    }
    // Ranges are converted with the mean of the shadowing model.
    assert!((c.radio.rx_range() - 150.0).abs() < 1e-6);
    // Defaults: threshold reception, two-ray ground.
    let plain = Scenario::from_str(&text.replace("[radio]", "[radio_unused]"), "t.toml");
    assert!(plain.is_err());
    // Shadowing keys with another propagation model, a noise figure with
    // the threshold model, and a negative deviation are refused.
    for (bad, what) in [
        (text.replace("propagation = \"shadowing\"", "propagation = \"two-ray-ground\""), "not used by propagation"),
        (text.replace("reception = \"sinr\"", "reception = \"threshold\""), "not used by reception"),
        (text.replace("\"4dB\"", "\"-1dB\""), "cannot be negative"),
        (text.replace("\"sinr\"", "\"magic\""), "expected one of"),
    ] {
        let e = Scenario::from_str(&bad, "t.toml").err().unwrap_or_else(|| panic!("accepted: {what}")).to_string();
        assert!(e.contains(what), "{e}");
    }
}
