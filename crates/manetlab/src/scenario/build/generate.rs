//! `[[flows]]`: flow generators, ns-2's cbrgen made declarative.
//!
//! ```toml
//! [[flows]]
//! count = 10
//! type = "cbr"                 # any [[flow]] type and key
//! pairs = "random"             # random | disjoint | to-node | from-node | [[src, dst], ...]
//! packet_size = "64B"
//! interval = "250ms"
//! start = { uniform = ["100s", "101s"] }   # or "10s", or { every = "0.1s", from = "10s" }
//! ```
//!
//! A generator is checked once, here: its flow keys as one `[[flow]]`
//! (errors point at the generator's own keys), its pair mode against the
//! node count, its start times against the run. [`FlowGenerator::expand`]
//! then draws the pairs and start times of one replication from the
//! generator's own stream (seed, generator index, `Purpose::Traffic`), so a
//! generator never reshuffles any other random draw. The seed is `run.seed`
//! unless the generator names its own (`seed = 7`): the flows are the same
//! in every replication (as one cbrgen file is), so each is one row of the
//! sweep tables; sweep `flows.0.seed` to average over traffic patterns.

use super::flow::flow;
use super::*;
use crate::sim::{Purpose, RngStream};
use std::ops::Range;

/// Most flows one generator may make.
pub(crate) const MAX_GENERATED: u32 = 100_000;

/// Keys of `[[flows]]` that belong to the generator, not to its flows.
const GENERATOR_KEYS: &[&str] = &["count", "pairs", "start", "seed", "name", "src", "dst"];

#[derive(Clone, Debug, PartialEq)]
enum Pairs {
    Random,
    Disjoint,
    ToNode(u32),
    FromNode(u32),
    Explicit(Vec<(u32, u32)>),
}

#[derive(Clone, Debug, PartialEq)]
enum Start {
    Fixed(Time),
    Uniform(Time, Time),
    Every { from: Time, step: Time },
}

/// One checked `[[flows]]` generator.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FlowGenerator {
    index: usize,
    count: u32,
    pairs: Pairs,
    start: Start,
    name: Option<String>,
    seed: Option<u64>,
    /// Nodes in the topology.
    n: u32,
    /// The flow (src, dst and start are per flow).
    template: FlowConfig,
    /// Index of the generator's first flow among all flows.
    first: usize,
}

impl FlowGenerator {
    pub fn count(&self) -> usize {
        self.count as usize
    }

    /// The flows drawn with `seed` (the generator's own `seed` key wins).
    pub fn expand(&self, seed: u64) -> Vec<FlowConfig> {
        let mut rng = RngStream::new(self.seed.unwrap_or(seed), self.index as u64, Purpose::Traffic, 0);
        let (n, count) = (self.n, self.count as usize);
        let below = |rng: &mut RngStream, k: u32| rng.uniform_incl(k - 1);
        // The first `k` of a uniform random permutation of `pool`.
        let sample = |rng: &mut RngStream, mut pool: Vec<u32>, k: usize| {
            for i in 0..k {
                let j = i + below(rng, (pool.len() - i) as u32) as usize;
                pool.swap(i, j);
            }
            pool.truncate(k);
            pool
        };
        let pairs: Vec<(u32, u32)> = match &self.pairs {
            Pairs::Random => (0..count)
                .map(|_| {
                    let s = below(&mut rng, n);
                    let d = below(&mut rng, n - 1);
                    (s, if d >= s { d + 1 } else { d })
                })
                .collect(),
            Pairs::Disjoint => {
                let v = sample(&mut rng, (0..n).collect(), 2 * count);
                v.chunks(2).map(|c| (c[0], c[1])).collect()
            }
            Pairs::ToNode(d) => {
                sample(&mut rng, (0..n).filter(|x| x != d).collect(), count).into_iter().map(|s| (s, *d)).collect()
            }
            Pairs::FromNode(s) => {
                sample(&mut rng, (0..n).filter(|x| x != s).collect(), count).into_iter().map(|d| (*s, d)).collect()
            }
            Pairs::Explicit(p) => p.clone(),
        };
        pairs
            .into_iter()
            .enumerate()
            .map(|(k, (src, dst))| {
                let start = match self.start {
                    Start::Fixed(t) => t,
                    Start::Uniform(a, b) => Time::from_secs_f64(rng.range_f64(a.as_secs_f64(), b.as_secs_f64())),
                    Start::Every { from, step } => from + Time::from_ns(step.as_ns() * k as u64),
                };
                let name = match &self.name {
                    Some(p) => format!("{p}{k}"),
                    None => format!("flow{}", self.first + k),
                };
                FlowConfig { name, src, dst, start, ..self.template.clone() }
            })
            .collect()
    }
}

