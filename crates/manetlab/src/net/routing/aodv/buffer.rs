//! Packets waiting for a route (RFC 3561 §6.3: "data packets waiting for a
//! route ... should be buffered"). FIFO with a packet limit and a timeout,
//! both from ns-2's AODV (64 packets, 30 s). When full, the oldest packet
//! makes room; expired packets and packets whose route discovery failed are
//! dropped by the protocol with reason NRTE.

use crate::net::Packet;
use crate::sim::Time;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct SendBuffer {
    /// (packet, drop deadline), oldest first; deadlines are in order.
    q: VecDeque<(Packet, Time)>,
    limit: usize,
    timeout: Time,
}

impl SendBuffer {
    /// Allocates nothing: the room for `limit.min(64)` packets is reserved
    /// at the first packet buffered. Most nodes never buffer (only sources
    /// wait for a route), and reserving ~10 KB for every node up front
    /// spread the nodes' routing state over twice the memory at 2,000 nodes
    /// (docs/performance.md, "fourth sitting").
    pub fn new(limit: usize, timeout: Time) -> SendBuffer {
        SendBuffer { q: VecDeque::new(), limit, timeout }
    }

    /// Buffers `pkt`. Returns the packet that had to go to make room (the
    /// oldest, or `pkt` itself if the limit is zero).
    pub fn push(&mut self, pkt: Packet, now: Time) -> Option<Packet> {
        if self.limit == 0 {
            return Some(pkt);
        }
        if self.q.capacity() == 0 {
            self.q.reserve_exact(self.limit.min(64));
        }
        let evicted = if self.q.len() >= self.limit { self.q.pop_front().map(|(p, _)| p) } else { None };
        self.q.push_back((pkt, now + self.timeout));
        evicted
    }

    /// Moves the packets `take` selects to `out`, in arrival order.
    pub fn take_if(&mut self, mut take: impl FnMut(&Packet) -> bool, out: &mut Vec<Packet>) {
        if !self.q.iter().any(|(p, _)| take(p)) {
            return;
        }
        // One turn of the ring in place (the survivors keep their order):
        // no new buffer per call.
        for _ in 0..self.q.len() {
            let (p, d) = self.q.pop_front().unwrap();
            if take(&p) {
                out.push(p);
            } else {
                self.q.push_back((p, d));
            }
        }
    }

    /// Moves the packets whose deadline has passed to `out`.
    pub fn expire(&mut self, now: Time, out: &mut Vec<Packet>) {
        while let Some(&(p, d)) = self.q.front() {
            if d > now {
                break;
            }
            self.q.pop_front();
            out.push(p);
        }
    }

    /// When the oldest packet times out.
    pub fn next_deadline(&self) -> Option<Time> {
        self.q.front().map(|&(_, d)| d)
    }
    pub fn has_packet_for(&self, dst: u32) -> bool {
        self.q.iter().any(|(p, _)| p.dst == dst)
    }
    pub fn len(&self) -> usize {
        self.q.len()
    }
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = &Packet> {
        self.q.iter().map(|(p, _)| p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Body;

    fn pkt(uid: u64, dst: u32) -> Packet {
        Packet {
            uid,
            src: 0,
            dst,
            ttl: 64,
            dscp: 0,
            size: 100,
            next_hop: dst,
            prev_hop: 0,
            created: Time::ZERO,
            flow: 0,
            body: Body::Udp { sport: 1, dport: 1, seq: uid },
            sr: Default::default(),
        }
    }

    #[test]
    fn limit_evicts_oldest() {
        let mut b = SendBuffer::new(3, Time::from_secs(30));
        for i in 0..3 {
            assert!(b.push(pkt(i, 5), Time::ZERO).is_none());
        }
        assert_eq!(b.push(pkt(3, 5), Time::ZERO).map(|p| p.uid), Some(0), "full: the oldest goes");
        let uids: Vec<u64> = b.iter().map(|p| p.uid).collect();
        assert_eq!(uids, vec![1, 2, 3]);
        let mut z = SendBuffer::new(0, Time::from_secs(30));
        assert_eq!(z.push(pkt(9, 5), Time::ZERO).map(|p| p.uid), Some(9), "limit 0 buffers nothing");
    }

    #[test]
    fn timeout_and_selection() {
        let mut b = SendBuffer::new(64, Time::from_secs(30));
        b.push(pkt(0, 5), Time::from_secs(1));
        b.push(pkt(1, 6), Time::from_secs(2));
        b.push(pkt(2, 5), Time::from_secs(3));
        assert_eq!(b.next_deadline(), Some(Time::from_secs(31)));
        let mut out = Vec::new();
        b.expire(Time::from_secs(31) - Time::from_ns(1), &mut out);
        assert!(out.is_empty());
        b.expire(Time::from_secs(32), &mut out);
        assert_eq!(out.iter().map(|p| p.uid).collect::<Vec<_>>(), vec![0, 1]);
        assert!(b.has_packet_for(5) && !b.has_packet_for(6));
        out.clear();
        b.push(pkt(3, 6), Time::from_secs(4));
        b.take_if(|p| p.dst == 5, &mut out);
        assert_eq!(out.iter().map(|p| p.uid).collect::<Vec<_>>(), vec![2]);
        assert_eq!(b.len(), 1);
    }

    #[test]
    fn room_is_reserved_at_the_first_packet_and_kept() {
        let mut b = SendBuffer::new(64, Time::from_secs(30));
        assert_eq!(b.q.capacity(), 0, "a node that never buffers holds no room");
        b.push(pkt(0, 5), Time::ZERO);
        let room = b.q.capacity();
        assert!(room >= 64);
        for i in 1..10 {
            b.push(pkt(i, if i % 3 == 0 { 5 } else { 6 }), Time::from_secs(i));
        }
        let mut out = Vec::new();
        b.take_if(|p| p.dst == 5, &mut out);
        assert_eq!(out.iter().map(|p| p.uid).collect::<Vec<_>>(), vec![0, 3, 6, 9]);
        assert_eq!(b.iter().map(|p| p.uid).collect::<Vec<_>>(), vec![1, 2, 4, 5, 7, 8]);
        assert_eq!(b.next_deadline(), Some(Time::from_secs(31)), "survivors keep their order and deadlines");
        assert_eq!(b.q.capacity(), room, "selection happens in place");
    }
}
