//! The receiver's loss history: loss intervals and the average loss
//! interval of RFC 5348 §5.4, with optional history discounting (§5.5).
//!
//! Intervals are counted in packets (sequence numbers). `I_0` is the open
//! interval since the start of the most recent loss event; `I_1..I_n` are
//! the closed ones, newest first.

/// Most recent closed intervals kept (RFC 5348 recommends n = 8).
pub const N: usize = 8;

#[derive(Clone, Debug)]
pub struct LossHistory {
    weights: [f64; N],
    /// Closed intervals I_1..I_k, newest first.
    closed: [f64; N],
    k: usize,
    discounting: bool,
}

/// The RFC 5348 §5.4 weights for n = 8: w_i = 1 for i < n/2, else
/// 2 (n - i) / (n + 2): 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2.
pub fn weights() -> [f64; N] {
    let n = N as f64;
    let mut w = [0.0; N];
    for (i, wi) in w.iter_mut().enumerate() {
        *wi = if i < N / 2 { 1.0 } else { 2.0 * (n - i as f64) / (n + 2.0) };
    }
    w
}

impl LossHistory {
    pub fn new(discounting: bool) -> LossHistory {
        LossHistory { weights: weights(), closed: [0.0; N], k: 0, discounting }
    }

    /// Closes the current interval with length `len` packets (a new loss
    /// event started); the oldest beyond n is forgotten.
    pub fn push(&mut self, len: f64) {
        self.closed.copy_within(0..N - 1, 1);
        self.closed[0] = len;
        self.k = (self.k + 1).min(N);
    }

    /// Number of closed intervals held.
    pub fn len(&self) -> usize {
        self.k
    }
    pub fn is_empty(&self) -> bool {
        self.k == 0
    }

    /// The average loss interval given the open interval `i0` (packets),
    /// None before the first loss event. RFC 5348 §5.4:
    /// I_tot0 = sum_{i=0}^{k-1} I_i w_i, I_tot1 = sum_{i=1}^{k} I_i w_{i-1},
    /// I_mean = max(I_tot0, I_tot1) / sum_{i=0}^{k-1} w_i.
    ///
    /// With history discounting (§5.5), when I_0 exceeds twice the mean of
    /// the closed intervals, every closed interval's weight is multiplied by
    /// DF = max(0.5, 2 I_mean / I_0), so a long loss-free period raises the
    /// average faster; each sum is then divided by its own weight total.
    pub fn mean_interval(&self, i0: f64) -> Option<f64> {
        if self.k == 0 {
            return None;
        }
        let base = self.weighted(i0, 1.0);
        if !self.discounting {
            return Some(base);
        }
        let closed_mean = self.weighted_closed();
        if i0 > 2.0 * closed_mean {
            let df = (2.0 * closed_mean / i0).max(0.5);
            return Some(self.weighted(i0, df));
        }
        Some(base)
    }

    fn interval(&self, i: usize, i0: f64) -> f64 {
        if i == 0 {
            i0
        } else {
            self.closed[i - 1]
        }
    }

    fn weighted(&self, i0: f64, df: f64) -> f64 {
        let k = self.k;
        let (mut t0, mut w0, mut t1, mut w1) = (0.0, 0.0, 0.0, 0.0);
        for i in 0..k {
            let d = if i == 0 { 1.0 } else { df };
            t0 += self.interval(i, i0) * self.weights[i] * d;
            w0 += self.weights[i] * d;
        }
        for i in 1..=k {
            t1 += self.interval(i, i0) * self.weights[i - 1] * df;
            w1 += self.weights[i - 1] * df;
        }
        (t0 / w0).max(t1 / w1)
    }

    /// Weighted mean of the closed intervals only.
    fn weighted_closed(&self) -> f64 {
        let (mut t, mut w) = (0.0, 0.0);
        for i in 1..=self.k {
            t += self.interval(i, 0.0) * self.weights[i - 1];
            w += self.weights[i - 1];
        }
        t / w
    }

