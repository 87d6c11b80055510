//! TCP Westwood+ (Grieco and Mascolo, ACM CCR 34(2), 2004; Mascolo et al.,
//! MobiCom 2001 for Westwood).
//!
//! The sender estimates the bandwidth its connection gets from the rate of
//! returning ACKs: once per round trip (an interval of at least
//! max(smoothed RTT, 50 ms), the 50 ms floor being Linux's), the bytes
//! acknowledged in the interval divided by its length give a sample `b_k`,
//! smoothed twice by `x <- (7 x + b_k) / 8` as Linux `tcp_westwood` does.
//! A duplicate ACK counts as one segment delivered; the cumulative ACK that
//! later covers those segments is credited only for what they did not
//! already count.
//!
//! After a loss the window is not halved but set to the estimated
//! bandwidth-delay product: `ssthresh = max(BWE * RTTmin / mss, 2)`
//! segments; on three duplicate ACKs `cwnd = ssthresh` (plus the usual
//! inflation while in NewReno fast recovery), on a timeout `cwnd = 1`.
//! Before the first estimate the loss response is Reno's. Growth between
//! losses is Reno's.

use super::{reno_increase, AckArrival, AckSample, CcState, CongestionControl, RecoveryStyle};
use crate::sim::Time;

/// Shortest bandwidth-sampling interval (Linux `TCP_WESTWOOD_RTT_MIN`).
const MIN_INTERVAL: Time = Time::from_ms(50);

#[derive(Clone, Debug, Default)]
pub struct WestwoodPlus {
    /// Bandwidth estimate, bytes/s (after both filters).
    bwe: Option<f64>,
    /// First filter stage.
    bw_ns: f64,
    rtt_min: Option<Time>,
    srtt: Option<f64>,
    /// Start of the current sampling interval.
    interval_start: Option<Time>,
    /// Bytes counted as delivered in the current interval.
    counted: u64,
    /// Bytes credited to duplicate ACKs not yet covered by a cumulative ACK.
    dup_credit: u64,
}

impl WestwoodPlus {
    /// Bandwidth estimate, bytes/s.
    pub fn bandwidth(&self) -> Option<f64> {
        self.bwe
    }

    fn bdp_segments(&self, st: &CcState) -> Option<f64> {
        let (bwe, rtt) = (self.bwe?, self.rtt_min?);
        Some((bwe * rtt.as_secs_f64() / st.mss as f64).floor().max(2.0))
    }
}

impl CongestionControl for WestwoodPlus {
    fn name(&self) -> &'static str {
        "westwood+"
    }
    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }

    fn on_rtt_sample(&mut self, _st: &mut CcState, rtt: Time, _now: Time) {
        self.rtt_min = Some(self.rtt_min.map_or(rtt, |m| m.min(rtt)));
        let r = rtt.as_secs_f64();
        self.srtt = Some(self.srtt.map_or(r, |s| 0.875 * s + 0.125 * r));
    }

    fn on_ack_arrival(&mut self, st: &mut CcState, arrival: &AckArrival, now: Time) {
        let newly_acked = arrival.newly_acked;
        let start = *self.interval_start.get_or_insert(now);
        let delivered = if newly_acked == 0 {
            self.dup_credit += st.mss as u64;
            st.mss as u64
        } else {
            let covered = newly_acked.min(self.dup_credit);
            self.dup_credit -= covered;
            newly_acked - covered
        };
        self.counted += delivered;
        let interval = Time::from_secs_f64(self.srtt.unwrap_or(0.0)).max(MIN_INTERVAL);
        let elapsed = now - start;
        if self.srtt.is_some() && elapsed >= interval {
            let bk = self.counted as f64 / elapsed.as_secs_f64();
            match self.bwe {
                None => {
                    self.bw_ns = bk;
                    self.bwe = Some(bk);
                }
                Some(b) => {
                    self.bw_ns = (7.0 * self.bw_ns + bk) / 8.0;
                    self.bwe = Some((7.0 * b + self.bw_ns) / 8.0);
                }
            }
            self.interval_start = Some(now);
            self.counted = 0;
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample, _now: Time) {
        reno_increase(st, ack);
    }

    fn ssthresh_on_loss(&self, st: &CcState, flight: f64) -> f64 {
        self.bdp_segments(st).unwrap_or_else(|| (flight / 2.0).floor().max(2.0))
    }
}

