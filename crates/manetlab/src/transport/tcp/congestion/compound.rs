//! Compound TCP (Tan, Song, Zhang and Sridharan, IEEE INFOCOM 2006;
//! draft-sridharan-tcpm-ctcp-02).
//!
//! The window is the sum of a loss-based part `cwnd_l` (Reno) and a
//! delay-based part `dwnd`: `win = cwnd_l + dwnd` (what the sender uses,
//! [`CcState::cwnd`]). In congestion avoidance `cwnd_l` grows by `1/win` per
//! ACK, and once per round trip (each RTT measurement) the backlog estimate
//! of Vegas, `diff = win (RTT - BaseRTT) / RTT` segments, updates `dwnd`:
//!
//! - `diff < gamma`: `dwnd += max(alpha win^k - 1, 0)` (binomial increase);
//! - `diff >= gamma`: `dwnd = max(dwnd - zeta diff, 0)` (it retreats as
//!   queueing delay grows);
//!
//! and on a loss `cwnd_l = cwnd_l / 2`, `dwnd = max(win (1 - beta) - cwnd_l / 2, 0)`.
//! Parameters are the paper's: alpha = 1/8, beta = 1/2, k = 3/4, zeta = 1,
//! gamma = 30 segments. In slow start `dwnd` = 0 and the window grows as
//! Reno's; a timeout clears `dwnd`.
//!
//! `win` at a loss is the window actually in use, min(win, flight), since
//! the sender may be limited by `max_window` (the window is not capped).

use super::vegas::backlog;
use super::{AckSample, CcState, CongestionControl, RecoveryStyle};
use crate::sim::Time;

#[derive(Clone, Debug)]
pub struct Compound {
    pub alpha: f64,
    pub beta: f64,
    pub k: f64,
    pub zeta: f64,
    /// Backlog (segments) above which `dwnd` shrinks.
    pub gamma: f64,
    /// Loss-based window, segments (`None` until the first ACK: taken from
    /// the initial cwnd).
    lwnd: Option<f64>,
    dwnd: f64,
    base_rtt: Option<Time>,
    in_recovery: bool,
}

impl Default for Compound {
    fn default() -> Self {
        Compound {
            alpha: 0.125,
            beta: 0.5,
            k: 0.75,
            zeta: 1.0,
            gamma: 30.0,
            lwnd: None,
            dwnd: 0.0,
            base_rtt: None,
            in_recovery: false,
        }
    }
}

impl Compound {
    /// The delay-based window, segments.
    pub fn dwnd(&self) -> f64 {
        self.dwnd
    }
    /// The loss-based window, segments.
    pub fn lwnd(&self, st: &CcState) -> f64 {
        self.lwnd.unwrap_or(st.cwnd - self.dwnd)
    }

    fn loss(&mut self, st: &CcState, flight: f64) -> f64 {
        let win = if flight > 0.0 { st.cwnd.min(flight) } else { st.cwnd };
        let lwnd = self.lwnd(st).min(win);
        let half = lwnd / 2.0;
        self.dwnd = (win * (1.0 - self.beta) - half).max(0.0);
        let ssthresh = (half + self.dwnd).floor().max(2.0);
        // Keep lwnd + dwnd = ssthresh (the window after recovery).
        self.lwnd = Some(ssthresh - self.dwnd);
        ssthresh
    }
}

impl CongestionControl for Compound {
    fn name(&self) -> &'static str {
        "compound"
    }
    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }

    fn on_rtt_sample(&mut self, st: &mut CcState, rtt: Time, _now: Time) {
        let base = self.base_rtt.map_or(rtt, |b| b.min(rtt));
        self.base_rtt = Some(base);
        if self.in_recovery || st.in_slow_start() {
            return;
        }
        let lwnd = self.lwnd(st);
        let win = lwnd + self.dwnd;
        let diff = backlog(win, base, rtt);
        if diff < self.gamma {
            self.dwnd += (self.alpha * win.powf(self.k) - 1.0).max(0.0);
        } else {
            self.dwnd = (self.dwnd - self.zeta * diff).max(0.0);
        }
        self.lwnd = Some(lwnd);
        st.cwnd = lwnd + self.dwnd;
    }

    fn on_ack(&mut self, st: &mut CcState, _ack: &AckSample, _now: Time) {
        let mut lwnd = self.lwnd(st);
        if st.in_slow_start() {
            lwnd += 1.0;
        } else {
            lwnd += 1.0 / st.cwnd.max(1.0);
        }
        self.lwnd = Some(lwnd);
        st.cwnd = lwnd + self.dwnd;
    }

    fn ssthresh_on_loss(&self, st: &CcState, flight: f64) -> f64 {
        self.clone().loss(st, flight)
    }

    fn on_triple_dupack(&mut self, st: &mut CcState, flight: f64, _now: Time) {
        self.in_recovery = true;
        st.ssthresh = self.loss(st, flight);
        st.cwnd = st.ssthresh + st.dupack_threshold as f64;
    }

    fn on_recovery_exit(&mut self, st: &mut CcState, _now: Time) {
        self.in_recovery = false;
        st.cwnd = st.ssthresh;
        self.lwnd = Some(st.cwnd - self.dwnd);
    }

    fn on_timeout(&mut self, st: &mut CcState, flight: f64, _now: Time) {
        self.in_recovery = false;
        st.ssthresh = self.loss(st, flight);
        self.dwnd = 0.0;
        st.cwnd = 1.0;
        self.lwnd = Some(1.0);
    }
}

