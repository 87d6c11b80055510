//! Closed-form models of the IEEE 802.11 DCF, used by the test suite to
//! validate the simulated MAC.
//!
//! - [`dcf_single_station_throughput`]: one saturated station alone on the
//!   channel (no collisions), the deterministic DCF cycle;
//! - [`bianchi`]: G. Bianchi, "Performance analysis of the IEEE 802.11
//!   distributed coordination function", *IEEE Journal on Selected Areas in
//!   Communications* 18(3):535–547, March 2000 (doi:10.1109/49.840210):
//!   saturation throughput of n stations that all hear each other.
//!
//! All durations are in seconds and sizes in bits, as `f64`; throughputs
//! are in bit/s of payload. Callers compute frame durations themselves (from
//! the PHY preamble/header time, the MAC overhead and the rate), so each
//! test states exactly which durations it assumes.

use serde::Serialize;

// ---------------------------------------------------------------------------
// One saturated station
// ---------------------------------------------------------------------------

/// Durations of one DCF frame exchange, for [`dcf_single_station_throughput`].
///
/// Frame durations (`rts`, `cts`, `data`, `ack`) are complete air times,
/// PHY preamble and header included; `data` also includes the MAC header
/// and FCS around the `payload_bits`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DcfTimings {
    /// DIFS (s).
    pub difs: f64,
    /// SIFS (s).
    pub sifs: f64,
    /// Slot time (s).
    pub slot: f64,
    /// Minimum contention window CWmin, in slots (e.g. 31 for 802.11b DSSS,
    /// 15 for OFDM); the backoff is drawn uniformly from 0..=CWmin.
    pub cw_min: u32,
    /// RTS air time (s); ignored unless `use_rts`.
    pub rts: f64,
    /// CTS air time (s); ignored unless `use_rts`.
    pub cts: f64,
    /// DATA air time (s).
    pub data: f64,
    /// ACK air time (s).
    pub ack: f64,
    /// Whether each DATA frame is preceded by an RTS/CTS handshake.
    pub use_rts: bool,
    /// Application payload carried by one DATA frame (bits).
    pub payload_bits: f64,
    /// One-way propagation delay δ (s), added once per frame that the
    /// sender must wait for (ACK; and CTS with RTS/CTS): 2δ per cycle for
    /// basic access, 4δ with RTS/CTS, as in Bianchi's Tₛ. Use 0 for the
    /// textbook formula.
    pub prop_delay: f64,
}

impl DcfTimings {
    /// Mean backoff, CWmin/2 · slot: the mean of a uniform draw from
    /// 0..=CWmin slots (IEEE 802.11-2016 §10.3.3; the contention window is
    /// reset to CWmin after every success, so a lone station always draws
    /// from the initial window).
    pub fn mean_backoff(&self) -> f64 {
        f64::from(self.cw_min) / 2.0 * self.slot
    }

    /// Mean duration of one successful cycle:
    /// DIFS + mean backoff + \[RTS + SIFS + CTS + SIFS\] + DATA + SIFS + ACK,
    /// plus the propagation delays (see [`DcfTimings::prop_delay`]).
    pub fn cycle_time(&self) -> f64 {
        let handshake =
            if self.use_rts { self.rts + self.sifs + self.cts + self.sifs + 2.0 * self.prop_delay } else { 0.0 };
        self.difs + self.mean_backoff() + handshake + self.data + self.sifs + self.ack + 2.0 * self.prop_delay
    }
}

/// Saturation throughput (payload bit/s) of a single station that always
/// has a frame to send and never collides:
///
/// S = payload_bits / T, where the mean cycle time
/// T = DIFS + CWmin/2·slot + \[RTS + SIFS + CTS + SIFS\] + DATA + SIFS + ACK
///
/// (each cycle is DIFS, a fresh backoff, the exchange; see e.g. J. Jun,
/// P. Peddabachagari, M. Sichitiu, "Theoretical maximum throughput of IEEE
/// 802.11 and its applications", IEEE NCA 2003, which uses the same cycle
/// with the mean backoff). It equals [`bianchi`] with n = 1 and Bianchi's own
/// Tₛ ([`BianchiFrames`]), since then τ = 2/(W + 1) and the mean idle time
/// between transmissions is (1 − τ)/τ · σ = CWmin/2 · σ.
pub fn dcf_single_station_throughput(t: &DcfTimings) -> f64 {
    t.payload_bits / t.cycle_time()
}

