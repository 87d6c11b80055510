//! Traffic type `voip`: G.729a-like voice calls, one packet of `payload` voice bytes plus a
//! 12-byte RTP header every `interval` (50 packets/s, 20 bytes: 8 kbit/s of
//! voice, 24 kbit/s at the IP layer with UDP and IP headers), in both
//! directions, without silence suppression.
//!
//! The source is periodic like CBR, but each end starts at a random phase
//! within the first interval (uniform, from the flow's own stream), so that
//! the two directions and different calls are not synchronised.

use super::quality::VoiceQuality;
use super::{payload_size, Endpoints, FlowEnv, Traffic, TrafficModel, TrafficSource};
use crate::net::packet::UDP_HEADER_BYTES;
use crate::net::{Body, NodeId, Packet};
use crate::sim::params::{ParamError, Params};
use crate::sim::{RngStream, Time};
use crate::transport::{Endpoint, EndpointCtx, EndpointTimer, VoipRecord};

/// RTP header bytes (RFC 3550, no CSRC, no extension).
pub const RTP_HEADER_BYTES: u32 = 12;

/// A call's codec framing and quality parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct VoipConfig {
    /// Voice bytes per packet (G.729a: 10 bytes per 10 ms frame, two frames).
    pub payload: u32,
    /// Packetisation interval.
    pub interval: Time,
    /// Playout buffer, codec delay and E-model parameters.
    pub quality: VoiceQuality,
}

impl Default for VoipConfig {
    fn default() -> Self {
        VoipConfig { payload: 20, interval: Time::from_ms(20), quality: VoiceQuality::default() }
    }
}

impl VoipConfig {
    /// UDP payload: voice plus RTP header.
    pub fn udp_payload(&self) -> u32 {
        self.payload + RTP_HEADER_BYTES
    }
}

/// One direction of a call: periodic departures from a random phase.
#[derive(Clone, Debug)]
pub struct VoipSource {
    size: u32,
    interval: Time,
    start: Time,
    stop: Time,
    next: Option<Time>,
}

impl VoipSource {
    pub fn new(cfg: &VoipConfig, start: Time, stop: Time) -> Self {
        VoipSource { size: cfg.udp_payload(), interval: cfg.interval, start, stop, next: None }
    }
}

impl TrafficSource for VoipSource {
    fn next_departure(&mut self, _now: Time, rng: &mut RngStream) -> Option<Time> {
        let t = match self.next {
            None => self.start + Time(rng.range_f64(0.0, self.interval.as_ns() as f64) as u64),
            Some(prev) => prev + self.interval,
        };
        if t >= self.stop {
            return None;
        }
        self.next = Some(t);
        Some(t)
    }
    fn payload_bytes(&self, _seq: u64) -> u32 {
        self.size
    }
}


// One end of a call: sends its direction over UDP (driven by a
// [`VoipSource`]) and records the other direction's packets.
//
// Both ends of flow `i` are bound to the same port. Each end counts the
// packets it sends and the one-way delays of the packets it receives, for
// packets *created* in the measurement window `[max(start, warmup), stop -
// 1 s)`: a packet created in the last second of a call is counted by
// neither end, so nothing still in flight at the end is mistaken for a
// loss (a packet 1 s late is past any playout deadline anyway).

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
            ctx.timer(at, EndpointTimer::of(0));
        }
    }
}

impl Endpoint for VoipEndpoint {
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

/// The `voip` traffic type: both ends are a [`VoipEndpoint`].
pub struct Voip;

impl TrafficModel for Voip {
    const NAME: &'static str = "voip";
    const TYPES: &'static [&'static str] = &["voip"];
    const KEYS: &'static [&'static str] = &["packet_size", "interval"];

    /// `packet_size` voice bytes (default 20B, plus 12 B of RTP) every
    /// `interval` (default 20 ms) in each direction.
    fn parse(p: &dyn Params) -> Result<Traffic, ParamError> {
        let mut v = VoipConfig::default();
        if let Some(s) = payload_size(p, super::MAX_UDP_PAYLOAD - RTP_HEADER_BYTES, "voice bytes per packet")? {
            v.payload = s;
        }
        p.set_positive("interval", &mut v.interval)?;
        Ok(Traffic::Voip(v))
    }

    fn endpoints(cfg: &Traffic, f: &FlowEnv) -> Endpoints {
        let Traffic::Voip(v) = cfg else { unreachable!("a voip flow") };
        Endpoints {
            sender: Box::new(VoipEndpoint::new(f.flow, f.port, f.dst, v, f.start, f.stop, f.warmup)),
            sink: Box::new(VoipEndpoint::new(f.flow, f.port, f.src, v, f.start, f.stop, f.warmup)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::Purpose;

    #[test]
    fn fifty_packets_a_second_of_32_bytes_from_a_random_phase() {
        let cfg = VoipConfig::default();
        assert_eq!(cfg.udp_payload(), 32);
        let mut phases = Vec::new();
        for flow in 0..4 {
            let mut rng = RngStream::new(1, flow, Purpose::AppJitter, 0);
            let mut s = VoipSource::new(&cfg, Time::from_secs(1), Time::from_secs(3));
            let v: Vec<Time> = std::iter::from_fn(|| s.next_departure(Time::ZERO, &mut rng)).collect();
            assert_eq!(v.len(), 100);
            assert!(v[0] >= Time::from_secs(1) && v[0] < Time::from_ms(1020));
            assert!(v.windows(2).all(|w| w[1] - w[0] == Time::from_ms(20)));
            assert_eq!(s.payload_bytes(0), 32);
            phases.push(v[0]);
        }
        phases.dedup();
        assert_eq!(phases.len(), 4, "{phases:?}");
    }
}
