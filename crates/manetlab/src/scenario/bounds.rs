//! Physical bounds on every timer, rate, count and speed a scenario file
//! can give, checked on the document before anything is built.
//!
//! A value can be well-formed and still make a run unbounded: a HELLO timer
//! of 1 ns fills memory in a 2 s run, a CBR source of 10^6 Mbit/s creates
//! a packet every 12 ns, 10^6 nodes with static routes need a 10^12-entry
//! table. Each bound below is far outside what any experiment needs and
//! says why in its message; docs/reliability.md has the table. Times have
//! one more, universal bound in the unit parser ([`super::units::MAX_TIME`]).
//!
//! The table works on key paths of the TOML document (`flow.*.rate`), so a
//! model's section can move between files without touching it.

use super::error::{At, Diag, ErrorKind};
use super::units::{DataRate, Duration, Speed};
use crate::sim::Time;
use toml_edit::{Item, Table, Value};

/// Most nodes a scenario may have (channel grid, per-node routing state and
/// reports stay well under 1 GB).
pub const MAX_NODES: u64 = 20_000;
/// Most nodes without routing (`routing.protocol = "none"`, one-hop
/// networks such as the beaconing app): per-node state is a few hundred
/// bytes (docs/performance.md, "Large networks").
pub const MAX_NODES_NO_ROUTING: u64 = 1_000_000;
/// Most nodes with static routes: every node holds a next hop per
/// destination (n x n entries; 8,192 nodes: 256 MB).
pub const MAX_STATIC_NODES: u64 = 8_192;

/// What a bounded key may hold.
#[derive(Copy, Clone, Debug)]
pub enum Bound {
    /// A time at least this long.
    TimeMin(Time),
    /// A data rate at most this (bit/s).
    RateMax(u64),
    /// An integer at most this.
    IntMax(i64),
    /// A speed at most this (m/s).
    SpeedMax(f64),
}

const fn ms(v: u64) -> Time {
    Time::from_ms(v)
}

const PERIODIC: &str =
    "a periodic broadcast more often than every 10 ms saturates any 802.11 channel (one frame takes 0.2-2 ms)";
const TIMER: &str = "a protocol timer below 1 ms is shorter than one frame exchange and only spins the event loop";

