//! Point-to-point wired links (full duplex), and the static routing of the
//! wired part of a network.
//!
//! A link joins two nodes. Each direction is an independent interface: a
//! drop-tail queue of `queue` packets, a transmitter that serialises one
//! packet at a time at `bandwidth_bps`, and a pipe of constant propagation
//! `delay` (so packets arrive in the order they were sent). A node may have
//! a radio and any number of wired interfaces, or wired interfaces only
//! (`WiredConfig::wired_only`: its radio never transmits nor hears).
//!
//! Routing across wires is static and decided here, not by the MANET
//! protocol (see `docs/wired.md`):
//! - inside one wired component (nodes joined by links) packets follow the
//!   fewest-hop wired path;
//! - a wired-only node sends everything else to its gateway: the nearest
//!   node of its component that has a radio (ties: lowest id);
//! - that gateway answers AODV/DSR route requests for the wired-only hosts
//!   behind it (`Routing::set_proxied`), so wireless nodes find them; what
//!   the gateway receives from its wires for the wireless side it injects
//!   as if it originated it.

use crate::net::{NodeId, Packet};
use crate::sim::Time;
use std::collections::VecDeque;

/// One full-duplex link.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkConfig {
    pub a: NodeId,
    pub b: NodeId,
    /// Bit rate of each direction.
    pub bandwidth_bps: u64,
    /// One-way propagation delay.
    pub delay: Time,
    /// Drop-tail queue limit of each direction, packets (the packet being
    /// serialised is not counted).
    pub queue: usize,
}

/// The wired part of a scenario.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WiredConfig {
    pub links: Vec<LinkConfig>,
    /// Nodes without a radio (wired interfaces only).
    pub wired_only: Vec<NodeId>,
}

impl WiredConfig {
    pub fn is_empty(&self) -> bool {
        self.links.is_empty() && self.wired_only.is_empty()
    }
}

/// Counters of one direction of a link.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub drops: u64,
    /// Time spent serialising, ns.
    pub busy_ns: u64,
}

/// One direction of a link.
struct Direction {
    to: NodeId,
    bps: u64,
    delay: Time,
    limit: usize,
    queue: VecDeque<Packet>,
    /// The packet being serialised.
    sending: Option<Packet>,
    /// Serialised, propagating; in arrival order.
    pipe: VecDeque<Packet>,
    stats: LinkStats,
}

/// What the simulation must schedule after a wired operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WireEvent {
    /// Serialisation of the current packet of direction `dir` ends at `at`.
    TxEnd { dir: u32, at: Time },
    /// The head of direction `dir`'s pipe reaches the far end at `at`.
    Arrive { dir: u32, at: Time },
}

const NONE: NodeId = NodeId::MAX;

/// Run-time state of every wired link and the wired routing tables.
pub struct Wired {
    dirs: Vec<Direction>,
    /// Per node: (peer, direction index) of each wired interface.
    ifaces: Vec<Vec<(NodeId, u32)>>,
    /// Per node with wired interfaces: wired next hop per destination
    /// (`NONE` = not over the wires).
    routes: Vec<Vec<NodeId>>,
    /// Per node: the wired-only hosts it is the gateway of.
    proxied: Vec<Vec<NodeId>>,
    wired_only: Vec<bool>,
}

impl Wired {
    /// Builds the links of `cfg` for a network of `n` nodes (node ids are
    /// checked by the caller).
    pub fn new(cfg: &WiredConfig, n: usize) -> Wired {
        let mut dirs = Vec::with_capacity(2 * cfg.links.len());
        let mut ifaces: Vec<Vec<(NodeId, u32)>> = vec![Vec::new(); n];
        for l in &cfg.links {
            for (from, to) in [(l.a, l.b), (l.b, l.a)] {
                ifaces[from as usize].push((to, dirs.len() as u32));
                dirs.push(Direction {
                    to,
                    bps: l.bandwidth_bps,
                    delay: l.delay,
                    limit: l.queue,
                    queue: VecDeque::with_capacity(l.queue.min(1024)),
                    sending: None,
                    pipe: VecDeque::new(),
                    stats: LinkStats::default(),
                });
            }
        }
        for v in &mut ifaces {
            v.sort_unstable();
        }
        let mut wired_only = vec![false; n];
        for &w in &cfg.wired_only {
            wired_only[w as usize] = true;
        }
        let (routes, proxied) = Self::tables(&ifaces, &wired_only);
        Wired { dirs, ifaces, routes, proxied, wired_only }
    }