/// Maps byte ranges of the generated `[[flow]]` text back to the file.
struct Map {
    lines: Vec<(Range<usize>, usize)>,
    fallback: usize,
}

impl Map {
    fn back(&self, d: Diag, g: usize, i: usize) -> Diag {
        let off = match d.at {
            At::Offset(o) => self.lines.iter().find(|(r, _)| r.contains(&o)).map_or(self.fallback, |(_, f)| *f),
            _ => self.fallback,
        };
        let msg = d
            .msg
            .replace(&format!("flow.{i}."), &format!("flows.{g}."))
            .replace("[[flow]]", "[[flows]]")
            .replacen("unknown section", &format!("unknown key in [[flows]] #{g}:"), 1);
        Diag::new(d.kind, At::Offset(off), msg)
    }
}

fn value_at(v: &toml_edit::Value) -> usize {
    v.span().map_or(0, |s| s.start)
}

fn duration(v: &toml_edit::Value, key: &str) -> Result<Time, Diag> {
    let bad =
        || Diag::at(ErrorKind::BadValue, value_at(v), format!("'{key}' must be a time such as \"10s\" or \"250ms\""));
    let s = v.as_str().ok_or_else(bad)?;
    s.parse::<Duration>().map(|d| d.0).map_err(|e| Diag::at(ErrorKind::BadValue, value_at(v), format!("'{key}': {e}")))
}

/// Checks every `[[flows]]` generator. `first` is the index its first flow
/// gets (explicit `[[flow]]`s come first); `n` the node count.
pub(crate) fn generators(doc: &Table, n: u64, first: usize, duration_: Time) -> Result<Vec<FlowGenerator>, Diag> {
    let Some(item) = doc.get("flows") else { return Ok(Vec::new()) };
    let Some(tables) = item.as_array_of_tables() else {
        let off = item.as_value().map_or(0, value_at);
        return Err(Diag::at(ErrorKind::WrongType, off, "'flows' must be [[flows]] sections (flow generators)"));
    };
    let mut out = Vec::new();
    let mut next = first;
    for (g, t) in tables.iter().enumerate() {
        let head = t.span().map_or(0, |s| s.start);
        let gen = generator(g, t, head, n, next, duration_)?;
        next += gen.count();
        out.push(gen);
    }
    Ok(out)
}

