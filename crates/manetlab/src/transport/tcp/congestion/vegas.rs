//! TCP Vegas (Brakmo and Peterson, IEEE JSAC 13(8), 1995), with the
//! parameters of ns-2's `Agent/TCP/Vegas` (`v_alpha_` = 1, `v_beta_` = 3,
//! `v_gamma_` = 1).
//!
//! Once per round trip (at each RTT measurement, see
//! [`CongestionControl::on_rtt_sample`]) Vegas compares the rate it expects,
//! `cwnd / BaseRTT`, with the rate it gets, `cwnd / RTT`; the difference
//! times BaseRTT is the number of its own segments sitting in queues:
//!
//! `diff = cwnd * (RTT - BaseRTT) / RTT` (segments).
//!
//! In congestion avoidance it adds one segment per RTT when `diff < alpha`,
//! removes one when `diff > beta`, and holds otherwise, so it keeps between
//! alpha and beta segments of backlog. In slow start the window grows per
//! ACK as Reno's, and Vegas leaves slow start as soon as `diff > gamma`,
//! cutting the window to the expected rate plus one segment. Losses are
//! handled as NewReno (the Linux choice; the original halved less).
//! BaseRTT is the smallest RTT ever measured.

use super::{reno_increase, AckSample, CcState, CongestionControl, RecoveryStyle};
use crate::sim::Time;

#[derive(Clone, Debug)]
pub struct Vegas {
    /// Fewest segments of backlog before the window grows.
    pub alpha: f64,
    /// Most segments of backlog before the window shrinks.
    pub beta: f64,
    /// Backlog that ends slow start.
    pub gamma: f64,
    base_rtt: Option<Time>,
    in_recovery: bool,
}

impl Default for Vegas {
    fn default() -> Self {
        Vegas { alpha: 1.0, beta: 3.0, gamma: 1.0, base_rtt: None, in_recovery: false }
    }
}

impl Vegas {
    /// Smallest RTT seen so far.
    pub fn base_rtt(&self) -> Option<Time> {
        self.base_rtt
    }
}

/// Own segments queued along the path: `cwnd * (rtt - base) / rtt`.
pub(crate) fn backlog(cwnd: f64, base: Time, rtt: Time) -> f64 {
    let (b, r) = (base.as_ns() as f64, rtt.as_ns() as f64);
    if r <= 0.0 {
        return 0.0;
    }
    cwnd * (r - b) / r
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }
    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }

    fn on_rtt_sample(&mut self, st: &mut CcState, rtt: Time, _now: Time) {
        let base = self.base_rtt.map_or(rtt, |b| b.min(rtt));
        self.base_rtt = Some(base);
        if self.in_recovery {
            return;
        }
        let diff = backlog(st.cwnd, base, rtt);
        if st.in_slow_start() {
            if diff > self.gamma {
                // Expected rate times the base RTT, plus one segment.
                let target = st.cwnd * base.as_ns() as f64 / rtt.as_ns() as f64;
                st.cwnd = st.cwnd.min(target.floor() + 1.0).max(2.0);
                st.ssthresh = st.ssthresh.min(st.cwnd - 1.0).max(1.0);
            }
        } else if diff > self.beta {
            st.cwnd = (st.cwnd - 1.0).max(2.0);
            st.ssthresh = st.ssthresh.min(st.cwnd - 1.0).max(1.0);
        } else if diff < self.alpha {
            st.cwnd += 1.0;
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample, _now: Time) {
        // Congestion avoidance moves only once per RTT (above).
        if st.in_slow_start() {
            reno_increase(st, ack);
        }
    }

    fn on_triple_dupack(&mut self, st: &mut CcState, flight: f64, _now: Time) {
        self.in_recovery = true;
        st.ssthresh = self.ssthresh_on_loss(st, flight);
        st.cwnd = st.ssthresh + st.dupack_threshold as f64;
    }

    fn on_recovery_exit(&mut self, st: &mut CcState, _now: Time) {
        self.in_recovery = false;
        st.cwnd = st.ssthresh;
    }

    fn on_timeout(&mut self, st: &mut CcState, flight: f64, _now: Time) {
        self.in_recovery = false;
        st.ssthresh = self.ssthresh_on_loss(st, flight);
        st.cwnd = 1.0;
    }
}

