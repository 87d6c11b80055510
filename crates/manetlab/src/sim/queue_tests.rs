//! Tests of `queue.rs` (the three tiers against a sorted model).

use super::*;
use proptest::strategy::Strategy;

/// Pops one event and checks it is the model's earliest (time, seq).
fn pop_earliest(
    q: &mut EventQueue<u64>,
    model: &mut Vec<(u64, u64)>,
) -> Result<(), proptest::test_runner::TestCaseError> {
    model.sort();
    let want = model.remove(0);
    let got = q.pop().unwrap();
    proptest::prop_assert_eq!((got.0 .0, got.1), want);
    Ok(())
}
/// Pops every event left: exactly the model's, in its order.
fn drain(mut q: EventQueue<u64>, mut model: Vec<(u64, u64)>) -> Result<(), proptest::test_runner::TestCaseError> {
    model.sort();
    for want in model {
        let got = q.pop().unwrap();
        proptest::prop_assert_eq!((got.0 .0, got.1), want);
    }
    proptest::prop_assert!(q.pop().is_none());
    Ok(())
}
/// (bucket shift, buckets, refill, near max, coarse buckets): tiny ones
/// make the refills, the shedding back to the wheel, the window's moves
/// and the late tier's far list and its refiling happen all the time.
fn limits() -> proptest::sample::Select<(u32, usize, usize, usize, usize)> {
    proptest::sample::select(vec![
        (0, 64, 1, 1, 2),
        (1, 64, 1, 3, 4),
        (2, 128, 2, 4, 8),
        (3, 64, 4, 8, 64),
        (4, 256, 3, 200, 2),
        (0, 64, 2, 6, 128),
        (BUCKET_SHIFT, BUCKETS, NEAR_REFILL, NEAR_MAX, COARSE),
    ])
}
/// A delay: mostly under 1,000 ns, one in eight up to 1,000 times more
/// (past tiny windows and rings of coarse buckets).
fn delay() -> impl proptest::strategy::Strategy<Value = u64> {
    (0u64..1_000, 0u8..8).prop_map(|(dt, far)| if far == 0 { dt * 1_000 } else { dt })
}

#[test]
fn order_is_time_then_insertion() {
    let mut q = EventQueue::new();
    q.schedule(Time(5), 'a');
    q.schedule(Time(3), 'b');
    q.schedule(Time(5), 'c');
    q.schedule(Time(3), 'd');
    let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
    assert_eq!(order, vec!['b', 'd', 'a', 'c']);
}
proptest::proptest! {
    /// Interleaved pushes and pops come out exactly in (time, seq)
    /// order, as a sorted reference model says.
    #[test]
    fn matches_a_sorted_model(
        ops in proptest::collection::vec((proptest::bool::ANY, delay()), 1..400),
        limits in limits(),
    ) {
        let mut q = EventQueue::with_limits(limits.0, limits.1, limits.2, limits.3, limits.4);
        let mut model: Vec<(u64, u64)> = Vec::new();
        let mut seq = 0u64;
        for (pop, dt) in ops {
            if pop && !model.is_empty() {
                pop_earliest(&mut q, &mut model)?;
            } else {
                let t = q.now().0 + dt;
                q.schedule(Time(t), seq);
                model.push((t, seq));
                seq += 1;
            }
            // `pending` lists exactly the events not yet popped.
            let mut pending: Vec<u64> = q.pending().copied().collect();
            pending.sort_unstable();
            let mut want: Vec<u64> = model.iter().map(|&(_, s)| s).collect();
            want.sort_unstable();
            proptest::prop_assert_eq!(pending, want);
            proptest::prop_assert_eq!(q.len(), model.len());
            // The head's key as one number: the model's least, or
            // `u128::MAX` when nothing is pending (`peek_key` agrees).
            let head = model.iter().min().map_or(u128::MAX, |&(t, s)| (t as u128) << 64 | s as u128);
            proptest::prop_assert_eq!(q.peek_key128(), head);
            proptest::prop_assert_eq!(q.peek_key().map_or(u128::MAX, |(t, s)| (t as u128) << 64 | s as u128), head);
        }
        drain(q, model)?;
    }
}

