//! The `zaini` study (tfrc-tcp-aodv-dsr.txt) in quick mode: every table is
//! produced with the paper's numbers beside ours, and the measured flows
//! behave as configured.

use manetlab::study::StudyOptions;
use manetlab_studies as study;

#[test]
fn quick_study_produces_every_table() {
    let dir = std::env::temp_dir().join(format!("manetlab-zaini-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = StudyOptions { quick: true, ..StudyOptions::new(&dir) };
    let t0 = std::time::Instant::now();
    let out = study::run("zaini", &opts, &|_, _| {}).unwrap();
    println!("{}\n({:.1} s wall)", out.markdown, t0.elapsed().as_secs_f64());
    for n in 2..=7 {
        assert!(out.markdown.contains(&format!("## Table {n}:")), "table {n} missing");
        assert!(dir.join(format!("table{n}.csv")).exists());
    }
    // The paper's numbers are beside ours (one value from each table).
    for v in ["192.9", "10.76", "206.6", "858.78", "1118.8", "557.79"] {
        assert!(out.markdown.contains(v), "{v}");
    }
    assert_eq!(out.checks.len(), 5);
    assert_eq!(out.runs, 2 * 2 * 4);
    // TCP carries a 0.01 Mbit/s application: what it delivers cannot
    // exceed that (payload over the flow's 55 s, after the 5 s warm-up).
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    let tables = json["tables"].as_array().unwrap();
    let tcp = tables.iter().find(|t| t["table"] == 3).unwrap();
    let tfrc = tables.iter().find(|t| t["table"] == 2).unwrap();
    let mut tcp_sum = 0.0;
    let mut tfrc_sum = 0.0;
    for (a, b) in tcp["rows"].as_array().unwrap().iter().zip(tfrc["rows"].as_array().unwrap()) {
        for p in ["aodv", "dsr"] {
            let x = a[p]["mean"].as_f64().unwrap();
            assert!(x <= 10.0 * 1.02, "TCP {x} kbit/s above its application's rate");
            tcp_sum += x;
            tfrc_sum += b[p]["mean"].as_f64().unwrap();
        }
    }
    assert!(tcp_sum > 0.0 && tfrc_sum > 0.0);
    let _ = std::fs::remove_dir_all(&dir);
}
