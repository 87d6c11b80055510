//! Traffic type `poisson`: UDP packets of a fixed size whose gaps are
//! exponentially distributed (a Poisson process of rate 1/`interval`), the
//! usual model of many independent users' requests, and the limit of ns-2's
//! `Application/Traffic/Exponential` and ns-3's `OnOffApplication` with
//! vanishing on-times.
//!
//! Keys: `packet_size` (UDP payload, required) and the mean rate as `rate`
//! (bit/s of payload) or the mean gap as `interval`. Packets leave from
//! `start` on (the first one gap after it, as a Poisson process observed
//! from `start`) until `stop`.
//!
//! Gaps are drawn by inversion, `-ln(1 - U) * interval` with U uniform in
//! [0, 1) from the flow's own stream, and rounded to the nanosecond
//! (the rounding biases the mean by under 0.5 ns). Validation: the unit
//! tests below check the count over a long run against its Poisson
//! standard deviation and the coefficient of variation of the gaps (1 for
//! an exponential), and `tests/traffic.rs` runs a flow end to end.

use super::{interval_or_rate, payload_size, Endpoints, FlowEnv, Traffic, TrafficModel, TrafficSource};
use crate::sim::params::{ParamError, Params};
use crate::sim::{RngStream, Time};
use crate::transport::udp::{UdpSender, UdpSink};

/// Poisson departures between `start` and `stop`.
#[derive(Clone, Debug)]
pub struct Poisson {
    size: u32,
    /// Mean gap, ns.
    mean_ns: f64,
    stop: Time,
    /// The last departure (`start` before the first).
    at: Time,
}

impl Poisson {
    pub fn new(size: u32, interval: Time, start: Time, stop: Time) -> Self {
        Poisson { size, mean_ns: interval.as_ns() as f64, stop, at: start }
    }
}

impl TrafficSource for Poisson {
    fn next_departure(&mut self, _now: Time, rng: &mut RngStream) -> Option<Time> {
        let gap = -(1.0 - rng.unit()).ln() * self.mean_ns;
        let t = self.at.as_ns().saturating_add(gap.round() as u64);
        if t >= self.stop.as_ns() {
            return None;
        }
        self.at = Time::from_ns(t);
        Some(self.at)
    }
    fn payload_bytes(&self, _seq: u64) -> u32 {
        self.size
    }
}

impl TrafficModel for Poisson {
    const NAME: &'static str = "poisson";
    const TYPES: &'static [&'static str] = &["poisson"];
    const KEYS: &'static [&'static str] = &["packet_size", "rate", "interval"];

    fn parse(p: &dyn Params) -> Result<Traffic, ParamError> {
        let size = payload_size(p, super::MAX_UDP_PAYLOAD, "the MSDU limit less IP and UDP headers")?
            .ok_or_else(|| p.missing("packet_size", "a poisson flow needs its UDP payload size"))?;
        let (interval, _) = interval_or_rate(p, size)?.ok_or_else(|| {
            p.missing("rate", "a poisson flow needs a mean rate (e.g. \"1Mbps\") or a mean interval (e.g. \"10ms\")")
        })?;
        Ok(Traffic::Poisson { size, interval })
    }

    fn endpoints(cfg: &Traffic, f: &FlowEnv) -> Endpoints {
        let Traffic::Poisson { size, interval } = *cfg else { unreachable!("a poisson flow") };
        let src = Poisson::new(size, interval, f.start, f.stop);
        Endpoints {
            sender: Box::new(UdpSender::new(f.flow, f.port, f.dst, f.port, src)),
            sink: Box::new(UdpSink::new(f.flow, f.port)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::Purpose;

    fn gaps(seed: u64, interval: Time, secs: u64) -> Vec<f64> {
        let mut rng = RngStream::new(seed, 1 << 32, Purpose::AppJitter, 0);
        let mut p = Poisson::new(100, interval, Time::ZERO, Time::from_secs(secs));
        let t: Vec<Time> = std::iter::from_fn(|| p.next_departure(Time::ZERO, &mut rng)).collect();
        let mut prev = 0.0;
        t.iter()
            .map(|x| {
                let g = x.as_secs_f64() - prev;
                prev = x.as_secs_f64();
                g
            })
            .collect()
    }

    #[test]
    fn count_and_gaps_are_those_of_a_poisson_process() {
        // 100 packets/s for 1000 s: N ~ Poisson(100 000), sd 316; the
        // tolerance is 5 sd. The gaps' coefficient of variation is 1 for an
        // exponential; its standard error at n = 1e5 is ~0.0045 (kurtosis 9),
        // the tolerance 0.02 (over 4 standard errors). CBR would give 0.
        for seed in 1..=3 {
            let g = gaps(seed, Time::from_ms(10), 1000);
            let n = g.len() as f64;
            assert!((n - 100_000.0).abs() < 1_580.0, "seed {seed}: {n} packets");
            let mean = g.iter().sum::<f64>() / n;
            let var = g.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
            let cv = var.sqrt() / mean;
            assert!((mean - 0.01).abs() < 0.0002, "seed {seed}: mean gap {mean}");
            assert!((cv - 1.0).abs() < 0.02, "seed {seed}: CV {cv}");
            // Memorylessness: P(gap > mean) = e^-1.
            let over = g.iter().filter(|&&x| x > 0.01).count() as f64 / n;
            assert!((over - (-1f64).exp()).abs() < 0.01, "seed {seed}: P(gap > mean) {over}");
        }
    }

    #[test]
    fn departures_stay_inside_start_and_stop() {
        let mut rng = RngStream::new(7, 0, Purpose::AppJitter, 0);
        let mut p = Poisson::new(100, Time::from_ms(1), Time::from_secs(2), Time::from_secs(3));
        let t: Vec<Time> = std::iter::from_fn(|| p.next_departure(Time::ZERO, &mut rng)).collect();
        assert!(t.first().unwrap() > &Time::from_secs(2) && t.last().unwrap() < &Time::from_secs(3));
        assert!(t.windows(2).all(|w| w[0] <= w[1]));
        assert!((900..1100).contains(&t.len()), "{}", t.len());
    }
}