impl super::CongestionModel for WestwoodPlus {
    const NAMES: &'static [&'static str] = &["westwood", "westwood+", "westwoodplus"];
    fn build() -> Box<dyn CongestionControl> {
        Box::new(WestwoodPlus::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::congestion::Reno;

    fn st(cwnd: f64) -> CcState {
        CcState { cwnd, ssthresh: 8.0, mss: 1000, dupack_threshold: 3 }
    }

    /// ACKs of one segment every `gap`, for `secs`, with 100 ms RTT samples.
    fn feed(w: &mut WestwoodPlus, s: &mut CcState, gap: Time, secs: u64, dup_every: Option<u64>) {
        let mut now = Time::ZERO;
        let (mut i, mut held) = (0u64, 0u64);
        while now < Time::from_secs(secs) {
            if i % 10 == 0 {
                w.on_rtt_sample(s, Time::from_ms(100), now);
            }
            // A duplicate; the next ACK then also covers the segment it reported.
            if dup_every.is_some_and(|k| i % k == k - 1) {
                w.on_ack_arrival(s, &AckArrival::bytes(0), now);
                held += 1000;
            } else {
                w.on_ack_arrival(s, &AckArrival::bytes(1000 + held), now);
                held = 0;
            }
            now += gap;
            i += 1;
        }
    }

    #[test]
    fn test_bandwidth_estimate_follows_ack_rate() {
        let mut w = WestwoodPlus::default();
        let mut s = st(40.0);
        feed(&mut w, &mut s, Time::from_ms(10), 10, None);
        let b = w.bandwidth().unwrap();
        assert!((b - 100_000.0).abs() < 2_000.0, "{b}");
    }

    #[test]
    fn test_duplicate_acks_count_as_delivered_segments() {
        let mut w = WestwoodPlus::default();
        let mut s = st(40.0);
        // Every fourth ACK a duplicate: still 100 segments/s arrive.
        feed(&mut w, &mut s, Time::from_ms(10), 10, Some(4));
        let b = w.bandwidth().unwrap();
        assert!((b - 100_000.0).abs() < 2_000.0, "{b}");
        // A cumulative ACK covering three dup-acked segments counts only the rest.
        let mut w = WestwoodPlus::default();
        for _ in 0..3 {
            w.on_ack_arrival(&mut s, &AckArrival::bytes(0), Time::ZERO);
        }
        w.on_ack_arrival(&mut s, &AckArrival::bytes(4000), Time::ZERO);
        assert_eq!((w.counted, w.dup_credit), (4000, 0));
    }

    #[test]
    fn test_loss_sets_ssthresh_to_estimated_bdp_not_half_the_window() {
        let mut w = WestwoodPlus::default();
        let mut s = st(40.0);
        feed(&mut w, &mut s, Time::from_ms(10), 10, None);
        // 100 kB/s x 100 ms = 10 segments, whatever the window was.
        w.on_triple_dupack(&mut s, 40.0, Time::ZERO);
        assert_eq!(s.ssthresh, 10.0);
        assert_eq!(s.cwnd, 13.0);
        w.on_recovery_exit(&mut s, Time::ZERO);
        assert_eq!(s.cwnd, 10.0);
        let mut r = st(40.0);
        Reno.on_triple_dupack(&mut r, 40.0, Time::ZERO);
        assert_eq!(r.ssthresh, 20.0);
        // Timeout: same ssthresh, loss window of one segment.
        let mut s = st(40.0);
        w.on_timeout(&mut s, 40.0, Time::ZERO);
        assert_eq!((s.cwnd, s.ssthresh), (1.0, 10.0));
    }

    #[test]
    fn test_without_estimate_loss_response_is_reno() {
        let w = WestwoodPlus::default();
        assert_eq!(w.ssthresh_on_loss(&st(30.0), 30.0), 15.0);
    }
}