proptest::proptest! {
    /// Sequence numbers reserved early and used later (as frames.rs
    /// does) order ties by the reserved number, not by the push.
    #[test]
    fn reserved_sequence_numbers_keep_their_place(
        ops in proptest::collection::vec((0u8..3, 0u64..50), 1..300),
        limits in limits(),
    ) {
        let mut q = EventQueue::with_limits(limits.0, limits.1, limits.2, limits.3, limits.4);
        let mut model: Vec<(u64, u64)> = Vec::new();
        let mut reserved: Vec<u64> = Vec::new();
        for (op, dt) in ops {
            match op {
                0 if !model.is_empty() => {
                    pop_earliest(&mut q, &mut model)?;
                }
                1 => reserved.push(q.reserve(1)),
                _ => {
                    let t = q.now().0 + dt;
                    let s = match reserved.pop() {
                        Some(s) => { q.schedule_seq(Time(t), s, s); s }
                        None => { let s = q.scheduled(); q.schedule(Time(t), s); s }
                    };
                    model.push((t, s));
                }
            }
        }
        drain(q, model)?;
    }
}

proptest::proptest! {
    /// The event loop's `pop_until_ref` with limits now and then, pushes
    /// in between (as the kernel pushes while it reads the lent event,
    /// after copying it): it lends exactly the model's earliest event when
    /// that is due by the limit, moves the clock to it, and lends nothing
    /// otherwise (the clock stays).
    #[test]
    fn pop_until_ref_lends_the_due_event(
        ops in proptest::collection::vec((0u8..3, delay()), 1..400),
        limits in limits(),
    ) {
        let mut q = EventQueue::with_limits(limits.0, limits.1, limits.2, limits.3, limits.4);
        let mut model: Vec<(u64, u64)> = Vec::new();
        let mut seq = 0u64;
        for (op, dt) in ops {
            if op == 0 {
                let t = q.now().0 + dt;
                q.schedule(Time(t), seq);
                model.push((t, seq));
                seq += 1;
                continue;
            }
            let limit = q.now().0 + dt / 2;
            model.sort();
            let want = model.first().copied().filter(|&(t, _)| t <= limit);
            let before = q.now();
            let got = q.pop_until_ref(Time(limit)).copied();
            match want {
                Some((t, s)) => {
                    proptest::prop_assert_eq!(got, Some(s));
                    proptest::prop_assert_eq!(q.now(), Time(t));
                    model.remove(0);
                }
                None => {
                    proptest::prop_assert_eq!(got, None);
                    proptest::prop_assert_eq!(q.now(), before);
                }
            }
            proptest::prop_assert_eq!(q.len(), model.len());
        }
        drain(q, model)?;
    }
}

proptest::proptest! {
    /// Events at `Time::MAX` ("never") mixed with ordinary ones: the
    /// window cannot reach past the end of time, the near list then
    /// takes every event, and the order is still the model's.
    #[test]
    fn never_events_keep_their_place(
        ops in proptest::collection::vec((proptest::bool::ANY, 0u64..200), 1..300),
        limits in limits(),
    ) {
        let mut q = EventQueue::with_limits(limits.0, limits.1, limits.2, limits.3, limits.4);
        let mut model: Vec<(u64, u64)> = Vec::new();
        for (seq, (pop, dt)) in ops.into_iter().enumerate() {
            if pop && !model.is_empty() {
                pop_earliest(&mut q, &mut model)?;
            } else {
                let t = if dt % 7 == 0 { u64::MAX } else { q.now().0.saturating_add(dt) };
                q.schedule(Time(t), seq as u64);
                model.push((t, seq as u64));
            }
        }
        drain(q, model)?;
    }
}

/// Timers seconds ahead wait in the late list; the wheel holds what
/// falls in the window, the near list whole buckets, and it sheds its
/// latest events back when it grows too long.
#[test]
fn far_timers_wait_outside_the_window() {
    let mut q = EventQueue::new();
    for i in 0..50u64 {
        q.schedule(Time(1_000_000_000 + i * 10_000_000), i); // 1 s, 1.01 s, ...
    }
    q.schedule(Time(1_000), 100);
    q.schedule(Time(2_000), 101);
    assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some((1_000, 100)));
    // The window starts now (0) and spans 134 ms: the two events went to
    // the near list, the wheel was then empty and the bound moved to
    // the window's end.
    assert_eq!((q.near.len() - 1, q.in_wheel, q.late.len()), (1, 0, 50));
    assert_eq!(q.bound, (q.wend as u128) << 64);
    q.schedule(Time(5_000), 102);
    q.schedule(Time(40_000_000), 103);
    q.schedule(Time(300_000_000), 104); // past the window: late
    assert_eq!((q.near.len() - 1, q.in_wheel, q.late.len()), (3, 0, 51));
    // A burst: the near list sheds its latest to the wheel.
    for i in 0..NEAR_MAX as u64 {
        q.schedule(Time(10_000 + i), 200 + i);
    }
    assert!(q.near.len() - 1 <= NEAR_MAX && q.in_wheel > 0);
    assert_eq!(q.len(), 3 + 51 + NEAR_MAX);
    let order: Vec<u64> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
    let mut want = vec![101, 102];
    want.extend(200..200 + NEAR_MAX as u64);
    want.extend([103, 104]);
    want.extend(0..50);
    assert_eq!(order, want);
}