impl super::CongestionModel for Compound {
    const NAMES: &'static [&'static str] = &["compound", "ctcp"];
    fn build() -> Box<dyn CongestionControl> {
        Box::new(Compound::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ca(lwnd: f64, dwnd: f64) -> (Compound, CcState) {
        let c = Compound { lwnd: Some(lwnd), dwnd, base_rtt: Some(Time::from_ms(100)), ..Compound::default() };
        let s = CcState { cwnd: lwnd + dwnd, ssthresh: 2.0, mss: 1000, dupack_threshold: 3 };
        (c, s)
    }

    #[test]
    fn test_delay_window_grows_binomially_without_queueing() {
        let (mut c, mut s) = ca(60.0, 40.0);
        c.on_rtt_sample(&mut s, Time::from_ms(100), Time::ZERO);
        // alpha * 100^0.75 - 1 = 31.62 / 8 - 1 = 2.95
        let inc = 0.125 * 100f64.powf(0.75) - 1.0;
        assert!((c.dwnd() - (40.0 + inc)).abs() < 1e-9, "{}", c.dwnd());
        assert!((s.cwnd - (100.0 + inc)).abs() < 1e-9);
    }

    #[test]
    fn test_delay_window_shrinks_as_queueing_delay_grows() {
        let (mut c, mut s) = ca(60.0, 60.0);
        let mut last = c.dwnd();
        let mut shrank = 0;
        // Queueing delay rising 10 ms per round over a 100 ms base RTT.
        for q in 1..=20u64 {
            let rtt = Time::from_ms(100 + 10 * q);
            let win = s.cwnd;
            c.on_rtt_sample(&mut s, rtt, Time::ZERO);
            let diff = backlog(win, Time::from_ms(100), rtt);
            if diff >= 30.0 {
                assert!(c.dwnd() < last || c.dwnd() == 0.0, "q {q}: dwnd {} after {last}", c.dwnd());
                assert!((c.dwnd() - (last - diff).max(0.0)).abs() < 1e-9);
                shrank += 1;
            }
            last = c.dwnd();
        }
        assert!(shrank > 0);
        assert_eq!(c.dwnd(), 0.0);
        // The loss-based part is untouched by delay.
        assert_eq!(c.lwnd(&s), 60.0);
        assert_eq!(s.cwnd, 60.0);
    }

    #[test]
    fn test_loss_halves_the_whole_window() {
        let (mut c, mut s) = ca(40.0, 60.0);
        c.on_triple_dupack(&mut s, 100.0, Time::ZERO);
        // dwnd = 100 * 0.5 - 40 / 2 = 30; window = 20 + 30 = 50.
        assert_eq!(c.dwnd(), 30.0);
        assert_eq!(s.ssthresh, 50.0);
        c.on_rtt_sample(&mut s, Time::from_ms(100), Time::ZERO);
        assert_eq!(c.dwnd(), 30.0, "frozen during recovery");
        c.on_recovery_exit(&mut s, Time::ZERO);
        assert_eq!(s.cwnd, 50.0);
        assert_eq!(c.lwnd(&s), 20.0);
        c.on_timeout(&mut s, 50.0, Time::ZERO);
        assert_eq!((s.cwnd, c.dwnd()), (1.0, 0.0));
    }

    #[test]
    fn test_slow_start_is_reno_and_keeps_dwnd_zero() {
        let mut c = Compound::default();
        let mut s = CcState { cwnd: 1.0, ssthresh: 16.0, mss: 1000, dupack_threshold: 3 };
        let a = AckSample { bytes: 1000, segments: 1.0, rtt: None };
        for _ in 0..7 {
            c.on_rtt_sample(&mut s, Time::from_ms(100), Time::ZERO);
            c.on_ack(&mut s, &a, Time::ZERO);
        }
        assert_eq!((s.cwnd, c.dwnd()), (8.0, 0.0));
    }
}
