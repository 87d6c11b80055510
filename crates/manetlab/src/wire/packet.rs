//! The packet: an IP-like header plus a typed body.
//!
//! A packet is a plain `Copy` value with no heap data, so queues and frames
//! hold packets by value and nothing is allocated per hop. Sizes are carried
//! as numbers (what would be on the wire), not as bytes.

use crate::sim::Time;

pub use crate::sim::{NodeId, BROADCAST, FLOW_NONE};

pub const IP_HEADER_BYTES: u32 = 20;
/// DSCP Expedited Forwarding (RFC 3246), carried by VoIP packets.
pub const DSCP_EF: u8 = 46;
pub const UDP_HEADER_BYTES: u32 = 8;
pub const TCP_HEADER_BYTES: u32 = 20;

/// A TCP segment header (byte sequence numbers, no wrap-around).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpSeg {
    pub sport: u16,
    pub dport: u16,
    /// First payload byte carried (data segments).
    pub seq: u64,
    /// Next byte expected (cumulative ACK), valid when `flags & ACK`.
    pub ack: u64,
    /// Payload bytes carried.
    pub len: u32,
    pub flags: u8,
    /// Advertised receive window, bytes.
    pub wnd: u32,
    /// Timestamp option: sender's clock, and the echoed one (RFC 7323 style).
    pub ts: Time,
    pub ts_echo: Time,
    /// The sender wants Explicit Link Failure Notices for this segment
    /// (`wire/elfn.rs`). Stands for an option agreed when the connection
    /// was set up; carries no bytes.
    pub elfn: bool,
}

impl TcpSeg {
    pub const SYN: u8 = 0x02;
    pub const ACK: u8 = 0x10;
    pub const FIN: u8 = 0x01;
}

/// What the IP payload is.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Body {
    /// UDP datagram of an application flow; `seq` numbers the flow's packets.
    Udp {
        sport: u16,
        dport: u16,
        seq: u64,
    },
    Tcp(TcpSeg),
    /// ARP request or reply (not IP: `size` is the ARP body only).
    Arp {
        op: super::arp::ArpOp,
        sender: NodeId,
        target: NodeId,
    },
    /// An AODV control message (RFC 3561), carried in UDP.
    Aodv(super::aodv::AodvMsg),
    /// A DSR control message (RFC 4728); its DSR header is `Packet::sr`.
    Dsr(super::dsr::DsrMsg),
    /// A TFRC data or feedback packet (RFC 5348), carried in UDP.
    Tfrc(super::tfrc::TfrcMsg),
    /// Any routing protocol's control message whose bytes are on the run's
    /// board (`wire/board.rs`; DSDV updates, OLSR packets), with its trace
    /// name and UDP port.
    Routing(super::board::RoutingMsg),
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Packet {
    /// Unique per packet created in the run; kept across hops (as ns-2).
    pub uid: u64,
    pub src: NodeId,
    pub dst: NodeId,
    pub ttl: u8,
    /// DSCP / traffic class byte.
    pub dscp: u8,
    /// IP datagram size in bytes, IP header included.
    pub size: u32,
    /// Chosen by routing: the neighbour the MAC sends this packet to.
    pub next_hop: NodeId,
    /// The neighbour this packet was last received from.
    pub prev_hop: NodeId,
    /// When the application created it (one-way delay is measured from here).
    pub created: Time,
    pub flow: u32,
    pub body: Body,
    /// DSR source route (RFC 4728 §6.7), empty unless DSR routes the packet;
    /// its bytes are counted in `size` while it is set.
    pub sr: super::source_route::SourceRoute,
}

impl Packet {
    pub const DEFAULT_TTL: u8 = 64;

    /// A new IP packet from `src` created at `now`; `l4_bytes` is what sits
    /// above IP (the IP header is added). The next hop is left to routing.
    pub fn new(uid: u64, src: NodeId, dst: NodeId, l4_bytes: u32, flow: u32, body: Body, now: Time) -> Packet {
        Packet {
            uid,
            src,
            dst,
            ttl: Self::DEFAULT_TTL,
            dscp: 0,
            size: IP_HEADER_BYTES + l4_bytes,
            next_hop: dst,
            prev_hop: src,
            created: now,
            flow,
            body,
            sr: Default::default(),
        }
    }

    /// Source and destination ports of a transport payload (UDP, TCP,
    /// TFRC); `None` for routing and ARP messages. The one place ports are
    /// read: the kernel demultiplexes local delivery with it.
    pub fn ports(&self) -> Option<(u16, u16)> {
        match self.body {
            Body::Udp { sport, dport, .. } => Some((sport, dport)),
            Body::Tcp(s) => Some((s.sport, s.dport)),
            Body::Tfrc(m) => Some((m.sport, m.dport)),
            Body::Arp { .. } | Body::Aodv(_) | Body::Dsr(_) | Body::Routing(_) => None,
        }
    }
    /// The destination port (see [`Packet::ports`]).
    pub fn dport(&self) -> Option<u16> {
        self.ports().map(|p| p.1)
    }

    pub fn is_control(&self) -> bool {
        self.flow == FLOW_NONE
    }
    /// Short name of the packet type, as in ns-2 traces.
    pub fn type_name(&self) -> &'static str {
        match self.body {
            Body::Udp { .. } => "cbr",
            Body::Tfrc(m) => match m.kind {
                super::tfrc::TfrcKind::Data { .. } => "tfrc",
                super::tfrc::TfrcKind::Feedback { .. } => "tfrc_fb",
            },
            Body::Tcp(s) if s.len == 0 => "ack",
            Body::Tcp(_) => "tcp",
            Body::Arp { .. } => "ARP",
            Body::Aodv(_) => "AODV",
            Body::Dsr(_) => "DSR",
            Body::Routing(m) => m.name,
        }
    }
}
