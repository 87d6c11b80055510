//! One node's radio: the threshold reception model with capture.
//!
//! Every signal at or above the carrier-sense threshold makes the medium
//! busy for its duration. The receiver locks onto one frame at a time; a
//! frame decodes iff it was locked from its first to its last bit, was at or
//! above the receive threshold, the radio did not transmit meanwhile, and no
//! overlapping signal came within the capture ratio of it. What happens when
//! a second frame arrives during a reception is the [`CaptureRule`].
//!
//! With `Reception::Sinr` the radio delegates to the SINR receiver
//! ([`super::sinr`]); the capture rule then plays no part.
//!
//! The kernel's fast paths, `start_idle_ns2`, `start_lone_lock_ns2` and
//! `end_lone_lock`, stay beside the general `start` and `signal_end` whose
//! answers they must give; their tests are in `radio_fast_tests.rs`, the
//! others in `radio_tests.rs`.

use super::sinr::{noise_floor_w, SinrRx};
use super::{PhyMode, RadioConfig, Reception, TxId};
use crate::sim::{RngStream, Time};

/// What happens when a second frame arrives during a reception.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CaptureRule {
    /// ns-2: the frame being received survives iff it is at least the
    /// capture ratio stronger than the newcomer; a later frame is never
    /// decoded. A signal below the receive threshold also locks an idle
    /// receiver (as ns-2's MAC does) and so can spoil a later frame.
    Ns2,
    /// ns-3 frame capture: a later frame at least the capture ratio stronger
    /// than the current one takes the receiver over (the first is lost). A
    /// signal below the receive threshold never locks the receiver.
    StrongerWins,
}

impl CaptureRule {
    pub fn name(self) -> &'static str {
        match self {
            CaptureRule::Ns2 => "ns2",
            CaptureRule::StrongerWins => "stronger-wins",
        }
    }
}

#[derive(Copy, Clone, Debug)]
struct Signal {
    tx: TxId,
    power: f64,
}

/// Signals on the air kept in the radio itself; more spill to the heap.
const INLINE: usize = 2;

/// The frame the receiver is locked onto (stored flattened in [`Radio`]).
#[derive(Copy, Clone, Debug)]
struct Lock {
    tx: TxId,
    power: f64,
    end: Time,
    ok: bool,
    collided: bool,
}

/// What a signal's start did to the receiver.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StartOutcome {
    /// The medium went from idle to busy.
    pub became_busy: bool,
    /// The frame was ignored because the ongoing reception captured the
    /// receiver (ns-2 then defers EIFS after it).
    pub captured_out: bool,
}

/// What [`Radio::begin_signal_lazy`] did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LazyStart {
    pub outcome: StartOutcome,
    /// The new signal's end must be delivered.
    pub keep: bool,
    /// The new signal is the locked frame now.
    pub locks: bool,
    /// The formerly locked frame (transmission, end) whose end must not be
    /// delivered any more.
    pub dropped: Option<(TxId, Time)>,
}

/// What [`Radio::start_lone_lock_ns2`] did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LoneStart {
    /// A longer colliding frame took the lock over; the old lock
    /// (transmission, end) left the set and its end must not be delivered.
    Takeover(TxId, Time),
    /// The lock captured the newcomer out; `keep`: its end must be delivered.
    Captured { keep: bool },
    /// The newcomer collided with the lock and does not outlast it; `keep`:
    /// its end must be delivered (it ends with the lock).
    Collided { keep: bool },
}

/// What a signal's end means for the MAC.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RxOutcome {
    /// The signal was not the locked frame: nothing to report.
    Nothing,
    /// The locked frame decoded correctly.
    Decoded(TxId),
    /// The locked frame `tx` was lost; `collided` tells collision from error.
    Failed { tx: TxId, collided: bool },
}

/// Receiver counters.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RadioStats {
    pub decoded: u64,
    /// Locked frames lost because another signal overlapped.
    pub collisions: u64,
    /// Locked frames lost for being too weak or arriving during a transmission.
    pub errors: u64,
    /// Later frames ignored because the ongoing reception captured the receiver.
    pub captures: u64,
    /// Frames lost when a stronger later frame took the receiver over.
    pub preempted: u64,
}

