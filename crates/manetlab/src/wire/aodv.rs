//! AODV control messages (RFC 3561 §5) as plain `Copy` values.
//!
//! Each message knows its size on the wire. AODV runs over UDP (port 654),
//! so a message's `l4_bytes` is the 8-byte UDP header plus the AODV message;
//! the IP header is added by `RouteCtx::new_packet`.
//!
//! | message | AODV bytes | IP datagram |
//! |---|---|---|
//! | RREQ (§5.1) | 24 | 52 |
//! | RREP (§5.2), HELLO (§6.9, a RREP) | 20 | 48 |
//! | RERR (§5.3) with N destinations | 4 + 8N | 32 + 8N |
//! | RERR with one destination and the ELFN extension | 4 + 8 + 20 | 60 |
//!
//! RREP-ACK (§5.4) is not modelled: the simulator's links are symmetric, so
//! the 'A' flag and the blacklist of unidirectional links are never needed.

use super::elfn::ELFN_BYTES;
use super::packet::UDP_HEADER_BYTES;
use super::{LinkFailureNotice, NodeId};

/// Most unreachable destinations one RERR carries here; longer lists are
/// split into several messages (keeps `Packet` small and `Copy`).
pub const RERR_MAX_DESTS: usize = 8;

pub const RREQ_BYTES: u32 = 24;
pub const RREP_BYTES: u32 = 20;
pub const RERR_HEADER_BYTES: u32 = 4;
pub const RERR_DEST_BYTES: u32 = 8;

/// Route Request (§5.1). `hop_count` is the number of hops from the
/// originator to the node handling the request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rreq {
    /// 'G': a gratuitous RREP should be unicast to the destination.
    pub gratuitous: bool,
    /// 'D': only the destination may respond.
    pub dest_only: bool,
    /// 'U': the destination sequence number is unknown.
    pub unknown_seq: bool,
    pub hop_count: u8,
    pub id: u32,
    pub dst: NodeId,
    pub dst_seq: u32,
    pub orig: NodeId,
    pub orig_seq: u32,
}

/// Route Reply (§5.2). `dst` is the node the route leads to, `orig` the node
/// that asked for it (the RREP travels towards `orig`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rrep {
    pub hop_count: u8,
    pub dst: NodeId,
    pub dst_seq: u32,
    pub orig: NodeId,
    /// Milliseconds for which the route is valid (from receipt).
    pub lifetime_ms: u32,
}

/// Route Error (§5.3): destinations that became unreachable, with their
/// (incremented) sequence numbers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rerr {
    /// 'N': a local repair is under way, upstream nodes must not delete the route.
    pub no_delete: bool,
    pub count: u8,
    pub dests: [(NodeId, u32); RERR_MAX_DESTS],
}

impl Rerr {
    pub fn new(no_delete: bool) -> Rerr {
        Rerr { no_delete, count: 0, dests: [(0, 0); RERR_MAX_DESTS] }
    }
    /// Appends a destination; false if the message is full.
    pub fn push(&mut self, dst: NodeId, seq: u32) -> bool {
        if self.count as usize >= RERR_MAX_DESTS {
            return false;
        }
        self.dests[self.count as usize] = (dst, seq);
        self.count += 1;
        true
    }
    pub fn dests(&self) -> &[(NodeId, u32)] {
        &self.dests[..self.count as usize]
    }
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// A RERR for one unreachable destination that carries an Explicit Link
/// Failure Notice as a message extension (RFC 3561 §5 allows extensions;
/// tcp-manet-elfn.txt §6 piggybacks the notice on the route error). It is
/// processed as a RERR for `dst` and relayed along the precursors until it
/// reaches `notice.src`, whose routing layer hands the notice to TCP.
/// A separate variant keeps [`Rerr`] (and so `Packet`) small.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RerrElfn {
    pub no_delete: bool,
    pub dst: NodeId,
    pub seq: u32,
    pub notice: LinkFailureNotice,
}

/// An AODV message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AodvMsg {
    Rreq(Rreq),
    Rrep(Rrep),
    Rerr(Rerr),
    RerrElfn(RerrElfn),
}

/// Message kinds as counted in reports.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MsgKind {
    Rreq,
    Rrep,
    Rerr,
    Hello,
}

