//! Per-sender neighbour lists (Verlet lists) for the mobile receiver search
//! without fading draws (`Channel::arrivals_near`, taken by
//! `hearers_by_arrival`).
//!
//! A sender's list holds every other node within `reach + slack` (plus a
//! millimetre) of it at the instant `t0` the list was made, and it serves
//! the sender's frames for `life = slack / (2 vmax)` after that: a node
//! within the reach of the sender at `t` in `[t0, t0 + life)` was within
//! `reach + 2 vmax (t - t0) <= reach + slack` of it at `t0`, both having
//! moved at most `vmax (t - t0)` (the grid relies on the same bound, see
//! `channel.rs`; the millimetre covers the rounding of computed positions
//! and the sub-nanosecond jumps where legs join). So a frame reads only the
//! list (~1.1 times its hearers at 400 nodes) instead of the grid's cells
//! (~1.35 times, plus the walk of the rows), and 96 % of frames follow the
//! same sender's previous frame within 0.7 s (session 15), so most frames
//! reuse a list.
//!
//! The list is kept in the order of the sender's last frame's arrivals
//! (delay, node): the delays change little from one frame to the next
//! (a node moves at most `2 vmax life`, ~90 ns of delay at 20 m/s), so this
//! frame's keys are nearly sorted and an insertion sort moves each only a
//! few places; it gives up for `sort_unstable` past a budget of moves.
//! Each frame writes its hearers into the output in the list's order as it
//! computes them, and checks that their keys come ascending: then (rwp30:
//! nearly every frame; the 400-node file: 30 % of them) that order is the
//! arrival order, and there is nothing to sort or write again.
//! Under two-ray ground the arithmetic runs in SIMD lanes (`near_wide.rs`:
//! two entries at a time in SSE2's, four in AVX2's, eight in AVX-512's,
//! the widest the processor has, `Pass::chosen`; same operations per lane:
//! same bits).
//! Every entry's power and delay are computed as `scan_mobile` computes a
//! kept candidate's (the same operations in the same order: the same
//! bits), and an entry hears under the same two tests (within the reach on
//! its squared distance, a NaN kept; the power at least the cull level), so
//! the hearers, their powers, delays and order are those of `scan_mobile`
//! then `sort_by_arrival`. Proptest:
//! `phy::channel::tests::fused::fused_search_is_the_search_then_the_sort`.

use super::{delay_of, fresh_leg, Channel, Hearer, Mobility, NowLeg, KEY_NODE_BITS};
use crate::mobility::Mover;
use crate::phy::RadioConfig;
use crate::sim::NodeId;
use crate::sim::Position;
use crate::sim::Time;
use std::cell::RefCell;
use std::mem::MaybeUninit;

#[path = "near_wide.rs"]
mod wide;

/// The list's slack (the distance a list reaches beyond the reach), as a
/// share of the reach.
pub(super) const LIST_SHARE: f64 = 0.05;

/// Bits of a list key (delay, node, hears, index): the index of the entry
/// in the list below, one bit saying whether it hears the frame.
const INDEX_BITS: u32 = 21;
const HEARS_BIT: u64 = 1 << INDEX_BITS;
const NODE_SHIFT: u32 = INDEX_BITS + 1;
const DELAY_SHIFT: u32 = NODE_SHIFT + KEY_NODE_BITS;

/// `FrameAt::fill_two_ray_wide`'s and `fill_two_ray_avx2`'s scratch: per
/// list entry its power and delay, per chunk of eight (four) the lanes
/// that hear (room for every node).
#[derive(Default)]
pub(super) struct Lanes {
    power: Vec<f64>,
    delay: Vec<u64>,
    hears: Vec<u8>,
}

/// One sender's list (see the module's comment).
#[derive(Default)]
struct NearList {
    /// Valid for frames at `from <= t < until`.
    from: Time,
    until: Time,
    /// The nodes, in the order of the last frame's arrivals.
    nodes: Vec<NodeId>,
}