/// The receiver's state, laid out for the channel's access pattern at
/// 10^5-10^6 nodes (docs/performance.md, "Large networks"): every signal
/// start and end reads and writes this record at a node the channel picks,
/// so it is two cache lines, aligned, with no pointer to follow in the
/// common case: the first two signals on the air are held inline (with the
/// carrier-sense ranges of the SWANS network a radio senses more than two
/// at once rarely), the lock's fields are flattened, and the counters share
/// the second line. (Before: 128 B at any offset, three lines, plus the
/// signal list on the heap, a fourth.)
#[repr(C, align(64))]
pub struct Radio {
    // First line.
    /// Present under the SINR reception model.
    sinr: Option<Box<SinrRx>>,
    rx_threshold: f64,
    capture_ratio: f64,
    /// Powers and transmissions of the first `INLINE` signals on the air.
    power: [f64; INLINE],
    /// The locked frame's power and end; `lock_power` stays after the lock
    /// is released (it is the power of the frame last decoded).
    lock_power: f64,
    lock_end: Time,
    tx: [TxId; INLINE],
    // Second line.
    lock_tx: TxId,
    /// Signals on the air: `min(n_active, INLINE)` inline, the rest in `more`.
    n_active: u8,
    locked: bool,
    lock_ok: bool,
    /// Lost because another signal overlapped (rather than weak / own tx).
    lock_collided: bool,
    transmitting: bool,
    rule: CaptureRule,
    /// A threshold radio (no `sinr`) under ns-2's rule: fixed once the
    /// radio is built (`new`, `from_config`), one test for the fast paths
    /// instead of two (session 22).
    plain_ns2: bool,
    /// The spill, allocated at the first third signal and kept (boxed: 8 B
    /// in the record instead of a `Vec`'s 24).
    #[allow(clippy::box_collection)]
    more: Option<Box<Vec<Signal>>>,
    pub stats: RadioStats,
}

impl Radio {
    pub fn new(rule: CaptureRule, rx_threshold: f64, capture_ratio: f64) -> Radio {
        Radio {
            sinr: None,
            rx_threshold,
            capture_ratio,
            power: [0.0; INLINE],
            lock_power: 0.0,
            lock_end: Time::ZERO,
            tx: [0; INLINE],
            lock_tx: 0,
            n_active: 0,
            locked: false,
            lock_ok: false,
            lock_collided: false,
            transmitting: false,
            rule,
            plain_ns2: rule == CaptureRule::Ns2,
            more: None,
            stats: RadioStats::default(),
        }
    }

    fn lock(&self) -> Option<Lock> {
        self.locked.then_some(Lock {
            tx: self.lock_tx,
            power: self.lock_power,
            end: self.lock_end,
            ok: self.lock_ok,
            collided: self.lock_collided,
        })
    }

    fn set_lock(&mut self, l: Lock) {
        self.locked = true;
        self.lock_tx = l.tx;
        self.lock_power = l.power;
        self.lock_end = l.end;
        self.lock_ok = l.ok;
        self.lock_collided = l.collided;
    }

    /// Adds a signal to the set on the air (a set: its order is not used).
    #[inline]
    fn push_active(&mut self, tx: TxId, power: f64) {
        let k = self.n_active as usize;
        if k < INLINE {
            self.tx[k] = tx;
            self.power[k] = power;
            self.n_active += 1;
        } else {
            // (n_active stays at INLINE + 1 while `more` holds the rest)
            self.more.get_or_insert_with(Default::default).push(Signal { tx, power });
            self.n_active = INLINE as u8 + 1;
        }
    }