impl MsgKind {
    pub fn name(self) -> &'static str {
        match self {
            MsgKind::Rreq => "RREQ",
            MsgKind::Rrep => "RREP",
            MsgKind::Rerr => "RERR",
            MsgKind::Hello => "HELLO",
        }
    }
}

impl AodvMsg {
    /// A HELLO (§6.9) is a RREP advertising its own sender with hop count 0;
    /// `orig` is set to the sender as well, so the message says what it is.
    pub fn hello(me: NodeId, seq: u32, lifetime_ms: u32) -> AodvMsg {
        AodvMsg::Rrep(Rrep { hop_count: 0, dst: me, dst_seq: seq, orig: me, lifetime_ms })
    }
    pub fn kind(&self) -> MsgKind {
        match self {
            AodvMsg::Rreq(_) => MsgKind::Rreq,
            AodvMsg::Rrep(r) if r.hop_count == 0 && r.dst == r.orig => MsgKind::Hello,
            AodvMsg::Rrep(_) => MsgKind::Rrep,
            AodvMsg::Rerr(_) | AodvMsg::RerrElfn(_) => MsgKind::Rerr,
        }
    }
    /// The AODV message size in bytes, as on the wire (§5).
    pub fn wire_bytes(&self) -> u32 {
        match self {
            AodvMsg::Rreq(_) => RREQ_BYTES,
            AodvMsg::Rrep(_) => RREP_BYTES,
            AodvMsg::Rerr(e) => RERR_HEADER_BYTES + RERR_DEST_BYTES * e.count as u32,
            AodvMsg::RerrElfn(_) => RERR_HEADER_BYTES + RERR_DEST_BYTES + ELFN_BYTES,
        }
    }
    /// UDP header plus message: what goes above IP.
    pub fn l4_bytes(&self) -> u32 {
        UDP_HEADER_BYTES + self.wire_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{Body, Packet, IP_HEADER_BYTES};

    #[test]
    fn sizes_as_on_the_wire() {
        let rreq = AodvMsg::Rreq(Rreq {
            gratuitous: false,
            dest_only: false,
            unknown_seq: true,
            hop_count: 0,
            id: 1,
            dst: 2,
            dst_seq: 0,
            orig: 0,
            orig_seq: 1,
        });
        assert_eq!(IP_HEADER_BYTES + rreq.l4_bytes(), 52);
        let rrep = AodvMsg::Rrep(Rrep { hop_count: 1, dst: 2, dst_seq: 3, orig: 0, lifetime_ms: 6000 });
        assert_eq!(IP_HEADER_BYTES + rrep.l4_bytes(), 48);
        assert_eq!(rrep.kind(), MsgKind::Rrep);
        assert_eq!(AodvMsg::hello(4, 7, 2000).kind(), MsgKind::Hello);
        let mut e = Rerr::new(false);
        for d in 0..RERR_MAX_DESTS as u32 {
            assert!(e.push(d, d + 1));
        }
        assert!(!e.push(99, 1), "a full RERR refuses more destinations");
        assert_eq!(AodvMsg::Rerr(e).wire_bytes(), 4 + 8 * 8);
        assert_eq!(e.dests()[3], (3, 4));
        let n = LinkFailureNotice { src: 0, dst: 4, sport: 1, dport: 1, seq: 0 };
        let ex = AodvMsg::RerrElfn(RerrElfn { no_delete: false, dst: 4, seq: 2, notice: n });
        assert_eq!(IP_HEADER_BYTES + ex.l4_bytes(), 60);
        assert_eq!(ex.kind(), MsgKind::Rerr);
    }

    #[test]
    fn packet_stays_small() {
        // A RERR with 8 destinations is the largest body; the packet must
        // stay a small Copy value (it is stored by value in queues and frames).
        println!("Body {} bytes, Packet {} bytes", std::mem::size_of::<Body>(), std::mem::size_of::<Packet>());
        assert!(std::mem::size_of::<Body>() <= 80, "Body is {} bytes", std::mem::size_of::<Body>());
        // 136 before DSR's 36-byte source route (`Packet::sr`).
        assert!(std::mem::size_of::<Packet>() <= 160, "Packet is {} bytes", std::mem::size_of::<Packet>());
    }
}
