//! Sections `[[flow]]` (traffic types and their keys) and `[arp]`.

use super::*;

#[derive(Copy, Clone, PartialEq)]
pub(super) enum FlowType {
    Cbr,
    Tcp,
    Tfrc,
    Voip,
}

/// A two-way G.729a-like call: `packet_size` voice bytes (default 20B, plus
/// 12 B of RTP) every `interval` (default 20 ms) in each direction.
pub(super) fn voip_traffic(i: usize, fl: &FlowSection) -> Result<Traffic, Diag> {
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
pub(super) const MAX_TCP_MSS: u32 = MAX_MSDU - IP_HEADER_BYTES - crate::net::packet::TCP_HEADER_BYTES;

/// Refuses keys that belong to the other flow type.
pub(super) fn flow_keys_used(i: usize, fl: &FlowSection, kind: FlowType) -> Result<(), Diag> {
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

pub(super) fn tcp_traffic(i: usize, fl: &FlowSection) -> Result<Traffic, Diag> {
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
pub(super) fn elfn_config(i: usize, fl: &FlowSection) -> Result<Option<crate::transport::tcp::ElfnConfig>, Diag> {
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

pub(super) fn flow(i: usize, fl: &FlowSection, n: u64, duration: Time) -> Result<FlowConfig, Diag> {
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
        Mode::Queue => &["max_requests", "queue_limit", "retry_interval", "report_failure", "dead_time"],
    };
    let given = [
        ("max_requests", a.max_requests.as_ref().map(|s| s.span().start)),
        ("queue_limit", a.queue_limit.as_ref().map(|s| s.span().start)),
        ("retry_interval", a.retry_interval.as_ref().map(|s| s.span().start)),
        ("report_failure", a.report_failure.as_ref().map(|s| s.span().start)),
        ("dead_time", a.dead_time.as_ref().map(|s| s.span().start)),
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
            let ArpConfig::Queue { limit, max_requests, retry_interval, report_failure, dead_time } =
                ArpConfig::queue()
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
            }
        }
    })
}
