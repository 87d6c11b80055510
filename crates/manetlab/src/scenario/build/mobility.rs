//! Sections `[mobility]` / `[[move]]`, and the queue options (`[queue]` fair keys, `[queue.backpressure]`).

use super::*;

pub(super) fn mobility(
    f: &ScenarioFile,
    topology: &Topology,
    base_dir: &std::path::Path,
) -> Result<MobilityPlan, Diag> {
    use crate::mobility::ns2::{MovementScript, SetDest};
    use crate::mobility::waypoint::RandomWaypoint;
    #[derive(Copy, Clone, PartialEq)]
    enum Model {
        Static,
        Rwp,
        Pattern,
        File,
        Direction,
        GaussMarkov,
        Rpgm,
    }
    let m = &f.mobility;
    let model = match &m.model {
        Some(s) => choice(
            s,
            "mobility.model",
            &[
                ("static", Model::Static),
                ("random-waypoint", Model::Rwp),
                ("pattern", Model::Pattern),
                ("ns2-file", Model::File),
                ("random-direction", Model::Direction),
                ("gauss-markov", Model::GaussMarkov),
                ("rpgm", Model::Rpgm),
            ],
        )?,
        None => Model::Static,
    };
    let name = m.model.as_ref().map_or("static".to_string(), |s| s.get_ref().trim().to_string());
    let uses: &[&str] = match model {
        Model::Static => &[],
        Model::Rwp => &["speed", "pause", "steady_state"],
        Model::Direction => &["speed", "pause"],
        Model::GaussMarkov => &["mean_speed", "alpha", "step", "speed_sd", "direction_sd"],
        Model::Rpgm => &["speed", "pause", "groups", "radius", "step"],
        Model::Pattern => &["mean_speed", "pause", "pattern"],
        Model::File => &["file"],
    };
    let given = [
        ("speed", m.speed.as_ref().map(|s| s.span().start)),
        ("mean_speed", m.mean_speed.as_ref().map(|s| s.span().start)),
        ("pause", m.pause.as_ref().map(|s| s.span().start)),
        ("pattern", m.pattern.as_ref().map(|s| s.span().start)),
        ("file", m.file.as_ref().map(|s| s.span().start)),
        ("steady_state", m.steady_state.as_ref().map(|s| s.span().start)),
        ("alpha", m.alpha.as_ref().map(|s| s.span().start)),
        ("step", m.step.as_ref().map(|s| s.span().start)),
        ("speed_sd", m.speed_sd.as_ref().map(|s| s.span().start)),
        ("direction_sd", m.direction_sd.as_ref().map(|s| s.span().start)),
        ("groups", m.groups.as_ref().map(|s| s.span().start)),
        ("radius", m.radius.as_ref().map(|s| s.span().start)),
    ];
    refuse_unused_keys("mobility", "model", &name, uses, given)?;
    let n = match topology {
        Topology::Fixed(p) => p.len(),
        Topology::Random { nodes, .. } => *nodes as usize,
    };
    if !f.moves.is_empty() && !matches!(model, Model::Static | Model::File) {
        return Err(Diag::new(
            ErrorKind::Inconsistent,
            at(&f.moves[0].node),
            format!("[[move]] entries script a static or ns2-file scenario, not model = {name:?}"),
        ));
    }
    let area = |key: &str| -> Result<(f64, f64), Diag> {
        match topology {
            Topology::Random { width, height, .. } => Ok((*width, *height)),
            Topology::Fixed(_) => Err(Diag::new(
                ErrorKind::Inconsistent,
                m.model.as_ref().map_or(At::Nowhere, at),
                format!("mobility.model = {key:?} draws positions in the topology's area: use [topology] kind = \"random\" with nodes and area"),
            )),
        }
    };
    let pause = m.pause.as_ref().map_or(Time::ZERO, |p| p.get_ref().0);
    let mut script = MovementScript { init: vec![[None; 3]; n], moves: Vec::new() };
    match model {
        Model::Static => {}
        Model::Rwp | Model::Direction | Model::Rpgm => {
            let (w, h) = area(&name)?;
            let s = m.speed.as_ref().ok_or_else(|| {
                Diag::new(
                    ErrorKind::MissingKey,
                    m.model.as_ref().map_or(At::Nowhere, at),
                    format!("missing 'mobility.speed': {name} needs [min, max] speeds, e.g. [\"1m/s\", \"20m/s\"]"),
                )
            })?;
            let v = s.get_ref();
            if v.len() != 2 || v[0].0 > v[1].0 || v[1].0 <= 0.0 {
                return Err(err(
                    ErrorKind::OutOfRange,
                    s,
                    "'mobility.speed' must be [min, max] with 0 <= min <= max and max > 0",
                ));
            }
            let steady_state = m.steady_state.as_ref().is_some_and(|s| *s.get_ref());
            if steady_state && v[0].0 <= 0.0 {
                return Err(err(
                    ErrorKind::Inconsistent,
                    s,
                    "random waypoint has no steady state with a minimum speed of 0 (the mean speed decays to 0); \
                     use a positive minimum speed with 'mobility.steady_state'",
                ));
            }
            let rwp = RandomWaypoint { width: w, height: h, speed_min: v[0].0, speed_max: v[1].0, pause, steady_state };
            return match model {
                Model::Rwp => Ok(MobilityPlan::RandomWaypoint(rwp)),
                Model::Direction => {
                    Ok(MobilityPlan::Model(std::sync::Arc::new(crate::mobility::direction::RandomDirection {
                        width: w,
                        height: h,
                        speed_min: v[0].0,
                        speed_max: v[1].0,
                        pause,
                    })))
                }
                _ => {
                    let groups = match &m.groups {
                        Some(g) if *g.get_ref() == 0 => {
                            return Err(err(ErrorKind::OutOfRange, g, "'mobility.groups' must be at least 1"))
                        }
                        Some(g) => *g.get_ref(),
                        None => 1,
                    };
                    let radius = match &m.radius {
                        Some(r) if !(r.get_ref().0 >= 0.0 && 2.0 * r.get_ref().0 < w.min(h)) => {
                            return Err(err(
                                ErrorKind::OutOfRange,
                                r,
                                "'mobility.radius' must be at least 0 and less than half the area's shorter side",
                            ))
                        }
                        Some(r) => r.get_ref().0,
                        None => (w.min(h) / 10.0).min(100.0),
                    };
                    Ok(MobilityPlan::Model(std::sync::Arc::new(crate::mobility::rpgm::Rpgm {
                        groups,
                        radius,
                        reference: rwp,
                        step: step(m)?,
                    })))
                }
            };
        }
        Model::GaussMarkov => {
            let (w, h) = area(&name)?;
            let v = m.mean_speed.as_ref().ok_or_else(|| {
                Diag::new(
                    ErrorKind::MissingKey,
                    m.model.as_ref().map_or(At::Nowhere, at),
                    "missing 'mobility.mean_speed': gauss-markov needs a mean speed, e.g. \"10m/s\"",
                )
            })?;
            if v.get_ref().0.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                return Err(err(ErrorKind::OutOfRange, v, "'mobility.mean_speed' must be greater than zero"));
            }
            let alpha = match &m.alpha {
                Some(a) if !(0.0..=1.0).contains(a.get_ref()) => {
                    return Err(err(ErrorKind::OutOfRange, a, "'mobility.alpha' must be from 0 to 1"))
                }
                Some(a) => *a.get_ref(),
                None => 0.75,
            };
            let speed_sd = m.speed_sd.as_ref().map_or(v.get_ref().0 / 4.0, |s| s.get_ref().0);
            let direction_sd = match &m.direction_sd {
                Some(d) if !(0.0..=360.0).contains(d.get_ref()) => {
                    return Err(err(ErrorKind::OutOfRange, d, "'mobility.direction_sd' is in degrees, from 0 to 360"))
                }
                Some(d) => d.get_ref().to_radians(),
                None => 30f64.to_radians(),
            };
            return Ok(MobilityPlan::Model(std::sync::Arc::new(crate::mobility::gauss_markov::GaussMarkov {
                width: w,
                height: h,
                alpha,
                mean_speed: v.get_ref().0,
                speed_sd,
                direction_sd,
                step: step(m)?,
            })));
        }
        Model::Pattern => {
            let (w, h) = area("pattern")?;
            let v = m.mean_speed.as_ref().ok_or_else(|| {
                Diag::new(
                    ErrorKind::MissingKey,
                    m.model.as_ref().map_or(At::Nowhere, at),
                    "missing 'mobility.mean_speed': the pattern scheme needs a mean speed, e.g. \"10m/s\"",
                )
            })?;
            if v.get_ref().0 <= 0.0 {
                return Err(err(ErrorKind::OutOfRange, v, "'mobility.mean_speed' must be greater than zero"));
            }
            return Ok(MobilityPlan::Pattern {
                width: w,
                height: h,
                pause,
                mean_speed: v.get_ref().0,
                pattern: m.pattern.as_ref().map(|p| *p.get_ref()),
            });
        }
        Model::File => {
            let fs = m.file.as_ref().ok_or_else(|| {
                Diag::new(
                    ErrorKind::MissingKey,
                    m.model.as_ref().map_or(At::Nowhere, at),
                    "missing 'mobility.file': the ns-2 movement file to read",
                )
            })?;
            let path = base_dir.join(fs.get_ref());
            let bytes = crate::scenario::input::read_limited(&path, crate::scenario::input::MAX_MOVEMENT_BYTES)
                .map_err(|e| err(ErrorKind::BadValue, fs, format!("cannot read movement file: {e}")))?;
            let text = String::from_utf8(bytes).map_err(|e| {
                let line = e.as_bytes()[..e.utf8_error().valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
                err(ErrorKind::BadValue, fs, format!("{}: line {line} is not UTF-8 text", path.display()))
            })?;
            script = crate::scenario::defaults::parse_movement(&text, n)
                .map_err(|e| err(ErrorKind::BadValue, fs, format!("{}: {e}", path.display())))?;
        }
    }
    for (i, mv) in f.moves.iter().enumerate() {
        let node = *mv.node.get_ref();
        if node as usize >= n {
            return Err(err(
                ErrorKind::OutOfRange,
                &mv.node,
                format!("'move.{i}.node' is {node}, but the scenario has {n} nodes"),
            ));
        }
        let to = mv.to.get_ref();
        if to.len() != 2 {
            return Err(err(
                ErrorKind::BadValue,
                &mv.to,
                format!("'move.{i}.to' must be [x, y], e.g. [\"100m\", \"0m\"]"),
            ));
        }
        if mv.speed.get_ref().0 <= 0.0 {
            return Err(err(ErrorKind::OutOfRange, &mv.speed, format!("'move.{i}.speed' must be greater than zero")));
        }
        script.moves.push(SetDest {
            at: mv.at.get_ref().0,
            node: node as usize,
            x: to[0].0,
            y: to[1].0,
            speed: mv.speed.get_ref().0,
        });
    }
    if script.moves.is_empty() && script.init.iter().all(|c| c.iter().all(|v| v.is_none())) {
        Ok(MobilityPlan::Static)
    } else {
        Ok(MobilityPlan::Script(script))
    }
}

