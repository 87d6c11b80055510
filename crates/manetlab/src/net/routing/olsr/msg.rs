//! OLSR packet and message formats (RFC 3626 §3.3, §6.1, §9.1), encoded
//! as on the wire: one message per packet here (the RFC allows several).
//!
//! ```text
//! packet header:  length (16) | packet sequence number (16)
//! message header: type (8) | Vtime (8) | message size (16)
//!                 originator address (32)
//!                 TTL (8) | hop count (8) | message sequence number (16)
//! HELLO body:     reserved (16) | Htime (8) | willingness (8)
//!                 then per link code: code (8) | reserved (8) | size (16) | addresses
//! TC body:        ANSN (16) | reserved (16) | advertised neighbour addresses
//! HNA body:       (network address (32) | netmask (32)) per network (§12.1)
//! ```

use crate::net::NodeId;
use crate::sim::Time;
use crate::wire::board::{self as wire, addr_at, be_u16};

/// The OLSR UDP port (IANA, RFC 3626 §3.1).
pub const OLSR_PORT: u16 = 698;
pub const HELLO: u8 = 1;
pub const TC: u8 = 2;
pub const HNA: u8 = 4;
pub const PACKET_HEADER_BYTES: usize = 4;
pub const MESSAGE_HEADER_BYTES: usize = 12;

/// Link types (§6.1.1).
pub const UNSPEC_LINK: u8 = 0;
pub const ASYM_LINK: u8 = 1;
pub const SYM_LINK: u8 = 2;
pub const LOST_LINK: u8 = 3;
/// Neighbour types (§6.1.1).
pub const NOT_NEIGH: u8 = 0;
pub const SYM_NEIGH: u8 = 1;
pub const MPR_NEIGH: u8 = 2;

pub fn link_code(link: u8, neigh: u8) -> u8 {
    (neigh << 2) | link
}

/// The name of a message type in reports.
pub fn kind_name(kind: u8) -> &'static str {
    match kind {
        HELLO => "HELLO",
        TC => "TC",
        HNA => "HNA",
        _ => "OTHER",
    }
}

/// The scaling constant C of validity times, 1/16 s (§18.3).
const C_NS: u64 = 62_500_000;

/// A time as the mantissa/exponent byte of §18.3: value = C (1 + a/16) 2^b,
/// the smallest code not below `t` (so holding times never shrink).
pub fn encode_time(t: Time) -> u8 {
    for b in 0..16u64 {
        for a in 0..16u64 {
            let v = C_NS * (16 + a) * (1 << b) / 16;
            if v >= t.as_ns() {
                return ((a << 4) | b) as u8;
            }
        }
    }
    0xff
}

pub fn decode_time(code: u8) -> Time {
    let (a, b) = ((code >> 4) as u64, (code & 0x0f) as u64);
    Time::from_ns(C_NS * (16 + a) * (1 << b) / 16)
}

/// A message header.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub kind: u8,
    pub vtime: Time,
    pub orig: NodeId,
    pub ttl: u8,
    pub hops: u8,
    pub seq: u16,
}

/// Writes a packet holding one message; `body` writes the message body.
pub fn write_packet(v: &mut Vec<u8>, pkt_seq: u16, h: &Header, body: impl FnOnce(&mut Vec<u8>)) {
    v.extend_from_slice(&[0, 0]);
    v.extend_from_slice(&pkt_seq.to_be_bytes());
    v.push(h.kind);
    v.push(encode_time(h.vtime));
    v.extend_from_slice(&[0, 0]);
    v.extend_from_slice(&wire::ipv4(h.orig));
    v.push(h.ttl);
    v.push(h.hops);
    v.extend_from_slice(&h.seq.to_be_bytes());
    body(v);
    let len = v.len() as u16;
    v[0..2].copy_from_slice(&len.to_be_bytes());
    let msg = (v.len() - PACKET_HEADER_BYTES) as u16;
    v[6..8].copy_from_slice(&msg.to_be_bytes());
}

/// The header of the (first) message of a packet, and its body.
pub fn read_packet(b: &[u8]) -> Option<(Header, &[u8])> {
    if b.len() < PACKET_HEADER_BYTES + MESSAGE_HEADER_BYTES {
        return None;
    }
    let m = &b[PACKET_HEADER_BYTES..];
    let size = be_u16(m, 2) as usize;
    if size < MESSAGE_HEADER_BYTES || size > m.len() {
        return None;
    }
    let h =
        Header { kind: m[0], vtime: decode_time(m[1]), orig: addr_at(m, 4), ttl: m[8], hops: m[9], seq: be_u16(m, 10) };
    Some((h, &m[MESSAGE_HEADER_BYTES..size]))
}

/// Writes a HELLO body from (link code, neighbour) pairs sorted by code.
pub fn write_hello(v: &mut Vec<u8>, htime: Time, willingness: u8, links: &[(u8, NodeId)]) {
    v.extend_from_slice(&[0, 0, encode_time(htime), willingness]);
    let mut i = 0;
    while i < links.len() {
        let code = links[i].0;
        let start = v.len();
        v.extend_from_slice(&[code, 0, 0, 0]);
        while i < links.len() && links[i].0 == code {
            v.extend_from_slice(&wire::ipv4(links[i].1));
            i += 1;
        }
        let size = (v.len() - start) as u16;
        v[start + 2..start + 4].copy_from_slice(&size.to_be_bytes());
    }
}

