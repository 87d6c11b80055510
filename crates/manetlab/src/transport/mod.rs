//! Transport endpoints: UDP, TCP, TFRC.
//!
//! An endpoint is one end of a flow bound to a port on a node. The node
//! hands it packets addressed to its port and fires its timers; it answers
//! with [`EndpointAction`]s. Each protocol is one module implementing
//! [`Endpoint`]. The traffic types above (`app/`, one file each) build a
//! flow's two endpoints; a UDP sender asks its application, a
//! [`TrafficSource`], when each packet leaves and how big it is.

pub mod tcp;
pub mod tfrc;
pub mod udp;

use crate::net::{Body, LinkFailureNotice, NodeId, Packet};
use crate::sim::{FateTable, RngStream, Time};

/// What an application offers a UDP sender (`udp::UdpSender`): when
/// each packet leaves and how big it is.
pub trait TrafficSource: Send {
    /// The time of the next packet, given the current time; None = done.
    fn next_departure(&mut self, now: Time, rng: &mut RngStream) -> Option<Time>;
    /// Payload bytes of packet number `seq`.
    fn payload_bytes(&self, seq: u64) -> u32;
}

/// A boxed source is a source: `UdpSender<Box<dyn TrafficSource>>` takes a
/// source chosen at run time (the builder's concrete types are inlined).
impl TrafficSource for Box<dyn TrafficSource> {
    fn next_departure(&mut self, now: Time, rng: &mut RngStream) -> Option<Time> {
        (**self).next_departure(now, rng)
    }
    fn payload_bytes(&self, seq: u64) -> u32 {
        (**self).payload_bytes(seq)
    }
}

/// What one end of a two-way call (`app/voip.rs`) recorded within its
/// measurement window: packets sent and the one-way delays of the first
/// receptions, ns. The delay vector is reserved for the first minutes of
/// the call and grows with the packets that arrive.
#[derive(Clone, Debug, Default)]
pub struct VoipRecord {
    pub sent: u64,
    /// One-way delays of first receptions, ns.
    pub delays: Vec<u64>,
}

impl VoipRecord {
    pub fn with_capacity(n: usize) -> Self {
        VoipRecord { sent: 0, delays: Vec::with_capacity(n) }
    }
}

/// An endpoint's timer, handed back as it was set: a kind the endpoint
/// defines (its `T_*` constants) and a generation, each in its own field
/// (nothing is packed into bits). An endpoint that re-arms a timer bumps
/// its generation and ignores a due timer whose generation is not the
/// latest: stale timers are not cancelled, they are recognised.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct EndpointTimer {
    pub kind: u8,
    pub gen: u32,
}

impl EndpointTimer {
    /// A timer of `kind` without a generation.
    pub const fn of(kind: u8) -> EndpointTimer {
        EndpointTimer { kind, gen: 0 }
    }
    pub const fn with(kind: u8, gen: u32) -> EndpointTimer {
        EndpointTimer { kind, gen }
    }
}

/// What an endpoint asks the node to do.
#[derive(Copy, Clone, Debug)]
pub enum EndpointAction {
    /// Hand this packet to the network layer.
    Send(Packet),
    /// Call `on_timer(timer)` at `at`.
    Timer { at: Time, timer: EndpointTimer },
}

/// Where endpoints record their flow's statistics and their packets' fates.
/// Implemented by `metrics::Metrics` (the kernel passes it in), so the
/// transport layer names no layer above it.
pub trait FlowRecorder {
    /// `payload` bytes of flow `flow` were handed to the network at `now`.
    fn flow_sent(&mut self, flow: u32, now: Time, payload: u32);
    /// A packet of flow `flow` created at `created` reached its application;
    /// `first` is false for a duplicate.
    fn flow_received(&mut self, flow: u32, now: Time, created: Time, payload: u32, first: bool);
    /// The run's packet uids and fates (the audit).
    fn fate(&mut self) -> &mut FateTable;
    /// A new tracked packet's uid (`fate().create(now)`), then
    /// `flow_sent(flow, now, payload)`: a sender's two calls for a packet in
    /// one call through the trait object (the CBR sender's path; session
    /// 23). Implementors keep the default.
    fn create_sent(&mut self, flow: u32, now: Time, payload: u32) -> u64 {
        let uid = self.fate().create(now);
        self.flow_sent(flow, now, payload);
        uid
    }
    /// `fate().delivered(uid)`, then `flow_received` with what it returned
    /// (a sink's two calls for a packet, in one; session 23). Returns
    /// whether this was the packet's first delivery. Implementors keep the
    /// default.
    fn delivered_received(&mut self, uid: u64, flow: u32, now: Time, created: Time, payload: u32) -> bool {
        let first = self.fate().delivered(uid);
        self.flow_received(flow, now, created, payload, first);
        first
    }
}

