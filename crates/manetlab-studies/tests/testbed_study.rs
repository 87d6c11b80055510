//! The testbed study in quick mode (issue 10): UDP delivery ratio
//! S1 > S2 > S3 under the default (threshold) reception model; under the
//! SINR model with shadowing S1 stays above both mobile scenarios (S2 and
//! S3 are then within noise of each other, see the study report), and the
//! diagnosis runs locate S2's loss: hidden-terminal collisions at node 1
//! that scale with the TCP flow's airtime; every artefact written.

use manetlab::study::StudyOptions;
use manetlab_studies as study;

#[test]
fn testbed_study_quick_orders_the_scenarios() {
    let out = std::env::temp_dir().join(format!("manetlab-testbed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let opts = StudyOptions { quick: true, ..StudyOptions::new(&out) };
    let t0 = std::time::Instant::now();
    let res = study::run("testbed", &opts, &|_, _| {}).expect("study runs");
    println!("{}\n(quick study: {:.1} s)", res.markdown, t0.elapsed().as_secs_f64());
    let order: Vec<_> = res.checks.iter().filter(|c| c.what.starts_with("UDP delivery ratio S1 > S2 > S3")).collect();
    assert_eq!(order.len(), 2, "one ordering check per reception model");
    let threshold = order.iter().find(|c| c.what.contains("threshold")).unwrap();
    assert!(threshold.passed, "{}: {}", threshold.what, threshold.detail);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let udp = |model: &str, scn: &str| -> f64 {
        json["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["model"] == model && c["scenario"] == scn)
            .map(|c| c["udp_delivery_pct"]["mean"].as_f64().unwrap())
            .unwrap()
    };
    assert!(udp("sinr", "S1") > udp("sinr", "S2") + 5.0 && udp("sinr", "S1") > udp("sinr", "S3") + 5.0);
    // The SINR model's shadowing makes links intermittent: S1 delivers
    // everything at 192 kbit/s but with jitter the threshold model lacks.
    assert!(udp("sinr", "S1") > 99.0);
    // Diagnosis runs (docs/testbed.md).
    let diag = |model: &str, about: &str, key: &str| -> f64 {
        json["diagnosis"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["model"] == model && c["scenario"].as_str().unwrap().starts_with(about))
            .map(|c| c[key]["mean"].as_f64().unwrap())
            .unwrap_or_else(|| panic!("no diagnosis {about} ({model})"))
    };
    // S2 under SINR loses its UDP packets on hop 2 -> 1 ...
    let s2_loss_21 = json["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["model"] == "sinr" && c["scenario"] == "S2")
        .map(|c| c["udp_loss_21_pct"]["mean"].as_f64().unwrap())
        .unwrap();
    assert!(s2_loss_21 > 10.0 * (100.0 - udp("sinr", "S2") - s2_loss_21).max(0.1), "loss 2->1 {s2_loss_21}");
    // ... to shadowing at node 2's carrier-sense edge (nodes 0 and 3 sit
    // 400 m away, the range is 420 m): without shadowing nothing is lost ...
    assert!(diag("sinr", "S2, no shadowing", "udp_delivery_pct") > 99.5);
    // ... and with the TCP application held to the paper's 1.34 Mbit/s the
    // hidden-terminal collisions mostly go, under both models.
    for m in ["threshold", "sinr"] {
        assert!(diag(m, "S2, TCP application paced", "udp_delivery_pct") > udp("sinr", "S2") + 10.0, "{m}");
    }
    // A walk in along the line from the left crosses a hidden-terminal zone
    // even under the threshold model.
    assert!(diag("threshold", "S2, node 3 starts on the line", "udp_delivery_pct") < udp("threshold", "S2") - 10.0);
    // With hop 1 -> 0 near the receive range, the shadowed model loses on
    // that hop (the paper's observation for S1); the threshold model cannot.
    let (l21, l10) = (
        diag("sinr", "S1, hop 1 -> 0 245 m", "udp_loss_21_pct"),
        diag("sinr", "S1, hop 1 -> 0 245 m", "udp_loss_10_pct"),
    );
    assert!(l10 > 0.1 && l10 > 5.0 * l21, "loss 2->1 {l21} %, 1->0 {l10} %");
    assert_eq!(diag("threshold", "S1, hop 1 -> 0 245 m", "udp_delivery_pct"), 100.0);
    for f in [
        "report.md",
        "results.json",
        "testbed_fig2_rate.csv",
        "testbed_s1_threshold_udp_interpacket.csv",
        "testbed_s2_sinr_tcp_timeseq.csv",
        "testbed_s3_threshold_tcp_hops.csv",
        "testbed_s3_sinr_udp_interpacket.csv",
    ] {
        let p = out.join(f);
        let len = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
        assert!(len > 100, "{} missing or empty", p.display());
    }
    assert!(res.markdown.contains("| 99.2 % |"), "the paper's table 1 is beside ours");
    // The S3 route really grows to 3 hops and comes back (hop-count view).
    let hops = std::fs::read_to_string(out.join("testbed_s3_threshold_tcp_hops.csv")).unwrap();
    let values: Vec<f64> = hops.lines().skip(1).filter_map(|l| l.split(',').nth(2)?.parse().ok()).collect();
    assert!(values.contains(&3.0) && values.last() == Some(&1.0), "{values:?}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn scenario_files_are_the_study_runs() {
    use manetlab::config::Traffic;
    use manetlab::scenario::Scenario as File;
    use manetlab_studies::testbed::{config, Model, Scenario, UDP_BPS};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    for (scn, name) in
        [(Scenario::S1, "testbed-s1.toml"), (Scenario::S2, "testbed-s2.toml"), (Scenario::S3, "testbed-s3.toml")]
    {
        let f = File::load::<&str>(&dir.join(name), &[]).unwrap_or_else(|e| panic!("{e}"));
        let mut from_file = f.config(1);
        let study = config(scn, Model::Threshold, 1, UDP_BPS, scn.duration(), false);
        // Recording switches of TCP do not change the run.
        for fl in &mut from_file.flows {
            if let Traffic::Tcp { tcp, .. } = &mut fl.traffic {
                tcp.record_series = false;
                tcp.record_seq_log = false;
            }
        }
        for (a, b) in from_file.flows.iter().zip(&study.flows) {
            assert_eq!((a.src, a.dst, a.start), (b.src, b.dst, b.start), "{name}");
            assert_eq!(a.traffic, b.traffic, "{name}");
        }
        assert_eq!(from_file.nodes, study.nodes, "{name}");
        assert_eq!(from_file.mac, study.mac, "{name}");
        assert_eq!(from_file.routing, study.routing, "{name}");
        let close = |a: f64, b: f64| (a / b - 1.0).abs() < 1e-6;
        assert!(close(from_file.radio.rx_threshold_w, study.radio.rx_threshold_w), "{name}");
        assert!(close(from_file.radio.cs_threshold_w, study.radio.cs_threshold_w), "{name}");
        let (ta, tb) = (from_file.mobility.trajectories(&from_file.nodes), study.mobility.trajectories(&study.nodes));
        for s in 0..=120 {
            let t = manetlab::sim::Time::from_secs(s);
            for (a, b) in ta.iter().zip(&tb) {
                let (pa, pb) = (a.position(t), b.position(t));
                assert!(pa.distance(&pb) < 1e-3, "{name} at {s} s: {pa:?} vs {pb:?}");
            }
        }
        // Same run: same UDP deliveries.
        let ra = manetlab::Simulation::new(from_file).unwrap().run();
        let rb = manetlab::Simulation::new(study).unwrap().run();
        assert_eq!(ra.flows[0].received_packets, rb.flows[0].received_packets, "{name}");
    }
}
