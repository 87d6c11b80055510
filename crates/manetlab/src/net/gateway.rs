//! TCP controls at the Internet gateway: the node where packets cross
//! between a wired link and the radio (voip-tcp-coexistence.txt, "Window
//! Resizing" and "TCP Data/ACK Pacing"). See `docs/gateway.md`.
//!
//! The gateway sees two streams:
//! - **wire -> radio**: what arrives over a wire and goes on over the
//!   MANET (downstream TCP data, VoIP). With `pacing = R`, TCP data
//!   segments go through a shaper: after a packet of `s` bytes is
//!   released, the next is released no earlier than `8 s / R` later (a FIFO
//!   of at most `pacing_queue` packets; a packet arriving at a full FIFO is
//!   dropped with reason `PACE`). Everything else passes untouched.
//! - **radio -> wire**: what the gateway forwards from the MANET onto a
//!   wire (TCP ACKs, VoIP). Pure TCP ACKs (no payload) get
//!   1. with `window = W`: their advertised window lowered to `W * MSS`
//!      bytes when it is larger (never raised);
//!   2. with `ack_pacing = R`: a shaper of the same kind whose cost per ACK
//!      is the data that ACK lets the sender transmit: `k * S` bytes, `k`
//!      the segments it newly acknowledges (`ceil((ack - previous ack of
//!      the flow) / MSS)`, at least 1: a duplicate ACK releases a segment
//!      in fast recovery) and `S` the flow's data packet size (the largest
//!      seen from the wire, else `MSS + 40`). After an ACK of cost `k * S`
//!      is released, the next ACK waits at least `8 k S / R`: the data
//!      released by consecutive ACKs then arrives at rate `R`.
//!
//! MSS is the flow's configured segment size (what the SYN's MSS option
//! would carry). The shapers are aggregate: one for all TCP data, one for
//! all ACKs, whatever the flow. Packets they hold are reported by the audit
//! as held at `gateway`.

use crate::net::packet::TCP_HEADER_BYTES;
use crate::net::{Body, NodeId, Packet, TcpSeg, IP_HEADER_BYTES};
use crate::sim::Time;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The gateway and its controls (`[gateway]` in a scenario).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct GatewayConfig {
    /// The gateway: a node with a radio and a wired link.
    pub node: usize,
    /// Clamp the advertised window of forwarded ACKs to this many segments.
    pub window: Option<u32>,
    /// Shape TCP data entering the radio to this rate, bit/s.
    pub pacing: Option<f64>,
    /// Space ACKs leaving for the wire so their data arrives at this rate, bit/s.
    pub ack_pacing: Option<f64>,
    /// Packets each shaper may hold (data and ACKs separately).
    pub pacing_queue: usize,
}

impl Default for GatewayConfig {
    fn default() -> Self {
        GatewayConfig { node: 0, window: None, pacing: None, ack_pacing: None, pacing_queue: 50 }
    }
}

/// What the gateway did over the run (the report's `gateway` section).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GatewayStats {
    /// ACKs whose advertised window was lowered.
    pub acks_rewritten: u64,
    /// TCP data packets released by the data shaper.
    pub data_paced: u64,
    /// ... of which had to wait.
    pub data_delayed: u64,
    /// ACKs released by the ACK shaper.
    pub acks_paced: u64,
    /// ... of which had to wait.
    pub acks_delayed: u64,
    /// Packets dropped because a shaper's FIFO was full (reason `PACE`).
    pub pacing_drops: u64,
    /// Largest number of packets held by the data / ACK shaper.
    pub data_backlog_max: u64,
    pub ack_backlog_max: u64,
}

/// What to do with a packet offered to the gateway.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Verdict {
    /// Goes on now (possibly rewritten).
    Pass(Packet),
    /// Held by a shaper; schedule a release of that shaper at the time
    /// given, if any (one release is pending per non-empty shaper).
    Held(Option<Time>),
    /// The shaper's FIFO is full.
    Drop(Packet),
}

/// Time to send `bits` at `bps` (rounded up to the nanosecond).
fn gap(bits: u64, bps: f64) -> Time {
    Time::from_ns((bits as f64 * 1e9 / bps).ceil() as u64)
}

/// A FIFO shaper: after an item of cost `c` bits is released at `t`, the
/// next is released no earlier than `t + c / rate`.
#[derive(Debug)]
pub struct Shaper {
    rate: f64,
    limit: usize,
    /// Held packets with their cost, bits.
    fifo: VecDeque<(Packet, u64)>,
    /// Earliest release of the next item.
    next_free: Time,
}

impl Shaper {
    pub fn new(rate_bps: f64, limit: usize) -> Shaper {
        assert!(rate_bps > 0.0 && limit > 0);
        Shaper { rate: rate_bps, limit, fifo: VecDeque::with_capacity(limit.min(1024)), next_free: Time::ZERO }
    }

