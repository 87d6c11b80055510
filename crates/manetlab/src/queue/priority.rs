//! Strict-priority interface queue: routing control first (optionally, as
//! ns-2's PriQueue), then voice (packets marked DSCP EF, as VoIP calls
//! are), then everything else. Each class is a drop-tail FIFO of `limit`
//! packets of its own, so a queue full of data never refuses a voice
//! packet. A lower class is served only when every higher one is empty.
//!
//! For an 802.11e MAC the classes map to access categories: control and
//! voice to AC_VO, the rest to AC_BE ([`QueueDisc::dequeue_ac`]).

use super::QueueDisc;
use crate::mac::edca::AccessCategory;
use crate::wire::packet::DSCP_EF;
use crate::wire::Packet;
use std::collections::VecDeque;

pub struct Priority {
    limit: usize,
    control_first: bool,
    /// control, voice, other
    classes: [VecDeque<Packet>; 3],
}

impl Priority {
    pub fn new(limit: usize, control_first: bool) -> Self {
        let q = || VecDeque::with_capacity(limit.min(1024));
        Priority { limit, control_first, classes: [VecDeque::with_capacity(8), q(), q()] }
    }
    fn class(&self, p: &Packet) -> usize {
        if self.control_first && p.is_control() {
            0
        } else if p.dscp == DSCP_EF {
            1
        } else {
            2
        }
    }
}

impl QueueDisc for Priority {
    fn enqueue(&mut self, pkt: Packet) -> Result<(), Packet> {
        let c = self.class(&pkt);
        if self.classes[c].len() >= self.limit {
            return Err(pkt);
        }
        self.classes[c].push_back(pkt);
        Ok(())
    }
    fn dequeue(&mut self) -> Option<Packet> {
        self.classes.iter_mut().find_map(|q| q.pop_front())
    }
    fn dequeue_where(&mut self, eligible: &mut dyn FnMut(&Packet) -> bool) -> Option<Packet> {
        for q in self.classes.iter_mut() {
            if let Some(i) = q.iter().position(&mut *eligible) {
                return q.remove(i);
            }
        }
        None
    }
    fn dequeue_ac(&mut self, ac: AccessCategory) -> Option<Packet> {
        match ac {
            AccessCategory::Voice => self.classes[0].pop_front().or_else(|| self.classes[1].pop_front()),
            AccessCategory::BestEffort => self.classes[2].pop_front(),
        }
    }
    fn len(&self) -> usize {
        self.classes.iter().map(|q| q.len()).sum()
    }
    fn drain_next_hop(&mut self, next_hop: u32, out: &mut Vec<Packet>) {
        for q in &mut self.classes {
            super::drain_to(q, next_hop, out);
        }
    }
    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.classes.iter().flatten().for_each(f);
    }
}

impl super::QueueModel for Priority {
    const NAMES: &'static [&'static str] = &["priority"];
    const KEYS: &'static [&'static str] = &[];
    fn parse(_p: &dyn crate::sim::params::Params) -> Result<super::QueueKind, crate::sim::params::ParamError> {
        Ok(super::QueueKind::Priority)
    }
    fn build(cfg: &super::QueueConfig, _env: &super::QueueEnv) -> Box<dyn super::QueueDisc> {
        Box::new(Priority::new(cfg.limit, cfg.control_first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Body, FLOW_NONE};
    use crate::sim::Time;
    fn pkt(uid: u64, flow: u32, dscp: u8) -> Packet {
        let body = Body::Udp { sport: 1, dport: 1, seq: uid };
        Packet { dscp, next_hop: 1 + (uid % 2) as u32, ..Packet::new(uid, 0, 1, 100, flow, body, Time::ZERO) }
    }
    #[test]
    fn voice_overtakes_data_and_control_overtakes_voice() {
        let mut q = Priority::new(2, true);
        q.enqueue(pkt(1, 0, 0)).unwrap();
        q.enqueue(pkt(2, 0, 0)).unwrap();
        // Data class full; voice still admitted.
        assert_eq!(q.enqueue(pkt(3, 0, 0)).unwrap_err().uid, 3);
        q.enqueue(pkt(4, 1, DSCP_EF)).unwrap();
        q.enqueue(pkt(5, FLOW_NONE, 0)).unwrap();
        q.enqueue(pkt(6, 1, DSCP_EF)).unwrap();
        assert_eq!(q.len(), 5);
        let order: Vec<u64> = std::iter::from_fn(|| q.dequeue().map(|p| p.uid)).collect();
        assert_eq!(order, vec![5, 4, 6, 1, 2]);
    }
    #[test]
    fn access_categories_and_drain() {
        let mut q = Priority::new(10, true);
        for (u, f, d) in [(1, 0, 0), (2, 1, DSCP_EF), (3, FLOW_NONE, 0), (4, 0, 0)] {
            q.enqueue(pkt(u, f, d)).unwrap();
        }
        assert_eq!(q.dequeue_ac(AccessCategory::BestEffort).unwrap().uid, 1);
        assert_eq!(q.dequeue_ac(AccessCategory::Voice).unwrap().uid, 3);
        let mut out = Vec::new();
        q.drain_next_hop(1, &mut out); // even uids go to next hop 1
        assert_eq!(out.iter().map(|p| p.uid).collect::<Vec<_>>(), vec![2, 4]);
        assert!(q.is_empty());
    }
}
