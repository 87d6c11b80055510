//! Reference point group mobility (Hong, Gerla, Pei, Chiang, MSWiM 1999):
//! nodes move in groups. Each group has a logical reference point moving by
//! random waypoint; each member stays within `radius` of its group's
//! reference point, at a random offset redrawn every `step` (uniform in the
//! disc) and interpolated linearly in between, so its motion is the
//! group's plus a small random motion of its own.
//!
//! Node `i` belongs to group `i % groups`. Reference points move in the
//! area shrunk by `radius` on every side, so members never leave the area.
//! The defining property, every member within `radius` of its reference
//! point at every instant, is tested below (it holds exactly: between the
//! breakpoints, the union of the offset steps and the reference's own
//! turns, member and reference both move linearly).

use super::waypoint::{self, RandomWaypoint};
use super::{Leg, LegSource, MobilityModel, Mover, Through, Trajectory};
use crate::sim::{Position, Purpose, RngStream, Time};
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq)]
pub struct Rpgm {
    pub groups: u32,
    pub radius: f64,
    /// The reference points' random waypoint (in the full area; shrunk by
    /// `radius` here).
    pub reference: RandomWaypoint,
    /// How often a member's offset is redrawn.
    pub step: Time,
}

impl Rpgm {
    /// The reference points' random waypoint, in the area shrunk by the radius.
    fn shrunk(&self) -> RandomWaypoint {
        let r = self.radius;
        RandomWaypoint {
            width: self.reference.width - 2.0 * r,
            height: self.reference.height - 2.0 * r,
            ..self.reference.clone()
        }
    }

    /// The reference point paths, one per group (generated on demand).
    pub fn references(&self, seed: u64, until: Time) -> Vec<Trajectory> {
        (0..self.groups).map(|g| self.reference_path(seed, g as u64, until)).collect()
    }

    fn reference_path(&self, seed: u64, g: u64, until: Time) -> Trajectory {
        Trajectory::generated(Arc::new(ReferenceSource { m: self.shrunk(), r: self.radius, seed, g, until }))
    }
}

/// A group's reference point: random waypoint in the shrunk area (stream
/// (seed, group, `Purpose::Mobility`, 1)), moved by (radius, radius).
#[derive(Debug)]
struct ReferenceSource {
    m: RandomWaypoint,
    r: f64,
    seed: u64,
    g: u64,
    until: Time,
}

impl LegSource for ReferenceSource {
    fn legs(&self) -> Box<dyn Iterator<Item = Leg> + Send> {
        let r = self.r;
        let rng = RngStream::new(self.seed, self.g, Purpose::Mobility, 1);
        Box::new(
            waypoint::WaypointLegs::new(&self.m, rng, self.until)
                .map(move |l| Leg { from: Position::new(l.from.x + r, l.from.y + r), ..l }),
        )
    }
}

/// One member's path: the union of the offset steps and the reference's
/// turns, each at the reference position plus the interpolated offset.
#[derive(Debug)]
struct MemberSource {
    m: Rpgm,
    seed: u64,
    node: u64,
    until: Time,
}

/// The member's points, generated in time order.
struct MemberPoints {
    radius: f64,
    rng: RngStream,
    dt: f64,
    end: f64,
    steps: usize,
    /// The reference's turns (leg starts), in order.
    turns: std::iter::Peekable<Box<dyn Iterator<Item = Leg> + Send>>,
    reference: Mover,
    /// The next offset step k (k * dt) not yet emitted.
    next_step: usize,
    last: Option<f64>,
    /// Offsets k0 and k0 + 1 (drawn in order from the member's stream).
    k0: usize,
    offs: [(f64, f64); 2],
}

impl MemberPoints {
    fn offset(&mut self) -> (f64, f64) {
        let a = self.rng.range_f64(0.0, std::f64::consts::TAU);
        let d = self.radius * self.rng.unit().sqrt();
        (d * a.cos(), d * a.sin())
    }

