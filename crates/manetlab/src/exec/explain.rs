//! `manetlab explain`: why two simulator profiles disagree on a scenario.
//!
//! Runs the scenario under profile A and under profile B, then switches the
//! rows of the profile table (`scenario/profile.rs`) that differ on this
//! scenario one at a time and reports, per flow and metric (goodput, mean
//! delay, delivery ratio), how much of the B - A difference each choice
//! accounts for:
//!
//! - `first`: the effect of switching the row alone, starting from A;
//! - `last`: the effect of switching it last, i.e. B minus B with the row
//!   taken back from A;
//! - `share`: (first + last) / 2, a reading aid (the row's effect averaged
//!   over switching it first and last);
//! - pairs: the rows whose first and last effects differ most (they
//!   interact) are also switched two at a time from A; a pair's
//!   interaction is pair - first_i - first_j;
//! - `residual`: B - A minus the single effects and the pair interactions,
//!   what no named choice or pair explains; `attributed` =
//!   1 - |residual| / |B - A|;
//! - the waterfall: rows switched cumulatively from A to B in order of
//!   decreasing |first| (each step's change, summing exactly to B - A).
//!
//! A row that does not change this scenario's run (an AODV row on a DSR
//! scenario, a TCP row without TCP flows, a key the file sets itself) is
//! left out. Every run is a pure function of (scenario, selection, seed),
//! so the tables are deterministic.

use super::{run_config, Cancel};
use crate::scenario::profile::{Profile, Selection, CHOICES};
use crate::scenario::{Scenario, ScenarioError};
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

/// The metrics explained.
pub const METRICS: [&str; 3] = ["goodput_kbps", "delay_ms", "delivery_ratio"];

/// Means over the seeds of each flow's metrics (None: undefined in every seed).
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub label: String,
    /// flows x METRICS.
    pub values: Vec<[Option<f64>; 3]>,
}

/// One row of the explanation for one flow and metric.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribution {
    pub choice: &'static str,
    pub first: Option<f64>,
    pub last: Option<f64>,
    pub share: Option<f64>,
    pub waterfall: Option<f64>,
    /// Mean marginal effect over the switching orders (Shapley value
    /// estimate); the values of all rows sum to B - A.
    pub shapley: Option<f64>,
    /// Half-width of its 95 % interval over the orders (None with one order).
    pub shapley_ci95: Option<f64>,
}

#[derive(Clone, Debug)]
pub struct Explanation {
    pub a: Profile,
    pub b: Profile,
    pub seeds: Vec<u64>,
    pub flow_names: Vec<String>,
    /// The rows that differ on this scenario, in waterfall order.
    pub choices: Vec<&'static str>,
    pub base_a: Point,
    pub base_b: Point,
    pub first: Vec<Point>,
    pub last: Vec<Point>,
    /// Cumulative: after switching choices[0..=k].
    pub cumulative: Vec<Point>,
    /// (i, j, both switched from A).
    pub pairs: Vec<(usize, usize, Point)>,
    /// Orders the rows were switched in from A to B (the first is the
    /// waterfall's) and the points after each step (the last is B).
    pub orders: Vec<Vec<usize>>,
    pub chains: Vec<Vec<Point>>,
}

