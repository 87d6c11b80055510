//! Signals on the air as one event stream per frame (issue 25).
//!
//! A frame's start and end at every radio in carrier-sense range are known
//! when it is sent (positions are evaluated at transmission): receiver k
//! hears it from `now + delay_k` to `now + delay_k + duration`. Instead of
//! two heap events per receiver, the frame keeps its 2 x receivers signal
//! events in a sorted list, each with the (time, sequence) key it would
//! have had as a heap event (the sequence numbers are reserved at
//! transmission, in the order the events used to be scheduled), and the
//! queue holds one entry: the list's earliest. Popping it handles that
//! signal and puts the next one back under its own key, so every event runs
//! at exactly the same place in the (time, seq) order as before, and the
//! heap holds one entry per frame on the air instead of 2 x receivers.
//! When the next one is due before every queued event it runs at once,
//! without the round trip through the queue (session 13: 94 % of the
//! signals of the 400-node movement file; `frame_events`). The sender's
//! own transmission end (`TxEnd`) is an entry of the same stream, under
//! the key it had as a queue event (session 16: [`TX_END`]).
//!
//! Ends that change nothing are not run (session 11): under ns-2's capture
//! rule the last bit of a signal that is not the locked frame and passes
//! before the locked frame's last bit decides nothing and leaves the medium
//! busy (`Radio::begin_signal_lazy`). The radio says so at the signal's
//! start (a collision loser shorter than the lock, or a frame captured out
//! that ends first) or when a longer colliding frame takes the lock over
//! (the old lock's end). Such an end is marked in its stream and passed
//! over when the stream queues its next signal (or, if it was already
//! queued, does nothing when it pops). It still counts as an executed event
//! (when due by the run's end), so `events` is the same as when every end
//! ran, whatever observers are attached; observers of receptions see every
//! end, so with one attached every end runs. 8.6 % of the events of the
//! 400-node movement file, 4.3-4.5 % of the 10-hop TCP chains
//! (docs/performance.md, "Session 11 (branch s11air)").

use super::{Event, Simulation};
use crate::metrics::observe::Reception;
use crate::net::NodeId;
use crate::phy::channel::TxId;
use crate::phy::radio::RxOutcome;
use crate::sim::Time;

/// A wide frame's signals in runs (`frame_events_wide`, sessions 17-18).
#[path = "frames_runs.rs"]
mod runs;

/// A frame's stream built (`Simulation::air_frame`, `Streams::cached_stream`).
#[path = "frames_build.rs"]
mod build;

/// One signal event of a frame at one receiver.
#[derive(Copy, Clone, Debug, PartialEq)]
#[repr(C)] // (`shift_signals`: `time` and `seq` the first 16 bytes)
pub(super) struct Signal {
    time: u64,
    seq: u64,
    power: f64,
    node: NodeId,
    /// A first bit: the index of the same receiver's last bit in the
    /// stream. A last bit: [`END`], or [`END_UNSEEN`] once its start found
    /// that it can change nothing (`Radio::begin_signal_lazy`).
    end_at: u32,
}

/// `Signal::end_at` of a last bit that runs as an event.
const END: u32 = u32::MAX;
/// `Signal::end_at` of a last bit that is only counted (not dispatched).
const END_UNSEEN: u32 = u32::MAX - 1;
/// `Signal::end_at` of the sender's own transmission end (`node` is the
/// sender): the `TxEnd` event of a frame with hearers, kept in its stream
/// under the key it had as a queue event (session 16).
const TX_END: u32 = u32::MAX - 2;

/// A frame's pending signal events, earliest first; `next` is the one in
/// the queue. Kept in a slab and reused (no allocation in steady state).
#[derive(Default)]
pub(super) struct FrameStream {
    signals: Vec<Signal>,
    next: usize,
    spare: Vec<Signal>,
    /// Scratch of `merge_runs`: each end's index after the merge.
    pos: Vec<u32>,
    /// The frame's duration as the channel holds it (`end - start` of its
    /// transmission): a receiver's last bit comes this long after its
    /// first (`signal_start_fast` reads it here, not in the channel).
    dur: Time,
}

impl Signal {
    #[inline]
    fn key(&self) -> (u64, u64) {
        (self.time, self.seq)
    }

