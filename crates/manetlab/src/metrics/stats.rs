//! Allocation-light statistics for per-flow metrics and parameter sweeps.
//!
//! - [`Summary`]: streaming count, mean, variance, min, max and sum
//!   (Welford's update), with a Student-t 95 % confidence interval;
//! - [`Histogram`]: a fixed-size log-linear histogram of `u64` values (for
//!   example delays in nanoseconds) whose quantiles are within 2⁻⁸ ≈ 0.4 %
//!   relative error;
//! - [`Jitter`]: the mean absolute delay variation and RFC 3550's
//!   interarrival jitter.
//!
//! Nothing here allocates after construction (a [`Histogram`] allocates its
//! bucket array once, when created). Each type has a plain, serialisable
//! "values" struct ([`SummaryValues`], [`HistogramSummary`], [`JitterValues`])
//! for JSON or CSV output; undefined values (the mean of nothing, the spread
//! of a single sample) are `None` there and serialise as `null`.

use serde::{Deserialize, Serialize, Serializer};

// ---------------------------------------------------------------------------
// Student's t quantile
// ---------------------------------------------------------------------------

/// The standard normal 0.975 quantile, z = Φ⁻¹(0.975) = √2·erf⁻¹(0.95).
pub const Z_975: f64 = 1.959_963_984_540_054;

/// t(0.975; df) for df = 1..=30, to 1e-12 (index 0 is df = 1).
///
/// Computed from the regularised incomplete beta function,
/// F(t; ν) = 1 − ½·I_{ν/(ν+t²)}(ν/2, ½), solved for F = 0.975 with 30-digit
/// arithmetic; they agree with the usual printed tables (e.g. the NIST/SEMATECH
/// e-Handbook of Statistical Methods, "Critical values of the Student's t
/// distribution") to every printed digit.
const T_975_TABLE: [f64; 30] = [
    12.706_204_736_174_705,
    4.302_652_729_749_464,
    3.182_446_305_283_71,
    2.776_445_105_197_794,
    2.570_581_835_636_316,
    2.446_911_851_144_97,
    2.364_624_251_592_785,
    2.306_004_135_204_167,
    2.262_157_162_798_206,
    2.228_138_851_986_275,
    2.200_985_160_091_64,
    2.178_812_829_667_229,
    2.160_368_656_462_793,
    2.144_786_687_917_804,
    2.131_449_545_559_776,
    2.119_905_299_221_255,
    2.109_815_577_833_317,
    2.100_922_040_241_039,
    2.093_024_054_408_31,
    2.085_963_447_265_865,
    2.079_613_844_727_68,
    2.073_873_067_904_026,
    2.068_657_610_419_049,
    2.063_898_561_628_026,
    2.059_538_552_753_298,
    2.055_529_438_642_873,
    2.051_830_516_480_286,
    2.048_407_141_795_245,
    2.045_229_642_132_704,
    2.042_272_456_301_238,
];