    /// Removes `tx` from the set on the air, if it is there.
    #[inline]
    fn remove_active(&mut self, tx: TxId) {
        let k = (self.n_active as usize).min(INLINE);
        if let Some(i) = self.tx[..k].iter().position(|&t| t == tx) {
            // Refill slot i from the spill, or from the last inline slot.
            if let Some(s) = self.more.as_mut().and_then(|m| m.pop()) {
                self.tx[i] = s.tx;
                self.power[i] = s.power;
                if self.spill().is_empty() {
                    self.n_active = INLINE as u8;
                }
            } else {
                self.tx[i] = self.tx[k - 1];
                self.power[i] = self.power[k - 1];
                self.n_active -= 1;
            }
        } else if let Some(m) = self.more.as_mut() {
            if let Some(i) = m.iter().position(|s| s.tx == tx) {
                m.swap_remove(i);
                if m.is_empty() {
                    self.n_active = INLINE as u8;
                }
            }
        }
    }

    /// The signals beyond the inline ones.
    #[inline]
    fn spill(&self) -> &[Signal] {
        self.more.as_deref().map_or(&[], |m| m.as_slice())
    }

    /// Whether `power` beats every other signal on the air by the capture
    /// ratio (the signal `tx` itself excepted).
    #[inline]
    fn dominates(&self, tx: TxId, power: f64) -> bool {
        let k = (self.n_active as usize).min(INLINE);
        let beats = |t: TxId, p: f64| t == tx || power >= self.capture_ratio * p;
        (0..k).all(|i| beats(self.tx[i], self.power[i])) && self.spill().iter().all(|s| beats(s.tx, s.power))
    }

    /// The radio of `cfg`'s reception model; `rng` decides frame errors
    /// under the SINR model (unused by the threshold model).
    pub fn from_config(cfg: &RadioConfig, phy: &PhyMode, rng: RngStream) -> Radio {
        let mut r = Radio::new(cfg.capture_rule, cfg.rx_threshold_w, cfg.capture_ratio);
        if let Reception::Sinr { noise_figure_db } = cfg.reception {
            let noise = noise_floor_w(phy.standard, noise_figure_db);
            let mut rx = SinrRx::new(*phy, noise, cfg.rx_threshold_w, cfg.cs_threshold_w, rng);
            rx.set_preamble_detection(cfg.preamble_detection_snr);
            rx.set_energy_detection(cfg.energy_detection_w);
            rx.set_sensitivity_hold(cfg.cca_sensitivity_hold);
            r.sinr = Some(Box::new(rx));
            r.plain_ns2 = false;
        }
        r
    }

    /// A signal starts arriving at `now` (either reception model); `rate`
    /// is the PHY rate of the frame it carries.
    pub fn begin_signal(&mut self, now: Time, tx: TxId, power: f64, end: Time, rate: u64) -> StartOutcome {
        match self.sinr.as_mut() {
            Some(s) => s.signal_start(now, tx, power, end, rate),
            None => self.signal_start(tx, power, end),
        }
    }

    /// [`Radio::begin_signal`] for a caller that may leave out signal ends
    /// that can change nothing (docs/performance.md, "Session 11 (branch
    /// s11air)"). Under ns-2's capture rule with the threshold model the
    /// set of signals on the air is only counted (the powers are read by
    /// [`CaptureRule::StrongerWins`] alone), only a signal's own start can
    /// lock the receiver onto it, and the locked frame stays on the air to
    /// its end. So the end of a signal that is not the locked frame and
    /// passes strictly before the locked frame's end decides no outcome and
    /// does not end the busy period: it changes nothing. Two such ends:
    ///
    /// - the new signal's own, when it is not locked after its start
    ///   (captured out, or a collision that left the lock with the longer
    ///   frame) and ends before the locked frame (`keep` false);
    /// - the locked frame's, when a longer frame that collides with it
    ///   takes the lock over (`dropped`: its transmission and end).
    ///
    /// Either signal leaves the set at once, and the caller must not
    /// deliver its end ([`Radio::finish_signal`]); every other call is then
    /// answered exactly as if it had stayed and its end been delivered
    /// (`lazy_ends_match_the_full_radio`). Other models keep every signal.
    #[inline]
    pub fn begin_signal_lazy(&mut self, now: Time, tx: TxId, power: f64, end: Time, rate: u64) -> LazyStart {
        if !self.plain_ns2 {
            let outcome = self.begin_signal(now, tx, power, end, rate);
            return LazyStart { outcome, keep: true, locks: false, dropped: None };
        }
        self.start(tx, power, end, true)
    }

