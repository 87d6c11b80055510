//! HighSpeed TCP (S. Floyd, RFC 3649, "HighSpeed TCP for Large Congestion
//! Windows", December 2003).
//!
//! Up to `Low_Window` = 38 segments it is standard TCP (NewReno here,
//! RFC 3649 §1: "HighSpeed TCP ... [uses] the standard TCP response
//! function when the current congestion window is at most Low_Window").
//! Above it, the window follows the HighSpeed response function (§5)
//!
//! `w = Low_Window * (p / Low_P)^S`, `S = (ln High_Window - ln Low_Window)
//! / (ln High_P - ln Low_P)`, i.e. `w = 0.12 / p^0.835`,
//!
//! with `Low_P` = 10^-3, `High_Window` = 83,000 and `High_P` = 10^-7. The
//! AIMD parameters that produce it are, for `w > Low_Window` (§5):
//!
//! - decrease `b(w) = (High_Decrease - 0.5) (ln w - ln Low_Window) /
//!   (ln High_Window - ln Low_Window) + 0.5`, `High_Decrease` = 0.1: on a
//!   loss the window becomes `(1 - b(w)) w`;
//! - increase `a(w) = w^2 p(w) 2 b(w) / (2 - b(w))` segments per round
//!   trip, `p(w)` the response function solved for `p`: each ACK in
//!   congestion avoidance adds `a(w) / w`.
//!
//! `a` and `b` are computed from these formulas (as ns-2's `hstcp_`
//! option does with `hstcp_fix_` = 0), not looked up in the RFC's
//! Appendix B table; the unit tests check the formulas against that
//! table and the resulting window against the response function.
//! Slow start is standard (RFC 3742 limited slow start is not applied);
//! fast recovery is NewReno's (RFC 6582). `b` is taken at the flight size
//! the loss hit, the same quantity Reno halves.

use super::{reno_increase, AckSample, CcState, CongestionControl, RecoveryStyle};
use crate::sim::Time;

/// RFC 3649 §5 parameters.
pub const LOW_WINDOW: f64 = 38.0;
pub const HIGH_WINDOW: f64 = 83_000.0;
pub const LOW_P: f64 = 1e-3;
pub const HIGH_P: f64 = 1e-7;
pub const HIGH_DECREASE: f64 = 0.1;

/// The response function's exponent `S` (about -0.835).
fn slope() -> f64 {
    (HIGH_WINDOW.ln() - LOW_WINDOW.ln()) / (HIGH_P.ln() - LOW_P.ln())
}

/// The loss rate at which the response function gives window `w`.
pub fn loss_rate(w: f64) -> f64 {
    LOW_P * (w / LOW_WINDOW).powf(1.0 / slope())
}

/// The average window at loss rate `p` (RFC 3649 §5, `0.12 / p^0.835`).
#[cfg(test)]
pub fn response(p: f64) -> f64 {
    LOW_WINDOW * (p / LOW_P).powf(slope())
}

/// Decrease factor `b(w)`: 0.5 up to `Low_Window`, `High_Decrease` at
/// `High_Window` (and beyond, where the RFC stops).
pub fn decrease(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 0.5;
    }
    let w = w.min(HIGH_WINDOW);
    (HIGH_DECREASE - 0.5) * (w.ln() - LOW_WINDOW.ln()) / (HIGH_WINDOW.ln() - LOW_WINDOW.ln()) + 0.5
}

/// Increase `a(w)`, segments per round trip: 1 up to `Low_Window`.
pub fn increase(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 1.0;
    }
    let b = decrease(w);
    w * w * loss_rate(w) * 2.0 * b / (2.0 - b)
}

/// HighSpeed TCP: NewReno below 38 segments, RFC 3649 AIMD above.
#[derive(Copy, Clone, Debug, Default)]
pub struct HighSpeed;

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }
    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }
    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample, _now: Time) {
        if st.in_slow_start() || st.cwnd <= LOW_WINDOW {
            reno_increase(st, ack);
        } else {
            st.cwnd += increase(st.cwnd) / st.cwnd;
        }
    }
    fn ssthresh_on_loss(&self, _st: &CcState, flight: f64) -> f64 {
        ((1.0 - decrease(flight)) * flight).floor().max(2.0)
    }
}

