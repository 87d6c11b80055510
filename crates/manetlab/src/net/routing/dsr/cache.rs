//! The route cache: a path cache (ns-2's CMU "mobicache" keeps paths too).
//! Every entry is a node sequence starting at this node; a path to X also
//! gives a route to every node before X on it. Lookups return the shortest
//! prefix ending at the destination (the most recently added among equals).
//! Entries optionally expire `timeout` after they were last added or
//! refreshed (CMU's cache had no timeout: stale routes stay until a route
//! error removes them, which is what section 5.1 of the ELFN paper studies).

use super::MAX_SR_LEN;
use crate::net::NodeId;
use crate::sim::Time;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct PathCache {
    /// The cached paths, oldest first (a deque: the oldest is evicted at
    /// the front in O(1)).
    paths: VecDeque<Entry>,
    capacity: usize,
    timeout: Option<Time>,
}

/// One cached path, held inline: `add` compares a new path with every
/// cached one, and a scan over one contiguous array does not wait for a
/// cache miss per path as one `Vec` per path did (issue 25).
#[derive(Clone, Debug)]
struct Entry {
    nodes: [NodeId; MAX_SR_LEN],
    len: u8,
    /// When it was last added or refreshed.
    t: Time,
    /// [`mask`] of the path: a scan skips the paths that cannot hold a
    /// node or a path without comparing them (issue 25: `find` and `add`
    /// compared every cached path, ~0.6 % of the 30-node DSR benchmark).
    mask: u64,
}

/// One bit per node id modulo 64: a path holds `q` only if its mask holds
/// `q`'s (a filter, never an answer: equal bits are compared in full).
#[inline]
fn mask(path: &[NodeId]) -> u64 {
    path.iter().fold(0, |m, &n| m | 1 << (n & 63))
}

impl Entry {
    fn path(&self) -> &[NodeId] {
        &self.nodes[..self.len as usize]
    }
    fn set(&mut self, path: &[NodeId], now: Time) {
        self.nodes[..path.len()].copy_from_slice(path);
        self.len = path.len() as u8;
        self.t = now;
        self.mask = mask(path);
    }
    /// Whether `short` is a prefix of this path.
    #[inline]
    fn starts_with(&self, short: &[NodeId], short_mask: u64) -> bool {
        short_mask & !self.mask == 0 && is_prefix(short, self.path())
    }
    /// Whether this path is a prefix of `long`.
    #[inline]
    fn prefix_of(&self, long: &[NodeId], long_mask: u64) -> bool {
        self.mask & !long_mask == 0 && is_prefix(self.path(), long)
    }
}

/// Whether `long` starts with `short`. Compared from the end: every cached
/// path starts at this node and most share the next hop, so mismatches
/// show at the far end; and inline, because a `memcmp` call per cached
/// path (`<[T]>::starts_with`) was most of the cost of `add` in DSR
/// networks (issue 25).
#[inline]
fn is_prefix(short: &[NodeId], long: &[NodeId]) -> bool {
    short.len() <= long.len() && short.iter().rev().zip(long[..short.len()].iter().rev()).all(|(a, b)| a == b)
}

impl PathCache {
    pub fn new(capacity: usize, timeout: Option<Time>) -> PathCache {
        PathCache { paths: VecDeque::new(), capacity: capacity.max(1), timeout }
    }

    fn live(&self, t: Time, now: Time) -> bool {
        self.timeout.is_none_or(|to| t + to > now)
    }

    /// Adds `path` (which starts at this node), cut to its first
    /// [`MAX_SR_LEN`] nodes as a source route is (`RouteCache` cuts it
    /// before). Ignored if shorter than two nodes or if it visits a node
    /// twice. Returns whether it was new.
    pub fn add(&mut self, path: &[NodeId], now: Time) -> bool {
        let path = &path[..path.len().min(MAX_SR_LEN)];
        if path.len() < 2 {
            return false;
        }
        // As many mask bits as nodes: no two nodes share an id mod 64, so
        // none repeats (the pairwise check, 120 comparisons for 16 nodes,
        // only runs when two ids share a bit).
        let m = mask(path);
        if m.count_ones() as usize != path.len() {
            for (i, n) in path.iter().enumerate() {
                if path[i + 1..].contains(n) {
                    return false;
                }
            }
        }
        if let Some(to) = self.timeout {
            self.paths.retain(|e| e.t + to > now);
        }
        // One scan: the oldest cached path that holds the new one as a
        // prefix (then it is refreshed), and whether any cached path is a
        // prefix of the new one (then it is subsumed).
        let mut subsumes = false;
        let mut held = None;
        for (i, e) in self.paths.iter().enumerate() {
            if e.len as usize >= path.len() {
                if e.starts_with(path, m) {
                    held = Some(i);
                    break;
                }
            } else if !subsumes && e.prefix_of(path, m) {
                subsumes = true;
            }
        }
        // Already known as (a prefix of) a cached path: refresh it.
        if let Some(i) = held {
            let mut e = self.paths.remove(i).expect("index from the scan");
            e.t = now;
            self.paths.push_back(e);
            return false;
        }
        // Cached paths that are prefixes of the new one are subsumed.
        if subsumes {
            self.paths.retain(|e| !e.prefix_of(path, m));
        }
        // At capacity the oldest goes.
        let mut e = if self.paths.len() >= self.capacity {
            self.paths.pop_front().expect("capacity >= 1")
        } else {
            Entry { nodes: [0; MAX_SR_LEN], len: 0, t: now, mask: 0 }
        };
        e.set(path, now);
        self.paths.push_back(e);
        true
    }

