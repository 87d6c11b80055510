//! Variable-length routing messages (DSDV route dumps, OLSR HELLO and TC
//! lists) as real bytes, carried by reference.
//!
//! A [`Packet`](crate::wire::packet::Packet) is a small `Copy` value, so a message
//! whose length grows with the network cannot live in its body. Protocols
//! that send such messages encode them in their wire format (the RFC's, or
//! the documented one) and post the bytes on the run's [`WireBoard`]; the
//! packet carries a [`WireRef`] (who posted it, which of its messages, its
//! kind and length). A receiver decodes the bytes it finds under the
//! reference, so what a node learns is exactly what was on the air, and the
//! pcap writer copies the same bytes into the capture.
//!
//! Each node owns a ring of [`RING_SLOTS`] messages: posting reuses the
//! oldest slot (and its buffer, so nothing is allocated once the ring is
//! full). A packet that waits in queues while its sender posts
//! `RING_SLOTS` newer messages finds its slot reused: the receiver gets
//! `None` and treats the frame as lost (counted by the protocols as the
//! event `stale_messages`; none has been seen in the test scenarios).
//!
//! One board per run, shared by the nodes' protocol instances through an
//! `Arc<Mutex<..>>` (a run is single-threaded, so the lock is never
//! contended; it only makes the protocols `Send`).

use crate::sim::{NodeId, BROADCAST};
use std::sync::{Arc, Mutex};

/// Messages each node keeps addressable.
pub const RING_SLOTS: usize = 512;

/// A posted message: its poster, its number among the poster's messages,
/// a protocol-defined kind, and its length in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WireRef {
    pub owner: NodeId,
    pub no: u32,
    pub kind: u8,
    pub len: u16,
}

/// A routing protocol's control message whose bytes are on the board,
/// carried in UDP: the body of any protocol's messages
/// (`Body::Routing`), so a new protocol adds no `Body` variant. It names
/// what traces need without knowing the protocol: its ns-2 packet type
/// (`type_name`, e.g. "DSDV") and its UDP port (pcap).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RoutingMsg {
    /// The packet type in traces (ns-2 `packet_t` name: "DSDV", "OLSR").
    pub name: &'static str,
    /// The UDP port the message is sent to and from.
    pub port: u16,
    pub wire: WireRef,
}

#[derive(Default)]
struct Ring {
    slots: Vec<(u32, Vec<u8>)>,
    next: u32,
}

/// The run's message board (cheap to clone: a shared handle).
#[derive(Clone, Default)]
pub struct WireBoard(Arc<Mutex<Vec<Ring>>>);

impl std::fmt::Debug for WireBoard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WireBoard")
    }
}

impl WireBoard {
    pub fn new() -> WireBoard {
        WireBoard::default()
    }

    /// Posts a message written by `write` into a cleared buffer; returns
    /// its reference.
    pub fn post(&self, owner: NodeId, kind: u8, write: impl FnOnce(&mut Vec<u8>)) -> WireRef {
        let mut rings = self.0.lock().expect("wire board");
        let o = owner as usize;
        if rings.len() <= o {
            rings.resize_with(o + 1, Ring::default);
        }
        let ring = &mut rings[o];
        let no = ring.next;
        ring.next = ring.next.wrapping_add(1);
        let i = no as usize % RING_SLOTS;
        if ring.slots.len() <= i {
            ring.slots.push((no, Vec::new()));
        }
        let slot = &mut ring.slots[i];
        slot.0 = no;
        slot.1.clear();
        write(&mut slot.1);
        assert!(slot.1.len() <= u16::MAX as usize, "routing message over 64 kB");
        WireRef { owner, no, kind, len: slot.1.len() as u16 }
    }

    /// Runs `read` on the bytes of `r`; `None` if the slot was reused.
    pub fn read<T>(&self, r: WireRef, read: impl FnOnce(&[u8]) -> T) -> Option<T> {
        let rings = self.0.lock().expect("wire board");
        let slot = rings.get(r.owner as usize)?.slots.get(r.no as usize % RING_SLOTS)?;
        (slot.0 == r.no).then(|| read(&slot.1))
    }
}

/// The IPv4 address of a node on the wire: 10.0.0.0 + n + 1 (the pcap
/// writer's addressing, `metrics/trace_pcap.rs`).
pub fn ipv4(n: NodeId) -> [u8; 4] {
    if n == BROADCAST {
        return [255; 4];
    }
    0x0a00_0000u32.wrapping_add(n).wrapping_add(1).to_be_bytes()
}

/// The node of an IPv4 address written by [`ipv4`].
pub fn node_of(ip: [u8; 4]) -> NodeId {
    if ip == [255; 4] {
        return BROADCAST;
    }
    u32::from_be_bytes(ip).wrapping_sub(0x0a00_0001)
}

/// Big-endian readers over a message.
pub fn be_u16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
pub fn be_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
pub fn addr_at(b: &[u8], at: usize) -> NodeId {
    node_of([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn post_read_and_reuse() {
        let b = WireBoard::new();
        let r0 = b.post(3, 1, |v| v.extend_from_slice(&[1, 2, 3]));
        assert_eq!((r0.owner, r0.no, r0.kind, r0.len), (3, 0, 1, 3));
        assert_eq!(b.read(r0, |x| x.to_vec()), Some(vec![1, 2, 3]));
        let mut last = r0;
        for i in 0..RING_SLOTS as u32 {
            last = b.post(3, 0, |v| v.push(i as u8));
        }
        assert_eq!(b.read(r0, |x| x.len()), None, "slot reused: the old message is gone");
        assert_eq!(b.read(last, |x| x[0]), Some((RING_SLOTS - 1) as u8));
        assert_eq!(b.read(WireRef { owner: 9, no: 0, kind: 0, len: 0 }, |x| x.len()), None);
    }

    #[test]
    fn addresses_round_trip() {
        for n in [0u32, 1, 254, 255, 1000] {
            assert_eq!(node_of(ipv4(n)), n);
        }
        assert_eq!(ipv4(0), [10, 0, 0, 1]);
        assert_eq!(node_of(ipv4(BROADCAST)), BROADCAST);
    }
}
