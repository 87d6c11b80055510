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

use super::path::{window_roots_at, Span};
use crate::mobility::{Leg, Trajectory};
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
    let n = trajs.len();
    // The range crossings, epoch by epoch; `fin` holds those final (below
    // the generator's horizon) from the first still needed on, sorted as
    // the reference sorts them. `base` is the index of `fin[0]` in the
    // run's whole sorted sequence of crossings.
    let mut gen = Crossings::new(trajs, range, end);
    let mut fin: VecDeque<(f64, u32, u32)> = VecDeque::new();
    let mut base = 0usize;
    // Positions at the windows' midpoints, which only increase.
    let mut here: Vec<LegWindow> = trajs.iter().map(LegWindow::new).collect();

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
    // Indices (in the whole sequence) as the reference keeps them: `lo`,
    // `hi` bound the crossings re-tested at a window, `next` is the next
    // crossing that may become a cut (cut times are the crossings' times,
    // deduplicated within 1 ns as the reference does).
    let (mut lo, mut hi, mut next) = (0usize, 0usize, 0usize);
    let mut retained: Option<f64> = None;
    let mut prev_mid: Option<f64> = None;
    let mut w0 = 0.0;
    loop {
        // The window's end: the next cut, or the end of the run.
        let (w1, last) = loop {
            if next < base + fin.len() {
                let t = fin[next - base].0;
                next += 1;
                if retained.is_some_and(|r| (t - r).abs() < 1e-9) {
                    continue;
                }
                retained = Some(t);
                break (t, false);
            }
            if !gen.advance(&mut fin) {
                break (end, true);
            }
        };
        if w1 > w0 {
            let mid = Time::from_secs_f64((w0 + w1) / 2.0);
            let mid_s = mid.as_secs_f64();
            // Every crossing up to the midpoint (and its slack) is final.
            while mid_s + SLACK_S >= gen.horizon() && gen.advance(&mut fin) {}
            match prev_mid {
                None => {
                    let pos: Vec<Position> = here.iter_mut().map(|w| w.position_forward(mid)).collect();
                    for (i, j) in pairs_within(&pos, range) {
                        adj[i].push(j as u32);
                        adj[j].push(i as u32);
                    }
                    for s in &mut sources {
                        s.bfs(&adj, &mut scratch.queue);
                    }
                }
                Some(pm) => {
                    while lo < base + fin.len() && fin[lo - base].0 <= pm - SLACK_S {
                        lo += 1;
                    }
                    while hi < base + fin.len() && fin[hi - base].0 <= mid_s + SLACK_S {
                        hi += 1;
                    }
                    for k in lo.min(hi)..hi {
                        let (_, i, j) = fin[k - base];
                        let (i, j) = (i as usize, j as usize);
                        let (pi, pj) = (here[i].position_forward(mid), here[j].position_forward(mid));
                        let linked = pi.distance(&pj) <= range;
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
                    Some(last) if last.hops == hops => last.end_s = w1,
                    _ => spans.push(Span { start_s: w0, end_s: w1, hops }),
                }
            }
            // Crossings no index will visit again.
            while base < lo.min(hi).min(next) {
                fin.pop_front();
                base += 1;
            }
        }
        if last {
            break;
        }
        w0 = w1;
    }
    out
}

/// A node's legs around the times asked for, pulled from its trajectory
/// (generator or held legs) and dropped behind: the path profile's memory
/// does not grow with the length of the run (issue 15, D4).
struct LegWindow<'a> {
    gen: Box<dyn Iterator<Item = Leg> + Send + 'a>,
    legs: VecDeque<Leg>,
    done: bool,
}

impl<'a> LegWindow<'a> {
    fn new(t: &'a Trajectory) -> Self {
        let mut gen = t.leg_iter();
        let first = gen.next().expect("a trajectory has a leg");
        LegWindow { gen, legs: VecDeque::from([first]), done: false }
    }

    /// Pulls legs until one starts after `t` (every leg starting at or
    /// before `t` is then held).
    fn ensure(&mut self, t: Time) {
        while !self.done && self.legs.back().is_some_and(|l| l.start <= t) {
            match self.gen.next() {
                Some(l) => self.legs.push_back(l),
                None => self.done = true,
            }
        }
    }

