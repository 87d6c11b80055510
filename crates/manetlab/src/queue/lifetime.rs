//! A lifetime for packets in the interface queue (`[queue] max_delay`):
//! ns-3's `WifiMacQueue` `MaxDelay` (default 500 ms, ns-3.37
//! `src/wifi/model/wifi-mac-queue.cc`). ns-3 stamps every MPDU with an
//! expiry time (enqueue time + MaxDelay) when it enters the queue and, each
//! time the MAC looks at the head of the queue for its next transmission,
//! removes the MPDUs whose expiry time has passed (trace `Expired`).
//!
//! Here the kernel stamps a packet when the interface queue accepts it
//! ([`Lifetime::entered`]) and asks, when the queue hands the packet to
//! the MAC, whether its lifetime has ended ([`Lifetime::expired`], or
//! [`Lifetime::take`] for the instant it ends); an expired packet is
//! dropped with reason IFQ instead of being sent. ns-3.37 removes an MPDU
//! when `expiryTime <= now` (`WifiMacQueueContainer::DoExtractExpiredMpdus`,
//! the path `WipeAllExpiredMpdus` and `PeekByQueueId` take). The
//! disciplines themselves stay unaware of time.
//!
//! The stamps are kept in arrival order: a FIFO discipline hands packets
//! out in that order, so the lookup finds its stamp at the front; a
//! discipline that reorders (control lane, fair queueing) costs a scan of
//! the stamps ahead of it, bounded by the queue length. Packets that leave
//! the queue another way (a link failure reclaims them, fair queueing
//! pushes one out) are [`Lifetime::forget`]-ed.
//!
//! ns-3 also ends the lifetime of the frame the MAC is retrying (it stays
//! at the head of its queue): with `queue.expire_in_flight` the kernel
//! hands the MAC the instant from [`Lifetime::take`] and the MAC drops the
//! packet as ns-3.37 does (`mac/dcf/ns3.rs`); without it a packet the MAC
//! has taken is retried to the retry limit.

use crate::sim::Time;
use std::collections::VecDeque;

pub struct Lifetime {
    max_delay: Time,
    /// (packet uid, time it entered the queue), in arrival order.
    stamps: VecDeque<(u64, Time)>,
}

impl Lifetime {
    /// A lifetime of `max_delay` for a queue of at most `limit` packets.
    pub fn new(max_delay: Time, limit: usize) -> Lifetime {
        Lifetime { max_delay, stamps: VecDeque::with_capacity(limit.saturating_add(1).min(4096)) }
    }

    /// The queue accepted packet `uid` at `now`.
    pub fn entered(&mut self, uid: u64, now: Time) {
        self.stamps.push_back((uid, now));
    }

    /// Packet `uid` left the queue other than to the MAC.
    pub fn forget(&mut self, uid: u64) {
        if let Some(i) = self.stamps.iter().position(|s| s.0 == uid) {
            self.stamps.remove(i);
        }
    }

    /// Packet `uid` leaves the queue for the MAC: the instant its lifetime
    /// ends (`None`: never stamped).
    pub fn take(&mut self, uid: u64) -> Option<Time> {
        let i = self.stamps.iter().position(|s| s.0 == uid)?;
        let (_, at) = self.stamps.remove(i).expect("index in range");
        Some(at + self.max_delay)
    }

    /// Packet `uid` leaves the queue for the MAC at `now`: true if its
    /// lifetime has ended (ns-3.37: `expiryTime <= now`).
    pub fn expired(&mut self, uid: u64, now: Time) -> bool {
        self.take(uid).is_some_and(|end| end <= now)
    }

    /// Packets stamped (and not yet left).
    pub fn len(&self) -> usize {
        self.stamps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.stamps.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lifetime_ends_at_enqueue_plus_max_delay() {
        let mut l = Lifetime::new(Time::from_ms(500), 10);
        l.entered(1, Time::from_ms(0));
        l.entered(2, Time::from_ms(100));
        l.entered(3, Time::from_ms(200));
        l.entered(4, Time::from_ms(300));
        // ns-3.37 removes an MPDU once expiryTime (enqueue + MaxDelay) <= now.
        assert!(!l.expired(1, Time::from_ms(500) - Time::from_ns(1)));
        assert!(l.expired(2, Time::from_ms(600)));
        assert!(!l.expired(3, Time::from_ms(650)));
        assert_eq!(l.take(4), Some(Time::from_ms(800)));
        assert_eq!(l.take(4), None);
        assert!(l.is_empty());
    }

    #[test]
    fn out_of_order_and_forgotten_packets_keep_their_own_stamps() {
        let mut l = Lifetime::new(Time::from_ms(500), 10);
        l.entered(1, Time::from_ms(0));
        l.entered(2, Time::from_ms(400));
        l.entered(3, Time::from_ms(450));
        l.forget(1);
        // 3 leaves first (a control lane), then 2: each by its own stamp.
        assert!(!l.expired(3, Time::from_ms(900)));
        assert!(l.expired(2, Time::from_ms(901)));
        assert_eq!(l.len(), 0);
        // A packet never stamped (the option came on later) never expires.
        assert!(!l.expired(9, Time::from_ms(10_000)));
    }
}
