//! Events by kind, for benchmarks (issue 25): compiled only with the
//! `event-counts` feature (`cargo build --release -p manetlab-cli
//! --features manetlab/event-counts`), printed to stderr at the end of a
//! run. Without the feature this module is empty and the kernel pays
//! nothing.

use super::{Event, Simulation};
use crate::mac::dcf::MacTimer;

/// What an executed event turned out to be.
#[derive(Copy, Clone, Debug)]
pub(super) enum Kind {
    /// First bit at a radio that was idle (it becomes busy).
    StartIdle,
    /// First bit at a radio that was already sensing something.
    StartBusy,
    /// First bit captured out by the frame being received.
    StartCaptured,
    /// Last bit of the locked frame, decoded.
    EndDecoded,
    /// Last bit of the locked frame, lost (collision or error).
    EndFailed,
    /// Last bit of a signal that was not locked; the medium went idle.
    EndIdle,
    /// Last bit of a signal that was not locked; still busy after it.
    EndBusy,
    /// Last bit of a signal that was not locked, passing before the locked
    /// frame's: counted, not dispatched (`frames.rs`).
    EndUnseen,
    TxEnd,
    MacAccess,
    MacTimeout,
    MacResponse,
    /// A MAC timer whose handler produced no action (stale or superseded).
    MacNoAction,
    Endpoint,
    Routing,
    Arp,
    Other,
}

const NAMES: [&str; 17] = [
    "signal start, radio idle",
    "signal start, radio busy",
    "signal start, captured out",
    "signal end, decoded",
    "signal end, lost",
    "signal end, not locked, idle after",
    "signal end, not locked, still busy",
    "signal end, not locked, before the lock's end (counted, not run)",
    "tx end",
    "mac access timer",
    "mac timeout timer",
    "mac response timer",
    "mac timer, no action",
    "endpoint timer",
    "routing timer",
    "arp timer",
    "other",
];

/// Counters by [`Kind`] and the largest number of pending events seen.
#[derive(Default)]
pub(super) struct Counts {
    n: [u64; 17],
    max_pending: usize,
}

impl Counts {
    /// An event is popped or run in place with `queued` events in the queue.
    #[inline]
    pub(super) fn popped(&mut self, queued: usize) {
        self.max_pending = self.max_pending.max(queued + 1);
    }

    #[inline]
    pub(super) fn add(&mut self, k: Kind) {
        self.n[k as usize] += 1;
    }
}

impl Simulation {
    /// When an event was popped: notes the number of pending events (with
    /// it) and returns the MAC's output mark.
    pub(super) fn count_pop(&mut self) -> usize {
        self.counts.popped(self.queue.len());
        self.mac_out.len()
    }

    /// After `ev` was handled (signal events are counted in `frames.rs`).
    pub(super) fn count_handled(&mut self, ev: &Event, mac_mark: usize) {
        let k = match *ev {
            Event::Frame { .. } => return,
            Event::TxEnd { .. } => Kind::TxEnd,
            Event::Mac { .. } if self.mac_out.len() == mac_mark => Kind::MacNoAction,
            Event::Mac { kind: MacTimer::Access, .. } => Kind::MacAccess,
            Event::Mac { kind: MacTimer::Timeout, .. } => Kind::MacTimeout,
            Event::Mac { kind: MacTimer::Response, .. } => Kind::MacResponse,
            Event::Endpoint { .. } => Kind::Endpoint,
            Event::Routing { .. } => Kind::Routing,
            Event::Arp { .. } => Kind::Arp,
            _ => Kind::Other,
        };
        self.counts.add(k);
    }

    /// Prints the counters to stderr (one `kind<TAB>count` line each).
    pub(super) fn print_counts(&self) {
        let c = &self.counts;
        let total: u64 = c.n.iter().sum();
        eprintln!("# events by kind ({} events, {} counted)", self.executed, total);
        for (name, n) in NAMES.iter().zip(c.n) {
            if n > 0 {
                eprintln!("{name}\t{n}\t{:.1}%", 100.0 * n as f64 / total.max(1) as f64);
            }
        }
        eprintln!("max pending events\t{}", c.max_pending);
    }
}
