//! Transport endpoints: UDP (and TCP, TFRC as they land).
//!
//! An endpoint is one end of a flow bound to a port on a node. The node
//! hands it packets addressed to its port and fires its timers; it answers
//! with [`EndpointAction`]s. Each protocol is one module implementing
//! [`Endpoint`].

pub mod beacon;
pub mod tcp;
pub mod tfrc;
pub mod udp;
pub mod voip;

use crate::net::{Body, LinkFailureNotice, NodeId, Packet};
use crate::sim::{FateTable, RngStream, Time};

/// What an endpoint asks the node to do.
#[derive(Copy, Clone, Debug)]
pub enum EndpointAction {
    /// Hand this packet to the network layer.
    Send(Packet),
    /// Call `on_timer(token)` at `at`.
    Timer { at: Time, token: u64 },
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
    pub fn timer(&mut self, at: Time, token: u64) {
        self.out.push(EndpointAction::Timer { at, token });
    }
}

pub trait Endpoint: Send {
    /// The port packets are demultiplexed on.
    fn port(&self) -> u16;
    /// Called once at time zero (schedule the start timer here).
    fn start(&mut self, ctx: &mut EndpointCtx);
    fn on_timer(&mut self, ctx: &mut EndpointCtx, token: u64);
    /// A packet addressed to this node and port.
    fn on_packet(&mut self, ctx: &mut EndpointCtx, pkt: &Packet);
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
    /// The node-discovery state, for beacon endpoints (`beacon.rs`).
    fn beacon(&self) -> Option<&beacon::BeaconEndpoint> {
        None
    }
    /// What a VoIP call end recorded, for VoIP endpoints.
    fn voip_record(&self) -> Option<&crate::app::quality::VoipRecord> {
        None
    }
}
