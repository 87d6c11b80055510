//! Incremental path profiles (issue 25): the same spans as the reference
//! computation in `path.rs` (every pair of nodes, a BFS over all nodes at
//! every range crossing), at a cost linear in the number of link changes.
//!
//! 1. **Candidate pairs from a spatial grid.** Time is cut into epochs in
//!    which no node moves farther than the receive range. A node's bounding
//!    box over an epoch (its positions at the epoch's ends and at every leg
//!    start inside it: legs are straight) goes into a grid by its centre;
//!    only pairs whose boxes come within range (+1 m) can cross the range in
//!    that epoch. For those pairs the crossings are solved exactly as the
//!    reference does (`path::window_roots`, over the pair's own windows
//!    between leg starts), so every cut time is the same `f64`.
//! 2. **Links change only where a crossing is.** The link set (distance at
//!    a window's midpoint <= range, the reference's test) is built once with
//!    a grid; at each later window only the pairs with a crossing between
//!    the previous midpoint and this one (1 µs slack for rounding) are
//!    tested again.
//! 3. **Dynamic BFS.** Each flow source keeps its hop distances to every
//!    node. A new link lowers distances by a BFS wave from its far end; a
//!    lost link raises only the nodes that had no other shortest-path
//!    parent (collected level by level), which are then re-settled from
//!    their unaffected neighbours. Links between nodes at equal distance or
//!    with another parent cost a degree scan.
//!
//! Used when every node has the same height (crossings are solved in the
//! plane, the link test is 3-D); `path::path_profiles` falls back to the
//! reference otherwise. Tests in `path.rs` compare both on random patterns.

use super::path::{leg_breaks, window_roots, Span};
use crate::mobility::Trajectory;
use crate::sim::{Position, Time};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

const INF: u32 = u32::MAX;
/// Slack around a crossing when deciding which windows re-test its pair.
const SLACK_S: f64 = 1e-6;

/// Whether the incremental computation applies (all nodes at one height).
pub(super) fn applies(trajs: &[Trajectory]) -> bool {
    let mut z = None;
    trajs.iter().flat_map(|t| t.leg_iter()).all(|l| *z.get_or_insert(l.from.z) == l.from.z)
}

pub(super) fn path_profiles(trajs: &[Trajectory], pairs: &[(usize, usize)], range: f64, until: Time) -> Vec<Vec<Span>> {
    let end = until.as_secs_f64();
    let mut roots = crossings(trajs, range, end);
    roots.sort_by(|a, b| a.0.total_cmp(&b.0));
    // The cut times exactly as the reference makes them.
    let mut cuts = vec![0.0];
    let mut ts: Vec<f64> = roots.iter().map(|r| r.0).collect();
    ts.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    cuts.extend(ts);
    cuts.push(end);

    let n = trajs.len();
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut sources: Vec<Sssp> = Vec::new();
    let mut src_of: Vec<usize> = Vec::with_capacity(pairs.len());
    for &(a, _) in pairs {
        let k = match sources.iter().position(|s| s.src == a) {
            Some(k) => k,
            None => {
                sources.push(Sssp::new(a, n));
                sources.len() - 1
            }
        };
        src_of.push(k);
    }
    let mut scratch =
        Scratch { in_a: vec![false; n], list: Vec::new(), queue: VecDeque::new(), heap: BinaryHeap::new() };
    let mut out: Vec<Vec<Span>> = vec![Vec::new(); pairs.len()];
    let (mut lo, mut hi) = (0usize, 0usize);
    let mut prev_mid: Option<f64> = None;
    for w in cuts.windows(2) {
        if w[1] <= w[0] {
            continue;
        }
        let mid = Time::from_secs_f64((w[0] + w[1]) / 2.0);
        let mid_s = mid.as_secs_f64();
        match prev_mid {
            None => {
                let pos: Vec<Position> = trajs.iter().map(|t| t.position(mid)).collect();
                for (i, j) in pairs_within(&pos, range) {
                    adj[i].push(j as u32);
                    adj[j].push(i as u32);
                }
                for s in &mut sources {
                    s.bfs(&adj, &mut scratch.queue);
                }
            }
            Some(pm) => {
                while lo < roots.len() && roots[lo].0 <= pm - SLACK_S {
                    lo += 1;
                }
                while hi < roots.len() && roots[hi].0 <= mid_s + SLACK_S {
                    hi += 1;
                }
                for &(_, i, j) in &roots[lo.min(hi)..hi] {
                    let (i, j) = (i as usize, j as usize);
                    let linked = trajs[i].position(mid).distance(&trajs[j].position(mid)) <= range;
                    let had = adj[i].contains(&(j as u32));
                    if linked == had {
                        continue;
                    }
                    if linked {
                        adj[i].push(j as u32);
                        adj[j].push(i as u32);
                        for s in &mut sources {
                            s.link_up(&adj, i, j, &mut scratch);
                        }
                    } else {
                        unlink(&mut adj, i, j);
                        for s in &mut sources {
                            s.link_down(&adj, i, j, &mut scratch);
                        }
                    }
                }
            }
        }
        prev_mid = Some(mid_s);
        for ((spans, &(_, b)), &k) in out.iter_mut().zip(pairs).zip(&src_of) {
            let d = sources[k].dist[b];
            let hops = (d != INF).then_some(d);
            match spans.last_mut() {
                Some(last) if last.hops == hops => last.end_s = w[1],
                _ => spans.push(Span { start_s: w[0], end_s: w[1], hops }),
            }
        }
    }
    out
}

