//! Sequence numbers and receiver duplicate detection (IEEE 802.11-2016
//! §10.3.2.11, the Sequence Control field of §9.2.4.4).
//!
//! **Transmitter** (§10.3.2.11.2). A QoS station numbers its individually
//! addressed QoS data frames with one modulo-4096 counter per <Address 1,
//! TID> ([`SeqCounters`]); group-addressed and non-QoS data frames take the
//! numbers of one further counter shared by all. Plain DCF (no QoS) uses
//! only the shared counter, as before. A retry keeps its frame's number.
//!
//! **Receiver** (§10.3.2.11.3). A QoS station keeps, per <Address 2, TID>,
//! the sequence control (sequence and fragment number) of the latest QoS
//! data frame, and for non-QoS data the latest per transmitter. A frame with
//! the Retry bit set whose tuple matches the cached one is a duplicate: it
//! is acknowledged but not passed up. A frame without the Retry bit is
//! always accepted, and every accepted frame replaces its key's entry.
//!
//! With EDCA each access category has its own frame in progress, so a retry
//! of a best-effort frame may follow voice frames of the same transmitter:
//! the per-TID key is what recognises it (with one entry per transmitter,
//! 257 retried frames reached the network layer twice on
//! `scenarios/voip-tcp-string.toml`).
//!
//! **Bounds.** Each table holds at most [`ENTRIES`] keys per node and
//! evicts the least recently used one (the non-QoS table keeps its former
//! rule: the oldest transmitter inserted, so DCF runs are unchanged). A
//! table grows to its working size once and then never allocates. An
//! evicted transmitter's next retry is accepted as new (a missed duplicate,
//! as with no entry); an evicted <RA, TID> counter restarts at 0, whose
//! first frame is not a retry and so replaces the receiver's entry.

use super::{Frame, MacAddr};

/// Keys remembered per table and node (transmitters, or transmitter-TID /
/// receiver-TID pairs).
pub const ENTRIES: usize = 32;

/// The receiver's duplicate cache.
pub(super) struct DupCache {
    /// Non-QoS data: the latest sequence control per transmitter
    /// (insertion order; the oldest is evicted).
    last: Vec<(MacAddr, u16)>,
    /// QoS data: the latest sequence control per <TA, TID>, with the time
    /// of its last use for LRU eviction.
    qos: Vec<Entry>,
    clock: u32,
}

#[derive(Copy, Clone, Debug)]
struct Entry {
    addr: MacAddr,
    tid: u8,
    value: u16,
    used: u32,
}

/// Finds the entry of (`addr`, `tid`), or makes one (evicting the least
/// recently used at [`ENTRIES`]) initialised to `init`; marks it used.
fn lookup<'a>(table: &'a mut Vec<Entry>, clock: &mut u32, addr: MacAddr, tid: u8, init: u16) -> (&'a mut Entry, bool) {
    *clock = clock.wrapping_add(1);
    let now = *clock;
    let i = match table.iter().position(|e| e.addr == addr && e.tid == tid) {
        Some(i) => {
            table[i].used = now;
            return (&mut table[i], true);
        }
        None if table.len() < ENTRIES => {
            table.push(Entry { addr, tid, value: init, used: now });
            table.len() - 1
        }
        None => {
            // Least recently used: the largest age (wrapping-safe).
            let i = (0..table.len()).max_by_key(|&i| now.wrapping_sub(table[i].used)).unwrap();
            table[i] = Entry { addr, tid, value: init, used: now };
            i
        }
    };
    (&mut table[i], false)
}

impl DupCache {
    pub fn new() -> DupCache {
        DupCache { last: Vec::with_capacity(ENTRIES), qos: Vec::new(), clock: 0 }
    }

    /// Whether `f` (a unicast DATA frame addressed to us) is a duplicate;
    /// records it otherwise.
    pub fn is_duplicate(&mut self, f: &Frame) -> bool {
        let sc = f.seq_ctl();
        if let Some(tid) = f.tid {
            let (e, known) = lookup(&mut self.qos, &mut self.clock, f.src, tid, sc);
            let dup = known && f.retry && e.value == sc;
            e.value = sc;
            return dup;
        }
        match self.last.iter_mut().find(|(a, _)| *a == f.src) {
            Some(entry) => {
                let dup = f.retry && entry.1 == sc;
                entry.1 = sc;
                dup
            }
            None => {
                if self.last.len() == ENTRIES {
                    self.last.remove(0);
                }
                self.last.push((f.src, sc));
                false
            }
        }
    }
}

/// The transmitter's sequence counters: the shared one, and one per
/// <receiver, TID> for individually addressed QoS data.
pub(super) struct SeqCounters {
    shared: u16,
    per_ra_tid: Vec<Entry>,
    clock: u32,
}

impl SeqCounters {
    pub fn new() -> SeqCounters {
        SeqCounters { shared: 0, per_ra_tid: Vec::new(), clock: 0 }
    }