    /// The position at `t` (legs up to `t` held, none needed dropped):
    /// `Trajectory::position`'s rule, the last leg starting at or before
    /// `t`.
    fn at(&self, t: Time) -> Position {
        let i = self.legs.partition_point(|l| l.start <= t);
        self.legs[i.saturating_sub(1)].at(t)
    }

    fn position(&mut self, t: Time) -> Position {
        self.ensure(t);
        self.at(t)
    }

    /// Drops the legs before the last one starting at or before `t`.
    fn trim(&mut self, t: Time) {
        while self.legs.len() >= 2 && self.legs[1].start <= t {
            self.legs.pop_front();
        }
    }

    /// The position at `t`, for queries at non-decreasing times.
    fn position_forward(&mut self, t: Time) -> Position {
        self.ensure(t);
        self.trim(t);
        self.at(t)
    }
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
/// the pairs that come within range in some epoch, generated epoch by
/// epoch. The crossings are exactly those of the whole-run computation:
/// a pair's windows (between the leg starts of both nodes) are solved once,
/// at the first epoch in which the pair is a candidate and the window
/// overlaps it, and sorted by (time, i, j).
struct Crossings<'a> {
    legs: Vec<LegWindow<'a>>,
    range: f64,
    end: f64,
    epoch: f64,
    epochs: usize,
    e: usize,
    /// Per pair with a solved window reaching beyond the current epoch:
    /// the end of the last one solved.
    solved_to: HashMap<(u32, u32), f64>,
    /// Crossings at or after the horizon (not yet final).
    pending: Vec<(f64, u32, u32)>,
    horizon: f64,
    boxes: Vec<[f64; 4]>,
    grid: HashMap<(i64, i64), Vec<u32>>,
    cand: Vec<(u32, u32)>,
    bounds: Vec<f64>,
    roots: Vec<f64>,
}

impl<'a> Crossings<'a> {
    fn new(trajs: &'a [Trajectory], range: f64, end: f64) -> Self {
        let n = trajs.len();
        let vmax = trajs.iter().map(|t| t.max_speed()).fold(0.0, f64::max);
        let (epoch, epochs) = if vmax <= 0.0 || n < 2 || end <= 0.0 {
            (1.0, 0)
        } else {
            let epoch = (range / vmax).max(1e-3).min(end);
            (epoch, (end / epoch).ceil() as usize)
        };
        Crossings {
            legs: if epochs > 0 { trajs.iter().map(LegWindow::new).collect() } else { Vec::new() },
            range,
            end,
            epoch,
            epochs,
            e: 0,
            solved_to: HashMap::new(),
            pending: Vec::new(),
            horizon: if epochs > 0 { f64::NEG_INFINITY } else { f64::INFINITY },
            boxes: vec![[0.0; 4]; n],
            grid: HashMap::new(),
            cand: Vec::new(),
            bounds: Vec::new(),
            roots: Vec::new(),
        }
    }

    /// Every crossing before this time is in the output sequence.
    fn horizon(&self) -> f64 {
        self.horizon
    }

    fn done(&self) -> bool {
        self.horizon == f64::INFINITY
    }

    /// Solves the next epoch and appends the crossings that became final
    /// to `fin`; false when there was nothing left to do.
    fn advance(&mut self, fin: &mut VecDeque<(f64, u32, u32)>) -> bool {
        if self.done() {
            return false;
        }
        if self.e == self.epochs {
            self.horizon = f64::INFINITY;
        } else {
            self.solve_epoch();
            self.e += 1;
            // A crossing found later lies in a later candidate epoch: one
            // epoch of margin before the one just solved.
            self.horizon = (self.e - 1) as f64 * self.epoch;
        }
        self.pending.sort_by(|a, b| a.0.total_cmp(&b.0).then((a.1, a.2).cmp(&(b.1, b.2))));
        let k = self.pending.partition_point(|r| r.0 < self.horizon);
        debug_assert!(match (fin.back(), self.pending.first()) {
            (Some(b), Some(p)) => p.0 >= b.0,
            _ => true,
        });
        fin.extend(self.pending.drain(..k));
        true
    }