/// The 0.975 quantile of Student's t distribution with `df` degrees of
/// freedom: the multiplier of the standard error in a two-sided 95 %
/// confidence interval for a mean estimated from `df + 1` samples.
///
/// - `df` in 1..=30: a table of exact values (12 significant digits or more).
/// - `df` > 30: the Cornish–Fisher expansion of the t quantile in powers of
///   1/ν (Abramowitz & Stegun, *Handbook of Mathematical Functions*, 1964,
///   eq. 26.7.5), taken to the 1/ν⁴ term:
///   t = z + g₁(z)/ν + g₂(z)/ν² + g₃(z)/ν³ + g₄(z)/ν⁴ with z = [`Z_975`],
///   g₁ = (z³ + z)/4,
///   g₂ = (5z⁵ + 16z³ + 3z)/96,
///   g₃ = (3z⁷ + 19z⁵ + 17z³ − 15z)/384,
///   g₄ = (79z⁹ + 776z⁷ + 1482z⁵ − 1920z³ − 945z)/92160.
///   Its error is below 3e-8 at ν = 31 and falls as ν grows; `u64::MAX`
///   stands for ν = ∞ and gives z.
/// - `df` = 0: NaN (no interval can be formed from one sample).
pub fn t_quantile_975(df: u64) -> f64 {
    match df {
        0 => f64::NAN,
        1..=30 => T_975_TABLE[(df - 1) as usize],
        _ => {
            let z = Z_975;
            let z2 = z * z;
            let z3 = z2 * z;
            let z5 = z3 * z2;
            let z7 = z5 * z2;
            let z9 = z7 * z2;
            let g1 = (z3 + z) / 4.0;
            let g2 = (5.0 * z5 + 16.0 * z3 + 3.0 * z) / 96.0;
            let g3 = (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / 384.0;
            let g4 = (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z) / 92160.0;
            let v = 1.0 / df as f64;
            // Horner form of z + g1 v + g2 v² + g3 v³ + g4 v⁴.
            z + v * (g1 + v * (g2 + v * (g3 + v * g4)))
        }
    }
}

// ---------------------------------------------------------------------------
// Summary
// ---------------------------------------------------------------------------

/// Streaming summary of `f64` samples: count, mean, variance, min, max, sum.
///
/// Mean and variance use Welford's single-pass update (B. P. Welford, "Note
/// on a method for calculating corrected sums of squares and products",
/// *Technometrics* 4(3), 1962; see also Knuth, *TAOCP* vol. 2, §4.2.2), which
/// does not suffer the cancellation of the textbook Σx² − n·x̄² formula.
/// [`Summary::merge`] combines two summaries with the pairwise update of
/// Chan, Golub & LeVeque ("Algorithms for computing the sample variance",
/// *The American Statistician* 37(3), 1983), so per-run summaries can be
/// pooled without keeping the samples.
///
/// Undefined results are NaN: `mean`, `min` and `max` of an empty summary;
/// `variance`, `std_dev`, `std_err` and `ci95_half_width` of fewer than two
/// samples. [`Summary::values`] turns them into `None`.
///
/// Recording NaN is a caller bug (caught by a debug assertion); it would
/// poison every statistic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    count: u64,
    mean: f64,
    /// Sum of squared deviations from the running mean (Welford's M₂).
    m2: f64,
    min: f64,
    max: f64,
    sum: f64,
}

impl Default for Summary {
    fn default() -> Self {
        Summary::new()
    }
}

impl Summary {
    /// An empty summary.
    pub const fn new() -> Self {
        Summary { count: 0, mean: 0.0, m2: 0.0, min: f64::INFINITY, max: f64::NEG_INFINITY, sum: 0.0 }
    }

    /// Summary of a slice of samples.
    pub fn from_slice(samples: &[f64]) -> Self {
        let mut s = Summary::new();
        for &x in samples {
            s.record(x);
        }
        s
    }

    /// Adds one sample (Welford: δ = x − x̄; x̄ += δ/n; M₂ += δ·(x − x̄)).
    pub fn record(&mut self, x: f64) {
        debug_assert!(!x.is_nan(), "Summary::record(NaN)");
        self.count += 1;
        let delta = x - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (x - self.mean);
        self.sum += x;
        if x < self.min {
            self.min = x;
        }
        if x > self.max {
            self.max = x;
        }
    }

