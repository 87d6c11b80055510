//! The gateway stage (`net/gateway.rs`): window clamp and pacing on TCP
//! packets crossing between the wire and the radio at the Internet gateway.

use super::{Event, Simulation};
use crate::metrics::trace::{Action, Layer};
use crate::metrics::DropReason;
use crate::net::gateway::Verdict;
use crate::net::routing::Origin;
use crate::net::{NodeId, Packet};

impl Simulation {
    fn is_gateway(&self, node: NodeId) -> bool {
        self.gateway.as_ref().is_some_and(|g| g.node() == node)
    }

    /// A packet from the radio leaving `node` on a wire: what goes on now
    /// (unchanged away from the gateway).
    pub(super) fn gateway_to_wire(&mut self, node: NodeId, pkt: Packet) -> Option<Packet> {
        if !self.is_gateway(node) {
            return Some(pkt);
        }
        let now = self.queue.now();
        let v = self.gateway.as_mut().unwrap().to_wire(pkt, now);
        self.gateway_verdict(node, v, true)
    }

    /// A packet from a wire entering the radio at `node`.
    pub(super) fn gateway_to_radio(&mut self, node: NodeId, pkt: Packet) -> Option<Packet> {
        if !self.is_gateway(node) {
            return Some(pkt);
        }
        let now = self.queue.now();
        let v = self.gateway.as_mut().unwrap().to_radio(pkt, now);
        self.gateway_verdict(node, v, false)
    }

    /// `Event::Gateway`: a shaper releases its head packet.
    pub(super) fn gateway_release(&mut self, to_wire: bool) {
        let now = self.queue.now();
        let gw = self.gateway.as_mut().expect("a gateway event without a gateway");
        let (node, (pkt, next)) = (gw.node(), gw.release(to_wire, now));
        if let Some(at) = next {
            self.queue.schedule(at, Event::Gateway { to_wire });
        }
        if to_wire {
            self.trace(node, Layer::Router, Action::Forward, &pkt, None);
            let dir = self.wired.iface(node, pkt.next_hop).expect("wired next hops are wired neighbours");
            self.wire_send(node, dir, pkt);
        } else {
            self.with_routing(node, |r, ctx| r.route(ctx, pkt, Origin::Local));
        }
    }

    /// Carries out a gateway verdict: the packet to send on now, if any.
    fn gateway_verdict(&mut self, node: NodeId, v: Verdict, to_wire: bool) -> Option<Packet> {
        match v {
            Verdict::Pass(p) => Some(p),
            Verdict::Held(at) => {
                if let Some(at) = at {
                    self.queue.schedule(at, Event::Gateway { to_wire });
                }
                None
            }
            Verdict::Drop(p) => {
                self.drop_packet(node, &p, DropReason::Pace);
                None
            }
        }
    }
}