/// The lists of every sender and the scratch of a frame.
pub(super) struct NearLists {
    lists: Vec<NearList>,
    /// How long a list serves (`slack / (2 vmax)`).
    life: Time,
    /// The square of the lists' radius (reach + slack + 1 mm).
    radius_sq: f64,
    /// The radius of the grid search that makes a list: the lists' radius
    /// plus the farthest a node moves between two grid builds.
    search: f64,
    keys: Vec<u64>,
    /// Scratch: a frame's hearers in the list's order, when they must be
    /// reordered.
    recs: Vec<Hearer>,
    /// The pass two-ray frames take (`Pass::chosen`, once, when the
    /// channel is built; tests set each one the processor runs, on the
    /// same frames: `set_pass`).
    pass: Pass,
    lanes: Lanes,
}

impl NearLists {
    /// Lists for `nodes` nodes moving at most `vmax`, for a reach of
    /// `reach` and a grid rebuilt every `every`; `None` when a list's
    /// furthest possible entry's delay or the node ids do not fit the keys
    /// (the caller then keeps the per-frame search).
    pub(super) fn new(nodes: usize, reach: f64, vmax: f64, every: Time) -> Option<NearLists> {
        let slack = LIST_SHARE * reach;
        let life = Time::from_secs_f64(slack / (2.0 * vmax));
        let radius = reach + slack + 1e-3;
        // An entry is within `radius + 2 vmax life` of the sender at any
        // instant the list serves (twice over: margin for the delay bits).
        let far = delay_of(2.0 * (radius + slack)).0;
        let fits = vmax.is_finite()
            && vmax > 0.0
            && life > Time::ZERO
            && (nodes as u64) < 1 << KEY_NODE_BITS
            && (nodes as u64) < 1 << INDEX_BITS
            && far < 1 << (64 - DELAY_SHIFT);
        fits.then(|| NearLists {
            lists: (0..nodes).map(|_| NearList::default()).collect(),
            life,
            radius_sq: radius * radius,
            search: radius + vmax * every.as_secs_f64(),
            keys: vec![0; nodes],
            recs: Vec::with_capacity(nodes),
            pass: Pass::chosen(),
            lanes: Lanes { power: vec![0.0; nodes + 8], delay: vec![0; nodes + 8], hears: vec![0; nodes / 4 + 2] },
        })
    }

    /// Makes two-ray frames take `pass` when this processor runs it
    /// (returns whether it does; otherwise the pass stays as it was).
    #[cfg(test)]
    pub(super) fn set_pass(&mut self, pass: Pass) -> bool {
        let ok = pass.supported();
        if ok {
            self.pass = pass;
        }
        ok
    }
}

/// The per-frame passes under two-ray ground (`near_wide.rs`): all give the
/// same bits (the same operations per lane), at different widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pass {
    /// `FrameAt::fill_two_ray`: two lanes (SSE2, x86-64's baseline; the
    /// scalar `fill` elsewhere).
    Sse2,
    /// `FrameAt::fill_two_ray_avx2`: four lanes.
    Avx2,
    /// `FrameAt::fill_two_ray_wide`: eight lanes (AVX-512 F and DQ: the
    /// 64-bit integer conversions and compares).
    Avx512,
}

