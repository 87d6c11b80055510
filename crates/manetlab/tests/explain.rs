//! `manetlab explain` (exec/explain.rs) on a short TCP chain: ns2 vs ns3.

use manetlab::exec::explain::explain;
use manetlab::scenario::Profile;

const CHAIN: &str = r#"
[run]
duration = "15s"
warmup = "5s"
[topology]
kind = "chain"
nodes = 2
spacing = "40m"
[mac]
data_rate = "2Mbps"
basic_rate = "2Mbps"
[[flow]]
src = 0
dst = 1
type = "tcp"
start = "1s"
"#;

#[test]
fn explain_attributes_the_ns2_ns3_difference_of_a_tcp_chain_to_named_choices() {
    let dir = std::env::temp_dir().join(format!("manetlab-explain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("chain.toml");
    std::fs::write(&file, CHAIN).unwrap();
    let ex = explain(&file, &[] as &[&str], Profile::Ns2, Profile::Ns3, &[1], 4, 6).unwrap();
    let (a, b) = (ex.base_a.values[0][0].unwrap(), ex.base_b.values[0][0].unwrap());
    // ns2 (1460 B, RTS/CTS, threshold) vs ns3 (536 B segments, delayed ACKs, no RTS, SINR).
    assert!(a > 1200.0 && b < a * 0.95, "ns2 {a:.1} vs ns3 {b:.1} kbit/s");
    // Rows that cannot change this run are left out: no routing protocol rows.
    assert!(!ex.choices.contains(&"aodv"), "{:?}", ex.choices);
    for id in ["tcp-mss", "rts", "reception", "propagation"] {
        assert!(ex.choices.contains(&id), "{id} missing from {:?}", ex.choices);
    }
    // >= 90 % of the goodput difference is attributed to named choices ...
    let att = ex.attributed(0, 0).unwrap();
    assert!(att >= 0.9, "attributed {att:.3}");
    // ... and the split is settled enough to name the main one: the segment
    // size costs most, its interval clear of zero and of every other row.
    let rows = ex.attributions(0, 0);
    let mss = rows.iter().find(|x| x.choice == "tcp-mss").unwrap();
    let (v, ci) = (mss.shapley.unwrap(), mss.shapley_ci95.unwrap());
    assert!(v < -200.0 && v + ci < 0.0, "tcp-mss {v:.1} ± {ci:.1}");
    for x in &rows {
        if x.choice != "tcp-mss" {
            assert!(x.shapley.unwrap().abs() < v.abs(), "{} {:?} vs tcp-mss {v:.1}", x.choice, x.shapley);
        }
    }
    // The waterfall ends at B and the files are written.
    assert_eq!(ex.cumulative.last().unwrap().values, ex.base_b.values);
    let files = ex.write(&dir.join("out")).unwrap();
    let md = std::fs::read_to_string(dir.join("out/explain.md")).unwrap();
    assert!(md.contains("| tcp-mss |"), "{md}");
    assert!(files.iter().any(|f| f.extension().is_some_and(|e| e == "svg")));
    let csv = std::fs::read_to_string(dir.join("out/explain.csv")).unwrap();
    assert!(csv.starts_with("flow,metric,row,ns2,ns3,total,first,last,share,waterfall,shapley,shapley_ci95,attributed"));
    let _ = std::fs::remove_dir_all(&dir);
}
