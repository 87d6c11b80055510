//! Bit and frame error rates of the 802.11 DSSS/HR-DSSS and OFDM modes as
//! a function of the signal to interference-plus-noise ratio (SINR).
//!
//! These are textbook approximations, implemented here from the formulas
//! (see `docs/sinr.md` for the derivations and the SINR each mode needs):
//!
//! * every mode converts the SINR, measured over the channel bandwidth `B`
//!   (22 MHz DSSS, 20 MHz OFDM), into the energy per bit or per symbol over
//!   the noise density: Eb/N0 = SINR · B / Rb (processing gain of the
//!   spreading), Es/N0 = SINR · B · T / Nsc for an OFDM subcarrier;
//! * 1 Mbit/s DBPSK: BER = ½·exp(−Eb/N0) (differentially coherent BPSK);
//! * 2 Mbit/s DQPSK: Gray-coded QPSK, Q(√(2·Eb/N0)), with the 2.3 dB loss of
//!   differential detection;
//! * 5.5 and 11 Mbit/s CCK: union bound over the nearest code words,
//!   SER ≈ K · Q(√(d²min/(2N0))) with d²min = Es (5.5, K = 14 of the 16 code
//!   words at the minimum distance) and d²min = Es/2 (11, K = 24), bit errors
//!   = SER · (M/2)/(M−1);
//! * OFDM: uncoded BER of the subcarrier modulation (BPSK, QPSK, 16- and
//!   64-QAM, Gray), then the K = 7 convolutional code (rate 1/2 and its
//!   punctured 2/3 and 3/4 versions) with hard-decision Viterbi decoding:
//!   the union bound Σ_d c_d · P_d over the code's distance spectrum, P_d the
//!   exact probability that a weight-d error path wins.
//!
//! A frame of `n` bits at a constant SINR succeeds with probability
//! (1 − BER)ⁿ (independent bit errors).

use super::PhyStandard;

/// Bandwidth over which DSSS noise and SINR are measured, Hz.
pub const DSSS_BANDWIDTH_HZ: f64 = 22e6;
/// Bandwidth over which OFDM noise and SINR are measured, Hz.
pub const OFDM_BANDWIDTH_HZ: f64 = 20e6;
/// OFDM: 48 data + 4 pilot subcarriers carry energy, 4 us symbols.
const OFDM_SUBCARRIERS: f64 = 52.0;
const OFDM_SYMBOL_S: f64 = 4e-6;
/// Loss of differential against coherent QPSK detection, linear (2.3 dB).
const DQPSK_LOSS: f64 = 1.698_243_652_461_744;

/// Complementary error function, relative accuracy ~1e-12 over the range
/// used here (power series below 3, continued fraction above).
pub fn erfc(x: f64) -> f64 {
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < 3.0 {
        // erf(x) = 2/√π Σ (−1)^n x^(2n+1) / (n! (2n+1))
        let mut term = x;
        let mut sum = x;
        let x2 = x * x;
        let mut n = 0.0;
        while term.abs() > 1e-17 * sum.abs() {
            n += 1.0;
            term *= -x2 / n;
            sum += term / (2.0 * n + 1.0);
            if n > 200.0 {
                break;
            }
        }
        1.0 - sum * std::f64::consts::FRAC_2_SQRT_PI
    } else {
        // erfc(x) = exp(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))))
        // evaluated from the tail (60 levels is far more than enough for x ≥ 3).
        let mut f = x;
        for k in (1..=60).rev() {
            f = x + (k as f64 / 2.0) / f;
        }
        (-x * x).exp() / (std::f64::consts::PI.sqrt() * f)
    }
}

/// Gaussian tail probability Q(x) = P(N(0,1) > x).
pub fn q(x: f64) -> f64 {
    0.5 * erfc(x / std::f64::consts::SQRT_2)
}

/// Bit error rate of a DSSS/HR-DSSS rate at `sinr` (linear).
pub fn dsss_ber(rate_bps: u64, sinr: f64) -> f64 {
    let sinr = sinr.max(0.0);
    let ber = match rate_bps {
        1_000_000 => {
            let ebn0 = sinr * DSSS_BANDWIDTH_HZ / 1e6;
            0.5 * (-ebn0).exp()
        }
        2_000_000 => {
            let ebn0 = sinr * DSSS_BANDWIDTH_HZ / 2e6;
            q((2.0 * ebn0 / DQPSK_LOSS).sqrt())
        }
        5_500_000 => cck_ber(sinr, 16.0, 14.0, 1.0),
        11_000_000 => cck_ber(sinr, 256.0, 24.0, 0.5),
        r => panic!("no DSSS rate of {r} bit/s"),
    };
    ber.clamp(0.0, 0.5)
}

/// CCK at 1.375 Msymbol/s with `m` code words, `k` nearest neighbours at
/// squared distance `dmin_over_es` · Es.
fn cck_ber(sinr: f64, m: f64, k: f64, dmin_over_es: f64) -> f64 {
    let esn0 = sinr * DSSS_BANDWIDTH_HZ / 1.375e6;
    let ser = (k * q((dmin_over_es * esn0 / 2.0).sqrt())).min(1.0);
    ser * (m / 2.0) / (m - 1.0)
}