/// Runs the explanation of `path` (with `overrides`) between profiles `a`
/// and `b` over `seeds`; the `pairs` rows that interact most are also
/// switched two at a time; the rows are switched from A to B in
/// `permutations` orders for the Shapley values.
pub fn explain<S: AsRef<str> + Sync>(
    path: &Path,
    overrides: &[S],
    a: Profile,
    b: Profile,
    seeds: &[u64],
    pairs: usize,
    permutations: usize,
) -> Result<Explanation, ScenarioError> {
    let load = |sel: &Selection| Scenario::load_selected(path, overrides, sel);
    let sa = load(&Selection::of(a))?;
    let sb = load(&Selection::of(b))?;
    let seed0 = seeds.first().copied().unwrap_or(1);
    let (ca, cb) = (sa.config(seed0), sb.config(seed0));
    let mut rows = Vec::new();
    for c in CHOICES {
        let fa = load(&Selection::of(a).with(c.id, b))?;
        let lb = load(&Selection::of(b).with(c.id, a))?;
        if fa.config(seed0) != ca || lb.config(seed0) != cb {
            rows.push((c.id, fa, lb));
        }
    }
    let flow_names: Vec<String> = ca.flows.iter().map(|f| f.name.clone()).collect();
    let mut jobs: Vec<(String, Scenario)> = vec![(a.name().into(), sa), (b.name().into(), sb)];
    for (id, fa, lb) in &rows {
        jobs.push((format!("first {id}"), fa.clone()));
        jobs.push((format!("last {id}"), lb.clone()));
    }
    let mut points = run_points(&jobs, seeds, flow_names.len());
    let base_b = points.remove(1);
    let base_a = points.remove(0);
    let mut first = Vec::new();
    let mut last = Vec::new();
    for (i, p) in points.into_iter().enumerate() {
        if i % 2 == 0 {
            first.push(p)
        } else {
            last.push(p)
        }
    }
    // Waterfall order: decreasing |first effect| on flow 0's goodput (then
    // table order, so ties are deterministic).
    let effect = |p: &Point| match (p.values.first().and_then(|v| v[0]), base_a.values.first().and_then(|v| v[0])) {
        (Some(x), Some(y)) => (x - y).abs(),
        _ => 0.0,
    };
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&i, &j| effect(&first[j]).total_cmp(&effect(&first[i])).then(i.cmp(&j)));
    let choices: Vec<&'static str> = order.iter().map(|&i| rows[i].0).collect();
    let first: Vec<Point> = order.iter().map(|&i| first[i].clone()).collect();
    let last: Vec<Point> = order.iter().map(|&i| last[i].clone()).collect();

    let mut cum_jobs = Vec::new();
    let mut sel = Selection::of(a);
    for (k, id) in choices.iter().enumerate() {
        sel = sel.with(id, b);
        if k + 1 < choices.len() {
            cum_jobs.push((format!("+ {id}"), load(&sel)?));
        }
    }
    // Pairs among the rows whose effect depends most on the others
    // (largest |last - first| on flow 0's goodput).
    let spread = |i: usize| match (
        first[i].values.first().and_then(|v| v[0]),
        last[i].values.first().and_then(|v| v[0]),
        base_a.values.first().and_then(|v| v[0]),
        base_b.values.first().and_then(|v| v[0]),
    ) {
        (Some(f), Some(l), Some(a0), Some(b0)) => ((f - a0) - (b0 - l)).abs(),
        _ => 0.0,
    };
    let mut by_spread: Vec<usize> = (0..choices.len()).collect();
    by_spread.sort_by(|&i, &j| spread(j).total_cmp(&spread(i)).then(i.cmp(&j)));
    by_spread.truncate(pairs.min(choices.len()));
    by_spread.sort_unstable();
    let mut pair_idx = Vec::new();
    for (x, &i) in by_spread.iter().enumerate() {
        for &j in &by_spread[x + 1..] {
            pair_idx.push((i, j));
            cum_jobs.push((
                format!("pair {} + {}", choices[i], choices[j]),
                load(&Selection::of(a).with(choices[i], b).with(choices[j], b))?,
            ));
        }
    }
    // Further orders for the Shapley values: the reverse of the waterfall,
    // then fixed pseudo-random shuffles (a pure function of the row count).
    let k = choices.len();
    let mut orders: Vec<Vec<usize>> = vec![(0..k).collect()];
    if k > 1 && permutations > 1 {
        orders.push((0..k).rev().collect());
    }
    let mut rng = crate::sim::RngStream::new(0x5e1ec7, k as u64, crate::sim::Purpose::Placement, 0);
    while orders.len() < permutations.max(1) && k > 2 {
        let mut o: Vec<usize> = (0..k).collect();
        for i in (1..k).rev() {
            let j = rng.range_f64(0.0, (i + 1) as f64) as usize;
            o.swap(i, j.min(i));
        }
        orders.push(o);
    }
    let n_pairs = pair_idx.len();
    for o in &orders[1..] {
        let mut sel = Selection::of(a);
        for (step, &i) in o.iter().enumerate() {
            sel = sel.with(choices[i], b);
            if step + 1 < k {
                cum_jobs.push((format!("order step {step}"), load(&sel)?));
            }
        }
    }
    let mut more = run_points(&cum_jobs, seeds, flow_names.len());
    let rest = more.split_off(k.saturating_sub(1));
    let mut cumulative = more;
    if k > 0 {
        cumulative.push(Point { label: format!("+ {}", choices[k - 1]), ..base_b.clone() });
    }
    let mut rest = rest.into_iter();
    let pairs = pair_idx.into_iter().zip(rest.by_ref().take(n_pairs)).map(|((i, j), p)| (i, j, p)).collect();
    let mut chains = vec![cumulative.clone()];
    for _ in &orders[1..] {
        let mut c: Vec<Point> = rest.by_ref().take(k.saturating_sub(1)).collect();
        c.push(base_b.clone());
        chains.push(c);
    }
    Ok(Explanation {
        a,
        b,
        seeds: seeds.to_vec(),
        flow_names,
        choices,
        base_a,
        base_b,
        first,
        last,
        cumulative,
        pairs,
        orders,
        chains,
    })
}