    /// Offers `pkt` costing `bits` at `now`.
    pub fn offer(&mut self, pkt: Packet, bits: u64, now: Time) -> Verdict {
        if self.fifo.is_empty() && now >= self.next_free {
            self.next_free = now + gap(bits, self.rate);
            return Verdict::Pass(pkt);
        }
        if self.fifo.len() >= self.limit {
            return Verdict::Drop(pkt);
        }
        self.fifo.push_back((pkt, bits));
        Verdict::Held((self.fifo.len() == 1).then_some(self.next_free))
    }

    /// The release due at `now`: the head packet, and when to release the
    /// next one if any is held.
    pub fn release(&mut self, now: Time) -> (Packet, Option<Time>) {
        let (pkt, bits) = self.fifo.pop_front().expect("a shaper release with nothing held");
        self.next_free = now + gap(bits, self.rate);
        (pkt, (!self.fifo.is_empty()).then_some(self.next_free))
    }

    pub fn len(&self) -> usize {
        self.fifo.len()
    }
    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }
    pub fn held(&self, f: &mut dyn FnMut(&Packet)) {
        self.fifo.iter().for_each(|(p, _)| f(p));
    }
    /// The packet the next release hands on.
    pub fn head(&self) -> Option<&Packet> {
        self.fifo.front().map(|(p, _)| p)
    }
}

/// Per-flow knowledge of the gateway.
#[derive(Copy, Clone, Debug, Default)]
struct FlowState {
    /// Segment size, bytes (0: not a TCP flow).
    mss: u32,
    /// Largest data packet seen from the wire, bytes (0: none yet).
    data_size: u32,
    /// Highest cumulative ACK forwarded to the wire.
    last_ack: Option<u64>,
}

/// Run-time state of the gateway controls.
pub struct Gateway {
    node: NodeId,
    window: Option<u32>,
    data: Option<Shaper>,
    acks: Option<Shaper>,
    flows: Vec<FlowState>,
    stats: GatewayStats,
}

impl Gateway {
    /// `mss[f]`: the segment size of flow `f` (0 for non-TCP flows).
    pub fn new(cfg: &GatewayConfig, mss: &[u32]) -> Gateway {
        Gateway {
            node: cfg.node as NodeId,
            window: cfg.window,
            data: cfg.pacing.map(|r| Shaper::new(r, cfg.pacing_queue)),
            acks: cfg.ack_pacing.map(|r| Shaper::new(r, cfg.pacing_queue)),
            flows: mss.iter().map(|&m| FlowState { mss: m, ..Default::default() }).collect(),
            stats: GatewayStats::default(),
        }
    }

    pub fn node(&self) -> NodeId {
        self.node
    }

