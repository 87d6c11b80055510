//! The AODV routing table (RFC 3561 §2, §6.1, §6.2).
//!
//! One entry per destination: the destination sequence number and whether
//! it is known ("valid sequence number" flag), the route state, hop count,
//! next hop, lifetime and precursor list. Entries are kept in a hash map
//! keyed by destination ([`IdMap`]: O(1) lookups; the table is looked up
//! for every control message heard, and at 1,000 nodes holds hundreds of
//! neighbours, where a `BTreeMap` walk was 7.6 % of the CPU). Every walk
//! whose order can reach an output (which routes use a broken link, the
//! table as the viewer shows it) is sorted by destination, as the
//! `BTreeMap` it replaced iterated.
//!
//! Lifetimes are checked lazily: a valid entry whose lifetime has passed is
//! not *active* (lookups ignore it) and [`RouteTable::purge`], run
//! periodically, turns it into an invalid entry that is deleted
//! DELETE_PERIOD later (§6.11).

use crate::net::NodeId;
use crate::sim::Time;
use crate::sim::idhash::IdMap;

/// `a` is fresher than `b`: signed 32-bit comparison, so the numbers may
/// wrap around (§6.1).
pub fn seq_newer(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

/// `a` is at least as fresh as `b` (signed 32-bit comparison).
pub fn seq_at_least(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) >= 0
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RouteState {
    /// Usable while its lifetime lasts.
    Valid,
    /// Broken or expired; kept (with its sequence number and last hop
    /// count) until its lifetime, then deleted.
    Invalid,
    /// Broken, and this node is repairing it locally (§6.12).
    Repairing,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    pub dst: NodeId,
    pub seq: u32,
    /// The sequence number is known (false for routes learnt from a
    /// neighbour's transmission alone).
    pub valid_seq: bool,
    pub state: RouteState,
    pub hops: u8,
    pub next_hop: NodeId,
    /// Valid: when the route expires. Invalid: when it is deleted.
    pub lifetime: Time,
    /// Neighbours that route through this node towards `dst` (they get a
    /// RERR when the route breaks).
    pub precursors: Vec<NodeId>,
}

impl Route {
    pub fn is_active(&self, now: Time) -> bool {
        self.state == RouteState::Valid && self.lifetime > now
    }
}

/// Route information carried by a RREQ (the reverse route) or a RREP (the
/// forward route).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Offer {
    pub dst: NodeId,
    pub seq: u32,
    pub hops: u8,
    pub next_hop: NodeId,
    /// Absolute expiry time of the offered route.
    pub lifetime: Time,
    /// Keep a longer lifetime the entry already has (reverse routes, §6.5);
    /// a RREP sets the lifetime it carries (§6.7).
    pub keep_longer: bool,
}

#[derive(Clone, Debug, Default)]
pub struct RouteTable {
    routes: IdMap<NodeId, Route>,
    delete_period: Time,
}

impl RouteTable {
    pub fn new(delete_period: Time) -> RouteTable {
        RouteTable { routes: IdMap::default(), delete_period }
    }
    pub fn get(&self, dst: NodeId) -> Option<&Route> {
        self.routes.get(&dst)
    }
    pub fn get_mut(&mut self, dst: NodeId) -> Option<&mut Route> {
        self.routes.get_mut(&dst)
    }
    /// The route to `dst` if it is valid and not expired.
    pub fn active(&self, dst: NodeId, now: Time) -> Option<&Route> {
        self.routes.get(&dst).filter(|r| r.is_active(now))
    }
    pub fn len(&self) -> usize {
        self.routes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }
    /// The entries in destination order (allocates: for the viewer and
    /// tests, not for per-packet paths).
    pub fn iter(&self) -> impl Iterator<Item = &Route> {
        let mut v: Vec<&Route> = self.routes.values().collect();
        v.sort_unstable_by_key(|r| r.dst);
        v.into_iter()
    }

