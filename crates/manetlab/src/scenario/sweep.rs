//! Parameter sweeps over a scenario: each axis is a key (as for `--set`) and
//! a list of points; axes combine as a cartesian product, except zipped axes
//! (`[sweep.zip]`), which advance together. Each point runs for every
//! replication.
//!
//! In a scenario file:
//!
//! ```toml
//! [sweep]
//! "mac.rts_threshold" = [0, 3000]                        # a list
//! "flow.0.interval" = { from = "10ms", to = "50ms", step = "10ms" }   # a range
//! "mobility.speed" = [["0.1m/s", "5m/s"], ["0.1m/s", "20m/s"]]   # list-valued points
//!
//! [sweep.zip]                  # zipped: 3 points, not 9
//! "topology.nodes" = [50, 100, 200]
//! "topology.area" = [["300m", "1500m"], ["424m", "2121m"], ["600m", "3000m"]]
//! ```
//!
//! On the command line: `--sweep flow.0.interval=10ms,20ms,50ms`,
//! `--sweep flow.0.interval=10ms..50ms:10ms`, or a TOML array of points:
//! `--sweep 'mobility.speed=[["0.1m/s","5m/s"],["0.1m/s","20m/s"]]'`.
//!
//! A point's value is kept as the value text of a `--set key=value`
//! override: scalars as written (`2Mbps`, `5`), lists and tables as TOML
//! inline text (`["0.1m/s", "5m/s"]`). [`SweepSpec::points`] expands a sweep
//! into its points; every front end (CLI, Python, sharded plans) uses it.

use super::error::{At, Diag, ErrorKind};
use super::{Scenario, ScenarioError};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One swept key and its points (as `--set` value text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepAxis {
    pub key: String,
    pub values: Vec<String>,
}

/// One point of a sweep: `(key, value text)` per axis, in axis order.
pub type Point = Vec<(String, String)>;

/// At most this many values per axis (a range with a tiny step is a typo).
pub const MAX_VALUES: usize = 10_000;

/// At most this many points in a sweep (the product of the axes).
pub const MAX_POINTS: usize = 100_000;

/// A whole sweep: dimensions combined as a cartesian product, the first
/// slowest. A dimension is one axis, or several zipped axes of equal length
/// that advance together.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SweepSpec {
    pub dims: Vec<Vec<SweepAxis>>,
    /// Byte offsets (in the checked text) of each axis's entry, by key.
    pub(crate) offsets: Vec<(String, usize)>,
    /// Line and column of each axis's entry in the file, by key.
    pub(crate) positions: Vec<(String, (usize, usize))>,
}

impl From<Vec<SweepAxis>> for SweepSpec {
    /// Ordinary (cartesian) axes.
    fn from(axes: Vec<SweepAxis>) -> SweepSpec {
        SweepSpec { dims: axes.into_iter().map(|a| vec![a]).collect(), ..Default::default() }
    }
}

impl SweepSpec {
    /// Every axis, in point order (a zipped group's axes side by side).
    pub fn axes(&self) -> Vec<SweepAxis> {
        self.dims.iter().flatten().cloned().collect()
    }

    /// The axes, borrowed, in point order.
    pub fn iter(&self) -> impl Iterator<Item = &SweepAxis> {
        self.dims.iter().flatten()
    }

    pub fn is_empty(&self) -> bool {
        self.dims.is_empty()
    }

    /// How many axes the sweep has (zipped ones counted one by one).
    pub fn len(&self) -> usize {
        self.dims.iter().map(Vec::len).sum()
    }

    /// How many points the sweep has (1 without axes), saturating.
    pub fn point_count(&self) -> usize {
        self.dims.iter().fold(1usize, |n, d| n.saturating_mul(d.first().map_or(1, |a| a.values.len())))
    }

    /// A zipped group: axes that advance together. Errors if their lengths
    /// differ or a key repeats.
    pub fn zip(axes: Vec<SweepAxis>) -> Result<SweepSpec, String> {
        let mut s = SweepSpec::default();
        s.push_dim(axes)?;
        Ok(s)
    }

