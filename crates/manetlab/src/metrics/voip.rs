//! VoIP call reports: per-direction loss, delay quantiles, late packets and
//! the E-model MOS, computed from what each end recorded
//! ([`VoipRecord`], `app/quality.rs`, which also holds the E-model).

pub use crate::app::quality::*;
use serde::Serialize;

/// Quality of one direction of a call.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct DirectionReport {
    pub sent: u64,
    pub received: u64,
    /// Received but after the playout deadline.
    pub late: u64,
    /// Network loss, fraction of sent.
    pub network_loss: f64,
    /// Network loss plus late packets, fraction of sent (the E-model's e).
    pub total_loss: f64,
    /// One-way network delay of received packets, ms: mean and quantiles.
    pub delay_mean_ms: f64,
    pub delay_min_ms: f64,
    pub delay_p50_ms: f64,
    pub delay_p95_ms: f64,
    pub delay_p99_ms: f64,
    pub delay_max_ms: f64,
    /// Mean delay of the packets played + playout + codec delay, ms.
    pub mouth_to_ear_ms: f64,
    pub r: f64,
    pub mos: f64,
}

impl DirectionReport {
    /// `sent` by one end, `delays` received at the other.
    pub fn new(q: &VoiceQuality, sent: u64, delays: &[u64]) -> DirectionReport {
        let mut d: Vec<u64> = delays.to_vec();
        d.sort_unstable();
        let ms = |ns: u64| ns as f64 * 1e-6;
        let q_ms = |p: f64| crate::metrics::stats::quantile_sorted(&d, p).map_or(0.0, ms);
        let received = d.len() as u64;
        let min = d.first().copied().unwrap_or(0);
        let deadline = min + q.playout.as_ns();
        let played = d.partition_point(|&x| x <= deadline);
        let late = received - played as u64;
        let frac = |n: u64| if sent > 0 { (n as f64 / sent as f64).min(1.0) } else { 0.0 };
        let network_loss = frac(sent.saturating_sub(received));
        let total_loss = if sent > 0 { frac(sent.saturating_sub(played as u64)) } else { 0.0 };
        let mean =
            |s: &[u64]| if s.is_empty() { 0.0 } else { s.iter().map(|&x| x as f64).sum::<f64>() / s.len() as f64 };
        let played_mean_ms = mean(&d[..played]) * 1e-6;
        let mouth_to_ear_ms = played_mean_ms + ms(q.playout.as_ns()) + ms(q.codec_delay.as_ns());
        let r = r_factor(q.codec, mouth_to_ear_ms, total_loss);
        DirectionReport {
            sent,
            received,
            late,
            network_loss,
            total_loss,
            delay_mean_ms: mean(&d) * 1e-6,
            delay_min_ms: ms(min),
            delay_p50_ms: q_ms(0.5),
            delay_p95_ms: q_ms(0.95),
            delay_p99_ms: q_ms(0.99),
            delay_max_ms: d.last().copied().map_or(0.0, ms),
            mouth_to_ear_ms,
            r,
            mos: if sent == 0 { 0.0 } else { mos_from_r(r) },
        }
    }
}

/// Quality of a two-way call: the worse direction decides.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct VoipReport {
    /// src -> dst.
    pub forward: DirectionReport,
    /// dst -> src.
    pub backward: DirectionReport,
    /// min of the two directions' MOS.
    pub mos: f64,
    /// `mos >= 3.6`.
    pub supported: bool,
}

