//! ARP: resolving a next hop's MAC address before a packet reaches the
//! interface queue (RFC 826), as an optional layer.
//!
//! Node ids are MAC addresses, so resolution only costs what it costs on air:
//! a broadcast request and a unicast reply, either of which can be lost.
//! Two behaviours:
//! - `Ns2` (ns-2's ARP, the one the ELFN paper blames for stalls): one packet
//!   is held per unresolved address; a newer packet replaces it (the older is
//!   dropped with reason ARP) and triggers another request. There is no
//!   request timer: if the request or the reply is lost, nothing happens
//!   until the next packet for that address arrives. When a packet arrives
//!   after `max_requests` unanswered requests, the held packet and the new
//!   one are handed back to routing as a transmission failure
//!   ([`ArpAction::GiveUp`]) and the count restarts: ns-2.35 `mac/arp.cc`
//!   `ARPTable::arpresolve` calls the packet's `xmit_failure_` callback
//!   (which AODV and DSR set, so they repair the route), and drops the
//!   packet with reason ARP only when no callback is set (static routes).
//! - `Queue`: up to `limit` packets held per address (overflow dropped with
//!   reason ARP); the request is repeated every `retry_interval` up to
//!   `max_requests` times; on failure the first held packet is handed to
//!   routing as a link failure and the others are dropped with reason ARP.
//!   Two switches give ns-3's `ArpCache` instead (ns-3.37
//!   `src/internet/model/arp-cache.cc`, `arp-l3-protocol.cc`):
//!   `report_failure = false` drops every held packet with reason ARP and
//!   tells routing nothing (ns-3's `HandleWaitReplyTimeout` only fires its
//!   Drop trace), and `dead_time` keeps the failed address DEAD for that
//!   long (ns-3's `DeadTimeout`, 100 s): every packet for it is dropped
//!   with reason ARP at once, no request is sent, and ARP messages from it
//!   do not revive it (ns-3 updates an entry only from a reply while it
//!   waits for one). After `dead_time` the next packet starts a fresh
//!   resolution. A third, `ns3_cache`, gives ns-3's timing and learning:
//!   one retry timer per cache, not per entry (`ArpCache::StartWaitReplyTimer`,
//!   `HandleWaitReplyTimeout`): every `retry_interval` it repeats the request
//!   of *every* waiting entry, however recent, until the entry has sent
//!   `max_requests` (ns-3: the first request + `MaxRetries` 3 = 4), and
//!   fails it at the next tick after that; so a resolution fails 3-4 s
//!   after its first request, not after exactly 3 intervals. And only an
//!   ARP reply addressed to this node resolves a waiting entry: a request
//!   does not teach its sender (`ArpL3Protocol::Receive`, ns-3 bug 107).
//!   A fourth, `report_drops`, hands every packet ARP loses (for a dead
//!   address, over the hold limit, held when a resolution fails) to routing
//!   as a link failure instead of dropping it: what a protocol that
//!   acknowledges every hop itself notices whatever lost the packet, as
//!   ns-3.37's DSR does (`dsr-routing.cc`: each data packet waits in the
//!   maintenance buffer for a link acknowledgement, `LinkAckTimeout`
//!   100 ms, `TryLinkAcks` 1; `LinkScheduleTimerExpire` then deletes every
//!   cached route with that link and salvages or reports the packets). It
//!   notices at once where ns-3's DSR notices after one or two timeouts.
//!
//! Resolved entries do not expire (addresses never change; ns-3's 120 s
//! `AliveTimeout` re-resolution is not modelled).

use crate::net::{NodeId, Packet};
use crate::sim::idhash::{IdMap, IdSet};
use crate::sim::DropReason;
use crate::sim::Time;
use std::collections::VecDeque;

pub use crate::wire::arp::ARP_BYTES;

#[derive(Clone, Debug, Default, PartialEq)]
pub enum ArpConfig {
    /// No ARP: MAC addresses are known.
    #[default]
    Off,
    Ns2 {
        max_requests: u32,
    },
    Queue {
        limit: usize,
        max_requests: u32,
        retry_interval: Time,
        /// On failure, hand the first held packet to routing as a link
        /// failure (manetlab's default) or drop them all silently (ns-3).
        report_failure: bool,
        /// How long a failed address stays dead (`Time::ZERO`: not at all;
        /// ns-3: 100 s).
        dead_time: Time,
        /// ns-3's cache-wide retry timer and reply-only learning (above).
        ns3_cache: bool,
        /// Every packet ARP loses goes to routing as a link failure (above).
        report_drops: bool,
    },
}

