//! The `manetlab` command end to end: outputs, exit codes, error messages,
//! determinism.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_manetlab"))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("manetlab-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&str]) -> Output {
    bin().current_dir(root()).args(args).output().expect("runs")
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn default_scenario_runs_and_writes_results() {
    let out = tmp("default");
    let o = run(&["run", "scenarios/default.toml", "--out", out.to_str().unwrap()]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("udp0") && stdout.contains("2->0"), "{stdout}");
    let summary: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let flow = &summary["replications"][0]["flows"][0];
    // 2 Mbit/s offered on a chain that carries ~3 Mbit/s: everything arrives.
    let g = flow["goodput_bps"].as_f64().unwrap();
    assert!((g - 2e6).abs() < 0.02e6, "goodput {g}");
    assert_eq!(summary["replications"][0]["audit"]["unaccounted"], 0);
    let csv = std::fs::read_to_string(out.join("flows.csv")).unwrap();
    assert!(csv.starts_with("replication,seed,flow_id,flow,kind,src,dst,"));
    assert_eq!(csv.lines().count(), 2);
}

#[test]
fn same_seed_gives_identical_files_and_another_seed_differs() {
    let (a, b, c) = (tmp("det-a"), tmp("det-b"), tmp("det-c"));
    for (d, seed) in [(&a, "5"), (&b, "5"), (&c, "6")] {
        let o = run(&["run", "scenarios/grid.toml", "--seed", seed, "--runs", "1", "--out", d.to_str().unwrap(), "-q"]);
        assert!(o.status.success(), "{:?}", text(&o));
    }
    let read = |d: &PathBuf| std::fs::read(d.join("summary.json")).unwrap();
    assert_eq!(read(&a), read(&b));
    assert_ne!(read(&a), read(&c));
}