    /// [`Signal::key`] as one integer (ordered the same way).
    #[inline(always)]
    fn key128(&self) -> u128 {
        key128(self.time, self.seq)
    }

    #[inline]
    fn is_start(&self) -> bool {
        self.end_at < TX_END
    }
}

/// A (time, seq) key as one integer, ordered as the tuple (one compare
/// and a borrow instead of two compares and branches).
#[inline(always)]
fn key128(time: u64, seq: u64) -> u128 {
    (time as u128) << 64 | seq as u128
}

/// Whether a frame of duration `d` sent at `now`, heard first after
/// `h0` and last after `hk` (its hearers in arrival order), takes the
/// one-pass layout (`Streams::one_pass_stream`): the first receiver's last
/// bit comes after the last receiver's first bit (always, unless the
/// delays spread over more than a frame duration), every first bit comes
/// by `now + d`, no delay is zero (always but for receivers at the
/// sender's place), and `now + hk + d` is in range (then no time of the
/// stream saturates, the delays being at most `hk`).
#[inline(always)]
pub(super) fn one_pass(now: Time, d: Time, h0: Time, hk: Time) -> bool {
    let in_range = hk.0.checked_add(d.0).and_then(|x| now.0.checked_add(x)).is_some();
    hk < h0 + d && hk <= d && h0 > Time::ZERO && in_range
}

/// Queues a new frame's stream `id` under its first signal's key, that
/// signal's node prefetched in networks of at least [`PREFETCH_MIN_NODES`]
/// (as `pass_unseen`).
#[inline(always)]
pub(super) fn queue_stream(
    queue: &mut crate::sim::queue::EventQueue<Event>,
    nodes: &[crate::node::Node],
    id: u32,
    first: Signal,
    tx: TxId,
) {
    if nodes.len() >= PREFETCH_MIN_NODES {
        prefetch_node(&nodes[first.node as usize]);
    }
    queue.schedule_seq(Time(first.time), first.seq, Event::Frame { stream: id, tx });
}

/// Starts loading the node state that the next signal of a frame will
/// touch: the radio and the DCF's carrier-sense fields, the node's first
/// four cache lines (`node.rs`). A frame's signals reach their receivers a
/// few events apart, so the lines arrive while those events run instead of
/// stalling the signal's handler (at 10^5-10^6 nodes they are in DRAM;
/// docs/performance.md, "Large networks").
#[inline(always)]
fn prefetch_node(n: &crate::node::Node) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = n as *const crate::node::Node as *const i8;
        // SAFETY: PREFETCHT0 is a hint with no architectural effect: it
        // loads nothing into the program, cannot fault, and SSE is part of
        // the x86_64 baseline. The addresses lie inside `*n` (a node is
        // larger than 256 B).
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(128));
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(192));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = n;
}

/// Networks at least this large call `Routing::prefetch_heard` at a first
/// bit (the hint costs a call per locked frame; below this the routing
/// tables of all nodes fit in the cache and it only costs: +0.9 % of the
/// 2-hop's instructions).
const PREFETCH_MIN_NODES: usize = 100;

/// Frames with at least this many signals (8 hearers) take
/// `frame_events_wide` (a 1-hearer frame through it: +130 instructions a
/// start; docs/performance.md, "Session 17 (s17fl)"). Session 17 kept the
/// runs to networks below 100 nodes: at 400 (~100 hearers a frame) a third
/// of the starts find a busy radio, which ended a run (+4.1 % instructions
/// on the 120-s cut of the ns-2-config file); since session 18 a busy start
/// runs inside the run there (`start_run`).
const RUN_MIN_SIGNALS: usize = 17;

impl Streams {
    /// `lock_end` sized for every node (`locked_onto`, once), `node`'s set.
    #[cold]
    #[inline(never)]
    fn grow_lock_end(&mut self, nodes: usize, node: NodeId, end_ref: u64) {
        self.lock_end.resize(nodes.max(node as usize + 1), 0);
        self.lock_end[node as usize] = end_ref;
    }
}