impl Pass {
    /// Whether this processor runs the pass (tested at run time: the
    /// build targets x86-64's baseline).
    fn supported(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Pass::Sse2 => true,
                Pass::Avx2 => is_x86_feature_detected!("avx2"),
                Pass::Avx512 => is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512dq"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == Pass::Sse2
        }
    }

    /// The widest pass this processor runs, or the one the environment
    /// variable `MANETLAB_NEAR_PASS` names (`sse2`, `avx2`, `avx512`) when
    /// it runs that one: a switch to measure a narrower pass on a wider
    /// processor (docs/performance.md, "Session 19 (branch s19nx)"); the
    /// passes give the same bits, so it cannot change an output.
    fn chosen() -> Pass {
        let named = match std::env::var("MANETLAB_NEAR_PASS").as_deref() {
            Ok("sse2") => Some(Pass::Sse2),
            Ok("avx2") => Some(Pass::Avx2),
            Ok("avx512") => Some(Pass::Avx512),
            _ => None,
        };
        match named {
            Some(p) if p.supported() => p,
            _ => [Pass::Avx512, Pass::Avx2].into_iter().find(|p| p.supported()).unwrap_or(Pass::Sse2),
        }
    }
}

/// Where node `n` is at `now`, from its current leg (refreshed first when
/// `now` is past it): `Mobility::position`'s arithmetic (`now - start` is
/// below 2^63: its conversion through i64 is the same value), so the same
/// bits as `scan_mobile`'s positions.
#[inline(always)]
fn position_on_leg(movers: &mut [RefCell<Mover>], now_legs: &mut [NowLeg], n: NodeId, now: Time) -> Position {
    let l = &now_legs[n as usize];
    if !(l.start <= now && now < l.end) {
        fresh_leg(movers, now_legs, n, now);
    }
    let leg = &now_legs[n as usize];
    let dt = (now.0 - leg.start.0) as i64 as f64 / 1e9;
    Position { x: leg.from.x + leg.vx * dt, y: leg.from.y + leg.vy * dt, z: leg.from.z }
}

/// Sorts `v` ascending by insertion, or by `sort_unstable` once the moves
/// pass `budget` (any sort of distinct keys gives the same order).
#[inline]
fn nearly_sorted(v: &mut [u64], budget: usize) {
    let mut moves = 0;
    for i in 1..v.len() {
        moves += super::insert_step(v, i);
        if moves > budget {
            v.sort_unstable();
            return;
        }
    }
}

