//! One end of a VoIP call: sends its direction over UDP (driven by a
//! [`VoipSource`]) and records the other direction's packets.
//!
//! Both ends of flow `i` are bound to the same port. Each end counts the
//! packets it sends and the one-way delays of the packets it receives, for
//! packets *created* in the measurement window `[max(start, warmup), stop -
//! 1 s)`: a packet created in the last second of a call is counted by
//! neither end, so nothing still in flight at the end is mistaken for a
//! loss (a packet 1 s late is past any playout deadline anyway).

use super::{Endpoint, EndpointCtx};
use crate::app::quality::VoipRecord;
use crate::app::voip::{VoipConfig, VoipSource};
use crate::app::TrafficSource;
use crate::net::packet::UDP_HEADER_BYTES;
use crate::net::{Body, NodeId, Packet};
use crate::sim::Time;

/// Packets created this close to the end of a call are not counted.
const END_GUARD: Time = Time::from_secs(1);

pub struct VoipEndpoint {
    flow: u32,
    port: u16,
    peer: NodeId,
    seq: u64,
    source: VoipSource,
    /// Measurement window on creation times.
    from: Time,
    until: Time,
    record: VoipRecord,
}

impl VoipEndpoint {
    pub fn new(flow: u32, port: u16, peer: NodeId, cfg: &VoipConfig, start: Time, stop: Time, warmup: Time) -> Self {
        let from = start.max(warmup);
        let until = if stop.saturating_sub(END_GUARD) > from { stop - END_GUARD } else { stop };
        let n = (until.saturating_sub(from).as_ns() / cfg.interval.as_ns().max(1)) as usize + 2;
        VoipEndpoint {
            flow,
            port,
            peer,
            seq: 0,
            source: VoipSource::new(cfg, start, stop),
            from,
            until,
            // Reserve for the first minutes only: the record grows with the
            // packets that really arrive, never by duration up front (a
            // 10^9 s run once reserved 400 GB here).
            record: VoipRecord::with_capacity(n.min(1 << 16)),
        }
    }
    fn counted(&self, created: Time) -> bool {
        created >= self.from && created < self.until
    }
    fn arm(&mut self, ctx: &mut EndpointCtx) {
        if let Some(at) = self.source.next_departure(ctx.now, ctx.rng) {
            ctx.timer(at, 0);
        }
    }
}

impl Endpoint for VoipEndpoint {
    fn port(&self) -> u16 {
        self.port
    }
    fn start(&mut self, ctx: &mut EndpointCtx) {
        self.arm(ctx);
    }
    fn on_timer(&mut self, ctx: &mut EndpointCtx, _token: u64) {
        let payload = self.source.payload_bytes(self.seq);
        let body = Body::Udp { sport: self.port, dport: self.port, seq: self.seq };
        let mut pkt = ctx.new_packet(self.peer, UDP_HEADER_BYTES + payload, self.flow, body);
        pkt.dscp = crate::net::packet::DSCP_EF;
        ctx.metrics.flow_sent(self.flow, ctx.now, payload);
        if self.counted(ctx.now) {
            self.record.sent += 1;
        }
        self.seq += 1;
        ctx.send(pkt);
        self.arm(ctx);
    }
    fn on_packet(&mut self, ctx: &mut EndpointCtx, pkt: &Packet) {
        let payload = pkt.size.saturating_sub(crate::net::IP_HEADER_BYTES + UDP_HEADER_BYTES);
        let first = ctx.metrics.fate().delivered(pkt.uid);
        ctx.metrics.flow_received(self.flow, ctx.now, pkt.created, payload, first);
        if first && self.counted(pkt.created) {
            self.record.delays.push((ctx.now - pkt.created).as_ns());
        }
    }
    fn voip_record(&self) -> Option<&VoipRecord> {
        Some(&self.record)
    }
}