fn run_points(jobs: &[(String, Scenario)], seeds: &[u64], flows: usize) -> Vec<Point> {
    let tasks: Vec<(usize, u64)> = (0..jobs.len()).flat_map(|j| seeds.iter().map(move |&s| (j, s))).collect();
    let reports: Vec<(usize, crate::metrics::report::Report)> = tasks
        .par_iter()
        .map(|&(j, s)| {
            let r = run_config(jobs[j].1.config(s), &Cancel::new(), &AtomicU64::new(0))
                .unwrap_or_else(|e| panic!("explain: run {} seed {s}: {e}", jobs[j].0));
            (j, r)
        })
        .collect();
    jobs.iter()
        .enumerate()
        .map(|(j, (label, _))| {
            let mine: Vec<_> = reports.iter().filter(|(k, _)| *k == j).map(|(_, r)| r).collect();
            let values = (0..flows)
                .map(|f| {
                    let mean = |get: &dyn Fn(&crate::metrics::report::FlowReport) -> Option<f64>| {
                        let v: Vec<f64> = mine.iter().filter_map(|r| r.flows.get(f).and_then(get)).collect();
                        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
                    };
                    [
                        mean(&|fl| Some(fl.goodput_bps / 1000.0)),
                        mean(&|fl| fl.delay_mean_s.map(|d| d * 1000.0)),
                        mean(&|fl| fl.delivery_ratio),
                    ]
                })
                .collect();
            Point { label: label.clone(), values }
        })
        .collect()
}

fn diff(x: Option<f64>, y: Option<f64>) -> Option<f64> {
    Some(x? - y?)
}

impl Explanation {
    /// B - A for flow `f`, metric `m`.
    pub fn total(&self, f: usize, m: usize) -> Option<f64> {
        diff(self.base_b.values[f][m], self.base_a.values[f][m])
    }

    /// Per choice, in waterfall order.
    pub fn attributions(&self, f: usize, m: usize) -> Vec<Attribution> {
        let a = self.base_a.values[f][m];
        let b = self.base_b.values[f][m];
        (0..self.choices.len())
            .map(|i| {
                let first = diff(self.first[i].values[f][m], a);
                let last = diff(b, self.last[i].values[f][m]);
                let share = match (first, last) {
                    (Some(x), Some(y)) => Some((x + y) / 2.0),
                    (x, y) => x.or(y),
                };
                let prev = if i == 0 { a } else { self.cumulative[i - 1].values[f][m] };
                let marg: Vec<f64> = self
                    .orders
                    .iter()
                    .zip(&self.chains)
                    .filter_map(|(o, c)| {
                        let step = o.iter().position(|&x| x == i)?;
                        let before = if step == 0 { a } else { c[step - 1].values[f][m] };
                        diff(c[step].values[f][m], before)
                    })
                    .collect();
                let n = marg.len() as f64;
                let shapley = (!marg.is_empty()).then(|| marg.iter().sum::<f64>() / n);
                let shapley_ci95 = match shapley {
                    Some(mu) if marg.len() > 1 => {
                        let var = marg.iter().map(|x| (x - mu).powi(2)).sum::<f64>() / (n - 1.0);
                        Some(1.96 * (var / n).sqrt())
                    }
                    _ => None,
                };
                Attribution {
                    choice: self.choices[i],
                    first,
                    last,
                    share,
                    waterfall: diff(self.cumulative[i].values[f][m], prev),
                    shapley,
                    shapley_ci95,
                }
            })
            .collect()
    }

