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
        let rows: Vec<Vec<String>> = r.records().map(|x| x.unwrap().iter().map(String::from).collect()).collect();
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

#[test]
fn manifest_and_resolved_scenario_reproduce_summary_byte_for_byte() {
    let d = tmp("resolved");
    let a = d.join("a");
    // Overrides, a seed and a replication count that are not in the file.
    run(&[
        "run",
        "scenarios/default.toml",
        "--seed",
        "7",
        "--runs",
        "2",
        "--set",
        "run.duration=3s",
        "--set",
        "flow.0.rate=1Mbps",
        "-q",
        "--out",
        a.to_str().unwrap(),
    ]);
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(a.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["kind"], "run");
    assert_eq!(m["manetlab_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(m["schema_version"], manetlab::output::SCHEMA_VERSION);
    assert_eq!(m["seeds"], serde_json::json!([7, 8]));
    assert_eq!(m["interrupted"], false);
    assert!(m["events"].as_u64().unwrap() > 1000);
    assert!(m["wall_time_s"].as_f64().unwrap() >= 0.0);
    let cl: Vec<&str> = m["command_line"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(&cl[1..4], ["run", "scenarios/default.toml", "--seed"]);
    assert!(cl.contains(&"flow.0.rate=1Mbps"));
    // Rerun the resolved scenario alone, from another directory.
    let b = d.join("b");
    let resolved = a.join("scenario.resolved.toml");
    run(&["run", resolved.to_str().unwrap(), "-q", "--out", b.to_str().unwrap()]);
    assert_eq!(
        std::fs::read(a.join("summary.json")).unwrap(),
        std::fs::read(b.join("summary.json")).unwrap(),
        "the resolved scenario reruns to a byte-identical summary.json"
    );
    assert_eq!(std::fs::read(a.join("flows.csv")).unwrap(), std::fs::read(b.join("flows.csv")).unwrap());
    // Every default is written out: keys absent from default.toml are in
    // the resolved file with their default values.
    let original: toml::Table =
        std::fs::read_to_string(root().join("scenarios/default.toml")).unwrap().parse().unwrap();
    let text = std::fs::read_to_string(&resolved).unwrap();
    let r: toml::Table = text.parse().unwrap();
    for (section, key, value) in [
        ("run", "warmup", "\"0s\""),
        ("queue", "kind", "\"droptail\""),
        ("queue", "limit", "50"),
        ("mac", "short_retry_limit", "7"),
        ("mac", "long_retry_limit", "4"),
        ("mac", "preamble", "\"long\""),
        ("radio", "tx_power", "\"0.28183815W\""),
        ("radio", "capture_threshold", "\"10dB\""),
        ("routing", "protocol", "\"static\""),
        ("arp", "mode", "\"off\""),
        ("output", "path_profile", "false"),
    ] {
        assert!(original.get(section).and_then(|t| t.get(key)).is_none(), "{section}.{key} is in default.toml");
        let got = r.get(section).and_then(|t| t.get(key)).unwrap_or_else(|| panic!("{section}.{key} missing:\n{text}"));
        assert_eq!(got.to_string(), value, "{section}.{key}");
    }
    assert_eq!(r["flow"].as_array().unwrap()[0]["jitter"].as_str(), Some("0s"));
    // Keys of other models are not: no AODV keys under static routing, no
    // TCP keys on a CBR flow.
    assert!(r["routing"].get("hello_interval").is_none() && r["flow"][0].get("mss").is_none(), "{text}");
    // An AODV scenario gets the protocol's defaults and still reruns byte
    // for byte.
    let c = d.join("c");
    let e = d.join("e");
    run(&["run", "scenarios/aodv-link-break.toml", "--set", "run.duration=26s", "-q", "--out", c.to_str().unwrap()]);
    let resolved = c.join("scenario.resolved.toml");
    let r: toml::Table = std::fs::read_to_string(&resolved).unwrap().parse().unwrap();
    for key in ["active_route_timeout", "net_diameter", "rreq_retries", "jitter", "hello_interval"] {
        assert!(r["routing"].get(key).is_some(), "routing.{key}");
    }
    assert!(r["routing"].get("cache_replies").is_none(), "no DSR keys under AODV");
    run(&["run", resolved.to_str().unwrap(), "-q", "--out", e.to_str().unwrap()]);
    assert_eq!(std::fs::read(c.join("summary.json")).unwrap(), std::fs::read(e.join("summary.json")).unwrap());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_scenario_without_flows_warns() {
    let d = tmp("noflows");
    let file = d.join("empty.toml");
    std::fs::write(&file, "[run]\nduration = \"1s\"\n[topology]\nkind = \"chain\"\nnodes = 2\nspacing = \"100m\"\n")
        .unwrap();
    let o = run(&["run", file.to_str().unwrap(), "-q", "--out", d.join("out").to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no [[flow]]"), "{err}");
    let o = run(&[
        "run",
        "scenarios/default.toml",
        "-q",
        "--set",
        "run.duration=2s",
        "--out",
        d.join("o2").to_str().unwrap(),
    ]);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("no [[flow]]"));
    let _ = std::fs::remove_dir_all(&d);
}

/// docs/outputs.schema.json and the generated tables of docs/outputs.md
/// equal what the code defines (UPDATE_DOCS=1 rewrites them), and the
/// files a run and a sweep write have exactly the documented columns and
/// fields, in both directions.
#[test]
fn docs_and_schema_match_what_is_written() {
    use manetlab::output::schema;
    let docs = root().join("docs");
    let schema_text = serde_json::to_string_pretty(&schema::schema_json()).unwrap() + "\n";
    let md_path = docs.join("outputs.md");
    let md = std::fs::read_to_string(&md_path).unwrap();
    let (begin, end) = ("<!-- generated: begin -->\n", "<!-- generated: end -->");
    let (a, b) = (md.find(begin).expect("begin marker") + begin.len(), md.find(end).expect("end marker"));
    let generated = schema::markdown();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(docs.join("outputs.schema.json"), &schema_text).unwrap();
        std::fs::write(&md_path, format!("{}{generated}{}", &md[..a], &md[b..])).unwrap();
    } else {
        assert_eq!(
            std::fs::read_to_string(docs.join("outputs.schema.json")).unwrap(),
            schema_text,
            "UPDATE_DOCS=1 regenerates"
        );
        assert_eq!(&md[a..b], generated, "docs/outputs.md is stale: UPDATE_DOCS=1 regenerates its tables");
    }
    let documented: std::collections::BTreeMap<String, Vec<String>> =
        schema::tables().into_iter().map(|(f, t)| (f, t.columns.iter().map(|c| c.name.clone()).collect())).collect();
    // A run with two replications.
    let d = tmp("docs");
    let out = d.join("run");
    run(&[
        "run",
        "scenarios/default.toml",
        "--runs",
        "2",
        "--set",
        "run.duration=3s",
        "--interval",
        "1s",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    for (file, cols) in &documented {
        if file.starts_with("sweep") {
            continue;
        }
        let got = Csv::read(&out.join(file)).header;
        assert_eq!(&got, cols, "{file}: written header vs documented columns");
    }
    let csvs: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".csv"))
        .collect();
    for f in &csvs {
        assert!(documented.contains_key(f), "{f} is written but not documented");
    }
    let s: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let keys: Vec<&str> = s.as_object().unwrap().keys().map(String::as_str).collect();
    let mut doc_keys: Vec<&str> = schema::SUMMARY_FIELDS.iter().map(|(k, _)| *k).collect();
    doc_keys.sort();
    assert_eq!(keys, doc_keys, "summary.json top-level fields vs documented");
    let flow = s["replications"][0]["flows"][0].as_object().unwrap();
    let flow_cols = &documented["flows.csv"];
    let extra: Vec<&str> = schema::FLOW_JSON_FIELDS.iter().map(|(k, _)| *k).collect();
    for k in flow.keys() {
        assert!(flow_cols.contains(k) || extra.contains(&k.as_str()), "summary.json flow field {k} is not documented");
    }
    for m in manetlab::output::flows::FLOW_METRICS {
        assert!(
            flow.contains_key(m.name) || m.name == "expected_bps",
            "documented {} missing from summary.json",
            m.name
        );
    }
    // Every metric in timeseries.csv is documented, and every documented
    // one is written.
    let ts = Csv::read(&out.join("timeseries.csv"));
    let mi = ts.header.iter().position(|c| c == "metric").unwrap();
    let written: std::collections::BTreeSet<&str> = ts.rows.iter().map(|r| r[mi].as_str()).collect();
    let doc: std::collections::BTreeSet<&str> = manetlab::output::timeseries::METRICS.iter().map(|m| m.name).collect();
    assert_eq!(written, doc, "timeseries.csv metrics vs documented");
    assert!(s["replications"][0]["timeseries"].is_object(), "the series is in summary.json's report");
    for (k, v) in s["network"][0].as_object().unwrap() {
        assert!(documented["network.csv"].contains(k), "{k}");
        let _ = v;
    }
    // A sweep: the documented columns with the example axis replaced by
    // the real one.
    let sw = d.join("sweep");
    run(&[
        "run",
        "scenarios/default.toml",
        "--sweep",
        "flow.0.rate=1Mbps,2Mbps",
        "--set",
        "run.duration=3s",
        "--interval",
        "1s",
        "-q",
        "--out",
        sw.to_str().unwrap(),
    ]);
    for f in ["sweep-runs.csv", "sweep.csv", "sweep-timeseries.csv"] {
        let want: Vec<String> = documented[f]
            .iter()
            .map(|c| if c == "mobility.pause_s" { "flow.0.rate_bps".to_string() } else { c.clone() })
            .collect();
        assert_eq!(Csv::read(&sw.join(f)).header, want, "{f}");
    }
    for f in ["manifest.json", "scenario.resolved.toml", "sweep.json"] {
        assert!(sw.join(f).exists(), "{f}");
    }
    let _ = std::fs::remove_dir_all(&d);
}
