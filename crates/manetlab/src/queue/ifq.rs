//! A node's interface queue as the kernel holds it (session 23): the
//! drop-tail FIFO, which every bench scenario runs, called directly (its
//! calls inlined into the kernel's), any other discipline through its
//! `QueueDisc` object as before.
//!
//! The kernel calls the queue three to five times a packet and hop
//! (`refuses`, `passes_through`, `enqueue_ref`, `peek_next`,
//! `discard_next`, `is_empty`); through `Box<dyn QueueDisc>` each was an
//! indirect call of a few instructions of work (2-hop: ~5.4 M instructions
//! in DropTail's functions). The registry is unchanged: a discipline is
//! still one file and one line in `disciplines!`, and `QueueDisc::
//! as_droptail` (default: not a drop-tail queue) is how `Ifq::new` tells
//! the FIFO from the others (and copies it: it is built empty). `Ifq` dereferences to `dyn QueueDisc` for the
//! rare calls (`dequeue_where`, `drain_next_hop`, `for_each`, ...), and
//! its own methods have the trait's names and meaning, so the kernel's
//! code reads the same.

use super::{DropTail, QueueDisc};
use crate::wire::Packet;

/// One node's interface queue (see the module's documentation).
pub struct Ifq(Lane);

enum Lane {
    DropTail(Box<DropTail>),
    Other(Box<dyn QueueDisc>),
}

// As small as the `Box<dyn QueueDisc>` it replaces in the node (`node.rs`
// has 16 bytes to spare in its 32 lines of fields).
const _: () = assert!(std::mem::size_of::<Ifq>() == std::mem::size_of::<Box<dyn QueueDisc>>());

impl Ifq {
    /// The queue `q`, its drop-tail FIFO (if it is one) called directly.
    pub fn new(q: Box<dyn QueueDisc>) -> Ifq {
        match q.as_droptail() {
            Some(d) => Ifq(Lane::DropTail(Box::new(d.clone()))),
            None => Ifq(Lane::Other(q)),
        }
    }

    /// Whether the discipline is the drop-tail FIFO, called directly.
    pub fn is_droptail(&self) -> bool {
        matches!(self.0, Lane::DropTail(_))
    }

    /// [`QueueDisc::refuses`].
    #[inline(always)]
    pub fn refuses(&self, pkt: &Packet) -> bool {
        match &self.0 {
            Lane::DropTail(d) => d.refuses_now(pkt),
            Lane::Other(q) => q.refuses(pkt),
        }
    }

    /// [`QueueDisc::passes_through`].
    #[inline(always)]
    pub fn passes_through(&self, pkt: &Packet) -> bool {
        match &self.0 {
            Lane::DropTail(d) => d.empty_and_open(),
            Lane::Other(q) => q.passes_through(pkt),
        }
    }

    /// [`QueueDisc::enqueue_ref`].
    #[inline(always)]
    #[allow(clippy::result_large_err)]
    pub fn enqueue_ref(&mut self, pkt: &Packet) -> Result<(), Packet> {
        match &mut self.0 {
            Lane::DropTail(d) => d.put(pkt),
            Lane::Other(q) => q.enqueue_ref(pkt),
        }
    }

    /// [`QueueDisc::enqueue`].
    #[inline]
    #[allow(clippy::result_large_err)]
    pub fn enqueue(&mut self, pkt: Packet) -> Result<(), Packet> {
        match &mut self.0 {
            Lane::DropTail(d) => d.put(&pkt),
            Lane::Other(q) => q.enqueue(pkt),
        }
    }

    /// [`QueueDisc::peek_next`].
    #[inline(always)]
    pub fn peek_next(&self) -> Option<&Packet> {
        match &self.0 {
            Lane::DropTail(d) => d.head(),
            Lane::Other(q) => q.peek_next(),
        }
    }

    /// [`QueueDisc::discard_next`].
    #[inline(always)]
    pub fn discard_next(&mut self) {
        match &mut self.0 {
            Lane::DropTail(d) => d.drop_head(),
            Lane::Other(q) => q.discard_next(),
        }
    }

    /// [`QueueDisc::dequeue`].
    #[inline]
    pub fn dequeue(&mut self) -> Option<Packet> {
        match &mut self.0 {
            Lane::DropTail(d) => d.pop_head(),
            Lane::Other(q) => q.dequeue(),
        }
    }

    /// [`QueueDisc::len`].
    #[inline(always)]
    pub fn len(&self) -> usize {
        match &self.0 {
            Lane::DropTail(d) => d.count(),
            Lane::Other(q) => q.len(),
        }
    }

