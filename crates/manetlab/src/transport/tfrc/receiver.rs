//! The TFRC receiver (RFC 5348 §5, §6): loss detection with NDUPACK = 3,
//! loss events at least one RTT apart, the loss history, and feedback once
//! per RTT (at once when a new loss event is detected).

use super::equation::loss_rate_for;
use super::loss::LossHistory;
use super::{TfrcConfig, TfrcKind, TfrcMsg, FEEDBACK_BYTES};
use crate::net::packet::UDP_HEADER_BYTES;
use crate::net::{Body, NodeId, Packet};
use crate::sim::Time;
use crate::transport::{Endpoint, EndpointCtx, EndpointTimer};

/// The feedback timer (once per RTT, RFC 5348 §6.2), with its generation.
const T_FEEDBACK: u8 = 0;

/// Packets after a hole that declare it lost (RFC 5348 §5.1).
pub const NDUPACK: u64 = 3;
/// Sequence numbers remembered for loss detection and interpolation.
const WINDOW: u64 = 512;

pub struct TfrcReceiver {
    flow: u32,
    port: u16,
    s: f64,
    /// Arrival time per sequence number modulo WINDOW (None = missing).
    arrived: Vec<Option<Time>>,
    highest: Option<u64>,
    /// Next sequence number to examine for loss.
    next_check: u64,
    history: LossHistory,
    /// Start of the current loss event: (first lost seq, its loss time).
    event: Option<(u64, Time)>,
    /// The sender's RTT estimate from the latest data packet.
    rtt: Time,
    peer: Option<(NodeId, u16)>,
    /// Last data packet: its timestamp and arrival time.
    last_data: Option<(Time, Time)>,
    last_feedback: Option<Time>,
    bytes_since_feedback: u64,
    data_since_feedback: bool,
    timer_at: Option<Time>,
    gen: u32,
    pub lost_packets: u64,
    pub loss_events: u64,
    pub feedback_sent: u64,
}

impl TfrcReceiver {
    pub fn new(flow: u32, port: u16, cfg: &TfrcConfig) -> Self {
        TfrcReceiver {
            flow,
            port,
            s: cfg.packet_size as f64,
            arrived: vec![None; WINDOW as usize],
            highest: None,
            next_check: 0,
            history: LossHistory::new(cfg.history_discounting),
            event: None,
            rtt: Time::ZERO,
            peer: None,
            last_data: None,
            last_feedback: None,
            bytes_since_feedback: 0,
            data_since_feedback: false,
            timer_at: None,
            gen: 0,
            lost_packets: 0,
            loss_events: 0,
            feedback_sent: 0,
        }
    }

    fn slot(seq: u64) -> usize {
        (seq % WINDOW) as usize
    }

    /// The open interval I_0: packets since the start of the last loss event.
    fn open_interval(&self) -> f64 {
        match (self.event, self.highest) {
            (Some((start, _)), Some(h)) => (h + 1).saturating_sub(start) as f64,
            _ => 0.0,
        }
    }

    /// The current loss event rate p.
    pub fn loss_event_rate(&self) -> f64 {
        self.history.loss_event_rate(self.open_interval())
    }

    /// Receive rate since the last feedback, bytes/s.
    fn x_recv(&self, now: Time) -> f64 {
        let since = match self.last_feedback {
            Some(t) => now.saturating_sub(t),
            None => return 0.0,
        };
        if since == Time::ZERO {
            return 0.0;
        }
        self.bytes_since_feedback as f64 / since.as_secs_f64()
    }