    /// The common signal start at 400 nodes and on the chains (65-83 % of
    /// the starts, session 15): a threshold radio under ns-2's rule with no
    /// signal on the air and no lock. Then [`Radio::start`] locks onto the
    /// signal (decodable iff at or above the receive threshold and not
    /// transmitting), puts it in the set, and answers (became busy, not
    /// captured out, kept, locks, nothing dropped), lazy or not. Returns
    /// false, changing nothing, when the radio is not in that state (the
    /// caller then takes the general path). Checked against the general
    /// path: `fast_paths_match_the_general_ones`.
    #[inline(always)]
    pub fn start_idle_ns2(&mut self, tx: TxId, power: f64, end: Time) -> bool {
        if self.n_active != 0 || self.locked || !self.plain_ns2 {
            return false;
        }
        let decodable = power >= self.rx_threshold && !self.transmitting;
        self.set_lock(Lock { tx, power, end, ok: decodable, collided: false });
        self.tx[0] = tx;
        self.power[0] = power;
        self.n_active = 1;
        true
    }

    /// A start at a busy radio whose only signal on the air is the locked
    /// frame (a threshold radio under ns-2's rule), every case of it
    /// (session 22; before, only the takeover, session 16: 68 % of the
    /// busy starts of the 400-node file's 120-s cut). [`Radio::start`]
    /// (lazy) then either captures the newcomer out (counted; kept on the
    /// air iff it ends no earlier than the lock), or marks the collision and
    /// either locks onto a newcomer that ends after the lock, dropping the
    /// old lock from the set (`Takeover`: the old lock's transmission and
    /// end), or keeps the lock (the newcomer kept on the air iff it ends
    /// with it). Never became busy, never locks but in a takeover, nothing
    /// dropped but in a takeover. `None`, changing nothing, in any other
    /// state. Checked against the general path:
    /// `fast_paths_match_the_general_ones`.
    #[inline(always)]
    pub fn start_lone_lock_ns2(&mut self, tx: TxId, power: f64, end: Time) -> Option<LoneStart> {
        // (no test of `tx[0]`: a held lock's signal is in the set, so the
        // set's one signal is the lock's; `end_lone_lock`)
        if self.n_active != 1 || !self.locked || !self.plain_ns2 {
            return None;
        }
        debug_assert_eq!(self.tx[0], self.lock_tx);
        if self.lock_power >= self.capture_ratio * power {
            self.stats.captures += 1;
            let keep = end >= self.lock_end;
            if keep {
                self.push_second(tx, power);
            }
            return Some(LoneStart::Captured { keep });
        }
        if end > self.lock_end {
            let old = (self.lock_tx, self.lock_end);
            self.set_lock(Lock { tx, power, end, ok: false, collided: true });
            self.tx[0] = tx;
            self.power[0] = power;
            return Some(LoneStart::Takeover(old.0, old.1));
        }
        self.lock_ok = false;
        self.lock_collided = true;
        let keep = end == self.lock_end;
        if keep {
            self.push_second(tx, power);
        }
        Some(LoneStart::Collided { keep })
    }

    /// `push_active` with one signal on the air (inline: `INLINE` is 2).
    #[inline(always)]
    fn push_second(&mut self, tx: TxId, power: f64) {
        self.tx[1] = tx;
        self.power[1] = power;
        self.n_active = 2;
    }

