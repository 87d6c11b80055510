//! CUBIC (RFC 9438), without HyStart++ (slow start is RFC 5681's).
//!
//! In congestion avoidance the window follows the cubic function of the
//! time `t` since the current congestion-avoidance epoch began
//! (RFC 9438 §4.2, eq. 1–2):
//!
//! `W_cubic(t) = C (t - K)^3 + W_max`, `K = cbrt((W_max - cwnd_epoch) / C)`,
//!
//! with C = 0.4 segments/s³ and `W_max` the window just before the last
//! reduction. On each ACK the window moves towards
//! `target = W_cubic(t + RTT)` clamped to `[cwnd, 1.5 cwnd]` by
//! `(target - cwnd) / cwnd` (§4.4, §4.5), unless the Reno-friendly estimate
//! `W_est`, grown by `alpha_cubic * segments_acked / cwnd` with
//! `alpha_cubic = 3 (1 - beta) / (1 + beta)` (1 once `W_est` passes the
//! window before the reduction, §4.3), is larger: then `cwnd = W_est`.
//!
//! On a loss (§4.6): `ssthresh = max(flight * beta, 2)` with beta = 0.7;
//! `W_max` = cwnd before the reduction, or `cwnd (1 + beta) / 2` if that is
//! below the previous `W_max` (fast convergence, §4.7). After a timeout
//! (§4.8) the first epoch uses K = 0 and `W_max` = the window at which
//! congestion avoidance starts. RTT is the sender's own smoothed estimate
//! (EWMA 1/8) of the RTT samples.

use super::{reno_increase, AckSample, CcState, CongestionControl, RecoveryStyle};
use crate::sim::Time;

/// RFC 9438 §5: C = 0.4.
pub const CUBIC_C: f64 = 0.4;
/// RFC 9438 §4.6: beta_cubic = 0.7.
pub const CUBIC_BETA: f64 = 0.7;

#[derive(Copy, Clone, Debug)]
struct Epoch {
    start: Time,
    k: f64,
    w_max: f64,
    w_est: f64,
}

#[derive(Clone, Debug, Default)]
pub struct Cubic {
    /// Window before the last reduction (after fast convergence), segments.
    w_max: f64,
    /// cwnd before the last reduction (switches alpha_cubic to 1).
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    after_timeout: bool,
    srtt: Option<f64>,
}

impl Cubic {
    /// `W_cubic(t)` of the current epoch, `t` seconds after it began.
    pub fn w_cubic(&self, t: f64) -> Option<f64> {
        self.epoch.map(|e| CUBIC_C * (t - e.k).powi(3) + e.w_max)
    }
    /// K of the current epoch, seconds.
    pub fn k(&self) -> Option<f64> {
        self.epoch.map(|e| e.k)
    }
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    fn reduce(&mut self, st: &CcState, flight: f64) -> f64 {
        // §4.7 fast convergence, then §4.6.
        self.w_max = if st.cwnd < self.w_max { st.cwnd * (1.0 + CUBIC_BETA) / 2.0 } else { st.cwnd };
        self.cwnd_prior = st.cwnd;
        self.epoch = None;
        (flight * CUBIC_BETA).max(2.0)
    }

    fn start_epoch(&mut self, st: &CcState, now: Time) -> Epoch {
        let cwnd = st.cwnd;
        let (k, w_max) = if self.after_timeout || self.w_max <= cwnd {
            (0.0, cwnd)
        } else {
            (((self.w_max - cwnd) / CUBIC_C).cbrt(), self.w_max)
        };
        self.after_timeout = false;
        Epoch { start: now, k, w_max, w_est: cwnd }
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }
    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }

    fn on_rtt_sample(&mut self, _st: &mut CcState, rtt: Time, _now: Time) {
        let r = rtt.as_secs_f64();
        self.srtt = Some(self.srtt.map_or(r, |s| 0.875 * s + 0.125 * r));
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample, now: Time) {
        if st.in_slow_start() {
            reno_increase(st, ack);
            return;
        }
        let mut e = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(st, now),
        };
        let t = (now - e.start).as_secs_f64();
        let rtt = self.srtt.unwrap_or(0.0);
        let w = |t: f64| CUBIC_C * (t - e.k).powi(3) + e.w_max;
        // §4.3 Reno-friendly region.
        let alpha = if e.w_est >= self.cwnd_prior { 1.0 } else { 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA) };
        e.w_est += alpha * ack.segments / st.cwnd;
        if w(t) < e.w_est {
            st.cwnd = st.cwnd.max(e.w_est);
        } else {
            // §4.4 / §4.5: concave and convex regions.
            let target = w(t + rtt).clamp(st.cwnd, 1.5 * st.cwnd);
            st.cwnd += (target - st.cwnd) / st.cwnd;
        }
        self.epoch = Some(e);
    }

    fn ssthresh_on_loss(&self, _st: &CcState, flight: f64) -> f64 {
        (flight * CUBIC_BETA).max(2.0)
    }

    fn on_triple_dupack(&mut self, st: &mut CcState, flight: f64, _now: Time) {
        st.ssthresh = self.reduce(st, flight);
        st.cwnd = st.ssthresh + st.dupack_threshold as f64;
    }

    fn on_timeout(&mut self, st: &mut CcState, flight: f64, _now: Time) {
        st.ssthresh = self.reduce(st, flight);
        st.cwnd = 1.0;
        self.after_timeout = true;
    }
}