    /// Pools `other` into `self`, as if every sample of `other` had been
    /// recorded here (Chan et al.: with δ = x̄_b − x̄_a and n = n_a + n_b,
    /// x̄ = x̄_a + δ·n_b/n and M₂ = M₂_a + M₂_b + δ²·n_a·n_b/n).
    pub fn merge(&mut self, other: &Summary) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = *other;
            return;
        }
        let na = self.count as f64;
        let nb = other.count as f64;
        let n = na + nb;
        let delta = other.mean - self.mean;
        self.mean += delta * nb / n;
        self.m2 += other.m2 + delta * delta * na * nb / n;
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Whether no sample was recorded.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Arithmetic mean; NaN if empty.
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.mean
        }
    }

    /// Sum of the samples (0 if empty).
    pub fn sum(&self) -> f64 {
        self.sum
    }

    /// Smallest sample; NaN if empty.
    pub fn min(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.min
        }
    }

    /// Largest sample; NaN if empty.
    pub fn max(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.max
        }
    }

    /// Sample (unbiased) variance M₂/(n − 1); NaN if n < 2.
    pub fn variance(&self) -> f64 {
        if self.count < 2 {
            f64::NAN
        } else {
            self.m2 / (self.count - 1) as f64
        }
    }

    /// Population variance M₂/n; NaN if empty.
    pub fn population_variance(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.m2 / self.count as f64
        }
    }

    /// Sample standard deviation s = √(M₂/(n − 1)); NaN if n < 2.
    pub fn std_dev(&self) -> f64 {
        self.variance().sqrt()
    }

    /// Standard error of the mean, s/√n; NaN if n < 2.
    pub fn std_err(&self) -> f64 {
        self.std_dev() / (self.count as f64).sqrt()
    }

    /// Half-width of the two-sided 95 % confidence interval of the mean,
    /// t(0.975; n − 1)·s/√n (Student's t interval, which assumes roughly
    /// normal, independent samples, e.g. the means of independent
    /// replications); NaN if n < 2. See [`t_quantile_975`].
    pub fn ci95_half_width(&self) -> f64 {
        if self.count < 2 {
            f64::NAN
        } else {
            t_quantile_975(self.count - 1) * self.std_err()
        }
    }

    /// The summary's values as a plain serialisable struct.
    pub fn values(&self) -> SummaryValues {
        SummaryValues {
            count: self.count,
            mean: finite(self.mean()),
            std_dev: finite(self.std_dev()),
            ci95_half_width: finite(self.ci95_half_width()),
            min: finite(self.min()),
            max: finite(self.max()),
            sum: self.sum,
        }
    }
}

impl Extend<f64> for Summary {
    fn extend<I: IntoIterator<Item = f64>>(&mut self, iter: I) {
        for x in iter {
            self.record(x);
        }
    }
}

impl FromIterator<f64> for Summary {
    fn from_iter<I: IntoIterator<Item = f64>>(iter: I) -> Self {
        let mut s = Summary::new();
        s.extend(iter);
        s
    }
}

/// Serialises as its [`SummaryValues`].
impl Serialize for Summary {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.values().serialize(serializer)
    }
}

/// The values of a [`Summary`], for JSON/CSV output. `None` marks a value
/// that is undefined for this many samples.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SummaryValues {
    pub count: u64,
    pub mean: Option<f64>,
    /// Sample standard deviation (n − 1 denominator).
    pub std_dev: Option<f64>,
    /// Half-width of the Student-t 95 % confidence interval of the mean.
    pub ci95_half_width: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub sum: f64,
}

fn finite(x: f64) -> Option<f64> {
    if x.is_nan() {
        None
    } else {
        Some(x)
    }
}

/// Mean and 95 % confidence half-width (Student's t, n − 1 degrees of
/// freedom) of `samples`: `(mean, half_width)`, the interval being
/// mean ± half_width. The mean is NaN for no samples and the half-width NaN
/// for fewer than two.
pub fn mean_ci95(samples: &[f64]) -> (f64, f64) {
    let s = Summary::from_slice(samples);
    (s.mean(), s.ci95_half_width())
}

// ---------------------------------------------------------------------------
// Quantile helpers
// ---------------------------------------------------------------------------

/// The 1-based nearest rank of quantile `q` among `n` ordered samples:
/// ⌈q·n⌉ clamped to 1..=n (the "nearest-rank" definition, Hyndman & Fan
/// 1996 type 1: the smallest sample at or below which at least a fraction q
/// of the samples lie). `q` is clamped to [0, 1]. A few ulps of tolerance keep
/// products such as 0.07 × 100 = 7.000000000000001 from rounding up to the
/// next rank. Returns 0 only for `n == 0`.
pub fn nearest_rank(q: f64, n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let q = if q.is_nan() { 0.5 } else { q.clamp(0.0, 1.0) };
    let r = q * n as f64;
    let r = r - r * (4.0 * f64::EPSILON);
    (r.ceil() as u64).clamp(1, n)
}