/// Subcarrier modulation and code rate of an OFDM rate.
fn ofdm_mode(rate_bps: u64) -> (u32, u32) {
    // (bits per subcarrier symbol, code: 2 = 1/2, 3 = 2/3, 4 = 3/4)
    match rate_bps {
        6_000_000 => (1, 2),
        9_000_000 => (1, 4),
        12_000_000 => (2, 2),
        18_000_000 => (2, 4),
        24_000_000 => (4, 2),
        36_000_000 => (4, 4),
        48_000_000 => (6, 3),
        54_000_000 => (6, 4),
        r => panic!("no OFDM rate of {r} bit/s"),
    }
}

/// Uncoded Gray-coded BER of BPSK/QPSK/M-QAM at Es/N0 `esn0`.
fn uncoded_ber(bits: u32, esn0: f64) -> f64 {
    match bits {
        1 => q((2.0 * esn0).sqrt()),
        2 => q(esn0.sqrt()),
        _ => {
            let m = (1u32 << bits) as f64;
            let per_axis = 1.0 - 1.0 / m.sqrt();
            (4.0 / bits as f64 * per_axis * q((3.0 * esn0 / (m - 1.0)).sqrt())).min(0.5)
        }
    }
}

/// Distance spectra (first free distance, bit-error weights c_d for
/// d = dfree, dfree+1, ...) of the 802.11a K = 7 code (133, 171 octal) and
/// its punctured rates, as tabulated in the coding literature (Frenger et al.,
/// IEEE Commun. Lett. 1999; Haccoun & Bégin, IEEE Trans. Commun. 1989).
/// Weights are per puncturing period; divided by the period's input bits.
fn spectrum(code: u32) -> (u32, &'static [f64], f64) {
    match code {
        2 => (10, &[36.0, 0.0, 211.0, 0.0, 1404.0, 0.0, 11633.0, 0.0, 77433.0, 0.0, 502690.0], 1.0),
        3 => (6, &[3.0, 70.0, 285.0, 1276.0, 6160.0, 27128.0, 117019.0, 498860.0], 2.0),
        _ => (5, &[42.0, 201.0, 1492.0, 10469.0, 62935.0, 379644.0, 2253373.0], 3.0),
    }
}

/// Probability that a wrong path at Hamming distance `d` beats the right
/// one in hard-decision decoding, with channel bit error rate `p`.
fn pairwise(d: u32, p: f64) -> f64 {
    let mut sum = 0.0;
    let mut binom = 1.0f64; // C(d, k), built up as k grows
    for k in 0..=d {
        if k > 0 {
            binom *= (d - k + 1) as f64 / k as f64;
        }
        let term = binom * p.powi(k as i32) * (1.0 - p).powi((d - k) as i32);
        if 2 * k > d {
            sum += term;
        } else if 2 * k == d {
            sum += 0.5 * term;
        }
    }
    sum
}

/// Decoded bit error rate of an OFDM rate at `sinr` (linear).
pub fn ofdm_ber(rate_bps: u64, sinr: f64) -> f64 {
    let (bits, code) = ofdm_mode(rate_bps);
    let esn0 = sinr.max(0.0) * OFDM_BANDWIDTH_HZ * OFDM_SYMBOL_S / OFDM_SUBCARRIERS;
    let p = uncoded_ber(bits, esn0);
    let (dfree, c, period) = spectrum(code);
    let mut pb = 0.0;
    for (i, cd) in c.iter().enumerate() {
        if *cd > 0.0 {
            pb += cd * pairwise(dfree + i as u32, p);
        }
    }
    (pb / period).min(0.5)
}

/// Bit error rate of `rate_bps` of `standard` at `sinr` (linear).
pub fn ber(standard: PhyStandard, rate_bps: u64, sinr: f64) -> f64 {
    match standard {
        PhyStandard::Dsss => dsss_ber(rate_bps, sinr),
        PhyStandard::Ofdm => ofdm_ber(rate_bps, sinr),
    }
}

/// Natural log of the probability that `bits` bits at `sinr` all decode.
pub fn log_success(standard: PhyStandard, rate_bps: u64, sinr: f64, bits: f64) -> f64 {
    let b = ber(standard, rate_bps, sinr);
    if b >= 0.5 {
        // A coin-flip channel: nothing useful decodes.
        return if bits > 0.0 { f64::NEG_INFINITY } else { 0.0 };
    }
    bits * (-b).ln_1p()
}

/// Probability that a `bytes`-byte frame at `rate_bps` decodes at a
/// constant `sinr` (linear), payload only.
pub fn frame_success(standard: PhyStandard, rate_bps: u64, sinr: f64, bytes: u32) -> f64 {
    log_success(standard, rate_bps, sinr, 8.0 * bytes as f64).exp()
}

