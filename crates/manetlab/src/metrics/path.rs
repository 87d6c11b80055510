//! Path profile and the ELFN paper's expected throughput.
//!
//! The path profile of a node pair is the shortest-path hop count between
//! them over time, computed from the nodes' trajectories and the receive
//! range (a link exists while two nodes are at most `range` apart). It is
//! piecewise constant and changes only when some pair of nodes crosses the
//! range; those instants are found exactly (per pair and per interval in
//! which both move linearly, |r0 + v t|² = R² is a quadratic), and the hop
//! count is recomputed by BFS between consecutive crossings.
//!
//! Expected throughput (tcp-manet-elfn.txt, eq. 1): Σ t_i T_i / Σ t_i where
//! t_i is the time the shortest path has i hops and T_i the throughput of a
//! static chain of i hops (T = 0 while partitioned).

use crate::mobility::Trajectory;
use crate::sim::Time;
use std::collections::VecDeque;

/// A span of constant hop count; `hops = None` while partitioned.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Span {
    pub start_s: f64,
    pub end_s: f64,
    pub hops: Option<u32>,
}

pub(super) fn leg_breaks(t: &Trajectory, until: f64) -> impl Iterator<Item = f64> + '_ {
    t.leg_iter().map(|l| l.start.as_secs_f64()).take_while(move |&s| s < until)
}

/// Every instant in (0, until) at which some pair of nodes crosses `range`.
fn crossings(trajs: &[Trajectory], range: f64, until: f64) -> Vec<f64> {
    let mut out = Vec::new();
    let r2 = range * range;
    for i in 0..trajs.len() {
        for j in (i + 1)..trajs.len() {
            let mut bounds: Vec<f64> = leg_breaks(&trajs[i], until).chain(leg_breaks(&trajs[j], until)).collect();
            bounds.push(until);
            bounds.sort_by(f64::total_cmp);
            bounds.dedup();
            for w in bounds.windows(2) {
                window_roots(&trajs[i], &trajs[j], w[0], w[1], r2, &mut out);
            }
        }
    }
    out.sort_by(f64::total_cmp);
    out.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    out
}

/// The instants in (t0, t1), t > 0, at which nodes `a` and `b` (both moving
/// linearly in the window) are exactly `sqrt(r2)` apart, pushed to `out`.
pub(super) fn window_roots(a: &Trajectory, b: &Trajectory, t0: f64, t1: f64, r2: f64, out: &mut Vec<f64>) {
    if t1 <= t0 {
        return;
    }
    let (s, mid) = (Time::from_secs_f64(t0), Time::from_secs_f64((t0 + t1) / 2.0));
    let ends = [a.position(s), b.position(s), a.position(mid), b.position(mid)];
    window_roots_at(ends, t0, t1, r2, out);
}

/// [`window_roots`] from the positions `[a(t0), b(t0), a(mid), b(mid)]`,
/// with t0 and mid as `Time`s (`Time::from_secs_f64` of t0 and of
/// (t0 + t1) / 2).
pub(super) fn window_roots_at(p: [crate::sim::Position; 4], t0: f64, t1: f64, r2: f64, out: &mut Vec<f64>) {
    if t1 <= t0 {
        return;
    }
    let [a0, b0, am, bm] = p;
    // Relative velocity from the mid-interval positions (exact for linear
    // motion).
    let h = (t1 - t0) / 2.0;
    let (rx, ry) = (b0.x - a0.x, b0.y - a0.y);
    let (vx, vy) = (((bm.x - am.x) - rx) / h, ((bm.y - am.y) - ry) / h);
    let qa = vx * vx + vy * vy;
    if qa < 1e-18 {
        return;
    }
    let qb = 2.0 * (rx * vx + ry * vy);
    let qc = rx * rx + ry * ry - r2;
    let disc = qb * qb - 4.0 * qa * qc;
    if disc < 0.0 {
        return;
    }
    let sq = disc.sqrt();
    for root in [(-qb - sq) / (2.0 * qa), (-qb + sq) / (2.0 * qa)] {
        let t = t0 + root;
        if t > t0 && t < t1 && t > 0.0 {
            out.push(t);
        }
    }
}

/// Hop count between `a` and `b` at time `t` (BFS over links <= range).
pub fn hops_at(trajs: &[Trajectory], a: usize, b: usize, range: f64, t: Time) -> Option<u32> {
    let pos: Vec<_> = trajs.iter().map(|tr| tr.position(t)).collect();
    let mut dist = vec![u32::MAX; pos.len()];
    let mut q = VecDeque::new();
    dist[a] = 0;
    q.push_back(a);
    while let Some(u) = q.pop_front() {
        if u == b {
            return Some(dist[u]);
        }
        for v in 0..pos.len() {
            if dist[v] == u32::MAX && pos[u].distance(&pos[v]) <= range {
                dist[v] = dist[u] + 1;
                q.push_back(v);
            }
        }
    }
    None
}

