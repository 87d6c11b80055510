//! The `gupta` study in quick mode (issue 7 acceptance): on TCP goodput,
//! default 802.11 < retry (21,12) < fair queueing by IP source, and
//! backpressure >= fair queueing; UDP sources under backpressure inject a
//! fraction of what they inject with fair queueing alone; TDMA with FIFO
//! queues stays well below its initial goodput and fair queueing helps it.
//!
//! The paper's FQ-src < FQ-dst step with AODV routes is reported, not
//! asserted: it is within seed noise there. FQ-dst leads by 5.5 points over
//! 20 seeds of 30 s (75.9 vs 70.4% of initial, per-seed spread about +-15)
//! and by 1.5 points over 16 seeds of 150 s (45.0 vs 43.5%, standard error
//! of the difference 2.7). The paper's reason (the server's ACKs, one
//! IP-source class, share the server with two UDP classes) needs UDP in the
//! server's queue, and AODV routes the UDP flows around the TCP-loaded
//! centre in most runs (docs/backpressure.md, "Diagnosis").
//!
//! With the routes pinned so that both UDP flows cross the server ("UDP
//! through the server", static routes) the step is asserted: FQ-dst led
//! FQ-src in every seed measured, case 1: 61.4 vs 52.9% (16 seeds of 30 s,
//! 16 of 16), 58.7 vs 48.8% (10 seeds of 150 s, 10 of 10); case 2: 59.5 vs
//! 50.0% (10 seeds of 30 s, 10 of 10). The quick mode's 3 seeds: 62.1 vs
//! 52.3% (`examples/gupta_pinned.rs`, docs/backpressure.md). This is for
//! the variant's client paths (corner clients on diagonals): with the
//! static tables' tie-rule paths, which run the corner clients along the
//! edges and then down the UDP arms (three clients on the upper one),
//! FQ-src leads instead (58.7 vs 53.5%, 9 of 10 seeds).

use manetlab::study::StudyOptions;
use manetlab_studies as study;

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
    let c = check("with UDP through the server (pinned routes), FQ src < FQ dst");
    assert!(c.passed, "{}: {}", c.what, c.detail);
    // Reported either way (AODV routes).
    check("paper ordering: FQ src < FQ dst");
    assert!(dir.join("report.md").exists() && dir.join("fig2_clients.csv").exists());
    std::fs::remove_dir_all(&dir).ok();
}
