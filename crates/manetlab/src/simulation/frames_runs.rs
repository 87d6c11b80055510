//! A wide frame's signals in runs (sessions 17-18; docs/performance.md,
//! "Session 17 (branch s17fl)" and "Session 18 (branch s18fl)"): the loop
//! of `frame_events` for frames with at least `RUN_MIN_SIGNALS` signals,
//! whose consecutive first bits and consecutive last bits due in place run
//! together, the queue's head and the frame's constants read once a run.

use super::{prefetch_node, END, END_UNSEEN, PREFETCH_MIN_NODES};
use crate::net::routing::RouteCtx;
use crate::phy::channel::TxId;
use crate::phy::radio::RxOutcome;
use crate::sim::Time;
use crate::simulation::{Event, Simulation, Work};

impl Simulation {
    /// [`Simulation::frame_events`] for a frame with many hearers (at least
    /// [`RUN_MIN_SIGNALS`] signals, session 17): the same loop, but a first
    /// bit on the fast path runs with the next ones due in place and on it
    /// too (`start_run`), and a last bit with the next ones due in place
    /// (`end_run`). Out of line: the small frames' loop stays as it
    /// was (folding both into one loop cost the 2-hop +2.6 % and the AODV
    /// chain +4.3 % in instructions).
    #[inline(never)]
    pub(super) fn frame_events_wide(&mut self, id: u32, tx: TxId) {
        let mut cur = self.streams.slab[id as usize].next;
        let mut g = self.streams.slab[id as usize].signals[cur];
        loop {
            // `g` (index `cur`) is due and counted; after a run of first
            // bits `cur` is the last one handled.
            let mut handled = false;
            if g.is_start() {
                let h = if self.nodes.len() >= PREFETCH_MIN_NODES {
                    self.start_run::<true>(id, tx, cur)
                } else {
                    self.start_run::<false>(id, tx, cur)
                };
                if h > 0 {
                    cur += h - 1;
                    handled = true;
                }
            } else if g.end_at == END {
                let next = if self.nodes.len() >= PREFETCH_MIN_NODES || !self.obs.is_empty() || self.bp.is_some() {
                    self.end_run(id, tx, cur)
                } else {
                    self.end_run_small(id, tx, cur)
                };
                match next {
                    Some(j) => {
                        cur = j;
                        g = self.streams.slab[id as usize].signals[j];
                        continue;
                    }
                    None => return,
                }
            }
            // (as in `frame_events`)
            let (j, more) = self.pass_unseen(id, cur);
            if !handled {
                if let Some(node) = self.frame_signal(id, tx, g) {
                    self.collect_mac(node);
                    self.drain_work();
                }
            }
            if !more {
                return;
            }
            match self.next_in_place(id, tx, j) {
                Some(n) => g = n,
                None => return,
            }
            cur = j;
        }
    }

    /// A run of last bits (session 17): the signal at `cur` of stream `id`
    /// (a last bit that runs, due now and counted) and the next ones due in
    /// place, each handled as the loop of [`Simulation::frame_events`] does
    /// (passed-over ends counted, `next`, the prefetch, `signal_end`, the
    /// MAC's work). An end that leaves no work (no MAC action: mostly)
    /// queues nothing, so the queue's earliest key is read again only after
    /// one that did (session 18: as one `u128`, and the next end's node
    /// carried, not read again). Returns the next signal's index when it is
    /// due in place (counted) but not a last bit that runs; `None` when the
    /// stream is done or its next signal was queued.
    #[inline(never)]
    fn end_run(&mut self, id: u32, tx: TxId, mut cur: usize) -> Option<usize> {
        let until = self.until.0;
        // The queue's earliest key (0: to be read again).
        let mut bound = 0u128;
        let mut node = self.streams.slab[id as usize].signals[cur].node;
        loop {
            let (j, more) = self.pass_unseen(id, cur);
            self.signal_end(node, tx);
            if !(self.mac_out.is_empty() && self.work.is_empty()) {
                self.collect_mac(node);
                self.drain_work();
                bound = 0;
            }
            if !more {
                return None;
            }
            let n = self.streams.slab[id as usize].signals[j];
            if bound == 0 {
                bound = self.queue.peek_key128();
            }
            if !(n.key128() < bound && n.time <= until) {
                self.queue.schedule_seq(Time(n.time), n.seq, Event::Frame { stream: id, tx });
                return None;
            }
            self.ran_in_place(Time(n.time));
            if n.end_at != END {
                return Some(j);
            }
            cur = j;
            node = n.node;
        }
    }

