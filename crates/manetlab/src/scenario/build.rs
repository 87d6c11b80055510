//! Semantic checks and the typed run description: `ScenarioFile` -> `Plan`.
//!
//! Everything that can be wrong with a well-typed file is found here, once,
//! so that `Scenario::config` cannot fail.

use super::error::{At, Diag, ErrorKind};
use super::file::{FlowSection, ScenarioFile};
use super::source::section_at;
use super::units::{Distance, Duration};
use crate::config::{FlowConfig, NodeAction, NodeEvent, Position, SimConfig};
use crate::metrics::trace::{Ns2Format, PcapMode, TraceOptions};
use crate::metrics::viz::VizOptions;
use crate::net::routing::RoutingConfig;
use crate::phy::{CaptureRule, PhyMode, PhyStandard, Preamble, Propagation, Reception};
use crate::queue::{BackpressureConfig, ClassKey, Knowledge};
use crate::sim::Time;
use std::collections::HashMap;
use toml::Spanned;
use toml_edit::Table;

mod fading;
mod flow;
pub(crate) mod generate;
mod mobility;
mod radio;
mod routing;
use flow::{arp, flow};
use mobility::{backpressure, mobility};
use radio::{mac, radio, topology};
use routing::{diag, node_index, routing, select_model};

/// Most nodes a topology may have.
pub(crate) const MAX_NODES: u64 = 1_000_000;

/// Node positions, fixed or drawn per replication.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Topology {
    Fixed(Vec<Position>),
    /// Uniform in [0, width) x [0, height), from the run seed; node ids
    /// in draw order or along a space-filling curve (`order.rs`).
    Random {
        nodes: u32,
        width: f64,
        height: f64,
        order: super::order::NodeOrder,
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
    /// Warnings (valid but suspicious settings).
    pub warnings: Vec<String>,
    /// `[[flows]]` generators: their flows follow `base.flows`, per seed.
    pub generators: Vec<generate::FlowGenerator>,
    /// `[sweep]` axes (key order) and `[sweep.zip]` groups.
    pub sweep: super::sweep::SweepSpec,
}