/// Exact nearest-rank quantile (see [`nearest_rank`]) of an ascending slice;
/// `None` if it is empty. Histogram quantiles use the same definition, so
/// the two agree up to the histogram's bucket resolution.
pub fn quantile_sorted(sorted: &[u64], q: f64) -> Option<u64> {
    debug_assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
    let rank = nearest_rank(q, sorted.len() as u64);
    if rank == 0 {
        None
    } else {
        Some(sorted[(rank - 1) as usize])
    }
}

// ---------------------------------------------------------------------------
// Histogram
// ---------------------------------------------------------------------------

/// log₂ of the number of sub-buckets per power-of-two range.
pub const HISTOGRAM_SUB_BITS: u32 = 7;
const SUB_COUNT: usize = 1 << HISTOGRAM_SUB_BITS;
/// Number of buckets: values below 2⁸ each have their own bucket (256), and
/// each of the 56 ranges [2^e, 2^(e+1)) for e = 8..=63 has 128 buckets.
pub const HISTOGRAM_BUCKETS: usize = (65 - HISTOGRAM_SUB_BITS as usize) * SUB_COUNT;

/// A fixed-size log-linear histogram of `u64` values (for example delays in
/// nanoseconds), covering 0..=u64::MAX.
///
/// The layout is that of HdrHistogram (G. Tene, "HdrHistogram: a High
/// Dynamic Range Histogram", <http://hdrhistogram.org>) with 2⁷ = 128
/// sub-buckets per power of two: values below 256 are counted exactly; a
/// value v in [2^e, 2^(e+1)), e ≥ 8, falls in a bucket of width 2^(e−7), so
/// a bucket is at most 1/128 of its lower bound wide. Quantiles are reported
/// as the bucket's midpoint, clamped to the exact [min, max], and so are
/// within 2⁻⁸ ≈ 0.39 % of the true order statistic.
///
/// Count, min, max and sum (hence the mean) are exact. The bucket array
/// (7424 `u64`s, 58 KiB) is allocated once in [`Histogram::new`]; recording,
/// merging and querying never allocate.
#[derive(Clone, PartialEq, Eq)]
pub struct Histogram {
    counts: Box<[u64; HISTOGRAM_BUCKETS]>,
    count: u64,
    min: u64,
    max: u64,
    sum: u128,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new()
    }
}

