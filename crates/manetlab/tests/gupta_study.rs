//! The `gupta` study in quick mode (issue 7 acceptance): on TCP goodput,
//! default 802.11 < retry (21,12) < fair queueing by IP source, and
//! backpressure >= fair queueing; UDP sources under backpressure inject a
//! fraction of what they inject with fair queueing alone; TDMA with FIFO
//! queues stays well below its initial goodput and fair queueing helps it.
//!
//! The paper's FQ-src < FQ-dst step is reported, not asserted: it is within
//! seed noise here. FQ-dst leads by 5.5 points over 20 seeds of 30 s (75.9
//! vs 70.4% of initial, per-seed spread about +-15) and by 1.5 points over
//! 16 seeds of 150 s (45.0 vs 43.5%, standard error of the difference
//! 2.7); the quick mode's 3 seeds give 71.5 vs 70.8% the other way. The
//! paper's reason (the server's ACKs, one IP-source class, share the
//! server with two UDP classes) needs UDP in the server's queue, and AODV
//! routes the UDP flows around the TCP-loaded centre in most runs; where
//! UDP does cross the server, FQ-src loses goodput and FQ-dst does not
//! (docs/backpressure.md, "Diagnosis").

use manetlab::study::{self, StudyOptions};

#[test]
fn quick_study_ordering() {
    let dir = std::env::temp_dir().join(format!("manetlab-gupta-{}", std::process::id()));
    let mut opts = StudyOptions::new(&dir);
    opts.quick = true;
    let t = std::time::Instant::now();
    let out = study::run("gupta", &opts, &|_, _| {}).unwrap();
    println!("{}", out.markdown);
    println!("quick gupta: {} runs, {:.1} s", out.runs, t.elapsed().as_secs_f64());
    let check = |prefix: &str| {
        out.checks.iter().find(|c| c.what.contains(prefix)).unwrap_or_else(|| panic!("no check {prefix}"))
    };
    for what in [
        "802.11 (7,4) < 802.11 (21,12)",
        "802.11 (21,12) < FQ src",
        "FQ src <= BP src k=1 oracle",
        "inject far less",
        "TDMA: a fair MAC alone is insufficient",
        "audit balances",
    ] {
        let c = check(what);
        assert!(c.passed, "{}: {}", c.what, c.detail);
    }
    // Reported either way.
    check("FQ src < FQ dst");
    assert!(dir.join("report.md").exists() && dir.join("fig2_clients.csv").exists());
    std::fs::remove_dir_all(&dir).ok();
}
