//! Routing protocols.
//!
//! A protocol implements [`Routing`]. The node hands it every packet that needs
//! a next hop (from local transport or received for forwarding), MAC
//! link-failure feedback, routing control packets, overheard frames and its own
//! timers. It answers by pushing [`NetAction`]s: send towards a next hop, drop
//! with a reason, set a timer, or take back the packets queued for a broken
//! link. Packets it buffers (awaiting a route) stay inside it and are reported
//! by [`Routing::held`] at the end of a run; its control-plane counters are
//! reported by [`Routing::stats`].

mod counters;
pub mod delayed;
#[cfg(test)]
pub(crate) mod harness;

use crate::net::{Body, NodeId, Packet, FLOW_NONE};
use crate::sim::params::{ParamError, Params};
use crate::sim::{DropReason, FateTable, Position};
use crate::sim::{RngStream, Time};
use crate::wire::board::{RoutingMsg, WireRef};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use aodv::{Aodv, AodvConfig, LinkDetection};
pub use counters::RoutingCounters;
pub use dsdv::{Dsdv, DsdvConfig};
pub use dsr::{Dsr, DsrConfig};
pub use olsr::{Olsr, OlsrConfig};
pub use static_routes::StaticRouting;

/// The registry of routing protocols: one line per protocol, naming the
/// variant of [`RoutingConfig`] that carries its configuration and the
/// module and type implementing [`RoutingModel`] (its name, its
/// `[routing]` keys and their parser, and how it is built). The macro
/// declares the module, the variant, the dispatch and the [`PROTOCOLS`]
/// table; nothing else in the tree names a protocol.
macro_rules! protocols {
    ($( $(#[$doc:meta])* $variant:ident $body:tt => $module:ident :: $model:ident, )*) => {
        $( pub mod $module; )*

        /// How routes are found: one variant per registered protocol.
        #[derive(Clone, Debug, PartialEq)]
        pub enum RoutingConfig {
            $( $(#[$doc])* $variant $body, )*
        }

        impl RoutingConfig {
            /// The protocol name used in scenario files and reports.
            pub fn name(&self) -> &'static str {
                match self {
                    $( RoutingConfig::$variant { .. } => <$module::$model as RoutingModel>::NAME, )*
                }
            }

            /// One instance of the protocol per node. Wired-only nodes run
            /// no MANET routing (their wired table, `net/wired.rs`, covers
            /// everything they send) unless the protocol says it covers them.
            pub fn build(&self, env: &NetEnv) -> Result<Vec<Box<dyn Routing>>, String> {
                let (mut all, wired_too) = match self {
                    $( RoutingConfig::$variant { .. } => (
                        <$module::$model as RoutingModel>::build(self, env)?,
                        <$module::$model as RoutingModel>::ON_WIRED_ONLY,
                    ), )*
                };
                if !wired_too {
                    for &w in env.wired_only {
                        all[w as usize] = Box::new(StaticRouting::from_table(Vec::new()));
                    }
                }
                Ok(all)
            }
        }

        /// Every registered protocol, in registration order.
        pub const PROTOCOLS: &[Protocol] = &[
            $( Protocol {
                name: <$module::$model as RoutingModel>::NAME,
                keys: <$module::$model as RoutingModel>::KEYS,
                parse: <$module::$model as RoutingModel>::parse,
            }, )*
        ];
    };
}

protocols! {
    /// Fixed routes: shortest paths (fewest hops) over the initial
    /// connectivity graph (links no longer than the receive range), except
    /// where `paths` gives an explicit node sequence src..dst (its reverse is
    /// installed too unless another path covers it).
    Static { paths: Vec<Vec<NodeId>> } => static_routes::StaticRouting,
    /// Ad hoc On-Demand Distance Vector routing (RFC 3561), see `docs/aodv.md`.
    Aodv(AodvConfig) => aodv::Aodv,
    /// Dynamic Source Routing (RFC 4728, CMU/ns-2 semantics), see `docs/dsr.md`.
    Dsr(DsrConfig) => dsr::Dsr,
    /// Destination-Sequenced Distance-Vector routing (Perkins and Bhagwat
    /// 1994), see `docs/dsdv.md`.
    Dsdv(DsdvConfig) => dsdv::Dsdv,
    /// Optimized Link State Routing (RFC 3626), see `docs/olsr.md`.
    Olsr(OlsrConfig) => olsr::Olsr,
    Flooding(flooding::FloodingConfig) => flooding::Flooding,
    /// No routing: one-hop broadcasts and direct sends (`none.rs`).
    NoRouting(none::NoRoutingConfig) => none::NoRouting,
}

/// A routing protocol as the scenario file and the kernel see it,
/// implemented beside the protocol and registered in [`protocols!`].
pub trait RoutingModel {
    /// The `routing.protocol` value and the name in reports.
    const NAME: &'static str;
    /// The `[routing]` keys it reads; any other key given is refused
    /// ("'routing.x' is not used by protocol = ...").
    const KEYS: &'static [&'static str];
    /// Whether wired-only nodes run it too (static tables cover them).
    const ON_WIRED_ONLY: bool = false;
    /// Its configuration from the `[routing]` section (`protocol` chose it).
    fn parse(p: &dyn Params) -> Result<RoutingConfig, ParamError>;
    /// One instance per node, `env.positions.len()` of them. `cfg` is this
    /// protocol's variant. An error is reported as the run's build error.
    fn build(cfg: &RoutingConfig, env: &NetEnv) -> Result<Vec<Box<dyn Routing>>, String>;
}

/// A registry entry: what the scenario layer needs to read `[routing]`.
pub struct Protocol {
    pub name: &'static str,
    pub keys: &'static [&'static str],
    pub parse: fn(&dyn Params) -> Result<RoutingConfig, ParamError>,
}

/// What a protocol may read when the run is built.
pub struct NetEnv<'a> {
    /// Initial node positions (their count is the number of nodes).
    pub positions: &'a [Position],
    /// Receive range, metres (the connectivity graph of static routes).
    pub rx_range: f64,
    /// Wired links (`net/wired.rs`), both directions.
    pub wires: &'a [(NodeId, NodeId)],
    /// Nodes without a radio.
    pub wired_only: &'a [NodeId],
    /// The run's board of variable-length messages (`wire/board.rs`).
    pub board: &'a crate::wire::board::WireBoard,
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
    /// Call `on_timer(timer)` at `at`.
    Timer { at: Time, timer: RouteTimer },
    /// Take every packet waiting in the interface queue for `next_hop` out of
    /// it and hand each back through `Routing::on_reclaimed` (the link to
    /// that neighbour is broken). Packets already inside the MAC are not
    /// reclaimed: they come back through `on_link_failure` if they fail.
    Reclaim { next_hop: NodeId },
    /// Hand an Explicit Link Failure Notice to this node's transport
    /// endpoint bound to `notice.sport` (this node is `notice.src`).
    Notify(crate::net::LinkFailureNotice),
}

