//! Backoff and access timing of the DCF (IEEE 802.11-2016 §10.3.4):
//! drawing and counting down slots, freezing while the medium is busy,
//! scheduling the access timer.

use super::*;

impl Dcf {
    /// `active` as an index the compiler knows is in bounds: `acs` has two
    /// entries and `active` is 0 (plain DCF) or an EDCA entity's index
    /// below `n_acs` <= 2 (`dcf/edca.rs`), so `& 1` changes nothing and
    /// `self.acs[self.ai()]` needs no bounds check (session 23).
    #[inline(always)]
    pub(super) fn ai(&self) -> usize {
        debug_assert!(self.active < self.n_acs && self.n_acs <= self.acs.len());
        self.active & 1
    }

    pub(super) fn draw_backoff(&mut self) -> u32 {
        self.rng.uniform_incl(self.acs[self.ai()].cw)
    }

    // ---- channel access -------------------------------------------------

    /// Slots of entity `i`'s backoff counted down by `now`.
    pub(super) fn count_down(&mut self, i: usize, now: Time) {
        let a = &mut self.acs[i];
        if let Some(b) = a.backoff {
            if now > a.countdown_start {
                let counted = ((now - a.countdown_start).as_ns() / self.slot.as_ns()) as u32;
                a.backoff = Some(b - counted.min(b));
                a.counted_to = a.countdown_start + self.slot * counted.min(b) as u64;
            }
        }
    }

    /// Stops a running countdown, keeping the slots not yet counted.
    /// Inlined test, out-of-line work: most calls (every signal start at
    /// an idle receiver) find no countdown running.
    #[inline]
    pub(super) fn freeze(&mut self, now: Time) {
        if self.access_pending {
            self.freeze_running(now);
        }
    }

    #[inline(never)]
    fn freeze_running(&mut self, now: Time) {
        self.access_pending = false;
        self.access_gen = self.access_gen.wrapping_add(1);
        if self.n_acs == 1 {
            // Plain DCF: one entity, no loop (and no bounds check).
            return self.count_down(0, now);
        }
        for i in 0..self.n_acs {
            self.count_down(i, now);
        }
    }

    /// (Re)schedules the access timer if the station wants the medium and
    /// the medium is idle; each entity counts down from AIFS (DIFS for
    /// DCF) after the medium became idle; the timer is set for the first
    /// entity to reach zero.
    ///
    /// The tests are inlined, the arming out of line: most calls (every
    /// signal end, most frame events) arm nothing.
    #[inline]
    pub(super) fn schedule_access(&mut self, now: Time, out: &mut Vec<MacAction>) {
        self.freeze(now);
        if !matches!(self.state, State::Idle | State::Contend) || self.sensing || self.transmitting || self.responding {
            return;
        }
        if self.n_acs == 1 && self.acs[0].backoff.is_none() {
            return; // plain DCF with no backoff (nothing to send, none counting down)
        }
        self.arm_access(now, out);
    }

    /// Arms the access timer. Saves no registers on plain DCF's path
    /// (most armings: 187,617 on the 2-hop): EDCA's loop and a full action
    /// vector's growth are out of line and tail-called, so nothing needs to
    /// survive a call (both in the middle of the body made it save four
    /// registers and restore them on every arming).
    #[inline(never)]
    pub(super) fn arm_access(&mut self, now: Time, out: &mut Vec<MacAction>) {
        if self.n_acs != 1 {
            return self.arm_access_edca(now, out);
        }
        // Plain DCF: one entity, no loop and no minimum to fold
        // (`schedule_access` found its backoff set).
        let Some(b) = self.acs[0].backoff else { return };
        let start = self.countdown_from(0);
        // A DATA frame for this station decoded and its ACK goes out at
        // `reply_at` (SIFS after it; also a CTS under a rule that cannot
        // refuse it, `cts.rs`; the response timer drops it only when this
        // station is already transmitting, and that transmission froze the
        // countdown the same way), and this countdown would
        // start no earlier: the response's transmission would freeze it
        // before it counts a slot (`count_down` changes nothing at
        // `now <= countdown_start`), and the response's end arms it again
        // from the same state, so the timer is dead when armed. Not armed: no
        // action, no queue entry, no freeze (a relay's every forwarded
        // packet, fed or re-armed in the SIFS before its ACK). The same run
        // but for fewer executed events (test
        // `simulation::pipeline::tests::dead_access_before_an_ack_changes_nothing_but_events`).
        if start >= self.reply_at && !arms_dead() {
            return;
        }
        let at = self.start_countdown(0, start, b, now);
        self.access_pending = true;
        self.access_gen = self.access_gen.wrapping_add(1);
        push_timer(out, at, MacTimer::Access, self.access_gen);
    }

