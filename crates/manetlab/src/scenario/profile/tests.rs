use super::*;
use crate::config::Traffic;
use crate::phy::Reception;
use crate::scenario::Scenario;

const CHAIN: &str = r#"
[run]
duration = "20s"
[topology]
kind = "chain"
nodes = 4
spacing = "40m"
[routing]
protocol = "aodv"
[[flow]]
src = 0
dst = 3
type = "tcp"
start = "1s"
[[flow]]
src = 3
dst = 0
type = "cbr"
packet_size = "512B"
rate = "64kbps"
"#;

fn tcp_mss(sc: &Scenario) -> u32 {
    match &sc.config(1).flows[0].traffic {
        Traffic::Tcp { tcp: t, .. } => t.mss,
        t => panic!("flow 0 is not TCP: {t:?}"),
    }
}

#[test]
fn ns2_is_the_default_and_writes_nothing() {
    // Every example scenario parses to the same run with and without
    // `profile = "ns2"`: the ns2 profile is manetlab's defaults.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let plain = Scenario::load(&p, &[] as &[&str]).unwrap();
        let ns2 = Scenario::load(&p, &["run.profile=ns2"]).unwrap();
        assert_eq!(plain.profile, Profile::Ns2);
        assert_eq!(ns2.profile, Profile::Ns2);
        assert_eq!(plain.config(3), ns2.config(3), "{}", p.display());
        n += 1;
    }
    assert!(n >= 10, "only {n} scenarios checked");
    for c in CHOICES {
        assert!(c.settings(Profile::Ns2).is_empty(), "{}", c.id);
    }
}

#[test]
fn ns3_profile_sets_its_defaults_only_where_the_file_is_silent() {
    let sc = Scenario::parse(CHAIN, "chain.toml", &["run.profile=ns3"]).unwrap();
    assert_eq!(sc.profile, Profile::Ns3);
    let cfg = sc.config(1);
    assert!(matches!(cfg.radio.reception, Reception::Sinr { .. }));
    assert!((10.0 * (cfg.radio.rx_threshold_w * 1e3).log10() + 82.0).abs() < 1e-6);
    assert!((10.0 * (cfg.radio.tx_power_w * 1e3).log10() - 16.0206).abs() < 1e-6);
    assert_eq!(cfg.queue.limit, 500);
    assert!(!cfg.queue.control_first);
    // WifiMacQueue MaxDelay and ThresholdPreambleDetectionModel's 4 dB.
    assert_eq!(cfg.queue.max_delay, Some(crate::sim::Time::from_ms(500)));
    // ... which also ends the MPDU the MAC is retrying, and the station's
    // retry counters (WifiRemoteStationManager m_ssrc[ac]).
    assert!(cfg.queue.expire_in_flight);
    assert_eq!(cfg.mac.retry_counters, crate::mac::RetryCounters::Station);
    // ChannelAccessManager::NeedBackoffUponAccess: idle at the instant.
    assert_eq!(cfg.mac.immediate_access, crate::mac::ImmediateAccess::IdleNow);
    assert!((cfg.radio.preamble_detection_snr.unwrap() - 10f64.powf(0.4)).abs() < 1e-9);
    // WifiPhy CcaEdThreshold -62 dBm.
    assert!((10.0 * (cfg.radio.energy_detection_w.unwrap() * 1e3).log10() + 62.0).abs() < 1e-6);
    // ... and CcaSensitivity -82 dBm for every frame the PHY dropped.
    assert!(cfg.radio.cca_sensitivity_hold);
    assert_eq!(tcp_mss(&sc), 536);
    // The CBR flow got no TCP keys (it would be refused otherwise), and
    // the effective text records the profile's keys.
    assert!(sc.effective_toml().contains("mss = \"536B\""));
    assert_eq!(sc.effective_toml().matches("mss =").count(), 1);

    // Explicit keys win: a file mss, a receive range instead of the threshold.
    let sc = Scenario::parse(
        CHAIN,
        "chain.toml",
        &["run.profile=ns3", "flow.0.mss=1000B", "radio.rx_range=45m", "queue.limit=7"],
    )
    .unwrap();
    assert_eq!(tcp_mss(&sc), 1000);
    let cfg = sc.config(1);
    assert_eq!(cfg.queue.limit, 7);
    assert!((cfg.radio.rx_range() - 45.0).abs() < 0.01, "{}", cfg.radio.rx_range());
    // Explicit two-ray ground: the shadowing-only keys are not written.
    let sc = Scenario::parse(CHAIN, "chain.toml", &["run.profile=ns3", "radio.propagation=two-ray-ground"]);
    assert!(sc.is_ok(), "{}", sc.unwrap_err());
    // Explicit threshold reception: the preamble-detection key (SINR only)
    // is not written, so the file stays valid.
    let sc = Scenario::parse(CHAIN, "chain.toml", &["run.profile=ns3", "radio.reception=threshold"]).unwrap();
    assert_eq!(sc.config(1).radio.preamble_detection_snr, None);
    assert_eq!(sc.config(1).radio.energy_detection_w, None);
    assert!(!sc.config(1).radio.cca_sensitivity_hold);
    // No profile: neither.
    let cfg = Scenario::parse(CHAIN, "chain.toml", &[] as &[&str]).unwrap().config(1);
    assert_eq!((cfg.queue.max_delay, cfg.radio.preamble_detection_snr), (None, None));
    assert_eq!((cfg.queue.expire_in_flight, cfg.mac.retry_counters), (false, crate::mac::RetryCounters::Mpdu));
    assert_eq!(cfg.mac.immediate_access, crate::mac::ImmediateAccess::IdleForDifs);
    // The lifetime refuses backpressure and zero; the in-flight expiry
    // needs a lifetime; the counters take two names.
    for bad in [
        &["queue.max_delay=0s"][..],
        &["queue.max_delay=1s", "queue.backpressure.threshold=5"][..],
        &["queue.expire_in_flight=true"][..],
        &["mac.retry_counters=frame"][..],
        &["mac.immediate_access=always"][..],
    ] {
        assert!(Scenario::parse(CHAIN, "chain.toml", bad).is_err(), "{bad:?}");
    }
}