impl ArpConfig {
    /// ns-2's values (ARP_MAX_REQUEST_COUNT).
    pub fn ns2() -> Self {
        ArpConfig::Ns2 { max_requests: 3 }
    }
    pub fn queue() -> Self {
        ArpConfig::Queue {
            limit: 3,
            max_requests: 3,
            retry_interval: Time::from_secs(1),
            report_failure: true,
            dead_time: Time::ZERO,
            ns3_cache: false,
            report_drops: false,
        }
    }
    /// ns-3.37's `ArpCache` defaults: 3 packets held (`PendingQueueSize`),
    /// 4 requests (the first + `MaxRetries` 3) on the cache's 1 s timer
    /// (`WaitReplyTimeout`), a failure not reported to routing, the address
    /// dead for 100 s (`DeadTimeout`).
    pub fn ns3() -> Self {
        ArpConfig::Queue {
            limit: 3,
            max_requests: 4,
            retry_interval: Time::from_secs(1),
            report_failure: false,
            dead_time: Time::from_secs(100),
            ns3_cache: true,
            report_drops: false,
        }
    }
}

pub use crate::wire::arp::ArpOp;

/// What ARP asks the node to do.
#[derive(Debug)]
pub enum ArpAction {
    /// Resolved: put the packet on the interface queue.
    Queue(Packet),
    Drop(Packet, DropReason),
    /// Resolution failed: routing should treat it as a link failure.
    LinkFailure(Packet),
    /// ns-2 mode gave up on the next hop: the packet goes back to routing as
    /// a transmission failure if the protocol takes such callbacks
    /// (`Routing::xmit_failure_callback`), else it is dropped with reason ARP.
    GiveUp(Packet),
    /// Broadcast a request for `target`.
    Request {
        target: NodeId,
    },
    /// Unicast a reply to `to`.
    Reply {
        to: NodeId,
    },
    Timer {
        at: Time,
        timer: ArpTimer,
    },
}

/// An ARP retry timer: the next hop being resolved and the generation of
/// its pending entry (a stale timer, from an entry since resolved or
/// replaced, finds another generation and does nothing).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ArpTimer {
    pub hop: NodeId,
    pub gen: u32,
}

#[derive(Default)]
struct Pending {
    held: VecDeque<Packet>,
    requests: u32,
    /// Generation of the retry timer (Queue mode).
    gen: u64,
}

/// Counters.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ArpStats {
    pub requests_sent: u64,
    pub replies_sent: u64,
    pub resolved: u64,
    pub failures: u64,
    /// Packets dropped because their next hop was dead (`dead_time`);
    /// left out of outputs when zero (outputs without it stay as they were).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dead_drops: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

pub struct Arp {
    cfg: ArpConfig,
    /// Looked up for every unicast packet sent (`output`): keyed by node
    /// id with `sim::idhash` (SipHash cost ~20 ns a look-up); the walks
    /// of `pending` (`on_tick`, `held`) sort what they walk.
    resolved: IdSet<NodeId>,
    pending: IdMap<NodeId, Pending>,
    /// Addresses whose resolution failed, until when they stay dead.
    dead: IdMap<NodeId, Time>,
    /// `ns3_cache`: the generation of the cache's retry timer, whether it
    /// is running, and the waiting addresses in order (reused).
    tick_gen: u32,
    tick_pending: bool,
    scratch: Vec<NodeId>,
    pub stats: ArpStats,
}

impl Arp {
    pub fn new(cfg: ArpConfig) -> Self {
        Arp {
            cfg,
            resolved: IdSet::default(),
            pending: IdMap::default(),
            dead: IdMap::default(),
            tick_gen: 0,
            tick_pending: false,
            scratch: Vec::new(),
            stats: ArpStats::default(),
        }
    }

    #[inline]
    pub fn is_resolved(&self, addr: NodeId) -> bool {
        self.resolved.contains(&addr)
    }

