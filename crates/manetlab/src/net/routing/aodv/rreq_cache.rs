//! Duplicate RREQ detection (RFC 3561 §6.5): a node remembers the
//! (originator, RREQ ID) of every RREQ it has seen for PATH_DISCOVERY_TIME
//! and silently discards the copies that arrive over other paths.
//!
//! The pairs are kept as `u64` keys (originator << 32 | id) in one array,
//! open addressing as in `slots.rs` (linear probing from the top bits of
//! key x K, load at most 1/2, deletion by backward shift, Knuth TAOCP vol.
//! 3 §6.4 Algorithm R): a look-up that finds its key or a free slot at the
//! home slot reads one cache line, where `std`'s hash set read its control
//! group and then the bucket, two lines per RREQ heard at 400 nodes
//! (docs/performance.md, "Session 17 (branch s17ao)").

use crate::net::NodeId;
use crate::sim::Time;
use std::collections::VecDeque;

/// Marks a free slot; the key equal to it (originator and id both
/// `u32::MAX`) is kept in `RreqCache::has_free_key` instead.
const FREE: u64 = u64::MAX;
/// Odd 64-bit multiplier (~2^64 / golden ratio), as in `slots.rs`.
const K: u64 = 0x9E37_79B9_7F4A_7C15;
/// Slots of the first allocation.
const MIN_SLOTS: usize = 16;

