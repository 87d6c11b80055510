//! The TFRC sender (RFC 5348 §4) and the application that offers it data.

use super::equation::throughput;
use super::{TfrcConfig, TfrcKind, TfrcMsg, DATA_HEADER_BYTES};
use crate::net::packet::UDP_HEADER_BYTES;
use crate::net::{Body, NodeId, Packet};
use crate::sim::Time;
use crate::transport::{Endpoint, EndpointCtx, EndpointTimer};

/// The application offers its next packet (paced applications).
const T_APP: u8 = 0;
/// The next paced transmission (generation `gen`).
const T_SEND: u8 = 1;
/// The no-feedback timer (RFC 5348 §4.4; generation `nofb_gen`).
const T_NOFB: u8 = 2;

/// Counters of one TFRC sender.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct TfrcSummary {
    pub data_sent: u64,
    pub feedback_received: u64,
    pub nofeedback_expiries: u64,
    /// Packets the application could not queue (TFRC too slow for it).
    pub app_discarded: u64,
    /// Final smoothed RTT (s), allowed rate (bytes/s), loss event rate.
    pub rtt_s: f64,
    pub rate_bps: f64,
    pub p: f64,
}

pub struct TfrcSender {
    flow: u32,
    port: u16,
    dst: NodeId,
    dport: u16,
    cfg: TfrcConfig,
    s: f64,
    /// Application: one packet every `app_interval` from `start` to `stop`;
    /// None = always has data (greedy).
    app_interval: Option<Time>,
    start: Time,
    stop: Time,
    backlog: u32,
    /// Allowed sending rate X, bytes/s.
    x: f64,
    /// Smoothed RTT, seconds (None before the first feedback).
    r: Option<f64>,
    p: f64,
    /// Exponentially weighted mean of sqrt(RTT sample) (§4.5), and the
    /// latest sample's square root.
    r_sqmean: f64,
    r_sqrt: f64,
    /// The two most recent receive rates reported (bytes/s).
    x_recv: [f64; 2],
    /// Time the rate was last doubled in slow start.
    tld: Time,
    seq: u64,
    last_send: Option<Time>,
    /// A send timer is armed for `next_send`.
    send_armed: bool,
    next_send: Time,
    gen: u32,
    nofb_gen: u32,
    summary: TfrcSummary,
    rates: Vec<(Time, f64)>,
}

impl TfrcSender {
    /// `rate_bps`: the application's offered payload rate (None = greedy).
    pub fn new(
        flow: u32,
        port: u16,
        dst: NodeId,
        cfg: TfrcConfig,
        rate_bps: Option<u64>,
        start: Time,
        stop: Time,
    ) -> Self {
        let s = cfg.packet_size as f64;
        let app_interval = rate_bps.map(|r| Time::for_bits(cfg.packet_size as u64 * 8, r.max(1)));
        TfrcSender {
            flow,
            port,
            dst,
            dport: port,
            s,
            app_interval,
            start,
            stop,
            backlog: 0,
            // RFC 5348 §4.2: one packet per second until the RTT is known.
            x: s,
            r: None,
            p: 0.0,
            r_sqmean: 0.0,
            r_sqrt: 0.0,
            x_recv: [0.0; 2],
            tld: Time::ZERO,
            seq: 0,
            last_send: None,
            send_armed: false,
            next_send: start,
            gen: 0,
            nofb_gen: 0,
            summary: TfrcSummary::default(),
            rates: Vec::new(),
            cfg,
        }
    }

    /// The allowed rate over time (bytes/s), when `record_rate` is set.
    pub fn rates(&self) -> &[(Time, f64)] {
        &self.rates
    }
    pub fn summary(&self) -> TfrcSummary {
        TfrcSummary { rtt_s: self.r.unwrap_or(0.0), rate_bps: self.x * 8.0, p: self.p, ..self.summary }
    }

