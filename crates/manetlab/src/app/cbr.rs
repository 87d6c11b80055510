//! Constant bit rate: fixed-size packets at a fixed interval between start
//! and stop, each gap optionally perturbed uniformly by ±jitter (never
//! below zero).

use super::TrafficSource;
use crate::sim::{RngStream, Time};

#[derive(Clone, Debug)]
pub struct Cbr {
    size: u32,
    interval: Time,
    jitter: Time,
    start: Time,
    stop: Time,
    next: Option<Time>,
}

impl Cbr {
    pub fn new(size: u32, interval: Time, jitter: Time, start: Time, stop: Time) -> Self {
        Cbr { size, interval, jitter, start, stop, next: None }
    }
}

impl TrafficSource for Cbr {
    fn next_departure(&mut self, _now: Time, rng: &mut RngStream) -> Option<Time> {
        let t = match self.next {
            None => self.start,
            Some(prev) => {
                let mut gap = self.interval.as_ns() as f64;
                if self.jitter > Time::ZERO {
                    let j = self.jitter.as_ns() as f64;
                    gap = (gap + rng.range_f64(-j, j)).max(0.0);
                }
                prev + Time(gap.round() as u64)
            }
        };
        if t >= self.stop {
            return None;
        }
        self.next = Some(t);
        Some(t)
    }
    fn payload_bytes(&self, _seq: u64) -> u32 {
        self.size
    }
}

/// CBR in bursts: `burst` packets leave back to back (at the same instant,
/// so they reach the interface queue together) every `burst * interval`;
/// the mean rate is that of `Cbr` with the same size and interval. The
/// paper's table 1 (voip-tcp-coexistence.txt, fig. 3) varies `burst` at a
/// fixed mean rate.
#[derive(Clone, Debug)]
pub struct BurstyCbr {
    size: u32,
    period: Time,
    burst: u32,
    stop: Time,
    /// Start of the current burst and packets of it already sent.
    at: Time,
    sent_in_burst: u32,
}

impl BurstyCbr {
    pub fn new(size: u32, interval: Time, burst: u32, start: Time, stop: Time) -> Self {
        let burst = burst.max(1);
        BurstyCbr { size, period: interval * burst as u64, burst, stop, at: start, sent_in_burst: 0 }
    }
}

impl TrafficSource for BurstyCbr {
    fn next_departure(&mut self, _now: Time, _rng: &mut RngStream) -> Option<Time> {
        if self.sent_in_burst == self.burst {
            self.sent_in_burst = 0;
            self.at += self.period;
        }
        if self.at >= self.stop {
            return None;
        }
        self.sent_in_burst += 1;
        Some(self.at)
    }
    fn payload_bytes(&self, _seq: u64) -> u32 {
        self.size
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::Purpose;
    #[test]
    fn departures_are_periodic_until_stop() {
        let mut rng = RngStream::new(1, 0, Purpose::AppJitter, 0);
        let mut c = Cbr::new(100, Time::from_ms(10), Time::ZERO, Time::from_secs(1), Time::from_ms(1035));
        let v: Vec<Time> = std::iter::from_fn(|| c.next_departure(Time::ZERO, &mut rng)).collect();
        assert_eq!(v, vec![Time::from_ms(1000), Time::from_ms(1010), Time::from_ms(1020), Time::from_ms(1030)]);
    }
    #[test]
    fn bursts_keep_the_mean_rate() {
        let mut rng = RngStream::new(1, 0, Purpose::AppJitter, 0);
        let mut c = BurstyCbr::new(1500, Time::from_ms(10), 3, Time::ZERO, Time::from_ms(95));
        let v: Vec<Time> = std::iter::from_fn(|| c.next_departure(Time::ZERO, &mut rng)).collect();
        let ms = |x: u64| Time::from_ms(x);
        assert_eq!(
            v,
            vec![ms(0), ms(0), ms(0), ms(30), ms(30), ms(30), ms(60), ms(60), ms(60), ms(90), ms(90), ms(90)]
        );
        // Over a long run: as many packets as plain CBR at the same interval.
        for k in 1..=5 {
            let mut b = BurstyCbr::new(1500, Time::from_ms(10), k, Time::ZERO, Time::from_secs(60));
            let n = std::iter::from_fn(|| b.next_departure(Time::ZERO, &mut rng)).count();
            assert!((5995..=6005).contains(&n), "burst {k}: {n}");
        }
    }
    #[test]
    fn jitter_stays_within_bounds() {
        let mut rng = RngStream::new(1, 0, Purpose::AppJitter, 0);
        let mut c = Cbr::new(100, Time::from_ms(10), Time::from_ms(2), Time::ZERO, Time::from_secs(10));
        let v: Vec<Time> = std::iter::from_fn(|| c.next_departure(Time::ZERO, &mut rng)).collect();
        for w in v.windows(2) {
            let gap = (w[1] - w[0]).as_ns();
            assert!((8_000_000..=12_000_000).contains(&gap), "gap {gap}");
        }
        assert!(v.len() > 950 && v.len() < 1050);
    }
}