    /// The interaction of pair `k` (both switched from A, minus each alone).
    pub fn pair_interaction(&self, k: usize, f: usize, m: usize) -> Option<f64> {
        let (i, j, p) = &self.pairs[k];
        let a = self.base_a.values[f][m];
        Some(diff(p.values[f][m], a)? - diff(self.first[*i].values[f][m], a)? - diff(self.first[*j].values[f][m], a)?)
    }

    /// What the named choices and named pairs explain: the sum of the
    /// single effects from A plus the pair interactions.
    pub fn explained(&self, f: usize, m: usize) -> f64 {
        let singles: f64 = self.attributions(f, m).iter().filter_map(|x| x.first).sum();
        let pairs: f64 = (0..self.pairs.len()).filter_map(|k| self.pair_interaction(k, f, m)).sum();
        singles + pairs
    }

    /// The part of B - A attributed to named choices: 1 - |B - A - sum of
    /// the Shapley values| / |B - A|. Every order ends at B, so this is 1
    /// unless something outside the profile rows differs (or a metric is
    /// undefined part of the way); how precisely the difference is split
    /// between the rows is [`Attribution::shapley_ci95`] and
    /// [`Explanation::unsettled`]. None when B = A.
    pub fn attributed(&self, f: usize, m: usize) -> Option<f64> {
        let total = self.total(f, m)?;
        if total.abs() < 1e-12 {
            return None;
        }
        let sum: f64 = self.attributions(f, m).iter().filter_map(|x| x.shapley).sum();
        Some(1.0 - (total - sum).abs() / total.abs())
    }

    /// Sum of the rows' 95 % half-widths over |B - A|: how much of the split
    /// the orders sampled leave unsettled (rows that interact strongly).
    pub fn unsettled(&self, f: usize, m: usize) -> Option<f64> {
        let total = self.total(f, m)?;
        if total.abs() < 1e-12 {
            return None;
        }
        Some(self.attributions(f, m).iter().filter_map(|x| x.shapley_ci95).sum::<f64>() / total.abs())
    }

    /// 1 - |B - A - (single effects + pair interactions)| / |B - A|: how far
    /// the second-order expansion from A goes; None when B = A.
    pub fn second_order(&self, f: usize, m: usize) -> Option<f64> {
        let total = self.total(f, m)?;
        if total.abs() < 1e-12 {
            return None;
        }
        Some(1.0 - (total - self.explained(f, m)).abs() / total.abs())
    }