    /// The next time of the merged, de-duplicated sequence.
    fn next_time(&mut self) -> Option<f64> {
        loop {
            let turn = self.turns.peek().map(|l| l.start.as_secs_f64()).filter(|&t| t <= self.end);
            let step = (self.next_step <= self.steps).then_some(self.next_step as f64 * self.dt);
            let t = match (turn, step) {
                (None, None) => return None,
                (Some(a), Some(b)) if b.total_cmp(&a).is_lt() => {
                    self.next_step += 1;
                    b
                }
                (Some(a), _) => {
                    self.turns.next();
                    a
                }
                (None, Some(b)) => {
                    self.next_step += 1;
                    b
                }
            };
            if self.last != Some(t) {
                self.last = Some(t);
                return Some(t);
            }
        }
    }
}

impl Iterator for MemberPoints {
    type Item = (f64, Position);
    fn next(&mut self) -> Option<(f64, Position)> {
        let t = self.next_time()?;
        let k = ((t / self.dt).floor() as usize).min(self.steps);
        while self.k0 < k {
            self.offs[0] = self.offs[1];
            self.offs[1] = self.offset();
            self.k0 += 1;
        }
        let f = t / self.dt - k as f64;
        let (a, b) = (self.offs[0], self.offs[1]);
        let (ox, oy) = (a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1));
        let c = self.reference.position(Time::from_secs_f64(t));
        Some((t, Position::new(c.x + ox, c.y + oy)))
    }
}

impl LegSource for MemberSource {
    fn legs(&self) -> Box<dyn Iterator<Item = Leg> + Send> {
        let g = self.node % self.m.groups as u64;
        let reference = self.m.reference_path(self.seed, g, self.until);
        let end = self.until.as_secs_f64();
        let dt = self.m.step.as_secs_f64();
        let mut pts = MemberPoints {
            radius: self.m.radius,
            rng: RngStream::new(self.seed, self.node, Purpose::Mobility, 0),
            dt,
            end,
            steps: (end / dt).ceil() as usize,
            turns: reference.leg_iter_owned().peekable(),
            reference: Mover::new(reference),
            next_step: 0,
            last: None,
            k0: 0,
            offs: [(0.0, 0.0); 2],
        };
        pts.offs = [pts.offset(), pts.offset()];
        Box::new(Through::new(pts))
    }
}

impl MobilityModel for Rpgm {
    fn name(&self) -> &'static str {
        "rpgm"
    }
    fn trajectories(&self, n: usize, seed: u64, until: Time) -> Vec<Trajectory> {
        (0..n)
            .map(|i| Trajectory::generated(Arc::new(MemberSource { m: self.clone(), seed, node: i as u64, until })))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_stay_within_the_radius_of_their_reference_point() {
        let m = Rpgm {
            groups: 3,
            radius: 50.0,
            reference: RandomWaypoint {
                width: 1000.0,
                height: 600.0,
                speed_min: 1.0,
                speed_max: 15.0,
                pause: Time::from_secs(2),
                steady_state: false,
            },
            step: Time::from_secs(2),
        };
        let until = Time::from_secs(300);
        let refs = m.references(9, until);
        let ts = m.trajectories(12, 9, until);
        let mut worst: f64 = 0.0;
        for (i, t) in ts.iter().enumerate() {
            for k in 0..3000 {
                let at = Time::from_ns((k * 100 + 37) * 1_000_000);
                let (p, c) = (t.position(at), refs[i % 3].position(at));
                worst = worst.max(p.distance(&c));
                assert!((0.0..=1000.0).contains(&p.x) && (0.0..=600.0).contains(&p.y), "{p:?}");
            }
        }
        assert!(worst <= 50.0 + 1e-3, "a member strayed {worst} m from its reference point");
        assert!(worst > 30.0, "offsets should use the disc: {worst}");
        // Members of one group move together: far apart groups, close members.
        let d_same = ts[0].position(Time::from_secs(200)).distance(&ts[3].position(Time::from_secs(200)));
        assert!(d_same <= 100.0 + 1e-3, "{d_same}");
    }
}
