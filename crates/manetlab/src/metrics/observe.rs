//! The observer: the one interface through which everything that watches a
//! run subscribes to it: trace writers (ns-2 text, pcap), the link view,
//! test probes, and later time-series and viewer recorders.
//!
//! The kernel (`simulation/observe.rs`) calls every registered [`Observer`]
//! in registration order at fixed points of the pipeline:
//! - [`Observer::packet`]: a packet was sent, received, forwarded or dropped
//!   (with the reason) at a node and layer; routing control packets are
//!   packets like any other (`Packet::is_control`);
//! - [`Observer::frame`]: a frame went on the air (`Tx`), and, for every
//!   node that heard it, its outcome there (`Rx` decoded or `Lost` with the
//!   reason), with the received power;
//! - [`Observer::queue`]: a node's interface queue length changed;
//! - [`Observer::flow`]: a flow's application sent or received payload, or
//!   one of its data packets was dropped (what `flows.csv` counts, before
//!   the warm-up cut);
//! - [`Observer::medium`]: a node's carrier sense went busy or idle;
//! - [`Observer::start`] once before the first event with the run's
//!   configuration: node positions at any time follow from
//!   `cfg.mobility.trajectories(&cfg.nodes)` (position queries);
//! - [`Observer::finish`] once at the end (packets still held are reported
//!   first as `END` drops), then [`Observer::report`] to add what the
//!   observer recorded to the run's report (the time series).
//!
//! With no observer registered the kernel skips all of this: each hook is
//! one inlined emptiness test, and nothing is computed for it.

use super::DropReason;
use crate::config::SimConfig;
use crate::mac::Frame;
use crate::net::{NodeId, Packet};
use crate::sim::Time;

/// The layer an event happened at (ns-2's trace levels).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Layer {
    /// Application / transport agent ("AGT").
    Agent,
    /// Routing / network layer ("RTR").
    Router,
    /// Interface queue ("IFQ").
    Ifq,
    /// MAC ("MAC").
    Mac,
}

impl Layer {
    pub fn ns2(self) -> &'static str {
        match self {
            Layer::Agent => "AGT",
            Layer::Router => "RTR",
            Layer::Ifq => "IFQ",
            Layer::Mac => "MAC",
        }
    }
    /// The layer at which a drop with this reason happens.
    pub fn of_drop(why: DropReason) -> Layer {
        match why {
            DropReason::Ifq | DropReason::Arp | DropReason::Pace => Layer::Ifq,
            DropReason::Ret | DropReason::Col | DropReason::Err | DropReason::Dup => Layer::Mac,
            DropReason::End => Layer::Ifq,
            DropReason::Bps => Layer::Agent,
            _ => Layer::Router,
        }
    }
}

/// What happened to a packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// "s": sent by this layer (handed down).
    Send,
    /// "r": received by this layer (from below).
    Recv,
    /// "f": forwarded by the router.
    Forward,
    /// "D": dropped, with the reason.
    Drop(DropReason),
}

impl Action {
    pub fn ns2(self) -> &'static str {
        match self {
            Action::Send => "s",
            Action::Recv => "r",
            Action::Forward => "f",
            Action::Drop(_) => "D",
        }
    }
}

/// One traced packet event.
#[derive(Copy, Clone, Debug)]
pub struct PacketEvent<'a> {
    pub time: Time,
    pub node: NodeId,
    pub layer: Layer,
    pub action: Action,
    pub pkt: &'a Packet,
    /// For MAC-level events: the frame carrying the packet.
    pub frame: Option<&'a Frame>,
}

/// Direction of a frame event.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FrameDir {
    /// The node put the frame on the air.
    Tx,
    /// The node decoded the frame.
    Rx,
    /// The node's receiver lost the frame (collision or error).
    Lost(DropReason),
}

/// One traced frame (every kind: RTS, CTS, DATA, ACK).
#[derive(Copy, Clone, Debug)]
pub struct FrameEvent<'a> {
    pub time: Time,
    pub node: NodeId,
    pub dir: FrameDir,
    pub frame: &'a Frame,
    /// Air time of the frame.
    pub duration: Time,
    /// Received power, watts (Rx and Lost; 0 for Tx).
    pub power_w: f64,
}

/// A node's interface queue changed length.
#[derive(Copy, Clone, Debug)]
pub struct QueueEvent {
    pub time: Time,
    pub node: NodeId,
    /// Packets held after the change.
    pub len: usize,
}

