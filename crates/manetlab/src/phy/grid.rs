//! The channel's uniform grid of nodes (`channel.rs` explains its cell
//! sizes and why the search it supports is exact).

use crate::sim::NodeId;
use crate::sim::Position;

/// The grid's cells in one array (compressed rows): the nodes of cell `c`
/// are `nodes[starts[c]..starts[c + 1]]`, in id order; a row's cells are
/// side by side.
pub(super) struct Grid {
    pub(super) cell: f64,
    pub(super) min_x: f64,
    pub(super) min_y: f64,
    pub(super) cols: usize,
    pub(super) rows: usize,
    pub(super) starts: Vec<u32>,
    pub(super) nodes: Vec<NodeId>,
}

impl Grid {
    pub(super) fn new(positions: &[Position], cell: f64) -> Grid {
        let cell = if cell.is_finite() && cell > 0.0 { cell } else { 1.0 };
        let (mut min_x, mut min_y, mut max_x, mut max_y) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        if let Some(p) = positions.first() {
            (min_x, min_y, max_x, max_y) = (p.x, p.y, p.x, p.y);
        }
        for p in positions {
            min_x = min_x.min(p.x);
            min_y = min_y.min(p.y);
            max_x = max_x.max(p.x);
            max_y = max_y.max(p.y);
        }
        // Cap the grid size: a sparse huge area must not allocate millions of cells.
        let mut cell = cell;
        while ((max_x - min_x) / cell + 1.0) * ((max_y - min_y) / cell + 1.0) > 4.0 * positions.len() as f64 + 64.0 {
            cell *= 2.0;
        }
        let cols = ((max_x - min_x) / cell).floor() as usize + 1;
        let rows = ((max_y - min_y) / cell).floor() as usize + 1;
        let mut g = Grid { cell, min_x, min_y, cols, rows, starts: vec![0; cols * rows + 1], nodes: Vec::new() };
        // Counting sort of the nodes by cell (ids ascending within a cell).
        let of: Vec<u32> = positions.iter().map(|p| g.cell_of(p) as u32).collect();
        for &c in &of {
            g.starts[c as usize + 1] += 1;
        }
        for c in 0..cols * rows {
            g.starts[c + 1] += g.starts[c];
        }
        let mut fill = g.starts.clone();
        g.nodes = vec![0; positions.len()];
        for (i, &c) in of.iter().enumerate() {
            g.nodes[fill[c as usize] as usize] = i as NodeId;
            fill[c as usize] += 1;
        }
        g
    }
    /// The cell of `p`, clamped to the grid. `v as usize` is
    /// `v.floor().max(0.0) as usize` for every `v` (it truncates towards
    /// zero and saturates negatives and NaN to 0) without libm's `floor`
    /// (x86-64 before SSE4.1 has no rounding instruction).
    pub(super) fn coords(&self, p: &Position) -> (usize, usize) {
        let cx = (((p.x - self.min_x) / self.cell) as usize).min(self.cols - 1);
        let cy = (((p.y - self.min_y) / self.cell) as usize).min(self.rows - 1);
        (cx, cy)
    }
    fn cell_of(&self, p: &Position) -> usize {
        let (cx, cy) = self.coords(p);
        cy * self.cols + cx
    }
    /// The nodes of cells `first..=last` (one row's, or one cell's).
    #[inline]
    pub(super) fn span(&self, first: usize, last: usize) -> &[NodeId] {
        &self.nodes[self.starts[first] as usize..self.starts[last + 1] as usize]
    }
}

impl Grid {
    /// Calls `f(first, end)` for every row that the disc of radius `r`
    /// around `p` touches, rows in order: the slots `first..end` of `nodes`
    /// are the nodes of the row's cells that the disc touches. Their
    /// distance to `p` is quasi-convex in the column (the larger of a
    /// non-decreasing and a non-increasing term), so they are one run of
    /// columns, one slice. (The disc is taken a hair wider than `r`: a
    /// cell's edge recomputed here may round differently from the division
    /// that put a node in it.)
    #[inline]
    pub(super) fn disc_rows(&self, p: &Position, r: f64, mut f: impl FnMut(usize, usize)) {
        let r_sq = (r * (1.0 + 1e-9) + 1e-6).powi(2);
        let (x0, y0) = self.coords(&Position { x: p.x - r, y: p.y - r, z: 0.0 });
        let (x1, y1) = self.coords(&Position { x: p.x + r, y: p.y + r, z: 0.0 });
        let c = self.cell;
        for gy in y0..=y1 {
            // Distance from p to the cell's row band (0 inside it).
            let lo = self.min_y + gy as f64 * c;
            let dy = (lo - p.y).max(p.y - (lo + c)).max(0.0);
            let mut run: Option<(usize, usize)> = None;
            for gx in x0..=x1 {
                let lo = self.min_x + gx as f64 * c;
                let dx = (lo - p.x).max(p.x - (lo + c)).max(0.0);
                if dx * dx + dy * dy <= r_sq {
                    run = Some((run.map_or(gx, |(a, _)| a), gx));
                }
            }
            let Some((a, b)) = run else { continue };
            f(self.starts[gy * self.cols + a] as usize, self.starts[gy * self.cols + b + 1] as usize);
        }
    }

    /// The cells a search of radius `r` around `p` must read, for a search
    /// whose order does not matter (a neighbour list's making,
    /// `Channel::arrivals_near` in `near.rs`): per row,
    /// the columns from the disc's left to its right end at the row band's
    /// nearest edge (half-width `w`), with the same hair of margin as
    /// `disc_rows`. Every node recorded within `r` of `p` is in them: its
    /// `|x - p.x|` is at most `sqrt(r^2 - dy^2) < w` where `dy` is the
    /// band's distance (the margin, ~1e-3 m^2 in `w^2` at 550 m, covers
    /// the rounding of the band's edge and of `p.x -+ w`), and the cell
    /// index is monotone in x. The proptest
    /// `fused_search_is_the_search_then_the_sort` checks the hearers
    /// against `disc_rows`' search. One square root per row instead of a
    /// distance per cell.
    #[inline]
    pub(super) fn disc_runs(&self, p: &Position, r: f64, mut f: impl FnMut(usize, usize)) {
        let rr = r * (1.0 + 1e-9) + 1e-6;
        let r_sq = rr * rr;
        let row = |y: f64| (((y - self.min_y) / self.cell) as usize).min(self.rows - 1);
        let col = |x: f64| (((x - self.min_x) / self.cell) as usize).min(self.cols - 1);
        let c = self.cell;
        for gy in row(p.y - rr)..=row(p.y + rr) {
            let lo = self.min_y + gy as f64 * c;
            let dy = (lo - p.y).max(p.y - (lo + c)).max(0.0);
            let w2 = r_sq - dy * dy;
            // (a row beyond the disc, or a NaN, is skipped)
            if w2 < 0.0 || w2.is_nan() {
                continue;
            }
            let w = w2.sqrt();
            let base = gy * self.cols;
            f(self.starts[base + col(p.x - w)] as usize, self.starts[base + col(p.x + w) + 1] as usize);
        }
    }
}