    /// Applies the update rules of §6.2 and §6.7: the offer replaces the
    /// entry iff the entry's sequence number is unknown, or the offer's is
    /// newer, or they are equal and the entry is not active or the offer is
    /// shorter. Returns true if the entry was created or replaced (it is then
    /// valid with the offer's next hop; precursors are kept).
    pub fn offer(&mut self, o: Offer, now: Time) -> bool {
        match self.routes.get_mut(&o.dst) {
            None => {
                self.routes.insert(
                    o.dst,
                    Route {
                        dst: o.dst,
                        seq: o.seq,
                        valid_seq: true,
                        state: RouteState::Valid,
                        hops: o.hops,
                        next_hop: o.next_hop,
                        lifetime: o.lifetime,
                        precursors: Vec::new(),
                    },
                );
                true
            }
            Some(r) => {
                let fresher = !r.valid_seq
                    || seq_newer(o.seq, r.seq)
                    || (o.seq == r.seq && (!r.is_active(now) || o.hops < r.hops));
                if !fresher {
                    return false;
                }
                let lifetime =
                    if o.keep_longer && r.is_active(now) && r.lifetime > o.lifetime { r.lifetime } else { o.lifetime };
                r.seq = o.seq;
                r.valid_seq = true;
                r.state = RouteState::Valid;
                r.hops = o.hops;
                r.next_hop = o.next_hop;
                r.lifetime = lifetime;
                true
            }
        }
    }

    /// The previous hop of a received message is a neighbour: create or
    /// update a one-hop route to it without a valid sequence number (§6.5,
    /// §6.7), valid until at least `until`.
    pub fn neighbour(&mut self, nb: NodeId, until: Time, now: Time) {
        match self.routes.get_mut(&nb) {
            None => {
                self.routes.insert(
                    nb,
                    Route {
                        dst: nb,
                        seq: 0,
                        valid_seq: false,
                        state: RouteState::Valid,
                        hops: 1,
                        next_hop: nb,
                        lifetime: until,
                        precursors: Vec::new(),
                    },
                );
            }
            Some(r) => {
                if r.is_active(now) && r.next_hop == nb && r.hops == 1 {
                    r.lifetime = r.lifetime.max(until);
                } else if r.state != RouteState::Repairing {
                    r.state = RouteState::Valid;
                    r.hops = 1;
                    r.next_hop = nb;
                    r.lifetime = until;
                }
            }
        }
    }

    /// Records a neighbour's own sequence number (from its HELLO), keeping
    /// the freshest.
    pub fn learn_seq(&mut self, dst: NodeId, seq: u32) {
        if let Some(r) = self.routes.get_mut(&dst) {
            if !r.valid_seq || seq_newer(seq, r.seq) {
                r.seq = seq;
                r.valid_seq = true;
            }
        }
    }

    /// Extends an active route's lifetime to at least `until` (a route in
    /// use stays up, §6.2).
    pub fn refresh(&mut self, dst: NodeId, until: Time, now: Time) {
        if let Some(r) = self.routes.get_mut(&dst) {
            if r.is_active(now) && r.lifetime < until {
                r.lifetime = until;
            }
        }
    }

    /// Breaks the route to `dst` (§6.11): the sequence number is incremented
    /// if known (`new_seq` overrides it, as a received RERR does), the entry
    /// becomes invalid and is deleted DELETE_PERIOD from now. Returns the
    /// sequence number to advertise and the precursors (the list is emptied).
    pub fn invalidate(&mut self, dst: NodeId, new_seq: Option<u32>, now: Time) -> Option<(u32, Vec<NodeId>)> {
        let r = self.routes.get_mut(&dst)?;
        match new_seq {
            Some(s) if !r.valid_seq || seq_newer(s, r.seq) => {
                r.seq = s;
                r.valid_seq = true;
            }
            Some(_) => {}
            None if r.valid_seq => r.seq = r.seq.wrapping_add(1),
            None => {}
        }
        r.state = RouteState::Invalid;
        r.lifetime = now + self.delete_period;
        Some((r.seq, std::mem::take(&mut r.precursors)))
    }

    /// Marks the route as under local repair until `until`, incrementing its
    /// sequence number (§6.12) if `bump_seq` (ns-2.35 does not). Its
    /// precursors and hop count are kept.
    pub fn start_repair(&mut self, dst: NodeId, until: Time, bump_seq: bool) -> Option<&Route> {
        let r = self.routes.get_mut(&dst)?;
        if r.valid_seq && bump_seq {
            r.seq = r.seq.wrapping_add(1);
        }
        r.state = RouteState::Repairing;
        r.lifetime = until;
        Some(r)
    }

    pub fn add_precursor(&mut self, dst: NodeId, p: NodeId) {
        if let Some(r) = self.routes.get_mut(&dst) {
            if !r.precursors.contains(&p) {
                r.precursors.push(p);
            }
        }
    }

