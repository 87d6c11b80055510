//! The pipeline's fast paths against the general one (`pipeline.rs`).

use crate::metrics::observe::{FrameEvent, Observer, PacketEvent};
use crate::net::NodeId;
use crate::scenario::Scenario;
use crate::sim::Time;
use crate::Simulation;
use std::cell::Cell;
use std::sync::{Arc, Mutex};

thread_local! {
    /// Whether `drain_items` may take its lone-timer path (`false`:
    /// every drain goes through `drain_all`, the general path).
    static AT_ONCE: Cell<bool> = const { Cell::new(true) };
    /// How many drains took the lone-timer path.
    static TAKEN: Cell<u64> = const { Cell::new(0) };
    /// How many `feed_mac` calls were carried out without `feed_queued`.
    static IDLE: Cell<u64> = const { Cell::new(0) };
}

/// Whether `drain_items` may carry out a lone timer itself (counted when
/// it may).
pub(super) fn lone_at_once() -> bool {
    let on = AT_ONCE.with(Cell::get);
    if on {
        TAKEN.with(|t| t.set(t.get() + 1));
    }
    on
}

/// Whether `feed_mac` may carry out its common cases itself (`AT_ONCE`
/// too: both fast paths on or off together; counted in `IDLE`).
pub(super) fn idle_at_once() -> bool {
    let on = AT_ONCE.with(Cell::get);
    if on {
        IDLE.with(|t| t.set(t.get() + 1));
    }
    on
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
fn run(rel: &str, overrides: &[&str], at_once: bool, observed: bool) -> (Vec<String>, String, u64, u64) {
    AT_ONCE.with(|c| c.set(at_once));
    TAKEN.with(|t| t.set(0));
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
    (log, format!("{report:?}"), TAKEN.with(Cell::get), IDLE.with(Cell::get))
}

/// A drain of one MAC timer carried out by `drain_items` itself, and
/// `feed_mac`'s common cases without `feed_queued`, change nothing: the same frames, packets and medium changes in the same order
/// and the same report (the events count included) as when every drain
/// goes through `drain_all`, with and without an observer; the TCP chain
/// (RTS/CTS, NAV re-armings), the 2-hop CBR chain, DSR, EDCA, TDMA,
/// backpressure and a wired gateway.
#[test]
fn lone_timer_drain_is_the_work_loop() {
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
            let (fast_log, fast_report, taken, idle) = run(rel, ov, true, observed);
            let (slow_log, slow_report, _, _) = run(rel, ov, false, observed);
            if observed {
                assert!(fast_log.len() > 1000, "{rel}: {} logged", fast_log.len());
            }
            assert!(fast_log == slow_log, "{rel}: the runs differ");
            assert_eq!(fast_report, slow_report, "{rel}");
            if rel.contains("bench") {
                assert!(taken > 10_000, "{rel}: the lone-timer path taken {taken} times");
                assert!(idle > 1_000, "{rel}: feed_mac's own paths taken {idle} times");
            }
        }
    }
}
