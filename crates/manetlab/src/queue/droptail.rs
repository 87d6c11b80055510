//! Drop-tail FIFO with an optional priority lane for routing control
//! packets (ns-2's Queue/DropTail/PriQueue).
//!
//! With the lane on, a full queue does not refuse a routing control packet:
//! it takes it and drops its newest data packet instead, as ns-2's PriQueue
//! does (it puts the control packet at the head and drops whatever is then
//! at the tail). Only a queue holding nothing but control packets refuses
//! one. Without this, a node whose queue a saturating flow keeps full could
//! not send a HELLO, RREQ, RREP or RERR, and its routes would break for
//! want of control traffic rather than of connectivity.

use super::QueueDisc;
use crate::wire::Packet;
use std::collections::VecDeque;

#[derive(Clone)]
pub struct DropTail {
    limit: usize,
    control_first: bool,
    control: VecDeque<Packet>,
    data: VecDeque<Packet>,
}

impl DropTail {
    pub fn new(limit: usize, control_first: bool) -> Self {
        DropTail {
            limit,
            control_first,
            // Grown on demand, never shrunk: a queue that is never used
            // costs nothing (preallocating 50 + 8 packets took 9 KB per
            // node, most of a million-node network's memory).
            control: VecDeque::new(),
            data: VecDeque::new(),
        }
    }
}

impl DropTail {
    /// `enqueue` of `*pkt`, copied once, into its lane.
    #[inline(always)]
    #[allow(clippy::result_large_err)]
    pub(super) fn put(&mut self, pkt: &Packet) -> Result<(), Packet> {
        let control = self.control_first && pkt.is_control();
        if self.len() >= self.limit {
            if !control {
                return Err(*pkt);
            }
            // Control packet at a full queue: the newest data packet makes room.
            let Some(victim) = self.data.pop_back() else { return Err(*pkt) };
            self.control.push_back(*pkt);
            return Err(victim);
        }
        if control {
            self.control.push_back(*pkt);
        } else {
            self.data.push_back(*pkt);
        }
        Ok(())
    }

    // The trait's calls as inherent, inlinable functions: the kernel's
    // interface queue (`ifq.rs`) calls these directly; the `QueueDisc`
    // impl below forwards to them.

    /// `refuses`.
    #[inline(always)]
    pub(super) fn refuses_now(&self, pkt: &Packet) -> bool {
        self.count() >= self.limit && !(self.control_first && pkt.is_control() && !self.data.is_empty())
    }
    /// `passes_through` (of any packet).
    #[inline(always)]
    pub(super) fn empty_and_open(&self) -> bool {
        self.control.is_empty() && self.data.is_empty() && self.limit > 0
    }
    /// `peek_next`.
    #[inline(always)]
    pub(super) fn head(&self) -> Option<&Packet> {
        self.control.front().or_else(|| self.data.front())
    }
    /// `discard_next`.
    #[inline(always)]
    pub(super) fn drop_head(&mut self) {
        if self.control.pop_front().is_none() {
            self.data.pop_front();
        }
    }
    /// `dequeue`.
    #[inline(always)]
    pub(super) fn pop_head(&mut self) -> Option<Packet> {
        self.control.pop_front().or_else(|| self.data.pop_front())
    }
    /// `len`.
    #[inline(always)]
    pub(super) fn count(&self) -> usize {
        self.control.len() + self.data.len()
    }
}

