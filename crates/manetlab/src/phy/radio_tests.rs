//! Unit tests of the threshold radio (`radio.rs`): reception, capture
//! rules, the layout of its state, and the lazy start against a reference.

use super::*;
const RX: f64 = 1e-9;
fn t(us: u64) -> Time {
    Time::from_us(us)
}

/// The proptests' script: (time, order at equal times, what), sorted;
/// 0 = end of own transmission k, 1 = its start, 2 = end of signal i,
/// 3 = its start. Own transmissions do not overlap each other.
pub(super) fn event_order(sigs: &[(u64, u64, u32)], txs: &[(u64, u64)]) -> Vec<(u64, u8, usize)> {
    let mut evs: Vec<(u64, u8, usize)> = Vec::new();
    for (i, &(at, len, _)) in sigs.iter().enumerate() {
        evs.push((at, 3, i));
        evs.push((at + len, 2, i));
    }
    let mut busy_until = 0;
    for (k, &(at, len)) in txs.iter().enumerate() {
        let at = at.max(busy_until);
        busy_until = at + len;
        evs.push((at, 1, k));
        evs.push((at + len, 0, k));
    }
    evs.sort();
    evs
}

#[test]
fn lone_frame_decodes_and_weak_one_fails() {
    let mut r = Radio::new(CaptureRule::Ns2, RX, 10.0);
    assert!(r.signal_start(1, 2e-9, t(10)).became_busy);
    assert_eq!(r.signal_end(1), (RxOutcome::Decoded(1), true));
    r.signal_start(2, 0.5e-9, t(20));
    assert_eq!(r.signal_end(2), (RxOutcome::Failed { tx: 2, collided: false }, true));
}

#[test]
fn ns2_first_survives_iff_ten_times_stronger() {
    // First frame 10x stronger: captures, second ignored.
    let mut r = Radio::new(CaptureRule::Ns2, RX, 10.0);
    r.signal_start(1, 10e-9, t(100));
    assert!(r.signal_start(2, 1e-9, t(150)).captured_out);
    assert_eq!(r.signal_end(1), (RxOutcome::Decoded(1), false));
    assert_eq!(r.signal_end(2), (RxOutcome::Nothing, true));
    // First frame only 9x stronger: both lost.
    let mut r = Radio::new(CaptureRule::Ns2, RX, 10.0);
    r.signal_start(1, 9e-9, t(100));
    r.signal_start(2, 1e-9, t(150));
    assert_eq!(r.signal_end(1).0, RxOutcome::Nothing);
    assert_eq!(r.signal_end(2).0, RxOutcome::Failed { tx: 2, collided: true });
    // A much stronger later frame is never decoded under ns2.
    let mut r = Radio::new(CaptureRule::Ns2, RX, 10.0);
    r.signal_start(1, 1e-9, t(100));
    r.signal_start(2, 100e-9, t(90));
    assert_eq!(r.signal_end(2).0, RxOutcome::Nothing);
    assert_eq!(r.signal_end(1).0, RxOutcome::Failed { tx: 1, collided: true });
}

#[test]
fn stronger_wins_takes_over() {
    let mut r = Radio::new(CaptureRule::StrongerWins, RX, 10.0);
    r.signal_start(1, 1e-9, t(100));
    r.signal_start(2, 10e-9, t(90));
    assert_eq!(r.signal_end(2).0, RxOutcome::Decoded(2));
    assert_eq!(r.signal_end(1).0, RxOutcome::Nothing);
    assert_eq!(r.stats.preempted, 1);
    // Below the ratio: both lost.
    let mut r = Radio::new(CaptureRule::StrongerWins, RX, 10.0);
    r.signal_start(1, 1e-9, t(100));
    r.signal_start(2, 5e-9, t(90));
    assert_eq!(r.signal_end(2).0, RxOutcome::Nothing);
    assert_eq!(r.signal_end(1).0, RxOutcome::Failed { tx: 1, collided: true });
    // A signal below the receive threshold does not lock the receiver,
    // and a later strong frame decodes over it.
    let mut r = Radio::new(CaptureRule::StrongerWins, RX, 10.0);
    r.signal_start(1, 0.1e-9, t(100));
    r.signal_start(2, 5e-9, t(90));
    assert_eq!(r.signal_end(2).0, RxOutcome::Decoded(2));
    assert_eq!(r.signal_end(1), (RxOutcome::Nothing, true));
}

