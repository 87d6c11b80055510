//! Node movement: piecewise-linear trajectories.
//!
//! Every model (static, scripted waypoints, random waypoint, ns-2 movement
//! files) is turned into one [`Trajectory`] per node before the run starts:
//! a sequence of legs, each a straight segment at constant velocity (a pause
//! is a leg of zero velocity). Scripts and movement files hold their legs;
//! random models are generators ([`LegSource`]) that produce the legs on
//! demand from the node's own random stream, so a run's memory does not
//! grow with its duration (issue 15, D4): the channel asks a [`Mover`] per
//! node, which keeps a small window of legs around the current time.
//! Positions are evaluated at the instant they are needed (the channel asks
//! at each transmission). Trajectories are values, so the same pattern can
//! be replayed at another speed by scaling its time axis (the ELFN paper's
//! scheme, see [`Trajectory::scaled`]).

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

/// Legs generated on demand, in start order (the first at time 0). A
/// random model's generator draws from the node's own stream, so running
/// it again gives the same legs: a trajectory is the generator, not its
/// output, and memory does not grow with the length of the run (issue 15,
/// D4).
pub trait LegSource: std::fmt::Debug + Send + Sync {
    /// A fresh generator from time 0.
    fn legs(&self) -> Box<dyn Iterator<Item = Leg> + Send>;
}

#[derive(Clone, Debug)]
enum Repr {
    /// Legs held in memory (static nodes, scripts, movement files).
    Legs(Vec<Leg>),
    /// Legs generated on demand.
    Lazy(std::sync::Arc<dyn LegSource>),
}

/// A node's whole path: legs sorted by start time, held or generated.
///
/// Held trajectories answer `position` by binary search. Generated ones
/// (random models) replay their generator from time 0 on every `position`
/// or `legs` call: cheap for a few queries; repeated queries along a run
/// go through a [`Mover`], which keeps a small window of legs.
#[derive(Clone, Debug)]
pub struct Trajectory {
    repr: Repr,
}

impl PartialEq for Trajectory {
    fn eq(&self, other: &Self) -> bool {
        self.leg_iter().eq(other.leg_iter())
    }
}

impl Trajectory {
    pub fn fixed(p: Position) -> Self {
        Trajectory { repr: Repr::Legs(vec![Leg { start: Time::ZERO, from: p, vx: 0.0, vy: 0.0 }]) }
    }

    /// Builds from legs (sorted by start; the first must start at 0).
    pub fn from_legs(legs: Vec<Leg>) -> Self {
        assert!(!legs.is_empty() && legs[0].start == Time::ZERO, "a trajectory starts at time 0");
        debug_assert!(legs.windows(2).all(|w| w[0].start <= w[1].start));
        Trajectory { repr: Repr::Legs(legs) }
    }

    /// A trajectory whose legs `source` generates on demand.
    pub fn generated(source: std::sync::Arc<dyn LegSource>) -> Self {
        Trajectory { repr: Repr::Lazy(source) }
    }

    /// Whether the legs are generated on demand.
    pub fn is_generated(&self) -> bool {
        matches!(self.repr, Repr::Lazy(_))
    }

    /// The same path with every leg held in memory (memory grows with the
    /// length of the path: for analyses over a whole run, such as path
    /// profiles and the viewer, which are opt-in).
    pub fn materialized(&self) -> Trajectory {
        match &self.repr {
            Repr::Legs(_) => self.clone(),
            Repr::Lazy(s) => Trajectory { repr: Repr::Legs(s.legs().collect()) },
        }
    }

    fn legs_mut(&mut self) -> &mut Vec<Leg> {
        if let Repr::Lazy(s) = &self.repr {
            self.repr = Repr::Legs(s.legs().collect());
        }
        match &mut self.repr {
            Repr::Legs(l) => l,
            Repr::Lazy(_) => unreachable!("materialized above"),
        }
    }