/// `[queue.backpressure]`.
pub(super) fn backpressure(b: &super::super::file::BackpressureSection) -> Result<BackpressureConfig, Diag> {
    let mut c = BackpressureConfig::default();
    if let Some(t) = &b.threshold {
        if *t.get_ref() == 0 {
            return Err(err(ErrorKind::OutOfRange, t, "'queue.backpressure.threshold' must be at least 1 packet"));
        }
        c.threshold = *t.get_ref();
    }
    if let Some(k) = &b.key {
        c.key = choice(
            k,
            "queue.backpressure.key",
            &[("src", ClassKey::Src), ("dst", ClassKey::Dst), ("flow", ClassKey::FiveTuple)],
        )?;
    }
    if let Some(k) = &b.knowledge {
        c.knowledge = choice(
            k,
            "queue.backpressure.knowledge",
            &[("oracle", Knowledge::Oracle), ("overhear", Knowledge::Overhear), ("explicit", Knowledge::Explicit)],
        )?;
    }
    if let Some(s) = &b.stale {
        if s.get_ref().0 == Time::ZERO {
            return Err(err(ErrorKind::OutOfRange, s, "'queue.backpressure.stale' must be positive"));
        }
        c.stale = s.get_ref().0;
    }
    if let Some(u) = b.udp_only {
        c.udp_only = u;
    }
    Ok(())
        .and_then(|_| {
            if c.knowledge == Knowledge::Oracle {
                refuse_unused_keys(
                    "queue.backpressure",
                    "knowledge",
                    "oracle",
                    &["threshold", "key", "knowledge", "udp_only"],
                    [("stale", b.stale.as_ref().map(|s| s.span().start))],
                )
            } else {
                Ok(())
            }
        })
        .map(|_| c)
}