impl QueueDisc for DropTail {
    fn enqueue(&mut self, pkt: Packet) -> Result<(), Packet> {
        self.put(&pkt)
    }
    fn enqueue_ref(&mut self, pkt: &Packet) -> Result<(), Packet> {
        self.put(pkt)
    }
    /// Mirrors `enqueue`: full, and not a control packet that pushes out
    /// the newest data packet (`tests::refuses_iff_enqueue_hands_it_back`).
    fn refuses(&self, pkt: &Packet) -> bool {
        self.refuses_now(pkt)
    }
    /// Empty, and it takes a packet (`limit` > 0): `dequeue` then returns
    /// that packet from whichever lane it went to
    /// (`tests::passes_through_iff_enqueue_dequeue_is_identity`).
    fn passes_through(&self, _pkt: &Packet) -> bool {
        self.empty_and_open()
    }
    fn dequeue(&mut self) -> Option<Packet> {
        self.pop_head()
    }
    fn peek_next(&self) -> Option<&Packet> {
        self.head()
    }
    fn discard_next(&mut self) {
        self.drop_head()
    }
    fn dequeue_where(&mut self, eligible: &mut dyn FnMut(&Packet) -> bool) -> Option<Packet> {
        for q in [&mut self.control, &mut self.data] {
            if let Some(i) = q.iter().position(&mut *eligible) {
                return q.remove(i);
            }
        }
        None
    }
    fn len(&self) -> usize {
        self.count()
    }
    fn as_droptail(&self) -> Option<&DropTail> {
        Some(self)
    }
    fn drain_next_hop(&mut self, next_hop: u32, out: &mut Vec<Packet>) {
        for q in [&mut self.control, &mut self.data] {
            super::drain_to(q, next_hop, out);
        }
    }
    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.control.iter().chain(self.data.iter()).for_each(f);
    }
}