    /// Every leg, in order (generated ones are generated again).
    pub fn leg_iter(&self) -> Box<dyn Iterator<Item = Leg> + Send + '_> {
        match &self.repr {
            Repr::Legs(l) => Box::new(l.iter().copied()),
            Repr::Lazy(s) => s.legs(),
        }
    }

    /// Every leg, in order, by value (a generated trajectory's own
    /// generator; a held one's legs copied).
    pub fn leg_iter_owned(&self) -> Box<dyn Iterator<Item = Leg> + Send> {
        match &self.repr {
            Repr::Legs(l) => Box::new(l.clone().into_iter()),
            Repr::Lazy(s) => s.legs(),
        }
    }

    /// Moves from the current position towards `to` at `speed` from time
    /// `at` (ns-2's setdest: replaces any movement in progress). Arrival
    /// adds a stop leg.
    pub fn set_dest(&mut self, at: Time, to: Position, speed: f64) {
        let here = self.position(at);
        let legs = self.legs_mut();
        // Legs are sorted by start, so the ones replaced are a tail: popping
        // them keeps a movement file with m moves per node linear in m
        // (`retain` scanned every leg on every move).
        while legs.last().is_some_and(|l| l.start >= at) {
            legs.pop();
        }
        let d = ((to.x - here.x).powi(2) + (to.y - here.y).powi(2)).sqrt();
        if speed <= 0.0 || d < 1e-9 {
            legs.push(Leg { start: at, from: here, vx: 0.0, vy: 0.0 });
            return;
        }
        let (vx, vy) = ((to.x - here.x) / d * speed, (to.y - here.y) / d * speed);
        legs.push(Leg { start: at, from: here, vx, vy });
        let arrive = at + Time::from_secs_f64(d / speed);
        legs.push(Leg { start: arrive, from: Position { x: to.x, y: to.y, z: here.z }, vx: 0.0, vy: 0.0 });
    }

    /// Where the node is at `t`. For a generated trajectory this replays
    /// the generator up to `t` (use a [`Mover`] along a run).
    pub fn position(&self, t: Time) -> Position {
        match &self.repr {
            Repr::Legs(legs) => {
                let i = legs.partition_point(|l| l.start <= t);
                legs[i.saturating_sub(1)].at(t)
            }
            Repr::Lazy(s) => {
                let mut last = None;
                for l in s.legs() {
                    if l.start > t && last.is_some() {
                        break;
                    }
                    last = Some(l);
                }
                last.expect("a trajectory has a leg").at(t)
            }
        }
    }

    /// The legs (borrowed when held; generated into a vector otherwise).
    pub fn legs(&self) -> std::borrow::Cow<'_, [Leg]> {
        match &self.repr {
            Repr::Legs(l) => std::borrow::Cow::Borrowed(l),
            Repr::Lazy(s) => std::borrow::Cow::Owned(s.legs().collect()),
        }
    }

    /// Highest speed on any leg, m/s (one pass over the legs, no memory).
    pub fn max_speed(&self) -> f64 {
        self.leg_iter().map(|l| (l.vx * l.vx + l.vy * l.vy).sqrt()).fold(0.0, f64::max)
    }

    pub fn is_static(&self) -> bool {
        self.leg_iter().all(|l| l.vx == 0.0 && l.vy == 0.0)
    }

    /// The same path played `factor` times faster: every leg starts at
    /// start / factor and moves factor times faster.
    pub fn scaled(&self, factor: f64) -> Trajectory {
        match &self.repr {
            Repr::Legs(l) => Trajectory { repr: Repr::Legs(l.iter().map(|l| l.scaled(factor)).collect()) },
            Repr::Lazy(s) => {
                Trajectory::generated(std::sync::Arc::new(Scaled { inner: std::sync::Arc::clone(s), factor }))
            }
        }
    }
}

impl Leg {
    /// The position on this leg at `t` (times before the start: the start).
    #[inline]
    pub fn at(&self, t: Time) -> Position {
        let dt = (t.saturating_sub(self.start)).as_secs_f64();
        Position { x: self.from.x + self.vx * dt, y: self.from.y + self.vy * dt, z: self.from.z }
    }

    fn scaled(&self, factor: f64) -> Leg {
        Leg {
            start: Time::from_secs_f64(self.start.as_secs_f64() / factor),
            from: self.from,
            vx: self.vx * factor,
            vy: self.vy * factor,
        }
    }
}

/// A generated path played `factor` times faster.
#[derive(Debug)]
struct Scaled {
    inner: std::sync::Arc<dyn LegSource>,
    factor: f64,
}

impl LegSource for Scaled {
    fn legs(&self) -> Box<dyn Iterator<Item = Leg> + Send> {
        let f = self.factor;
        Box::new(self.inner.legs().map(move |l| l.scaled(f)))
    }
}

/// How many legs before the current one a [`Mover`] keeps for queries
/// slightly in the past (a transmission's start after later events).
const MOVER_KEEP: usize = 16;

/// Answers position queries along a run: for a generated trajectory it
/// keeps a window of legs around the latest query, extended from the
/// generator as time advances and trimmed behind, so its memory does not
/// grow with the run; a query before the window (rare: nothing in the
/// kernel asks for the past beyond a few legs) replays the generator from
/// time 0. Amortized O(1) per query at increasing times, no allocation
/// once the window has grown to its working size.
pub struct Mover {
    traj: Trajectory,
    gen: Option<Box<dyn Iterator<Item = Leg> + Send>>,
    window: std::collections::VecDeque<Leg>,
    /// The window starts at the trajectory's first leg.
    at_origin: bool,
    /// The generator has no more legs.
    done: bool,
    rewinds: u64,
}

impl std::fmt::Debug for Mover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mover").field("window", &self.window.len()).field("rewinds", &self.rewinds).finish()
    }
}

impl Mover {
    pub fn new(traj: Trajectory) -> Mover {
        let mut m = Mover {
            traj,
            gen: None,
            window: std::collections::VecDeque::new(),
            at_origin: true,
            done: false,
            rewinds: 0,
        };
        m.restart();
        m.rewinds = 0;
        m
    }

