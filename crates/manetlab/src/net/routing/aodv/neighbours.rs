//! Local connectivity (RFC 3561 §6.9, §6.10): when each neighbour was last
//! heard. With HELLO-based link detection, a neighbour from which no packet
//! of any kind (HELLO, other control, data) has been received for the
//! neighbour timeout is taken as lost.

use crate::net::NodeId;
use crate::sim::Time;
use crate::sim::idhash::IdMap;

/// Last-heard times in a hash map (one update per packet heard, O(1));
/// [`Neighbours::take_lost`] returns the lost neighbours sorted by id.
#[derive(Clone, Debug, Default)]
pub struct Neighbours {
    last_heard: IdMap<NodeId, Time>,
    timeout: Time,
}

impl Neighbours {
    pub fn new(timeout: Time) -> Neighbours {
        Neighbours { last_heard: IdMap::default(), timeout }
    }
    /// A packet from `nb` was received at `now`.
    pub fn heard(&mut self, nb: NodeId, now: Time) {
        self.last_heard.insert(nb, now);
    }
    pub fn remove(&mut self, nb: NodeId) {
        self.last_heard.remove(&nb);
    }
    pub fn contains(&self, nb: NodeId) -> bool {
        self.last_heard.contains_key(&nb)
    }
    pub fn len(&self) -> usize {
        self.last_heard.len()
    }
    pub fn is_empty(&self) -> bool {
        self.last_heard.is_empty()
    }
    /// Removes and returns (in id order) the neighbours silent for the
    /// timeout or longer at `now`.
    pub fn take_lost(&mut self, now: Time) -> Vec<NodeId> {
        let timeout = self.timeout;
        let mut lost: Vec<NodeId> =
            self.last_heard.iter().filter(|(_, &t)| t + timeout <= now).map(|(&nb, _)| nb).collect();
        lost.sort_unstable();
        for nb in &lost {
            self.last_heard.remove(nb);
        }
        lost
    }
    /// The earliest time a neighbour can be lost.
    pub fn next_expiry(&self) -> Option<Time> {
        self.last_heard.values().min().map(|&t| t + self.timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silent_neighbours_are_lost() {
        let mut n = Neighbours::new(Time::from_ms(2100));
        n.heard(4, Time::from_secs(1));
        n.heard(2, Time::from_secs(2));
        assert_eq!(n.next_expiry(), Some(Time::from_ms(3100)));
        assert!(n.take_lost(Time::from_ms(3099)).is_empty());
        n.heard(4, Time::from_ms(3000)); // any packet keeps it
        assert_eq!(n.next_expiry(), Some(Time::from_ms(4100)));
        assert_eq!(n.take_lost(Time::from_ms(4100)), vec![2]);
        assert!(n.contains(4) && !n.contains(2));
        assert_eq!(n.take_lost(Time::from_secs(10)), vec![4]);
        assert!(n.is_empty() && n.next_expiry().is_none());
    }

    proptest::proptest! {
        /// The hash map gives what the `BTreeMap` it replaced gave: same
        /// lost neighbours in the same (id) order, same next expiry.
        #[test]
        fn same_as_an_ordered_map(ops in proptest::collection::vec((0u8..4, 0u32..40, 0u64..50), 0..300)) {
            let timeout = Time::from_ms(2100);
            let mut n = Neighbours::new(timeout);
            let mut model = std::collections::BTreeMap::new();
            let mut now = Time::ZERO;
            for (op, nb, dt) in ops {
                now += Time::from_ms(dt * 20);
                match op {
                    0 | 1 => { n.heard(nb, now); model.insert(nb, now); }
                    2 => { n.remove(nb); model.remove(&nb); }
                    _ => {
                        let lost: Vec<NodeId> =
                            model.iter().filter(|(_, &t)| t + timeout <= now).map(|(&k, _)| k).collect();
                        for k in &lost { model.remove(k); }
                        proptest::prop_assert_eq!(n.take_lost(now), lost);
                    }
                }
                proptest::prop_assert_eq!(n.len(), model.len());
                proptest::prop_assert_eq!(n.contains(nb), model.contains_key(&nb));
                proptest::prop_assert_eq!(n.next_expiry(), model.values().min().map(|&t| t + timeout));
            }
        }
    }
}
