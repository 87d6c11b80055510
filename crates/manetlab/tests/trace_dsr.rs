//! DSR in pcap (`metrics/trace_dsr.rs`): the bytes of each RFC 4728
//! option, decoded here field by field (Wireshark's view is checked in
//! `trace_routing.rs::tshark_decodes_dsr_options`).

use manetlab::metrics::trace_dsr::*;
use manetlab::metrics::trace_pcap::internet_checksum;
use manetlab::net::{Body, LinkFailureNotice, Packet};
use manetlab::wire::board::WireBoard;
use manetlab::wire::dsr::{DsrMsg, Link};
use manetlab::wire::source_route::SourceRoute;

fn pkt(body: Body, sr: &[u32], src: u32, dst: u32) -> Packet {
    let mut p = Packet::new(1, src, dst, 0, 0, body, manetlab::sim::Time::ZERO);
    p.sr = SourceRoute::from_path(sr).unwrap();
    if let Body::Dsr(m) = &p.body {
        p.size = manetlab::net::packet::IP_HEADER_BYTES + m.l4_bytes(&p.sr);
    }
    p
}

fn no_inner(_: &mut Vec<u8>, _: &Packet, _: Option<&WireBoard>, _: &mut Vec<u8>) -> usize {
    unreachable!("control packets have no transport")
}

/// Encodes and checks the IP header; returns the DSR header and options.
fn dsr_bytes(p: &Packet) -> Vec<u8> {
    let mut buf = Vec::new();
    assert_eq!(encode(&mut buf, p, None, &mut Vec::new(), no_inner), Some(0));
    assert_eq!(buf.len(), p.size as usize, "the simulated length is kept");
    assert_eq!(buf[9], IPPROTO_DSR);
    assert_eq!(u16::from_be_bytes([buf[2], buf[3]]) as usize, buf.len());
    assert_eq!(internet_checksum(&buf[..20]), 0, "valid IP header checksum");
    let d = buf[20..].to_vec();
    assert_eq!(u16::from_be_bytes([d[2], d[3]]) as usize, d.len() - 4, "DSR payload length");
    d
}

#[test]
fn route_request_with_record_target_and_piggybacked_error() {
    let m = DsrMsg::Rreq { target: 3, id: 0x1_0007, last_error: Some(Link { from: 5, to: 6 }) };
    let d = dsr_bytes(&pkt(Body::Dsr(m), &[0, 1], 0, manetlab::net::BROADCAST));
    assert_eq!(d[0], NO_NEXT_HEADER);
    // RREQ: type 1, length 6 + 4 (one recorded hop), id 7, target 10.0.0.4, node 1.
    assert_eq!(&d[4..16], &[1, 10, 0, 7, 10, 0, 0, 4, 10, 0, 0, 2]);
    // RERR: NODE_UNREACHABLE, 5 -> (told: the target) 3, unreachable 6.
    assert_eq!(&d[16..32], &[3, 14, 1, 0, 10, 0, 0, 6, 10, 0, 0, 4, 10, 0, 0, 7]);
    // ns-2 counts the initiator in the record: 4 bytes of PadN.
    assert_eq!(&d[32..], &[OPT_PADN, 2, 0, 0]);
}

#[test]
fn route_reply_and_error_travel_by_source_route() {
    let route = SourceRoute::from_path(&[0, 1, 2, 3]).unwrap();
    let mut p = pkt(Body::Dsr(DsrMsg::Rrep { route, from_cache: false }), &[3, 2, 1, 0], 3, 0);
    p.sr.cur = 1;
    let d = dsr_bytes(&p);
    // Source route 3 -> 2 -> 1 -> 0: intermediate nodes 2 and 1, two
    // segments left when sent to node 2 (index 1).
    assert_eq!(&d[4..16], &[OPT_SOURCE_ROUTE, 10, 0, 2, 10, 0, 0, 3, 10, 0, 0, 2]);
    // RREP: length 1 + 3 x 4, L = 0, the route without the initiator.
    assert_eq!(&d[16..31], &[2, 13, 0, 10, 0, 0, 2, 10, 0, 0, 3, 10, 0, 0, 4]);
    assert_eq!(d[31], OPT_PADN);
    let notice = LinkFailureNotice { src: 0, dst: 3, sport: 10000, dport: 10000, seq: 42 };
    let e = DsrMsg::Rerr { link: Link { from: 1, to: 2 }, elfn: Some(notice) };
    let d = dsr_bytes(&pkt(Body::Dsr(e), &[1, 0], 1, 0));
    assert_eq!(&d[4..8], &[OPT_SOURCE_ROUTE, 2, 0, 1]);
    assert_eq!(&d[8..24], &[3, 14, 1, 0, 10, 0, 0, 2, 10, 0, 0, 1, 10, 0, 0, 3]);
    assert_eq!(&d[24..26], &[OPT_ELFN, 16]);
    assert_eq!(&d[38..42], &42u32.to_be_bytes());
}

#[test]
fn other_packets_are_not_dsr() {
    let p = Packet::new(1, 0, 1, 100, 0, Body::Udp { sport: 1, dport: 1, seq: 0 }, manetlab::sim::Time::ZERO);
    assert_eq!(encode(&mut Vec::new(), &p, None, &mut Vec::new(), no_inner), None);
}
