//! Fair queueing: one FIFO sub-queue per class, classes served in turn.
//!
//! A class is what `ClassKey` extracts from a packet (IP source, IP
//! destination, next hop, previous hop, or the transport 5-tuple). Classes
//! with packets wait in a ring. Serving is deficit round robin: a class
//! sends while its credit covers its head packet, and when it does not it
//! receives one quantum of credit and goes to the back of the ring. With
//! `quantum = None` every packet costs one credit and the quantum is one
//! packet: plain per-packet round robin. Routing control packets (and ARP)
//! bypass the classes in their own priority lane when `control_first` is on.
//!
//! Sub-queues are created the first time a class is seen and kept (empty)
//! afterwards, so the steady state allocates nothing.

use crate::sim::params::{ParamError, ParamErrorKind, Params};
use super::{ClassKey, QueueDisc};
use crate::wire::{Body, Packet};
use std::collections::VecDeque;

struct Class {
    key: u64,
    q: VecDeque<Packet>,
    /// Credit left in the current turn (bytes, or packets for round robin).
    credit: u64,
    /// In the ring of classes with packets.
    active: bool,
}

pub struct FairQueue {
    key: ClassKey,
    /// DRR quantum in bytes; `None` = per-packet round robin.
    quantum: Option<u32>,
    limit: usize,
    class_limit: usize,
    control_first: bool,
    control: VecDeque<Packet>,
    classes: Vec<Class>,
    /// Indices into `classes` of the classes holding packets, in turn order.
    ring: VecDeque<usize>,
    len: usize,
}

impl ClassKey {
    /// The class of a packet under this key.
    pub fn of(self, p: &Packet) -> u64 {
        match self {
            ClassKey::Src => p.src as u64,
            ClassKey::Dst => p.dst as u64,
            ClassKey::NextHop => p.next_hop as u64,
            ClassKey::PrevHop => p.prev_hop as u64,
            ClassKey::FiveTuple => {
                // Ports come from `Packet::ports` (TFRC rides on UDP).
                let (sport, dport) = p.ports().unwrap_or((0, 0));
                let proto = match p.body {
                    Body::Tcp(_) => 6u64,
                    Body::Udp { .. } | Body::Tfrc(_) => 17,
                    _ => 0,
                };
                // src and dst are node ids (< 2^24 in practice); ports fill
                // the rest. Collisions only merge classes, never lose packets.
                let a = ((p.src as u64) << 40) ^ ((p.dst as u64) << 16) ^ (proto << 8);
                a ^ ((sport as u64) << 32) ^ ((dport as u64) << 48) ^ dport as u64
            }
        }
    }
}

impl FairQueue {
    pub fn new(key: ClassKey, quantum: Option<u32>, limit: usize, class_limit: usize, control_first: bool) -> Self {
        FairQueue {
            key,
            quantum,
            limit,
            class_limit: class_limit.max(1),
            control_first,
            control: VecDeque::with_capacity(8),
            classes: Vec::with_capacity(16),
            ring: VecDeque::with_capacity(16),
            len: 0,
        }
    }

    fn cost(&self, p: &Packet) -> u64 {
        if self.quantum.is_some() {
            p.size as u64
        } else {
            1
        }
    }

    fn class_of(&mut self, key: u64) -> usize {
        match self.classes.iter().position(|c| c.key == key) {
            Some(i) => i,
            None => {
                self.classes.push(Class { key, q: VecDeque::with_capacity(8), credit: 0, active: false });
                self.classes.len() - 1
            }
        }
    }

    /// Number of classes ever seen (tests, reports).
    pub fn classes(&self) -> usize {
        self.classes.len()
    }
}

