//! Receiver duplicate detection (IEEE 802.11-2016 §10.3.2.11): a retried
//! frame whose sequence number was already received from its transmitter
//! is acknowledged but not passed up.
//!
//! Without EDCA a transmitter finishes one frame before it starts the next,
//! so the last sequence number per transmitter is enough (ns-2's rule).
//! With EDCA each access category has its own frame in progress, and a
//! retry of one interleaves with frames of another: 802.11e keeps the cache
//! per <transmitter, TID> (§10.3.2.11.3). Frames here carry one sequence
//! counter per transmitter and no TID, so the EDCA cache remembers the last
//! [`WINDOW`] sequence numbers per transmitter instead (a retry is matched
//! against every frame of the other categories sent since). Before this, 257
//! retried frames reached the network layer twice on
//! `scenarios/voip-tcp-string.toml`.

use super::{Frame, MacAddr};

/// Transmitters remembered (most recent).
const SENDERS: usize = 32;
/// Sequence numbers remembered per transmitter with EDCA.
const WINDOW: usize = 64;

pub(super) struct DupCache {
    edca: bool,
    last: Vec<(MacAddr, u16)>,
    /// Per transmitter: a ring of recent sequence numbers and its next slot
    /// (u16::MAX: empty; sequence numbers are 12-bit).
    recent: Vec<(MacAddr, [u16; WINDOW], usize)>,
}

impl DupCache {
    pub fn new(edca: bool) -> DupCache {
        DupCache { edca, last: Vec::with_capacity(SENDERS), recent: Vec::new() }
    }

    /// Whether `f` (a unicast DATA frame addressed to us) is a duplicate.
    pub fn is_duplicate(&mut self, f: &Frame) -> bool {
        if self.edca {
            return self.is_duplicate_edca(f);
        }
        match self.last.iter_mut().find(|(a, _)| *a == f.src) {
            Some(entry) => {
                let dup = f.retry && entry.1 == f.seq;
                entry.1 = f.seq;
                dup
            }
            None => {
                if self.last.len() == SENDERS {
                    self.last.remove(0);
                }
                self.last.push((f.src, f.seq));
                false
            }
        }
    }

    fn is_duplicate_edca(&mut self, f: &Frame) -> bool {
        let i = match self.recent.iter().position(|e| e.0 == f.src) {
            Some(i) => i,
            None => {
                if self.recent.len() == SENDERS {
                    self.recent.remove(0);
                }
                self.recent.push((f.src, [u16::MAX; WINDOW], 0));
                self.recent.len() - 1
            }
        };
        let (_, seqs, next) = &mut self.recent[i];
        let seen = seqs.contains(&f.seq);
        if !seen {
            seqs[*next] = f.seq;
            *next = (*next + 1) % WINDOW;
        }
        f.retry && seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Time;
    use crate::wire::frame::FrameKind;

    fn data(src: MacAddr, seq: u16, retry: bool) -> Frame {
        Frame {
            kind: FrameKind::Data,
            src,
            dst: 0,
            duration: Time::ZERO,
            seq,
            retry,
            bytes: 100,
            rate: 1,
            packet: None,
        }
    }

    #[test]
    fn dcf_keeps_the_last_sequence_number() {
        let mut c = DupCache::new(false);
        assert!(!c.is_duplicate(&data(1, 5, false)));
        assert!(c.is_duplicate(&data(1, 5, true)));
        assert!(!c.is_duplicate(&data(1, 6, false)));
        // DCF never interleaves: an older retry is not recognised.
        assert!(!c.is_duplicate(&data(1, 5, true)));
    }

    #[test]
    fn edca_recognises_a_retry_after_frames_of_another_category() {
        let mut c = DupCache::new(true);
        assert!(!c.is_duplicate(&data(1, 5, false))); // best effort, ACK lost
        for s in 6..40 {
            assert!(!c.is_duplicate(&data(1, s, false))); // voice frames
        }
        assert!(c.is_duplicate(&data(1, 5, true))); // the best-effort retry
        assert!(!c.is_duplicate(&data(2, 5, true))); // another transmitter
        assert!(!c.is_duplicate(&data(1, 41, true))); // a retry never received before
    }
}