impl Channel {
    /// [`Channel::hearers_by_arrival`] for moving nodes without fading
    /// draws, from the sender's list (made again when it has expired).
    pub(super) fn arrivals_near(&mut self, sender: NodeId, now: Time, out: &mut Vec<Hearer>) {
        let Channel { mobility, grid, radio, reach_sq, cull_power, near, .. } = self;
        let near = near.as_mut().expect("arrivals_near without lists");
        let m = mobility.as_mut().expect("arrivals_near without mobility");
        let p = m.position(sender, now);
        let (reach_sq, cull) = (*reach_sq, *cull_power);
        let list = &mut near.lists[sender as usize];
        let fresh = !(list.from <= now && now < list.until);
        if fresh {
            // Every node within the lists' radius of p now: the grid
            // recorded it within `near.search` of p (`refresh` ran).
            let Mobility { movers, now_legs, .. } = m;
            list.nodes.clear();
            list.from = now;
            list.until = now + near.life;
            let r_sq = near.radius_sq;
            grid.disc_runs(&p, near.search, |first, end| {
                for &n in &grid.nodes[first..end] {
                    let q = position_on_leg(movers, now_legs, n, now);
                    let (dx, dy, dz) = (p.x - q.x, p.y - q.y, p.z - q.z);
                    let d2 = dx * dx + dy * dy + dz * dz;
                    // (a NaN is kept, as in `scan_mobile`)
                    let far = d2 > r_sq;
                    if n != sender && !far {
                        list.nodes.push(n);
                    }
                }
            });
        }
        let Mobility { movers, now_legs, .. } = m;
        let len = list.nodes.len();
        let keys = &mut near.keys[..len];
        let h = radio.antenna_height_m;
        let level = radio.propagation.at_heights(radio, h + p.z, h + p.z);
        let f = FrameAt { p, now, reach_sq, cull, h, radio };
        // The hearers go straight into `out`, in the list's order; the
        // model is tested once (two loops, one per kind of power).
        out.clear();
        // (one more: `fill_two_ray_wide` may write a non-hearer's record
        // past the hearers)
        out.reserve(len + 1);
        let spare = &mut out.spare_capacity_mut()[..len + 1];
        let (heard, sorted) = if level.is_two_ray() {
            #[cfg(target_arch = "x86_64")]
            match near.pass {
                // SAFETY: `pass` is `Avx512` only where the processor has
                // AVX-512 F and DQ (`Pass::supported`), the function's
                // features.
                Pass::Avx512 => unsafe {
                    f.fill_two_ray_wide(&list.nodes, keys, spare, movers, now_legs, &level, &mut near.lanes)
                },
                // SAFETY: `pass` is `Avx2` only where the processor has
                // AVX2 (`Pass::supported`), the function's feature.
                Pass::Avx2 => unsafe {
                    f.fill_two_ray_avx2(&list.nodes, keys, spare, movers, now_legs, &level, &mut near.lanes)
                },
                Pass::Sse2 => f.fill_two_ray(&list.nodes, keys, spare, movers, now_legs, &level),
            }
            #[cfg(not(target_arch = "x86_64"))]
            f.fill_two_ray(&list.nodes, keys, spare, movers, now_legs, &level)
        } else {
            f.fill(&list.nodes, keys, spare, movers, now_legs, |d| level.power(d))
        };
        // SAFETY: `fill` wrote `spare[..heard]` (it returns how many
        // records it wrote, in order from the first).
        unsafe { out.set_len(heard) };
        if sorted {
            // The arrival order is the list's: `out` is the hearers in
            // order, and the list stays as it is.
            return;
        }
        // Otherwise sort the keys and write the hearers (and the list) in
        // their order; a key's index is its hearer's place in `out`. (They
        // are written to the scratch, which then becomes `out`: no copy.)
        if fresh {
            keys.sort_unstable();
        } else {
            nearly_sorted(keys, 8 * len + 64);
        }
        // (without a branch: every entry's record is written at the
        // hearers' count so far; a non-hearer's, any record, is overwritten
        // by the next hearer's or left past the hearers)
        let recs = &mut near.recs;
        recs.clear();
        recs.reserve(len);
        let spare = &mut recs.spare_capacity_mut()[..len];
        let last = heard.saturating_sub(1);
        let mut k = 0;
        for (slot, &key) in list.nodes.iter_mut().zip(keys.iter()) {
            *slot = ((key >> NODE_SHIFT) & ((1 << KEY_NODE_BITS) - 1)) as NodeId;
            if let (Some(&h), Some(rec)) = (out.get(((key & (HEARS_BIT - 1)) as usize).min(last)), spare.get_mut(k)) {
                rec.write(h);
            }
            k += (key & HEARS_BIT != 0) as usize;
        }
        // SAFETY: the loop wrote `recs`'s first `k` places (the hearers in
        // key order: the one at place j was written last by the j-th).
        unsafe { recs.set_len(k) };
        std::mem::swap(out, recs);
    }
}

/// What every entry's arithmetic of one frame shares.
struct FrameAt<'a> {
    /// The sender's position.
    p: Position,
    now: Time,
    reach_sq: f64,
    cull: f64,
    /// The antennas' height above their node.
    h: f64,
    radio: &'a RadioConfig,
}

/// What `FrameAt::fill` carries from one entry to the next.
struct Emit {
    /// Hearers written.
    k: usize,
    /// The last key.
    prev: u64,
    /// Whether the keys came strictly ascending so far.
    sorted: bool,
}

