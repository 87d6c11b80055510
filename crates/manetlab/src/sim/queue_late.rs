//! The event queue's late tier (`queue.rs`): the events at or past the
//! window's end, in coarse buckets of one window's span each, so that a
//! window move reads the one or two coarse buckets it needs instead of
//! every late event (session 19; before, an unsorted list scanned whole at
//! every move: at 10^5-10^6 nodes it held every node's beacon timer).
//!
//! Coarse bucket `c` holds the late events with `time >> shift == c`, in no
//! order; `shift` makes a coarse bucket exactly as long as the window. The
//! buckets form a ring of [`COARSE`] (`ring[c % len]`), valid for the
//! coarse indices in `[base, limit)`: every late event is at or after the
//! window's end, whose coarse index is `base` (the queue moves it), and
//! `limit` is at most `base + len`, so two coarse indices never share a
//! ring slot. Events from `limit` on wait in `far`, unsorted; when a
//! window move comes within half a ring of `limit`, `limit` moves to a
//! ring's length past the move's first coarse bucket and the far events
//! before it go to their buckets (one scan of `far` per half a ring of
//! simulated time: [`COARSE`] / 2 windows, 69 s with the default sizes).

use super::Entry;

/// Coarse buckets in the ring: with the queue's 134-ms window, 137 s.
pub(super) const COARSE: usize = 1024;

pub(super) struct Late<E> {
    /// `ring[c % ring.len()]`: coarse bucket `c`'s events, in no order.
    ring: Vec<Vec<Entry<E>>>,
    /// Bit `i` of word `i / 64`: `ring[i]` is not empty.
    mask: Vec<u64>,
    /// Bit `w`: `mask[w]` is not zero.
    summary: u64,
    /// Every ring event's coarse index is in `[base, limit)`, and
    /// `limit <= base + ring.len()`.
    base: u64,
    limit: u64,
    /// The events whose coarse index is `limit` or more, in no order.
    far: Vec<Entry<E>>,
    /// Emptied buckets' storage, reused by the next bucket that fills (a
    /// ring of buckets each keeping its own capacity would hold the
    /// largest bucket's capacity in every slot).
    spare: Vec<Vec<Entry<E>>>,
    len: usize,
    shift: u32,
}

/// The first set bit at or after `from` of a bitmap with a summary word
/// (bit `w` of `summary`: `mask[w]` is not zero).
#[inline]
pub(super) fn first_set(mask: &[u64], summary: u64, from: usize) -> Option<usize> {
    let w = from >> 6;
    let bits = *mask.get(w)? & (!0u64 << (from & 63));
    if bits != 0 {
        return Some((w << 6) + bits.trailing_zeros() as usize);
    }
    // The non-empty words after `w` (none when `w` is the last).
    let words = summary & (!1u64).checked_shl(w as u32).unwrap_or(0);
    if words == 0 {
        return None;
    }
    let w = words.trailing_zeros() as usize;
    Some((w << 6) + mask[w].trailing_zeros() as usize)
}

impl<E: Copy> Late<E> {
    /// `coarse` buckets (a power of two, at most 4,096) of `1 << shift` ns.
    pub(super) fn new(shift: u32, coarse: usize) -> Self {
        assert!(coarse.is_power_of_two() && (2..=64 * 64).contains(&coarse) && shift < 64);
        Late {
            ring: (0..coarse).map(|_| Vec::new()).collect(),
            mask: vec![0; coarse.div_ceil(64)],
            summary: 0,
            base: 0,
            limit: coarse as u64,
            far: Vec::new(),
            spare: Vec::new(),
            len: 0,
            shift,
        }
    }
    pub(super) fn len(&self) -> usize {
        self.len
    }
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Files `e`, at or after the window's end.
    #[inline]
    pub(super) fn push(&mut self, e: Entry<E>) {
        let c = e.time >> self.shift;
        debug_assert!(c >= self.base);
        self.len += 1;
        if c >= self.limit {
            return self.far.push(e);
        }
        self.push_ring(c, e);
    }
    fn push_ring(&mut self, c: u64, e: Entry<E>) {
        let i = (c as usize) & (self.ring.len() - 1);
        let b = &mut self.ring[i];
        if b.is_empty() {
            if b.capacity() == 0 {
                if let Some(v) = self.spare.pop() {
                    *b = v;
                }
            }
            self.mask[i >> 6] |= 1 << (i & 63);
            self.summary |= 1 << (i >> 6);
        }
        b.push(e);
    }
    /// The earliest late event's time (the tier is not empty): the least
    /// time of the first non-empty bucket from `base` in ring order, or of
    /// `far` when the ring is empty.
    pub(super) fn min_time(&self) -> u64 {
        debug_assert!(self.len > 0);
        let p = (self.base as usize) & (self.ring.len() - 1);
        let first = first_set(&self.mask, self.summary, p).or_else(|| first_set(&self.mask, self.summary, 0));
        let b = match first {
            Some(i) => &self.ring[i],
            None => &self.far,
        };
        b.iter().map(|e| e.time).min().expect("a non-empty bucket")
    }
    /// A window move will take coarse buckets `c0..=c1` (`c1 <= c0 + 1`,
    /// `c0` the earliest event's): moves `limit` a ring past `c0` when `c1`
    /// is within half a ring of it, and files the far events before the
    /// new limit in their buckets.
    pub(super) fn reach(&mut self, c0: u64, c1: u64) {
        let n = self.ring.len() as u64;
        if c1 < self.limit.saturating_sub(n / 2) {
            return;
        }
        debug_assert!(c0 >= self.base && c0 + n >= self.limit);
        self.limit = c0 + n;
        let mut i = 0;
        while i < self.far.len() {
            let e = self.far[i];
            let c = e.time >> self.shift;
            if c < self.limit {
                self.far.swap_remove(i);
                self.push_ring(c, e);
            } else {
                i += 1;
            }
        }
    }
    /// Takes coarse bucket `c`'s events out (hand the storage back with
    /// [`Late::recycle`]).
    pub(super) fn take(&mut self, c: u64) -> Vec<Entry<E>> {
        debug_assert!(c >= self.base && c < self.limit);
        let i = (c as usize) & (self.ring.len() - 1);
        let v = std::mem::take(&mut self.ring[i]);
        if !v.is_empty() {
            self.mask[i >> 6] &= !(1 << (i & 63));
            if self.mask[i >> 6] == 0 {
                self.summary &= !(1 << (i >> 6));
            }
        }
        self.len -= v.len();
        v
    }
    /// A taken bucket's storage, emptied, for the next bucket that fills.
    pub(super) fn recycle(&mut self, mut v: Vec<Entry<E>>) {
        v.clear();
        if v.capacity() > 0 {
            self.spare.push(v);
        }
    }
    /// The window's end moved to coarse index `c` (no late event before it).
    pub(super) fn set_base(&mut self, c: u64) {
        debug_assert!(c >= self.base && c <= self.limit);
        self.base = c;
    }
    /// Moves every late event to `out` (the end of time: no more windows).
    pub(super) fn drain_into(&mut self, out: &mut Vec<Entry<E>>) {
        for b in &mut self.ring {
            out.append(b);
        }
        out.append(&mut self.far);
        self.mask.fill(0);
        self.summary = 0;
        self.len = 0;
    }
    /// Every late event, in no order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Entry<E>> {
        self.ring.iter().flatten().chain(self.far.iter())
    }
    /// Events waiting past the ring (tests).
    #[cfg(test)]
    pub(super) fn far_len(&self) -> usize {
        self.far.len()
    }
}