/// How nodes move, resolved per seed by `Scenario::config`.
#[derive(Clone, Debug)]
pub(crate) enum MobilityPlan {
    Static,
    /// ns-2 movement file and/or `[[move]]` commands over the topology.
    Script(crate::mobility::ns2::MovementScript),
    /// Random waypoint from the run seed; initial positions are the model's.
    RandomWaypoint(crate::mobility::waypoint::RandomWaypoint),
    /// Any other random model (random direction, Gauss-Markov, RPGM).
    Model(std::sync::Arc<dyn crate::mobility::MobilityModel>),
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
/// `given` lists every key of the family (absent ones with `None`).
fn refuse_unused_keys<'a>(
    prefix: &str,
    selector: &str,
    name: &str,
    uses: &[&str],
    given: impl IntoIterator<Item = (&'a str, Option<usize>)>,
) -> Result<(), Diag> {
    refuse_unused(prefix, selector, name, uses, given, None)
}

/// [`refuse_unused_keys`] where `given` lists only the keys present and
/// the family is every key of the section but `exempt`.
fn refuse_unused_keys_except<'a>(
    prefix: &str,
    selector: &str,
    name: &str,
    uses: &[&str],
    exempt: &[&str],
    given: impl IntoIterator<Item = (&'a str, Option<usize>)>,
) -> Result<(), Diag> {
    refuse_unused(prefix, selector, name, uses, given, Some(exempt))
}

fn refuse_unused<'a>(
    prefix: &str,
    selector: &str,
    name: &str,
    uses: &[&str],
    given: impl IntoIterator<Item = (&'a str, Option<usize>)>,
    exempt: Option<&[&str]>,
) -> Result<(), Diag> {
    let given: Vec<(&str, Option<usize>)> = given.into_iter().collect();
    if super::defaults::recording() {
        let owned = |l: &[&str]| l.iter().map(|k| k.to_string()).collect();
        super::defaults::record_unused(super::defaults::Unused {
            prefix: prefix.to_string(),
            uses: owned(uses),
            family: match exempt {
                None => super::defaults::Family::Keys(given.iter().map(|(k, _)| k.to_string()).collect()),
                Some(e) => super::defaults::Family::AllBut(owned(e)),
            },
        });
    }
    for &(key, off) in &given {
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
    mac(f, doc, n, &mut cfg)?;

    // [queue]: `kind` picks a registered discipline
    // (`queue::DISCIPLINES`), whose own parser reads its keys.
    let (disc, p) = select_model(
        doc,
        "queue",
        "kind",
        &["limit", "control_first", "max_delay", "expire_in_flight", "backpressure"],
        crate::queue::DISCIPLINES,
        |d: &crate::queue::Discipline| d.names,
        |d: &crate::queue::Discipline| d.keys,
        n,
    )?;
    cfg.queue.kind = (disc.parse)(&p).map_err(diag)?;
    let q = &f.queue;
    if let Some(l) = &q.limit {
        if *l.get_ref() == 0 {
            return Err(err(ErrorKind::OutOfRange, l, "'queue.limit' must be at least 1 packet"));
        }
        cfg.queue.limit = *l.get_ref() as usize;
    }
    if let Some(c) = q.control_first {
        cfg.queue.control_first = c;
    }
    if let Some(d) = &q.max_delay {
        if d.get_ref().0 == Time::ZERO {
            return Err(err(ErrorKind::OutOfRange, d, "'queue.max_delay' must be positive"));
        }
        cfg.queue.max_delay = Some(d.get_ref().0);
    }
    if let Some(e) = &q.expire_in_flight {
        if *e.get_ref() && q.max_delay.is_none() {
            return Err(err(
                ErrorKind::Inconsistent,
                e,
                "'queue.expire_in_flight' needs 'queue.max_delay' (the lifetime)",
            ));
        }
        cfg.queue.expire_in_flight = *e.get_ref();
    }

    if let Some(b) = &q.backpressure {
        cfg.queue.backpressure = Some(backpressure(b)?);
        if let Some(d) = &q.max_delay {
            return Err(err(
                ErrorKind::Inconsistent,
                d,
                "'queue.max_delay' cannot be combined with 'queue.backpressure'",
            ));
        }
    }

    // [routing]
    cfg.routing = routing(doc, n)?;

    // [arp]
    cfg.arp = arp(&f.arp)?;

    // [[flow]]
    let mut names: HashMap<String, usize> = HashMap::new();
    let flow_item = doc.get("flow");
    for (i, fl) in f.flow.iter().enumerate() {
        let table: Option<&dyn toml_edit::TableLike> = match flow_item {
            Some(toml_edit::Item::ArrayOfTables(a)) => a.get(i).map(|t| t as &dyn toml_edit::TableLike),
            Some(toml_edit::Item::Value(toml_edit::Value::Array(a))) => {
                a.get(i).and_then(|v| v.as_inline_table()).map(|t| t as &dyn toml_edit::TableLike)
            }
            _ => None,
        };
        let flow = flow(i, fl, table, doc, n, cfg.duration)?;
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

    // [[flows]]: generated flows follow the explicit ones.
    let generators = generate::generators(doc, n, cfg.flows.len(), cfg.duration)?;
    for (g, gen) in generators.iter().enumerate() {
        for fl in gen.expand(0) {
            if let Some(prev) = names.insert(fl.name.clone(), usize::MAX) {
                let what =
                    if prev == usize::MAX { "another generated flow".to_string() } else { format!("[[flow]] #{prev}") };
                return Err(Diag::new(
                    ErrorKind::Inconsistent,
                    section_at(doc, &["flows", &g.to_string()]),
                    format!(
                        "[[flows]] #{g} makes a flow named {:?}, as {what} is; give the generator a 'name' prefix",
                        fl.name
                    ),
                ));
            }
        }
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
    if let Some(b) = &f.beacon {
        cfg.beacon = Some(beacon(b, &cfg)?);
    }
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
    if let Some(iv) = &f.output.interval {
        let t = iv.get_ref().0;
        if t == Time::ZERO {
            return Err(err(ErrorKind::BadValue, iv, "'output.interval' must be positive, e.g. \"1s\""));
        }
        cfg.record.interval = Some(t);
    }
    cfg.record.path_profiles = f.output.path_profile.as_ref().is_some_and(|p| *p.get_ref());
    cfg.record.omit_nodes = f.output.nodes.as_ref().is_some_and(|p| !*p.get_ref());

    let warnings = mobility::warnings(f, &cfg);
    let mobility = mobility(f, &topology, base_dir)?;
    if let (Some(o), Topology::Random { order: super::order::NodeOrder::Hilbert, .. }, MobilityPlan::Script(_)) =
        (&f.topology.order, &topology, &mobility)
    {
        return Err(err(
            ErrorKind::Inconsistent,
            o,
            "topology.order = \"hilbert\" renumbers the nodes, but an ns-2 movement file or [[move]] names them by number: leave 'order' out",
        ));
    }
    Ok(Plan {
        warnings,
        name: run.name.as_ref().map(|n| n.get_ref().trim().to_string()),
        seed: run.seed.unwrap_or(1),
        replications,
        output_dir,
        trace,
        viz,
        viz_options,
        base: cfg,
        mobility,
        topology,
        generators,
        sweep: super::sweep::spec_from_file(&f.sweep, doc)?,
    })
}

/// `[beacon]`: every node beacons (`app/beacon.rs`).
fn beacon(b: &super::file::BeaconSection, cfg: &SimConfig) -> Result<crate::app::beacon::BeaconConfig, Diag> {
    let mut c = crate::app::beacon::BeaconConfig::default();
    if let Some(iv) = &b.interval {
        let [lo, hi] = *iv.get_ref();
        if lo.0 == Time::ZERO || lo.0 > hi.0 {
            return Err(err(
                ErrorKind::BadValue,
                iv,
                "'beacon.interval' must be [min, max] with 0 < min <= max, e.g. [\"2s\", \"5s\"]",
            ));
        }
        if lo.0 < Time::from_ms(1) {
            return Err(err(ErrorKind::OutOfRange, iv, "'beacon.interval' must be at least 1ms"));
        }
        c.interval = (lo.0, hi.0);
    }
    if let Some(s) = &b.packet_size {
        if s.get_ref().0 > 2_000 {
            return Err(err(ErrorKind::OutOfRange, s, "'beacon.packet_size' must be at most 2000B"));
        }
        c.packet_size = s.get_ref().0;
    }
    if let Some(t) = &b.timeout {
        if t.get_ref().0 == Time::ZERO {
            return Err(err(ErrorKind::BadValue, t, "'beacon.timeout' must be positive"));
        }
        c.timeout = t.get_ref().0;
    }
    if let Some(t) = &b.start {
        c.start = t.get_ref().0.min(cfg.duration);
    }
    c.per_node = b.per_node.as_ref().is_some_and(|p| *p.get_ref());
    Ok(c)
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
