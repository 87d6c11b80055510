//! TCP as simulator endpoints: the sender (with its application: bulk or
//! finite data) and the sink, wrapping the event-free state machines.

use super::{DataSource, TcpConfig, TcpReceiver, TcpSender};
use crate::net::packet::TCP_HEADER_BYTES;
use crate::net::{Body, LinkFailureNotice, NodeId, Packet, TcpSeg};
use crate::sim::Time;
use crate::transport::{Endpoint, EndpointCtx, EndpointTimer};

/// The start timer.
const T_START: u8 = 0;
/// A paced application's writes.
const T_APP: u8 = 1;
/// The state machine's next deadline (retransmission, delayed ACK,
/// pacing), with the generation of the latest arming.
const T_WAKE: u8 = 2;

/// Summary of a TCP connection for reports.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TcpSummary {
    pub variant: String,
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub bytes_acked: u64,
    pub final_cwnd: f64,
    pub srtt_s: Option<f64>,
    pub rto_s: f64,
    /// ELFN (zero without it): notices received, standby periods, probes
    /// sent, seconds spent in standby.
    pub elfn_notices: u64,
    pub elfn_standbys: u64,
    pub elfn_probes: u64,
    pub elfn_standby_s: f64,
}

pub struct TcpSource {
    flow: u32,
    port: u16,
    dst: NodeId,
    start: Time,
    stop: Time,
    tx: TcpSender,
    started: bool,
    /// Generation of the pending wake-up and its time.
    wake_gen: u32,
    wake_at: Option<Time>,
    /// A paced application: bytes per write, and the interval.
    app: Option<(u32, Time)>,
}

impl TcpSource {
    #[allow(clippy::too_many_arguments)]
    pub fn new(flow: u32, port: u16, dst: NodeId, cfg: TcpConfig, source: DataSource, start: Time, stop: Time) -> Self {
        TcpSource {
            flow,
            port,
            dst,
            start,
            stop,
            tx: TcpSender::new(cfg, port, port, source),
            started: false,
            wake_gen: 0,
            wake_at: None,
            app: match source {
                DataSource::Paced { bytes, interval } => Some((bytes, interval.max(Time::from_ns(1)))),
                _ => None,
            },
        }
    }

    pub fn sender(&self) -> &TcpSender {
        &self.tx
    }

    /// Sends everything the window allows and re-arms the wake-up.
    fn pump(&mut self, ctx: &mut EndpointCtx) {
        if !self.started || ctx.now >= self.stop {
            return;
        }
        while let Some(seg) = self.tx.poll_transmit(ctx.now) {
            let hdr = header_bytes(self.tx.config());
            let pkt = ctx.new_packet(self.dst, hdr + seg.len, self.flow, Body::Tcp(seg));
            ctx.metrics.flow_sent(self.flow, ctx.now, seg.len);
            ctx.send(pkt);
        }
        let next = self.tx.poll_at();
        if next != self.wake_at {
            self.wake_at = next;
            self.wake_gen = self.wake_gen.wrapping_add(1);
            if let Some(at) = next {
                ctx.timer(at.max(ctx.now), EndpointTimer::with(T_WAKE, self.wake_gen));
            }
        }
    }
}

impl Endpoint for TcpSource {
    fn port(&self) -> u16 {
        self.port
    }
    /// Hands every packet it makes on at once: holds none.
    fn held(&self, _f: &mut dyn FnMut(&Packet)) {}
    fn start(&mut self, ctx: &mut EndpointCtx) {
        ctx.timer(self.start, EndpointTimer::of(T_START));
    }
    fn on_timer(&mut self, ctx: &mut EndpointCtx, timer: EndpointTimer) {
        if timer.kind == T_START {
            self.started = true;
            if self.app.is_some() {
                return self.on_timer(ctx, EndpointTimer::of(T_APP));
            }
        } else if timer.kind == T_APP {
            let Some((bytes, interval)) = self.app else { return };
            if ctx.now >= self.stop {
                return;
            }
            self.tx.write(bytes as u64);
            ctx.timer(ctx.now + interval, EndpointTimer::of(T_APP));
        } else if timer == EndpointTimer::with(T_WAKE, self.wake_gen) {
            self.wake_at = None;
            self.tx.on_timer(ctx.now);
        } else {
            return;
        }
        self.pump(ctx);
    }
    fn on_packet(&mut self, ctx: &mut EndpointCtx, pkt: &Packet) {
        ctx.metrics.fate().delivered(pkt.uid);
        if let Body::Tcp(seg) = pkt.body {
            self.tx.on_segment(ctx.now, &seg);
            self.pump(ctx);
        }
    }
    fn on_dropped(&mut self, now: Time, pkt: &Packet) {
        if let Body::Tcp(seg) = pkt.body {
            if seg.len > 0 {
                self.tx.note_dropped(now, seg.seq);
            }
        }
    }
    fn on_link_failure_notice(&mut self, ctx: &mut EndpointCtx, n: &LinkFailureNotice) {
        if n.dst == self.dst && n.dport == self.port {
            self.tx.on_link_failure_notice(ctx.now, n.seq);
            self.pump(ctx);
        }
    }
    fn tcp_summary(&self) -> Option<TcpSummary> {
        let s = self.tx.stats();
        Some(TcpSummary {
            variant: self.tx.variant_name().to_string(),
            segments_sent: s.segments_sent,
            retransmissions: s.retransmissions,
            timeouts: s.timeouts,
            fast_retransmits: s.fast_retransmits,
            bytes_acked: s.bytes_acked,
            final_cwnd: self.tx.cwnd(),
            srtt_s: self.tx.srtt().map(|t| t.as_secs_f64()),
            rto_s: self.tx.rto().as_secs_f64(),
            elfn_notices: s.elfn_notices,
            elfn_standbys: s.elfn_standbys,
            elfn_probes: s.elfn_probes,
            elfn_standby_s: s.elfn_standby_ns as f64 / 1e9,
        })
    }
    fn tcp_sender(&self) -> Option<&TcpSender> {
        Some(&self.tx)
    }
}

