//! Time series (`[output] interval`, `timeseries.csv`): the per-interval
//! values add up to the run totals of flows.csv and network.csv, undefined
//! values are empty, node values are in range, and recording changes
//! nothing else in the run.

use manetlab::output::{run_tables, Table, Value};
use manetlab::scenario::Scenario;
use manetlab::Simulation;
use std::collections::BTreeMap;

/// AODV over a diamond whose middle nodes switch off for 5 s (drops,
/// routing traffic, a queue), a flow to a node out of everyone's range
/// (nothing delivered), a 2 s warm-up and an interval that does not divide
/// the measured 18 s (the last interval is 2 s).
const SCENARIO: &str = r#"
[run]
duration = "20s"
warmup = "2s"
seed = 3
replications = 2
[topology]
kind = "explicit"
positions = [[0, 0], [200, 0], [400, 100], [400, -100], [600, 0], [5000, 0]]
[routing]
protocol = "aodv"
[[flow]]
name = "cbr, \"main\""
src = 0
dst = 4
type = "cbr"
packet_size = "512B"
interval = "20ms"
start = "1s"
[[flow]]
name = "dead"
src = 1
dst = 5
type = "cbr"
packet_size = "512B"
interval = "200ms"
start = "1s"
[[event]]
node = 2
at = "8s"
action = "radio-off"
[[event]]
node = 3
at = "8s"
action = "radio-off"
[[event]]
node = 2
at = "13s"
action = "radio-on"
[[event]]
node = 3
at = "13s"
action = "radio-on"
[output]
interval = "4s"
"#;

fn col(t: &Table, name: &str) -> usize {
    t.index(name).unwrap_or_else(|| panic!("{} has no column {name}", t.name))
}

fn num(v: &Value) -> f64 {
    v.as_f64().expect("a number")
}