// ---------------------------------------------------------------------------
// Bianchi's model
// ---------------------------------------------------------------------------

/// Bianchi's number of backoff stages m, with CWmax + 1 = 2^m·(CWmin + 1):
/// m = log₂((CWmax + 1)/(CWmin + 1)). E.g. 5 for 802.11b DSSS (31, 1023),
/// 6 for OFDM (15, 1023).
///
/// # Panics
/// If the ratio is not a power of two (the standard's windows always are).
pub fn backoff_stages(cw_min: u32, cw_max: u32) -> u32 {
    let lo = u64::from(cw_min) + 1;
    let hi = u64::from(cw_max) + 1;
    assert!(
        hi >= lo && hi % lo == 0 && (hi / lo).is_power_of_two(),
        "(CWmax+1)/(CWmin+1) must be a power of two: CWmin={cw_min}, CWmax={cw_max}"
    );
    (hi / lo).trailing_zeros()
}

/// Bianchi's transmission probability as a function of the conditional
/// collision probability p (Bianchi 2000, Sec. III-A):
///
/// τ(p) = 2(1 − 2p) / ((1 − 2p)(W + 1) + pW(1 − (2p)^m)),
///
/// with W = CWmin + 1 and m backoff stages. It is evaluated in the
/// algebraically equal form τ = 2 / (1 + W + pW·Σ_{i=0}^{m−1} (2p)^i)
/// (numerator and denominator divided by 1 − 2p, using
/// (1 − (2p)^m)/(1 − 2p) = Σ_{i=0}^{m−1} (2p)^i), which has no 0/0 at
/// p = ½.
pub fn bianchi_tau(p: f64, w: u32, m: u32) -> f64 {
    let w = f64::from(w);
    let two_p = 2.0 * p;
    let mut geometric = 0.0; // Σ_{i=0}^{m-1} (2p)^i
    let mut term = 1.0;
    for _ in 0..m {
        geometric += term;
        term *= two_p;
    }
    2.0 / (1.0 + w + p * w * geometric)
}

/// Solves Bianchi's fixed point for n saturated stations (Bianchi 2000,
/// Sec. III-A): τ = τ(p) ([`bianchi_tau`]) and p = 1 − (1 − τ)^(n−1).
/// Returns `(tau, p)`.
///
/// The solver bisects g(τ) = τ − τ(1 − (1 − τ)^(n−1)) on [0, 1] to machine
/// precision. g is strictly increasing (τ(p) decreases in p, p increases in
/// τ), g(0) = −2/(W + 1) < 0 and g(1) = 1 − 2/(1 + 2^m·W) ≥ 0, so the root
/// is unique and bisection cannot fail.
/// For n = 1, p = 0 and τ = 2/(W + 1).
///
/// `w` is W = CWmin + 1 and `m` the number of backoff stages
/// ([`backoff_stages`]).
///
/// # Panics
/// If `n` or `w` is 0.
pub fn bianchi_fixed_point(n: u32, w: u32, m: u32) -> (f64, f64) {
    assert!(n >= 1 && w >= 1, "bianchi_fixed_point: n={n}, W={w}");
    if n == 1 {
        return (bianchi_tau(0.0, w, m), 0.0);
    }
    let others = (n - 1) as i32;
    let p_of = |tau: f64| 1.0 - (1.0 - tau).powi(others);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..2000 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if mid - bianchi_tau(p_of(mid), w, m) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let tau = 0.5 * (lo + hi);
    (tau, p_of(tau))
}

/// Busy-channel durations of Bianchi's throughput formula (seconds): Tₛ for
/// a slot holding a successful transmission and T_c for one holding a
/// collision, both including the DIFS that follows.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BusyTimes {
    /// Tₛ (s).
    pub ts: f64,
    /// T_c (s).
    pub tc: f64,
}

/// Frame durations (seconds) from which [`BianchiFrames::basic`] and
/// [`BianchiFrames::rts_cts`] build Bianchi's Tₛ and T_c (Bianchi 2000,
/// Sec. III-B, with all packets of the same size, so that his E\[P\] and
/// E\[P*\] are both `payload`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BianchiFrames {
    /// H = PHY header + MAC header air time (s).
    pub header: f64,
    /// Payload air time E\[P\] (s).
    pub payload: f64,
    /// ACK air time, PHY header included (s).
    pub ack: f64,
    /// RTS air time, PHY header included (s).
    pub rts: f64,
    /// CTS air time, PHY header included (s).
    pub cts: f64,
    /// SIFS (s).
    pub sifs: f64,
    /// DIFS (s).
    pub difs: f64,
    /// Propagation delay δ (s).
    pub prop_delay: f64,
}

