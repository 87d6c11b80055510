//! Retransmission timeout estimation (RFC 6298).
//!
//! All arithmetic is on integer nanoseconds so that runs are bit-for-bit
//! reproducible. Which samples are valid (Karn's algorithm) is the sender's
//! business; see `TcpSender`.

use crate::sim::Time;

/// SRTT/RTTVAR estimator with exponential backoff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    /// RTO before backoff.
    base_rto: Time,
    /// Multiplier applied by backoff (1, 2, 4, ...).
    backoff: u64,
    min_rto: Time,
    max_rto: Time,
    tick: Time,
}

impl RttEstimator {
    /// Before the first sample the RTO is `initial_rto` (RFC 6298 §2.1).
    pub fn new(initial_rto: Time, min_rto: Time, max_rto: Time, tick: Time) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Time::ZERO,
            base_rto: initial_rto.max(min_rto).min(max_rto),
            backoff: 1,
            min_rto,
            max_rto,
            tick,
        }
    }

    /// Feed one valid RTT measurement `r` (RFC 6298 §2.2–2.3):
    /// first sample SRTT = R, RTTVAR = R/2; later
    /// RTTVAR = 3/4 RTTVAR + 1/4 |SRTT − R|, SRTT = 7/8 SRTT + 1/8 R;
    /// then RTO = SRTT + max(G, 4 RTTVAR), clamped to [min_rto, max_rto].
    /// A valid sample also ends any backoff (RFC 6298 §5.7: the RTO
    /// "collapses" once a new measurement is obtained).
    pub fn sample(&mut self, r: Time) {
        let r = r.as_ns();
        let (srtt, rttvar) = match self.srtt {
            None => (r, r / 2),
            Some(s) => {
                let s = s.as_ns();
                let err = s.abs_diff(r);
                let rttvar = (3 * self.rttvar.as_ns() + err) / 4;
                let srtt = (7 * s + r) / 8;
                (srtt, rttvar)
            }
        };
        self.srtt = Some(Time(srtt));
        self.rttvar = Time(rttvar);
        let rto = srtt.saturating_add(self.tick.as_ns().max(4 * rttvar));
        self.base_rto = Time(rto).max(self.min_rto).min(self.max_rto);
        self.backoff = 1;
    }

    /// Double the RTO after a timer expiry (RFC 6298 §5.5), up to `max_rto`.
    pub fn backoff(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff *= 2;
        }
    }

    /// Undo any backoff without a new sample.
    pub fn reset_backoff(&mut self) {
        self.backoff = 1;
    }

    /// Current timeout, backoff included.
    pub fn rto(&self) -> Time {
        let t = self.base_rto.as_ns().saturating_mul(self.backoff);
        Time(t).min(self.max_rto)
    }

    /// Smoothed RTT, once there is a sample.
    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    pub fn rttvar(&self) -> Time {
        self.rttvar
    }

    /// Current backoff multiplier (1 when not backed off).
    pub fn backoff_factor(&self) -> u64 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(Time::from_secs(3), Time::from_ms(200), Time::from_secs(60), Time::from_ms(10))
    }

    #[test]
    fn test_fresh_sample_sets_srtt_and_half_rttvar() {
        let mut e = est();
        assert_eq!(e.rto(), Time::from_secs(3));
        assert_eq!(e.srtt(), None);
        e.sample(Time::from_ms(100));
        assert_eq!(e.srtt(), Some(Time::from_ms(100)));
        assert_eq!(e.rttvar(), Time::from_ms(50));
        // 100 + 4 * 50 = 300 ms
        assert_eq!(e.rto(), Time::from_ms(300));
    }

    #[test]
    fn test_second_sample_uses_rfc6298_gains() {
        let mut e = est();
        e.sample(Time::from_ms(100));
        e.sample(Time::from_ms(200));
        // rttvar = 3/4*50 + 1/4*100 = 62.5 ; srtt = 7/8*100 + 1/8*200 = 112.5
        assert_eq!(e.rttvar(), Time::from_us(62_500));
        assert_eq!(e.srtt(), Some(Time::from_us(112_500)));
        assert_eq!(e.rto(), Time::from_us(112_500 + 250_000));
    }

    #[test]
    fn test_steady_samples_rto_floors_at_min_rto() {
        let mut e = est();
        for _ in 0..200 {
            e.sample(Time::from_ms(20));
        }
        assert_eq!(e.srtt(), Some(Time::from_ms(20)));
        // 20 ms + max(10 ms, ~0) = 30 ms < min_rto
        assert_eq!(e.rto(), Time::from_ms(200));
    }

    #[test]
    fn test_steady_samples_granularity_term_applies() {
        let mut e = RttEstimator::new(Time::from_secs(3), Time::ZERO, Time::from_secs(60), Time::from_ms(10));
        for _ in 0..200 {
            e.sample(Time::from_ms(500));
        }
        assert_eq!(e.rto(), Time::from_ms(510));
    }

    #[test]
    fn test_backoff_doubles_until_max_then_sample_resets() {
        let mut e = est();
        let mut seen = vec![e.rto()];
        for _ in 0..7 {
            e.backoff();
            seen.push(e.rto());
        }
        let secs: Vec<u64> = seen.iter().map(|t| t.as_ns() / 1_000_000_000).collect();
        assert_eq!(secs, vec![3, 6, 12, 24, 48, 60, 60, 60]);
        assert_eq!(*seen.last().unwrap(), Time::from_secs(60));
        e.sample(Time::from_ms(100));
        assert_eq!(e.backoff_factor(), 1);
        assert_eq!(e.rto(), Time::from_ms(300));
    }
}
