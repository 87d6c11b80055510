//! What `manetlab run` writes: undefined statistics are null/empty
//! everywhere and never enter a mean, every aggregate carries its n, and
//! every CSV reads back with the csv crate, typed, even with a flow name
//! holding a comma and a quote.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("manetlab-outputs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&str]) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_manetlab")).current_dir(root()).args(args).output().expect("runs");
    assert!(o.status.success(), "{}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    o
}

/// A CSV file as (header, rows), every field checked against its column's
/// documented type (numbers parse; empty only where null is allowed).
struct Csv {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Csv {
    fn read(path: &Path) -> Csv {
        let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        let rows: Vec<Vec<String>> =
            r.records().map(|x| x.unwrap().iter().map(String::from).collect()).collect();
        for row in &rows {
            assert_eq!(row.len(), header.len(), "{}: a row has as many fields as the header", path.display());
        }
        Csv { header, rows }
    }
    fn col(&self, name: &str) -> usize {
        self.header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name} in {:?}", self.header))
    }
    /// Rows whose column `key` is `value`.
    fn rows_where<'a>(&'a self, key: &str, value: &'a str) -> impl Iterator<Item = &'a Vec<String>> + 'a {
        let k = self.col(key);
        self.rows.iter().filter(move |r| r[k] == value)
    }
    fn num(&self, row: &[String], name: &str) -> Option<f64> {
        let s = &row[self.col(name)];
        (!s.is_empty()).then(|| s.parse().unwrap_or_else(|e| panic!("{name} = {s:?}: {e}")))
    }
    /// Every numeric column parses as a number in every row.
    fn check_types(&self, columns: &[manetlab::output::Column]) {
        use manetlab::output::Kind;
        for c in columns {
            let i = self.col(&c.name);
            for r in &self.rows {
                let v = &r[i];
                match c.kind {
                    Kind::F64 if !v.is_empty() => assert!(v.parse::<f64>().is_ok(), "{} = {v:?}", c.name),
                    Kind::U64 => assert!(v.parse::<u64>().is_ok(), "{} = {v:?}", c.name),
                    Kind::I64 => assert!(v.parse::<i64>().is_ok(), "{} = {v:?}", c.name),
                    _ => {}
                }
            }
        }
    }
}

const DELAY_FIELDS: [&str; 6] =
    ["delay_mean_s", "delay_p50_s", "delay_p95_s", "delay_max_s", "jitter_s", "jitter_rfc3550_s"];

const FLOW_NAME: &str = "udp, 1 to \"0\"";

/// Node 2 is 5 km away: the flow to it delivers nothing in any run.
const DEAD: &str = r#"
[run]
duration = "5s"
[topology]
kind = "explicit"
positions = [[0, 0], [200, 0], [5000, 0]]
[[flow]]
name = 'udp, 1 to "0"'
src = 1
dst = 0
type = "cbr"
packet_size = "512B"
rate = "100kbps"
jitter = "2ms"
[[flow]]
name = "dead"
src = 0
dst = 2
type = "cbr"
packet_size = "512B"
rate = "100kbps"
"#;

