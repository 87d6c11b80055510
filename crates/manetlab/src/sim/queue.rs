//! The event queue: a 4-ary heap ordered by (time, insertion sequence),
//! with a lazily refilled root (see [`EventQueue`]).
//!
//! Two events at the same instant run in the order they were scheduled, so a
//! run is a pure function of its inputs. Cancelled timers are not removed:
//! their owners keep a generation number and ignore stale firings.

use super::time::Time;

/// Heap entry, ordered by (time, insertion sequence).
struct Entry<E> {
    time: u64,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    #[inline]
    fn before(&self, o: &Self) -> bool {
        (self.time, self.seq) < (o.time, o.seq)
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
    fn push(&mut self, e: Entry<E>) {
        if self.hole {
            self.hole = false;
            self.heap[0] = e;
            self.sift_down(0);
            return;
        }
        self.heap.push(e);
        // Sift up.
        let mut i = self.heap.len() - 1;
        while i > 0 {
            let parent = (i - 1) / D;
            if self.heap[i].before(&self.heap[parent]) {
                self.heap.swap(i, parent);
                i = parent;
            } else {
                break;
            }
        }
    }
    /// Refills the root hole with the last entry.
    #[inline]
    fn fill(&mut self) {
        if self.hole {
            self.hole = false;
            let last = self.heap.pop().unwrap();
            if !self.heap.is_empty() {
                self.heap[0] = last;
                self.sift_down(0);
            }
        }
    }
    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let first = i * D + 1;
            if first >= n {
                break;
            }
            let mut best = first;
            for c in (first + 1)..(first + D).min(n) {
                if self.heap[c].before(&self.heap[best]) {
                    best = c;
                }
            }
            if self.heap[best].before(&self.heap[i]) {
                self.heap.swap(i, best);
                i = best;
            } else {
                break;
            }
        }
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