    /// [`Simulation::end_run`] in networks under [`PREFETCH_MIN_NODES`]
    /// nodes with no observer and no backpressure (session 19; rwp30: ~23
    /// hearers a frame, 82 % of its ends leave no work). The ends on the
    /// fast path (`Radio::end_lone_lock`) that leave no MAC action (an
    /// overheard data packet's report is handed to the protocol in place,
    /// session 20: 381 K of rwp30's 605 K ends with work) run in an inner
    /// loop over the stream's signals borrowed once, with the count, the
    /// clock and the stream's `next` carried in locals and written out
    /// before anything else runs: an end with work (drained with the clock
    /// at its time and `next` written, so a frame it sends finds the
    /// streams as the loop of `frame_events` leaves them), a general end,
    /// the run's exit. Each end still runs at its time: the MAC is given it,
    /// and nothing between two ends of the inner loop reads the clock, the
    /// count or `next`. (Since session 23 no end releases the transmission:
    /// its slot is the stream's, `Channel::begin_at`.) (Session 18's attempt at every size,
    /// 752ad0b, reverted for the layout of the static scenarios: see
    /// docs/performance.md, "Session 18 (branch s18fl)".)
    #[inline(never)]
    fn end_run_small(&mut self, id: u32, tx: TxId, cur: usize) -> Option<usize> {
        debug_assert!(self.obs.is_empty() && self.bp.is_none());
        let until = self.until.0;
        let limit = self.cfg.duration.0;
        // The queue's earliest key (0: to be read again).
        let mut bound = 0u128;
        // The end to handle: due, counted, the clock at its time.
        let mut c = cur;
        loop {
            // Why the inner loop stopped (`j`: the signal after the ends
            // passed over after `c`).
            enum Stop {
                /// The end at `c` needs the general path.
                General,
                /// The end at `c` (fast) left MAC work.
                Work,
                /// No signal left after `c`.
                Done,
                /// The signal at `j` is not due in place.
                Queue,
                /// The signal at `j` is due and counted, not an end that runs.
                Other,
            }
            let mut ran = 0u64;
            let mut last = self.queue.now().0;
            let s = &mut self.streams.slab[id as usize];
            let sig = &s.signals[..];
            let nodes = &mut self.nodes[..];
            let mac_out = &mut self.mac_out;
            let net_out = &mut self.net_out;
            let fate = &mut self.obs.metrics.fate;
            let frame = &self.channel.get(tx).frame;
            let queue = &mut self.queue;
            let mut j;
            let stop = loop {
                // (as `pass_unseen`) the ends passed over after `c`.
                let g = sig[c];
                j = c + 1;
                while let Some(n) = sig.get(j).filter(|n| n.end_at == END_UNSEEN) {
                    if n.time <= limit {
                        ran += 1;
                        #[cfg(feature = "event-counts")]
                        self.counts.add(crate::simulation::counts::Kind::EndUnseen);
                    }
                    j += 1;
                }
                // (No prefetch of the next end's node, unlike `pass_unseen`:
                // under 100 nodes their lines stay in the cache.)
                // (as `signal_end`'s fast path; the clock is at `g.time`)
                let n = &mut nodes[g.node as usize];
                let Some(outcome) = n.radio.end_lone_lock_tested(tx) else {
                    break Stop::General;
                };
                #[cfg(feature = "event-counts")]
                self.counts.add(match outcome {
                    RxOutcome::Decoded(_) => crate::simulation::counts::Kind::EndDecoded,
                    _ => crate::simulation::counts::Kind::EndFailed,
                });
                let now = Time(g.time);
                let heard = match outcome {
                    RxOutcome::Decoded(_) => {
                        n.mac.on_rx_end_idle(now, Some(frame), n.radio.last_decoded_power(), mac_out)
                    }
                    _ => n.mac.on_rx_end_idle(now, None, 0.0, mac_out),
                };
                if let Some(p) = heard {
                    // The MAC's report of an overheard data packet, carried
                    // out here from the frame as `do_mac`'s `Overheard` arm
                    // (no backpressure here: `frame_events_wide`) would have
                    // as the first of the end's actions: the protocol's
                    // `on_overheard` (when it listens). Its actions (rare)
                    // are queued as work after the MAC's (`Stop::Work`), as
                    // `routing_done` would have queued them while the MAC's
                    // were waiting; the protocol and the MAC share no state,
                    // so calling it after the MAC's own steps of this end is
                    // the same.
                    if n.routing.wants_overheard() {
                        let out = &mut *net_out;
                        let mut ctx = RouteCtx { now, node: g.node, out, rng: &mut n.routing_rng, uids: fate };
                        n.routing.on_overheard(&mut ctx, p);
                    }
                }
                if !(mac_out.is_empty() && net_out.is_empty()) {
                    break Stop::Work;
                }
                // (as `next_in_place`, the queue's head kept)
                let Some(&x) = sig.get(j) else {
                    break Stop::Done;
                };
                if bound == 0 {
                    bound = queue.peek_key128();
                }
                if !(x.key128() < bound && x.time <= until) {
                    break Stop::Queue;
                }
                #[cfg(feature = "event-counts")]
                self.counts.popped(queue.len());
                ran += 1;
                last = x.time;
                if x.end_at != END {
                    break Stop::Other;
                }
                c = j;
            };
            // Written out before anything else runs: `next` (the stream
            // freed when no signal is left, before any work: a frame sent by
            // it may take the stream and its channel slot, the old frame
            // read no more), the count, the clock.
            let more = j < sig.len();
            s.next = j;
            if !more {
                self.streams.free.push(id);
            }
            self.executed += ran;
            self.queue.advance_to(Time(last));
            match stop {
                Stop::Done => return None,
                Stop::Queue => {
                    let x = self.streams.slab[id as usize].signals[j];
                    self.queue.schedule_seq(Time(x.time), x.seq, Event::Frame { stream: id, tx });
                    return None;
                }
                Stop::Other => return Some(j),
                Stop::General => {
                    let g = self.streams.slab[id as usize].signals[c];
                    self.signal_end_general(g.node, tx, Time(g.time));
                }
                Stop::Work => {}
            }
            if !(self.mac_out.is_empty() && self.net_out.is_empty() && self.work.is_empty()) {
                let node = self.streams.slab[id as usize].signals[c].node;
                self.collect_mac(node);
                // (the protocol's actions for an overheard packet, after the
                // MAC's; as `routing_done`)
                for i in self.queued[1]..self.net_out.len() {
                    self.work.push(Work::Net(node, i as u32));
                }
                self.queued[1] = self.net_out.len();
                self.drain_work();
                bound = 0;
            }
            if !more {
                return None;
            }
            // (as `next_in_place`)
            let x = self.streams.slab[id as usize].signals[j];
            if bound == 0 {
                bound = self.queue.peek_key128();
            }
            if !(x.key128() < bound && x.time <= until) {
                self.queue.schedule_seq(Time(x.time), x.seq, Event::Frame { stream: id, tx });
                return None;
            }
            self.ran_in_place(Time(x.time));
            if x.end_at != END {
                return Some(j);
            }
            c = j;
        }
    }