impl std::fmt::Debug for Histogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Histogram")
            .field("count", &self.count)
            .field("min", &self.min())
            .field("max", &self.max())
            .field("p50", &self.quantile(0.5))
            .finish_non_exhaustive()
    }
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Self {
        // Built through a Vec so the 58 KiB array never sits on the stack.
        let counts: Box<[u64; HISTOGRAM_BUCKETS]> =
            vec![0u64; HISTOGRAM_BUCKETS].into_boxed_slice().try_into().expect("length is HISTOGRAM_BUCKETS");
        Histogram { counts, count: 0, min: u64::MAX, max: 0, sum: 0 }
    }

    /// Index of the bucket holding `v`.
    #[inline]
    fn bucket_index(v: u64) -> usize {
        let msb = 63 - (v | 1).leading_zeros(); // position of the top set bit
        if msb <= HISTOGRAM_SUB_BITS {
            // v < 2^(SUB_BITS+1): one bucket per value.
            v as usize
        } else {
            let shift = msb - HISTOGRAM_SUB_BITS;
            // mantissa in [2^SUB_BITS, 2^(SUB_BITS+1))
            let mantissa = (v >> shift) as usize;
            ((shift as usize) << HISTOGRAM_SUB_BITS) + mantissa
        }
    }

    /// The inclusive value range `(low, high)` of bucket `index`.
    #[inline]
    fn bucket_range(index: usize) -> (u64, u64) {
        if index < 2 * SUB_COUNT {
            (index as u64, index as u64)
        } else {
            let shift = (index >> HISTOGRAM_SUB_BITS) as u32 - 1;
            let mantissa = ((index & (SUB_COUNT - 1)) | SUB_COUNT) as u64;
            let low = mantissa << shift;
            (low, low + ((1u64 << shift) - 1))
        }
    }

    /// Records one occurrence of `value`.
    #[inline]
    pub fn record(&mut self, value: u64) {
        self.record_n(value, 1);
    }

    /// Records `n` occurrences of `value`.
    pub fn record_n(&mut self, value: u64, n: u64) {
        if n == 0 {
            return;
        }
        self.counts[Self::bucket_index(value)] += n;
        self.count += n;
        self.sum += value as u128 * n as u128;
        self.min = self.min.min(value);
        self.max = self.max.max(value);
    }

    /// Adds every value recorded in `other` to `self`.
    pub fn merge(&mut self, other: &Histogram) {
        if other.count == 0 {
            return;
        }
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += *b;
        }
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Forgets every recorded value.
    pub fn clear(&mut self) {
        self.counts.fill(0);
        self.count = 0;
        self.min = u64::MAX;
        self.max = 0;
        self.sum = 0;
    }

    /// Number of recorded values.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Exact smallest recorded value.
    pub fn min(&self) -> Option<u64> {
        (self.count > 0).then_some(self.min)
    }

    /// Exact largest recorded value.
    pub fn max(&self) -> Option<u64> {
        (self.count > 0).then_some(self.max)
    }

    /// Exact sum of the recorded values.
    pub fn sum(&self) -> u128 {
        self.sum
    }

    /// Exact mean of the recorded values (up to f64 rounding).
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum as f64 / self.count as f64)
    }

    /// The nearest-rank `q`-quantile (see [`nearest_rank`]; `q` in [0, 1],
    /// e.g. 0.5, 0.95, 0.99), within 2⁻⁸ relative error of the exact order
    /// statistic. `q = 0` and `q = 1` give the exact min and max. `None` if
    /// empty.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        let rank = nearest_rank(q, self.count);
        if rank == 1 {
            return Some(self.min);
        }
        if rank == self.count {
            return Some(self.max);
        }
        let mut seen = 0u64;
        for (index, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (low, high) = Self::bucket_range(index);
                let mid = low + (high - low) / 2;
                return Some(mid.clamp(self.min, self.max));
            }
        }
        unreachable!("bucket counts sum to self.count")
    }

    /// The non-empty buckets in ascending order, as
    /// `(lowest value, highest value, count)`, e.g. to export a CDF.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(i, &c)| {
            let (low, high) = Self::bucket_range(i);
            (low, high, c)
        })
    }

    /// The non-empty buckets merged to a coarser resolution of
    /// 2^`sub_bits` buckets per power of two (`sub_bits` ≤ 7; values below
    /// 2^(`sub_bits`+1) keep one bucket each), ascending, as
    /// `(lowest value, highest value, count)`. Coarse buckets are unions of
    /// whole fine buckets, so counts are exact. For export: 16 buckets per
    /// octave (`sub_bits` = 4, ≤ 6.25 % wide) keep a delay histogram to a
    /// few dozen bins.
    pub fn coarse_buckets(&self, sub_bits: u32) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        let sub_bits = sub_bits.min(HISTOGRAM_SUB_BITS);
        let range = move |v: u64| -> (u64, u64) {
            let msb = 63 - (v | 1).leading_zeros();
            if msb <= sub_bits {
                (v, v)
            } else {
                let shift = msb - sub_bits;
                let low = (v >> shift) << shift;
                (low, low + ((1u64 << shift) - 1))
            }
        };
        let mut fine = self.buckets().peekable();
        std::iter::from_fn(move || {
            let (lo, _, mut count) = fine.next()?;
            let (clo, chi) = range(lo);
            while let Some(&(l, _, c)) = fine.peek() {
                if l > chi {
                    break;
                }
                count += c;
                fine.next();
            }
            Some((clo, chi, count))
        })
    }

    /// Count, min, max, mean, p50, p95 and p99 as a serialisable struct.
    pub fn summary(&self) -> HistogramSummary {
        HistogramSummary {
            count: self.count,
            min: self.min(),
            max: self.max(),
            mean: self.mean(),
            p50: self.quantile(0.5),
            p95: self.quantile(0.95),
            p99: self.quantile(0.99),
        }
    }
}

/// Serialises as its [`HistogramSummary`] (the buckets are not written).
impl Serialize for Histogram {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.summary().serialize(serializer)
    }
}

