//! Traffic type `tcp` (alias `ftp`): a one-way TCP connection
//! (`transport/tcp/`) carrying bulk data, as ns-2's FTP agent, or a finite
//! number of bytes (`bytes`); optional Explicit Link Failure Notification
//! (Holland and Vaidya 1999, `elfn` keys).

use super::{Endpoints, FlowEnv, Traffic, TrafficModel};
use crate::sim::params::{ParamError, ParamErrorKind, Params};
use crate::transport::tcp::{DataSource, ElfnConfig, ElfnProbe, ElfnRestore, TcpConfig, TcpRecovery, TcpSink, TcpSource, TcpVariant};

/// Largest TCP segment payload: the 802.11 MSDU limit less IP and TCP headers.
pub const MAX_TCP_MSS: u32 = super::MAX_MSDU - crate::net::IP_HEADER_BYTES - crate::net::packet::TCP_HEADER_BYTES;

/// The `tcp` traffic type.
pub struct Tcp;

impl TrafficModel for Tcp {
    const NAME: &'static str = "tcp";
    const TYPES: &'static [&'static str] = &["tcp", "ftp"];
    const KEYS: &'static [&'static str] = &[
        "variant",
        "mss",
        "max_window",
        "bytes",
        "initial_rto",
        "min_rto",
        "max_rto",
        "delayed_ack",
        "timestamps",
        "rto_reset_on_ack",
        "initial_cwnd",
        "limited_transmit",
        "recovery",
        "handshake",
        "elfn",
        "elfn_probe",
        "elfn_restore",
        "elfn_probe_packet",
    ];

    fn parse(p: &dyn Params) -> Result<Traffic, ParamError> {
        use ParamErrorKind::*;
        let mut tcp = TcpConfig::default();
        if let Some(v) = p.choice("variant", TcpVariant::NAMES)? {
            tcp.variant = v.v;
        }
        if let Some(m) = p.bytes("mss")? {
            if m.v == 0 || m.v > MAX_TCP_MSS {
                let msg = format!("{{key}} must be from 1B to {MAX_TCP_MSS}B (no fragmentation), got {}B", m.v);
                return Err(p.error(OutOfRange, m.at, "mss", &msg));
            }
            tcp.mss = m.v;
        }
        if let Some(w) = p.uint("max_window")? {
            if w.v == 0 {
                return Err(p.error(OutOfRange, w.at, "max_window", "{key} must be at least 1 packet"));
            }
            tcp.max_window = w.v;
        }
        p.set_positive("initial_rto", &mut tcp.initial_rto)?;
        let min = p.positive_duration("min_rto")?;
        let max = p.positive_duration("max_rto")?;
        if let Some(v) = &min {
            tcp.min_rto = v.v;
        }
        if let Some(v) = &max {
            tcp.max_rto = v.v;
        }
        if tcp.min_rto > tcp.max_rto {
            let at = min.as_ref().or(max.as_ref()).map(|v| v.at).expect("a default pair is consistent");
            let msg = format!("{{key}} must not exceed '{}.max_rto'", p.section());
            return Err(p.error(Inconsistent, at, "min_rto", &msg));
        }
        p.set_flag("delayed_ack", &mut tcp.delayed_ack)?;
        p.set_flag("timestamps", &mut tcp.timestamps)?;
        p.set_flag("rto_reset_on_ack", &mut tcp.rto_reset_on_ack)?;
        if let Some(w) = p.uint("initial_cwnd")? {
            if w.v == 0 {
                return Err(p.error(OutOfRange, w.at, "initial_cwnd", "{key} must be at least 1 segment"));
            }
            tcp.initial_cwnd = w.v;
        }
        p.set_flag("limited_transmit", &mut tcp.limited_transmit)?;
        if let Some(r) = p.choice("recovery", &[("classic", TcpRecovery::Classic), ("ns3-prr", TcpRecovery::Ns3Prr)])? {
            tcp.recovery = r.v;
        }
        p.set_flag("handshake", &mut tcp.handshake)?;
        tcp.elfn = elfn(p)?;
        tcp.record_series = false;
        tcp.record_seq_log = false;
        let data = match p.bytes("bytes")? {
            Some(b) if b.v == 0 => return Err(p.error(OutOfRange, b.at, "bytes", "{key} must be at least 1B")),
            Some(b) => DataSource::Finite(b.v as u64),
            None => DataSource::Bulk,
        };
        Ok(Traffic::Tcp { tcp, data })
    }

    fn endpoints(cfg: &Traffic, f: &FlowEnv) -> Endpoints {
        let Traffic::Tcp { tcp, data } = cfg else { unreachable!("a tcp flow") };
        Endpoints {
            sender: Box::new(TcpSource::new(f.flow, f.port, f.dst, tcp.clone(), *data, f.start, f.stop)),
            sink: Box::new(TcpSink::new(f.flow, f.port, tcp)),
        }
    }
}

/// `elfn = true` and its variants; the variant keys need an `elfn` key
/// (`elfn = false` keeps them, so one file compares both).
fn elfn(p: &dyn Params) -> Result<Option<ElfnConfig>, ParamError> {
    let on = p.flag("elfn")?;
    if on.is_none() {
        for k in ["elfn_probe", "elfn_restore", "elfn_probe_packet"] {
            let at = match k {
                "elfn_probe" => p.duration(k)?.map(|v| v.at),
                _ => p.text(k)?.map(|v| v.at),
            };
            if let Some(at) = at {
                let msg = format!("{{key}} has no effect without '{}.elfn = true'", p.section());
                return Err(p.error(ParamErrorKind::Inconsistent, at, k, &msg));
            }
        }
    }
    if !on.is_some_and(|e| e.v) {
        return Ok(None);
    }
    let mut e = ElfnConfig::default();
    p.set_positive("elfn_probe", &mut e.probe_interval)?;
    let restore = [("keep", ElfnRestore::Keep), ("cwnd1", ElfnRestore::Cwnd1), ("cwnd1-rto", ElfnRestore::Cwnd1Rto)];
    if let Some(r) = p.choice("elfn_restore", &restore)? {
        e.restore = r.v;
    }
    if let Some(v) = p.choice("elfn_probe_packet", &[("first", ElfnProbe::First), ("lost", ElfnProbe::LowestLost)])? {
        e.probe = v.v;
    }
    Ok(Some(e))
}
