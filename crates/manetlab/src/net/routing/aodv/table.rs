//! The AODV routing table (RFC 3561 §2, §6.1, §6.2) and neighbour list
//! (§6.9, §6.10).
//!
//! One entry per destination: the destination sequence number and whether
//! it is known ("valid sequence number" flag), the route state, hop count,
//! next hop, lifetime and precursor list. Entries are kept in a hash map
//! keyed by destination (`slots::IdSlots`: O(1) lookups; the table is looked up
//! for every control message heard, and at 1,000 nodes holds hundreds of
//! neighbours, where a `BTreeMap` walk was 7.6 % of the CPU). Every walk
//! whose order can reach an output (which routes use a broken link, the
//! table as the viewer shows it) is sorted by destination, as the
//! `BTreeMap` it replaced iterated.
//!
//! The same map holds the neighbour list: when each neighbour was last
//! heard (HELLO-based link detection: a neighbour from which no packet of
//! any kind has been received for the neighbour timeout is lost). Every
//! packet heard updates both the neighbour's last-heard time and its
//! one-hop route: in one map that is one probe per packet instead of two,
//! and in `slots::IdSlots` a probe is one cache line (key and entry side
//! by side) instead of a control group and a bucket: the misses that
//! dominated AODV's cost at 1,000-2,000 nodes (docs/performance.md,
//! "Fifth sitting"). A key is in the map while it has a route or is a neighbour;
//! the two lists keep their own semantics (`table_reference.rs` holds the
//! two-map version the tests compare against).
//!
//! Lifetimes are checked lazily: a valid entry whose lifetime has passed is
//! not *active* (lookups ignore it) and [`RouteTable::purge`], run
//! periodically, turns it into an invalid entry that is deleted
//! DELETE_PERIOD later (§6.11).

use crate::net::NodeId;
use crate::sim::Time;
use super::slots::IdSlots;

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

/// `Entry::heard` of a node that is not in the neighbour list.
const NOT_HEARD: Time = Time::MAX;

/// One node's entry: its route (if any) and when it was last heard (if it
/// is a neighbour). 64 bytes with its key: one bucket, one probe.
#[derive(Clone, Debug)]
struct Entry {
    route: Option<Route>,
    heard: Time,
}

impl Default for Entry {
    fn default() -> Entry {
        Entry { route: None, heard: NOT_HEARD }
    }
}

/// `repr(C)`: what every packet heard touches first (the map's header,
/// the counts), inside the `Aodv` box's hot lines.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct RouteTable {
    entries: IdSlots<Entry>,
    /// Entries with a route.
    routes: u32,
    /// Entries in the neighbour list.
    neighbours: u32,
    /// The neighbour list's next expiry as [`RouteTable::take_lost`] found
    /// it, while no neighbour was heard or removed since (the timer that
    /// calls `take_lost` re-arms itself at it: one walk instead of two).
    expiry_known: bool,
    expiry: Option<Time>,
    delete_period: Time,
    neighbour_timeout: Time,
}

impl RouteTable {
    /// Invalid routes are deleted `delete_period` after they broke or
    /// expired; a neighbour silent for `neighbour_timeout` is lost.
    pub fn new(delete_period: Time, neighbour_timeout: Time) -> RouteTable {
        RouteTable { delete_period, neighbour_timeout, ..RouteTable::default() }
    }
    pub fn get(&self, dst: NodeId) -> Option<&Route> {
        self.entries.get(dst).and_then(|e| e.route.as_ref())
    }
    pub fn get_mut(&mut self, dst: NodeId) -> Option<&mut Route> {
        self.entries.get_mut(dst).and_then(|e| e.route.as_mut())
    }
    /// The route to `dst` if it is valid and not expired.
    pub fn active(&self, dst: NodeId, now: Time) -> Option<&Route> {
        self.get(dst).filter(|r| r.is_active(now))
    }
    /// Number of routes (valid or not).
    pub fn len(&self) -> usize {
        self.routes as usize
    }
    pub fn is_empty(&self) -> bool {
        self.routes == 0
    }
    /// The entries in destination order (allocates: for the viewer and
    /// tests, not for per-packet paths).
    pub fn iter(&self) -> impl Iterator<Item = &Route> {
        let mut v: Vec<&Route> = self.entries.values().filter_map(|e| e.route.as_ref()).collect();
        v.sort_unstable_by_key(|r| r.dst);
        v.into_iter()
    }

