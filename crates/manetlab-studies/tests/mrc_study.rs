//! The `mrc` study (ns-3's manet-routing-compare) in quick mode: one point
//! (20 m/s, pause 0), one seed, a 60 s run; every table is produced with
//! the stored ns-3.37 and ns-2.35 numbers beside ours, and the runs behave
//! as configured.

use manetlab::study::StudyOptions;
use manetlab_studies as study;
use manetlab_studies::mrc;

#[test]
fn quick_study_produces_every_table_beside_the_references() {
    let dir = std::env::temp_dir().join(format!("manetlab-mrc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = StudyOptions { quick: true, ..StudyOptions::new(&dir) };
    let t0 = std::time::Instant::now();
    let out = study::run("mrc", &opts, &|_, _| {}).unwrap();
    println!("{}\n({:.1} s wall)", out.markdown, t0.elapsed().as_secs_f64());
    assert_eq!(out.runs, 8, "4 protocols x 1 point x 1 seed, on movement file 1 and on a random waypoint draw");
    for s in [
        "## Paired comparison",
        "### Packet delivery ratio per movement file",
        "### Packet delivery ratio",
        "### Goodput",
        "### Mean delay",
        "### Normalized routing load",
        "### Topology",
    ] {
        assert!(out.markdown.contains(s), "{s} missing");
    }
    assert!(dir.join("pdr.csv").exists());
    // A paired PDR check against ns-3 for each protocol and against ns-2
    // for the three it has, at the quick point (movement file 1).
    assert_eq!(out.checks.len(), 4 + 3);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    for r in rows {
        let p = r["protocol"].as_str().unwrap();
        let ours = &r["ours"];
        // 10 flows x 4 packets/s x 30 s (starts spread over 0.9 s).
        let pdr = ours["pdr"]["mean"].as_f64().unwrap();
        assert!(pdr > 0.0 && pdr <= 1.0, "{p}: PDR {pdr}");
        // Goodput cannot exceed what is offered: 10 x 2048 bit/s.
        let g = ours["goodput_kbps"]["mean"].as_f64().unwrap();
        assert!(g > 0.0 && g <= 20.48 * 1.001, "{p}: goodput {g}");
        assert!(ours["nrl"]["mean"].as_f64().unwrap() > 0.0, "{p} sends routing packets");
        // The reference cells are the stored ns-3 runs (2-3 seeds).
        assert!(r["ns3"]["pdr"]["n"].as_u64().unwrap() >= 2, "{p}");
        assert_eq!(r["ns2"].is_null(), p == "olsr", "{p}: ns-2.35 has no OLSR");
        // Same mobility for every protocol: same topology numbers.
        assert_eq!(ours["mean_degree"]["mean"], rows[0]["ours"]["mean_degree"]["mean"]);
    }
    // The network is sparse at 7.5 dBm: a few neighbours in the 138 m range.
    let degree = rows[0]["ours"]["mean_degree"]["mean"].as_f64().unwrap();
    assert!((2.0..12.0).contains(&degree), "mean degree {degree}");
    // The paired rows: manetlab on movement file 1, beside ns-3's and
    // ns-2's runs on the same file.
    let paired = json["paired"].as_array().unwrap();
    assert_eq!(paired.len(), 4);
    for r in paired {
        let p = r["protocol"].as_str().unwrap();
        let run = &r["per_run"][0];
        assert_eq!(run["run"], 1);
        let pdr = run["manetlab"].as_f64().unwrap();
        assert!(pdr > 0.0 && pdr <= 1.0, "{p}: PDR {pdr}");
        assert!(run["ns3"].as_f64().is_some(), "{p}: ns-3 ran movement file 1");
        assert_eq!(run["ns2"].is_null(), p == "olsr", "{p}");
        assert_eq!(r["ns3"]["runs"], serde_json::json!([1]), "{p}");
        // Same movement file for every protocol: same topology numbers,
        // and not the random waypoint draw's.
        assert_eq!(r["ours"]["mean_degree"]["mean"], paired[0]["ours"]["mean_degree"]["mean"]);
        assert_ne!(r["ours"]["mean_degree"]["mean"], rows[0]["ours"]["mean_degree"]["mean"]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn range_and_references_are_as_documented() {
    // Friis at 5.15 GHz from 7.5 dBm reaches -82 dBm at 138.3 m (ns-3's
    // program reports the same within rounding: its probe gives -82.71 dBm
    // at 150 m and -79.18 dBm at 100 m).
    assert!((mrc::range_m() - 138.3).abs() < 0.2, "{}", mrc::range_m());
    let ns3 = mrc::reference("ns3");
    let ns2 = mrc::reference("ns2");
    assert!(ns3.iter().any(|r| r.protocol == "OLSR"));
    assert!(ns2.iter().all(|r| r.protocol != "OLSR"));
    for r in ns3.iter().chain(&ns2) {
        // About 10 flows x 4 packets/s x 99-100 s.
        assert!((3900..=4000).contains(&r.offered), "{r:?}");
        assert!(r.received <= r.offered);
        assert_eq!(r.pdr.is_some(), r.offered > 0);
    }
}

#[test]
fn paired_runs_move_as_the_setdest_file_says() {
    use manetlab::sim::Time;
    let s = mrc::Scale { seeds: 5, duration_s: 200, traffic_start_s: 100 };
    let cfg = mrc::config_with("aodv", 20.0, 100.0, 1, s, mrc::ArpVariant::Ns3, mrc::Movement::File(1));
    let traj: Vec<_> = cfg.mobility.trajectories(&cfg.nodes).iter().map(|t| t.materialized()).collect();
    assert_eq!(traj.len(), 50);
    // rwp50-v20-p100-1.tcl: node 0 starts at (201.53, 317.23) and, setdest
    // v1 pausing first, stays there until 100 s, then heads for
    // (20.11, 813.13) at 8.0034 m/s.
    let p = traj[0].position(Time::from_secs(50));
    assert!((p.x - 201.532821966993).abs() < 1e-6 && (p.y - 317.229466741842).abs() < 1e-6, "{p:?}");
    let q = traj[0].position(Time::from_secs(110));
    let (dx, dy): (f64, f64) = (20.105986362799 - 201.532821966993, 813.132675511669 - 317.229466741842);
    let len = (dx * dx + dy * dy).sqrt();
    let want = (201.532821966993 + dx / len * 80.03370907321, 317.229466741842 + dy / len * 80.03370907321);
    assert!((q.x - want.0).abs() < 1e-3 && (q.y - want.1).abs() < 1e-3, "{q:?} vs {want:?}");
    // Every point has its five files, and the flows are ns-2's and ns-3's
    // (mrc.tcl, mrc --moves): node 10+i -> node i from 100 + 0.1 i s.
    for (v, pause) in mrc::POINTS {
        for run in 1..=mrc::paired::MOVE_FILES {
            let f = mrc::paired::moves_dir().join(mrc::paired::moves_name(v, pause, run));
            assert!(f.exists(), "{}", f.display());
        }
    }
    for (i, f) in cfg.flows.iter().enumerate() {
        assert_eq!((f.src, f.dst), (10 + i as u32, i as u32));
        assert_eq!(f.start, Time::from_ms(100_000 + 100 * i as u64));
    }
}

#[test]
fn ns3_fates_count_each_packet_once_and_copies_are_marked() {
    use manetlab_studies::mrc::counters::{ns3_counters_from, ns3_fates_from, Fate};
    let fates = ns3_fates_from("ns3-moves-fates.csv");
    assert!(fates.len() >= 15, "DSR at 1 m/s and DSDV at 20 m/s, 5 runs each: {}", fates.len());
    for f in &fates {
        let classes = f.delivered
            + f.never_to_mac_old
            + f.never_to_mac_recent
            + f.last_mac_tx
            + f.last_mac_rx
            + f.last_mac_retry
            + f.last_mac_other
            + f.last_arp
            + f.last_arp_giveup
            + f.last_ip
            + f.last_dsr;
        assert_eq!(classes, f.sent, "{f:?}");
        assert!(f.sent <= f.offered);
        let fa = Fate::of_ns3_fates(&[f]);
        assert!(fa.per_packet && fa.other >= 0.0 && !fa.counts_copies(), "{f:?}");
    }
    // ns-3's DSR at 20 m/s: its drop counters count the copies its
    // maintenance buffer retransmits (more MAC drops than packets lost).
    let c = ns3_counters_from("ns3-moves-counters.csv");
    let dsr: Vec<_> = c.iter().filter(|r| r.protocol == "DSR" && r.max_speed == 20.0 && r.pause == 0.0).collect();
    let fa = Fate::of_ns3(&dsr);
    assert!(fa.other < 0.0 && fa.counts_copies(), "{:.0}", fa.other);
    assert!(fa.group_cells()[5].contains("counts copies"));
}

#[test]
fn ns2_and_reported_variants_configure_what_they_say() {
    use manetlab::net::arp::ArpConfig;
    use manetlab::net::routing::{DsdvConfig, RoutingConfig};
    let s = mrc::Scale { seeds: 5, duration_s: 200, traffic_start_s: 100 };
    let at = |p: &str, arp| mrc::config_with(p, 20.0, 0.0, 1, s, arp, mrc::Movement::File(1));
    // The study's DSDV is ns-3.37's; the ns-2 variant's is ns-2.35's, with its ARP.
    assert_eq!(at("dsdv", mrc::ArpVariant::Ns3).routing, RoutingConfig::Dsdv(DsdvConfig::ns3()));
    let ns2 = at("dsdv", mrc::ArpVariant::Ns2);
    assert_eq!(ns2.routing, RoutingConfig::Dsdv(DsdvConfig::ns2()));
    assert_eq!(ns2.arp, ArpConfig::ns2());
    // The reported variant is ns-3's ARP with every loss handed to routing.
    let rep = at("dsr", mrc::ArpVariant::Ns3Reported).arp;
    let ArpConfig::Queue { report_drops: true, limit, max_requests, report_failure, dead_time, ns3_cache, .. } = rep
    else {
        panic!("{rep:?}")
    };
    let ArpConfig::Queue { limit: l, max_requests: m, report_failure: f, dead_time: d, ns3_cache: c, .. } =
        ArpConfig::ns3()
    else {
        unreachable!()
    };
    assert_eq!((limit, max_requests, report_failure, dead_time, ns3_cache), (l, m, f, d, c));
    // Full mode plans them at 20 m/s: DSDV with ns-2's settings, DSR reported.
    let opts = StudyOptions::new(std::env::temp_dir());
    let keys: Vec<String> = manetlab::study::Study::plan(&mrc::Mrc, &opts).into_iter().map(|j| j.key).collect();
    for (p, tail) in [("dsdv", "arp-ns2"), ("dsr", "arp-report")] {
        let n = keys.iter().filter(|k| k.starts_with(&format!("{p}/v=20/")) && k.ends_with(tail)).count();
        assert_eq!(n, 10, "{p} {tail}: 2 points x 5 movement files");
    }
}