/// The piecewise-constant hop count between `a` and `b` over [0, until].
pub fn path_profile(trajs: &[Trajectory], a: usize, b: usize, range: f64, until: Time) -> Vec<Span> {
    path_profiles(trajs, &[(a, b)], range, until).pop().unwrap()
}

/// Path profiles of several pairs: incrementally (`path_incr.rs`, cost
/// linear in link changes, legs streamed from each trajectory so memory
/// does not grow with `until`) when all nodes share one height, else by
/// [`path_profiles_reference`]. Both give the same spans.
pub fn path_profiles(trajs: &[Trajectory], pairs: &[(usize, usize)], range: f64, until: Time) -> Vec<Vec<Span>> {
    if pairs.is_empty() {
        return Vec::new();
    }
    if super::path_incr::applies(trajs) {
        super::path_incr::path_profiles(trajs, pairs, range, until)
    } else {
        // The reference asks for positions in any order: generated paths
        // are held for it (memory grows with the run; only when nodes are
        // at different heights).
        let held: Vec<Trajectory> = trajs.iter().map(|t| t.materialized()).collect();
        path_profiles_reference(&held, pairs, range, until)
    }
}

/// The reference: every pair's range crossings, and a BFS over all nodes
/// between consecutive crossings (O(N^2) per link change).
pub fn path_profiles_reference(
    trajs: &[Trajectory],
    pairs: &[(usize, usize)],
    range: f64,
    until: Time,
) -> Vec<Vec<Span>> {
    let end = until.as_secs_f64();
    let mut cuts = vec![0.0];
    cuts.extend(crossings(trajs, range, end));
    cuts.push(end);
    let mut out: Vec<Vec<Span>> = vec![Vec::new(); pairs.len()];
    for w in cuts.windows(2) {
        if w[1] <= w[0] {
            continue;
        }
        let mid = Time::from_secs_f64((w[0] + w[1]) / 2.0);
        for (spans, &(a, b)) in out.iter_mut().zip(pairs) {
            let hops = hops_at(trajs, a, b, range, mid);
            match spans.last_mut() {
                Some(last) if last.hops == hops => last.end_s = w[1],
                _ => spans.push(Span { start_s: w[0], end_s: w[1], hops }),
            }
        }
    }
    out
}

/// Time spent at each hop count: (hops, seconds), partitioned as hops = None.
pub fn time_by_hops(profile: &[Span]) -> Vec<(Option<u32>, f64)> {
    let mut v: Vec<(Option<u32>, f64)> = Vec::new();
    for s in profile {
        match v.iter_mut().find(|x| x.0 == s.hops) {
            Some(x) => x.1 += s.end_s - s.start_s,
            None => v.push((s.hops, s.end_s - s.start_s)),
        }
    }
    v.sort_by_key(|x| x.0.map_or(u32::MAX, |h| h));
    v
}

