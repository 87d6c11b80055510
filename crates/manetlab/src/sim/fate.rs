//! Packet fates: every packet created by an application or transport
//! endpoint ends delivered, dropped with a reason, or still held somewhere
//! when the run ends. Indexed by packet uid (uids are dense from 0).

use super::DropReason;
use crate::sim::Time;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Created and not yet delivered or dropped.
    InFlight,
    Delivered,
    Dropped(DropReason),
    /// A routing/ARP control packet: not part of the audit.
    Untracked,
}

#[derive(Default)]
pub struct FateTable {
    fates: Vec<Fate>,
}

impl FateTable {
    /// Registers a new packet and returns its uid.
    pub fn create(&mut self, _now: Time) -> u64 {
        self.fates.push(Fate::InFlight);
        (self.fates.len() - 1) as u64
    }
    /// Allocates a uid for a control packet (not audited).
    pub fn create_untracked(&mut self) -> u64 {
        self.fates.push(Fate::Untracked);
        (self.fates.len() - 1) as u64
    }
    /// Delivery overrides an earlier drop of another copy (e.g. a frame
    /// whose ACK was lost was delivered although the sender gave up on it).
    /// Returns false if the packet had already been delivered (a duplicate).
    pub fn delivered(&mut self, uid: u64) -> bool {
        let f = &mut self.fates[uid as usize];
        if *f == Fate::Untracked {
            return true;
        }
        let first = *f != Fate::Delivered;
        *f = Fate::Delivered;
        first
    }
    pub fn dropped(&mut self, uid: u64, why: DropReason) {
        if let Some(f) = self.fates.get_mut(uid as usize) {
            if *f != Fate::Delivered && *f != Fate::Untracked {
                *f = Fate::Dropped(why);
            }
        }
    }
    pub fn get(&self, uid: u64) -> Fate {
        self.fates[uid as usize]
    }
    pub fn len(&self) -> usize {
        self.fates.len()
    }
    pub fn is_empty(&self) -> bool {
        self.fates.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = (u64, Fate)> + '_ {
        self.fates.iter().enumerate().map(|(i, f)| (i as u64, *f))
    }
}