    /// Breadth-first over the links from every node with an interface.
    fn tables(ifaces: &[Vec<(NodeId, u32)>], wired_only: &[bool]) -> (Vec<Vec<NodeId>>, Vec<Vec<NodeId>>) {
        let n = ifaces.len();
        let mut routes = vec![Vec::new(); n];
        let mut proxied = vec![Vec::new(); n];
        let mut first = vec![NONE; n];
        let mut seen = vec![false; n];
        let mut order = Vec::with_capacity(n);
        for u in 0..n {
            if ifaces[u].is_empty() {
                continue;
            }
            first.iter_mut().for_each(|f| *f = NONE);
            seen.iter_mut().for_each(|s| *s = false);
            order.clear();
            seen[u] = true;
            order.push(u);
            let mut i = 0;
            while i < order.len() {
                let v = order[i];
                i += 1;
                for &(w, _) in &ifaces[v] {
                    let w = w as usize;
                    if !seen[w] {
                        seen[w] = true;
                        first[w] = if v == u { w as NodeId } else { first[v] };
                        order.push(w);
                    }
                }
            }
            let mut table = first.clone();
            if wired_only[u] {
                // Default route: the nearest node with a radio (BFS order,
                // neighbours visited by increasing id).
                if let Some(&g) = order.iter().skip(1).find(|&&v| !wired_only[v]) {
                    let via = first[g];
                    for (d, t) in table.iter_mut().enumerate() {
                        if !seen[d] {
                            *t = via;
                        }
                    }
                    proxied[g].push(u as NodeId);
                }
            }
            routes[u] = table;
        }
        (routes, proxied)
    }

    /// The wired next hop from `node` towards `dst`, if the packet goes over
    /// the wires.
    pub fn next_hop(&self, node: NodeId, dst: NodeId) -> Option<NodeId> {
        match self.routes.get(node as usize).and_then(|t| t.get(dst as usize)) {
            Some(&h) if h != NONE => Some(h),
            _ => None,
        }
    }

    /// The direction index of `node`'s interface towards `peer`.
    pub fn iface(&self, node: NodeId, peer: NodeId) -> Option<u32> {
        let v = self.ifaces.get(node as usize)?;
        v.binary_search_by_key(&peer, |&(p, _)| p).ok().map(|i| v[i].1)
    }

    pub fn is_wired_only(&self, node: NodeId) -> bool {
        self.wired_only.get(node as usize).copied().unwrap_or(false)
    }

    /// The wired-only hosts `node` answers route requests for.
    pub fn proxied(&self, node: NodeId) -> &[NodeId] {
        self.proxied.get(node as usize).map_or(&[], |v| v.as_slice())
    }

    /// The node at the far end of direction `dir`.
    pub fn far_end(&self, dir: u32) -> NodeId {
        self.dirs[dir as usize].to
    }

    pub fn stats(&self, dir: u32) -> LinkStats {
        self.dirs[dir as usize].stats
    }

    /// Number of directions (twice the number of links).
    pub fn directions(&self) -> u32 {
        self.dirs.len() as u32
    }

    /// Offers `pkt` to direction `dir` at `now`. Refused (handed back) when
    /// the queue is full; otherwise the event to schedule if the transmitter
    /// was idle.
    #[allow(clippy::result_large_err)]
    pub fn send(&mut self, dir: u32, pkt: Packet, now: Time) -> Result<Option<WireEvent>, Packet> {
        let d = &mut self.dirs[dir as usize];
        if d.sending.is_none() {
            return Ok(Some(Self::start(d, dir, pkt, now)));
        }
        if d.queue.len() >= d.limit {
            d.stats.drops += 1;
            return Err(pkt);
        }
        d.queue.push_back(pkt);
        Ok(None)
    }

    fn start(d: &mut Direction, dir: u32, pkt: Packet, now: Time) -> WireEvent {
        let t = Time::for_bits(pkt.size as u64 * 8, d.bps);
        d.stats.busy_ns += t.as_ns();
        d.stats.sent_packets += 1;
        d.stats.sent_bytes += pkt.size as u64;
        d.sending = Some(pkt);
        WireEvent::TxEnd { dir, at: now + t }
    }

    /// Serialisation on `dir` ended: the packet enters the pipe and the next
    /// queued packet starts. Returns (arrival event, next tx-end event).
    pub fn tx_end(&mut self, dir: u32, now: Time) -> (WireEvent, Option<WireEvent>) {
        let d = &mut self.dirs[dir as usize];
        let p = d.sending.take().expect("a tx end without a packet being sent");
        d.pipe.push_back(p);
        let arrive = WireEvent::Arrive { dir, at: now + d.delay };
        let next = d.queue.pop_front().map(|q| Self::start(d, dir, q, now));
        (arrive, next)
    }