/// What happened to a flow's payload (application level: what the flow
/// statistics count).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum FlowWhat {
    /// The application handed `payload` bytes to the network (a datagram
    /// backpressure refused is counted too, as in `sent_packets`).
    Sent { payload: u32 },
    /// `payload` bytes of a packet created at `created` reached the
    /// application; `first` is false for a duplicate copy.
    Received { created: Time, payload: u32, first: bool },
    /// A data packet of the flow (uid `uid`) was dropped at `node` (not at
    /// the end of the run: END drops are only [`Observer::packet`] events).
    /// This is the packet's fate for the audit (`sim/fate.rs`).
    Dropped { node: NodeId, why: DropReason, uid: u64 },
    /// A data packet of the flow reached the flow's destination node after
    /// `hops` hops (before its transport endpoint, if any, saw it).
    Hops { hops: u32 },
    /// A data packet (uid `uid`) reached a destination with no endpoint
    /// bound to its port: its fate is delivered. (Endpoints mark their own
    /// deliveries through `FlowRecorder::fate` and report `Received`.)
    Delivered { uid: u64 },
}

/// One flow event.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FlowEvent {
    pub time: Time,
    /// Flow index in the scenario.
    pub flow: u32,
    pub what: FlowWhat,
}

/// What one receiver made of a frame: the per-receiver outcome of every
/// transmission at every radio in carrier-sense range, including those the
/// receiver never locked onto (for the browser viewer's recorder,
/// `metrics/viz`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reception {
    /// At the frame's first bit: the receiver stays locked on another,
    /// stronger frame (capture), so this one is ignored.
    Captured,
    /// At the last bit: decoded.
    Decoded,
    /// At the last bit: the locked frame was lost to an overlapping signal.
    Collided,
    /// At the last bit: the locked frame was lost for being too weak or
    /// because the receiver transmitted meanwhile (or, under the SINR model,
    /// to bit errors).
    Error,
    /// At the last bit: the receiver was not locked on this frame (too weak
    /// to lock onto, captured out, or it lost the receiver in a collision to
    /// a frame that lasted longer).
    NotLocked,
}

/// One receiver's view of one transmission: every radio within
/// carrier-sense range gets one at the last bit (and one more at the first
/// bit when the frame is captured out).
#[derive(Copy, Clone, Debug)]
pub struct ReceptionEvent<'a> {
    pub time: Time,
    /// The receiver.
    pub node: NodeId,
    /// The transmitter and when it started sending the frame.
    pub sender: NodeId,
    pub tx_start: Time,
    pub frame: &'a Frame,
    /// Received power, watts.
    pub power_w: f64,
    pub outcome: Reception,
}

/// The costlier optional hooks an observer wants; the kernel asks once, when
/// the observer is registered, and skips the others entirely.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Interest {
    /// [`Observer::reception`] for every (frame, receiver in range).
    pub receptions: bool,
    /// [`Observer::routes`] after every call into a node's routing protocol.
    pub routes: bool,
}

impl Interest {
    pub fn or(self, o: Interest) -> Interest {
        Interest { receptions: self.receptions || o.receptions, routes: self.routes || o.routes }
    }
}

/// Watches a run. Every method has an empty default: implement what you
/// need. Observers are owned by the simulation and must be `Send`.
pub trait Observer: Send {
    /// Once, before the first event.
    fn start(&mut self, _cfg: &SimConfig) {}
    fn packet(&mut self, _ev: &PacketEvent) {}
    fn frame(&mut self, _ev: &FrameEvent) {}
    fn queue(&mut self, _ev: &QueueEvent) {}
    /// A flow's application-level event (every one, warm-up included).
    fn flow(&mut self, _ev: &FlowEvent) {}
    /// `node`'s physical carrier sense became busy (`true`: a signal above
    /// the carrier-sense threshold began while none was sensed) or idle.
    fn medium(&mut self, _time: Time, _node: NodeId, _busy: bool) {}
    /// Once, at registration: the run's board of routing-message bytes
    /// (DSDV, OLSR; `wire/board.rs`), for writers that show message contents.
    fn attach_board(&mut self, _board: &crate::wire::board::WireBoard) {}
    /// The optional hooks below that this observer wants (none by default).
    fn interest(&self) -> Interest {
        Interest::default()
    }
    /// A receiver's outcome of a frame (only with `Interest::receptions`).
    fn reception(&mut self, _ev: &ReceptionEvent) {}
    /// `node`'s routing table after its protocol handled an event, one
    /// entry per destination (only with `Interest::routes`; usually
    /// unchanged).
    fn routes(&mut self, _time: Time, _node: NodeId, _table: &[crate::net::routing::RouteEntry]) {}
    /// `node`'s MAC (or ARP) gave up on the link to `next_hop`: the link
    /// failure its routing protocol is told about.
    fn link_failure(&mut self, _time: Time, _node: NodeId, _next_hop: NodeId) {}
    /// Called once when the run ends (flush files).
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    /// After [`Observer::finish`]: adds what this observer recorded to the
    /// run's report (e.g. `Report::timeseries`). Default: nothing.
    fn report(&mut self, _report: &mut super::Report) {}
}