    /// The long table: one line per flow, metric and choice (plus the
    /// interaction and the pairs).
    pub fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let f6 = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:.6}"));
        w.write_record([
            "flow",
            "metric",
            "row",
            self.a.name(),
            self.b.name(),
            "total",
            "first",
            "last",
            "share",
            "waterfall",
            "shapley",
            "shapley_ci95",
            "attributed",
        ])
        .unwrap();
        for (f, name) in self.flow_names.iter().enumerate() {
            for (m, metric) in METRICS.iter().enumerate() {
                let (a, b, t) = (self.base_a.values[f][m], self.base_b.values[f][m], self.total(f, m));
                let att = f6(self.attributed(f, m));
                for x in self.attributions(f, m) {
                    let row = [name.as_str(), metric, x.choice];
                    let vals = [a, b, t, x.first, x.last, x.share, x.waterfall, x.shapley, x.shapley_ci95].map(f6);
                    w.write_record(row.iter().map(|s| s.to_string()).chain(vals).chain([att.clone()])).unwrap();
                }
                for (k, (i, j, _)) in self.pairs.iter().enumerate() {
                    let label = format!("{} x {}", self.choices[*i], self.choices[*j]);
                    let vals = [a, b, t, self.pair_interaction(k, f, m), None, None, None, None, None].map(f6);
                    let row = [name.clone(), metric.to_string(), label];
                    w.write_record(row.into_iter().chain(vals).chain([att.clone()])).unwrap();
                }
                let residual = t.map(|t| t - self.explained(f, m));
                let vals = [a, b, t, residual, None, None, None, None, None].map(f6);
                let row = [name.clone(), metric.to_string(), "residual".into()];
                w.write_record(row.into_iter().chain(vals).chain([att.clone()])).unwrap();
            }
        }
        String::from_utf8(w.into_inner().unwrap()).unwrap()
    }

    /// The Markdown report: one table per flow and metric.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let n = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:+.2}"));
        let v = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:.2}"));
        let _ = writeln!(s, "# Why {} and {} disagree\n", self.a, self.b);
        let _ = writeln!(
            s,
            "Seeds: {:?}. Rows of the profile table that change this scenario: {}. \
             `first`: switching the row alone from {a}; `last`: B minus B with the row back at {a}; \
             `share` = (first + last) / 2; `waterfall`: the step when rows are switched one after \
             another in this order (the steps sum to the total); `A x B (interaction)`: both \
             switched from {a} minus each alone; `residual`: the total minus the single (first) \
             effects and the pair interactions; attributed = 1 - |residual| / |total|; share of \
             total: first effect (pairs: interaction) / total. See docs/profiles.md.\n",
            self.seeds,
            self.choices.join(", "),
            a = self.a
        );
        for (f, name) in self.flow_names.iter().enumerate() {
            for (m, metric) in METRICS.iter().enumerate() {
                let t = self.total(f, m);
                let _ = writeln!(
                    s,
                    "## {name}: {metric}\n\n{} {}, {} {}, difference {}; attributed to named choices: {}\n",
                    self.a,
                    v(self.base_a.values[f][m]),
                    self.b,
                    v(self.base_b.values[f][m]),
                    n(t),
                    self.attributed(f, m).map_or("—".into(), |x| format!("{:.0} %", x * 100.0))
                );
                let _ = writeln!(
                    s,
                    "Unsettled by the {} orders (sum of 95 % half-widths / difference): {}. \
                     Second-order expansion from {} (single effects + pair interactions) explains {}.\n",
                    self.orders.len(),
                    self.unsettled(f, m).map_or("—".into(), |x| format!("{:.0} %", x * 100.0)),
                    self.a,
                    self.second_order(f, m).map_or("—".into(), |x| format!("{:.0} %", x * 100.0))
                );
                let _ = writeln!(
                    s,
                    "| choice | Shapley ± 95 % | Shapley share | first | last | first share | waterfall |\n|---|---|---|---|---|---|---|"
                );
                let atts = self.attributions(f, m);
                for x in &atts {
                    let pct = match (x.first, t) {
                        (Some(sh), Some(t)) if t.abs() > 1e-12 => format!("{:.0} %", sh / t * 100.0),
                        _ => "—".into(),
                    };
                    let sh = match (x.shapley, t) {
                        (Some(v), Some(t)) if t.abs() > 1e-12 => format!("{:.0} %", v / t * 100.0),
                        _ => "—".into(),
                    };
                    let ci = x.shapley_ci95.map_or(String::new(), |c| format!(" ± {c:.2}"));
                    let _ = writeln!(
                        s,
                        "| {} | {}{ci} | {sh} | {} | {} | {pct} | {} |",
                        x.choice,
                        n(x.shapley),
                        n(x.first),
                        n(x.last),
                        n(x.waterfall)
                    );
                }
                for (k, (i, j, _)) in self.pairs.iter().enumerate() {
                    let int = self.pair_interaction(k, f, m);
                    let pct = match (int, t) {
                        (Some(x), Some(t)) if t.abs() > 1e-12 => format!("{:.0} %", x / t * 100.0),
                        _ => "—".into(),
                    };
                    let _ = writeln!(
                        s,
                        "| {} x {} (interaction) | | | {} | | {pct} | |",
                        self.choices[*i],
                        self.choices[*j],
                        n(int)
                    );
                }
                let _ =
                    writeln!(s, "| residual of the expansion | | | {} | | | |", n(t.map(|t| t - self.explained(f, m))));
                s.push('\n');
            }
        }
        s
    }

    /// The waterfall of flow `f`, metric `m` as CSV (step, start, end).
    pub fn waterfall_csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(["flow", "metric", "step", "from", "to"]).unwrap();
        let f6 = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:.6}"));
        for (f, name) in self.flow_names.iter().enumerate() {
            for (m, metric) in METRICS.iter().enumerate() {
                let mut prev = self.base_a.values[f][m];
                w.write_record([name.clone(), metric.to_string(), self.a.name().into(), String::new(), f6(prev)])
                    .unwrap();
                for (i, c) in self.choices.iter().enumerate() {
                    let now = self.cumulative[i].values[f][m];
                    w.write_record([name.clone(), metric.to_string(), c.to_string(), f6(prev), f6(now)]).unwrap();
                    prev = now;
                }
                w.write_record([
                    name.clone(),
                    metric.to_string(),
                    self.b.name().into(),
                    String::new(),
                    f6(self.base_b.values[f][m]),
                ])
                .unwrap();
            }
        }
        String::from_utf8(w.into_inner().unwrap()).unwrap()
    }

    /// A waterfall of flow `f`'s metric `m` as a small self-contained SVG.
    pub fn waterfall_svg(&self, f: usize, m: usize) -> String {
        let mut bars: Vec<(String, f64, f64)> = Vec::new();
        let a = self.base_a.values[f][m].unwrap_or(0.0);
        bars.push((self.a.name().into(), 0.0, a));
        let mut prev = a;
        for (i, c) in self.choices.iter().enumerate() {
            let now = self.cumulative[i].values[f][m].unwrap_or(prev);
            bars.push((c.to_string(), prev, now));
            prev = now;
        }
        bars.push((self.b.name().into(), 0.0, self.base_b.values[f][m].unwrap_or(0.0)));
        let top = bars.iter().map(|b| b.1.max(b.2)).fold(0.0f64, f64::max).max(1e-9) * 1.08;
        let low = bars.iter().map(|b| b.1.min(b.2)).fold(0.0f64, f64::min);
        let (w, h, left, bottom, top_m) = (60.0 * bars.len() as f64 + 90.0, 360.0, 70.0, 110.0, 30.0);
        let y = |v: f64| top_m + (top - v) / (top - low) * (h - bottom - top_m);
        let mut s = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" font-family=\"sans-serif\" font-size=\"11\">\n\
             <text x=\"{left}\" y=\"18\" font-size=\"13\">{}: {} from {} to {}</text>\n\
             <line x1=\"{left}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"black\"/>\n",
            self.flow_names[f],
            METRICS[m],
            self.a,
            self.b,
            y(0.0),
            w - 10.0,
            y(0.0)
        );
        for k in 0..=4 {
            let v = low + (top - low) * k as f64 / 4.0;
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{v:.1}</text><line x1=\"{left}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>",
                left - 4.0,
                y(v) + 4.0,
                y(v),
                w - 10.0,
                y(v)
            );
        }
        for (i, (label, from, to)) in bars.iter().enumerate() {
            let x = left + 10.0 + 60.0 * i as f64;
            let end = i == 0 || i + 1 == bars.len();
            // Okabe-Ito: blue for the two profiles, green up, vermillion down.
            let color = if end {
                "#0072B2"
            } else if to >= from {
                "#009E73"
            } else {
                "#D55E00"
            };
            let (y0, y1) = (y(from.max(*to)), y(from.min(*to)));
            let _ = writeln!(
                s,
                "<rect x=\"{x:.1}\" y=\"{y0:.1}\" width=\"44\" height=\"{:.1}\" fill=\"{color}\"/>\
                 <text transform=\"translate({:.1},{:.1}) rotate(45)\">{label}</text>",
                (y1 - y0).max(0.5),
                x + 10.0,
                h - bottom + 14.0
            );
        }
        s.push_str("</svg>\n");
        s
    }

    /// Writes `explain.csv`, `explain.md`, `waterfall.csv` and one
    /// `waterfall-<flow>-<metric>.svg` per flow and metric into `dir`.
    pub fn write(&self, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let mut files = Vec::new();
        for (name, text) in
            [("explain.csv", self.csv()), ("explain.md", self.markdown()), ("waterfall.csv", self.waterfall_csv())]
        {
            let p = dir.join(name);
            std::fs::write(&p, text)?;
            files.push(p);
        }
        for f in 0..self.flow_names.len() {
            for (m, metric) in METRICS.iter().enumerate() {
                let p = dir.join(format!("waterfall-{f}-{metric}.svg"));
                std::fs::write(&p, self.waterfall_svg(f, m))?;
                files.push(p);
            }
        }
        Ok(files)
    }
}