    fn restart(&mut self) {
        self.window.clear();
        self.at_origin = true;
        self.done = false;
        self.rewinds += 1;
        if let Repr::Lazy(s) = &self.traj.repr {
            let mut g = s.legs();
            self.window.push_back(g.next().expect("a trajectory has a leg"));
            self.gen = Some(g);
        }
    }

    pub fn trajectory(&self) -> &Trajectory {
        &self.traj
    }

    /// Legs currently held (at most a few dozen along a run).
    pub fn window_len(&self) -> usize {
        self.window.len()
    }

    /// How often a query before the window replayed the generator.
    pub fn rewinds(&self) -> u64 {
        self.rewinds
    }

    /// Where the node is at `t`.
    #[inline]
    pub fn position(&mut self, t: Time) -> Position {
        match &self.traj.repr {
            Repr::Legs(legs) => {
                let i = legs.partition_point(|l| l.start <= t);
                legs[i.saturating_sub(1)].at(t)
            }
            Repr::Lazy(_) => self.lazy_position(t),
        }
    }

    /// The leg the node follows at `t` and the time it ends (the next
    /// leg's start; `Time(u64::MAX)` for the last): the leg whose `at(t)`
    /// is [`Mover::position`], for callers that cache it.
    #[inline]
    pub fn leg_span(&mut self, t: Time) -> (Leg, Time) {
        match &self.traj.repr {
            Repr::Legs(legs) => {
                let i = legs.partition_point(|l| l.start <= t).saturating_sub(1);
                (legs[i], legs.get(i + 1).map_or(Time(u64::MAX), |n| n.start))
            }
            Repr::Lazy(_) => {
                self.lazy_position(t);
                let i = self.window.partition_point(|l| l.start <= t).saturating_sub(1);
                (self.window[i], self.window.get(i + 1).map_or(Time(u64::MAX), |n| n.start))
            }
        }
    }

    fn lazy_position(&mut self, t: Time) -> Position {
        if !self.at_origin && self.window.front().is_some_and(|l| l.start > t) {
            self.restart();
        }
        // Pull legs until one starts after `t` (the leg at `t` is then known).
        while !self.done && self.window.back().is_some_and(|l| l.start <= t) {
            match self.gen.as_mut().and_then(|g| g.next()) {
                Some(l) => self.window.push_back(l),
                None => self.done = true,
            }
        }
        let mut i = self.window.partition_point(|l| l.start <= t).saturating_sub(1);
        if i > 2 * MOVER_KEEP {
            self.window.drain(..i - MOVER_KEEP);
            self.at_origin = false;
            i = MOVER_KEEP;
        }
        self.window[i].at(t)
    }
}

/// Legs through timed points ((seconds, position), times non-decreasing,
/// the first at 0), streamed: straight at constant speed between points,
/// then stationary at the last; legs closer than a nanosecond collapse
/// (the later point wins, at the earlier start). The same legs as
/// [`Trajectory::through`] on the collected points.
pub struct Through<I: Iterator<Item = (f64, Position)>> {
    points: std::iter::Peekable<I>,
    held: Option<Leg>,
}

impl<I: Iterator<Item = (f64, Position)>> Through<I> {
    pub fn new(points: I) -> Self {
        Through { points: points.peekable(), held: None }
    }
}

impl<I: Iterator<Item = (f64, Position)>> Iterator for Through<I> {
    type Item = Leg;
    fn next(&mut self) -> Option<Leg> {
        loop {
            let Some((t, p)) = self.points.next() else { return self.held.take() };
            let (vx, vy) = match self.points.peek() {
                Some(&(t2, q)) if t2 > t => ((q.x - p.x) / (t2 - t), (q.y - p.y) / (t2 - t)),
                _ => (0.0, 0.0),
            };
            let start = Time::from_secs_f64(t);
            match &mut self.held {
                Some(l) if l.start >= start => *l = Leg { start: l.start, from: p, vx, vy },
                held => {
                    let out = held.replace(Leg { start, from: p, vx, vy });
                    if out.is_some() {
                        return out;
                    }
                }
            }
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
        Trajectory::from_legs(Through::new(points.iter().copied()).collect())
    }

    /// Time-averaged speed over [from, to], m/s.
    pub fn mean_speed(&self, from: Time, to: Time) -> f64 {
        let (a, b) = (from.as_secs_f64(), to.as_secs_f64());
        let mut sum = 0.0;
        let mut legs = self.leg_iter().peekable();
        while let Some(l) = legs.next() {
            let s = l.start.as_secs_f64().max(a);
            let e = legs.peek().map_or(b, |n| n.start.as_secs_f64()).min(b);
            if e > s {
                sum += (l.vx * l.vx + l.vy * l.vy).sqrt() * (e - s);
            }
            if e >= b && s >= b {
                break;
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
mod tests;

#[cfg(test)]
mod unit_tests {
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