    fn push_dim(&mut self, dim: Vec<SweepAxis>) -> Result<(), String> {
        if let Some(first) = dim.first() {
            for a in &dim[1..] {
                if a.values.len() != first.values.len() {
                    return Err(format!(
                        "zipped axes must have the same number of points: \"{}\" has {}, \"{}\" has {}",
                        first.key,
                        first.values.len(),
                        a.key,
                        a.values.len()
                    ));
                }
            }
            // Zipped points must be distinct as tuples.
            for i in 0..first.values.len() {
                for j in 0..i {
                    if dim.iter().all(|a| a.values[i] == a.values[j]) {
                        let p: Vec<String> = dim.iter().map(|a| format!("{}={}", a.key, a.values[i])).collect();
                        return Err(format!("the point {} is listed twice", p.join(",")));
                    }
                }
            }
        }
        for a in &dim {
            if self.iter().any(|b| b.key == a.key) {
                return Err(format!("\"{}\" is swept twice", a.key));
            }
        }
        self.dims.push(dim);
        if self.point_count() > MAX_POINTS {
            return Err(format!("the sweep has {} points; at most {MAX_POINTS}", self.point_count()));
        }
        Ok(())
    }

    /// The points: every combination of the dimensions, the first slowest;
    /// a zipped dimension contributes its i-th value of every axis. No
    /// axes: one empty point.
    pub fn points(&self) -> Vec<Point> {
        let mut out: Vec<Point> = vec![Vec::new()];
        for dim in &self.dims {
            let n = dim.first().map_or(0, |a| a.values.len());
            out = out
                .into_iter()
                .flat_map(|p| {
                    (0..n).map(move |i| {
                        let mut q = p.clone();
                        q.extend(dim.iter().map(|a| (a.key.clone(), a.values[i].clone())));
                        q
                    })
                })
                .collect();
        }
        out
    }

    /// This sweep with command-line axes: each replaces the file's axis of
    /// the same key (removing it from a zipped group). A key given twice on
    /// the command line is an error (it would label points with values that
    /// were not run).
    pub fn merge(&self, cli: &[SweepAxis]) -> Result<SweepSpec, String> {
        for (i, a) in cli.iter().enumerate() {
            if cli[..i].iter().any(|b| b.key == a.key) {
                return Err(format!("--sweep {}: the key is swept twice; give all its values in one --sweep", a.key));
            }
        }
        let mut out = SweepSpec { offsets: self.offsets.clone(), positions: self.positions.clone(), dims: Vec::new() };
        for d in &self.dims {
            let kept: Vec<SweepAxis> = d.iter().filter(|a| !cli.iter().any(|c| c.key == a.key)).cloned().collect();
            if !kept.is_empty() {
                out.dims.push(kept);
            }
        }
        for a in cli {
            out.push_dim(vec![a.clone()]).map_err(|e| format!("--sweep {}: {e}", a.key))?;
        }
        Ok(out)
    }

    /// Line and column of an axis's entry in the scenario file.
    pub fn position(&self, key: &str) -> Option<(usize, usize)> {
        self.positions.iter().find(|(k, _)| k == key).map(|(_, p)| *p)
    }

    /// Checks every point: `load(overrides)` gives the scenario with a
    /// point's `key=value` overrides applied. The first point that does not
    /// load is an error located at its axis's entry in the file (when the
    /// axis is from the file). Returns the number of points.
    pub fn check(&self, load: impl Fn(&[String]) -> Result<Scenario, ScenarioError>) -> Result<usize, ScenarioError> {
        let pts = self.points();
        for p in &pts {
            let set: Vec<String> = p.iter().map(|(k, v)| format!("{k}={v}")).collect();
            if let Err(e) = load(&set) {
                return Err(self.locate(p, e));
            }
        }
        Ok(pts.len())
    }

    /// Re-locates the error of a point's overrides at the axis entry in
    /// the file that produced the override (if the file has it).
    pub fn locate(&self, point: &[(String, String)], mut e: ScenarioError) -> ScenarioError {
        let Some(arg) = e.override_arg.clone() else { return e };
        let Some((k, v)) = point.iter().find(|(k, v)| format!("{k}={v}") == arg) else { return e };
        if let Some(pos) = self.position(k) {
            e.message = format!("sweep point \"{k}\" = {v}: {}", e.message);
            e.position = Some(pos);
            e.override_arg = None;
        }
        e
    }
}

