//! `[topology] order`: which node gets which id in a random topology.
//!
//! `"id"` (the default): node *i* is the *i*-th placement draw. `"hilbert"`:
//! the drawn nodes are numbered along a Hilbert curve through the area, by
//! their positions at t = 0, so nodes close in space get close ids (issue
//! 25). Every per-node array of the kernel (nodes, radios, trajectories,
//! the channel grid's entries) is indexed by id, so a frame's 40 hearers
//! then lie in a few short runs of memory instead of 40 random places of a
//! gigabyte-sized array: at 10^6 nodes that is the difference between an
//! event that hits the caches and one that waits for DRAM and a page walk
//! (docs/performance.md, "Large networks"). Nodes keep their own random
//! streams by their new ids, so a Hilbert-ordered run is a different
//! (equally likely) draw of the same scenario, deterministic as any other.
//!
//! The curve: D. Hilbert, "Über die stetige Abbildung einer Linie auf ein
//! Flächenstück", Math. Ann. 38 (1891); the index computation is the usual
//! iterative one (rotate the quadrant at each level; e.g. H. S. Warren,
//! Hacker's Delight, 2nd ed., ch. 16). Among the space-filling curves it
//! keeps the best locality: consecutive cells are always edge neighbours.

use crate::config::Position;

/// How the nodes of a random topology are numbered.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub(crate) enum NodeOrder {
    /// In placement order (node i = draw i).
    #[default]
    Id,
    /// Along a Hilbert curve by initial position.
    Hilbert,
}

/// Levels of the curve: a 2^16 x 2^16 grid over the area (3.2 m cells in
/// the 209 km square of the 10^6-node network; ties keep draw order).
const BITS: u32 = 16;

/// The Hilbert index of cell (x, y) of a 2^bits x 2^bits grid.
pub(crate) fn hilbert_index(bits: u32, mut x: u32, mut y: u32) -> u64 {
    let n = 1u32 << bits;
    let mut d = 0u64;
    let mut s = n >> 1;
    while s > 0 {
        let rx = (x & s != 0) as u64;
        let ry = (y & s != 0) as u64;
        d += (s as u64) * (s as u64) * ((3 * rx) ^ ry);
        // Rotate the quadrant so the sub-curve starts and ends where the
        // next level expects (flipping the higher bits is harmless: they
        // are no longer read).
        if ry == 0 {
            if rx == 1 {
                x = n - 1 - x;
                y = n - 1 - y;
            }
            std::mem::swap(&mut x, &mut y);
        }
        s >>= 1;
    }
    d
}

/// The permutation that numbers `positions` (inside [0, width) x [0,
/// height)) along the Hilbert curve: new node k is old node `perm[k]`.
/// Ties (the same 3.2 m cell at 10^6 nodes) keep the old order.
pub(crate) fn hilbert_permutation(positions: &[Position], width: f64, height: f64) -> Vec<usize> {
    let n = 1u32 << BITS;
    let cell = |v: f64, side: f64| -> u32 {
        let c = (v / side * n as f64).floor();
        if c.is_nan() || c < 0.0 {
            0
        } else {
            (c as u64).min(n as u64 - 1) as u32
        }
    };
    let mut keyed: Vec<(u64, usize)> = positions
        .iter()
        .enumerate()
        .map(|(i, p)| (hilbert_index(BITS, cell(p.x, width), cell(p.y, height)), i))
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// `v` reordered so that `out[k] = v[perm[k]]`.
pub(crate) fn permute<T>(v: Vec<T>, perm: &[usize]) -> Vec<T> {
    let mut slots: Vec<Option<T>> = v.into_iter().map(Some).collect();
    perm.iter().map(|&i| slots[i].take().expect("a permutation")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_visits_every_cell_once_through_edge_neighbours() {
        for bits in 1..=5 {
            let n = 1u32 << bits;
            let mut at = vec![None; (n * n) as usize];
            for x in 0..n {
                for y in 0..n {
                    let d = hilbert_index(bits, x, y) as usize;
                    assert!(at[d].is_none(), "index {d} twice at {bits} bits");
                    at[d] = Some((x as i64, y as i64));
                }
            }
            let cells: Vec<(i64, i64)> = at.into_iter().map(|c| c.expect("every index used")).collect();
            assert_eq!(cells[0], (0, 0));
            for w in cells.windows(2) {
                let step = (w[0].0 - w[1].0).abs() + (w[0].1 - w[1].1).abs();
                assert_eq!(step, 1, "{:?} -> {:?} at {bits} bits", w[0], w[1]);
            }
        }
    }

    #[test]
    fn numbers_nearby_nodes_consecutively() {
        // 4096 uniform points in a 10 km square: consecutive ids in draw
        // order are ~5.2 km apart on average, along the curve ~0.1 km.
        let mut rng = crate::sim::RngStream::new(7, 0, crate::sim::Purpose::Placement, 0);
        let pts: Vec<Position> =
            (0..4096).map(|_| Position::new(rng.range_f64(0.0, 10_000.0), rng.range_f64(0.0, 10_000.0))).collect();
        let mean_step = |p: &[Position]| {
            p.windows(2).map(|w| ((w[0].x - w[1].x).powi(2) + (w[0].y - w[1].y).powi(2)).sqrt()).sum::<f64>()
                / (p.len() - 1) as f64
        };
        let perm = hilbert_permutation(&pts, 10_000.0, 10_000.0);
        let mut seen = perm.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..pts.len()).collect::<Vec<_>>());
        let ordered = permute(pts.clone(), &perm);
        let (before, after) = (mean_step(&pts), mean_step(&ordered));
        assert!(before > 4_500.0 && before < 6_000.0, "draw order: {before} m");
        assert!(after < 250.0, "hilbert order: {after} m");
    }
}
