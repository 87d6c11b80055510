//! A lifetime for packets in the interface queue (`[queue] max_delay`):
//! ns-3's `WifiMacQueue` `MaxDelay` (default 500 ms, ns-3.37
//! `src/wifi/model/wifi-mac-queue.cc`). ns-3 stamps every MPDU with an
//! expiry time (enqueue time + MaxDelay) when it enters the queue and, each
//! time the MAC looks at the head of the queue for its next transmission,
//! removes the MPDUs whose expiry time has passed (trace `Expired`).
//!
//! Here the kernel stamps a packet when the interface queue accepts it
//! ([`Lifetime::entered`]) and asks, when the queue hands the packet to
//! the MAC, whether it stayed longer than the limit ([`Lifetime::expired`]);
//! an expired packet is dropped with reason IFQ instead of being sent. The
//! disciplines themselves stay unaware of time.
//!
//! The stamps are kept in arrival order: a FIFO discipline hands packets
//! out in that order, so the lookup finds its stamp at the front; a
//! discipline that reorders (control lane, fair queueing) costs a scan of
//! the stamps ahead of it, bounded by the queue length. Packets that leave
//! the queue another way (a link failure reclaims them, fair queueing
//! pushes one out) are [`Lifetime::forget`]-ed.
//!
//! Not modelled: ns-3 also checks the lifetime of a frame between two MAC
//! retries of it (it stays at the head of its queue while the MAC retries);
//! here a packet the MAC has taken is retried to the retry limit.

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

    /// Packet `uid` leaves the queue for the MAC at `now`: true if it stayed
    /// longer than the lifetime (ns-3: `now > expiry`).
    pub fn expired(&mut self, uid: u64, now: Time) -> bool {
        let Some(i) = self.stamps.iter().position(|s| s.0 == uid) else { return false };
        let (_, at) = self.stamps.remove(i).expect("index in range");
        now > at + self.max_delay
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
    fn older_than_the_limit_expires_at_the_limit_does_not() {
        let mut l = Lifetime::new(Time::from_ms(500), 10);
        l.entered(1, Time::from_ms(0));
        l.entered(2, Time::from_ms(100));
        l.entered(3, Time::from_ms(200));
        // ns-3 drops when now > enqueue + MaxDelay.
        assert!(!l.expired(1, Time::from_ms(500)));
        assert!(l.expired(2, Time::from_ms(601)));
        assert!(!l.expired(3, Time::from_ms(650)));
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
