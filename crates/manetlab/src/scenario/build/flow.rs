//! Sections `[[flow]]` (traffic types and their keys) and `[arp]`.
//!
//! A `[[flow]]`'s `type` picks a registered traffic type
//! (`app::TRAFFIC_TYPES`), whose own parser, beside the type, reads its
//! keys through `sim::params::Params` (`routing::TomlParams`).

use super::routing::{diag, refuse_unknown_keys, TomlParams};
use super::*;
use crate::app::{TrafficType, TRAFFIC_TYPES};
use toml_edit::TableLike;

/// Keys of every flow whatever its type (`file::FlowSection`).
const COMMON_KEYS: &[&str] = &["name", "src", "dst", "type", "start", "stop"];

/// Every key a `[[flow]]` may have: the common ones and those of every
/// registered type, in the order messages list them.
fn all_flow_keys() -> Vec<&'static str> {
    let first = TRAFFIC_TYPES.iter().take(1).flat_map(|t| t.keys);
    let rest = TRAFFIC_TYPES.iter().flat_map(|t| t.keys);
    let mut keys = Vec::new();
    for k in ["name", "src", "dst", "type"].iter().chain(first).chain(&["start", "stop"]).chain(rest) {
        if !keys.contains(k) {
            keys.push(*k);
        }
    }
    keys
}

/// `[[flow]]` number `i`: `fl` its common keys, `table` the section in the
/// document `root` (the type's keys are read from it).
pub(super) fn flow(
    i: usize,
    fl: &FlowSection,
    table: Option<&dyn TableLike>,
    root: &Table,
    n: u64,
    duration: Time,
) -> Result<FlowConfig, Diag> {
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
    let allowed = all_flow_keys();
    refuse_unknown_keys(root, table, &allowed)?;
    let types: Vec<(&str, &TrafficType)> =
        TRAFFIC_TYPES.iter().flat_map(|t| t.types.iter().map(move |name| (*name, t))).collect();
    let model = choice(&fl.kind, &key("type"), &types)?;
    let given: Vec<(&str, Option<usize>)> = table
        .into_iter()
        .flat_map(|t| t.iter())
        .filter(|(k, _)| !COMMON_KEYS.contains(k))
        .map(|(k, i)| (k, i.as_value().and_then(|v| v.span()).map(|s| s.start)))
        .collect();
    refuse_unused_keys_except(&format!("flow.{i}"), "type", model.name, model.keys, COMMON_KEYS, given)?;
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
    let section = format!("flow.{i}");
    let p = TomlParams { section: &section, table, root, nodes: n };
    let traffic = (model.parse)(&p).map_err(|e| {
        // A section-level error (a missing key) points at the flow's type.
        let located = e.at.is_some();
        let d = diag(e);
        if located {
            d
        } else {
            Diag::new(d.kind, at(&fl.kind), d.msg)
        }
    })?;
    Ok(FlowConfig { name, src, dst, traffic, start, stop })
}

pub(super) fn arp(a: &super::super::file::ArpSection) -> Result<crate::net::arp::ArpConfig, Diag> {
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
        Mode::Queue => &[
            "max_requests",
            "queue_limit",
            "retry_interval",
            "report_failure",
            "dead_time",
            "ns3_cache",
            "report_drops",
        ],
    };
    let given = [
        ("max_requests", a.max_requests.as_ref().map(|s| s.span().start)),
        ("queue_limit", a.queue_limit.as_ref().map(|s| s.span().start)),
        ("retry_interval", a.retry_interval.as_ref().map(|s| s.span().start)),
        ("report_failure", a.report_failure.as_ref().map(|s| s.span().start)),
        ("dead_time", a.dead_time.as_ref().map(|s| s.span().start)),
        ("ns3_cache", a.ns3_cache.as_ref().map(|s| s.span().start)),
        ("report_drops", a.report_drops.as_ref().map(|s| s.span().start)),
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
            let ArpConfig::Queue {
                limit,
                max_requests,
                retry_interval,
                report_failure,
                dead_time,
                ns3_cache,
                report_drops,
            } = ArpConfig::queue()
            else {
                unreachable!()
            };
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
                report_failure: a.report_failure.as_ref().map_or(report_failure, |v| *v.get_ref()),
                dead_time: a.dead_time.as_ref().map_or(dead_time, |v| v.get_ref().0),
                ns3_cache: a.ns3_cache.as_ref().map_or(ns3_cache, |v| *v.get_ref()),
                report_drops: a.report_drops.as_ref().map_or(report_drops, |v| *v.get_ref()),
            }
        }
    })
}
