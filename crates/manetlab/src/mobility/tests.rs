//! The generated (lazy) trajectories give exactly the legs the former
//! precomputing code gave (issue 15, D4: positions byte-identical). The
//! `precomputed_*` functions are that former code, kept here as the
//! reference.

use super::direction::RandomDirection;
use super::gauss_markov::GaussMarkov;
use super::rpgm::Rpgm;
use super::waypoint::{self, RandomWaypoint};
use super::*;
use crate::sim::{Purpose, RngStream};
use std::f64::consts::PI;

/// Draws one node's path until `until`.
fn precomputed_waypoint(m: &RandomWaypoint, rng: &mut RngStream, until: Time) -> Trajectory {
    let pick = |rng: &mut RngStream| Position::new(rng.range_f64(0.0, m.width), rng.range_f64(0.0, m.height));
    let mut t = 0.0f64;
    let end = until.as_secs_f64();
    let mut legs = Vec::new();
    let mut here = if m.steady_state {
        let (at, to, v, pause) = waypoint::steady_start(m, rng);
        match to {
            Some(to) => {
                let d = at.distance(&to);
                if d > 0.0 {
                    legs.push(Leg {
                        start: Time::ZERO,
                        from: at,
                        vx: (to.x - at.x) / d * v,
                        vy: (to.y - at.y) / d * v,
                    });
                    t = d / v;
                }
                legs.push(Leg { start: Time::from_secs_f64(t), from: to, vx: 0.0, vy: 0.0 });
                t += pause;
                to
            }
            None => {
                legs.push(Leg { start: Time::ZERO, from: at, vx: 0.0, vy: 0.0 });
                t = pause;
                at
            }
        }
    } else {
        pick(rng)
    };
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

fn precomputed_direction(m: &RandomDirection, rng: &mut RngStream, until: f64) -> Trajectory {
    use super::direction::{inward_normal, to_edge};
    let s = m;
    let (w, h) = (s.width, s.height);
    let mut here = Position::new(rng.range_f64(0.0, w), rng.range_f64(0.0, h));
    let mut angle = rng.range_f64(0.0, 2.0 * PI);
    let mut t = 0.0;
    let mut pts = vec![(0.0, here)];
    while t <= until {
        let v = rng.range_f64(s.speed_min, s.speed_max).max(1e-6);
        let d = to_edge(here, angle, w, h);
        let to = Position::new((here.x + d * angle.cos()).clamp(0.0, w), (here.y + d * angle.sin()).clamp(0.0, h));
        t += d / v;
        pts.push((t, to));
        t += s.pause.as_secs_f64();
        if s.pause > Time::ZERO {
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
    precomputed_through(&pts)
}

fn precomputed_gauss_markov(m: &GaussMarkov, seed: u64, i: u64, until: Time) -> Trajectory {
    let dt = m.step.as_secs_f64();
    let steps = (until.as_secs_f64() / dt).ceil() as usize + 1;
    let (_, pts) = precomputed_walk(m, &mut RngStream::new(seed, i, Purpose::Mobility, 0), steps);
    let timed: Vec<(f64, Position)> = pts.into_iter().enumerate().map(|(k, p)| (k as f64 * dt, p)).collect();
    precomputed_through(&timed)
}

fn precomputed_rpgm(m: &Rpgm, n: usize, seed: u64, until: Time) -> Vec<Trajectory> {
    let s = m;
    let r = s.radius;
    let shrunk = RandomWaypoint {
        width: s.reference.width - 2.0 * r,
        height: s.reference.height - 2.0 * r,
        ..s.reference.clone()
    };
    let refs: Vec<Trajectory> = (0..s.groups)
        .map(|g| {
            let t = precomputed_waypoint(&shrunk, &mut RngStream::new(seed, g as u64, Purpose::Mobility, 1), until);
            Trajectory::from_legs(
                t.legs().iter().map(|l| Leg { from: Position::new(l.from.x + r, l.from.y + r), ..*l }).collect(),
            )
        })
        .collect();
    let end = until.as_secs_f64();
    let dt = s.step.as_secs_f64();
    (0..n)
        .map(|i| {
            let rp = &refs[i % s.groups as usize];
            let mut rng = RngStream::new(seed, i as u64, Purpose::Mobility, 0);
            let mut offset = || {
                let a = rng.range_f64(0.0, std::f64::consts::TAU);
                let d = s.radius * rng.unit().sqrt();
                (d * a.cos(), d * a.sin())
            };
            let mut times: Vec<f64> = rp.legs().iter().map(|l| l.start.as_secs_f64()).filter(|&t| t <= end).collect();
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
            precomputed_through(&pts)
        })
        .collect()
}

fn precomputed_walk(m: &GaussMarkov, rng: &mut RngStream, steps: usize) -> (Vec<f64>, Vec<Position>) {
    let (w, h, a) = (m.width, m.height, m.alpha);
    let k = (1.0 - a * a).max(0.0).sqrt();
    let mut p = Position::new(rng.range_f64(0.0, w), rng.range_f64(0.0, h));
    let mean_dir = rng.range_f64(0.0, 2.0 * PI);
    let mut s = m.mean_speed;
    let mut d = mean_dir;
    let dt = m.step.as_secs_f64();
    let (mut speeds, mut pts) = (Vec::with_capacity(steps), Vec::with_capacity(steps + 1));
    pts.push(p);
    for _ in 0..steps {
        let near = p.x < 0.1 * w || p.x > 0.9 * w || p.y < 0.1 * h || p.y > 0.9 * h;
        let target = if near { (h / 2.0 - p.y).atan2(w / 2.0 - p.x) } else { mean_dir };
        // Turn the shorter way towards the target direction.
        let tgt = d + ((target - d + PI).rem_euclid(2.0 * PI) - PI);
        s = a * s + (1.0 - a) * m.mean_speed + m.speed_sd * k * super::gauss_markov::normal(rng);
        d = a * d + (1.0 - a) * tgt + m.direction_sd * k * super::gauss_markov::normal(rng);
        let v = s.max(0.0);
        speeds.push(v);
        let (mut x, mut y) = (p.x + v * d.cos() * dt, p.y + v * d.sin() * dt);
        if !(0.0..=w).contains(&x) {
            x = if x < 0.0 { -x } else { 2.0 * w - x }.clamp(0.0, w);
            d = PI - d;
        }
        if !(0.0..=h).contains(&y) {
            y = if y < 0.0 { -y } else { 2.0 * h - y }.clamp(0.0, h);
            d = -d;
        }
        p = Position::new(x, y);
        pts.push(p);
    }
    (speeds, pts)
}

fn precomputed_through(points: &[(f64, Position)]) -> Trajectory {
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

/// Legs of `a` (generated) and `b` (precomputed) are identical, bit for bit;
/// a Mover along increasing times and a few steps back agrees with both.
fn same(a: &Trajectory, b: &Trajectory, until: Time) {
    assert!(a.is_generated());
    let (la, lb) = (a.legs(), b.legs());
    assert_eq!(la.len(), lb.len());
    for (x, y) in la.iter().zip(lb.iter()) {
        assert_eq!(x.start, y.start);
        assert_eq!(x.from.x.to_bits(), y.from.x.to_bits());
        assert_eq!(x.from.y.to_bits(), y.from.y.to_bits());
        assert_eq!(x.vx.to_bits(), y.vx.to_bits());
        assert_eq!(x.vy.to_bits(), y.vy.to_bits());
    }
    let mut m = Mover::new(a.clone());
    let step = until.as_ns() / 5_000 + 1;
    let mut t = 0;
    let mut k = 0u64;
    while t <= until.as_ns() + step {
        // Mostly forward, sometimes a little back (a transmission's start).
        let q = Time::from_ns(if k % 7 == 3 { t.saturating_sub(3 * step) } else { t });
        let (p, r) = (m.position(q), b.position(q));
        assert_eq!((p.x.to_bits(), p.y.to_bits()), (r.x.to_bits(), r.y.to_bits()), "at {q:?}");
        t += step;
        k += 1;
    }
    assert!(m.window_len() <= 4 * MOVER_KEEP + 8, "window {}", m.window_len());
    assert_eq!(m.rewinds(), 0);
    // A query far in the past replays the generator, still exact.
    let p = m.position(Time::from_ns(step / 2));
    assert_eq!(p, b.position(Time::from_ns(step / 2)));
}

#[test]
fn generated_waypoint_and_pattern_legs_equal_the_precomputed_ones() {
    for steady_state in [false, true] {
        let m = RandomWaypoint {
            width: 1500.0,
            height: 300.0,
            speed_min: 1.0,
            speed_max: 20.0,
            pause: Time::from_secs(2),
            steady_state,
        };
        let until = Time::from_secs(3000);
        for (i, t) in waypoint::trajectories(&m, 6, 77, until).iter().enumerate() {
            let b = precomputed_waypoint(&m, &mut RngStream::new(77, i as u64, Purpose::Mobility, 0), until);
            assert!(b.legs().len() > 30, "{} legs", b.legs().len());
            same(t, &b, until);
        }
    }
    // The pattern scheme: drawn at 1 m/s, played v times faster.
    let unit = RandomWaypoint {
        width: 1500.0,
        height: 300.0,
        speed_min: 0.9,
        speed_max: 1.1,
        pause: Time::ZERO,
        steady_state: false,
    };
    let until = Time::from_secs(900);
    for (i, t) in waypoint::pattern(1500.0, 300.0, Time::ZERO, 4, 3, 10.0, until).iter().enumerate() {
        let unit_until = Time::from_secs_f64(until.as_secs_f64() * 10.0);
        let b = precomputed_waypoint(&unit, &mut RngStream::new(3, i as u64, Purpose::Mobility, 0), unit_until);
        same(t, &b.scaled(10.0), until);
    }
}

#[test]
fn generated_direction_gauss_markov_rpgm_legs_equal_the_precomputed_ones() {
    let until = Time::from_secs(2000);
    let rd =
        RandomDirection { width: 500.0, height: 400.0, speed_min: 2.0, speed_max: 10.0, pause: Time::from_secs(1) };
    for (i, t) in rd.trajectories(4, 5, until).iter().enumerate() {
        let b = precomputed_direction(&rd, &mut RngStream::new(5, i as u64, Purpose::Mobility, 0), until.as_secs_f64());
        same(t, &b, until);
    }
    let gm = GaussMarkov {
        width: 800.0,
        height: 600.0,
        alpha: 0.75,
        mean_speed: 5.0,
        speed_sd: 2.0,
        direction_sd: 0.4,
        step: Time::from_secs_f64(0.7),
    };
    for (i, t) in gm.trajectories(4, 8, until).iter().enumerate() {
        same(t, &precomputed_gauss_markov(&gm, 8, i as u64, until), until);
    }
    let rp = Rpgm {
        groups: 2,
        radius: 40.0,
        reference: RandomWaypoint {
            width: 1000.0,
            height: 600.0,
            speed_min: 1.0,
            speed_max: 15.0,
            pause: Time::from_secs(2),
            steady_state: false,
        },
        step: Time::from_secs_f64(1.5),
    };
    let pre = precomputed_rpgm(&rp, 5, 9, until);
    for (t, b) in rp.trajectories(5, 9, until).iter().zip(&pre) {
        same(t, b, until);
    }
}

#[test]
fn a_mover_holds_a_window_not_the_run() {
    // 10^6 s of random waypoint (~40,000 legs): the mover holds a few dozen.
    let m = RandomWaypoint {
        width: 300.0,
        height: 300.0,
        speed_min: 5.0,
        speed_max: 20.0,
        pause: Time::ZERO,
        steady_state: false,
    };
    let t = &waypoint::trajectories(&m, 1, 1, Time::from_secs(1_000_000))[0];
    let mut mv = Mover::new(t.clone());
    let mut most = 0;
    for s in 0..1_000_000u64 {
        mv.position(Time::from_secs(s));
        most = most.max(mv.window_len());
    }
    assert!(most <= 2 * MOVER_KEEP + 2, "window grew to {most} legs");
    assert_eq!(mv.rewinds(), 0);
    assert!(t.leg_iter().count() > 30_000);
}
