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
