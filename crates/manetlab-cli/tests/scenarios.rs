//! Issue 18 ("How we will know"): list and zipped sweep axes, flow
//! generators, the physics `check` prints, and the exit status and
//! location of bad inputs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("manetlab-scen-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_manetlab")).current_dir(root()).args(args).output().expect("runs")
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let t = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = t.lines();
    let head = lines.next().unwrap().split(',').map(String::from).collect();
    (head, lines.map(|l| l.split(',').map(String::from).collect()).collect())
}

#[test]
fn a_speed_sweep_of_3_points_x_5_replications_from_one_file() {
    let out = tmp("speed");
    let o = run(&[
        "run",
        "scenarios/speed-sweep.toml",
        "--set",
        "run.duration=12s",
        "--set",
        "run.warmup=5s",
        "--set",
        "flows.0.count=3",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let (head, rows) = csv(&out.join("sweep.csv"));
    let col = head.iter().position(|c| c == "mobility.speed.1_mps").unwrap_or_else(|| panic!("{head:?}"));
    let mut speeds: Vec<f64> = rows.iter().map(|r| r[col].parse::<f64>().expect("numeric speed")).collect();
    speeds.dedup();
    assert_eq!(speeds, [5.0, 10.0, 20.0]);
    let n = head.iter().position(|c| c == "goodput_bps_n").unwrap();
    assert!(rows.iter().all(|r| r[n] == "5"), "5 replications per point");
    assert_eq!(rows.len(), 3 * 3, "3 points x 3 flows");
}

const CHAIN: &str = "[run]\nduration = \"3s\"\n[topology]\nkind = \"chain\"\nnodes = 3\nspacing = \"200m\"\n\
                     [[flow]]\nsrc = 0\ndst = 1\ntype = \"cbr\"\npacket_size = \"100B\"\nrate = \"50kbps\"\n";

#[test]
fn a_zipped_sweep_runs_3_points_not_9() {
    let d = tmp("zip");
    let f = d.join("zip.toml");
    std::fs::write(
        &f,
        format!("{CHAIN}[sweep.zip]\n\"topology.nodes\" = [3, 4, 5]\n\"topology.spacing\" = [\"100m\", \"150m\", \"200m\"]\n"),
    )
    .unwrap();
    let o = run(&["check", f.to_str().unwrap()]);
    assert!(text(&o).0.contains("sweep: 3 points"), "{:?}", text(&o));
    let out = d.join("out");
    let o = run(&["run", f.to_str().unwrap(), "-q", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{:?}", text(&o));
    let (head, rows) = csv(&out.join("sweep.csv"));
    assert_eq!(rows.len(), 3);
    let (a, b) = (
        head.iter().position(|c| c == "topology.nodes").unwrap(),
        head.iter().position(|c| c == "topology.spacing_m").unwrap(),
    );
    let pairs: Vec<(&str, &str)> = rows.iter().map(|r| (r[a].as_str(), r[b].as_str())).collect();
    assert_eq!(pairs, [("3", "100"), ("4", "150"), ("5", "200")]);
    // Zipped with an ordinary axis: the product, 3 x 2.
    let g = d.join("zip2.toml");
    let body = std::fs::read_to_string(&f).unwrap() + "[sweep]\n\"mac.data_rate\" = [\"1Mbps\", \"2Mbps\"]\n";
    std::fs::write(&g, body).unwrap();
    let o = run(&["check", g.to_str().unwrap()]);
    assert!(text(&o).0.contains("sweep: 6 points"), "{:?}", text(&o));
}

/// The flow lines `check` prints.
fn flow_lines(args: &[&str]) -> Vec<String> {
    let o = run(args);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    out.lines().skip_while(|l| !l.starts_with("flows")).skip(1).map(String::from).collect()
}

#[test]
fn a_generator_of_10_flows_is_the_same_for_a_seed_and_differs_for_another() {
    let f = "crates/manetlab-cli/tests/data/mrc-7.5dBm.toml";
    let a = flow_lines(&["check", f]);
    let b = flow_lines(&["check", f]);
    let c = flow_lines(&["check", f, "--set", "run.seed=2"]);
    assert_eq!(a.len(), 10, "{a:?}");
    assert_eq!(a, b);
    assert_ne!(a, c);
    // Disjoint pairs: no node in two flows.
    let mut nodes: Vec<&str> = a.iter().flat_map(|l| l.split_whitespace().skip(2).step_by(2).take(2)).collect();
    nodes.sort();
    let n = nodes.len();
    nodes.dedup();
    assert_eq!((n, nodes.len()), (20, 20), "{a:?}");
    // The count is a key like any other.
    assert_eq!(flow_lines(&["check", f, "--set", "flows.0.count=20", "--set", "topology.nodes=60"]).len(), 20);
}

#[test]
fn check_shows_the_94_m_range_of_7_5_dbm_and_flows_without_a_path() {
    let o = run(&["check", "crates/manetlab-cli/tests/data/mrc-7.5dBm.toml"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let range: f64 = out
        .split("receive range ")
        .nth(1)
        .and_then(|s| s.split(" m").next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!((range - 94.0).abs() < 1.0, "{range}");
    assert!(out.contains("not connected"), "{out}");
    assert!(out.matches("no path").count() >= 5, "{out}");
    // The default radio: 250 m, 550 m carrier sense.
    let o = run(&["check", "scenarios/default.toml"]);
    let out = text(&o).0;
    assert!(out.contains("receive range 250.0 m, carrier-sense range 550.0 m"), "{out}");
    assert!(out.contains("2 hops"), "{out}");
}

#[test]
fn bad_generators_and_zips_exit_2_with_line_and_column() {
    let d = tmp("bad");
    let gen = |extra: &str| {
        format!("[run]\nduration = \"10s\"\n[topology]\nkind = \"random\"\nnodes = 5\narea = [\"100m\", \"100m\"]\n[[flows]]\ntype = \"cbr\"\nrate = \"10kbps\"\npacket_size = \"100B\"\n{extra}")
    };
    let cases = [
        ("count0", gen("count = 0\n"), "bad.toml:11:9", "count"),
        ("impossible", gen("count = 3\npairs = \"disjoint\"\n"), "bad.toml:12:9", "at least 6 nodes"),
        ("mode", gen("count = 3\npairs = \"nearby\"\n"), "bad.toml:12:9", "unknown pair mode"),
        ("typo", gen("count = 3\nrat = 1\n"), "bad.toml:12:1", "did you mean 'rate'"),
        (
            "zip",
            format!(
                "{CHAIN}[sweep.zip]\n\"topology.nodes\" = [3, 4, 5]\n\"topology.spacing\" = [\"100m\", \"200m\"]\n"
            ),
            "bad.toml:15:22",
            "same number of points",
        ),
        ("sweep-point", format!("{CHAIN}[sweep]\n\"nope.key\" = [1, 2]\n"), "bad.toml:14:14", "unknown section 'nope'"),
        (
            "huge-range",
            format!("{CHAIN}[sweep]\n\"mac.cw_min\" = {{ from = 0, to = 1e20, step = 1 }}\n"),
            "bad.toml:14:16",
            "at most",
        ),
    ];
    for (name, body, at, word) in cases {
        let f = d.join("bad.toml");
        std::fs::write(&f, &body).unwrap();
        let o = run(&["check", f.to_str().unwrap()]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(at) && err.contains(word), "{name}: {err} should say {at} and {word}");
    }
    // Command-line sweep mistakes are exit 2 as well (D11, duplicates).
    for args in [
        ["--sweep", "mac.data_rate=2Mbps,11Mbps", "--sweep", "mac.data_rate=1Mbps"],
        ["--sweep", "mac.data_rate=2Mbps,2Mbps", "--sweep", "run.duration=1s"],
    ] {
        let mut all = vec!["run", "scenarios/default.toml", "-q", "--out", "/nonexistent/never"];
        all.extend(args);
        let o = run(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {:?}", text(&o));
    }
}

#[test]
fn list_points_on_the_command_line() {
    let out = tmp("cli-list");
    let o = run(&[
        "run",
        "scenarios/speed-sweep.toml",
        "--set",
        "run.duration=12s",
        "--set",
        "topology.nodes=10",
        "--set",
        "flows.0.count=2",
        "--runs",
        "1",
        "--sweep",
        r#"mobility.speed=[["1m/s","2m/s"],["1m/s","30m/s"]]"#,
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let (head, rows) = csv(&out.join("sweep-runs.csv"));
    let col = head.iter().position(|c| c == "mobility.speed.1_mps").unwrap();
    assert_eq!(rows.first().unwrap()[col], "2");
    assert_eq!(rows.last().unwrap()[col], "30");
}