/// The headline values of a [`Histogram`], for JSON/CSV output; all but
/// `count` are `None` when it is empty.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistogramSummary {
    pub count: u64,
    pub min: Option<u64>,
    pub max: Option<u64>,
    pub mean: Option<f64>,
    pub p50: Option<u64>,
    pub p95: Option<u64>,
    pub p99: Option<u64>,
}

// ---------------------------------------------------------------------------
// Jitter
// ---------------------------------------------------------------------------

/// Delay-variation estimators over a packet sequence, fed with each
/// packet's send and arrival times in the order the packets arrive.
///
/// For consecutive packets i−1 and i, RFC 3550 (RTP, §6.4.1) defines
/// D(i−1, i) = (Rᵢ − Rᵢ₋₁) − (Sᵢ − Sᵢ₋₁) = (Rᵢ − Sᵢ) − (Rᵢ₋₁ − Sᵢ₋₁),
/// the change in one-way transit time, with R the arrival and S the send
/// time. Two estimators are kept:
///
/// - [`Jitter::mean_abs_diff`]: the plain mean of |D| over all n − 1
///   consecutive pairs, i.e. the mean absolute difference of consecutive
///   one-way delays (the "IPDV" style of RFC 3393 / RFC 5481 with
///   consecutive selection, averaged);
/// - [`Jitter::rfc3550`]: the interarrival jitter of RFC 3550 §6.4.1, the
///   exponentially smoothed J ← J + (|D(i−1, i)| − J)/16, starting from
///   J = 0 and updated from the second packet on. Unlike the RTP reference
///   code (RFC 3550 Appendix A.8) this keeps J in floating point rather
///   than in scaled integer timestamp units.
///
/// Times may be in any unit (seconds, nanoseconds, …) as long as they are
/// consistent; results are in the same unit.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Jitter {
    count: u64,
    prev_send: f64,
    prev_arrival: f64,
    abs_diff_sum: f64,
    jitter: f64,
}

impl Jitter {
    /// No packets yet.
    pub const fn new() -> Self {
        Jitter { count: 0, prev_send: 0.0, prev_arrival: 0.0, abs_diff_sum: 0.0, jitter: 0.0 }
    }

    /// Records a packet sent at `send` and received at `arrival`.
    pub fn record(&mut self, send: f64, arrival: f64) {
        if self.count > 0 {
            // RFC 3550 §6.4.1: D(i-1,i) = (R_i - R_{i-1}) - (S_i - S_{i-1}).
            let d = ((arrival - self.prev_arrival) - (send - self.prev_send)).abs();
            self.abs_diff_sum += d;
            self.jitter += (d - self.jitter) / 16.0;
        }
        self.prev_send = send;
        self.prev_arrival = arrival;
        self.count += 1;
    }

    /// Records a packet by its one-way delay (transit time) alone; the same
    /// as `record(0.0, delay)`, since D depends only on transit times.
    pub fn record_delay(&mut self, delay: f64) {
        self.record(0.0, delay);
    }

    /// Number of packets recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Mean of |D(i−1, i)| over the n − 1 consecutive pairs; NaN for fewer
    /// than two packets.
    pub fn mean_abs_diff(&self) -> f64 {
        if self.count < 2 {
            f64::NAN
        } else {
            self.abs_diff_sum / (self.count - 1) as f64
        }
    }

    /// RFC 3550 interarrival jitter J after the last packet (0 until two
    /// packets have been recorded, as the RFC initialises J to 0).
    pub fn rfc3550(&self) -> f64 {
        self.jitter
    }

    /// Both estimators as a serialisable struct.
    pub fn values(&self) -> JitterValues {
        JitterValues { count: self.count, mean_abs_diff: finite(self.mean_abs_diff()), rfc3550: self.jitter }
    }
}

/// Serialises as its [`JitterValues`].
impl Serialize for Jitter {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.values().serialize(serializer)
    }
}

/// The values of a [`Jitter`], for JSON/CSV output.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JitterValues {
    pub count: u64,
    /// Mean absolute difference of consecutive delays; `None` below two
    /// packets.
    pub mean_abs_diff: Option<f64>,
    /// RFC 3550 interarrival jitter.
    pub rfc3550: f64,
}

#[cfg(test)]
mod tests;