    /// The head of `dir`'s pipe reaches the far end: (receiver, packet).
    pub fn arrive(&mut self, dir: u32) -> (NodeId, Packet) {
        let d = &mut self.dirs[dir as usize];
        (d.to, d.pipe.pop_front().expect("an arrival without a packet in the pipe"))
    }

    /// The packet a pending wire event of direction `dir` moves: the one
    /// being serialised (`arrive = false`) or the head of the pipe.
    pub fn event_packet(&self, dir: u32, arrive: bool) -> Option<&Packet> {
        let d = self.dirs.get(dir as usize)?;
        if arrive {
            d.pipe.front()
        } else {
            d.sending.as_ref()
        }
    }

    /// Visits every packet on a wire or in a link queue (end-of-run audit).
    pub fn held(&self, f: &mut dyn FnMut(&Packet)) {
        for d in &self.dirs {
            d.queue.iter().chain(d.sending.iter()).chain(d.pipe.iter()).for_each(&mut *f);
        }
    }

    /// The wired links as undirected edges (for static routing tables).
    pub fn edges(cfg: &WiredConfig) -> Vec<(NodeId, NodeId)> {
        cfg.links.iter().map(|l| (l.a, l.b)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Body, FLOW_NONE};

    fn link(a: NodeId, b: NodeId) -> LinkConfig {
        LinkConfig { a, b, bandwidth_bps: 1_000_000, delay: Time::from_ms(10), queue: 2 }
    }
    fn pkt(uid: u64, size: u32) -> Packet {
        let mut p = Packet::new(uid, 0, 1, 0, FLOW_NONE, Body::Udp { sport: 1, dport: 1, seq: uid }, Time::ZERO);
        p.size = size;
        p
    }

    #[test]
    fn serialisation_queue_and_delay() {
        let mut w = Wired::new(&WiredConfig { links: vec![link(0, 1)], wired_only: vec![] }, 2);
        let d = w.iface(0, 1).unwrap();
        assert_eq!(w.far_end(d), 1);
        // 1250 bytes at 1 Mbit/s = 10 ms.
        let e = w.send(d, pkt(1, 1250), Time::ZERO).unwrap();
        assert_eq!(e, Some(WireEvent::TxEnd { dir: d, at: Time::from_ms(10) }));
        assert_eq!(w.send(d, pkt(2, 1250), Time::ZERO).unwrap(), None);
        assert_eq!(w.send(d, pkt(3, 1250), Time::ZERO).unwrap(), None);
        // Queue of 2 full: the fourth is refused.
        assert_eq!(w.send(d, pkt(4, 1250), Time::ZERO).unwrap_err().uid, 4);
        let (arr, next) = w.tx_end(d, Time::from_ms(10));
        assert_eq!(arr, WireEvent::Arrive { dir: d, at: Time::from_ms(20) });
        assert_eq!(next, Some(WireEvent::TxEnd { dir: d, at: Time::from_ms(20) }));
        let mut held = 0;
        w.held(&mut |_| held += 1);
        assert_eq!(held, 3);
        assert_eq!(w.arrive(d), (1, pkt(1, 1250)));
        // The other direction is independent.
        let r = w.iface(1, 0).unwrap();
        assert_ne!(r, d);
        assert!(w.send(r, pkt(5, 125), Time::ZERO).unwrap().is_some());
        assert_eq!(w.stats(d).drops, 1);
        assert_eq!(w.stats(d).sent_packets, 2);
    }

    #[test]
    fn wired_routes_and_gateways() {
        // 0 (radio) = 1 (radio) = 2 (wired only) = 3 (wired only); 4 alone.
        let cfg = WiredConfig { links: vec![link(0, 1), link(1, 2), link(2, 3)], wired_only: vec![2, 3] };
        let w = Wired::new(&cfg, 5);
        assert_eq!(w.next_hop(0, 3), Some(1));
        assert_eq!(w.next_hop(3, 0), Some(2));
        assert_eq!(w.next_hop(0, 4), None, "outside the component: MANET routing");
        // Wired-only nodes default to gateway 1 (the nearest radio node).
        assert_eq!(w.next_hop(3, 4), Some(2));
        assert_eq!(w.next_hop(2, 4), Some(1));
        assert_eq!(w.next_hop(1, 4), None);
        assert_eq!(w.proxied(1), &[2, 3]);
        assert!(w.proxied(0).is_empty());
        assert_eq!(w.next_hop(4, 0), None);
        assert!(w.is_wired_only(2) && !w.is_wired_only(1));
    }
}
