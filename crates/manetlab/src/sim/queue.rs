//! The event queue: a 4-ary heap ordered by (time, insertion sequence),
//! with a lazily refilled root (see [`EventQueue`]).
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

/// Children per heap node: a 4-ary heap is shallower than a binary one, so
/// an event moves fewer times on its way up and down.
const D: usize = 4;

/// Pending events, earliest first; ties broken by scheduling order.
///
/// `pop` leaves the root slot empty (`hole`) instead of refilling it at
/// once: when the handler of the popped event schedules its next event
/// (a frame's next signal, a timer re-armed), that event goes into the hole
/// and sinks to its place (one sift-down) instead of a sift-down to refill
/// the root plus a sift-up that, for an imminent event, climbs all the way
/// back to it.
///
/// Sifting moves a hole rather than swapping entries (one write per level),
/// and the smallest of a full set of four children is chosen with
/// branch-free selects on the 128-bit key (perf on the 10-hop TCP chain:
/// `push` + `sift_down` were 31 % of the CPU with 14-77 pending events,
/// mostly mispredicted comparisons; docs/performance.md).
pub struct EventQueue<E> {
    heap: Vec<Entry<E>>,
    /// heap[0] holds no event (taken by the last `pop`).
    hole: bool,
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
        EventQueue { heap: Vec::with_capacity(1024), hole: false, next_seq: 0, now: Time::ZERO }
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
    #[inline]
    fn push(&mut self, e: Entry<E>) {
        if self.hole {
            self.hole = false;
            self.sift_down_from(0, e);
            return;
        }
        // Sift up: move parents down into the hole until `e` fits.
        let mut i = self.heap.len();
        self.heap.push(e);
        let k = e.key();
        while i > 0 {
            let parent = (i - 1) / D;
            let p = self.heap[parent];
            if k < p.key() {
                self.heap[i] = p;
                i = parent;
            } else {
                break;
            }
        }
        self.heap[i] = e;
    }
    /// Refills the root hole with the last entry.
    #[inline]
    fn fill(&mut self) {
        if self.hole {
            self.hole = false;
            let last = self.heap.pop().unwrap();
            if !self.heap.is_empty() {
                self.sift_down_from(0, last);
            }
        }
    }
    /// Places `e` at slot `i` (whose content is dead) and sinks it to its
    /// place, moving the smaller child up at each level.
    #[inline]
    fn sift_down_from(&mut self, mut i: usize, e: Entry<E>) {
        let heap = &mut self.heap[..];
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
    /// Schedules `event` after `delay` from now.
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule(self.now + delay, event);
    }
    /// Time of the earliest pending event.
    pub fn peek_time(&mut self) -> Option<Time> {
        self.fill();
        self.heap.first().map(|e| Time(e.time))
    }
    /// The (time, sequence) key of the earliest pending event.
    pub fn peek_key(&mut self) -> Option<(u64, u64)> {
        self.fill();
        self.heap.first().map(|e| (e.time, e.seq))
    }
    /// Removes the earliest event and advances `now` to its time.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.fill();
        let e = self.heap.first()?;
        let (t, ev) = (Time(e.time), e.event);
        self.hole = true;
        debug_assert!(t >= self.now);
        self.now = t;
        Some((t, ev))
    }
    /// Advances the clock with no event (used at the end of a run).
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }
    pub fn len(&self) -> usize {
        self.heap.len() - self.hole as usize
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
        // With a hole, heap[0] holds the event already popped.
        self.heap[self.hole as usize..].iter().map(|e| &e.event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        fn matches_a_sorted_model(ops in proptest::collection::vec((proptest::bool::ANY, 0u64..1_000), 1..400)) {
            let mut q = EventQueue::new();
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
        fn reserved_sequence_numbers_keep_their_place(ops in proptest::collection::vec((0u8..3, 0u64..50), 1..300)) {
            let mut q = EventQueue::new();
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

    #[test]
    #[should_panic(expected = "in the past")]
    fn refuses_the_past() {
        let mut q = EventQueue::new();
        q.schedule(Time(5), 1);
        q.pop();
        q.schedule(Time(4), 2);
    }
}
