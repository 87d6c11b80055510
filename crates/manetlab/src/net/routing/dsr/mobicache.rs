//! ns-2.35's two-level DSR route cache ("mobicache", `dsr/mobicache.cc`
//! with the entry rules of `dsr/routecache.cc`), the cache ns-2.35 links
//! by default (its link cache and simple cache are compiled out). Written
//! from reading that code's behaviour; no code copied.
//!
//! - A **primary** cache of 30 paths holds routes this node asked for or
//!   handed out: the route of a reply it received (initiator), the reversed
//!   record it answers a request with (target, or a node replying from its
//!   cache). A **secondary** cache of 64 paths holds routes seen in use:
//!   the rest of a source route this node forwards (from itself to the
//!   end, one direction only), and, overheard, this node, the transmitter
//!   and the rest of the route (again one direction only: ns-2 never learns
//!   the part of a route behind the transmitter).
//! - Each level is an array of slots. A new path goes into the first slot
//!   (in slot order) that is empty or holds a prefix of it (which is
//!   extended in place); if some slot already holds it as a prefix, nothing
//!   changes; otherwise it overwrites the slot under a round-robin victim
//!   pointer. Learning a path again never moves it, so a path is evicted
//!   after as many new paths as the level has slots, however often it is
//!   used.
//! - A lookup takes the shortest route over both levels (a prefix of a
//!   cached path ending at the destination); ties go to the primary level
//!   and, within a level, to the lower slot. A route found in the secondary
//!   level for this node's own packets is **promoted**: the whole path is
//!   added to the primary level and its secondary slot emptied. Lookups for
//!   salvaging or replying from the cache do not promote.
//! - A broken link `from -> to` cuts, in both levels, every path at its
//!   first use of that link **in that direction** (a path that starts with
//!   it is emptied). ns-2 leaves the reverse direction in place.
//!
//! There is no timeout: a path leaves the cache only by eviction or a
//! broken link.

use super::{PathCache, MAX_SR_LEN};
use crate::net::routing::RouteEntry;
use crate::net::NodeId;
use crate::sim::Time;

/// Slots of the primary level (`MobiCache::MobiCache`, "primary", 30).
pub const PRIMARY_SLOTS: usize = 30;
/// Slots of the secondary level ("secondary", 64).
pub const SECONDARY_SLOTS: usize = 64;

/// One level: fixed slots (an empty `Vec` is an empty slot) and the
/// round-robin victim pointer.
#[derive(Clone, Debug)]
struct Level {
    slots: Vec<Vec<NodeId>>,
    victim: usize,
}

impl Level {
    fn new(n: usize) -> Level {
        Level { slots: vec![Vec::new(); n.max(1)], victim: 0 }
    }

    /// Adds `path`; returns whether the level changed.
    fn add(&mut self, path: &[NodeId]) -> bool {
        for s in self.slots.iter_mut() {
            let common = s.iter().zip(path).take_while(|(a, b)| a == b).count();
            if common == s.len() {
                // Empty, or a prefix of the new path: extend in place.
                let grew = path.len() > s.len();
                s.extend_from_slice(&path[common..]);
                return grew;
            }
            if common == path.len() {
                return false; // already held as a prefix
            }
        }
        let v = self.victim;
        self.victim = (self.victim + 1) % self.slots.len();
        let s = &mut self.slots[v];
        s.clear();
        s.extend_from_slice(path);
        true
    }

    /// The shortest (hop count, slot) holding `dst` strictly shorter than
    /// `than` hops.
    fn search(&self, dst: NodeId, than: usize) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        for (k, s) in self.slots.iter().enumerate() {
            if let Some(i) = s.iter().skip(1).position(|&n| n == dst) {
                let hops = i + 1;
                if hops < best.map_or(than, |b| b.0) {
                    best = Some((hops, k));
                }
            }
        }
        best
    }

    fn remove_link(&mut self, from: NodeId, to: NodeId) -> usize {
        let mut touched = 0;
        for s in self.slots.iter_mut() {
            if let Some(i) = s.windows(2).position(|w| w[0] == from && w[1] == to) {
                s.truncate(if i == 0 { 0 } else { i + 1 });
                touched += 1;
            }
        }
        touched
    }
}