#[derive(Default)]
pub(super) struct Streams {
    slab: Vec<FrameStream>,
    free: Vec<u32>,
    /// Per node, where the last bit of the frame its radio locked onto
    /// last is in its stream (stream << 32 | index), for `unsee_end`.
    lock_end: Vec<u64>,
    /// Per static sender, its frames' one-pass stream with the times and
    /// sequence numbers relative (`Streams::cached_stream`; empty: not
    /// built yet).
    tmpl: Vec<build::Template>,
}

impl Streams {
    /// Whether the frame stream queued as `stream` still holds its
    /// transmission for a receiver: some signal from the queued one on runs
    /// as an event. When every one left is a last bit passed over
    /// (`END_UNSEEN`), its receivers are already done with the
    /// transmission (`signal_start_general`): the queued entry then carries
    /// nothing (the audit, `report.rs`). (Since session 23 the channel's
    /// slot of the transmission is the stream's index, kept until the
    /// stream is taken again: `Channel::begin_at`.)
    pub(super) fn holds_frame(&self, stream: u32) -> bool {
        let s = &self.slab[stream as usize];
        // (the sender's `TX_END` is not a receiver's: it holds nothing)
        s.signals[s.next..].iter().any(|g| g.end_at != END_UNSEEN && g.end_at != TX_END)
    }
}

impl Simulation {
    /// `node`'s own transmission ends: a queued `TxEnd` (a frame no radio
    /// hears) or the entry of its frame's stream (`frames.rs`, `TX_END`).
    #[inline]
    pub(super) fn tx_end(&mut self, node: NodeId) {
        let now = self.queue.now();
        let n = &mut self.nodes[node as usize];
        if n.radio.end_tx() {
            n.mac.on_signal_end(now, true, &mut self.mac_out);
        }
        n.mac.on_tx_end(now, &mut self.mac_out);
    }

    /// The frame stream's earliest signal is due: handle it, carry out its
    /// work, and then, while the stream's next signal is due before every
    /// queued event (and by the limit of `run_until`), handle that one in
    /// place too, without the round trip through the queue; otherwise queue
    /// it. The events run in exactly the (time, seq) order of before (keys
    /// are unique: the queue would have popped the stream's signal next) and
    /// each counts as executed. The last bits passed over (those marked
    /// [`END_UNSEEN`]) count as executed events too: the count is the one
    /// every end dispatched would give (so it does not depend on the
    /// observers attached), and only ends at or before the run's end count,
    /// as they would have run.
    ///
    /// A frame's first bits reach its ~100 receivers at 400 nodes within
    /// the 1.8 us its signal takes to cross the carrier-sense range, and so
    /// do its last bits; other events rarely fall in between, so most
    /// signals run ahead (docs/performance.md, "Session 13 (branch s13big)").
    pub(super) fn frame_events(&mut self, id: u32, tx: TxId) {
        let (mut cur, mut g, dur) = {
            let s = &self.streams.slab[id as usize];
            if s.signals.len() >= RUN_MIN_SIGNALS {
                return self.frame_events_wide(id, tx);
            }
            (s.next, s.signals[s.next], s.dur)
        };
        loop {
            // (`cur`: `g`'s index; `dur`: the stream's, read once: the
            // stream is neither freed nor taken over while its signals run
            // here, `next_after` frees it after the last)
            if let Some(node) = self.frame_signal_in(id, tx, g, dur) {
                self.collect_drain(node); // (`timers.rs`)
            }
            match self.next_after(id, tx, cur) {
                Some((j, n)) => (cur, g) = (j, n),
                None => return,
            }
        }
    }

    /// Whether a new frame's first signal `first`, its stream just
    /// written, would be the next event the run loop pops: before
    /// everything queued (`next_after`'s test) and by the run's limit
    /// (`transmit_at_once`); if so, it is counted as executed and the
    /// clock moved to it, as `next_after` runs a signal in place. Never in
    /// tests that ask for the queue (`frames_tests.rs`, `QUEUED_ONLY`).
    #[inline(always)]
    pub(super) fn first_at_once(&mut self, first: Signal) -> bool {
        #[cfg(test)]
        if tests::QUEUED_ONLY.with(|q| q.get()) {
            return false;
        }
        if !(first.key128() < self.queue.peek_key128() && first.time <= self.until.0) {
            return false;
        }
        #[cfg(test)]
        tests::AT_ONCE.with(|t| t.set(t.get() + 1));
        self.ran_in_place(Time(first.time));
        true
    }