    /// The loss event rate p = 1 / I_mean (0 before any loss).
    pub fn loss_event_rate(&self, i0: f64) -> f64 {
        self.mean_interval(i0).map_or(0.0, |m| 1.0 / m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_weights() {
        assert_eq!(weights(), [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2]);
    }

    #[test]
    fn hand_computed_average() {
        // Closed intervals, newest first: 100, 80, 120, 90, 110, 70, 130, 60;
        // open interval I_0 = 50.
        let mut h = LossHistory::new(false);
        for len in [60.0, 130.0, 70.0, 110.0, 90.0, 120.0, 80.0, 100.0] {
            h.push(len);
        }
        assert_eq!(h.len(), 8);
        // W_tot = 6.0.
        // I_tot0 = 50 + 100 + 80 + 120 + 0.8*90 + 0.6*110 + 0.4*70 + 0.2*130
        //        = 350 + 72 + 66 + 28 + 26 = 542
        // I_tot1 = 100 + 80 + 120 + 90 + 0.8*110 + 0.6*70 + 0.4*130 + 0.2*60
        //        = 390 + 88 + 42 + 52 + 12 = 584
        // I_mean = 584 / 6 = 97.333..., p = 0.0102740
        let m = h.mean_interval(50.0).unwrap();
        assert!((m - 584.0 / 6.0).abs() < 1e-9, "{m}");
        // A long open interval counts: I_0 = 500 gives
        // I_tot0 = 542 - 50 + 500 = 992 > 584, I_mean = 165.333...
        assert!((h.mean_interval(500.0).unwrap() - 992.0 / 6.0).abs() < 1e-9);
        assert!((h.loss_event_rate(50.0) - 6.0 / 584.0).abs() < 1e-12);
        // A ninth interval pushes the oldest (60) out.
        h.push(40.0);
        // I_tot1 = 40+100+80+120 + 0.8*90+0.6*110+0.4*70+0.2*130 = 532
        // I_tot0 = 50+40+100+80 + 0.8*120+0.6*90+0.4*110+0.2*70 = 478
        assert!((h.mean_interval(50.0).unwrap() - 532.0 / 6.0).abs() < 1e-9);
    }

    #[test]
    fn fewer_than_eight_intervals() {
        // k = 2 closed (newest 10, then 30), I_0 = 20: weights w_0, w_1 = 1.
        // I_tot0 = 20 + 10 = 30; I_tot1 = 10 + 30 = 40; W_tot = 2; mean 20.
        let mut h = LossHistory::new(false);
        assert_eq!(h.mean_interval(5.0), None);
        assert_eq!(h.loss_event_rate(5.0), 0.0);
        h.push(30.0);
        h.push(10.0);
        assert!((h.mean_interval(20.0).unwrap() - 20.0).abs() < 1e-12);
    }

    #[test]
    fn history_discounting() {
        // Four closed intervals of 100, I_0 = 1000 (> 2 * 100): DF = 0.5.
        // Without: I_tot0 = 1000 + 300 = 1300, W = 4, mean 325.
        // With: I_tot0 = 1000 + 0.5 * 300 = 1150 over 1 + 0.5 * 3 = 2.5:
        // mean 460; I_tot1 = 0.5 * 400 / (0.5 * 4) = 100.
        let mut plain = LossHistory::new(false);
        let mut disc = LossHistory::new(true);
        for _ in 0..4 {
            plain.push(100.0);
            disc.push(100.0);
        }
        assert!((plain.mean_interval(1000.0).unwrap() - 325.0).abs() < 1e-9);
        assert!((disc.mean_interval(1000.0).unwrap() - 460.0).abs() < 1e-9);
        // DF = max(0.5, 2*100/300) = 2/3 for I_0 = 300:
        // (300 + 200) / (1 + 2) = 166.67 (vs 150 undiscounted).
        assert!((disc.mean_interval(300.0).unwrap() - 500.0 / 3.0).abs() < 1e-9);
        assert!((plain.mean_interval(300.0).unwrap() - 150.0).abs() < 1e-9);
        // No discounting while I_0 <= 2 * mean.
        assert_eq!(disc.mean_interval(150.0), plain.mean_interval(150.0));
    }
}