/// Σ t_i T_i / Σ t_i over the part of the profile from `from_s` on; `table[i-1]`
/// is the i-hop chain throughput. Hop counts beyond the table use its last
/// value (the chain throughput is flat there); partitioned time counts 0.
pub fn expected_throughput(profile: &[Span], table: &[f64], from_s: f64) -> f64 {
    let mut num = 0.0;
    let mut den = 0.0;
    for s in profile {
        let (a, b) = (s.start_s.max(from_s), s.end_s);
        if b <= a {
            continue;
        }
        let t = b - a;
        den += t;
        if let Some(h) = s.hops {
            if h >= 1 && !table.is_empty() {
                num += t * table[(h as usize - 1).min(table.len() - 1)];
            }
        }
    }
    if den > 0.0 {
        num / den
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Position, SimConfig};
    use crate::mobility::{ns2, waypoint};

    const TABLE: [f64; 10] = [1307.0, 654.0, 413.0, 289.0, 252.0, 235.0, 221.0, 220.0, 218.0, 213.0];

    #[test]
    fn static_chain_gives_the_chain_value() {
        let trajs: Vec<Trajectory> = SimConfig::chain_positions(5, 200.0).into_iter().map(Trajectory::fixed).collect();
        let p = path_profile(&trajs, 0, 4, 250.0, Time::from_secs(100));
        assert_eq!(p, vec![Span { start_s: 0.0, end_s: 100.0, hops: Some(4) }]);
        assert_eq!(expected_throughput(&p, &TABLE, 0.0), 289.0);
    }

    #[test]
    fn always_partitioned_gives_zero() {
        let trajs = vec![Trajectory::fixed(Position::new(0.0, 0.0)), Trajectory::fixed(Position::new(600.0, 0.0))];
        let p = path_profile(&trajs, 0, 1, 250.0, Time::from_secs(50));
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].hops, None);
        assert_eq!(expected_throughput(&p, &TABLE, 0.0), 0.0);
    }

    #[test]
    fn a_walk_away_changes_hops_at_the_exact_times() {
        // 0 fixed, 1 fixed at 200 m, 2 starts next to 0 and walks along x at
        // 10 m/s from t = 0: direct until 250 m (25 s), via 1 until 450 m
        // (45 s), then partitioned.
        let mut s = ns2::MovementScript { init: vec![[None; 3]; 3], moves: vec![] };
        s.moves.push(ns2::SetDest { at: Time::ZERO, node: 2, x: 1000.0, y: 0.0, speed: 10.0 });
        let trajs = s.trajectories(&[Position::new(0.0, 0.0), Position::new(200.0, 0.0), Position::new(0.0, 0.0)]);
        let p = path_profile(&trajs, 0, 2, 250.0, Time::from_secs(60));
        assert_eq!(p.len(), 3, "{p:?}");
        assert_eq!(p[0].hops, Some(1));
        assert!((p[0].end_s - 25.0).abs() < 1e-6, "{p:?}");
        assert_eq!(p[1].hops, Some(2));
        assert!((p[1].end_s - 45.0).abs() < 1e-6, "{p:?}");
        assert_eq!(p[2].hops, None);
        let e = expected_throughput(&p, &TABLE, 0.0);
        assert!((e - (25.0 * 1307.0 + 20.0 * 654.0) / 60.0).abs() < 1e-6);
    }

    #[test]
    fn profile_agrees_with_sampling_on_a_random_pattern() {
        let trajs = waypoint::pattern(1500.0, 300.0, Time::ZERO, 30, 3, 10.0, Time::from_secs(100));
        let p = path_profile(&trajs, 0, 1, 250.0, Time::from_secs(100));
        for k in 0..1000 {
            let t = k as f64 * 0.1 + 0.05;
            let want = hops_at(&trajs, 0, 1, 250.0, Time::from_secs_f64(t));
            let span = p.iter().find(|s| s.start_s <= t && t < s.end_s).unwrap();
            // Sampling can straddle a change within 1 ms of the sample.
            if span.hops != want {
                let near = p.iter().any(|s| (s.start_s - t).abs() < 1e-3 || (s.end_s - t).abs() < 1e-3);
                assert!(near, "t={t}: profile {:?} vs sampled {want:?}", span.hops);
            }
        }
        assert!(p.len() > 3, "the pattern should change the path: {p:?}");
    }

    /// The incremental profiles stream legs epoch by epoch (issue 15, D4):
    /// with pauses (windows spanning epochs in which a pair is no
    /// candidate), over generated and held legs alike, they equal the
    /// reference's spans.
    #[test]
    fn streamed_profiles_equal_the_reference_with_pauses_and_held_legs() {
        let until = Time::from_secs(400);
        let lazy = waypoint::pattern(1200.0, 600.0, Time::from_secs(30), 30, 7, 12.0, until);
        assert!(lazy.iter().all(|t| t.is_generated()));
        let held: Vec<Trajectory> = lazy.iter().map(|t| t.materialized()).collect();
        let pairs: Vec<(usize, usize)> = (0..8).map(|k| (k % 3, (k * 5 + 4) % 30)).collect();
        let slow = path_profiles_reference(&held, &pairs, 250.0, until);
        assert_eq!(path_profiles(&lazy, &pairs, 250.0, until), slow);
        assert_eq!(path_profiles(&held, &pairs, 250.0, until), slow);
        assert!(slow.iter().map(|p| p.len()).sum::<usize>() > 20, "{slow:?}");
    }

    /// The incremental profiles (grid candidates, link changes only,
    /// dynamic BFS) equal the reference's all-pairs BFS span for span, on
    /// dense and sparse random patterns, for many pairs at once.
    #[test]
    fn incremental_equals_the_reference() {
        let mut changes = 0;
        for (seed, nodes, w, h) in [(1u64, 40, 1500.0, 300.0), (2, 60, 1000.0, 1000.0), (3, 25, 2500.0, 600.0)] {
            let trajs = waypoint::pattern(w, h, Time::ZERO, nodes, seed, 15.0, Time::from_secs(200));
            let pairs: Vec<(usize, usize)> = (0..12).map(|k| (k % 5, (k * 7 + 3) % nodes)).collect();
            assert!(super::super::path_incr::applies(&trajs));
            let fast = path_profiles(&trajs, &pairs, 250.0, Time::from_secs(200));
            let slow = path_profiles_reference(&trajs, &pairs, 250.0, Time::from_secs(200));
            assert_eq!(fast, slow, "seed {seed}");
            changes += fast.iter().map(|p| p.len()).sum::<usize>();
        }
        assert!(changes > 100, "the patterns should change paths often: {changes}");
    }
}