/// What an endpoint may use while handling one event.
pub struct EndpointCtx<'a> {
    pub now: Time,
    pub node: NodeId,
    pub rng: &'a mut RngStream,
    pub out: &'a mut Vec<EndpointAction>,
    pub metrics: &'a mut dyn FlowRecorder,
}

impl EndpointCtx<'_> {
    /// A new packet with a fresh uid; `l4_bytes` is the transport header and
    /// payload (the IP header is added here).
    pub fn new_packet(&mut self, dst: NodeId, l4_bytes: u32, flow: u32, body: Body) -> Packet {
        let uid = self.metrics.fate().create(self.now);
        Packet::new(uid, self.node, dst, l4_bytes, flow, body, self.now)
    }
    pub fn send(&mut self, pkt: Packet) {
        self.out.push(EndpointAction::Send(pkt));
    }
    pub fn timer(&mut self, at: Time, timer: EndpointTimer) {
        self.out.push(EndpointAction::Timer { at, timer });
    }
}

pub trait Endpoint: Send {
    /// The port packets are demultiplexed on.
    fn port(&self) -> u16;
    /// Called once at time zero (schedule the start timer here).
    fn start(&mut self, ctx: &mut EndpointCtx);
    /// A timer the endpoint set (`EndpointCtx::timer`) is due.
    fn on_timer(&mut self, ctx: &mut EndpointCtx, timer: EndpointTimer);
    /// A packet addressed to this node and port.
    fn on_packet(&mut self, ctx: &mut EndpointCtx, pkt: &Packet);
    /// Visits every packet the endpoint holds (a retransmission or
    /// playout buffer of packets, should one keep them), for the packet
    /// audit (`simulation/report.rs`). Required, with no default: an
    /// endpoint that parks packets cannot leave them out of the audit by
    /// omission (one that hands every packet on at once has an empty body;
    /// a TCP sender keeps sequence numbers, not packets).
    fn held(&self, f: &mut dyn FnMut(&Packet));
    /// One of this endpoint's packets was dropped somewhere in the network.
    /// An oracle used only for tracing (TCP time-sequence logs); protocols
    /// must not react to it.
    fn on_dropped(&mut self, _now: Time, _pkt: &Packet) {}
    /// An Explicit Link Failure Notice for one of this endpoint's packets,
    /// delivered by the routing protocol (`wire/elfn.rs`). Default: ignored.
    fn on_link_failure_notice(&mut self, _ctx: &mut EndpointCtx, _notice: &LinkFailureNotice) {}
    /// Connection summary, for TCP senders.
    fn tcp_summary(&self) -> Option<tcp::TcpSummary> {
        None
    }
    /// The TCP sender state machine (its traces), for TCP senders.
    fn tcp_sender(&self) -> Option<&tcp::TcpSender> {
        None
    }
    /// The TFRC sender (its counters and rate trace), for TFRC senders.
    fn tfrc_sender(&self) -> Option<&tfrc::TfrcSender> {
        None
    }
    /// An application's own state, for the report to read back by
    /// downcasting (the beaconing app's neighbour tables: `app/beacon.rs`),
    /// so that this layer does not name the applications above it.
    fn app_state(&self) -> Option<&dyn std::any::Any> {
        None
    }
    /// What a VoIP call end recorded, for VoIP endpoints.
    fn voip_record(&self) -> Option<&VoipRecord> {
        None
    }
}