    /// The number of the next MSDU to `ra` with traffic identifier `tid`
    /// (`None`: non-QoS or group addressed: the shared counter).
    pub fn next(&mut self, ra: MacAddr, tid: Option<u8>) -> u16 {
        let counter = match tid {
            Some(tid) => {
                let (e, _) = lookup(&mut self.per_ra_tid, &mut self.clock, ra, tid, 0);
                &mut e.value
            }
            None => &mut self.shared,
        };
        let seq = *counter;
        *counter = counter.wrapping_add(1) & 0x0fff;
        seq
    }

    /// `next(ra, None)`: the shared counter (no call to `lookup`).
    #[inline(always)]
    pub fn next_shared(&mut self) -> u16 {
        let seq = self.shared;
        self.shared = seq.wrapping_add(1) & 0x0fff;
        seq
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Time;
    use crate::wire::frame::FrameKind;

    fn data(src: MacAddr, tid: Option<u8>, seq: u16, retry: bool) -> Frame {
        Frame {
            kind: FrameKind::Data,
            src,
            dst: 0,
            duration: Time::ZERO,
            seq,
            tid,
            retry,
            bytes: 100,
            rate: 1,
            packet: None,
        }
    }

    #[test]
    fn non_qos_keeps_the_last_sequence_number_per_transmitter() {
        let mut c = DupCache::new();
        assert!(!c.is_duplicate(&data(1, None, 5, false)));
        assert!(c.is_duplicate(&data(1, None, 5, true)));
        assert!(!c.is_duplicate(&data(1, None, 6, false)));
        // One entry per transmitter: an older retry is not recognised.
        assert!(!c.is_duplicate(&data(1, None, 5, true)));
    }

    #[test]
    fn qos_cache_is_keyed_by_transmitter_and_tid() {
        let mut c = DupCache::new();
        assert!(!c.is_duplicate(&data(1, Some(0), 5, false))); // best effort, its ACK lost
        for s in 0..40 {
            assert!(!c.is_duplicate(&data(1, Some(6), s, false))); // voice frames meanwhile
        }
        assert!(c.is_duplicate(&data(1, Some(0), 5, true))); // the best-effort retry: dropped
        assert!(c.is_duplicate(&data(1, Some(0), 5, true))); // and again
        // The same number from another TID or another transmitter is new.
        assert!(!c.is_duplicate(&data(1, Some(6), 5, true)));
        assert!(!c.is_duplicate(&data(2, Some(0), 5, true)));
        // A retry never received before is delivered.
        assert!(!c.is_duplicate(&data(1, Some(0), 6, true)));
        // Without the Retry bit a frame matching the cache is delivered
        // (§10.3.2.11.3 rejects only retries), and stays the entry.
        assert!(!c.is_duplicate(&data(1, Some(0), 6, false)));
        assert!(c.is_duplicate(&data(1, Some(0), 6, true)));
        // Non-QoS frames of the same transmitter have their own entry.
        assert!(!c.is_duplicate(&data(1, None, 6, true)));
    }

    #[test]
    fn sequence_numbers_wrap_at_4096() {
        let mut t = SeqCounters::new();
        let mut c = DupCache::new();
        let mut last = 0;
        for k in 0..4097u32 {
            let s = t.next(3, Some(0));
            assert_eq!(s as u32, k % 4096);
            assert!(!c.is_duplicate(&data(3, Some(0), s, false)));
            last = s;
        }
        assert_eq!(last, 0); // 4096 wrapped to 0
        assert!(c.is_duplicate(&data(3, Some(0), 0, true)));
        assert!(!c.is_duplicate(&data(3, Some(0), 4095, true)));
        // 4095 + 1 wraps to 0 in the frame's 12 bits.
        let wide = data(3, Some(0), 4096, true);
        assert_eq!(wide.seq_ctl(), 0);
    }

    #[test]
    fn transmitter_counts_per_receiver_and_tid() {
        let mut t = SeqCounters::new();
        assert_eq!((t.next(1, Some(0)), t.next(1, Some(0)), t.next(1, Some(6))), (0, 1, 0));
        assert_eq!((t.next(2, Some(0)), t.next(1, Some(0))), (0, 2));
        // Group addressed / non-QoS: the shared counter.
        assert_eq!((t.next(9, None), t.next(1, None)), (0, 1));
    }

    #[test]
    fn tables_are_bounded_and_evict_the_least_recently_used() {
        let mut c = DupCache::new();
        for a in 0..ENTRIES as u32 {
            assert!(!c.is_duplicate(&data(a, Some(0), 7, false)));
        }
        // Transmitter 0 used again: 1 is now the least recently used.
        assert!(c.is_duplicate(&data(0, Some(0), 7, true)));
        assert!(!c.is_duplicate(&data(100, Some(0), 7, false)));
        assert_eq!(c.qos.len(), ENTRIES);
        assert!(c.is_duplicate(&data(0, Some(0), 7, true)), "kept");
        assert!(!c.is_duplicate(&data(1, Some(0), 7, true)), "evicted: accepted as new");
        let mut t = SeqCounters::new();
        for k in 0..1000u32 {
            t.next(k, Some(0));
        }
        assert_eq!(t.per_ra_tid.len(), ENTRIES);
    }
}
