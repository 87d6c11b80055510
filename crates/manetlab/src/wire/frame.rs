//! 802.11 frames as the simulator sees them: kind, addresses, duration/ID
//! (NAV), sequence number, size on the air and, for data, the packet.

use super::{NodeId, Packet};
use crate::sim::Time;

pub type MacAddr = NodeId;

/// RTS: FC 2 + duration 2 + RA 6 + TA 6 + FCS 4.
pub const RTS_BYTES: u32 = 20;
/// CTS and ACK: FC 2 + duration 2 + RA 6 + FCS 4.
pub const CTS_BYTES: u32 = 14;
pub const ACK_BYTES: u32 = 14;
/// Data MAC header (24) + FCS (4).
pub const DATA_HEADER_BYTES: u32 = 28;
/// LLC/SNAP encapsulation of the IP datagram.
pub const LLC_SNAP_BYTES: u32 = 8;
/// Everything a data frame adds to an IP datagram.
pub const DATA_OVERHEAD_BYTES: u32 = DATA_HEADER_BYTES + LLC_SNAP_BYTES;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FrameKind {
    Rts,
    Cts,
    Ack,
    Data,
}

impl FrameKind {
    pub fn name(self) -> &'static str {
        match self {
            FrameKind::Rts => "RTS",
            FrameKind::Cts => "CTS",
            FrameKind::Ack => "ACK",
            FrameKind::Data => "DATA",
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Frame {
    pub kind: FrameKind,
    /// Transmitter address.
    pub src: MacAddr,
    /// Receiver address (BROADCAST for broadcast data).
    pub dst: MacAddr,
    /// Duration/ID field: how long after this frame ends the medium stays
    /// reserved (third parties set their NAV from it).
    pub duration: Time,
    /// Sequence number (data frames, 12 bits), for duplicate detection
    /// (IEEE 802.11-2016 §9.2.4.4; fragmentation is not modelled, so the
    /// fragment number is always 0).
    pub seq: u16,
    /// Traffic identifier of a QoS data frame (the TID subfield of the QoS
    /// Control field, §9.2.4.5.2): set by an EDCA MAC from the frame's
    /// access category; `None` for non-QoS data and control frames. The
    /// 2-byte QoS Control field is not added to the frame's size (see
    /// docs/edca.md).
    pub tid: Option<u8>,
    /// Retry bit.
    pub retry: bool,
    /// Size on the air, MAC header and FCS included.
    pub bytes: u32,
    /// PHY rate, bit/s.
    pub rate: u64,
    /// The carried packet (data frames only).
    pub packet: Option<Packet>,
}

impl Frame {
    /// The Sequence Control field (§9.2.4.4): sequence number << 4 |
    /// fragment number (always 0 here).
    pub fn seq_ctl(&self) -> u16 {
        (self.seq & 0x0fff) << 4
    }

    pub fn data_bytes(pkt: &Packet) -> u32 {
        pkt.size + DATA_OVERHEAD_BYTES
    }
}
