//! Semantic checks and the typed run description: `ScenarioFile` -> `Plan`.
//!
//! Everything that can be wrong with a well-typed file is found here, once,
//! so that `Scenario::config` cannot fail.

use super::error::{At, Diag, ErrorKind};
use super::file::{FlowSection, RoutingSection, ScenarioFile};
use super::source::section_at;
use super::units::{Distance, Duration};
use crate::config::{FlowConfig, NodeAction, NodeEvent, Position, SimConfig, Traffic};
use crate::metrics::trace::{Ns2Format, PcapMode, TraceOptions};
use crate::metrics::viz::VizOptions;
use crate::net::packet::{IP_HEADER_BYTES, UDP_HEADER_BYTES};
use crate::net::routing::{AodvConfig, DsrConfig, LinkDetection, RoutingConfig};
use crate::phy::{CaptureRule, PhyMode, PhyStandard, Preamble, Propagation, Reception};
use crate::queue::{BackpressureConfig, ClassKey, Knowledge, QueueKind};
use crate::sim::Time;
use std::collections::HashMap;
use toml::Spanned;
use toml_edit::Table;

/// Most nodes a topology may have.
pub(crate) const MAX_NODES: u64 = 1_000_000;

/// IEEE 802.11's largest MSDU, bytes.
pub(crate) const MAX_MSDU: u32 = 2304;

/// Largest UDP payload that fits one 802.11 frame (no fragmentation).
pub(crate) const MAX_UDP_PAYLOAD: u32 = MAX_MSDU - IP_HEADER_BYTES - UDP_HEADER_BYTES;

/// Node positions, fixed or drawn per replication.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Topology {
    Fixed(Vec<Position>),
    /// Uniform in [0, width) x [0, height), from the run seed.
    Random {
        nodes: u32,
        width: f64,
        height: f64,
    },
}

/// A checked scenario: everything but the seed-dependent parts of a run.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub name: Option<String>,
    pub seed: u64,
    pub replications: u32,
    pub output_dir: Option<String>,
    pub trace: TraceOptions,
    pub viz: bool,
    pub viz_options: VizOptions,
    /// The run with `nodes` empty and `seed` unset.
    pub base: SimConfig,
    pub topology: Topology,
    pub mobility: MobilityPlan,
    /// `[sweep]` axes, in key order.
    pub sweep: Vec<super::sweep::SweepAxis>,
}

/// How nodes move, resolved per seed by `Scenario::config`.
#[derive(Clone, Debug)]
pub(crate) enum MobilityPlan {
    Static,
    /// ns-2 movement file and/or `[[move]]` commands over the topology.
    Script(crate::mobility::ns2::MovementScript),
    /// Random waypoint from the run seed; initial positions are the model's.
    RandomWaypoint(crate::mobility::waypoint::RandomWaypoint),
    /// The ELFN pattern scheme: movie `pattern` (None = run seed) at mean speed.
    Pattern {
        width: f64,
        height: f64,
        pause: Time,
        mean_speed: f64,
        pattern: Option<u64>,
    },
}

fn at<T>(s: &Spanned<T>) -> At {
    At::Offset(s.span().start)
}

fn err<T>(kind: ErrorKind, s: &Spanned<T>, msg: impl Into<String>) -> Diag {
    Diag::new(kind, at(s), msg)
}

/// An optional `routing.<key>` integer, checked to lie in `lo..=hi`.
fn routing_int(s: &Option<Spanned<u32>>, key: &str, lo: u32, hi: u32) -> Result<Option<u32>, Diag> {
    match s {
        Some(s) if !(lo..=hi).contains(s.get_ref()) => Err(err(
            ErrorKind::OutOfRange,
            s,
            format!("'routing.{key}' must be from {lo} to {hi}, got {}", s.get_ref()),
        )),
        Some(s) => Ok(Some(*s.get_ref())),
        None => Ok(None),
    }
}

/// Matches a name against `options` (case-insensitive), listing them on failure.
fn choice<T: Copy>(v: &Spanned<String>, key: &str, options: &[(&str, T)]) -> Result<T, Diag> {
    let name = v.get_ref().trim();
    options.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, t)| *t).ok_or_else(|| {
        let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
        err(
            ErrorKind::BadValue,
            v,
            format!("unknown value {:?} for '{key}'; expected one of: {}", name, names.join(", ")),
        )
    })
}

/// Refuses a key given in a section whose kind does not use it:
/// `'<prefix>.<key>' is not used by <selector> = "<name>" (it uses: ...)`.
fn refuse_unused_keys(
    prefix: &str,
    selector: &str,
    name: &str,
    uses: &[&str],
    given: impl IntoIterator<Item = (&'static str, Option<usize>)>,
) -> Result<(), Diag> {
    for (key, off) in given {
        if let (Some(off), false) = (off, uses.contains(&key)) {
            let list = if uses.is_empty() { "nothing".to_string() } else { uses.join(", ") };
            return Err(Diag::at(
                ErrorKind::Inconsistent,
                off,
                format!("'{prefix}.{key}' is not used by {selector} = {name:?} (it uses: {list})"),
            ));
        }
    }
    Ok(())
}

fn rates_list(standard: PhyStandard) -> String {
    let r: Vec<String> = PhyMode::valid_rates(standard)
        .iter()
        .map(|&b| super::units::DataRate(b).to_string().replace("Mbps", ""))
        .collect();
    format!("{} Mbit/s", r.join(", "))
}

/// "a DSSS" / "an OFDM".
fn standard_name(s: PhyStandard) -> &'static str {
    match s {
        PhyStandard::Dsss => "a DSSS",
        PhyStandard::Ofdm => "an OFDM",
    }
}

fn later<A, B>(a: &Spanned<A>, b: &Spanned<B>) -> At {
    At::Offset(a.span().start.max(b.span().start))
}

