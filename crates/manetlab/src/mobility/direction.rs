//! Random direction (Royer, Melliar-Smith, Moser, ICC 2001; ns-3's
//! `RandomDirection2dMobilityModel`): a node picks a direction and a speed,
//! travels in a straight line until it reaches the edge of the area,
//! pauses there, then picks a new direction pointing into the area (angle
//! to the inward normal with density proportional to its cosine).
//!
//! Unlike random waypoint, nodes do not gather in the centre: with no pause
//! the node density stays uniform over the area (the defining property,
//! tested below). Scope: a rectangle, speeds uniform in [min, max], a fixed
//! pause at the edge.

use super::{MobilityModel, Trajectory};
use crate::sim::{Position, Purpose, RngStream, Time};
use std::f64::consts::PI;

#[derive(Clone, Debug, PartialEq)]
pub struct RandomDirection {
    pub width: f64,
    pub height: f64,
    pub speed_min: f64,
    pub speed_max: f64,
    /// Pause at the edge before turning.
    pub pause: Time,
}

/// Distance along (cos a, sin a) from `p` to the edge of [0, w] x [0, h].
fn to_edge(p: Position, a: f64, w: f64, h: f64) -> f64 {
    let (dx, dy) = (a.cos(), a.sin());
    let tx = if dx > 1e-12 {
        (w - p.x) / dx
    } else if dx < -1e-12 {
        -p.x / dx
    } else {
        f64::INFINITY
    };
    let ty = if dy > 1e-12 {
        (h - p.y) / dy
    } else if dy < -1e-12 {
        -p.y / dy
    } else {
        f64::INFINITY
    };
    tx.min(ty).max(0.0)
}

impl RandomDirection {
    fn trajectory(&self, rng: &mut RngStream, until: f64) -> Trajectory {
        let (w, h) = (self.width, self.height);
        let mut here = Position::new(rng.range_f64(0.0, w), rng.range_f64(0.0, h));
        let mut angle = rng.range_f64(0.0, 2.0 * PI);
        let mut t = 0.0;
        let mut pts = vec![(0.0, here)];
        while t <= until {
            let v = rng.range_f64(self.speed_min, self.speed_max).max(1e-6);
            let d = to_edge(here, angle, w, h);
            let to = Position::new((here.x + d * angle.cos()).clamp(0.0, w), (here.y + d * angle.sin()).clamp(0.0, h));
            t += d / v;
            pts.push((t, to));
            t += self.pause.as_secs_f64();
            if self.pause > Time::ZERO {
                pts.push((t, to));
            }
            here = to;
            // A new direction into the area, at angle θ from the inward
            // normal with density cos θ / 2 (sin θ uniform in [-1, 1]):
            // the flux of a uniform, isotropic population through the
            // edge, which keeps the node density uniform (Nain, Towsley,
            // Liu, Liu, INFOCOM 2005). A uniform θ would favour grazing
            // paths and crowd nodes along the edges.
            let n = inward_normal(here, w, h, rng);
            angle = n + rng.range_f64(-1.0, 1.0).asin();
        }
        Trajectory::through(&pts)
    }
}

/// The inward normal of the edge `p` lies on (a corner: one of its two
/// edges, at random).
fn inward_normal(p: Position, w: f64, h: f64, rng: &mut RngStream) -> f64 {
    let eps = 1e-6 * w.max(h);
    let mut normals = Vec::with_capacity(2);
    if p.x <= eps {
        normals.push(0.0);
    }
    if p.x >= w - eps {
        normals.push(PI);
    }
    if p.y <= eps {
        normals.push(PI / 2.0);
    }
    if p.y >= h - eps {
        normals.push(-PI / 2.0);
    }
    match normals.len() {
        0 => rng.range_f64(0.0, 2.0 * PI),
        1 => normals[0],
        k => normals[(rng.unit() * k as f64) as usize % k],
    }
}

impl MobilityModel for RandomDirection {
    fn name(&self) -> &'static str {
        "random-direction"
    }
    fn trajectories(&self, n: usize, seed: u64, until: Time) -> Vec<Trajectory> {
        (0..n)
            .map(|i| self.trajectory(&mut RngStream::new(seed, i as u64, Purpose::Mobility, 0), until.as_secs_f64()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mobility::waypoint::RandomWaypoint;

    /// Fraction of (node, second) samples in the central square of half
    /// the side (a quarter of the area).
    fn central(ts: &[Trajectory], w: f64) -> f64 {
        let mut inside = 0;
        let mut all = 0;
        for t in ts {
            for s in 0..1000 {
                let p = t.position(Time::from_secs(s));
                assert!((-1e-6..=w + 1e-6).contains(&p.x) && (-1e-6..=w + 1e-6).contains(&p.y), "{p:?}");
                all += 1;
                if (w / 4.0..3.0 * w / 4.0).contains(&p.x) && (w / 4.0..3.0 * w / 4.0).contains(&p.y) {
                    inside += 1;
                }
            }
        }
        inside as f64 / all as f64
    }

    #[test]
    fn nodes_stay_uniform_unlike_random_waypoint() {
        let rd = RandomDirection { width: 500.0, height: 500.0, speed_min: 2.0, speed_max: 10.0, pause: Time::ZERO };
        let f = central(&rd.trajectories(200, 3, Time::from_secs(1000)), 500.0);
        assert!((f - 0.25).abs() < 0.02, "random direction: {f} of the time in the central quarter");
        let rwp = RandomWaypoint {
            width: 500.0,
            height: 500.0,
            speed_min: 2.0,
            speed_max: 10.0,
            pause: Time::ZERO,
            steady_state: true,
        };
        let g = central(&rwp.trajectories(200, 3, Time::from_secs(1000)), 500.0);
        assert!(g > 0.35, "random waypoint gathers in the centre: {g}");
    }
}