    /// The narrow loop's step after signal `cur` of stream `id` was handled
    /// (session 22: one look-up of the stream a signal, after the handler;
    /// before, `pass_unseen` ran before it and `next_in_place` read the
    /// stream again after it): passes over the ends marked unseen after
    /// `cur`, those marked while `cur` was handled included (each an
    /// executed event within the run, as `pass_unseen` counts them; before,
    /// one marked while `cur` was handled that was the next signal ran as a
    /// no-op, counted the same way), then runs the next signal in place
    /// (clock moved, counted as executed) if it is before everything queued
    /// and within the limit, or queues the stream under its key (its node
    /// prefetched in networks of at least [`PREFETCH_MIN_NODES`]), or frees
    /// the stream when no signal is left.
    ///
    /// The ends passed over are skipped out of line (`skip_unseen`, session
    /// 23: 4.5 % of the AODV chain's events; the loop's setup on every
    /// signal cost ~4 instructions).
    #[inline(always)]
    fn next_after(&mut self, id: u32, tx: TxId, cur: usize) -> Option<(usize, Signal)> {
        let s = &self.streams.slab[id as usize];
        let mut j = cur + 1;
        let Some(&(mut n)) = s.signals.get(j) else {
            self.streams.free.push(id);
            return None;
        };
        if n.end_at == END_UNSEEN {
            (j, n) = self.skip_unseen(id, j)?;
        }
        // (one compare and a borrow; nothing queued: the sentinel's
        // `u128::MAX`, above every signal's key)
        let first = n.key128() < self.queue.peek_key128();
        if !(first && n.time <= self.until.0) {
            self.streams.slab[id as usize].next = j;
            if self.nodes.len() >= PREFETCH_MIN_NODES {
                prefetch_node(&self.nodes[n.node as usize]);
            }
            self.queue.schedule_seq(Time(n.time), n.seq, Event::Frame { stream: id, tx });
            return None;
        }
        self.ran_in_place(Time(n.time));
        Some((j, n))
    }

    /// [`Simulation::next_after`]'s ends passed over from `j` (marked
    /// [`END_UNSEEN`]; each an executed event when due by the run's end):
    /// the next signal that is not one and its index, or `None` with the
    /// stream freed when none is left.
    #[inline(never)]
    fn skip_unseen(&mut self, id: u32, mut j: usize) -> Option<(usize, Signal)> {
        let s = &self.streams.slab[id as usize];
        loop {
            let Some(&n) = s.signals.get(j) else {
                self.streams.free.push(id);
                return None;
            };
            if n.end_at != END_UNSEEN {
                return Some((j, n));
            }
            if n.time <= self.cfg.duration.0 {
                self.executed += 1;
                #[cfg(feature = "event-counts")]
                self.counts.add(super::counts::Kind::EndUnseen);
            }
            j += 1;
        }
    }

    /// Passes over the ends marked unseen after signal `cur` (each still
    /// an executed event within the run), sets the stream's next signal,
    /// prefetches its node (in networks of at least
    /// [`PREFETCH_MIN_NODES`]: below, every node's lines stay in the cache
    /// and the hint only costs, ~9 instructions a signal; session 21) or
    /// frees the stream; `(next, more)`.
    #[inline(always)]
    fn pass_unseen(&mut self, id: u32, cur: usize) -> (usize, bool) {
        let s = &mut self.streams.slab[id as usize];
        let mut j = cur + 1;
        while let Some(n) = s.signals.get(j).filter(|n| n.end_at == END_UNSEEN) {
            if n.time <= self.cfg.duration.0 {
                self.executed += 1;
                #[cfg(feature = "event-counts")]
                self.counts.add(super::counts::Kind::EndUnseen);
            }
            j += 1;
        }
        s.next = j;
        let more = j < s.signals.len();
        if more {
            if self.nodes.len() >= PREFETCH_MIN_NODES {
                let n = s.signals[j].node;
                prefetch_node(&self.nodes[n as usize]);
            }
        } else {
            self.streams.free.push(id);
        }
        (j, more)
    }