    /// The shortest cached route from this node to `dst` (both included).
    pub fn find(&self, dst: NodeId, now: Time) -> Option<Vec<NodeId>> {
        let mut best: Option<&[NodeId]> = None;
        let bit = mask(&[dst]);
        for e in self.paths.iter().rev() {
            if e.mask & bit == 0 || !self.live(e.t, now) {
                continue;
            }
            let p = e.path();
            if let Some(i) = p.iter().position(|&n| n == dst) {
                if i > 0 && best.is_none_or(|b| i + 1 < b.len()) {
                    best = Some(&p[..=i]);
                }
            }
        }
        best.map(|b| b.to_vec())
    }

    /// Whether [`PathCache::find`] finds a route to `dst` (without building it).
    pub fn has(&self, dst: NodeId, now: Time) -> bool {
        let bit = mask(&[dst]);
        self.paths.iter().any(|e| {
            e.mask & bit != 0 && self.live(e.t, now) && e.path().iter().position(|&n| n == dst).is_some_and(|i| i > 0)
        })
    }

    /// Cuts every cached path at the link between `a` and `b` (either
    /// direction: links are symmetric). Returns how many paths it touched.
    pub fn remove_link(&mut self, a: NodeId, b: NodeId) -> usize {
        let mut touched = 0;
        for e in self.paths.iter_mut() {
            if let Some(i) = e.path().windows(2).position(|w| (w[0] == a && w[1] == b) || (w[0] == b && w[1] == a)) {
                e.len = i as u8 + 1;
                e.mask = mask(e.path());
                touched += 1;
            }
        }
        self.paths.retain(|e| e.len >= 2);
        touched
    }

    pub fn len(&self) -> usize {
        self.paths.len()
    }
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }
    /// The shortest live route to every node the cache reaches, as table
    /// entries in destination order (the next hop is the path's second node).
    pub fn routes(&self, now: Time, out: &mut Vec<crate::net::routing::RouteEntry>) {
        let first = out.len();
        for e in self.paths.iter().rev() {
            if !self.live(e.t, now) {
                continue;
            }
            add_path_routes(e.path(), first, out);
        }
        out[first..].sort_unstable_by_key(|e| e.dst);
    }

    /// The cached paths, oldest first.
    pub fn paths(&self) -> impl Iterator<Item = &[NodeId]> {
        self.paths.iter().map(|e| e.path())
    }
}


