//! The AODV route table and neighbour list as they were before they shared
//! one hash map (session 10, docs/performance.md "Fifth sitting"): two maps
//! keyed by the same node. Kept, test-only, as the reference the shared
//! table is checked against (`table::tests::same_as_the_two_maps`).

use super::table::{seq_newer, Offer, Route, RouteState};
use crate::net::NodeId;
use crate::sim::Time;
use crate::sim::idhash::IdMap;

/// A route with its precursors in it, as the table stored it before
/// session 17.
#[derive(Clone, Debug, PartialEq)]
pub struct OldRoute {
    pub dst: NodeId,
    pub seq: u32,
    pub valid_seq: bool,
    pub state: RouteState,
    pub hops: u8,
    pub next_hop: NodeId,
    pub lifetime: Time,
    pub precursors: Vec<NodeId>,
}

impl OldRoute {
    pub fn is_active(&self, now: Time) -> bool {
        self.state == RouteState::Valid && self.lifetime > now
    }
    /// The route without its precursors, as `RouteTable` answers it.
    pub fn view(&self) -> Route {
        Route {
            dst: self.dst,
            seq: self.seq,
            valid_seq: self.valid_seq,
            state: self.state,
            hops: self.hops,
            next_hop: self.next_hop,
            lifetime: self.lifetime,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct OldRouteTable {
    routes: IdMap<NodeId, OldRoute>,
    delete_period: Time,
}

impl OldRouteTable {
    pub fn new(delete_period: Time) -> OldRouteTable {
        OldRouteTable { routes: IdMap::default(), delete_period }
    }
    pub fn get(&self, dst: NodeId) -> Option<&OldRoute> {
        self.routes.get(&dst)
    }
    /// The route to `dst` if it is valid and not expired.
    pub fn active(&self, dst: NodeId, now: Time) -> Option<&OldRoute> {
        self.routes.get(&dst).filter(|r| r.is_active(now))
    }
    pub fn len(&self) -> usize {
        self.routes.len()
    }
    /// The entries in destination order (allocates: for the viewer and
    /// tests, not for per-packet paths).
    pub fn iter(&self) -> impl Iterator<Item = &OldRoute> {
        let mut v: Vec<&OldRoute> = self.routes.values().collect();
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
                    OldRoute {
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
                    OldRoute {
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
    pub fn start_repair(&mut self, dst: NodeId, until: Time, bump_seq: bool) -> Option<&OldRoute> {
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

/// Last-heard times in a hash map (one update per packet heard, O(1));
/// [`OldNeighbours::take_lost`] returns the lost neighbours sorted by id.
#[derive(Clone, Debug, Default)]
pub struct OldNeighbours {
    last_heard: IdMap<NodeId, Time>,
    timeout: Time,
}

impl OldNeighbours {
    pub fn new(timeout: Time) -> OldNeighbours {
        OldNeighbours { last_heard: IdMap::default(), timeout }
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
