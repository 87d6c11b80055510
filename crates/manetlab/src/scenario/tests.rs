use super::*;
use crate::config::Traffic;
use crate::mac::MacConfig;
use crate::net::routing::RoutingConfig;
use crate::phy::{PhyStandard, RadioConfig};
use crate::queue::QueueConfig;
use crate::sim::Time;
use proptest::prelude::*;

fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

fn example(name: &str) -> Scenario {
    let p = scenarios_dir().join(name);
    Scenario::from_path(&p).unwrap_or_else(|e| panic!("{e}"))
}

fn cbr(cfg: &SimConfig, i: usize) -> (u32, Time, Time) {
    match cfg.flows[i].traffic {
        Traffic::Cbr { size, interval, jitter } => (size, interval, jitter),
        ref t => panic!("flow {i} is {}, not cbr", t.kind()),
    }
}

/// A small valid scenario; tests append or replace lines.
const BASE: &str = r#"[run]
duration = "10s"

[topology]
kind = "chain"
nodes = 3
spacing = "200m"

[[flow]]
src = 2
dst = 0
type = "cbr"
packet_size = "1000B"
rate = "1Mbps"
"#;

fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    Scenario::from_str(text, "t.toml")
}

fn err(text: &str) -> ScenarioError {
    match parse(text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

/// 1-based (line, column) of the `nth` occurrence of `needle` in `text`.
fn pos(text: &str, needle: &str, nth: usize) -> (usize, usize) {
    let off = text.match_indices(needle).nth(nth).unwrap_or_else(|| panic!("{needle:?} not in text")).0;
    error::line_col(text, off)
}

fn assert_at(e: &ScenarioError, kind: ErrorKind, at: (usize, usize), words: &[&str]) {
    assert_eq!(e.kind(), kind, "{e}");
    assert_eq!((e.line(), e.column()), (Some(at.0), Some(at.1)), "{e}");
    for w in words {
        assert!(e.message().contains(w), "{e}\n  should contain {w:?}");
    }
    assert!(e.to_string().starts_with(&format!("t.toml:{}:{}: ", at.0, at.1)), "{e}");
}

// ---------------------------------------------------------------------------
// The example scenarios

#[test]
fn every_example_parses_and_builds() {
    let mut seen = 0;
    for entry in std::fs::read_dir(scenarios_dir()).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let sc = Scenario::from_path(&p).unwrap_or_else(|e| panic!("{e}"));
        for seed in sc.seeds() {
            let cfg = sc.config(seed);
            assert!(!cfg.nodes.is_empty());
            assert!(!cfg.flows.is_empty(), "{}", p.display());
            assert_eq!(cfg.seed, seed);
        }
        seen += 1;
    }
    assert!(seen >= 4, "only {seen} example scenarios");
}

#[test]
fn default_scenario_is_the_s1_chain() {
    let sc = example("default.toml");
    assert_eq!(sc.name, "S1 2-hop chain");
    assert_eq!(sc.replications, 1);
    assert_eq!(sc.seed(), 1);
    let cfg = sc.config(1);
    assert_eq!(cfg.nodes, SimConfig::chain_positions(3, 200.0));
    assert_eq!(cfg.duration, Time::from_secs(30));
    assert_eq!(cfg.warmup, Time::ZERO);
    assert_eq!(cfg.mac.phy.standard, PhyStandard::Dsss);
    assert_eq!(cfg.mac.phy.data_rate, 11_000_000);
    assert_eq!(cfg.mac.phy.basic_rate, 1_000_000);
    assert_eq!(cfg.mac.rts_threshold, None);
    assert!((cfg.radio.rx_range() - 250.0).abs() < 1e-6);
    assert!((cfg.radio.cs_range() - 550.0).abs() < 1e-6);
    assert_eq!(cfg.flows.len(), 1);
    let f = &cfg.flows[0];
    assert_eq!((f.name.as_str(), f.src, f.dst), ("udp0", 2, 0));
    assert_eq!((f.start, f.stop), (Time::from_secs(1), None));
    // 1470 payload bytes at 2 Mbit/s: 5.88 ms apart.
    assert_eq!(cbr(&cfg, 0), (1470, Time::from_us(5880), Time::ZERO));
}

#[test]
fn chain_grid_and_random_examples() {
    let cfg = example("chain-udp.toml").config(1);
    assert_eq!(cfg.nodes.len(), 11);
    assert_eq!(cfg.nodes[10].x, 2000.0);
    assert_eq!(cfg.warmup, Time::from_secs(10));
    assert_eq!(cfg.mac.rts_threshold, Some(0));
    assert_eq!((cfg.flows[0].src, cfg.flows[0].dst), (0, 10));
    assert_eq!(example("chain-udp.toml").output_dir, Some(PathBuf::from("out/chain-udp")));

    let cfg = example("grid.toml").config(7);
    assert_eq!(cfg.nodes.len(), 25);
    assert_eq!((cfg.nodes[12].x, cfg.nodes[12].y), (400.0, 400.0));
    assert_eq!(cfg.flows.len(), 2);
    assert_eq!(cbr(&cfg, 1).1, Time::from_ms(20)); // 8000 bits at 400 kbit/s

    let sc = example("random100.toml");
    assert_eq!(sc.replications, 10);
    let a = sc.config(1);
    assert_eq!(a.nodes.len(), 100);
    assert_eq!(a.flows.len(), 20);
    assert!(a.nodes.iter().all(|p| (0.0..1500.0).contains(&p.x) && (0.0..1500.0).contains(&p.y)));
    assert!(a.flows.iter().all(|f| cbr(&a, 0) == (512, Time::from_ms(250), Time::ZERO) && f.src != f.dst));
    assert_eq!(a.flows[19].name, "flow19");
    // Pure in (scenario, seed): same seed, same placement; other seeds differ.
    assert_eq!(sc.config(1), a);
    assert_ne!(sc.config(2).nodes, a.nodes);
    assert_eq!(sc.seeds().collect::<Vec<_>>(), (1..=10).collect::<Vec<_>>());
}

#[test]
fn random_placement_uses_the_placement_stream_per_node() {
    let sc = example("random100.toml");
    let cfg = sc.config(42);
    let mut r = RngStream::new(42, 17, Purpose::Placement, 0);
    let x = r.range_f64(0.0, 1500.0);
    let y = r.range_f64(0.0, 1500.0);
    assert_eq!(cfg.nodes[17], Position::new(x, y));
}

// ---------------------------------------------------------------------------
// Defaults

#[test]
fn defaults_are_the_ns2_wavelan_values() {
    let sc = parse(BASE).unwrap();
    assert_eq!(sc.name, "t");
    assert_eq!((sc.seed(), sc.replications, sc.output_dir.clone()), (1, 1, None));
    let cfg = sc.config(sc.seed());
    assert!((cfg.radio.rx_range() - 250.0).abs() < 0.5, "{}", cfg.radio.rx_range());
    assert!((cfg.radio.cs_range() - 550.0).abs() < 0.5, "{}", cfg.radio.cs_range());
    assert_eq!(cfg.radio, RadioConfig::default());
    assert_eq!(cfg.mac, MacConfig::default());
    assert_eq!(cfg.queue, QueueConfig::default());
    assert_eq!(cfg.routing, RoutingConfig::default());
    assert_eq!(cfg.warmup, Time::ZERO);
    assert_eq!(cfg.flows[0].name, "flow0");
    assert_eq!(cfg.flows[0].start, Time::ZERO);
    assert_eq!(cbr(&cfg, 0), (1000, Time::from_ms(8), Time::ZERO));
}

#[test]
fn every_section_and_key_is_accepted() {
    let text = r#"
[run]
name = "all keys"
duration = "100s"
warmup = "5s"
seed = 9
replications = 2

[topology]
kind = "explicit"
positions = [["0m", "0m"], [200, 0], ["0.4km", "0m", "2m"]]

[radio]
propagation = "free-space"
tx_power = "24.5dBm"
frequency = "2.4GHz"
tx_gain = "0dB"
rx_gain = 1
antenna_height = "1.5m"
system_loss = 1.0
rx_threshold = "3.652e-10W"
cs_range = "300m"
capture_threshold = "10dB"
capture_rule = "stronger-wins"

[mac]
standard = "802.11a"
data_rate = "54Mbps"
basic_rate = "6Mbps"
preamble = "long"
rts_threshold = "500B"
short_retry_limit = 5
long_retry_limit = 3
cw_min = 15
cw_max = 511

[queue]
kind = "droptail"
limit = 20
control_first = false

[routing]
protocol = "static"
paths = [[2, 1, 0]]

[[flow]]
name = "a"
src = 2
dst = 0
type = "cbr"
packet_size = "1.5KB"
interval = "10ms"
jitter = "1ms"
start = "1s"
stop = "90s"

[output]
dir = "out/all"
"#;
    let sc = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let c = sc.config(sc.seed());
    assert_eq!(sc.name, "all keys");
    assert_eq!((c.seed, sc.replications), (9, 2));
    assert_eq!(c.nodes[2], Position { x: 400.0, y: 0.0, z: 2.0 });
    assert_eq!(c.radio.propagation, crate::phy::Propagation::FreeSpace);
    assert_eq!(c.radio.frequency_hz, 2.4e9);
    assert_eq!(c.radio.rx_threshold_w, 3.652e-10);
    assert!((c.radio.cs_range() - 300.0).abs() < 1e-6);
    assert_eq!(c.radio.capture_rule, crate::phy::CaptureRule::StrongerWins);
    assert_eq!(c.mac.phy.standard, PhyStandard::Ofdm);
    assert_eq!((c.mac.phy.data_rate, c.mac.phy.basic_rate), (54_000_000, 6_000_000));
    assert_eq!(c.mac.rts_threshold, Some(500));
    assert_eq!((c.mac.short_retry_limit, c.mac.long_retry_limit, c.mac.cw_min(), c.mac.cw_max()), (5, 3, 15, 511));
    assert_eq!(
        c.queue,
        QueueConfig {
            kind: crate::queue::QueueKind::DropTail,
            limit: 20,
            control_first: false,
            backpressure: None,
            max_delay: None,
            expire_in_flight: false
        }
    );
    assert_eq!(c.routing, RoutingConfig::Static { paths: vec![vec![2, 1, 0]] });
    assert_eq!(cbr(&c, 0), (1500, Time::from_ms(10), Time::from_ms(1)));
    assert_eq!(c.flows[0].stop, Some(Time::from_secs(90)));
    assert_eq!(sc.output_dir, Some(PathBuf::from("out/all")));
}

#[test]
fn ofdm_defaults_to_6_mbps() {
    let sc = parse(&BASE.replace("[[flow]]", "[mac]\nstandard = \"ofdm\"\n\n[[flow]]")).unwrap();
    let c = sc.config(1);
    assert_eq!((c.mac.phy.data_rate, c.mac.phy.basic_rate), (6_000_000, 6_000_000));
    assert_eq!(c.mac.cw_min(), 15);
}

// ---------------------------------------------------------------------------
// Errors: class, line:column, key name

#[test]
fn syntax_error() {
    let t = BASE.replace("[topology]", "[topology");
    let e = err(&t);
    assert_eq!(e.kind(), ErrorKind::Syntax, "{e}");
    assert_eq!(e.line(), Some(pos(&t, "[topology", 0).0), "{e}");
    assert!(e.message().starts_with("TOML syntax error"), "{e}");

    let t = BASE.replace("duration = \"10s\"", "duration = \"10s\"\nduration = \"20s\"");
    let e = err(&t);
    assert_eq!(e.kind(), ErrorKind::Syntax);
    assert_eq!(e.line(), Some(3), "{e}");
    assert!(e.message().contains("duplicate key 'duration'"), "{e}");
}

#[test]
fn unknown_key() {
    let t = format!("{BASE}\n[radio]\ntx_power = \"1W\"\nrx_rnge = \"250m\"\n");
    let e = err(&t);
    assert_at(
        &e,
        ErrorKind::UnknownKey,
        pos(&t, "rx_rnge", 0),
        &[
            "unknown field 'rx_rnge' in [radio]; expected one of: propagation, tx_power, frequency",
            "(did you mean 'rx_range'?)",
        ],
    );
    assert_eq!(e.to_string(), format!("t.toml:{}:1: {}", pos(&t, "rx_rnge", 0).0, e.message()));

    let t = format!("{BASE}\n[[flow]]\nsrc = 1\ndst = 0\ntype = \"cbr\"\nrat = \"1Mbps\"\n");
    assert_at(&err(&t), ErrorKind::UnknownKey, pos(&t, "rat ", 0), &["unknown field 'rat' in [[flow]] #1", "rate"]);

    let t = format!("{BASE}\n[radi]\n");
    assert_at(&err(&t), ErrorKind::UnknownKey, pos(&t, "radi", 0), &["unknown section 'radi'", "radio"]);
}

#[test]
fn missing_key() {
    let t = BASE.replace("duration = \"10s\"\n", "seed = 3\n");
    assert_at(&err(&t), ErrorKind::MissingKey, (1, 1), &["missing required key 'duration' in [run]"]);

    let t = BASE.replace("dst = 0\n", "");
    assert_at(&err(&t), ErrorKind::MissingKey, pos(&t, "[[flow]]", 0), &["missing required key 'dst' in [[flow]] #0"]);

    let t = BASE.replace("spacing = \"200m\"\n", "");
    assert_at(&err(&t), ErrorKind::MissingKey, pos(&t, "[topology]", 0), &["'spacing'", "[topology]"]);

    let t = BASE.replace("rate = \"1Mbps\"\n", "");
    assert_at(&err(&t), ErrorKind::MissingKey, pos(&t, "\"cbr\"", 0), &["flow.0.rate", "interval"]);

    let t = BASE.replace("[topology]", "[topo]");
    let e = err(&t);
    assert_eq!(e.kind(), ErrorKind::UnknownKey, "{e}"); // [topo] is reported first

    let t = BASE.split("[topology]").next().unwrap().to_string();
    let e = err(&t);
    assert_eq!((e.kind(), e.line()), (ErrorKind::MissingKey, None), "{e}");
    assert_eq!(e.to_string(), "t.toml: missing required section [topology]");
}

#[test]
fn wrong_type() {
    let t = BASE.replace("duration = \"10s\"", "duration = \"10s\"\nseed = \"x\"");
    assert_at(
        &err(&t),
        ErrorKind::WrongType,
        pos(&t, "\"x\"", 0),
        &["'run.seed'", "expected a non-negative integer", "string \"x\""],
    );

    let t = BASE.replace("nodes = 3", "nodes = 2.5");
    assert_at(&err(&t), ErrorKind::WrongType, pos(&t, "2.5", 0), &["'topology.nodes'", "number 2.5"]);

    let t = format!("{BASE}\n[queue]\ncontrol_first = 1\n");
    let (line, col) = pos(&t, "control_first", 0);
    assert_at(&err(&t), ErrorKind::WrongType, (line, col + 16), &["'queue.control_first'", "true or false"]);

    let t = format!("{BASE}\n[routing]\npaths = 3\n");
    let (line, col) = pos(&t, "paths = 3", 0);
    assert_at(&err(&t), ErrorKind::WrongType, (line, col + 8), &["'routing.paths'", "an array"]);
}

#[test]
fn bad_unit() {
    let t = BASE.replace("spacing = \"200m\"", "spacing = \"200\"");
    assert_at(
        &err(&t),
        ErrorKind::BadValue,
        pos(&t, "\"200\"", 0),
        &[
            "'topology.spacing'",
            "expected a distance such as \"250m\" or \"1.5km\" (units: m, km, cm, mm), got \"200\"",
        ],
    );

    let t = BASE.replace("duration = \"10s\"", "duration = 10");
    assert_at(&err(&t), ErrorKind::BadValue, pos(&t, "10", 0), &["'run.duration'", "bare number 10", "units: ns, us"]);

    let t = BASE.replace("\"1Mbps\"", "\"1 furlong\"");
    assert_at(&err(&t), ErrorKind::BadValue, pos(&t, "\"1 furlong\"", 0), &["'flow.0.rate'", "Mbps"]);

    let t = BASE.replace("\"1000B\"", "\"-5B\"");
    assert_at(&err(&t), ErrorKind::BadValue, pos(&t, "\"-5B\"", 0), &["'flow.0.packet_size'", "must not be negative"]);

    let t = BASE.replace("\"chain\"", "\"ring\"");
    assert_at(
        &err(&t),
        ErrorKind::BadValue,
        pos(&t, "\"ring\"", 0),
        &["unknown value \"ring\" for 'topology.kind'", "chain, grid, random, explicit"],
    );

    let t = format!("{BASE}\n[mac]\ndata_rate = \"3Mbps\"\n");
    assert_at(
        &err(&t),
        ErrorKind::BadValue,
        pos(&t, "\"3Mbps\"", 0),
        &["'mac.data_rate' = 3Mbps is not a DSSS rate", "valid rates: 1, 2, 5.5, 11 Mbit/s"],
    );

    let t = format!("{BASE}\n[mac]\nstandard = \"ofdm\"\nbasic_rate = \"11Mbps\"\n");
    assert_at(
        &err(&t),
        ErrorKind::BadValue,
        pos(&t, "\"11Mbps\"", 0),
        &["not an OFDM rate", "6, 9, 12, 18, 24, 36, 48, 54 Mbit/s"],
    );
}

#[test]
fn out_of_range() {
    let t = BASE.replace("src = 2", "src = 7");
    assert_at(
        &err(&t),
        ErrorKind::OutOfRange,
        pos(&t, "7", 0),
        &["'flow.0.src' = 7 is not a node: the topology has 3 nodes (0 to 2)"],
    );

    let t = BASE.replace("duration = \"10s\"", "duration = \"10s\"\nseed = -1");
    assert_at(&err(&t), ErrorKind::OutOfRange, pos(&t, "-1", 0), &["'run.seed'", "non-negative"]);

    let t = BASE.replace("nodes = 3", "nodes = 0");
    assert_at(&err(&t), ErrorKind::OutOfRange, pos(&t, "0\n", 0), &["'topology.nodes' must be from 1"]);

    let t = BASE.replace("\"1000B\"", "\"3000B\"");
    assert_at(&err(&t), ErrorKind::OutOfRange, pos(&t, "\"3000B\"", 0), &["'flow.0.packet_size'", "2276B"]);

    let t = format!("{BASE}\n[routing]\npaths = [[2, 1, 5]]\n");
    assert_at(&err(&t), ErrorKind::OutOfRange, pos(&t, "5]", 0), &["'routing.paths.0.2' = 5 is not a node"]);

    let t = BASE.replace("duration = \"10s\"", "duration = \"0s\"");
    assert_at(&err(&t), ErrorKind::OutOfRange, pos(&t, "\"0s\"", 0), &["'run.duration' must be greater than zero"]);
}

#[test]
fn inconsistent_combinations() {
    let t = format!("{BASE}\n[radio]\nrx_range = \"250m\"\nrx_threshold = \"3.652e-10W\"\n");
    assert_at(
        &err(&t),
        ErrorKind::Inconsistent,
        pos(&t, "\"3.652e-10W\"", 0),
        &["either 'radio.rx_range' or 'radio.rx_threshold', not both"],
    );

    let t = format!("{BASE}\n[radio]\nrx_range = \"600m\"\n");
    assert_at(
        &err(&t),
        ErrorKind::Inconsistent,
        pos(&t, "\"600m\"", 0),
        &["carrier-sense range (550.0 m) is shorter than the receive range (600.0 m)"],
    );

    let t = BASE.replace("dst = 0", "dst = 2");
    assert_at(&err(&t), ErrorKind::Inconsistent, pos(&t, "2\n", 1), &["'flow.0.dst' must differ from its source"]);

    let t = BASE.replace("rate = \"1Mbps\"", "rate = \"1Mbps\"\ninterval = \"10ms\"");
    assert_at(
        &err(&t),
        ErrorKind::Inconsistent,
        pos(&t, "\"10ms\"", 0),
        &["either 'flow.0.rate' or 'flow.0.interval'"],
    );

    let t = BASE.replace("rate = \"1Mbps\"", "rate = \"1Mbps\"\nstart = \"5s\"\nstop = \"5s\"");
    assert_at(
        &err(&t),
        ErrorKind::Inconsistent,
        pos(&t, "\"5s\"", 1),
        &["'flow.0.stop' (5s) must be after its start (5s)"],
    );

    let t = BASE.replace("rate = \"1Mbps\"", "rate = \"1Mbps\"\nstart = \"10s\"");
    assert_at(
        &err(&t),
        ErrorKind::Inconsistent,
        pos(&t, "\"10s\"", 1),
        &["'flow.0.start' (10s) is not before the end of the run (10s)"],
    );

    let t = BASE.replace("duration = \"10s\"", "duration = \"10s\"\nwarmup = \"20s\"");
    assert_at(
        &err(&t),
        ErrorKind::Inconsistent,
        pos(&t, "\"20s\"", 0),
        &["'run.warmup' (20s) must be shorter than 'run.duration' (10s)"],
    );

    let t = BASE.replace("spacing = \"200m\"", "spacing = \"200m\"\nrows = 4");
    assert_at(
        &err(&t),
        ErrorKind::Inconsistent,
        pos(&t, "4", 0),
        &["'topology.rows' is not used by kind = \"chain\" (it uses: nodes, spacing)"],
    );

    let t = format!("{BASE}\n[mac]\ncw_min = 63\ncw_max = 31\n");
    assert_at(
        &err(&t),
        ErrorKind::Inconsistent,
        pos(&t, "31", 0),
        &["'mac.cw_min' (63) must not exceed 'mac.cw_max' (31)"],
    );

    let t = format!("{BASE}\n[mac]\npreamble = \"short\"\nbasic_rate = \"1Mbps\"\n");
    assert_at(&err(&t), ErrorKind::Inconsistent, pos(&t, "\"short\"", 0), &["cannot be used with 1 Mbit/s"]);

    let t = BASE.replace("rate = \"1Mbps\"", "interval = \"1ms\"\njitter = \"1ms\"");
    assert_at(
        &err(&t),
        ErrorKind::Inconsistent,
        pos(&t, "\"1ms\"", 1),
        &["'flow.0.jitter' (1ms) must be smaller than the packet interval (1ms)"],
    );

    let t = format!("{BASE}\n[[flow]]\nname = \"flow0\"\nsrc = 0\ndst = 1\ntype = \"cbr\"\npacket_size = \"10B\"\nrate = \"1Mbps\"\n");
    assert_at(&err(&t), ErrorKind::Inconsistent, pos(&t, "\"flow0\"", 0), &["flow name \"flow0\" is used twice"]);
}

#[test]
fn io_and_encoding_errors() {
    let e = Scenario::from_path(Path::new("/nonexistent/x.toml")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(e.to_string().starts_with("/nonexistent/x.toml: cannot read the scenario file"), "{e}");

    let dir = std::env::temp_dir().join(format!("manetlab-scenario-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("bad.toml");
    std::fs::write(&p, b"[run]\nname = \"\xff\"\n").unwrap();
    let e = Scenario::from_path(&p).unwrap_err();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!((e.kind(), e.line(), e.column()), (ErrorKind::Syntax, Some(2), Some(9)), "{e}");
}

// ---------------------------------------------------------------------------
// Overrides

fn with(ovs: &[&str]) -> Result<Scenario, ScenarioError> {
    let p = scenarios_dir().join("default.toml");
    Scenario::load(&p, ovs)
}

#[test]
fn overrides_change_the_run() {
    let sc = with(&["mac.data_rate=2Mbps", "run.duration=20s", "flow.0.rate=1Mbps", "topology.nodes=5"]).unwrap();
    let c = sc.config(sc.seed());
    assert_eq!(c.mac.phy.data_rate, 2_000_000);
    assert_eq!(c.duration, Time::from_secs(20));
    assert_eq!(cbr(&c, 0).1, Time::from_us(11_760));
    assert_eq!(c.nodes.len(), 5);
    assert!(sc.effective_toml().contains("data_rate = \"2Mbps\""));

    // Keys and sections absent from the file are added; values keep their type.
    let sc = with(&[
        "mac.cw_min=15",
        "queue.limit=10",
        "run.replications=3",
        "routing.paths=[[2,1,0]]",
        "flow.*.jitter=1ms",
    ])
    .unwrap();
    let c = sc.config(1);
    assert_eq!((c.mac.cw_min(), c.queue.limit, sc.replications), (15, 10, 3));
    assert_eq!(c.routing, RoutingConfig::Static { paths: vec![vec![2, 1, 0]] });
    assert_eq!(cbr(&c, 0).2, Time::from_ms(1));

    // The effective text is a complete scenario that builds the same run.
    let again = Scenario::from_str(sc.effective_toml(), "effective.toml").unwrap();
    assert_eq!(again.config(4), sc.config(4));

    // The last override of a key wins.
    let c = with(&["mac.data_rate=1Mbps", "mac.data_rate=5.5Mbps"]).unwrap().config(1);
    assert_eq!(c.mac.phy.data_rate, 5_500_000);
}

#[test]
fn bad_overrides_name_the_override() {
    let e = with(&["mac.data_rate=13Mbps"]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadValue);
    assert_eq!(e.override_arg(), Some("mac.data_rate=13Mbps"));
    assert!(e.to_string().ends_with(
        "default.toml: --set mac.data_rate=13Mbps: 'mac.data_rate' = 13Mbps is not a DSSS rate; valid rates: 1, 2, 5.5, 11 Mbit/s"
    ), "{e}");

    let e = with(&["mac.dat_rate=1Mbps"]).unwrap_err();
    assert_eq!((e.kind(), e.override_arg()), (ErrorKind::UnknownKey, Some("mac.dat_rate=1Mbps")), "{e}");
    assert!(e.message().contains("unknown field 'dat_rate' in [mac]; expected one of: standard, data_rate"), "{e}");

    let e = with(&["run.duration=ten"]).unwrap_err();
    assert_eq!((e.kind(), e.override_arg()), (ErrorKind::BadValue, Some("run.duration=ten")), "{e}");
    assert!(e.message().contains("'run.duration'"), "{e}");

    let e = with(&["topology.nodes=2"]).unwrap_err();
    // The flow's src = 2 is now out of range: reported in the file, not the override.
    assert_eq!((e.kind(), e.override_arg()), (ErrorKind::OutOfRange, None), "{e}");
    let text = std::fs::read_to_string(scenarios_dir().join("default.toml")).unwrap();
    assert_eq!((e.line(), e.column()), (Some(pos(&text, "src = 2", 0).0), Some(7)), "{e}");

    for (ov, words) in [
        ("mac.data_rate", "expected key=value"),
        ("flow.1.rate=1Mbps", "there is no flow.1: the file has 1 [[flow]] section"),
        ("flow.rate=1Mbps", "by number"),
        ("mac=1", "is a section"),
        ("run..seed=1", "key path"),
    ] {
        let e = with(&[ov]).unwrap_err();
        assert_eq!((e.kind(), e.override_arg()), (ErrorKind::BadOverride, Some(ov)), "{e}");
        assert!(e.message().contains(words), "{e}");
    }
}

#[test]
fn positions_after_inserted_overrides_map_to_the_file() {
    // The override inserts a line under [mac]; the later error must still
    // point at its line in the original file.
    let t = format!("{BASE}\n[mac]\nshort_retry_limit = 7\n\n[queue]\nlimit = 0\n");
    let e = Scenario::parse(&t, "t.toml", &["mac.cw_min=15", "mac.long_retry_limit=2"]).unwrap_err();
    assert_at(&e, ErrorKind::OutOfRange, pos(&t, "0\n", 1), &["'queue.limit'"]);
}

// ---------------------------------------------------------------------------
// Robustness

fn default_text() -> String {
    std::fs::read_to_string(scenarios_dir().join("default.toml")).unwrap()
}

fn check_error_is_located(text: &str, e: &ScenarioError) {
    if let Some(line) = e.line() {
        assert!(line >= 1 && line <= text.lines().count() + 1, "{e}");
        assert!(e.column().unwrap() >= 1, "{e}");
    }
    assert!(!e.message().is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn mutated_files_never_panic(ops in proptest::collection::vec((0u8..4, any::<usize>(), any::<usize>(), "[\\[\\]=\".#\n a-z0-9_-]{0,3}"), 1..6)) {
        let mut text = default_text();
        for (op, a, b, s) in ops {
            let chars: Vec<char> = text.chars().collect();
            if chars.is_empty() {
                text = s;
                continue;
            }
            let i = a % chars.len();
            let j = (i + b % 12).min(chars.len());
            text = match op {
                0 => chars[..i].iter().chain(&chars[j..]).collect(),
                1 => chars[..j].iter().chain(&chars[i..j]).chain(&chars[j..]).collect(),
                2 => chars[..i].iter().copied().chain(s.chars()).chain(chars[j..].iter().copied()).collect(),
                _ => chars[..i].iter().copied().chain(s.chars()).chain(chars[i..].iter().copied()).collect(),
            };
        }
        match Scenario::from_str(&text, "m.toml") {
            Ok(sc) => { let _ = sc.config(sc.seed()); }
            Err(e) => check_error_is_located(&text, &e),
        }
    }

    #[test]
    fn random_overrides_never_panic(key in "[a-z_.*0-9]{0,20}", value in "\\PC{0,12}") {
        let ov = format!("{key}={value}");
        let text = default_text();
        match Scenario::parse(&text, "d.toml", &[ov.as_str()]) {
            Ok(sc) => { let _ = sc.config(1); }
            Err(e) => check_error_is_located(&text, &e),
        }
    }

    #[test]
    fn arbitrary_override_keys_never_panic(key in "\\PC{0,16}", value in "\\PC{0,8}") {
        let ov = format!("{key}={value}");
        let text = default_text();
        match Scenario::parse(&text, "d.toml", &[ov.as_str(), "mac.cw_min=3"]) {
            Ok(sc) => { let _ = sc.config(1); }
            Err(e) => check_error_is_located(&text, &e),
        }
    }

    #[test]
    fn override_values_never_panic(
        key in prop::sample::select(vec!["run.duration", "run.seed", "topology.nodes", "topology.spacing",
            "radio.rx_range", "radio.tx_power", "mac.data_rate", "mac.rts_threshold", "flow.0.rate",
            "flow.0.src", "flow.0.start", "routing.paths", "queue.limit", "radio.capture_threshold",
            "routing.protocol", "routing.link_detection", "routing.hello_interval", "event.0.at"]),
        value in "\\PC{0,12}",
    ) {
        let ov = format!("{key}={value}");
        if let Err(e) = Scenario::parse(&default_text(), "d.toml", &[ov.as_str()]) {
            prop_assert!(e.override_arg().is_some() || e.line().is_some() || e.kind() == ErrorKind::MissingKey, "{}", e);
        }
    }
}

#[test]
fn examples_in_the_docs_parse() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenario.md")).unwrap();
    let blocks: Vec<&str> = doc.split("```toml\n").skip(1).map(|b| b.split("```").next().unwrap()).collect();
    assert!(blocks.len() >= 3);
    let first = Scenario::from_str(blocks[0], "docs-first.toml").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(first.config(1).flows.len(), 1);
    let full = Scenario::from_str(blocks.last().unwrap(), "docs-full.toml").unwrap_or_else(|e| panic!("{e}"));
    let c = full.config(full.seed());
    // The complete example states the defaults, so it builds the default layers.
    assert_eq!(c.mac, crate::mac::MacConfig { cw_min: Some(31), cw_max: Some(1023), ..Default::default() });
    assert_eq!(c.queue, QueueConfig::default());
    assert!((c.radio.rx_range() - 250.0).abs() < 1e-6 && (c.radio.cs_range() - 550.0).abs() < 1e-6);
    assert_eq!(cbr(&c, 0).1, Time::from_us(5880));
    assert_eq!(full.output_dir, Some(PathBuf::from("out/chain")));
}

const TCP: &str = r#"[run]
duration = "10s"

[topology]
kind = "chain"
nodes = 5
spacing = "200m"

[[flow]]
src = 0
dst = 4
type = "tcp"
variant = "reno"
mss = "1460B"
max_window = 8
initial_rto = "6s"
"#;

#[test]
fn tcp_flows_parse_with_their_settings() {
    use crate::transport::tcp::{DataSource, TcpVariant};
    let cfg = parse(TCP).unwrap().config(1);
    match &cfg.flows[0].traffic {
        Traffic::Tcp { tcp, data } => {
            assert_eq!(tcp.variant, TcpVariant::Reno);
            assert_eq!(tcp.mss, 1460);
            assert_eq!(tcp.max_window, 8);
            assert_eq!(tcp.initial_rto, Time::from_secs(6));
            assert_eq!(*data, DataSource::Bulk);
        }
        t => panic!("not tcp: {t:?}"),
    }
    let finite = parse(&format!("{TCP}bytes = \"1MB\"\n")).unwrap().config(1);
    assert!(matches!(finite.flows[0].traffic, Traffic::Tcp { data: DataSource::Finite(1_000_000), .. }));
    // "ftp" is an alias.
    assert!(parse(&TCP.replace("type = \"tcp\"", "type = \"ftp\"")).is_ok());
}

#[test]
fn tcp_and_cbr_keys_do_not_mix() {
    let e = err(&format!("{TCP}rate = \"1Mbps\"\n"));
    assert_at(
        &e,
        ErrorKind::Inconsistent,
        pos(&format!("{TCP}rate = \"1Mbps\"\n"), "\"1Mbps\"", 0),
        &["flow.0.rate", "not used by type = \"tcp\""],
    );
    let text = format!("{BASE}max_window = 8\n");
    let e = err(&text);
    assert_at(&e, ErrorKind::Inconsistent, pos(&text, "8\n", 0), &["flow.0.max_window", "cbr"]);
    let text = TCP.replace("reno", "bic");
    let e = err(&text);
    assert_at(&e, ErrorKind::BadValue, pos(&text, "\"bic\"", 0), &["unknown value", "newreno"]);
    let text = TCP.replace("mss = \"1460B\"", "mss = \"3000B\"");
    let e = err(&text);
    assert_at(&e, ErrorKind::OutOfRange, pos(&text, "\"3000B\"", 0), &["flow.0.mss"]);
}

#[test]
fn arp_section() {
    use crate::net::arp::ArpConfig;
    assert_eq!(parse(BASE).unwrap().config(1).arp, ArpConfig::Off);
    let cfg = parse(&format!("{BASE}\n[arp]\nmode = \"ns2\"\n")).unwrap().config(1);
    assert_eq!(cfg.arp, ArpConfig::ns2());
    let cfg = parse(&format!("{BASE}\n[arp]\nmode = \"queue\"\nqueue_limit = 5\nretry_interval = \"500ms\"\n"))
        .unwrap()
        .config(1);
    assert_eq!(
        cfg.arp,
        ArpConfig::Queue {
            limit: 5,
            max_requests: 3,
            retry_interval: Time::from_ms(500),
            report_failure: true,
            dead_time: Time::ZERO,
            ns3_cache: false,
            report_drops: false
        }
    );
    let cfg = parse(&format!(
        "{BASE}\n[arp]\nmode = \"queue\"\nmax_requests = 4\nreport_failure = false\ndead_time = \"100s\"\nns3_cache = true\n"
    ))
        .unwrap()
        .config(1);
    assert_eq!(cfg.arp, ArpConfig::ns3());
    let cfg = parse(&format!("{BASE}\n[arp]\nmode = \"queue\"\nreport_drops = true\n")).unwrap().config(1);
    assert!(matches!(cfg.arp, ArpConfig::Queue { report_drops: true, .. }));
    let text = format!("{BASE}\n[arp]\nmode = \"ns2\"\nqueue_limit = 5\n");
    assert_at(
        &err(&text),
        ErrorKind::Inconsistent,
        (text.lines().count(), 15),
        &["arp.queue_limit", "not used by mode"],
    );
    let text = format!("{BASE}\n[arp]\nmode = \"bsd\"\n");
    assert_at(&err(&text), ErrorKind::BadValue, pos(&text, "\"bsd\"", 0), &["arp.mode", "ns2"]);
    let text = format!("{BASE}\n[arp]\nmode = \"queue\"\nmax_requests = 0\n");
    assert_at(&err(&text), ErrorKind::OutOfRange, (text.lines().count(), 16), &["arp.max_requests"]);
}

const RANDOM: &str = r#"[run]
duration = "100s"

[topology]
kind = "random"
nodes = 6
area = ["1500m", "300m"]
"#;

#[test]
fn mobility_models_build_trajectories() {
    use crate::mobility::MobilityConfig;
    // Scripted moves over a chain.
    let text = format!("{BASE}\n[[move]]\nnode = 2\nat = \"1s\"\nto = [\"400m\", \"100m\"]\nspeed = \"10m/s\"\n");
    let cfg = parse(&text).unwrap().config(1);
    let MobilityConfig::Trajectories(t) = &cfg.mobility else { panic!("not mobile") };
    assert_eq!(t[2].position(Time::from_secs(1)), Position::new(400.0, 0.0));
    let p = t[2].position(Time::from_secs(3));
    assert!((p.x - 400.0).abs() < 1e-9 && (p.y - 20.0).abs() < 1e-9, "{p:?}");
    // Random waypoint: initial positions are the model's, inside the area.
    let text =
        format!("{RANDOM}\n[mobility]\nmodel = \"random-waypoint\"\nspeed = [\"1m/s\", \"20m/s\"]\npause = \"2s\"\n");
    let s = parse(&text).unwrap();
    let (a, b) = (s.config(1), s.config(2));
    assert_ne!(a.nodes, b.nodes, "the run seed draws the paths");
    let MobilityConfig::Trajectories(t) = &a.mobility else { panic!() };
    assert_eq!(a.nodes[0], t[0].position(Time::ZERO));
    assert!(t.iter().all(|t| t.max_speed() <= 20.0 + 1e-9));
    // Pattern: the same movie for every seed when `pattern` is fixed.
    let text = format!("{RANDOM}\n[mobility]\nmodel = \"pattern\"\nmean_speed = \"10m/s\"\npattern = 4\n");
    let s = parse(&text).unwrap();
    assert_eq!(s.config(1).nodes, s.config(9).nodes);
}

#[test]
fn hilbert_order_renumbers_the_same_nodes_along_the_curve() {
    use crate::mobility::MobilityConfig;
    let big = RANDOM.replace("nodes = 6", "nodes = 400").replace("[\"1500m\", \"300m\"]", "[\"4000m\", \"4000m\"]");
    let mobile = "\n[mobility]\nmodel = \"random-waypoint\"\nspeed = [\"2m/s\", \"10m/s\"]\npause = \"30s\"\n";
    let step = |p: &[Position]| {
        p.windows(2).map(|w| ((w[0].x - w[1].x).powi(2) + (w[0].y - w[1].y).powi(2)).sqrt()).sum::<f64>()
            / (p.len() - 1) as f64
    };
    for extra in ["", mobile] {
        let plain = parse(&format!("{big}{extra}")).unwrap().config(3);
        let text = format!("{}{extra}", big.replace("kind = \"random\"", "kind = \"random\"\norder = \"hilbert\""));
        let curve = parse(&text).unwrap().config(3);
        // The same positions (and paths), other ids.
        let key = |p: &Position| (p.x.to_bits(), p.y.to_bits());
        let (mut a, mut b): (Vec<_>, Vec<_>) =
            (plain.nodes.iter().map(key).collect(), curve.nodes.iter().map(key).collect());
        assert_ne!(a, b);
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        // 400 nodes in a 4 km square: consecutive ids ~2 km apart in draw
        // order, ~0.2 km along the curve.
        let (s0, s1) = (step(&plain.nodes), step(&curve.nodes));
        assert!(s0 > 1500.0 && s1 < 400.0, "{s0} m -> {s1} m");
        if let MobilityConfig::Trajectories(t) = &curve.mobility {
            for (i, p) in curve.nodes.iter().enumerate() {
                assert_eq!(t[i].position(Time::ZERO), *p, "node {i} keeps its own path");
            }
        } else {
            assert!(extra.is_empty(), "random waypoint makes trajectories");
        }
        assert_eq!(parse(&text).unwrap().config(3).nodes, curve.nodes, "deterministic");
    }
    // Only for random topologies, and not with scripted movement.
    let text = BASE.replace("kind = \"chain\"", "kind = \"chain\"\norder = \"hilbert\"");
    assert!(err(&text).message().contains("'topology.order' is not used"), "{}", err(&text));
    let text = RANDOM.replace("kind = \"random\"", "kind = \"random\"\norder = \"peano\"");
    assert_at(&err(&text), ErrorKind::BadValue, pos(&text, "\"peano\"", 0), &["topology.order", "hilbert"]);
    let text = format!(
        "{}\n[[move]]\nnode = 2\nat = \"1s\"\nto = [\"400m\", \"100m\"]\nspeed = \"10m/s\"\n",
        RANDOM.replace("kind = \"random\"", "kind = \"random\"\norder = \"hilbert\"")
    );
    let e = err(&text);
    assert_eq!(e.kind(), ErrorKind::Inconsistent, "{e}");
    assert!(e.message().contains("[[move]]"), "{e}");
}

#[test]
fn mobility_errors() {
    let text = format!("{BASE}\n[mobility]\nmodel = \"random-waypoint\"\nspeed = [\"1m/s\", \"2m/s\"]\n");
    let e = err(&text);
    assert_eq!(e.kind(), ErrorKind::Inconsistent, "{e}");
    assert!(e.message().contains("kind = \"random\""), "{e}");
    let text = format!("{RANDOM}\n[mobility]\nmodel = \"pattern\"\nspeed = [\"1m/s\", \"2m/s\"]\n");
    assert_at(
        &err(&text),
        ErrorKind::Inconsistent,
        pos(&text, "[\"1m/s\"", 0),
        &["mobility.speed", "not used by model"],
    );
    let text = format!("{RANDOM}\n[mobility]\nmodel = \"pattern\"\nmean_speed = \"10\"\n");
    assert_eq!(err(&text).kind(), ErrorKind::BadValue);
    let text = format!("{BASE}\n[[move]]\nnode = 9\nat = \"1s\"\nto = [\"1m\", \"1m\"]\nspeed = \"1m/s\"\n");
    assert_at(&err(&text), ErrorKind::OutOfRange, pos(&text, "9\n", 0), &["move.0.node"]);
    let text = format!("{BASE}\n[mobility]\nmodel = \"ns2-file\"\nfile = \"no/such/file.tcl\"\n");
    assert_at(&err(&text), ErrorKind::BadValue, pos(&text, "\"no/such", 0), &["cannot read movement file"]);
}

// ---------------------------------------------------------------------------
// [output] trace and pcap

#[test]
fn trace_options_parse() {
    use crate::metrics::trace::{Ns2Format, PcapMode, TraceOptions};
    let opts = |extra: &str| parse(&format!("{BASE}\n[output]\n{extra}\n")).unwrap_or_else(|e| panic!("{e}")).trace;
    assert!(parse(BASE).unwrap().trace.is_off());
    assert_eq!(opts("trace = []"), TraceOptions::default());
    assert_eq!(opts("trace = [\"ns2\"]"), TraceOptions { ns2: Some(Ns2Format::New), pcap: None });
    assert_eq!(opts("trace = [\"NS2-old\"]"), TraceOptions { ns2: Some(Ns2Format::Old), pcap: None });
    assert_eq!(
        opts("trace = [\"ns2\", \"pcap\"]"),
        TraceOptions { ns2: Some(Ns2Format::New), pcap: Some(PcapMode::Merged) }
    );
    assert_eq!(
        opts("trace = [\"pcap\"]\npcap = \"per-node\""),
        TraceOptions { ns2: None, pcap: Some(PcapMode::PerNode) }
    );
    // An override switches tracing on.
    let sc = Scenario::parse(BASE, "t.toml", &["output.trace=[\"pcap\", \"ns2-old\"]"]).unwrap();
    assert_eq!(sc.trace, TraceOptions { ns2: Some(Ns2Format::Old), pcap: Some(PcapMode::Merged) });
}

#[test]
fn trace_option_errors_point_at_the_value() {
    let case = |extra: &str, needle: &str, kind: ErrorKind, words: &[&str]| {
        let text = format!("{BASE}\n[output]\n{extra}\n");
        let e = err(&text);
        assert_at(&e, kind, pos(&text, needle, 0), words);
    };
    case("trace = [\"ns3\"]", "\"ns3\"", ErrorKind::BadValue, &["output.trace.0", "ns2, ns2-new, ns2-old, pcap"]);
    case("trace = [\"pcap\", \"pcap\"]", "\"pcap\"]", ErrorKind::Inconsistent, &["twice"]);
    case("trace = [\"ns2\", \"ns2-old\"]", "\"ns2-old\"", ErrorKind::Inconsistent, &["two ns-2 formats"]);
    case("trace = [\"ns2\"]\npcap = \"merged\"", "\"merged\"", ErrorKind::Inconsistent, &["output.pcap", "pcap"]);
    case("trace = [\"pcap\"]\npcap = \"both\"", "\"both\"", ErrorKind::BadValue, &["merged, per-node"]);
    case("trace = \"ns2\"", "\"ns2\"", ErrorKind::WrongType, &["output.trace"]);
}

// ---------------------------------------------------------------------------
// AODV and node events

const AODV: &str = r#"
[routing]
protocol = "aodv"
link_detection = "hello"
hello_interval = "2s"
allowed_hello_loss = 3
active_route_timeout = "5s"
node_traversal_time = "30ms"
net_diameter = 20
ttl_start = 2
ttl_increment = 3
ttl_threshold = 8
rreq_retries = 4
rreq_ratelimit = 5
rerr_ratelimit = 6
local_repair = true
gratuitous_rrep = true
dest_only = true
buffer_size = 32
buffer_timeout = "10s"
jitter = "5ms"
ns2_quirks = true

[[event]]
node = 1
at = "5s"
action = "radio-off"

[[event]]
node = 1
at = "8s"
action = "Radio-On"
"#;

#[test]
fn dsr_keys_parse_and_are_checked() {
    use crate::net::routing::DsrConfig;
    let text = format!(
        "{BASE}\n[routing]\nprotocol = \"dsr\"\ncache_replies = false\nsalvage = false\nmax_salvage = 3\nsalvage_requests = 2\nbuffer_check = false\nsnoop = false\nsnoop_control = true\nring_zero = false\npropagate_last_error = false\nnonprop_timeout = \"20ms\"\nrequest_period = \"1s\"\nrequest_backoff_max = \"4s\"\nrequest_backoff_factor = 2\nrequest_backoff_persists = false\nlearn_at_destination = true\nsend_buffer = 10\nsend_buffer_timeout = \"5s\"\ncache_size = 8\ncache_timeout = \"60s\"\njitter = \"0s\"\nflow_state = false\ngrat_replies = false\n"
    );
    let c = parse(&text).unwrap_or_else(|e| panic!("{e}")).config(1);
    let want = DsrConfig {
        cache_replies: false,
        salvage: false,
        max_salvage: 3,
        salvage_requests: 2,
        buffer_check: false,
        snoop: false,
        snoop_control: true,
        ring_zero: false,
        propagate_last_error: false,
        nonprop_timeout: Time::from_ms(20),
        request_period: Time::from_secs(1),
        request_backoff_max: Time::from_secs(4),
        request_backoff_factor: 2,
        request_backoff_persists: false,
        learn_at_destination: true,
        send_buffer: 10,
        send_buffer_timeout: Time::from_secs(5),
        cache: Default::default(),
        cache_size: 8,
        cache_timeout: Some(Time::from_secs(60)),
        jitter: Time::ZERO,
        flow_state: false,
        grat_replies: false,
    };
    assert_eq!(c.routing, RoutingConfig::Dsr(want));
    let c = parse(&format!("{BASE}\n[routing]\nprotocol = \"DSR\"\n")).unwrap().config(1);
    assert_eq!(c.routing, RoutingConfig::Dsr(DsrConfig::default()));
    let bad = |extra: &str| {
        let t = format!("{BASE}\n[routing]\nprotocol = \"dsr\"\n{extra}\n");
        parse(&t).err().unwrap_or_else(|| panic!("{extra} accepted")).to_string()
    };
    assert!(bad("link_detection = \"mac\"").contains("not used by protocol = \"dsr\""));
    assert!(bad("paths = []").contains("not used by protocol = \"dsr\""));
    assert!(bad("request_period = \"0s\"").contains("greater than zero"));
    assert!(bad("request_period = \"20s\"").contains("must not be less than"));
    assert!(bad("max_salvage = 300").contains("from 0 to 255"));
    assert!(bad("salvage_requests = 16").contains("from 0 to 15"));
    assert!(bad("cache_size = 0").contains("from 1 to"));
    assert!(bad("cache = \"mobicache\"\ncache_size = 30").contains("has no effect with cache = \"mobicache\""));
    assert!(bad("cache = \"link\"").contains("mobicache"));
    let c = parse(&format!("{BASE}\n[routing]\nprotocol = \"dsr\"\ncache = \"mobicache\"\n")).unwrap().config(1);
    let RoutingConfig::Dsr(d) = c.routing else { panic!() };
    assert_eq!(d.cache, crate::net::routing::dsr::CacheKind::Mobicache);
    let t = format!("{BASE}\n[routing]\nprotocol = \"aodv\"\nsalvage = true\n");
    assert!(parse(&t).is_err());
}

#[test]
fn aodv_keys_and_events_parse() {
    use crate::config::{NodeAction, NodeEvent};
    use crate::net::routing::{AodvConfig, LinkDetection};
    let c = parse(&format!("{BASE}{AODV}")).unwrap_or_else(|e| panic!("{e}")).config(1);
    let want = AodvConfig {
        link_detection: LinkDetection::Hello,
        hello_interval: Time::from_secs(2),
        allowed_hello_loss: 3,
        active_route_timeout: Time::from_secs(5),
        node_traversal_time: Time::from_ms(30),
        net_diameter: 20,
        ttl_start: 2,
        ttl_increment: 3,
        ttl_threshold: 8,
        rreq_retries: 4,
        rreq_ratelimit: 5,
        rerr_ratelimit: 6,
        local_repair: true,
        gratuitous_rrep: true,
        dest_only: true,
        buffer_size: 32,
        buffer_timeout: Time::from_secs(10),
        jitter: Time::from_ms(5),
        ns2_quirks: true,
        // not given: follows ns2_quirks
        rreq_timing: crate::net::routing::aodv::RreqTiming::Ns2,
    };
    assert_eq!(c.routing, RoutingConfig::Aodv(want));
    assert_eq!(
        c.node_events,
        vec![
            NodeEvent { node: 1, at: Time::from_secs(5), action: NodeAction::RadioOff },
            NodeEvent { node: 1, at: Time::from_secs(8), action: NodeAction::RadioOn },
        ]
    );
    // Just the protocol: RFC defaults.
    let c = parse(&format!("{BASE}\n[routing]\nprotocol = \"AODV\"\n")).unwrap().config(1);
    assert_eq!(c.routing, RoutingConfig::Aodv(AodvConfig::default()));
    // Overrides reach the new keys.
    let text = format!("{BASE}\n[routing]\nprotocol = \"aodv\"\n");
    let sc = Scenario::parse(&text, "t.toml", &["routing.link_detection=mac", "routing.buffer_size=8"]).unwrap();
    match sc.config(1).routing {
        RoutingConfig::Aodv(a) => assert_eq!((a.link_detection, a.buffer_size), (LinkDetection::Mac, 8)),
        r => panic!("{r:?}"),
    }
    // rreq_timing follows ns2_quirks unless given.
    use crate::net::routing::aodv::RreqTiming;
    let timing = |sets: &[&str]| match Scenario::parse(&text, "t.toml", sets).unwrap().config(1).routing {
        RoutingConfig::Aodv(a) => a.rreq_timing,
        r => panic!("{r:?}"),
    };
    assert_eq!(timing(&[]), RreqTiming::Rfc);
    assert_eq!(timing(&["routing.ns2_quirks=true"]), RreqTiming::Ns2);
    assert_eq!(timing(&["routing.ns2_quirks=true", "routing.rreq_timing=rfc"]), RreqTiming::Rfc);
    assert_eq!(timing(&["routing.rreq_timing=ns2"]), RreqTiming::Ns2);
    assert!(Scenario::parse(&text, "t.toml", &["routing.rreq_timing=fast"]).is_err());
}

#[test]
fn aodv_and_static_keys_do_not_mix() {
    // An AODV key under static routing (explicit or by default).
    let t = format!("{BASE}\n[routing]\nhello_interval = \"1s\"\n");
    assert_at(
        &err(&t),
        ErrorKind::Inconsistent,
        pos(&t, "\"1s\"", 0),
        &["'routing.hello_interval' is not used by protocol = \"static\"", "it uses: paths"],
    );
    // A static key under AODV.
    let t = format!("{BASE}\n[routing]\nprotocol = \"aodv\"\npaths = [[2, 1, 0]]\n");
    assert_at(
        &err(&t),
        ErrorKind::Inconsistent,
        pos(&t, "[[2, 1, 0]]", 0),
        &["'routing.paths' is not used by protocol = \"aodv\"", "link_detection"],
    );
    // Even an empty list of paths.
    let t = format!("{BASE}\n[routing]\nprotocol = \"aodv\"\npaths = []\n");
    assert_at(&err(&t), ErrorKind::Inconsistent, pos(&t, "[]", 0), &["'routing.paths'"]);
    // HELLO settings without HELLOs.
    let t = format!("{BASE}\n[routing]\nprotocol = \"aodv\"\nlink_detection = \"mac\"\nallowed_hello_loss = 7\n");
    assert_at(&err(&t), ErrorKind::Inconsistent, pos(&t, "7\n", 0), &["no effect", "link_detection = \"mac\""]);
    // Unknown keys are located, with a suggestion.
    let t = format!("{BASE}\n[routing]\nprotocol = \"aodv\"\nhello_intervall = \"1s\"\n");
    assert_at(&err(&t), ErrorKind::UnknownKey, pos(&t, "hello_intervall", 0), &["did you mean 'hello_interval'"]);
}

#[test]
fn aodv_values_are_checked() {
    let a = |extra: &str| format!("{BASE}\n[routing]\nprotocol = \"aodv\"\n{extra}\n");
    let t = a("link_detection = \"ack\"");
    assert_at(&err(&t), ErrorKind::BadValue, pos(&t, "\"ack\"", 0), &["hello, mac, both"]);
    let t = a("hello_interval = \"0s\"");
    assert_at(&err(&t), ErrorKind::OutOfRange, pos(&t, "\"0s\"", 0), &["'routing.hello_interval' must be greater"]);
    let t = a("net_diameter = 300");
    assert_at(&err(&t), ErrorKind::OutOfRange, pos(&t, "300", 0), &["from 1 to 255"]);
    let t = a("allowed_hello_loss = 0");
    let (line, col) = pos(&t, "allowed_hello_loss = 0", 0);
    assert_at(&err(&t), ErrorKind::OutOfRange, (line, col + 21), &["'routing.allowed_hello_loss'"]);
    let t = a("net_diameter = 5\nttl_start = 7");
    assert_at(&err(&t), ErrorKind::Inconsistent, pos(&t, "7", 0), &["must not exceed 'routing.net_diameter' (5)"]);
    let t = a("buffer_timeout = \"10\"");
    assert_at(&err(&t), ErrorKind::BadValue, pos(&t, "\"10\"", 0), &["'routing.buffer_timeout'"]);
    let t = a("local_repair = \"yes\"");
    assert_at(&err(&t), ErrorKind::WrongType, pos(&t, "\"yes\"", 0), &["true or false"]);
}

#[test]
fn events_are_checked() {
    let t = format!("{BASE}\n[[event]]\nnode = 3\nat = \"1s\"\naction = \"radio-off\"\n");
    assert_at(&err(&t), ErrorKind::OutOfRange, pos(&t, "3\nat", 0), &["'event.0.node' = 3 is not a node"]);
    let t = format!("{BASE}\n[[event]]\nnode = 1\nat = \"10s\"\naction = \"radio-off\"\n");
    assert_at(&err(&t), ErrorKind::Inconsistent, pos(&t, "\"10s\"", 1), &["'event.0.at'", "not before the end"]);
    let t = format!("{BASE}\n[[event]]\nnode = 1\nat = \"1s\"\naction = \"explode\"\n");
    assert_at(&err(&t), ErrorKind::BadValue, pos(&t, "\"explode\"", 0), &["radio-off, radio-on"]);
    let t = format!("{BASE}\n[[event]]\nnode = 1\nat = \"1s\"\n");
    let e = err(&t);
    assert_eq!(e.kind(), ErrorKind::MissingKey, "{e}");
    assert!(e.message().contains("'action' in [[event]] #0"), "{e}");
    let t = format!("{BASE}\n[[event]]\nnode = 1\nat = \"1s\"\naction = \"radio-off\"\nwhen = 2\n");
    assert_at(&err(&t), ErrorKind::UnknownKey, pos(&t, "when", 0), &["[[event]] #0", "node, at, action"]);
}

#[test]
fn sweep_table_gives_axes_and_its_errors_point_at_the_value() {
    let text = "[run]\nduration = \"10s\"\n[topology]\nkind = \"chain\"\nnodes = 3\nspacing = \"200m\"\n\
                [sweep]\n\"mac.rts_threshold\" = [0, 3000]\n\"run.duration\" = { from = \"10s\", to = \"30s\", step = \"10s\" }\n";
    let s = parse(text).unwrap();
    assert_eq!(s.sweep.len(), 2);
    assert_eq!(s.sweep[0].key, "mac.rts_threshold");
    assert_eq!(s.sweep[0].values, ["0", "3000"]);
    assert_eq!(s.sweep[1].values, ["10s", "20s", "30s"]);
    let bad = text.replace("step = \"10s\"", "step = \"0s\"");
    let e = err(&bad);
    assert_at(&e, ErrorKind::BadValue, pos(&bad, "{ from", 0), &["run.duration", "positive"]);
}

#[test]
fn fair_queue_backpressure_and_tdma_keys() {
    use crate::queue::{BackpressureConfig, ClassKey, Knowledge, QueueKind};
    let t = format!(
        "{BASE}\n[queue]\nkind = \"fair\"\nkey = \"prev-hop\"\nquantum = 1500\nclass_limit = 10\n\
         [queue.backpressure]\nthreshold = 2\nkey = \"dst\"\nknowledge = \"overhear\"\nstale = \"50ms\"\nudp_only = true\n\
         [mac]\nprotocol = \"tdma\"\ntdma_guard = \"30us\"\n"
    );
    let c = parse(&t).unwrap().config(1);
    assert_eq!(c.queue.kind, QueueKind::Fair { key: ClassKey::PrevHop, quantum: Some(1500), class_limit: 10 });
    assert_eq!(
        c.queue.backpressure,
        Some(BackpressureConfig {
            threshold: 2,
            key: ClassKey::Dst,
            knowledge: Knowledge::Overhear,
            stale: Time::from_ms(50),
            udp_only: true
        })
    );
    assert_eq!(c.mac.kind, crate::mac::MacKind::Tdma { max_packet: 1500, guard: Time::from_us(30) });
    // Fair-queueing keys with drop-tail, TDMA keys with the DCF, a stale
    // time with the oracle: errors at the key.
    let t = format!("{BASE}\n[queue]\nquantum = 1500\n");
    assert_at(&err(&t), ErrorKind::Inconsistent, pos(&t, "1500", 0), &["'queue.quantum' is not used by kind"]);
    let t = format!("{BASE}\n[mac]\ntdma_guard = \"30us\"\n");
    assert_at(&err(&t), ErrorKind::Inconsistent, pos(&t, "\"30us\"", 0), &["'mac.tdma_guard' is not used"]);
    let t = format!("{BASE}\n[queue.backpressure]\nstale = \"5ms\"\n");
    assert_at(&err(&t), ErrorKind::Inconsistent, pos(&t, "\"5ms\"", 0), &["'queue.backpressure.stale'"]);
    let t = format!("{BASE}\n[queue.backpressure]\nkey = \"next-hop\"\n");
    assert!(err(&t).to_string().contains("expected one of: src, dst, flow"), "{}", err(&t));
}

#[test]
fn dsdv_and_olsr_keys_parse_and_are_checked() {
    use crate::net::routing::{DsdvConfig, OlsrConfig};
    let text = format!(
        "{BASE}\n[routing]\nprotocol = \"dsdv\"\nupdate_interval = \"10s\"\nsettling_time = \"3s\"\nmac_feedback = false\nbuffer_size = 0\nbuffer_timeout = \"5s\"\n"
    );
    let c = parse(&text).unwrap_or_else(|e| panic!("{e}")).config(1);
    let want = DsdvConfig {
        update_interval: Time::from_secs(10),
        settling_time: Time::from_secs(3),
        mac_feedback: false,
        buffer_size: 0,
        buffer_timeout: Time::from_secs(5),
        ..DsdvConfig::default()
    };
    assert_eq!(c.routing, RoutingConfig::Dsdv(want));
    let text = format!(
        "{BASE}\n[routing]\nprotocol = \"olsr\"\nhello_interval = \"1s\"\ntc_interval = \"4s\"\nwillingness = 7\n"
    );
    let c = parse(&text).unwrap_or_else(|e| panic!("{e}")).config(1);
    let want = OlsrConfig { hello_interval: Time::from_secs(1), tc_interval: Time::from_secs(4), willingness: 7 };
    assert_eq!(c.routing, RoutingConfig::Olsr(want));
    let c = parse(&format!("{BASE}\n[routing]\nprotocol = \"OLSR\"\n")).unwrap().config(1);
    assert_eq!(c.routing, RoutingConfig::Olsr(OlsrConfig::default()));
    let bad = |p: &str, extra: &str| {
        let t = format!("{BASE}\n[routing]\nprotocol = \"{p}\"\n{extra}\n");
        parse(&t).err().unwrap_or_else(|| panic!("{extra} accepted")).to_string()
    };
    assert!(bad("olsr", "update_interval = \"1s\"").contains("not used by protocol = \"olsr\""));
    assert!(bad("dsdv", "tc_interval = \"1s\"").contains("not used by protocol = \"dsdv\""));
    assert!(bad("aodv", "mac_feedback = true").contains("not used by protocol = \"aodv\""));
    assert!(bad("olsr", "willingness = 8").contains("from 0 to 7"));
    assert!(bad("dsdv", "update_interval = \"0s\"").contains("greater than zero"));
}

#[test]
fn a_dotted_key_under_a_value_is_named_plainly() {
    let text = format!("{BASE}\n[queue]\nlimit .a = 50\n");
    let e = err(&text).to_string();
    assert!(e.contains("wrong type for 'queue.limit': expected a single value, got a table"), "{e}");
    assert!(!e.contains("expected a string, got string"), "{e}");
}
