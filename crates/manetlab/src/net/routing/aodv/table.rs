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
//! An entry is 26 bytes, its slot 32 with the key: two per cache line. The
//! precursor lists, which few routes have (at 400 nodes about one route
//! in a hundred when a neighbour is lost), live in a side map, so the
//! once-a-second walks (`purge`, the neighbour timer's `take_lost`, a link
//! break's `active_via_and_precursor`) read half the lines they read with
//! 64-byte slots, and the tables take half the memory (docs/performance.md,
//! "Session 17 (branch s17ao)").
//!
//! Lifetimes are checked lazily: a valid entry whose lifetime has passed is
//! not *active* (lookups ignore it) and [`RouteTable::purge`], run
//! periodically, turns it into an invalid entry that is deleted
//! DELETE_PERIOD later (§6.11).

use super::slots::IdSlots;
use crate::net::NodeId;
use crate::sim::idhash::IdMap;
use crate::sim::Time;

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

/// A route as the table answers it (a copy: the table stores it in 26
/// bytes; its precursors are [`RouteTable::precursors`]).
#[derive(Copy, Clone, Debug, PartialEq)]
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

// `Entry::tag`: the route's state in the low bits (0: no route), and the
// "valid sequence number" flag.
const NO_ROUTE: u8 = 0;
const VALID: u8 = 1;
const INVALID: u8 = 2;
const REPAIRING: u8 = 3;
const STATE: u8 = 0x0F;
const VALID_SEQ: u8 = 0x10;

/// One node's entry: its route (if any, without its precursors) and when
/// it was last heard (if it is a neighbour). `packed(2)`: 26 bytes, so
/// that with its key and `used` flag the slot is 32 bytes
/// (`slots::Slot`); fields are read by copy (`Entry::life` and the like), never by
/// reference.
#[derive(Clone, Copy, Debug)]
#[repr(C, packed(2))]
pub(super) struct Entry {
    tag: u8,
    hops: u8,
    seq: u32,
    next_hop: NodeId,
    lifetime: Time,
    heard: Time,
}

impl Default for Entry {
    fn default() -> Entry {
        Entry { tag: NO_ROUTE, hops: 0, seq: 0, next_hop: 0, lifetime: Time::ZERO, heard: NOT_HEARD }
    }
}