/// `mobility.step`: the update interval of gauss-markov and rpgm (default 1 s).
fn step(m: &super::super::file::MobilitySection) -> Result<Time, Diag> {
    match &m.step {
        Some(s) if s.get_ref().0 < Time::from_ms(1) || s.get_ref().0 > Time::from_secs(3600) => {
            Err(err(ErrorKind::OutOfRange, s, "'mobility.step' must be from 1ms to 3600s"))
        }
        Some(s) => Ok(s.get_ref().0),
        None => Ok(Time::from_secs(1)),
    }
}

/// Settings that are valid but rarely meant: random waypoint with a
/// minimum speed of 0 (the average speed decays towards 0 over the run:
/// Yoon, Liu, Noble, "Random waypoint considered harmful", INFOCOM 2003),
/// and random waypoint from its initial state with no warm-up (the first
/// minutes are not the model's steady state) unless `steady_state = true`.
pub(super) fn warnings(f: &ScenarioFile, cfg: &SimConfig) -> Vec<String> {
    let m = &f.mobility;
    let mut w = Vec::new();
    let rwp = m.model.as_ref().is_some_and(|s| s.get_ref().trim().eq_ignore_ascii_case("random-waypoint"));
    if !rwp {
        return w;
    }
    if let Some(s) = &m.speed {
        if s.get_ref().first().is_some_and(|v| v.0 <= 0.0) {
            w.push(
                "random waypoint with a minimum speed of 0: the mean speed decays over the run (Yoon et al., \
                 INFOCOM 2003); use a positive minimum, e.g. [\"1m/s\", \"20m/s\"]"
                    .to_string(),
            );
        }
    }
    let steady = m.steady_state.as_ref().is_some_and(|s| *s.get_ref());
    if cfg.warmup == Time::ZERO && !steady {
        w.push(
            "random waypoint without a warm-up starts from uniform positions, not the model's steady state; \
             set [run] warmup or [mobility] steady_state = true"
                .to_string(),
        );
    }
    w
}