/// The SINR (dB) at which a `bytes`-byte frame at `rate_bps` decodes with
/// probability `p` (bisection; the success rate is monotone in SINR).
pub fn sinr_db_for(standard: PhyStandard, rate_bps: u64, bytes: u32, p: f64) -> f64 {
    let (mut lo, mut hi) = (-20.0f64, 40.0f64);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if frame_success(standard, rate_bps, 10f64.powf(mid / 10.0), bytes) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::mode::{DSSS_RATES, OFDM_RATES};

    fn all_modes() -> Vec<(PhyStandard, u64)> {
        DSSS_RATES
            .iter()
            .map(|&r| (PhyStandard::Dsss, r))
            .chain(OFDM_RATES.iter().map(|&r| (PhyStandard::Ofdm, r)))
            .collect()
    }

    #[test]
    fn erfc_matches_known_values() {
        // Reference values: Abramowitz & Stegun table 7.1 / exact identities.
        assert!((erfc(0.0) - 1.0).abs() < 1e-15);
        assert!((erfc(1.0) - 0.157_299_207_050_285_1).abs() < 1e-13);
        assert!((erfc(2.0) - 0.004_677_734_981_047_266).abs() < 1e-14);
        assert!((erfc(3.0) / 2.209_049_699_858_544e-5 - 1.0).abs() < 1e-9);
        assert!((erfc(5.0) / 1.537_459_794_428_035e-12 - 1.0).abs() < 1e-9);
        assert!((erfc(-1.0) - 1.842_700_792_949_715).abs() < 1e-13);
        // Continuity across the switch at 3.
        assert!((erfc(2.999_999_999) / erfc(3.000_000_001) - 1.0).abs() < 1e-6);
        assert!((q(1.959_963_984_540_054) - 0.025).abs() < 1e-12);
    }

    #[test]
    fn success_rises_monotonically_with_sinr() {
        for (std, rate) in all_modes() {
            let mut last = 0.0;
            for i in -100..=400 {
                let sinr = 10f64.powf(i as f64 / 100.0);
                let p = frame_success(std, rate, sinr, 1500);
                assert!(p >= last, "{std:?} {rate}: {p} < {last} at {} dB", i as f64 / 10.0);
                assert!((0.0..=1.0).contains(&p));
                last = p;
            }
        }
    }

    #[test]
    fn success_is_one_at_high_sinr_and_zero_at_low() {
        for (std, rate) in all_modes() {
            // 40 dB: every mode decodes a maximum-size frame.
            let p = frame_success(std, rate, 1e4, 2304);
            assert!(p > 1.0 - 1e-12, "{std:?} {rate}: {p}");
            // 0 dB (equal-power interferer) and worse: a data frame is lost
            // in every mode except the most robust two spread-spectrum rates.
            let p0 = frame_success(std, rate, 1.0, 1500);
            if !(std == PhyStandard::Dsss && rate <= 2_000_000) {
                assert!(p0 < 1e-3, "{std:?} {rate}: {p0} at 0 dB");
            }
            assert!(frame_success(std, rate, 0.1, 1500) < 1e-3, "{std:?} {rate} at -10 dB");
        }
    }

    #[test]
    fn faster_modes_need_more_sinr() {
        // The SINR for 90% success of a 1000-byte frame grows with the rate
        // within each standard.
        for rates in [&DSSS_RATES[..], &OFDM_RATES[..]] {
            let std = if rates.len() == 4 { PhyStandard::Dsss } else { PhyStandard::Ofdm };
            let need: Vec<f64> = rates.iter().map(|&r| sinr_db_for(std, r, 1000, 0.9)).collect();
            for w in need.windows(2) {
                assert!(w[1] > w[0], "{std:?}: {need:?}");
            }
        }
    }

    #[test]
    fn thresholds_fall_where_receivers_need_them() {
        // SINR for 92% success of 1024-byte frames (the sensitivity criterion
        // of IEEE 802.11 clauses 16-17). Bands: DSSS 1 Mbit/s about -3 dB
        // to 11 Mbit/s about 7 dB (Orinoco/Prism datasheets: sensitivities
        // -94/-91/-87/-82 dBm over a ~-93 dBm noise floor); OFDM 6 Mbit/s
        // about 2-6 dB up to 54 Mbit/s about 20-26 dB.
        let d = |r| sinr_db_for(PhyStandard::Dsss, r, 1024, 0.92);
        let o = |r| sinr_db_for(PhyStandard::Ofdm, r, 1024, 0.92);
        let bands = [
            (d(1_000_000), -5.0, -1.0),
            (d(2_000_000), -1.0, 3.0),
            (d(5_500_000), 2.0, 6.0),
            (d(11_000_000), 5.0, 10.0),
            (o(6_000_000), 1.0, 7.0),
            (o(54_000_000), 18.0, 27.0),
        ];
        for (i, (v, lo, hi)) in bands.iter().enumerate() {
            assert!(v >= lo && v <= hi, "mode {i}: {v:.2} dB outside [{lo}, {hi}]");
        }
    }
}
