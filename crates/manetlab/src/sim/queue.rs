//! The event queue, ordered by (time, insertion sequence): a short sorted
//! list of the imminent events, a wheel of time buckets for the next tens
//! of milliseconds and coarse buckets of a window each for the later ones
//! (see [`EventQueue`]).
//!
//! Two events at the same instant run in the order they were scheduled, so a
//! run is a pure function of its inputs. Cancelled timers are not removed:
//! their owners keep a generation number and ignore stale firings.

use super::time::Time;
#[path = "queue_late.rs"]
mod late;
use late::{Late, COARSE};

#[cfg(test)]
thread_local! {
    /// Every entry this thread's queues take, (time, sequence) in push
    /// order, while `Some` (`record_pushes`): two runs that must schedule
    /// the same events in the same order compare these.
    static PUSHES: std::cell::RefCell<Option<Vec<(u64, u64)>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` and returns what it returned with the (time, sequence) of
/// every queue entry pushed meanwhile on this thread, in push order.
#[cfg(test)]
pub(crate) fn record_pushes<R>(f: impl FnOnce() -> R) -> (R, Vec<(u64, u64)>) {
    PUSHES.with(|p| *p.borrow_mut() = Some(Vec::new()));
    let r = f();
    (r, PUSHES.with(|p| p.borrow_mut().take().unwrap_or_default()))
}

/// The panic of a push before now, out of line: `assert!`'s message kept
/// the pushed time spilled to the stack on every push.
#[cold]
#[inline(never)]
fn scheduled_in_the_past(at: Time, now: Time) -> ! {
    panic!("event scheduled in the past: {at} < {now}")
}

/// Queue entry, ordered by (time, insertion sequence).
#[derive(Clone, Copy)]
struct Entry<E> {
    time: u64,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    /// The (time, seq) order as one 128-bit key (one `cmp`/`sbb` pair).
    #[inline(always)]
    fn key(&self) -> u128 {
        ((self.time as u128) << 64) | self.seq as u128
    }
}

/// A wheel bucket spans `1 << BUCKET_SHIFT` ns (65.5 us).
const BUCKET_SHIFT: u32 = 16;
/// Buckets in the wheel (at most 4,096: one summary word of 64 bits, each
/// for 64 buckets): with [`BUCKET_SHIFT`], a window of 134 ms. The
/// kernel's own events (signals, transmission ends, MAC timers) are
/// microseconds to a few milliseconds ahead; routing and transport timers
/// mostly 0.1-10 s (docs/performance.md, sessions 12 and 18). Replaying the
/// 400-node file's queue operations, 65.5-us buckets over 134 ms cost 12 %
/// fewer instructions than 16.4-us ones over 67 ms, and the same on the
/// bench scenarios.
const BUCKETS: usize = 2048;
/// A refill of the near list takes whole buckets until it holds this many.
const NEAR_REFILL: usize = 8;
/// Past this many near events the latest go back to the wheel.
const NEAR_MAX: usize = 32;

/// A refill inserts each event in place while the near list is shorter
/// than this, then appends and sorts.
const SORT_AFTER: usize = 32;

/// No slot (end of a bucket's list, empty free list).
const NIL: u32 = u32::MAX;

/// Pending events, earliest first; ties broken by scheduling order.
///
/// Three tiers split at two keys (the (time, seq) order as one 128-bit
/// number). Every event before `bound` is in `near`, a short list sorted
/// latest first: the next event is its last, taken at no cost, and most
/// pushes land a place or two from its end. The events from `bound` up to
/// the window's end (`wend`, a time) are in a wheel of [`BUCKETS`] buckets
/// of `1 << shift` ns from `wstart`, each an unsorted list of slots (a push
/// is a slot and two links); the later ones are in `late`, in coarse
/// buckets of one window's span, unsorted (a push is a `Vec::push` into
/// its coarse bucket; `queue_late.rs`). When the near list runs empty it
/// takes the earliest non-empty buckets (found through a bitmap of buckets
/// and a summary word of the bitmap) until it holds [`NEAR_REFILL`] events,
/// sorts them, and the bound moves to the end of the last bucket taken; if
/// the wheel is then empty, the bound moves to the window's end, so a sparse
/// run's pushes all land in the near list as with the short list and heap
/// this replaced (session 12). When the wheel and the near list are both
/// empty, the window moves to start now (or at the earliest late event, if
/// that is further than a window away) and the late events inside it go
/// to their buckets: it reads the one or two coarse buckets that hold
/// them, at most one window move per window of simulated time (the whole
/// late list was read before session 19). When the near list grows past
/// [`NEAR_MAX`] (a dense network), its latest events go back to their
/// buckets and the bound falls to the earliest of them.
///
/// Every near key is below `bound`, every wheel key at or above it and its
/// time before `wend`, every late time at or after `wend`; a bucket's events
/// are all before the next bucket's. So events run in exactly the (time,
/// seq) order of one heap. Replaying the queue operations of the four bench
/// scenarios and of the 400-node file, this costs 24-31 % fewer
/// instructions than the sorted list before a 4-ary heap it replaced, whose
/// sift-downs at a refill cost one level per factor four of the heap's ~500
/// events at 400 nodes (docs/performance.md, session 18).
pub struct EventQueue<E> {
    /// Sorted by key, latest first: the next event is the last. Index 0
    /// holds a sentinel (key `u128::MAX`, above every event's: sequence
    /// numbers stay below `u64::MAX`), so a push's insertion walk stops
    /// at it without testing the index, and the list is never empty (no
    /// event: length 1).
    near: Vec<Entry<E>>,
    /// Every near key is below it, every wheel key at or above it.
    bound: u128,
    /// Bucket `b` holds the wheel's events in `[wstart + (b << shift),
    /// wstart + ((b + 1) << shift))`; `wend` is the window's end.
    wstart: u64,
    wend: u64,
    /// The first slot of each bucket's list (`NIL`: empty).
    heads: Vec<u32>,
    /// Bit `b` of word `b / 64`: bucket `b` is not empty.
    mask: Vec<u64>,
    /// Bit `w`: `mask[w]` is not zero.
    summary: u64,
    /// Every bucket before it is empty.
    cursor: usize,
    /// The wheel's events by slot, and each slot's successor in its bucket
    /// (or in the free list, for a free slot).
    slab: Vec<Entry<E>>,
    next: Vec<u32>,
    free: u32,
    in_wheel: usize,
    /// In coarse buckets of one window's span (`queue_late.rs`).
    late: Late<E>,
    /// [`BUCKET_SHIFT`], [`NEAR_REFILL`], [`NEAR_MAX`] (smaller in tests,
    /// with fewer buckets).
    shift: u32,
    refill_max: usize,
    /// Past this length (`NEAR_MAX` events and the sentinel) the latest
    /// near events go back to the wheel.
    near_len_max: usize,
    next_seq: u64,
    now: Time,
}

impl<E: Copy + Default> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy + Default> EventQueue<E> {
    pub fn new() -> Self {
        Self::with_limits(BUCKET_SHIFT, BUCKETS, NEAR_REFILL, NEAR_MAX, COARSE)
    }
    fn with_limits(shift: u32, buckets: usize, refill_max: usize, near_max: usize, coarse: usize) -> Self {
        assert!(buckets.is_power_of_two() && (64..=64 * 64).contains(&buckets) && shift < 40);
        debug_assert!(refill_max >= 1 && near_max >= refill_max);
        let mut near = Vec::with_capacity(near_max + 2);
        near.push(Entry { time: u64::MAX, seq: u64::MAX, event: E::default() });
        EventQueue {
            near,
            bound: 0,
            wstart: 0,
            wend: 0,
            heads: vec![NIL; buckets],
            mask: vec![0; buckets / 64],
            summary: 0,
            cursor: 0,
            slab: Vec::with_capacity(256),
            next: Vec::with_capacity(256),
            free: NIL,
            in_wheel: 0,
            // A coarse bucket spans the window.
            late: Late::new(shift + buckets.trailing_zeros(), coarse),
            shift,
            refill_max,
            near_len_max: near_max + 1,
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
        if at < self.now {
            scheduled_in_the_past(at, self.now);
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.push(at.0, seq, event);
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
        if at < self.now {
            scheduled_in_the_past(at, self.now);
        }
        debug_assert!(seq < self.next_seq);
        self.push(at.0, seq, event);
    }
    /// The entry's fields apart, so that a near push keeps them in
    /// registers (an `Entry` argument was staged on the stack and copied
    /// from there twice).
    #[inline(always)]
    fn push(&mut self, time: u64, seq: u64, event: E) {
        let e = Entry { time, seq, event };
        let k = e.key();
        debug_assert!(seq != u64::MAX);
        #[cfg(test)]
        PUSHES.with(|p| p.borrow_mut().as_mut().map(|v| v.push((time, seq))));
        if k >= self.bound {
            return self.push_far(time, seq, event);
        }
        // One insertion step from the end (the earliest events).
        let i = self.near.len();
        debug_assert!(i < self.near.capacity());
        // SAFETY: `i < capacity`: the near list always has room for one
        // more entry between calls (`with_limits` gives it `near_max + 2`
        // slots for at most `near_max + 1` entries; a push that makes it
        // longer than that calls `shed`, and `shed` and `fill_near`, the
        // only other places it grows, end with `keep_room`; nothing
        // shrinks the capacity). So slot `i` is inside the allocation; the
        // list grows over it and the walk fills it before anything reads
        // it (the walk's first step moves entry `i - 1` into it, or the
        // event goes there). The walk reads entry `j - 1` only for
        // `j >= 1`: it stops at index 0 at the latest, where the
        // sentinel's key (`u128::MAX`) is not below `k` (the event's
        // sequence number is below `u64::MAX`). Every entry read or
        // written is in `0..=i`. (`Entry` is `Copy`: nothing is dropped.)
        unsafe {
            self.near.set_len(i + 1);
            let mut p = self.near.as_mut_ptr().add(i);
            while (*p.sub(1)).key() < k {
                *p = *p.sub(1);
                p = p.sub(1);
            }
            *p = e;
        }
        if i + 1 > self.near_len_max {
            self.shed();
        }
    }
    /// Keeps room for one more near entry (`push` writes without testing
    /// the capacity): grows the list when it is full. The near list
    /// outgrows `near_max + 2` entries only when `shed` cannot send events
    /// back (past the end of time, or events from before the window's
    /// start; `never_events_keep_their_place` runs it) or a refill takes
    /// a dense bucket.
    #[inline(always)]
    fn keep_room(&mut self) {
        if self.near.len() == self.near.capacity() {
            self.keep_room_grow();
        }
    }
    #[cold]
    #[inline(never)]
    fn keep_room_grow(&mut self) {
        self.near.reserve(self.near.len());
    }
    /// An event at or past the bound: to the wheel or the late tier. Out of
    /// line, so that a push into the near list (most pushes on the bench
    /// scenarios) needs only the registers a call may clobber: no saved
    /// registers, no event staged on the stack (docs/performance.md,
    /// "Session 20 (branch s20mt)").
    #[inline(never)]
    fn push_far(&mut self, time: u64, seq: u64, event: E) {
        let e = Entry { time, seq, event };
        if e.time >= self.wend {
            return self.late.push(e);
        }
        self.push_wheel(e)
    }
    /// Files `e` (time in the window, key at or above the bound) in its
    /// bucket.
    #[inline(always)]
    fn push_wheel(&mut self, e: Entry<E>) {
        debug_assert!(e.time >= self.wstart && e.time < self.wend && e.key() >= self.bound);
        let b = ((e.time - self.wstart) >> self.shift) as usize;
        let slot = if self.free != NIL {
            let s = self.free;
            self.free = self.next[s as usize];
            self.slab[s as usize] = e;
            s
        } else {
            self.slab.push(e);
            self.next.push(NIL);
            (self.slab.len() - 1) as u32
        };
        self.next[slot as usize] = self.heads[b];
        self.heads[b] = slot;
        self.mask[b >> 6] |= 1 << (b & 63);
        self.summary |= 1 << (b >> 6);
        self.in_wheel += 1;
    }
    /// Moves the latest near events back to their buckets (those inside the
    /// window: an event pushed before the window's start stays).
    #[inline(never)]
    fn shed(&mut self) {
        self.shed_back();
        self.keep_room();
    }
    /// `shed`'s work.
    #[inline(always)]
    fn shed_back(&mut self) {
        if self.bound == u128::MAX {
            return; // past the end of time: no window
        }
        // `near[1..k]`: the latest events but `refill_max` (index 0 is the sentinel).
        let mut k = self.near.len() - self.refill_max;
        while k > 1 && self.near[k - 1].time < self.wstart {
            k -= 1;
        }
        if k == 1 {
            return;
        }
        let first = self.near[k - 1];
        self.bound = first.key();
        self.cursor = self.cursor.min(((first.time - self.wstart) >> self.shift) as usize);
        for i in 1..k {
            let e = self.near[i];
            self.push_wheel(e);
        }
        self.near.drain(1..k);
    }
    /// The first non-empty bucket at or after the cursor.
    #[inline]
    fn next_bucket(&self) -> Option<usize> {
        let w = self.cursor >> 6;
        let bits = *self.mask.get(w)? & (!0u64 << (self.cursor & 63));
        if bits != 0 {
            return Some((w << 6) + bits.trailing_zeros() as usize);
        }
        // The non-empty words after `w` (none when `w` is the last).
        let words = self.summary & (!1u64).checked_shl(w as u32).unwrap_or(0);
        if words == 0 {
            return None;
        }
        let w = words.trailing_zeros() as usize;
        Some((w << 6) + self.mask[w].trailing_zeros() as usize)
    }
    /// The near list is empty: moves the earliest buckets over (after
    /// moving the window when the wheel is empty too).
    #[inline(never)]
    fn fill_near(&mut self) {
        self.take_buckets();
        self.keep_room();
    }
    /// `fill_near`'s work.
    #[inline(always)]
    fn take_buckets(&mut self) {
        let mut b = match self.next_bucket() {
            Some(b) => b,
            None => {
                if self.late.is_empty() {
                    return;
                }
                self.advance();
                match self.next_bucket() {
                    Some(b) => b,
                    None => return, // past the end of time: all in the near list
                }
            }
        };
        let mut sorted = true;
        loop {
            self.take_bucket(b, &mut sorted);
            match self.next_bucket() {
                Some(n) if self.near.len() <= self.refill_max => b = n, // (the sentinel counted)
                Some(_) => break,
                None => {
                    // The wheel is empty: every later push before the
                    // window's end joins the near list.
                    self.cursor = self.heads.len();
                    self.bound = (self.wend as u128) << 64;
                    break;
                }
            }
        }
        if !sorted {
            self.near.sort_unstable_by_key(|e| std::cmp::Reverse(e.key()));
        }
    }
    /// Moves bucket `b`'s events to the near list, frees their slots, and
    /// moves the cursor and the bound past the bucket. Each event is
    /// inserted from the list's end while it is short (a bucket's list is
    /// last pushed first, mostly latest first: mostly no step; calling
    /// `sort_unstable` cost ~1 % of the 400-node file's time); past
    /// [`SORT_AFTER`] events they are appended and `sorted` turns false
    /// (the caller sorts), so a dense bucket costs no quadratic insertion.
    #[inline(always)]
    fn take_bucket(&mut self, b: usize, sorted: &mut bool) {
        self.mask[b >> 6] &= !(1 << (b & 63));
        if self.mask[b >> 6] == 0 {
            self.summary &= !(1 << (b >> 6));
        }
        let mut s = std::mem::replace(&mut self.heads[b], NIL);
        while s != NIL {
            let e = self.slab[s as usize];
            let after = self.next[s as usize];
            self.next[s as usize] = self.free;
            self.free = s;
            s = after;
            self.in_wheel -= 1;
            let mut i = self.near.len();
            self.near.push(e);
            if *sorted && i < SORT_AFTER {
                let k = e.key();
                while i > 0 && self.near[i - 1].key() < k {
                    self.near[i] = self.near[i - 1];
                    i -= 1;
                }
                self.near[i] = e;
            } else {
                *sorted = false;
            }
        }
        self.cursor = b + 1;
        self.bound = ((self.wstart + ((b as u64 + 1) << self.shift)) as u128) << 64;
    }
    /// The near list and the wheel are empty: a new window starts now (or
    /// at the earliest late event, when that is a window or more away) and
    /// the late events inside it go to their buckets. They are all in the
    /// coarse buckets of the earliest late event and of the window's last
    /// instant (at most two: a coarse bucket spans a window, and the
    /// window ends before the earliest late event plus a window); those
    /// buckets' later events go back to the late tier.
    #[inline(never)]
    fn advance(&mut self) {
        debug_assert!(self.near.len() == 1 && self.in_wheel == 0);
        let m = self.late.min_time();
        let cshift = self.shift + self.heads.len().trailing_zeros();
        let span = 1u64 << cshift;
        let start = if m.saturating_sub(self.now.0) < span { self.now.0 } else { m };
        let Some(end) = start.checked_add(span) else {
            // Past the end of time ("never" after saturating arithmetic):
            // the near list takes everything from now on.
            self.wend = u64::MAX;
            self.bound = u128::MAX;
            self.late.drain_into(&mut self.near);
            self.near.sort_unstable_by_key(|e| std::cmp::Reverse(e.key()));
            return;
        };
        self.wstart = start;
        self.wend = end;
        self.cursor = 0;
        self.bound = (start as u128) << 64;
        let (c0, c1) = (m >> cshift, (end - 1) >> cshift);
        debug_assert!(c1 <= c0 + 1);
        self.late.reach(c0, c1);
        for c in c0..=c1 {
            let v = self.late.take(c);
            for &e in &v {
                if e.time < end {
                    self.push_wheel(e);
                } else {
                    self.late.push(e);
                }
            }
            self.late.recycle(v);
        }
        self.late.set_base(end >> cshift);
    }
    #[inline]
    fn fill(&mut self) {
        if self.near.len() == 1 {
            self.fill_near();
        }
    }
    /// The earliest near event, or the sentinel (time `u64::MAX`) when
    /// there is none: the list is never empty.
    #[inline(always)]
    fn last(&self) -> &Entry<E> {
        // SAFETY: `near` always holds the sentinel (pushed in
        // `with_limits`; `shed` drains `1..k`, `pop` and `pop_until`
        // never take it: see there).
        unsafe { self.near.get_unchecked(self.near.len() - 1) }
    }
    /// Schedules `event` after `delay` from now.
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule(self.now + delay, event);
    }
    /// Time of the earliest pending event.
    pub fn peek_time(&mut self) -> Option<Time> {
        self.fill();
        (self.near.len() > 1).then(|| Time(self.last().time))
    }
    /// The (time, sequence) key of the earliest pending event.
    pub fn peek_key(&mut self) -> Option<(u64, u64)> {
        self.fill();
        (self.near.len() > 1).then(|| (self.last().time, self.last().seq))
    }
    /// The earliest pending event's key as one number (time in the high
    /// 64 bits, sequence in the low), or `u128::MAX` when nothing is
    /// pending: `peek_key` without its `Option`, for callers that compare
    /// an event's key with the head's and treat "nothing queued" as the
    /// largest key. After the refill an empty list's last entry is the
    /// sentinel, whose key is `u128::MAX` (above every event's: sequence
    /// numbers stay below `u64::MAX`), so no test is needed (session 23:
    /// the `Option` and its test were most of what the frame loops'
    /// inlined look-ups cost over the load).
    #[inline(always)]
    pub fn peek_key128(&mut self) -> u128 {
        self.fill();
        self.last().key()
    }
    /// Removes the earliest event and advances `now` to its time.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.fill();
        if self.near.len() == 1 {
            return None; // the sentinel alone
        }
        let e = self.near.pop()?;
        self.now = Time(e.time);
        Some((self.now, e.event))
    }
    /// Removes the earliest event if it is due at or before `t` and
    /// advances `now` to its time (`pop_until_ref`, the event copied).
    #[inline]
    pub fn pop_until(&mut self, t: Time) -> Option<E> {
        self.pop_until_ref(t).copied()
    }
    /// Removes the earliest event if it is due at or before `t`, advances
    /// `now` to its time and lends the event where it lies (the event
    /// loop's one call per event). `t` is capped one below `u64::MAX`, so
    /// the sentinel (time `u64::MAX`) always fails the test and an empty
    /// near list needs no test of its own before it: the refill is in the
    /// rare branch, and so is an event at `u64::MAX` ns itself (a
    /// saturated "never"), due only when `t` is the end of time (as before
    /// the sentinel).
    ///
    /// The event is lent, not returned by value (session 23): the value,
    /// merged with the rare branch's, went through a stack slot (a 16-byte
    /// store and a reload of each field, and a test of the `Option`'s
    /// tag); a pointer stays in a register and the caller reads the
    /// fields it needs from the entry.
    #[inline]
    pub fn pop_until_ref(&mut self, t: Time) -> Option<&E> {
        let i = self.near.len() - 1;
        let time = self.last().time;
        if time > t.0.min(u64::MAX - 1) {
            return self.pop_until_rare(t);
        }
        Some(self.take_last(i, time))
    }
    /// `pop_until_ref`'s rare cases, out of line: nothing due yet (the end
    /// of a `run_until`), an emptied near list to refill, an event at
    /// `u64::MAX` asked for up to `u64::MAX`.
    #[cold]
    #[inline(never)]
    fn pop_until_rare(&mut self, t: Time) -> Option<&E> {
        if self.near.len() == 1 {
            self.fill_near();
        }
        let i = self.near.len() - 1;
        let time = self.last().time;
        // Past the cap only an event at `u64::MAX`, or the sentinel.
        let due = time < u64::MAX && time <= t.0 || t.0 == u64::MAX && i > 0;
        if !due {
            return None;
        }
        Some(self.take_last(i, time))
    }
    /// Removes the near list's last entry (index `i`, time `time`), a real
    /// event, moves the clock to it and lends its event.
    #[inline(always)]
    fn take_last(&mut self, i: usize, time: u64) -> &E {
        debug_assert!(time >= self.now.0 && i >= 1 && i + 1 == self.near.len());
        self.now = Time(time);
        // SAFETY: `i >= 1` is the index of the last entry, a real event
        // (callers checked: its time is at most the cap, below the
        // sentinel's, or the list holds more than the sentinel), so the
        // list keeps the sentinel. The entry stays initialised in the
        // allocation past the new length (`Entry` is `Copy`: nothing is
        // dropped), and the returned borrow holds `self` borrowed, so no
        // push can overwrite it while it is read.
        unsafe {
            self.near.set_len(i);
            &(*self.near.as_ptr().add(i)).event
        }
    }
    /// Advances the clock with no event (used at the end of a run).
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }
    pub fn len(&self) -> usize {
        self.near.len() - 1 + self.in_wheel + self.late.len()
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
        let wheel = self.heads.iter().flat_map(move |&h| {
            let link = |s: u32| (s != NIL).then_some(s);
            std::iter::successors(link(h), move |&s| link(self.next[s as usize]))
        });
        self.near[1..]
            .iter()
            .chain(wheel.map(move |s| &self.slab[s as usize]))
            .chain(self.late.iter())
            .map(|e| &e.event)
    }
}

#[cfg(test)]
#[path = "queue_tests.rs"]
mod tests;