fn unlink(adj: &mut [Vec<u32>], i: usize, j: usize) {
    for (a, b) in [(i, j), (j, i)] {
        let k = adj[a].iter().position(|&x| x as usize == b).unwrap();
        adj[a].swap_remove(k);
    }
}

/// Every pair (i < j) at most `range` apart (grid of `range` cells).
fn pairs_within(pos: &[Position], range: f64) -> Vec<(usize, usize)> {
    let cell = |p: &Position| ((p.x / range).floor() as i64, (p.y / range).floor() as i64);
    let mut grid: HashMap<(i64, i64), Vec<usize>> = HashMap::new();
    for (i, p) in pos.iter().enumerate() {
        grid.entry(cell(p)).or_default().push(i);
    }
    let mut out = Vec::new();
    for (i, p) in pos.iter().enumerate() {
        let (cx, cy) = cell(p);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for &j in grid.get(&(cx + dx, cy + dy)).map(|v| v.as_slice()).unwrap_or(&[]) {
                    if j > i && p.distance(&pos[j]) <= range {
                        out.push((i, j));
                    }
                }
            }
        }
    }
    out
}

/// Every range crossing in (0, end) as (time, i, j), i < j, found only for
/// the pairs that come within range in some epoch.
fn crossings(trajs: &[Trajectory], range: f64, end: f64) -> Vec<(f64, u32, u32)> {
    let n = trajs.len();
    let vmax = trajs.iter().map(|t| t.max_speed()).fold(0.0, f64::max);
    let mut out = Vec::new();
    if vmax <= 0.0 || n < 2 || end <= 0.0 {
        return out;
    }
    let epoch = (range / vmax).max(1e-3).min(end);
    let epochs = (end / epoch).ceil() as usize;
    let reach = range + 1.0;
    // (i, j, epoch) for every candidate pair.
    let mut cand: Vec<(u32, u32, u32)> = Vec::new();
    let mut boxes: Vec<[f64; 4]> = vec![[0.0; 4]; n];
    let mut grid: HashMap<(i64, i64), Vec<u32>> = HashMap::new();
    for e in 0..epochs {
        let (t0, t1) = (Time::from_secs_f64(e as f64 * epoch), Time::from_secs_f64(((e + 1) as f64 * epoch).min(end)));
        let mut ext: f64 = 0.0;
        for (b, tr) in boxes.iter_mut().zip(trajs) {
            let p = tr.position(t0);
            *b = [p.x, p.y, p.x, p.y];
            let legs = tr.legs();
            let first = legs.partition_point(|l| l.start <= t0);
            let mut grow = |p: Position| {
                b[0] = b[0].min(p.x);
                b[1] = b[1].min(p.y);
                b[2] = b[2].max(p.x);
                b[3] = b[3].max(p.y);
            };
            for l in legs[first..].iter().take_while(|l| l.start < t1) {
                grow(tr.position(l.start));
                grow(l.from);
            }
            grow(tr.position(t1));
            ext = ext.max(b[2] - b[0]).max(b[3] - b[1]);
        }
        let size = reach + ext;
        let cell =
            |b: &[f64; 4]| (((b[0] + b[2]) / 2.0 / size).floor() as i64, ((b[1] + b[3]) / 2.0 / size).floor() as i64);
        grid.values_mut().for_each(Vec::clear);
        for (i, b) in boxes.iter().enumerate() {
            grid.entry(cell(b)).or_default().push(i as u32);
        }
        for (i, bi) in boxes.iter().enumerate() {
            let (cx, cy) = cell(bi);
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for &j in grid.get(&(cx + dx, cy + dy)).map(|v| v.as_slice()).unwrap_or(&[]) {
                        if (j as usize) <= i {
                            continue;
                        }
                        let bj = &boxes[j as usize];
                        let gx = (bi[0] - bj[2]).max(bj[0] - bi[2]).max(0.0);
                        let gy = (bi[1] - bj[3]).max(bj[1] - bi[3]).max(0.0);
                        if gx * gx + gy * gy <= reach * reach {
                            cand.push((i as u32, j, e as u32));
                        }
                    }
                }
            }
        }
    }
    cand.sort_unstable();
    let r2 = range * range;
    let mut k = 0;
    let mut bounds: Vec<f64> = Vec::new();
    let mut roots: Vec<f64> = Vec::new();
    while k < cand.len() {
        let (i, j) = (cand[k].0, cand[k].1);
        let mut m = k;
        while m < cand.len() && (cand[m].0, cand[m].1) == (i, j) {
            m += 1;
        }
        let eps = &cand[k..m];
        let (a, b) = (&trajs[i as usize], &trajs[j as usize]);
        bounds.clear();
        bounds.extend(leg_breaks(a, end).chain(leg_breaks(b, end)));
        bounds.push(end);
        bounds.sort_by(f64::total_cmp);
        bounds.dedup();
        let mut ep = 0;
        for w in bounds.windows(2) {
            let (t0, t1) = (w[0], w[1]);
            if t1 <= t0 {
                continue;
            }
            // Skip candidate epochs that end before this window starts.
            while ep < eps.len() && ((eps[ep].2 + 1) as f64 * epoch) < t0 {
                ep += 1;
            }
            if ep == eps.len() {
                break;
            }
            if (eps[ep].2 as f64 * epoch) > t1 {
                continue;
            }
            roots.clear();
            window_roots(a, b, t0, t1, r2, &mut roots);
            out.extend(roots.iter().map(|&t| (t, i, j)));
        }
        k = m;
    }
    out
}

