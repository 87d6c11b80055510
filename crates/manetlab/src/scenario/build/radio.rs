//! Sections `[topology]`, `[radio]` and `[mac]`.

use super::*;
use crate::scenario::order::NodeOrder;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum TopoKind {
    Chain,
    Grid,
    Random,
    Explicit,
}

pub(super) fn topology(f: &ScenarioFile, doc: &Table) -> Result<Topology, Diag> {
    let t = &f.topology;
    let kind = choice(
        &t.kind,
        "topology.kind",
        &[
            ("chain", TopoKind::Chain),
            ("grid", TopoKind::Grid),
            ("random", TopoKind::Random),
            ("explicit", TopoKind::Explicit),
        ],
    )?;
    let kind_name = t.kind.get_ref().trim().to_ascii_lowercase();
    let uses: &[&str] = match kind {
        TopoKind::Chain => &["nodes", "spacing"],
        TopoKind::Grid => &["rows", "cols", "spacing"],
        TopoKind::Random => &["nodes", "area", "order"],
        TopoKind::Explicit => &["positions"],
    };
    let given: [(&str, Option<usize>); 7] = [
        ("nodes", t.nodes.as_ref().map(|s| s.span().start)),
        ("spacing", t.spacing.as_ref().map(|s| s.span().start)),
        ("rows", t.rows.as_ref().map(|s| s.span().start)),
        ("cols", t.cols.as_ref().map(|s| s.span().start)),
        ("area", t.area.as_ref().map(|s| s.span().start)),
        ("positions", t.positions.as_ref().map(|s| s.span().start)),
        ("order", t.order.as_ref().map(|s| s.span().start)),
    ];
    refuse_unused_keys("topology", "kind", &kind_name, uses, given)?;
    let section = match section_at(doc, &["topology"]) {
        At::Nowhere => at(&t.kind),
        a => a,
    };
    let missing = |key: &str| {
        Diag::new(
            ErrorKind::MissingKey,
            section,
            format!("missing required key '{key}' in [topology]: kind = {kind_name:?} needs {}", uses.join(", ")),
        )
    };
    let count = |s: &Spanned<u32>, key: &str| -> Result<u32, Diag> {
        let v = *s.get_ref();
        if v == 0 || v as u64 > MAX_NODES {
            return Err(err(
                ErrorKind::OutOfRange,
                s,
                format!("'topology.{key}' must be from 1 to {MAX_NODES}, got {v}"),
            ));
        }
        Ok(v)
    };
    let positive = |s: &Spanned<Distance>, key: &str| -> Result<f64, Diag> {
        let v = s.get_ref().0;
        if v <= 0.0 {
            return Err(err(
                ErrorKind::OutOfRange,
                s,
                format!("'{key}' must be greater than zero, got {}", s.get_ref()),
            ));
        }
        Ok(v)
    };
    Ok(match kind {
        TopoKind::Chain => {
            let n = count(t.nodes.as_ref().ok_or_else(|| missing("nodes"))?, "nodes")?;
            let sp = positive(t.spacing.as_ref().ok_or_else(|| missing("spacing"))?, "topology.spacing")?;
            Topology::Fixed(SimConfig::chain_positions(n as usize, sp))
        }
        TopoKind::Grid => {
            let rows_s = t.rows.as_ref().ok_or_else(|| missing("rows"))?;
            let rows = count(rows_s, "rows")?;
            let cols = count(t.cols.as_ref().ok_or_else(|| missing("cols"))?, "cols")?;
            let sp = positive(t.spacing.as_ref().ok_or_else(|| missing("spacing"))?, "topology.spacing")?;
            if rows as u64 * cols as u64 > MAX_NODES {
                return Err(err(
                    ErrorKind::OutOfRange,
                    rows_s,
                    format!("a {rows} x {cols} grid has more than {MAX_NODES} nodes"),
                ));
            }
            Topology::Fixed(SimConfig::grid_positions(rows as usize, cols as usize, sp))
        }
        TopoKind::Random => {
            let n = count(t.nodes.as_ref().ok_or_else(|| missing("nodes"))?, "nodes")?;
            let area = t.area.as_ref().ok_or_else(|| missing("area"))?;
            let [w, h] = area.get_ref()[..] else {
                return Err(err(
                    ErrorKind::BadValue,
                    area,
                    format!(
                        "'topology.area' must be [width, height], e.g. [\"1500m\", \"300m\"]; got {} value{}",
                        area.get_ref().len(),
                        if area.get_ref().len() == 1 { "" } else { "s" }
                    ),
                ));
            };
            if w.0 <= 0.0 || h.0 <= 0.0 {
                return Err(err(
                    ErrorKind::OutOfRange,
                    area,
                    format!("'topology.area' must have a positive width and height, got [{w}, {h}]"),
                ));
            }
            let order = match &t.order {
                None => NodeOrder::Id,
                Some(o) => choice(o, "topology.order", &[("id", NodeOrder::Id), ("hilbert", NodeOrder::Hilbert)])?,
            };
            Topology::Random { nodes: n, width: w.0, height: h.0, order }
        }
        TopoKind::Explicit => {
            let ps = t.positions.as_ref().ok_or_else(|| missing("positions"))?;
            if ps.get_ref().is_empty() {
                return Err(err(ErrorKind::OutOfRange, ps, "'topology.positions' must list at least one node"));
            }
            if ps.get_ref().len() as u64 > MAX_NODES {
                return Err(err(
                    ErrorKind::OutOfRange,
                    ps,
                    format!("'topology.positions' lists more than {MAX_NODES} nodes"),
                ));
            }
            let mut out = Vec::with_capacity(ps.get_ref().len());
            for (i, p) in ps.get_ref().iter().enumerate() {
                match p.get_ref()[..] {
                    [x, y] => out.push(Position { x: x.0, y: y.0, z: 0.0 }),
                    [x, y, z] => out.push(Position { x: x.0, y: y.0, z: z.0 }),
                    _ => {
                        return Err(err(
                            ErrorKind::BadValue,
                            p,
                            format!("'topology.positions.{i}' must be [x, y] or [x, y, z] (metres or distances such as \"200m\")"),
                        ))
                    }
                }
            }
            Topology::Fixed(out)
        }
    })
}

