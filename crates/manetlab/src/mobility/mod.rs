//! Node movement: piecewise-linear trajectories.
//!
//! Every model (static, scripted waypoints, random waypoint, ns-2 movement
//! files) is turned into one [`Trajectory`] per node before the run starts:
//! a list of legs, each a straight segment at constant velocity (a pause is a
//! leg of zero velocity). Positions are evaluated lazily at the instant they
//! are needed (the channel asks at each transmission). Trajectories are pure
//! data, so the same pattern can be replayed at another speed by scaling its
//! time axis (the ELFN paper's scheme, see [`Trajectory::scaled`]).

pub mod direction;
pub mod gauss_markov;
pub mod ns2;
pub mod rpgm;
pub mod waypoint;

use crate::sim::Position;
use crate::sim::Time;

/// One straight segment: from `from` at `start`, moving at `velocity`
/// (m/s, x and y) until the next leg starts.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Leg {
    pub start: Time,
    pub from: Position,
    pub vx: f64,
    pub vy: f64,
}

/// A node's whole path: legs sorted by start time.
#[derive(Clone, Debug, PartialEq)]
pub struct Trajectory {
    legs: Vec<Leg>,
}

impl Trajectory {
    pub fn fixed(p: Position) -> Self {
        Trajectory { legs: vec![Leg { start: Time::ZERO, from: p, vx: 0.0, vy: 0.0 }] }
    }

    /// Builds from legs (sorted by start; the first must start at 0).
    pub fn from_legs(legs: Vec<Leg>) -> Self {
        assert!(!legs.is_empty() && legs[0].start == Time::ZERO, "a trajectory starts at time 0");
        debug_assert!(legs.windows(2).all(|w| w[0].start <= w[1].start));
        Trajectory { legs }
    }

    /// Moves from the current position towards `to` at `speed` from time
    /// `at` (ns-2's setdest: replaces any movement in progress). Arrival
    /// adds a stop leg.
    pub fn set_dest(&mut self, at: Time, to: Position, speed: f64) {
        let here = self.position(at);
        // Legs are sorted by start, so the ones replaced are a tail: popping
        // them keeps a movement file with m moves per node linear in m
        // (`retain` scanned every leg on every move).
        while self.legs.last().is_some_and(|l| l.start >= at) {
            self.legs.pop();
        }
        let d = ((to.x - here.x).powi(2) + (to.y - here.y).powi(2)).sqrt();
        if speed <= 0.0 || d < 1e-9 {
            self.legs.push(Leg { start: at, from: here, vx: 0.0, vy: 0.0 });
            return;
        }
        let (vx, vy) = ((to.x - here.x) / d * speed, (to.y - here.y) / d * speed);
        self.legs.push(Leg { start: at, from: here, vx, vy });
        let arrive = at + Time::from_secs_f64(d / speed);
        self.legs.push(Leg { start: arrive, from: Position { x: to.x, y: to.y, z: here.z }, vx: 0.0, vy: 0.0 });
    }

    fn leg_at(&self, t: Time) -> &Leg {
        let i = self.legs.partition_point(|l| l.start <= t);
        &self.legs[i.saturating_sub(1)]
    }

    pub fn position(&self, t: Time) -> Position {
        let l = self.leg_at(t);
        let dt = (t.saturating_sub(l.start)).as_secs_f64();
        Position { x: l.from.x + l.vx * dt, y: l.from.y + l.vy * dt, z: l.from.z }
    }

    pub fn legs(&self) -> &[Leg] {
        &self.legs
    }

    /// Highest speed on any leg, m/s.
    pub fn max_speed(&self) -> f64 {
        self.legs.iter().map(|l| (l.vx * l.vx + l.vy * l.vy).sqrt()).fold(0.0, f64::max)
    }

    pub fn is_static(&self) -> bool {
        self.legs.iter().all(|l| l.vx == 0.0 && l.vy == 0.0)
    }

    /// The same path played `factor` times faster: every leg starts at
    /// start / factor and moves factor times faster.
    pub fn scaled(&self, factor: f64) -> Trajectory {
        Trajectory {
            legs: self
                .legs
                .iter()
                .map(|l| Leg {
                    start: Time::from_secs_f64(l.start.as_secs_f64() / factor),
                    from: l.from,
                    vx: l.vx * factor,
                    vy: l.vy * factor,
                })
                .collect(),
        }
    }
}

