//! Signals on the air as one event stream per frame (issue 25).
//!
//! A frame's start and end at every radio in carrier-sense range are known
//! when it is sent (positions are evaluated at transmission): receiver k
//! hears it from `now + delay_k` to `now + delay_k + duration`. Instead of
//! two heap events per receiver, the frame keeps its 2 x receivers signal
//! events in a sorted list, each with the (time, sequence) key it would
//! have had as a heap event (the sequence numbers are reserved at
//! transmission, in the order the events used to be scheduled), and the
//! queue holds one entry: the list's earliest. Popping it handles that
//! signal and puts the next one back under its own key, so every event runs
//! at exactly the same place in the (time, seq) order as before, and the
//! heap holds one entry per frame on the air instead of 2 x receivers.

use super::{Event, Simulation};
use crate::metrics::observe::Reception;
use crate::net::NodeId;
use crate::phy::channel::TxId;
use crate::phy::radio::RxOutcome;
use crate::sim::Time;

/// One signal event of a frame at one receiver.
#[derive(Copy, Clone, Debug)]
pub(super) struct Signal {
    time: u64,
    seq: u64,
    node: NodeId,
    /// First bit (true) or last bit (false).
    start: bool,
    power: f64,
}

/// A frame's pending signal events, earliest first; `next` is the one in
/// the queue. Kept in a slab and reused (no allocation in steady state).
#[derive(Default)]
pub(super) struct FrameStream {
    signals: Vec<Signal>,
    next: usize,
    spare: Vec<Signal>,
}

impl FrameStream {
    /// Merges the sorted runs `signals[..k]` and `signals[k..]` in place
    /// (through `spare`, which keeps its memory).
    fn merge_runs(&mut self, k: usize) {
        let v = &mut self.signals;
        if k == 0 || v[k - 1].key() < v[k].key() {
            return; // every start precedes every end: already in order
        }
        self.spare.clear();
        let (mut i, mut j) = (0, k);
        while i < k && j < v.len() {
            if v[i].key() < v[j].key() {
                self.spare.push(v[i]);
                i += 1;
            } else {
                self.spare.push(v[j]);
                j += 1;
            }
        }
        self.spare.extend_from_slice(&v[i..k]);
        self.spare.extend_from_slice(&v[j..]);
        std::mem::swap(v, &mut self.spare);
    }
}

impl Signal {
    #[inline]
    fn key(&self) -> (u64, u64) {
        (self.time, self.seq)
    }
}

/// Starts loading the node state that the next signal of a frame will
/// touch: the radio and the DCF's carrier-sense fields, the node's first
/// four cache lines (`node.rs`). A frame's signals reach their receivers a
/// few events apart, so the lines arrive while those events run instead of
/// stalling the signal's handler (at 10^5-10^6 nodes they are in DRAM;
/// docs/performance.md, "Large networks").
#[inline(always)]
fn prefetch_node(n: &crate::node::Node) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = n as *const crate::node::Node as *const i8;
        // SAFETY: PREFETCHT0 is a hint with no architectural effect: it
        // loads nothing into the program, cannot fault, and SSE is part of
        // the x86_64 baseline. The addresses lie inside `*n` (a node is
        // larger than 256 B).
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(128));
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(192));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = n;
}

#[derive(Default)]
pub(super) struct Streams {
    slab: Vec<FrameStream>,
    free: Vec<u32>,
}