    fn solve_epoch(&mut self) {
        let (e, epoch, end) = (self.e, self.epoch, self.end);
        let reach = self.range + 1.0;
        let (e0, e1) = (e as f64 * epoch, (e + 1) as f64 * epoch);
        let (t0, t1) = (Time::from_secs_f64(e0), Time::from_secs_f64(e1.min(end)));
        let mut ext: f64 = 0.0;
        for (b, w) in self.boxes.iter_mut().zip(&mut self.legs) {
            // Keep the last leg starting before the epoch (a window of
            // the pairs below may start there) and everything after.
            let keep = w.legs.iter().rposition(|l| l.start.as_secs_f64() < e0).unwrap_or(0);
            w.legs.drain(..keep);
            // Legs up to the first one starting after the epoch (and all
            // legs sharing that start).
            w.ensure(Time::from_secs_f64(e1) + Time::from_ns(2));
            if let Some(after) = w.legs.iter().find(|l| l.start.as_secs_f64() > e1).map(|l| l.start) {
                w.ensure(after);
            }
            let p = w.at(t0);
            *b = [p.x, p.y, p.x, p.y];
            let mut grow = |p: Position| {
                b[0] = b[0].min(p.x);
                b[1] = b[1].min(p.y);
                b[2] = b[2].max(p.x);
                b[3] = b[3].max(p.y);
            };
            let first = w.legs.partition_point(|l| l.start <= t0);
            for l in w.legs.range(first..).take_while(|l| l.start < t1) {
                grow(w.at(l.start));
                grow(l.from);
            }
            grow(w.at(t1));
            ext = ext.max(b[2] - b[0]).max(b[3] - b[1]);
        }
        let size = reach + ext;
        let cell =
            |b: &[f64; 4]| (((b[0] + b[2]) / 2.0 / size).floor() as i64, ((b[1] + b[3]) / 2.0 / size).floor() as i64);
        self.grid.values_mut().for_each(Vec::clear);
        for (i, b) in self.boxes.iter().enumerate() {
            self.grid.entry(cell(b)).or_default().push(i as u32);
        }
        self.cand.clear();
        for (i, bi) in self.boxes.iter().enumerate() {
            let (cx, cy) = cell(bi);
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for &j in self.grid.get(&(cx + dx, cy + dy)).map(|v| v.as_slice()).unwrap_or(&[]) {
                        if (j as usize) <= i {
                            continue;
                        }
                        let bj = &self.boxes[j as usize];
                        let gx = (bi[0] - bj[2]).max(bj[0] - bi[2]).max(0.0);
                        let gy = (bi[1] - bj[3]).max(bj[1] - bi[3]).max(0.0);
                        if gx * gx + gy * gy <= reach * reach {
                            self.cand.push((i as u32, j));
                        }
                    }
                }
            }
        }
        let r2 = self.range * self.range;
        for k in 0..self.cand.len() {
            let (i, j) = self.cand[k];
            let from = self.solved_to.get(&(i, j)).copied().unwrap_or(f64::NEG_INFINITY);
            // The pair's window bounds around the epoch: each node's leg
            // starts from its last before the epoch to its first after.
            self.bounds.clear();
            for w in [&self.legs[i as usize], &self.legs[j as usize]] {
                let mut past = false;
                for l in &w.legs {
                    let s = l.start.as_secs_f64();
                    if s >= end || past {
                        break;
                    }
                    past = s > e1;
                    self.bounds.push(s);
                }
            }
            self.bounds.push(end);
            self.bounds.sort_by(f64::total_cmp);
            self.bounds.dedup();
            let mut solved = None;
            for x in 0..self.bounds.len().saturating_sub(1) {
                let (a, b) = (self.bounds[x], self.bounds[x + 1]);
                // Windows overlapping the epoch not solved before (the same
                // tests as the whole-run computation's).
                if b <= a || a < from || e1 < a || e0 > b {
                    continue;
                }
                let (s, mid) = (Time::from_secs_f64(a), Time::from_secs_f64((a + b) / 2.0));
                let (wi, wj) = (i as usize, j as usize);
                let ends = [
                    self.legs[wi].position(s),
                    self.legs[wj].position(s),
                    self.legs[wi].position(mid),
                    self.legs[wj].position(mid),
                ];
                self.roots.clear();
                window_roots_at(ends, a, b, r2, &mut self.roots);
                self.pending.extend(self.roots.iter().map(|&t| (t, i, j)));
                solved = Some(b);
            }
            if let Some(b) = solved {
                self.solved_to.insert((i, j), b);
            }
        }
        // A pair whose solved windows end before the next epoch needs no
        // memory: the windows overlapping later epochs all start after.
        let next = (e + 1) as f64 * epoch;
        self.solved_to.retain(|_, b| *b >= next);
    }
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