/// The two-level cache of one node (module docs).
#[derive(Clone, Debug)]
pub struct MobiCache {
    primary: Level,
    secondary: Level,
}

impl Default for MobiCache {
    fn default() -> Self {
        MobiCache::new(PRIMARY_SLOTS, SECONDARY_SLOTS)
    }
}

impl MobiCache {
    pub fn new(primary: usize, secondary: usize) -> MobiCache {
        MobiCache { primary: Level::new(primary), secondary: Level::new(secondary) }
    }

    fn valid(path: &[NodeId]) -> bool {
        path.len() >= 2 && !path.iter().enumerate().any(|(i, n)| path[i + 1..].contains(n))
    }

    /// ns-2 `addRoute`: a route this node asked for or handed out.
    pub fn add_primary(&mut self, path: &[NodeId]) -> bool {
        Self::valid(path) && self.primary.add(path)
    }

    /// ns-2 `noticeRouteUsed`: a route seen in use.
    pub fn add_secondary(&mut self, path: &[NodeId]) -> bool {
        Self::valid(path) && self.secondary.add(path)
    }

    /// (secondary?, hops, slot) of the route `findRoute` picks.
    fn lookup(&self, dst: NodeId) -> Option<(bool, usize, usize)> {
        let p = self.primary.search(dst, usize::MAX);
        match self.secondary.search(dst, p.map_or(usize::MAX, |b| b.0)) {
            Some((hops, k)) => Some((true, hops, k)),
            None => p.map(|(hops, k)| (false, hops, k)),
        }
    }

    /// ns-2 `findRoute`: the shortest cached route to `dst`; `for_use`
    /// (this node's own packets) promotes a secondary hit to the primary
    /// level.
    pub fn find(&mut self, dst: NodeId, for_use: bool) -> Option<Vec<NodeId>> {
        let (secondary, hops, k) = self.lookup(dst)?;
        if !secondary {
            return Some(self.primary.slots[k][..=hops].to_vec());
        }
        let route = self.secondary.slots[k][..=hops].to_vec();
        if for_use {
            let whole = std::mem::take(&mut self.secondary.slots[k]);
            self.primary.add(&whole);
        }
        Some(route)
    }

    /// The route `find` would return, without promoting it.
    pub fn peek(&self, dst: NodeId) -> Option<Vec<NodeId>> {
        let (secondary, hops, k) = self.lookup(dst)?;
        let level = if secondary { &self.secondary } else { &self.primary };
        Some(level.slots[k][..=hops].to_vec())
    }

    /// Whether a route to `dst` is cached (no promotion).
    pub fn has(&self, dst: NodeId) -> bool {
        self.lookup(dst).is_some()
    }

    /// ns-2 `noticeDeadLink`: cuts paths at `from -> to` (that direction).
    pub fn remove_link(&mut self, from: NodeId, to: NodeId) -> usize {
        self.primary.remove_link(from, to) + self.secondary.remove_link(from, to)
    }

    pub fn len(&self) -> usize {
        self.paths().count()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cached paths, primary slots then secondary slots.
    pub fn paths(&self) -> impl Iterator<Item = &[NodeId]> {
        self.primary.slots.iter().chain(self.secondary.slots.iter()).filter(|s| !s.is_empty()).map(|s| s.as_slice())
    }
}

/// The cache of a DSR node: manetlab's single path list or ns-2.35's
/// mobicache (`[routing] cache`). The learning calls say where a route
/// came from; the path cache treats both alike.
#[derive(Clone, Debug)]
pub enum RouteCache {
    Path(PathCache),
    Mobi(MobiCache),
}

impl RouteCache {
    pub fn new(cfg: &super::DsrConfig) -> RouteCache {
        match cfg.cache {
            CacheKind::Path => RouteCache::Path(PathCache::new(cfg.cache_size, cfg.cache_timeout)),
            CacheKind::Mobicache => RouteCache::Mobi(MobiCache::default()),
        }
    }

