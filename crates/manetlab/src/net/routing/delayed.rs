//! Packets a routing protocol holds back for a short random delay (the
//! broadcast jitter of RFC 3561 §6.3 / RFC 4728 §8.2), parked in reusable
//! slots: a slot number travels in the timer (`RouteTimer::a`), and no allocation
//! happens once the pool has grown to its working size.

use super::RouteCtx;
use crate::net::Packet;
use crate::sim::Time;

#[derive(Default)]
pub struct Parked {
    slots: Vec<Option<Packet>>,
    free: Vec<usize>,
}

impl Parked {
    /// Parks `pkt`; returns its slot.
    pub fn park(&mut self, pkt: Packet) -> usize {
        match self.free.pop() {
            Some(s) => {
                self.slots[s] = Some(pkt);
                s
            }
            None => {
                self.slots.push(Some(pkt));
                self.slots.len() - 1
            }
        }
    }

    /// Takes the packet parked in `slot` (None if the slot is empty).
    pub fn take(&mut self, slot: usize) -> Option<Packet> {
        let p = self.slots.get_mut(slot).and_then(Option::take)?;
        self.free.push(slot);
        Some(p)
    }

    /// Parks `pkt` for a uniform delay in [0, max) and sets a timer whose
    /// is `timer(slot)`; the protocol passes the slot back to `take`. With `max` = 0
    /// nothing is parked and the packet comes back to be sent now.
    pub fn send_later(
        &mut self,
        ctx: &mut RouteCtx,
        pkt: Packet,
        max: Time,
        timer: impl FnOnce(u32) -> super::RouteTimer,
    ) -> Option<Packet> {
        if max == Time::ZERO {
            return Some(pkt);
        }
        let delay = jitter(ctx, max);
        let slot = self.park(pkt);
        ctx.timer(ctx.now + delay, timer(slot as u32));
        None
    }

    pub fn iter(&self) -> impl Iterator<Item = &Packet> {
        self.slots.iter().flatten()
    }
}

/// A delay drawn uniformly in [0, max) from the node's routing stream.
pub fn jitter(ctx: &mut RouteCtx, max: Time) -> Time {
    Time::from_secs_f64(ctx.rng.range_f64(0.0, max.as_secs_f64()))
}
