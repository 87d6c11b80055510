//! Routing protocols.
//!
//! A protocol implements [`Routing`]. The node hands it every packet that needs
//! a next hop (from local transport or received for forwarding), MAC
//! link-failure feedback, routing control packets, overheard frames and its own
//! timers. It answers by pushing [`NetAction`]s: send towards a next hop, drop
//! with a reason, or set a timer. Packets it buffers (awaiting a route) stay
//! inside it and are reported by [`Routing::held`] at the end of a run.

pub mod static_routes;

use crate::metrics::{DropReason, FateTable};
use crate::net::{Body, NodeId, Packet, FLOW_NONE, IP_HEADER_BYTES};
use crate::sim::{RngStream, Time};

pub use static_routes::StaticRouting;

/// How routes are found.
#[derive(Clone, Debug, PartialEq)]
pub enum RoutingConfig {
    /// Fixed routes: shortest paths (fewest hops) over the initial
    /// connectivity graph (links no longer than the receive range), except
    /// where `paths` gives an explicit node sequence src..dst (its reverse is
    /// installed too unless another path covers it).
    Static { paths: Vec<Vec<NodeId>> },
}

impl Default for RoutingConfig {
    fn default() -> Self {
        RoutingConfig::Static { paths: Vec::new() }
    }
}

/// What a routing protocol asks the node to do.
#[derive(Debug)]
pub enum NetAction {
    /// Queue for transmission to `pkt.next_hop` (BROADCAST allowed).
    Transmit(Packet),
    /// Drop, counted with its reason.
    Drop(Packet, DropReason),
    /// Call `on_timer(token)` at `at`.
    Timer { at: Time, token: u64 },
}

/// Where a packet handed to `route` comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Created by this node's transport layer.
    Local,
    /// Received from a neighbour and not addressed to this node.
    Forward,
}

/// What a routing protocol may use while handling one event.
pub struct RouteCtx<'a> {
    pub now: Time,
    pub node: NodeId,
    pub out: &'a mut Vec<NetAction>,
    pub rng: &'a mut RngStream,
    /// Allocates uids for control packets.
    pub uids: &'a mut FateTable,
}

impl RouteCtx<'_> {
    /// A new control packet from this node (fresh uid, not audited);
    /// `l4_bytes` is the message size above IP.
    pub fn new_packet(&mut self, dst: NodeId, l4_bytes: u32, body: Body) -> Packet {
        Packet {
            uid: self.uids.create_untracked(),
            src: self.node,
            dst,
            ttl: Packet::DEFAULT_TTL,
            dscp: 0,
            size: IP_HEADER_BYTES + l4_bytes,
            next_hop: dst,
            prev_hop: self.node,
            created: self.now,
            flow: FLOW_NONE,
            body,
        }
    }
    pub fn transmit(&mut self, pkt: Packet) {
        self.out.push(NetAction::Transmit(pkt));
    }
    pub fn drop(&mut self, pkt: Packet, why: DropReason) {
        self.out.push(NetAction::Drop(pkt, why));
    }
    pub fn timer(&mut self, at: Time, token: u64) {
        self.out.push(NetAction::Timer { at, token });
    }
}

pub trait Routing: Send {
    /// Short protocol name for reports ("static", "aodv", "dsr").
    fn name(&self) -> &'static str;
    /// Finds a next hop for `pkt` (set `pkt.next_hop` and transmit), buffers
    /// it while a route is sought, or drops it.
    fn route(&mut self, ctx: &mut RouteCtx, pkt: Packet, origin: Origin);
    /// The MAC gave up on `pkt` towards `pkt.next_hop` (retries exhausted).
    /// The default drops it with reason RET.
    fn on_link_failure(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        ctx.drop(pkt, DropReason::Ret);
    }
    /// A routing control packet addressed to (or broadcast to) this node.
    fn on_control(&mut self, _ctx: &mut RouteCtx, _pkt: &Packet) {}
    /// A frame decoded by this node's radio but addressed to another node.
    fn on_overheard(&mut self, _ctx: &mut RouteCtx, _pkt: &Packet) {}
    /// Whether the node should feed `on_overheard` (promiscuous tap).
    fn wants_overheard(&self) -> bool {
        false
    }
    fn on_timer(&mut self, _ctx: &mut RouteCtx, _token: u64) {}
    /// Visits every packet the protocol holds (send buffers), for the audit.
    fn held(&self, _f: &mut dyn FnMut(&Packet)) {}
}
