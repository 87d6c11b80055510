//! Random waypoint in a rectangle, and the ELFN paper's pattern scheme.
//!
//! Each node starts at a uniform position, picks a uniform destination and a
//! speed, moves there in a straight line, pauses, and repeats. Draws come from
//! the node's own stream (run seed, node, `Purpose::Mobility`), so adding a
//! node or a flow does not change another node's path.
//!
//! Pattern scaling (tcp-manet-elfn.txt §3): node speeds are drawn uniformly
//! in [0.9 v, 1.1 v] and the *same* pattern is replayed at every mean speed
//! v, i.e. a faster run is the same movie played faster: [`pattern`] draws a
//! pattern at mean speed 1 m/s and [`Trajectory::scaled`] plays it at v. The
//! sequence of link changes is then identical at every speed, and its times
//! scale as 1/v. (Pauses scale too; the paper used pause 0.)

use super::{Leg, Trajectory};
use crate::sim::Position;
use crate::sim::{Purpose, RngStream, Time};

#[derive(Clone, Debug, PartialEq)]
pub struct RandomWaypoint {
    pub width: f64,
    pub height: f64,
    /// Speeds drawn uniformly in [min, max], m/s.
    pub speed_min: f64,
    pub speed_max: f64,
    pub pause: Time,
}

/// Draws one node's path until `until`.
pub fn trajectory(m: &RandomWaypoint, rng: &mut RngStream, until: Time) -> Trajectory {
    let pick = |rng: &mut RngStream| Position::new(rng.range_f64(0.0, m.width), rng.range_f64(0.0, m.height));
    let mut here = pick(rng);
    let mut t = 0.0f64;
    let end = until.as_secs_f64();
    let mut legs = Vec::new();
    while t <= end {
        let to = pick(rng);
        let speed = rng.range_f64(m.speed_min, m.speed_max).max(1e-6);
        let d = here.distance(&to);
        let dur = d / speed;
        if d > 0.0 {
            legs.push(Leg {
                start: Time::from_secs_f64(t),
                from: here,
                vx: (to.x - here.x) / dur,
                vy: (to.y - here.y) / dur,
            });
        }
        t += dur;
        // Arrival (and pause): a stationary leg.
        legs.push(Leg { start: Time::from_secs_f64(t), from: to, vx: 0.0, vy: 0.0 });
        t += m.pause.as_secs_f64();
        here = to;
    }
    if legs.is_empty() || legs[0].start != Time::ZERO {
        legs.insert(0, Leg { start: Time::ZERO, from: here, vx: 0.0, vy: 0.0 });
    }
    // Legs shorter than a nanosecond can collapse onto the same start time;
    // keep the later one.
    legs.dedup_by(|b, a| {
        if a.start == b.start {
            *a = *b;
            true
        } else {
            false
        }
    });
    Trajectory::from_legs(legs)
}

/// Random waypoint paths for `n` nodes over `until`.
pub fn trajectories(m: &RandomWaypoint, n: usize, seed: u64, until: Time) -> Vec<Trajectory> {
    (0..n).map(|i| trajectory(m, &mut RngStream::new(seed, i as u64, Purpose::Mobility, 0), until)).collect()
}

/// The ELFN pattern: speeds uniform in [0.9 v, 1.1 v], pause `pause`,
/// identical at every mean speed `v` (the `pattern` number picks the seed).
pub fn pattern(width: f64, height: f64, pause: Time, n: usize, pattern: u64, v: f64, until: Time) -> Vec<Trajectory> {
    let unit = RandomWaypoint {
        width,
        height,
        speed_min: 0.9,
        speed_max: 1.1,
        pause: Time::from_secs_f64(pause.as_secs_f64() * v),
    };
    // Draw at 1 m/s for v times as long, then play v times faster.
    let unit_until = Time::from_secs_f64(until.as_secs_f64() * v);
    trajectories(&unit, n, pattern, unit_until).iter().map(|t| t.scaled(v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_in_the_area_and_respects_speeds() {
        let m =
            RandomWaypoint { width: 1500.0, height: 300.0, speed_min: 1.0, speed_max: 20.0, pause: Time::from_secs(2) };
        for t in trajectories(&m, 10, 3, Time::from_secs(500)) {
            assert!(t.max_speed() <= 20.0 + 1e-9);
            for s in 0..500 {
                let p = t.position(Time::from_secs(s));
                assert!((-1e-6..=1500.0 + 1e-6).contains(&p.x) && (-1e-6..=300.0 + 1e-6).contains(&p.y), "{p:?}");
            }
        }
    }

    #[test]
    fn pattern_is_the_same_movie_at_every_speed() {
        let slow = pattern(1500.0, 300.0, Time::ZERO, 5, 7, 10.0, Time::from_secs(100));
        let fast = pattern(1500.0, 300.0, Time::ZERO, 5, 7, 20.0, Time::from_secs(100));
        for (a, b) in slow.iter().zip(&fast) {
            for s in 0..100 {
                let pa = a.position(Time::from_secs(s));
                let pb = b.position(Time::from_secs_f64(s as f64 / 2.0));
                assert!(pa.distance(&pb) < 1e-3, "{s}: {pa:?} vs {pb:?}");
            }
            let v = a.max_speed();
            assert!((9.0 - 1e-9..=11.0 + 1e-9).contains(&v), "{v}");
        }
    }
}
