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
use super::{MobilityModel, Trajectory};
use crate::sim::{Position, Purpose, RngStream, Time};

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
    /// The reference point paths, one per group.
    pub fn references(&self, seed: u64, until: Time) -> Vec<Trajectory> {
        let r = self.radius;
        let shrunk = RandomWaypoint {
            width: self.reference.width - 2.0 * r,
            height: self.reference.height - 2.0 * r,
            ..self.reference.clone()
        };
        (0..self.groups)
            .map(|g| {
                let t = waypoint::trajectory(&shrunk, &mut RngStream::new(seed, g as u64, Purpose::Mobility, 1), until);
                let pts: Vec<(f64, Position)> = t
                    .legs()
                    .iter()
                    .map(|l| (l.start.as_secs_f64(), Position::new(l.from.x + r, l.from.y + r)))
                    .collect();
                // Rebuild with the same legs, moved by (r, r).
                Trajectory::from_legs(
                    t.legs()
                        .iter()
                        .zip(pts)
                        .map(|(l, (_, p))| super::Leg { start: l.start, from: p, vx: l.vx, vy: l.vy })
                        .collect(),
                )
            })
            .collect()
    }
}

impl MobilityModel for Rpgm {
    fn name(&self) -> &'static str {
        "rpgm"
    }
    fn trajectories(&self, n: usize, seed: u64, until: Time) -> Vec<Trajectory> {
        let refs = self.references(seed, until);
        let end = until.as_secs_f64();
        let dt = self.step.as_secs_f64();
        (0..n)
            .map(|i| {
                let rp = &refs[i % self.groups as usize];
                let mut rng = RngStream::new(seed, i as u64, Purpose::Mobility, 0);
                let mut offset = || {
                    let a = rng.range_f64(0.0, std::f64::consts::TAU);
                    let d = self.radius * rng.unit().sqrt();
                    (d * a.cos(), d * a.sin())
                };
                let mut times: Vec<f64> =
                    rp.legs().iter().map(|l| l.start.as_secs_f64()).filter(|&t| t <= end).collect();
                let steps = (end / dt).ceil() as usize;
                let offs: Vec<(f64, f64)> = (0..=steps + 1).map(|_| offset()).collect();
                times.extend((0..=steps).map(|k| k as f64 * dt));
                times.sort_by(f64::total_cmp);
                times.dedup();
                let pts: Vec<(f64, Position)> = times
                    .into_iter()
                    .map(|t| {
                        let k = ((t / dt).floor() as usize).min(steps);
                        let f = t / dt - k as f64;
                        let (a, b) = (offs[k], offs[k + 1]);
                        let (ox, oy) = (a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1));
                        let c = rp.position(Time::from_secs_f64(t));
                        (t, Position::new(c.x + ox, c.y + oy))
                    })
                    .collect();
                Trajectory::through(&pts)
            })
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
