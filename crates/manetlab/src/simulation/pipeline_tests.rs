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

/// Everything with an effect, in order: packets, frames, medium changes
/// (also the kernel's other equivalence tests: `timers.rs`).
pub(in crate::simulation) struct Log(pub Arc<Mutex<Vec<String>>>);
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

/// Runs the scenario file `rel` (from the crate's folder) with
/// `overrides`, `setup` applied to the simulation first: what `Log` saw
/// (nothing unless `observed`) and the report's `Debug` text, its events
/// count taken out and returned beside it.
pub(in crate::simulation) fn logged_run(
    rel: &str,
    overrides: &[&str],
    observed: bool,
    setup: impl FnOnce(&mut Simulation),
) -> (Vec<String>, String, u64) {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let sc = Scenario::parse(&text, rel, overrides).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(sc.config(sc.seed())).unwrap();
    setup(&mut sim);
    let log = Arc::new(Mutex::new(Vec::new()));
    if observed {
        sim.add_observer(Box::new(Log(log.clone())));
    }
    let mut report = sim.run();
    let events = std::mem::take(&mut report.events);
    let log = std::mem::take(&mut *log.lock().unwrap());
    (log, format!("{report:?}"), events)
}

/// The run's log, report and events count, with `feed_mac`'s own paths
/// allowed or not, and how often they were taken.
fn run(rel: &str, overrides: &[&str], at_once: bool, observed: bool) -> (Vec<String>, String, u64, u64) {
    AT_ONCE.with(|c| c.set(at_once));
    IDLE.with(|t| t.set(0));
    let (log, report, events) = logged_run(rel, overrides, observed, |_| {});
    AT_ONCE.with(|c| c.set(true));
    (log, report, events, IDLE.with(Cell::get))
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
            let (fast_log, fast_report, fast_events, idle) = run(rel, ov, true, observed);
            let (slow_log, slow_report, slow_events, _) = run(rel, ov, false, observed);
            if observed {
                assert!(fast_log.len() > 1000, "{rel}: {} logged", fast_log.len());
            }
            assert!(fast_log == slow_log, "{rel}: the runs differ");
            assert_eq!(fast_report, slow_report, "{rel}");
            assert_eq!(fast_events, slow_events, "{rel}: events");
            if rel.contains("bench") {
                assert!(idle > 1_000, "{rel}: feed_mac's own paths taken {idle} times");
            }
        }
    }
}

/// The access timers the DCF no longer arms while an ACK (or a CTS that
/// cannot be refused) waits its SIFS (`mac/dcf/backoff.rs` `arm_access`)
/// change nothing but the events count: the same frames, packets and
/// medium changes in the same order and the same report as when they are
/// armed (and die unfired), on the bench chains (DATA and ACK; RTS/CTS,
/// NAV; also with ns-2's CTS rule, whose CTS may be refused), a mobile DSR
/// run (ELFN), the 2-hop, EDCA (untouched), TDMA, backpressure and a
/// shadowed SINR run; fewer events on the bench runs (the path taken).
#[test]
fn dead_access_before_an_ack_changes_nothing_but_events() {
    use crate::mac::dcf::ARM_DEAD;
    let cases: [(&str, &[&str]); 9] = [
        ("../../scenarios/bench/ns2/chain10-tcp-aodv.toml", &["run.duration=25s"]),
        ("../../scenarios/bench/ns2/chain10-tcp-aodv.toml", &["run.duration=25s", "mac.cts_rule=ns2"]),
        ("../../scenarios/bench/ns2/chain10-tcp-dsr.toml", &["run.duration=25s"]),
        ("../../scenarios/bench/ns2/twohop-aodv.toml", &["run.duration=12s"]),
        ("tests/snapshots/dsr-mobile-elfn.toml", &[]),
        ("tests/snapshots/edca.toml", &[]),
        ("tests/snapshots/tdma.toml", &[]),
        ("tests/snapshots/backpressure.toml", &[]),
        ("tests/snapshots/sinr-shadowing.toml", &[]),
    ];
    // Without an observer too: the kernel's paths that only unobserved
    // runs take (`straight_to_mac`, the small runs of ends) compared as well.
    for (rel, ov) in cases {
        for observed in [true, false] {
            let (log, report, events) = logged_run(rel, ov, observed, |_| {});
            ARM_DEAD.with(|a| a.set(true));
            let (armed_log, armed_report, armed_events) = logged_run(rel, ov, observed, |_| {});
            ARM_DEAD.with(|a| a.set(false));
            if observed {
                assert!(log.len() > 1000, "{rel}: {} logged", log.len());
            }
            assert!(log == armed_log, "{rel}: the runs differ");
            assert_eq!(report, armed_report, "{rel}");
            assert!(events <= armed_events, "{rel}: {events} > {armed_events}");
            if rel.contains("bench") {
                assert!(events * 100 < armed_events * 99, "{rel}: {events} vs {armed_events}");
            }
        }
    }
}
