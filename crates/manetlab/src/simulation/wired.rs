//! The wired stage (`net/wired.rs`): point-to-point links between nodes,
//! their serialisation and propagation events.

use super::{Event, Simulation};
use crate::metrics::DropReason;
use crate::net::{NodeId, Packet};

impl Simulation {
    /// `Event::Wire`: direction `dir` finished serialising (`arrive =
    /// false`) or its oldest propagating packet reaches the far end.
    pub(super) fn wire_event(&mut self, dir: u32, arrive: bool) {
        let now = self.queue.now();
        if !arrive {
            let (arrival, next) = self.wired.tx_end(dir, now);
            self.schedule_wire(arrival);
            if let Some(e) = next {
                self.schedule_wire(e);
            }
        } else {
            let from = self.wired.far_end(dir ^ 1);
            let (to, mut pkt) = self.wired.arrive(dir);
            self.net_input(to, &mut pkt, from, true);
        }
    }

    /// Offers `pkt` to wired interface `dir` of `node` (IFQ drop when its
    /// queue is full).
    pub(super) fn wire_send(&mut self, node: NodeId, dir: u32, pkt: Packet) {
        let now = self.queue.now();
        match self.wired.send(dir, pkt, now) {
            Ok(Some(e)) => self.schedule_wire(e),
            Ok(None) => {}
            Err(p) => self.drop_packet(node, &p, DropReason::Ifq),
        }
    }

    fn schedule_wire(&mut self, e: crate::net::wired::WireEvent) {
        use crate::net::wired::WireEvent;
        match e {
            WireEvent::TxEnd { dir, at } => self.queue.schedule(at, Event::Wire { dir, arrive: false }),
            WireEvent::Arrive { dir, at } => self.queue.schedule(at, Event::Wire { dir, arrive: true }),
        }
    }
}
