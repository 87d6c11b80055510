//! Duplicate RREQ detection (RFC 3561 §6.5): a node remembers the
//! (originator, RREQ ID) of every RREQ it has seen for PATH_DISCOVERY_TIME
//! and silently discards the copies that arrive over other paths.
//!
//! The pairs are kept as `u64` keys (originator << 32 | id) in one array,
//! open addressing as in `slots.rs` (linear probing from the top bits of
//! key x K, load at most 3/4, four 16-byte slots a cache line): a look-up
//! that finds its key or a free slot near the home slot reads one cache
//! line, where `std`'s hash set read its control group and then the
//! bucket, two lines per RREQ heard at 400 nodes (docs/performance.md,
//! "Session 17 (branch s17ao)").
//!
//! Each slot holds its key's forget time (the time it was first seen plus
//! the hold time): a key whose time has passed answers as absent, and a
//! new copy of it takes the slot again with a new time. Nothing is removed
//! one at a time: when an insertion would fill the array past 3/4, the
//! keys still remembered are copied into a clean array (of twice the size
//! if they would fill more than 3/8 of it), so each insertion pays for
//! about eight slots read in order. Removing each key when its time
//! came (a queue in insertion order, a probe and a backward shift per key)
//! was a second cache miss per RREQ remembered, on a line last touched a
//! hold time earlier: `RreqCache::expire` was 1.2 % of the 400-node
//! ns-2-config file's time (docs/performance.md, "Session 18 (branch
//! s18rt)").

use crate::net::NodeId;
use crate::sim::Time;

/// Marks a free slot; the key equal to it (originator and id both
/// `u32::MAX`) has its forget time in `RreqCache::free_key_forget` instead.
const FREE: u64 = u64::MAX;
/// Odd 64-bit multiplier (~2^64 / golden ratio), as in `slots.rs`.
const K: u64 = 0x9E37_79B9_7F4A_7C15;
/// Slots of the first allocation.
const MIN_SLOTS: usize = 16;

/// A remembered key and when it is forgotten (`FREE` key: no key).
/// 16 bytes aligned to 16: four per cache line, never across two.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
struct Slot {
    key: u64,
    forget: Time,
}

const FREE_SLOT: Slot = Slot { key: FREE, forget: Time::ZERO };

/// `repr(C)`: what a RREQ heard reads (the array, its counts, the hold
/// time) first, in one cache line of `Aodv`'s box (`aodv/mod.rs`).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct RreqCache {
    /// The keys (a power of two in length, or empty), remembered or
    /// forgotten but not yet swept.
    slots: Vec<Slot>,
    /// Slots not `FREE` (not counting the free-mark key).
    used: u32,
    /// 64 - log2(slots.len()).
    shift: u8,
    hold: Time,
    /// The free-mark key's forget time (`Time::ZERO`: not remembered, since
    /// `now` is never below zero).
    free_key_forget: Time,
    /// The array a sweep fills (kept: no allocation per sweep once sized).
    spare: Vec<Slot>,
}

impl Default for RreqCache {
    fn default() -> Self {
        RreqCache::new(Time::ZERO)
    }
}

#[inline]
fn key(orig: NodeId, id: u32) -> u64 {
    ((orig as u64) << 32) | id as u64
}

impl RreqCache {
    /// Entries are kept for `hold` (PATH_DISCOVERY_TIME).
    pub fn new(hold: Time) -> RreqCache {
        RreqCache {
            slots: Vec::new(),
            used: 0,
            shift: 64,
            free_key_forget: Time::ZERO,
            hold,
            spare: Vec::new(),
        }
    }

    #[inline]
    fn home(&self, k: u64) -> usize {
        // (shift is 64 only while `slots` is empty: no probe then)
        (k.wrapping_mul(K) >> (self.shift & 63)) as usize
    }