impl super::QueueModel for DropTail {
    const NAMES: &'static [&'static str] = &["droptail", "drop-tail"];
    const KEYS: &'static [&'static str] = &[];
    fn parse(_p: &dyn crate::sim::params::Params) -> Result<super::QueueKind, crate::sim::params::ParamError> {
        Ok(super::QueueKind::DropTail)
    }
    fn build(cfg: &super::QueueConfig, _env: &super::QueueEnv) -> Box<dyn QueueDisc> {
        Box::new(DropTail::new(cfg.limit, cfg.control_first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Body, FLOW_NONE};
    use crate::sim::Time;
    fn pkt(uid: u64, flow: u32) -> Packet {
        Packet {
            uid,
            src: 0,
            dst: 1,
            ttl: 64,
            dscp: 0,
            size: 100,
            next_hop: 1,
            prev_hop: 0,
            created: Time::ZERO,
            flow,
            body: Body::Udp { sport: 1, dport: 1, seq: uid },
            sr: Default::default(),
        }
    }
    #[test]
    fn fifo_limit_and_control_first() {
        let mut q = DropTail::new(3, true);
        q.enqueue(pkt(1, 0)).unwrap();
        q.enqueue(pkt(2, 0)).unwrap();
        q.enqueue(pkt(3, FLOW_NONE)).unwrap();
        assert_eq!(q.enqueue(pkt(4, 0)).unwrap_err().uid, 4);
        let order: Vec<u64> = std::iter::from_fn(|| q.dequeue().map(|p| p.uid)).collect();
        assert_eq!(order, vec![3, 1, 2]);
    }
    #[test]
    fn control_packet_pushes_out_the_newest_data_packet_when_full() {
        let mut q = DropTail::new(3, true);
        for u in 1..=3 {
            q.enqueue(pkt(u, 0)).unwrap();
        }
        // Full of data: a control packet gets in and the last data packet goes.
        assert_eq!(q.enqueue(pkt(4, FLOW_NONE)).unwrap_err().uid, 3);
        assert_eq!(q.len(), 3);
        // A data packet is still refused.
        assert_eq!(q.enqueue(pkt(5, 0)).unwrap_err().uid, 5);
        q.enqueue(pkt(6, FLOW_NONE)).unwrap_err();
        q.enqueue(pkt(7, FLOW_NONE)).unwrap_err();
        // Only control left: the next control packet is refused.
        assert_eq!(q.enqueue(pkt(8, FLOW_NONE)).unwrap_err().uid, 8);
        let order: Vec<u64> = std::iter::from_fn(|| q.dequeue().map(|p| p.uid)).collect();
        assert_eq!(order, vec![4, 6, 7]);
        // Without the control lane a full queue refuses everything.
        let mut q = DropTail::new(1, false);
        q.enqueue(pkt(1, 0)).unwrap();
        assert_eq!(q.enqueue(pkt(2, FLOW_NONE)).unwrap_err().uid, 2);
    }

    proptest::proptest! {
        /// `passes_through` holds exactly when `enqueue` then `dequeue`
        /// hands the same packet back and leaves the queue empty as before.
        #[test]
        fn passes_through_iff_enqueue_dequeue_is_identity(
            limit in 0usize..4,
            control_first: bool,
            ops in proptest::collection::vec(0u8..4, 0..40),
        ) {
            let mut q = DropTail::new(limit, control_first);
            for (uid, op) in ops.into_iter().enumerate() {
                let uid = uid as u64;
                let p = pkt(uid, if op % 2 == 1 { FLOW_NONE } else { 0 });
                if op >= 2 {
                    // Probe on a copy: offer and take one packet.
                    let was = q.len();
                    let through = q.passes_through(&p);
                    let mut c = DropTail { limit: q.limit, control_first, control: q.control.clone(), data: q.data.clone() };
                    let same = c.enqueue(p).is_ok() && c.dequeue().map(|d| d.uid) == Some(uid) && c.len() == was;
                    proptest::prop_assert_eq!(through, same && was == 0);
                    if through {
                        proptest::prop_assert!(same);
                    }
                    q.dequeue();
                } else {
                    let _ = q.enqueue(p);
                }
            }
        }


        /// `refuses` is true exactly when `enqueue` hands the offered packet
        /// back, and then `enqueue` changed nothing (the kernel skips it).
        #[test]
        fn refuses_iff_enqueue_hands_it_back(
            limit in 0usize..5,
            control_first: bool,
            ops in proptest::collection::vec(0u8..3, 0..60),
        ) {
            let mut q = DropTail::new(limit, control_first);
            for (uid, op) in ops.into_iter().enumerate() {
                let uid = uid as u64;
                if op == 2 {
                    q.dequeue();
                    continue;
                }
                let p = pkt(uid, if op == 1 { FLOW_NONE } else { 0 });
                let before: Vec<u64> = {
                    let mut v = Vec::new();
                    q.for_each(&mut |p| v.push(p.uid));
                    v
                };
                let refused = q.refuses(&p);
                let handed_back = matches!(q.enqueue(p), Err(r) if r.uid == uid);
                proptest::prop_assert_eq!(refused, handed_back);
                if refused {
                    let mut after = Vec::new();
                    q.for_each(&mut |p| after.push(p.uid));
                    proptest::prop_assert_eq!(before, after);
                }
            }
        }

        /// `enqueue_ref` does what `enqueue` of a copy does, and `peek_next`
        /// then `discard_next` what `dequeue` does: the same answers, the
        /// same contents, the same packets out.
        #[test]
        fn enqueue_ref_is_enqueue(
            limit in 0usize..5,
            control_first: bool,
            ops in proptest::collection::vec(0u8..3, 0..60),
        ) {
            let mut by_value = DropTail::new(limit, control_first);
            let mut by_ref = DropTail::new(limit, control_first);
            for (uid, op) in ops.into_iter().enumerate() {
                if op == 2 {
                    // `peek_next` then `discard_next` is `dequeue`.
                    let peeked = by_ref.peek_next().map(|p| p.uid);
                    if peeked.is_some() {
                        by_ref.discard_next();
                    }
                    proptest::prop_assert_eq!(by_value.dequeue().map(|p| p.uid), peeked);
                    proptest::prop_assert_eq!(by_value.len(), by_ref.len());
                    continue;
                }
                let p = pkt(uid as u64, if op == 1 { FLOW_NONE } else { 0 });
                let a = by_value.enqueue(p).map_err(|r| r.uid);
                let b = by_ref.enqueue_ref(&p).map_err(|r| r.uid);
                proptest::prop_assert_eq!(a, b);
                let (mut va, mut vb) = (Vec::new(), Vec::new());
                by_value.for_each(&mut |p| va.push(p.uid));
                by_ref.for_each(&mut |p| vb.push(p.uid));
                proptest::prop_assert_eq!(va, vb);
            }
        }
    }
}
