//! The end of a decoded frame (`Dcf::on_rx_end`), split by whom it is for
//! (session 22). `on_rx_end` saved six registers on every decoded end;
//! a frame for another station (the NAV only: 45 % of the AODV chain's
//! decoded ends, a third of the 2-hop's) needs none of them, so it is
//! taken in a small function whose calls are all tail calls, and the
//! frames for this station (and broadcasts) go to `rx_for_me`, the body
//! of before.

use super::*;

impl Dcf {
    /// [`Dcf::on_rx_end`] of a decoded frame `f`.
    #[inline(never)]
    pub(super) fn rx_end_decoded(&mut self, now: Time, f: &Frame, idle: bool, out: &mut Vec<MacAction>) {
        if f.dst == self.addr || f.dst == BROADCAST {
            return self.rx_for_me(now, f, idle, out);
        }
        // `receive`'s `overheard` (`dcf/rx.rs`): the NAV, then the report
        // of a data packet if asked for (out of line: it copies the packet).
        self.eifs_until = Time::ZERO;
        let until = now + f.duration;
        if until > self.nav_until {
            self.nav_until = until;
        }
        if self.report_overheard && f.kind == FrameKind::Data && f.packet.is_some() {
            return self.overheard_then_end(now, f, idle, out);
        }
        self.end_tail(now, idle, out)
    }

    /// `on_rx_end` of a frame for this station or a broadcast, as before.
    #[inline(never)]
    pub(super) fn rx_for_me(&mut self, now: Time, f: &Frame, idle: bool, out: &mut Vec<MacAction>) {
        self.eifs_until = Time::ZERO;
        self.receive(now, f, out);
        self.on_signal_end(now, idle, out);
    }

    /// `on_rx_end` of an overheard data frame that is reported.
    #[inline(never)]
    fn overheard_then_end(&mut self, now: Time, f: &Frame, idle: bool, out: &mut Vec<MacAction>) {
        if let Some(p) = f.packet {
            out.push(MacAction::Overheard(p, f.src));
        }
        self.on_signal_end(now, idle, out);
    }

    /// `on_signal_end(now, idle, out)` with calls in tail position only:
    /// a running countdown's freeze (rare at a frame's end: its start froze
    /// it) goes to `freeze_then_schedule`. The same steps: the freeze only
    /// touches the countdown, which the tests after it do not read.
    #[inline(always)]
    fn end_tail(&mut self, now: Time, idle: bool, out: &mut Vec<MacAction>) {
        if idle && self.sensing {
            self.sensing = false;
            if !self.transmitting {
                self.idle_since = now;
            }
        }
        if self.sensing || self.transmitting {
            return;
        }
        if self.access_pending {
            return self.freeze_then_schedule(now, out);
        }
        if !matches!(self.state, State::Idle | State::Contend) || self.responding {
            return;
        }
        if self.n_acs == 1 && self.acs[0].backoff.is_none() {
            return;
        }
        self.arm_access(now, out)
    }

    /// `schedule_access` with a countdown running (its freeze first).
    #[inline(never)]
    pub(super) fn freeze_then_schedule(&mut self, now: Time, out: &mut Vec<MacAction>) {
        self.schedule_access(now, out)
    }
}
