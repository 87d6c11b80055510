//! Route requests already handled, by (initiator, request id) (RFC 4728
//! §8.3.1, ns-2 `requesttable.cc`): a node processes each request once.
//! Keeps the most recent ids of each initiator (ns-2 keeps a few per node).

use crate::net::NodeId;
use std::collections::{BTreeMap, VecDeque};

/// Ids remembered per initiator.
const IDS_PER_INITIATOR: usize = 16;

#[derive(Clone, Debug, Default)]
pub struct RequestTable {
    seen: BTreeMap<NodeId, VecDeque<u32>>,
}

impl RequestTable {
    /// Records (initiator, id); false if it was already there.
    pub fn insert(&mut self, initiator: NodeId, id: u32) -> bool {
        let q = self.seen.entry(initiator).or_default();
        if q.contains(&id) {
            return false;
        }
        if q.len() >= IDS_PER_INITIATOR {
            q.pop_front();
        }
        q.push_back(id);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_seen() {
        let mut t = RequestTable::default();
        assert!(t.insert(1, 5));
        assert!(!t.insert(1, 5));
        assert!(t.insert(2, 5));
        for id in 6..30 {
            t.insert(1, id);
        }
        assert!(t.insert(1, 5), "old ids are forgotten");
    }
}