impl super::CongestionModel for Cubic {
    const NAMES: &'static [&'static str] = &["cubic"];
    fn build() -> Box<dyn CongestionControl> {
        Box::new(Cubic::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::congestion::vegas::tests::Bottleneck;

    fn st(cwnd: f64) -> CcState {
        CcState { cwnd, ssthresh: 1e9, mss: 1000, dupack_threshold: 3 }
    }

    /// After a loss at 1000 segments, with a 100 ms RTT and no further
    /// loss, the window traces W(t) = C (t - K)^3 + W_max (K = cbrt(750) =
    /// 9.09 s), concave up to K, flat there, convex after. (With W_max this
    /// large the Reno-friendly estimate stays far below the curve.)
    #[test]
    fn test_window_follows_the_cubic_function() {
        let mut c = Cubic::default();
        let mut s = st(1000.0);
        c.on_rtt_sample(&mut s, Time::from_ms(100), Time::ZERO);
        c.on_triple_dupack(&mut s, 1000.0, Time::ZERO);
        assert_eq!((s.ssthresh, s.cwnd), (700.0, 703.0));
        c.on_recovery_exit(&mut s, Time::ZERO);
        assert_eq!(s.cwnd, 700.0);
        // The path never queues (huge pipe): RTT stays 100 ms.
        let link = Bottleneck { rate: 1e9, base_s: 0.1 };
        let mut now = Time::ZERO;
        let k = (300.0f64 / CUBIC_C).cbrt();
        let w = |t: f64| CUBIC_C * (t - k).powi(3) + 1000.0;
        let mut checked = 0;
        while now < Time::from_secs(18) {
            link.round(&mut c, &mut s, &mut now);
            assert!((c.k().unwrap() - k).abs() < 1e-12);
            let t = now.as_secs_f64();
            // Within one RTT of the curve either way (the target is W(t + RTT)).
            let slack = (w(t + 0.1) - w(t - 0.1)).abs() + 0.5;
            assert!((s.cwnd - w(t)).abs() <= slack, "t {t:.2}: cwnd {} W(t) {}", s.cwnd, w(t));
            if (t - k).abs() < 1.0 {
                assert!((s.cwnd - 1000.0).abs() < 2.0, "plateau: t {t:.2} cwnd {}", s.cwnd);
            }
            checked += 1;
        }
        assert!(checked > 170);
        assert!(s.cwnd > 1250.0, "{}", s.cwnd);
    }

    #[test]
    fn test_fast_convergence_lowers_w_max() {
        let mut c = Cubic::default();
        let mut s = st(100.0);
        c.on_triple_dupack(&mut s, 100.0, Time::ZERO);
        assert_eq!(c.w_max(), 100.0);
        s.cwnd = 80.0;
        c.on_triple_dupack(&mut s, 80.0, Time::ZERO);
        assert!((c.w_max() - 80.0 * 0.85).abs() < 1e-9);
        assert!((s.ssthresh - 56.0).abs() < 1e-9);
    }

    #[test]
    fn test_reno_friendly_region_when_cubic_is_slower() {
        // Tiny reduction (W_max just above cwnd): W_cubic is flat near
        // W_max for a long time, so W_est (Reno-like) leads once past it.
        let mut c = Cubic::default();
        let mut s = st(10.0);
        c.on_rtt_sample(&mut s, Time::from_ms(10), Time::ZERO);
        c.on_timeout(&mut s, 10.0, Time::ZERO);
        s.cwnd = 7.0;
        s.ssthresh = 7.0;
        let link = Bottleneck { rate: 1e6, base_s: 0.01 };
        let mut now = Time::ZERO;
        for _ in 0..100 {
            link.round(&mut c, &mut s, &mut now);
        }
        // After a timeout K = 0 and W_max = 7; in 1 s the cubic adds 0.4
        // segment while the Reno-friendly estimate adds ~0.53..1 per RTT.
        assert!(s.cwnd > 7.0 + 40.0, "{}", s.cwnd);
        assert_eq!(c.k(), Some(0.0));
    }

    #[test]
    fn test_timeout_uses_beta_and_loss_window() {
        let mut c = Cubic::default();
        let mut s = st(20.0);
        c.on_timeout(&mut s, 20.0, Time::ZERO);
        assert_eq!((s.cwnd, s.ssthresh), (1.0, 14.0));
    }
}
