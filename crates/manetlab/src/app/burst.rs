//! Bursty CBR (`cbr` flows with `burst` > 1): the same mean rate as CBR,
//! sent `burst` packets at a time.

use super::{Endpoints, FlowEnv, Traffic, TrafficModel, TrafficSource};
use crate::sim::params::{ParamError, Params};
use crate::sim::{RngStream, Time};
use crate::transport::udp::{UdpSender, UdpSink};

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

impl TrafficModel for BurstyCbr {
    const NAME: &'static str = "cbr";
    /// Chosen by `type = "cbr"` with `burst` > 1 (the cbr parser).
    const TYPES: &'static [&'static str] = &[];
    const KEYS: &'static [&'static str] = <super::cbr::Cbr as TrafficModel>::KEYS;

    fn parse(p: &dyn Params) -> Result<Traffic, ParamError> {
        <super::cbr::Cbr as TrafficModel>::parse(p)
    }

    fn endpoints(cfg: &Traffic, f: &FlowEnv) -> Endpoints {
        let Traffic::BurstyCbr { size, interval, burst } = *cfg else { unreachable!("a bursty cbr flow") };
        let src = BurstyCbr::new(size, interval, burst, f.start, f.stop);
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
}