    /// A stream's signal at `t` runs in place instead of through the
    /// queue: counted as executed (and, with `event-counts`, as the pop it
    /// stands for), the clock moved to it. Every in-place path.
    #[inline(always)]
    pub(super) fn ran_in_place(&mut self, t: Time) {
        #[cfg(feature = "event-counts")]
        let _ = self.count_pop();
        self.executed += 1;
        self.queue.advance_to(t);
    }

    /// Signal `j` runs in place (clock moved, counted as executed) if it is
    /// before everything queued and within the limit; else it is queued
    /// under its (time, seq) key and `None` ends the loop. Both loops.
    #[inline(always)]
    fn next_in_place(&mut self, id: u32, tx: TxId, j: usize) -> Option<Signal> {
        let n = self.streams.slab[id as usize].signals[j];
        let first = n.key128() < self.queue.peek_key128();
        if !(first && n.time <= self.until.0) {
            self.queue.schedule_seq(Time(n.time), n.seq, Event::Frame { stream: id, tx });
            return None;
        }
        self.ran_in_place(Time(n.time));
        Some(n)
    }

    /// Handles one signal of frame stream `id`; returns the receiving node.
    #[inline(always)]
    /// `None` when the signal can have left no work: a start on the fast
    /// path (the MAC's `on_sense_busy` returns no action, the routing hint
    /// none) or a passed-over end; the caller then skips collecting the
    /// MAC's actions and draining the work list (both empty).
    fn frame_signal(&mut self, id: u32, tx: TxId, g: Signal) -> Option<NodeId> {
        // (the stream's `dur` is read only for a first bit)
        let dur = if g.is_start() { self.streams.slab[id as usize].dur } else { Time::ZERO };
        self.frame_signal_in(id, tx, g, dur)
    }

    /// [`Simulation::frame_signal`] with the stream's `dur` (`FrameStream::dur`)
    /// read by the caller.
    #[inline(always)]
    fn frame_signal_in(&mut self, id: u32, tx: TxId, g: Signal, dur: Time) -> Option<NodeId> {
        if g.is_start() {
            let end_ref = (id as u64) << 32 | g.end_at as u64;
            // Every receiver hears the whole frame: it ends one frame
            // duration after its first bit arrives.
            let end = self.queue.now() + dur;
            if self.signal_start_fast(g.node, tx, g.power, end_ref, end) {
                return None;
            }
            if !self.signal_start_general(g.node, tx, g.power, end_ref, end) {
                // (the stream may have been freed only if this start's own
                // end is the stream's next signal: it is then not freed)
                self.streams.slab[id as usize].signals[g.end_at as usize].end_at = END_UNSEEN;
            }
        } else if g.end_at == END {
            self.signal_end(g.node, tx);
        } else if g.end_at == TX_END {
            #[cfg(feature = "event-counts")]
            self.counts.add(super::counts::Kind::TxEnd);
            self.tx_end(g.node);
        } else {
            // Marked after it was queued or selected: counted as it came
            // up, nothing to do.
            #[cfg(feature = "event-counts")]
            self.counts.add(super::counts::Kind::EndUnseen);
            return None;
        }
        Some(g.node)
    }

    /// The first bit of a transmission reaches `node`, on the fast path
    /// (session 15): no observer, and an idle threshold radio under ns-2's
    /// rule (65 % of the 400-node file's starts, 83 % of the AODV chain's).
    /// The radio locks onto the signal and keeps it
    /// (`Radio::start_idle_ns2`); of [`Simulation::signal_start_general`]
    /// that leaves: the MAC told busy, the routing hint, the lock's end.
    /// Returns false, having changed nothing, when the path does not apply.
    /// `end_ref`: where its last bit is (stream << 32 | index); `end`:
    /// when it is (`now` plus the stream's `dur`, the channel's `end -
    /// start` of the transmission, as `signal_start_general` computes it;
    /// session 21: no look-up of the transmission here).
    #[inline(always)]
    fn signal_start_fast(&mut self, node: NodeId, tx: TxId, power: f64, end_ref: u64, end: Time) -> bool {
        let now = self.queue.now();
        debug_assert_eq!(end, now + (self.channel.get(tx).end - self.channel.get(tx).start));
        let n = &mut self.nodes[node as usize];
        if !(self.obs.is_empty() && n.radio.start_idle_ns2(tx, power, end)) {
            return false;
        }
        #[cfg(feature = "event-counts")]
        self.counts.add(super::counts::Kind::StartIdle);
        n.mac.on_sense_busy(now);
        self.locked_onto(node, tx, power, end_ref);
        true
    }