    fn flow<'a>(flows: &'a mut [FlowState], pkt: &Packet) -> Option<&'a mut FlowState> {
        flows.get_mut(pkt.flow as usize).filter(|f| f.mss > 0)
    }

    /// A packet from a wire about to enter the radio at `now`.
    pub fn to_radio(&mut self, pkt: Packet, now: Time) -> Verdict {
        let Body::Tcp(seg) = pkt.body else { return Verdict::Pass(pkt) };
        if seg.len == 0 {
            return Verdict::Pass(pkt);
        }
        if let Some(f) = Self::flow(&mut self.flows, &pkt) {
            f.data_size = f.data_size.max(pkt.size);
        }
        let Some(sh) = self.data.as_mut() else { return Verdict::Pass(pkt) };
        let v = sh.offer(pkt, pkt.size as u64 * 8, now);
        Self::count(&v, &mut self.stats.data_paced, &mut self.stats.data_delayed, &mut self.stats.pacing_drops);
        self.stats.data_backlog_max = self.stats.data_backlog_max.max(sh.len() as u64);
        v
    }

    /// A packet from the radio about to leave on a wire at `now`.
    pub fn to_wire(&mut self, mut pkt: Packet, now: Time) -> Verdict {
        let Body::Tcp(mut seg) = pkt.body else { return Verdict::Pass(pkt) };
        if seg.len != 0 || seg.flags & TcpSeg::ACK == 0 {
            return Verdict::Pass(pkt);
        }
        let window = self.window;
        let Some(f) = Self::flow(&mut self.flows, &pkt) else { return Verdict::Pass(pkt) };
        let mss = f.mss;
        if let Some(w) = window {
            let cap = (w as u64 * mss as u64).min(u32::MAX as u64) as u32;
            if seg.wnd > cap {
                seg.wnd = cap;
                pkt.body = Body::Tcp(seg);
                self.stats.acks_rewritten += 1;
            }
        }
        let newly = f.last_ack.map_or(0, |a| seg.ack.saturating_sub(a));
        f.last_ack = Some(f.last_ack.map_or(seg.ack, |a| a.max(seg.ack)));
        let segments = newly.div_ceil(mss as u64).max(1);
        let size = if f.data_size > 0 { f.data_size } else { mss + IP_HEADER_BYTES + TCP_HEADER_BYTES };
        let Some(sh) = self.acks.as_mut() else { return Verdict::Pass(pkt) };
        let v = sh.offer(pkt, segments * size as u64 * 8, now);
        Self::count(&v, &mut self.stats.acks_paced, &mut self.stats.acks_delayed, &mut self.stats.pacing_drops);
        self.stats.ack_backlog_max = self.stats.ack_backlog_max.max(sh.len() as u64);
        v
    }

    fn count(v: &Verdict, paced: &mut u64, delayed: &mut u64, drops: &mut u64) {
        match v {
            Verdict::Pass(_) => *paced += 1,
            Verdict::Held(_) => {
                *paced += 1;
                *delayed += 1;
            }
            Verdict::Drop(_) => *drops += 1,
        }
    }

    /// A release of the data shaper (`to_wire = false`) or of the ACK
    /// shaper is due at `now`: the packet, and the next release if any.
    pub fn release(&mut self, to_wire: bool, now: Time) -> (Packet, Option<Time>) {
        let sh = if to_wire { self.acks.as_mut() } else { self.data.as_mut() };
        sh.expect("a release of a shaper that is off").release(now)
    }

    /// The packet a pending release of the ACK shaper (`to_wire`) or of
    /// the data shaper hands on.
    pub fn event_packet(&self, to_wire: bool) -> Option<&Packet> {
        if to_wire { self.acks.as_ref() } else { self.data.as_ref() }?.head()
    }

    /// Visits every packet held by the shapers (end-of-run audit).
    pub fn held(&self, f: &mut dyn FnMut(&Packet)) {
        for s in self.data.iter().chain(self.acks.iter()) {
            s.held(f);
        }
    }

    pub fn stats(&self) -> GatewayStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn data(uid: u64, seq: u64) -> Packet {
        let seg = TcpSeg { seq, len: MSS, flags: TcpSeg::ACK, wnd: 1 << 30, ..TcpSeg::default() };
        Packet::new(uid, 5, 4, TCP_HEADER_BYTES + MSS, 0, Body::Tcp(seg), Time::ZERO)
    }
    fn ack(uid: u64, ack: u64, wnd: u32) -> Packet {
        let seg = TcpSeg { ack, flags: TcpSeg::ACK, wnd, ..TcpSeg::default() };
        Packet::new(uid, 4, 5, TCP_HEADER_BYTES, 0, Body::Tcp(seg), Time::ZERO)
    }
    fn wnd(p: &Packet) -> u32 {
        match p.body {
            Body::Tcp(s) => s.wnd,
            _ => panic!(),
        }
    }
    fn gw(window: Option<u32>, pacing: Option<f64>, ack_pacing: Option<f64>, queue: usize) -> Gateway {
        let cfg = GatewayConfig { node: 0, window, pacing, ack_pacing, pacing_queue: queue };
        Gateway::new(&cfg, &[MSS, 0])
    }
    fn pass(v: Verdict) -> Packet {
        match v {
            Verdict::Pass(p) => p,
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn window_clamp_lowers_never_raises() {
        let mut g = gw(Some(2), None, None, 50);
        // Large advertised window: lowered to 2 segments.
        assert_eq!(wnd(&pass(g.to_wire(ack(1, 1000, 1 << 30), Time::ZERO))), 2 * MSS);
        // Already below W * MSS: untouched (never raised).
        assert_eq!(wnd(&pass(g.to_wire(ack(2, 2000, 1500), Time::ZERO))), 1500);
        assert_eq!(wnd(&pass(g.to_wire(ack(3, 3000, 2 * MSS), Time::ZERO))), 2 * MSS);
        assert_eq!(g.stats().acks_rewritten, 1);
        // Data, VoIP (non-TCP) and other flows' ACKs are not touched.
        assert_eq!(pass(g.to_wire(data(4, 0), Time::ZERO)), data(4, 0));
        let mut other = ack(5, 1000, 1 << 30);
        other.flow = 1;
        assert_eq!(wnd(&pass(g.to_wire(other, Time::ZERO))), 1 << 30);
        let udp = Packet::new(6, 4, 5, 40, 0, Body::Udp { sport: 1, dport: 1, seq: 0 }, Time::ZERO);
        assert_eq!(pass(g.to_wire(udp, Time::ZERO)), udp);
        assert_eq!(g.stats().acks_rewritten, 1);
    }

    /// Drives a shaper side to completion: offers (time, packet) in order,
    /// runs releases as they fall due, returns the release times.
    fn drive(g: &mut Gateway, to_wire: bool, offers: Vec<(Time, Packet)>) -> (Vec<(Time, u64)>, u64) {
        let mut out = Vec::new();
        let mut due: Option<Time> = None;
        let mut drops = 0;
        let mut offers = offers.into_iter().peekable();
        loop {
            let offer_first = match (offers.peek(), due) {
                (Some(o), d) => d.is_none_or(|d| o.0 < d),
                (None, _) => false,
            };
            match due {
                _ if offer_first => {
                    let (t, p) = offers.next().unwrap();
                    let v = if to_wire { g.to_wire(p, t) } else { g.to_radio(p, t) };
                    match v {
                        Verdict::Pass(p) => out.push((t, p.uid)),
                        Verdict::Held(Some(at)) => {
                            assert!(due.is_none(), "one release pending at a time");
                            due = Some(at);
                        }
                        Verdict::Held(None) => assert!(due.is_some()),
                        Verdict::Drop(_) => drops += 1,
                    }
                }
                Some(d) => {
                    let (p, next) = g.release(to_wire, d);
                    out.push((d, p.uid));
                    due = next;
                }
                None => return (out, drops),
            }
        }
    }

    #[test]
    fn data_pacing_spacing_is_at_least_size_over_rate() {
        // 1040-byte packets at 832 kbit/s: 10 ms each.
        let mut g = gw(None, Some(832e3), None, 3);
        // A burst of 6 at t = 0, then one late packet at 1 s.
        let mut offers: Vec<(Time, Packet)> = (0..6).map(|i| (Time::ZERO, data(i, i * 1000))).collect();
        offers.push((Time::from_secs(1), data(9, 9000)));
        let (out, drops) = drive(&mut g, false, offers);
        // The first goes at once, 3 wait, 2 overflow the FIFO of 3.
        assert_eq!(drops, 2);
        let times: Vec<u64> = out.iter().map(|o| o.0.as_ns()).collect();
        assert_eq!(times, vec![0, 10_000_000, 20_000_000, 30_000_000, 1_000_000_000]);
        assert_eq!(out.iter().map(|o| o.1).collect::<Vec<_>>(), vec![0, 1, 2, 3, 9], "FIFO order");
        for w in out.windows(2) {
            assert!(w[1].0 - w[0].0 >= gap(1040 * 8, 832e3));
        }
        let s = g.stats();
        assert_eq!((s.data_paced, s.data_delayed, s.pacing_drops, s.data_backlog_max), (5, 3, 2, 3));
        // Non-TCP and pure ACKs from the wire are never shaped.
        let mut g = gw(None, Some(1e3), None, 1);
        let udp = Packet::new(7, 5, 4, 40, 0, Body::Udp { sport: 1, dport: 1, seq: 0 }, Time::ZERO);
        for _ in 0..5 {
            pass(g.to_radio(udp, Time::ZERO));
            pass(g.to_radio(ack(8, 0, 100), Time::ZERO));
        }
    }

    #[test]
    fn ack_pacing_spaces_by_the_data_each_ack_releases() {
        // Data size learnt from the wire: 1040 B; 832 kbit/s: 10 ms a segment.
        let mut g = gw(Some(4), None, Some(832e3), 50);
        pass(g.to_radio(data(100, 0), Time::ZERO));
        // ACKs at t = 0: first (establishes the flow's ACK point), then one
        // acking 2 segments, one acking 1, a duplicate, one acking 3.
        let acks = [1000u64, 3000, 4000, 4000, 7000];
        let offers = acks.iter().enumerate().map(|(i, &a)| (Time::ZERO, ack(i as u64, a, 1 << 30))).collect();
        let (out, drops) = drive(&mut g, true, offers);
        assert_eq!(drops, 0);
        let times: Vec<u64> = out.iter().map(|o| o.0.as_ns() / 1_000_000).collect();
        // The gap after an ACK is (segments it releases) x 10 ms: 1, 2, 1, 1 (dup), 3.
        assert_eq!(times, vec![0, 10, 30, 40, 50]);
        let s = g.stats();
        assert_eq!((s.acks_paced, s.acks_delayed, s.acks_rewritten), (5, 4, 5));
        // Without data seen, the data size is MSS + 40.
        let mut g = gw(None, None, Some(832e3), 50);
        let (out, _) = drive(&mut g, true, vec![(Time::ZERO, ack(1, 1000, 1)), (Time::ZERO, ack(2, 2000, 1))]);
        assert_eq!(out[1].0, Time::from_ms(10));
    }
}
