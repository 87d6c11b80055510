//! The pipeline's fast paths against the general one (`pipeline.rs`).

use crate::metrics::observe::{FrameEvent, Observer, PacketEvent};
use crate::net::NodeId;
use crate::scenario::Scenario;
use crate::sim::Time;
use crate::Simulation;
use std::cell::Cell;
use std::sync::{Arc, Mutex};

thread_local! {
    /// Whether `feed_mac` may take its own paths (`false`: every call
    /// goes through `feed_queued`, the general path).
    static AT_ONCE: Cell<bool> = const { Cell::new(true) };
    /// How many `feed_mac` calls returned from its own paths, without `feed_queued`.
    static IDLE: Cell<u64> = const { Cell::new(0) };
}

/// Whether `feed_mac` may carry out its common cases itself.
/// (Session 21's lone-timer drain of this branch was superseded by
/// `timers.rs`' `drain_one`, tested in `timers.rs`' tests.)
pub(super) fn idle_at_once() -> bool {
    AT_ONCE.with(Cell::get)
}

/// `feed_mac` returned from one of its own paths (counted in `IDLE`).
pub(super) fn took() {
    IDLE.with(|t| t.set(t.get() + 1));
}

/// Everything with an effect, in order: packets, frames, medium changes.
struct Log(Arc<Mutex<Vec<String>>>);
impl Observer for Log {
    fn packet(&mut self, ev: &PacketEvent) {
        self.0.lock().unwrap().push(format!("{ev:?}"));
    }
    fn frame(&mut self, ev: &FrameEvent) {
        self.0.lock().unwrap().push(format!("{ev:?}"));
    }
    fn medium(&mut self, time: Time, node: NodeId, busy: bool) {
        self.0.lock().unwrap().push(format!("{time:?} {node} {busy}"));
    }
}

/// The run's log and report (the events count included), with the fast
/// paths allowed or not, and how often each was taken.
fn run(rel: &str, overrides: &[&str], at_once: bool, observed: bool) -> (Vec<String>, String, u64) {
    AT_ONCE.with(|c| c.set(at_once));
    IDLE.with(|t| t.set(0));
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let sc = Scenario::parse(&text, rel, overrides).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(sc.config(sc.seed())).unwrap();
    let log = Arc::new(Mutex::new(Vec::new()));
    if observed {
        sim.add_observer(Box::new(Log(log.clone())));
    }
    let report = sim.run();
    let log = std::mem::take(&mut *log.lock().unwrap());
    AT_ONCE.with(|c| c.set(true));
    (log, format!("{report:?}"), IDLE.with(Cell::get))
}

/// `feed_mac`'s common cases without `feed_queued` change nothing: the
/// same frames, packets and medium changes in the same order and the
/// same report (the events count included) as when every call goes
/// through `feed_queued`, with and without an observer; the TCP chain
/// (RTS/CTS, NAV re-armings), the 2-hop CBR chain, DSR, EDCA, TDMA,
/// backpressure and a wired gateway.
#[test]
fn feed_mac_fast_paths_are_feed_queued() {
    let cases: [(&str, &[&str]); 7] = [
        ("../../scenarios/bench/ns2/chain10-tcp-aodv.toml", &["run.duration=25s"]),
        ("../../scenarios/bench/ns2/chain10-tcp-dsr.toml", &["run.duration=25s"]),
        ("../../scenarios/bench/ns2/twohop-aodv.toml", &["run.duration=12s"]),
        ("tests/snapshots/edca.toml", &[]),
        ("tests/snapshots/tdma.toml", &[]),
        ("tests/snapshots/backpressure.toml", &[]),
        ("tests/snapshots/wired-gateway.toml", &[]),
    ];
    for (rel, ov) in cases {
        for observed in [true, false] {
            let (fast_log, fast_report, idle) = run(rel, ov, true, observed);
            let (slow_log, slow_report, _) = run(rel, ov, false, observed);
            if observed {
                assert!(fast_log.len() > 1000, "{rel}: {} logged", fast_log.len());
            }
            assert!(fast_log == slow_log, "{rel}: the runs differ");
            assert_eq!(fast_report, slow_report, "{rel}");
            if rel.contains("bench") {
                assert!(idle > 1_000, "{rel}: feed_mac's own paths taken {idle} times");
            }
        }
    }
}