    /// The slot of `k`, or the free slot where it would go.
    #[inline]
    fn probe(&self, k: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.home(k);
        loop {
            let x = self.slots[i].key;
            if x == k || x == FREE {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// Starts loading the slot where a look-up of (`orig`, `id`) starts (no
    /// effect on the cache or on any answer).
    #[inline]
    pub fn prefetch(&self, orig: NodeId, id: u32) {
        if !self.slots.is_empty() {
            super::slots::prefetch_line(self.slots.as_ptr().wrapping_add(self.home(key(orig, id))) as *const u8);
        }
    }

    /// Records (originator, id) seen at `now`. Returns true if it was
    /// already known (a duplicate to discard).
    #[inline]
    pub fn seen_before(&mut self, orig: NodeId, id: u32, now: Time) -> bool {
        let k = key(orig, id);
        let forget = now + self.hold;
        if k == FREE {
            if self.free_key_forget > now {
                return true;
            }
            self.free_key_forget = forget;
            return false;
        }
        if (self.used as usize + 1) * 4 > self.slots.len() * 3 {
            self.sweep(now);
        }
        let i = self.probe(k);
        let s = &mut self.slots[i];
        if s.key == k {
            if s.forget > now {
                return true;
            }
            // Forgotten (its hold time is over): seen afresh.
            s.forget = forget;
            return false;
        }
        *s = Slot { key: k, forget };
        self.used += 1;
        false
    }

    /// Whether (originator, id) is remembered at `now`.
    pub fn contains(&self, orig: NodeId, id: u32, now: Time) -> bool {
        let k = key(orig, id);
        if k == FREE {
            return self.free_key_forget > now;
        }
        if self.slots.is_empty() {
            return false;
        }
        let s = self.slots[self.probe(k)];
        s.key == k && s.forget > now
    }

    /// Copies the keys remembered at `now` into a clean array, twice as
    /// large if they fill more than 3/8 of this one (never smaller), so
    /// that at least 3/8 of the slots are insertions away from the next
    /// sweep. (Load 1/2 and a quarter made the array twice as large: more
    /// misses per look-up than the removals it saved, in paired runs.)
    #[cold]
    fn sweep(&mut self, now: Time) {
        let live = self.slots.iter().filter(|s| s.key != FREE && s.forget > now).count();
        let mut n = self.slots.len().max(MIN_SLOTS);
        while (live + 1) * 8 > n * 3 {
            n *= 2;
        }
        self.spare.clear();
        self.spare.resize(n, FREE_SLOT);
        std::mem::swap(&mut self.slots, &mut self.spare);
        self.shift = (64 - n.trailing_zeros()) as u8;
        self.used = live as u32;
        let mask = n - 1;
        for s in self.spare.iter().filter(|s| s.key != FREE && s.forget > now) {
            let mut i = (s.key.wrapping_mul(K) >> self.shift) as usize;
            while self.slots[i].key != FREE {
                i = (i + 1) & mask;
            }
            self.slots[i] = *s;
        }
    }

    /// Keys remembered at `now`.
    pub fn len(&self, now: Time) -> usize {
        let spare = (self.free_key_forget > now) as usize;
        spare + self.slots.iter().filter(|s| s.key != FREE && s.forget > now).count()
    }
    pub fn is_empty(&self, now: Time) -> bool {
        self.len(now) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_suppressed_for_path_discovery_time() {
        let hold = Time::from_ms(5600);
        let mut c = RreqCache::new(hold);
        let t0 = Time::from_secs(1);
        assert!(!c.seen_before(3, 1, t0), "first copy is new");
        let t1 = t0 + Time::from_ms(5);
        assert!(c.seen_before(3, 1, t1), "second copy over another path is a duplicate");
        assert!(!c.seen_before(3, 2, t1), "a new RREQ ID from the same originator is new");
        assert!(!c.seen_before(4, 1, t1), "the same ID from another originator is new");
        assert!(c.seen_before(3, 1, t0 + hold - Time::from_ns(1)), "still remembered just before the hold time");
        assert_eq!(c.len(t1), 3);
        assert!(!c.contains(3, 1, t0 + hold), "forgotten after PATH_DISCOVERY_TIME");
        assert!(!c.seen_before(3, 1, t0 + hold), "and then accepted again");
        assert!(c.seen_before(3, 1, t0 + hold * 2 - Time::from_ns(1)), "for a new hold time");
        assert!(c.is_empty(t0 + hold * 3));
    }

    proptest::proptest! {
        /// The cache answers as a plain list of (originator, id,
        /// forget-at) would, at any sequence of RREQs and look-ups.
        #[test]
        fn same_answers_as_a_plain_list(ops in proptest::collection::vec((0u8..3, 0u32..40, 0u32..6, 0u64..40), 0..400)) {
            let hold = Time::from_ms(1000);
            let mut c = RreqCache::new(hold);
            let mut model: Vec<(NodeId, u32, Time)> = Vec::new();
            let mut now = Time::ZERO;
            for (op, orig, id, dt) in ops {
                now += Time::from_ms(dt * 10);
                // Up to 240 keys at once (growth, sweeps, clusters,
                // wrap-around), and the key equal to the free-slot mark.
                let (orig, id) = if orig == 39 { (NodeId::MAX, u32::MAX) } else { (orig * 64, id << 26) };
                model.retain(|e| e.2 > now);
                let known = model.iter().any(|e| e.0 == orig && e.1 == id);
                match op {
                    0 | 2 => {
                        proptest::prop_assert_eq!(c.seen_before(orig, id, now), known);
                        if !known { model.push((orig, id, now + hold)); }
                    }
                    _ => proptest::prop_assert_eq!(c.contains(orig, id, now), known),
                }
                proptest::prop_assert_eq!(c.len(now), model.len());
                proptest::prop_assert!(c.used as usize * 4 <= c.slots.len() * 3);
            }
        }
    }
}