    /// Starts loading `dst`'s entry (a hint: [`IdSlots::prefetch`]).
    #[inline]
    pub fn prefetch(&self, dst: NodeId) {
        self.entries.prefetch(dst);
    }

    /// The entry of `dst`, created without route and not a neighbour.
    #[inline]
    fn entry(&mut self, dst: NodeId) -> &mut Entry {
        self.entries.get_or_default(dst)
    }

    /// Applies the update rules of §6.2 and §6.7: the offer replaces the
    /// entry iff the entry's sequence number is unknown, or the offer's is
    /// newer, or they are equal and the entry is not active or the offer is
    /// shorter. Returns true if the entry was created or replaced (it is then
    /// valid with the offer's next hop; precursors are kept).
    pub fn offer(&mut self, o: Offer, now: Time) -> bool {
        let e = self.entry(o.dst);
        match &mut e.route {
            None => {
                e.route = Some(Route {
                    dst: o.dst,
                    seq: o.seq,
                    valid_seq: true,
                    state: RouteState::Valid,
                    hops: o.hops,
                    next_hop: o.next_hop,
                    lifetime: o.lifetime,
                    precursors: Vec::new(),
                });
                self.routes += 1;
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
        let e = self.entry(nb);
        match &mut e.route {
            None => {
                e.route = Some(Route {
                    dst: nb,
                    seq: 0,
                    valid_seq: false,
                    state: RouteState::Valid,
                    hops: 1,
                    next_hop: nb,
                    lifetime: until,
                    precursors: Vec::new(),
                });
                self.routes += 1;
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
        if let Some(r) = self.get_mut(dst) {
            if !r.valid_seq || seq_newer(seq, r.seq) {
                r.seq = seq;
                r.valid_seq = true;
            }
        }
    }

    /// Extends an active route's lifetime to at least `until` (a route in
    /// use stays up, §6.2).
    pub fn refresh(&mut self, dst: NodeId, until: Time, now: Time) {
        if let Some(r) = self.get_mut(dst) {
            if r.is_active(now) && r.lifetime < until {
                r.lifetime = until;
            }
        }
    }

    /// The next hop of `dst`'s active route, whose lifetime is extended to
    /// at least `until` (a packet goes out over it, §6.2): `active` then
    /// `refresh`, with one look-up.
    #[inline]
    pub fn use_active(&mut self, dst: NodeId, until: Time, now: Time) -> Option<NodeId> {
        let r = self.get_mut(dst)?;
        if !r.is_active(now) {
            return None;
        }
        if r.lifetime < until {
            r.lifetime = until;
        }
        Some(r.next_hop)
    }

    /// Breaks the route to `dst` (§6.11): the sequence number is incremented
    /// if known (`new_seq` overrides it, as a received RERR does), the entry
    /// becomes invalid and is deleted DELETE_PERIOD from now. Returns the
    /// sequence number to advertise and the precursors (the list is emptied).
    pub fn invalidate(&mut self, dst: NodeId, new_seq: Option<u32>, now: Time) -> Option<(u32, Vec<NodeId>)> {
        let delete_period = self.delete_period;
        let r = self.get_mut(dst)?;
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
        r.lifetime = now + delete_period;
        Some((r.seq, std::mem::take(&mut r.precursors)))
    }

    /// Marks the route as under local repair until `until`, incrementing its
    /// sequence number (§6.12) if `bump_seq` (ns-2.35 does not). Its
    /// precursors and hop count are kept.
    pub fn start_repair(&mut self, dst: NodeId, until: Time, bump_seq: bool) -> Option<&Route> {
        let r = self.get_mut(dst)?;
        if r.valid_seq && bump_seq {
            r.seq = r.seq.wrapping_add(1);
        }
        r.state = RouteState::Repairing;
        r.lifetime = until;
        Some(r)
    }

    pub fn add_precursor(&mut self, dst: NodeId, p: NodeId) {
        if let Some(r) = self.get_mut(dst) {
            if !r.precursors.contains(&p) {
                r.precursors.push(p);
            }
        }
    }

    /// Forgets a lost neighbour as a precursor of every route.
    pub fn remove_precursor(&mut self, p: NodeId) {
        self.entries.for_each_mut(|e| {
            if let Some(r) = e.route.as_mut() {
                r.precursors.retain(|&x| x != p);
            }
        });
    }

    /// [`RouteTable::active_via`], and whether any route lists `nh` as a
    /// precursor (if none does, [`RouteTable::remove_precursor`] of `nh`
    /// has nothing to do: one walk of the table instead of two).
    pub fn active_via_and_precursor(&self, nh: NodeId, now: Time) -> (Vec<NodeId>, bool) {
        let mut v = Vec::new();
        let mut precursor = false;
        for r in self.entries.values().filter_map(|e| e.route.as_ref()) {
            if r.next_hop == nh && r.is_active(now) {
                v.push(r.dst);
            }
            precursor |= r.precursors.contains(&nh);
        }
        v.sort_unstable();
        (v, precursor)
    }

    /// Destinations of the active routes whose next hop is `nh`, in order.
    pub fn active_via(&self, nh: NodeId, now: Time) -> Vec<NodeId> {
        let mut v: Vec<NodeId> = self
            .entries
            .values()
            .filter_map(|e| e.route.as_ref())
            .filter(|r| r.next_hop == nh && r.is_active(now))
            .map(|r| r.dst)
            .collect();
        v.sort_unstable();
        v
    }

    /// Turns expired valid routes into invalid ones (deleted DELETE_PERIOD
    /// after they expired) and deletes invalid routes whose time is up.
    /// Routes under repair are left to the repair's own timer.
    pub fn purge(&mut self, now: Time) {
        let dp = self.delete_period;
        let mut deleted = 0;
        self.entries.retain(|_, e| {
            let Some(r) = &mut e.route else { return true };
            let keep = match r.state {
                RouteState::Valid if r.lifetime <= now => {
                    r.state = RouteState::Invalid;
                    r.lifetime += dp;
                    r.lifetime > now
                }
                RouteState::Invalid => r.lifetime > now,
                _ => true,
            };
            if !keep {
                e.route = None;
                deleted += 1;
            }
            e.route.is_some() || e.heard != NOT_HEARD
        });
        self.routes -= deleted;
    }

    // ---- the neighbour list (§6.9, §6.10) -----------------------------------

    /// A packet from neighbour `nb` was received at `now`.
    #[inline]
    pub fn heard(&mut self, nb: NodeId, now: Time) {
        let e = self.entry(nb);
        let new = e.heard == NOT_HEARD;
        e.heard = now;
        self.neighbours += new as u32;
        self.expiry_known = false;
    }
    /// Takes `nb` off the neighbour list (its route stays).
    pub fn remove_neighbour(&mut self, nb: NodeId) {
        let Some(e) = self.entries.get_mut(nb) else { return };
        if e.heard == NOT_HEARD {
            return;
        }
        e.heard = NOT_HEARD;
        self.neighbours -= 1;
        self.expiry_known = false;
        if e.route.is_none() {
            self.entries.remove(nb);
        }
    }
    pub fn is_neighbour(&self, nb: NodeId) -> bool {
        self.entries.get(nb).is_some_and(|e| e.heard != NOT_HEARD)
    }
    pub fn neighbour_count(&self) -> usize {
        self.neighbours as usize
    }
    /// Removes from the neighbour list and returns (in id order) the
    /// neighbours silent for the timeout or longer at `now`.
    pub fn take_lost(&mut self, now: Time) -> Vec<NodeId> {
        let timeout = self.neighbour_timeout;
        let mut lost = Vec::new();
        let mut earliest = NOT_HEARD;
        self.entries.retain(|nb, e| {
            if e.heard == NOT_HEARD {
                return true;
            }
            if e.heard + timeout <= now {
                lost.push(nb);
                e.heard = NOT_HEARD;
                return e.route.is_some();
            }
            earliest = earliest.min(e.heard);
            true
        });
        self.neighbours -= lost.len() as u32;
        self.expiry = (earliest != NOT_HEARD).then(|| earliest + timeout);
        self.expiry_known = true;
        lost.sort_unstable();
        lost
    }
    /// The earliest time a neighbour can be lost.
    pub fn next_expiry(&self) -> Option<Time> {
        if self.expiry_known {
            return self.expiry;
        }
        self.entries.values().filter(|e| e.heard != NOT_HEARD).map(|e| e.heard).min().map(|t| t + self.neighbour_timeout)
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
        let mut rt = RouteTable::new(t(15_000), t(2100));
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
        let mut rt = RouteTable::new(t(15_000), t(2100));
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

    /// `use_active` is `active` then `refresh` of the same entry.
    #[test]
    fn use_active_is_active_then_refresh() {
        for (state_broken, now, until) in [(false, 1000, 4000), (false, 1000, 2000), (false, 3000, 6000), (true, 1000, 4000)] {
            let (mut a, mut b) = (RouteTable::new(t(15_000), t(2100)), RouteTable::new(t(15_000), t(2100)));
            for rt in [&mut a, &mut b] {
                rt.offer(offer(9, 1, 2, 1), t(0)); // expires at 3 s
                if state_broken {
                    rt.invalidate(9, None, t(500));
                }
            }
            let (now, until) = (t(now), t(until));
            let nh = a.active(9, now).map(|r| r.next_hop);
            a.refresh(9, until, now);
            assert_eq!(b.use_active(9, until, now), nh);
            assert_eq!(a.get(9), b.get(9));
            assert_eq!(b.use_active(7, until, now), None, "no entry");
        }
    }

    #[test]
    fn expiry_purge_and_refresh() {
        let mut rt = RouteTable::new(t(15_000), t(2100));
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
        let mut rt = RouteTable::new(t(15_000), t(2100));
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
        let mut rt = RouteTable::new(t(15_000), t(2100));
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
            let mut rt = RouteTable::new(t(15_000), t(2100));
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

    #[test]
    fn silent_neighbours_are_lost() {
        let mut n = RouteTable::new(t(15_000), t(2100));
        n.heard(4, t(1000));
        n.heard(2, t(2000));
        assert_eq!(n.next_expiry(), Some(t(3100)));
        assert!(n.take_lost(t(3099)).is_empty());
        assert_eq!(n.next_expiry(), Some(t(3100)), "the walk's own answer");
        n.heard(4, t(3000)); // any packet keeps it
        assert_eq!(n.next_expiry(), Some(t(4100)));
        assert_eq!(n.take_lost(t(4100)), vec![2]);
        assert!(n.is_neighbour(4) && !n.is_neighbour(2));
        assert_eq!(n.next_expiry(), Some(t(5100)));
        assert_eq!(n.take_lost(t(10_000)), vec![4]);
        assert!(n.neighbour_count() == 0 && n.next_expiry().is_none());
        assert!(n.entries.is_empty(), "neither a route nor a neighbour: no entry");
    }

    #[test]
    fn a_neighbour_and_its_route_share_an_entry_and_outlive_each_other() {
        let mut rt = RouteTable::new(t(15_000), t(2100));
        rt.heard(7, t(0));
        rt.neighbour(7, t(3000), t(0));
        assert_eq!((rt.entries.len(), rt.len(), rt.neighbour_count()), (1, 1, 1));
        assert_eq!(std::mem::size_of::<super::super::slots::Slot<Entry>>(), 64, "one cache line per slot");
        // The neighbour is lost, the (invalid) route stays.
        assert_eq!(rt.take_lost(t(2100)), vec![7]);
        assert!(!rt.is_neighbour(7) && rt.get(7).is_some());
        // Heard again, the route is purged: the neighbour stays.
        rt.heard(7, t(5000));
        rt.purge(t(5000));
        assert_eq!(rt.get(7).unwrap().state, RouteState::Invalid);
        rt.purge(t(18_000));
        assert!(rt.get(7).is_none() && rt.is_neighbour(7) && rt.is_empty());
        assert!(rt.iter().next().is_none() && rt.active_via(7, t(18_000)).is_empty());
        rt.remove_neighbour(7);
        assert!(rt.entries.is_empty());
    }

    proptest::proptest! {
        /// The shared table answers every question as the two maps it
        /// replaced (`table_reference.rs`) did, after any sequence of
        /// route and neighbour operations.
        #[test]
        fn same_as_the_two_maps(ops in proptest::collection::vec((0u8..12, 0u32..24, 0u32..8, 0u64..30), 0..400)) {
            use super::super::table_reference::{OldNeighbours, OldRouteTable};
            let (dp, nt) = (t(15_000), t(2100));
            let mut rt = RouteTable::new(dp, nt);
            let (mut old, mut nbs) = (OldRouteTable::new(dp), OldNeighbours::new(nt));
            let mut now = t(0);
            for (op, d, x, dt) in ops {
                now += t(dt * 60);
                match op {
                    0 => {
                        let o = Offer { dst: d, seq: x / 2, hops: (x % 4) as u8 + 1, next_hop: x, lifetime: now + t(dt * 200), keep_longer: dt % 2 == 0 };
                        proptest::prop_assert_eq!(rt.offer(o, now), old.offer(o, now));
                    }
                    1 => { rt.neighbour(d, now + t(3000), now); old.neighbour(d, now + t(3000), now); }
                    2 => proptest::prop_assert_eq!(rt.invalidate(d, (x % 2 == 0).then_some(x), now), old.invalidate(d, (x % 2 == 0).then_some(x), now)),
                    3 => proptest::prop_assert_eq!(rt.start_repair(d, now + t(500), x % 2 == 0).cloned(), old.start_repair(d, now + t(500), x % 2 == 0).cloned()),
                    4 => { rt.add_precursor(d, x); old.add_precursor(d, x); }
                    5 => { rt.remove_precursor(x); old.remove_precursor(x); }
                    6 => { rt.refresh(d, now + t(4000), now); old.refresh(d, now + t(4000), now); rt.learn_seq(d, x); old.learn_seq(d, x); }
                    7 => { rt.purge(now); old.purge(now); }
                    8 | 9 => { rt.heard(d, now); nbs.heard(d, now); }
                    10 => { rt.remove_neighbour(d); nbs.remove(d); }
                    _ => proptest::prop_assert_eq!(rt.take_lost(now), nbs.take_lost(now)),
                }
                proptest::prop_assert_eq!(rt.next_expiry(), nbs.next_expiry());
                proptest::prop_assert_eq!(rt.neighbour_count(), nbs.len());
                proptest::prop_assert_eq!(rt.len(), old.len());
                proptest::prop_assert_eq!(rt.iter().collect::<Vec<_>>(), old.iter().collect::<Vec<_>>());
                proptest::prop_assert_eq!(rt.active_via(x, now), old.active_via(x, now));
                // The one-walk variant: the same destinations, and "some
                // route lists x as a precursor" exactly when removing x as
                // a precursor changes the table.
                let (via, listed) = rt.active_via_and_precursor(x, now);
                proptest::prop_assert_eq!(&via, &old.active_via(x, now));
                let mut cut = rt.clone();
                cut.remove_precursor(x);
                proptest::prop_assert_eq!(listed, cut.iter().collect::<Vec<_>>() != rt.iter().collect::<Vec<_>>());
                for k in 0..24 {
                    proptest::prop_assert_eq!(rt.get(k), old.get(k));
                    proptest::prop_assert_eq!(rt.active(k, now), old.active(k, now));
                    proptest::prop_assert_eq!(rt.is_neighbour(k), nbs.contains(k));
                    let live = rt.get(k).is_some() || rt.is_neighbour(k);
                    proptest::prop_assert_eq!(rt.entries.contains_key(k), live, "an entry iff a route or a neighbour");
                }
            }
        }
    }
}