    /// A packet for `pkt.next_hop` wants the interface queue.
    pub fn output(&mut self, now: Time, pkt: Packet, out: &mut Vec<ArpAction>) {
        let hop = pkt.next_hop;
        if self.resolved.contains(&hop) {
            return out.push(ArpAction::Queue(pkt));
        }
        let report_drops = matches!(self.cfg, ArpConfig::Queue { report_drops: true, .. });
        let lose = move |pkt: Packet| {
            if report_drops {
                ArpAction::LinkFailure(pkt)
            } else {
                ArpAction::Drop(pkt, DropReason::Arp)
            }
        };
        if let Some(&until) = self.dead.get(&hop) {
            if now <= until {
                self.stats.dead_drops += 1;
                return out.push(lose(pkt));
            }
            self.dead.remove(&hop);
        }
        let p = self.pending.entry(hop).or_default();
        match self.cfg {
            ArpConfig::Off => out.push(ArpAction::Queue(pkt)),
            ArpConfig::Ns2 { max_requests } => {
                if p.requests >= max_requests {
                    // ns-2 arpresolve: the held packet first, then the new one.
                    if let Some(old) = p.held.pop_front() {
                        out.push(ArpAction::GiveUp(old));
                    }
                    p.requests = 0;
                    self.stats.failures += 1;
                    return out.push(ArpAction::GiveUp(pkt));
                }
                if let Some(old) = p.held.pop_front() {
                    out.push(ArpAction::Drop(old, DropReason::Arp));
                }
                p.held.push_back(pkt);
                p.requests += 1;
                self.stats.requests_sent += 1;
                out.push(ArpAction::Request { target: hop });
            }
            ArpConfig::Queue { limit, retry_interval, ns3_cache, .. } => {
                if p.held.len() >= limit {
                    return out.push(lose(pkt));
                }
                p.held.push_back(pkt);
                if p.requests == 0 && ns3_cache {
                    p.requests = 1;
                    self.stats.requests_sent += 1;
                    out.push(ArpAction::Request { target: hop });
                    if !self.tick_pending {
                        self.tick_pending = true;
                        self.tick_gen = self.tick_gen.wrapping_add(1);
                        let timer = ArpTimer { hop, gen: self.tick_gen };
                        out.push(ArpAction::Timer { at: now + retry_interval, timer });
                    }
                } else if p.requests == 0 {
                    p.requests = 1;
                    p.gen += 1;
                    self.stats.requests_sent += 1;
                    out.push(ArpAction::Request { target: hop });
                    out.push(ArpAction::Timer { at: now + retry_interval, timer: ArpTimer { hop, gen: p.gen as u32 } });
                }
            }
        }
    }

    /// An ARP message from `from` arrived (request for `target`, or reply).
    pub fn input(&mut self, me: NodeId, op: ArpOp, from: NodeId, target: NodeId, out: &mut Vec<ArpAction>) {
        // RFC 826 merge rule: update an entry we already have (here: one we
        // are resolving), and add the sender when we are the target.
        // A dead address is not revived by its messages (ns-3).
        let learns = if matches!(self.cfg, ArpConfig::Queue { ns3_cache: true, .. }) {
            // ns-3: only a reply to this node, for an entry waiting for one.
            op == ArpOp::Reply && target == me && self.pending.contains_key(&from)
        } else {
            target == me || self.pending.contains_key(&from)
        };
        if learns && !self.dead.contains_key(&from) {
            self.learn(from, out);
        }
        if op == ArpOp::Request && target == me {
            self.stats.replies_sent += 1;
            out.push(ArpAction::Reply { to: from });
        }
    }

    fn learn(&mut self, addr: NodeId, out: &mut Vec<ArpAction>) {
        if self.resolved.insert(addr) {
            if let Some(p) = self.pending.remove(&addr) {
                self.stats.resolved += 1;
                out.extend(p.held.into_iter().map(ArpAction::Queue));
            }
        }
    }

    /// Retry timer (Queue mode).
    pub fn on_timer(&mut self, now: Time, t: ArpTimer, out: &mut Vec<ArpAction>) {
        let ArpConfig::Queue { max_requests, retry_interval, report_failure, dead_time, ns3_cache, .. } = self.cfg
        else {
            return;
        };
        if ns3_cache {
            return self.on_tick(now, t, out);
        }
        let hop = t.hop;
        let Some(p) = self.pending.get_mut(&hop) else { return };
        if p.gen as u32 != t.gen {
            return;
        }
        if p.requests >= max_requests {
            self.give_up(hop, now, report_failure, dead_time, out);
        } else {
            p.requests += 1;
            self.stats.requests_sent += 1;
            out.push(ArpAction::Request { target: hop });
            out.push(ArpAction::Timer { at: now + retry_interval, timer: t });
        }
    }

