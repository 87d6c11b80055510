//! Sweeps beyond one process: `run --sweep --shard I/N` in separate
//! processes, `merge` of their folders, `plan`, and a damaged run store.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("manetlab-cluster-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// 4 rates x 3 replications of the 10-hop chain, 5 s each: 12 runs.
const SWEEP: [&str; 9] = [
    "scenarios/chain-udp.toml",
    "--sweep",
    "flow.0.rate=100kbps..400kbps:100kbps",
    "--runs",
    "3",
    "--set",
    "run.duration=5s",
    "--set",
    "run.warmup=1s",
];

fn manetlab(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_manetlab"));
    c.current_dir(root()).args(args);
    c
}

fn run_sweep(out: &Path, extra: &[&str]) -> Command {
    let mut c = manetlab(&["run"]);
    c.args(SWEEP).arg("-q").args(["--out", out.to_str().unwrap()]).args(extra);
    c
}

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "{}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    o
}

#[test]
fn three_shards_in_separate_processes_merge_to_the_unsharded_sweep() {
    let whole = tmp("whole");
    ok(run_sweep(&whole, &[]).output().unwrap());
    // The three shards at once, each its own process and folder.
    let dirs: Vec<PathBuf> = (0..3).map(|i| tmp(&format!("shard{i}"))).collect();
    let children: Vec<_> =
        dirs.iter().enumerate().map(|(i, d)| run_sweep(d, &["--shard", &format!("{i}/3")]).spawn().unwrap()).collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    // Each shard ran only its share, and wrote no aggregate.
    let plan = ok(manetlab(&["plan"]).args(SWEEP).output().unwrap());
    let lines: Vec<serde_json::Value> =
        String::from_utf8(plan.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 12);
    assert_eq!(lines[0]["point"]["flow.0.rate"], "100kbps");
    assert_eq!(lines[0]["seed"].as_u64(), Some(1));
    assert!(lines.iter().all(|l| l["fingerprint"].as_str().is_some_and(|f| f.len() == 16)));
    let mut union = BTreeSet::new();
    for (i, d) in dirs.iter().enumerate() {
        assert!(!d.join("sweep.csv").exists());
        let o = ok(manetlab(&["plan"]).args(SWEEP).args(["--shard", &format!("{i}/3")]).output().unwrap());
        let keys: BTreeSet<String> = String::from_utf8(o.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["key"].as_str().unwrap().to_string())
            .collect();
        let stored = std::fs::read_to_string(d.join(format!("runs/shard-{i}-of-3.jsonl"))).unwrap();
        assert_eq!(stored.lines().count(), keys.len(), "shard {i} stored exactly its runs");
        assert!(keys.iter().all(|k| stored.contains(&format!("\"key\":\"{k}\""))));
        union.extend(keys);
    }
    assert_eq!(union.len(), 12, "the shards partition the plan");
    // Merge: byte-identical sweep files.
    let merged = tmp("merged");
    let mut args = vec!["merge"];
    args.extend(dirs.iter().map(|d| d.to_str().unwrap()));
    args.extend(["--out", merged.to_str().unwrap(), "-q"]);
    ok(manetlab(&args).output().unwrap());
    for f in ["sweep.csv", "sweep-runs.csv", "sweep.json"] {
        assert_eq!(std::fs::read(whole.join(f)).unwrap(), std::fs::read(merged.join(f)).unwrap(), "{f}");
    }
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(merged.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["runs"], 12);
    // One shard missing: its runs are named, exit non-zero, nothing written.
    let partial = tmp("partial");
    let o =
        manetlab(&["merge", dirs[0].to_str().unwrap(), dirs[2].to_str().unwrap(), "--out", partial.to_str().unwrap()])
            .output()
            .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    let shard1 = std::fs::read_to_string(dirs[1].join("runs/shard-1-of-3.jsonl")).unwrap();
    let n1 = shard1.lines().count();
    assert!(err.contains(&format!("{n1} of 12 runs are missing")), "{err}");
    for l in shard1.lines() {
        let k = serde_json::from_str::<serde_json::Value>(l).unwrap()["key"].as_str().unwrap().to_string();
        assert!(err.contains(&k), "{k} not named in {err}");
    }
    assert!(!partial.join("sweep.csv").exists());
    for d in dirs.iter().chain([&whole, &merged, &partial]) {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn a_flipped_digit_in_the_store_is_detected_on_resume_and_the_run_redone() {
    let d = tmp("flip");
    ok(run_sweep(&d, &[]).output().unwrap());
    let csv = std::fs::read(d.join("sweep-runs.csv")).unwrap();
    let store = d.join("runs/runs.jsonl");
    let text = std::fs::read_to_string(&store).unwrap();
    // The reproducer of D14: one digit of a stored flow cell.
    let at = text.find("\"cbr\",").unwrap() + text[text.find("\"cbr\",").unwrap()..].find(',').unwrap() + 1;
    let at = at + text[at..].find(|c: char| c.is_ascii_digit()).unwrap();
    let mut b = text.clone().into_bytes();
    b[at] = if b[at] == b'9' { b'1' } else { b[at] + 1 };
    std::fs::write(&store, &b).unwrap();
    let o = ok(run_sweep(&d, &["--resume"]).output().unwrap());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("checksum mismatch"), "{err}");
    assert_eq!(std::fs::read(d.join("sweep-runs.csv")).unwrap(), csv, "the damaged run was redone");
    // A different binary (or config) does not reuse the runs either:
    // fingerprints name the build.
    let plan = ok(manetlab(&["plan"]).args(SWEEP).output().unwrap());
    let fp = serde_json::from_str::<serde_json::Value>(String::from_utf8(plan.stdout).unwrap().lines().next().unwrap())
        .unwrap()["fingerprint"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains(&fp));
    let _ = std::fs::remove_dir_all(&d);
}
