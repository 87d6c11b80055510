//! Blind flooding with duplicate suppression, a baseline for the routing
//! protocols (`routing.protocol = "flooding"`, see `docs/flooding.md`).
//!
//! Every data packet is broadcast; every node that receives a copy it has
//! not seen before rebroadcasts it once (after an optional random jitter)
//! until the copy has travelled `ttl` hops. Copies are recognised by
//! (origin, packet uid), the duplicate packet detection of SMF (RFC 6621
//! §6: a tuple of source address and packet identifier kept in a cache for
//! a hold time). The destination hands the first copy up and discards the
//! rest. No control messages, no routing state beyond the cache: the cost
//! is one transmission per node per packet (the "broadcast storm" of Ni et
//! al., MobiCom 1999), which is what a routing protocol is measured against.
//!
//! This file is the whole protocol: its configuration, its `[routing]` keys
//! and its registration (one line in `net/routing/mod.rs`).

use super::delayed::Parked;
use super::{NetEnv, Origin, RouteCtx, RouteTimer, Routing, RoutingConfig, RoutingModel, RoutingStats};
use crate::net::{NodeId, Packet, BROADCAST};
use crate::sim::params::{ParamError, Params};
use crate::sim::{DropReason, Time};
use std::collections::{HashSet, VecDeque};

/// Flooding parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct FloodingConfig {
    /// Hops a copy may travel: a node that receives a copy after `ttl`
    /// hops does not rebroadcast it (TTL drop). 1 = the source's neighbours
    /// only.
    pub ttl: u8,
    /// How long a (origin, uid) entry stays in the duplicate cache. A copy
    /// arriving later is taken for a new packet.
    pub cache_lifetime: Time,
    /// Rebroadcasts wait a uniform random delay in [0, jitter) (the
    /// message-forwarding jitter of RFC 5148; 0 = at once), so that neighbours of one sender do not all
    /// transmit at the same instant.
    pub jitter: Time,
}

impl Default for FloodingConfig {
    fn default() -> Self {
        FloodingConfig { ttl: Packet::DEFAULT_TTL, cache_lifetime: Time::from_secs(30), jitter: Time::from_ms(10) }
    }
}

/// One node's flooding agent.
pub struct Flooding {
    cfg: FloodingConfig,
    /// Packets seen, by (origin, uid).
    seen: HashSet<(NodeId, u64)>,
    /// The same entries with their expiry, oldest first (a constant
    /// lifetime keeps this in expiry order).
    expiry: VecDeque<(Time, NodeId, u64)>,
    /// Rebroadcasts waiting out their jitter.
    parked: Parked,
    originated: u64,
    rebroadcast: u64,
    duplicates: u64,
    ttl_expired: u64,
}

impl Flooding {
    pub fn new(cfg: FloodingConfig) -> Flooding {
        Flooding {
            cfg,
            seen: HashSet::new(),
            expiry: VecDeque::new(),
            parked: Parked::default(),
            originated: 0,
            rebroadcast: 0,
            duplicates: 0,
            ttl_expired: 0,
        }
    }

    /// Records a copy; false if it was already in the cache.
    fn first_copy(&mut self, now: Time, pkt: &Packet) -> bool {
        while let Some(&(t, o, u)) = self.expiry.front() {
            if t > now {
                break;
            }
            self.expiry.pop_front();
            self.seen.remove(&(o, u));
        }
        let first = self.seen.insert((pkt.src, pkt.uid));
        if first {
            self.expiry.push_back((now + self.cfg.cache_lifetime, pkt.src, pkt.uid));
        }
        first
    }

    fn duplicate(&mut self, ctx: &mut RouteCtx, pkt: Packet) {
        self.duplicates += 1;
        ctx.drop(pkt, DropReason::Dup);
    }
}

impl Routing for Flooding {
    fn name(&self) -> &'static str {
        "flooding"
    }

    fn route(&mut self, ctx: &mut RouteCtx, mut pkt: Packet, origin: Origin) {
        if !self.first_copy(ctx.now, &pkt) {
            return self.duplicate(ctx, pkt);
        }
        pkt.next_hop = BROADCAST;
        if origin == Origin::Local {
            self.originated += 1;
            return ctx.transmit(pkt);
        }
        // The kernel decremented the TTL once per hop travelled.
        let hops = Packet::DEFAULT_TTL.saturating_sub(pkt.ttl);
        if hops >= self.cfg.ttl {
            self.ttl_expired += 1;
            return ctx.drop(pkt, DropReason::Ttl);
        }
        self.rebroadcast += 1;
        if let Some(now) = self.parked.send_later(ctx, pkt, self.cfg.jitter, |slot| RouteTimer::with(0, slot, 0)) {
            ctx.transmit(now);
        }
    }

    fn accept_local(&mut self, ctx: &mut RouteCtx, pkt: &Packet) -> bool {
        if self.first_copy(ctx.now, pkt) {
            return true;
        }
        self.duplicate(ctx, *pkt);
        false
    }

    fn on_timer(&mut self, ctx: &mut RouteCtx, t: RouteTimer) {
        if let Some(p) = self.parked.take(t.a as usize) {
            ctx.transmit(p);
        }
    }

    fn held(&self, f: &mut dyn FnMut(&Packet)) {
        self.parked.iter().for_each(f);
    }

    fn stats(&self) -> RoutingStats {
        let mut s = RoutingStats::default();
        for (name, n) in [
            ("originated", self.originated),
            ("rebroadcast", self.rebroadcast),
            ("duplicate", self.duplicates),
            ("ttl_expired", self.ttl_expired),
        ] {
            if n > 0 {
                s.add_event(name, n);
            }
        }
        s
    }
}

/// `routing.protocol = "flooding"`: keys `ttl`, `cache_lifetime`, `jitter`.
impl RoutingModel for Flooding {
    const NAME: &'static str = "flooding";
    const KEYS: &'static [&'static str] = &["ttl", "cache_lifetime", "jitter"];

    fn parse(p: &dyn Params) -> Result<RoutingConfig, ParamError> {
        let mut c = FloodingConfig::default();
        if let Some(v) = p.uint_in("ttl", 1, Packet::DEFAULT_TTL as u32)? {
            c.ttl = v as u8;
        }
        p.set_positive("cache_lifetime", &mut c.cache_lifetime)?;
        if let Some(j) = p.duration("jitter")? {
            c.jitter = j.v;
        }
        Ok(RoutingConfig::Flooding(c))
    }

    fn build(cfg: &RoutingConfig, env: &NetEnv) -> Result<Vec<Box<dyn Routing>>, String> {
        let RoutingConfig::Flooding(c) = cfg else { unreachable!("flooding built from {cfg:?}") };
        Ok((0..env.positions.len()).map(|_| Box::new(Flooding::new(c.clone())) as Box<dyn Routing>).collect())
    }
}