impl super::CongestionModel for Vegas {
    const NAMES: &'static [&'static str] = &["vegas"];
    fn build() -> Box<dyn CongestionControl> {
        Box::new(Vegas::default())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A fluid bottleneck: `rate` segments/s, propagation RTT `base`; the
    /// queue holds whatever the window puts beyond the pipe.
    pub(crate) struct Bottleneck {
        pub rate: f64,
        pub base_s: f64,
    }
    impl Bottleneck {
        pub fn rtt(&self, cwnd: f64) -> Time {
            let queued = (cwnd.floor() - self.rate * self.base_s).max(0.0);
            Time::from_secs_f64(self.base_s + queued / self.rate)
        }
        /// One round trip: an RTT sample, then one ACK per segment sent.
        pub fn round(&self, cc: &mut dyn CongestionControl, st: &mut CcState, now: &mut Time) {
            let rtt = self.rtt(st.cwnd);
            let n = st.cwnd.floor().max(1.0) as usize;
            let gap = Time(rtt.as_ns() / n as u64);
            cc.on_rtt_sample(st, rtt, *now);
            for _ in 0..n {
                *now += gap;
                cc.on_ack_arrival(st, &super::super::AckArrival::bytes(st.mss as u64), *now);
                cc.on_ack(st, &AckSample { bytes: st.mss as u64, segments: 1.0, rtt: None }, *now);
            }
        }
        pub fn backlog(&self, cwnd: f64) -> f64 {
            (cwnd.floor() - self.rate * self.base_s).max(0.0)
        }
    }

    fn st(cwnd: f64, ssthresh: f64) -> CcState {
        CcState { cwnd, ssthresh, mss: 1000, dupack_threshold: 3 }
    }

    #[test]
    fn test_congestion_avoidance_holds_alpha_to_beta_segments_queued() {
        // 100 segments/s, 100 ms: the pipe holds 10 segments.
        let link = Bottleneck { rate: 100.0, base_s: 0.1 };
        for start in [2.0, 10.0, 30.0] {
            let mut v = Vegas::default();
            let mut s = st(start, 1.0);
            let mut now = Time::ZERO;
            // The first sample must see the empty pipe (BaseRTT).
            v.on_rtt_sample(&mut s, Time::from_ms(100), now);
            for _ in 0..60 {
                link.round(&mut v, &mut s, &mut now);
            }
            let q = link.backlog(s.cwnd);
            assert!((1.0..=3.0).contains(&q), "start {start}: cwnd {} backlog {q}", s.cwnd);
            // ... and stays there.
            let before = s.cwnd;
            for _ in 0..20 {
                link.round(&mut v, &mut s, &mut now);
            }
            assert_eq!(s.cwnd, before, "start {start}");
        }
    }

    #[test]
    fn test_slow_start_ends_when_backlog_exceeds_gamma() {
        let link = Bottleneck { rate: 100.0, base_s: 0.1 };
        let mut v = Vegas::default();
        let mut s = st(1.0, 1000.0);
        let mut now = Time::ZERO;
        let mut rounds = 0;
        while s.in_slow_start() {
            link.round(&mut v, &mut s, &mut now);
            rounds += 1;
            assert!(rounds < 20, "never left slow start: cwnd {}", s.cwnd);
        }
        // It leaves near the pipe size (10), far below Reno's ssthresh.
        assert!(s.cwnd <= 12.0 && s.cwnd >= 9.0, "cwnd {}", s.cwnd);
        assert_eq!(v.base_rtt(), Some(Time::from_ms(100)));
    }

    #[test]
    fn test_no_window_change_during_recovery() {
        let mut v = Vegas::default();
        let mut s = st(20.0, 10.0);
        v.on_rtt_sample(&mut s, Time::from_ms(100), Time::ZERO);
        v.on_triple_dupack(&mut s, 20.0, Time::ZERO);
        assert_eq!((s.ssthresh, s.cwnd), (10.0, 13.0));
        v.on_rtt_sample(&mut s, Time::from_ms(400), Time::ZERO);
        assert_eq!(s.cwnd, 13.0);
        v.on_recovery_exit(&mut s, Time::ZERO);
        assert_eq!(s.cwnd, 10.0);
    }
}