    /// Forgets a lost neighbour as a precursor of every route.
    pub fn remove_precursor(&mut self, p: NodeId) {
        for r in self.routes.values_mut() {
            r.precursors.retain(|&x| x != p);
        }
    }

    /// Destinations of the active routes whose next hop is `nh`, in order.
    pub fn active_via(&self, nh: NodeId, now: Time) -> Vec<NodeId> {
        let mut v: Vec<NodeId> =
            self.routes.values().filter(|r| r.next_hop == nh && r.is_active(now)).map(|r| r.dst).collect();
        v.sort_unstable();
        v
    }

    /// Turns expired valid routes into invalid ones (deleted DELETE_PERIOD
    /// after they expired) and deletes invalid routes whose time is up.
    /// Routes under repair are left to the repair's own timer.
    pub fn purge(&mut self, now: Time) {
        let dp = self.delete_period;
        self.routes.retain(|_, r| match r.state {
            RouteState::Valid if r.lifetime <= now => {
                r.state = RouteState::Invalid;
                r.lifetime += dp;
                r.lifetime > now
            }
            RouteState::Invalid => r.lifetime > now,
            _ => true,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Time {
        Time::from_ms(ms)
    }
    fn offer(dst: NodeId, seq: u32, hops: u8, nh: NodeId) -> Offer {
        Offer { dst, seq, hops, next_hop: nh, lifetime: t(3000), keep_longer: false }
    }

    #[test]
    fn sequence_numbers_wrap() {
        assert!(seq_newer(5, 4));
        assert!(!seq_newer(4, 5));
        assert!(!seq_newer(7, 7));
        assert!(seq_at_least(7, 7));
        // Across the wrap: 1 is newer than 0xFFFF_FFF0.
        assert!(seq_newer(1, 0xFFFF_FFF0));
        assert!(!seq_newer(0xFFFF_FFF0, 1));
        // Half the space away: the signed difference decides.
        assert!(seq_newer(0x8000_0000u32.wrapping_sub(1), 0));
        assert!(!seq_newer(0x8000_0001, 0));
    }

    #[test]
    fn update_rules() {
        let mut rt = RouteTable::new(t(15_000));
        let now = t(0);
        assert!(rt.offer(offer(9, 10, 4, 1), now), "new entry");
        assert!(!rt.offer(offer(9, 9, 1, 2), now), "older seq refused, even if shorter");
        assert!(!rt.offer(offer(9, 10, 4, 2), now), "same seq, same length refused");
        assert!(!rt.offer(offer(9, 10, 5, 2), now), "same seq, longer refused");
        assert!(rt.offer(offer(9, 10, 3, 2), now), "same seq, shorter accepted");
        assert_eq!(rt.get(9).unwrap().next_hop, 2);
        assert!(rt.offer(offer(9, 11, 8, 3), now), "newer seq accepted, even if longer");
        assert_eq!((rt.get(9).unwrap().hops, rt.get(9).unwrap().seq), (8, 11));
        // Wrap-around: 2 is newer than 0xFFFF_FFFF.
        assert!(rt.offer(offer(7, 0xFFFF_FFFF, 2, 1), now));
        assert!(rt.offer(offer(7, 2, 5, 1), now));
        // Unknown sequence number (neighbour entry): any offer wins.
        rt.neighbour(5, t(3000), now);
        assert!(!rt.get(5).unwrap().valid_seq);
        assert!(rt.offer(offer(5, 0, 1, 5), now));
        assert!(rt.get(5).unwrap().valid_seq);
    }

    #[test]
    fn invalid_route_takes_same_seq_but_not_older() {
        let mut rt = RouteTable::new(t(15_000));
        let now = t(0);
        rt.offer(offer(9, 10, 2, 1), now);
        rt.add_precursor(9, 4);
        rt.add_precursor(9, 4);
        rt.add_precursor(9, 6);
        let (seq, pre) = rt.invalidate(9, None, t(100)).unwrap();
        assert_eq!(seq, 11, "link break increments the destination sequence number");
        assert_eq!(pre, vec![4, 6], "precursors handed over once each");
        assert!(rt.get(9).unwrap().precursors.is_empty());
        assert!(rt.active(9, t(100)).is_none());
        assert_eq!(rt.get(9).unwrap().lifetime, t(15_100), "deleted DELETE_PERIOD later");
        assert!(!rt.offer(offer(9, 10, 1, 2), t(200)), "the old sequence number cannot revive it");
        assert!(rt.offer(offer(9, 11, 3, 2), t(200)), "same (incremented) sequence number revives an invalid route");
        assert!(rt.active(9, t(200)).is_some());
        // A RERR's sequence number is adopted if newer.
        let (seq, _) = rt.invalidate(9, Some(20), t(300)).unwrap();
        assert_eq!(seq, 20);
        let (seq, _) = rt.invalidate(9, Some(3), t(300)).unwrap();
        assert_eq!(seq, 20, "an older RERR sequence number is ignored");
    }

    #[test]
    fn expiry_purge_and_refresh() {
        let mut rt = RouteTable::new(t(15_000));
        rt.offer(offer(9, 1, 2, 1), t(0)); // expires at 3 s
        rt.refresh(9, t(4000), t(1000));
        assert!(rt.active(9, t(3500)).is_some(), "refreshed by use");
        assert!(rt.active(9, t(4000)).is_none(), "expired");
        rt.purge(t(4000));
        assert_eq!(rt.get(9).unwrap().state, RouteState::Invalid);
        rt.refresh(9, t(9000), t(4000));
        assert_eq!(rt.get(9).unwrap().state, RouteState::Invalid, "refresh does not revive");
        rt.purge(t(18_999));
        assert!(rt.get(9).is_some());
        rt.purge(t(19_000));
        assert!(rt.get(9).is_none(), "deleted DELETE_PERIOD after expiry");
    }

    #[test]
    fn reverse_routes_keep_a_longer_lifetime() {
        let mut rt = RouteTable::new(t(15_000));
        let mut o = offer(3, 1, 2, 1);
        o.lifetime = t(6000);
        rt.offer(o, t(0));
        let o2 = Offer { seq: 2, lifetime: t(5000), keep_longer: true, ..o };
        assert!(rt.offer(o2, t(10)));
        assert_eq!(rt.get(3).unwrap().lifetime, t(6000));
        let o3 = Offer { seq: 3, lifetime: t(5000), keep_longer: false, ..o };
        assert!(rt.offer(o3, t(10)));
        assert_eq!(rt.get(3).unwrap().lifetime, t(5000));
    }

    #[test]
    fn routes_via_a_neighbour_in_order() {
        let mut rt = RouteTable::new(t(15_000));
        for (d, nh) in [(8, 2), (3, 2), (5, 4), (2, 2)] {
            rt.offer(offer(d, 1, 1, nh), t(0));
        }
        assert_eq!(rt.active_via(2, t(0)), vec![2, 3, 8]);
        rt.add_precursor(3, 4);
        rt.add_precursor(8, 4);
        rt.remove_precursor(4);
        assert!(rt.iter().all(|r| r.precursors.is_empty()));
    }

    proptest::proptest! {
        /// The walks whose order can reach an output come out in
        /// destination order, as from the `BTreeMap` the table was: `iter`
        /// strictly increasing, `active_via` the in-order filter of it; and
        /// the table holds the destinations a `BTreeSet` model says.
        #[test]
        fn walks_in_destination_order(ops in proptest::collection::vec((0u8..6, 0u32..60, 0u32..6, 0u64..40), 0..300)) {
            let mut rt = RouteTable::new(t(15_000));
            let mut model = std::collections::BTreeSet::new();
            let mut now = t(0);
            for (op, dst, nh, dt) in ops {
                now += t(dt * 100);
                match op {
                    0 => { rt.offer(Offer { dst, seq: nh, hops: 2, next_hop: nh, lifetime: now + t(3000), keep_longer: dt % 2 == 0 }, now); model.insert(dst); }
                    1 => { rt.neighbour(dst, now + t(3000), now); model.insert(dst); }
                    2 => { rt.invalidate(dst, None, now); }
                    3 => { rt.add_precursor(dst, nh); rt.remove_precursor(nh / 2); }
                    4 => { rt.refresh(dst, now + t(5000), now); rt.learn_seq(dst, nh); }
                    _ => {
                        rt.purge(now);
                        model.retain(|&d| rt.get(d).is_some());
                    }
                }
                let dsts: Vec<NodeId> = rt.iter().map(|r| r.dst).collect();
                proptest::prop_assert_eq!(&dsts, &model.iter().copied().collect::<Vec<_>>());
                let via: Vec<NodeId> = rt.iter().filter(|r| r.next_hop == nh && r.is_active(now)).map(|r| r.dst).collect();
                proptest::prop_assert_eq!(rt.active_via(nh, now), via);
                proptest::prop_assert_eq!(rt.len(), model.len());
            }
        }
    }
}