impl VoipReport {
    pub fn new(q: &VoiceQuality, src: &VoipRecord, dst: &VoipRecord) -> VoipReport {
        let forward = DirectionReport::new(q, src.sent, &dst.delays);
        let backward = DirectionReport::new(q, dst.sent, &src.delays);
        let mos = forward.mos.min(backward.mos);
        VoipReport { forward, backward, mos, supported: mos >= MOS_SUPPORTED }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G729A: Codec = Codec::G729A;

    /// G.107 Annex B / G.109 table 1: R 90, 80, 70, 60, 50 correspond to
    /// MOS 4.34, 4.03, 3.60, 3.10, 2.58 (rounded to 0.01); the G.107
    /// default R = 93.2 to 4.41.
    #[test]
    fn test_mos_from_r_matches_g107_annex_b() {
        for (r, m) in [(90.0, 4.34), (80.0, 4.03), (70.0, 3.60), (60.0, 3.10), (50.0, 2.58), (93.2, 4.41)] {
            assert!((mos_from_r(r) - m).abs() <= 0.0101, "R {r}: {} vs {m}", mos_from_r(r));
        }
        assert_eq!(mos_from_r(-5.0), 1.0);
        assert_eq!(mos_from_r(120.0), 4.5);
    }

    /// Kim, Niculescu, Hong (voip-tcp-coexistence.txt, "Difficult
    /// coexistence"): with a 60 ms playout buffer and 25 ms codec delay,
    /// MOS 3.6 needs all packets within 160 ms, or 98 % within 104 ms.
    #[test]
    fn test_paper_mos_3_6_operating_points() {
        let m1 = mos(G729A, 160.0 + 85.0, 0.0);
        let m2 = mos(G729A, 104.0 + 85.0, 0.02);
        assert!((m1 - 3.6).abs() < 0.02, "{m1}");
        assert!((m2 - 3.6).abs() < 0.02, "{m2}");
        // Worse on either axis drops below the threshold.
        assert!(mos(G729A, 180.0 + 85.0, 0.0) < MOS_SUPPORTED);
        assert!(mos(G729A, 104.0 + 85.0, 0.04) < MOS_SUPPORTED);
    }

    /// Cole and Rosenbluth's impairment curves: Id has a knee at 177.3 ms;
    /// G.729a starts at Ie = 11 and reaches 11 + 40 ln 2 = 38.7 at 10 % loss;
    /// G.711 reaches 30 ln 2.5 = 27.5 at 10 %.
    #[test]
    fn test_impairment_curves() {
        assert!((delay_impairment(100.0) - 2.4).abs() < 1e-12);
        assert!((delay_impairment(277.3) - (0.024 * 277.3 + 11.0)).abs() < 1e-9);
        assert_eq!(loss_impairment(G729A, 0.0), 11.0);
        assert!((loss_impairment(G729A, 0.1) - (11.0 + 40.0 * 2f64.ln())).abs() < 1e-12);
        assert!((loss_impairment(Codec::G711, 0.1) - 30.0 * 2.5f64.ln()).abs() < 1e-12);
        // The G.729a ceiling with only playout + codec delay: R = 81.2, MOS 4.07.
        let top = mos(G729A, 85.0, 0.0);
        assert!((top - 4.07).abs() < 0.01, "{top}");
    }

    #[test]
    fn test_late_packets_count_as_lost() {
        let q = VoiceQuality::default();
        // 100 sent, 95 received: 90 at 10 ms, 5 at 75 ms (65 ms after the
        // fastest: beyond the 60 ms buffer).
        let mut d = vec![10_000_000u64; 90];
        d.extend([75_000_000u64; 5]);
        let r = DirectionReport::new(&q, 100, &d);
        assert_eq!((r.received, r.late), (95, 5));
        assert!((r.network_loss - 0.05).abs() < 1e-12);
        assert!((r.total_loss - 0.10).abs() < 1e-12);
        assert!((r.mouth_to_ear_ms - 95.0).abs() < 1e-9);
        assert!((r.mos - mos(G729A, 95.0, 0.10)).abs() < 1e-12);
        assert!(r.mos < MOS_SUPPORTED);
        // Exactly at the deadline is still played.
        let r = DirectionReport::new(&q, 2, &[10_000_000, 70_000_000]);
        assert_eq!(r.late, 0);
    }

    #[test]
    fn test_call_takes_the_worse_direction() {
        let q = VoiceQuality::default();
        let a = VoipRecord { sent: 100, delays: vec![5_000_000; 100] };
        let b = VoipRecord { sent: 100, delays: vec![5_000_000; 80] };
        let c = VoipReport::new(&q, &a, &b);
        assert_eq!(c.forward.received, 80);
        assert_eq!(c.backward.received, 100);
        assert_eq!(c.mos, c.forward.mos);
        assert!(c.backward.mos > 4.0 && !c.supported);
        assert_eq!(DirectionReport::new(&q, 0, &[]).mos, 0.0);
    }
}