impl Emit {
    /// One entry's key and, when it hears, its record (see `FrameAt::fill`).
    #[inline(always)]
    fn entry(
        &mut self,
        n: NodeId,
        power: f64,
        delay: Time,
        hears: bool,
        key: &mut u64,
        out: &mut [MaybeUninit<Hearer>],
    ) {
        *key = (delay.0 << DELAY_SHIFT) | ((n as u64) << NODE_SHIFT) | ((hears as u64) << INDEX_BITS) | self.k as u64;
        self.sorted &= *key > self.prev;
        self.prev = *key;
        // (written whether it hears or not: the next one overwrites it)
        if let Some(slot) = out.get_mut(self.k) {
            slot.write(Hearer { node: n, power, delay });
        }
        self.k += hears as usize;
    }
}

/// Makes node `n`'s leg in `now_legs` the one it follows at `now`.
#[inline(always)]
fn fresh_now(movers: &mut [RefCell<Mover>], now_legs: &mut [NowLeg], n: NodeId, now: Time) {
    let l = &now_legs[n as usize];
    if !(l.start <= now && now < l.end) {
        fresh_leg(movers, now_legs, n, now);
    }
}

impl FrameAt<'_> {
    /// An entry at squared distance `d2` whose antenna's base is at `qz`:
    /// its power (`power` for receivers at the sender's height), delay and
    /// whether it hears, with `scan_mobile`'s operations and tests.
    #[inline(always)]
    fn one(&self, d2: f64, qz: f64, power: &impl Fn(f64) -> f64) -> (f64, Time, bool) {
        let FrameAt { p, reach_sq, cull, h, radio, .. } = *self;
        let d = d2.sqrt();
        let power = if qz.to_bits() == p.z.to_bits() {
            power(d)
        } else {
            radio.propagation.rx_power(radio, d, h + p.z, h + qz)
        };
        let far = d2 > reach_sq;
        (power, delay_of(d), !far & (power >= cull))
    }

    /// For every entry of `nodes` (a list, in its order): its position,
    /// power and delay with `scan_mobile`'s operations (`power` is
    /// `level.power` for receivers at the sender's height); the ones that
    /// hear (the same two tests) go to `out` in order, and every entry's
    /// key (delay, node, hears, its place in `out`) to `keys`. Returns how
    /// many hear and whether the keys came strictly ascending (then the
    /// list's order is the arrival order: nodes are distinct, so (delay,
    /// node) orders them all).
    // (out of line: its own registers; inlined into `do_mac` it kept
    // a dozen of its invariants on the stack)
    #[inline(never)]
    fn fill(
        &self,
        nodes: &[NodeId],
        keys: &mut [u64],
        out: &mut [MaybeUninit<Hearer>],
        movers: &mut [RefCell<Mover>],
        now_legs: &mut [NowLeg],
        power: impl Fn(f64) -> f64,
    ) -> (usize, bool) {
        let p = self.p;
        let mut e = Emit { k: 0, prev: 0, sorted: true };
        for (&n, key) in nodes.iter().zip(keys.iter_mut()) {
            let q = position_on_leg(movers, now_legs, n, self.now);
            let (dx, dy, dz) = (p.x - q.x, p.y - q.y, p.z - q.z);
            let (power, delay, hears) = self.one(dx * dx + dy * dy + dz * dz, q.z, &power);
            e.entry(n, power, delay, hears, key, out);
        }
        (e.k, e.sorted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The insertion sort with its budget sorts, whatever the budget.
        #[test]
        fn nearly_sorted_sorts(
            raw in proptest::collection::vec(0u64..5000, 0..300),
            shifts in proptest::collection::vec(0u64..200, 0..300),
            budget in 0usize..2000,
        ) {
            let mut keys: Vec<u64> = raw.iter().enumerate().map(|(i, &k)| (k << 20) | i as u64).collect();
            keys.sort_unstable();
            // Perturb a sorted list a little (as a frame after the last).
            for (k, s) in keys.iter_mut().zip(&shifts) {
                *k = k.wrapping_add(s << 20);
            }
            let mut want = keys.clone();
            want.sort_unstable();
            nearly_sorted(&mut keys, budget);
            proptest::prop_assert_eq!(keys, want);
        }
    }
}
