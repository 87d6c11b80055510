//! Golden snapshots: a handful of short scenarios covering every subsystem
//! (2-hop UDP + TFRC, TCP over an AODV chain with ARP, mobile DSR with ELFN,
//! SINR reception with shadowing and a fair queue, a wired gateway with
//! pacing and VoIP, backpressure, TDMA, EDCA), whose complete run output is
//! pinned byte for byte in `tests/snapshots/`:
//!
//! - `NAME.toml`: the scenario (one replication, the file's seed);
//! - `NAME.json`: `summary.json` exactly as `manetlab run` writes it
//!   ([`manetlab::exec::summary::summary_json`]: the full [`Report`] and the
//!   per-flow aggregate), except the expected throughput of mobile TCP flows
//!   (`exec::add_expected_throughput`, a cached chain-table study);
//! - `NAME.traces.txt`, for scenarios whose `[output] trace` is set: size and
//!   FNV-1a 64 digest of every trace file written (ns-2 text, pcap), and of
//!   the link-view CSVs of flow 0, so the tracing / observer path is pinned
//!   too.
//!
//! Any change in simulated behaviour or in the report format shows up here.
//! A deliberate change regenerates the files with
//!
//! ```sh
//! UPDATE_SNAPSHOTS=1 cargo test --release -p manetlab --test snapshots
//! ```
//!
//! and commits them in a separate commit whose message says why they
//! changed. Never regenerate them to hide an accidental change.

use manetlab::exec::summary::summary_json;
use manetlab::metrics::linkview::{hops_csv, inter_delivery_csv, LinkViewSink};
use manetlab::metrics::trace;
use manetlab::scenario::Scenario;
use manetlab::Simulation;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Runs one snapshot scenario: (summary JSON, trace digest if traced).
fn run(path: &Path) -> (String, Option<String>) {
    let stem = path.file_stem().unwrap().to_string_lossy().to_string();
    let sc = Scenario::load(path, &[] as &[&str]).unwrap_or_else(|e| panic!("{e}"));
    let seed = sc.seed();
    let cfg = sc.config(seed);
    let mut sim = Simulation::new(cfg.clone()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let tdir = std::env::temp_dir().join(format!("manetlab-snap-{}-{stem}", std::process::id()));
    let mut views = None;
    if !sc.trace.is_off() {
        let _ = std::fs::remove_dir_all(&tdir);
        let sink = trace::open(&tdir, &sc.trace, &cfg.nodes).unwrap().expect("trace on");
        let (lv, handle) = LinkViewSink::for_flows(&cfg, &[0]);
        views = Some(handle);
        sim.set_tracer(Box::new(lv.chain(sink)));
    }
    let report = sim.run();
    assert!(report.audit.balances(), "{stem}: {:?}", report.audit);
    let json = summary_json(&sc.name, &[seed], std::slice::from_ref(&report));
    let digest = views.map(|v| {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&tdir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        let mut s = String::new();
        for f in &files {
            let b = std::fs::read(f).unwrap();
            let _ = writeln!(s, "{} {} {:016x}", f.file_name().unwrap().to_string_lossy(), b.len(), fnv1a(&b));
        }
        let v = v.lock().unwrap().clone();
        let fv = v.flow(0).expect("flow 0 viewed");
        for (what, text) in
            [("linkview-inter-delivery.csv", inter_delivery_csv(fv)), ("linkview-hops.csv", hops_csv(fv))]
        {
            let _ = writeln!(s, "{what} {} {:016x}", text.len(), fnv1a(text.as_bytes()));
        }
        let _ = std::fs::remove_dir_all(&tdir);
        s
    });
    (json, digest)
}

fn check(path: &Path, got: &str, update: bool, failures: &mut Vec<String>) {
    if update {
        std::fs::write(path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(path)
        .unwrap_or_else(|_| panic!("{} missing: run with UPDATE_SNAPSHOTS=1", path.display()));
    if want != got {
        let line = want
            .lines()
            .zip(got.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(got.lines().count()));
        let show = |t: &str| t.lines().nth(line).unwrap_or("<end>").to_string();
        failures.push(format!(
            "{} differs from line {}:\n  pinned: {}\n  now:    {}",
            path.display(),
            line + 1,
            show(&want),
            show(got)
        ));
    }
}

#[test]
fn summaries_and_traces_match_the_pinned_snapshots() {
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v != "0");
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    scenarios.sort();
    assert!(scenarios.len() >= 8, "{scenarios:?}");
    let mut failures = Vec::new();
    let mut traced = 0;
    for p in &scenarios {
        let (json, digest) = run(p);
        // Every snapshot really runs traffic.
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let flows = v["replications"][0]["flows"].as_array().unwrap();
        let got: Vec<u64> = flows.iter().map(|f| f["received_packets"].as_u64().unwrap()).collect();
        println!("{}: received {got:?}", p.display());
        if got.contains(&0) {
            failures.push(format!("{}: a flow delivered nothing: {got:?}", p.display()));
        }
        check(&p.with_extension("json"), &json, update, &mut failures);
        if let Some(d) = digest {
            traced += 1;
            check(&p.with_extension("traces.txt"), &d, update, &mut failures);
        }
    }
    assert!(traced >= 2);
    assert!(
        failures.is_empty(),
        "snapshots changed (UPDATE_SNAPSHOTS=1 to accept a deliberate change):\n{}",
        failures.join("\n")
    );
}