pub(super) fn radio(f: &ScenarioFile, doc: &Table, cfg: &mut SimConfig) -> Result<(), Diag> {
    let r = &f.radio;
    let radio = &mut cfg.radio;
    if let Some(p) = &r.propagation {
        radio.propagation = choice(
            p,
            "radio.propagation",
            &[
                ("two-ray-ground", Propagation::TwoRayGround),
                ("tworayground", Propagation::TwoRayGround),
                ("free-space", Propagation::FreeSpace),
                ("freespace", Propagation::FreeSpace),
                ("friis", Propagation::FreeSpace),
                ("shadowing", Propagation::Shadowing { exponent: 2.0, ref_distance_m: 1.0, sigma_db: 4.0 }),
                ("log-normal", Propagation::Shadowing { exponent: 2.0, ref_distance_m: 1.0, sigma_db: 4.0 }),
            ],
        )?;
    }
    let off = |s: &Option<Spanned<_>>| s.as_ref().map(|v: &Spanned<_>| v.span().start);
    match &mut radio.propagation {
        Propagation::Shadowing { exponent, ref_distance_m, sigma_db } => {
            if let Some(e) = &r.path_loss_exponent {
                let v = *e.get_ref();
                if !(v.is_finite() && v > 0.0) {
                    return Err(err(ErrorKind::OutOfRange, e, "'radio.path_loss_exponent' must be greater than zero"));
                }
                *exponent = v;
            }
            if let Some(d) = &r.reference_distance {
                if d.get_ref().0 <= 0.0 {
                    return Err(err(ErrorKind::OutOfRange, d, "'radio.reference_distance' must be greater than zero"));
                }
                *ref_distance_m = d.get_ref().0;
            }
            if let Some(s) = &r.shadowing_deviation {
                let db = 10.0 * s.get_ref().0.log10();
                if db < 0.0 {
                    return Err(err(
                        ErrorKind::OutOfRange,
                        s,
                        "'radio.shadowing_deviation' is a deviation in dB and cannot be negative (\"0dB\" = none)",
                    ));
                }
                *sigma_db = db;
            }
        }
        p => {
            let name = p.name();
            refuse_unused_keys(
                "radio",
                "propagation",
                name,
                &[],
                [
                    ("path_loss_exponent", off(&r.path_loss_exponent)),
                    ("reference_distance", r.reference_distance.as_ref().map(|v| v.span().start)),
                    ("shadowing_deviation", r.shadowing_deviation.as_ref().map(|v| v.span().start)),
                ],
            )?;
        }
    }
    if let Some(m) = &r.reception {
        radio.reception = choice(
            m,
            "radio.reception",
            &[("threshold", Reception::Threshold), ("sinr", Reception::Sinr { noise_figure_db: 7.0 })],
        )?;
    }
    match &mut radio.reception {
        Reception::Sinr { noise_figure_db } => {
            if let Some(n) = &r.noise_figure {
                *noise_figure_db = 10.0 * n.get_ref().0.log10();
            }
            radio.preamble_detection_snr = r.preamble_detection_threshold.as_ref().map(|v| v.get_ref().0);
            radio.energy_detection_w = r.energy_detection_threshold.as_ref().map(|v| v.get_ref().0);
            radio.cca_sensitivity_hold = r.cca_sensitivity_hold.as_ref().is_some_and(|v| *v.get_ref());
        }
        Reception::Threshold => refuse_unused_keys(
            "radio",
            "reception",
            "threshold",
            &[],
            [
                ("noise_figure", r.noise_figure.as_ref().map(|v| v.span().start)),
                ("preamble_detection_threshold", r.preamble_detection_threshold.as_ref().map(|v| v.span().start)),
                ("energy_detection_threshold", r.energy_detection_threshold.as_ref().map(|v| v.span().start)),
                ("cca_sensitivity_hold", r.cca_sensitivity_hold.as_ref().map(|v| v.span().start)),
            ],
        )?,
    }
    super::fading::fading(r, radio)?;
    if let Some(p) = r.tx_power {
        radio.tx_power_w = p.0;
    }
    if let Some(fr) = r.frequency {
        radio.frequency_hz = fr.0;
    }
    if let Some(g) = r.tx_gain {
        radio.tx_gain = g.0;
    }
    if let Some(g) = r.rx_gain {
        radio.rx_gain = g.0;
    }
    if let Some(h) = &r.antenna_height {
        if h.get_ref().0 <= 0.0 {
            return Err(err(ErrorKind::OutOfRange, h, "'radio.antenna_height' must be greater than zero"));
        }
        radio.antenna_height_m = h.get_ref().0;
    }
    if let Some(l) = r.system_loss {
        radio.system_loss = l.0;
    }
    if let Some(c) = r.capture_threshold {
        radio.capture_ratio = c.0;
    }
    if let Some(c) = &r.capture_rule {
        radio.capture_rule = choice(
            c,
            "radio.capture_rule",
            &[("ns2", CaptureRule::Ns2), ("ns-2", CaptureRule::Ns2), ("stronger-wins", CaptureRule::StrongerWins)],
        )?;
    }
    if let (Some(a), Some(b)) = (&r.rx_range, &r.rx_threshold) {
        return Err(Diag::new(
            ErrorKind::Inconsistent,
            later(a, b),
            "give either 'radio.rx_range' or 'radio.rx_threshold', not both",
        ));
    }
    if let (Some(a), Some(b)) = (&r.cs_range, &r.cs_threshold) {
        return Err(Diag::new(
            ErrorKind::Inconsistent,
            later(a, b),
            "give either 'radio.cs_range' or 'radio.cs_threshold', not both",
        ));
    }
    if let Some(t) = &r.rx_threshold {
        radio.rx_threshold_w = t.get_ref().0;
    }
    if let Some(t) = &r.cs_threshold {
        radio.cs_threshold_w = t.get_ref().0;
    }
    for (s, key) in [(&r.rx_range, "radio.rx_range"), (&r.cs_range, "radio.cs_range")] {
        if let Some(s) = s {
            if s.get_ref().0 <= 0.0 {
                return Err(err(ErrorKind::OutOfRange, s, format!("'{key}' must be greater than zero")));
            }
        }
    }
    radio.set_ranges(r.rx_range.as_ref().map(|d| d.get_ref().0), r.cs_range.as_ref().map(|d| d.get_ref().0));
    let (rx, cs) = (radio.rx_threshold_w, radio.cs_threshold_w);
    let section = section_at(doc, &["radio"]);
    let rx_at = r.rx_range.as_ref().map(at).or(r.rx_threshold.as_ref().map(at)).unwrap_or(section);
    let cs_at = r.cs_range.as_ref().map(at).or(r.cs_threshold.as_ref().map(at)).unwrap_or(section);
    for (w, a, key) in [(rx, rx_at, "receive"), (cs, cs_at, "carrier-sense")] {
        if !(w.is_finite() && w > 0.0) {
            return Err(Diag::new(
                ErrorKind::OutOfRange,
                a,
                format!("the {key} threshold works out to {w:e} W; choose a range or threshold the radio can reach"),
            ));
        }
    }
    if cs > rx * (1.0 + 1e-9) {
        let a = if r.cs_range.is_some() || r.cs_threshold.is_some() { cs_at } else { rx_at };
        return Err(Diag::new(
            ErrorKind::Inconsistent,
            a,
            format!(
                "the carrier-sense range ({:.1} m) is shorter than the receive range ({:.1} m); \
                 set 'radio.cs_range' (or 'radio.cs_threshold') to cover at least the receive range",
                radio.cs_range(),
                radio.rx_range()
            ),
        ));
    }
    Ok(())
}