#[test]
fn a_flow_that_delivers_nothing_is_null_everywhere_and_never_averaged() {
    let d = tmp("dead");
    let file = d.join("dead.toml");
    std::fs::write(&file, DEAD).unwrap();
    let out = d.join("out");
    run(&["run", file.to_str().unwrap(), "--runs", "3", "-q", "--out", out.to_str().unwrap()]);

    // flows.csv: 3 replications x 2 flows, the dead flow's delay fields empty.
    let flows = Csv::read(&out.join("flows.csv"));
    flows.check_types(&manetlab::output::flows::flows_columns(&[]));
    assert_eq!(flows.rows.len(), 6);
    let live: Vec<&Vec<String>> = flows.rows_where("flow", FLOW_NAME).collect();
    assert_eq!(live.len(), 3, "the name with a comma and a quote reads back whole");
    for r in flows.rows_where("flow", "dead") {
        assert_eq!(flows.num(r, "received_packets"), Some(0.0));
        for f in DELAY_FIELDS {
            assert_eq!(flows.num(r, f), None, "dead flow {f} is empty, not 0");
        }
        assert_eq!(flows.num(r, "hops_mean"), None);
        // Defined: nothing got through during the whole 5 s.
        assert_eq!(flows.num(r, "interruption_max_s"), Some(5.0));
    }
    // flows-summary.csv: the dead flow has n = 0 and empty statistics; the
    // live flow's mean is the mean of its three runs.
    let sum = Csv::read(&out.join("flows-summary.csv"));
    let dead = sum.rows_where("flow", "dead").next().unwrap();
    let alive = sum.rows_where("flow", FLOW_NAME).next().unwrap();
    for f in DELAY_FIELDS {
        assert_eq!(sum.num(dead, &format!("{f}_n")), Some(0.0));
        for s in ["mean", "sd", "ci95"] {
            assert_eq!(sum.num(dead, &format!("{f}_{s}")), None, "{f}_{s}");
        }
        let vals: Vec<f64> = live.iter().map(|r| flows.num(r, f).unwrap()).collect();
        assert_eq!(sum.num(alive, &format!("{f}_n")), Some(3.0));
        let mean = sum.num(alive, &format!("{f}_mean")).unwrap();
        assert!((mean - vals.iter().sum::<f64>() / 3.0).abs() <= 1e-15 * mean.abs(), "{f}: {mean} vs {vals:?}");
    }
    // summary.json: null in each replication and in the aggregate.
    let s: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    for rep in s["replications"].as_array().unwrap() {
        let f = &rep["flows"][1];
        assert_eq!(f["name"], "dead");
        for k in DELAY_FIELDS {
            assert!(f[k].is_null(), "{k}: {}", f[k]);
        }
    }
    let agg = &s["aggregate"][1];
    assert_eq!(agg["flow"], "dead");
    assert_eq!(agg["delay_mean_s_n"], 0);
    assert!(agg["delay_mean_s_mean"].is_null());
    assert_eq!(s["aggregate"][0]["delay_mean_s_n"], 3);
    // network.csv: the packet-weighted delay is the live flow's (the dead
    // flow has no packets to weigh), PDR counts the dead flow's losses.
    let net = Csv::read(&out.join("network.csv"));
    net.check_types(&manetlab::output::network::network_columns());
    assert_eq!(net.rows.len(), 3);
    for (k, r) in net.rows.iter().enumerate() {
        let d = net.num(r, "delay_mean_s").unwrap();
        let live_d = flows.num(live[k], "delay_mean_s").unwrap();
        assert!((d - live_d).abs() <= 1e-12 * d, "{d} vs {live_d}");
        let pdr = net.num(r, "delivery_ratio").unwrap();
        assert!(pdr > 0.4 && pdr < 0.55, "half the traffic goes nowhere: {pdr}");
        assert!(net.num(r, "drops_nrte").unwrap() > 0.0);
    }
    assert_eq!(s["network"].as_array().unwrap().len(), 3);

    // A sweep with one replication: sd and ci95 are empty, not 0.
    let sw = d.join("sweep");
    run(&[
        "run",
        file.to_str().unwrap(),
        "--sweep",
        "flow.0.rate=50kbps,100kbps",
        "--runs",
        "1",
        "-q",
        "--out",
        sw.to_str().unwrap(),
    ]);
    let agg = Csv::read(&sw.join("sweep.csv"));
    assert_eq!(agg.rows.len(), 4);
    for r in &agg.rows {
        assert_eq!(agg.num(r, "goodput_bps_n"), Some(1.0));
        assert_eq!(agg.num(r, "goodput_bps_sd"), None);
        assert_eq!(agg.num(r, "goodput_bps_ci95"), None);
    }
    for r in agg.rows_where("flow", "dead") {
        assert_eq!(agg.num(r, "delay_mean_s_n"), Some(0.0));
        assert_eq!(agg.num(r, "delay_mean_s_mean"), None);
    }
    let runs = Csv::read(&sw.join("sweep-runs.csv"));
    assert_eq!(runs.rows_where("flow", FLOW_NAME).count(), 2);
    let rates: Vec<f64> = runs.rows_where("flow", "dead").map(|r| runs.num(r, "flow.0.rate_bps").unwrap()).collect();
    assert_eq!(rates, [50e3, 100e3]);
    let _ = std::fs::remove_dir_all(&d);
}

/// Two nodes dropped at random in a 1000 m x 10 m area: within range
/// (250 m) in some seeds, not in others. Seeds 1-3: connected, not,
/// connected.
const MIXED: &str = r#"
[run]
duration = "5s"
[topology]
kind = "random"
nodes = 2
area = ["1000m", "10m"]
[[flow]]
name = "f"
src = 1
dst = 0
type = "cbr"
packet_size = "512B"
rate = "100kbps"
jitter = "2ms"
"#;

#[test]
fn means_are_over_the_runs_that_have_a_value_and_say_how_many() {
    let d = tmp("mixed");
    let file = d.join("mixed.toml");
    std::fs::write(&file, MIXED).unwrap();
    let out = d.join("out");
    run(&["run", file.to_str().unwrap(), "--runs", "3", "--seed", "1", "-q", "--out", out.to_str().unwrap()]);
    let flows = Csv::read(&out.join("flows.csv"));
    let delays: Vec<Option<f64>> = flows.rows.iter().map(|r| flows.num(r, "delay_mean_s")).collect();
    let defined: Vec<f64> = delays.iter().flatten().copied().collect();
    assert!(!defined.is_empty() && defined.len() < 3, "seeds 1-3 mix connected and partitioned runs: {delays:?}");
    let sum = Csv::read(&out.join("flows-summary.csv"));
    let r = &sum.rows[0];
    assert_eq!(sum.num(r, "runs"), Some(3.0));
    assert_eq!(sum.num(r, "delay_mean_s_n"), Some(defined.len() as f64));
    let mean = defined.iter().sum::<f64>() / defined.len() as f64;
    let got = sum.num(r, "delay_mean_s_mean").unwrap();
    assert!((got - mean).abs() <= 1e-15 * mean, "the mean of the defined values only: {got} vs {mean}");
    // The goodput is defined (0) in every run, so its mean counts all 3.
    assert_eq!(sum.num(r, "goodput_bps_n"), Some(3.0));
    let g: Vec<f64> = flows.rows.iter().map(|r| flows.num(r, "goodput_bps").unwrap()).collect();
    assert!(g.contains(&0.0));
    let gm = sum.num(r, "goodput_bps_mean").unwrap();
    assert!((gm - g.iter().sum::<f64>() / 3.0).abs() < 1e-9);
    let _ = std::fs::remove_dir_all(&d);
}