#[test]
fn a_selection_switches_single_rows() {
    let ns3 = Selection::of(Profile::Ns3);
    let sc =
        Scenario::parse_selected(CHAIN, "c.toml", &[] as &[&str], &ns3.clone().with("tcp-mss", Profile::Ns2)).unwrap();
    assert_eq!(tcp_mss(&sc), 1460);
    assert_eq!(sc.config(1).queue.limit, 500);
    let sc = Scenario::parse_selected(
        CHAIN,
        "c.toml",
        &[] as &[&str],
        &Selection::of(Profile::Ns2).with("queue", Profile::Ns3),
    )
    .unwrap();
    assert_eq!(sc.config(1).queue.limit, 500);
    assert_eq!(tcp_mss(&sc), 1460);
    // The imposed base is recorded in the text.
    assert!(sc.effective_toml().contains("profile = \"ns2\""));
}

#[test]
fn every_profile_and_every_single_row_switch_is_a_valid_scenario() {
    for routing in ["aodv", "dsr", "static"] {
        let text = CHAIN.replace("\"aodv\"", &format!("\"{routing}\""));
        for a in Profile::ALL {
            for b in Profile::ALL {
                for c in CHOICES {
                    let sel = Selection::of(a).with(c.id, b);
                    if let Err(e) = Scenario::parse_selected(&text, "c.toml", &[] as &[&str], &sel) {
                        panic!("{routing} {a} with {} from {b}: {e}", c.id);
                    }
                }
            }
        }
    }
}

#[test]
fn cmu1999_is_the_elfn_papers_tcp_and_arp() {
    let sc = Scenario::parse(CHAIN, "c.toml", &["run.profile=cmu1999"]).unwrap();
    let cfg = sc.config(1);
    match &cfg.flows[0].traffic {
        Traffic::Tcp { tcp: t, .. } => assert_eq!(t.max_window, 8),
        _ => unreachable!(),
    }
    assert!(sc.effective_toml().contains("initial_rto = \"6s\""));
    assert!(sc.effective_toml().contains("mode = \"ns2\""));
}

#[test]
fn unknown_profile_is_refused_with_the_names() {
    let e = Scenario::parse(CHAIN, "c.toml", &["run.profile=omnet"]).unwrap_err().to_string();
    assert!(e.contains("unknown value \"omnet\" for 'run.profile'"), "{e}");
    assert!(e.contains("ns2, ns3, cmu1999"), "{e}");
    let text = CHAIN.replace("duration = \"20s\"", "duration = \"20s\"\nprofile = \"ns4\"");
    let e = Scenario::parse(&text, "c.toml", &[] as &[&str]).unwrap_err();
    assert_eq!(e.position.map(|p| p.0), Some(4), "{e}");
}
