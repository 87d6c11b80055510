//! The event queue, ordered by (time, insertion sequence): a short sorted
//! list of the imminent events, a 4-ary heap of the later ones and an
//! unsorted list of those past a horizon (see [`EventQueue`]).
//!
//! Two events at the same instant run in the order they were scheduled, so a
//! run is a pure function of its inputs. Cancelled timers are not removed:
//! their owners keep a generation number and ignore stale firings.

use super::time::Time;

/// Heap entry, ordered by (time, insertion sequence).
#[derive(Clone, Copy)]
struct Entry<E> {
    time: u64,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    /// The (time, seq) order as one 128-bit key: compared with one
    /// `cmp`/`sbb` pair and no branch, so the heap's choices become
    /// conditional moves instead of mispredicted jumps.
    #[inline(always)]
    fn key(&self) -> u128 {
        ((self.time as u128) << 64) | self.seq as u128
    }
}

/// Children per far-heap node: a 4-ary heap is shallower than a binary
/// one, so an event moves fewer times on its way up and down.
const D: usize = 4;

/// How far past the earliest far event the near list reaches when it is
/// refilled (ns). The kernel's own events (signals, transmission ends, MAC
/// timers) are microseconds to a few milliseconds ahead; routing and
/// transport timers mostly 0.1-10 s (the AODV chain: 6 of 53 pending
/// events within 10 ms; docs/performance.md, session 12).
const NEAR_SPAN: u64 = 30_000_000;
/// At most this many far events move to the near list at a refill.
const NEAR_REFILL: usize = 8;
/// Past this many near events the latest go back to the far heap.
const NEAR_MAX: usize = 32;
/// How far past the earliest late event the horizon is set when the near
/// list and the far heap have both run empty (ns). At 400 nodes ~450 of
/// the ~555 pending events are routing timers 0.1-1 s ahead and ~80 are
/// within 30 ms (docs/performance.md, session 18): with the timers out of
/// the heap it holds tens of events instead of hundreds.
const LATE_SPAN: u64 = 100_000_000;