impl std::ops::Index<usize> for SweepSpec {
    type Output = SweepAxis;
    /// The i-th axis in point order.
    fn index(&self, i: usize) -> &SweepAxis {
        self.iter().nth(i).expect("sweep axis index in range")
    }
}

/// A point's value text: strings as written, other values as TOML inline text.
fn value_text(v: &toml::Value) -> Result<String, String> {
    Ok(match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(_) => return Err("a sweep value cannot be a date".into()),
        other => {
            let t = toml::Value::Table(toml::Table::from_iter([("v".to_string(), other.clone())]));
            let s = toml::to_string(&t).map_err(|e| e.to_string())?;
            s.trim().strip_prefix("v = ").unwrap_or(s.trim()).to_string()
        }
    })
}

fn no_duplicates(values: &[String]) -> Result<(), String> {
    for (i, v) in values.iter().enumerate() {
        if values[..i].contains(v) {
            return Err(format!("the value {v} is listed twice"));
        }
    }
    Ok(())
}

impl SweepAxis {
    /// Parses `key=v1,v2,...`, `key=from..to:step` (numbers with an
    /// optional unit, the same on all three: `1s..5s:1s`, `2..10:2`), or
    /// `key=[p1, p2, ...]`, a TOML array whose elements are the points
    /// (lists allowed: `[[1, 2], [1, 5]]`).
    pub fn parse(arg: &str) -> Result<SweepAxis, String> {
        let Some((key, rest)) = arg.split_once('=') else {
            return Err(format!("--sweep {arg}: expected key=v1,v2,..., key=from..to:step or key=[p1, p2, ...]"));
        };
        let key = key.trim();
        if key.is_empty() {
            return Err(format!("--sweep {arg}: the key is empty"));
        }
        let rest = rest.trim();
        let values = if rest.starts_with('[') {
            let t: toml::Table = toml::from_str(&format!("v = {rest}"))
                .map_err(|e| format!("--sweep {arg}: not a TOML array of points: {}", e.message().trim()))?;
            let toml::Value::Array(a) = &t["v"] else { unreachable!("starts with [") };
            if a.is_empty() {
                return Err(format!("--sweep {arg}: the list of points is empty"));
            }
            a.iter().map(value_text).collect::<Result<Vec<_>, _>>().map_err(|e| format!("--sweep {arg}: {e}"))?
        } else if let Some((from, to, step)) = range_parts(rest) {
            range(from, to, step).map_err(|e| format!("--sweep {arg}: {e}"))?
        } else {
            rest.split(',').map(|v| v.trim().to_string()).collect()
        };
        if values.iter().any(|v| v.is_empty()) {
            return Err(format!("--sweep {arg}: empty value in the list"));
        }
        no_duplicates(&values).map_err(|e| format!("--sweep {arg}: {e}"))?;
        Ok(SweepAxis { key: key.to_string(), values })
    }

    /// An axis from a `[sweep]` entry: a list of points (any TOML values)
    /// or a table `{ from, to, step }`.
    pub(crate) fn from_toml(key: &str, v: &toml::Value) -> Result<SweepAxis, String> {
        let scalar = |v: &toml::Value| -> Result<String, String> {
            match v {
                toml::Value::String(_) | toml::Value::Integer(_) | toml::Value::Float(_) => value_text(v),
                other => Err(format!("range bounds must be numbers or quantities, not {}", other.type_str())),
            }
        };
        let values = match v {
            toml::Value::Array(a) if !a.is_empty() => a.iter().map(value_text).collect::<Result<Vec<_>, _>>()?,
            toml::Value::Array(_) => return Err("the list of values is empty".into()),
            toml::Value::Table(t) => {
                for k in t.keys() {
                    if !["from", "to", "step"].contains(&k.as_str()) {
                        return Err(format!("unknown key '{k}' in a sweep range; expected from, to, step"));
                    }
                }
                let get = |k: &str| -> Result<String, String> {
                    t.get(k).ok_or_else(|| format!("a sweep range needs '{k}' (from, to, step)")).and_then(scalar)
                };
                range(&get("from")?, &get("to")?, &get("step")?)?
            }
            _ => {
                return Err(
                    "expected a list of values, e.g. [1, 2, 4], or a range { from = .., to = .., step = .. }".into()
                )
            }
        };
        no_duplicates(&values)?;
        Ok(SweepAxis { key: key.to_string(), values })
    }
}