    /// The part of `path` a source route can carry: its first
    /// [`MAX_SR_LEN`] nodes (ns-2's `Path` holds at most `MAX_SR_LEN`
    /// addresses). A prefix of a path is a route to every node on it, so a
    /// longer path learnt by snooping (this node + a 16-node source route)
    /// is cached as its usable part instead of a route no packet can carry.
    fn fit(path: &[NodeId]) -> &[NodeId] {
        &path[..path.len().min(MAX_SR_LEN)]
    }

    pub fn is_mobi(&self) -> bool {
        matches!(self, RouteCache::Mobi(_))
    }

    /// A route this node asked for or handed out (ns-2 `addRoute`).
    pub fn add_asked(&mut self, path: &[NodeId], now: Time) -> bool {
        let path = Self::fit(path);
        match self {
            RouteCache::Path(c) => c.add(path, now),
            RouteCache::Mobi(c) => c.add_primary(path),
        }
    }

    /// A route seen in use (ns-2 `noticeRouteUsed`).
    pub fn add_seen(&mut self, path: &[NodeId], now: Time) -> bool {
        let path = Self::fit(path);
        match self {
            RouteCache::Path(c) => c.add(path, now),
            RouteCache::Mobi(c) => c.add_secondary(path),
        }
    }

    /// The route for this node's own packet (promotes in the mobicache).
    pub fn find_for_use(&mut self, dst: NodeId, now: Time) -> Option<Vec<NodeId>> {
        match self {
            RouteCache::Path(c) => c.find(dst, now),
            RouteCache::Mobi(c) => c.find(dst, true),
        }
    }

    /// The route for salvaging or replying from the cache (no promotion).
    pub fn find(&self, dst: NodeId, now: Time) -> Option<Vec<NodeId>> {
        match self {
            RouteCache::Path(c) => c.find(dst, now),
            RouteCache::Mobi(c) => c.peek(dst),
        }
    }

    pub fn has(&self, dst: NodeId, now: Time) -> bool {
        match self {
            RouteCache::Path(c) => c.has(dst, now),
            RouteCache::Mobi(c) => c.has(dst),
        }
    }

    /// The link `from -> to` is broken: the path cache cuts both
    /// directions, the mobicache only this one (ns-2 `noticeDeadLink`).
    pub fn remove_link(&mut self, from: NodeId, to: NodeId) -> usize {
        match self {
            RouteCache::Path(c) => c.remove_link(from, to),
            RouteCache::Mobi(c) => c.remove_link(from, to),
        }
    }

    pub fn routes(&self, now: Time, out: &mut Vec<RouteEntry>) {
        match self {
            RouteCache::Path(c) => c.routes(now, out),
            RouteCache::Mobi(c) => {
                let first = out.len();
                for p in c.paths() {
                    super::cache::add_path_routes(p, first, out);
                }
                out[first..].sort_unstable_by_key(|e| e.dst);
            }
        }
    }