/// A random mobility model: draws every node's path for one seed. Each
/// model is one file (`waypoint.rs`, `direction.rs`, `gauss_markov.rs`,
/// `rpgm.rs`); node `i` draws from its own stream (seed, `i`,
/// `Purpose::Mobility`), so the paths of other nodes do not depend on it.
pub trait MobilityModel: std::fmt::Debug + Send + Sync {
    /// The model's scenario name (`random-direction`, ...).
    fn name(&self) -> &'static str;
    /// Paths of `n` nodes from time 0 to at least `until`.
    fn trajectories(&self, n: usize, seed: u64, until: Time) -> Vec<Trajectory>;
}

impl Trajectory {
    /// The path through `points` ((seconds, position), times increasing,
    /// the first at 0): straight at constant speed between them, then
    /// stationary at the last.
    pub fn through(points: &[(f64, Position)]) -> Trajectory {
        let mut legs: Vec<Leg> = Vec::with_capacity(points.len());
        for (k, &(t, p)) in points.iter().enumerate() {
            let (vx, vy) = match points.get(k + 1) {
                Some(&(t2, q)) if t2 > t => ((q.x - p.x) / (t2 - t), (q.y - p.y) / (t2 - t)),
                _ => (0.0, 0.0),
            };
            let start = Time::from_secs_f64(t);
            match legs.last_mut() {
                // Legs closer than a nanosecond collapse: keep the later one.
                Some(l) if l.start >= start => *l = Leg { start: l.start, from: p, vx, vy },
                _ => legs.push(Leg { start, from: p, vx, vy }),
            }
        }
        Trajectory::from_legs(legs)
    }

    /// Time-averaged speed over [from, to], m/s.
    pub fn mean_speed(&self, from: Time, to: Time) -> f64 {
        let (a, b) = (from.as_secs_f64(), to.as_secs_f64());
        let mut sum = 0.0;
        for (k, l) in self.legs.iter().enumerate() {
            let s = l.start.as_secs_f64().max(a);
            let e = self.legs.get(k + 1).map_or(b, |n| n.start.as_secs_f64()).min(b);
            if e > s {
                sum += (l.vx * l.vx + l.vy * l.vy).sqrt() * (e - s);
            }
        }
        sum / (b - a)
    }
}

/// How nodes move in a scenario.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum MobilityConfig {
    /// Nodes stay at their initial positions.
    #[default]
    Static,
    /// Explicit trajectories, one per node (scripted waypoints, random
    /// waypoint patterns, ns-2 movement files are all turned into these).
    Trajectories(Vec<Trajectory>),
}

impl MobilityConfig {
    pub fn trajectories(&self, initial: &[Position]) -> Vec<Trajectory> {
        match self {
            MobilityConfig::Static => initial.iter().map(|&p| Trajectory::fixed(p)).collect(),
            MobilityConfig::Trajectories(t) => t.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_dest_moves_and_stops() {
        let mut t = Trajectory::fixed(Position::new(0.0, 0.0));
        t.set_dest(Time::from_secs(10), Position::new(30.0, 40.0), 5.0);
        assert_eq!(t.position(Time::from_secs(5)), Position::new(0.0, 0.0));
        let p = t.position(Time::from_secs(15));
        assert!((p.x - 15.0).abs() < 1e-9 && (p.y - 20.0).abs() < 1e-9);
        assert_eq!(t.position(Time::from_secs(100)), Position::new(30.0, 40.0));
        // A new setdest mid-way starts from where the node is.
        t.set_dest(Time::from_secs(12), Position::new(0.0, 0.0), 1.0);
        let p = t.position(Time::from_secs(12));
        assert!((p.x - 6.0).abs() < 1e-9 && (p.y - 8.0).abs() < 1e-9);
        assert!((t.max_speed() - 5.0).abs() < 1e-9);
    }

    #[test]
    fn scaling_plays_the_same_path_faster() {
        let mut t = Trajectory::fixed(Position::new(0.0, 0.0));
        t.set_dest(Time::ZERO, Position::new(100.0, 0.0), 2.0);
        let fast = t.scaled(5.0);
        for s in 0..60 {
            let a = t.position(Time::from_secs(s));
            let b = fast.position(Time::from_secs_f64(s as f64 / 5.0));
            assert!((a.x - b.x).abs() < 1e-6, "{s}: {a:?} vs {b:?}");
        }
    }
}