/// `from..to:step` when `s` is one (both ends start with a number, one
/// `..`, no comma); anything else (a path `../x`, a list) is not a range.
fn range_parts(s: &str) -> Option<(&str, &str, &str)> {
    if s.contains(',') {
        return None;
    }
    let (from, tail) = s.split_once("..")?;
    let (to, step) = tail.split_once(':').unwrap_or((tail, ""));
    let numeric = |x: &str| number_unit(x).is_ok();
    (numeric(from) && numeric(to)).then_some((from, to, step))
}

/// Splits `12.5ms` into (12.5, "ms").
fn number_unit(s: &str) -> Result<(f64, &str), String> {
    let s = s.trim();
    let end =
        s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e')).unwrap_or(s.len());
    // `e` may start a unit ("10e" is odd but "5eps" is not a number): back off.
    let (mut num, mut unit) = s.split_at(end);
    while num.ends_with('e') {
        num = &num[..num.len() - 1];
        unit = &s[num.len()..];
    }
    let v: f64 = num.parse().map_err(|_| format!("'{s}' does not start with a number"))?;
    if !v.is_finite() {
        return Err(format!("'{s}' is not a finite number"));
    }
    Ok((v, unit.trim()))
}

fn range(from: &str, to: &str, step: &str) -> Result<Vec<String>, String> {
    if step.trim().is_empty() {
        return Err("a range needs a step: from..to:step, e.g. 10ms..50ms:10ms".into());
    }
    let (a, ua) = number_unit(from)?;
    let (b, ub) = number_unit(to)?;
    let (d, ud) = number_unit(step)?;
    if ua != ub || (!ud.is_empty() && ud != ua) {
        return Err(format!("from, to and step must use the same unit ('{from}', '{to}', '{step}')"));
    }
    if d <= 0.0 || !d.is_finite() {
        return Err(format!("the step must be positive, not '{step}'"));
    }
    if b < a {
        return Err(format!("the range is empty: '{from}' is above '{to}'"));
    }
    // Count in floating point first: a huge count must not wrap (D10).
    let count = ((b - a) / d + 1e-9).floor() + 1.0;
    if !count.is_finite() || count > MAX_VALUES as f64 {
        return Err(format!("the range has {count:.3e} values; at most {MAX_VALUES}"));
    }
    let n = count as usize;
    let values: Vec<String> = (0..n)
        .map(|i| {
            let v = a + i as f64 * d;
            // Print without binary noise: 0.30000000000000004 -> 0.3.
            let mut s = String::new();
            let r = (v * 1e9).round() / 1e9;
            if r == r.trunc() && r.abs() < 1e15 {
                let _ = write!(s, "{}", r as i64);
            } else {
                let _ = write!(s, "{r}");
            }
            s + ua
        })
        .collect();
    // A step below the print resolution repeats values.
    no_duplicates(&values).map_err(|e| format!("the step '{step}' is too small to tell values apart: {e}"))?;
    Ok(values)
}