impl QueueDisc for FairQueue {
    fn enqueue(&mut self, pkt: Packet) -> Result<(), Packet> {
        let control = self.control_first && pkt.is_control();
        let c = if control { None } else { Some(self.class_of(self.key.of(&pkt))) };
        if let Some(c) = c {
            if self.classes[c].q.len() >= self.class_limit {
                return Err(pkt);
            }
        }
        // Fair queueing's buffer rule (Demers, Keshav and Shenker 1989; DRR):
        // when the shared buffer is full, the class holding the most packets
        // loses its last one, so a heavy class cannot lock the others (or
        // routing control) out of the buffer. The arrival is refused only
        // when its own class is (one of) the longest.
        let mut victim = None;
        if self.len >= self.limit {
            let mine = c.map_or(0, |c| self.classes[c].q.len());
            let longest = (0..self.classes.len()).max_by_key(|&i| self.classes[i].q.len());
            match longest {
                Some(l) if self.classes[l].q.len() > mine => {
                    let class = &mut self.classes[l];
                    victim = class.q.pop_back();
                    if class.q.is_empty() {
                        class.active = false;
                        class.credit = 0;
                        self.ring.retain(|&x| x != l);
                    }
                    self.len -= 1;
                }
                _ => return Err(pkt),
            }
        }
        match c {
            None => self.control.push_back(pkt),
            Some(c) => {
                let class = &mut self.classes[c];
                class.q.push_back(pkt);
                if !class.active {
                    class.active = true;
                    class.credit = 0;
                    self.ring.push_back(c);
                }
            }
        }
        self.len += 1;
        match victim {
            Some(v) => Err(v),
            None => Ok(()),
        }
    }

    fn dequeue(&mut self) -> Option<Packet> {
        self.dequeue_where(&mut |_| true)
    }

    fn dequeue_where(&mut self, eligible: &mut dyn FnMut(&Packet) -> bool) -> Option<Packet> {
        if let Some(i) = self.control.iter().position(&mut *eligible) {
            self.len -= 1;
            return self.control.remove(i);
        }
        if self.ring.is_empty() {
            return None;
        }
        let quantum = self.quantum.map_or(1, |q| q.max(1) as u64);
        // Each pass over the ring gives every class with an eligible packet
        // one quantum; a packet (at most 64 KiB) needs at most
        // size/quantum + 1 passes.
        let passes = if self.quantum.is_some() { u16::MAX as u64 / quantum + 2 } else { 2 };
        let mut visits = 0usize;
        let mut skipped = 0usize;
        let limit = self.ring.len() * (passes as usize + 1);
        while visits < limit && skipped < self.ring.len() {
            visits += 1;
            let c = self.ring[skipped];
            let Some(j) = self.classes[c].q.iter().position(&mut *eligible) else {
                // Blocked class: keeps its place and credit.
                skipped += 1;
                continue;
            };
            let cost = self.cost(&self.classes[c].q[j]);
            let class = &mut self.classes[c];
            if class.credit >= cost {
                class.credit -= cost;
                let p = class.q.remove(j);
                if class.q.is_empty() {
                    class.active = false;
                    class.credit = 0;
                    self.ring.remove(skipped);
                }
                self.len -= 1;
                return p;
            }
            class.credit += quantum;
            // End of this class's turn: to the back of the ring.
            let c = self.ring.remove(skipped).unwrap();
            self.ring.push_back(c);
        }
        None
    }

    fn len(&self) -> usize {
        self.len
    }

    fn drain_next_hop(&mut self, next_hop: u32, out: &mut Vec<Packet>) {
        let mut removed = super::drain_to(&mut self.control, next_hop, out);
        for (ci, class) in self.classes.iter_mut().enumerate() {
            removed += super::drain_to(&mut class.q, next_hop, out);
            if class.active && class.q.is_empty() {
                class.active = false;
                class.credit = 0;
                self.ring.retain(|&x| x != ci);
            }
        }
        self.len -= removed;
    }

    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.control.iter().for_each(&mut *f);
        for c in &self.classes {
            c.q.iter().for_each(&mut *f);
        }
    }
}

