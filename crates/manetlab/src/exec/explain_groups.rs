//! `manetlab explain --groups`: exact attributions for rows that interact.
//!
//! The Shapley split of `explain.rs` samples switching orders; when the
//! rows interact strongly (segment size, window, propagation, RTS on a TCP
//! chain) a handful of orders leaves each row's share uncertain by more
//! than the difference itself. Here the rows are put into a few named
//! groups ([`GROUPS`]: TCP, radio, MAC, queue and ARP, routing) and the
//! difference B - A is split in two levels (Owen 1977, "Values of games
//! with a priori unions"; the coalition-structure value):
//!
//! 1. between the groups, by their **exact Shapley values**: every subset of
//!    groups is run (2^G configurations, G <= 5 on the table today), so a
//!    group's share carries no sampling error;
//! 2. inside each group, by the rows' **Owen values**: for every subset T of
//!    the other groups (weighted as in the Shapley formula over groups) and
//!    every subset S of the group's other rows (weighted within the group),
//!    the row's marginal effect v(T ∪ S ∪ {i}) - v(T ∪ S). This is exact when
//!    the group has few rows (2^m - 2 interior subsets per T, no more than
//!    `orders` x (m - 1) runs of sampled orders would cost); otherwise
//!    `orders` random orders of the group's rows are sampled for every T (an
//!    unbiased estimate). Either way the rows of a group sum exactly to the
//!    group's value, and the groups to B - A (efficiency).
//!
//! Every configuration is run with every seed, so each value is also
//! computed per seed: the reported precision is the 95 % interval of the
//! seed mean (Student t), i.e. the simulation noise, and for sampled groups
//! also the order sampling. `seed_noise` = sum of the groups' half-widths /
//! |B - A|.
//!
//! A configuration is the set of rows switched to B (a bit mask); each is
//! run once per seed and reused by every formula that needs it.

use super::explain::METRICS;
use super::{run_config, Cancel};
use crate::scenario::profile::{Profile, Selection, CHOICES};
use crate::scenario::{Scenario, ScenarioError};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

/// The groups and the rows (profile table ids) in each; a row not listed
/// forms a group of its own.
pub const GROUPS: [(&str, &[&str]); 5] = [
    ("tcp", &["tcp-variant", "tcp-mss", "tcp-delack", "tcp-rto", "tcp-window", "tcp-handshake"]),
    ("radio", &["reception", "cca", "preamble-detection", "capture", "propagation"]),
    ("mac", &["rts", "retry-counters", "immediate-access"]),
    ("queue-arp", &["queue", "arp"]),
    ("routing", &["aodv"]),
];

/// A value with its per-seed spread.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Value {
    /// Mean over the seeds (None: undefined in some configuration).
    pub mean: Option<f64>,
    /// Half-width of the 95 % interval of that mean (None with one seed).
    pub ci95: Option<f64>,
}

#[derive(Clone, Debug)]
pub struct Group {
    pub name: &'static str,
    pub rows: Vec<&'static str>,
    /// True when the rows' values are exact (all subsets run).
    pub exact: bool,
}

#[derive(Clone, Debug)]
pub struct GroupedExplanation {
    pub a: Profile,
    pub b: Profile,
    pub seeds: Vec<u64>,
    pub flow_names: Vec<String>,
    pub groups: Vec<Group>,
    /// Row index (bit) of every row of every group, in group order.
    rows: Vec<&'static str>,
    /// Configuration (mask of rows switched to B) -> per seed, per flow, METRICS.
    runs: BTreeMap<u64, Vec<Vec<[Option<f64>; 3]>>>,
    /// Sampled orders per group (empty when exact).
    orders: Vec<Vec<Vec<usize>>>,
}