#[test]
fn transmitting_spoils_reception() {
    let mut r = Radio::new(CaptureRule::Ns2, RX, 10.0);
    r.signal_start(1, 5e-9, t(100));
    r.start_tx();
    r.end_tx();
    assert_eq!(r.signal_end(1).0, RxOutcome::Failed { tx: 1, collided: false });
}

#[test]
fn layout_is_two_aligned_lines() {
    assert_eq!(std::mem::size_of::<Radio>(), 128);
    assert_eq!(std::mem::align_of::<Radio>(), 64);
}

/// The receiver as it was before the compact layout (a `Vec` of signals
/// and an `Option<Lock>`): the reference the flattened one must match.
struct Reference {
    rule: CaptureRule,
    ratio: f64,
    active: Vec<Signal>,
    lock: Option<Lock>,
    transmitting: bool,
    stats: RadioStats,
}

impl Reference {
    fn start(&mut self, tx: TxId, power: f64, end: Time) -> StartOutcome {
        let became_busy = self.active.is_empty();
        self.active.push(Signal { tx, power });
        let decodable = power >= RX && !self.transmitting;
        let clean = |a: &[Signal]| a.iter().all(|s| s.tx == tx || power >= self.ratio * s.power);
        let mut captured_out = false;
        match (self.lock, self.rule) {
            (None, CaptureRule::Ns2) => self.lock = Some(Lock { tx, power, end, ok: decodable, collided: false }),
            (None, CaptureRule::StrongerWins) => {
                if decodable {
                    let c = clean(&self.active);
                    self.lock = Some(Lock { tx, power, end, ok: c, collided: !c });
                }
            }
            (Some(mut lock), rule) => {
                if lock.power >= self.ratio * power {
                    captured_out = true;
                    self.stats.captures += 1;
                } else if rule == CaptureRule::StrongerWins && decodable && power >= self.ratio * lock.power {
                    self.stats.preempted += 1;
                    let c = clean(&self.active);
                    self.lock = Some(Lock { tx, power, end, ok: c, collided: !c });
                } else {
                    lock.ok = false;
                    lock.collided = true;
                    if end > lock.end {
                        lock = Lock { tx, power, end, ok: false, collided: true };
                    }
                    self.lock = Some(lock);
                }
            }
        }
        StartOutcome { became_busy, captured_out }
    }

    fn end(&mut self, tx: TxId) -> (RxOutcome, bool) {
        if let Some(i) = self.active.iter().position(|s| s.tx == tx) {
            self.active.swap_remove(i);
        }
        let mut outcome = RxOutcome::Nothing;
        if let Some(lock) = self.lock.filter(|l| l.tx == tx) {
            self.lock = None;
            outcome = if lock.ok {
                self.stats.decoded += 1;
                RxOutcome::Decoded(tx)
            } else {
                if lock.collided {
                    self.stats.collisions += 1;
                } else {
                    self.stats.errors += 1;
                }
                RxOutcome::Failed { tx, collided: lock.collided }
            };
        }
        (outcome, self.active.is_empty())
    }
}

/// The radio's own transmission starts (`on`) or ends, at the radio
/// under test and at the reference (which loses a frame it was
/// receiving when it starts to send).
fn own_tx(r: &mut Radio, f: &mut Reference, on: bool) {
    if on {
        r.start_tx();
        f.transmitting = true;
        if let Some(l) = f.lock.as_mut() {
            l.ok = false;
        }
    } else {
        r.end_tx();
        f.transmitting = false;
    }
}

proptest::proptest! {
    /// Random overlapping signals (up to six at once, so the inline
    /// slots spill), own transmissions, both capture rules: the compact
    /// radio answers every call exactly as the reference.
    #[test]
    fn compact_radio_matches_the_reference(
        stronger in proptest::bool::ANY,
        ops in proptest::collection::vec((0u8..4, 0u32..6, 0u32..40), 1..200),
    ) {
        let rule = if stronger { CaptureRule::StrongerWins } else { CaptureRule::Ns2 };
        let mut r = Radio::new(rule, RX, 10.0);
        let mut f = Reference {
            rule, ratio: 10.0, active: Vec::new(), lock: None, transmitting: false, stats: RadioStats::default(),
        };
        let mut on_air = [false; 6];
        for (k, (op, tx, p)) in ops.into_iter().enumerate() {
            match op {
                0 | 1 if !on_air[tx as usize] => {
                    // powers from 0.05 to ~100 x the threshold
                    let power = RX * 0.05 * 1.25f64.powi(p as i32);
                    let end = t(1000 + k as u64 * 7 + p as u64);
                    proptest::prop_assert_eq!(r.signal_start(tx, power, end), f.start(tx, power, end));
                    on_air[tx as usize] = true;
                }
                0 | 1 => {
                    proptest::prop_assert_eq!(r.signal_end(tx), f.end(tx));
                    on_air[tx as usize] = false;
                }
                2 if !f.transmitting => own_tx(&mut r, &mut f, true),
                _ => own_tx(&mut r, &mut f, false),
            }
            proptest::prop_assert_eq!(r.sensing(), !f.active.is_empty());
            proptest::prop_assert_eq!(r.stats, f.stats);
        }
    }
}