/// `[sweep]` and `[sweep.zip]` from a scenario file: ordinary axes (key
/// order) first, then the zipped group(s). `[sweep.zip]` holds one group;
/// `[sweep.zip.NAME]` tables hold one group each.
pub(crate) fn spec_from_file(
    map: &BTreeMap<String, toml::Spanned<toml::Value>>,
    doc: &toml_edit::Table,
) -> Result<SweepSpec, Diag> {
    let mut spec = SweepSpec::default();
    let bad = |off: usize, msg: String| Diag::new(ErrorKind::BadValue, At::Offset(off), msg);
    let edit_span = |path: &[&str]| -> Option<usize> {
        let mut item = doc.get("sweep")?;
        for p in path {
            item = match item {
                toml_edit::Item::Table(t) => t.get(p)?,
                toml_edit::Item::Value(toml_edit::Value::InlineTable(t)) => {
                    return t.get(p).and_then(|v| v.span()).map(|s| s.start)
                }
                _ => return None,
            };
        }
        match item {
            toml_edit::Item::Value(v) => v.span().map(|s| s.start),
            toml_edit::Item::Table(t) => {
                t.span().map(|s| s.start).or_else(|| t.iter().find_map(|(k, _)| t.key(k)?.span().map(|s| s.start)))
            }
            _ => None,
        }
    };
    // (group offset, its axes: key, offset, value).
    type Group = (usize, Vec<(String, usize, toml::Value)>);
    let mut zips: Vec<Group> = Vec::new();
    for (k, v) in map {
        let off = v.span().start;
        if k == "zip" {
            let toml::Value::Table(t) = v.get_ref() else {
                return Err(bad(off, "[sweep.zip] must be a table of zipped axes: key = [points]".into()));
            };
            let is_group = |v: &toml::Value| matches!(v, toml::Value::Table(g) if !g.contains_key("from"));
            if t.values().all(is_group) && !t.is_empty() {
                for (name, g) in t {
                    let toml::Value::Table(g) = g else { unreachable!() };
                    let goff = edit_span(&["zip", name]).unwrap_or(off);
                    let axes =
                        g.iter().map(|(k, v)| (k.clone(), edit_span(&["zip", name, k]).unwrap_or(goff), v.clone()));
                    zips.push((goff, axes.collect()));
                }
            } else if let Some((gk, _)) = t.iter().find(|(_, v)| is_group(v)) {
                let o = edit_span(&["zip", gk]).unwrap_or(off);
                return Err(bad(
                    o,
                    format!(
                        "[sweep.zip] mixes axes and groups ('{gk}'); use [sweep.zip.NAME] tables for several groups"
                    ),
                ));
            } else {
                let axes = t.iter().map(|(k, v)| (k.clone(), edit_span(&["zip", k]).unwrap_or(off), v.clone()));
                zips.push((off, axes.collect()));
            }
            continue;
        }
        let a = SweepAxis::from_toml(k, v.get_ref()).map_err(|m| bad(off, format!("sweep \"{k}\": {m}")))?;
        spec.offsets.push((k.clone(), off));
        spec.push_dim(vec![a]).map_err(|m| bad(off, format!("sweep \"{k}\": {m}")))?;
    }
    for (goff, axes) in zips {
        if axes.len() < 2 {
            return Err(bad(goff, "a zipped group needs at least two axes (a single axis goes in [sweep])".into()));
        }
        let mut dim = Vec::new();
        for (k, off, v) in &axes {
            dim.push(SweepAxis::from_toml(k, v).map_err(|m| bad(*off, format!("sweep.zip \"{k}\": {m}")))?);
            spec.offsets.push((k.clone(), *off));
        }
        if let Err(m) = spec.push_dim(dim.clone()) {
            // Point at the first axis whose length differs from the first.
            let n0 = dim[0].values.len();
            let at = axes.iter().zip(&dim).find(|(_, a)| a.values.len() != n0).map_or(goff, |((_, o, _), _)| *o);
            return Err(Diag::new(ErrorKind::Inconsistent, At::Offset(at), format!("[sweep.zip]: {m}")));
        }
    }
    Ok(spec)
}

/// The points of ordinary (cartesian) axes, the first slowest. No axes:
/// one empty point. (Zipped axes: [`SweepSpec::points`].)
pub fn points(axes: &[SweepAxis]) -> Vec<Point> {
    SweepSpec::from(axes.to_vec()).points()
}

/// Merges file axes with command-line axes; a command-line axis replaces a
/// file axis with the same key (zipped groups: [`SweepSpec::merge`]).
pub fn merge(file: &SweepSpec, cli: &[SweepAxis]) -> Result<SweepSpec, String> {
    file.merge(cli)
}

/// A point as a readable label: `mac.data_rate=2Mbps,flow.0.interval=10ms`.
pub fn label(point: &[(String, String)]) -> String {
    point.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
#[path = "sweep_tests.rs"]
mod tests;
