//! Gauss-Markov mobility (Liang and Haas, INFOCOM 1999; as described by
//! Camp, Boleng, Davies, "A survey of mobility models for ad hoc network
//! research", WCMC 2002): every `step` a node's speed and direction are
//! updated as
//!
//! s_n = α s_{n-1} + (1 - α) s̄ + σ_s √(1 - α²) w,
//! d_n = α d_{n-1} + (1 - α) d̄ + σ_d √(1 - α²) w',
//!
//! with w, w' standard normal: α = 0 is memoryless (random walk), α = 1
//! straight lines. Near an edge (within 10% of the side) the mean direction
//! d̄ turns towards the centre of the area, as in Camp et al.; a leg that
//! would cross the edge is reflected. The defining property, the lag-one
//! autocorrelation of the speed equal to α, is tested below. Speeds below
//! zero are clipped to zero.

use super::{Leg, LegSource, MobilityModel, Through, Trajectory};
use crate::sim::{Position, Purpose, RngStream, Time};
use std::f64::consts::PI;

#[derive(Clone, Debug, PartialEq)]
pub struct GaussMarkov {
    pub width: f64,
    pub height: f64,
    /// Memory, 0..=1.
    pub alpha: f64,
    pub mean_speed: f64,
    pub speed_sd: f64,
    /// Standard deviation of the direction, radians.
    pub direction_sd: f64,
    /// Update interval.
    pub step: Time,
}

/// A standard normal draw (Box-Muller).
pub(super) fn normal(rng: &mut RngStream) -> f64 {
    let u = 1.0 - rng.unit();
    let v = rng.unit();
    (-2.0 * u.ln()).sqrt() * (2.0 * PI * v).cos()
}

/// One node's walk, one step at a time: (speed of the step, position at
/// its end), after the initial position.
#[derive(Clone, Debug)]
struct Walk {
    m: GaussMarkov,
    rng: RngStream,
    k: f64,
    p: Position,
    mean_dir: f64,
    s: f64,
    d: f64,
}

impl Walk {
    fn new(m: &GaussMarkov, mut rng: RngStream) -> Self {
        let (w, h, a) = (m.width, m.height, m.alpha);
        let k = (1.0 - a * a).max(0.0).sqrt();
        let p = Position::new(rng.range_f64(0.0, w), rng.range_f64(0.0, h));
        let mean_dir = rng.range_f64(0.0, 2.0 * PI);
        Walk { m: m.clone(), rng, k, p, mean_dir, s: m.mean_speed, d: mean_dir }
    }

    fn step(&mut self) -> (f64, Position) {
        let (w, h, a, k) = (self.m.width, self.m.height, self.m.alpha, self.k);
        let (p, rng) = (self.p, &mut self.rng);
        let dt = self.m.step.as_secs_f64();
        let near = p.x < 0.1 * w || p.x > 0.9 * w || p.y < 0.1 * h || p.y > 0.9 * h;
        let target = if near { (h / 2.0 - p.y).atan2(w / 2.0 - p.x) } else { self.mean_dir };
        // Turn the shorter way towards the target direction.
        let d = self.d;
        let tgt = d + ((target - d + PI).rem_euclid(2.0 * PI) - PI);
        self.s = a * self.s + (1.0 - a) * self.m.mean_speed + self.m.speed_sd * k * normal(rng);
        let mut d = a * d + (1.0 - a) * tgt + self.m.direction_sd * k * normal(rng);
        let v = self.s.max(0.0);
        let (mut x, mut y) = (p.x + v * d.cos() * dt, p.y + v * d.sin() * dt);
        if !(0.0..=w).contains(&x) {
            x = if x < 0.0 { -x } else { 2.0 * w - x }.clamp(0.0, w);
            d = PI - d;
        }
        if !(0.0..=h).contains(&y) {
            y = if y < 0.0 { -y } else { 2.0 * h - y }.clamp(0.0, h);
            d = -d;
        }
        self.d = d;
        self.p = Position::new(x, y);
        (v, self.p)
    }
}

impl GaussMarkov {
    /// The speeds and positions of one node, one per step.
    #[cfg(test)]
    fn walk(&self, rng: &mut RngStream, steps: usize) -> (Vec<f64>, Vec<Position>) {
        let mut walk = Walk::new(self, rng.clone());
        let (mut speeds, mut pts) = (Vec::with_capacity(steps), Vec::with_capacity(steps + 1));
        pts.push(walk.p);
        for _ in 0..steps {
            let (v, p) = walk.step();
            speeds.push(v);
            pts.push(p);
        }
        (speeds, pts)
    }
}

/// One node's path: the walk's positions, `steps` + 1 of them, `step`
/// apart, generated on demand.
#[derive(Debug)]
struct GaussMarkovSource {
    m: GaussMarkov,
    seed: u64,
    node: u64,
    steps: usize,
}

impl LegSource for GaussMarkovSource {
    fn legs(&self) -> Box<dyn Iterator<Item = Leg> + Send> {
        let mut walk = Walk::new(&self.m, RngStream::new(self.seed, self.node, Purpose::Mobility, 0));
        let dt = self.m.step.as_secs_f64();
        let first = walk.p;
        let points = std::iter::once((0.0, first)).chain((1..=self.steps).map(move |k| (k as f64 * dt, walk.step().1)));
        Box::new(Through::new(points))
    }
}

impl MobilityModel for GaussMarkov {
    fn name(&self) -> &'static str {
        "gauss-markov"
    }
    fn trajectories(&self, n: usize, seed: u64, until: Time) -> Vec<Trajectory> {
        let dt = self.step.as_secs_f64();
        let steps = (until.as_secs_f64() / dt).ceil() as usize + 1;
        (0..n)
            .map(|i| {
                Trajectory::generated(std::sync::Arc::new(GaussMarkovSource {
                    m: self.clone(),
                    seed,
                    node: i as u64,
                    steps,
                }))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lag1(x: &[f64]) -> f64 {
        let m = x.iter().sum::<f64>() / x.len() as f64;
        let var: f64 = x.iter().map(|v| (v - m) * (v - m)).sum();
        let cov: f64 = x.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum();
        cov / var
    }

    #[test]
    fn speed_autocorrelation_is_alpha_and_nodes_stay_inside() {
        for alpha in [0.0, 0.5, 0.85] {
            let m = GaussMarkov {
                width: 1000.0,
                height: 1000.0,
                alpha,
                mean_speed: 10.0,
                speed_sd: 2.0,
                direction_sd: 0.5,
                step: Time::from_secs(1),
            };
            let (s, pts) = m.walk(&mut RngStream::new(5, 0, Purpose::Mobility, 0), 20_000);
            let r = lag1(&s);
            assert!((r - alpha).abs() < 0.03, "alpha {alpha}: lag-1 autocorrelation {r}");
            let mean = s.iter().sum::<f64>() / s.len() as f64;
            assert!((mean - 10.0).abs() < 0.2, "{mean}");
            assert!(pts.iter().all(|p| (0.0..=1000.0).contains(&p.x) && (0.0..=1000.0).contains(&p.y)));
        }
        let t = GaussMarkov {
            width: 300.0,
            height: 300.0,
            alpha: 0.75,
            mean_speed: 5.0,
            speed_sd: 1.0,
            direction_sd: 0.3,
            step: Time::from_secs(1),
        }
        .trajectories(3, 1, Time::from_secs(50));
        assert!(t.iter().all(|t| t.max_speed() > 0.0));
    }
}