impl Entry {
    // Copies of the unaligned fields (a reference to one is not allowed).
    #[inline]
    fn life(&self) -> Time {
        self.lifetime
    }
    #[inline]
    fn heard_at(&self) -> Time {
        self.heard
    }
    #[inline]
    fn nh(&self) -> NodeId {
        self.next_hop
    }
    #[inline]
    fn sq(&self) -> u32 {
        self.seq
    }
    #[inline]
    fn has_route(&self) -> bool {
        self.tag & STATE != NO_ROUTE
    }
    #[inline]
    fn valid_seq(&self) -> bool {
        self.tag & VALID_SEQ != 0
    }
    #[inline]
    fn state_bits(&self) -> u8 {
        self.tag & STATE
    }
    #[inline]
    fn set_state(&mut self, s: u8) {
        self.tag = (self.tag & !STATE) | s;
    }
    #[inline]
    fn set_valid_seq(&mut self) {
        self.tag |= VALID_SEQ;
    }
    /// `Route::is_active` of the entry's route (false without one).
    #[inline]
    fn is_active(&self, now: Time) -> bool {
        self.state_bits() == VALID && self.life() > now
    }
    #[inline]
    fn is_heard(&self) -> bool {
        self.heard_at() != NOT_HEARD
    }
    /// A new route (precursors: none).
    #[inline]
    fn set_route(&mut self, valid_seq: bool, seq: u32, hops: u8, next_hop: NodeId, lifetime: Time) {
        self.tag = VALID | if valid_seq { VALID_SEQ } else { 0 };
        self.seq = seq;
        self.hops = hops;
        self.next_hop = next_hop;
        self.lifetime = lifetime;
    }
    #[inline]
    fn view(&self, dst: NodeId) -> Option<Route> {
        let state = match self.state_bits() {
            VALID => RouteState::Valid,
            INVALID => RouteState::Invalid,
            REPAIRING => RouteState::Repairing,
            _ => return None,
        };
        Some(Route {
            dst,
            seq: self.seq,
            valid_seq: self.valid_seq(),
            state,
            hops: self.hops,
            next_hop: self.next_hop,
            lifetime: self.lifetime,
        })
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
    /// (`NOT_HEARD`: none.)
    expiry: Time,
    delete_period: Time,
    neighbour_timeout: Time,
    /// The routes' non-empty precursor lists, by destination: a key only
    /// while its entry has a route (deleting or breaking the route drops or
    /// hands over its list). Walks of it only ask "does any list contain",
    /// or change each list alone: the map's order never matters. Boxed, and
    /// only once a precursor is added, so that `Aodv`'s hot fields stay in
    /// their five lines (`aodv::tests::hot_fields_lead_the_box`).
    pre: Option<Box<IdMap<NodeId, Vec<NodeId>>>>,
}

impl RouteTable {
    /// Invalid routes are deleted `delete_period` after they broke or
    /// expired; a neighbour silent for `neighbour_timeout` is lost.
    pub fn new(delete_period: Time, neighbour_timeout: Time) -> RouteTable {
        RouteTable { delete_period, neighbour_timeout, ..RouteTable::default() }
    }
    #[inline]
    pub fn get(&self, dst: NodeId) -> Option<Route> {
        self.entries.get(dst).and_then(|e| e.view(dst))
    }
    /// The entry of `dst` if it has a route.
    #[inline]
    fn route_mut(&mut self, dst: NodeId) -> Option<&mut Entry> {
        self.entries.get_mut(dst).filter(|e| e.has_route())
    }
    /// The route to `dst` if it is valid and not expired.
    #[inline]
    pub fn active(&self, dst: NodeId, now: Time) -> Option<Route> {
        self.get(dst).filter(|r| r.is_active(now))
    }
    /// The precursors of the route to `dst` (empty without a route).
    pub fn precursors(&self, dst: NodeId) -> &[NodeId] {
        self.pre.as_ref().and_then(|m| m.get(&dst)).map_or(&[], |v| v.as_slice())
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
    pub fn iter(&self) -> impl Iterator<Item = Route> {
        let mut v: Vec<Route> = self.entries.iter().filter_map(|(k, e)| e.view(k)).collect();
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
        let e = self.entries.get_or_default(o.dst);
        if !e.has_route() {
            e.set_route(true, o.seq, o.hops, o.next_hop, o.lifetime);
            self.routes += 1;
            return true;
        }
        let (seq, hops, lifetime, active) = (e.seq, e.hops, e.lifetime, e.is_active(now));
        let fresher = !e.valid_seq() || seq_newer(o.seq, seq) || (o.seq == seq && (!active || o.hops < hops));
        if !fresher {
            return false;
        }
        let lifetime = if o.keep_longer && active && lifetime > o.lifetime { lifetime } else { o.lifetime };
        e.seq = o.seq;
        e.set_valid_seq();
        e.set_state(VALID);
        e.hops = o.hops;
        e.next_hop = o.next_hop;
        e.lifetime = lifetime;
        true
    }

    /// The previous hop of a received message is a neighbour: create or
    /// update a one-hop route to it without a valid sequence number (§6.5,
    /// §6.7), valid until at least `until`.
    pub fn neighbour(&mut self, nb: NodeId, until: Time, now: Time) {
        let e = self.entries.get_or_default(nb);
        if !e.has_route() {
            e.set_route(false, 0, 1, nb, until);
            self.routes += 1;
            return;
        }
        if e.is_active(now) && e.nh() == nb && e.hops == 1 {
            e.lifetime = e.life().max(until);
        } else if e.state_bits() != REPAIRING {
            e.set_state(VALID);
            e.hops = 1;
            e.next_hop = nb;
            e.lifetime = until;
        }
    }

    /// Records a neighbour's own sequence number (from its HELLO), keeping
    /// the freshest.
    pub fn learn_seq(&mut self, dst: NodeId, seq: u32) {
        if let Some(e) = self.route_mut(dst) {
            if !e.valid_seq() || seq_newer(seq, e.seq) {
                e.seq = seq;
                e.set_valid_seq();
            }
        }
    }

    /// Extends an active route's lifetime to at least `until` (a route in
    /// use stays up, §6.2).
    pub fn refresh(&mut self, dst: NodeId, until: Time, now: Time) {
        if let Some(e) = self.entries.get_mut(dst) {
            if e.is_active(now) && e.life() < until {
                e.lifetime = until;
            }
        }
    }

    /// The next hop of `dst`'s active route, whose lifetime is extended to
    /// at least `until` (a packet goes out over it, §6.2): `active` then
    /// `refresh`, with one look-up.
    #[inline]
    pub fn use_active(&mut self, dst: NodeId, until: Time, now: Time) -> Option<NodeId> {
        let e = self.entries.get_mut(dst)?;
        if !e.is_active(now) {
            return None;
        }
        if e.life() < until {
            e.lifetime = until;
        }
        Some(e.next_hop)
    }

    /// Breaks the route to `dst` (§6.11): the sequence number is incremented
    /// if known (`new_seq` overrides it, as a received RERR does), the entry
    /// becomes invalid and is deleted DELETE_PERIOD from now. Returns the
    /// sequence number to advertise and the precursors (the list is emptied).
    pub fn invalidate(&mut self, dst: NodeId, new_seq: Option<u32>, now: Time) -> Option<(u32, Vec<NodeId>)> {
        let delete_period = self.delete_period;
        let e = self.entries.get_mut(dst).filter(|e| e.has_route())?;
        match new_seq {
            Some(s) if !e.valid_seq() || seq_newer(s, e.seq) => {
                e.seq = s;
                e.set_valid_seq();
            }
            Some(_) => {}
            None if e.valid_seq() => e.seq = e.sq().wrapping_add(1),
            None => {}
        }
        e.set_state(INVALID);
        e.lifetime = now + delete_period;
        let seq = e.seq;
        let pre = self.pre.as_mut().and_then(|m| m.remove(&dst)).unwrap_or_default();
        Some((seq, pre))
    }

    /// Marks the route as under local repair until `until`, incrementing its
    /// sequence number (§6.12) if `bump_seq` (ns-2.35 does not). Its
    /// precursors and hop count are kept.
    pub fn start_repair(&mut self, dst: NodeId, until: Time, bump_seq: bool) -> Option<Route> {
        let e = self.route_mut(dst)?;
        if e.valid_seq() && bump_seq {
            e.seq = e.sq().wrapping_add(1);
        }
        e.set_state(REPAIRING);
        e.lifetime = until;
        e.view(dst)
    }

    pub fn add_precursor(&mut self, dst: NodeId, p: NodeId) {
        if self.route_mut(dst).is_some() {
            let v = self.pre.get_or_insert_default().entry(dst).or_default();
            if !v.contains(&p) {
                v.push(p);
            }
        }
    }

    /// Forgets a lost neighbour as a precursor of every route.
    pub fn remove_precursor(&mut self, p: NodeId) {
        let Some(m) = self.pre.as_mut() else { return };
        m.retain(|_, v| {
            v.retain(|&x| x != p);
            !v.is_empty()
        });
    }

    /// [`RouteTable::active_via`], and whether any route lists `nh` as a
    /// precursor (if none does, [`RouteTable::remove_precursor`] of `nh`
    /// has nothing to do).
    pub fn active_via_and_precursor(&self, nh: NodeId, now: Time) -> (Vec<NodeId>, bool) {
        let precursor = self.pre.as_ref().is_some_and(|m| m.values().any(|v| v.contains(&nh)));
        (self.active_via(nh, now), precursor)
    }

    /// Destinations of the active routes whose next hop is `nh`, in order.
    pub fn active_via(&self, nh: NodeId, now: Time) -> Vec<NodeId> {
        let mut v: Vec<NodeId> = self
            .entries
            .iter()
            .filter(|(_, e)| e.nh() == nh && e.is_active(now))
            .map(|(k, _)| k)
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
        let pre = &mut self.pre;
        self.entries.retain(|k, e| {
            let keep = match e.state_bits() {
                NO_ROUTE => return true,
                VALID if e.life() <= now => {
                    e.set_state(INVALID);
                    e.lifetime = e.life() + dp;
                    e.life() > now
                }
                INVALID => e.life() > now,
                _ => true,
            };
            if !keep {
                e.set_state(NO_ROUTE);
                deleted += 1;
                if let Some(m) = pre.as_mut() {
                    m.remove(&k);
                }
            }
            e.has_route() || e.is_heard()
        });
        self.routes -= deleted;
    }

    // ---- the neighbour list (§6.9, §6.10) -----------------------------------

    /// A packet from neighbour `nb` was received at `now`.
    #[inline]
    pub fn heard(&mut self, nb: NodeId, now: Time) {
        let e = self.entry(nb);
        let new = !e.is_heard();
        e.heard = now;
        self.neighbours += new as u32;
        self.expiry_known = false;
    }
    /// Takes `nb` off the neighbour list (its route stays).
    pub fn remove_neighbour(&mut self, nb: NodeId) {
        let Some(e) = self.entries.get_mut(nb) else { return };
        if !e.is_heard() {
            return;
        }
        e.heard = NOT_HEARD;
        self.neighbours -= 1;
        self.expiry_known = false;
        if !e.has_route() {
            self.entries.remove(nb);
        }
    }
    pub fn is_neighbour(&self, nb: NodeId) -> bool {
        self.entries.get(nb).is_some_and(|e| e.is_heard())
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
            let heard = e.heard;
            if heard == NOT_HEARD {
                return true;
            }
            if heard + timeout <= now {
                lost.push(nb);
                e.heard = NOT_HEARD;
                return e.has_route();
            }
            earliest = earliest.min(heard);
            true
        });
        self.neighbours -= lost.len() as u32;
        self.expiry = if earliest == NOT_HEARD { NOT_HEARD } else { earliest + timeout };
        self.expiry_known = true;
        lost.sort_unstable();
        lost
    }
    /// The earliest time a neighbour can be lost.
    pub fn next_expiry(&self) -> Option<Time> {
        if self.expiry_known {
            return (self.expiry != NOT_HEARD).then_some(self.expiry);
        }
        self.entries.values().filter(|e| e.is_heard()).map(|e| e.heard).min().map(|t| t + self.neighbour_timeout)
    }
}

#[cfg(test)]
#[path = "table_tests.rs"]
mod tests;