    /// The common signal end: a threshold radio whose only signal on the
    /// air is the locked frame `tx`. Then [`Radio::finish_signal`] empties
    /// the set, releases the lock, counts and returns its outcome, and the
    /// medium becomes idle (`lock_power`, read by
    /// [`Radio::last_decoded_power`], already holds the frame's power).
    /// `None`, changing nothing, in any other state.
    /// The outcome of the locked frame `tx` at its last bit (decoded, or
    /// lost to a collision or an error), counted; shared by the general
    /// end (`finish_signal`) and the fast one.
    #[inline(always)]
    fn lock_outcome(&mut self, tx: TxId, ok: bool, collided: bool) -> RxOutcome {
        if ok {
            self.stats.decoded += 1;
            RxOutcome::Decoded(tx)
        } else {
            if collided {
                self.stats.collisions += 1;
            } else {
                self.stats.errors += 1;
            }
            RxOutcome::Failed { tx, collided }
        }
    }

    #[inline(always)]
    pub fn end_lone_lock(&mut self, tx: TxId) -> Option<RxOutcome> {
        self.end_lone_lock_as::<false>(tx)
    }

    /// [`Radio::end_lone_lock`] that also tests the set's signal (`tx[0]
    /// == tx`, which the invariant below implies: the same answers). The
    /// wide loop's ends (`end_run_small`) call it: without the test its
    /// code grew, +7.6 M instructions on rwp30 (session 25, measured).
    #[inline(always)]
    pub fn end_lone_lock_tested(&mut self, tx: TxId) -> Option<RxOutcome> {
        self.end_lone_lock_as::<true>(tx)
    }

    #[inline(always)]
    fn end_lone_lock_as<const SET_TEST: bool>(&mut self, tx: TxId) -> Option<RxOutcome> {
        // (no test of `sinr`: the SINR model never puts a signal in this
        // radio's set, `n_active` stays 0 there)
        // (no test of `tx[0]`, session 25: ~3 instructions an end, 0.4 %
        // of the AODV chain's. A held lock's signal is in the set: `start`
        // adds every signal it locks onto (`locks` implies `keep`), and the
        // lock's signal leaves the set only at its end (`signal_end`, which
        // releases the lock) or when a longer frame takes the lock over
        // (the lazy drop). With one signal in the set and the lock on `tx`
        // (ids unique among the signals on the air: a stream is reused
        // only after its last signal), that signal is `tx`;
        // `fast_paths_match_the_general_ones`.)
        if self.n_active != 1 || !self.locked || self.lock_tx != tx || (SET_TEST && self.tx[0] != tx) {
            debug_assert!(self.sinr.is_none() || self.n_active == 0);
            return None;
        }
        debug_assert_eq!(self.tx[0], tx);
        debug_assert!(self.sinr.is_none());
        self.n_active = 0;
        self.locked = false;
        Some(self.lock_outcome(tx, self.lock_ok, self.lock_collided))
    }

    /// A signal ends at `now` (either reception model).
    pub fn finish_signal(&mut self, now: Time, tx: TxId) -> (RxOutcome, bool) {
        let locked = match self.sinr.as_ref() {
            Some(s) => s.lock_power(tx),
            None => self.lock().filter(|l| l.tx == tx).map(|l| l.power),
        };
        let r = match self.sinr.as_mut() {
            Some(s) => s.signal_end(now, tx, &mut self.stats),
            None => self.signal_end(tx),
        };
        if let (RxOutcome::Decoded(_), Some(p)) = (r.0, locked) {
            self.lock_power = p;
        }
        r
    }

    /// Received power of the frame that [`Radio::finish_signal`] just
    /// reported decoded, watts (the rate oracle's SNR input; read it before
    /// the next signal starts, which may lock the receiver again).
    pub fn last_decoded_power(&self) -> f64 {
        self.lock_power
    }

    /// Physical carrier sense (energy from others; own transmission excluded).
    pub fn sensing(&self) -> bool {
        if let Some(s) = &self.sinr {
            return s.sensing();
        }
        self.n_active > 0
    }

    pub fn transmitting(&self) -> bool {
        self.transmitting
    }

    /// A signal of `power` watts starts arriving; it lasts until `end`.
    pub fn signal_start(&mut self, tx: TxId, power: f64, end: Time) -> StartOutcome {
        self.start(tx, power, end, false).outcome
    }

