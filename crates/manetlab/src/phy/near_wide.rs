//! The neighbour lists' per-frame pass under two-ray ground in SIMD lanes
//! (`FrameAt::fill_two_ray`: SSE2, two lanes; `FrameAt::fill_two_ray_avx2`:
//! AVX2, four; `FrameAt::fill_two_ray_wide`: AVX-512, eight; `near.rs`'s
//! `Pass` picks one), each lane making the scalar `FrameAt::fill`'s
//! operations in its order (same bits; see `near.rs`). Proptest:
//! `phy::channel::tests::fused::fused_search_is_the_search_then_the_sort`
//! runs every pass the processor has on the same frames.

use super::super::{Hearer, NowLeg};
use super::{fresh_now, position_on_leg, Emit, FrameAt, Lanes, DELAY_SHIFT, HEARS_BIT, NODE_SHIFT};
use crate::mobility::Mover;
use crate::phy::propagation::RxPowerAt;
use crate::phy::SPEED_OF_LIGHT;
use crate::sim::NodeId;
use crate::sim::Time;
use std::cell::RefCell;
use std::mem::MaybeUninit;

/// Per 8-bit mask of lanes, the count of set bits below each lane, one
/// byte a lane (`FrameAt::fill_two_ray_wide`: a hearer's place in `out`).
const PREFIX: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut l = 0;
        while l < 8 {
            t[m] |= ((m & ((1 << l) - 1)).count_ones() as u64) << (8 * l);
            l += 1;
        }
        m += 1;
    }
    t
};

// A leg's size and fields in f64s from its start: the gathers' stride and
// offsets in the AVX-512 and AVX2 passes (`NowLeg` is `repr(C)`).
const _: () = assert!(std::mem::size_of::<NowLeg>().is_multiple_of(8));
const LEG_WORDS: i32 = (std::mem::size_of::<NowLeg>() / 8) as i32;
/// `start`, `end`, `from.x`, `from.y`, `from.z`, `vx`, `vy`, in f64s.
const LEG_AT: [usize; 7] = {
    use std::mem::offset_of;
    [
        offset_of!(NowLeg, start) / 8,
        offset_of!(NowLeg, end) / 8,
        offset_of!(NowLeg, from.x) / 8,
        offset_of!(NowLeg, from.y) / 8,
        offset_of!(NowLeg, from.z) / 8,
        offset_of!(NowLeg, vx) / 8,
        offset_of!(NowLeg, vy) / 8,
    ]
};

/// A `Hearer`'s size and where its fields lie (`fill_two_ray_wide` writes
/// the power and the delay from the two halves of one register).
const HEARER: usize = std::mem::size_of::<Hearer>();
const HEARER_POWER: usize = std::mem::offset_of!(Hearer, power);
const HEARER_NODE: usize = std::mem::offset_of!(Hearer, node);
const _: () = assert!(
    std::mem::offset_of!(Hearer, delay) == HEARER_POWER + 8
        && std::mem::size_of::<Time>() == 8
        && HEARER_POWER.is_multiple_of(8)
);

