//! DSR in pcap captures: IP protocol 48 with the DSR Options header of
//! RFC 4728 §6.1 (Next Header, F flag, Payload Length) and its options:
//!
//! - Route Request (§6.2, type 1): identification (the low 16 bits of the
//!   model's request id), target address, the route record without the
//!   initiator (which is the IP source); a piggybacked last route error is
//!   a Route Error option after it;
//! - Route Reply (§6.3, type 2): the discovered route without the
//!   initiator (the reply's IP destination), after the Source Route option
//!   the reply travels by;
//! - Route Error (§6.4, type 3): error type 1 (NODE_UNREACHABLE), error
//!   source = the node whose link broke, error destination = the node told,
//!   unreachable node = the lost next hop; an ELFN notice (not in RFC 4728)
//!   follows as an option of unassigned type 200 with the same 18 bytes as
//!   the AODV extension (`trace_payload.rs`);
//! - Source Route (§6.7, type 96) on every source-routed packet, data
//!   included (then Next Header is the transport's 17 or 6 and the UDP or
//!   TCP header follows the DSR header): salvage count, segments left and
//!   the intermediate addresses.
//!
//! The model counts ns-2's header sizes, which differ from the RFC's by a
//! few bytes (a request's record lists the initiator; a reply's option is 4
//! bytes plus 4 per address): the difference is filled with a PadN option
//! (type 0) or Pad1 (type 224), so every frame keeps its simulated length.
//! Wireshark's DSR dissector (`dsr`, fields `dsr.option.type`,
//! `dsr.option.rreq.targetaddress`, ...) decodes all of it.

use super::trace_pcap::{internet_checksum, ip_addr};
use crate::net::{Body, Packet};
use crate::wire::board::WireBoard;
use crate::wire::dsr::{DsrMsg, Link};
use crate::wire::source_route::SourceRoute;
use std::cell::RefCell;

pub const IPPROTO_DSR: u8 = 48;
/// "No Next Header" (IPv6's 59): a DSR control packet carries nothing after
/// its options.
pub const NO_NEXT_HEADER: u8 = 59;
pub const OPT_RREQ: u8 = 1;
pub const OPT_RREP: u8 = 2;
pub const OPT_RERR: u8 = 3;
pub const OPT_SOURCE_ROUTE: u8 = 96;
pub const OPT_PAD1: u8 = 224;
pub const OPT_PADN: u8 = 0;
/// The option type an ELFN notice is written with (unassigned in RFC 4728).
pub const OPT_ELFN: u8 = 200;

/// The inner encoder: writes an IPv4 packet (header, transport header,
/// payload) and returns the number of trailing zero bytes.
pub type Inner = fn(&mut Vec<u8>, &Packet, Option<&WireBoard>, &mut Vec<u8>) -> usize;

