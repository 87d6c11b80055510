use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn t_quantile_known_values() {
    for (df, want) in [
        (1, 12.706),
        (2, 4.303),
        (4, 2.776),
        (9, 2.262),
        (10, 2.228),
        (29, 2.045),
        (30, 2.042),
        (40, 2.021),
        (60, 2.000),
        (120, 1.98),
        (u64::MAX, 1.96),
    ] {
        let got = t_quantile_975(df);
        assert!(close(got, want, 1e-3), "df={df}: {got} vs {want}");
    }
    assert!(t_quantile_975(0).is_nan());
}

#[test]
fn t_quantile_asymptotic_branch_is_accurate() {
    // Reference values computed to 17 digits from the t CDF (incomplete
    // beta function), independent of the expansion.
    for (df, want) in [
        (31, 2.039_513_446_396_409),
        (40, 2.021_075_390_306_273),
        (60, 2.000_297_822_014_26),
        (120, 1.979_930_405_082_441),
        (1000, 1.962_339_080_826_409),
    ] {
        let got = t_quantile_975(df);
        assert!(close(got, want, 1e-7), "df={df}: {got} vs {want}");
    }
    // Continuous with the table and decreasing throughout.
    assert!(t_quantile_975(31) < t_quantile_975(30));
    let mut prev = f64::INFINITY;
    for df in 1..2000 {
        let t = t_quantile_975(df);
        assert!(t < prev && t > Z_975, "df={df}");
        prev = t;
    }
}

#[test]
fn summary_basic_moments() {
    let xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
    let s = Summary::from_slice(&xs);
    assert_eq!(s.count(), 8);
    assert!(close(s.mean(), 5.0, 1e-15));
    assert!(close(s.sum(), 40.0, 1e-15));
    assert_eq!(s.min(), 2.0);
    assert_eq!(s.max(), 9.0);
    assert!(close(s.population_variance(), 4.0, 1e-14));
    assert!(close(s.variance(), 32.0 / 7.0, 1e-14));
    assert!(close(s.std_dev(), (32.0f64 / 7.0).sqrt(), 1e-14));
    let hw = t_quantile_975(7) * (32.0f64 / 7.0).sqrt() / 8f64.sqrt();
    assert!(close(s.ci95_half_width(), hw, 1e-12));
    let (m, h) = mean_ci95(&xs);
    assert!(close(m, 5.0, 1e-15) && close(h, hw, 1e-12));
}

#[test]
fn summary_ci_hand_computed() {
    // 10, 12, 14: mean 12, s = 2, t(0.975; 2) = 4.3027, hw = 4.3027·2/√3.
    let (m, h) = mean_ci95(&[10.0, 12.0, 14.0]);
    assert!(close(m, 12.0, 1e-12));
    assert!(close(h, 4.968_26, 1e-4), "{h}");
}

#[test]
fn summary_empty_and_single() {
    let e = Summary::new();
    assert!(e.is_empty());
    assert!(e.mean().is_nan() && e.min().is_nan() && e.max().is_nan());
    assert!(e.std_dev().is_nan() && e.ci95_half_width().is_nan());
    let v = e.values();
    assert_eq!((v.count, v.mean, v.std_dev, v.min), (0, None, None, None));
    let (m, h) = mean_ci95(&[]);
    assert!(m.is_nan() && h.is_nan());

    let mut one = Summary::new();
    one.record(3.5);
    assert_eq!(one.mean(), 3.5);
    assert_eq!((one.min(), one.max()), (3.5, 3.5));
    assert!(one.variance().is_nan() && one.ci95_half_width().is_nan());
    assert_eq!(one.population_variance(), 0.0);
    let v = one.values();
    assert_eq!((v.mean, v.ci95_half_width), (Some(3.5), None));
}

#[test]
fn summary_is_numerically_stable() {
    // Large offset, small spread: the naive formula loses every digit.
    let base = 1e9;
    let s: Summary = [4.0, 7.0, 13.0, 16.0].iter().map(|x| base + x).collect();
    assert!(close(s.variance(), 30.0, 1e-6), "{}", s.variance());
    assert!(close(s.mean(), base + 10.0, 1e-6));
}

#[test]
fn summary_merge_equals_single_pass() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let xs: Vec<f64> = (0..1000).map(|_| rng.gen_range(-5.0..50.0)).collect();
    let whole = Summary::from_slice(&xs);
    for split in [0, 1, 17, 500, 999, 1000] {
        let mut a = Summary::from_slice(&xs[..split]);
        let b = Summary::from_slice(&xs[split..]);
        a.merge(&b);
        assert_eq!(a.count(), whole.count());
        assert!(close(a.mean(), whole.mean(), 1e-12));
        assert!(close(a.variance(), whole.variance(), 1e-9));
        assert!(close(a.sum(), whole.sum(), 1e-9));
        assert_eq!((a.min(), a.max()), (whole.min(), whole.max()));
    }
}