pub(crate) fn build(f: &ScenarioFile, doc: &Table, base_dir: &std::path::Path) -> Result<Plan, Diag> {
    let mut cfg = SimConfig::default();

    // [run]
    let run = &f.run;
    cfg.duration = run.duration.get_ref().0;
    if cfg.duration == Time::ZERO {
        return Err(err(ErrorKind::OutOfRange, &run.duration, "'run.duration' must be greater than zero"));
    }
    if let Some(w) = &run.warmup {
        cfg.warmup = w.get_ref().0;
        if cfg.warmup >= cfg.duration {
            return Err(err(
                ErrorKind::Inconsistent,
                w,
                format!(
                    "'run.warmup' ({}) must be shorter than 'run.duration' ({})",
                    w.get_ref(),
                    run.duration.get_ref()
                ),
            ));
        }
    }
    let replications = match &run.replications {
        Some(r) if *r.get_ref() == 0 => {
            return Err(err(ErrorKind::OutOfRange, r, "'run.replications' must be at least 1"));
        }
        Some(r) => *r.get_ref(),
        None => 1,
    };
    if let Some(n) = &run.name {
        if n.get_ref().trim().is_empty() {
            return Err(err(
                ErrorKind::BadValue,
                n,
                "'run.name' must not be empty (leave it out to use the file name)",
            ));
        }
    }

    // [topology]
    let topology = topology(f, doc)?;
    let n = match &topology {
        Topology::Fixed(p) => p.len() as u64,
        Topology::Random { nodes, .. } => *nodes as u64,
    };

    // [radio]
    radio(f, doc, &mut cfg)?;

    // [mac]
    mac(f, &mut cfg)?;

    // [queue]
    let q = &f.queue;
    if let Some(k) = &q.kind {
        cfg.queue.kind = choice(
            k,
            "queue.kind",
            &[
                ("droptail", QueueKind::DropTail),
                ("drop-tail", QueueKind::DropTail),
                ("fair", QueueKind::Fair { key: ClassKey::Src, quantum: None, class_limit: usize::MAX }),
                ("fq", QueueKind::Fair { key: ClassKey::Src, quantum: None, class_limit: usize::MAX }),
                ("priority", QueueKind::Priority),
            ],
        )?;
    }
    queue_fair(q, &mut cfg.queue)?;
    if let Some(l) = &q.limit {
        if *l.get_ref() == 0 {
            return Err(err(ErrorKind::OutOfRange, l, "'queue.limit' must be at least 1 packet"));
        }
        cfg.queue.limit = *l.get_ref() as usize;
    }
    if let Some(c) = q.control_first {
        cfg.queue.control_first = c;
    }

    if let Some(b) = &q.backpressure {
        cfg.queue.backpressure = Some(backpressure(b)?);
    }

    // [routing]
    cfg.routing = routing(f, n)?;

    // [arp]
    cfg.arp = arp(&f.arp)?;

    // [[flow]]
    let mut names: HashMap<String, usize> = HashMap::new();
    for (i, fl) in f.flow.iter().enumerate() {
        let flow = flow(i, fl, n, cfg.duration)?;
        if let Some(prev) = names.insert(flow.name.clone(), i) {
            let where_ = fl.name.as_ref().map_or(At::Offset(fl.src.span().start), at);
            return Err(Diag::new(
                ErrorKind::Inconsistent,
                where_,
                format!(
                    "flow name {:?} is used twice ([[flow]] #{prev} and #{i}); flow names must be unique",
                    flow.name
                ),
            ));
        }
        cfg.flows.push(flow);
    }

    // [[event]]
    for (i, e) in f.event.iter().enumerate() {
        let key = |k: &str| format!("event.{i}.{k}");
        let node = node_index(&e.node, &key("node"), n)?;
        let at = e.at.get_ref().0;
        if at >= cfg.duration {
            return Err(err(
                ErrorKind::Inconsistent,
                &e.at,
                format!(
                    "'{}' ({}) is not before the end of the run ({})",
                    key("at"),
                    e.at.get_ref(),
                    Duration(cfg.duration)
                ),
            ));
        }
        let action = choice(
            &e.action,
            &key("action"),
            &[("radio-off", NodeAction::RadioOff), ("radio-on", NodeAction::RadioOn)],
        )?;
        cfg.node_events.push(NodeEvent { node, at, action });
    }

    // [[link]], [wired]
    for (i, l) in f.link.iter().enumerate() {
        let key = |k: &str| format!("link.{i}.{k}");
        let a = node_index(&l.a, &key("a"), n)?;
        let b = node_index(&l.b, &key("b"), n)?;
        if a == b {
            return Err(err(ErrorKind::Inconsistent, &l.b, format!("'{}' joins node {a} to itself", key("b"))));
        }
        if let Some(j) = f.link[..i].iter().position(|m| {
            let (x, y) = (*m.a.get_ref(), *m.b.get_ref());
            (x.min(y), x.max(y)) == (a.min(b), a.max(b))
        }) {
            return Err(err(
                ErrorKind::Inconsistent,
                &l.a,
                format!("[[link]] #{i} joins nodes {a} and {b} again ([[link]] #{j} already does)"),
            ));
        }
        let queue = match &l.queue {
            Some(q) if *q.get_ref() == 0 => {
                return Err(err(ErrorKind::OutOfRange, q, format!("'{}' must be at least 1 packet", key("queue"))));
            }
            Some(q) => *q.get_ref() as usize,
            None => 50,
        };
        cfg.wired.links.push(crate::net::wired::LinkConfig {
            a,
            b,
            bandwidth_bps: l.bandwidth.get_ref().0,
            delay: l.delay.get_ref().0,
            queue,
        });
    }
    if let Some(only) = &f.wired.only {
        for (i, s) in only.get_ref().iter().enumerate() {
            let node = node_index(s, &format!("wired.only[{i}]"), n)?;
            if !cfg.wired.links.iter().any(|l| l.a == node || l.b == node) {
                return Err(err(
                    ErrorKind::Inconsistent,
                    s,
                    format!("wired-only node {node} has no [[link]]: it could not reach anything"),
                ));
            }
            cfg.wired.wired_only.push(node);
        }
    }

    // [gateway]
    if let Some(g) = &f.gateway {
        cfg.gateway = Some(gateway(g, &cfg, n)?);
    }

    // [output]
    let output_dir = match &f.output.dir {
        Some(d) if d.get_ref().trim().is_empty() => {
            return Err(err(ErrorKind::BadValue, d, "'output.dir' must not be empty"));
        }
        Some(d) => Some(d.get_ref().clone()),
        None => None,
    };
    let trace = trace_options(&f.output)?;
    let (viz, viz_options) = viz_options(&f.output)?;

    Ok(Plan {
        name: run.name.as_ref().map(|n| n.get_ref().trim().to_string()),
        seed: run.seed.unwrap_or(1),
        replications,
        output_dir,
        trace,
        viz,
        viz_options,
        base: cfg,
        mobility: mobility(f, &topology, base_dir)?,
        topology,
        sweep: f
            .sweep
            .iter()
            .map(|(k, v)| {
                super::sweep::SweepAxis::from_toml(k, v.get_ref())
                    .map_err(|m| err(ErrorKind::BadValue, v, format!("sweep \"{k}\": {m}")))
            })
            .collect::<Result<_, _>>()?,
    })
}

