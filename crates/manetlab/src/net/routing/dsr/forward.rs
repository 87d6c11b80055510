//! DSR's per-forward helpers: the flow-state forward's test, the learning
//! from a route forwarded, a source route's nodes on the stack.

use super::{Dsr, SourceRoute, MAX_SR_LEN};
use crate::net::routing::Origin;
use crate::net::{Body, NodeId, Packet};
use crate::sim::Time;

impl Dsr {
    /// The next hop of `pkt` if this node forwards it by flow state
    /// (ns-2.35's flow state: a data packet whose route names this node
    /// next, with a hop after it): `route`'s `Forward` arm then learns and
    /// notices nothing and only steps the route (`cur + 1`, the previous
    /// hop this node). 40 K of the DSR chain's 43 K forwards.
    #[inline(always)]
    pub(super) fn flow_hop(&self, pkt: &Packet, origin: Origin) -> Option<NodeId> {
        let (i, flow_data) = (pkt.sr.cur as usize, pkt.sr.flow && !matches!(pkt.body, Body::Dsr(_)));
        let forwards = origin == Origin::Forward && flow_data && i + 1 < pkt.sr.len() && pkt.sr.node(i) == self.me;
        forwards.then(|| pkt.sr.node(i + 1))
    }

    /// Learns from a source route that passes through this node at `i`: the
    /// part after it, and the reversed part before it.
    pub(super) fn learn_through(&mut self, route: &SourceRoute, i: usize, now: Time) {
        let (nodes, n) = route_nodes(route);
        let path = &nodes[..n];
        let mut learnt = self.cache.add_seen(&path[i..], now);
        let mut back = [0; MAX_SR_LEN];
        back[..=i].copy_from_slice(&path[..=i]);
        back[..=i].reverse();
        learnt |= self.cache.add_seen(&back[..=i], now);
        if learnt {
            self.stats.event("routes_learnt");
        }
    }
}

/// A source route's nodes as ids, on the stack (the learning paths run
/// per forwarded or overheard packet and allocate nothing).
pub(super) fn route_nodes(route: &SourceRoute) -> ([NodeId; MAX_SR_LEN], usize) {
    let mut nodes = [0; MAX_SR_LEN];
    for (k, &h) in route.hops[..route.len()].iter().enumerate() {
        nodes[k] = h as NodeId;
    }
    (nodes, route.len())
}
