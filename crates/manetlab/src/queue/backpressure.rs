//! Hop-by-hop per-flow backpressure (Gupta, Wormsbecker, Williamson).
//!
//! Every node counts the packets of each flow it holds (interface queue plus
//! the packet in its MAC). A node does not hand its MAC a packet of flow `f`
//! for neighbour `n` while it believes `n` holds `threshold` or more packets
//! of `f`; the queue serves the next *eligible* packet instead
//! (`QueueDisc::dequeue_where`), so a blocked flow does not block the others.
//! At a flow's source the same rule holds back the application: a UDP
//! datagram offered while the source already holds `threshold` packets of its
//! flow is not injected (dropped at the socket with reason BPS and counted
//! per flow as `not_injected`). The blockage thus travels hop by hop back to
//! the source.
//!
//! "Flow" is the key the paper used: the IP source, the IP destination, or
//! the application flow (`ClassKey::FiveTuple`).
//!
//! How a node knows its neighbour's count (`Knowledge`):
//! - `Oracle`: the true count, from a global array (what the paper simulated).
//! - `Overhear`: promiscuous listening. A node adds one to its estimate of
//!   `n`'s count for every frame of `f` it hears (or sends itself)
//!   addressed to `n`, and subtracts one for every frame of `f` it hears `n`
//!   transmit. Retransmissions are recognised by packet uid.
//! - `Explicit`: every data frame carries, in a header field, its
//!   transmitter's count for the frame's flow after the frame leaves; a node
//!   sets its estimate from each frame it decodes, and adds one for each
//!   frame of `f` it delivers to `n` itself.
//!
//! Estimates can go stale (a lost frame); an estimate not refreshed for
//! `stale` is forgotten (treated as 0), and a blocked node looks again then.
//!
//! The simulator maintains this state beside the nodes and calls it at the
//! points where packets enter and leave a node and where frames are heard.

use super::ClassKey;
use crate::sim::Time;
use crate::wire::{Body, NodeId, Packet, BROADCAST};
use std::collections::HashMap;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Knowledge {
    Oracle,
    Overhear,
    Explicit,
}