    /// The last request for `hop` went unanswered: the first held packet
    /// goes back to routing as a link failure (when failures are reported),
    /// the others are dropped, and the address may stay dead for a while.
    fn give_up(&mut self, hop: NodeId, now: Time, report_failure: bool, dead_time: Time, out: &mut Vec<ArpAction>) {
        let p = self.pending.remove(&hop).expect("a pending entry");
        self.stats.failures += 1;
        let report_drops = matches!(self.cfg, ArpConfig::Queue { report_drops: true, .. });
        let mut held = p.held.into_iter();
        if report_failure || report_drops {
            if let Some(first) = held.next() {
                out.push(ArpAction::LinkFailure(first));
            }
        }
        if report_drops {
            out.extend(held.map(ArpAction::LinkFailure));
        } else {
            out.extend(held.map(|x| ArpAction::Drop(x, DropReason::Arp)));
        }
        if dead_time > Time::ZERO {
            self.dead.insert(hop, now + dead_time);
        }
    }

    /// `ns3_cache`: the cache's retry timer (ns-3 `HandleWaitReplyTimeout`):
    /// every waiting entry repeats its request, or fails once it has sent
    /// `max_requests`; the timer runs again while some entry repeated.
    fn on_tick(&mut self, now: Time, t: ArpTimer, out: &mut Vec<ArpAction>) {
        let ArpConfig::Queue { max_requests, retry_interval, report_failure, dead_time, .. } = self.cfg else {
            return;
        };
        if t.gen != self.tick_gen || !self.tick_pending {
            return;
        }
        self.tick_pending = false;
        let mut hops = std::mem::take(&mut self.scratch);
        hops.clear();
        hops.extend(self.pending.keys().copied());
        hops.sort_unstable();
        let mut again = false;
        for &hop in &hops {
            let p = self.pending.get_mut(&hop).expect("listed");
            if p.requests < max_requests {
                p.requests += 1;
                self.stats.requests_sent += 1;
                out.push(ArpAction::Request { target: hop });
                again = true;
                continue;
            }
            self.give_up(hop, now, report_failure, dead_time, out);
        }
        self.scratch = hops;
        if again {
            self.tick_pending = true;
            self.tick_gen = self.tick_gen.wrapping_add(1);
            out.push(ArpAction::Timer { at: now + retry_interval, timer: ArpTimer { hop: t.hop, gen: self.tick_gen } });
        }
    }

