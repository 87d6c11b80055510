//! The end of a received frame when the medium is idle after it: the
//! entry of the kernel's run of signal ends (`simulation/frames_runs.rs`,
//! session 19), and the NAV and report of a frame for another station
//! (shared with `Dcf::receive`).

use super::*;

impl Dcf {
    /// [`Dcf::on_rx_end`] with the medium idle after it (`idle` true), for
    /// the kernel's run of signal ends (`simulation/frames_runs.rs`,
    /// session 19): a frame decoded for another station (not broadcast:
    /// 91 % of rwp30's decoded ends) and a lost frame are taken inline, the
    /// rest through `on_rx_end`. The same steps as `on_rx_end`, but for one:
    /// the report of an overheard data packet (`MacAction::Overheard(p,
    /// f.src)`, which `on_rx_end` pushes first, before any action of
    /// `on_signal_end`) is not pushed but returned, `p`, for the caller to
    /// carry out in its place (session 20: the kernel hands it to the
    /// routing protocol from the frame, without the two copies of the
    /// packet through `out`).
    #[inline(always)]
    #[must_use = "the overheard report is returned, not pushed"]
    pub fn on_rx_end_idle<'f>(
        &mut self,
        now: Time,
        decoded: Option<&'f Frame>,
        out: &mut Vec<MacAction>,
    ) -> Option<&'f Packet> {
        let heard = match decoded {
            Some(f) if f.dst != self.addr && f.dst != BROADCAST => {
                self.eifs_until = Time::ZERO;
                self.overheard_nav(now, f)
            }
            Some(_) => {
                self.on_rx_end(now, decoded, true, out);
                return None;
            }
            None => {
                self.failed_rx(now);
                None
            }
        };
        self.idle_end(now, out);
        heard
    }

    /// `on_signal_end(now, true, out)`, its tests in the order the common
    /// end takes them (session 20): after the first block `sensing` is
    /// false, so `medium_maybe_idle` tests `transmitting` alone, and
    /// `schedule_access` (which `freeze` leaves both to) need not test
    /// either again; a station with nothing to send (plain DCF, no backoff)
    /// is told apart before the state and the response are read. The same
    /// steps: the tests after `freeze` only read, so their order is free.
    #[inline(always)]
    fn idle_end(&mut self, now: Time, out: &mut Vec<MacAction>) {
        if self.sensing {
            self.sensing = false;
            if !self.transmitting {
                self.idle_since = now;
            }
        }
        if self.transmitting {
            return;
        }
        self.freeze(now);
        if self.n_acs == 1 && self.acs[0].backoff.is_none() {
            return;
        }
        if !matches!(self.state, State::Idle | State::Contend) || self.responding {
            return;
        }
        self.arm_access(now, out);
    }

    /// A frame decoded for another station (not broadcast).
    #[inline(always)]
    pub(super) fn overheard(&mut self, now: Time, f: &Frame, out: &mut Vec<MacAction>) {
        if self.overheard_nav(now, f).is_some() {
            report_overheard(f, out);
        }
    }

    /// [`Dcf::overheard`]'s NAV, and the data packet it reports (if any).
    #[inline(always)]
    fn overheard_nav<'f>(&mut self, now: Time, f: &'f Frame) -> Option<&'f Packet> {
        // Virtual carrier sense from frames addressed to others.
        let until = now + f.duration;
        if until > self.nav_until {
            self.nav_until = until;
        }
        if self.report_overheard && f.kind == FrameKind::Data {
            f.packet.as_ref()
        } else {
            None
        }
    }
}

/// The report of an overheard data packet, out of line (only the general
/// end, `Dcf::receive`, pushes it since session 20; the run of signal
/// ends gets the packet returned by `on_rx_end_idle`): inlined, the
/// packet was copied twice (to the stack, then into `out`), and only a
/// quarter of the frames for other stations carry one (rwp30).
#[inline(never)]
fn report_overheard(f: &Frame, out: &mut Vec<MacAction>) {
    if let Some(p) = f.packet {
        out.push(MacAction::Overheard(p, f.src));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::Purpose;

    proptest::proptest! {
        /// `idle_end` (session 20) against `on_signal_end(now, true, _)`,
        /// the steps it stands for, from any carrier-sense, access and
        /// exchange state, plain DCF and EDCA: the same actions and the
        /// same fields it may touch.
        #[test]
        fn idle_end_is_on_signal_end_idle(
            flags in proptest::collection::vec(proptest::bool::ANY, 5),
            state in 0usize..8,
            backoff in proptest::collection::vec(proptest::option::of(0u32..8), 2),
            times in proptest::collection::vec(0u64..3_000_000, 6),
            edca in proptest::bool::ANY,
        ) {
            let states = [
                State::Idle,
                State::Contend,
                State::SendingRts,
                State::WaitCts,
                State::DataPending,
                State::SendingData,
                State::WaitAck,
                State::SendingBroadcast,
            ];
            let cfg = MacConfig { edca, ..MacConfig::default() };
            let make = || {
                let mut d = Dcf::new(0, &cfg, false, RngStream::new(1, 0, Purpose::MacBackoff, 0));
                (d.sensing, d.transmitting, d.access_pending, d.responding) = (flags[0], flags[1], flags[2], flags[3]);
                d.state = states[state];
                for (a, b) in d.acs.iter_mut().zip(&backoff) {
                    a.backoff = *b;
                    a.countdown_start = Time(times[4]);
                    a.counted_to = Time(times[5]);
                }
                (d.idle_since, d.nav_until, d.eifs_until) = (Time(times[0]), Time(times[1]), Time(times[2]));
                if flags[4] {
                    d.access_gen = 7;
                }
                d
            };
            let now = Time(times[3]);
            let (mut a, mut b) = (make(), make());
            let (mut out_a, mut out_b) = (Vec::new(), Vec::new());
            a.on_signal_end(now, true, &mut out_a);
            b.idle_end(now, &mut out_b);
            let fields = |d: &Dcf| {
                format!(
                    "{:?} {:?} {:?} {:?} {:?} {:?}",
                    (d.sensing, d.transmitting, d.access_pending, d.responding),
                    d.state,
                    d.idle_since,
                    d.access_gen,
                    d.acs,
                    (d.nav_until, d.eifs_until)
                )
            };
            proptest::prop_assert_eq!(format!("{out_a:?}"), format!("{out_b:?}"));
            proptest::prop_assert_eq!(fields(&a), fields(&b));
        }
    }
}