#[test]
fn interval_sums_equal_run_totals_and_undefined_is_empty() {
    let sc = Scenario::from_str(SCENARIO, "ts.toml").unwrap();
    let reports: Vec<_> = sc.seeds().map(|s| Simulation::new(sc.config(s)).unwrap().run()).collect();
    let tables = run_tables(&reports);
    let ts = tables.iter().find(|t| t.name == "timeseries").expect("timeseries table written when asked");
    let flows = &tables[0];
    let net = tables.iter().find(|t| t.name == "network").unwrap();
    let (rep, start, end, scope, id, metric, value) = (
        col(ts, "replication"),
        col(ts, "start_s"),
        col(ts, "end_s"),
        col(ts, "scope"),
        col(ts, "id"),
        col(ts, "metric"),
        col(ts, "value"),
    );
    // 5 intervals (4 of 4 s, the last 2 s) x (2 flows x 7 + 6 nodes x 4)
    // metrics x 2 replications.
    assert_eq!(ts.rows.len(), 5 * (2 * 7 + 6 * 4) * 2);
    let starts: std::collections::BTreeSet<String> = ts.rows.iter().map(|r| r[start].to_field()).collect();
    assert_eq!(starts.into_iter().collect::<Vec<_>>(), ["10", "14", "18", "2", "6"]);
    assert!(ts.rows.iter().any(|r| r[start] == Value::F64(18.0) && r[end] == Value::F64(20.0)));

    let mut sums: BTreeMap<(u64, String, u64, String), f64> = BTreeMap::new();
    let mut weighted_delay: BTreeMap<(u64, u64), f64> = BTreeMap::new();
    let mut received: BTreeMap<(u64, u64, String), f64> = BTreeMap::new();
    for r in &ts.rows {
        let key = (num(&r[rep]) as u64, r[scope].to_field(), num(&r[id]) as u64, r[metric].to_field());
        if r[metric].to_field() == "received_packets" {
            received.insert((key.0, key.2, r[start].to_field()), num(&r[value]));
        }
        match &r[value] {
            Value::Null => {
                // Only the mean delay of an interval without deliveries is undefined.
                assert_eq!(key.3, "delay_mean_s", "{r:?}");
            }
            v => *sums.entry(key).or_default() += num(v),
        }
    }
    for r in &ts.rows {
        if r[metric].to_field() == "delay_mean_s" {
            let k = (num(&r[rep]) as u64, num(&r[id]) as u64);
            let n = received[&(k.0, k.1, r[start].to_field())];
            assert_eq!(r[value] == Value::Null, n == 0.0, "empty exactly when nothing was received: {r:?}");
            if let Value::F64(d) = r[value] {
                *weighted_delay.entry(k).or_default() += d * n;
            }
        }
    }
    let fid = col(flows, "flow_id");
    let frep = col(flows, "replication");
    let mut checked = 0;
    for f in &flows.rows {
        let (k, i) = (num(&f[frep]) as u64, num(&f[fid]) as u64);
        for m in ["sent_packets", "sent_bytes", "received_packets", "received_bytes", "dropped_packets"] {
            let total = num(&f[col(flows, m)]);
            let got = sums.get(&(k, "flow".into(), i, m.into())).copied().unwrap_or(0.0);
            assert_eq!(got, total, "replication {k} flow {i} {m}: intervals sum to {got}, flows.csv says {total}");
            checked += 1;
        }
        // The packet-weighted interval means give the run's mean delay.
        match f[col(flows, "delay_mean_s")] {
            Value::F64(d) => {
                let n = num(&f[col(flows, "received_packets")]);
                let w = weighted_delay[&(k, i)] / n;
                assert!((w - d).abs() < 1e-9 * d.max(1.0), "flow {i}: {w} vs {d}");
            }
            _ => assert!(!weighted_delay.contains_key(&(k, i)), "a dead flow has no delay in any interval"),
        }
    }
    assert_eq!(checked, 2 * 2 * 5);
    // The main flow delivered and lost packets; the dead flow sent and
    // delivered nothing.
    let got0 = sums[&(0, "flow".into(), 0, "received_packets".into())];
    println!("main flow: {got0} received of {}", sums[&(0, "flow".into(), 0, "sent_packets".into())]);
    assert!(got0 > 300.0, "{got0}");
    assert!(sums[&(0, "flow".into(), 0, "dropped_packets".into())] > 0.0);
    assert!(sums[&(0, "flow".into(), 1, "sent_packets".into())] > 50.0);
    assert_eq!(sums.get(&(0, "flow".into(), 1, "received_packets".into())), Some(&0.0));
    // Routing packets per node and interval: network.csv counts the whole
    // run, the series from the warm-up on (equality without warm-up below).
    for n in &net.rows {
        let k = num(&n[col(net, "replication")]) as u64;
        let total = num(&n[col(net, "routing_packets")]);
        let got: f64 = sums.iter().filter(|(key, _)| key.0 == k && key.3 == "routing_packets").map(|(_, v)| v).sum();
        assert!(got > 0.0 && got < total, "replication {k}: {got} routing packets after the warm-up of {total}");
    }
    // Node values are in range, and the relay nodes were busy and queued.
    let mut max_busy: f64 = 0.0;
    let mut max_q: f64 = 0.0;
    for r in &ts.rows {
        let v = r[value].as_f64();
        match r[metric].to_field().as_str() {
            "mac_busy_fraction" => {
                let b = v.unwrap();
                assert!((0.0..=1.0 + 1e-12).contains(&b), "{r:?}");
                max_busy = max_busy.max(b);
            }
            "queue_mean_packets" => {
                let max = ts
                    .rows
                    .iter()
                    .find(|o| {
                        o[rep] == r[rep]
                            && o[start] == r[start]
                            && o[id] == r[id]
                            && o[scope] == r[scope]
                            && o[metric].to_field() == "queue_max_packets"
                    })
                    .and_then(|o| o[value].as_f64())
                    .unwrap();
                assert!(v.unwrap() <= max + 1e-12, "mean above max: {r:?}");
                max_q = max_q.max(max);
            }
            _ => {}
        }
    }
    // 512-B packets every 20 ms at 2 Mbit/s over 4 hops keep the medium
    // busy well over 5% of the time around the relays.
    assert!(max_busy > 0.05 && max_busy < 1.0, "busiest node-interval {max_busy}");
    assert!(max_q >= 1.0, "a queue held packets at some point");
}

#[test]
fn recording_a_time_series_changes_nothing_else() {
    let with = Scenario::from_str(SCENARIO, "ts.toml").unwrap();
    let without = Scenario::from_str(&SCENARIO.replace("interval = \"4s\"", ""), "ts.toml").unwrap();
    let a = Simulation::new(with.config(3)).unwrap().run();
    let mut b = Simulation::new(without.config(3)).unwrap().run();
    assert!(b.timeseries.is_none());
    // Without a warm-up the routing packets of the series add up to
    // network.csv's.
    let no_warmup = Scenario::from_str(&SCENARIO.replace("warmup = \"2s\"", ""), "ts.toml").unwrap();
    let r = Simulation::new(no_warmup.config(3)).unwrap().run();
    let s = r.timeseries.as_ref().unwrap();
    assert_eq!(s.len(), 5, "0-4-8-12-16-20 s");
    let per_node: u64 = s.nodes.iter().flat_map(|n| n.routing_packets.iter()).sum();
    assert_eq!(per_node, r.routing.sent_total().packets);
    assert!(a.timeseries.is_some());
    b.timeseries = a.timeseries.clone();
    assert_eq!(a, b);
    // And no file without it.
    b.timeseries = None;
    assert!(run_tables(&[b]).iter().all(|t| t.name != "timeseries"));
}
