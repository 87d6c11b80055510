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
    pub fn new(limit: usize, timeout: Time) -> SendBuffer {
        SendBuffer { q: VecDeque::with_capacity(limit.min(64)), limit, timeout }
    }

    /// Buffers `pkt`. Returns the packet that had to go to make room (the
    /// oldest, or `pkt` itself if the limit is zero).
    pub fn push(&mut self, pkt: Packet, now: Time) -> Option<Packet> {
        if self.limit == 0 {
            return Some(pkt);
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
        let mut keep = VecDeque::with_capacity(self.q.len());
        for (p, d) in self.q.drain(..) {
            if take(&p) {
                out.push(p);
            } else {
                keep.push_back((p, d));
            }
        }
        self.q = keep;
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
}
