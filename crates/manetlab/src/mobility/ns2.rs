//! ns-2 movement files (as written by ns-2's `setdest` and BonnMotion):
//!
//! ```text
//! $node_(0) set X_ 83.36
//! $node_(0) set Y_ 239.44
//! $node_(0) set Z_ 0.0
//! $ns_ at 2.0 "$node_(0) setdest 369.43 170.51 3.37"
//! ```
//!
//! `setdest x y speed` at time t: from wherever the node is at t, move in a
//! straight line towards (x, y) at `speed` m/s, replacing any movement in
//! progress; stop on arrival. Other lines (`$god_ ...`, comments) are
//! ignored. Errors name the line and field, never quote the file (it may
//! be any file a scenario names).

use super::Trajectory;
use crate::sim::Position;
use crate::sim::Time;

#[derive(Debug, PartialEq, thiserror::Error)]
#[error("movement file line {line}: {msg}")]
pub struct MovementError {
    pub line: usize,
    pub msg: String,
}

fn node_index(s: &str) -> Option<usize> {
    let inner = s.strip_prefix("$node_(")?.strip_suffix(')')?;
    inner.trim().parse().ok()
}

/// A timed `setdest` command.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SetDest {
    pub at: Time,
    pub node: usize,
    pub x: f64,
    pub y: f64,
    pub speed: f64,
}

/// A movement script: initial coordinates some nodes are given, and timed
/// setdest commands (an ns-2 movement file, or a scenario's `[[move]]`s).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MovementScript {
    /// Per node: X_, Y_, Z_ if the script sets them.
    pub init: Vec<[Option<f64>; 3]>,
    /// In file order.
    pub moves: Vec<SetDest>,
}

impl MovementScript {
    /// Trajectories starting from `initial` (overridden where the script
    /// places a node), applying the commands in time order (ties in script
    /// order).
    pub fn trajectories(&self, initial: &[Position]) -> Vec<Trajectory> {
        let start: Vec<Position> = initial
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let c = self.init.get(i).copied().unwrap_or_default();
                Position { x: c[0].unwrap_or(p.x), y: c[1].unwrap_or(p.y), z: c[2].unwrap_or(p.z) }
            })
            .collect();
        let mut trajs: Vec<Trajectory> = start.iter().map(|&p| Trajectory::fixed(p)).collect();
        let mut order: Vec<usize> = (0..self.moves.len()).collect();
        order.sort_by_key(|&k| (self.moves[k].at, k));
        for k in order {
            let m = self.moves[k];
            if let Some(t) = trajs.get_mut(m.node) {
                t.set_dest(m.at, Position { x: m.x, y: m.y, z: start[m.node].z }, m.speed);
            }
        }
        trajs
    }
}

/// Reads a movement file for `n` nodes.
pub fn parse_script(text: &str, n: usize) -> Result<MovementScript, MovementError> {
    let mut script = MovementScript { init: vec![[None; 3]; n], moves: Vec::new() };
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let lineno = i + 1;
        let bad = |msg: String| MovementError { line: lineno, msg };
        if line.is_empty() || line.starts_with('#') || line.contains("$god_") {
            continue;
        }
        let toks: Vec<&str> = line.split_whitespace().collect();
        if toks.first().is_some_and(|t| t.starts_with("$node_(")) {
            // $node_(i) set X_ v
            if toks.len() != 4 || toks[1] != "set" {
                return Err(bad("expected '$node_(i) set X_ value'".into()));
            }
            let node =
                node_index(toks[0]).ok_or_else(|| bad("bad node reference in field 1: expected $node_(i)".into()))?;
            if node >= n {
                return Err(bad(format!("node {node} does not exist (the scenario has {n} nodes)")));
            }
            let v: f64 = toks[3].parse().map_err(|_| bad("field 4 is not a number".into()))?;
            if !v.is_finite() {
                return Err(bad("field 4 is not a finite number".into()));
            }
            let axis = match toks[2] {
                "X_" => 0,
                "Y_" => 1,
                "Z_" => 2,
                _ => return Err(bad("unknown coordinate in field 3: expected X_, Y_ or Z_".into())),
            };
            script.init[node][axis] = Some(v);
        } else if toks.first() == Some(&"$ns_") && toks.get(1) == Some(&"at") {
            // $ns_ at t "$node_(i) setdest x y speed"
            let t: f64 = toks.get(2).and_then(|s| s.parse().ok()).ok_or_else(|| bad("bad time".into()))?;
            let rest = line.split_once('"').map(|x| x.1).and_then(|r| r.rsplit_once('"')).map(|x| x.0);
            let cmd: Vec<&str> =
                rest.ok_or_else(|| bad("expected a quoted command".into()))?.split_whitespace().collect();
            if cmd.len() != 5 || cmd[1] != "setdest" {
                return Err(bad("expected '\"$node_(i) setdest x y speed\"'".into()));
            }
            let node = node_index(cmd[0])
                .ok_or_else(|| bad("bad node reference in the command: expected $node_(i)".into()))?;
            if node >= n {
                return Err(bad(format!("node {node} does not exist (the scenario has {n} nodes)")));
            }
            let num = |s: &str| s.parse::<f64>().map_err(|_| bad("a setdest argument is not a number".into()));
            let (x, y, speed) = (num(cmd[2])?, num(cmd[3])?, num(cmd[4])?);
            if t < 0.0 || speed < 0.0 || !(t.is_finite() && speed.is_finite() && x.is_finite() && y.is_finite()) {
                return Err(bad("negative or non-finite time, speed or coordinate".into()));
            }
            script.moves.push(SetDest { at: Time::from_secs_f64(t), node, x, y, speed });
        } else {
            return Err(bad("unrecognised line: expected '$node_(i) set ...' or '$ns_ at ...'".into()));
        }
    }
    Ok(script)
}