/// `[gateway]`, after `[[link]]` and `[wired]`.
fn gateway(
    g: &super::file::GatewaySection,
    cfg: &SimConfig,
    n: u64,
) -> Result<crate::net::gateway::GatewayConfig, Diag> {
    let node = node_index(&g.node, "gateway.node", n)?;
    if !cfg.wired.links.iter().any(|l| l.a == node || l.b == node) {
        return Err(err(
            ErrorKind::Inconsistent,
            &g.node,
            format!("gateway node {node} has no [[link]]: the gateway joins a wired link and the radio"),
        ));
    }
    if cfg.wired.wired_only.contains(&node) {
        return Err(err(
            ErrorKind::Inconsistent,
            &g.node,
            format!("gateway node {node} is in [wired] only (it has no radio): the gateway joins a wired link and the radio"),
        ));
    }
    let positive = |s: &Option<Spanned<u32>>, key: &str, unit: &str| match s {
        Some(v) if *v.get_ref() == 0 => {
            Err(err(ErrorKind::OutOfRange, v, format!("'gateway.{key}' must be at least 1 {unit}")))
        }
        Some(v) => Ok(Some(*v.get_ref())),
        None => Ok(None),
    };
    let rate = |s: &Option<Spanned<super::units::DataRate>>, key: &str| match s {
        Some(v) if v.get_ref().0 == 0 => {
            Err(err(ErrorKind::OutOfRange, v, format!("'gateway.{key}' must be greater than zero")))
        }
        Some(v) => Ok(Some(v.get_ref().0 as f64)),
        None => Ok(None),
    };
    Ok(crate::net::gateway::GatewayConfig {
        node: node as usize,
        window: positive(&g.window, "window", "segment")?,
        pacing: rate(&g.pacing, "pacing")?,
        ack_pacing: rate(&g.ack_pacing, "ack_pacing")?,
        pacing_queue: positive(&g.pacing_queue, "pacing_queue", "packet")?.unwrap_or(50) as usize,
    })
}

/// `[output] viz`, `viz_window`, `viz_decimate`, `viz_sensed`: whether the
/// run writes the browser viewer, and its recording options (used also
/// when `manetlab run --viz` turns it on). A window past the end of the
/// run records nothing (the duration may be overridden later).
fn viz_options(o: &super::file::OutputSection) -> Result<(bool, VizOptions), Diag> {
    let on = o.viz.as_ref().is_some_and(|v| *v.get_ref());
    let mut opts = VizOptions::default();
    if let Some(w) = &o.viz_window {
        let v = w.get_ref();
        if v.len() != 2 {
            return Err(err(ErrorKind::BadValue, w, "'output.viz_window' is [from, to], e.g. [\"100s\", \"110s\"]"));
        }
        let (from, to) = (v[0].get_ref().0, v[1].get_ref().0);
        if to <= from {
            return Err(err(ErrorKind::Inconsistent, w, "'output.viz_window' must end after it starts"));
        }
        opts.from = from;
        opts.to = Some(to);
    }
    if let Some(d) = &o.viz_decimate {
        if *d.get_ref() == 0 {
            return Err(err(
                ErrorKind::OutOfRange,
                d,
                "'output.viz_decimate' must be at least 1 (1 keeps every frame)",
            ));
        }
        opts.decimate = *d.get_ref();
    }
    if let Some(s) = &o.viz_sensed {
        opts.sensed = *s.get_ref();
    }
    Ok((on, opts))
}

