//! The bytes of routing messages in pcap captures: what follows the UDP
//! header of an AODV, DSDV or OLSR packet.
//!
//! - AODV (UDP 654): the RFC 3561 §5 messages. RREQ (type 1: flags J R G D
//!   U, hop count, RREQ ID, destination and originator addresses and
//!   sequence numbers), RREP (type 2, also the HELLO of §6.9: hop count 0,
//!   destination = originator = the sender), RERR (type 3: N flag,
//!   destination count, (address, sequence number) pairs). A RERR carrying
//!   an ELFN notice has one destination and the notice as an extension
//!   (type 200, length 18: source and destination addresses, ports, the
//!   32-bit TCP sequence number). RREP-ACK is never sent by the model.
//! - Messages on the run's board (`Body::Routing`: DSDV on UDP 269, OLSR
//!   on UDP 698, any protocol on its own port): the bytes the protocol
//!   posted (`wire/board.rs`), i.e. exactly what the receivers decoded:
//!   DSDV 12-byte (address, hop count, sequence number) entries, OLSR the
//!   RFC 3626 packet.
//!
//! Addresses are the capture's (`10.0.0.0 + node + 1`).

use crate::net::Body;
use crate::wire::aodv::AodvMsg;
use crate::wire::board::{ipv4, WireBoard};

pub const AODV_PORT: u16 = 654;
/// The extension type used for an ELFN notice on a RERR (RFC 3561 §5.x
/// leaves extension types open; 200 is unassigned).
pub const ELFN_EXTENSION_TYPE: u8 = 200;

/// Appends the payload of a routing message to `out` and returns its UDP
/// port; `None` for other bodies. A board message (`Body::Routing`: DSDV,
/// OLSR, any protocol) whose bytes are no longer on the board (or without a
/// board) leaves `out` empty.
pub fn routing_payload(body: &Body, board: Option<&WireBoard>, out: &mut Vec<u8>) -> Option<u16> {
    match body {
        Body::Aodv(m) => {
            aodv(m, out);
            Some(AODV_PORT)
        }
        Body::Routing(m) => {
            if let Some(b) = board {
                b.read(m.wire, |bytes| out.extend_from_slice(bytes));
            }
            Some(m.port)
        }
        _ => None,
    }
}