/// Pending events, earliest first; ties broken by scheduling order.
///
/// Two tiers split at a key `bound` (the (time, seq) order as one 128-bit
/// number): every event before it is in `near`, a short list sorted
/// latest first, every other in `far`, a 4-ary heap. Most events are
/// scheduled microseconds to milliseconds ahead, land in the near list a
/// few places from its end (one insertion step each), and are taken from
/// its end at no cost; the routing and transport timers (seconds ahead,
/// most superseded before they fire) wait in the far heap. When the near
/// list runs empty, the far events within [`NEAR_SPAN`] of the earliest
/// (at most [`NEAR_REFILL`]) move over and the bound follows them; when it
/// grows past [`NEAR_MAX`] (a dense network), its latest events go back to
/// the far heap and the bound falls to the earliest of them. Replaying the
/// queue operations of the 10-hop TCP chain, this costs 8 ns per event
/// against 14 ns for the single 4-ary heap it replaced (docs/performance.md,
/// session 12).
///
/// Events at or past a second key, `horizon`, wait in `late`, unsorted
/// (a push is a `Vec::push`): when the near list and the far heap are both
/// empty, the horizon moves to [`LATE_SPAN`] past the earliest late event
/// and the late events before it go to the far heap (one scan of `late`,
/// about once per span of simulated time). The routing and transport
/// timers, seconds ahead, so stay out of the heap, whose sift-downs at a
/// refill cost one level per factor four of its size (docs/performance.md,
/// session 18). Every near key is below `bound`, every far key at or above
/// it and below `horizon`, every late key at or above `horizon`: events
/// run in exactly the (time, seq) order of one heap.
///
/// The far heap moves a hole rather than swapping entries (one write per
/// level) and chooses the smallest of a full set of four children with
/// branch-free selects on the 128-bit key.
pub struct EventQueue<E> {
    /// Sorted by key, latest first: the next event is the last.
    near: Vec<Entry<E>>,
    far: Vec<Entry<E>>,
    /// In no order.
    late: Vec<Entry<E>>,
    /// Every near key is below it, every far key at or above it.
    bound: u128,
    /// Every far key is below it, every late key at or above it (never
    /// below `bound`).
    horizon: u128,
    /// [`NEAR_SPAN`], [`NEAR_REFILL`], [`NEAR_MAX`], [`LATE_SPAN`]
    /// (smaller in tests).
    span: u64,
    refill_max: usize,
    near_max: usize,
    late_span: u64,
    next_seq: u64,
    now: Time,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        Self::with_limits(NEAR_SPAN, NEAR_REFILL, NEAR_MAX, LATE_SPAN)
    }
    fn with_limits(span: u64, refill_max: usize, near_max: usize, late_span: u64) -> Self {
        debug_assert!(refill_max >= 1 && near_max >= refill_max && late_span >= 1);
        EventQueue {
            near: Vec::with_capacity(near_max + 1),
            far: Vec::with_capacity(256),
            late: Vec::with_capacity(1024),
            bound: 0,
            horizon: 0,
            span,
            refill_max,
            near_max,
            late_span,
            next_seq: 0,
            now: Time::ZERO,
        }
    }
    /// The time of the event being (or last) executed.
    pub fn now(&self) -> Time {
        self.now
    }
    /// Schedules `event` at absolute time `at` (not before now).
    pub fn schedule(&mut self, at: Time, event: E) {
        assert!(at >= self.now, "event scheduled in the past: {} < {}", at, self.now);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.push(Entry { time: at.0, seq, event });
    }
    /// Reserves `k` consecutive sequence numbers (for events that will be
    /// queued later with [`EventQueue::schedule_seq`]) and returns the first.
    pub fn reserve(&mut self, k: u64) -> u64 {
        let s = self.next_seq;
        self.next_seq += k;
        s
    }
    /// Schedules `event` at `at` under a sequence number taken earlier with
    /// [`EventQueue::reserve`]: it runs where an event scheduled then would.
    pub fn schedule_seq(&mut self, at: Time, seq: u64, event: E) {
        assert!(at >= self.now, "event scheduled in the past: {} < {}", at, self.now);
        debug_assert!(seq < self.next_seq);
        self.push(Entry { time: at.0, seq, event });
    }
    #[inline(always)]
    fn push(&mut self, e: Entry<E>) {
        let k = e.key();
        if k >= self.bound {
            if k >= self.horizon {
                return self.late.push(e);
            }
            return push_far(&mut self.far, e);
        }
        // One insertion step from the end (the earliest events).
        let mut i = self.near.len();
        self.near.push(e);
        while i > 0 && self.near[i - 1].key() < k {
            self.near[i] = self.near[i - 1];
            i -= 1;
        }
        self.near[i] = e;
        if self.near.len() > self.near_max {
            self.shed();
        }
    }
    /// Moves the latest near events back to the far heap.
    #[inline(never)]
    fn shed(&mut self) {
        let k = self.near.len() - self.refill_max;
        self.bound = self.near[k - 1].key();
        for e in self.near.drain(..k) {
            push_far(&mut self.far, e);
        }
    }
    /// The near list is empty: moves the next far events over.
    #[inline(always)]
    fn refill(&mut self) {
        // At least past the earliest far event (an event at `Time::MAX`,
        // "never" after saturating arithmetic, still moves over).
        let limit = ((self.far[0].time.saturating_add(self.span) as u128) << 64).max(self.far[0].key() + 1);
        while let Some(&top) = self.far.first() {
            if top.key() >= limit || self.near.len() == self.refill_max {
                break;
            }
            let last = self.far.pop().unwrap();
            if !self.far.is_empty() {
                sift_down_from(&mut self.far, 0, last);
            }
            self.near.push(top);
        }
        self.bound = match self.far.first() {
            Some(top) if self.near.len() == self.refill_max => top.key().min(limit),
            _ => limit,
        }
        .min(self.horizon);
        // They came out earliest first.
        self.near.reverse();
    }
    /// The near list and the far heap are empty: moves the horizon past
    /// the earliest late event and the late events before it to the far
    /// heap.
    #[inline(never)]
    fn advance(&mut self) {
        let m = self.late.iter().map(|e| e.time).min().expect("late events");
        // Every late event moves when the span reaches past the end of
        // time (no key is `u128::MAX`: `seq` never reaches `u64::MAX`).
        self.horizon = match m.checked_add(self.late_span) {
            Some(h) => (h as u128) << 64,
            None => u128::MAX,
        };
        let mut i = 0;
        while i < self.late.len() {
            let e = self.late[i];
            if e.key() < self.horizon {
                push_far(&mut self.far, e);
                self.late.swap_remove(i);
            } else {
                i += 1;
            }
        }
    }
    #[inline]
    fn fill(&mut self) {
        if self.near.is_empty() {
            self.fill_near();
        }
    }
    /// The near list is empty: refills it, from the late events when the
    /// far heap is empty too.
    #[inline(never)]
    fn fill_near(&mut self) {
        if self.far.is_empty() {
            if self.late.is_empty() {
                return;
            }
            self.advance();
        }
        self.refill();
    }
    /// Schedules `event` after `delay` from now.
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule(self.now + delay, event);
    }
    /// Time of the earliest pending event.
    pub fn peek_time(&mut self) -> Option<Time> {
        self.fill();
        self.near.last().map(|e| Time(e.time))
    }
    /// The (time, sequence) key of the earliest pending event.
    pub fn peek_key(&mut self) -> Option<(u64, u64)> {
        self.fill();
        self.near.last().map(|e| (e.time, e.seq))
    }
    /// Removes the earliest event and advances `now` to its time.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_until(Time(u64::MAX)).map(|ev| (self.now, ev))
    }
    /// Removes the earliest event if it is due at or before `t` and
    /// advances `now` to its time (the event loop's one call per event).
    #[inline]
    pub fn pop_until(&mut self, t: Time) -> Option<E> {
        self.fill();
        let e = self.near.last()?;
        if e.time > t.0 {
            return None;
        }
        debug_assert!(e.time >= self.now.0);
        self.now = Time(e.time);
        let ev = e.event;
        self.near.pop();
        Some(ev)
    }
    /// Advances the clock with no event (used at the end of a run).
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }
    pub fn len(&self) -> usize {
        self.near.len() + self.far.len() + self.late.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Total number of events ever scheduled.
    pub fn scheduled(&self) -> u64 {
        self.next_seq
    }
    /// Every pending event, in no particular order (the packet audit walks
    /// them at the end of a run; never called per event).
    pub fn pending(&self) -> impl Iterator<Item = &E> {
        self.near.iter().chain(self.far.iter()).chain(self.late.iter()).map(|e| &e.event)
    }
}