#[derive(Clone, Debug)]
pub struct RreqCache {
    /// The remembered keys, `FREE` where none (a power of two in length,
    /// or empty).
    keys: Vec<u64>,
    /// Keys in `keys` (not counting `has_free_key`).
    len: u32,
    /// 64 - log2(keys.len()).
    shift: u8,
    has_free_key: bool,
    /// When the oldest entry is forgotten (`Time::MAX`: no entry): `expire`
    /// reads the queue only then, not for every RREQ heard (the queue's
    /// ring is one more cache miss per packet at 1,000+ nodes).
    next_forget: Time,
    /// (forget at, originator, id), in insertion order; the hold time is a
    /// constant, so this is also expiry order.
    order: VecDeque<(Time, NodeId, u32)>,
    hold: Time,
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
            keys: Vec::new(),
            len: 0,
            shift: 64,
            has_free_key: false,
            next_forget: Time::MAX,
            order: VecDeque::new(),
            hold,
        }
    }

    #[inline]
    fn home(&self, k: u64) -> usize {
        // (shift is 64 only while `keys` is empty: no probe then)
        (k.wrapping_mul(K) >> (self.shift & 63)) as usize
    }

    /// The slot of `k`, or the free slot where it would go.
    #[inline]
    fn probe(&self, k: u64) -> usize {
        let mask = self.keys.len() - 1;
        let mut i = self.home(k);
        loop {
            let x = self.keys[i];
            if x == k || x == FREE {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    #[inline]
    fn contains_key(&self, k: u64) -> bool {
        if k == FREE {
            return self.has_free_key;
        }
        !self.keys.is_empty() && self.keys[self.probe(k)] == k
    }

    /// Adds `k`; false if it was there.
    #[inline]
    fn insert(&mut self, k: u64) -> bool {
        if k == FREE {
            return !std::mem::replace(&mut self.has_free_key, true);
        }
        if (self.len as usize + 1) * 2 > self.keys.len() {
            self.grow();
        }
        let i = self.probe(k);
        if self.keys[i] == k {
            return false;
        }
        self.keys[i] = k;
        self.len += 1;
        true
    }

    fn grow(&mut self) {
        let n = (self.keys.len() * 2).max(MIN_SLOTS);
        let old = std::mem::replace(&mut self.keys, vec![FREE; n]);
        self.shift = (64 - n.trailing_zeros()) as u8;
        for k in old.into_iter().filter(|&k| k != FREE) {
            let i = self.probe(k);
            self.keys[i] = k;
        }
    }

    /// Removes `k` (present) and moves later members of its cluster back so
    /// that every key stays reachable from its home slot (Algorithm R).
    fn remove(&mut self, k: u64) {
        if k == FREE {
            self.has_free_key = false;
            return;
        }
        let mask = self.keys.len() - 1;
        let mut i = self.probe(k);
        debug_assert_eq!(self.keys[i], k);
        self.keys[i] = FREE;
        self.len -= 1;
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            let x = self.keys[j];
            if x == FREE {
                return;
            }
            let h = self.home(x);
            // The key at j stays iff its home is in (i, j], cyclically.
            let stays = if i <= j { i < h && h <= j } else { i < h || h <= j };
            if !stays {
                self.keys[i] = x;
                self.keys[j] = FREE;
                i = j;
            }
        }
    }

    /// Records (originator, id) seen at `now`. Returns true if it was
    /// already known (a duplicate to discard).
    pub fn seen_before(&mut self, orig: NodeId, id: u32, now: Time) -> bool {
        self.expire(now);
        if !self.insert(key(orig, id)) {
            return true;
        }
        self.order.push_back((now + self.hold, orig, id));
        self.next_forget = self.next_forget.min(now + self.hold);
        false
    }

    pub fn contains(&mut self, orig: NodeId, id: u32, now: Time) -> bool {
        self.expire(now);
        self.contains_key(key(orig, id))
    }

    /// Forgets entries older than the hold time.
    pub fn expire(&mut self, now: Time) {
        if now < self.next_forget {
            return;
        }
        while let Some(&(at, o, i)) = self.order.front() {
            if at > now {
                break;
            }
            self.order.pop_front();
            self.remove(key(o, i));
        }
        self.next_forget = self.order.front().map_or(Time::MAX, |e| e.0);
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
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
        assert!(c.seen_before(3, 1, t0 + Time::from_ms(5)), "second copy over another path is a duplicate");
        assert!(!c.seen_before(3, 2, t0 + Time::from_ms(5)), "a new RREQ ID from the same originator is new");
        assert!(!c.seen_before(4, 1, t0 + Time::from_ms(5)), "the same ID from another originator is new");
        assert!(c.seen_before(3, 1, t0 + hold - Time::from_ns(1)), "still remembered just before the hold time");
        assert_eq!(c.len(), 3);
        assert!(!c.contains(3, 1, t0 + hold), "forgotten after PATH_DISCOVERY_TIME");
        assert!(!c.seen_before(3, 1, t0 + hold), "and then accepted again");
        c.expire(t0 + hold * 3);
        assert!(c.is_empty());
    }

    proptest::proptest! {
        /// With the remembered next expiry, the cache answers as a plain
        /// list of (originator, id, forget-at) would, at any sequence of
        /// RREQs, look-ups and expiries.
        #[test]
        fn same_answers_as_a_plain_list(ops in proptest::collection::vec((0u8..3, 0u32..40, 0u32..6, 0u64..40), 0..300)) {
            let hold = Time::from_ms(1000);
            let mut c = RreqCache::new(hold);
            let mut model: Vec<(NodeId, u32, Time)> = Vec::new();
            let mut now = Time::ZERO;
            for (op, orig, id, dt) in ops {
                now += Time::from_ms(dt * 10);
                // Up to 240 keys at once (growth, clusters, wrap-around,
                // backward shifts), and the key equal to the free-slot mark.
                let (orig, id) = if orig == 39 { (NodeId::MAX, u32::MAX) } else { (orig * 64, id << 26) };
                model.retain(|e| e.2 > now);
                let known = model.iter().any(|e| e.0 == orig && e.1 == id);
                match op {
                    0 => {
                        proptest::prop_assert_eq!(c.seen_before(orig, id, now), known);
                        if !known { model.push((orig, id, now + hold)); }
                    }
                    1 => proptest::prop_assert_eq!(c.contains(orig, id, now), known),
                    _ => c.expire(now),
                }
                proptest::prop_assert_eq!(c.len(), model.len());
            }
        }
    }
}