impl BianchiFrames {
    /// Basic access (Bianchi 2000, Sec. III-B):
    /// Tₛ = H + E\[P\] + SIFS + δ + ACK + DIFS + δ,
    /// T_c = H + E\[P*\] + DIFS + δ.
    pub fn basic(&self) -> BusyTimes {
        let d = self.prop_delay;
        BusyTimes {
            ts: self.header + self.payload + self.sifs + d + self.ack + self.difs + d,
            tc: self.header + self.payload + self.difs + d,
        }
    }

    /// RTS/CTS access (Bianchi 2000, Sec. III-B):
    /// Tₛ = RTS + SIFS + δ + CTS + SIFS + δ + H + E\[P\] + SIFS + δ + ACK + DIFS + δ,
    /// T_c = RTS + DIFS + δ.
    pub fn rts_cts(&self) -> BusyTimes {
        let d = self.prop_delay;
        BusyTimes {
            ts: self.rts
                + self.sifs
                + d
                + self.cts
                + self.sifs
                + d
                + self.header
                + self.payload
                + self.sifs
                + d
                + self.ack
                + self.difs
                + d,
            tc: self.rts + self.difs + d,
        }
    }
}

/// Inputs of [`bianchi`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BianchiParams {
    /// Number of saturated stations n (≥ 1).
    pub n: u32,
    /// W = CWmin + 1.
    pub w: u32,
    /// Number of backoff stages m (maximum window 2^m·W); see
    /// [`backoff_stages`].
    pub m: u32,
    /// Slot time σ (s).
    pub slot: f64,
    /// Payload per successful transmission E\[P\] (bits).
    pub payload_bits: f64,
    /// Busy periods Tₛ and T_c (s): from [`BianchiFrames`], or the caller's
    /// own.
    pub busy: BusyTimes,
}

impl BianchiParams {
    /// Parameters from the standard's contention windows:
    /// W = CWmin + 1 and m = [`backoff_stages`]`(cw_min, cw_max)`.
    pub fn from_cw(n: u32, cw_min: u32, cw_max: u32, slot: f64, payload_bits: f64, busy: BusyTimes) -> Self {
        BianchiParams { n, w: cw_min + 1, m: backoff_stages(cw_min, cw_max), slot, payload_bits, busy }
    }
}

/// Output of [`bianchi`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BianchiResult {
    /// Probability τ that a station transmits in a random slot.
    pub tau: f64,
    /// Conditional collision probability p of a transmitted frame.
    pub p: f64,
    /// P_tr = 1 − (1 − τ)^n: at least one transmission in a slot.
    pub p_tr: f64,
    /// Pₛ = nτ(1 − τ)^(n−1) / P_tr: a transmission is successful.
    pub p_s: f64,
    /// Saturation throughput S (payload bit/s, all stations together).
    pub throughput: f64,
}

impl BianchiResult {
    /// Throughput as a fraction of the channel bit rate (Bianchi's
    /// normalised S).
    pub fn normalized(&self, bitrate: f64) -> f64 {
        self.throughput / bitrate
    }
}