proptest::proptest! {
    /// Signals with random arrivals, durations and powers (up to ~40 on
    /// the air at once, ties in time included) and own transmissions,
    /// run in time order under ns-2's rule by a radio that leaves out
    /// the ends `begin_signal_lazy` says change nothing, and by the
    /// reference with every end delivered: every delivered end gets the
    /// same answer, every left-out end is (Nothing, still busy) at the
    /// reference, and carrier sense and the counters agree after every
    /// step.
    #[test]
    fn lazy_ends_match_the_full_radio(
        sigs in proptest::collection::vec((0u64..400, 1u64..120, 0u32..40), 1..120),
        txs in proptest::collection::vec((0u64..400, 1u64..60), 0..6),
    ) {
        let evs = event_order(&sigs, &txs);
        let mut r = Radio::new(CaptureRule::Ns2, RX, 10.0);
        let mut f = Reference {
            rule: CaptureRule::Ns2, ratio: 10.0, active: Vec::new(), lock: None, transmitting: false,
            stats: RadioStats::default(),
        };
        let mut unseen = vec![false; sigs.len()];
        for (at, what, i) in evs {
            match what {
                3 => {
                    let (_, _, p) = sigs[i];
                    let power = RX * 0.05 * 1.25f64.powi(p as i32);
                    let end = t(at + sigs[i].1);
                    let l = r.begin_signal_lazy(t(at), i as TxId, power, end, 1);
                    proptest::prop_assert_eq!(l.outcome, f.start(i as TxId, power, end));
                    unseen[i] = !l.keep;
                    if let Some((old, old_end)) = l.dropped {
                        proptest::prop_assert!(!unseen[old as usize]);
                        proptest::prop_assert_eq!(old_end, t(sigs[old as usize].0 + sigs[old as usize].1));
                        unseen[old as usize] = true;
                    }
                }
                2 => {
                    let want = f.end(i as TxId);
                    if unseen[i] {
                        proptest::prop_assert_eq!(want, (RxOutcome::Nothing, false));
                    } else {
                        proptest::prop_assert_eq!(r.finish_signal(t(at), i as TxId), want);
                    }
                }
                1 => own_tx(&mut r, &mut f, true),
                _ => own_tx(&mut r, &mut f, false),
            }
            proptest::prop_assert_eq!(r.sensing(), !f.active.is_empty());
            proptest::prop_assert_eq!(r.stats, f.stats);
        }
    }
}

#[test]
fn a_lock_taken_over_and_a_shorter_loser_are_left_out() {
    let mut r = Radio::new(CaptureRule::Ns2, RX, 10.0);
    // 1 locks; 2 collides and ends later: it takes the lock, 1 is dropped.
    assert!(r.begin_signal_lazy(t(0), 1, 2e-9, t(100), 1).keep);
    let l = r.begin_signal_lazy(t(10), 2, 2e-9, t(110), 1);
    assert_eq!((l.keep, l.dropped), (true, Some((1, t(100)))));
    // 3 collides and ends before the lock: left out.
    let l = r.begin_signal_lazy(t(20), 3, 2e-9, t(50), 1);
    assert_eq!((l.keep, l.dropped), (false, None));
    // 4 is captured out but outlasts the lock: kept (it ends the busy period).
    let l = r.begin_signal_lazy(t(30), 4, 0.1e-9, t(130), 1);
    assert!(l.outcome.captured_out && l.keep);
    assert_eq!(r.finish_signal(t(110), 2), (RxOutcome::Failed { tx: 2, collided: true }, false));
    assert_eq!(r.finish_signal(t(130), 4), (RxOutcome::Nothing, true));
    // StrongerWins keeps everything.
    let mut r = Radio::new(CaptureRule::StrongerWins, RX, 10.0);
    r.begin_signal_lazy(t(0), 1, 2e-9, t(100), 1);
    let l = r.begin_signal_lazy(t(10), 2, 2e-9, t(50), 1);
    assert_eq!((l.keep, l.dropped), (true, None));
}