    /// A run of first bits (sessions 17-18): the signal at `cur` of stream
    /// `id` (a first bit, due now and counted) and the first bits after it
    /// that are due before every queued event (and by the run's limit).
    /// Returns how many it handled (0: observers are attached, the loop of
    /// [`Simulation::frame_events`] takes `cur`). A start at an idle radio
    /// takes the fast path in place (`Radio::start_idle_ns2`, as
    /// [`Simulation::signal_start_fast`]): it leaves no work and queues
    /// nothing, so the queue's earliest key bounds the run, and the clock
    /// and the count move once for those starts. Any other start (a busy
    /// radio: a third of the starts at 400 nodes) takes the general path as
    /// the loop does ([`Simulation::frame_signal`]): the clock moved to it
    /// first, its end marked when it says so, its MAC work drained, and
    /// then the queue's earliest key read again.
    ///
    /// `BIG`: the network has at least [`PREFETCH_MIN_NODES`] nodes (the
    /// routing hint is given, and busy starts run in the run); below, a
    /// busy start ends the run (they are rare there: 0.3 % of rwp30's
    /// starts) and the loop without the hint is ~15 instructions a start
    /// shorter.
    #[inline(never)]
    fn start_run<const BIG: bool>(&mut self, id: u32, tx: TxId, cur: usize) -> usize {
        if !self.obs.is_empty() {
            return 0;
        }
        let t = self.channel.get(tx);
        // Every receiver hears the whole frame: it ends one frame duration
        // after its first bit arrives.
        let dur = t.end - t.start;
        let (dst, src) = (t.frame.dst, t.frame.src);
        // (the routing hint of `locked_onto`)
        let hint = BIG;
        debug_assert_eq!(BIG, self.nodes.len() >= PREFETCH_MIN_NODES);
        let thr = self.cfg.radio.rx_threshold_w;
        let until = self.until.0;
        let n_nodes = self.nodes.len();
        if self.streams.lock_end.len() < n_nodes {
            self.streams.lock_end.resize(n_nodes, 0);
        }
        let mut bound = self.queue.peek_key128();
        // `k`: the next signal to look at (those before it are handled);
        // `last`: the time of the last one handled.
        let (mut k, mut last) = (cur, 0);
        loop {
            // Fast starts in place from `k` on, until one that is not due
            // or not a first bit (the run ends) or at a busy radio.
            let mut busy = false;
            let signals = &self.streams.slab[id as usize].signals[k..];
            let lock_end = &mut self.streams.lock_end[..n_nodes];
            let nodes = &mut self.nodes[..];
            // (the channel, for the routing hint's packet: borrowed per
            // pass, as the general start below needs `self`)
            let chan = &self.channel;
            let mut took = 0;
            for g in signals {
                // (`cur` itself is due and counted by the caller)
                if k + took > cur && !(g.is_start() && g.key128() < bound && g.time <= until) {
                    break;
                }
                let now = Time(g.time);
                let n = &mut nodes[g.node as usize];
                if !n.radio.start_idle_ns2(tx, g.power, now + dur) {
                    busy = true;
                    break;
                }
                n.mac.on_sense_busy(now);
                if hint && g.power >= thr && (dst == g.node || dst == crate::sim::BROADCAST) {
                    n.routing.prefetch_heard(src, chan.get(tx).frame.packet.as_ref());
                }
                lock_end[g.node as usize] = (id as u64) << 32 | g.end_at as u64;
                #[cfg(feature = "event-counts")]
                {
                    if k + took > cur {
                        self.counts.popped(self.queue.len());
                    }
                    self.counts.add(crate::simulation::counts::Kind::StartIdle);
                }
                if BIG {
                    // (under 100 nodes the nodes' lines stay in the cache)
                    if let Some(x) = signals.get(took + 1) {
                        prefetch_node(&nodes[x.node as usize]);
                    }
                }
                last = g.time;
                took += 1;
            }
            k += took;
            if !(BIG && busy) {
                break;
            }
            // The start at `k` (due) finds its radio busy: the general path,
            // as `frame_signal` and the loop of `frame_events` take it.
            let g = self.streams.slab[id as usize].signals[k];
            #[cfg(feature = "event-counts")]
            if k > cur {
                self.counts.popped(self.queue.len());
            }
            self.queue.advance_to(Time(g.time));
            let end_ref = (id as u64) << 32 | g.end_at as u64;
            if !self.signal_start_general(g.node, tx, g.power, end_ref, Time(g.time) + dur) {
                self.streams.slab[id as usize].signals[g.end_at as usize].end_at = END_UNSEEN;
            }
            if !(self.mac_out.is_empty() && self.work.is_empty()) {
                self.collect_mac(g.node);
                self.drain_work();
                bound = self.queue.peek_key128();
            }
            last = g.time;
            k += 1;
            if let Some(x) = self.streams.slab[id as usize].signals.get(k) {
                prefetch_node(&self.nodes[x.node as usize]);
            }
        }
        // Each start after `cur` is an executed event and moves the clock
        // (no fast start reads it: `on_sense_busy` is given its time).
        let h = k - cur;
        if h > 1 {
            self.executed += h as u64 - 1;
            self.queue.advance_to(Time(last));
        }
        h
    }
}
