//! The ARP stage (`net/arp.rs`): between routing and the interface queue
//! for unicast packets when `[arp]` is on; ARP messages are demultiplexed
//! here on input, before the network layer sees them.

use super::{Event, Simulation};
use crate::metrics::trace::{Action, Layer};
use crate::metrics::DropReason;
use crate::net::arp::{ArpAction, ArpOp, ARP_BYTES};
use crate::net::{Body, NodeId, Packet, BROADCAST, FLOW_NONE};

impl Simulation {
    /// A unicast packet routed at `node` goes through ARP to the queue.
    pub(super) fn arp_output(&mut self, node: NodeId, pkt: &Packet) {
        let arp = self.nodes[node as usize].arp.as_mut().expect("ARP is on at this node");
        // A resolved next hop (nearly every packet): `Arp::output` would
        // only hand it back as `ArpAction::Queue`, which `do_arp` enqueues;
        // enqueued here without the action vector and the two copies.
        if arp.is_resolved(pkt.next_hop) {
            return self.enqueue(node, pkt);
        }
        let mut acts = std::mem::take(&mut self.arp_out);
        let now = self.queue.now();
        arp.output(now, *pkt, &mut acts);
        self.do_arp(node, &mut acts);
        self.arp_out = acts;
    }

    /// An ARP message decoded at `node` (ignored when ARP is off).
    pub(super) fn arp_input(&mut self, node: NodeId, op: ArpOp, sender: NodeId, target: NodeId) {
        if let Some(a) = self.nodes[node as usize].arp.as_mut() {
            let mut acts = std::mem::take(&mut self.arp_out);
            a.input(node, op, sender, target, &mut acts);
            self.do_arp(node, &mut acts);
            self.arp_out = acts;
        }
    }

    /// An ARP timer fired at `node`.
    pub(super) fn arp_timer(&mut self, node: NodeId, timer: crate::net::arp::ArpTimer) {
        let now = self.queue.now();
        let mut acts = std::mem::take(&mut self.arp_out);
        if let Some(a) = self.nodes[node as usize].arp.as_mut() {
            a.on_timer(now, timer, &mut acts);
        }
        self.do_arp(node, &mut acts);
        self.arp_out = acts;
    }

    /// Carries out ARP's actions (drains `acts`).
    pub(super) fn do_arp(&mut self, node: NodeId, acts: &mut Vec<ArpAction>) {
        let now = self.queue.now();
        for a in acts.drain(..) {
            match a {
                ArpAction::Queue(p) => self.enqueue(node, &p),
                ArpAction::Drop(p, why) => self.drop_packet(node, &p, why),
                ArpAction::LinkFailure(p) => {
                    self.nodes[node as usize].net.link_failures += 1;
                    self.obs.link_failure(now, node, p.next_hop);
                    self.with_routing(node, |r, ctx| r.on_link_failure(ctx, p));
                }
                // ns-2.35 arpresolve: a packet with a transmit-failure
                // callback goes back to routing, others are dropped (ARP).
                ArpAction::GiveUp(p) if self.nodes[node as usize].routing.xmit_failure_callback() => {
                    self.nodes[node as usize].net.link_failures += 1;
                    self.with_routing(node, |r, ctx| r.on_link_failure(ctx, p));
                }
                ArpAction::GiveUp(p) => self.drop_packet(node, &p, DropReason::Arp),
                ArpAction::Request { target } => self.send_arp(node, ArpOp::Request, BROADCAST, target),
                ArpAction::Reply { to } => self.send_arp(node, ArpOp::Reply, to, to),
                ArpAction::Timer { at, timer } => self.queue.schedule(at.max(now), Event::Arp { node, timer }),
            }
        }
    }
    fn send_arp(&mut self, node: NodeId, op: ArpOp, dst: NodeId, target: NodeId) {
        let pkt = Packet {
            uid: self.obs.metrics.fate.create_untracked(),
            src: node,
            dst,
            ttl: 1,
            dscp: 0,
            size: ARP_BYTES,
            next_hop: dst,
            prev_hop: node,
            created: self.queue.now(),
            flow: FLOW_NONE,
            body: Body::Arp { op, sender: node, target },
            sr: Default::default(),
        };
        self.trace(node, Layer::Ifq, Action::Send, &pkt, None);
        self.enqueue(node, &pkt);
    }
}