    /// [`QueueDisc::is_empty`].
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        match &self.0 {
            Lane::DropTail(d) => d.count() == 0,
            Lane::Other(q) => q.is_empty(),
        }
    }
}

impl std::ops::Deref for Ifq {
    type Target = dyn QueueDisc;
    fn deref(&self) -> &(dyn QueueDisc + 'static) {
        match &self.0 {
            Lane::DropTail(d) => &**d,
            Lane::Other(q) => &**q,
        }
    }
}

impl std::ops::DerefMut for Ifq {
    fn deref_mut(&mut self) -> &mut (dyn QueueDisc + 'static) {
        match &mut self.0 {
            Lane::DropTail(d) => &mut **d,
            Lane::Other(q) => &mut **q,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Body, FLOW_NONE};
    use crate::queue::{build, QueueConfig, QueueEnv, QueueKind};
    use crate::sim::Time;

    fn pkt(uid: u64, flow: u32) -> Packet {
        Packet {
            uid,
            src: 0,
            dst: 1,
            ttl: 64,
            dscp: 0,
            size: 100,
            next_hop: 1 + (uid % 3) as u32,
            prev_hop: 0,
            created: Time::ZERO,
            flow,
            body: Body::Udp { sport: 1, dport: 1, seq: uid },
            sr: Default::default(),
        }
    }

    fn contents(q: &dyn QueueDisc) -> Vec<u64> {
        let mut v = Vec::new();
        q.for_each(&mut |p| v.push(p.uid));
        v
    }

    #[test]
    fn the_registry_picks_the_direct_lane_for_droptail_only() {
        let env = QueueEnv { node: 3, seed: 1 };
        let cfg = QueueConfig::default();
        assert!(build(&cfg, &env).is_droptail());
        let pri = QueueConfig { kind: QueueKind::Priority, ..QueueConfig::default() };
        assert!(!build(&pri, &env).is_droptail());
    }

    proptest::proptest! {
        /// The direct lane answers every call as the same FIFO behind
        /// `Box<dyn QueueDisc>` (the path of before) does: the same
        /// answers, the same packets out, the same contents.
        #[test]
        fn direct_lane_is_the_trait_object(
            limit in 0usize..5,
            control_first: bool,
            ops in proptest::collection::vec(0u8..6, 0..80),
        ) {
            let mut direct = Ifq::new(Box::new(DropTail::new(limit, control_first)));
            proptest::prop_assert!(direct.is_droptail());
            let mut object: Box<dyn QueueDisc> = Box::new(DropTail::new(limit, control_first));
            for (uid, op) in ops.into_iter().enumerate() {
                let p = pkt(uid as u64, if op % 2 == 1 { FLOW_NONE } else { 0 });
                proptest::prop_assert_eq!(direct.refuses(&p), object.refuses(&p));
                proptest::prop_assert_eq!(direct.passes_through(&p), object.passes_through(&p));
                proptest::prop_assert_eq!(direct.peek_next().map(|p| p.uid), object.peek_next().map(|p| p.uid));
                proptest::prop_assert_eq!(direct.len(), object.len());
                proptest::prop_assert_eq!(direct.is_empty(), object.is_empty());
                match op {
                    0 | 1 => {
                        let a = direct.enqueue_ref(&p).map_err(|r| r.uid);
                        let b = object.enqueue_ref(&p).map_err(|r| r.uid);
                        proptest::prop_assert_eq!(a, b);
                    }
                    2 => {
                        let a = direct.enqueue(p).map_err(|r| r.uid);
                        let b = object.enqueue(p).map_err(|r| r.uid);
                        proptest::prop_assert_eq!(a, b);
                    }
                    3 => proptest::prop_assert_eq!(direct.dequeue().map(|p| p.uid), object.dequeue().map(|p| p.uid)),
                    4 => {
                        if direct.peek_next().is_some() {
                            direct.discard_next();
                            object.discard_next();
                        }
                    }
                    _ => {
                        let (mut a, mut b) = (Vec::new(), Vec::new());
                        direct.drain_next_hop(2, &mut a);
                        object.drain_next_hop(2, &mut b);
                        proptest::prop_assert_eq!(
                            a.iter().map(|p| p.uid).collect::<Vec<_>>(),
                            b.iter().map(|p| p.uid).collect::<Vec<_>>()
                        );
                    }
                }
                proptest::prop_assert_eq!(contents(&*direct), contents(&*object));
            }
        }
    }
}