    fn has_data(&self) -> bool {
        self.app_interval.is_none() || self.backlog > 0
    }

    fn t_mbi(&self) -> f64 {
        self.cfg.t_mbi.as_secs_f64()
    }

    /// RFC 5348 §4.2: W_init = min(4 s, max(2 s, 4380 bytes)) per RTT.
    fn initial_rate(&self, r: f64) -> f64 {
        (4.0 * self.s).min((2.0 * self.s).max(4380.0)) / r
    }

    fn set_rate(&mut self, now: Time, x: f64) {
        self.x = x;
        if self.cfg.record_rate {
            self.rates.push((now, x));
        }
    }

    /// The pacing rate: X, or X_inst with oscillation prevention.
    fn pace_rate(&self) -> f64 {
        if self.cfg.oscillation_prevention && self.r_sqrt > 0.0 {
            self.x * self.r_sqmean / self.r_sqrt
        } else {
            self.x
        }
    }

    /// Sends now if allowed and data waits, else arms the send timer.
    fn pump(&mut self, ctx: &mut EndpointCtx) {
        let now = ctx.now;
        if now >= self.stop || !self.has_data() {
            return;
        }
        let gap = Time::from_secs_f64(self.s / self.pace_rate());
        let due = match self.last_send {
            Some(t) => t + gap,
            None => now,
        };
        if due <= now {
            self.send(ctx);
            if self.has_data() {
                self.arm_send(ctx, now + gap);
            }
        } else if !self.send_armed || self.next_send != due {
            self.arm_send(ctx, due);
        }
    }

    fn arm_send(&mut self, ctx: &mut EndpointCtx, at: Time) {
        if at >= self.stop {
            self.send_armed = false;
            return;
        }
        self.gen = self.gen.wrapping_add(1);
        self.send_armed = true;
        self.next_send = at;
        ctx.timer(at, EndpointTimer::with(T_SEND, self.gen));
    }

    fn send(&mut self, ctx: &mut EndpointCtx) {
        let now = ctx.now;
        let rtt = self.r.map_or(Time::ZERO, Time::from_secs_f64);
        let body = Body::Tfrc(TfrcMsg {
            sport: self.port,
            dport: self.dport,
            kind: TfrcKind::Data { seq: self.seq, ts: now, rtt },
        });
        let payload = self.cfg.packet_size;
        let pkt = ctx.new_packet(self.dst, UDP_HEADER_BYTES + DATA_HEADER_BYTES + payload, self.flow, body);
        ctx.metrics.flow_sent(self.flow, now, payload);
        self.seq += 1;
        self.summary.data_sent += 1;
        if self.app_interval.is_some() {
            self.backlog -= 1;
        }
        self.last_send = Some(now);
        ctx.send(pkt);
        if self.seq == 1 {
            // No feedback yet: the no-feedback timer starts at 2 s (§4.2).
            self.arm_nofb(ctx, now + Time::from_secs(2));
        }
    }

    fn arm_nofb(&mut self, ctx: &mut EndpointCtx, at: Time) {
        self.nofb_gen = self.nofb_gen.wrapping_add(1);
        ctx.timer(at, EndpointTimer::with(T_NOFB, self.nofb_gen));
    }

    fn nofb_interval(&self) -> Time {
        let r = self.r.unwrap_or(0.0);
        Time::from_secs_f64((4.0 * r).max(2.0 * self.s / self.x))
    }

