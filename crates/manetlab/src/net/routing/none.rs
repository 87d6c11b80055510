//! No routing (`routing.protocol = "none"`): one-hop networks such as the
//! beaconing (node discovery) app of `app/beacon.rs`.
//!
//! A broadcast goes on the air as it is; a unicast packet is sent straight
//! to its destination as if it were a neighbour (the MAC's retries decide
//! whether it is). Nothing is forwarded: a packet received for another
//! node is dropped (`NRTE`). The protocol keeps no state at all, so a
//! million nodes cost nothing here (the static tables of `static_routes.rs`
//! would need N x N entries).
//!
//! This file is the whole protocol: its configuration, its (empty)
//! `[routing]` keys and its registration (one line in `net/routing/mod.rs`).

use super::{NetEnv, Origin, RouteCtx, Routing, RoutingConfig, RoutingModel};
use crate::net::{Packet, BROADCAST};
use crate::sim::params::{ParamError, Params};
use crate::sim::DropReason;

/// No parameters.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct NoRoutingConfig;

/// One node's (absent) routing agent.
pub struct NoRouting;

impl Routing for NoRouting {
    fn name(&self) -> &'static str {
        "none"
    }
    /// Sends or drops at once: holds nothing.
    fn held(&self, _f: &mut dyn FnMut(&Packet)) {}
    fn route(&mut self, ctx: &mut RouteCtx, mut pkt: Packet, origin: Origin) {
        if origin == Origin::Forward {
            return ctx.drop(pkt, DropReason::Nrte);
        }
        pkt.next_hop = if pkt.dst == BROADCAST { BROADCAST } else { pkt.dst };
        ctx.transmit(pkt);
    }
}

impl RoutingModel for NoRouting {
    const NAME: &'static str = "none";
    const KEYS: &'static [&'static str] = &[];
    const ON_WIRED_ONLY: bool = true;

    fn parse(_p: &dyn Params) -> Result<RoutingConfig, ParamError> {
        Ok(RoutingConfig::NoRouting(NoRoutingConfig))
    }

    fn build(_cfg: &RoutingConfig, env: &NetEnv) -> Result<Vec<Box<dyn Routing>>, String> {
        Ok((0..env.positions.len()).map(|_| Box::new(NoRouting) as Box<dyn Routing>).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::routing::NetAction;
    use crate::net::Body;
    use crate::sim::{Purpose, RngStream, Time};

    #[test]
    fn broadcasts_and_direct_sends_go_out_forwarding_is_dropped() {
        let mut r = NoRouting;
        let mut out = Vec::new();
        let mut rng = RngStream::new(1, 0, Purpose::Routing, 0);
        let mut fates = crate::sim::FateTable::default();
        let mut ctx = RouteCtx { now: Time::ZERO, node: 0, out: &mut out, rng: &mut rng, uids: &mut fates };
        let b = Packet::new(0, 0, BROADCAST, 28, 0, Body::Udp { sport: 1, dport: 1, seq: 0 }, Time::ZERO);
        r.route(&mut ctx, b, Origin::Local);
        let u = Packet::new(1, 0, 7, 28, 0, Body::Udp { sport: 1, dport: 1, seq: 0 }, Time::ZERO);
        r.route(&mut ctx, u, Origin::Local);
        r.route(&mut ctx, u, Origin::Forward);
        assert!(matches!(out[0], NetAction::Transmit(p) if p.next_hop == BROADCAST));
        assert!(matches!(out[1], NetAction::Transmit(p) if p.next_hop == 7));
        assert!(matches!(out[2], NetAction::Drop(_, DropReason::Nrte)));
    }
}
