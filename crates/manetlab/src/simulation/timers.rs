//! MAC access timers re-armed without a queue entry per arming (issue 25).
//!
//! A DCF arms its access timer at the end of every busy period (idle +
//! DIFS/EIFS + backoff) and freezes it at the start of the next one; each
//! arming replaces the previous one (a new generation, `mac/dcf.rs`). In
//! an RTS/CTS/DATA/ACK exchange a third party holding a backoff re-arms
//! after every frame, each time at (about) the same instant past its NAV,
//! and each arming used to be one push and, later, one pop of a superseded
//! event (18-22 % of the events on the 2-hop and chain scenarios).
//!
//! Here a node has at most one queue entry for its access timer that the
//! kernel relies on (`pending`) and remembers the last arming (`want`, with
//! the sequence number it was given when armed, as if it had been queued
//! then). A new arming no later than the pending entry's time is only
//! remembered; when that entry pops, the last arming is queued under its
//! own (time, sequence) key, or fired at once when it is due now and
//! earlier than everything queued, or forgotten when the MAC has cancelled
//! it since (`Mac::timer_live`). An arming earlier than the pending entry is
//! queued at once (the older entry then pops as an orphan and is ignored).
//!
//! Every timer that fires does so under exactly the (time, sequence) key it
//! had before this change, so the order of everything that has an effect is
//! unchanged and every output is byte-identical; only the executed `events`
//! count falls (the armings that never reach the queue). Timeouts and
//! response timers are queued directly: they are not re-armed while an
//! earlier entry of theirs is pending, so nothing would be saved.

use super::{Event, Simulation, Work};
use crate::mac::dcf::{MacAction, MacTimer};
use crate::net::NodeId;
use crate::sim::Time;

const NONE: u64 = u64::MAX;

/// One node's access timer: the entry the kernel relies on and the last
/// arming (`NONE` time / sequence: absent).
#[derive(Clone, Copy, Debug)]
pub(super) struct AccessSlot {
    pending_at: u64,
    pending_gen: u32,
    want_gen: u32,
    want_at: u64,
    want_seq: u64,
}

impl Default for AccessSlot {
    fn default() -> Self {
        AccessSlot { pending_at: NONE, pending_gen: 0, want_gen: 0, want_at: NONE, want_seq: NONE }
    }
}

/// The event the queue's sentinel carries (`sim/queue.rs`: never run).
impl Default for Event {
    fn default() -> Self {
        Event::Gateway { to_wire: false }
    }
}

impl Simulation {
    /// The MAC of `node` armed timer `kind` (generation `gen`) at `at`.
    pub(super) fn arm_mac_timer(&mut self, node: NodeId, at: Time, kind: MacTimer, gen: u32) {
        if kind != MacTimer::Access || self.access.is_empty() {
            return self.queue.schedule(at, Event::Mac { node, kind, gen });
        }
        // The sequence number a queued event would take now.
        let seq = self.queue.reserve(1);
        let s = &mut self.access[node as usize];
        s.want_at = at.0;
        s.want_seq = seq;
        s.want_gen = gen;
        if s.pending_at <= at.0 {
            return; // an earlier entry pops first and queues this arming
        }
        s.pending_at = at.0;
        s.pending_gen = gen;
        self.queue.schedule_seq(at, seq, Event::Mac { node, kind, gen });
    }

    /// Carries out the work of the last event; most events have none (a signal at an idle
    /// radio, a superseded timer) and skip the call; one item goes to `drain_one`.
    #[inline(always)]
    pub(super) fn drain_work(&mut self) {
        match self.work.len() {
            0 => {}
            1 => self.drain_one(),
            _ => self.drain_items(0, 0),
        }
        debug_assert!(self.mac_out.is_empty() && self.net_out.is_empty() && self.ep_out.is_empty());
    }

    /// `drain_work` after the events whose handler leaves its work listed
    /// (a transmission's end, an endpoint's timer, `other_event`); a
    /// frame's signals and a MAC timer's actions are drained by their
    /// handlers, so the run loop tests the work list after no event (2-hop
    /// -0.36 %, AODV chain -0.42 %, DSR chain -0.40 % instructions,
    /// docs/performance.md "Session 25 (branch s25wl)"; the crate's unit
    /// tests check after every event that nothing is left: `assert_drained`). With
    /// `event-counts` the run loop drains after counting.
    #[inline(always)]
    pub(super) fn drained(&mut self) {
        if !cfg!(feature = "event-counts") {
            self.drain_work();
        }
    }

    /// The work list holds one item (`drain_work`). A MAC timer (the whole
    /// work of most signal ends that re-arm a backoff, and of a DATA's end
    /// at its sender: 100-150 K of the 2-hop's 267 K drains) is armed here
    /// as `drain_items` would (the item, then the lists cleared), but
    /// without its loop and saved registers: the lists are cleared first
    /// (arming reads none of them), so the arming's queue push is the last
    /// call. Anything else goes to `drain_items`.
    #[inline(never)]
    pub(super) fn drain_one(&mut self) {
        #[cfg(test)]
        if tests::LOOP_ONLY.with(|l| l.get()) {
            return self.drain_items(0, 0);
        }
        let (Work::Mac(node, 0), [MacAction::Timer { at, kind, gen }]) = (self.work[0], &self.mac_out[..]) else {
            return self.drain_items(0, 0);
        };
        let (at, kind, gen) = (*at, *kind, *gen);
        #[cfg(test)]
        tests::TAKEN.with(|t| t.set(t.get() + 1));
        self.work.clear();
        self.mac_out.clear();
        self.net_out.clear();
        self.ep_out.clear();
        self.queued = [0; 3];
        self.arm_mac_timer(node, at, kind, gen)
    }