#[test]
fn summary_serialises_its_values() {
    let s = Summary::from_slice(&[1.0, 3.0]);
    let j = serde_json::to_value(s).unwrap();
    assert_eq!(j["count"], 2);
    assert_eq!(j["mean"], 2.0);
    assert_eq!(j["min"], 1.0);
    assert_eq!(j["max"], 3.0);
    assert_eq!(j["sum"], 4.0);
    let j = serde_json::to_value(Summary::new()).unwrap();
    assert!(j["mean"].is_null() && j["ci95_half_width"].is_null());
    let back: SummaryValues = serde_json::from_str(&serde_json::to_string(&s.values()).unwrap()).unwrap();
    assert_eq!(back, s.values());
}

#[test]
fn nearest_rank_definition() {
    assert_eq!(nearest_rank(0.0, 10), 1);
    assert_eq!(nearest_rank(0.1, 10), 1);
    assert_eq!(nearest_rank(0.11, 10), 2);
    assert_eq!(nearest_rank(0.5, 10), 5);
    assert_eq!(nearest_rank(0.95, 100), 95);
    assert_eq!(nearest_rank(0.07, 100), 7);
    assert_eq!(nearest_rank(0.99, 1000), 990);
    assert_eq!(nearest_rank(1.0, 10), 10);
    assert_eq!(nearest_rank(2.0, 10), 10);
    assert_eq!(nearest_rank(0.5, 0), 0);
    assert_eq!(quantile_sorted(&[1, 2, 3, 4], 0.5), Some(2));
    assert_eq!(quantile_sorted(&[], 0.5), None);
}

#[test]
fn histogram_bucket_layout() {
    // Exact below 256, contiguous and monotone everywhere.
    for v in 0..256u64 {
        assert_eq!(Histogram::bucket_index(v), v as usize);
        assert_eq!(Histogram::bucket_range(v as usize), (v, v));
    }
    let mut expected_low = 0u64;
    for i in 0..HISTOGRAM_BUCKETS {
        let (lo, hi) = Histogram::bucket_range(i);
        assert_eq!(lo, expected_low, "bucket {i}");
        assert!(hi >= lo);
        assert_eq!(Histogram::bucket_index(lo), i);
        assert_eq!(Histogram::bucket_index(hi), i);
        // Width at most 1/128 of the lower bound.
        assert!(lo < 256 || (hi - lo + 1) as f64 <= lo as f64 / 128.0);
        expected_low = hi.wrapping_add(1);
    }
    assert_eq!(expected_low, 0, "last bucket ends at u64::MAX");
    assert_eq!(Histogram::bucket_index(u64::MAX), HISTOGRAM_BUCKETS - 1);
}

fn check_quantiles(values: &[u64]) {
    let mut h = Histogram::new();
    for &v in values {
        h.record(v);
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    for q in [0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1.0] {
        let exact = quantile_sorted(&sorted, q).unwrap();
        let got = h.quantile(q).unwrap();
        let err = (got as f64 - exact as f64).abs() / (exact as f64).max(1.0);
        assert!(err <= 1.0 / 256.0 + 1e-12, "q={q}: got {got}, exact {exact}, rel err {err}");
        assert!(err <= 0.01);
    }
    assert_eq!(h.count(), values.len() as u64);
    assert_eq!(h.min(), sorted.first().copied());
    assert_eq!(h.max(), sorted.last().copied());
    assert_eq!(h.quantile(0.0), sorted.first().copied());
    assert_eq!(h.quantile(1.0), sorted.last().copied());
}

#[test]
fn histogram_quantiles_match_exact_on_random_data() {
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    // Log-uniform over 1 ns .. ~1000 s: every bucket scale is exercised.
    let log_uniform: Vec<u64> = (0..50_000).map(|_| 10f64.powf(rng.gen_range(0.0..12.0)) as u64).collect();
    check_quantiles(&log_uniform);
    // Exponential delays with mean 2 ms, in ns.
    let expo: Vec<u64> = (0..50_000).map(|_| (-2e6 * (1.0 - rng.gen::<f64>()).ln()) as u64).collect();
    check_quantiles(&expo);
    // Narrow band around 10 ms: many values per bucket.
    let narrow: Vec<u64> = (0..20_000).map(|_| rng.gen_range(10_000_000..10_200_000)).collect();
    check_quantiles(&narrow);
    // Small values are exact.
    let small: Vec<u64> = (0..5_000).map(|_| rng.gen_range(0..256)).collect();
    check_quantiles(&small);
    // Full range, including the top bucket.
    let full: Vec<u64> = (0..10_000).map(|_| rng.gen::<u64>() >> rng.gen_range(0..64)).collect();
    check_quantiles(&full);
}

#[test]
fn histogram_small_counts_and_extremes() {
    let mut h = Histogram::new();
    assert_eq!(h.quantile(0.5), None);
    assert_eq!((h.min(), h.max(), h.mean()), (None, None, None));
    h.record(1_000_000);
    for q in [0.0, 0.5, 0.99, 1.0] {
        assert_eq!(h.quantile(q), Some(1_000_000));
    }
    h.record(u64::MAX);
    h.record(0);
    assert_eq!(h.quantile(0.0), Some(0));
    assert_eq!(h.quantile(0.5), Some(1_000_000 - 1_000_000 % 4096 + 2047));
    assert_eq!(h.quantile(1.0), Some(u64::MAX));
    assert_eq!(h.sum(), u64::MAX as u128 + 1_000_000);
}

#[test]
fn histogram_merge_and_clear() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let xs: Vec<u64> = (0..10_000).map(|_| rng.gen_range(0..1u64 << 40)).collect();
    let mut whole = Histogram::new();
    let mut a = Histogram::new();
    let mut b = Histogram::new();
    for (i, &x) in xs.iter().enumerate() {
        whole.record(x);
        if i % 3 == 0 {
            a.record(x)
        } else {
            b.record(x)
        }
    }
    a.merge(&b);
    assert_eq!(a, whole);
    a.merge(&Histogram::new());
    assert_eq!(a, whole);
    let mut c = Histogram::new();
    c.record_n(5, 3);
    c.record_n(7, 0);
    assert_eq!((c.count(), c.sum(), c.mean()), (3, 15, Some(5.0)));
    c.clear();
    assert_eq!(c, Histogram::new());
    let total: u64 = whole.buckets().map(|(_, _, n)| n).sum();
    assert_eq!(total, whole.count());
}