impl Knowledge {
    pub fn name(self) -> &'static str {
        match self {
            Knowledge::Oracle => "oracle",
            Knowledge::Overhear => "overhear",
            Knowledge::Explicit => "explicit",
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BackpressureConfig {
    /// Packets of one flow a neighbour may hold before upstream stops (k >= 1).
    pub threshold: u32,
    /// What a "flow" is: `Src`, `Dst` or `FiveTuple` (the application flow).
    pub key: ClassKey,
    pub knowledge: Knowledge,
    /// Estimates older than this are forgotten (`Overhear`, `Explicit`).
    pub stale: Time,
    /// Apply to UDP datagrams only ("UDP back-pressure": TCP has its own
    /// congestion control and passes unrestricted).
    pub udp_only: bool,
}

impl Default for BackpressureConfig {
    fn default() -> Self {
        BackpressureConfig {
            threshold: 1,
            key: ClassKey::FiveTuple,
            knowledge: Knowledge::Oracle,
            stale: Time::from_ms(20),
            udp_only: false,
        }
    }
}

/// An estimate of a neighbour's count and when it was last updated.
#[derive(Copy, Clone, Debug)]
struct Estimate {
    count: u16,
    at: Time,
}

pub struct Backpressure {
    cfg: BackpressureConfig,
    nodes: usize,
    keys: usize,
    /// True counts, `[node * keys + key]`.
    held: Vec<u16>,
    /// Largest count each node ever held of each key.
    max_held: Vec<u16>,
    /// Per node: estimates keyed by `neighbour << 32 | key`.
    known: Vec<HashMap<u64, Estimate>>,
    /// Per (listener, transmitter): uid of the last data frame heard.
    last_uid: Vec<u64>,
    /// Per transmitter: the header field of the data frame on the air
    /// (`Explicit`): (key, count).
    adv: Vec<(u32, u16)>,
    blocked: Vec<bool>,
    blocked_list: Vec<NodeId>,
}

impl Backpressure {
    /// `flows` = number of application flows (the key space of `FiveTuple`).
    pub fn new(cfg: BackpressureConfig, nodes: usize, flows: usize) -> Backpressure {
        let keys = match cfg.key {
            ClassKey::FiveTuple => flows.max(1),
            _ => nodes,
        };
        let explicit_or_overhear = cfg.knowledge != Knowledge::Oracle;
        Backpressure {
            cfg,
            nodes,
            keys,
            held: vec![0; nodes * keys],
            max_held: vec![0; nodes * keys],
            known: (0..nodes).map(|_| HashMap::new()).collect(),
            last_uid: if explicit_or_overhear { vec![u64::MAX; nodes * nodes] } else { Vec::new() },
            adv: vec![(u32::MAX, 0); nodes],
            blocked: vec![false; nodes],
            blocked_list: Vec::with_capacity(nodes),
        }
    }

    pub fn config(&self) -> &BackpressureConfig {
        &self.cfg
    }

    /// The key index of a data packet (None for control packets).
    #[inline]
    pub fn key(&self, p: &Packet) -> Option<usize> {
        if p.is_control() || (self.cfg.udp_only && !matches!(p.body, Body::Udp { .. })) {
            return None;
        }
        let k = match self.cfg.key {
            ClassKey::Src => p.src as usize,
            ClassKey::Dst => p.dst as usize,
            ClassKey::FiveTuple => p.flow as usize,
            // Hop-based keys make no sense for a per-flow limit; the
            // scenario parser refuses them. Fall back to the flow.
            ClassKey::NextHop | ClassKey::PrevHop => p.flow as usize,
        };
        (k < self.keys).then_some(k)
    }

    /// Packets of `p`'s flow that `node` holds now.
    pub fn held(&self, node: NodeId, p: &Packet) -> u32 {
        self.key(p).map_or(0, |k| self.held[node as usize * self.keys + k] as u32)
    }

    /// The most packets of key index `key` node `node` ever held.
    pub fn max_held(&self, node: NodeId, key: usize) -> u32 {
        self.max_held[node as usize * self.keys + key] as u32
    }

    /// A packet entered `node`'s interface queue.
    pub fn entered(&mut self, node: NodeId, p: &Packet) {
        if let Some(k) = self.key(p) {
            let i = node as usize * self.keys + k;
            self.held[i] = self.held[i].saturating_add(1);
            self.max_held[i] = self.max_held[i].max(self.held[i]);
        }
    }

    /// A packet left `node` (sent, failed, reclaimed). Returns true when
    /// blocked nodes should look again (their oracle view changed).
    pub fn left(&mut self, node: NodeId, p: &Packet) -> bool {
        if let Some(k) = self.key(p) {
            let i = node as usize * self.keys + k;
            self.held[i] = self.held[i].saturating_sub(1);
            return self.cfg.knowledge == Knowledge::Oracle && !self.blocked_list.is_empty();
        }
        false
    }

    /// May the application at `node` inject `p`?
    pub fn may_inject(&self, node: NodeId, p: &Packet) -> bool {
        self.held(node, p) < self.cfg.threshold
    }

    /// May `node` hand `p` to its MAC now?
    #[inline]
    pub fn eligible(&self, node: NodeId, now: Time, p: &Packet) -> bool {
        let Some(k) = self.key(p) else { return true };
        let nh = p.next_hop;
        if nh == BROADCAST || nh as usize >= self.nodes {
            return true;
        }
        let count = match self.cfg.knowledge {
            Knowledge::Oracle => self.held[nh as usize * self.keys + k] as u32,
            Knowledge::Overhear | Knowledge::Explicit => match self.known[node as usize].get(&slot(nh, k)) {
                Some(e) if now.saturating_sub(e.at) < self.cfg.stale => e.count as u32,
                _ => 0,
            },
        };
        count < self.cfg.threshold
    }

    /// `node` starts transmitting a data frame carrying `p`: fill in the
    /// header field (`Explicit`) with its count once `p` has left.
    pub fn on_transmit(&mut self, node: NodeId, p: &Packet) {
        if self.cfg.knowledge == Knowledge::Explicit {
            if let Some(k) = self.key(p) {
                let c = self.held[node as usize * self.keys + k].saturating_sub(1);
                self.adv[node as usize] = (k as u32, c);
            }
        }
    }

    /// `node`'s MAC delivered `p` to its next hop (the ACK came back).
    pub fn on_tx_success(&mut self, node: NodeId, now: Time, p: &Packet) {
        if self.cfg.knowledge == Knowledge::Oracle || p.next_hop == p.dst || p.next_hop == BROADCAST {
            return;
        }
        if let Some(k) = self.key(p) {
            let e = self.known[node as usize].entry(slot(p.next_hop, k)).or_insert(Estimate { count: 0, at: now });
            if now.saturating_sub(e.at) >= self.cfg.stale {
                e.count = 0;
            }
            e.count = e.count.saturating_add(1);
            e.at = now;
        }
    }

    /// `listener` decoded a unicast data frame carrying `p` sent by `from`
    /// (addressed to it or overheard). Returns true if `listener` is blocked
    /// and should look again.
    pub fn on_heard(&mut self, listener: NodeId, from: NodeId, now: Time, p: &Packet) -> bool {
        if self.cfg.knowledge == Knowledge::Oracle || from as usize >= self.nodes {
            return false;
        }
        let Some(k) = self.key(p) else { return false };
        let li = listener as usize * self.nodes + from as usize;
        if self.last_uid[li] == p.uid {
            return false; // a retransmission already counted
        }
        self.last_uid[li] = p.uid;
        let known = &mut self.known[listener as usize];
        match self.cfg.knowledge {
            Knowledge::Oracle => {}
            Knowledge::Overhear => {
                // Leaving `from`...
                if let Some(e) = known.get_mut(&slot(from, k)) {
                    e.count = e.count.saturating_sub(1);
                    e.at = now;
                }
                // ...arriving at its next hop (unless that is us, or the
                // destination, which holds nothing).
                if p.next_hop != listener && p.next_hop != p.dst && (p.next_hop as usize) < self.nodes {
                    let e = known.entry(slot(p.next_hop, k)).or_insert(Estimate { count: 0, at: now });
                    if now.saturating_sub(e.at) >= self.cfg.stale {
                        e.count = 0;
                    }
                    e.count = e.count.saturating_add(1);
                    e.at = now;
                }
            }
            Knowledge::Explicit => {
                let (ak, c) = self.adv[from as usize];
                if ak as usize == k {
                    known.insert(slot(from, k), Estimate { count: c, at: now });
                }
            }
        }
        self.blocked[listener as usize]
    }

    /// `node` had packets but none eligible.
    pub fn set_blocked(&mut self, node: NodeId) {
        if !self.blocked[node as usize] {
            self.blocked[node as usize] = true;
            self.blocked_list.push(node);
        }
    }

    pub fn is_blocked(&self, node: NodeId) -> bool {
        self.blocked[node as usize]
    }

    /// Unblocks `node` (it is about to look again).
    pub fn clear_blocked(&mut self, node: NodeId) {
        if self.blocked[node as usize] {
            self.blocked[node as usize] = false;
            if let Some(i) = self.blocked_list.iter().position(|&x| x == node) {
                self.blocked_list.swap_remove(i);
            }
        }
    }

    /// Moves the blocked nodes into `out` (sorted, for determinism) and
    /// clears their flags.
    pub fn take_blocked(&mut self, out: &mut Vec<NodeId>) {
        out.clear();
        out.append(&mut self.blocked_list);
        out.sort_unstable();
        for &n in out.iter() {
            self.blocked[n as usize] = false;
        }
    }
}

#[inline]
fn slot(neighbour: NodeId, key: usize) -> u64 {
    ((neighbour as u64) << 32) | key as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(uid: u64, flow: u32, next_hop: u32) -> Packet {
        let mut p = Packet::new(uid, 0, 4, 100, flow, Body::Udp { sport: 1, dport: 1, seq: uid }, Time::ZERO);
        p.next_hop = next_hop;
        p
    }

    #[test]
    fn oracle_blocks_at_threshold() {
        let cfg = BackpressureConfig { threshold: 2, ..Default::default() };
        let mut bp = Backpressure::new(cfg, 5, 2);
        let t = Time::ZERO;
        assert!(bp.eligible(0, t, &pkt(1, 0, 1)));
        bp.entered(1, &pkt(1, 0, 2));
        assert!(bp.eligible(0, t, &pkt(2, 0, 1)));
        bp.entered(1, &pkt(2, 0, 2));
        assert!(!bp.eligible(0, t, &pkt(3, 0, 1)), "neighbour holds 2 = threshold");
        assert!(bp.eligible(0, t, &pkt(3, 1, 1)), "another flow is not blocked");
        bp.left(1, &pkt(1, 0, 2));
        assert!(bp.eligible(0, t, &pkt(3, 0, 1)));
        assert_eq!(bp.max_held(1, 0), 2);
        // The source is held back by its own count.
        bp.entered(0, &pkt(5, 0, 1));
        assert!(bp.may_inject(0, &pkt(6, 0, 1)));
        bp.entered(0, &pkt(6, 0, 1));
        assert!(!bp.may_inject(0, &pkt(7, 0, 1)));
    }

    #[test]
    fn overhearing_tracks_a_neighbour() {
        let cfg = BackpressureConfig { threshold: 1, knowledge: Knowledge::Overhear, ..Default::default() };
        let mut bp = Backpressure::new(cfg, 5, 1);
        let t = Time::from_ms(1);
        // Node 0 delivers a packet to node 1 (next hop 2 from there).
        bp.on_tx_success(0, t, &pkt(1, 0, 1));
        assert!(!bp.eligible(0, t, &pkt(2, 0, 1)));
        // Node 0 hears node 1 forward it to node 2: node 1 is empty again.
        bp.set_blocked(0);
        assert!(bp.on_heard(0, 1, t, &pkt(1, 0, 2)));
        assert!(bp.eligible(0, t, &pkt(2, 0, 1)));
        // A retransmission of the same frame is not counted twice.
        bp.on_tx_success(0, t, &pkt(2, 0, 1));
        bp.on_heard(0, 1, t, &pkt(1, 0, 2));
        assert!(!bp.eligible(0, t, &pkt(3, 0, 1)));
        // The estimate is forgotten once stale.
        assert!(bp.eligible(0, t + Time::from_ms(30), &pkt(3, 0, 1)));
    }

    #[test]
    fn explicit_field_sets_the_estimate() {
        let cfg = BackpressureConfig { threshold: 1, knowledge: Knowledge::Explicit, ..Default::default() };
        let mut bp = Backpressure::new(cfg, 5, 1);
        let t = Time::from_ms(1);
        bp.on_tx_success(0, t, &pkt(1, 0, 1));
        assert!(!bp.eligible(0, t, &pkt(2, 0, 1)));
        // Node 1 holds two packets and sends one: its frame says 1.
        bp.entered(1, &pkt(1, 0, 2));
        bp.entered(1, &pkt(9, 0, 2));
        bp.on_transmit(1, &pkt(1, 0, 2));
        bp.on_heard(0, 1, t, &pkt(1, 0, 2));
        assert!(!bp.eligible(0, t, &pkt(2, 0, 1)));
        bp.left(1, &pkt(1, 0, 2));
        bp.on_transmit(1, &pkt(9, 0, 2));
        bp.on_heard(0, 1, t, &pkt(9, 0, 2));
        assert!(bp.eligible(0, t, &pkt(2, 0, 1)));
    }
}