#[test]
fn replications_write_one_row_each_and_a_summary_with_n() {
    let out = tmp("reps");
    let o = run(&[
        "run",
        "scenarios/default.toml",
        "--runs",
        "3",
        "--set",
        "run.duration=5s",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains("3 replications") && stdout.contains('±'), "{stdout}");
    // flows.csv: one row per (replication, flow), nothing else.
    let csv = std::fs::read_to_string(out.join("flows.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 3, "{csv}");
    assert!(csv.lines().skip(1).all(|l| l.starts_with(|c: char| c.is_ascii_digit())), "{csv}");
    // The aggregates are in flows-summary.csv, with their n.
    let mut r = csv::Reader::from_path(out.join("flows-summary.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 1);
    let get = |k: &str| rows[0][h.iter().position(|c| c == k).unwrap_or_else(|| panic!("no {k}"))].to_string();
    assert_eq!(get("goodput_bps_n"), "3");
    assert!(get("goodput_bps_ci95").parse::<f64>().unwrap() >= 0.0);
}

fn bad_file(name: &str, body: &str) -> (i32, String) {
    let d = tmp(name);
    let f = d.join("bad.toml");
    std::fs::write(&f, body).unwrap();
    let o = run(&["check", f.to_str().unwrap()]);
    (o.status.code().unwrap_or(-1), text(&o).1)
}

const GOOD: &str = "[run]\nduration = \"10s\"\n\n[topology]\nkind = \"chain\"\nnodes = 3\nspacing = \"200m\"\n";

#[test]
fn every_class_of_bad_input_exits_2_with_a_located_message() {
    let cases: &[(&str, String, &str)] = &[
        ("syntax", format!("{GOOD}[mac\n"), "bad.toml:8:5"),
        ("unknown", format!("{GOOD}spacng = \"1m\"\n"), "spacng"),
        ("unit", GOOD.replace("\"200m\"", "\"200\""), "distance"),
        ("range", format!("{GOOD}\n[queue]\nlimit = 0\n"), "limit"),
        ("missing", GOOD.replace("duration = \"10s\"\n", ""), "duration"),
        (
            "node",
            format!("{GOOD}\n[[flow]]\nsrc = 0\ndst = 7\ntype = \"cbr\"\npacket_size = \"100B\"\nrate = \"1Mbps\"\n"),
            "dst",
        ),
        ("type", GOOD.replace("nodes = 3", "nodes = \"three\""), "nodes"),
    ];
    for (name, body, word) in cases {
        let (code, err) = bad_file(name, body);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains("bad.toml:"), "{name}: no file:line:col in {err}");
        assert!(err.contains(word), "{name}: {err} should mention {word}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let o = run(&["run", "no/such/file.toml"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["run", "scenarios/default.toml", "--set", "mac.data_rate=3Mbps"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--set mac.data_rate=3Mbps") || err.contains("data_rate"), "{err}");
}

#[test]
fn check_validates_without_running() {
    let o = run(&["check", "scenarios/random100.toml"]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains("100 nodes") && stdout.contains("20 flows"), "{stdout}");
}

#[test]
fn check_names_the_profile_and_resolved_toml_records_it() {
    let o = run(&["check", "scenarios/chain-tcp.toml"]);
    assert!(text(&o).0.contains("profile ns2"), "{}", text(&o).0);
    let o = run(&["check", "scenarios/chain-tcp.toml", "--set", "run.profile=ns3"]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains("profile ns3"), "{stdout}");
    let d = tmp("profile-resolved");
    run(&[
        "run",
        "scenarios/chain-tcp.toml",
        "--set",
        "run.profile=ns3",
        "--set",
        "run.duration=3s",
        "--set",
        "run.warmup=0s",
        "-q",
        "--out",
        d.to_str().unwrap(),
    ]);
    let resolved = std::fs::read_to_string(d.join("scenario.resolved.toml")).unwrap();
    assert!(resolved.contains("profile = \"ns3\""), "{resolved}");
    assert!(resolved.contains("reception = \"sinr\""), "{resolved}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn study_list_and_unknown_study() {
    let o = run(&["study", "--list"]);
    assert!(o.status.success());
    assert!(text(&o).0.contains("chain"));
    let o = run(&["study", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("unknown study"));
}

#[test]
fn tcp_trace_writes_series_sequence_log_and_figures() {
    let out = tmp("tcptrace");
    let o = run(&[
        "run",
        "scenarios/chain-tcp.toml",
        "--runs",
        "1",
        "--set",
        "run.duration=20s",
        "--tcp-trace",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let series = std::fs::read_to_string(out.join("tcp-ftp-series.csv")).unwrap();
    for s in ["cwnd,", "ssthresh,", "srtt_s,", "rto_s,"] {
        assert!(series.lines().any(|l| l.starts_with(s)), "no {s} rows");
    }
    let seq = std::fs::read_to_string(out.join("tcp-ftp-seq.csv")).unwrap();
    let sent = seq.lines().filter(|l| l.ends_with(",sent")).count();
    let acked = seq.lines().filter(|l| l.ends_with(",acked")).count();
    assert!(sent > 100 && acked > 100, "sent {sent} acked {acked}");
    for f in ["tcp-ftp-timeseq.svg", "tcp-ftp-cwnd.png"] {
        assert!(std::fs::metadata(out.join(f)).unwrap().len() > 1000, "{f}");
    }
}

#[test]
fn link_view_writes_per_hop_gaps_route_hops_and_tcp_sequence() {
    // testbed S3 (AODV, node 3 walking away) for 35 s: the UDP flow 2 -> 0
    // crosses two links; the TCP route grows from 1 to 2 hops near 27-30 s.
    let out = tmp("linkview");
    let o = run(&[
        "run",
        "scenarios/testbed-s3.toml",
        "--runs",
        "2",
        "--set",
        "run.duration=35s",
        "--link-view",
        "udp 2->0,1",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let gaps = std::fs::read_to_string(out.join("linkview-udp_2-_0-interpacket.csv")).unwrap();
    assert!(gaps.starts_with("from,to,time_s,gap_s\n"), "{gaps:.80}");
    let link = |l: &str| -> Vec<f64> {
        gaps.lines().filter(|x| x.starts_with(l)).filter_map(|x| x.split(',').nth(3)?.parse().ok()).collect()
    };
    let (g21, g10) = (link("2,1,"), link("1,0,"));
    // 192 kbit/s of 1470-byte packets: a packet every 61.25 ms on each hop.
    for g in [&g21, &g10] {
        assert!(g.len() > 300, "{} gaps", g.len());
        let mut v = g.clone();
        v.sort_by(f64::total_cmp);
        let median = v[v.len() / 2];
        assert!((median - 0.06125).abs() < 0.005, "median gap {median}");
    }
    let hops = |f: &str| -> Vec<u32> {
        std::fs::read_to_string(out.join(f))
            .unwrap()
            .lines()
            .skip(1)
            .filter_map(|l| l.split(',').nth(1)?.parse().ok())
            .collect()
    };
    let udp_hops = hops("linkview-udp_2-_0-hops.csv");
    assert!(!udp_hops.is_empty() && udp_hops.iter().all(|&h| h == 2), "UDP takes 2 hops");
    let tcp_hops = hops("linkview-tcp_3-_0-hops.csv");
    assert_eq!(tcp_hops.first(), Some(&1), "node 3 starts beside node 0");
    assert!(tcp_hops.contains(&2), "the route grows to 2 hops by 35 s");
    // The TCP flow's time-sequence log comes with it (as --tcp-trace).
    let seq = std::fs::read_to_string(out.join("tcp-tcp_3-_0-seq.csv")).unwrap();
    assert!(seq.lines().filter(|l| l.ends_with(",acked")).count() > 100);
    for f in ["linkview-udp_2-_0-interpacket-plot.svg", "linkview-tcp_3-_0-hops-plot.png", "tcp-tcp_3-_0-timeseq.svg"] {
        assert!(std::fs::metadata(out.join(f)).map(|m| m.len()).unwrap_or(0) > 1000, "{f}");
    }
    // Only the first replication is viewed; unknown flows are errors.
    assert!(!out.join("seed-2").exists());
    let o = run(&["run", "scenarios/testbed-s3.toml", "--link-view", "udp9", "--out", out.to_str().unwrap(), "-q"]);
    assert!(!o.status.success());
    assert!(text(&o).1.contains("--link-view: no flow \"udp9\""), "{:?}", text(&o));
}

#[test]
fn mobile_tcp_runs_report_path_profile_and_expected_throughput() {
    let out = tmp("mobile");
    let cache = tmp("mobile-cache");
    let o = bin()
        .current_dir(root())
        .env("MANETLAB_CACHE", &cache)
        .args([
            "run",
            "scenarios/elfn-mobile.toml",
            "--runs",
            "1",
            "--set",
            "run.duration=60s",
            "--path-profile",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains("expected kbit/s"), "{stdout}");
    let summary: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let flow = &summary["replications"][0]["flows"][0];
    let expected = flow["expected_bps"].as_f64().expect("expected_bps");
    assert!(expected > 0.0 && expected < 1.4e6, "{expected}");
    let spans = flow["path_profile"].as_array().unwrap();
    assert!(!spans.is_empty());
    assert!(out.join("path-tcp-spans.csv").exists() && out.join("path-tcp.svg").exists());
    // "No path" is an empty hops field in both path files.
    let spans = std::fs::read_to_string(out.join("path-tcp-spans.csv")).unwrap();
    let points = std::fs::read_to_string(out.join("path-tcp.csv")).unwrap();
    let none = |line: &str, field: usize| line.split(',').nth(field) == Some("");
    let gaps = spans.lines().skip(1).filter(|l| none(l, 2)).count();
    assert!(spans.lines().skip(1).all(|l| !l.ends_with(",0")), "{spans}");
    assert!(points.lines().skip(1).filter(|l| none(l, 2)).count() >= gaps, "{points}");
    assert!(points.lines().skip(1).all(|l| l.split(',').nth(2) != Some("0")), "{points}");
    // The chain table was cached and is reused.
    let cached: Vec<_> = std::fs::read_dir(&cache).unwrap().collect();
    assert_eq!(cached.len(), 1);
    // Without --path-profile: no profile, no path files, no expected
    // throughput (and no chain table to compute).
    let plain = tmp("mobile-plain");
    let o = bin()
        .current_dir(root())
        .env("MANETLAB_CACHE", tmp("mobile-cache-plain"))
        .args([
            "run",
            "scenarios/elfn-mobile.toml",
            "--set",
            "run.duration=20s",
            "--out",
            plain.to_str().unwrap(),
            "-q",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{:?}", text(&o));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(plain.join("summary.json")).unwrap()).unwrap();
    let flow = &summary["replications"][0]["flows"][0];
    assert!(flow["path_profile"].is_null() && flow["expected_bps"].is_null(), "{flow}");
    assert!(!plain.join("path-tcp-spans.csv").exists() && !plain.join("path-tcp.csv").exists());
}

#[test]
fn movement_export_round_trips_through_an_ns2_file_scenario() {
    let d = tmp("movement");
    let moves = d.join("moves.tcl");
    let o =
        run(&["movement", "scenarios/elfn-mobile.toml", "--set", "run.duration=50s", "--out", moves.to_str().unwrap()]);
    assert!(o.status.success(), "{:?}", text(&o));
    let body = std::fs::read_to_string(&moves).unwrap();
    assert!(body.contains("$node_(29) set X_") && body.contains("setdest"), "{body}");
    // A scenario reading the exported file moves its nodes the same way.
    let scn = d.join("replay.toml");
    std::fs::write(
        &scn,
        "[run]\nduration = \"50s\"\n[topology]\nkind = \"chain\"\nnodes = 30\nspacing = \"10m\"\n[mobility]\nmodel = \"ns2-file\"\nfile = \"moves.tcl\"\n",
    )
    .unwrap();
    let again = d.join("again.tcl");
    let o = run(&["movement", scn.to_str().unwrap(), "--out", again.to_str().unwrap()]);
    assert!(o.status.success(), "{:?}", text(&o));
    let a = std::fs::read_to_string(&again).unwrap();
    assert_eq!(
        a.lines().filter(|l| l.contains("setdest")).count(),
        body.lines().filter(|l| l.contains("setdest")).count()
    );
}