/// Events at `Time::MAX` (saturated "never" times) are still popped
/// in order: a refill always moves the earliest far event.
#[test]
fn events_at_the_end_of_time_still_pop() {
    let mut q = EventQueue::new();
    q.schedule(Time::MAX, 1u64);
    q.schedule(Time::MAX, 2);
    q.schedule(Time(7), 0);
    assert_eq!(q.peek_time(), Some(Time(7)));
    let order: Vec<(u64, u64)> = std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e))).collect();
    assert_eq!(order, vec![(7, 0), (u64::MAX, 1), (u64::MAX, 2)]);
    assert!(q.is_empty());
}

/// The near list's sentinel (`queue.rs`) is never an event: an empty
/// queue pops and peeks nothing with either call, `pop_until` takes an
/// event at `Time::MAX` only when asked up to `Time::MAX` and refills
/// an emptied near list from the wheel and the late tier, and the
/// length counts events only.
#[test]
fn the_sentinel_is_never_an_event() {
    let mut q: EventQueue<u64> = EventQueue::new();
    assert_eq!((q.len(), q.pop_until(Time(u64::MAX)), q.pop(), q.peek_key()), (0, None, None, None));
    assert_eq!(q.peek_key128(), u128::MAX);
    q.schedule(Time::MAX, 9);
    q.schedule(Time(3), 1);
    q.schedule(Time(1 << 30), 2); // past the window: the late tier
    assert_eq!(q.len(), 3);
    assert_eq!(q.pending().count(), 3);
    assert_eq!(q.pop_until(Time(u64::MAX)), Some(1));
    assert_eq!(q.pop_until(Time(u64::MAX)), Some(2));
    assert_eq!(q.peek_key(), Some((u64::MAX, 0)));
    // (below the sentinel's key)
    assert_eq!(q.peek_key128(), (u64::MAX as u128) << 64);
    // An event at the end of time is due only when asked up to it.
    assert_eq!(q.pop_until(Time(u64::MAX - 1)), None);
    assert_eq!(q.pop_until(Time(u64::MAX)), Some(9));
    q.schedule(Time::MAX, 10);
    assert_eq!(q.pop(), Some((Time::MAX, 10)));
    assert_eq!((q.len(), q.pop(), q.pop_until(Time(u64::MAX))), (0, None, None));
}

#[test]
#[should_panic(expected = "in the past")]
fn refuses_the_past() {
    let mut q = EventQueue::new();
    q.schedule(Time(5), 1);
    q.pop();
    q.schedule(Time(4), 2);
}

/// Timers past the ring of coarse buckets (137 s) wait in the far list and
/// join their coarse bucket once the window is within half a ring (69 s)
/// of the ring's end; a window move takes only the coarse buckets it needs.
#[test]
fn timers_past_the_ring_wait_in_the_far_list() {
    let mut q = EventQueue::new();
    let s = 1_000_000_000u64;
    for i in 0..=150u64 {
        q.schedule(Time(i * s + 7), i); // 0 s, 1 s, ... 150 s
    }
    q.schedule(Time(200 * s), 1_000);
    q.schedule(Time::MAX, 1_001);
    // The ring covers coarse buckets 0..1024 of 134 ms: up to 137.4 s.
    assert_eq!(q.late.far_len(), 13 + 2); // 138..=150 s, 200 s, never
    assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some((7, 0)));
    // The first window took its own event only.
    assert_eq!((q.near.len() - 1 + q.in_wheel, q.late.len()), (0, 152));
    for i in 1..=68u64 {
        assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some((i * s + 7, i)));
    }
    assert_eq!(q.late.far_len(), 15);
    // The window at 69 s reaches half the ring: the ring's end moves to
    // 69 s + 137 s, and every far event before it joins its bucket.
    assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some((69 * s + 7, 69)));
    assert_eq!(q.late.far_len(), 1);
    let order: Vec<(u64, u64)> = std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e))).collect();
    let mut want: Vec<(u64, u64)> = (70..=150u64).map(|i| (i * s + 7, i)).collect();
    want.extend([(200 * s, 1_000), (u64::MAX, 1_001)]);
    assert_eq!(order, want);
    assert!(q.is_empty());
}