    /// The lock that a start took: the routing hint and where its end is.
    #[inline(always)]
    fn locked_onto(&mut self, node: NodeId, tx: TxId, power: f64, end_ref: u64) {
        // A frame for this node that may be decoded at its last bit:
        // let routing start loading what the packet will touch (its
        // previous hop's entry: a cache miss per packet heard at 400
        // nodes, now overlapped with the events up to the last bit).
        // Small networks' tables stay in cache: no call there.
        if self.nodes.len() >= PREFETCH_MIN_NODES && power >= self.cfg.radio.rx_threshold_w {
            let f = &self.channel.get(tx).frame;
            let (to, from) = (f.dst, f.src);
            if to == node || to == crate::sim::BROADCAST {
                self.nodes[node as usize].routing.prefetch_heard(from, f.packet.as_ref());
            }
        }
        // (one test: the size's, with the bounds check's)
        match self.streams.lock_end.get_mut(node as usize) {
            Some(r) => *r = end_ref,
            None => self.streams.grow_lock_end(self.nodes.len(), node, end_ref),
        }
    }

    /// The first bit of a transmission reaches `node`, in every case
    /// (observers attached, a busy receiver, other reception models and
    /// capture rules). Returns whether its last bit must run as an event
    /// (`Radio::begin_signal_lazy`; always, for observers of receptions,
    /// which see every signal's end). `end_ref`: where its last bit is
    /// (stream << 32 | index).
    #[inline(never)]
    fn signal_start_general(&mut self, node: NodeId, tx: TxId, power: f64, end_ref: u64, end: Time) -> bool {
        let now = self.queue.now();
        debug_assert_eq!(end, now + (self.channel.get(tx).end - self.channel.get(tx).start));
        let n = &mut self.nodes[node as usize];
        // A start at a lone lock (ns-2's rule, no observer;
        // `Radio::start_lone_lock_ns2`; session 16 for the takeover,
        // session 22 for the rest): the medium was busy, so of the general
        // case below that leaves, for a longer colliding frame, the old
        // lock's end passed over and the new lock; for a frame captured out,
        // the MAC told; for a shorter collider, nothing; and for either of
        // the last two, its end passed over unless it ends no earlier than
        // the lock.
        if self.obs.is_empty() {
            use crate::phy::radio::LoneStart;
            match n.radio.start_lone_lock_ns2(tx, power, end) {
                Some(LoneStart::Takeover(old, at)) => {
                    #[cfg(feature = "event-counts")]
                    self.counts.add(super::counts::Kind::StartBusy);
                    self.unsee_end(old, node, at);
                    self.locked_onto(node, tx, power, end_ref);
                    return true;
                }
                Some(LoneStart::Captured { keep }) => {
                    #[cfg(feature = "event-counts")]
                    self.counts.add(super::counts::Kind::StartCaptured);
                    n.mac.on_captured_out(now, end, &mut self.mac_out);
                    return keep;
                }
                Some(LoneStart::Collided { keep }) => {
                    #[cfg(feature = "event-counts")]
                    self.counts.add(super::counts::Kind::StartBusy);
                    return keep;
                }
                None => {}
            }
        }
        let rate = self.channel.get(tx).frame.rate;
        let n = &mut self.nodes[node as usize];
        let l = if self.obs.interest().receptions {
            let outcome = n.radio.begin_signal(now, tx, power, end, rate);
            crate::phy::radio::LazyStart { outcome, keep: true, locks: false, dropped: None }
        } else {
            n.radio.begin_signal_lazy(now, tx, power, end, rate)
        };
        let o = l.outcome;
        #[cfg(feature = "event-counts")]
        self.counts.add(match (o.captured_out, o.became_busy) {
            (true, _) => super::counts::Kind::StartCaptured,
            (false, true) => super::counts::Kind::StartIdle,
            (false, false) => super::counts::Kind::StartBusy,
        });
        if o.became_busy {
            n.mac.on_sense_busy(now);
            self.obs.medium(now, node, true);
        }
        if o.captured_out {
            n.mac.on_captured_out(now, end, &mut self.mac_out);
            self.obs.reception(now, node, &self.channel, tx, Some(power), Reception::Captured);
        }
        if let Some((old, at)) = l.dropped {
            self.unsee_end(old, node, at);
        }
        if l.locks {
            self.locked_onto(node, tx, power, end_ref);
        }
        // (`!l.keep`: this receiver is done with the transmission, which
        // its stream holds until it is taken again: nothing to release,
        // session 23)
        l.keep
    }