impl Simulation {
    /// Puts frame `tx` (duration `d`) on the air at every hearer in
    /// `self.hearers`: reserves the sequence numbers the per-receiver
    /// events would have taken (start, end, start, end, ...) and queues
    /// the earliest.
    pub(super) fn air_frame(&mut self, tx: TxId, d: Time) {
        let now = self.queue.now();
        let base = self.queue.reserve(2 * self.hearers.len() as u64);
        let id = match self.streams.free.pop() {
            Some(id) => id,
            None => {
                self.streams.slab.push(FrameStream::default());
                (self.streams.slab.len() - 1) as u32
            }
        };
        let s = &mut self.streams.slab[id as usize];
        s.signals.clear();
        s.next = 0;
        let k = self.hearers.len();
        // `hearers` come in arrival order (delay, node). When the first
        // receiver's last bit comes after the last receiver's first bit
        // (always, unless the delays spread over more than a frame
        // duration), the events run starts by (time, node), then ends in
        // the same order, whatever sequence numbers they carry inside the
        // block reserved for the frame: number them in that order, no sort.
        // Numbering by node instead (below) gives the same order of
        // execution, against this frame's signals and every other event.
        if k > 0 && self.hearers[k - 1].delay < self.hearers[0].delay + d {
            for (i, h) in self.hearers.iter().enumerate() {
                let time = (now + h.delay).0;
                s.signals.push(Signal { time, seq: base + 2 * i as u64, node: h.node, start: true, power: h.power });
            }
            for i in 0..k {
                let g = s.signals[i];
                s.signals.push(Signal { time: g.time + d.0, seq: g.seq + 1, start: false, ..g });
            }
            let first = s.signals[0];
            prefetch_node(&self.nodes[first.node as usize]);
            self.queue.schedule_seq(Time(first.time), first.seq, Event::Frame { stream: id, tx });
            return;
        }
        // The general case: sequence numbers by node, as the per-receiver
        // events used to be scheduled (start, end, start, end, ...). The
        // starts sorted by (time, seq); the ends are the starts moved by d
        // (seq + 1), so in the same order: merge the two runs.
        self.hearers.sort_unstable_by_key(|h| h.node);
        for (i, h) in self.hearers.iter().enumerate() {
            let seq = base + 2 * i as u64;
            s.signals.push(Signal { time: (now + h.delay).0, seq, node: h.node, start: true, power: h.power });
        }
        s.signals.sort_unstable_by_key(|g| (g.time, g.seq));
        for i in 0..k {
            let g = s.signals[i];
            s.signals.push(Signal { time: g.time + d.0, seq: g.seq + 1, start: false, ..g });
        }
        s.merge_runs(k);
        let first = s.signals[0];
        prefetch_node(&self.nodes[first.node as usize]);
        self.queue.schedule_seq(Time(first.time), first.seq, Event::Frame { stream: id, tx });
    }

    /// The frame stream's earliest signal is due: queue the next, then
    /// handle this one. Returns the receiving node.
    pub(super) fn frame_event(&mut self, id: u32, tx: TxId) -> NodeId {
        let s = &mut self.streams.slab[id as usize];
        let g = s.signals[s.next];
        s.next += 1;
        if let Some(n) = s.signals.get(s.next) {
            prefetch_node(&self.nodes[n.node as usize]);
            self.queue.schedule_seq(Time(n.time), n.seq, Event::Frame { stream: id, tx });
        } else {
            self.streams.free.push(id);
        }
        if g.start {
            self.signal_start(g.node, tx, g.power);
        } else {
            self.signal_end(g.node, tx);
        }
        g.node
    }

    /// The first bit of a transmission reaches `node`.
    fn signal_start(&mut self, node: NodeId, tx: TxId, power: f64) {
        let now = self.queue.now();
        // Every receiver hears the whole frame: it ends one frame duration
        // after its first bit arrives.
        let t = self.channel.get(tx);
        let end = now + (t.end - t.start);
        let rate = t.frame.rate;
        let n = &mut self.nodes[node as usize];
        let o = n.radio.begin_signal(now, tx, power, end, rate);
        #[cfg(feature = "event-counts")]
        self.counts.add(match (o.captured_out, o.became_busy) {
            (true, _) => super::counts::Kind::StartCaptured,
            (false, true) => super::counts::Kind::StartIdle,
            (false, false) => super::counts::Kind::StartBusy,
        });
        if o.became_busy {
            n.mac.on_sense_busy(now);
            self.obs.medium(now, node, true);
        }
        if o.captured_out {
            n.mac.on_captured_out(now, end, &mut self.mac_out);
            self.obs.reception(now, node, &self.channel, tx, Some(power), Reception::Captured);
        }
    }

    /// The last bit of a transmission passes `node`.
    fn signal_end(&mut self, node: NodeId, tx: TxId) {
        let now = self.queue.now();
        let n = &mut self.nodes[node as usize];
        let (outcome, idle) = n.radio.finish_signal(now, tx);
        #[cfg(feature = "event-counts")]
        self.counts.add(match (outcome, idle) {
            (RxOutcome::Decoded(_), _) => super::counts::Kind::EndDecoded,
            (RxOutcome::Failed { .. }, _) => super::counts::Kind::EndFailed,
            (RxOutcome::Nothing, true) => super::counts::Kind::EndIdle,
            (RxOutcome::Nothing, false) => super::counts::Kind::EndBusy,
        });
        match outcome {
            RxOutcome::Decoded(id) => {
                let f = &self.channel.get(id).frame;
                n.mac.on_rx_power(f.src, n.radio.last_decoded_power());
                n.mac.on_rx_end(now, Some(f), idle, &mut self.mac_out)
            }
            RxOutcome::Failed { .. } => n.mac.on_rx_end(now, None, idle, &mut self.mac_out),
            RxOutcome::Nothing => n.mac.on_signal_end(now, idle, &mut self.mac_out),
        }
        self.obs.signal_end(now, node, &self.channel, tx, outcome);
        if idle {
            self.obs.medium(now, node, false);
        }
        self.channel.signal_ended(tx);
    }
}