    /// Visits held packets (audit).
    pub fn held(&self, f: &mut dyn FnMut(&Packet)) {
        let mut keys: Vec<&NodeId> = self.pending.keys().collect();
        keys.sort();
        for k in keys {
            self.pending[k].held.iter().for_each(&mut *f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Body;

    fn pkt(uid: u64, hop: NodeId) -> Packet {
        Packet {
            uid,
            src: 0,
            dst: 9,
            ttl: 64,
            dscp: 0,
            size: 100,
            next_hop: hop,
            prev_hop: 0,
            created: Time::ZERO,
            flow: 0,
            body: Body::Udp { sport: 1, dport: 1, seq: uid },
            sr: Default::default(),
        }
    }

    fn kinds(v: &[ArpAction]) -> Vec<String> {
        v.iter()
            .map(|a| match a {
                ArpAction::Queue(p) => format!("Q{}", p.uid),
                ArpAction::Drop(p, r) => format!("D{}{}", p.uid, r.code()),
                ArpAction::LinkFailure(p) => format!("L{}", p.uid),
                ArpAction::GiveUp(p) => format!("G{}", p.uid),
                ArpAction::Request { target } => format!("req{target}"),
                ArpAction::Reply { to } => format!("rep{to}"),
                ArpAction::Timer { .. } => "T".into(),
            })
            .collect()
    }

    #[test]
    fn ns2_holds_one_packet_and_replaces_it() {
        let mut a = Arp::new(ArpConfig::ns2());
        let mut out = Vec::new();
        a.output(Time::ZERO, pkt(1, 5), &mut out);
        a.output(Time::ZERO, pkt(2, 5), &mut out);
        assert_eq!(kinds(&out), ["req5", "D1ARP", "req5"]);
        out.clear();
        a.input(0, ArpOp::Reply, 5, 0, &mut out);
        assert_eq!(kinds(&out), ["Q2"]);
        out.clear();
        a.output(Time::ZERO, pkt(3, 5), &mut out);
        assert_eq!(kinds(&out), ["Q3"]);
    }

    #[test]
    fn ns2_has_no_timer_and_gives_up_after_max_requests() {
        let mut a = Arp::new(ArpConfig::ns2());
        let mut out = Vec::new();
        for uid in 1..=4 {
            a.output(Time::ZERO, pkt(uid, 7), &mut out);
        }
        assert!(!kinds(&out).contains(&"T".to_string()));
        assert_eq!(kinds(&out), ["req7", "D1ARP", "req7", "D2ARP", "req7", "G3", "G4"]);
        assert_eq!(a.stats.failures, 1);
        // The count restarts: the next packet sends a fresh request.
        out.clear();
        a.output(Time::ZERO, pkt(5, 7), &mut out);
        assert_eq!(kinds(&out), ["req7"]);
    }

    #[test]
    fn queue_mode_retries_then_fails_to_routing() {
        let mut a = Arp::new(ArpConfig::queue());
        let mut out = Vec::new();
        a.output(Time::ZERO, pkt(1, 3), &mut out);
        a.output(Time::ZERO, pkt(2, 3), &mut out);
        a.output(Time::ZERO, pkt(3, 3), &mut out);
        a.output(Time::ZERO, pkt(4, 3), &mut out);
        assert_eq!(kinds(&out), ["req3", "T", "D4ARP"]);
        let tok =
            out.iter().find_map(|x| if let ArpAction::Timer { timer, .. } = x { Some(*timer) } else { None }).unwrap();
        out.clear();
        a.on_timer(Time::from_secs(1), tok, &mut out);
        a.on_timer(Time::from_secs(2), tok, &mut out);
        a.on_timer(Time::from_secs(3), tok, &mut out);
        assert_eq!(kinds(&out), ["req3", "T", "req3", "T", "L1", "D2ARP", "D3ARP"]);
        assert_eq!(a.stats.failures, 1);
    }

    #[test]
    fn ns3_mode_drops_silently_and_keeps_the_address_dead() {
        // ns-3's failure handling on per-entry timers, 3 requests.
        let cfg = ArpConfig::Queue {
            limit: 3,
            max_requests: 3,
            retry_interval: Time::from_secs(1),
            report_failure: false,
            dead_time: Time::from_secs(100),
            ns3_cache: false,
            report_drops: false,
        };
        let mut a = Arp::new(cfg);
        let mut out = Vec::new();
        a.output(Time::ZERO, pkt(1, 3), &mut out);
        a.output(Time::ZERO, pkt(2, 3), &mut out);
        let tok =
            out.iter().find_map(|x| if let ArpAction::Timer { timer, .. } = x { Some(*timer) } else { None }).unwrap();
        out.clear();
        for s in 1..=3 {
            a.on_timer(Time::from_secs(s), tok, &mut out);
        }
        // No link failure for routing: both held packets dropped.
        assert_eq!(kinds(&out), ["req3", "T", "req3", "T", "D1ARP", "D2ARP"]);
        out.clear();
        // Dead for 100 s: dropped at once, no request; its request does not revive it.
        a.output(Time::from_secs(50), pkt(3, 3), &mut out);
        a.input(0, ArpOp::Request, 3, 0, &mut out);
        assert_eq!(kinds(&out), ["D3ARP", "rep3"]);
        assert!(!a.is_resolved(3));
        assert_eq!(a.stats.dead_drops, 1);
        out.clear();
        // After the dead time, a fresh resolution.
        a.output(Time::from_secs(104), pkt(4, 3), &mut out);
        assert_eq!(kinds(&out), ["req3", "T"]);
    }

    #[test]
    fn ns3_cache_retries_every_waiting_entry_on_one_timer() {
        // ns-3.37 ArpCache: one timer per cache. Entry 3 starts at 0 s (timer
        // due at 1 s), entry 5 at 0.9 s: at the 1 s tick both repeat their
        // request, so 5's first retry comes 0.1 s after its first request.
        let mut a = Arp::new(ArpConfig::ns3());
        let mut out = Vec::new();
        a.output(Time::ZERO, pkt(1, 3), &mut out);
        a.output(Time::from_ms(900), pkt(2, 5), &mut out);
        assert_eq!(kinds(&out), ["req3", "T", "req5"], "one timer for the cache");
        let (mut at, mut tok) = out
            .iter()
            .find_map(|x| if let ArpAction::Timer { at, timer } = x { Some((*at, *timer)) } else { None })
            .unwrap();
        assert_eq!(at, Time::from_secs(1));
        let mut seen = Vec::new();
        // 4 requests each (1 + MaxRetries 3), then failure at the next tick.
        for _ in 0..4 {
            out.clear();
            a.on_timer(at, tok, &mut out);
            seen.push(format!("{}:{}", at.as_secs_f64(), kinds(&out).join(" ")));
            if let Some((t, k)) =
                out.iter().find_map(|x| if let ArpAction::Timer { at, timer } = x { Some((*at, *timer)) } else { None })
            {
                (at, tok) = (t, k);
            }
        }
        assert_eq!(seen, ["1:req3 req5 T", "2:req3 req5 T", "3:req3 req5 T", "4:D1ARP D2ARP"]);
        assert_eq!(a.stats.requests_sent, 8);
        assert_eq!(a.stats.failures, 2);
        // Both dead: dropped at once.
        out.clear();
        a.output(Time::from_secs(5), pkt(6, 5), &mut out);
        assert_eq!(kinds(&out), ["D6ARP"]);
    }

    #[test]
    fn ns3_cache_learns_only_from_a_reply_to_itself() {
        let mut a = Arp::new(ArpConfig::ns3());
        let mut out = Vec::new();
        // A request for this node is answered but does not teach the sender.
        a.input(4, ArpOp::Request, 2, 4, &mut out);
        assert_eq!(kinds(&out), ["rep2"]);
        assert!(!a.is_resolved(2));
        out.clear();
        a.output(Time::ZERO, pkt(1, 6), &mut out);
        out.clear();
        // A request from the waited-for address does not resolve it either.
        a.input(4, ArpOp::Request, 6, 9, &mut out);
        assert!(out.is_empty());
        a.input(4, ArpOp::Reply, 6, 4, &mut out);
        assert_eq!(kinds(&out), ["Q1"]);
        assert!(a.is_resolved(6));
    }

    #[test]
    fn a_request_is_answered_and_teaches_the_sender() {
        let mut a = Arp::new(ArpConfig::ns2());
        let mut out = Vec::new();
        a.input(4, ArpOp::Request, 2, 4, &mut out);
        assert_eq!(kinds(&out), ["rep2"]);
        assert!(a.is_resolved(2));
        out.clear();
        a.input(4, ArpOp::Request, 3, 9, &mut out);
        assert!(out.is_empty(), "not for me: no reply");
        assert!(!a.is_resolved(3), "not for me and not pending: not learned");
        // A reply from an address we are resolving is learned.
        a.output(Time::ZERO, pkt(1, 6), &mut out);
        out.clear();
        a.input(4, ArpOp::Request, 6, 9, &mut out);
        assert_eq!(kinds(&out), ["Q1"]);
    }

    #[test]
    fn report_drops_hands_every_lost_packet_to_routing() {
        // ns-3's ARP with every loss reported (as ns-3's DSR notices by its
        // link acknowledgements): the failed resolution's held packets, then
        // every packet for the dead address, reach routing as link failures.
        let ns3 = |report_drops| ArpConfig::Queue {
            limit: 2,
            max_requests: 4,
            retry_interval: Time::from_secs(1),
            report_failure: false,
            dead_time: Time::from_secs(100),
            ns3_cache: true,
            report_drops,
        };
        let mut a = Arp::new(ns3(true));
        let mut out = Vec::new();
        for uid in 1..=3 {
            a.output(Time::ZERO, pkt(uid, 3), &mut out);
        }
        // The third is over the hold limit of 2.
        assert_eq!(kinds(&out), ["req3", "T", "L3"]);
        let tok =
            out.iter().find_map(|x| if let ArpAction::Timer { timer, .. } = x { Some(*timer) } else { None }).unwrap();
        out.clear();
        let mut tok = tok;
        for s in 1..=4 {
            a.on_timer(Time::from_secs(s), tok, &mut out);
            if let Some(t) =
                out.iter().rev().find_map(|x| if let ArpAction::Timer { timer, .. } = x { Some(*timer) } else { None })
            {
                tok = t;
            }
        }
        assert_eq!(kinds(&out), ["req3", "T", "req3", "T", "req3", "T", "L1", "L2"]);
        out.clear();
        a.output(Time::from_secs(50), pkt(4, 3), &mut out);
        assert_eq!(kinds(&out), ["L4"]);
        assert_eq!((a.stats.failures, a.stats.dead_drops), (1, 1));
        // Without the switch the same packets are dropped with reason ARP.
        let mut b = Arp::new(ns3(false));
        out.clear();
        for uid in 1..=3 {
            b.output(Time::ZERO, pkt(uid, 3), &mut out);
        }
        assert_eq!(kinds(&out), ["req3", "T", "D3ARP"]);
    }
}