/// Bianchi's saturation throughput of n stations in one collision domain
/// (Bianchi 2000, Secs. III-A and III-B). Assumes an ideal channel, no
/// hidden terminals, no capture, every station always backlogged, and
/// unlimited retransmissions (the window stays at 2^m·W after m failures).
///
/// τ and p solve the fixed point of [`bianchi_fixed_point`]; then
///
/// S = Pₛ·P_tr·E\[P\] / ((1 − P_tr)·σ + P_tr·Pₛ·Tₛ + P_tr·(1 − Pₛ)·T_c),
///
/// with P_tr = 1 − (1 − τ)^n and Pₛ = nτ(1 − τ)^(n−1)/P_tr.
pub fn bianchi(params: &BianchiParams) -> BianchiResult {
    let (tau, p) = bianchi_fixed_point(params.n, params.w, params.m);
    let n = params.n as i32;
    let idle = (1.0 - tau).powi(n);
    let p_tr = 1.0 - idle;
    let p_s = f64::from(params.n) * tau * (1.0 - tau).powi(n - 1) / p_tr;
    let BusyTimes { ts, tc } = params.busy;
    let mean_slot = idle * params.slot + p_tr * p_s * ts + p_tr * (1.0 - p_s) * tc;
    BianchiResult { tau, p, p_tr, p_s, throughput: p_s * p_tr * params.payload_bits / mean_slot }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: f64 = 1e-6;

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    /// Bianchi 2000, Table II (FHSS): 1 Mbit/s, slot 50 µs, SIFS 28 µs,
    /// DIFS 128 µs, δ = 1 µs, payload 8184 bits, MAC header 272 bits, PHY
    /// header 128 bits, ACK 112 bits + PHY header, RTS 160 bits + PHY
    /// header, CTS 112 bits + PHY header. At 1 Mbit/s one bit takes 1 µs.
    fn fhss() -> BianchiFrames {
        BianchiFrames {
            header: (272.0 + 128.0) * US,
            payload: 8184.0 * US,
            ack: (112.0 + 128.0) * US,
            rts: (160.0 + 128.0) * US,
            cts: (112.0 + 128.0) * US,
            sifs: 28.0 * US,
            difs: 128.0 * US,
            prop_delay: 1.0 * US,
        }
    }
    const FHSS_SLOT: f64 = 50.0 * US;
    const FHSS_RATE: f64 = 1e6;

    fn fhss_params(n: u32, w: u32, m: u32, busy: BusyTimes) -> BianchiParams {
        BianchiParams { n, w, m, slot: FHSS_SLOT, payload_bits: 8184.0, busy }
    }

    #[test]
    fn single_station_hand_computed() {
        // 802.11b DSSS at 1 Mbit/s, long preamble (192 µs PLCP), 1000-byte
        // payload + 28 bytes MAC header/FCS, 14-byte ACK and CTS, 20-byte RTS.
        let mut t = DcfTimings {
            difs: 50.0 * US,
            sifs: 10.0 * US,
            slot: 20.0 * US,
            cw_min: 31,
            rts: (192.0 + 20.0 * 8.0) * US,
            cts: (192.0 + 14.0 * 8.0) * US,
            data: (192.0 + 1028.0 * 8.0) * US,
            ack: (192.0 + 14.0 * 8.0) * US,
            use_rts: false,
            payload_bits: 8000.0,
            prop_delay: 0.0,
        };
        // 50 + 15.5·20 + 8416 + 10 + 304 = 9090 µs.
        assert!((t.mean_backoff() - 310.0 * US).abs() < 1e-15);
        assert!((t.cycle_time() - 9090.0 * US).abs() < 1e-12);
        assert!(rel(dcf_single_station_throughput(&t), 8000.0 / 9090e-6) < 1e-12);
        // RTS/CTS adds 352 + 10 + 304 + 10 = 676 µs: 9766 µs.
        t.use_rts = true;
        assert!(rel(dcf_single_station_throughput(&t), 8000.0 / 9766e-6) < 1e-12);
        // Propagation delay: 4δ with RTS/CTS, 2δ without.
        t.prop_delay = 1.0 * US;
        assert!((t.cycle_time() - 9770.0 * US).abs() < 1e-12);
        t.use_rts = false;
        assert!((t.cycle_time() - 9092.0 * US).abs() < 1e-12);
    }

    #[test]
    fn backoff_stage_counts() {
        assert_eq!(backoff_stages(31, 1023), 5);
        assert_eq!(backoff_stages(15, 1023), 6);
        assert_eq!(backoff_stages(31, 255), 3);
        assert_eq!(backoff_stages(31, 31), 0);
        let p = BianchiParams::from_cw(10, 31, 1023, 20.0 * US, 8000.0, fhss().basic());
        assert_eq!((p.w, p.m), (32, 5));
    }

    #[test]
    #[should_panic(expected = "power of two")]
    fn backoff_stages_rejects_odd_windows() {
        backoff_stages(31, 1000);
    }

    #[test]
    fn bianchi_busy_times_for_fhss() {
        // Hand sums in µs.
        let b = fhss().basic();
        assert!((b.ts - 8982.0 * US).abs() < 1e-12); // 400+8184+28+1+240+128+1
        assert!((b.tc - 8713.0 * US).abs() < 1e-12); // 400+8184+128+1
        let r = fhss().rts_cts();
        // 288+28+1+240+28+1 + 400+8184+28+1+240+128+1
        assert!((r.ts - 9568.0 * US).abs() < 1e-12);
        assert!((r.tc - 417.0 * US).abs() < 1e-12); // 288+128+1
    }

    #[test]
    fn tau_closed_forms_agree() {
        // The sum form equals the paper's (1-2p) form away from p = 1/2 ...
        for &(w, m) in &[(32u32, 3u32), (32, 5), (128, 3), (16, 6), (8, 0)] {
            for i in 0..100 {
                let p = i as f64 / 100.0;
                if (p - 0.5).abs() < 1e-9 {
                    continue;
                }
                let wf = w as f64;
                let a = 1.0 - 2.0 * p;
                let paper = 2.0 * a / (a * (wf + 1.0) + p * wf * (1.0 - (2.0 * p).powi(m as i32)));
                assert!(rel(bianchi_tau(p, w, m), paper) < 1e-12, "W={w} m={m} p={p}");
            }
        }
        // ... and is continuous through it: the limit is 2/(1 + W + mW/2).
        assert!(rel(bianchi_tau(0.5, 32, 5), 2.0 / (1.0 + 32.0 + 5.0 * 16.0)) < 1e-15);
    }

    #[test]
    fn fixed_point_w32_m5_n10() {
        let (w, m, n) = (32u32, 5u32, 10u32);
        let (tau, p) = bianchi_fixed_point(n, w, m);
        // Both equations, in the paper's original form.
        assert!((p - (1.0 - (1.0 - tau).powi(9))).abs() < 1e-9);
        let wf = w as f64;
        let a = 1.0 - 2.0 * p;
        let rhs = 2.0 * a / (a * (wf + 1.0) + p * wf * (1.0 - (2.0 * p).powi(m as i32)));
        assert!((tau - rhs).abs() < 1e-9);
        // Independent 40-digit solution (bisection on p in the original form).
        assert!((tau - 0.037_305_079_954_568_14).abs() < 1e-12, "{tau}");
        assert!((p - 0.289_771_458_222_600_7).abs() < 1e-12, "{p}");
    }

    #[test]
    fn n1_equals_single_station() {
        let f = fhss();
        for (use_rts, busy) in [(false, f.basic()), (true, f.rts_cts())] {
            for (w, m) in [(32u32, 3u32), (128, 3), (16, 6)] {
                let r = bianchi(&fhss_params(1, w, m, busy));
                assert_eq!(r.p, 0.0);
                assert!((r.tau - 2.0 / (w as f64 + 1.0)).abs() < 1e-15);
                assert!((r.p_s - 1.0).abs() < 1e-12);
                let t = DcfTimings {
                    difs: f.difs,
                    sifs: f.sifs,
                    slot: FHSS_SLOT,
                    cw_min: w - 1,
                    rts: f.rts,
                    cts: f.cts,
                    data: f.header + f.payload,
                    ack: f.ack,
                    use_rts,
                    payload_bits: 8184.0,
                    prop_delay: f.prop_delay,
                };
                let single = dcf_single_station_throughput(&t);
                assert!(rel(r.throughput, single) < 1e-9, "rts={use_rts} W={w}: {} vs {single}", r.throughput);
                // T_c plays no part with one station.
                let mut odd = busy;
                odd.tc *= 7.0;
                let r2 = bianchi(&fhss_params(1, w, m, odd));
                assert!(rel(r2.throughput, single) < 1e-9);
            }
        }
    }

    #[test]
    fn fhss_reference_values() {
        // Normalised saturation throughput for Bianchi's FHSS parameters,
        // from an independent 40-digit implementation (mpmath; bisection on
        // p with the paper's (1-2p) form of tau). These are model values
        // computed for this test, not numbers transcribed from the paper.
        let basic = fhss().basic();
        let rts = fhss().rts_cts();
        #[rustfmt::skip]
        let table: [(u32, u32, u32, f64, f64, f64, f64); 12] = [
            // (W, m, n, tau, p, S basic, S rts/cts)
            (32, 3, 5, 0.048_164_011_897_304_1, 0.179_178_952_107_556, 0.809_723_085_275, 0.834_249_464_513),
            (32, 3, 10, 0.038_685_398_617_866_1, 0.298_884_046_023_807, 0.753_180_259_997, 0.837_112_389_515),
            (32, 3, 20, 0.029_111_982_717_491_1, 0.429_555_128_591_671, 0.678_795_158_815, 0.835_567_863_886),
            (32, 3, 50, 0.019_003_632_447_678_4, 0.609_426_688_185_526, 0.552_864_026_212, 0.827_022_770_363),
            (32, 5, 5, 0.047_846_439_200_983_9, 0.178_082_961_446_904, 0.810_153_330_113, 0.834_159_737_142),
            (32, 5, 10, 0.037_305_079_954_568_1, 0.289_771_458_222_601, 0.757_879_729_401, 0.836_998_631_447),
            (32, 5, 20, 0.026_422_876_561_448_8, 0.398_775_250_317_86, 0.697_548_059_404, 0.836_181_806_878),
            (32, 5, 50, 0.015_391_695_443_581_2, 0.532_360_456_063_373, 0.610_936_298_583, 0.831_694_435_719),
            (128, 3, 5, 0.014_574_260_968_088_6, 0.057_034_927_079_757, 0.825_024_251_567, 0.797_920_600_09),
            (128, 3, 10, 0.013_518_564_654_042_2, 0.115_291_398_139_785, 0.826_309_285_385, 0.821_724_730_586),
            (128, 3, 20, 0.011_799_798_677_185_8, 0.201_906_410_257_961, 0.798_105_184_121, 0.832_702_596_64),
            (128, 3, 50, 0.008_785_915_271_748_81, 0.351_058_179_218_606, 0.725_166_060_101, 0.836_324_727_561),
        ];
        for (w, m, n, tau, p, s_basic, s_rts) in table {
            let b = bianchi(&fhss_params(n, w, m, basic));
            let r = bianchi(&fhss_params(n, w, m, rts));
            assert!(rel(b.tau, tau) < 1e-12, "W={w} m={m} n={n}: tau {}", b.tau);
            assert!(rel(b.p, p) < 1e-12, "W={w} m={m} n={n}: p {}", b.p);
            assert_eq!((r.tau, r.p), (b.tau, b.p), "tau does not depend on access");
            let (sb, sr) = (b.normalized(FHSS_RATE), r.normalized(FHSS_RATE));
            assert!(rel(sb, s_basic) < 1e-10, "W={w} m={m} n={n}: basic {sb}");
            assert!(rel(sr, s_rts) < 1e-10, "W={w} m={m} n={n}: rts {sr}");
        }
    }

    #[test]
    fn qualitative_behaviour_in_n() {
        let basic = fhss().basic();
        let rts = fhss().rts_cts();
        for (w, m) in [(32u32, 3u32), (32, 5), (128, 3)] {
            let mut prev: Option<BianchiResult> = None;
            for n in 2..=100 {
                let r = bianchi(&fhss_params(n, w, m, basic));
                assert!(r.tau > 0.0 && r.tau < 1.0 && r.p > 0.0 && r.p < 1.0);
                assert!(r.p_s > 0.0 && r.p_s <= 1.0 && r.p_tr > 0.0 && r.p_tr < 1.0);
                if let Some(q) = prev {
                    assert!(r.tau < q.tau, "tau decreases with n (W={w} m={m} n={n})");
                    assert!(r.p > q.p, "p increases with n (W={w} m={m} n={n})");
                }
                prev = Some(r);
            }
        }
        // W = 32, m = 3: basic access peaks at n = 2 (a second station
        // shortens the idle backoff before collisions dominate), then loses
        // about a third of its throughput by n = 50, monotonically; RTS/CTS
        // stays within ~1.5 % over n = 5..50.
        let s = |n, busy| bianchi(&fhss_params(n, 32, 3, busy)).normalized(FHSS_RATE);
        assert!(s(2, basic) > s(1, basic));
        for n in 3..=50 {
            assert!(s(n, basic) < s(n - 1, basic), "basic falls at n={n}");
        }
        assert!(s(50, basic) < 0.7 * s(2, basic));
        let rts_all: Vec<f64> = (5..=50).map(|n| s(n, rts)).collect();
        let hi = rts_all.iter().cloned().fold(f64::MIN, f64::max);
        let lo = rts_all.iter().cloned().fold(f64::MAX, f64::min);
        assert!((hi - lo) / hi < 0.015, "rts spread {lo}..{hi}");
        for n in 5..=50 {
            assert!(s(n, rts) > s(n, basic), "RTS/CTS wins for long frames at n={n}");
        }
    }

    #[test]
    fn constant_window_has_closed_form() {
        // m = 0: tau = 2/(W+1) for every n.
        for n in [1, 2, 10, 40] {
            let (tau, p) = bianchi_fixed_point(n, 16, 0);
            assert!((tau - 2.0 / 17.0).abs() < 1e-15);
            assert!((p - (1.0 - (1.0 - tau).powi(n as i32 - 1))).abs() < 1e-15);
        }
    }
}
