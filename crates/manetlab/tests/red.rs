//! RED (`queue/red.rs`) selected by `[queue] kind = "red"` through the
//! queue-discipline registry: its keys are parsed beside it, refused for
//! other disciplines, and in a run it holds a saturated source's queue
//! near its thresholds where drop-tail fills the whole buffer, which cuts
//! the queueing delay at the same throughput.

use manetlab::queue::red::RedParams;
use manetlab::queue::QueueKind;
use manetlab::scenario::Scenario;
use manetlab::Simulation;

fn scenario(queue: &str) -> String {
    format!(
        r#"
[run]
duration = "20s"
seed = 5

[topology]
kind = "chain"
nodes = 3
spacing = "200m"

[queue]
{queue}

[[flow]]
src = 0
dst = 2
type = "cbr"
rate = "3Mbps"
packet_size = "1000B"
"#
    )
}

#[test]
fn red_keys_are_parsed_beside_the_model_and_refused_elsewhere() {
    let s = Scenario::from_str(
        &scenario("kind = \"red\"\nmin_thresh = 3\nmax_thresh = 9\nweight = 0.01\ngentle = true"),
        "r",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let cfg = s.config(s.seed());
    assert_eq!(
        cfg.queue.kind,
        QueueKind::Red(RedParams { min_thresh: 3.0, max_thresh: 9.0, weight: 0.01, max_p: 0.1, gentle: true })
    );
    assert_eq!(cfg.queue.kind.name(), "red");
    let e = Scenario::from_str(&scenario("min_thresh = 3"), "r").unwrap_err().to_string();
    assert!(e.contains("'queue.min_thresh' is not used by kind = \"droptail\""), "{e}");
    let e =
        Scenario::from_str(&scenario("kind = \"red\"\nmin_thresh = 9\nmax_thresh = 3"), "r").unwrap_err().to_string();
    assert!(e.contains("must be below"), "{e}");
    let e = Scenario::from_str(&scenario("kind = \"red\"\nweight = 0"), "r").unwrap_err().to_string();
    assert!(e.contains("'queue.weight' must be greater than 0"), "{e}");
    let e = Scenario::from_str(&scenario("kind = \"fifo\""), "r").unwrap_err().to_string();
    assert!(e.contains("droptail, fair, priority, red"), "{e}");
    let e = Scenario::from_str(&scenario("kind = \"red\"\nthresh = 3"), "r").unwrap_err().to_string();
    assert!(e.contains("unknown field 'thresh' in [queue]"), "{e}");
}

#[test]
fn red_keeps_the_queue_short_at_the_same_throughput() {
    let run = |q: &str| {
        let s = Scenario::from_str(&scenario(q), "r").unwrap_or_else(|e| panic!("{e}"));
        let r = Simulation::new(s.config(s.seed())).unwrap().run();
        assert!(r.audit.balances(), "{:?}", r.audit);
        let f = &r.flows[0];
        (f.goodput_bps, f.delay_mean_s.unwrap())
    };
    let (tail_bps, tail_delay) = run("kind = \"droptail\"");
    let (red_bps, red_delay) = run("kind = \"red\"");
    println!("drop-tail: {:.3} Mbit/s, delay {:.1} ms", tail_bps / 1e6, tail_delay * 1e3);
    println!("red:       {:.3} Mbit/s, delay {:.1} ms", red_bps / 1e6, red_delay * 1e3);
    // The source's queue: drop-tail holds ~50 packets, RED ~15 (max_th).
    assert!(red_delay < 0.5 * tail_delay, "{red_delay} vs {tail_delay}");
    assert!((red_bps / tail_bps - 1.0).abs() < 0.1, "{red_bps} vs {tail_bps}");
}
