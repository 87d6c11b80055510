//! Traffic type `cbr`: UDP constant bit rate, fixed-size packets at a fixed
//! interval between start and stop, each gap optionally perturbed uniformly
//! by ±jitter (never below zero); with `burst` > 1, bursty CBR
//! (`burst.rs`).

use super::{interval_or_rate, payload_size, Endpoints, FlowEnv, Traffic, TrafficModel, TrafficSource};
use crate::sim::params::{ParamError, ParamErrorKind, Params};
use crate::sim::{RngStream, Time};
use crate::transport::udp::{UdpSender, UdpSink};

/// Integers below this convert to f64 and back unchanged (53-bit mantissa).
const EXACT_F64: u64 = 1 << 53;

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
            // Without jitter the gap is the interval: an integer below 2^53
            // converts to f64 exactly, so `round` and the conversion back
            // give it unchanged (the general arm's value, without the float
            // conversions; session 22).
            Some(prev) if self.jitter == Time::ZERO && self.interval.as_ns() < EXACT_F64 => prev + self.interval,
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

impl TrafficModel for Cbr {
    const NAME: &'static str = "cbr";
    const TYPES: &'static [&'static str] = &["cbr"];
    const KEYS: &'static [&'static str] = &["packet_size", "rate", "interval", "jitter", "burst"];

    fn parse(p: &dyn Params) -> Result<Traffic, ParamError> {
        let what = format!(
            "the 802.11 MSDU limit of {}B less {}B of IP and UDP headers",
            super::MAX_MSDU,
            super::MAX_MSDU - super::MAX_UDP_PAYLOAD
        );
        let size = payload_size(p, super::MAX_UDP_PAYLOAD, &what)?
            .ok_or_else(|| p.missing("packet_size", "a cbr flow needs its UDP payload size"))?;
        let (interval, _) = interval_or_rate(p, size)?.ok_or_else(|| {
            p.missing("rate", "a cbr flow needs a rate (e.g. \"2Mbps\") or an interval (e.g. \"10ms\")")
        })?;
        let jitter = p.duration("jitter")?;
        if let Some(j) = &jitter {
            if j.v >= interval {
                let msg = format!("{{key}} ({}) must be smaller than the packet interval ({})", p.show(j.v), p.show(interval));
                return Err(p.error(ParamErrorKind::Inconsistent, j.at, "jitter", &msg));
            }
        }
        let jitter = jitter.map_or(Time::ZERO, |j| j.v);
        match p.uint("burst")? {
            Some(b) if b.v == 0 => {
                Err(p.error(ParamErrorKind::OutOfRange, b.at, "burst", "{key} must be at least 1 packet"))
            }
            Some(b) if b.v > 1 => {
                if jitter > Time::ZERO {
                    let msg = format!("{{key}} and '{}.jitter' cannot be combined", p.section());
                    return Err(p.error(ParamErrorKind::Inconsistent, b.at, "burst", &msg));
                }
                Ok(Traffic::BurstyCbr { size, interval, burst: b.v })
            }
            _ => Ok(Traffic::Cbr { size, interval, jitter }),
        }
    }

    fn endpoints(cfg: &Traffic, f: &FlowEnv) -> Endpoints {
        let Traffic::Cbr { size, interval, jitter } = *cfg else { unreachable!("a cbr flow") };
        let cbr = Cbr::new(size, interval, jitter, f.start, f.stop);
        Endpoints {
            sender: Box::new(UdpSender::new(f.flow, f.port, f.dst, f.port, cbr)),
            sink: Box::new(UdpSink::new(f.flow, f.port)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::Purpose;
    /// A boxed source (a UDP sender's source chosen at run time) answers
    /// as the source inside it.
    #[test]
    fn a_boxed_source_is_its_source() {
        use crate::transport::TrafficSource;
        let mk = || Cbr::new(512, Time::from_ms(7), Time::from_ms(3), Time::from_ms(1), Time::from_ms(200));
        let (mut plain, mut boxed): (Cbr, Box<dyn TrafficSource>) = (mk(), Box::new(mk()));
        let (mut r1, mut r2) =
            (RngStream::new(5, 1, Purpose::AppJitter, 0), RngStream::new(5, 1, Purpose::AppJitter, 0));
        let mut now = Time::ZERO;
        let mut n = 0;
        while let Some(t) = plain.next_departure(now, &mut r1) {
            assert_eq!(boxed.next_departure(now, &mut r2), Some(t));
            assert_eq!(boxed.payload_bytes(n), plain.payload_bytes(n));
            (now, n) = (t, n + 1);
        }
        assert_eq!(boxed.next_departure(now, &mut r2), None);
        assert!(n > 20, "{n} departures");
        let _sender = crate::transport::udp::UdpSender::new(0, 9, 1, 9, boxed);
    }

    #[test]
    fn departures_are_periodic_until_stop() {
        let mut rng = RngStream::new(1, 0, Purpose::AppJitter, 0);
        let mut c = Cbr::new(100, Time::from_ms(10), Time::ZERO, Time::from_secs(1), Time::from_ms(1035));
        let v: Vec<Time> = std::iter::from_fn(|| c.next_departure(Time::ZERO, &mut rng)).collect();
        assert_eq!(v, vec![Time::from_ms(1000), Time::from_ms(1010), Time::from_ms(1020), Time::from_ms(1030)]);
    }
    /// The gap without jitter (session 22: the interval added as it is)
    /// against the float form every gap took before, on intervals around
    /// the f64 limit and ordinary ones; above the limit the float form is
    /// still used.
    #[test]
    fn gap_without_jitter_is_the_float_form() {
        let float_form = |prev: Time, interval: Time| prev + Time((interval.as_ns() as f64).round() as u64);
        let mut intervals: Vec<u64> = vec![1, 7, 999, 2_352_000, 1_000_000_007, (1 << 40) + 3];
        for d in 0..8u64 {
            intervals.extend([EXACT_F64 - 1 - d, EXACT_F64 + d, (EXACT_F64 << 1) + 2 * d + 1]);
        }
        let mut rng = RngStream::new(1, 0, Purpose::AppJitter, 0);
        for &i in &intervals {
            let interval = Time(i);
            let start = Time::from_ms(3);
            let mut c = Cbr::new(100, interval, Time::ZERO, start, Time(u64::MAX));
            let mut want = start;
            assert_eq!(c.next_departure(Time::ZERO, &mut rng), Some(want));
            for _ in 0..4 {
                want = float_form(want, interval);
                match c.next_departure(Time::ZERO, &mut rng) {
                    Some(t) => assert_eq!(t, want, "interval {i}"),
                    None => {
                        assert!(want >= Time(u64::MAX), "interval {i}");
                        break;
                    }
                }
            }
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