impl super::CongestionModel for HighSpeed {
    const NAMES: &'static [&'static str] = &["highspeed", "hstcp"];
    fn build() -> Box<dyn CongestionControl> {
        Box::new(HighSpeed)
    }
}

#[cfg(test)]
mod tests {
    use super::super::NewReno;
    use super::*;

    /// RFC 3649 Appendix B, first rows: (w, a(w), b(w)), a and b as
    /// printed (a rounded to an integer, b to two decimals).
    const APPENDIX_B: [(f64, f64, f64); 10] = [
        (38.0, 1.0, 0.50),
        (118.0, 2.0, 0.44),
        (221.0, 3.0, 0.41),
        (347.0, 4.0, 0.38),
        (495.0, 5.0, 0.37),
        (663.0, 6.0, 0.35),
        (851.0, 7.0, 0.34),
        (1058.0, 8.0, 0.33),
        (1284.0, 9.0, 0.32),
        (1529.0, 10.0, 0.31),
    ];

    #[test]
    fn test_increase_and_decrease_match_rfc3649_appendix_b() {
        for (w, a, b) in APPENDIX_B {
            assert!((decrease(w) - b).abs() <= 0.005 + 1e-9, "b({w}) = {} vs {b}", decrease(w));
            // The table lists the window at which a(w) reaches each integer.
            assert!((increase(w) - a).abs() < 0.2, "a({w}) = {} vs {a}", increase(w));
        }
        // The response function's fixed points (RFC 3649 §5, table 3).
        assert!((response(1e-3) - 38.0).abs() < 1e-6);
        assert!((response(1e-7) - 83_000.0).abs() < 1e-3);
        assert!((response(1e-5) / (0.12 / 1e-5f64.powf(0.835)) - 1.0).abs() < 0.02);
    }

    /// Deterministic losses, one every 1/p segments: the mean window
    /// (segments acknowledged per round trip, N / sum(1/cwnd)) lands on
    /// the response function, as a(w), b(w) were derived for.
    fn mean_window(p: f64) -> f64 {
        let mut cc = HighSpeed;
        let w0 = response(p);
        let mut st = CcState { cwnd: w0, ssthresh: 1.0, mss: 1000, dupack_threshold: 3 };
        let ack = AckSample { bytes: 1000, segments: 1.0, rtt: None };
        let period = (1.0 / p).round() as u64;
        let (mut n, mut rtts) = (0u64, 0.0f64);
        for k in 0..period * 40 {
            if k % period == period - 1 {
                let flight = st.cwnd.floor();
                cc.on_triple_dupack(&mut st, flight, Time::ZERO);
                cc.on_recovery_exit(&mut st, Time::ZERO);
            } else {
                cc.on_ack(&mut st, &ack, Time::ZERO);
            }
            if k >= period * 10 {
                n += 1;
                rtts += 1.0 / st.cwnd;
            }
        }
        n as f64 / rtts
    }

    #[test]
    fn test_mean_window_follows_the_response_function() {
        for p in [1e-3, 1e-4, 1e-5] {
            let (got, want) = (mean_window(p), response(p));
            println!("p = {p:e}: mean window {got:.0}, response function {want:.0}");
            assert!((got / want - 1.0).abs() < 0.07, "p = {p}: {got} vs {want}");
        }
    }

    #[test]
    fn test_standard_tcp_up_to_low_window() {
        let ack = AckSample { bytes: 1000, segments: 1.0, rtt: None };
        let mut a = CcState { cwnd: 1.0, ssthresh: 20.0, mss: 1000, dupack_threshold: 3 };
        let mut b = a.clone();
        for k in 0..400 {
            if k % 97 == 96 {
                let f = a.cwnd.floor();
                HighSpeed.on_triple_dupack(&mut a, f, Time::ZERO);
                NewReno.on_triple_dupack(&mut b, f, Time::ZERO);
            } else {
                HighSpeed.on_ack(&mut a, &ack, Time::ZERO);
                NewReno.on_ack(&mut b, &ack, Time::ZERO);
            }
            assert!(a.cwnd <= LOW_WINDOW);
            assert_eq!(a, b);
        }
        // Above Low_Window a loss takes less than half.
        assert_eq!(HighSpeed.ssthresh_on_loss(&a, 1529.0), (1529.0 * (1.0 - decrease(1529.0))).floor());
        assert!(HighSpeed.ssthresh_on_loss(&a, 1529.0) > 1000.0);
    }
}