impl super::QueueModel for FairQueue {
    const NAMES: &'static [&'static str] = &["fair", "fq"];
    const KEYS: &'static [&'static str] = &["key", "quantum", "class_limit"];
    fn parse(p: &dyn Params) -> Result<super::QueueKind, ParamError> {
        let keys = ClassKey::ALL.map(|k| (k.name(), k));
        let key = p.choice("key", &keys)?.map_or(ClassKey::Src, |k| k.v);
        let at_least_1 = |k: &str, what: &str| -> Result<Option<u32>, ParamError> {
            match p.uint(k)? {
                Some(v) if v.v == 0 => Err(ParamError::new(
                    ParamErrorKind::OutOfRange,
                    v.at,
                    format!("'{}.{k}' must be at least 1 {what}", p.section()),
                )),
                v => Ok(v.map(|v| v.v)),
            }
        };
        let quantum = at_least_1("quantum", "byte")?;
        let class_limit = at_least_1("class_limit", "packet")?.map_or(usize::MAX, |v| v as usize);
        Ok(super::QueueKind::Fair { key, quantum, class_limit })
    }
    fn build(cfg: &super::QueueConfig, _env: &super::QueueEnv) -> Box<dyn super::QueueDisc> {
        let super::QueueKind::Fair { key, quantum, class_limit } = cfg.kind else {
            unreachable!("built for its own variant")
        };
        Box::new(FairQueue::new(key, quantum, cfg.limit, class_limit, cfg.control_first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Body, FLOW_NONE};
    use crate::sim::Time;

    fn pkt(uid: u64, src: u32, size: u32) -> Packet {
        let mut p = Packet::new(uid, src, 99, size - 20, 0, Body::Udp { sport: 1, dport: 1, seq: uid }, Time::ZERO);
        p.next_hop = 50 + src;
        p
    }

    fn drain(q: &mut FairQueue) -> Vec<u64> {
        std::iter::from_fn(|| q.dequeue().map(|p| p.uid)).collect()
    }

    #[test]
    fn round_robin_serves_classes_in_turn() {
        let mut q = FairQueue::new(ClassKey::Src, None, 100, 100, true);
        // Source 1 arrives with a burst of 4, then sources 2 and 3 with 2 each.
        for uid in 1..=4 {
            q.enqueue(pkt(uid, 1, 500)).unwrap();
        }
        for uid in 11..=12 {
            q.enqueue(pkt(uid, 2, 500)).unwrap();
        }
        for uid in 21..=22 {
            q.enqueue(pkt(uid, 3, 500)).unwrap();
        }
        assert_eq!(q.len(), 8);
        assert_eq!(drain(&mut q), vec![1, 11, 21, 2, 12, 22, 3, 4]);
        assert!(q.is_empty());
    }

    #[test]
    fn five_tuple_reads_tfrc_ports() {
        use crate::wire::tfrc::{TfrcKind, TfrcMsg};
        let tfrc = |sport, dport| {
            let mut p = pkt(1, 1, 100);
            let kind = TfrcKind::Data { seq: 0, ts: Time::ZERO, rtt: Time::ZERO };
            p.body = Body::Tfrc(TfrcMsg { sport, dport, kind });
            p
        };
        let k = ClassKey::FiveTuple;
        // Two TFRC flows between the same nodes are two classes, and TFRC
        // is classified as UDP with the same ports.
        assert_ne!(k.of(&tfrc(10_000, 10_000)), k.of(&tfrc(10_001, 10_001)));
        let mut udp = pkt(1, 1, 100);
        udp.body = Body::Udp { sport: 10_000, dport: 10_000, seq: 0 };
        assert_eq!(k.of(&tfrc(10_000, 10_000)), k.of(&udp));
    }

    #[test]
    fn every_key_separates_its_classes() {
        for key in [ClassKey::Src, ClassKey::Dst, ClassKey::NextHop, ClassKey::PrevHop, ClassKey::FiveTuple] {
            let mut q = FairQueue::new(key, None, 100, 100, true);
            let mut a = pkt(1, 1, 100);
            let mut b = pkt(2, 1, 100);
            a.body = Body::Udp { sport: 1, dport: 1, seq: 0 };
            b.body = Body::Udp { sport: 2, dport: 2, seq: 0 };
            match key {
                ClassKey::Src => b.src = 2,
                ClassKey::Dst => b.dst = 7,
                ClassKey::NextHop => b.next_hop = 8,
                ClassKey::PrevHop => b.prev_hop = 9,
                ClassKey::FiveTuple => {}
            }
            let mut a2 = a;
            a2.uid = 3;
            for p in [a, a2, b] {
                q.enqueue(p).unwrap();
            }
            assert_eq!(q.classes(), 2, "{key:?}");
            assert_eq!(drain(&mut q), vec![1, 2, 3], "{key:?}");
        }
    }

    #[test]
    fn drr_shares_bytes_not_packets() {
        // Class 1 sends 1500-byte packets, class 2 500-byte packets: with a
        // 1500-byte quantum class 2 sends three packets per packet of class 1.
        let mut q = FairQueue::new(ClassKey::Src, Some(1500), 100, 100, true);
        for uid in 1..=3 {
            q.enqueue(pkt(uid, 1, 1500)).unwrap();
        }
        for uid in 11..=19 {
            q.enqueue(pkt(uid, 2, 500)).unwrap();
        }
        let mut bytes = [0u64; 2];
        for _ in 0..8 {
            let p = q.dequeue().unwrap();
            bytes[(p.src - 1) as usize] += p.size as u64;
        }
        assert_eq!(bytes[0], 3000);
        assert_eq!(bytes[1], 3000);
    }

    #[test]
    fn limits_and_control_first() {
        let mut q = FairQueue::new(ClassKey::Src, None, 5, 2, true);
        q.enqueue(pkt(1, 1, 100)).unwrap();
        q.enqueue(pkt(2, 1, 100)).unwrap();
        assert_eq!(q.enqueue(pkt(3, 1, 100)).unwrap_err().uid, 3, "per-class limit");
        q.enqueue(pkt(4, 2, 100)).unwrap();
        let mut c = pkt(5, 3, 100);
        c.flow = FLOW_NONE;
        q.enqueue(c).unwrap();
        q.enqueue(pkt(6, 3, 100)).unwrap();
        // Full: a new class pushes out the last packet of the longest class.
        assert_eq!(q.enqueue(pkt(7, 4, 100)).unwrap_err().uid, 2, "total limit: push-out");
        assert_eq!(q.len(), 5);
        assert_eq!(drain(&mut q), vec![5, 1, 4, 6, 7]);
    }

    #[test]
    fn full_buffer_drops_from_the_longest_class() {
        let mut q = FairQueue::new(ClassKey::Src, None, 4, 100, true);
        for uid in 1..=3 {
            q.enqueue(pkt(uid, 1, 100)).unwrap();
        }
        q.enqueue(pkt(11, 2, 100)).unwrap();
        // The heavy class's own arrival is refused...
        assert_eq!(q.enqueue(pkt(4, 1, 100)).unwrap_err().uid, 4);
        // ...control and a lighter class displace its last packets.
        let mut c = pkt(50, 3, 100);
        c.flow = FLOW_NONE;
        assert_eq!(q.enqueue(c).unwrap_err().uid, 3);
        assert_eq!(q.enqueue(pkt(12, 2, 100)).unwrap_err().uid, 2);
        assert_eq!(q.len(), 4);
        // A class emptied by push-out leaves the ring.
        let mut q2 = FairQueue::new(ClassKey::Src, None, 2, 100, true);
        q2.enqueue(pkt(1, 1, 100)).unwrap();
        q2.enqueue(pkt(2, 1, 100)).unwrap();
        assert_eq!(q2.enqueue(pkt(21, 2, 100)).unwrap_err().uid, 2);
        // Classes 1 and 2 hold one each: the later-created longest (2) loses its only packet.
        assert_eq!(q2.enqueue(pkt(31, 3, 100)).unwrap_err().uid, 21);
        assert_eq!(drain(&mut q2), vec![1, 31]);
        assert_eq!(drain(&mut q), vec![50, 1, 11, 12]);
    }

    #[test]
    fn a_blocked_class_does_not_block_others() {
        let mut q = FairQueue::new(ClassKey::Src, None, 100, 100, true);
        for uid in 1..=3 {
            q.enqueue(pkt(uid, 1, 100)).unwrap();
        }
        for uid in 11..=13 {
            q.enqueue(pkt(uid, 2, 100)).unwrap();
        }
        // Source 1 is blocked: only source 2 is served, in order.
        let mut got = Vec::new();
        while let Some(p) = q.dequeue_where(&mut |p| p.src != 1) {
            got.push(p.uid);
        }
        assert_eq!(got, vec![11, 12, 13]);
        assert_eq!(q.len(), 3);
        // Unblocked, source 1 resumes where it was.
        assert_eq!(drain(&mut q), vec![1, 2, 3]);
    }

    #[test]
    fn drain_next_hop_keeps_the_ring_consistent() {
        let mut q = FairQueue::new(ClassKey::Src, None, 100, 100, true);
        q.enqueue(pkt(1, 1, 100)).unwrap();
        q.enqueue(pkt(2, 2, 100)).unwrap();
        q.enqueue(pkt(3, 1, 100)).unwrap();
        let mut out = Vec::new();
        q.drain_next_hop(51, &mut out);
        assert_eq!(out.iter().map(|p| p.uid).collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(q.len(), 1);
        assert_eq!(drain(&mut q), vec![2]);
    }
}