    /// Marks the last bit of transmission `tx` at `node`, due at `at` (the
    /// frame `node` was locked onto), as one that is counted but not run (it
    /// may already be in the queue: `frame_events` then passes over it when
    /// it pops).
    fn unsee_end(&mut self, tx: TxId, node: NodeId, at: Time) {
        let r = self.streams.lock_end[node as usize];
        let s = &mut self.streams.slab[(r >> 32) as usize];
        let g = &mut s.signals[r as u32 as usize];
        debug_assert!(g.node == node && g.end_at == END && g.time == at.0, "tx {tx}");
        let _ = (tx, at);
        g.end_at = END_UNSEEN;
    }

    /// The last bit of a transmission passes `node`.
    #[inline(always)]
    fn signal_end(&mut self, node: NodeId, tx: TxId) {
        let now = self.queue.now();
        let n = &mut self.nodes[node as usize];
        // The fast path (session 15): no observer, and the locked frame is
        // the only signal on the air at a threshold radio
        // (`Radio::end_lone_lock`): it decodes or fails, the medium becomes
        // idle; the MAC is told as below, and no observer hook runs.
        if self.obs.is_empty() {
            if let Some(outcome) = n.radio.end_lone_lock(tx) {
                #[cfg(feature = "event-counts")]
                self.counts.add(match outcome {
                    RxOutcome::Decoded(_) => super::counts::Kind::EndDecoded,
                    _ => super::counts::Kind::EndFailed,
                });
                match outcome {
                    RxOutcome::Decoded(_) => {
                        let f = &self.channel.get(tx).frame;
                        n.mac.on_rx_power(f.src, n.radio.last_decoded_power());
                        n.mac.on_rx_end(now, Some(f), true, &mut self.mac_out)
                    }
                    _ => n.mac.on_rx_end(now, None, true, &mut self.mac_out),
                }
                return;
            }
        }
        self.signal_end_general(node, tx, now)
    }

    /// [`Simulation::signal_end`] in every case.
    #[inline(never)]
    fn signal_end_general(&mut self, node: NodeId, tx: TxId, now: Time) {
        let n = &mut self.nodes[node as usize];
        let (outcome, idle) = n.radio.finish_signal(now, tx);
        #[cfg(feature = "event-counts")]
        self.counts.add(match (outcome, idle) {
            (RxOutcome::Decoded(_), _) => super::counts::Kind::EndDecoded,
            (RxOutcome::Failed { .. }, _) => super::counts::Kind::EndFailed,
            (RxOutcome::Nothing, true) => super::counts::Kind::EndIdle,
            (RxOutcome::Nothing, false) => super::counts::Kind::EndBusy,
        });
        match outcome {
            RxOutcome::Decoded(id) => {
                let f = &self.channel.get(id).frame;
                n.mac.on_rx_power(f.src, n.radio.last_decoded_power());
                n.mac.on_rx_end(now, Some(f), idle, &mut self.mac_out)
            }
            RxOutcome::Failed { .. } => n.mac.on_rx_end(now, None, idle, &mut self.mac_out),
            RxOutcome::Nothing => n.mac.on_signal_end(now, idle, &mut self.mac_out),
        }
        self.obs.signal_end(now, node, &self.channel, tx, outcome);
        if idle {
            self.obs.medium(now, node, false);
        }
    }
}

#[cfg(test)]
#[path = "frames_tests.rs"]
mod tests;
