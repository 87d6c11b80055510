//! Tests of `channel.rs`: the grid against brute force, shadowing, the
//! hearers' delays and arrival order.

mod grid {
    use super::super::*;
    #[test]
    fn grid_finds_exactly_the_radios_above_threshold() {
        let radio = RadioConfig::default();
        // Irregular positions over a large area.
        let mut pos = Vec::new();
        let mut s = 12345u64;
        for _ in 0..300 {
            s = crate::sim::rng::mix64(s);
            let x = (s % 3000) as f64;
            s = crate::sim::rng::mix64(s);
            let y = (s % 2000) as f64;
            pos.push(Position::new(x, y));
        }
        let mut ch = Channel::new(&radio, pos.clone());
        let mut out = Vec::new();
        for sender in 0..pos.len() as u32 {
            ch.hearers(sender, Time::ZERO, &mut out);
            let brute: Vec<u32> = (0..pos.len() as u32)
                .filter(|&j| j != sender && ch.power_between(sender, j, Time::ZERO) >= radio.cs_threshold_w)
                .collect();
            let got: Vec<u32> = out.iter().map(|h| h.node).collect();
            assert_eq!(got, brute, "sender {sender}");
        }
    }

    #[test]
    fn grid_stays_exact_while_nodes_move() {
        use crate::mobility::waypoint::{trajectories, RandomWaypoint};
        let radio = RadioConfig::default();
        let m = RandomWaypoint {
            width: 3000.0,
            height: 1000.0,
            speed_min: 5.0,
            speed_max: 30.0,
            pause: Time::ZERO,
            steady_state: false,
        };
        let trajs = trajectories(&m, 120, 9, Time::from_secs(300));
        let pos: Vec<Position> = trajs.iter().map(|t| t.position(Time::ZERO)).collect();
        let mut ch = Channel::with_mobility(&radio, pos, trajs);
        assert!(ch.is_mobile());
        let mut out = Vec::new();
        for step in 0..300u64 {
            let now = Time::from_ms(step * 997);
            ch.refresh(now);
            for sender in (0..120u32).step_by(7) {
                ch.hearers(sender, now, &mut out);
                let brute: Vec<u32> = (0..120u32)
                    .filter(|&j| j != sender && ch.power_between(sender, j, now) >= radio.cs_threshold_w)
                    .collect();
                let got: Vec<u32> = out.iter().map(|h| h.node).collect();
                assert_eq!(got, brute, "t={now} sender {sender}");
                // Power and delay to the bit as the plain formulas from
                // the trajectories' own positions (the search's leg cache,
                // two-ray terms per frame and rounding are exact).
                let a = ch.position(sender, now);
                for h in &out {
                    let b = ch.position(h.node, now);
                    let d = a.distance(&b);
                    let ht = radio.antenna_height_m;
                    let power = radio.propagation.rx_power(&radio, d, ht + a.z, ht + b.z);
                    assert_eq!(h.power.to_bits(), power.to_bits(), "t={now} {sender}->{}", h.node);
                    assert_eq!(h.delay, Time::from_secs_f64(d / SPEED_OF_LIGHT));
                }
            }
        }
    }

    #[test]
    fn truncation_is_floor_clamped_at_zero() {
        let vals = [0.0, -0.0, 0.5, 0.999_999_999, 1.0, 7.5, -0.3, -7.0, f64::NAN, 1e300, -1e300, f64::INFINITY];
        for v in vals {
            assert_eq!(v as usize, v.floor().max(0.0) as usize, "{v}");
        }
        let mut s = 99u64;
        for _ in 0..10_000 {
            s = crate::sim::rng::mix64(s);
            let v = f64::from_bits(s);
            assert_eq!(v as usize, v.floor().max(0.0) as usize, "{v}");
            let v = (s % 1_000_000) as f64 / 977.0 - 100.0;
            assert_eq!(v as usize, v.floor().max(0.0) as usize, "{v}");
        }
    }

    #[test]
    fn connectivity_of_a_chain() {
        let adj = connectivity(&Position::chain(4, 200.0), 250.0);
        assert_eq!(adj, vec![vec![1], vec![0, 2], vec![1, 3], vec![2]]);
    }
}

mod shadowing {
    use super::super::*;
    use crate::phy::Propagation;