    /// Records a data packet; returns true when a new loss event started.
    fn record(&mut self, now: Time, seq: u64) -> bool {
        let mut new_event = false;
        match self.highest {
            Some(h) if seq <= h => {
                if seq + WINDOW > h && seq >= self.next_check {
                    self.arrived[Self::slot(seq)] = Some(now);
                }
                return false;
            }
            Some(h) => {
                // Forget the slots this jump reuses.
                for q in (h + 1)..seq.min(h + 1 + WINDOW) {
                    self.arrived[Self::slot(q)] = None;
                }
            }
            None => {
                self.next_check = seq;
            }
        }
        self.arrived[Self::slot(seq)] = Some(now);
        self.highest = Some(seq);
        // Too far behind to interpolate: skip what fell out of the window.
        self.next_check = self.next_check.max((seq + 1).saturating_sub(WINDOW - 1));
        while self.next_check + NDUPACK <= seq {
            let m = self.next_check;
            self.next_check += 1;
            if self.arrived[Self::slot(m)].is_none() {
                self.lost_packets += 1;
                new_event |= self.lost(m);
            }
        }
        new_event
    }

    /// Packet `m` is lost: interpolate its loss time between its received
    /// neighbours (RFC 5348 §5.2) and start a new loss event if it is more
    /// than one RTT after the start of the current one.
    fn lost(&mut self, m: u64) -> bool {
        let h = self.highest.unwrap();
        let lo = m.saturating_sub(WINDOW - NDUPACK - 1).max(h.saturating_sub(WINDOW - 1));
        let before = (lo..m).rev().find_map(|q| self.arrived[Self::slot(q)].map(|t| (q, t)));
        let after = ((m + 1)..=h).find_map(|q| self.arrived[Self::slot(q)].map(|t| (q, t)));
        let t_loss = match (before, after) {
            (Some((qb, tb)), Some((qa, ta))) => {
                let frac = (m - qb) as f64 / (qa - qb) as f64;
                tb + Time::from_secs_f64((ta.saturating_sub(tb)).as_secs_f64() * frac)
            }
            (None, Some((_, ta))) => ta,
            _ => return false,
        };
        match self.event {
            Some((_, t0)) if t_loss <= t0 + self.rtt => false,
            Some((start, _)) => {
                self.history.push((m - start) as f64);
                self.event = Some((m, t_loss));
                self.loss_events += 1;
                true
            }
            None => {
                // First loss event (§6.3.1): seed the history with the
                // interval that the current receive rate corresponds to.
                let r = self.rtt.as_secs_f64();
                let x = self.x_recv(t_loss);
                let first = if r > 0.0 && x > 0.0 { 1.0 / loss_rate_for(self.s, r, x) } else { (m + 1) as f64 };
                self.history.push(first.max(1.0));
                self.event = Some((m, t_loss));
                self.loss_events += 1;
                true
            }
        }
    }

    fn send_feedback(&mut self, ctx: &mut EndpointCtx) {
        let Some((dst, dport)) = self.peer else { return };
        let Some((ts, arrived)) = self.last_data else { return };
        let now = ctx.now;
        let msg = TfrcMsg {
            sport: self.port,
            dport,
            kind: TfrcKind::Feedback {
                ts_echo: ts,
                t_delay: now.saturating_sub(arrived),
                x_recv: self.x_recv(now),
                p: self.loss_event_rate(),
            },
        };
        let pkt = ctx.new_packet(dst, UDP_HEADER_BYTES + FEEDBACK_BYTES, self.flow, Body::Tfrc(msg));
        ctx.send(pkt);
        self.feedback_sent += 1;
        self.last_feedback = Some(now);
        self.bytes_since_feedback = 0;
        self.data_since_feedback = false;
        self.arm(ctx, now + self.rtt);
    }

    fn arm(&mut self, ctx: &mut EndpointCtx, at: Time) {
        self.gen = self.gen.wrapping_add(1);
        self.timer_at = Some(at);
        ctx.timer(at, EndpointTimer::with(T_FEEDBACK, self.gen));
    }
}

