//! A frame's stream built (`frames.rs`): the one-pass layout, a static
//! sender's stream from its template, the general layout sorted and
//! merged (`Simulation::air_frame`). Moved out of `frames.rs` in session 22
//! (the 800-line bound).

use super::{one_pass, queue_stream, FrameStream, Signal, Streams, END, TX_END};
use crate::net::NodeId;
use crate::phy::channel::Hearer;
use crate::sim::Time;
use crate::simulation::Simulation;

impl FrameStream {
    /// Merges the sorted runs `signals[..k]` (starts, whose `end_at` is
    /// `k + i` for the i-th) and `signals[k..]` (their ends, in the same
    /// order) in place (through `spare` and `pos`, which keep their
    /// memory), and points every start at its end's new index.
    fn merge_runs(&mut self, k: usize) {
        let v = &mut self.signals;
        if k == 0 || v[k - 1].key() < v[k].key() {
            return; // every start precedes every end: already in order
        }
        self.spare.clear();
        self.pos.clear();
        self.pos.resize(k, 0);
        let (mut i, mut j) = (0, k);
        while i < k || j < v.len() {
            if j == v.len() || (i < k && v[i].key() < v[j].key()) {
                self.spare.push(v[i]);
                i += 1;
            } else {
                self.pos[j - k] = self.spare.len() as u32;
                self.spare.push(v[j]);
                j += 1;
            }
        }
        for g in self.spare.iter_mut().filter(|g| g.is_start()) {
            g.end_at = self.pos[g.end_at as usize - k];
        }
        std::mem::swap(v, &mut self.spare);
    }
}

impl FrameStream {
    /// Inserts `g` (not a first bit) at its place by (time, seq) in the
    /// sorted `signals`, and moves the first bits' pointers to the ends
    /// after it.
    fn insert(&mut self, g: Signal) {
        debug_assert!(!g.is_start());
        let p = self.signals.partition_point(|x| x.key() < g.key());
        self.signals.insert(p, g);
        for x in self.signals.iter_mut().filter(|x| x.is_start() && x.end_at as usize >= p) {
            x.end_at += 1;
        }
    }
}