/// Key path (`*` matches any array index or key), bound, why.
pub const BOUNDS: &[(&str, Bound, &str)] = &[
    ("routing.hello_interval", Bound::TimeMin(ms(10)), PERIODIC),
    ("routing.tc_interval", Bound::TimeMin(ms(10)), PERIODIC),
    ("routing.update_interval", Bound::TimeMin(ms(10)), PERIODIC),
    ("routing.active_route_timeout", Bound::TimeMin(ms(1)), TIMER),
    ("routing.node_traversal_time", Bound::TimeMin(ms(1)), TIMER),
    ("routing.buffer_timeout", Bound::TimeMin(ms(1)), TIMER),
    ("routing.nonprop_timeout", Bound::TimeMin(ms(1)), TIMER),
    ("routing.request_period", Bound::TimeMin(ms(1)), TIMER),
    ("routing.request_backoff_max", Bound::TimeMin(ms(1)), TIMER),
    ("routing.send_buffer_timeout", Bound::TimeMin(ms(1)), TIMER),
    ("routing.cache_timeout", Bound::TimeMin(ms(1)), TIMER),
    ("routing.settling_time", Bound::TimeMin(ms(1)), TIMER),
    ("routing.buffer_size", Bound::IntMax(100_000), "a routing buffer holds packets in memory"),
    ("routing.send_buffer", Bound::IntMax(100_000), "a send buffer holds packets in memory"),
    ("routing.cache_size", Bound::IntMax(100_000), "a route cache holds paths in memory"),
    ("arp.retry_interval", Bound::TimeMin(ms(1)), TIMER),
    ("arp.queue_limit", Bound::IntMax(100_000), "an ARP queue holds packets in memory"),
    ("flow.*.elfn_probe", Bound::TimeMin(ms(10)), "an ELFN probe more often than every 10 ms only floods the route"),
    ("flow.*.initial_rto", Bound::TimeMin(ms(1)), "a TCP RTO below 1 ms is shorter than one 802.11 exchange"),
    ("flow.*.min_rto", Bound::TimeMin(ms(1)), "a TCP RTO below 1 ms is shorter than one 802.11 exchange"),
    ("flow.*.max_rto", Bound::TimeMin(ms(1)), "a TCP RTO below 1 ms is shorter than one 802.11 exchange"),
    (
        "flow.*.interval",
        Bound::TimeMin(Time::from_us(10)),
        "a source sending more often than every 10 us only fills the queue (802.11 sends a frame in 100 us at best)",
    ),
    (
        "flow.*.rate",
        Bound::RateMax(1_000_000_000),
        "an application rate above 1 Gbit/s only fills the queue (802.11 carries at most 54 Mbit/s)",
    ),
    ("flow.*.burst", Bound::IntMax(10_000), "a burst leaves at one instant and must fit in memory"),
    ("flow.*.max_window", Bound::IntMax(1_000_000), "a TCP window is held in memory"),
    ("link.*.bandwidth", Bound::RateMax(100_000_000_000), "a wired link faster than 100 Gbit/s is not modelled"),
    ("link.*.queue", Bound::IntMax(1_000_000), "a link queue holds packets in memory"),
    ("gateway.pacing", Bound::RateMax(100_000_000_000), "a shaper faster than 100 Gbit/s is not modelled"),
    ("gateway.ack_pacing", Bound::RateMax(100_000_000_000), "a shaper faster than 100 Gbit/s is not modelled"),
    ("queue.limit", Bound::IntMax(1_000_000), "an interface queue holds packets in memory"),
    ("queue.class_limit", Bound::IntMax(1_000_000), "an interface queue holds packets in memory"),
    ("topology.nodes", Bound::IntMax(MAX_NODES_NO_ROUTING as i64), "larger networks do not fit in memory"),
    ("run.replications", Bound::IntMax(1_000_000), "replications run one after another"),
    ("output.viz_decimate", Bound::IntMax(1_000_000), "a larger decimation records nothing"),
    ("mobility.speed.*", Bound::SpeedMax(1000.0), "faster than 1 km/s is not a network of moving radios"),
    ("mobility.mean_speed", Bound::SpeedMax(1000.0), "faster than 1 km/s is not a network of moving radios"),
    ("move.*.speed", Bound::SpeedMax(1000.0), "faster than 1 km/s is not a network of moving radios"),
];

/// Checks the table, the node count and the mobility budget.
pub(crate) fn check(doc: &Table) -> Result<(), Diag> {
    let mut key = String::new();
    for (path, bound, why) in BOUNDS {
        let mut parts = [""; 4];
        let mut n = 0;
        for p in path.split('.') {
            parts[n] = p;
            n += 1;
        }
        key.clear();
        visit(Node::Table(doc), &parts[..n], &mut key, &mut |k, v| check_value(k, v, *bound, why))?;
    }
    nodes_and_mobility(doc)
}

/// A place in the document: tables and values.
#[derive(Copy, Clone)]
enum Node<'a> {
    Table(&'a Table),
    Item(&'a Item),
    Value(&'a Value),
}

/// Calls `f` with every value at `path` below `n` (`*` matches any key or
/// index), in document order, with its full dotted key (`key` holds the
/// path so far; no allocation but for the key's growth: this runs on every
/// scenario parse, ~17 per `scenario.resolved.toml`).
fn visit<'a>(
    n: Node<'a>,
    path: &[&str],
    key: &mut String,
    f: &mut dyn FnMut(&str, &'a Value) -> Result<(), Diag>,
) -> Result<(), Diag> {
    let Some((first, rest)) = path.split_first() else {
        return match n {
            Node::Item(Item::Value(v)) | Node::Value(v) => f(key, v),
            _ => Ok(()),
        };
    };
    let len = key.len();
    let mut child = |k: &dyn std::fmt::Display, c: Node<'a>, key: &mut String| -> Result<(), Diag> {
        use std::fmt::Write;
        if len > 0 {
            key.push('.');
        }
        let start = key.len();
        let _ = write!(key, "{k}");
        let r = if *first == "*" || *first == &key[start..] { visit(c, rest, key, f) } else { Ok(()) };
        key.truncate(len);
        r
    };
    match n {
        Node::Table(t) | Node::Item(Item::Table(t)) => {
            if *first == "*" {
                for (k, i) in t.iter() {
                    child(&k, Node::Item(i), key)?;
                }
            } else if let Some(i) = t.get(first) {
                child(first, Node::Item(i), key)?;
            }
        }
        Node::Item(Item::ArrayOfTables(a)) => {
            for (i, t) in a.iter().enumerate() {
                child(&i, Node::Table(t), key)?;
            }
        }
        Node::Item(Item::Value(v)) | Node::Value(v) => match v {
            Value::InlineTable(t) => {
                if *first == "*" {
                    for (k, v) in t.iter() {
                        child(&k, Node::Value(v), key)?;
                    }
                } else if let Some(v) = t.get(first) {
                    child(first, Node::Value(v), key)?;
                }
            }
            Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    child(&i, Node::Value(v), key)?;
                }
            }
            _ => {}
        },
        Node::Item(Item::None) => {}
    }
    Ok(())
}