    pub fn len(&self) -> usize {
        match self {
            RouteCache::Path(c) => c.len(),
            RouteCache::Mobi(c) => c.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `[routing] cache`: which route cache DSR keeps.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum CacheKind {
    /// One list of `cache_size` paths, oldest evicted, both directions of
    /// every route learnt, optional `cache_timeout`.
    #[default]
    Path,
    /// ns-2.35's two-level cache (this module).
    Mobicache,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_longer_than_a_source_route_are_cached_as_their_usable_prefix() {
        // Snooping a 16-node source route from its last transmitter gives
        // this node + 16 nodes: 17, one more than a source route carries
        // (the mrc study's 50-node DSR runs hit this and panicked in
        // `send_on`).
        let long: Vec<NodeId> = (0..20).collect();
        for kind in [CacheKind::Path, CacheKind::Mobicache] {
            let cfg = crate::net::routing::dsr::DsrConfig { cache: kind, ..Default::default() };
            let mut c = RouteCache::new(&cfg);
            assert!(c.add_seen(&long, Time::ZERO), "{kind:?}");
            let last = (MAX_SR_LEN - 1) as NodeId;
            assert_eq!(c.find(last, Time::ZERO).map(|p| p.len()), Some(MAX_SR_LEN), "{kind:?}");
            assert_eq!(c.find(MAX_SR_LEN as NodeId, Time::ZERO), None, "{kind:?}: beyond the usable prefix");
            let mut other: Vec<NodeId> = vec![0];
            other.extend(100..120);
            c.add_asked(&other, Time::ZERO);
            assert_eq!(c.find(114, Time::ZERO).map(|p| p.len()), Some(MAX_SR_LEN), "{kind:?}");
            assert_eq!(c.find(115, Time::ZERO), None, "{kind:?}");
        }
    }

    #[test]
    fn prefix_rules_and_round_robin_eviction_without_refresh() {
        let mut c = MobiCache::new(2, 2);
        assert!(c.add_primary(&[0, 1, 2]));
        assert!(c.add_primary(&[0, 1, 2, 3]), "extends its prefix in place");
        assert!(!c.add_primary(&[0, 1]), "already held as a prefix");
        assert!(c.add_primary(&[0, 4]));
        assert_eq!(c.paths().collect::<Vec<_>>(), vec![&[0, 1, 2, 3][..], &[0, 4][..]]);
        // Full: the victim pointer starts at slot 0 and is not reset by
        // learning [0, 1, 2, 3] again.
        assert!(!c.add_primary(&[0, 1, 2, 3]));
        assert!(c.add_primary(&[0, 5]));
        assert_eq!(c.find(3, false), None, "evicted although just learnt again");
        assert!(c.add_primary(&[0, 6]));
        assert_eq!(c.find(4, false), None);
        assert_eq!(c.find(5, false), Some(vec![0, 5]));
    }

    #[test]
    fn shortest_over_levels_primary_wins_ties_and_promotion() {
        let mut c = MobiCache::default();
        c.add_primary(&[0, 1, 2, 3]);
        c.add_secondary(&[0, 7, 3, 9]);
        c.add_secondary(&[0, 8, 2]);
        // 3: two hops in secondary beat three in primary.
        assert_eq!(c.find(3, false), Some(vec![0, 7, 3]));
        // 2: two hops in both: primary wins.
        assert_eq!(c.find(2, true), Some(vec![0, 1, 2]));
        assert_eq!(c.secondary.slots.iter().filter(|s| !s.is_empty()).count(), 2, "no promotion from a primary hit");
        // A secondary hit for own use moves the whole path to primary.
        assert_eq!(c.find(9, true), Some(vec![0, 7, 3, 9]));
        assert!(c.primary.slots.iter().any(|s| s == &[0, 7, 3, 9]));
        assert!(!c.secondary.slots.iter().any(|s| s == &[0, 7, 3, 9]));
        assert_eq!(c.find(3, false), Some(vec![0, 7, 3]));
    }

    #[test]
    fn dead_links_cut_one_direction() {
        let mut c = MobiCache::default();
        c.add_primary(&[0, 1, 2, 3]);
        c.add_secondary(&[0, 2, 1]);
        c.add_secondary(&[0, 4, 5]);
        assert_eq!(c.remove_link(2, 3), 1);
        assert_eq!(c.find(3, false), None);
        assert!(c.primary.slots.iter().any(|s| s == &[0, 1, 2]), "truncated path kept");
        // 1 -> 2 is cut; 2 -> 1 (in [0, 2, 1]) stays.
        assert_eq!(c.remove_link(1, 2), 1);
        assert_eq!(c.find(2, false), Some(vec![0, 2]));
        assert_eq!(c.find(1, false), Some(vec![0, 1]));
        // A path starting with the dead link is emptied.
        assert_eq!(c.remove_link(0, 4), 1);
        assert_eq!(c.find(5, false), None);
        assert!(!c.add_primary(&[0, 5, 0]), "loops refused");
    }
}