/// Writes `from` into `to` (as long), each signal's `time` moved by `dt`
/// and `seq` by `ds` (no sum overflows: `Streams::cached_stream`), 16
/// bytes at a time with SSE2 (x86-64 baseline): one add for both keys,
/// one copy for the rest (`Signal` is `repr(C)`, 32 bytes).
#[inline(always)]
fn shift_signals(to: &mut [std::mem::MaybeUninit<Signal>], from: &[Signal], dt: u64, ds: u64) {
    debug_assert_eq!(to.len(), from.len());
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_add_epi64, _mm_loadu_si128, _mm_set_epi64x, _mm_storeu_si128};
        const _: () = assert!(std::mem::size_of::<Signal>() == 32 && std::mem::offset_of!(Signal, seq) == 8);
        let n = to.len().min(from.len());
        // SAFETY: SSE2 is part of the x86-64 baseline. `i < n` places of
        // both slices: each a `Signal` of 32 bytes (checked above), read as
        // two unaligned 16-byte halves from `from` (initialized) and
        // written as two to `to`; the first half is `time` then `seq`
        // (`repr(C)`, offsets 0 and 8), moved by (`dt`, `ds`) with
        // wrapping adds, which do not wrap (the caller's bound), so they
        // are the integer sums.
        unsafe {
            let add = _mm_set_epi64x(ds as i64, dt as i64);
            let (src, dst) = (from.as_ptr() as *const __m128i, to.as_mut_ptr() as *mut __m128i);
            for i in 0..n {
                let (lo, hi) = (_mm_loadu_si128(src.add(2 * i)), _mm_loadu_si128(src.add(2 * i + 1)));
                _mm_storeu_si128(dst.add(2 * i), _mm_add_epi64(lo, add));
                _mm_storeu_si128(dst.add(2 * i + 1), hi);
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for (o, g) in to.iter_mut().zip(from) {
        o.write(Signal { time: g.time + dt, seq: g.seq + ds, ..*g });
    }
}

/// A stream's index from the free list, or a new stream's (the fields
/// apart, so `templated_stream` can take one while it reads a template).
#[inline(always)]
fn free_or_new(free: &mut Vec<u32>, slab: &mut Vec<FrameStream>) -> u32 {
    match free.pop() {
        Some(id) => id,
        None => {
            slab.push(FrameStream::default());
            (slab.len() - 1) as u32
        }
    }
}

impl Streams {
    /// A stream for a new frame of duration `dur` (`end - start` of its
    /// transmission), from the free list or new; cleared. Its index is also
    /// the frame's slot in the channel (`Channel::begin_at`, session 23).
    #[inline(always)]
    pub(in crate::simulation) fn take(&mut self, dur: Time) -> u32 {
        let id = free_or_new(&mut self.free, &mut self.slab);
        let s = &mut self.slab[id as usize];
        s.signals.clear();
        s.next = 0;
        s.dur = dur;
        id
    }

    /// A new frame's stream in the one-pass layout ([`one_pass`] holds),
    /// written into stream `id` (just taken: `Streams::take`): `hearers` (in
    /// arrival order, not empty) each start at `now + delay`, the sender's
    /// `TxEnd` at `now + d`, each end `d` after its start, the sequence
    /// numbers from `base` as [`Simulation::air_frame`] numbers them.
    /// Returns its first signal.
    #[inline(always)]
    pub(super) fn one_pass_stream(
        &mut self,
        hearers: &[Hearer],
        id: u32,
        now: Time,
        d: Time,
        base: u64,
        sender: NodeId,
    ) -> Signal {
        let k = hearers.len();
        let s = &mut self.slab[id as usize];
        let tx_end = Signal { time: (now + d).0, seq: base + 2 * k as u64, power: 0.0, node: sender, end_at: TX_END };
        // Each hearer's first and last bit written in one pass (session
        // 20: two passes over `hearers` cost ~38 instructions a hearer,
        // one ~20), the starts at `i`, the `TxEnd` at `k`, the ends at
        // `k + 1 + i`: the same signals as two `extend`s and a `push`.
        s.signals.reserve(2 * k + 1);
        let spare = &mut s.signals.spare_capacity_mut()[..2 * k + 1];
        let (starts, rest) = spare.split_at_mut(k);
        let (mid, ends) = rest.split_at_mut(1);
        mid[0].write(tx_end);
        let (t0, mut seq, mut end_at) = (now.0, base, k as u32 + 1);
        for ((h, a), b) in hearers.iter().zip(starts.iter_mut()).zip(ends.iter_mut()) {
            // (`now + h.delay` does not saturate: `one_pass`)
            let time = t0 + h.delay.0;
            a.write(Signal { time, seq, node: h.node, end_at, power: h.power });
            b.write(Signal { time: time + d.0, seq: seq + 1, node: h.node, end_at: END, power: h.power });
            seq += 2;
            end_at += 1;
        }
        // SAFETY: the loop wrote `spare[..k]` and `spare[k + 1..]` (the
        // three slices have `k` hearers' places each side of `mid`),
        // `mid[0]` was written above: the first `2k + 1` places of the
        // (cleared) vector's capacity are initialized.
        unsafe { s.signals.set_len(2 * k + 1) };
        s.signals[0]
    }

    /// [`Streams::one_pass_stream`] for a static sender's cached arrival
    /// list (`Channel::begin_cached`, which never changes once cached),
    /// into stream `id` (just taken): the stream is copied from the sender's template, built at its first
    /// such frame, with the first bits' times moved by `now` and the rest's
    /// by `now + d`, every sequence number by `base` (session 22: its hearers,
    /// their powers, delays and order never change; only the frame's time,
    /// duration and numbers do). The same signals as `one_pass_stream`
    /// (`cached_streams_match_the_one_pass_ones`): a first bit's
    /// `now + delay`, a last bit's `now + delay + d` = `(now + d) + delay`
    /// (no sum saturates: `one_pass`), the `TxEnd`'s `now + d`.
    #[inline(always)]
    pub(in crate::simulation) fn cached_stream(
        &mut self,
        hearers: &[Hearer],
        id: u32,
        now: Time,
        d: Time,
        base: u64,
        sender: NodeId,
    ) -> Signal {
        if self.tmpl.get(sender as usize).is_none_or(|t| t.signals.is_empty()) {
            self.build_template(hearers, sender);
        }
        debug_assert_eq!(self.tmpl[sender as usize].signals.len(), 2 * hearers.len() + 1);
        self.write_templated_stream(id, sender, now, d, base)
    }

    /// A static sender's later frame from its template alone (session 23):
    /// when `sender` has one ([`Streams::cached_stream`] built it at its
    /// first cached frame) and the frame takes the one-pass layout
    /// ([`Template::accepts`]), a stream taken and written as
    /// `cached_stream` writes it, its sequence numbers from `reserve(2k +
    /// 1)`; `(stream, first signal)`. `None`: nothing taken or reserved.
    /// (The template implies the channel's arrival list it was built from,
    /// which never changes once cached: `Channel::begin_cached` would read
    /// the same list and make the same decision.)
    #[inline(always)]
    pub(in crate::simulation) fn templated_stream(
        &mut self,
        sender: NodeId,
        now: Time,
        d: Time,
        reserve: impl FnOnce(u64) -> u64,
    ) -> Option<(u32, Signal)> {
        let t = match self.tmpl.get(sender as usize) {
            Some(t) if !t.signals.is_empty() && t.accepts(now, d) => &t.signals,
            _ => return None,
        };
        // `take` and `write_templated_stream` in one (session 25: the
        // stream and the template looked up once, no saturating sums:
        // `accepts` bounds `now + hk + d`, so `now + d` and every signal's
        // time are in range and the transmission's `end - start` is `d`;
        // ~25 instructions a frame fewer).
        let id = free_or_new(&mut self.free, &mut self.slab);
        let s = &mut self.slab[id as usize];
        s.next = 0;
        s.dur = d;
        // (`2k + 1` signals: the `k` first bits, the `TxEnd`, the last bits)
        let (n, k) = (t.len(), t.len() / 2);
        let base = reserve(n as u64);
        s.signals.clear();
        s.signals.reserve(n);
        let spare = &mut s.signals.spare_capacity_mut()[..n];
        let (t_starts, t_rest) = t.split_at(k);
        let (starts, rest) = spare.split_at_mut(k);
        shift_signals(starts, t_starts, now.0, base);
        shift_signals(rest, t_rest, now.0 + d.0, base);
        // SAFETY: the two calls wrote `spare[..k]` and `spare[k..]`, the
        // first `n` places of the (cleared) vector's capacity.
        unsafe { s.signals.set_len(n) };
        Some((id, s.signals[0]))
    }

    /// Stream `id` (just taken) written from `sender`'s template (built):
    /// the first bits' times moved by `now`, the rest's by `now + d`, every
    /// sequence number by `base`.
    #[inline(always)]
    fn write_templated_stream(&mut self, id: u32, sender: NodeId, now: Time, d: Time, base: u64) -> Signal {
        let s = &mut self.slab[id as usize];
        let t = &self.tmpl[sender as usize].signals;
        // (`2k + 1` signals: the `k` first bits, the `TxEnd`, the last bits)
        let (n, k) = (t.len(), t.len() / 2);
        s.signals.reserve(n);
        let spare = &mut s.signals.spare_capacity_mut()[..n];
        let (t_starts, t_rest) = t.split_at(k);
        let (starts, rest) = spare.split_at_mut(k);
        shift_signals(starts, t_starts, now.0, base);
        shift_signals(rest, t_rest, (now + d).0, base);
        // SAFETY: the two calls wrote `spare[..k]` and `spare[k..]`, the
        // first `n` places of the (cleared: `take`) vector's capacity.
        unsafe { s.signals.set_len(n) };
        s.signals[0]
    }

    /// `sender`'s template for [`Streams::cached_stream`]: the one-pass
    /// layout of `one_pass_stream` at time 0 (the last bits at their delays,
    /// the `TxEnd` at 0: `d` is added when a frame is written) and base 0.
    #[cold]
    fn build_template(&mut self, hearers: &[Hearer], sender: NodeId) {
        let k = hearers.len();
        if self.tmpl.len() <= sender as usize {
            self.tmpl.resize_with(sender as usize + 1, Template::default);
        }
        let tm = &mut self.tmpl[sender as usize];
        tm.last = hearers[k - 1].delay;
        let t = &mut tm.signals;
        let start = |(i, h): (usize, &Hearer)| Signal {
            time: h.delay.0,
            seq: 2 * i as u64,
            node: h.node,
            end_at: (k + 1 + i) as u32,
            power: h.power,
        };
        let end = |(i, h): (usize, &Hearer)| Signal {
            time: h.delay.0,
            seq: 2 * i as u64 + 1,
            node: h.node,
            end_at: END,
            power: h.power,
        };
        t.clear();
        t.extend(hearers.iter().enumerate().map(start));
        t.push(Signal { time: 0, seq: 2 * k as u64, power: 0.0, node: sender, end_at: TX_END });
        t.extend(hearers.iter().enumerate().map(end));
    }
}

/// A static sender's frames' one-pass stream with the times and sequence
/// numbers relative (`Streams::cached_stream`; empty: not built yet), and
/// its last hearer's delay.
#[derive(Default)]
pub(super) struct Template {
    signals: Vec<Signal>,
    /// The last hearer's delay (`hk` of [`one_pass`]).
    last: Time,
}

impl Template {
    /// [`one_pass`]`(now, d, h0, hk)` for the template's sender (its
    /// first and last hearers' delays `h0` and `hk`, `h0 <= hk`), built
    /// only when `one_pass` held, so `h0 > 0`: then `hk < h0 + d` follows
    /// from `hk <= d` (`h0 + d >= hk + 1`, or saturates at `u64::MAX`, which
    /// is above `hk` when the range test passes), and what is left is
    /// `hk <= d` and `now + hk + d` in range
    /// (`template_accepts_as_one_pass`).
    #[inline(always)]
    pub(super) fn accepts(&self, now: Time, d: Time) -> bool {
        let hk = self.last.0;
        d.0 >= hk && hk.checked_add(d.0).and_then(|x| now.0.checked_add(x)).is_some()
    }
}

impl Simulation {
    /// Puts frame `id` (duration `d`, sent by `sender`; its stream, just
    /// taken, and its slot in the channel, begun: `transmit_general`) on the
    /// air at every hearer in `self.hearers` (not empty): reserves the sequence numbers
    /// the per-receiver events would have taken (start, end, start, end,
    /// ...) and then the sender's `TxEnd` (scheduled right after them, it
    /// took the next one), and queues the earliest.
    ///
    /// The sender's transmission end is an entry of the stream ([`TX_END`])
    /// under the key it had as a queue event, `(now + d, base + 2k)`: it
    /// runs at exactly its old place in the (time, seq) order, and usually
    /// in place after the frame's last first bit (no push and pop of its
    /// own; 12.5 % of the 2-hop's events, 9.3 % of the AODV chain's). Its
    /// place in the stream: after every first bit that arrives by `now + d`
    /// (their sequence numbers are smaller, so a tie goes to them) and
    /// every last bit at `now + d` (a receiver at zero delay), before the
    /// rest.
    pub(in crate::simulation) fn air_frame(&mut self, id: u32, d: Time, sender: NodeId) {
        let now = self.queue.now();
        let k = self.hearers.len();
        let base = self.queue.reserve(2 * k as u64 + 1);
        // `hearers` come in arrival order (delay, node). When the first
        // receiver's last bit comes after the last receiver's first bit
        // (always, unless the delays spread over more than a frame
        // duration), the events run starts by (time, node), then ends in
        // the same order, whatever sequence numbers they carry inside the
        // block reserved for the frame: number them in that order, no sort.
        // Numbering by node instead (below) gives the same order of
        // execution, against this frame's signals and every other event
        // (the `TxEnd`'s number is above the block's either way). When
        // every first bit comes by `now + d` and no delay is zero (always
        // but for receivers at the sender's place), the `TxEnd` goes between
        // the starts and the ends.
        let (h0, hk) = (self.hearers[0].delay, self.hearers[k - 1].delay);
        if one_pass(now, d, h0, hk) {
            let first = self.streams.one_pass_stream(&self.hearers, id, now, d, base, sender);
            return queue_stream(&mut self.queue, &self.nodes, id, first, id);
        }
        let tx_end = Signal { time: (now + d).0, seq: base + 2 * k as u64, power: 0.0, node: sender, end_at: TX_END };
        let s = &mut self.streams.slab[id as usize];
        if hk < h0 + d {
            s.signals.reserve(2 * k + 1);
            s.signals.extend(self.hearers.iter().enumerate().map(|(i, h)| {
                let time = (now + h.delay).0;
                let (seq, end_at) = (base + 2 * i as u64, (k + i) as u32);
                Signal { time, seq, node: h.node, end_at, power: h.power }
            }));
            s.signals.extend(self.hearers.iter().enumerate().map(|(i, h)| {
                let time = (now + h.delay).0 + d.0;
                Signal { time, seq: base + 2 * i as u64 + 1, node: h.node, end_at: END, power: h.power }
            }));
        } else {
            // The general case: sequence numbers by node, as the
            // per-receiver events used to be scheduled (start, end,
            // start, end, ...). The starts sorted by (time, seq); the
            // ends are the starts moved by d (seq + 1), so in the same
            // order: merge the two runs. (`hearers` is the kernel's
            // copy: `transmit_frame` reads a cached arrival list in
            // place only for the one-pass layout.)
            self.hearers.sort_unstable_by_key(|h| h.node);
            for (i, h) in self.hearers.iter().enumerate() {
                let seq = base + 2 * i as u64;
                s.signals.push(Signal { time: (now + h.delay).0, seq, node: h.node, end_at: 0, power: h.power });
            }
            s.signals.sort_unstable_by_key(|g| (g.time, g.seq));
            for i in 0..k {
                s.signals[i].end_at = (k + i) as u32;
                let g = s.signals[i];
                s.signals.push(Signal { time: g.time + d.0, seq: g.seq + 1, end_at: END, ..g });
            }
            s.merge_runs(k);
        }
        s.insert(tx_end);
        let first = s.signals[0];
        queue_stream(&mut self.queue, &self.nodes, id, first, id);
    }
}
