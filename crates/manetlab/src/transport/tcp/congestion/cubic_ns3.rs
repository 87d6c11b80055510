//! ns-3.37's `TcpCubic`, the default congestion control of ns-3.37
//! (`TcpL4Protocol::SocketType`), as its source computes it
//! (`src/internet/model/tcp-cubic.cc` and the calls from
//! `tcp-socket-base.cc`; read, not copied). It differs from RFC 9438
//! (`congestion/cubic.rs`) where it matters on a lossy multi-hop path:
//!
//! - **Slow start counts bytes, without a limit** (RFC 3465 with no `L`):
//!   every ACK adds all the segments it acknowledges (`IncreaseWindow`:
//!   `cWnd += segmentsAcked * segmentSize`). After a timeout the receiver
//!   usually holds most of the window out of order, so the first ACK of the
//!   retransmitted hole acknowledges up to a whole window at once and cwnd
//!   jumps by that much, far past ssthresh: ns-3's sender then puts that
//!   many segments into the interface queue back to back.
//! - **ssthresh from cwnd, not flight**: `max(floor(0.7 cwnd), 2)`
//!   (`GetSsThresh`), `W_max` with fast convergence
//!   `floor(1.7 cwnd / 2)`; a timeout while the sender is still recovering
//!   from the previous one (ns-3's `CA_LOSS` with its head retransmitted)
//!   keeps ssthresh.
//! - **Congestion avoidance by ACK counting** (`Update`): one segment is
//!   added after `cnt` acknowledged segments, `cnt = cwnd / (target - cwnd)`
//!   (`100 cwnd` at or above the target; at most 20 while `W_max` is 0;
//!   at least 2), `target = origin ± floor(0.4 |t - K|³)` with
//!   `t = now + delay_min - epoch_start`; no Reno-friendly region.
//! - **HyStart** (on by default in ns-3.37): during slow start with
//!   cwnd ≥ 16 segments, an ACK train (ACKs ≤ 2 ms apart spanning more than
//!   `delay_min` since the round began) or a round's minimum RTT (of its
//!   first 8 samples) above `delay_min + clamp(delay_min, 4 ms, 1 s)` ends
//!   slow start (`ssthresh = cwnd`). The RTT ns-3 passes is its smoothed
//!   estimate (`m_lastRtt = m_rtt->GetEstimate()`) over per-ACK timestamp
//!   samples (RFC 7323; ns-3's `Timestamp` is on): here the echoed send
//!   time of [`AckArrival::echo_rtt`], smoothed with gain 1/8 as ns-3's
//!   `RttMeanDeviation`. A round ends when the ACK passes the highest byte
//!   sent at its start.
//! - A timeout resets `W_max`, K, `delay_min` and HyStart (`CubicReset`,
//!   `HystartReset` on `CA_LOSS`); RTT samples within 10 ms of an epoch
//!   start are ignored (`CubicDelta`).
//!
//! Loss recovery is the sender's: NewReno fast recovery by default
//! (cwnd = ssthresh + 3, inflation, deflation on partial ACKs, cwnd =
//! ssthresh at the end), or ns-3.37's PRR with `recovery = "ns3-prr"`
//! (`sender/ns3.rs`: cwnd = pipe + PRR's send count, then ssthresh and this
//! controller's increase for the whole ACK that ends recovery).

use super::{AckArrival, AckSample, CcState, CongestionControl, RecoveryStyle};
use crate::sim::Time;

/// `TcpCubic::C`.
const C: f64 = 0.4;
/// `TcpCubic::Beta`.
const BETA: f64 = 0.7;
/// `TcpCubic::CntClamp`.
const CNT_CLAMP: u32 = 20;
/// `TcpCubic::HyStartLowWindow`, segments.
const HYSTART_LOW_WINDOW: f64 = 16.0;
/// `TcpCubic::HyStartAckDelta`.
const HYSTART_ACK_DELTA: Time = Time::from_ms(2);
/// `TcpCubic::HyStartDelayMin` / `HyStartDelayMax`.
const HYSTART_DELAY_MIN: Time = Time::from_ms(4);
const HYSTART_DELAY_MAX: Time = Time::from_ms(1000);
/// `TcpCubic::HyStartMinSamples`.
const HYSTART_MIN_SAMPLES: u32 = 8;
/// `TcpCubic::CubicDelta`.
const CUBIC_DELTA: Time = Time::from_ms(10);