impl FrameAt<'_> {
    /// [`FrameAt::fill`] under two-ray ground, two entries at a time in
    /// SSE2's two lanes (x86-64's baseline). Every lane makes the scalar
    /// path's operations in its order (IEEE 754 operations round each lane
    /// as the scalar instruction does; `maxpd` returns its second operand
    /// for a NaN, 1e-3, as `f64::max`), so the same bits: the position
    /// (`from + v * dt`, `dt` converted per lane), the squared distance,
    /// its square root, two-ray ground's `two_ray / ((d'^2)^2 L)` with
    /// `d' = max(d, 1e-3)` or, below the crossover distance, Friis'
    /// `num / (((k d') d') L)` (`RxPowerAt::friis_terms`; the lane's
    /// numerator and denominator picked, then one division), the delay
    /// `d / c * 1e9` rounded as `secs_to_time` (truncated through i32
    /// below 2^31 ns: the same integer part), the two tests. A pair with
    /// an entry at another height, or whose delay is out of that range
    /// takes the scalar path (`one`) from its squared distances.
    #[cfg(target_arch = "x86_64")]
    #[inline(never)]
    pub(super) fn fill_two_ray(
        &self,
        nodes: &[NodeId],
        keys: &mut [u64],
        out: &mut [MaybeUninit<Hearer>],
        movers: &mut [RefCell<Mover>],
        now_legs: &mut [NowLeg],
        level: &RxPowerAt,
    ) -> (usize, bool) {
        use std::arch::x86_64::*;
        let FrameAt { p, now, reach_sq, cull, .. } = *self;
        let (crossover, two_ray, loss) = level.two_ray_terms();
        let (friis_num, friis_k) = level.friis_terms();
        let scalar = |d: f64| level.two_ray_power(d);
        let mut e = Emit { k: 0, prev: 0, sorted: true };
        let n = nodes.len().min(keys.len());
        let (pairs, keys_pairs) = (nodes[..n].chunks_exact(2), keys[..n].chunks_exact_mut(2));
        let tail = pairs.remainder().first().copied();
        // SAFETY: the intrinsics below are SSE2 instructions, which every
        // x86-64 processor has (the target's baseline); they touch no
        // memory but their registers.
        unsafe {
            // (splat constants; `_mm_set_pd(hi, lo)`: lane 0 is the first entry)
            let (px, py, pz) = (_mm_set1_pd(p.x), _mm_set1_pd(p.y), _mm_set1_pd(p.z));
            let (e9, c, half) = (_mm_set1_pd(1e9), _mm_set1_pd(SPEED_OF_LIGHT), _mm_set1_pd(0.5));
            let (min_d, cross, two_ray, loss) =
                (_mm_set1_pd(1e-3), _mm_set1_pd(crossover), _mm_set1_pd(two_ray), _mm_set1_pd(loss));
            let (friis_num, friis_k) = (_mm_set1_pd(friis_num), _mm_set1_pd(friis_k));
            // Per lane `if m { b } else { a }` (`m` all ones or all zeros).
            let pick = |m: __m128d, a: __m128d, b: __m128d| _mm_or_pd(_mm_and_pd(m, b), _mm_andnot_pd(m, a));
            let (reach, cull_v, zero, top) =
                (_mm_set1_pd(reach_sq), _mm_set1_pd(cull), _mm_setzero_pd(), _mm_set1_pd(2_147_483_648.0));
            let hi = |v: __m128d| _mm_cvtsd_f64(_mm_unpackhi_pd(v, v));
            for (two, ks) in pairs.zip(keys_pairs) {
                let (na, nb) = (two[0], two[1]);
                fresh_now(movers, now_legs, na, now);
                fresh_now(movers, now_legs, nb, now);
                let (a, b) = (&now_legs[na as usize], &now_legs[nb as usize]);
                // `(now - start) as i64 as f64 / 1e9` per lane
                let ta = (now.0 - a.start.0) as i64 as f64;
                let tb = (now.0 - b.start.0) as i64 as f64;
                let dt = _mm_div_pd(_mm_set_pd(tb, ta), e9);
                let qx = _mm_add_pd(_mm_set_pd(b.from.x, a.from.x), _mm_mul_pd(_mm_set_pd(b.vx, a.vx), dt));
                let qy = _mm_add_pd(_mm_set_pd(b.from.y, a.from.y), _mm_mul_pd(_mm_set_pd(b.vy, a.vy), dt));
                let dx = _mm_sub_pd(px, qx);
                let dy = _mm_sub_pd(py, qy);
                let dz = _mm_sub_pd(pz, _mm_set_pd(b.from.z, a.from.z));
                let d2 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(dx, dx), _mm_mul_pd(dy, dy)), _mm_mul_pd(dz, dz));
                let d = _mm_sqrt_pd(d2);
                let dm = _mm_max_pd(d, min_d);
                // two-ray ground's `two_ray / ((d'^2)^2 L)`, or below the
                // crossover Friis' `num / (((k d') d') L)`: one division
                // of the lane's numerator by its denominator
                let s = _mm_mul_pd(dm, dm);
                let lt = _mm_cmplt_pd(dm, cross);
                let den = pick(lt, _mm_mul_pd(s, s), _mm_mul_pd(_mm_mul_pd(friis_k, dm), dm));
                let pw = _mm_div_pd(pick(lt, two_ray, friis_num), _mm_mul_pd(den, loss));
                let x = _mm_mul_pd(_mm_div_pd(d, c), e9);
                let i = _mm_cvttpd_epi32(x);
                let up = _mm_movemask_pd(_mm_cmpge_pd(_mm_sub_pd(x, _mm_cvtepi32_pd(i)), half));
                let hears = _mm_movemask_pd(_mm_and_pd(_mm_cmpnlt_pd(reach, d2), _mm_cmpge_pd(pw, cull_v)));
                let out_of_range = _mm_or_pd(_mm_cmpngt_pd(x, zero), _mm_cmpnlt_pd(x, top));
                let bad = _mm_movemask_pd(out_of_range);
                let other_height = (a.from.z.to_bits() != p.z.to_bits()) | (b.from.z.to_bits() != p.z.to_bits());
                let [ka, kb] = ks else { unreachable!("chunks of two") };
                if bad == 0 && !other_height {
                    let ia = _mm_cvtsi128_si32(i) as u64;
                    let ib = _mm_cvtsi128_si32(_mm_srli_si128::<4>(i)) as u64;
                    e.entry(na, _mm_cvtsd_f64(pw), Time(ia + (up & 1) as u64), hears & 1 != 0, ka, out);
                    e.entry(nb, hi(pw), Time(ib + (up >> 1) as u64), hears & 2 != 0, kb, out);
                } else {
                    let (pa, da, ha) = self.one(_mm_cvtsd_f64(d2), a.from.z, &scalar);
                    e.entry(na, pa, da, ha, ka, out);
                    let (pb, db, hb) = self.one(hi(d2), b.from.z, &scalar);
                    e.entry(nb, pb, db, hb, kb, out);
                }
            }
        }
        if let Some(nl) = tail {
            let q = position_on_leg(movers, now_legs, nl, now);
            let (dx, dy, dz) = (p.x - q.x, p.y - q.y, p.z - q.z);
            let (power, delay, hears) = self.one(dx * dx + dy * dy + dz * dz, q.z, &scalar);
            e.entry(nl, power, delay, hears, &mut keys[n - 1], out);
        }
        (e.k, e.sorted)
    }

    /// [`FrameAt::fill_two_ray`] eight entries at a time in AVX-512's
    /// lanes (the caller checked the features: `NearLists::wide`). Every
    /// lane makes the scalar path's operations in its order, each rounded
    /// as the scalar instruction rounds it (IEEE 754; no fused
    /// multiply-add), so the same bits: the legs' fields gathered per lane
    /// (`NowLeg` is `repr(C)`), the freshness test of every lane in one
    /// compare (stale lanes are made fresh by `fresh_now`, then gathered
    /// again), `dt` = `(now - start) as i64 as f64 / 1e9` (`vcvtqq2pd`
    /// rounds as `cvtsi2sd`), the position, the squared distance, its
    /// square root, two-ray ground's `two_ray / ((d'^2)^2 L)` with
    /// `d' = max(d, 1e-3)` (`vmaxpd` returns its second operand for a NaN,
    /// as `f64::max`) or, below the crossover distance, Friis'
    /// `num / (((k d') d') L)` (as `fill_two_ray`), the delay `d / c * 1e9`
    /// rounded as `secs_to_time` (truncated to i64 below 2^52 ns by
    /// `vcvttpd2qq`: the same integer part and fraction), the two tests. A
    /// lane at another height, or whose delay is out of that range, is
    /// computed again by the scalar path (`one`) from its squared distance. The keys (delay, node, hears, place in `out`) are built in
    /// the lanes (a hearer's place is the hearers before it: a prefix count
    /// of the lanes' mask, `PREFIX`), checked ascending against their left
    /// neighbours in one unsigned compare, and stored; the records are
    /// written per lane as `Emit::entry` writes them. The last, partial
    /// chunk runs under a lane mask.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq")]
    #[inline(never)]
    // (`c` indexes the chunk's entries in four slices, its mask in one)
    #[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
    pub(super) unsafe fn fill_two_ray_wide(
        &self,
        nodes: &[NodeId],
        keys: &mut [u64],
        out: &mut [MaybeUninit<Hearer>],
        movers: &mut [RefCell<Mover>],
        now_legs: &mut [NowLeg],
        level: &RxPowerAt,
        lanes: &mut Lanes,
    ) -> (usize, bool) {
        use std::arch::x86_64::*;
        let FrameAt { p, now, reach_sq, cull, .. } = *self;
        let (crossover, two_ray, loss) = level.two_ray_terms();
        let scalar = |d: f64| level.two_ray_power(d);
        let n = nodes.len().min(keys.len());
        const W: i32 = LEG_WORDS;
        let [o_start, o_end, o_x, o_y, o_z, o_vx, o_vy] = LEG_AT;
        let (px, py, pz) = (_mm512_set1_pd(p.x), _mm512_set1_pd(p.y), _mm512_set1_pd(p.z));
        let pz_bits = _mm512_set1_epi64(p.z.to_bits() as i64);
        let (e9, c_light, half) = (_mm512_set1_pd(1e9), _mm512_set1_pd(SPEED_OF_LIGHT), _mm512_set1_pd(0.5));
        let (min_d, cross, two_ray, loss) =
            (_mm512_set1_pd(1e-3), _mm512_set1_pd(crossover), _mm512_set1_pd(two_ray), _mm512_set1_pd(loss));
        let (friis_num, friis_k) = level.friis_terms();
        let (friis_num, friis_k) = (_mm512_set1_pd(friis_num), _mm512_set1_pd(friis_k));
        let (reach, cull_v, zero, top) = (
            _mm512_set1_pd(reach_sq),
            _mm512_set1_pd(cull),
            _mm512_setzero_pd(),
            _mm512_set1_pd(4_503_599_627_370_496.0),
        );
        let now_v = _mm512_set1_epi64(now.0 as i64);
        let legs_len = _mm512_set1_epi64(now_legs.len() as i64);
        let hears_bit = _mm512_set1_epi64(HEARS_BIT as i64);
        let Lanes { power: pws, delay: dls, hears: hms } = lanes;
        let chunks = n.div_ceil(8);
        assert!(pws.len() >= 8 * chunks && dls.len() >= 8 * chunks && hms.len() >= chunks && out.len() > n);
        // The chunk at `i`'s lanes (the entries past the end masked off)
        // and node ids (zero past the end).
        macro_rules! chunk_ids {
            ($i:expr) => {{
                if $i + 8 <= n {
                    (0xFF, _mm256_loadu_si256(nodes.as_ptr().add($i).cast()))
                } else {
                    let m: __mmask8 = (0xFFu32 >> (8 - (n - $i))) as u8;
                    (m, _mm512_castsi512_si256(_mm512_maskz_loadu_epi32(m as u16, nodes.as_ptr().add($i).cast())))
                }
            }};
        }
        // Pass 1: every chunk's powers, delays and hearers (no dependence
        // from one chunk to the next: their long operations overlap).
        for c in 0..chunks {
            let i = 8 * c;
            let (m, ids) = chunk_ids!(i);
            // (every id indexes `now_legs`: the gathers below read in bounds)
            let in_bounds = _mm512_mask_cmplt_epu64_mask(m, _mm512_cvtepu32_epi64(ids), legs_len);
            assert!(in_bounds == m, "list node out of range");
            let at = _mm256_mullo_epi32(ids, _mm256_set1_epi32(W));
            // Each lane's leg field `$f` (zero past the end).
            macro_rules! gather {
                ($f:expr) => {
                    _mm512_mask_i32gather_pd::<8>(_mm512_setzero_pd(), m, at, now_legs.as_ptr().cast::<f64>().add($f))
                };
            }
            macro_rules! gather_int {
                ($f:expr) => {
                    _mm512_castpd_si512(gather!($f))
                };
            }
            let mut start = gather_int!(o_start);
            let ok = _mm512_cmple_epu64_mask(start, now_v) & _mm512_cmplt_epu64_mask(now_v, gather_int!(o_end));
            if ok & m != m {
                let mut stale = m & !ok;
                while stale != 0 {
                    fresh_now(movers, now_legs, nodes[i + stale.trailing_zeros() as usize], now);
                    stale &= stale - 1;
                }
                start = gather_int!(o_start);
            }
            let (fx, fy, fz, vx, vy) = (gather!(o_x), gather!(o_y), gather!(o_z), gather!(o_vx), gather!(o_vy));
            // `(now - start) as i64 as f64 / 1e9` per lane
            let dt = _mm512_div_pd(_mm512_cvtepi64_pd(_mm512_sub_epi64(now_v, start)), e9);
            let qx = _mm512_add_pd(fx, _mm512_mul_pd(vx, dt));
            let qy = _mm512_add_pd(fy, _mm512_mul_pd(vy, dt));
            let dx = _mm512_sub_pd(px, qx);
            let dy = _mm512_sub_pd(py, qy);
            let dz = _mm512_sub_pd(pz, fz);
            let d2 = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz));
            let d = _mm512_sqrt_pd(d2);
            let dm = _mm512_max_pd(d, min_d);
            // two-ray ground's `two_ray / ((d'^2)^2 L)`, or below the
            // crossover Friis' `num / (((k d') d') L)`: one division of
            // the lane's numerator by its denominator
            let s = _mm512_mul_pd(dm, dm);
            let lt = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(dm, cross);
            let den = _mm512_mask_blend_pd(lt, _mm512_mul_pd(s, s), _mm512_mul_pd(_mm512_mul_pd(friis_k, dm), dm));
            let pw = _mm512_div_pd(_mm512_mask_blend_pd(lt, two_ray, friis_num), _mm512_mul_pd(den, loss));
            let x = _mm512_mul_pd(_mm512_div_pd(d, c_light), e9);
            let it = _mm512_cvttpd_epi64(x);
            let up = _mm512_cmp_pd_mask::<_CMP_GE_OQ>(_mm512_sub_pd(x, _mm512_cvtepi64_pd(it)), half);
            let delay = _mm512_mask_add_epi64(it, up, it, _mm512_set1_epi64(1));
            let hears = _mm512_cmp_pd_mask::<_CMP_NLT_UQ>(reach, d2) & _mm512_cmp_pd_mask::<_CMP_GE_OQ>(pw, cull_v);
            let in_range = _mm512_cmp_pd_mask::<_CMP_GT_OQ>(x, zero) & _mm512_cmp_pd_mask::<_CMP_LT_OQ>(x, top);
            let bad = (!in_range | _mm512_cmpneq_epi64_mask(_mm512_castpd_si512(fz), pz_bits)) & m;
            _mm512_storeu_pd(pws.as_mut_ptr().add(i), pw);
            _mm512_storeu_si512(dls.as_mut_ptr().add(i).cast(), delay);
            hms[c] = hears & m;
            if bad != 0 {
                // The scalar path for those lanes (`one`), written over
                // theirs.
                let (mut d2s, mut zs) = ([0.0f64; 8], [0.0f64; 8]);
                _mm512_storeu_pd(d2s.as_mut_ptr(), d2);
                _mm512_storeu_pd(zs.as_mut_ptr(), fz);
                let mut b = bad;
                while b != 0 {
                    let l = b.trailing_zeros() as usize;
                    let (pl, dl, hl) = self.one(d2s[l], zs[l], &scalar);
                    (pws[i + l], dls[i + l]) = (pl, dl.0);
                    hms[c] = (hms[c] & !(1 << l)) | ((hl as u8) << l);
                    b &= b - 1;
                }
            }
        }
        // Pass 2: the keys (delay, node, hears, the hearers before it) and
        // the records.
        let mut prev = _mm512_setzero_si512();
        let mut sorted = true;
        let mut k = 0usize;
        let rec = out.as_mut_ptr().cast::<u8>();
        for c in 0..chunks {
            let i = 8 * c;
            let (m, ids) = chunk_ids!(i);
            let hears = hms[c];
            let delay = _mm512_loadu_si512(dls.as_ptr().add(i).cast());
            let pw = _mm512_loadu_pd(pws.as_ptr().add(i));
            let before = _mm512_cvtepu8_epi64(_mm_cvtsi64_si128(PREFIX[hears as usize] as i64));
            let key = _mm512_or_si512(
                _mm512_or_si512(
                    _mm512_slli_epi64::<DELAY_SHIFT>(delay),
                    _mm512_slli_epi64::<NODE_SHIFT>(_mm512_cvtepu32_epi64(ids)),
                ),
                _mm512_or_si512(
                    _mm512_maskz_mov_epi64(hears, hears_bit),
                    _mm512_add_epi64(_mm512_set1_epi64(k as i64), before),
                ),
            );
            // Each key above its left neighbour (the first above the last
            // chunk's last).
            let left = _mm512_alignr_epi64::<7>(key, prev);
            sorted &= _mm512_mask_cmpgt_epu64_mask(m, key, left) == m;
            prev = _mm512_permutexvar_epi64(_mm512_set1_epi64(m.count_ones() as i64 - 1), key);
            _mm512_mask_storeu_epi64(keys.as_mut_ptr().add(i).cast(), m, key);
            // The records, as `Emit::entry`: every lane's at the place of
            // the hearers before it (a non-hearer's is overwritten by the
            // next one; a padding lane's lies past them). The power and
            // the delay go from one register in two 8-byte stores: the
            // frame's signal runs read them soon after as 8-byte fields,
            // which a 16-byte store made slower (rwp30 +4 to +7 %,
            // docs/performance.md, "Session 18 (branch s18vx)").
            let (lo, hi) = (
                _mm512_unpacklo_pd(pw, _mm512_castsi512_pd(delay)),
                _mm512_unpackhi_pd(pw, _mm512_castsi512_pd(delay)),
            );
            macro_rules! record {
                ($l:expr, $pair:expr) => {
                    // SAFETY: the place is at most the entries before this
                    // one, at most `n`, so within `out` (asserted above); a
                    // `Hearer`'s delay follows its power (`HEARER_POWER`'s
                    // assertion).
                    let at = rec.add((k + ((PREFIX[hears as usize] >> (8 * $l)) & 0xFF) as usize) * HEARER);
                    _mm_storel_pd(at.add(HEARER_POWER).cast(), $pair);
                    _mm_storeh_pd(at.add(HEARER_POWER + 8).cast(), $pair);
                    at.add(HEARER_NODE).cast::<NodeId>().write_unaligned(*nodes.get_unchecked((i + $l).min(n - 1)));
                };
            }
            record!(0, _mm512_castpd512_pd128(lo));
            record!(1, _mm512_castpd512_pd128(hi));
            record!(2, _mm512_extractf64x2_pd::<1>(lo));
            record!(3, _mm512_extractf64x2_pd::<1>(hi));
            record!(4, _mm512_extractf64x2_pd::<2>(lo));
            record!(5, _mm512_extractf64x2_pd::<2>(hi));
            record!(6, _mm512_extractf64x2_pd::<3>(lo));
            record!(7, _mm512_extractf64x2_pd::<3>(hi));
            k += hears.count_ones() as usize;
        }
        (k, sorted)
    }

    /// [`FrameAt::fill_two_ray`] four entries at a time in AVX2's lanes,
    /// for processors with AVX2 but not AVX-512 F/DQ (the caller checked
    /// the feature: `NearLists::pass`). Every lane makes the scalar path's
    /// operations in its order, each rounded as the scalar instruction
    /// rounds it (IEEE 754; no fused multiply-add), as
    /// `fill_two_ray_wide` does, with AVX2's instructions where AVX-512's
    /// are missing:
    /// - the legs' freshness (`start <= now < end`, unsigned) by signed
    ///   64-bit compares of the values with their top bit flipped (the
    ///   same order);
    /// - `dt`'s `(now - start) as i64 as f64` (no `vcvtqq2pd`): for
    ///   `0 <= v < 2^52` the double whose bits are `2^52`'s or'ed with `v`
    ///   is `2^52 + v` exactly, and subtracting `2^52` leaves `v` exactly,
    ///   the value `cvtsi2sd` gives (every integer below 2^53 is a double);
    ///   a lane with `v >= 2^52` (a leg over 52 days old) takes the scalar
    ///   path;
    /// - the delay's truncation (no `vcvttpd2qq`) through i32 below 2^31 ns,
    ///   as `fill_two_ray` (the same integer part; a lane beyond takes the
    ///   scalar path);
    /// - Friis or two-ray ground per lane by `vblendvpd`, `vmaxpd` for
    ///   `f64::max(d, 1e-3)` (its second operand for a NaN).
    ///
    /// A lane at another height or out of those ranges is computed again
    /// by the scalar path (`position_on_leg` then `one`, `fill`'s
    /// operations). The keys and records are then written per entry by
    /// `Emit::entry`, as `fill` writes them.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline(never)]
    // (`c` indexes the chunk's entries in two slices, its mask in one)
    #[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
    pub(super) unsafe fn fill_two_ray_avx2(
        &self,
        nodes: &[NodeId],
        keys: &mut [u64],
        out: &mut [MaybeUninit<Hearer>],
        movers: &mut [RefCell<Mover>],
        now_legs: &mut [NowLeg],
        level: &RxPowerAt,
        lanes: &mut Lanes,
    ) -> (usize, bool) {
        use std::arch::x86_64::*;
        let FrameAt { p, now, reach_sq, cull, .. } = *self;
        let (crossover, two_ray, loss) = level.two_ray_terms();
        let (friis_num, friis_k) = level.friis_terms();
        let scalar = |d: f64| level.two_ray_power(d);
        let n = nodes.len().min(keys.len());
        const W: i32 = LEG_WORDS;
        let [o_start, o_end, o_x, o_y, o_z, o_vx, o_vy] = LEG_AT;
        let (px, py, pz) = (_mm256_set1_pd(p.x), _mm256_set1_pd(p.y), _mm256_set1_pd(p.z));
        let pz_bits = _mm256_set1_epi64x(p.z.to_bits() as i64);
        let (e9, c_light, half) = (_mm256_set1_pd(1e9), _mm256_set1_pd(SPEED_OF_LIGHT), _mm256_set1_pd(0.5));
        let (min_d, cross, two_ray, loss) =
            (_mm256_set1_pd(1e-3), _mm256_set1_pd(crossover), _mm256_set1_pd(two_ray), _mm256_set1_pd(loss));
        let (friis_num, friis_k) = (_mm256_set1_pd(friis_num), _mm256_set1_pd(friis_k));
        let (reach, cull_v, zero, top) =
            (_mm256_set1_pd(reach_sq), _mm256_set1_pd(cull), _mm256_setzero_pd(), _mm256_set1_pd(2_147_483_648.0));
        // (`x ^ flip`: the unsigned order as the signed one)
        let flip = _mm256_set1_epi64x(i64::MIN);
        let now_f = _mm256_xor_si256(_mm256_set1_epi64x(now.0 as i64), flip);
        let now_v = _mm256_set1_epi64x(now.0 as i64);
        let two52 = _mm256_set1_epi64x(0x4330_0000_0000_0000);
        let two52_f = _mm256_castsi256_pd(two52);
        let last_id = _mm_set1_epi32(now_legs.len().saturating_sub(1).min(u32::MAX as usize) as u32 as i32);
        let Lanes { power: pws, delay: dls, hears: hms } = lanes;
        let chunks = n.div_ceil(4);
        assert!(!now_legs.is_empty() || n == 0, "list without legs");
        assert!(pws.len() >= 4 * chunks && dls.len() >= 4 * chunks && hms.len() >= chunks && out.len() > n);
        // Pass 1: every chunk's powers, delays and hearers (no dependence
        // from one chunk to the next: their long operations overlap).
        for c in 0..chunks {
            let i = 4 * c;
            // The chunk's ids (past the end: its first entry's again) and
            // the lanes that are entries.
            let (m, ids) = if i + 4 <= n {
                (0xFu8, _mm_loadu_si128(nodes.as_ptr().add(i).cast()))
            } else {
                let mut pad = [nodes[i]; 4];
                pad[..n - i].copy_from_slice(&nodes[i..n]);
                ((0xFu32 >> (4 - (n - i))) as u8, _mm_loadu_si128(pad.as_ptr().cast()))
            };
            // (every id indexes `now_legs`: the gathers below read in bounds)
            let in_bounds = _mm_movemask_epi8(_mm_cmpeq_epi32(_mm_max_epu32(ids, last_id), last_id));
            assert!(in_bounds == 0xFFFF, "list node out of range");
            let at = _mm_mullo_epi32(ids, _mm_set1_epi32(W));
            let legs = now_legs.as_ptr().cast::<f64>();
            // Each lane's leg field `$f`.
            macro_rules! gather {
                ($f:expr) => {
                    _mm256_i32gather_pd::<8>(legs.add($f), at)
                };
            }
            macro_rules! gather_int {
                ($f:expr) => {
                    _mm256_castpd_si256(gather!($f))
                };
            }
            // Stale lanes: `!(start <= now && now < end)`.
            macro_rules! stale {
                ($start:expr) => {{
                    let late = _mm256_cmpgt_epi64(_mm256_xor_si256($start, flip), now_f);
                    let ended = _mm256_cmpgt_epi64(_mm256_xor_si256(gather_int!(o_end), flip), now_f);
                    (_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_andnot_si256(ended, _mm256_set1_epi64x(-1))))
                        | _mm256_movemask_pd(_mm256_castsi256_pd(late))) as u8
                        & m
                }};
            }
            let mut start = gather_int!(o_start);
            let mut stale = stale!(start);
            if stale != 0 {
                while stale != 0 {
                    fresh_now(movers, now_legs, nodes[i + stale.trailing_zeros() as usize], now);
                    stale &= stale - 1;
                }
                start = gather_int!(o_start);
            }
            let (fx, fy, fz, vx, vy) = (gather!(o_x), gather!(o_y), gather!(o_z), gather!(o_vx), gather!(o_vy));
            // `(now - start) as i64 as f64 / 1e9` per lane (exact below 2^52)
            let v = _mm256_sub_epi64(now_v, start);
            let v_ok = _mm256_cmpeq_epi64(_mm256_srli_epi64::<52>(v), _mm256_setzero_si256());
            let vf = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(v, two52)), two52_f);
            let dt = _mm256_div_pd(vf, e9);
            let qx = _mm256_add_pd(fx, _mm256_mul_pd(vx, dt));
            let qy = _mm256_add_pd(fy, _mm256_mul_pd(vy, dt));
            let dx = _mm256_sub_pd(px, qx);
            let dy = _mm256_sub_pd(py, qy);
            let dz = _mm256_sub_pd(pz, fz);
            let d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
            let d = _mm256_sqrt_pd(d2);
            let dm = _mm256_max_pd(d, min_d);
            // two-ray ground's `two_ray / ((d'^2)^2 L)`, or below the
            // crossover Friis' `num / (((k d') d') L)`: one division of
            // the lane's numerator by its denominator
            let s = _mm256_mul_pd(dm, dm);
            let lt = _mm256_cmp_pd::<_CMP_LT_OQ>(dm, cross);
            let den = _mm256_blendv_pd(_mm256_mul_pd(s, s), _mm256_mul_pd(_mm256_mul_pd(friis_k, dm), dm), lt);
            let pw = _mm256_div_pd(_mm256_blendv_pd(two_ray, friis_num, lt), _mm256_mul_pd(den, loss));
            let x = _mm256_mul_pd(_mm256_div_pd(d, c_light), e9);
            let it = _mm256_cvttpd_epi32(x);
            let up = _mm256_cmp_pd::<_CMP_GE_OQ>(_mm256_sub_pd(x, _mm256_cvtepi32_pd(it)), half);
            // (the integer part, plus one where `up`: its lanes are -1)
            let delay = _mm256_sub_epi64(_mm256_cvtepi32_epi64(it), _mm256_castpd_si256(up));
            let hears = _mm256_movemask_pd(_mm256_and_pd(
                _mm256_cmp_pd::<_CMP_NLT_UQ>(reach, d2),
                _mm256_cmp_pd::<_CMP_GE_OQ>(pw, cull_v),
            )) as u8;
            let in_range = _mm256_and_pd(_mm256_cmp_pd::<_CMP_GT_OQ>(x, zero), _mm256_cmp_pd::<_CMP_LT_OQ>(x, top));
            let same_z = _mm256_cmpeq_epi64(_mm256_castpd_si256(fz), pz_bits);
            let good = _mm256_and_pd(in_range, _mm256_castsi256_pd(_mm256_and_si256(same_z, v_ok)));
            let bad = !(_mm256_movemask_pd(good) as u8) & m;
            _mm256_storeu_pd(pws.as_mut_ptr().add(i), pw);
            _mm256_storeu_si256(dls.as_mut_ptr().add(i).cast(), delay);
            hms[c] = hears & m;
            if bad != 0 {
                // The scalar path for those lanes (`fill`'s), written over
                // theirs.
                let mut b = bad;
                while b != 0 {
                    let l = b.trailing_zeros() as usize;
                    let q = position_on_leg(movers, now_legs, nodes[i + l], now);
                    let (dx, dy, dz) = (p.x - q.x, p.y - q.y, p.z - q.z);
                    let (pl, dl, hl) = self.one(dx * dx + dy * dy + dz * dz, q.z, &scalar);
                    (pws[i + l], dls[i + l]) = (pl, dl.0);
                    hms[c] = (hms[c] & !(1 << l)) | ((hl as u8) << l);
                    b &= b - 1;
                }
            }
        }
        // Pass 2: the keys and the records, per entry as `fill`.
        let mut e = Emit { k: 0, prev: 0, sorted: true };
        for (j, (&node, key)) in nodes[..n].iter().zip(keys[..n].iter_mut()).enumerate() {
            let hears = (hms[j / 4] >> (j % 4)) & 1 != 0;
            e.entry(node, pws[j], Time(dls[j]), hears, key, out);
        }
        (e.k, e.sorted)
    }

    /// [`FrameAt::fill`] with two-ray ground's power, elsewhere.
    #[cfg(not(target_arch = "x86_64"))]
    pub(super) fn fill_two_ray(
        &self,
        nodes: &[NodeId],
        keys: &mut [u64],
        out: &mut [MaybeUninit<Hearer>],
        movers: &mut [RefCell<Mover>],
        now_legs: &mut [NowLeg],
        level: &RxPowerAt,
    ) -> (usize, bool) {
        self.fill(nodes, keys, out, movers, now_legs, |d| level.two_ray_power(d))
    }
}