/// Reads a HELLO body: (willingness, and (link code, neighbour) into `out`).
pub fn read_hello(b: &[u8], out: &mut Vec<(u8, NodeId)>) -> Option<u8> {
    if b.len() < 4 {
        return None;
    }
    let will = b[3];
    let mut at = 4;
    while at + 4 <= b.len() {
        let code = b[at];
        let size = be_u16(b, at + 2) as usize;
        if size < 4 || at + size > b.len() {
            return None;
        }
        let mut a = at + 4;
        while a + 4 <= at + size {
            out.push((code, addr_at(b, a)));
            a += 4;
        }
        at += size;
    }
    Some(will)
}

pub fn write_tc(v: &mut Vec<u8>, ansn: u16, advertised: &[NodeId]) {
    v.extend_from_slice(&ansn.to_be_bytes());
    v.extend_from_slice(&[0, 0]);
    for &n in advertised {
        v.extend_from_slice(&wire::ipv4(n));
    }
}

/// Reads a TC body: its ANSN, the advertised neighbours into `out`.
pub fn read_tc(b: &[u8], out: &mut Vec<NodeId>) -> Option<u16> {
    if b.len() < 4 {
        return None;
    }
    out.extend(b[4..].chunks_exact(4).map(|c| addr_at(c, 0)));
    Some(be_u16(b, 0))
}

/// Writes an HNA body: the (network, netmask) pairs, addresses as
/// host-order `u32` (§12.1).
pub fn write_hna(v: &mut Vec<u8>, nets: &[(u32, u32)]) {
    for &(net, mask) in nets {
        v.extend_from_slice(&net.to_be_bytes());
        v.extend_from_slice(&mask.to_be_bytes());
    }
}

/// Reads an HNA body into `out`; None when it is not whole pairs.
#[allow(clippy::manual_is_multiple_of)] // `is_multiple_of` needs Rust 1.87; the MSRV is 1.80
pub fn read_hna(b: &[u8], out: &mut Vec<(u32, u32)>) -> Option<()> {
    if b.len() % 8 != 0 {
        return None;
    }
    out.extend(
        b.chunks_exact(8)
            .map(|c| (u32::from_be_bytes([c[0], c[1], c[2], c[3]]), u32::from_be_bytes([c[4], c[5], c[6], c[7]]))),
    );
    Some(())
}

/// The fewest (network, netmask) pairs that cover exactly `hosts` (CIDR
/// blocks, aligned, largest first from the lowest address).
pub fn covering_prefixes(hosts: &[NodeId]) -> Vec<(u32, u32)> {
    let mut ips: Vec<u32> = hosts.iter().map(|&h| u32::from_be_bytes(wire::ipv4(h))).collect();
    ips.sort_unstable();
    ips.dedup();
    let mut out = Vec::new();
    let mut i = 0;
    while i < ips.len() {
        let a = ips[i];
        // Largest aligned block starting at `a` whose addresses all follow.
        let mut k = 0u32;
        while k < 32 {
            let size = 1u64 << (k + 1);
            #[allow(clippy::manual_is_multiple_of)] // MSRV 1.80
            let aligned = (a as u64) % size == 0;
            let end = i as u64 + size - 1;
            if !aligned || end >= ips.len() as u64 || ips[end as usize] as u64 != a as u64 + size - 1 {
                break;
            }
            k += 1;
        }
        let mask = if k == 32 { 0 } else { u32::MAX << k };
        out.push((a, mask));
        i += 1usize << k;
    }
    out
}

/// `a` is newer than `b` in 16-bit sequence space (§19).
pub fn seq_newer(a: u16, b: u16) -> bool {
    (a > b && a - b <= 32768) || (b > a && b - a > 32768)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validity_times_as_in_the_rfc() {
        // §18.3: 6 s (NEIGHB_HOLD_TIME) and 15 s (TOP_HOLD_TIME) round trip
        // to codes whose value is at least the time.
        for s in [2.0, 6.0, 15.0, 30.0, 0.0625] {
            let t = Time::from_secs_f64(s);
            let d = decode_time(encode_time(t));
            assert!(d >= t && d.as_secs_f64() <= s * 1.07, "{s} s -> {}", d.as_secs_f64());
        }
        assert_eq!(encode_time(Time::from_secs(6)), 0x86, "6 s = C (1 + 8/16) 2^6");
        assert_eq!(decode_time(0x86), Time::from_secs(6));
    }

    #[test]
    fn hello_and_tc_round_trip() {
        let h = Header { kind: HELLO, vtime: Time::from_secs(6), orig: 4, ttl: 1, hops: 0, seq: 77 };
        let links = [
            (link_code(SYM_LINK, MPR_NEIGH), 1),
            (link_code(SYM_LINK, SYM_NEIGH), 2),
            (link_code(SYM_LINK, SYM_NEIGH), 3),
        ];
        let mut v = Vec::new();
        write_packet(&mut v, 9, &h, |v| write_hello(v, Time::from_secs(2), 3, &links));
        // 4 + 12 + 4 + (4 + 4) + (4 + 8)
        assert_eq!(v.len(), 40);
        assert_eq!(be_u16(&v, 0), 40);
        let (h2, body) = read_packet(&v).unwrap();
        assert_eq!(h2, h);
        let mut out = Vec::new();
        assert_eq!(read_hello(body, &mut out), Some(3));
        assert_eq!(out, links.to_vec());
        let t = Header { kind: TC, vtime: Time::from_secs(15), orig: 7, ttl: 255, hops: 0, seq: 1 };
        let mut v = Vec::new();
        write_packet(&mut v, 1, &t, |v| write_tc(v, 5, &[1, 2]));
        let (t2, body) = read_packet(&v).unwrap();
        assert_eq!(t2.orig, 7);
        let mut adv = Vec::new();
        assert_eq!(read_tc(body, &mut adv), Some(5));
        assert_eq!(adv, vec![1, 2]);
        assert!(seq_newer(1, 65535) && seq_newer(5, 4) && !seq_newer(4, 5));
    }
}
