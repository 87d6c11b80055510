//! The radio's fast paths (`Radio::start_idle_ns2`, `Radio::start_lone_lock_ns2`,
//! `Radio::end_lone_lock`)
//! against its general ones (`begin_signal_lazy`, `finish_signal`), as the
//! kernel uses them (`simulation/frames.rs`): a radio that tries the fast
//! path first must answer every call and end in every state exactly as a
//! radio that only takes the general path.

use super::*;

const RX: f64 = 1e-9;

fn t(us: u64) -> Time {
    Time::from_us(us)
}

/// Every field that a call can change (the stale inline slots included).
fn state(r: &Radio) -> impl PartialEq + std::fmt::Debug {
    (
        (r.n_active, r.locked, r.lock_tx, r.lock_power.to_bits(), r.lock_end, r.lock_ok, r.lock_collided),
        (r.transmitting, r.tx, r.power.map(f64::to_bits), r.stats),
        r.spill().iter().map(|s| (s.tx, s.power.to_bits())).collect::<Vec<_>>(),
    )
}

proptest::proptest! {
    /// Random overlapping signals (ties in time included, up to ~40 on the
    /// air, so the inline slots spill), own transmissions, ns-2's rule and
    /// ns-3's (where the start's fast path must decline), powers around
    /// the receive threshold: the same answers and states after every call.
    #[test]
    fn fast_paths_match_the_general_ones(
        sigs in proptest::collection::vec((0u64..400, 1u64..120, 0u32..40), 1..120),
        txs in proptest::collection::vec((0u64..400, 1u64..60), 0..6),
        ns2 in proptest::bool::ANY,
    ) {
        let evs = super::tests::event_order(&sigs, &txs);
        let rule = if ns2 { CaptureRule::Ns2 } else { CaptureRule::StrongerWins };
        let (mut fast, mut general) = (Radio::new(rule, RX, 10.0), Radio::new(rule, RX, 10.0));
        let mut unseen = vec![false; sigs.len()];
        let (mut fast_starts, mut fast_ends, mut lone) = (0, 0, [0u32; 3]);
        for (at, what, i) in evs {
            match what {
                3 => {
                    let power = RX * 0.05 * 1.25f64.powi(sigs[i].2 as i32);
                    let end = t(at + sigs[i].1);
                    let want = general.begin_signal_lazy(t(at), i as TxId, power, end, 1);
                    let got = if fast.start_idle_ns2(i as TxId, power, end) {
                        fast_starts += 1;
                        let outcome = StartOutcome { became_busy: true, captured_out: false };
                        LazyStart { outcome, keep: true, locks: true, dropped: None }
                    } else if let Some(l) = fast.start_lone_lock_ns2(i as TxId, power, end) {
                        let outcome = |captured_out| StartOutcome { became_busy: false, captured_out };
                        match l {
                            LoneStart::Takeover(old, at) => {
                                lone[0] += 1;
                                LazyStart { outcome: outcome(false), keep: true, locks: true, dropped: Some((old, at)) }
                            }
                            LoneStart::Captured { keep } => {
                                lone[1] += 1;
                                LazyStart { outcome: outcome(true), keep, locks: false, dropped: None }
                            }
                            LoneStart::Collided { keep } => {
                                lone[2] += 1;
                                LazyStart { outcome: outcome(false), keep, locks: false, dropped: None }
                            }
                        }
                    } else {
                        fast.begin_signal_lazy(t(at), i as TxId, power, end, 1)
                    };
                    proptest::prop_assert_eq!(got, want);
                    unseen[i] = !want.keep;
                    if let Some((old, _)) = want.dropped {
                        unseen[old as usize] = true;
                    }
                }
                2 if unseen[i] => {}
                2 => {
                    // The invariant `end_lone_lock` relies on (session 25):
                    // a held lock's signal is in the set, so when it is the
                    // set's one signal it is in the first slot.
                    if fast.n_active == 1 && fast.locked {
                        proptest::prop_assert_eq!(fast.tx[0], fast.lock_tx);
                    }
                    let want = general.finish_signal(t(at), i as TxId);
                    let got = match fast.end_lone_lock(i as TxId) {
                        Some(o) => {
                            fast_ends += 1;
                            (o, true)
                        }
                        None => fast.finish_signal(t(at), i as TxId),
                    };
                    proptest::prop_assert_eq!(got, want);
                    proptest::prop_assert_eq!(fast.last_decoded_power().to_bits(), general.last_decoded_power().to_bits());
                }
                1 => {
                    fast.start_tx();
                    general.start_tx();
                }
                _ => {
                    proptest::prop_assert_eq!(fast.end_tx(), general.end_tx());
                }
            }
            proptest::prop_assert_eq!(state(&fast), state(&general));
            proptest::prop_assert_eq!(fast.sensing(), general.sensing());
        }
        // The fast paths were taken: every first signal starts at an idle
        // radio (ns-2's rule), and so ends alone if nothing overlaps it.
        if ns2 {
            proptest::prop_assert!(fast_starts > 0);
        } else {
            proptest::prop_assert_eq!(fast_starts + lone.iter().sum::<u32>(), 0);
        }
        let _ = fast_ends;
    }
}