/// Runs the grouped explanation of `path` between profiles `a` and `b`.
/// `orders`: orders sampled inside a group too large to enumerate.
pub fn explain_groups<S: AsRef<str> + Sync>(
    path: &Path,
    overrides: &[S],
    a: Profile,
    b: Profile,
    seeds: &[u64],
    orders: usize,
) -> Result<GroupedExplanation, ScenarioError> {
    let load = |sel: &Selection| Scenario::load_selected(path, overrides, sel);
    let seed0 = seeds.first().copied().unwrap_or(1);
    let (ca, cb) = (load(&Selection::of(a))?.config(seed0), load(&Selection::of(b))?.config(seed0));
    // The rows that change this scenario's run, as in explain.rs.
    let mut present = Vec::new();
    for c in CHOICES {
        let fa = load(&Selection::of(a).with(c.id, b))?;
        let lb = load(&Selection::of(b).with(c.id, a))?;
        if fa.config(seed0) != ca || lb.config(seed0) != cb {
            present.push(c.id);
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    for (name, ids) in GROUPS {
        let rows: Vec<&'static str> = ids.iter().copied().filter(|id| present.contains(id)).collect();
        if !rows.is_empty() {
            groups.push(Group { name, rows, exact: true });
        }
    }
    for id in &present {
        if !GROUPS.iter().any(|(_, ids)| ids.contains(id)) {
            groups.push(Group { name: id, rows: vec![*id], exact: true });
        }
    }
    assert!(groups.len() <= 6, "explain --groups: {} groups", groups.len());
    let rows: Vec<&'static str> = groups.iter().flat_map(|g| g.rows.iter().copied()).collect();
    assert!(rows.len() < 64);
    let sizes: Vec<usize> = groups.iter().map(|g| g.rows.len()).collect();
    let offsets: Vec<usize> = sizes.iter().scan(0, |o, n| Some(std::mem::replace(o, *o + n))).collect();
    let gmask = |k: usize| ((1u64 << sizes[k]) - 1) << offsets[k];
    let n_groups = groups.len();
    // Every configuration the formulas need.
    let mut masks = std::collections::BTreeSet::new();
    let mut rng = crate::sim::RngStream::new(0x6e0c95, rows.len() as u64, crate::sim::Purpose::Placement, 0);
    let mut sampled = vec![Vec::new(); n_groups];
    for t in 0..(1u64 << n_groups) {
        let base: u64 = (0..n_groups).filter(|k| t >> k & 1 == 1).map(gmask).sum();
        masks.insert(base);
    }
    for k in 0..n_groups {
        let m = sizes[k];
        let exact = (1usize << m) - 2 <= orders.max(1) * (m.saturating_sub(1)).max(1);
        groups[k].exact = exact;
        if !exact {
            for _ in 0..orders.max(1) {
                let mut o: Vec<usize> = (0..m).collect();
                for i in (1..m).rev() {
                    let j = rng.range_f64(0.0, (i + 1) as f64) as usize;
                    o.swap(i, j.min(i));
                }
                sampled[k].push(o);
            }
        }
        for t in 0..(1u64 << n_groups) {
            if t >> k & 1 == 1 {
                continue;
            }
            let base: u64 = (0..n_groups).filter(|j| t >> j & 1 == 1).map(gmask).sum();
            if exact {
                for s in 0..(1u64 << m) {
                    masks.insert(base | s << offsets[k]);
                }
            } else {
                for o in &sampled[k] {
                    let mut s = 0u64;
                    for &i in o {
                        s |= 1 << i;
                        masks.insert(base | s << offsets[k]);
                    }
                }
            }
        }
    }
    let mut jobs = Vec::new();
    for &mask in &masks {
        let mut sel = Selection::of(a);
        for (i, id) in rows.iter().enumerate() {
            if mask >> i & 1 == 1 {
                sel = sel.with(id, b);
            }
        }
        jobs.push((mask, load(&sel)?));
    }
    let flows = ca.flows.len();
    let tasks: Vec<(usize, usize)> = (0..jobs.len()).flat_map(|j| (0..seeds.len()).map(move |s| (j, s))).collect();
    let done: Vec<Measured> = tasks
        .par_iter()
        .map(|&(j, s)| {
            let r = run_config(jobs[j].1.config(seeds[s]), &Cancel::new(), &AtomicU64::new(0))
                .unwrap_or_else(|e| panic!("explain --groups: configuration {:#x} seed {}: {e}", jobs[j].0, seeds[s]));
            let vals = (0..flows)
                .map(|f| {
                    let fl = r.flows.get(f);
                    [
                        fl.map(|fl| fl.goodput_bps / 1000.0),
                        fl.and_then(|fl| fl.delay_mean_s.map(|d| d * 1000.0)),
                        fl.and_then(|fl| fl.delivery_ratio),
                    ]
                })
                .collect();
            (j, s, vals)
        })
        .collect();
    let mut runs: BTreeMap<u64, Vec<Vec<[Option<f64>; 3]>>> =
        jobs.iter().map(|(m, _)| (*m, vec![Vec::new(); seeds.len()])).collect();
    for (j, s, v) in done {
        runs.get_mut(&jobs[j].0).unwrap()[s] = v;
    }
    Ok(GroupedExplanation {
        a,
        b,
        seeds: seeds.to_vec(),
        flow_names: ca.flows.iter().map(|f| f.name.clone()).collect(),
        groups,
        rows,
        runs,
        orders: sampled,
    })
}

/// One configuration's run: (configuration index, seed index, per flow [goodput, delay, delivery]).
type Measured = (usize, usize, Vec<[Option<f64>; 3]>);

fn factorial(n: usize) -> f64 {
    (1..=n).map(|x| x as f64).product()
}

/// Shapley weight of a coalition of size `s` among `n` players (the
/// player itself excluded from the `n - 1` others).
fn weight(s: usize, n: usize) -> f64 {
    factorial(s) * factorial(n - 1 - s) / factorial(n)
}

/// Two-sided 97.5 % Student t quantile for `df` degrees of freedom.
fn t975(df: usize) -> f64 {
    const T: [f64; 10] = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228];
    if df == 0 {
        f64::NAN
    } else if df <= 10 {
        T[df - 1]
    } else {
        1.96 + 2.5 / df as f64
    }
}

fn summarize(per_seed: &[Option<f64>]) -> Value {
    let v: Option<Vec<f64>> = per_seed.iter().copied().collect();
    let Some(v) = v.filter(|v| !v.is_empty()) else { return Value { mean: None, ci95: None } };
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let ci95 = (v.len() > 1).then(|| {
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        t975(v.len() - 1) * (var / n).sqrt()
    });
    Value { mean: Some(mean), ci95 }
}

impl GroupedExplanation {
    fn offset(&self, k: usize) -> usize {
        self.groups[..k].iter().map(|g| g.rows.len()).sum()
    }

    fn gmask(&self, k: usize) -> u64 {
        ((1u64 << self.groups[k].rows.len()) - 1) << self.offset(k)
    }

    fn v(&self, mask: u64, seed: usize, f: usize, m: usize) -> Option<f64> {
        self.runs.get(&mask).unwrap_or_else(|| panic!("configuration {mask:#x} not run"))[seed][f][m]
    }

    fn full(&self) -> u64 {
        (0..self.groups.len()).map(|k| self.gmask(k)).sum()
    }

    /// B - A of flow `f`, metric `m`, per seed and summarized.
    pub fn total(&self, f: usize, m: usize) -> Value {
        let full = self.full();
        let per: Vec<Option<f64>> =
            (0..self.seeds.len()).map(|s| Some(self.v(full, s, f, m)? - self.v(0, s, f, m)?)).collect();
        summarize(&per)
    }

    /// The value of profile A (`false`) or B (`true`).
    pub fn base(&self, b: bool, f: usize, m: usize) -> Value {
        let mask = if b { self.full() } else { 0 };
        summarize(&(0..self.seeds.len()).map(|s| self.v(mask, s, f, m)).collect::<Vec<_>>())
    }

    /// The mask of the groups in `t` (bit k = group k) switched to B.
    fn groups_mask(&self, t: u64) -> u64 {
        (0..self.groups.len()).filter(|k| t >> k & 1 == 1).map(|k| self.gmask(k)).sum()
    }

    /// Exact Shapley value of group `k` for seed `s`.
    fn group_value_seed(&self, k: usize, s: usize, f: usize, m: usize) -> Option<f64> {
        let g = self.groups.len();
        let mut sum = 0.0;
        for t in 0..(1u64 << g) {
            if t >> k & 1 == 1 {
                continue;
            }
            let base = self.groups_mask(t);
            let w = weight(t.count_ones() as usize, g);
            sum += w * (self.v(base | self.gmask(k), s, f, m)? - self.v(base, s, f, m)?);
        }
        Some(sum)
    }

    /// Owen value of row `i` of group `k` for seed `s`.
    fn row_value_seed(&self, k: usize, i: usize, s: usize, f: usize, m: usize) -> Option<f64> {
        let g = self.groups.len();
        let rows = self.groups[k].rows.len();
        let off = self.offset(k);
        let mut sum = 0.0;
        for t in 0..(1u64 << g) {
            if t >> k & 1 == 1 {
                continue;
            }
            let base = self.groups_mask(t);
            let wt = weight(t.count_ones() as usize, g);
            if self.groups[k].exact {
                for sub in 0..(1u64 << rows) {
                    if sub >> i & 1 == 1 {
                        continue;
                    }
                    let ws = weight(sub.count_ones() as usize, rows);
                    let with = self.v(base | (sub | 1 << i) << off, s, f, m)?;
                    let without = self.v(base | sub << off, s, f, m)?;
                    sum += wt * ws * (with - without);
                }
            } else {
                let orders = &self.orders[k];
                let mut inner = 0.0;
                for o in orders {
                    let pos = o.iter().position(|&x| x == i).unwrap();
                    let before: u64 = o[..pos].iter().map(|&x| 1u64 << x).sum();
                    inner +=
                        self.v(base | (before | 1 << i) << off, s, f, m)? - self.v(base | before << off, s, f, m)?;
                }
                sum += wt * inner / orders.len() as f64;
            }
        }
        Some(sum)
    }

    /// Group `k`'s exact Shapley value with its seed interval.
    pub fn group_value(&self, k: usize, f: usize, m: usize) -> Value {
        summarize(&(0..self.seeds.len()).map(|s| self.group_value_seed(k, s, f, m)).collect::<Vec<_>>())
    }

    /// Row `i` of group `k`: its Owen value with its seed interval.
    pub fn row_value(&self, k: usize, i: usize, f: usize, m: usize) -> Value {
        summarize(&(0..self.seeds.len()).map(|s| self.row_value_seed(k, i, s, f, m)).collect::<Vec<_>>())
    }

    /// Sum of the groups' values over B - A (1 by construction unless a
    /// metric is undefined somewhere); None when B = A.
    pub fn attributed(&self, f: usize, m: usize) -> Option<f64> {
        let t = self.total(f, m).mean?;
        if t.abs() < 1e-12 {
            return None;
        }
        let sum: Option<f64> = (0..self.groups.len()).map(|k| self.group_value(k, f, m).mean).sum();
        Some(1.0 - (t - sum?).abs() / t.abs())
    }

    /// Sum of the groups' 95 % half-widths (seed noise) over |B - A|.
    pub fn seed_noise(&self, f: usize, m: usize) -> Option<f64> {
        let t = self.total(f, m).mean?;
        if t.abs() < 1e-12 {
            return None;
        }
        let sum: Option<f64> = (0..self.groups.len()).map(|k| self.group_value(k, f, m).ci95).sum();
        Some(sum? / t.abs())
    }

    /// Configurations run (each with every seed).
    pub fn configurations(&self) -> usize {
        self.runs.len()
    }

    /// Long table: one line per flow, metric, group and row.
    pub fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let f6 = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:.6}"));
        w.write_record([
            "flow",
            "metric",
            "group",
            "row",
            self.a.name(),
            self.b.name(),
            "total",
            "value",
            "value_ci95",
            "exact",
            "attributed",
            "seed_noise",
        ])
        .unwrap();
        for (f, name) in self.flow_names.iter().enumerate() {
            for (m, metric) in METRICS.iter().enumerate() {
                let common = [self.base(false, f, m).mean, self.base(true, f, m).mean, self.total(f, m).mean].map(f6);
                let tail = [f6(self.attributed(f, m)), f6(self.seed_noise(f, m))];
                for (k, g) in self.groups.iter().enumerate() {
                    let gv = self.group_value(k, f, m);
                    let head = [name.clone(), metric.to_string(), g.name.to_string(), String::new()];
                    let vals = [f6(gv.mean), f6(gv.ci95), "true".into()];
                    w.write_record(head.into_iter().chain(common.clone()).chain(vals).chain(tail.clone())).unwrap();
                    for (i, row) in g.rows.iter().enumerate() {
                        let rv = self.row_value(k, i, f, m);
                        let head = [name.clone(), metric.to_string(), g.name.to_string(), row.to_string()];
                        let vals = [f6(rv.mean), f6(rv.ci95), g.exact.to_string()];
                        w.write_record(head.into_iter().chain(common.clone()).chain(vals).chain(tail.clone())).unwrap();
                    }
                }
            }
        }
        String::from_utf8(w.into_inner().unwrap()).unwrap()
    }

    /// The Markdown report: one table per flow and metric.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let n = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:+.2}"));
        let pm = |v: Value| match (v.mean, v.ci95) {
            (Some(x), Some(c)) => format!("{x:+.2} ± {c:.2}"),
            (x, _) => n(x),
        };
        let pct = |x: Option<f64>| x.map_or("—".to_string(), |x| format!("{:.0} %", x * 100.0));
        let _ = writeln!(s, "# Why {} and {} disagree: exact group attributions\n", self.a, self.b);
        let _ = writeln!(
            s,
            "Seeds: {:?}; {} configurations, each run with every seed. Groups: {}. A group's value is its exact \
             Shapley value over the groups (every subset of groups run); a row's value is its Owen value inside \
             its group (exact: every subset of the group's rows run with every subset of the other groups; \
             sampled: {} random orders of the group's rows for every subset of the other groups). Rows sum to \
             their group, groups to the difference. ± = 95 % interval of the seed mean (simulation noise). \
             See docs/profiles.md.\n",
            self.seeds,
            self.configurations(),
            self.groups
                .iter()
                .map(|g| format!("{} ({}{})", g.name, g.rows.join(", "), if g.exact { "" } else { "; sampled" }))
                .collect::<Vec<_>>()
                .join("; "),
            self.orders.iter().map(|o| o.len()).max().unwrap_or(0),
        );
        for (f, name) in self.flow_names.iter().enumerate() {
            for (m, metric) in METRICS.iter().enumerate() {
                let t = self.total(f, m);
                let _ = writeln!(
                    s,
                    "## {name}: {metric}\n\n{} {}, {} {}, difference {}; attributed to named groups: {}; \
                     seed noise (sum of the groups' 95 % half-widths / difference): {}\n",
                    self.a,
                    self.base(false, f, m).mean.map_or("—".into(), |v| format!("{v:.2}")),
                    self.b,
                    self.base(true, f, m).mean.map_or("—".into(), |v| format!("{v:.2}")),
                    pm(t),
                    pct(self.attributed(f, m)),
                    pct(self.seed_noise(f, m)),
                );
                let _ = writeln!(s, "| group / row | value ± 95 % | share of difference | |\n|---|---|---|---|");
                let share = |v: Option<f64>| match (v, t.mean) {
                    (Some(v), Some(t)) if t.abs() > 1e-12 => format!("{:.0} %", v / t * 100.0),
                    _ => "—".into(),
                };
                for (k, g) in self.groups.iter().enumerate() {
                    let gv = self.group_value(k, f, m);
                    let _ = writeln!(s, "| **{}** | {} | {} | exact |", g.name, pm(gv), share(gv.mean));
                    if g.rows.len() > 1 {
                        for (i, row) in g.rows.iter().enumerate() {
                            let rv = self.row_value(k, i, f, m);
                            let how = if g.exact { "exact" } else { "sampled" };
                            let _ = writeln!(s, "| &nbsp;&nbsp;{row} | {} | {} | {how} |", pm(rv), share(rv.mean));
                        }
                    }
                }
                s.push('\n');
            }
        }
        s
    }

    /// Writes `groups.md` and `groups.csv` into `dir`.
    pub fn write(&self, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let mut files = Vec::new();
        for (name, text) in [("groups.csv", self.csv()), ("groups.md", self.markdown())] {
            let p = dir.join(name);
            std::fs::write(&p, text)?;
            files.push(p);
        }
        Ok(files)
    }

    /// All rows, in group order.
    pub fn rows(&self) -> &[&'static str] {
        &self.rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapley_weights_sum_to_one_over_the_coalitions() {
        for n in 1..7usize {
            // sum over subsets of the n-1 others: C(n-1, s) * w(s, n) = 1
            let mut total = 0.0;
            for s in 0..n {
                let c = factorial(n - 1) / (factorial(s) * factorial(n - 1 - s));
                total += c * weight(s, n);
            }
            assert!((total - 1.0).abs() < 1e-12, "n {n}: {total}");
        }
        assert_eq!(summarize(&[Some(1.0), None]).mean, None);
        let v = summarize(&[Some(1.0), Some(3.0)]);
        assert_eq!(v.mean, Some(2.0));
        assert!((v.ci95.unwrap() - 12.706).abs() < 1e-9);
    }
}
