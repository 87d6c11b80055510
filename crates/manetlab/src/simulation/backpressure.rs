//! The backpressure stage (`queue/backpressure.rs`): hop-by-hop per-flow
//! counts kept beside the interface queues. The pipeline calls these hooks
//! at fixed points; each is a no-op when backpressure is off.

use super::{Event, Simulation};
use crate::mac::{Frame, FrameKind};
use crate::net::{Body, NodeId, Packet, BROADCAST};

impl Simulation {
    /// The MAC of `node` delivered `pkt` to its next hop.
    pub(super) fn bp_tx_success(&mut self, node: NodeId, pkt: &Packet) {
        let now = self.queue.now();
        if let Some(bp) = self.bp.as_mut() {
            bp.on_tx_success(node, now, pkt);
            if bp.left(node, pkt) {
                self.bp_wake_all();
            }
        }
    }

    /// `pkt` left `node` (given up by the MAC).
    pub(super) fn bp_left(&mut self, node: NodeId, pkt: &Packet) {
        if let Some(bp) = self.bp.as_mut() {
            if bp.left(node, pkt) {
                self.bp_wake_all();
            }
        }
    }

    /// `pkts` left `node`'s queue (reclaimed by routing).
    pub(super) fn bp_left_all(&mut self, node: NodeId, pkts: &[Packet]) {
        if let Some(bp) = self.bp.as_mut() {
            let mut wake = false;
            for p in pkts {
                wake |= bp.left(node, p);
            }
            if wake {
                self.bp_wake_all();
            }
        }
    }

    /// `pkt` entered `node`'s queue, possibly pushing `pushed` out; true when
    /// blocked nodes must look at their queues again.
    pub(super) fn bp_entered(&mut self, node: NodeId, pkt: &Packet, pushed: Option<&Packet>) -> bool {
        let Some(bp) = self.bp.as_mut() else { return false };
        bp.entered(node, pkt);
        pushed.is_some_and(|v| bp.left(node, v))
    }

    /// Backpressure refuses a UDP datagram at its source's socket.
    pub(super) fn bp_refuses(&self, node: NodeId, pkt: &Packet) -> bool {
        self.bp.as_ref().is_some_and(|bp| matches!(pkt.body, Body::Udp { .. }) && !bp.may_inject(node, pkt))
    }

    /// `node` has queued packets but none is eligible: it waits, and looks
    /// again when its estimates go stale (not with oracle knowledge).
    pub(super) fn bp_block(&mut self, node: NodeId) {
        let now = self.queue.now();
        if let Some(bp) = self.bp.as_mut() {
            if !bp.is_blocked(node) {
                bp.set_blocked(node);
                if bp.config().knowledge != crate::queue::Knowledge::Oracle {
                    let at = now + bp.config().stale;
                    self.queue.schedule(at, Event::Backpressure { node });
                }
            }
        }
    }

    /// `Event::Backpressure`: a blocked node's estimates went stale.
    pub(super) fn bp_recheck(&mut self, node: NodeId) {
        if self.bp.as_ref().is_some_and(|b| b.is_blocked(node)) {
            self.bp.as_mut().unwrap().clear_blocked(node);
            self.feed_mac(node);
        }
    }

    /// Backpressure: `node` decoded a data frame carrying `pkt` from `from`.
    pub(super) fn bp_heard(&mut self, node: NodeId, from: NodeId, pkt: &Packet) {
        let now = self.queue.now();
        if let Some(bp) = self.bp.as_mut() {
            if pkt.next_hop != BROADCAST && bp.on_heard(node, from, now, pkt) {
                bp.clear_blocked(node);
                self.feed_mac(node);
            }
        }
    }

    /// Backpressure (oracle): every blocked node looks at its queue again.
    pub(super) fn bp_wake_all(&mut self) {
        let mut wake = std::mem::take(&mut self.bp_wake);
        if let Some(bp) = self.bp.as_mut() {
            bp.take_blocked(&mut wake);
        }
        for &n in &wake {
            self.feed_mac(n);
        }
        self.bp_wake = wake;
    }
}

/// `node` puts `frame` on the air (a free function: the frame is borrowed
/// from the node's MAC while the backpressure state changes).
pub(super) fn bp_transmit(bp: &mut crate::queue::Backpressure, node: NodeId, frame: &Frame) {
    if let (FrameKind::Data, Some(p)) = (frame.kind, frame.packet.as_ref()) {
        bp.on_transmit(node, p);
    }
}