#[derive(Clone, Debug, Default)]
pub struct Ns3Cubic {
    /// Segments acknowledged since the last congestion-avoidance increase.
    cwnd_cnt: u32,
    /// `W_max`, segments (0 after a timeout).
    last_max_cwnd: u32,
    origin: u32,
    k: f64,
    delay_min: Option<Time>,
    epoch_start: Option<Time>,
    /// HyStart has ended slow start (until the next timeout).
    found: bool,
    round_start: Time,
    /// The round ends when an ACK passes this byte.
    end_seq: u64,
    last_ack_time: Time,
    curr_rtt: Option<Time>,
    sample_cnt: u32,
    /// ns-3's smoothed RTT over per-ACK samples (`m_lastRtt`; 0 before any).
    srtt: Option<Time>,
    /// Cumulative ACK and highest byte sent, as of the last ACK.
    last_acked_seq: u64,
    snd_max: u64,
    /// Acknowledged bytes short of a whole segment (ns-3's
    /// `m_bytesAckedNotProcessed`).
    acked_rem: u64,
    /// After a timeout, the byte whose acknowledgment ends it (ns-3's
    /// `CA_LOSS` and `m_recover`).
    loss_recover: Option<u64>,
    /// This ACK ended the timeout recovery at that byte: only what it
    /// acknowledges beyond it grows the window (ns-3's `ProcessAck`).
    loss_exit: Option<u64>,
}

impl Ns3Cubic {
    /// `W_max`, segments.
    pub fn w_max(&self) -> u32 {
        self.last_max_cwnd
    }
    /// HyStart has ended slow start.
    pub fn hystart_found(&self) -> bool {
        self.found
    }

    fn last_rtt(&self) -> Time {
        self.srtt.unwrap_or(Time::ZERO)
    }