struct Scratch {
    in_a: Vec<bool>,
    list: Vec<u32>,
    queue: VecDeque<u32>,
    heap: BinaryHeap<Reverse<(u32, u32)>>,
}

/// Hop distances from one source, kept up to date as links come and go.
struct Sssp {
    src: usize,
    dist: Vec<u32>,
}

impl Sssp {
    fn new(src: usize, n: usize) -> Self {
        Sssp { src, dist: vec![INF; n] }
    }

    fn bfs(&mut self, adj: &[Vec<u32>], q: &mut VecDeque<u32>) {
        self.dist.iter_mut().for_each(|d| *d = INF);
        self.dist[self.src] = 0;
        q.clear();
        q.push_back(self.src as u32);
        self.lower_wave(adj, q);
    }

    /// Propagates lowered distances from the queued nodes (a BFS wave).
    fn lower_wave(&mut self, adj: &[Vec<u32>], q: &mut VecDeque<u32>) {
        while let Some(x) = q.pop_front() {
            let d = self.dist[x as usize] + 1;
            for &y in &adj[x as usize] {
                if d < self.dist[y as usize] {
                    self.dist[y as usize] = d;
                    q.push_back(y);
                }
            }
        }
    }

    /// Link i-j appeared (already in `adj`).
    fn link_up(&mut self, adj: &[Vec<u32>], i: usize, j: usize, s: &mut Scratch) {
        let (di, dj) = (self.dist[i], self.dist[j]);
        let (near, far) = if di != INF && di + 1 < dj {
            (i, j)
        } else if dj != INF && dj + 1 < di {
            (j, i)
        } else {
            return;
        };
        self.dist[far] = self.dist[near] + 1;
        s.queue.clear();
        s.queue.push_back(far as u32);
        self.lower_wave(adj, &mut s.queue);
    }

    fn has_parent(&self, adj: &[Vec<u32>], y: usize, in_a: &[bool]) -> bool {
        let d = self.dist[y];
        adj[y].iter().any(|&w| !in_a[w as usize] && self.dist[w as usize] != INF && self.dist[w as usize] + 1 == d)
    }

    /// Link i-j disappeared (already gone from `adj`).
    fn link_down(&mut self, adj: &[Vec<u32>], i: usize, j: usize, s: &mut Scratch) {
        let (di, dj) = (self.dist[i], self.dist[j]);
        let child = if di != INF && di + 1 == dj {
            j
        } else if dj != INF && dj + 1 == di {
            i
        } else {
            return;
        };
        if self.has_parent(adj, child, &s.in_a) {
            return;
        }
        // The nodes left without a shortest-path parent, level by level.
        s.list.clear();
        s.list.push(child as u32);
        s.in_a[child] = true;
        let mut k = 0;
        while k < s.list.len() {
            let x = s.list[k] as usize;
            k += 1;
            let d = self.dist[x] + 1;
            for &y in &adj[x] {
                let y = y as usize;
                if !s.in_a[y] && self.dist[y] == d && !self.has_parent(adj, y, &s.in_a) {
                    s.in_a[y] = true;
                    s.list.push(y as u32);
                }
            }
        }
        for &x in &s.list {
            self.dist[x as usize] = INF;
        }
        // Re-settle them from their unaffected neighbours.
        s.heap.clear();
        for &x in &s.list {
            let x = x as usize;
            s.in_a[x] = false;
            let best = adj[x].iter().map(|&w| self.dist[w as usize]).filter(|&d| d != INF).min();
            if let Some(b) = best {
                self.dist[x] = b + 1;
                s.heap.push(Reverse((b + 1, x as u32)));
            }
        }
        while let Some(Reverse((d, x))) = s.heap.pop() {
            if d > self.dist[x as usize] {
                continue;
            }
            for &y in &adj[x as usize] {
                if d + 1 < self.dist[y as usize] {
                    self.dist[y as usize] = d + 1;
                    s.heap.push(Reverse((d + 1, y)));
                }
            }
        }
    }
}