    /// EDCA: every entity with a backoff starts its countdown; the timer is
    /// set for the first to reach zero, if any.
    #[inline(never)]
    fn arm_access_edca(&mut self, now: Time, out: &mut Vec<MacAction>) {
        let mut first: Option<Time> = None;
        for i in 0..self.n_acs {
            let Some(b) = self.acs[i].backoff else { continue };
            let at = self.arm_entity(i, b, now);
            first = Some(first.map_or(at, |f| f.min(at)));
        }
        let Some(at) = first else { return };
        self.access_pending = true;
        self.access_gen = self.access_gen.wrapping_add(1);
        push_timer(out, at, MacTimer::Access, self.access_gen);
    }

    /// Starts entity `i`'s countdown of `b` slots in this idle period and
    /// returns when it reaches zero.
    #[inline(always)]
    fn arm_entity(&mut self, i: usize, b: u32, now: Time) -> Time {
        let start = self.countdown_from(i);
        self.start_countdown(i, start, b, now)
    }

    /// Where entity `i`'s countdown starts in this idle period: slots
    /// already counted in it (before a freeze caused by a new packet or a
    /// re-evaluation) are not counted again.
    #[inline(always)]
    fn countdown_from(&self, i: usize) -> Time {
        self.access_start(i).max(self.acs[i].counted_to)
    }

    /// Starts entity `i`'s countdown of `b` slots at `start`; when it
    /// reaches zero.
    #[inline(always)]
    fn start_countdown(&mut self, i: usize, start: Time, b: u32, now: Time) -> Time {
        let at = (start + self.slot * b as u64).max(now);
        let a = &mut self.acs[i];
        a.countdown_start = start;
        a.access_at = at;
        at
    }

    /// When the AIFS/DIFS/EIFS deferral of entity `i` in the current idle
    /// period ends: AIFS after the medium (and NAV) became idle, and never
    /// before EIFS after a frame that failed to decode (as ns-3's channel
    /// access manager).
    pub(super) fn access_start(&self, i: usize) -> Time {
        (self.idle_since.max(self.nav_until) + self.acs[i].aifs).max(self.eifs_until)
    }

    pub(super) fn medium_became_busy(&mut self, now: Time) {
        self.freeze(now);
    }

    pub(super) fn medium_maybe_idle(&mut self, now: Time, out: &mut Vec<MacAction>) {
        if !self.sensing && !self.transmitting {
            self.schedule_access(now, out);
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Arm the dead access timers `arm_access` skips (this thread's runs).
    pub(crate) static ARM_DEAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the dead armings are made anyway (tests only: `ARM_DEAD`).
#[inline(always)]
fn arms_dead() -> bool {
    #[cfg(test)]
    return ARM_DEAD.with(|a| a.get());
    #[cfg(not(test))]
    false
}

/// Pushes `MacAction::Timer { at, kind, gen }`; a full vector grows out
/// of line (`push_timer_grow`), so a caller keeps nothing across a call.
#[inline(always)]
pub(super) fn push_timer(out: &mut Vec<MacAction>, at: Time, kind: MacTimer, gen: u32) {
    if out.len() == out.capacity() {
        return push_timer_grow(out, at, kind, gen);
    }
    out.push(MacAction::Timer { at, kind, gen });
}

#[cold]
#[inline(never)]
fn push_timer_grow(out: &mut Vec<MacAction>, at: Time, kind: MacTimer, gen: u32) {
    out.push(MacAction::Timer { at, kind, gen });
}

#[cfg(test)]
mod layout_tests {
    use super::*;

    #[test]
    fn hot_fields_fit_in_120_bytes() {
        // What a signal start or end reads: carrier sense, deferral and the
        // first backoff entity's countdown (see `Dcf`).
        let end = std::mem::offset_of!(Dcf, acs) + std::mem::offset_of!(Ac, counted_to) + 8;
        assert!(end <= 120, "{end}");
        assert!(std::mem::offset_of!(Dcf, eifs) < std::mem::offset_of!(Dcf, acs));
    }
}
