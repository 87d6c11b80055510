//! ARP messages (RFC 826): request and reply.

/// ARP message size (Ethernet/IPv4 ARP body).
pub const ARP_BYTES: u32 = 28;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ArpOp {
    Request,
    Reply,
}