/// `[output] trace` and `pcap`.
fn trace_options(o: &super::file::OutputSection) -> Result<TraceOptions, Diag> {
    #[derive(Copy, Clone, PartialEq)]
    enum Format {
        Ns2(Ns2Format),
        Pcap,
    }
    let mut opts = TraceOptions::default();
    let mut pcap_listed = false;
    let mut seen: Vec<(Format, &str)> = Vec::new();
    for (i, v) in o.trace.iter().flat_map(|l| l.get_ref().iter()).enumerate() {
        let key = format!("output.trace.{i}");
        let f = choice(
            v,
            &key,
            &[
                ("ns2", Format::Ns2(Ns2Format::New)),
                ("ns2-new", Format::Ns2(Ns2Format::New)),
                ("ns2-old", Format::Ns2(Ns2Format::Old)),
                ("pcap", Format::Pcap),
            ],
        )?;
        let name = v.get_ref().trim();
        if let Some((_, first)) = seen.iter().find(|(g, _)| *g == f) {
            return Err(err(ErrorKind::Inconsistent, v, format!("'output.trace' lists {first:?} twice")));
        }
        match f {
            Format::Ns2(n) => {
                if let Some((_, first)) = seen.iter().find(|(g, _)| matches!(g, Format::Ns2(_))) {
                    return Err(err(
                        ErrorKind::Inconsistent,
                        v,
                        format!(
                            "'output.trace' asks for two ns-2 formats ({first:?} and {name:?}); \
                             choose \"ns2\" (new format) or \"ns2-old\" (classic CMU format)"
                        ),
                    ));
                }
                opts.ns2 = Some(n);
            }
            Format::Pcap => pcap_listed = true,
        }
        seen.push((f, name));
    }
    let mode = match &o.pcap {
        Some(m) => Some(choice(
            m,
            "output.pcap",
            &[
                ("merged", PcapMode::Merged),
                ("per-node", PcapMode::PerNode),
                ("pernode", PcapMode::PerNode),
                ("per_node", PcapMode::PerNode),
            ],
        )?),
        None => None,
    };
    if let (Some(m), false) = (&o.pcap, pcap_listed) {
        return Err(err(
            ErrorKind::Inconsistent,
            m,
            "'output.pcap' is only used when 'output.trace' includes \"pcap\" (e.g. trace = [\"pcap\"])",
        ));
    }
    if pcap_listed {
        opts.pcap = Some(mode.unwrap_or(PcapMode::Merged));
    }
    Ok(opts)
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum TopoKind {
    Chain,
    Grid,
    Random,
    Explicit,
}

fn topology(f: &ScenarioFile, doc: &Table) -> Result<Topology, Diag> {
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
        TopoKind::Random => &["nodes", "area"],
        TopoKind::Explicit => &["positions"],
    };
    let given: [(&str, Option<usize>); 6] = [
        ("nodes", t.nodes.as_ref().map(|s| s.span().start)),
        ("spacing", t.spacing.as_ref().map(|s| s.span().start)),
        ("rows", t.rows.as_ref().map(|s| s.span().start)),
        ("cols", t.cols.as_ref().map(|s| s.span().start)),
        ("area", t.area.as_ref().map(|s| s.span().start)),
        ("positions", t.positions.as_ref().map(|s| s.span().start)),
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
            Topology::Random { nodes: n, width: w.0, height: h.0 }
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

fn radio(f: &ScenarioFile, doc: &Table, cfg: &mut SimConfig) -> Result<(), Diag> {
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
        }
        Reception::Threshold => refuse_unused_keys(
            "radio",
            "reception",
            "threshold",
            &[],
            [("noise_figure", r.noise_figure.as_ref().map(|v| v.span().start))],
        )?,
    }
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

fn mac(f: &ScenarioFile, cfg: &mut SimConfig) -> Result<(), Diag> {
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
    let rate = |s: &Option<Spanned<super::units::DataRate>>, key: &str| -> Result<u64, Diag> {
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
    let tdma = match &m.protocol {
        Some(p) => choice(p, "mac.protocol", &[("dcf", false), ("802.11", false), ("tdma", true)])?,
        None => false,
    };
    let given = [
        ("tdma_guard", m.tdma_guard.as_ref().map(|s| s.span().start)),
        ("tdma_max_packet", m.tdma_max_packet.as_ref().map(|s| s.span().start)),
    ];
    if !tdma {
        return refuse_unused_keys("mac", "protocol", "dcf", &[], given);
    }
    let max_packet = m.tdma_max_packet.as_ref().map_or(1500, |s| *s.get_ref());
    if let Some(s) = m.tdma_max_packet.as_ref().filter(|s| *s.get_ref() < 64) {
        return Err(err(ErrorKind::OutOfRange, s, "'mac.tdma_max_packet' must be at least 64 bytes"));
    }
    let guard = m.tdma_guard.as_ref().map_or(Time::from_us(20), |s| s.get_ref().0);
    mac.kind = crate::mac::MacKind::Tdma { max_packet, guard };
    Ok(())
}

fn node_index(s: &Spanned<u32>, key: &str, n: u64) -> Result<u32, Diag> {
    let v = *s.get_ref();
    if v as u64 >= n {
        let nodes = if n == 1 { "1 node (0)".to_string() } else { format!("{n} nodes (0 to {})", n - 1) };
        return Err(err(ErrorKind::OutOfRange, s, format!("'{key}' = {v} is not a node: the topology has {nodes}")));
    }
    Ok(v)
}

/// Keys of [routing] that only AODV uses.
const AODV_KEYS: &[&str] = &[
    "link_detection",
    "hello_interval",
    "allowed_hello_loss",
    "active_route_timeout",
    "node_traversal_time",
    "net_diameter",
    "ttl_start",
    "ttl_increment",
    "ttl_threshold",
    "rreq_retries",
    "rreq_ratelimit",
    "rerr_ratelimit",
    "local_repair",
    "gratuitous_rrep",
    "dest_only",
    "buffer_size",
    "buffer_timeout",
    "jitter",
];

/// The [routing] keys of protocol = "dsr".
const DSR_KEYS: &[&str] = &[
    "cache_replies",
    "salvage",
    "max_salvage",
    "snoop",
    "ring_zero",
    "propagate_last_error",
    "nonprop_timeout",
    "request_period",
    "request_backoff_max",
    "send_buffer",
    "send_buffer_timeout",
    "cache_size",
    "cache_timeout",
    "jitter",
];

/// Where each [routing] key was given (None if absent), in `AODV_KEYS`
/// order after `paths`.
fn routing_keys_given(r: &RoutingSection) -> Vec<(&'static str, Option<usize>)> {
    fn o<T>(s: &Option<Spanned<T>>) -> Option<usize> {
        s.as_ref().map(|s| s.span().start)
    }
    vec![
        ("paths", o(&r.paths)),
        ("link_detection", o(&r.link_detection)),
        ("hello_interval", o(&r.hello_interval)),
        ("allowed_hello_loss", o(&r.allowed_hello_loss)),
        ("active_route_timeout", o(&r.active_route_timeout)),
        ("node_traversal_time", o(&r.node_traversal_time)),
        ("net_diameter", o(&r.net_diameter)),
        ("ttl_start", o(&r.ttl_start)),
        ("ttl_increment", o(&r.ttl_increment)),
        ("ttl_threshold", o(&r.ttl_threshold)),
        ("rreq_retries", o(&r.rreq_retries)),
        ("rreq_ratelimit", o(&r.rreq_ratelimit)),
        ("rerr_ratelimit", o(&r.rerr_ratelimit)),
        ("local_repair", o(&r.local_repair)),
        ("gratuitous_rrep", o(&r.gratuitous_rrep)),
        ("dest_only", o(&r.dest_only)),
        ("buffer_size", o(&r.buffer_size)),
        ("buffer_timeout", o(&r.buffer_timeout)),
        ("jitter", o(&r.jitter)),
        ("cache_replies", o(&r.cache_replies)),
        ("salvage", o(&r.salvage)),
        ("max_salvage", o(&r.max_salvage)),
        ("snoop", o(&r.snoop)),
        ("ring_zero", o(&r.ring_zero)),
        ("propagate_last_error", o(&r.propagate_last_error)),
        ("nonprop_timeout", o(&r.nonprop_timeout)),
        ("request_period", o(&r.request_period)),
        ("request_backoff_max", o(&r.request_backoff_max)),
        ("send_buffer", o(&r.send_buffer)),
        ("send_buffer_timeout", o(&r.send_buffer_timeout)),
        ("cache_size", o(&r.cache_size)),
        ("cache_timeout", o(&r.cache_timeout)),
    ]
}

fn routing(f: &ScenarioFile, n: u64) -> Result<RoutingConfig, Diag> {
    let r = &f.routing;
    #[derive(Copy, Clone, PartialEq)]
    enum Protocol {
        Static,
        Aodv,
        Dsr,
    }
    let protocol = match &r.protocol {
        Some(p) => choice(
            p,
            "routing.protocol",
            &[("static", Protocol::Static), ("aodv", Protocol::Aodv), ("dsr", Protocol::Dsr)],
        )?,
        None => Protocol::Static,
    };
    let (name, uses): (&str, &[&str]) = match protocol {
        Protocol::Static => ("static", &["paths"]),
        Protocol::Aodv => ("aodv", AODV_KEYS),
        Protocol::Dsr => ("dsr", DSR_KEYS),
    };
    refuse_unused_keys("routing", "protocol", name, uses, routing_keys_given(r))?;
    match protocol {
        Protocol::Aodv => aodv(r).map(RoutingConfig::Aodv),
        Protocol::Dsr => dsr(r).map(RoutingConfig::Dsr),
        Protocol::Static => {
            let mut paths = Vec::new();
            let mut seen: HashMap<(u32, u32), usize> = HashMap::new();
            for (i, p) in r.paths.iter().flat_map(|p| p.get_ref().iter()).enumerate() {
                let key = format!("routing.paths.{i}");
                if p.get_ref().len() < 2 {
                    return Err(err(
                        ErrorKind::BadValue,
                        p,
                        format!("'{key}' must list at least a source and a destination"),
                    ));
                }
                let mut nodes = Vec::with_capacity(p.get_ref().len());
                for (j, hop) in p.get_ref().iter().enumerate() {
                    let v = node_index(hop, &format!("{key}.{j}"), n)?;
                    if nodes.contains(&v) {
                        return Err(err(ErrorKind::BadValue, hop, format!("'{key}' visits node {v} twice")));
                    }
                    nodes.push(v);
                }
                let pair = (nodes[0], nodes[nodes.len() - 1]);
                if let Some(prev) = seen.insert(pair, i) {
                    return Err(err(
                        ErrorKind::Inconsistent,
                        p,
                        format!(
                            "'{key}' is a second path from {} to {} (the first is routing.paths.{prev})",
                            pair.0, pair.1
                        ),
                    ));
                }
                paths.push(nodes);
            }
            Ok(RoutingConfig::Static { paths })
        }
    }
}

fn aodv(r: &RoutingSection) -> Result<AodvConfig, Diag> {
    let mut c = AodvConfig::default();
    if let Some(d) = &r.link_detection {
        c.link_detection = choice(
            d,
            "routing.link_detection",
            &[("hello", LinkDetection::Hello), ("mac", LinkDetection::Mac), ("both", LinkDetection::Both)],
        )?;
    }
    if !c.link_detection.uses_hello() {
        let hello_keys = [
            ("hello_interval", r.hello_interval.as_ref().map(|s| s.span().start)),
            ("allowed_hello_loss", r.allowed_hello_loss.as_ref().map(|s| s.span().start)),
        ];
        for (key, off) in hello_keys {
            if let Some(off) = off {
                return Err(Diag::at(
                    ErrorKind::Inconsistent,
                    off,
                    format!("'routing.{key}' has no effect with link_detection = \"mac\" (no HELLOs are sent); use \"hello\" or \"both\", or remove it"),
                ));
            }
        }
    }
    let positive = |s: &Option<Spanned<Duration>>, key: &str, dst: &mut Time| -> Result<(), Diag> {
        if let Some(s) = s {
            if s.get_ref().0 == Time::ZERO {
                return Err(err(ErrorKind::OutOfRange, s, format!("'routing.{key}' must be greater than zero")));
            }
            *dst = s.get_ref().0;
        }
        Ok(())
    };
    positive(&r.hello_interval, "hello_interval", &mut c.hello_interval)?;
    positive(&r.active_route_timeout, "active_route_timeout", &mut c.active_route_timeout)?;
    positive(&r.node_traversal_time, "node_traversal_time", &mut c.node_traversal_time)?;
    positive(&r.buffer_timeout, "buffer_timeout", &mut c.buffer_timeout)?;
    if let Some(j) = &r.jitter {
        c.jitter = j.get_ref().0;
    }
    let int = routing_int;
    if let Some(v) = int(&r.allowed_hello_loss, "allowed_hello_loss", 1, 1000)? {
        c.allowed_hello_loss = v;
    }
    if let Some(v) = int(&r.net_diameter, "net_diameter", 1, 255)? {
        c.net_diameter = v as u8;
    }
    if let Some(v) = int(&r.ttl_start, "ttl_start", 1, 255)? {
        c.ttl_start = v as u8;
    }
    if let Some(v) = int(&r.ttl_increment, "ttl_increment", 1, 255)? {
        c.ttl_increment = v as u8;
    }
    if let Some(v) = int(&r.ttl_threshold, "ttl_threshold", 1, 255)? {
        c.ttl_threshold = v as u8;
    }
    if let Some(v) = int(&r.rreq_retries, "rreq_retries", 0, 20)? {
        c.rreq_retries = v;
    }
    if let Some(v) = int(&r.rreq_ratelimit, "rreq_ratelimit", 1, 1_000_000)? {
        c.rreq_ratelimit = v;
    }
    if let Some(v) = int(&r.rerr_ratelimit, "rerr_ratelimit", 1, 1_000_000)? {
        c.rerr_ratelimit = v;
    }
    if let Some(v) = int(&r.buffer_size, "buffer_size", 0, 1_000_000)? {
        c.buffer_size = v as usize;
    }
    if c.ttl_start > c.net_diameter {
        let s = r.ttl_start.as_ref().or(r.net_diameter.as_ref()).unwrap();
        return Err(err(
            ErrorKind::Inconsistent,
            s,
            format!(
                "'routing.ttl_start' ({}) must not exceed 'routing.net_diameter' ({})",
                c.ttl_start, c.net_diameter
            ),
        ));
    }
    for (v, dst) in [
        (&r.local_repair, &mut c.local_repair),
        (&r.gratuitous_rrep, &mut c.gratuitous_rrep),
        (&r.dest_only, &mut c.dest_only),
    ] {
        if let Some(v) = v {
            *dst = *v.get_ref();
        }
    }
    Ok(c)
}

fn dsr(r: &RoutingSection) -> Result<DsrConfig, Diag> {
    let mut c = DsrConfig::default();
    let positive = |s: &Option<Spanned<Duration>>, key: &str| -> Result<Option<Time>, Diag> {
        match s {
            Some(s) if s.get_ref().0 == Time::ZERO => {
                Err(err(ErrorKind::OutOfRange, s, format!("'routing.{key}' must be greater than zero")))
            }
            Some(s) => Ok(Some(s.get_ref().0)),
            None => Ok(None),
        }
    };
    if let Some(t) = positive(&r.nonprop_timeout, "nonprop_timeout")? {
        c.nonprop_timeout = t;
    }
    if let Some(t) = positive(&r.request_period, "request_period")? {
        c.request_period = t;
    }
    if let Some(t) = positive(&r.request_backoff_max, "request_backoff_max")? {
        c.request_backoff_max = t;
    }
    if let Some(t) = positive(&r.send_buffer_timeout, "send_buffer_timeout")? {
        c.send_buffer_timeout = t;
    }
    c.cache_timeout = positive(&r.cache_timeout, "cache_timeout")?;
    if let Some(j) = &r.jitter {
        c.jitter = j.get_ref().0;
    }
    if c.request_backoff_max < c.request_period {
        let s = r.request_backoff_max.as_ref().or(r.request_period.as_ref()).unwrap();
        return Err(err(
            ErrorKind::Inconsistent,
            s,
            format!(
                "'routing.request_backoff_max' ({}) must not be less than 'routing.request_period' ({})",
                c.request_backoff_max, c.request_period
            ),
        ));
    }
    let int = routing_int;
    if let Some(v) = int(&r.max_salvage, "max_salvage", 0, 255)? {
        c.max_salvage = v as u8;
    }
    if let Some(v) = int(&r.send_buffer, "send_buffer", 0, 1_000_000)? {
        c.send_buffer = v as usize;
    }
    if let Some(v) = int(&r.cache_size, "cache_size", 1, 1_000_000)? {
        c.cache_size = v as usize;
    }
    for (v, dst) in [
        (&r.cache_replies, &mut c.cache_replies),
        (&r.salvage, &mut c.salvage),
        (&r.snoop, &mut c.snoop),
        (&r.ring_zero, &mut c.ring_zero),
        (&r.propagate_last_error, &mut c.propagate_last_error),
    ] {
        if let Some(v) = v {
            *dst = *v.get_ref();
        }
    }
    Ok(c)
}

#[derive(Copy, Clone, PartialEq)]
enum FlowType {
    Cbr,
    Tcp,
    Tfrc,
    Voip,
}

/// A two-way G.729a-like call: `packet_size` voice bytes (default 20B, plus
/// 12 B of RTP) every `interval` (default 20 ms) in each direction.
fn voip_traffic(i: usize, fl: &FlowSection) -> Result<Traffic, Diag> {
    let key = |k: &str| format!("flow.{i}.{k}");
    let mut v = crate::app::voip::VoipConfig::default();
    if let Some(s) = &fl.packet_size {
        let max = MAX_UDP_PAYLOAD - crate::app::voip::RTP_HEADER_BYTES;
        if s.get_ref().0 == 0 || s.get_ref().0 > max {
            return Err(err(
                ErrorKind::OutOfRange,
                s,
                format!("'{}' (voice bytes per packet) must be from 1B to {max}B", key("packet_size")),
            ));
        }
        v.payload = s.get_ref().0;
    }
    if let Some(iv) = &fl.interval {
        if iv.get_ref().0 == Time::ZERO {
            return Err(err(ErrorKind::OutOfRange, iv, format!("'{}' must be greater than zero", key("interval"))));
        }
        v.interval = iv.get_ref().0;
    }
    Ok(Traffic::Voip(v))
}

/// Largest TCP segment payload: the 802.11 MSDU limit less IP and TCP headers.
const MAX_TCP_MSS: u32 = MAX_MSDU - IP_HEADER_BYTES - crate::net::packet::TCP_HEADER_BYTES;

/// Refuses keys that belong to the other flow type.
fn flow_keys_used(i: usize, fl: &FlowSection, kind: FlowType) -> Result<(), Diag> {
    let (name, uses): (&str, &[&str]) = match kind {
        FlowType::Cbr => ("cbr", &["packet_size", "rate", "interval", "jitter", "burst"]),
        FlowType::Voip => ("voip", &["packet_size", "interval"]),
        FlowType::Tcp => (
            "tcp",
            &[
                "variant",
                "mss",
                "max_window",
                "bytes",
                "initial_rto",
                "min_rto",
                "max_rto",
                "delayed_ack",
                "handshake",
                "elfn",
                "elfn_probe",
                "elfn_restore",
                "elfn_probe_packet",
            ],
        ),
        FlowType::Tfrc => ("tfrc", &["packet_size", "rate", "history_discounting"]),
    };
    let given: [(&str, Option<usize>); 19] = [
        ("history_discounting", fl.history_discounting.as_ref().map(|s| s.span().start)),
        ("burst", fl.burst.as_ref().map(|s| s.span().start)),
        ("packet_size", fl.packet_size.as_ref().map(|s| s.span().start)),
        ("rate", fl.rate.as_ref().map(|s| s.span().start)),
        ("interval", fl.interval.as_ref().map(|s| s.span().start)),
        ("jitter", fl.jitter.as_ref().map(|s| s.span().start)),
        ("variant", fl.variant.as_ref().map(|s| s.span().start)),
        ("mss", fl.mss.as_ref().map(|s| s.span().start)),
        ("max_window", fl.max_window.as_ref().map(|s| s.span().start)),
        ("bytes", fl.bytes.as_ref().map(|s| s.span().start)),
        ("initial_rto", fl.initial_rto.as_ref().map(|s| s.span().start)),
        ("min_rto", fl.min_rto.as_ref().map(|s| s.span().start)),
        ("max_rto", fl.max_rto.as_ref().map(|s| s.span().start)),
        ("delayed_ack", fl.delayed_ack.as_ref().map(|s| s.span().start)),
        ("handshake", fl.handshake.as_ref().map(|s| s.span().start)),
        ("elfn", fl.elfn.as_ref().map(|s| s.span().start)),
        ("elfn_probe", fl.elfn_probe.as_ref().map(|s| s.span().start)),
        ("elfn_restore", fl.elfn_restore.as_ref().map(|s| s.span().start)),
        ("elfn_probe_packet", fl.elfn_probe_packet.as_ref().map(|s| s.span().start)),
    ];
    refuse_unused_keys(&format!("flow.{i}"), "type", name, uses, given)
}

fn tcp_traffic(i: usize, fl: &FlowSection) -> Result<Traffic, Diag> {
    use crate::transport::tcp::{DataSource, TcpConfig, TcpVariant};
    let key = |k: &str| format!("flow.{i}.{k}");
    let mut tcp = TcpConfig::default();
    if let Some(v) = &fl.variant {
        tcp.variant = choice(v, &key("variant"), TcpVariant::NAMES)?;
    }
    if let Some(m) = &fl.mss {
        let mss = m.get_ref().0;
        if mss == 0 || mss > MAX_TCP_MSS {
            return Err(err(
                ErrorKind::OutOfRange,
                m,
                format!("'{}' must be from 1B to {MAX_TCP_MSS}B (no fragmentation), got {}", key("mss"), m.get_ref()),
            ));
        }
        tcp.mss = mss;
    }
    if let Some(w) = &fl.max_window {
        if *w.get_ref() == 0 {
            return Err(err(ErrorKind::OutOfRange, w, format!("'{}' must be at least 1 packet", key("max_window"))));
        }
        tcp.max_window = *w.get_ref();
    }
    for (k, v, slot) in [
        ("initial_rto", &fl.initial_rto, &mut tcp.initial_rto),
        ("min_rto", &fl.min_rto, &mut tcp.min_rto),
        ("max_rto", &fl.max_rto, &mut tcp.max_rto),
    ] {
        if let Some(v) = v {
            if v.get_ref().0 == Time::ZERO {
                return Err(err(ErrorKind::OutOfRange, v, format!("'{}' must be greater than zero", key(k))));
            }
            *slot = v.get_ref().0;
        }
    }
    if tcp.min_rto > tcp.max_rto {
        let s = fl.min_rto.as_ref().or(fl.max_rto.as_ref()).unwrap();
        return Err(err(
            ErrorKind::Inconsistent,
            s,
            format!("'{}' must not exceed '{}'", key("min_rto"), key("max_rto")),
        ));
    }
    if let Some(d) = &fl.delayed_ack {
        tcp.delayed_ack = *d.get_ref();
    }
    if let Some(h) = &fl.handshake {
        tcp.handshake = *h.get_ref();
    }
    tcp.elfn = elfn_config(i, fl)?;
    tcp.record_series = false;
    tcp.record_seq_log = false;
    let data = match &fl.bytes {
        Some(b) if b.get_ref().0 == 0 => {
            return Err(err(ErrorKind::OutOfRange, b, format!("'{}' must be at least 1B", key("bytes"))));
        }
        Some(b) => DataSource::Finite(b.get_ref().0 as u64),
        None => DataSource::Bulk,
    };
    Ok(Traffic::Tcp { tcp, data })
}

/// `elfn = true` and its variants; the variant keys need an `elfn` key.
fn elfn_config(i: usize, fl: &FlowSection) -> Result<Option<crate::transport::tcp::ElfnConfig>, Diag> {
    use crate::transport::tcp::{ElfnConfig, ElfnProbe, ElfnRestore};
    let key = |k: &str| format!("flow.{i}.{k}");
    if fl.elfn.is_none() {
        let stray: [(&str, Option<usize>); 3] = [
            ("elfn_probe", fl.elfn_probe.as_ref().map(|s| s.span().start)),
            ("elfn_restore", fl.elfn_restore.as_ref().map(|s| s.span().start)),
            ("elfn_probe_packet", fl.elfn_probe_packet.as_ref().map(|s| s.span().start)),
        ];
        if let Some((k, Some(off))) = stray.into_iter().find(|(_, o)| o.is_some()) {
            return Err(Diag::at(
                ErrorKind::Inconsistent,
                off,
                format!("'{}' has no effect without '{} = true'", key(k), key("elfn")),
            ));
        }
    }
    // `elfn = false` keeps the variant keys (so one file compares both).
    if !fl.elfn.as_ref().is_some_and(|e| *e.get_ref()) {
        return Ok(None);
    }
    let mut e = ElfnConfig::default();
    if let Some(p) = &fl.elfn_probe {
        if p.get_ref().0 == Time::ZERO {
            return Err(err(ErrorKind::OutOfRange, p, format!("'{}' must be greater than zero", key("elfn_probe"))));
        }
        e.probe_interval = p.get_ref().0;
    }
    if let Some(r) = &fl.elfn_restore {
        e.restore = choice(
            r,
            &key("elfn_restore"),
            &[("keep", ElfnRestore::Keep), ("cwnd1", ElfnRestore::Cwnd1), ("cwnd1-rto", ElfnRestore::Cwnd1Rto)],
        )?;
    }
    if let Some(p) = &fl.elfn_probe_packet {
        e.probe =
            choice(p, &key("elfn_probe_packet"), &[("first", ElfnProbe::First), ("lost", ElfnProbe::LowestLost)])?;
    }
    Ok(Some(e))
}

fn flow(i: usize, fl: &FlowSection, n: u64, duration: Time) -> Result<FlowConfig, Diag> {
    let key = |k: &str| format!("flow.{i}.{k}");
    let src = node_index(&fl.src, &key("src"), n)?;
    let dst = node_index(&fl.dst, &key("dst"), n)?;
    if src == dst {
        return Err(err(
            ErrorKind::Inconsistent,
            &fl.dst,
            format!("'{}' must differ from its source (both are node {src})", key("dst")),
        ));
    }
    let name = match &fl.name {
        Some(s) if s.get_ref().trim().is_empty() => {
            return Err(err(ErrorKind::BadValue, s, format!("'{}' must not be empty", key("name"))));
        }
        Some(s) => s.get_ref().trim().to_string(),
        None => format!("flow{i}"),
    };
    let kind = choice(
        &fl.kind,
        &key("type"),
        &[
            ("cbr", FlowType::Cbr),
            ("tcp", FlowType::Tcp),
            ("ftp", FlowType::Tcp),
            ("tfrc", FlowType::Tfrc),
            ("voip", FlowType::Voip),
        ],
    )?;
    flow_keys_used(i, fl, kind)?;
    let start = fl.start.as_ref().map_or(Time::ZERO, |s| s.get_ref().0);
    if start >= duration {
        let s = fl.start.as_ref().map_or(At::Offset(fl.kind.span().start), at);
        return Err(Diag::new(
            ErrorKind::Inconsistent,
            s,
            format!(
                "'{}' ({}) is not before the end of the run ({})",
                key("start"),
                Duration(start),
                Duration(duration)
            ),
        ));
    }
    let stop = match &fl.stop {
        Some(s) if s.get_ref().0 <= start => {
            return Err(err(
                ErrorKind::Inconsistent,
                s,
                format!("'{}' ({}) must be after its start ({})", key("stop"), s.get_ref(), Duration(start)),
            ));
        }
        Some(s) => Some(s.get_ref().0),
        None => None,
    };
    let missing =
        |k: &str, why: &str| Diag::new(ErrorKind::MissingKey, at(&fl.kind), format!("missing '{}': {why}", key(k)));
    let traffic = match kind {
        FlowType::Tcp => tcp_traffic(i, fl)?,
        FlowType::Tfrc => {
            let mut tfrc = crate::transport::tfrc::TfrcConfig::default();
            if let Some(s) = &fl.packet_size {
                let max = MAX_UDP_PAYLOAD - crate::transport::tfrc::DATA_HEADER_BYTES;
                if s.get_ref().0 == 0 || s.get_ref().0 > max {
                    return Err(err(
                        ErrorKind::OutOfRange,
                        s,
                        format!(
                            "'{}' must be from 1B to {max}B (the MSDU limit less IP, UDP and TFRC headers)",
                            key("packet_size")
                        ),
                    ));
                }
                tfrc.packet_size = s.get_ref().0;
            }
            if let Some(h) = &fl.history_discounting {
                tfrc.history_discounting = *h.get_ref();
            }
            Traffic::Tfrc { tfrc, rate_bps: fl.rate.as_ref().map(|r| r.get_ref().0) }
        }
        FlowType::Cbr => {
            let size_s = fl
                .packet_size
                .as_ref()
                .ok_or_else(|| missing("packet_size", "a cbr flow needs its UDP payload size"))?;
            let size = size_s.get_ref().0;
            if size == 0 || size > MAX_UDP_PAYLOAD {
                return Err(err(
                    ErrorKind::OutOfRange,
                    size_s,
                    format!(
                        "'{}' must be from 1B to {MAX_UDP_PAYLOAD}B (the 802.11 MSDU limit of {MAX_MSDU}B less {}B of IP and UDP headers), got {}",
                        key("packet_size"),
                        IP_HEADER_BYTES + UDP_HEADER_BYTES,
                        size_s.get_ref()
                    ),
                ));
            }
            let interval = match (&fl.rate, &fl.interval) {
                (Some(a), Some(b)) => {
                    return Err(Diag::new(
                        ErrorKind::Inconsistent,
                        later(a, b),
                        format!("give either '{}' or '{}', not both", key("rate"), key("interval")),
                    ));
                }
                (None, None) => {
                    return Err(missing(
                        "rate",
                        "a cbr flow needs a rate (e.g. \"2Mbps\") or an interval (e.g. \"10ms\")",
                    ))
                }
                (Some(r), None) => {
                    let ns = (size as u128 * 8 * 1_000_000_000 + r.get_ref().0 as u128 / 2) / r.get_ref().0 as u128;
                    if ns == 0 {
                        return Err(err(
                            ErrorKind::OutOfRange,
                            r,
                            format!("'{}' is too high: packets would be less than 1 ns apart", key("rate")),
                        ));
                    }
                    (Time::from_ns(ns as u64), r.span().start)
                }
                (None, Some(iv)) => {
                    if iv.get_ref().0 == Time::ZERO {
                        return Err(err(
                            ErrorKind::OutOfRange,
                            iv,
                            format!("'{}' must be greater than zero", key("interval")),
                        ));
                    }
                    (iv.get_ref().0, iv.span().start)
                }
            };
            let jitter = fl.jitter.as_ref().map_or(Time::ZERO, |j| j.get_ref().0);
            if jitter >= interval.0 {
                let j = fl.jitter.as_ref().map_or(At::Offset(interval.1), at);
                return Err(Diag::new(
                    ErrorKind::Inconsistent,
                    j,
                    format!(
                        "'{}' ({}) must be smaller than the packet interval ({})",
                        key("jitter"),
                        Duration(jitter),
                        Duration(interval.0)
                    ),
                ));
            }
            match fl.burst.as_ref().map(|b| (*b.get_ref(), b)) {
                Some((0, b)) => {
                    return Err(err(ErrorKind::OutOfRange, b, format!("'{}' must be at least 1 packet", key("burst"))))
                }
                Some((k, b)) if k > 1 => {
                    if jitter > Time::ZERO {
                        return Err(err(
                            ErrorKind::Inconsistent,
                            b,
                            format!("'{}' and '{}' cannot be combined", key("burst"), key("jitter")),
                        ));
                    }
                    Traffic::BurstyCbr { size, interval: interval.0, burst: k }
                }
                _ => Traffic::Cbr { size, interval: interval.0, jitter },
            }
        }
        FlowType::Voip => voip_traffic(i, fl)?,
    };
    Ok(FlowConfig { name, src, dst, traffic, start, stop })
}

fn arp(a: &super::file::ArpSection) -> Result<crate::net::arp::ArpConfig, Diag> {
    use crate::net::arp::ArpConfig;
    #[derive(Copy, Clone, PartialEq)]
    enum Mode {
        Off,
        Ns2,
        Queue,
    }
    let mode = match &a.mode {
        Some(m) => choice(m, "arp.mode", &[("off", Mode::Off), ("ns2", Mode::Ns2), ("queue", Mode::Queue)])?,
        None => Mode::Off,
    };
    let uses: &[&str] = match mode {
        Mode::Off => &[],
        Mode::Ns2 => &["max_requests"],
        Mode::Queue => &["max_requests", "queue_limit", "retry_interval"],
    };
    let given = [
        ("max_requests", a.max_requests.as_ref().map(|s| s.span().start)),
        ("queue_limit", a.queue_limit.as_ref().map(|s| s.span().start)),
        ("retry_interval", a.retry_interval.as_ref().map(|s| s.span().start)),
    ];
    let name = a.mode.as_ref().map_or("off".to_string(), |m| m.get_ref().trim().to_string());
    refuse_unused_keys("arp", "mode", &name, uses, given)?;
    let positive = |v: &Option<Spanned<u32>>, key: &str, default: u32| -> Result<u32, Diag> {
        match v {
            Some(x) if *x.get_ref() == 0 => {
                Err(err(ErrorKind::OutOfRange, x, format!("'arp.{key}' must be at least 1")))
            }
            Some(x) => Ok(*x.get_ref()),
            None => Ok(default),
        }
    };
    Ok(match mode {
        Mode::Off => ArpConfig::Off,
        Mode::Ns2 => {
            let ArpConfig::Ns2 { max_requests } = ArpConfig::ns2() else { unreachable!() };
            ArpConfig::Ns2 { max_requests: positive(&a.max_requests, "max_requests", max_requests)? }
        }
        Mode::Queue => {
            let ArpConfig::Queue { limit, max_requests, retry_interval } = ArpConfig::queue() else { unreachable!() };
            let retry_interval = match &a.retry_interval {
                Some(r) if r.get_ref().0 == Time::ZERO => {
                    return Err(err(ErrorKind::OutOfRange, r, "'arp.retry_interval' must be greater than zero"))
                }
                Some(r) => r.get_ref().0,
                None => retry_interval,
            };
            ArpConfig::Queue {
                limit: positive(&a.queue_limit, "queue_limit", limit as u32)? as usize,
                max_requests: positive(&a.max_requests, "max_requests", max_requests)?,
                retry_interval,
            }
        }
    })
}

fn mobility(f: &ScenarioFile, topology: &Topology, base_dir: &std::path::Path) -> Result<MobilityPlan, Diag> {
    use crate::mobility::ns2::{parse_script, MovementScript, SetDest};
    use crate::mobility::waypoint::RandomWaypoint;
    #[derive(Copy, Clone, PartialEq)]
    enum Model {
        Static,
        Rwp,
        Pattern,
        File,
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
            ],
        )?,
        None => Model::Static,
    };
    let name = m.model.as_ref().map_or("static".to_string(), |s| s.get_ref().trim().to_string());
    let uses: &[&str] = match model {
        Model::Static => &[],
        Model::Rwp => &["speed", "pause"],
        Model::Pattern => &["mean_speed", "pause", "pattern"],
        Model::File => &["file"],
    };
    let given = [
        ("speed", m.speed.as_ref().map(|s| s.span().start)),
        ("mean_speed", m.mean_speed.as_ref().map(|s| s.span().start)),
        ("pause", m.pause.as_ref().map(|s| s.span().start)),
        ("pattern", m.pattern.as_ref().map(|s| s.span().start)),
        ("file", m.file.as_ref().map(|s| s.span().start)),
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
        Model::Rwp => {
            let (w, h) = area("random-waypoint")?;
            let s = m.speed.as_ref().ok_or_else(|| {
                Diag::new(
                    ErrorKind::MissingKey,
                    m.model.as_ref().map_or(At::Nowhere, at),
                    "missing 'mobility.speed': random-waypoint needs [min, max] speeds, e.g. [\"1m/s\", \"20m/s\"]",
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
            return Ok(MobilityPlan::RandomWaypoint(RandomWaypoint {
                width: w,
                height: h,
                speed_min: v[0].0,
                speed_max: v[1].0,
                pause,
            }));
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
            let text = std::fs::read_to_string(&path).map_err(|e| {
                err(ErrorKind::BadValue, fs, format!("cannot read movement file {}: {e}", path.display()))
            })?;
            script =
                parse_script(&text, n).map_err(|e| err(ErrorKind::BadValue, fs, format!("{}: {e}", path.display())))?;
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

/// The fair-queueing keys of `[queue]` (refused unless `kind = "fair"`).
fn queue_fair(q: &super::file::QueueSection, cfg: &mut crate::queue::QueueConfig) -> Result<(), Diag> {
    let given = [
        ("key", q.key.as_ref().map(|s| s.span().start)),
        ("quantum", q.quantum.as_ref().map(|s| s.span().start)),
        ("class_limit", q.class_limit.as_ref().map(|s| s.span().start)),
    ];
    let QueueKind::Fair { key, quantum, class_limit } = &mut cfg.kind else {
        return refuse_unused_keys("queue", "kind", "droptail", &[], given);
    };
    if let Some(k) = &q.key {
        *key = choice(
            k,
            "queue.key",
            &[
                ("src", ClassKey::Src),
                ("dst", ClassKey::Dst),
                ("next-hop", ClassKey::NextHop),
                ("prev-hop", ClassKey::PrevHop),
                ("flow", ClassKey::FiveTuple),
            ],
        )?;
    }
    if let Some(v) = &q.quantum {
        if *v.get_ref() == 0 {
            return Err(err(ErrorKind::OutOfRange, v, "'queue.quantum' must be at least 1 byte"));
        }
        *quantum = Some(*v.get_ref());
    }
    if let Some(v) = &q.class_limit {
        if *v.get_ref() == 0 {
            return Err(err(ErrorKind::OutOfRange, v, "'queue.class_limit' must be at least 1 packet"));
        }
        *class_limit = *v.get_ref() as usize;
    }
    Ok(())
}

/// `[queue.backpressure]`.
fn backpressure(b: &super::file::BackpressureSection) -> Result<BackpressureConfig, Diag> {
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