    /// RFC 5348 §4.3: a feedback packet arrived.
    fn on_feedback(&mut self, ctx: &mut EndpointCtx, ts_echo: Time, t_delay: Time, x_recv: f64, p: f64) {
        let now = ctx.now;
        self.summary.feedback_received += 1;
        let sample = (now.saturating_sub(ts_echo).saturating_sub(t_delay)).as_secs_f64().max(1e-6);
        let first = self.r.is_none();
        let r = match self.r {
            None => sample,
            Some(r) => 0.9 * r + 0.1 * sample,
        };
        self.r = Some(r);
        self.r_sqrt = sample.sqrt();
        self.r_sqmean = if first { self.r_sqrt } else { 0.9 * self.r_sqmean + 0.1 * self.r_sqrt };
        self.x_recv = [x_recv, if first { x_recv } else { self.x_recv[0] }];
        self.p = p;
        let recv_limit = 2.0 * self.x_recv[0].max(self.x_recv[1]);
        let x = if first && p == 0.0 {
            self.tld = now;
            self.initial_rate(r)
        } else if p > 0.0 {
            throughput(self.s, r, p).min(recv_limit).max(self.s / self.t_mbi())
        } else if now.saturating_sub(self.tld).as_secs_f64() >= r {
            // Slow start: double once per RTT, bounded by the receive rate.
            self.tld = now;
            (2.0 * self.x).min(recv_limit).max(self.initial_rate(r))
        } else {
            self.x
        };
        self.set_rate(now, x);
        let at = now + self.nofb_interval();
        self.arm_nofb(ctx, at);
        self.pump(ctx);
    }

    /// RFC 5348 §4.4: no feedback for max(4R, 2s/X): halve.
    fn on_nofeedback(&mut self, ctx: &mut EndpointCtx) {
        let now = ctx.now;
        self.summary.nofeedback_expiries += 1;
        let floor = self.s / self.t_mbi();
        let x = match self.r {
            Some(r) if self.p > 0.0 => {
                let x_calc = throughput(self.s, r, self.p);
                let xr = self.x_recv[0].max(self.x_recv[1]);
                let xr = if x_calc > 2.0 * xr { (xr / 2.0).max(self.s / (2.0 * self.t_mbi())) } else { x_calc / 4.0 };
                self.x_recv = [xr, xr];
                x_calc.min(2.0 * xr).max(floor)
            }
            _ => (self.x / 2.0).max(floor),
        };
        self.set_rate(now, x);
        let at =
            now + if self.r.is_some() { self.nofb_interval() } else { Time::from_secs(2).max(self.nofb_interval()) };
        if now < self.stop {
            self.arm_nofb(ctx, at);
        }
        self.pump(ctx);
    }
}

impl Endpoint for TfrcSender {
    fn port(&self) -> u16 {
        self.port
    }
    /// Hands every packet it makes on at once: holds none.
    fn held(&self, _f: &mut dyn FnMut(&Packet)) {}
    fn start(&mut self, ctx: &mut EndpointCtx) {
        ctx.timer(self.start, EndpointTimer::of(T_APP));
    }
    fn on_timer(&mut self, ctx: &mut EndpointCtx, timer: EndpointTimer) {
        match timer.kind {
            T_APP => {
                if ctx.now >= self.stop {
                    return;
                }
                if let Some(iv) = self.app_interval {
                    if self.backlog < self.cfg.app_buffer.max(1) {
                        self.backlog += 1;
                    } else {
                        self.summary.app_discarded += 1;
                    }
                    ctx.timer(ctx.now + iv, EndpointTimer::of(T_APP));
                }
                self.pump(ctx);
            }
            T_SEND if timer.gen == self.gen => {
                self.send_armed = false;
                self.pump(ctx);
            }
            T_NOFB if timer.gen == self.nofb_gen && ctx.now < self.stop => self.on_nofeedback(ctx),
            _ => {}
        }
    }
    fn on_packet(&mut self, ctx: &mut EndpointCtx, pkt: &Packet) {
        ctx.metrics.fate().delivered(pkt.uid);
        if let Body::Tfrc(TfrcMsg { kind: TfrcKind::Feedback { ts_echo, t_delay, x_recv, p }, .. }) = pkt.body {
            self.on_feedback(ctx, ts_echo, t_delay, x_recv, p);
        }
    }
    fn tfrc_sender(&self) -> Option<&TfrcSender> {
        Some(self)
    }
}