    fn hystart_reset(&mut self, now: Time) {
        self.round_start = now;
        self.last_ack_time = now;
        self.end_seq = self.snd_max;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// `TcpCubic::PktsAcked`: every ACK.
    fn pkts_acked(&mut self, st: &mut CcState, now: Time) {
        if self.epoch_start.is_some_and(|e| now.saturating_sub(e) < CUBIC_DELTA) {
            return;
        }
        let rtt = self.last_rtt();
        let lower = match self.delay_min {
            Some(d) => d > rtt,
            None => true,
        };
        if lower {
            self.delay_min = Some(rtt);
        }
        if st.cwnd <= st.ssthresh && st.cwnd >= HYSTART_LOW_WINDOW {
            self.hystart_update(st, rtt, now);
        }
    }

    /// `TcpCubic::HystartUpdate`.
    fn hystart_update(&mut self, st: &mut CcState, delay: Time, now: Time) {
        if self.found {
            return;
        }
        let delay_min = self.delay_min.unwrap_or(Time::ZERO);
        if now.saturating_sub(self.last_ack_time) <= HYSTART_ACK_DELTA {
            self.last_ack_time = now;
            if now.saturating_sub(self.round_start) > delay_min {
                self.found = true;
            }
        }
        if self.sample_cnt < HYSTART_MIN_SAMPLES {
            self.curr_rtt = Some(self.curr_rtt.map_or(delay, |c| c.min(delay)));
            self.sample_cnt += 1;
        } else if self
            .curr_rtt
            .is_some_and(|c| c > delay_min + delay_min.max(HYSTART_DELAY_MIN).min(HYSTART_DELAY_MAX))
        {
            self.found = true;
        }
        if self.found {
            st.ssthresh = st.cwnd;
        }
    }

    /// `TcpCubic::Update`: acknowledged segments per one-segment increase.
    fn update(&mut self, st: &CcState, now: Time) -> u32 {
        let seg_cwnd = st.cwnd.floor().max(0.0) as u32;
        if self.epoch_start.is_none() {
            self.epoch_start = Some(now);
            if self.last_max_cwnd <= seg_cwnd {
                self.k = 0.0;
                self.origin = seg_cwnd;
            } else {
                self.k = ((self.last_max_cwnd - seg_cwnd) as f64 / C).cbrt();
                self.origin = self.last_max_cwnd;
            }
        }
        let start = self.epoch_start.unwrap_or(now);
        let t = (now + self.delay_min.unwrap_or(Time::ZERO)).as_secs_f64() - start.as_secs_f64();
        let delta = (C * (t - self.k).abs().powi(3)) as u32;
        let target = if t < self.k { self.origin.saturating_sub(delta) } else { self.origin.saturating_add(delta) };
        let mut cnt =
            if target > seg_cwnd { seg_cwnd / (target - seg_cwnd) } else { seg_cwnd.saturating_mul(100) };
        if self.last_max_cwnd == 0 && cnt > CNT_CLAMP {
            cnt = CNT_CLAMP;
        }
        cnt.max(2)
    }

    /// `TcpCubic::GetSsThresh`: from cwnd; sets `W_max`, ends the epoch.
    fn ss_thresh(&mut self, st: &CcState) -> f64 {
        let seg_cwnd = st.cwnd.floor().max(0.0) as u32;
        self.last_max_cwnd = if seg_cwnd < self.last_max_cwnd {
            (seg_cwnd as f64 * (1.0 + BETA) / 2.0) as u32
        } else {
            seg_cwnd
        };
        self.epoch_start = None;
        ((seg_cwnd as f64 * BETA) as u32).max(2) as f64
    }
}

impl CongestionControl for Ns3Cubic {
    fn name(&self) -> &'static str {
        "cubic-ns3"
    }
    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }

    fn on_ack_arrival(&mut self, st: &mut CcState, a: &AckArrival, now: Time) {
        if let Some(m) = a.echo_rtt {
            // RttMeanDeviation: first sample as is, then gain 1/8.
            let s = match self.srtt {
                None => m.as_secs_f64(),
                Some(s) => s.as_secs_f64() + (m.as_secs_f64() - s.as_secs_f64()) / 8.0,
            };
            self.srtt = Some(Time::from_secs_f64(s));
        }
        self.last_acked_seq = a.ack;
        self.snd_max = a.snd_max;
        self.loss_exit = None;
        if let Some(r) = self.loss_recover.filter(|&r| a.ack >= r) {
            self.loss_recover = None;
            self.loss_exit = Some(r);
        }
        self.pkts_acked(st, now);
    }

    /// `TcpCubic::IncreaseWindow` with the segments this ACK acknowledges.
    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample, now: Time) {
        let mss = st.mss.max(1) as u64;
        let bytes = match self.loss_exit.take() {
            Some(r) => self.last_acked_seq.saturating_sub(r),
            None => ack.bytes,
        } + self.acked_rem;
        let mut segs = (bytes / mss) as u32;
        self.acked_rem = bytes % mss;
        if st.cwnd < st.ssthresh {
            if self.last_acked_seq > self.end_seq {
                self.hystart_reset(now);
            }
            st.cwnd += segs as f64;
            segs = 0;
        }
        if st.cwnd >= st.ssthresh && segs > 0 {
            self.cwnd_cnt += segs;
            let cnt = self.update(st, now);
            if self.cwnd_cnt >= cnt {
                st.cwnd += 1.0;
                self.cwnd_cnt -= cnt;
            }
        }
    }

    fn on_triple_dupack(&mut self, st: &mut CcState, _flight: f64, _now: Time) {
        st.ssthresh = self.ss_thresh(st);
        st.cwnd = st.ssthresh + st.dupack_threshold as f64;
    }

    fn on_timeout(&mut self, st: &mut CcState, flight: f64, now: Time) {
        if self.loss_recover.is_none() {
            st.ssthresh = self.ss_thresh(st);
            let sent = self.last_acked_seq + (flight.max(0.0) as u64) * st.mss as u64;
            self.loss_recover = Some(sent.max(self.snd_max));
        }
        // CubicReset and HystartReset (CongestionStateSet(CA_LOSS)).
        self.last_max_cwnd = 0;
        self.origin = 0;
        self.k = 0.0;
        self.delay_min = None;
        self.found = false;
        self.snd_max = self.snd_max.max(self.loss_recover.unwrap_or(0));
        self.hystart_reset(now);
        st.cwnd = 1.0;
    }
}