#[test]
fn a_lone_frame_takes_both_fast_paths() {
    let mut r = Radio::new(CaptureRule::Ns2, RX, 10.0);
    assert!(r.start_idle_ns2(1, 2e-9, t(10)));
    assert!(!r.start_idle_ns2(2, 2e-9, t(20)), "busy: the general path");
    r.begin_signal_lazy(t(1), 2, 2e-9, t(20), 1);
    assert_eq!(r.end_lone_lock(1), None, "two on the air");
    let mut r = Radio::new(CaptureRule::Ns2, RX, 10.0);
    assert!(r.start_idle_ns2(1, 0.5e-9, t(10)));
    assert_eq!(r.end_lone_lock(1), Some(RxOutcome::Failed { tx: 1, collided: false }));
    assert!(r.start_idle_ns2(2, 2e-9, t(20)));
    assert_eq!(r.end_lone_lock(3), None, "not the lock");
    assert_eq!(r.end_lone_lock(2), Some(RxOutcome::Decoded(2)));
    assert_eq!((r.stats.decoded, r.stats.errors, r.sensing()), (1, 1, false));
}

/// Every start at a lone lock takes the fast path: a longer collider takes
/// the lock over, a captured-out or a shorter one stays beside it only if
/// it ends with the lock; a third signal, an idle radio or ns-3's rule do
/// not.
#[test]
fn a_start_at_a_lone_lock_takes_the_fast_path() {
    let mut r = Radio::new(CaptureRule::Ns2, RX, 10.0);
    assert_eq!(r.start_lone_lock_ns2(1, 2e-9, t(10)), None, "idle");
    assert!(r.start_idle_ns2(1, 2e-9, t(10)));
    assert_eq!(r.start_lone_lock_ns2(2, 0.1e-9, t(5)), Some(LoneStart::Captured { keep: false }));
    assert_eq!((r.n_active, r.stats.captures, r.lock_ok), (1, 1, true));
    assert_eq!(r.start_lone_lock_ns2(3, 2e-9, t(8)), Some(LoneStart::Collided { keep: false }));
    assert_eq!((r.n_active, r.lock_tx, r.lock_ok, r.lock_collided), (1, 1, false, true));
    assert_eq!(r.start_lone_lock_ns2(4, 2e-9, t(20)), Some(LoneStart::Takeover(1, t(10))));
    assert_eq!((r.n_active, r.locked, r.lock_tx, r.lock_ok, r.lock_collided), (1, true, 4, false, true));
    assert_eq!(r.start_lone_lock_ns2(5, 0.1e-9, t(20)), Some(LoneStart::Captured { keep: true }));
    assert_eq!((r.n_active, r.tx, r.stats.captures), (2, [4, 5], 2));
    assert_eq!(r.start_lone_lock_ns2(6, 2e-9, t(40)), None, "two on the air");
    let mut r = Radio::new(CaptureRule::Ns2, RX, 10.0);
    assert!(r.start_idle_ns2(1, 2e-9, t(10)));
    assert_eq!(r.start_lone_lock_ns2(2, 2e-9, t(10)), Some(LoneStart::Collided { keep: true }), "ends with the lock");
    assert_eq!((r.n_active, r.lock_tx), (2, 1));
    let mut r = Radio::new(CaptureRule::StrongerWins, RX, 10.0);
    r.begin_signal_lazy(t(0), 1, 2e-9, t(10), 1);
    assert_eq!(r.start_lone_lock_ns2(2, 2e-9, t(20)), None, "ns-3's rule");
}
