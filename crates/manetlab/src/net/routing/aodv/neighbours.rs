//! Local connectivity (RFC 3561 §6.9, §6.10): when each neighbour was last
//! heard. With HELLO-based link detection, a neighbour from which no packet
//! of any kind (HELLO, other control, data) has been received for the
//! neighbour timeout is taken as lost.

use crate::net::NodeId;
use crate::sim::Time;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default)]
pub struct Neighbours {
    last_heard: BTreeMap<NodeId, Time>,
    timeout: Time,
}

impl Neighbours {
    pub fn new(timeout: Time) -> Neighbours {
        Neighbours { last_heard: BTreeMap::new(), timeout }
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
        let lost: Vec<NodeId> =
            self.last_heard.iter().filter(|(_, &t)| t + timeout <= now).map(|(&nb, _)| nb).collect();
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
}