/// The routes a cached path `p` (this node first) gives to every node on it,
/// merged into `out[first..]`: a destination keeps its fewest hops (the
/// first path seen wins ties). Shared by both caches' `routes`.
pub(super) fn add_path_routes(p: &[NodeId], first: usize, out: &mut Vec<crate::net::routing::RouteEntry>) {
    for (i, &dst) in p.iter().enumerate().skip(1) {
        match out[first..].iter_mut().find(|e| e.dst == dst) {
            Some(e) if e.hops <= Some(i as u32) => {}
            Some(e) => {
                e.next_hop = p[1];
                e.hops = Some(i as u32);
            }
            None => out.push(crate::net::routing::RouteEntry {
                dst,
                next_hop: p[1],
                hops: Some(i as u32),
                valid: true,
                seq: None,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_prefix_and_link_removal() {
        let t = Time::ZERO;
        let mut c = PathCache::new(8, None);
        assert!(c.add(&[0, 1, 2, 3], t));
        assert!(c.add(&[0, 4, 3], t));
        assert!(!c.add(&[0, 1, 2], t), "prefix of a cached path");
        assert!(!c.add(&[0, 5, 0], t), "loop");
        assert_eq!(c.find(3, t), Some(vec![0, 4, 3]));
        assert_eq!(c.find(2, t), Some(vec![0, 1, 2]));
        assert_eq!(c.find(9, t), None);
        assert_eq!(c.remove_link(3, 4), 1);
        assert_eq!(c.find(3, t), Some(vec![0, 1, 2, 3]));
        assert_eq!(c.remove_link(1, 2), 1);
        assert_eq!(c.find(3, t), None);
        assert_eq!(c.find(4, t), Some(vec![0, 4]));
        assert_eq!(c.find(1, t), Some(vec![0, 1]));
    }

    #[test]
    fn timeout_and_capacity() {
        let mut c = PathCache::new(2, Some(Time::from_secs(1)));
        c.add(&[0, 1], Time::ZERO);
        assert!(c.find(1, Time::from_ms(999)).is_some());
        assert!(c.find(1, Time::from_secs(1)).is_none());
        c.add(&[0, 2], Time::from_secs(2));
        c.add(&[0, 3], Time::from_secs(2));
        c.add(&[0, 4], Time::from_secs(2));
        assert_eq!(c.len(), 2);
        assert!(c.find(2, Time::from_secs(2)).is_none(), "oldest evicted");
    }

    /// The path cache as it was before session 11 (one `Vec` per path,
    /// two scans with `starts_with`): the reference the proptest below holds the
    /// faster one to.
    struct Plain {
        paths: Vec<(Vec<NodeId>, Time)>,
        capacity: usize,
        timeout: Option<Time>,
    }

    impl Plain {
        fn add(&mut self, path: &[NodeId], now: Time) -> bool {
            if path.len() < 2 {
                return false;
            }
            for (i, n) in path.iter().enumerate() {
                if path[i + 1..].contains(n) {
                    return false;
                }
            }
            let timeout = self.timeout;
            self.paths.retain(|(_, t)| timeout.is_none_or(|to| *t + to > now));
            if let Some(i) = self.paths.iter().position(|(p, _)| p.starts_with(path)) {
                let mut e = self.paths.remove(i);
                e.1 = now;
                self.paths.push(e);
                return false;
            }
            self.paths.retain(|(p, _)| !path.starts_with(p));
            self.paths.push((path.to_vec(), now));
            if self.paths.len() > self.capacity {
                self.paths.remove(0);
            }
            true
        }
    }

    proptest::proptest! {
        /// Random adds (paths from node 0 over nodes 0..6, so prefixes,
        /// extensions, loops and refreshes are frequent), link removals and
        /// lookups on a small cache, with and without a timeout: the same
        /// answers and the same cached paths, in the same order, as the
        /// plain implementation after every step. `wide` renames the nodes
        /// to ids that share bits of the path masks (0, 64, 128; 1, 65).
        #[test]
        fn add_same_as_the_plain_implementation(
            wide in proptest::bool::ANY,
            capacity in 1usize..6,
            timeout in proptest::option::of(1u64..6),
            ops in proptest::collection::vec(
                (0u8..4, proptest::collection::vec(0u32..6, 0..6), 0u32..6, 0u32..6, 0u64..2), 0..120),
        ) {
            let timeout = timeout.map(Time::from_secs);
            let mut fast = PathCache::new(capacity, timeout);
            let mut plain = Plain { paths: Vec::new(), capacity, timeout };
            let mut now = Time::ZERO;
            let id = |n: u32| if wide { [0, 64, 1, 128, 65, 3][n as usize] } else { n };
            for (op, tail, a, b, dt) in ops {
                let (tail, a, b): (Vec<NodeId>, _, _) = (tail.into_iter().map(id).collect(), id(a), id(b));
                now += Time::from_secs(dt);
                match op {
                    0 | 1 => {
                        let path: Vec<NodeId> = std::iter::once(0).chain(tail).collect();
                        proptest::prop_assert_eq!(fast.add(&path, now), plain.add(&path, now));
                    }
                    2 => {
                        let touched = fast.remove_link(a, b);
                        let mut plain_touched = 0;
                        for (p, _) in plain.paths.iter_mut() {
                            if let Some(i) = p.windows(2).position(|w| (w[0] == a && w[1] == b) || (w[0] == b && w[1] == a)) {
                                p.truncate(i + 1);
                                plain_touched += 1;
                            }
                        }
                        plain.paths.retain(|(p, _)| p.len() >= 2);
                        proptest::prop_assert_eq!(touched, plain_touched);
                    }
                    _ => {
                        let mut best: Option<&[NodeId]> = None;
                        for (p, t) in plain.paths.iter().rev() {
                            if timeout.is_some_and(|to| *t + to <= now) {
                                continue;
                            }
                            if let Some(i) = p.iter().position(|&n| n == a) {
                                if i > 0 && best.is_none_or(|x| i + 1 < x.len()) {
                                    best = Some(&p[..=i]);
                                }
                            }
                        }
                        proptest::prop_assert_eq!(fast.has(a, now), best.is_some());
                        proptest::prop_assert_eq!(fast.find(a, now), best.map(|x| x.to_vec()));
                    }
                }
                let cached: Vec<&[NodeId]> = fast.paths().collect();
                let expected: Vec<&[NodeId]> = plain.paths.iter().map(|(p, _)| p.as_slice()).collect();
                proptest::prop_assert_eq!(cached, expected);
                let stamps: Vec<Time> = fast.paths.iter().map(|e| e.t).collect();
                let plain_stamps: Vec<Time> = plain.paths.iter().map(|e| e.1).collect();
                proptest::prop_assert_eq!(stamps, plain_stamps);
            }
        }
    }
}