/// Pushes onto the far heap (out of line: most pushes are near).
#[inline(never)]
fn push_far<E: Copy>(far: &mut Vec<Entry<E>>, e: Entry<E>) {
    // Sift up: move parents down into the hole until `e` fits.
    let k = e.key();
    let mut i = far.len();
    far.push(e);
    while i > 0 {
        let parent = (i - 1) / D;
        let p = far[parent];
        if k < p.key() {
            far[i] = p;
            i = parent;
        } else {
            break;
        }
    }
    far[i] = e;
}

/// Places `e` at slot `i` (whose content is dead) and sinks it to its
/// place, moving the smaller child up at each level.
#[inline]
fn sift_down_from<E: Copy>(heap: &mut [Entry<E>], mut i: usize, e: Entry<E>) {
    let n = heap.len();
    let k = e.key();
    loop {
        let first = i * D + 1;
        let (best, bk) = if first + D <= n {
            // Full set of children: branch-free tournament.
            let c = &heap[first..first + D];
            let (k0, k1, k2, k3) = (c[0].key(), c[1].key(), c[2].key(), c[3].key());
            let (a, ka) = if k1 < k0 { (1, k1) } else { (0, k0) };
            let (b, kb) = if k3 < k2 { (3, k3) } else { (2, k2) };
            let (m, km) = if kb < ka { (b, kb) } else { (a, ka) };
            (first + m, km)
        } else if first < n {
            let mut best = first;
            let mut bk = heap[first].key();
            for (j, c) in heap.iter().enumerate().take(n).skip(first + 1) {
                let ck = c.key();
                if ck < bk {
                    best = j;
                    bk = ck;
                }
            }
            (best, bk)
        } else {
            break;
        };
        if bk < k {
            heap[i] = heap[best];
            i = best;
        } else {
            break;
        }
    }
    heap[i] = e;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (span, refill, near max, late span): tiny ones make the refills,
    /// the shedding back to the far heap and the horizon's moves happen all
    /// the time.
    fn limits() -> proptest::sample::Select<(u64, usize, usize, u64)> {
        proptest::sample::select(vec![
            (1, 1, 1, 1),
            (7, 1, 3, 2),
            (30, 2, 4, 50),
            (100, 4, 8, 20),
            (2_000, 3, 200, 300),
            (5, 2, 6, 1_000_000),
            (NEAR_SPAN, NEAR_REFILL, NEAR_MAX, LATE_SPAN),
        ])
    }

    #[test]
    fn order_is_time_then_insertion() {
        let mut q = EventQueue::new();
        q.schedule(Time(5), 'a');
        q.schedule(Time(3), 'b');
        q.schedule(Time(5), 'c');
        q.schedule(Time(3), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
    }
    proptest::proptest! {
        /// Interleaved pushes and pops come out exactly in (time, seq)
        /// order, as a sorted reference model says.
        #[test]
        fn matches_a_sorted_model(
            ops in proptest::collection::vec((proptest::bool::ANY, 0u64..1_000), 1..400),
            limits in limits(),
        ) {
            let mut q = EventQueue::with_limits(limits.0, limits.1, limits.2, limits.3);
            let mut model: Vec<(u64, u64)> = Vec::new();
            let mut seq = 0u64;
            for (pop, dt) in ops {
                if pop && !model.is_empty() {
                    model.sort();
                    let want = model.remove(0);
                    let got = q.pop().unwrap();
                    proptest::prop_assert_eq!((got.0 .0, got.1), want);
                } else {
                    let t = q.now().0 + dt;
                    q.schedule(Time(t), seq);
                    model.push((t, seq));
                    seq += 1;
                }
                // `pending` lists exactly the events not yet popped.
                let mut pending: Vec<u64> = q.pending().copied().collect();
                pending.sort_unstable();
                let mut want: Vec<u64> = model.iter().map(|&(_, s)| s).collect();
                want.sort_unstable();
                proptest::prop_assert_eq!(pending, want);
                proptest::prop_assert_eq!(q.len(), model.len());
            }
            model.sort();
            for want in model {
                let got = q.pop().unwrap();
                proptest::prop_assert_eq!((got.0 .0, got.1), want);
            }
            proptest::prop_assert!(q.pop().is_none());
        }
    }

    proptest::proptest! {
        /// Sequence numbers reserved early and used later (as frames.rs
        /// does) order ties by the reserved number, not by the push.
        #[test]
        fn reserved_sequence_numbers_keep_their_place(
            ops in proptest::collection::vec((0u8..3, 0u64..50), 1..300),
            limits in limits(),
        ) {
            let mut q = EventQueue::with_limits(limits.0, limits.1, limits.2, limits.3);
            let mut model: Vec<(u64, u64)> = Vec::new();
            let mut reserved: Vec<u64> = Vec::new();
            for (op, dt) in ops {
                match op {
                    0 if !model.is_empty() => {
                        model.sort();
                        let want = model.remove(0);
                        let got = q.pop().unwrap();
                        proptest::prop_assert_eq!((got.0 .0, got.1), want);
                    }
                    1 => reserved.push(q.reserve(1)),
                    _ => {
                        let t = q.now().0 + dt;
                        let s = match reserved.pop() {
                            Some(s) => { q.schedule_seq(Time(t), s, s); s }
                            None => { let s = q.scheduled(); q.schedule(Time(t), s); s }
                        };
                        model.push((t, s));
                    }
                }
            }
            model.sort();
            for want in model {
                let got = q.pop().unwrap();
                proptest::prop_assert_eq!((got.0 .0, got.1), want);
            }
            proptest::prop_assert!(q.pop().is_none());
        }
    }

    /// Timers seconds ahead wait in the late list; the far heap holds what
    /// falls before the horizon, the near list what falls within the span
    /// of the earliest far event, and it sheds its latest events back when
    /// it grows too long.
    #[test]
    fn far_timers_wait_outside_the_near_list() {
        let mut q = EventQueue::new();
        for i in 0..50u64 {
            q.schedule(Time(1_000_000_000 + i * 10_000_000), i); // 1 s, 1.01 s, ...
        }
        q.schedule(Time(1_000), 100);
        q.schedule(Time(2_000), 101);
        assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some((1_000, 100)));
        // The horizon moved to 1 us + 100 ms, the refill took the 2 us
        // event only.
        assert_eq!((q.near.len(), q.far.len(), q.late.len()), (1, 0, 50));
        q.schedule(Time(5_000), 102); // near
        q.schedule(Time(40_000_000), 103); // past the bound (1 us + 30 ms): far
        q.schedule(Time(200_000_000), 104); // past the horizon: late
        assert_eq!((q.near.len(), q.far.len(), q.late.len()), (2, 1, 51));
        // A burst of near events: the list sheds its latest to the far heap.
        for i in 0..NEAR_MAX as u64 {
            q.schedule(Time(10_000 + i), 200 + i);
        }
        assert_eq!(q.near.len(), NEAR_REFILL);
        assert_eq!(q.len(), 2 + 52 + NEAR_MAX);
        let order: Vec<u64> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        let mut want = vec![101, 102];
        want.extend(200..200 + NEAR_MAX as u64);
        want.extend([103, 104]);
        want.extend(0..50);
        assert_eq!(order, want);
    }

    /// Events at `Time::MAX` (saturated "never" times) are still popped
    /// in order: a refill always moves the earliest far event.
    #[test]
    fn events_at_the_end_of_time_still_pop() {
        let mut q = EventQueue::new();
        q.schedule(Time::MAX, 1u64);
        q.schedule(Time::MAX, 2);
        q.schedule(Time(7), 0);
        assert_eq!(q.peek_time(), Some(Time(7)));
        let order: Vec<(u64, u64)> = std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e))).collect();
        assert_eq!(order, vec![(7, 0), (u64::MAX, 1), (u64::MAX, 2)]);
        assert!(q.is_empty());
    }

    #[test]
    #[should_panic(expected = "in the past")]
    fn refuses_the_past() {
        let mut q = EventQueue::new();
        q.schedule(Time(5), 1);
        q.pop();
        q.schedule(Time(4), 2);
    }
}