fn aodv(m: &AodvMsg, v: &mut Vec<u8>) {
    match m {
        AodvMsg::Rreq(q) => {
            let flags = (q.gratuitous as u8) << 5 | (q.dest_only as u8) << 4 | (q.unknown_seq as u8) << 3;
            v.extend_from_slice(&[1, flags, 0, q.hop_count]);
            v.extend_from_slice(&q.id.to_be_bytes());
            v.extend_from_slice(&ipv4(q.dst));
            v.extend_from_slice(&q.dst_seq.to_be_bytes());
            v.extend_from_slice(&ipv4(q.orig));
            v.extend_from_slice(&q.orig_seq.to_be_bytes());
        }
        AodvMsg::Rrep(r) => {
            v.extend_from_slice(&[2, 0, 0, r.hop_count]);
            v.extend_from_slice(&ipv4(r.dst));
            v.extend_from_slice(&r.dst_seq.to_be_bytes());
            v.extend_from_slice(&ipv4(r.orig));
            v.extend_from_slice(&r.lifetime_ms.to_be_bytes());
        }
        AodvMsg::Rerr(e) => {
            v.extend_from_slice(&[3, (e.no_delete as u8) << 7, 0, e.count]);
            for &(d, s) in e.dests() {
                v.extend_from_slice(&ipv4(d));
                v.extend_from_slice(&s.to_be_bytes());
            }
        }
        AodvMsg::RerrElfn(e) => {
            v.extend_from_slice(&[3, (e.no_delete as u8) << 7, 0, 1]);
            v.extend_from_slice(&ipv4(e.dst));
            v.extend_from_slice(&e.seq.to_be_bytes());
            let n = &e.notice;
            v.extend_from_slice(&[ELFN_EXTENSION_TYPE, 18]);
            v.extend_from_slice(&ipv4(n.src));
            v.extend_from_slice(&ipv4(n.dst));
            v.extend_from_slice(&n.sport.to_be_bytes());
            v.extend_from_slice(&n.dport.to_be_bytes());
            v.extend_from_slice(&(n.seq as u32).to_be_bytes());
            v.extend_from_slice(&[0, 0]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::aodv::{Rerr, Rrep, Rreq};

    #[test]
    fn aodv_messages_have_their_rfc_sizes_and_fields() {
        let q = AodvMsg::Rreq(Rreq {
            gratuitous: false,
            dest_only: true,
            unknown_seq: true,
            hop_count: 2,
            id: 7,
            dst: 4,
            dst_seq: 0,
            orig: 0,
            orig_seq: 3,
        });
        let mut v = Vec::new();
        assert_eq!(routing_payload(&Body::Aodv(q), None, &mut v), Some(654));
        assert_eq!(v.len() as u32, q.wire_bytes());
        assert_eq!(&v[..4], &[1, 0x18, 0, 2]);
        assert_eq!(&v[8..12], &[10, 0, 0, 5], "destination node 4");
        let r = AodvMsg::Rrep(Rrep { hop_count: 1, dst: 4, dst_seq: 9, orig: 0, lifetime_ms: 6000 });
        v.clear();
        routing_payload(&Body::Aodv(r), None, &mut v);
        assert_eq!(v.len() as u32, r.wire_bytes());
        assert_eq!(&v[16..20], &6000u32.to_be_bytes());
        let mut e = Rerr::new(true);
        e.push(4, 10);
        e.push(5, 12);
        let e = AodvMsg::Rerr(e);
        v.clear();
        routing_payload(&Body::Aodv(e), None, &mut v);
        assert_eq!(v.len() as u32, e.wire_bytes());
        assert_eq!(&v[..4], &[3, 0x80, 0, 2]);
        let ex = AodvMsg::RerrElfn(crate::wire::aodv::RerrElfn {
            no_delete: false,
            dst: 4,
            seq: 2,
            notice: crate::net::LinkFailureNotice { src: 0, dst: 4, sport: 1, dport: 1, seq: 0 },
        });
        v.clear();
        routing_payload(&Body::Aodv(ex), None, &mut v);
        assert_eq!(v.len() as u32, ex.wire_bytes());
    }

    #[test]
    fn any_protocols_board_message_is_traced_with_its_own_name_and_port() {
        // A protocol the tracers have never heard of: its message needs no
        // `Body` variant, its trace name and UDP port travel with it.
        use crate::wire::board::{RoutingMsg, WireBoard};
        let board = WireBoard::new();
        let wire = board.post(3, 7, |v| v.extend_from_slice(b"hello, world"));
        let mut uids = crate::sim::FateTable::default();
        let mut out = Vec::new();
        let mut rng = crate::sim::RngStream::new(1, 3, crate::sim::Purpose::Routing, 0);
        let mut ctx = crate::net::routing::RouteCtx {
            now: crate::sim::Time::ZERO,
            node: 3,
            out: &mut out,
            rng: &mut rng,
            uids: &mut uids,
        };
        let p = ctx.board_packet(crate::net::BROADCAST, "FOO", 4242, wire);
        assert_eq!(p.body, Body::Routing(RoutingMsg { name: "FOO", port: 4242, wire }));
        assert_eq!(p.type_name(), "FOO");
        assert_eq!(p.size, 20 + 8 + 12, "IP + UDP + the posted bytes");
        assert!(p.is_control() && p.ports().is_none());
        let mut v = Vec::new();
        assert_eq!(routing_payload(&p.body, Some(&board), &mut v), Some(4242));
        assert_eq!(v, b"hello, world");
    }
}
