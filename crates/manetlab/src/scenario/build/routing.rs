//! Section `[routing]`: the protocol and its keys (static paths, AODV, DSR). A protocol's keys are listed beside its parser.

use super::*;
use crate::net::routing::{DsdvConfig, OlsrConfig};

pub(super) fn node_index(s: &Spanned<u32>, key: &str, n: u64) -> Result<u32, Diag> {
    let v = *s.get_ref();
    if v as u64 >= n {
        let nodes = if n == 1 { "1 node (0)".to_string() } else { format!("{n} nodes (0 to {})", n - 1) };
        return Err(err(ErrorKind::OutOfRange, s, format!("'{key}' = {v} is not a node: the topology has {nodes}")));
    }
    Ok(v)
}

/// Keys of [routing] that only AODV uses.
pub(super) const AODV_KEYS: &[&str] = &[
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
pub(super) const DSR_KEYS: &[&str] = &[
    "cache_replies",
    "salvage",
    "max_salvage",
    "snoop",
    "ring_zero",
    "propagate_last_error",
    "nonprop_timeout",
    "request_period",
    "request_backoff_max",
    "request_backoff_factor",
    "request_backoff_persists",
    "learn_at_destination",
    "send_buffer",
    "send_buffer_timeout",
    "cache_size",
    "cache_timeout",
    "jitter",
];

/// Where each [routing] key was given (None if absent), in `AODV_KEYS`
/// order after `paths`.
pub(super) fn routing_keys_given(r: &RoutingSection) -> Vec<(&'static str, Option<usize>)> {
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
        ("request_backoff_factor", o(&r.request_backoff_factor)),
        ("request_backoff_persists", o(&r.request_backoff_persists)),
        ("learn_at_destination", o(&r.learn_at_destination)),
        ("send_buffer", o(&r.send_buffer)),
        ("send_buffer_timeout", o(&r.send_buffer_timeout)),
        ("cache_size", o(&r.cache_size)),
        ("cache_timeout", o(&r.cache_timeout)),
        ("update_interval", o(&r.update_interval)),
        ("settling_time", o(&r.settling_time)),
        ("mac_feedback", o(&r.mac_feedback)),
        ("tc_interval", o(&r.tc_interval)),
        ("willingness", o(&r.willingness)),
    ]
}

pub(super) fn routing(f: &ScenarioFile, n: u64) -> Result<RoutingConfig, Diag> {
    let r = &f.routing;
    #[derive(Copy, Clone, PartialEq)]
    enum Protocol {
        Static,
        Aodv,
        Dsr,
        Dsdv,
        Olsr,
    }
    let protocol = match &r.protocol {
        Some(p) => choice(
            p,
            "routing.protocol",
            &[
                ("static", Protocol::Static),
                ("aodv", Protocol::Aodv),
                ("dsr", Protocol::Dsr),
                ("dsdv", Protocol::Dsdv),
                ("olsr", Protocol::Olsr),
            ],
        )?,
        None => Protocol::Static,
    };
    let (name, uses): (&str, &[&str]) = match protocol {
        Protocol::Static => ("static", &["paths"]),
        Protocol::Aodv => ("aodv", AODV_KEYS),
        Protocol::Dsr => ("dsr", DSR_KEYS),
        Protocol::Dsdv => ("dsdv", DSDV_KEYS),
        Protocol::Olsr => ("olsr", OLSR_KEYS),
    };
    refuse_unused_keys("routing", "protocol", name, uses, routing_keys_given(r))?;
    match protocol {
        Protocol::Aodv => aodv(r).map(RoutingConfig::Aodv),
        Protocol::Dsr => dsr(r).map(RoutingConfig::Dsr),
        Protocol::Dsdv => dsdv(r).map(RoutingConfig::Dsdv),
        Protocol::Olsr => olsr(r).map(RoutingConfig::Olsr),
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

pub(super) fn aodv(r: &RoutingSection) -> Result<AodvConfig, Diag> {
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

pub(super) fn dsr(r: &RoutingSection) -> Result<DsrConfig, Diag> {
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
    if let Some(v) = int(&r.request_backoff_factor, "request_backoff_factor", 1, 16)? {
        c.request_backoff_factor = v;
    }
    for (v, dst) in [
        (&r.cache_replies, &mut c.cache_replies),
        (&r.salvage, &mut c.salvage),
        (&r.snoop, &mut c.snoop),
        (&r.ring_zero, &mut c.ring_zero),
        (&r.propagate_last_error, &mut c.propagate_last_error),
        (&r.request_backoff_persists, &mut c.request_backoff_persists),
        (&r.learn_at_destination, &mut c.learn_at_destination),
    ] {
        if let Some(v) = v {
            *dst = *v.get_ref();
        }
    }
    Ok(c)
}

/// The [routing] keys of protocol = "dsdv".
pub(super) const DSDV_KEYS: &[&str] =
    &["update_interval", "settling_time", "mac_feedback", "buffer_size", "buffer_timeout"];

/// The [routing] keys of protocol = "olsr".
pub(super) const OLSR_KEYS: &[&str] = &["hello_interval", "tc_interval", "willingness"];

pub(super) fn positive_duration(s: &Option<Spanned<Duration>>, key: &str) -> Result<Option<Time>, Diag> {
    match s {
        Some(s) if s.get_ref().0 == Time::ZERO => {
            Err(err(ErrorKind::OutOfRange, s, format!("'routing.{key}' must be greater than zero")))
        }
        Some(s) => Ok(Some(s.get_ref().0)),
        None => Ok(None),
    }
}

pub(super) fn dsdv(r: &RoutingSection) -> Result<DsdvConfig, Diag> {
    let mut c = DsdvConfig::default();
    if let Some(t) = positive_duration(&r.update_interval, "update_interval")? {
        c.update_interval = t;
    }
    if let Some(t) = positive_duration(&r.settling_time, "settling_time")? {
        c.settling_time = t;
    }
    if let Some(t) = positive_duration(&r.buffer_timeout, "buffer_timeout")? {
        c.buffer_timeout = t;
    }
    if let Some(v) = routing_int(&r.buffer_size, "buffer_size", 0, 1_000_000)? {
        c.buffer_size = v as usize;
    }
    if let Some(v) = &r.mac_feedback {
        c.mac_feedback = *v.get_ref();
    }
    Ok(c)
}

pub(super) fn olsr(r: &RoutingSection) -> Result<OlsrConfig, Diag> {
    let mut c = OlsrConfig::default();
    if let Some(t) = positive_duration(&r.hello_interval, "hello_interval")? {
        c.hello_interval = t;
    }
    if let Some(t) = positive_duration(&r.tc_interval, "tc_interval")? {
        c.tc_interval = t;
    }
    if let Some(v) = routing_int(&r.willingness, "willingness", 0, 7)? {
        c.willingness = v as u8;
    }
    Ok(c)
}