impl Endpoint for TfrcReceiver {
    fn port(&self) -> u16 {
        self.port
    }
    /// Hands every packet it makes on at once: holds none.
    fn held(&self, _f: &mut dyn FnMut(&Packet)) {}
    fn start(&mut self, _ctx: &mut EndpointCtx) {}
    fn on_timer(&mut self, ctx: &mut EndpointCtx, timer: EndpointTimer) {
        if timer != EndpointTimer::with(T_FEEDBACK, self.gen) {
            return;
        }
        self.timer_at = None;
        // No data since the last report: stay silent until data arrives.
        if self.data_since_feedback {
            self.send_feedback(ctx);
        }
    }
    fn on_packet(&mut self, ctx: &mut EndpointCtx, pkt: &Packet) {
        let Body::Tfrc(TfrcMsg { sport, kind: TfrcKind::Data { seq, ts, rtt }, .. }) = pkt.body else { return };
        let now = ctx.now;
        let first = ctx.metrics.fate().delivered(pkt.uid);
        let payload =
            pkt.size.saturating_sub(crate::net::IP_HEADER_BYTES + UDP_HEADER_BYTES + super::DATA_HEADER_BYTES);
        ctx.metrics.flow_received(self.flow, now, pkt.created, payload, first);
        self.peer = Some((pkt.src, sport));
        if rtt > Time::ZERO {
            self.rtt = rtt;
        }
        self.last_data = Some((ts, now));
        self.bytes_since_feedback += payload as u64;
        self.data_since_feedback = true;
        let new_event = self.record(now, seq);
        let due = match self.last_feedback {
            None => true,
            Some(_) if self.rtt == Time::ZERO => true,
            _ => new_event,
        };
        if due {
            self.send_feedback(ctx);
        } else if self.timer_at.is_none() {
            let at = self.last_feedback.map_or(now, |t| (t + self.rtt).max(now));
            self.arm(ctx, at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rx() -> TfrcReceiver {
        let mut r = TfrcReceiver::new(0, 1, &TfrcConfig { history_discounting: false, ..TfrcConfig::default() });
        r.rtt = Time::from_ms(100);
        r
    }

    #[test]
    fn loss_needs_three_later_packets_and_reordering_is_forgiven() {
        let mut r = rx();
        let ms = Time::from_ms;
        for s in 0..10 {
            assert!(!r.record(ms(10 * s), s));
        }
        // 10 missing; 11, 12 arrive: not yet lost. 10 arrives late: fine.
        assert!(!r.record(ms(110), 11));
        assert!(!r.record(ms(120), 12));
        assert!(!r.record(ms(125), 10));
        assert!(!r.record(ms(130), 13));
        assert_eq!(r.lost_packets, 0);
        // 14 missing; 15, 16, 17 arrive: lost at the third.
        assert!(!r.record(ms(150), 15));
        assert!(!r.record(ms(160), 16));
        assert!(r.record(ms(170), 17));
        assert_eq!((r.lost_packets, r.loss_events), (1, 1));
        assert_eq!(r.event.unwrap().0, 14);
        // Interpolated loss time: halfway between 13 (130 ms) and 15 (150 ms).
        assert_eq!(r.event.unwrap().1, ms(140));
    }

    #[test]
    fn losses_within_one_rtt_are_one_event() {
        let mut r = rx();
        let ms = Time::from_ms;
        let mut t = 0;
        // Packets every 10 ms; 20, 25 (within 100 ms) and 50 (300 ms later)
        // are lost.
        for s in 0..100u64 {
            t += 10;
            if s != 20 && s != 25 && s != 50 {
                r.record(ms(t), s);
            }
        }
        assert_eq!(r.lost_packets, 3);
        assert_eq!(r.loss_events, 2);
        // Closed interval: 50 - 20 = 30 packets; open: 99 - 50 + 1 = 50.
        assert_eq!(r.open_interval(), 50.0);
        assert_eq!(r.history.len(), 2);
        // I_1 = 30, I_2 = seeded; I_mean = max((50 + 30) / 2, (30 + I_2) / 2).
        let p = r.loss_event_rate();
        assert!(p > 0.0 && p <= 1.0 / 40.0 + 1e-12, "{p}");
    }
}
