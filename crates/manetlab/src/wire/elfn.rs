//! Explicit Link Failure Notification (tcp-manet-elfn.txt §6).
//!
//! When a node cannot forward a TCP data segment because the link to its
//! next hop broke, the routing protocol's route error carries a
//! [`LinkFailureNotice`] back to the segment's source: the pertinent fields
//! of the TCP/IP headers of the packet that instigated it (addresses, ports,
//! sequence number), like the payload of an ICMP "host unreachable". The
//! source's routing layer hands it to the transport endpoint bound to
//! `sport` (`NetAction::Notify`), whose TCP sender enters standby.
//!
//! Only segments whose sender asked for notices ([`TcpSeg::elfn`]) get one,
//! so runs without ELFN carry exactly the messages they always did.
//! Carriers: DSR's Route Error (`DsrMsg::Rerr::elfn`) and AODV's RERR with
//! the ELFN extension (`AodvMsg::RerrElfn`). See `docs/tcp.md`, "ELFN".

use super::{Body, NodeId, Packet, TcpSeg};

/// Bytes the notice adds to a route error on the wire: option type and
/// length (2), two IPv4 addresses (8), two ports (4), the 32-bit TCP
/// sequence number (4), padded to a multiple of 4.
pub const ELFN_BYTES: u32 = 20;

/// Which connection lost a segment, and which one.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LinkFailureNotice {
    /// Source (the node the notice is for) and destination of the segment.
    pub src: NodeId,
    pub dst: NodeId,
    pub sport: u16,
    pub dport: u16,
    /// First byte of the lost segment.
    pub seq: u64,
}

impl LinkFailureNotice {
    /// The notice for `pkt`, if it is a TCP data segment whose sender asked
    /// for notices.
    pub fn for_packet(pkt: &Packet) -> Option<LinkFailureNotice> {
        match pkt.body {
            Body::Tcp(TcpSeg { sport, dport, seq, len, elfn: true, .. }) if len > 0 && !pkt.is_control() => {
                Some(LinkFailureNotice { src: pkt.src, dst: pkt.dst, sport, dport, seq })
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Time;

    #[test]
    fn notice_only_for_data_segments_that_ask() {
        let seg = TcpSeg { sport: 7, dport: 9, seq: 2920, len: 1460, flags: TcpSeg::ACK, ..TcpSeg::default() };
        let mk = |s: TcpSeg| Packet::new(1, 3, 5, 20 + s.len, 0, Body::Tcp(s), Time::ZERO);
        assert_eq!(LinkFailureNotice::for_packet(&mk(seg)), None, "sender did not ask");
        let n = LinkFailureNotice::for_packet(&mk(TcpSeg { elfn: true, ..seg })).unwrap();
        assert_eq!(n, LinkFailureNotice { src: 3, dst: 5, sport: 7, dport: 9, seq: 2920 });
        let ack = TcpSeg { len: 0, elfn: true, ..seg };
        assert_eq!(LinkFailureNotice::for_packet(&mk(ack)), None, "pure ACKs get none");
    }
}
