//! TCP as simulator endpoints: the sender (with its application: bulk or
//! finite data) and the sink, wrapping the event-free state machines.

use super::{DataSource, TcpConfig, TcpReceiver, TcpSender};
use crate::net::packet::TCP_HEADER_BYTES;
use crate::net::{Body, NodeId, Packet, TcpSeg};
use crate::sim::Time;
use crate::transport::{Endpoint, EndpointCtx};

/// Token of the start timer; wake-ups use their generation (>= 1).
const START: u64 = 0;

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
    wake_gen: u64,
    wake_at: Option<Time>,
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
            let pkt = ctx.new_packet(self.dst, TCP_HEADER_BYTES + seg.len, self.flow, Body::Tcp(seg));
            ctx.metrics.flow_sent(self.flow, ctx.now, seg.len);
            ctx.send(pkt);
        }
        let next = self.tx.poll_at();
        if next != self.wake_at {
            self.wake_at = next;
            self.wake_gen += 1;
            if let Some(at) = next {
                ctx.timer(at.max(ctx.now), self.wake_gen);
            }
        }
    }
}

impl Endpoint for TcpSource {
    fn port(&self) -> u16 {
        self.port
    }
    fn start(&mut self, ctx: &mut EndpointCtx) {
        ctx.timer(self.start, START);
    }
    fn on_timer(&mut self, ctx: &mut EndpointCtx, token: u64) {
        if token == START {
            self.started = true;
        } else if token == self.wake_gen {
            self.wake_at = None;
            self.tx.on_timer(ctx.now);
        } else {
            return;
        }
        self.pump(ctx);
    }
    fn on_packet(&mut self, ctx: &mut EndpointCtx, pkt: &Packet) {
        ctx.metrics.fate.delivered(pkt.uid);
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
        })
    }
    fn tcp_sender(&self) -> Option<&TcpSender> {
        Some(&self.tx)
    }
}

/// The receiving end: ACKs every segment (or delays, if configured) and
/// counts in-order bytes delivered to the application as the flow's goodput.
pub struct TcpSink {
    flow: u32,
    port: u16,
    rx: TcpReceiver,
    peer: Option<(NodeId, u16)>,
    wake_gen: u64,
    wake_at: Option<Time>,
}

impl TcpSink {
    pub fn new(flow: u32, port: u16, cfg: &TcpConfig) -> Self {
        TcpSink { flow, port, rx: TcpReceiver::new(cfg), peer: None, wake_gen: 0, wake_at: None }
    }

    fn send_ack(&mut self, ctx: &mut EndpointCtx, ack: TcpSeg) {
        if let Some((dst, _)) = self.peer {
            let pkt = ctx.new_packet(dst, TCP_HEADER_BYTES, self.flow, Body::Tcp(ack));
            ctx.send(pkt);
        }
    }

    fn arm(&mut self, ctx: &mut EndpointCtx) {
        let next = self.rx.poll_at();
        if next != self.wake_at {
            self.wake_at = next;
            self.wake_gen += 1;
            if let Some(at) = next {
                ctx.timer(at.max(ctx.now), self.wake_gen);
            }
        }
    }
}

impl Endpoint for TcpSink {
    fn port(&self) -> u16 {
        self.port
    }
    fn start(&mut self, _ctx: &mut EndpointCtx) {}
    fn on_timer(&mut self, ctx: &mut EndpointCtx, token: u64) {
        if token != self.wake_gen {
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
        ctx.metrics.fate.delivered(pkt.uid);
        let out = self.rx.on_segment(ctx.now, &seg);
        if out.delivered > 0 {
            ctx.metrics.flow_received(self.flow, ctx.now, pkt.created, out.delivered as u32, true);
        }
        if let Some(ack) = out.ack {
            self.send_ack(ctx, ack);
        }
        self.arm(ctx);
    }
}
