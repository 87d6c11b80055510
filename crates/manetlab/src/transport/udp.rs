//! UDP: a sending endpoint driven by a traffic source, and a sink.

use super::{Endpoint, EndpointCtx, EndpointTimer, TrafficSource};
use crate::net::packet::UDP_HEADER_BYTES;
use crate::net::{Body, NodeId, Packet};

/// Sends one UDP datagram per departure of its traffic source. The source
/// is a type parameter, not a trait object: its two calls a datagram
/// (`next_departure`, `payload_bytes`) are inlined into `on_timer` (the
/// CBR sender's `on_timer` is ~160 instructions a datagram on the 2-hop
/// benchmark; session 23).
pub struct UdpSender<S: TrafficSource> {
    flow: u32,
    port: u16,
    dst: NodeId,
    dport: u16,
    seq: u64,
    source: S,
}

impl<S: TrafficSource> UdpSender<S> {
    pub fn new(flow: u32, port: u16, dst: NodeId, dport: u16, source: S) -> Self {
        UdpSender { flow, port, dst, dport, seq: 0, source }
    }
    fn arm(&mut self, ctx: &mut EndpointCtx) {
        if let Some(at) = self.source.next_departure(ctx.now, ctx.rng) {
            ctx.timer(at, EndpointTimer::of(0));
        }
    }
}

impl<S: TrafficSource> Endpoint for UdpSender<S> {
    fn port(&self) -> u16 {
        self.port
    }
    /// Hands every packet it makes on at once: holds none.
    fn held(&self, _f: &mut dyn FnMut(&Packet)) {}
    fn start(&mut self, ctx: &mut EndpointCtx) {
        self.arm(ctx);
    }
    fn on_timer(&mut self, ctx: &mut EndpointCtx, _timer: EndpointTimer) {
        let payload = self.source.payload_bytes(self.seq);
        let body = Body::Udp { sport: self.port, dport: self.dport, seq: self.seq };
        // `new_packet` then `flow_sent`, in one call (`create_sent`).
        let uid = ctx.metrics.create_sent(self.flow, ctx.now, payload);
        let pkt = Packet::new(uid, ctx.node, self.dst, UDP_HEADER_BYTES + payload, self.flow, body, ctx.now);
        self.seq += 1;
        ctx.send(pkt);
        self.arm(ctx);
    }
    fn on_packet(&mut self, _ctx: &mut EndpointCtx, _pkt: &Packet) {}
}

/// Receives a flow's datagrams and records them in the flow's metrics.
pub struct UdpSink {
    flow: u32,
    port: u16,
}

impl UdpSink {
    pub fn new(flow: u32, port: u16) -> Self {
        UdpSink { flow, port }
    }
}

impl Endpoint for UdpSink {
    fn port(&self) -> u16 {
        self.port
    }
    /// Hands every packet it makes on at once: holds none.
    fn held(&self, _f: &mut dyn FnMut(&Packet)) {}
    fn start(&mut self, _ctx: &mut EndpointCtx) {}
    fn on_timer(&mut self, _ctx: &mut EndpointCtx, _timer: EndpointTimer) {}
    fn on_packet(&mut self, ctx: &mut EndpointCtx, pkt: &Packet) {
        let payload = pkt.size.saturating_sub(crate::net::IP_HEADER_BYTES + UDP_HEADER_BYTES);
        ctx.metrics.delivered_received(pkt.uid, self.flow, ctx.now, pkt.created, payload);
    }
}