/// A routing protocol's timer, handed back as it was set: a kind the
/// protocol defines (its `T_*` constants) and two arguments (a slot, a
/// destination, a generation), each in its own field: nothing is packed
/// into bits.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct RouteTimer {
    pub kind: u8,
    pub a: u32,
    pub b: u32,
}

impl RouteTimer {
    /// A timer of `kind` without arguments.
    pub const fn of(kind: u8) -> RouteTimer {
        RouteTimer { kind, a: 0, b: 0 }
    }
    pub const fn with(kind: u8, a: u32, b: u32) -> RouteTimer {
        RouteTimer { kind, a, b }
    }
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
        Packet::new(self.uids.create_untracked(), self.node, dst, l4_bytes, FLOW_NONE, body, self.now)
    }
    /// A new control packet carrying a message posted on the run's board
    /// (`NetEnv::board`), in UDP to and from `port`; `name` is its packet
    /// type in traces. No `Body` variant is needed for it.
    pub fn board_packet(&mut self, dst: NodeId, name: &'static str, port: u16, wire: WireRef) -> Packet {
        let msg = RoutingMsg { name, port, wire };
        self.new_packet(dst, crate::net::UDP_HEADER_BYTES + wire.len as u32, Body::Routing(msg))
    }
    pub fn transmit(&mut self, pkt: Packet) {
        self.out.push(NetAction::Transmit(pkt));
    }
    pub fn drop(&mut self, pkt: Packet, why: DropReason) {
        self.out.push(NetAction::Drop(pkt, why));
    }
    pub fn timer(&mut self, at: Time, timer: RouteTimer) {
        self.out.push(NetAction::Timer { at, timer });
    }
    pub fn reclaim(&mut self, next_hop: NodeId) {
        self.out.push(NetAction::Reclaim { next_hop });
    }
    pub fn notify(&mut self, notice: crate::net::LinkFailureNotice) {
        self.out.push(NetAction::Notify(notice));
    }
}

/// Packets and bytes (IP datagram size) of one kind of control message.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MsgCount {
    pub packets: u64,
    pub bytes: u64,
}

impl MsgCount {
    pub fn add(&mut self, bytes: u32) {
        self.packets += 1;
        self.bytes += bytes as u64;
    }
}

