//! Parameter sweeps over a scenario: each axis is a key (as for `--set`) and
//! a list of values; the sweep is their cartesian product, each point run
//! for every replication.
//!
//! In a scenario file:
//!
//! ```toml
//! [sweep]
//! "mac.rts_threshold" = [0, 3000]                        # a list
//! "flow.0.interval" = { from = "10ms", to = "50ms", step = "10ms" }   # a range
//! ```
//!
//! On the command line: `--sweep flow.0.interval=10ms,20ms,50ms` or
//! `--sweep flow.0.interval=10ms..50ms:10ms`.

use std::fmt::Write as _;

/// One swept key and its values (as `--set` value text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepAxis {
    pub key: String,
    pub values: Vec<String>,
}

/// At most this many values per axis (a range with a tiny step is a typo).
pub const MAX_VALUES: usize = 10_000;

impl SweepAxis {
    /// Parses `key=v1,v2,...` or `key=from..to:step` (numbers with an
    /// optional unit, the same on all three: `1s..5s:1s`, `2..10:2`).
    pub fn parse(arg: &str) -> Result<SweepAxis, String> {
        let Some((key, rest)) = arg.split_once('=') else {
            return Err(format!("--sweep {arg}: expected key=v1,v2,... or key=from..to:step"));
        };
        let key = key.trim();
        if key.is_empty() {
            return Err(format!("--sweep {arg}: the key is empty"));
        }
        let rest = rest.trim();
        let values = if let Some((from, tail)) = rest.split_once("..") {
            let Some((to, step)) = tail.split_once(':') else {
                return Err(format!("--sweep {arg}: a range needs a step: from..to:step, e.g. 10ms..50ms:10ms"));
            };
            range(from, to, step).map_err(|e| format!("--sweep {arg}: {e}"))?
        } else {
            rest.split(',').map(|v| v.trim().to_string()).collect()
        };
        if values.iter().any(|v| v.is_empty()) {
            return Err(format!("--sweep {arg}: empty value in the list"));
        }
        Ok(SweepAxis { key: key.to_string(), values })
    }

    /// An axis from a `[sweep]` entry: a list of scalars or a table
    /// `{ from, to, step }`.
    pub(crate) fn from_toml(key: &str, v: &toml::Value) -> Result<SweepAxis, String> {
        let scalar = |v: &toml::Value| -> Result<String, String> {
            match v {
                toml::Value::String(s) => Ok(s.clone()),
                toml::Value::Integer(i) => Ok(i.to_string()),
                toml::Value::Float(f) => Ok(f.to_string()),
                toml::Value::Boolean(b) => Ok(b.to_string()),
                other => Err(format!("sweep values must be strings, numbers or booleans, not {}", other.type_str())),
            }
        };
        let values = match v {
            toml::Value::Array(a) if !a.is_empty() => a.iter().map(scalar).collect::<Result<Vec<_>, _>>()?,
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
        Ok(SweepAxis { key: key.to_string(), values })
    }
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
    Ok((v, unit.trim()))
}

fn range(from: &str, to: &str, step: &str) -> Result<Vec<String>, String> {
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
    let n = ((b - a) / d + 1e-9).floor() as usize + 1;
    if n > MAX_VALUES {
        return Err(format!("the range has {n} values; at most {MAX_VALUES}"));
    }
    Ok((0..n)
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
        .collect())
}

/// The points of a sweep: every combination of the axes' values, the first
/// axis varying slowest. No axes: one empty point.
pub fn points(axes: &[SweepAxis]) -> Vec<Vec<(String, String)>> {
    let mut out: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for ax in axes {
        out = out
            .into_iter()
            .flat_map(|p| {
                ax.values.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push((ax.key.clone(), v.clone()));
                    q
                })
            })
            .collect();
    }
    out
}

/// Merges file axes with command-line axes; a command-line axis replaces a
/// file axis with the same key.
pub fn merge(file: &[SweepAxis], cli: &[SweepAxis]) -> Vec<SweepAxis> {
    let mut v: Vec<SweepAxis> = file.iter().filter(|a| !cli.iter().any(|c| c.key == a.key)).cloned().collect();
    v.extend(cli.iter().cloned());
    v
}

/// A point as a readable label: `mac.data_rate=2Mbps,flow.0.interval=10ms`.
pub fn label(point: &[(String, String)]) -> String {
    point.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_ranges() {
        let a = SweepAxis::parse("mac.data_rate=1Mbps, 2Mbps,11Mbps").unwrap();
        assert_eq!(a.key, "mac.data_rate");
        assert_eq!(a.values, ["1Mbps", "2Mbps", "11Mbps"]);
        let r = SweepAxis::parse("flow.0.interval=10ms..50ms:10ms").unwrap();
        assert_eq!(r.values, ["10ms", "20ms", "30ms", "40ms", "50ms"]);
        let f = SweepAxis::parse("x=0.1..0.5:0.1").unwrap();
        assert_eq!(f.values, ["0.1", "0.2", "0.3", "0.4", "0.5"]);
        let s = SweepAxis::parse("x=2..10:3").unwrap();
        assert_eq!(s.values, ["2", "5", "8"]);
    }

    #[test]
    fn bad_axes_say_why() {
        assert!(SweepAxis::parse("novalue").unwrap_err().contains("expected key="));
        assert!(SweepAxis::parse("x=1..5").unwrap_err().contains("needs a step"));
        assert!(SweepAxis::parse("x=1s..5ms:1s").unwrap_err().contains("same unit"));
        assert!(SweepAxis::parse("x=5..1:1").unwrap_err().contains("empty"));
        assert!(SweepAxis::parse("x=1..5:0").unwrap_err().contains("positive"));
        assert!(SweepAxis::parse("x=0..1:0.00001").unwrap_err().contains("at most"));
        assert!(SweepAxis::parse("x=a,,b").unwrap_err().contains("empty value"));
    }

    #[test]
    fn toml_axes() {
        let t: toml::Table = toml::from_str("a = [1, 2.5, \"3s\", true]\nb = { from = \"1s\", to = \"3s\", step = \"1s\" }\nc = []\nd = { from = 1, to = 2 }\ne = 5").unwrap();
        assert_eq!(SweepAxis::from_toml("a", &t["a"]).unwrap().values, ["1", "2.5", "3s", "true"]);
        assert_eq!(SweepAxis::from_toml("b", &t["b"]).unwrap().values, ["1s", "2s", "3s"]);
        assert!(SweepAxis::from_toml("c", &t["c"]).is_err());
        assert!(SweepAxis::from_toml("d", &t["d"]).unwrap_err().contains("'step'"));
        assert!(SweepAxis::from_toml("e", &t["e"]).is_err());
    }

    #[test]
    fn points_are_the_product_first_axis_slowest() {
        let axes = [SweepAxis::parse("a=1,2").unwrap(), SweepAxis::parse("b=x,y,z").unwrap()];
        let p = points(&axes);
        assert_eq!(p.len(), 6);
        assert_eq!(label(&p[0]), "a=1,b=x");
        assert_eq!(label(&p[1]), "a=1,b=y");
        assert_eq!(label(&p[5]), "a=2,b=z");
        assert_eq!(points(&[]), vec![Vec::<(String, String)>::new()]);
        let m = merge(&axes, &[SweepAxis::parse("a=7").unwrap()]);
        assert_eq!(m.iter().map(|a| a.key.as_str()).collect::<Vec<_>>(), ["b", "a"]);
    }
}