/// The TCP header on the wire: 20 bytes, plus the timestamp option with
/// `timestamps` (RFC 7323 §3: 10 bytes, padded to 12 as ns-3's
/// `TcpHeader` pads its options to a multiple of 4).
fn header_bytes(cfg: &TcpConfig) -> u32 {
    TCP_HEADER_BYTES + if cfg.timestamps { 12 } else { 0 }
}

/// The receiving end: ACKs every segment (or delays, if configured) and
/// counts in-order bytes delivered to the application as the flow's goodput.
pub struct TcpSink {
    flow: u32,
    port: u16,
    rx: TcpReceiver,
    /// TCP header with options, bytes.
    hdr: u32,
    peer: Option<(NodeId, u16)>,
    wake_gen: u32,
    wake_at: Option<Time>,
    /// Out-of-order segments not yet delivered: (start, end, created).
    waiting: Vec<(u64, u64, Time)>,
}

impl TcpSink {
    pub fn new(flow: u32, port: u16, cfg: &TcpConfig) -> Self {
        TcpSink {
            flow,
            port,
            rx: TcpReceiver::new(cfg),
            hdr: header_bytes(cfg),
            peer: None,
            wake_gen: 0,
            wake_at: None,
            waiting: Vec::with_capacity(64),
        }
    }

    /// Records delivery to the application per segment: the arriving
    /// segment's new bytes, then each buffered segment the arrival made
    /// deliverable, each with its own creation time (so its delay includes
    /// the time it waited for the hole to fill). Same definition as UDP and
    /// TFRC: one sample per packet handed to the application.
    fn account(&mut self, ctx: &mut EndpointCtx, pkt: &Packet, seg: &TcpSeg, before: u64) {
        let after = self.rx.rcv_nxt();
        let (start, end) = (seg.seq, seg.seq + seg.len as u64);
        if after == before {
            if start > before && seg.len > 0 && !self.waiting.iter().any(|w| w.0 == start) {
                self.waiting.push((start, end, pkt.created));
            }
            return;
        }
        let own = end.min(after).saturating_sub(start.max(before));
        if own > 0 {
            ctx.metrics.flow_received(self.flow, ctx.now, pkt.created, own as u32, true);
        }
        let mut cursor = end.max(before);
        self.waiting.sort_unstable_by_key(|w| w.0);
        for &(s, e, created) in &self.waiting {
            if e <= after {
                let bytes = e.saturating_sub(s.max(cursor));
                if bytes > 0 {
                    ctx.metrics.flow_received(self.flow, ctx.now, created, bytes as u32, true);
                }
                cursor = cursor.max(e);
            }
        }
        self.waiting.retain(|w| w.1 > after);
    }

    fn send_ack(&mut self, ctx: &mut EndpointCtx, ack: TcpSeg) {
        if let Some((dst, _)) = self.peer {
            let pkt = ctx.new_packet(dst, self.hdr, self.flow, Body::Tcp(ack));
            ctx.send(pkt);
        }
    }

    fn arm(&mut self, ctx: &mut EndpointCtx) {
        let next = self.rx.poll_at();
        if next != self.wake_at {
            self.wake_at = next;
            self.wake_gen = self.wake_gen.wrapping_add(1);
            if let Some(at) = next {
                ctx.timer(at.max(ctx.now), EndpointTimer::with(T_WAKE, self.wake_gen));
            }
        }
    }
}

impl Endpoint for TcpSink {
    fn port(&self) -> u16 {
        self.port
    }
    /// Hands every packet it makes on at once: holds none.
    fn held(&self, _f: &mut dyn FnMut(&Packet)) {}
    fn start(&mut self, _ctx: &mut EndpointCtx) {}
    fn on_timer(&mut self, ctx: &mut EndpointCtx, timer: EndpointTimer) {
        if timer != EndpointTimer::with(T_WAKE, self.wake_gen) {
            return;
        }
        self.wake_at = None;
        if let Some(ack) = self.rx.on_timer(ctx.now) {
            self.send_ack(ctx, ack);
        }
        self.arm(ctx);
    }
    fn on_packet(&mut self, ctx: &mut EndpointCtx, pkt: &Packet) {
        let Body::Tcp(seg) = pkt.body else { return };
        self.peer = Some((pkt.src, seg.sport));
        ctx.metrics.fate().delivered(pkt.uid);
        let before = self.rx.rcv_nxt();
        let out = self.rx.on_segment(ctx.now, &seg);
        if seg.flags & TcpSeg::SYN == 0 && seg.len > 0 {
            self.account(ctx, pkt, &seg, before);
        }
        if let Some(ack) = out.ack {
            self.send_ack(ctx, ack);
        }
        self.arm(ctx);
    }
}
