//! TCP NewReno (RFC 6582).

use super::{reno_increase, AckSample, CcState, CongestionControl, RecoveryStyle};
use crate::sim::Time;

/// NewReno: Reno's window arithmetic with RFC 6582 fast recovery. The
/// partial-ACK window deflation is the trait's default `on_partial_ack`
/// (ns-2 `partial_window_deflation_` = 1); leaving recovery sets
/// cwnd = ssthresh (RFC 6582 §3.2 step 6 option 2, ns-2's choice).
#[derive(Copy, Clone, Debug, Default)]
pub struct NewReno;

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }
    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }
    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample, _now: Time) {
        reno_increase(st, ack);
    }
}

impl super::CongestionModel for NewReno {
    const NAMES: &'static [&'static str] = &["newreno"];
    fn build() -> Box<dyn CongestionControl> {
        Box::new(NewReno)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_recovery_partial_ack_deflates_and_adds_one() {
        let mut s = CcState { cwnd: 9.0, ssthresh: 4.0, mss: 1000, dupack_threshold: 3 };
        let ack = AckSample { bytes: 2000, segments: 2.0, rtt: None };
        NewReno.on_partial_ack(&mut s, &ack, Time::ZERO);
        assert_eq!(s.cwnd, 8.0);
        let small = AckSample { bytes: 500, segments: 0.5, rtt: None };
        NewReno.on_partial_ack(&mut s, &small, Time::ZERO);
        assert_eq!(s.cwnd, 7.5);
    }
}