/// Control-plane counters of one node's routing protocol. Generic: message
/// kinds and event names are chosen by each protocol (AODV: "RREQ", "RREP",
/// "RERR", "HELLO"; events are listed in `docs/aodv.md`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoutingStats {
    /// Control messages handed to the interface queue by this node
    /// (originated or forwarded), by kind.
    pub sent: BTreeMap<String, MsgCount>,
    /// Control messages received by this node (addressed to it or broadcast),
    /// by kind, duplicates included.
    pub received: BTreeMap<String, MsgCount>,
    /// Protocol events by name (route discoveries, link breaks, ...).
    pub events: BTreeMap<String, u64>,
}

impl RoutingStats {
    pub fn count_sent(&mut self, kind: &str, bytes: u32) {
        Self::bump(&mut self.sent, kind, bytes);
    }
    pub fn count_received(&mut self, kind: &str, bytes: u32) {
        Self::bump(&mut self.received, kind, bytes);
    }
    pub fn event(&mut self, name: &str) {
        self.add_event(name, 1);
    }
    pub fn add_event(&mut self, name: &str, n: u64) {
        match self.events.get_mut(name) {
            Some(v) => *v += n,
            None => {
                self.events.insert(name.to_string(), n);
            }
        }
    }
    fn bump(map: &mut BTreeMap<String, MsgCount>, kind: &str, bytes: u32) {
        match map.get_mut(kind) {
            Some(c) => c.add(bytes),
            None => {
                let mut c = MsgCount::default();
                c.add(bytes);
                map.insert(kind.to_string(), c);
            }
        }
    }
    /// Adds another node's counters to these.
    pub fn merge(&mut self, o: &RoutingStats) {
        for (dst, src) in [(&mut self.sent, &o.sent), (&mut self.received, &o.received)] {
            for (k, c) in src {
                let e = dst.entry(k.clone()).or_default();
                e.packets += c.packets;
                e.bytes += c.bytes;
            }
        }
        for (k, v) in &o.events {
            self.add_event(k, *v);
        }
    }
    /// Control messages sent, all kinds together.
    pub fn sent_total(&self) -> MsgCount {
        self.sent
            .values()
            .fold(MsgCount::default(), |a, c| MsgCount { packets: a.packets + c.packets, bytes: a.bytes + c.bytes })
    }
    pub fn sent_of(&self, kind: &str) -> u64 {
        self.sent.get(kind).map_or(0, |c| c.packets)
    }
    pub fn received_of(&self, kind: &str) -> u64 {
        self.received.get(kind).map_or(0, |c| c.packets)
    }
    pub fn event_count(&self, name: &str) -> u64 {
        self.events.get(name).copied().unwrap_or(0)
    }
    pub fn is_empty(&self) -> bool {
        self.sent.is_empty() && self.received.is_empty() && self.events.is_empty()
    }
}

/// One routing-table entry as the browser viewer shows it (`metrics/viz`):
/// generic over protocols (AODV's table, DSR's route cache, static routes).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RouteEntry {
    pub dst: NodeId,
    pub next_hop: NodeId,
    /// Hop count, where the protocol keeps one (static tables do not).
    pub hops: Option<u32>,
    /// Usable now (AODV: valid and not expired; DSR: cached).
    pub valid: bool,
    /// Destination sequence number, where the protocol has one.
    pub seq: Option<u32>,
}

