//! G.729a-like voice calls: one packet of `payload` voice bytes plus a
//! 12-byte RTP header every `interval` (50 packets/s, 20 bytes: 8 kbit/s of
//! voice, 24 kbit/s at the IP layer with UDP and IP headers), in both
//! directions, without silence suppression.
//!
//! The source is periodic like CBR, but each end starts at a random phase
//! within the first interval (uniform, from the flow's own stream), so that
//! the two directions and different calls are not synchronised.

use super::quality::VoiceQuality;
use super::TrafficSource;
use crate::sim::{RngStream, Time};

/// RTP header bytes (RFC 3550, no CSRC, no extension).
pub const RTP_HEADER_BYTES: u32 = 12;

/// A call's codec framing and quality parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct VoipConfig {
    /// Voice bytes per packet (G.729a: 10 bytes per 10 ms frame, two frames).
    pub payload: u32,
    /// Packetisation interval.
    pub interval: Time,
    /// Playout buffer, codec delay and E-model parameters.
    pub quality: VoiceQuality,
}

impl Default for VoipConfig {
    fn default() -> Self {
        VoipConfig { payload: 20, interval: Time::from_ms(20), quality: VoiceQuality::default() }
    }
}

impl VoipConfig {
    /// UDP payload: voice plus RTP header.
    pub fn udp_payload(&self) -> u32 {
        self.payload + RTP_HEADER_BYTES
    }
}

/// One direction of a call: periodic departures from a random phase.
#[derive(Clone, Debug)]
pub struct VoipSource {
    size: u32,
    interval: Time,
    start: Time,
    stop: Time,
    next: Option<Time>,
}

impl VoipSource {
    pub fn new(cfg: &VoipConfig, start: Time, stop: Time) -> Self {
        VoipSource { size: cfg.udp_payload(), interval: cfg.interval, start, stop, next: None }
    }
}

impl TrafficSource for VoipSource {
    fn next_departure(&mut self, _now: Time, rng: &mut RngStream) -> Option<Time> {
        let t = match self.next {
            None => self.start + Time(rng.range_f64(0.0, self.interval.as_ns() as f64) as u64),
            Some(prev) => prev + self.interval,
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
    fn fifty_packets_a_second_of_32_bytes_from_a_random_phase() {
        let cfg = VoipConfig::default();
        assert_eq!(cfg.udp_payload(), 32);
        let mut phases = Vec::new();
        for flow in 0..4 {
            let mut rng = RngStream::new(1, flow, Purpose::AppJitter, 0);
            let mut s = VoipSource::new(&cfg, Time::from_secs(1), Time::from_secs(3));
            let v: Vec<Time> = std::iter::from_fn(|| s.next_departure(Time::ZERO, &mut rng)).collect();
            assert_eq!(v.len(), 100);
            assert!(v[0] >= Time::from_secs(1) && v[0] < Time::from_ms(1020));
            assert!(v.windows(2).all(|w| w[1] - w[0] == Time::from_ms(20)));
            assert_eq!(s.payload_bytes(0), 32);
            phases.push(v[0]);
        }
        phases.dedup();
        assert_eq!(phases.len(), 4, "{phases:?}");
    }
}
