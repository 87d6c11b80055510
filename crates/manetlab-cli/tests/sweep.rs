//! `manetlab run --sweep`: the grid of points x replications, the files it
//! writes, and resuming a sweep that was killed midway.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("manetlab-sweep-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A sweep of 4 rates x 8 replications of the 10-hop chain, 40 s each.
fn sweep_cmd(out: &Path, resume: bool) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_manetlab"));
    c.current_dir(root()).args([
        "run",
        "scenarios/chain-udp.toml",
        "--sweep",
        "flow.0.rate=100kbps..400kbps:100kbps",
        "--runs",
        "8",
        "--set",
        "run.duration=40s",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    if resume {
        c.arg("--resume");
    }
    c
}

/// Complete records in the run store (`runs/*.jsonl`, one line per run).
fn finished_runs(dir: &Path) -> usize {
    let Ok(d) = std::fs::read_dir(dir.join("runs")) else { return 0 };
    d.map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| {
            std::fs::read_to_string(p).unwrap_or_default().split_inclusive('\n').filter(|l| l.ends_with("}\n")).count()
        })
        .sum()
}

#[test]
fn sweep_writes_points_and_a_killed_sweep_resumes_to_identical_results() {
    // Uninterrupted.
    let whole = tmp("whole");
    let st = sweep_cmd(&whole, false).status().unwrap();
    assert!(st.success());
    assert_eq!(finished_runs(&whole), 32);
    let agg = std::fs::read_to_string(whole.join("sweep.csv")).unwrap();
    let lines: Vec<&str> = agg.lines().collect();
    assert_eq!(lines.len(), 1 + 4, "{agg}");
    // The axis is a number in SI units with the unit in its name.
    assert!(lines[0].starts_with("flow.0.rate_bps,flow_id,flow,kind,src,dst,runs,"), "{}", lines[0]);
    let mut r = csv::Reader::from_reader(agg.as_bytes());
    let h = r.headers().unwrap().clone();
    let col = |k: &str| h.iter().position(|c| c == k).unwrap_or_else(|| panic!("no {k} in {h:?}"));
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(&rows[0][col("flow.0.rate_bps")], "100000");
    assert_eq!(&rows[0][col("goodput_bps_n")], "8");
    // Below the chain's capacity the goodput follows the offered rate.
    let g100: f64 = rows[0][col("goodput_bps_mean")].parse().unwrap();
    assert!((g100 - 100e3).abs() < 3e3, "{}", lines[1]);
    assert_eq!(std::fs::read_to_string(whole.join("sweep-runs.csv")).unwrap().lines().count(), 1 + 32);

    // Killed once some runs have finished, then resumed.
    let part = tmp("part");
    let mut child = sweep_cmd(&part, false).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let t0 = Instant::now();
    while finished_runs(&part) == 0 && t0.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = finished_runs(&part);
    assert!((1..32).contains(&before), "killed after {before} of 32 runs");
    assert!(!part.join("sweep.csv").exists(), "the killed sweep did not get to write its aggregates");
    let st = sweep_cmd(&part, true).status().unwrap();
    assert!(st.success());
    assert_eq!(finished_runs(&part), 32);
    for f in ["sweep.csv", "sweep-runs.csv", "sweep.json"] {
        assert_eq!(
            std::fs::read_to_string(whole.join(f)).unwrap(),
            std::fs::read_to_string(part.join(f)).unwrap(),
            "{f} differs after resuming"
        );
    }
    let _ = std::fs::remove_dir_all(&whole);
    let _ = std::fs::remove_dir_all(&part);
}

#[test]
fn bad_sweep_arguments_exit_2_with_the_reason() {
    let out = tmp("bad");
    let o = Command::new(env!("CARGO_BIN_EXE_manetlab"))
        .current_dir(root())
        .args(["run", "scenarios/chain-udp.toml", "--sweep", "flow.0.rate=1..5", "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs a step"));
    let o = Command::new(env!("CARGO_BIN_EXE_manetlab"))
        .current_dir(root())
        .args([
            "run",
            "scenarios/chain-udp.toml",
            "--sweep",
            "mac.data_rate=2Mbps,3Mbps",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("sweep point mac.data_rate=3Mbps"), "{e}");
}