pub trait Routing: Send {
    /// Short protocol name for reports ("static", "aodv", "dsr").
    fn name(&self) -> &'static str;
    /// Called once at time zero, before any other event (start periodic
    /// timers here).
    fn start(&mut self, _ctx: &mut RouteCtx) {}
    /// Finds a next hop for `pkt` (set `pkt.next_hop` and transmit), buffers
    /// it while a route is sought, or drops it.
    fn route(&mut self, ctx: &mut RouteCtx, pkt: Packet, origin: Origin);
    /// [`Routing::route`] of a copy of `*pkt` (the kernel routes packets
    /// read in its action vectors). A protocol may override it to copy the
    /// packet only where it keeps or sends it (AODV: one copy less per
    /// packet on an active route).
    #[inline]
    fn route_ref(&mut self, ctx: &mut RouteCtx, pkt: &Packet, origin: Origin) {
        self.route(ctx, *pkt, origin)
    }
    /// [`Routing::route_ref`], except that where it would end by sending
    /// `pkt` to one neighbour (`ctx.transmit` of the packet with that next
    /// hop, its last action) it returns that next hop instead and does not
    /// push the `Transmit`: the kernel then sends the packet from where it
    /// lies, without its copy into the action vector and the work item
    /// (`simulation/routed.rs`). Any other outcome is `route_ref`'s, and
    /// `None`. When it returns a next hop it may first set, in `pkt`
    /// itself, the other fields the copy it sends would have changed (DSR:
    /// the source route's step and the previous hop); otherwise `pkt` is
    /// left as it was. The default is `route_ref`; AODV (its active route)
    /// and DSR (a flow-state forward) override it.
    #[inline]
    fn route_hop(&mut self, ctx: &mut RouteCtx, pkt: &mut Packet, origin: Origin) -> Option<NodeId> {
        self.route_ref(ctx, pkt, origin);
        None
    }
    /// The MAC gave up on `pkt` towards `pkt.next_hop` (retries exhausted).
    /// The default drops it with reason RET.
    fn on_link_failure(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        ctx.drop(pkt, DropReason::Ret);
    }
    /// Whether the protocol's packets carry ns-2's transmit-failure callback
    /// (`hdr_cmn::xmit_failure_`, set by AODV with link-layer detection and
    /// by DSR): then ns-2-mode ARP hands packets it gives up on to
    /// `on_link_failure` instead of dropping them (ARP), and a frame that hits
    /// the MAC retry limit is traced as a MAC drop (`D ... MAC ... RET`, as
    /// ns-2's MAC discards its copy) before routing gets the packet.
    fn xmit_failure_callback(&self) -> bool {
        false
    }
    /// A packet taken back from the interface queue after a
    /// [`NetAction::Reclaim`]. The default drops it with reason CBK.
    fn on_reclaimed(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        ctx.drop(pkt, DropReason::Cbk);
    }
    /// A routing control packet addressed to (or broadcast to) this node.
    fn on_control(&mut self, _ctx: &mut RouteCtx, _pkt: &Packet) {}
    /// A data packet addressed to this node arrived from `pkt.prev_hop` (it is
    /// being handed to the transport layer). Lets a protocol note that the
    /// neighbour is alive and refresh the route back to the source.
    fn on_delivered(&mut self, _ctx: &mut RouteCtx, _pkt: &Packet) {}
    /// A data packet addressed to this node: hand it up to transport? A
    /// protocol that makes copies of packets (flooding) answers false for a
    /// copy it has already delivered, and may drop it (`ctx.drop`). Called
    /// before `on_delivered`, which is not called for a refused packet.
    fn accept_local(&mut self, _ctx: &mut RouteCtx, _pkt: &Packet) -> bool {
        true
    }
    /// A frame decoded by this node's radio but addressed to another node.
    fn on_overheard(&mut self, _ctx: &mut RouteCtx, _pkt: &Packet) {}
    /// Whether the node should feed `on_overheard` (promiscuous tap).
    fn wants_overheard(&self) -> bool {
        false
    }
    /// A hint, no state change: a frame from neighbour `from` addressed to
    /// this node (or broadcast) has started to arrive and may be decoded
    /// in a while; `pkt` is the packet it carries (`None` for RTS, CTS and
    /// ACK frames). A protocol that looks up the previous hop for every
    /// packet heard, or a key the packet carries (AODV's RREQ cache), can
    /// start loading those entries now, so the cache misses overlap the
    /// events in between (`simulation/frames.rs`). Results never depend on
    /// it.
    fn prefetch_heard(&self, _from: NodeId, _pkt: Option<&Packet>) {}
    /// A timer the protocol set (`RouteCtx::timer`) is due.
    fn on_timer(&mut self, _ctx: &mut RouteCtx, _timer: RouteTimer) {}
    /// Wired-only hosts this node is the gateway of (`net/wired.rs`): an
    /// on-demand protocol answers route requests for them as if they were
    /// this node. Called once, before `start`.
    fn set_proxied(&mut self, _hosts: &[NodeId]) {}
    /// Visits every packet the protocol holds (send buffers, packets
    /// waiting out a jitter, `delayed::Parked`), for the packet audit
    /// (`simulation/report.rs`) and the END drops traced at the end.
    /// Required, with no default: a new protocol that parks packets cannot
    /// leave them out of the audit by omission (one that holds none says so
    /// with an empty body).
    fn held(&self, f: &mut dyn FnMut(&Packet));
    /// Control-plane counters (empty for protocols without control traffic).
    fn stats(&self) -> RoutingStats {
        RoutingStats::default()
    }
    /// Appends the routing table as it stands at `now`, one entry per
    /// destination in destination order (for the browser viewer; called only
    /// when a recorder asks). The default shows no table.
    fn route_table(&self, _now: Time, _out: &mut Vec<RouteEntry>) {}
}
