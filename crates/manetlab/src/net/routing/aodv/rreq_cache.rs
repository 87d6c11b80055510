//! Duplicate RREQ detection (RFC 3561 §6.5): a node remembers the
//! (originator, RREQ ID) of every RREQ it has seen for PATH_DISCOVERY_TIME
//! and silently discards the copies that arrive over other paths.

use crate::net::NodeId;
use crate::sim::Time;
use crate::sim::idhash::IdSet;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct RreqCache {
    seen: IdSet<(NodeId, u32)>,
    /// When the oldest entry is forgotten (`Time::MAX`: no entry): `expire`
    /// reads the queue only then, not for every RREQ heard (the queue's
    /// ring is one more cache miss per packet at 1,000+ nodes).
    next_forget: Time,
    /// (forget at, originator, id), in insertion order; the hold time is a
    /// constant, so this is also expiry order.
    order: VecDeque<(Time, NodeId, u32)>,
    hold: Time,
}

impl RreqCache {
    /// Entries are kept for `hold` (PATH_DISCOVERY_TIME).
    pub fn new(hold: Time) -> RreqCache {
        RreqCache { seen: IdSet::default(), next_forget: Time::MAX, order: VecDeque::new(), hold }
    }

    /// Records (originator, id) seen at `now`. Returns true if it was
    /// already known (a duplicate to discard).
    pub fn seen_before(&mut self, orig: NodeId, id: u32, now: Time) -> bool {
        self.expire(now);
        if !self.seen.insert((orig, id)) {
            return true;
        }
        self.order.push_back((now + self.hold, orig, id));
        self.next_forget = self.next_forget.min(now + self.hold);
        false
    }

    pub fn contains(&mut self, orig: NodeId, id: u32, now: Time) -> bool {
        self.expire(now);
        self.seen.contains(&(orig, id))
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
            self.seen.remove(&(o, i));
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
        fn same_answers_as_a_plain_list(ops in proptest::collection::vec((0u8..3, 0u32..4, 0u32..3, 0u64..40), 0..300)) {
            let hold = Time::from_ms(1000);
            let mut c = RreqCache::new(hold);
            let mut model: Vec<(NodeId, u32, Time)> = Vec::new();
            let mut now = Time::ZERO;
            for (op, orig, id, dt) in ops {
                now += Time::from_ms(dt * 10);
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