    /// `signal_start`; `lazy` (ns-2's rule only): leave out of the set the
    /// signals whose ends can change nothing ([`Radio::begin_signal_lazy`]).
    #[inline(always)]
    fn start(&mut self, tx: TxId, power: f64, end: Time, lazy: bool) -> LazyStart {
        let mut dropped = None;
        let became_busy = self.n_active == 0;
        let decodable = power >= self.rx_threshold && !self.transmitting;
        let mut captured_out = false;
        match (self.lock(), self.rule) {
            (None, CaptureRule::Ns2) => {
                // Any sensed signal occupies the receiver. Like ns-2, energy
                // left over from a frame that was captured out does not
                // interfere with a new lock (ns-2 covers it with EIFS NAV).
                self.set_lock(Lock { tx, power, end, ok: decodable, collided: false });
            }
            (None, CaptureRule::StrongerWins) => {
                if decodable {
                    // Survives the signals already on the air only if it
                    // dominates every one of them by the capture ratio.
                    let clean = self.dominates(tx, power);
                    self.set_lock(Lock { tx, power, end, ok: clean, collided: !clean });
                }
            }
            (Some(mut lock), rule) => {
                if lock.power >= self.capture_ratio * power {
                    // The ongoing reception captures the receiver.
                    captured_out = true;
                    self.stats.captures += 1;
                } else if rule == CaptureRule::StrongerWins && decodable && power >= self.capture_ratio * lock.power {
                    // The newcomer takes the receiver over.
                    self.stats.preempted += 1;
                    let clean = self.dominates(tx, power);
                    self.set_lock(Lock { tx, power, end, ok: clean, collided: !clean });
                } else {
                    // Collision: the locked frame is lost. The receiver stays
                    // busy with whichever of the two lasts longer.
                    lock.ok = false;
                    lock.collided = true;
                    if end > lock.end {
                        if lazy {
                            // The old frame ends first, unlocked, with the
                            // new one still on the air.
                            self.remove_active(lock.tx);
                            dropped = Some((lock.tx, lock.end));
                        }
                        lock = Lock { tx, power, end, ok: false, collided: true };
                    }
                    self.set_lock(lock);
                }
            }
        }
        // (The set is added to last: `dominates` skips `tx` itself, so the
        // order does not matter to the lock decisions above.)
        let locks = self.locked && self.lock_tx == tx;
        let keep = !lazy || locks || !self.locked || end >= self.lock_end;
        if keep {
            self.push_active(tx, power);
        }
        LazyStart { outcome: StartOutcome { became_busy, captured_out }, keep, locks, dropped }
    }

    /// The signal of `tx` ends. Returns the outcome for the MAC and whether
    /// the medium became idle (no more sensed energy).
    pub fn signal_end(&mut self, tx: TxId) -> (RxOutcome, bool) {
        self.remove_active(tx);
        let mut outcome = RxOutcome::Nothing;
        if let Some(lock) = self.lock() {
            if lock.tx == tx {
                self.locked = false;
                outcome = self.lock_outcome(tx, lock.ok, lock.collided);
            }
        }
        (outcome, self.n_active == 0)
    }

    /// The radio starts transmitting: half duplex, any reception is lost.
    pub fn start_tx(&mut self) {
        if let Some(s) = self.sinr.as_mut() {
            s.start_tx();
        }
        self.transmitting = true;
        // (no-op without a lock)
        self.lock_ok = false;
    }

    /// The transmission ended. True when the medium became idle during it
    /// without a signal ending (`radio.cca_sensitivity_hold`: ns-3.37
    /// forgets a reception abandoned for the transmission, `sinr.rs`): the
    /// MAC must be told.
    pub fn end_tx(&mut self) -> bool {
        self.transmitting = false;
        self.sinr.as_mut().is_some_and(|s| s.end_tx())
    }
}

#[cfg(test)]
#[path = "radio_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "radio_fast_tests.rs"]
mod fast_tests;