/// Parses a movement file for `n` nodes into trajectories. Nodes the file
/// does not place start at the origin.
pub fn parse(text: &str, n: usize) -> Result<Vec<Trajectory>, MovementError> {
    Ok(parse_script(text, n)?.trajectories(&vec![Position::default(); n]))
}

/// Writes trajectories as an ns-2 movement file (a string: see
/// [`write_to`] for large files).
pub fn write(trajs: &[Trajectory]) -> String {
    let mut v = Vec::new();
    write_to(trajs, &mut v).expect("writing to memory");
    String::from_utf8(v).expect("the file is ASCII")
}

/// Writes trajectories as an ns-2 movement file to `w`, streaming: each
/// node's legs come one at a time from its generator (or its held legs),
/// so memory does not grow with the length of the run (issue 15, D4).
pub fn write_to<W: std::io::Write>(trajs: &[Trajectory], w: &mut W) -> std::io::Result<()> {
    w.write_all(b"# manetlab movement file (ns-2 setdest format)\n")?;
    for (i, t) in trajs.iter().enumerate() {
        let p = t.position(Time::ZERO);
        writeln!(w, "$node_({i}) set X_ {:.6}\n$node_({i}) set Y_ {:.6}\n$node_({i}) set Z_ {:.6}", p.x, p.y, p.z)?;
    }
    for (i, t) in trajs.iter().enumerate() {
        let mut legs = t.leg_iter().peekable();
        while let Some(l) = legs.next() {
            let speed = (l.vx * l.vx + l.vy * l.vy).sqrt();
            if speed == 0.0 {
                continue;
            }
            let end = match legs.peek() {
                Some(next) => next.from,
                None => continue, // moves forever: cannot be written as setdest
            };
            writeln!(
                w,
                "$ns_ at {:.9} \"$node_({i}) setdest {:.6} {:.6} {:.6}\"",
                l.start.as_secs_f64(),
                end.x,
                end.y,
                speed
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"#
# nodes: 2, pause: 0.00, max speed: 5.00
#
$node_(0) set X_ 10.0
$node_(0) set Y_ 20.0
$node_(0) set Z_ 0.000000000000
$node_(1) set X_ 100.0
$node_(1) set Y_ 0.0
$god_ set-dist 0 1 1
$ns_ at 1.000000000000 "$node_(0) setdest 40.0 60.0 5.0"
$ns_ at 3.0 "$node_(0) setdest 10.0 20.0 1.0"
$ns_ at 5.0 "$god_ set-dist 0 1 2"
"#;

    #[test]
    fn parses_setdest_semantics() {
        let t = parse(FILE, 2).unwrap();
        assert_eq!(t[0].position(Time::ZERO), Position::new(10.0, 20.0));
        // 1 s into a 5 m/s leg towards (40, 60): 3-4-5 direction.
        let p = t[0].position(Time::from_secs(2));
        assert!((p.x - 13.0).abs() < 1e-9 && (p.y - 24.0).abs() < 1e-9, "{p:?}");
        // At 3 s, from (16, 28) back towards (10, 20) at 1 m/s.
        let p = t[0].position(Time::from_secs(4));
        assert!((p.x - 15.4).abs() < 1e-9 && (p.y - 27.2).abs() < 1e-9, "{p:?}");
        assert_eq!(t[1].position(Time::from_secs(9)), Position::new(100.0, 0.0));
    }

    #[test]
    fn round_trips_through_the_writer() {
        let t = parse(FILE, 2).unwrap();
        let again = parse(&write(&t), 2).unwrap();
        for s in 0..200 {
            let at = Time::from_ms(s * 50);
            assert!(t[0].position(at).distance(&again[0].position(at)) < 1e-3);
        }
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("$node_(0) set X_ 1\n$node_(5) set Y_ 2\n", 2).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.msg.contains("node 5"));
        let e = parse("$ns_ at 1.0 \"$node_(0) setdest 1 2\"\n", 1).unwrap_err();
        assert_eq!(e.line, 1);
        assert!(parse("hello\n", 1).is_err());
    }
}
