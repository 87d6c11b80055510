//! Statistical tests of the fading and shadowing draws (fixed seeds).

use super::*;
use crate::phy::{Channel, PhyMode, Propagation, RadioConfig};

/// Kolmogorov-Smirnov distance of `xs` from the CDF `f`.
fn ks(mut xs: Vec<f64>, f: impl Fn(f64) -> f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len() as f64;
    xs.iter()
        .enumerate()
        .map(|(i, &x)| {
            let c = f(x);
            (c - i as f64 / n).abs().max((c - (i + 1) as f64 / n).abs())
        })
        .fold(0.0, f64::max)
}

#[test]
fn nakagami_m1_power_is_exponential_through_the_channel() {
    // Free space, no shadowing, Nakagami m = 1 (Rayleigh): the received
    // power over its mean must be Exp(1).
    let radio = RadioConfig {
        propagation: Propagation::FreeSpace,
        fading: FadingConfig { nakagami_m: Some(1.0), ..FadingConfig::default() },
        ..RadioConfig::default()
    };
    let pos = vec![Position::new(0.0, 0.0), Position::new(20.0, 0.0)];
    let mut ch = Channel::build(&radio, &PhyMode::default(), 7, pos, Vec::new());
    let mean = ch.power_between(0, 1, Time::ZERO);
    let mut out = Vec::new();
    let mut g = Vec::new();
    for _ in 0..20_000 {
        ch.hearers(0, Time::ZERO, &mut out);
        // 20 m in free space is far above the cull level; a deep fade can
        // still drop a frame below it (P = 1 - exp(-cull/mean), tiny).
        if let Some(h) = out.first() {
            g.push(h.power / mean);
        }
    }
    assert!(g.len() > 19_990);
    let n = g.len() as f64;
    let m = g.iter().sum::<f64>() / n;
    let var = g.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n;
    let d = ks(g, |x| 1.0 - (-x).exp());
    eprintln!("m=1: mean {m:.4}, variance {var:.4}, KS distance {d:.4} (5 % critical {:.4})", 1.36 / n.sqrt());
    assert!((m - 1.0).abs() < 0.03, "mean {m}");
    assert!((var - 1.0).abs() < 0.08, "variance {var}");
    assert!(d < 1.36 / n.sqrt(), "KS distance {d} from Exp(1)");
}

#[test]
fn gamma_draws_have_mean_one_and_variance_one_over_m() {
    for (m, seed) in [(0.5, 1), (1.0, 2), (3.0, 3), (10.0, 4)] {
        let mut rng = RngStream::new(seed, 0, Purpose::Fading, 0);
        let g: Vec<f64> = (0..40_000).map(|_| gamma(&mut rng, m) / m).collect();
        let n = g.len() as f64;
        let mean = g.iter().sum::<f64>() / n;
        let var = g.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        assert!((mean - 1.0).abs() < 0.03, "m {m}: mean {mean}");
        assert!((var * m - 1.0).abs() < 0.08, "m {m}: variance {var} vs {}", 1.0 / m);
    }
}

fn correlated(d_corr: f64, tc: Option<f64>) -> Fading {
    let cfg = FadingConfig {
        nakagami_m: None,
        shadowing: ShadowingProcess::Correlated { decorrelation_m: d_corr, coherence_s: tc },
    };
    Fading::new(&cfg, 6.0, 11, 2)
}

fn draw(f: &mut Fading, at: Time, p0: Position) -> f64 {
    let mut out = vec![Hearer { node: 1, power: 1.0, delay: Time::ZERO }];
    f.apply(0, at, |n| if n == 0 { p0 } else { Position::new(1000.0, 0.0) }, &mut out, 0.0);
    10.0 * out[0].power.log10()
}

#[test]
fn correlated_shadowing_autocorrelation_is_exponential_in_distance_moved() {
    // Node 0 walks 1 m between frames; d_corr = 20 m, sigma = 6 dB.
    let mut f = correlated(20.0, None);
    let s: Vec<f64> = (0..200_000).map(|k| draw(&mut f, Time::from_ms(k), Position::new(k as f64, 0.0))).collect();
    let n = s.len() as f64;
    let mean = s.iter().sum::<f64>() / n;
    let var = s.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    assert!((var.sqrt() - 6.0).abs() < 0.3, "sigma {}", var.sqrt());
    for lag in [5usize, 10, 20, 40] {
        let c = s.windows(lag + 1).map(|w| (w[0] - mean) * (w[lag] - mean)).sum::<f64>() / (s.len() - lag) as f64 / var;
        let want = (-(lag as f64) / 20.0).exp();
        eprintln!("lag {lag} m: autocorrelation {c:.3}, exp(-d/d_corr) {want:.3}");
        assert!((c - want).abs() < 0.05, "lag {lag}: {c} vs {want}");
    }
    // The same link seen from the other end has the same value.
    assert_eq!(f.link_shadow_db(1, 0), f.link_shadow_db(0, 1));
}

#[test]
fn correlated_shadowing_of_a_static_link_is_fixed_unless_time_decorrelates_it() {
    let p = Position::new(0.0, 0.0);
    let mut f = correlated(20.0, None);
    let first = draw(&mut f, Time::ZERO, p);
    for k in 1..100 {
        assert_eq!(draw(&mut f, Time::from_secs(k), p), first);
    }
    // With a 1 s coherence time, values 0.1 s apart correlate at ~0.905.
    let mut f = correlated(20.0, Some(1.0));
    let s: Vec<f64> = (0..100_000).map(|k| draw(&mut f, Time::from_ms(100 * k), p)).collect();
    let n = s.len() as f64;
    let mean = s.iter().sum::<f64>() / n;
    let var = s.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    let c = s.windows(2).map(|w| (w[0] - mean) * (w[1] - mean)).sum::<f64>() / (n - 1.0) / var;
    assert!((c - (-0.1f64).exp()).abs() < 0.02, "lag 0.1 s: {c}");
}