    /// `collect_mac` then `drain_work` after a signal (`frames.rs`): one
    /// action and no work yet (most signal ends that re-arm a backoff) go
    /// to `drain_lone`, without a work item.
    #[inline(always)]
    pub(super) fn collect_drain(&mut self, node: NodeId) {
        if self.work.is_empty() {
            match self.mac_out.len() {
                0 => return,
                1 => return self.drain_lone(node),
                _ if !cfg!(feature = "event-counts") => return self.drain_mac(node),
                _ => {}
            }
        }
        self.collect_mac(node);
        self.drain_work();
    }

    /// `collect_mac` then `drain_work` with the work list empty (after a
    /// MAC timer, `handle`; after a signal, `collect_drain`): the MAC's
    /// actions are the list's first items, so `drain_items` carries them
    /// out in order from `mac_out` itself, without a work item each (a
    /// push with its capacity test, and the item's read back: 2-hop
    /// -2.0 %, chains -1.6/-1.8 % of all instructions, docs/performance.md,
    /// "Session 24 (branch s24wl)", second pass). Nothing to do without actions.
    /// With `event-counts` (which reads `mac_out` after the event) the
    /// items are collected for `run_until`'s drain.
    #[inline(always)]
    pub(super) fn drain_mac(&mut self, node: NodeId) {
        debug_assert!(self.work.is_empty() && self.queued == [0; 3]);
        if cfg!(feature = "event-counts") {
            return self.collect_mac(node); // `run_until` drains after counting
        }
        #[cfg(test)]
        if tests::LOOP_ONLY.with(|l| l.get()) {
            self.collect_mac(node);
            return self.drain_work();
        }
        let n = self.mac_out.len();
        if n > 0 {
            #[cfg(test)]
            tests::IN_PLACE.with(|t| t.set(t.get() + 1));
            self.queued[0] = n;
            self.drain_items(node, n);
        }
    }

    /// The MAC left one action and there is no other work: a timer is
    /// armed at once, as `drain_one` would arm it from its work item (the
    /// lists cleared first: `net_out` and `ep_out` are empty, as the work
    /// list is); anything else takes the work list.
    #[inline(never)]
    fn drain_lone(&mut self, node: NodeId) {
        debug_assert!(self.queued == [0; 3] && self.net_out.is_empty() && self.ep_out.is_empty());
        #[cfg(test)]
        if tests::LOOP_ONLY.with(|l| l.get()) {
            return self.lone_to_loop(node);
        }
        let MacAction::Timer { at, kind, gen } = self.mac_out[0] else {
            return self.lone_to_loop(node);
        };
        #[cfg(test)]
        tests::TAKEN.with(|t| t.set(t.get() + 1));
        self.mac_out.clear();
        self.arm_mac_timer(node, at, kind, gen)
    }

    /// `drain_lone`'s other action: the work loop, the action read in
    /// place (`drain_mac`). Out
    /// of line, tail-called: inlined, `collect_mac`'s loop and its
    /// growth call made `drain_lone` save six registers on every call,
    /// the lone timer's included (~12 instructions of its ~30; 311 K
    /// calls on the AODV chain, 124 K on the 2-hop).
    #[inline(never)]
    fn lone_to_loop(&mut self, node: NodeId) {
        #[cfg(test)]
        if tests::LOOP_ONLY.with(|l| l.get()) {
            self.collect_mac(node);
            return self.drain_items(0, 0);
        }
        self.queued[0] = 1;
        self.drain_items(node, 1)
    }

    /// An access-timer entry of `node` popped: the generation to hand to
    /// the MAC now, or `None` when nothing fires (an orphan, an arming the
    /// MAC cancelled, or a later arming now queued in its place).
    pub(super) fn access_entry(&mut self, node: NodeId, gen: u32) -> Option<u32> {
        let Some(s) = self.access.get_mut(node as usize) else { return Some(gen) };
        if s.pending_at == NONE || s.pending_gen != gen {
            return None; // superseded by an earlier arming queued later
        }
        s.pending_at = NONE;
        debug_assert!(s.want_seq != NONE);
        if s.want_gen == gen {
            s.want_seq = NONE;
            return Some(gen);
        }
        // A later arming replaced this one while it was queued.
        let (at, seq, g) = (s.want_at, s.want_seq, s.want_gen);
        if !self.nodes[node as usize].mac.timer_live(MacTimer::Access, g) {
            s.want_seq = NONE;
            return None;
        }
        let now = self.queue.now();
        if at == now.0 && self.queue.peek_key().is_none_or(|k| (at, seq) < k) {
            // Due now and before everything queued: it would be the very
            // next event. Run it as that event.
            s.want_seq = NONE;
            self.executed += 1;
            #[cfg(feature = "event-counts")]
            self.counts.add(super::counts::Kind::MacNoAction); // the entry that popped
            return Some(g);
        }
        s.pending_at = at;
        s.pending_gen = g;
        self.queue.schedule_seq(Time(at), seq, Event::Mac { node, kind: MacTimer::Access, gen: g });
        None
    }
}