    #[test]
    fn sigma_zero_equals_the_deterministic_log_distance_model() {
        let mut radio = RadioConfig::default();
        let two_ray = Channel::new(&radio, Position::chain(8, 90.0));
        radio.propagation = Propagation::two_ray_equivalent(&radio, radio.antenna_height_m);
        let shadow = Channel::build(&radio, &PhyMode::default(), 7, Position::chain(8, 90.0), Vec::new());
        let (mut a, mut b) = (two_ray, shadow);
        let (mut ha, mut hb) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            for s in 0..8 {
                a.hearers(s, Time::ZERO, &mut ha);
                b.hearers(s, Time::ZERO, &mut hb);
                assert_eq!(ha.len(), hb.len());
                for (x, y) in ha.iter().zip(&hb) {
                    assert_eq!(x.node, y.node);
                    assert!((x.power / y.power - 1.0).abs() < 1e-9);
                }
            }
        }
    }

    #[test]
    fn shadowing_draws_are_log_normal_per_frame() {
        let radio = RadioConfig {
            propagation: Propagation::Shadowing { exponent: 3.0, ref_distance_m: 1.0, sigma_db: 6.0 },
            ..RadioConfig::default()
        };
        let pos = vec![Position::new(0.0, 0.0), Position::new(10.0, 0.0)];
        let mut ch = Channel::build(&radio, &PhyMode::default(), 3, pos, Vec::new());
        let mean = ch.power_between(0, 1, Time::ZERO);
        let mut out = Vec::new();
        let mut db = Vec::new();
        for _ in 0..20_000 {
            ch.hearers(0, Time::ZERO, &mut out);
            assert_eq!(out.len(), 1, "10 m is 7 sigma above the cull level");
            db.push(10.0 * (out[0].power / mean).log10());
        }
        let m = db.iter().sum::<f64>() / db.len() as f64;
        let sd = (db.iter().map(|x| (x - m).powi(2)).sum::<f64>() / db.len() as f64).sqrt();
        assert!(m.abs() < 0.15, "mean deviation {m} dB");
        assert!((sd - 6.0).abs() < 0.15, "deviation {sd} dB");
        // Successive frames differ (a per-frame draw, not a per-link one).
        assert!(db.windows(2).filter(|w| w[0] == w[1]).count() == 0);
    }

    #[test]
    fn shadowing_cull_reaches_four_sigma_beyond_the_mean_cut() {
        // A receiver whose mean power is 2 sigma under the carrier-sense
        // threshold is still a candidate and hears about 2.3 % of frames;
        // one 5 sigma under it is never delivered.
        let mut radio = RadioConfig::default();
        let sigma = 4.0;
        radio.propagation = Propagation::Shadowing { exponent: 3.0, ref_distance_m: 1.0, sigma_db: sigma };
        let d_cs = radio.cs_range();
        let at = |k: f64| d_cs * 10f64.powf(k * sigma / 30.0);
        let pos = vec![Position::new(0.0, 0.0), Position::new(at(2.0), 0.0), Position::new(at(5.0), 0.0)];
        let mut ch = Channel::build(&radio, &PhyMode::default(), 5, pos, Vec::new());
        let mut out = Vec::new();
        let (mut near, mut far) = (0, 0);
        for _ in 0..20_000 {
            ch.hearers(0, Time::ZERO, &mut out);
            for h in &out {
                assert!(h.power >= radio.cs_threshold_w);
                if h.node == 1 {
                    near += 1;
                } else {
                    far += 1;
                }
            }
        }
        let frac = near as f64 / 20_000.0;
        assert!((frac - 0.0228).abs() < 0.005, "{frac}");
        assert_eq!(far, 0);
    }

    proptest::proptest! {
        /// `secs_to_time` (the hearers' delays) is `Time::from_secs_f64`:
        /// random seconds, exact halves of a nanosecond, and the edges.
        #[test]
        fn delays_round_as_time_from_secs(s in 0.0f64..1e-3, k in 0u64..1 << 40, bits in proptest::num::u64::ANY) {
            let half = (k as f64 + 0.5) / 1e9;
            for s in [s, half, f64::from_bits(bits), f64::from_bits(bits).abs() * 1e-9] {
                proptest::prop_assert_eq!(secs_to_time(s), Time::from_secs_f64(s), "{}", s);
            }
            for d in [s * SPEED_OF_LIGHT, k as f64 * 1e-3] {
                proptest::prop_assert_eq!(delay_of(d), Time::from_secs_f64(d / SPEED_OF_LIGHT), "{}", d);
            }
        }
    }

    #[test]
    fn delay_edges_round_as_time_from_secs() {
        let edges =
            [0.0, -0.0, -1.0, f64::NAN, f64::INFINITY, 0.5e-9, 1.5e-9, 2.5e-9, 4_503_599.627_370_496, 1e10, 5e-324];
        for s in edges {
            assert_eq!(secs_to_time(s), Time::from_secs_f64(s), "{s}");
        }
        // Exactly k + 0.5 ns after the multiplication, rounding away from zero.
        let mut hit = 0;
        for k in 0..20_000u64 {
            let s = (k as f64 + 0.5) / 1e9;
            if s * 1e9 == k as f64 + 0.5 {
                hit += 1;
                assert_eq!(secs_to_time(s), Time(k + 1));
            }
        }
        assert!(hit > 1000, "{hit}");
    }

    proptest::proptest! {
        /// `sort_keys` sorts: keys spread like a frame's (delay on top),
        /// crowded into few buckets, short, long, and arbitrary.
        #[test]
        fn bucket_sort_sorts(
            raw in proptest::collection::vec(proptest::num::u64::ANY, 0..400),
            kind in 0u8..4,
        ) {
            let mut keys: Vec<u64> = raw
                .iter()
                .enumerate()
                .map(|(i, &r)| match kind {
                    0 => ((r % 2000) << 43) | ((r >> 20) % 400) << 22 | i as u64,
                    1 => ((r % 3) << 43) | i as u64,
                    2 => r >> (r % 64),
                    _ => r,
                })
                .collect();
            let mut want = keys.clone();
            want.sort_unstable();
            sort_keys(&mut keys);
            proptest::prop_assert_eq!(keys, want);
        }
    }

    proptest::proptest! {
        /// `sort_by_arrival` gives the order of a sort by (delay, node), with
        /// small keys (packed) and large ones (the fallback).
        #[test]
        fn arrival_order_as_a_sort_by_delay_and_node(
            delays in proptest::collection::vec(0u64..3000, 0..120),
            wide in 0u8..3,
        ) {
            let mut v: Vec<Hearer> = delays
                .iter()
                .enumerate()
                .map(|(i, &d)| {
                    // Distinct nodes in scrambled order; a few wide ids or delays.
                    let node = ((i as u32 * 7919) % 4099) + if wide == 1 && i == 3 { 1 << 21 } else { 0 };
                    let delay = Time(d % 7 * 300 + if wide == 2 && i == 5 { 1 << 40 } else { 0 });
                    Hearer { node, power: d as f64, delay }
                })
                .collect();
            let mut want = v.clone();
            want.sort_by_key(|h| (h.delay, h.node));
            let (mut keys, mut scratch) = (Vec::new(), Vec::new());
            sort_by_arrival(&mut v, &mut keys, &mut scratch);
            let got: Vec<(NodeId, Time, u64)> = v.iter().map(|h| (h.node, h.delay, h.power.to_bits())).collect();
            let want: Vec<(NodeId, Time, u64)> = want.iter().map(|h| (h.node, h.delay, h.power.to_bits())).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}

mod arrival_cache {
    use super::super::*;

    /// The hearers in arrival order, sorted here from `hearers` (by node):
    /// by (delay, node).
    fn sorted(ch: &mut Channel, sender: NodeId, now: Time) -> Vec<(NodeId, u64, u64)> {
        let mut v = Vec::new();
        ch.hearers(sender, now, &mut v);
        v.sort_by_key(|h| (h.delay, h.node));
        v.iter().map(|h| (h.node, h.power.to_bits(), h.delay.0)).collect()
    }

    /// Static nodes: `hearers_by_arrival` answers from its per-sender cache
    /// after the first frame, and every answer (first or cached, whatever
    /// the time) is the hearers sorted by (delay, node), to the bit.
    #[test]
    fn cached_arrival_order_is_the_sorted_hearers() {
        let radio = RadioConfig::default();
        let mut pos = Vec::new();
        let mut s = 777u64;
        for _ in 0..200 {
            s = crate::sim::rng::mix64(s);
            let x = (s % 1500) as f64 + (s >> 40) as f64 / (1u64 << 24) as f64;
            s = crate::sim::rng::mix64(s);
            let y = (s % 600) as f64;
            pos.push(Position::new(x, y));
        }
        let mut ch = Channel::new(&radio, pos.clone());
        let mut reference = Channel::new(&radio, pos);
        let mut out = Vec::new();
        for round in 0..3u64 {
            for sender in 0..200u32 {
                let now = Time::from_ms(round * 1000 + sender as u64);
                ch.hearers_by_arrival(sender, now, &mut out);
                let got: Vec<(NodeId, u64, u64)> = out.iter().map(|h| (h.node, h.power.to_bits(), h.delay.0)).collect();
                assert_eq!(got, sorted(&mut reference, sender, now), "round {round} sender {sender}");
                assert!(ch.arrival_cache[sender as usize].is_some());
            }
        }
    }

    /// `begin_cached` begins nothing before a sender's first frame, nor
    /// when `slot` refuses; then exactly what `hearers_by_arrival` copies
    /// (the cached list read in place), with the transmission begun in the
    /// slot given (`begin_at`'s, held until another frame is put there);
    /// later answers are unchanged.
    #[test]
    fn cached_arrivals_are_the_copied_ones() {
        let radio = RadioConfig::default();
        let pos: Vec<Position> =
            (0..40).map(|i| Position::new((i * 97 % 1300) as f64, (i * 61 % 500) as f64)).collect();
        let mut ch = Channel::new(&radio, pos.clone());
        let mut reference = Channel::new(&radio, pos);
        let (mut out, mut copy) = (Vec::new(), Vec::new());
        let key = |v: &[Hearer]| v.iter().map(|h| (h.node, h.power.to_bits(), h.delay.0)).collect::<Vec<_>>();
        let frame = crate::wire::frame::Frame {
            kind: crate::wire::frame::FrameKind::Ack,
            src: 0,
            dst: 1,
            duration: Time::ZERO,
            seq: 0,
            tid: None,
            retry: false,
            bytes: 14,
            rate: 2_000_000,
            packet: None,
        };
        let mut in_slot: [Option<u32>; 3] = [None; 3];
        for round in 0..3u64 {
            for sender in 0..40u32 {
                let now = Time::from_ms(round * 100 + sender as u64);
                reference.hearers_by_arrival(sender, now, &mut copy);
                let held = ch.in_flight().count();
                let refused = ch.begin_cached(sender, &frame, now, now, |_| None);
                assert!(refused.is_none());
                assert_eq!(ch.in_flight().count(), held, "nothing begun when refused");
                let slot = sender % 3;
                match ch.begin_cached(sender, &frame, now, now, |_| Some(slot)) {
                    Some((id, h)) => {
                        assert!(round > 0, "nothing cached before the first frame");
                        assert_eq!(id, slot);
                        let got = key(h);
                        assert_eq!(got, key(&copy), "round {round} sender {sender}");
                        let t = ch.get(id);
                        assert_eq!((t.sender, t.start), (sender, now), "begun in its slot");
                        in_slot[slot as usize] = Some(sender);
                        for (k, s) in in_slot.iter().enumerate() {
                            if let Some(s) = *s {
                                assert_eq!(ch.get(k as TxId).sender, s, "slot {k} kept its own frame");
                            }
                        }
                    }
                    None => {
                        assert!(round == 0 || copy.is_empty(), "cached after the first frame");
                        ch.hearers_by_arrival(sender, now, &mut out);
                        assert_eq!(key(&out), key(&copy));
                    }
                }
            }
        }
    }
}

/// `begin_at` (session 23) holds each frame as given in its slot: a
/// control frame written field by field (no packet), a data frame whole,
/// over slots that held the other kind; a new slot grows the table.
#[test]
fn slots_hold_the_frames_given() {
    use super::*;
    use crate::wire::frame::FrameKind;
    use crate::wire::packet::{Body, Packet};
    let radio = RadioConfig::default();
    let mut ch = Channel::new(&radio, vec![Position::new(0.0, 0.0), Position::new(50.0, 0.0)]);
    let kinds = [FrameKind::Rts, FrameKind::Cts, FrameKind::Ack, FrameKind::Data];
    for i in 0..64u32 {
        let data = i % 3 == 0;
        let packet = data.then(|| {
            let body = Body::Udp { sport: i as u16, dport: 9, seq: i as u64 };
            Packet::new(1000 + i as u64, 0, 1, 512 + i, 3, body, Time(i as u64))
        });
        let frame = Frame {
            kind: if data { FrameKind::Data } else { kinds[i as usize % 3] },
            src: i % 2,
            dst: if i % 5 == 0 { crate::sim::BROADCAST } else { 1 - i % 2 },
            duration: Time(314 * i as u64),
            seq: (i * 7) as u16,
            tid: (i % 4 == 1).then_some(i as u8 % 8),
            retry: i % 2 == 1,
            bytes: 14 + i,
            rate: 1_000_000 * (1 + i as u64 % 11),
            packet,
        };
        let slot = (i * 5) % 7;
        let (start, end) = (Time(1_000 * i as u64), Time(1_000 * i as u64 + 300));
        ch.begin_at(slot, i % 2, &frame, start, end);
        let t = ch.get(slot);
        assert_eq!(t.frame, frame, "frame {i}");
        assert_eq!((t.sender, t.start, t.end), (i % 2, start, end), "frame {i}");
    }
    assert_eq!(ch.in_flight().count(), 7);
}

mod fused {
    use super::super::*;
    use crate::mobility::{Leg, Trajectory};
    use crate::sim::rng::mix64;

    /// Random piecewise-linear paths over `w` x `h` metres: legs of 0.05 to
    /// 20 s at up to 30 m/s (a fifth of them paused); with `clusters`, the
    /// nodes start in three tight clusters and barely move (crowded
    /// buckets); with `heights`, every third node's antenna is higher.
    fn paths(seed: u64, n: usize, w: f64, h: f64, clusters: bool, heights: bool) -> Vec<Trajectory> {
        let mut s = seed;
        let mut r = move || {
            s = mix64(s);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        (0..n)
            .map(|i| {
                let z = if heights && i % 3 == 0 { 2.5 } else { 0.0 };
                let (mut x, mut y) = if clusters {
                    let c = (i % 3) as f64;
                    (w * (0.2 + 0.3 * c) + r() * 4.0, h * 0.5 + r() * 4.0)
                } else {
                    (r() * w, r() * h)
                };
                let vmax = if clusters { 0.5 } else { 30.0 };
                let mut legs = Vec::new();
                let mut t = 0.0;
                while t < 120.0 {
                    let (vx, vy) = if r() < 0.2 { (0.0, 0.0) } else { ((r() - 0.5) * vmax, (r() - 0.5) * vmax) };
                    let start = if legs.is_empty() { Time::ZERO } else { Time::from_secs_f64(t) };
                    legs.push(Leg { start, from: Position { x, y, z }, vx, vy });
                    let dur = 0.05 + r() * 20.0;
                    x += vx * dur;
                    y += vy * dur;
                    t += dur;
                }
                Trajectory::from_legs(legs)
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// `arrivals_near` (the per-sender lists) answers as the search
        /// then `sort_by_arrival` (`fused` off: main's path), to the bit:
        /// node, power and delay of every hearer in order, over frames
        /// whose times advance across leg ends, grid rebuilds and list
        /// expiries; short and long hearer lists, crowded delays, differing
        /// heights. `senders` of the nodes send (few: lists reused often,
        /// with up to `life` between two frames of a sender).
        #[test]
        fn fused_search_is_the_search_then_the_sort(
            seed in proptest::num::u64::ANY,
            n in 2usize..260,
            w in 50.0f64..4000.0,
            h in 20.0f64..1500.0,
            clusters in proptest::bool::ANY,
            heights in proptest::bool::ANY,
            step_ms in 1u64..2000,
            senders in 1usize..300,
        ) {
            let radio = RadioConfig::default();
            let trajs = paths(seed, n, w, h, clusters, heights);
            let pos: Vec<Position> = trajs.iter().map(|t| t.position(Time::ZERO)).collect();
            let mut ch = Channel::with_mobility(&radio, pos.clone(), trajs.clone());
            // The same lists through each pass this processor runs (`ch`
            // the widest; `narrow` SSE2's two lanes; `mid` AVX2's four).
            let mut narrow = Channel::with_mobility(&radio, pos.clone(), trajs.clone());
            proptest::prop_assert!(narrow.near.as_mut().unwrap().set_pass(near::Pass::Sse2));
            let mut mid = Channel::with_mobility(&radio, pos.clone(), trajs.clone());
            let has_avx2 = mid.near.as_mut().unwrap().set_pass(near::Pass::Avx2);
            let mut reference = Channel::with_mobility(&radio, pos, trajs);
            proptest::prop_assert!(ch.fused);
            reference.fused = false;
            let (mut a, mut b, mut c, mut d) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            let mut s = seed;
            let mut now = Time::ZERO;
            for _ in 0..200 {
                s = mix64(s);
                now += Time::from_ms(s % step_ms);
                let sender = ((s >> 32) % n.min(senders) as u64) as NodeId;
                ch.refresh(now);
                reference.refresh(now);
                narrow.refresh(now);
                mid.refresh(now);
                ch.hearers_by_arrival(sender, now, &mut a);
                reference.hearers_by_arrival(sender, now, &mut b);
                narrow.hearers_by_arrival(sender, now, &mut c);
                mid.hearers_by_arrival(sender, now, &mut d);
                let bits = |v: &[Hearer]| -> Vec<(NodeId, u64, Time)> { v.iter().map(|h| (h.node, h.power.to_bits(), h.delay)).collect() };
                proptest::prop_assert_eq!(bits(&a), bits(&b), "t={} sender {}", now, sender);
                proptest::prop_assert_eq!(bits(&c), bits(&b), "SSE2: t={} sender {}", now, sender);
                if has_avx2 {
                    proptest::prop_assert_eq!(bits(&d), bits(&b), "AVX2: t={} sender {}", now, sender);
                }
            }
        }
    }
}