fn generator(g: usize, t: &Table, head: usize, n: u64, first: usize, dur: Time) -> Result<FlowGenerator, Diag> {
    let key = |k: &str| format!("flows.{g}.{k}");
    let get = |k: &str| t.get(k).and_then(|i| i.as_value());
    let at_key = |k: &str| get(k).map_or(head, value_at);
    // The generator's flow keys, as the text of one [[flow]].
    let mut text = String::new();
    let mut map = Map { lines: Vec::new(), fallback: head };
    for (k, item) in t.iter() {
        if GENERATOR_KEYS.contains(&k) {
            continue;
        }
        let Some(v) = item.as_value() else {
            return Err(Diag::at(ErrorKind::WrongType, head, format!("'{}' must be a value", key(k))));
        };
        let line = format!("{} = {}\n", toml_edit::Key::new(k).display_repr(), v.to_string().trim());
        let key_at = t.key(k).and_then(|k| k.span()).map_or(value_at(v), |s| s.start);
        map.lines.push((text.len()..text.len() + line.len(), key_at));
        text.push_str(&line);
    }
    // Count.
    let count_v = get("count");
    let count = match count_v {
        Some(v) => match v.as_integer() {
            Some(c) if c >= 1 && c <= MAX_GENERATED as i64 => Some(c as u32),
            _ => {
                return Err(Diag::at(
                    ErrorKind::OutOfRange,
                    value_at(v),
                    format!("'{}' must be an integer from 1 to {MAX_GENERATED}", key("count")),
                ))
            }
        },
        None => None,
    };
    // Pairs.
    let node = |k: &str| -> Result<u32, Diag> {
        let v = get(k).ok_or_else(|| {
            Diag::at(
                ErrorKind::MissingKey,
                at_key("pairs"),
                format!(
                    "pairs = \"{}\" needs '{}', the node",
                    if k == "dst" { "to-node" } else { "from-node" },
                    key(k)
                ),
            )
        })?;
        match v.as_integer() {
            Some(x) if x >= 0 && (x as u64) < n => Ok(x as u32),
            _ => Err(Diag::at(
                ErrorKind::OutOfRange,
                value_at(v),
                format!("'{}' must be a node from 0 to {}", key(k), n.saturating_sub(1)),
            )),
        }
    };
    let pairs_v = get("pairs");
    let pairs = match pairs_v {
        None => Pairs::Random,
        Some(toml_edit::Value::String(s)) => match s.value().trim() {
            "random" => Pairs::Random,
            "disjoint" => Pairs::Disjoint,
            "to-node" => Pairs::ToNode(node("dst")?),
            "from-node" => Pairs::FromNode(node("src")?),
            other => {
                return Err(Diag::at(
                    ErrorKind::BadValue,
                    at_key("pairs"),
                    format!(
                        "unknown pair mode {other:?} for '{}'; expected one of: random, disjoint, to-node, from-node, or a list [[src, dst], ...]",
                        key("pairs")
                    ),
                ))
            }
        },
        Some(toml_edit::Value::Array(a)) => {
            let mut v = Vec::new();
            for e in a.iter() {
                let pair = e.as_array().filter(|p| p.len() == 2).and_then(|p| {
                    let s = p.get(0)?.as_integer()?;
                    let d = p.get(1)?.as_integer()?;
                    Some((s, d))
                });
                match pair {
                    Some((s, d)) if s >= 0 && d >= 0 && (s as u64) < n && (d as u64) < n && s != d => {
                        v.push((s as u32, d as u32))
                    }
                    _ => {
                        return Err(Diag::at(
                            ErrorKind::BadValue,
                            value_at(e),
                            format!(
                                "each pair of '{}' is [src, dst] with two different nodes from 0 to {}",
                                key("pairs"),
                                n.saturating_sub(1)
                            ),
                        ))
                    }
                }
            }
            if v.is_empty() {
                return Err(Diag::at(ErrorKind::BadValue, at_key("pairs"), format!("'{}' is empty", key("pairs"))));
            }
            Pairs::Explicit(v)
        }
        Some(v) => {
            return Err(Diag::at(
                ErrorKind::WrongType,
                value_at(v),
                format!("'{}' must be a mode name or a list of [src, dst] pairs", key("pairs")),
            ))
        }
    };
    for (k, uses) in [("src", matches!(pairs, Pairs::FromNode(_))), ("dst", matches!(pairs, Pairs::ToNode(_)))] {
        if let (Some(v), false) = (get(k), uses) {
            return Err(Diag::at(
                ErrorKind::Inconsistent,
                value_at(v),
                format!(
                    "'{}' is only used with pairs = \"{}\"; the generator draws its flows' nodes",
                    key(k),
                    if k == "src" { "from-node" } else { "to-node" }
                ),
            ));
        }
    }
    let count = match (&pairs, count) {
        (Pairs::Explicit(p), None) => p.len() as u32,
        (Pairs::Explicit(p), Some(c)) if c as usize != p.len() => {
            return Err(Diag::at(
                ErrorKind::Inconsistent,
                at_key("count"),
                format!("'{}' is {c} but 'pairs' lists {} pairs (leave count out)", key("count"), p.len()),
            ))
        }
        (_, Some(c)) => c,
        (_, None) => {
            return Err(Diag::at(
                ErrorKind::MissingKey,
                head,
                format!("missing '{}': how many flows the generator makes", key("count")),
            ))
        }
    };
    // Is the mode possible with this many nodes?
    let need = match pairs {
        Pairs::Random => Some((2, "two nodes")),
        Pairs::Disjoint => Some((2 * count as u64, "two nodes per flow (no node in two flows)")),
        Pairs::ToNode(_) | Pairs::FromNode(_) => Some((count as u64 + 1, "one node per flow plus the common end")),
        Pairs::Explicit(_) => None,
    };
    if let Some((need, why)) = need {
        if n < need {
            return Err(Diag::at(
                ErrorKind::Inconsistent,
                pairs_v.map_or(count_v.map_or(head, value_at), value_at),
                format!("{count} flows with these pairs need at least {need} nodes ({why}); the topology has {n}"),
            ));
        }
    }
    // Start times.
    let start = match get("start") {
        None => Start::Fixed(Time::ZERO),
        Some(v @ toml_edit::Value::String(_)) => Start::Fixed(duration(v, &key("start"))?),
        Some(toml_edit::Value::InlineTable(it)) => {
            let keys: Vec<&str> = it.iter().map(|(k, _)| k).collect();
            match (it.get("uniform"), it.get("every")) {
                (Some(u), None) if keys.len() == 1 => {
                    let arr = u.as_array().filter(|a| a.len() == 2).ok_or_else(|| {
                        Diag::at(
                            ErrorKind::BadValue,
                            value_at(u),
                            format!("'{}' is [from, to], e.g. [\"100s\", \"101s\"]", key("start.uniform")),
                        )
                    })?;
                    let a = duration(arr.get(0).expect("two"), &key("start.uniform"))?;
                    let b = duration(arr.get(1).expect("two"), &key("start.uniform"))?;
                    if b < a {
                        return Err(Diag::at(
                            ErrorKind::Inconsistent,
                            value_at(u),
                            format!("'{}' ends before it starts", key("start.uniform")),
                        ));
                    }
                    Start::Uniform(a, b)
                }
                (None, Some(e)) if keys.iter().all(|k| *k == "every" || *k == "from") => {
                    let step = duration(e, &key("start.every"))?;
                    let from = it.get("from").map(|f| duration(f, &key("start.from"))).transpose()?;
                    Start::Every { from: from.unwrap_or(Time::ZERO), step }
                }
                _ => {
                    return Err(Diag::at(
                        ErrorKind::BadValue,
                        at_key("start"),
                        format!(
                            "'{}' is a time, {{ uniform = [from, to] }} or {{ every = step, from = time }}",
                            key("start")
                        ),
                    ))
                }
            }
        }
        Some(v) => {
            return Err(Diag::at(
                ErrorKind::WrongType,
                value_at(v),
                format!("'{}' is a time, {{ uniform = [from, to] }} or {{ every = step }}", key("start")),
            ))
        }
    };
    let last_start = match start {
        Start::Fixed(t) => t,
        Start::Uniform(_, b) => b,
        Start::Every { from, step } => {
            Time::from_secs_f64(from.as_secs_f64() + step.as_secs_f64() * f64::from(count.saturating_sub(1)))
        }
    };
    if last_start >= dur {
        return Err(Diag::at(
            ErrorKind::Inconsistent,
            at_key("start"),
            format!(
                "the generator's last start ({}) is not before the end of the run ({})",
                Duration(last_start),
                Duration(dur)
            ),
        ));
    }
    let name = match get("name") {
        Some(v) => match v.as_str().map(str::trim) {
            Some(s) if !s.is_empty() => Some(s.to_string()),
            _ => {
                return Err(Diag::at(
                    ErrorKind::BadValue,
                    value_at(v),
                    format!("'{}' is a non-empty name prefix (flows are named <name>0, <name>1, ...)", key("name")),
                ))
            }
        },
        None => None,
    };
    let seed = match get("seed") {
        Some(v) => match v.as_integer() {
            Some(s) if s >= 0 => Some(s as u64),
            _ => {
                return Err(Diag::at(
                    ErrorKind::OutOfRange,
                    value_at(v),
                    format!("'{}' must be a non-negative integer", key("seed")),
                ))
            }
        },
        None => None,
    };
    // The flow keys, checked as one [[flow]] between two placeholder nodes.
    if !text.contains("\ntype =") && !text.starts_with("type =") {
        return Err(Diag::at(ErrorKind::MissingKey, head, format!("missing '{}': the flows' type", key("type"))));
    }
    let at_gen = text.len();
    text.push_str("src = 0\ndst = 1\n");
    map.lines.push((at_gen..text.len(), at_key("pairs")));
    let gdoc = toml_edit::ImDocument::parse(text.as_str()).expect("generated text is TOML");
    let parsed: FlowSection = toml::from_str(&text)
        .map_err(|e| map.back(super::super::source::describe_de_error(gdoc.as_table(), &e), g, first))?;
    let template = flow(first, &parsed, Some(gdoc.as_table()), gdoc.as_table(), n.max(2), dur)
        .map_err(|d| map.back(d, g, first))?;
    if let Some(stop) = template.stop {
        if stop <= last_start {
            return Err(Diag::at(
                ErrorKind::Inconsistent,
                at_key("stop"),
                format!(
                    "'{}' ({}) must be after the last start ({})",
                    key("stop"),
                    Duration(stop),
                    Duration(last_start)
                ),
            ));
        }
    }
    Ok(FlowGenerator { index: g, count, pairs, start, name, seed, n: n as u32, template, first })
}