/// After every event of every test run: its work was carried out by its
/// handler (`drained`), nothing left for a later event to find.
#[cfg(test)]
pub(super) fn assert_drained(sim: &Simulation) {
    let left = sim.work.len() + sim.mac_out.len() + sim.net_out.len() + sim.ep_out.len();
    assert!(left == 0 && sim.queued == [0; 3], "work left after an event at {:?}", sim.queue.now());
}

#[cfg(test)]
mod tests {
    /// Kernel events stay 16 bytes: a queue entry is 32 with its key
    /// (two 16-byte moves per insertion step of `EventQueue::push`).
    #[test]
    fn event_is_16_bytes() {
        assert_eq!(std::mem::size_of::<super::Event>(), 16);
    }

    use crate::simulation::pipeline::tests::logged_run;

    thread_local! {
        /// `drain_one` hands every list to `drain_items` (this thread's runs).
        pub(super) static LOOP_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
        /// How many times `drain_one` or `drain_lone` armed a timer itself.
        pub(super) static TAKEN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        /// How many times `drain_mac` handed the MAC's actions to `drain_items` without items.
        pub(super) static IN_PLACE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// A work list of one MAC timer armed by `drain_one` gives the same
    /// run, to the event, as when `drain_items` arms it: the same frames,
    /// packets, medium changes, report and `events` count.
    #[test]
    fn one_timer_drained_at_once_changes_nothing() {
        let cases: [(&str, &[&str]); 3] = [
            ("../../scenarios/bench/ns2/chain10-tcp-aodv.toml", &["run.duration=30s"]),
            ("../../scenarios/bench/ns2/twohop-aodv.toml", &["run.duration=15s"]),
            ("tests/snapshots/edca.toml", &[]),
        ];
        for (rel, ov) in cases {
            TAKEN.with(|t| t.set(0));
            let fast = run(rel, ov, false);
            let taken = TAKEN.with(|t| t.get());
            let in_place = IN_PLACE.with(|t| t.replace(0));
            LOOP_ONLY.with(|l| l.set(true));
            let looped = run(rel, ov, false);
            LOOP_ONLY.with(|l| l.set(false));
            assert!(fast.0.len() > 1000, "{rel}: {} logged", fast.0.len());
            assert!(fast.0 == looped.0, "{rel}: the runs differ");
            assert_eq!(fast.1, looped.1, "{rel}");
            assert_eq!(fast.2, looped.2, "{rel}: events");
            // The paths under test were taken (the bench runs arm ~10^4 timers so).
            assert!(taken > 1000, "{rel}: the lone-timer paths taken {taken} times");
            assert!(in_place > 1000, "{rel}: MAC actions drained without items {in_place} times");
        }
    }

    /// The run's log, report (events count aside) and events count;
    /// `eager`: every access timer queued when armed, as before `timers.rs`.
    fn run(rel: &str, overrides: &[&str], eager: bool) -> (Vec<String>, String, u64) {
        logged_run(rel, overrides, true, |sim| {
            if eager {
                sim.access.clear();
            }
        })
    }

    /// Access timers re-armed without a queue entry each fire at exactly
    /// the same instants and in the same order as when every arming was
    /// queued: the same frames, packets and medium changes, the same
    /// report; only fewer events are executed. The TCP chain (RTS/CTS, NAV
    /// re-arming), the 2-hop CBR chain, EDCA and TDMA.
    #[test]
    fn lazy_access_timers_change_nothing_but_the_event_count() {
        let cases: [(&str, &[&str]); 4] = [
            ("../../scenarios/bench/ns2/chain10-tcp-aodv.toml", &["run.duration=30s"]),
            ("../../scenarios/bench/ns2/twohop-aodv.toml", &["run.duration=15s"]),
            ("tests/snapshots/edca.toml", &[]),
            ("tests/snapshots/tdma.toml", &[]),
        ];
        for (rel, ov) in cases {
            let (lazy_log, lazy_report, lazy_events) = run(rel, ov, false);
            let (eager_log, eager_report, eager_events) = run(rel, ov, true);
            assert!(lazy_log.len() > 1000, "{rel}: {} logged", lazy_log.len());
            assert!(lazy_log == eager_log, "{rel}: the runs differ");
            assert_eq!(lazy_report, eager_report, "{rel}");
            assert!(lazy_events <= eager_events, "{rel}: {lazy_events} > {eager_events}");
            if rel.contains("chain10") {
                // ~5 % of the chain's events were superseded re-armings.
                assert!(lazy_events * 100 < eager_events * 97, "{rel}: {lazy_events} vs {eager_events}");
            }
        }
    }
}
