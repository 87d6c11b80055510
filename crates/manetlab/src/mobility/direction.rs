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

use super::{Leg, LegSource, MobilityModel, Through, Trajectory};
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
pub(super) fn to_edge(p: Position, a: f64, w: f64, h: f64) -> f64 {
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

/// One node's turning points ((seconds, position)), drawn one edge at a
/// time from its stream until `until`.
#[derive(Clone, Debug)]
struct DirectionPoints {
    m: RandomDirection,
    rng: RngStream,
    until: f64,
    t: f64,
    here: Position,
    angle: f64,
    started: bool,
    pending: std::collections::VecDeque<(f64, Position)>,
}

impl DirectionPoints {
    fn new(m: &RandomDirection, rng: RngStream, until: f64) -> Self {
        DirectionPoints {
            m: m.clone(),
            rng,
            until,
            t: 0.0,
            here: Position::default(),
            angle: 0.0,
            started: false,
            pending: std::collections::VecDeque::with_capacity(3),
        }
    }

    /// Draws the next edge's points into `pending` (false: none left).
    fn advance(&mut self) -> bool {
        let (w, h) = (self.m.width, self.m.height);
        let rng = &mut self.rng;
        if !self.started {
            self.started = true;
            self.here = Position::new(rng.range_f64(0.0, w), rng.range_f64(0.0, h));
            self.angle = rng.range_f64(0.0, 2.0 * PI);
            self.pending.push_back((0.0, self.here));
            return true;
        }
        if self.t > self.until {
            return false;
        }
        let (here, angle) = (self.here, self.angle);
        let v = rng.range_f64(self.m.speed_min, self.m.speed_max).max(1e-6);
        let d = to_edge(here, angle, w, h);
        let to = Position::new((here.x + d * angle.cos()).clamp(0.0, w), (here.y + d * angle.sin()).clamp(0.0, h));
        self.t += d / v;
        self.pending.push_back((self.t, to));
        self.t += self.m.pause.as_secs_f64();
        if self.m.pause > Time::ZERO {
            self.pending.push_back((self.t, to));
        }
        self.here = to;
        // A new direction into the area, at angle θ from the inward
        // normal with density cos θ / 2 (sin θ uniform in [-1, 1]):
        // the flux of a uniform, isotropic population through the
        // edge, which keeps the node density uniform (Nain, Towsley,
        // Liu, Liu, INFOCOM 2005). A uniform θ would favour grazing
        // paths and crowd nodes along the edges.
        let n = inward_normal(to, w, h, rng);
        self.angle = n + rng.range_f64(-1.0, 1.0).asin();
        true
    }
}

impl Iterator for DirectionPoints {
    type Item = (f64, Position);
    fn next(&mut self) -> Option<(f64, Position)> {
        loop {
            if let Some(p) = self.pending.pop_front() {
                return Some(p);
            }
            if !self.advance() {
                return None;
            }
        }
    }
}

/// One node's path, generated on demand.
#[derive(Debug)]
struct DirectionSource {
    m: RandomDirection,
    seed: u64,
    node: u64,
    until: f64,
}

impl LegSource for DirectionSource {
    fn legs(&self) -> Box<dyn Iterator<Item = Leg> + Send> {
        let rng = RngStream::new(self.seed, self.node, Purpose::Mobility, 0);
        Box::new(Through::new(DirectionPoints::new(&self.m, rng, self.until)))
    }
}

/// The inward normal of the edge `p` lies on (a corner: one of its two
/// edges, at random).
pub(super) fn inward_normal(p: Position, w: f64, h: f64, rng: &mut RngStream) -> f64 {
    let eps = 1e-6 * w.max(h);
    let (mut normals, mut k) = ([0.0; 4], 0);
    let mut add = |a: f64| {
        normals[k] = a;
        k += 1;
    };
    if p.x <= eps {
        add(0.0);
    }
    if p.x >= w - eps {
        add(PI);
    }
    if p.y <= eps {
        add(PI / 2.0);
    }
    if p.y >= h - eps {
        add(-PI / 2.0);
    }
    match k {
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
            .map(|i| {
                Trajectory::generated(std::sync::Arc::new(DirectionSource {
                    m: self.clone(),
                    seed,
                    node: i as u64,
                    until: until.as_secs_f64(),
                }))
            })
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