thread_local! {
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fn push_addr(v: &mut Vec<u8>, n: u32) {
    v.extend_from_slice(&ip_addr(n));
}

/// The Source Route option of `sr` (a path of at least two nodes).
fn source_route(v: &mut Vec<u8>, sr: &SourceRoute) {
    let n = sr.len();
    let inner = n.saturating_sub(2);
    let segs_left = (n.saturating_sub(1)).saturating_sub(sr.cur as usize).min(63) as u8;
    let salvage = sr.salvaged.min(15);
    v.extend_from_slice(&[OPT_SOURCE_ROUTE, (2 + 4 * inner) as u8, salvage >> 2, (salvage & 3) << 6 | segs_left]);
    for i in 1..n.saturating_sub(1) {
        push_addr(v, sr.node(i));
    }
}

fn route_error(v: &mut Vec<u8>, link: Link, told: u32) {
    v.extend_from_slice(&[OPT_RERR, 14, 1, 0]);
    push_addr(v, link.from);
    push_addr(v, told);
    push_addr(v, link.to);
}

/// The options of a DSR control packet.
fn control_options(v: &mut Vec<u8>, p: &Packet, m: &DsrMsg) {
    match *m {
        DsrMsg::Rreq { target, id, last_error } => {
            let rec = p.sr.len().saturating_sub(1);
            v.extend_from_slice(&[OPT_RREQ, (6 + 4 * rec) as u8]);
            v.extend_from_slice(&(id as u16).to_be_bytes());
            push_addr(v, target);
            for i in 1..p.sr.len() {
                push_addr(v, p.sr.node(i));
            }
            if let Some(l) = last_error {
                route_error(v, l, target);
            }
        }
        DsrMsg::Rrep { route, .. } => {
            if p.sr.len() >= 2 {
                source_route(v, &p.sr);
            }
            let k = route.len().saturating_sub(1);
            v.extend_from_slice(&[OPT_RREP, (1 + 4 * k) as u8, 0]);
            for i in 1..route.len() {
                push_addr(v, route.node(i));
            }
        }
        DsrMsg::Rerr { link, elfn } => {
            if p.sr.len() >= 2 {
                source_route(v, &p.sr);
            }
            route_error(v, link, p.dst);
            if let Some(n) = elfn {
                v.extend_from_slice(&[OPT_ELFN, 16]);
                push_addr(v, n.src);
                push_addr(v, n.dst);
                v.extend_from_slice(&n.sport.to_be_bytes());
                v.extend_from_slice(&n.dport.to_be_bytes());
                v.extend_from_slice(&(n.seq as u32).to_be_bytes());
            }
        }
    }
}

/// Pads (or cuts) the options `v[from..]` to exactly `len` bytes.
fn pad_to(v: &mut Vec<u8>, from: usize, len: usize) {
    let have = v.len() - from;
    match len.saturating_sub(have) {
        0 => v.truncate(from + len),
        1 => v.push(OPT_PAD1),
        k => {
            v.extend_from_slice(&[OPT_PADN, (k - 2).min(255) as u8]);
            v.resize(from + len, 0);
        }
    }
}

/// The 20-byte IPv4 header of `p` with protocol `proto` and length `total`.
fn ip_header(p: &Packet, proto: u8, total: u16) -> [u8; 20] {
    let mut ip = [0u8; 20];
    ip[0] = 0x45;
    ip[1] = p.dscp << 2;
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    ip[4..6].copy_from_slice(&(p.uid as u16).to_be_bytes());
    ip[8] = p.ttl;
    ip[9] = proto;
    ip[12..16].copy_from_slice(&ip_addr(p.src));
    ip[16..20].copy_from_slice(&ip_addr(p.dst));
    let c = internet_checksum(&ip);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    ip
}

/// Encodes `p` as a DSR packet if it is one (a DSR control message, or a
/// packet carrying a source route) and returns the trailing zero count;
/// `None` for other packets. `inner` encodes the transport part of data.
pub fn encode(
    buf: &mut Vec<u8>,
    p: &Packet,
    board: Option<&WireBoard>,
    payload: &mut Vec<u8>,
    inner: Inner,
) -> Option<usize> {
    let ip_len = crate::net::packet::IP_HEADER_BYTES as usize;
    let total = (p.size as usize).clamp(ip_len, 65535);
    match &p.body {
        Body::Dsr(m) => {
            let mut dsr = vec![NO_NEXT_HEADER, 0, 0, 0];
            control_options(&mut dsr, p, m);
            let opts = total.saturating_sub(ip_len + 4);
            pad_to(&mut dsr, 4, opts);
            dsr[2..4].copy_from_slice(&(opts as u16).to_be_bytes());
            buf.extend_from_slice(&ip_header(p, IPPROTO_DSR, (ip_len + dsr.len()) as u16));
            buf.extend_from_slice(&dsr);
            Some(0)
        }
        _ if p.sr.len() >= 2 && !p.sr.flow && p.sr.header_bytes() as usize + ip_len <= total => {
            // A source-routed data packet: the transport packet as it would
            // be without DSR, behind a DSR header with the route.
            let mut plain = *p;
            plain.sr = SourceRoute::EMPTY;
            plain.size = (total - p.sr.header_bytes() as usize) as u32;
            let (proto, l4, zeros) = SCRATCH.with(|s| {
                let mut s = s.borrow_mut();
                s.clear();
                let zeros = inner(&mut s, &plain, board, payload);
                (s.get(9).copied().unwrap_or(0), s.get(ip_len..).map(<[u8]>::to_vec).unwrap_or_default(), zeros)
            });
            let mut dsr = vec![proto, 0, 0, 0];
            source_route(&mut dsr, &p.sr);
            let opts = p.sr.header_bytes() as usize - 4;
            pad_to(&mut dsr, 4, opts);
            dsr[2..4].copy_from_slice(&(opts as u16).to_be_bytes());
            buf.extend_from_slice(&ip_header(p, IPPROTO_DSR, (ip_len + dsr.len() + l4.len()) as u16));
            buf.extend_from_slice(&dsr);
            buf.extend_from_slice(&l4);
            Some(zeros)
        }
        _ => None,
    }
}