impl super::CongestionModel for Ns3Cubic {
    const NAMES: &'static [&'static str] = &["cubic-ns3", "ns3-cubic"];
    fn build() -> Box<dyn CongestionControl> {
        Box::new(Ns3Cubic::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 536;

    fn st(cwnd: f64, ssthresh: f64) -> CcState {
        CcState { cwnd, ssthresh, mss: MSS as u32, dupack_threshold: 3 }
    }

    /// One ACK of `segs` new segments up to `ack`, `snd_max` sent, RTT `rtt_ms`.
    fn ack(c: &mut Ns3Cubic, s: &mut CcState, ack: u64, segs: u64, snd_max: u64, rtt_ms: Option<u64>, now: Time) {
        let a = AckArrival { newly_acked: segs * MSS, ack, snd_max, echo_rtt: rtt_ms.map(Time::from_ms) };
        c.on_ack_arrival(s, &a, now);
        let b = segs * MSS;
        c.on_ack(s, &AckSample { bytes: b, segments: segs as f64, rtt: None }, now);
    }

    /// After a timeout the first ACK of the retransmitted hole acknowledges
    /// 180 segments the receiver held: cwnd grows by all 180 at once (ns-3's
    /// byte-counting slow start), far past ssthresh; RFC 9438 CUBIC (one
    /// segment per ACK in slow start) grows by one.
    #[test]
    fn test_cumulative_ack_after_timeout_adds_every_segment_it_acknowledges() {
        let mut c = Ns3Cubic::default();
        let mut s = st(100.0, 1e9);
        ack(&mut c, &mut s, 0, 0, 200 * MSS, Some(100), Time::ZERO);
        c.on_timeout(&mut s, 200.0, Time::from_secs(2));
        assert_eq!((s.cwnd, s.ssthresh), (1.0, 70.0));
        // The hole is filled: the ACK covers 180 of the 200 (20 expired).
        ack(&mut c, &mut s, 181 * MSS, 181, 200 * MSS, None, Time::from_secs(3));
        assert_eq!(s.cwnd, 182.0);
        let mut r = crate::transport::tcp::congestion::Cubic::default();
        let mut s2 = st(1.0, 70.0);
        r.on_ack(&mut s2, &AckSample { bytes: 181 * MSS, segments: 181.0, rtt: None }, Time::from_secs(3));
        assert_eq!(s2.cwnd, 2.0);
    }

    /// ssthresh is 0.7 cwnd (not flight); a second timeout before the first
    /// one's data is acknowledged keeps it; W_max with fast convergence.
    #[test]
    fn test_ssthresh_from_cwnd_and_kept_on_a_repeated_timeout() {
        let mut c = Ns3Cubic::default();
        let mut s = st(100.0, 1e9);
        ack(&mut c, &mut s, 10 * MSS, 0, 40 * MSS, None, Time::ZERO);
        c.on_triple_dupack(&mut s, 30.0, Time::ZERO);
        assert_eq!((s.ssthresh, s.cwnd, c.w_max()), (70.0, 73.0, 100));
        c.on_recovery_exit(&mut s, Time::ZERO);
        s.cwnd = 80.0;
        c.on_timeout(&mut s, 50.0, Time::from_secs(1));
        // W_max: 80 < 100, fast convergence 80 * 1.7 / 2 = 68, then reset to 0.
        assert_eq!((s.ssthresh, s.cwnd, c.w_max()), (56.0, 1.0, 0));
        s.cwnd = 3.0;
        c.on_timeout(&mut s, 1.0, Time::from_secs(3));
        assert_eq!((s.ssthresh, s.cwnd), (56.0, 1.0), "still recovering from the first timeout");
        // Everything sent before the first timeout (10 + 50 segments) acknowledged:
        ack(&mut c, &mut s, 60 * MSS, 50, 60 * MSS, None, Time::from_secs(4));
        s.cwnd = 20.0;
        c.on_timeout(&mut s, 10.0, Time::from_secs(6));
        assert_eq!(s.ssthresh, 14.0);
    }

    /// Congestion avoidance after a loss at W_max = 100 (cwnd 70): K =
    /// cbrt(30 / 0.4) = 4.2 s. ns-3 truncates `0.4 |t - K|^3` to whole
    /// segments, so the target reaches W_max once `|t - K| < cbrt(2.5)` =
    /// 1.36 s (t counts from the epoch plus delay_min, 0.1 s): the window
    /// stays below 100 until then, is at 100 at K, and grows after.
    #[test]
    fn test_congestion_avoidance_returns_to_w_max_after_k() {
        let mut c = Ns3Cubic::default();
        let mut s = st(100.0, 1e9);
        ack(&mut c, &mut s, 0, 0, 100 * MSS, Some(100), Time::ZERO);
        c.on_triple_dupack(&mut s, 100.0, Time::ZERO);
        c.on_recovery_exit(&mut s, Time::ZERO);
        assert_eq!(s.cwnd, 70.0);
        let k = (30.0f64 / C).cbrt();
        // One ACK of 2 segments every 2 ms (the receiver's delayed ACKs).
        let (mut now, mut seq) = (Time::from_ms(1), 0u64);
        let mut at_k = 0.0;
        while now < Time::from_secs(8) {
            seq += 2 * MSS;
            ack(&mut c, &mut s, seq, 2, seq + 100 * MSS, Some(100), now);
            let t = now.as_secs_f64();
            if t < k - 1.6 {
                assert!(s.cwnd < 100.0, "t {t}: {}", s.cwnd);
            }
            if (t - k).abs() < 0.002 {
                at_k = s.cwnd;
            }
            now += Time::from_ms(2);
        }
        assert!((97.0..=101.0).contains(&at_k), "cwnd at K: {at_k}");
        assert!(s.cwnd > 105.0, "convex growth after K: {}", s.cwnd);
    }

    /// HyStart: with cwnd ≥ 16 in slow start, a round whose first 8 RTT
    /// samples all exceed twice the minimum ends slow start (ssthresh =
    /// cwnd); below 16 segments it never does.
    #[test]
    fn test_hystart_delay_increase_ends_slow_start() {
        let mut c = Ns3Cubic::default();
        let mut s = st(10.0, 1e9);
        // ACKs 5 ms apart (no ACK train), RTT 50 ms, then 150 ms from 1 s.
        let (mut now, mut seq) = (Time::from_ms(5), 0u64);
        let mut ended_at = None;
        while now < Time::from_secs(3) && ended_at.is_none() {
            seq += MSS;
            let rtt = if now < Time::from_secs(1) { 50 } else { 150 };
            let snd_max = seq + s.cwnd as u64 * MSS;
            ack(&mut c, &mut s, seq, 1, snd_max, Some(rtt), now);
            if c.hystart_found() {
                ended_at = Some(now);
            }
            now += Time::from_ms(5);
        }
        let t = ended_at.expect("HyStart ended slow start");
        assert!(t > Time::from_secs(1), "{t}");
        assert_eq!(s.ssthresh, s.cwnd);
        assert!(s.cwnd >= 16.0);
    }
}