fn at(v: &Value) -> At {
    v.span().map_or(At::Nowhere, |s| At::Offset(s.start))
}

fn check_value(key: &str, v: &Value, bound: Bound, why: &str) -> Result<(), Diag> {
    let fail = |msg: String| Err(Diag::new(ErrorKind::OutOfRange, at(v), format!("'{key}' {msg}: {why}")));
    match bound {
        Bound::TimeMin(min) => {
            if let Some(Ok(d)) = v.as_str().map(str::parse::<Duration>) {
                if d.0 == Time::ZERO {
                    return fail(format!("must be greater than zero (at least {})", Duration(min)));
                }
                if d.0 < min {
                    return fail(format!("is {d}, below the shortest allowed {}", Duration(min)));
                }
            }
        }
        Bound::RateMax(max) => {
            if let Some(Ok(r)) = v.as_str().map(str::parse::<DataRate>) {
                if r.0 > max {
                    return fail(format!("is {r}, above the highest allowed {}", DataRate(max)));
                }
            }
        }
        Bound::IntMax(max) => {
            if let Some(i) = v.as_integer() {
                if i > max {
                    return fail(format!("is {i}, above the largest allowed {max}"));
                }
            }
        }
        Bound::SpeedMax(max) => {
            if let Some(Ok(s)) = v.as_str().map(str::parse::<Speed>) {
                if s.0 > max {
                    return fail(format!("is {} m/s, above the highest allowed {max} m/s", s.0));
                }
            }
        }
    }
    Ok(())
}

fn get<'a>(doc: &'a Table, section: &str, key: &str) -> Option<&'a Value> {
    doc.get(section)?.as_table_like()?.get(key)?.as_value()
}

fn int(doc: &Table, section: &str, key: &str) -> Option<i64> {
    get(doc, section, key)?.as_integer()
}

/// Node count (grids multiply) and static-route table size. (Generated
/// mobility needs no bound: its legs are generated as the run goes, a few
/// dozen per node in memory at any time.)
fn nodes_and_mobility(doc: &Table) -> Result<(), Diag> {
    let topo_at = || {
        doc.get("topology")
            .and_then(|t| t.as_table_like())
            .and_then(|t| t.get("kind"))
            .and_then(|k| k.as_value())
            .map_or(At::Nowhere, at)
    };
    let rows = int(doc, "topology", "rows");
    let cols = int(doc, "topology", "cols");
    let positions = get(doc, "topology", "positions").and_then(|p| p.as_array()).map(|a| a.len() as i64);
    let n = match (rows, cols) {
        (Some(r), Some(c)) => r.max(0).saturating_mul(c.max(0)),
        _ => int(doc, "topology", "nodes").or(positions).unwrap_or(0),
    };
    let protocol = get(doc, "routing", "protocol").and_then(|p| p.as_str()).map(str::trim).unwrap_or("static");
    let max = if protocol == "none" { MAX_NODES_NO_ROUTING } else { MAX_NODES };
    if n as u64 > max {
        return Err(Diag::new(
            ErrorKind::OutOfRange,
            topo_at(),
            format!(
                "the topology has {n} nodes; at most {max} are allowed (larger networks do not fit in memory; \
                 {MAX_NODES_NO_ROUTING} with routing.protocol = \"none\")"
            ),
        ));
    }
    if protocol == "static" && n as u64 > MAX_STATIC_NODES {
        return Err(Diag::new(
            ErrorKind::OutOfRange,
            topo_at(),
            format!(
                "static routes for {n} nodes need a {n} x {n} next-hop table; at most {MAX_STATIC_NODES} nodes are \
                 allowed with routing.protocol = \"static\" (use a routing protocol for larger networks)"
            ),
        ));
    }
    Ok(())
}
