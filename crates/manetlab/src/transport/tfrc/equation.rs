//! The TCP throughput equation of RFC 5348 §3.1 and its inverse.

/// Allowed rate in bytes per second for packets of `s` bytes, round-trip
/// time `r` seconds and loss event rate `p` (0 < p <= 1), with b = 1 packet
/// acknowledged per ACK and t_RTO = 4R:
///
/// X = s / (R sqrt(2bp/3) + t_RTO (3 sqrt(3bp/8)) p (1 + 32 p^2))
pub fn throughput(s: f64, r: f64, p: f64) -> f64 {
    let b = 1.0;
    let t_rto = 4.0 * r;
    let denom = r * (2.0 * b * p / 3.0).sqrt() + t_rto * (3.0 * (3.0 * b * p / 8.0).sqrt()) * p * (1.0 + 32.0 * p * p);
    s / denom
}

/// The loss event rate at which [`throughput`] equals `x` (bytes/s): the
/// inverse used to seed the first loss interval (RFC 5348 §6.3.1).
/// Bisection on log p over [1e-10, 1]; the equation decreases in p.
pub fn loss_rate_for(s: f64, r: f64, x: f64) -> f64 {
    if x <= throughput(s, r, 1.0) {
        return 1.0;
    }
    let (mut lo, mut hi) = ((1e-10f64).ln(), 0.0f64);
    if x >= throughput(s, r, lo.exp()) {
        return lo.exp();
    }
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if throughput(s, r, mid.exp()) > x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (0.5 * (lo + hi)).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_values() {
        // s = 1000 B, R = 100 ms, p = 1 %:
        // sqrt(2*0.01/3) = 0.0816497, times R = 0.00816497;
        // 3*sqrt(0.03/8) = 0.1837117, times p = 0.00183712, times
        // (1 + 32e-4) = 0.00184300, times t_RTO = 0.4 s = 0.00073720;
        // X = 1000 / 0.00890217 = 112332 B/s.
        let x = throughput(1000.0, 0.1, 0.01);
        assert!((x - 112_332.0).abs() < 2.0, "{x}");
        // p = 10 %, R = 200 ms: 0.2*0.2581989 = 0.0516398;
        // 3*sqrt(0.0375) = 0.5809475, *0.1 = 0.0580948, *(1.32) = 0.0766851,
        // *0.8 = 0.0613481; X = 1460 / 0.1129879 = 12921.8 B/s.
        let x = throughput(1460.0, 0.2, 0.1);
        assert!((x - 12_921.8).abs() < 0.5, "{x}");
        // Small p: the first term dominates, X ~ s / (R sqrt(2p/3)).
        let x = throughput(1000.0, 0.05, 1e-6);
        let approx = 1000.0 / (0.05 * (2e-6f64 / 3.0).sqrt());
        assert!((x / approx - 1.0).abs() < 0.01);
    }

    #[test]
    fn inverse() {
        for &(r, p) in &[(0.1, 0.01), (0.02, 1e-4), (1.0, 0.3)] {
            let x = throughput(1000.0, r, p);
            let q = loss_rate_for(1000.0, r, x);
            assert!((q / p - 1.0).abs() < 1e-6, "{p} {q}");
        }
        assert_eq!(loss_rate_for(1000.0, 0.1, 1.0), 1.0);
    }
}