/// The `[mac]` keys every MAC shares; a MAC's own keys are read by its
/// parser (`mac::MACS`).
const MAC_COMMON: &[&str] = &[
    "standard",
    "data_rate",
    "basic_rate",
    "preamble",
    "rts_threshold",
    "short_retry_limit",
    "long_retry_limit",
    "cw_min",
    "cw_max",
    "edca",
    "rate_control",
    "retry_counters",
    "cts_rule",
    "immediate_access",
];

pub(super) fn mac(f: &ScenarioFile, doc: &Table, n: u64, cfg: &mut SimConfig) -> Result<(), Diag> {
    // `protocol` picks a registered MAC, whose parser reads its own keys.
    let (entry, p) = select_model(
        doc,
        "mac",
        "protocol",
        MAC_COMMON,
        crate::mac::MACS,
        |e: &crate::mac::MacEntry| e.names,
        |e: &crate::mac::MacEntry| e.keys,
        n,
    )?;
    cfg.mac.kind = (entry.parse)(&p).map_err(diag)?;
    let m = &f.mac;
    let mac = &mut cfg.mac;
    let standard = match &m.standard {
        Some(s) => choice(
            s,
            "mac.standard",
            &[
                ("dsss", PhyStandard::Dsss),
                ("802.11", PhyStandard::Dsss),
                ("802.11b", PhyStandard::Dsss),
                ("ofdm", PhyStandard::Ofdm),
                ("802.11a", PhyStandard::Ofdm),
            ],
        )?,
        None => PhyStandard::Dsss,
    };
    let default_rate = match standard {
        PhyStandard::Dsss => PhyMode::default().data_rate,
        PhyStandard::Ofdm => 6_000_000,
    };
    let rate = |s: &Option<Spanned<super::super::units::DataRate>>, key: &str| -> Result<u64, Diag> {
        let Some(s) = s else { return Ok(default_rate) };
        let v = s.get_ref().0;
        if !PhyMode::valid_rates(standard).contains(&v) {
            let how = if m.standard.is_some() { "" } else { " (mac.standard defaults to dsss)" };
            return Err(err(
                ErrorKind::BadValue,
                s,
                format!(
                    "'{key}' = {} is not {} rate{how}; valid rates: {}",
                    s.get_ref(),
                    standard_name(standard),
                    rates_list(standard)
                ),
            ));
        }
        Ok(v)
    };
    let data_rate = rate(&m.data_rate, "mac.data_rate")?;
    let basic_rate = rate(&m.basic_rate, "mac.basic_rate")?;
    let preamble = match &m.preamble {
        Some(p) => choice(p, "mac.preamble", &[("long", Preamble::Long), ("short", Preamble::Short)])?,
        None => Preamble::Long,
    };
    if preamble == Preamble::Short {
        let p = m.preamble.as_ref().map_or(At::Nowhere, at);
        if standard != PhyStandard::Dsss {
            return Err(Diag::new(
                ErrorKind::Inconsistent,
                p,
                "preamble = \"short\" applies to DSSS only (mac.standard is ofdm)",
            ));
        }
        if data_rate == 1_000_000 || basic_rate == 1_000_000 {
            return Err(Diag::new(
                ErrorKind::Inconsistent,
                p,
                "preamble = \"short\" cannot be used with 1 Mbit/s (802.11b allows it at 2, 5.5 and 11 Mbit/s only)",
            ));
        }
    }
    mac.phy = PhyMode { standard, preamble, data_rate, basic_rate };
    if let Some(t) = m.rts_threshold {
        mac.rts_threshold = t.0;
    }
    for (s, key, dst) in [
        (&m.short_retry_limit, "mac.short_retry_limit", &mut mac.short_retry_limit),
        (&m.long_retry_limit, "mac.long_retry_limit", &mut mac.long_retry_limit),
    ] {
        if let Some(s) = s {
            if *s.get_ref() == 0 {
                return Err(err(ErrorKind::OutOfRange, s, format!("'{key}' must be at least 1 (attempts per frame)")));
            }
            *dst = *s.get_ref();
        }
    }
    mac.cw_min = m.cw_min.as_ref().map(|s| *s.get_ref());
    mac.cw_max = m.cw_max.as_ref().map(|s| *s.get_ref());
    if mac.cw_min() > mac.cw_max() {
        let a = m.cw_max.as_ref().or(m.cw_min.as_ref()).map_or(At::Nowhere, at);
        return Err(Diag::new(
            ErrorKind::Inconsistent,
            a,
            format!("'mac.cw_min' ({}) must not exceed 'mac.cw_max' ({})", mac.cw_min(), mac.cw_max()),
        ));
    }
    if let Some(e) = &m.edca {
        mac.edca = *e.get_ref();
        if mac.edca {
            if let Some(c) = m.cw_min.as_ref().or(m.cw_max.as_ref()) {
                return Err(err(
                    ErrorKind::Inconsistent,
                    c,
                    "'mac.cw_min'/'mac.cw_max' do not apply with 'mac.edca' (each access category has the standard's)",
                ));
            }
        }
    }
    if let Some(r) = &m.rate_control {
        mac.rate_control = choice(r, "mac.rate_control", &crate::mac::RateControlKind::ALL)?;
    }
    if let Some(r) = &m.retry_counters {
        mac.retry_counters = choice(r, "mac.retry_counters", &crate::mac::RetryCounters::ALL)?;
    }
    if let Some(r) = &m.cts_rule {
        mac.cts_rule = choice(r, "mac.cts_rule", &crate::mac::CtsRule::ALL)?;
    }
    if let Some(r) = &m.immediate_access {
        mac.immediate_access = choice(r, "mac.immediate_access", &crate::mac::ImmediateAccess::ALL)?;
    }
    Ok(())
}
