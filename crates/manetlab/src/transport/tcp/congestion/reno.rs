//! TCP Reno (RFC 5681).

use super::{AckSample, CcState, CongestionControl, RecoveryStyle};
use crate::sim::Time;

/// Reno: AIMD window, fast recovery ends on the first new ACK.
#[derive(Copy, Clone, Debug, Default)]
pub struct Reno;

/// Reno window growth per ACK of new data, as ns-2 counts it: one segment
/// per ACK in slow start, `1/cwnd` segment per ACK in congestion avoidance
/// (RFC 5681 eq. (3) with SMSS*SMSS/cwnd). Growth is per ACK, not per
/// acknowledged segment, so delayed ACKs slow it down (as in ns-2).
pub fn reno_increase(st: &mut CcState, _ack: &AckSample) {
    if st.in_slow_start() {
        st.cwnd += 1.0;
    } else {
        st.cwnd += 1.0 / st.cwnd;
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }
    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::Reno
    }
    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample, _now: Time) {
        reno_increase(st, ack);
    }
}

impl super::CongestionModel for Reno {
    const NAMES: &'static [&'static str] = &["reno"];
    fn build() -> Box<dyn CongestionControl> {
        Box::new(Reno)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(cwnd: f64, ssthresh: f64) -> CcState {
        CcState { cwnd, ssthresh, mss: 1000, dupack_threshold: 3 }
    }
    const ACK1: AckSample = AckSample { bytes: 1000, segments: 1.0, rtt: None };

    #[test]
    fn test_slow_start_ack_adds_one_segment() {
        let mut s = st(1.0, 8.0);
        for _ in 0..3 {
            Reno.on_ack(&mut s, &ACK1, Time::ZERO);
        }
        assert_eq!(s.cwnd, 4.0);
    }

    #[test]
    fn test_congestion_avoidance_ack_adds_inverse_cwnd() {
        let mut s = st(4.0, 4.0);
        Reno.on_ack(&mut s, &ACK1, Time::ZERO);
        assert_eq!(s.cwnd, 4.25);
    }

    #[test]
    fn test_triple_dupack_halves_flight_and_inflates() {
        let mut s = st(10.0, 64.0);
        Reno.on_triple_dupack(&mut s, 9.0, Time::ZERO);
        assert_eq!(s.ssthresh, 4.0);
        assert_eq!(s.cwnd, 7.0);
        Reno.on_dupack(&mut s, true, Time::ZERO);
        assert_eq!(s.cwnd, 8.0);
        Reno.on_recovery_exit(&mut s, Time::ZERO);
        assert_eq!(s.cwnd, 4.0);
    }

    #[test]
    fn test_timeout_sets_loss_window_and_min_ssthresh() {
        let mut s = st(3.0, 64.0);
        Reno.on_timeout(&mut s, 3.0, Time::ZERO);
        assert_eq!((s.cwnd, s.ssthresh), (1.0, 2.0));
    }
}