#[test]
fn histogram_summary_serialises() {
    let mut h = Histogram::new();
    for v in 1..=100u64 {
        h.record(v);
    }
    let s = h.summary();
    assert_eq!((s.count, s.min, s.max, s.p50, s.p95, s.p99), (100, Some(1), Some(100), Some(50), Some(95), Some(99)));
    assert_eq!(s.mean, Some(50.5));
    let j = serde_json::to_value(&h).unwrap();
    assert_eq!(j["p99"], 99);
    let j = serde_json::to_value(Histogram::new()).unwrap();
    assert!(j["p50"].is_null());
}

#[test]
fn jitter_hand_computed_from_delays() {
    // Delays 10, 12, 11, 15, 15: |D| = 2, 1, 4, 0.
    let mut j = Jitter::new();
    assert!(j.mean_abs_diff().is_nan());
    for d in [10.0, 12.0, 11.0, 15.0, 15.0] {
        j.record_delay(d);
    }
    assert_eq!(j.count(), 5);
    assert!(close(j.mean_abs_diff(), 7.0 / 4.0, 1e-15));
    // J: 0 → 2/16 = 0.125 → 0.125 + 0.875/16 = 0.1796875
    //   → 0.1796875 + 3.8203125/16 = 0.41845703125
    //   → 0.41845703125 · 15/16 = 0.392303466796875
    assert!(close(j.rfc3550(), 0.392_303_466_796_875, 1e-15));
}

#[test]
fn jitter_from_send_and_arrival_times() {
    // Irregular sending; transit times 5, 7, 4, 4 (ms).
    let pkts = [(0.0, 5.0), (20.0, 27.0), (25.0, 29.0), (60.0, 64.0)];
    let mut j = Jitter::new();
    for (s, r) in pkts {
        j.record(s, r);
    }
    // D = (27-5)-(20-0) = 2; (29-27)-(25-20) = -3; (64-29)-(60-25) = 0.
    assert!(close(j.mean_abs_diff(), 5.0 / 3.0, 1e-15));
    // J: 2/16 = 0.125; 0.125 + (3 - 0.125)/16 = 0.3046875; · 15/16.
    assert!(close(j.rfc3550(), 0.285_644_531_25, 1e-15));
    // Only the transit times matter.
    let mut k = Jitter::new();
    for d in [5.0, 7.0, 4.0, 4.0] {
        k.record_delay(d);
    }
    assert_eq!(j.values(), k.values());
}

#[test]
fn jitter_constant_delay_is_zero_and_converges() {
    let mut j = Jitter::new();
    for i in 0..100 {
        j.record(i as f64, i as f64 + 3.0);
    }
    assert_eq!((j.mean_abs_diff(), j.rfc3550()), (0.0, 0.0));
    // Alternating delays a, a+1: |D| = 1 always; J → 1.
    let mut j = Jitter::new();
    for i in 0..400 {
        j.record_delay((i % 2) as f64);
    }
    assert!(close(j.mean_abs_diff(), 1.0, 1e-15));
    assert!(close(j.rfc3550(), 1.0, 1e-9));
    let v = serde_json::to_value(Jitter::new()).unwrap();
    assert!(v["mean_abs_diff"].is_null());
    assert_eq!(v["rfc3550"], 0.0);
}
