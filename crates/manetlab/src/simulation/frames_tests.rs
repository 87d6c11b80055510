//! Unit tests of the frame streams (`frames.rs`, `frames_build.rs`): a
//! run stopped on a passed-over end, the wide frames' runs against the
//! general handlers, a static sender's template against the one-pass
//! stream.

use super::super::Event;
use crate::scenario::Scenario;
use crate::sim::Time;
use crate::Simulation;

thread_local! {
    /// `transmit_at_once` queues every new stream (this thread's runs).
    pub(super) static QUEUED_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// How many new streams `transmit_at_once` left to run without the queue.
    pub(super) static AT_ONCE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// A frame sent as an event's last work whose first signal runs at once
/// (`transmit_at_once`, session 24) gives the same run, to the event, as
/// when its stream is queued and popped: the same frames, packets and
/// medium changes, the same report and `events` count, with and without
/// an observer; the TCP chains (RTS/CTS), the 2-hop CBR chain, a run cut
/// by its limit in many places, EDCA and TDMA.
#[test]
fn a_first_signal_at_once_is_the_popped_one() {
    use crate::simulation::pipeline::tests::logged_run;
    let cases: [(&str, &[&str]); 5] = [
        ("../../scenarios/bench/ns2/chain10-tcp-aodv.toml", &["run.duration=20s"]),
        ("../../scenarios/bench/ns2/chain10-tcp-dsr.toml", &["run.duration=20s"]),
        ("../../scenarios/bench/ns2/twohop-aodv.toml", &["run.duration=12s"]),
        ("tests/snapshots/edca.toml", &[]),
        ("tests/snapshots/tdma.toml", &[]),
    ];
    for (rel, ov) in cases {
        for observed in [true, false] {
            AT_ONCE.with(|t| t.set(0));
            let fast = logged_run(rel, ov, observed, |_| {});
            let taken = AT_ONCE.with(|t| t.get());
            QUEUED_ONLY.with(|q| q.set(true));
            let queued = logged_run(rel, ov, observed, |_| {});
            QUEUED_ONLY.with(|q| q.set(false));
            if observed {
                assert!(fast.0.len() > 1000, "{rel}: {} logged", fast.0.len());
            }
            assert!(fast.0 == queued.0, "{rel}: the runs differ");
            assert_eq!(fast.1, queued.1, "{rel}");
            assert_eq!(fast.2, queued.2, "{rel}: events");
            if rel.contains("bench") {
                // (nearly every frame: 144.3 K of the AODV chain's 146.5 K in 200 s)
                assert!(taken > 10_000, "{rel}: {taken} streams run at once");
            }
        }
    }
    // Stopped and resumed at irregular times (a first signal past the
    // limit is queued): the same as in one go.
    let rel = "../../scenarios/bench/ns2/chain10-tcp-aodv.toml";
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    let sc = Scenario::parse::<&str>(&text, rel, &["run.duration=20s"]).unwrap();
    let go = |steps: u64| {
        let mut sim = Simulation::new(sc.config(sc.seed())).unwrap();
        let end = 20_000_000_000u64;
        for i in 1..=steps {
            sim.run_until(Time(end * i / steps + (i * 7_919) % 1_000));
        }
        serde_json::to_string(&sim.run()).unwrap()
    };
    assert_eq!(go(1), go(4_999));
}

/// A run stopped while a frame stream's queued entry is a last bit
/// passed over (its stream possibly freed and its channel slot reused)
/// still audits: the entry carries no packet, and the audit does not
/// look up the (possibly reused) transmission. Found by
/// the kim study's quick run (a panic, "transmission released early").
#[test]
fn a_run_stopped_on_a_passed_over_end_audits() {
    let rel = "../../scenarios/bench/ns2/chain10-tcp-aodv.toml";
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    let sc = Scenario::parse::<&str>(&text, rel, &[]).unwrap();
    let mut stale = 0;
    for i in 0..400u64 {
        let mut sim = Simulation::new(sc.config(sc.seed())).unwrap();
        sim.run_until(Time(5_000_000_000 + i * 17_300_000));
        stale += sim
            .queue
            .pending()
            .filter(|ev| matches!(ev, Event::Frame { stream, .. } if !sim.streams.holds_frame(*stream)))
            .count();
        let a = sim.audit();
        assert!(a.balances(), "stop {i}: {a:?}");
    }
    // The case occurs (2 of these 400 stops at ae7d3cf + session 11).
    assert!(stale > 0, "no stop fell on a passed-over end");
}

/// Session 17's runs (`frame_events_wide`, `start_run`, `end_run`)
/// against the per-signal loop: an observer of no interest makes every
/// start take the general path (`start_run` declines, as does
/// `signal_start_fast`), which the runs must match; and a run stopped
/// at many irregular times (a run of starts cut by the limit) must
/// match one run in one go. Frames with ~24 hearers (rwp30, cut to
/// 60 s): events executed and the whole report equal.
#[test]
fn start_runs_match_the_signal_by_signal_loop() {
    runs_match_the_loop("../../scenarios/bench/ns2/rwp30-dsr.toml", 60, 1_000_000);
}

/// The same at 100 nodes (`start_run::<true>`, session 18): the routing
/// hint, and busy starts (collisions, captures) taken on the general path
/// inside a run, their work drained there.
#[test]
fn big_start_runs_match_the_signal_by_signal_loop() {
    let busy = runs_match_the_loop("../../scenarios/random100.toml", 30, 200_000);
    assert!(busy > 100, "{busy} collisions and captures");
}

/// A static network whose delay spread exceeds a short frame's air time
/// (four nodes 12 km apart on a line, 802.11a: an ACK at 6 Mbit/s lasts
/// 44 us, an end node's farthest hearer is 120 us away, the nearest
/// 40 us): an end node's ACKs take `air_frame`'s general case (sequence
/// numbers by node, its hearers sorted by node) while the sender's
/// arrival order is cached, so `transmit_frame` must not read the cached
/// list in place (session 21, `Channel::begin_cached`) but sort a copy
/// (sorting the cache would reorder it for every later frame). The
/// run completes, the same three ways as `runs_match_the_loop`'s, and
/// the end node's ACKs arrive.
#[test]
fn long_range_frames_sort_a_copy_of_the_cached_arrivals() {
    let text = r#"
[run]
duration = "20s"
seed = 3
[topology]
kind = "chain"
nodes = 4
spacing = "12000m"
[radio]
rx_range = "13000m"
cs_range = "40000m"
[mac]
standard = "ofdm"
data_rate = "54Mbps"
basic_rate = "6Mbps"
[[flow]]
name = "to-the-end"
src = 2
dst = 3
type = "cbr"
packet_size = "512B"
rate = "200kbps"
start = "1s"
"#;
    let sc = Scenario::parse::<&str>(text, "long-range.toml", &[]).unwrap();
    // Node 2 hears nobody else send: what it decodes are node 3's ACKs.
    let acks = runs_match(sc, 20, 1_000).1[2];
    assert!(acks > 100, "{acks} ACKs from the end node");
}

/// Runs `rel` cut to `secs` three ways (plain, an observer forcing the
/// general paths, stopped and resumed 997 times) and asserts the same
/// events and report; returns the plain run's collisions and captures.
fn runs_match_the_loop(rel: &str, secs: u64, min_events: u64) -> u64 {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    let sc = Scenario::parse::<&str>(&text, p.to_str().unwrap(), &[]).unwrap();
    runs_match(sc, secs, min_events).0
}

/// `runs_match_the_loop` of a parsed scenario; returns the plain run's
/// collisions and captures, and the frames each node decoded.
fn runs_match(sc: Scenario, secs: u64, min_events: u64) -> (u64, Vec<u64>) {
    struct Quiet;
    impl crate::metrics::observe::Observer for Quiet {}
    let mut cfg = sc.config(sc.seed());
    let end = secs * 1_000_000_000;
    cfg.duration = Time(end);
    let go = |observe: bool, steps: u64| {
        let mut sim = Simulation::new(cfg.clone()).unwrap();
        if observe {
            sim.add_observer(Box::new(Quiet));
        }
        for i in 1..=steps {
            sim.run_until(Time(end * i / steps + (i * 7_919) % 1_000));
        }
        let events = sim.events();
        let busy: u64 = sim.nodes.iter().map(|n| n.radio.stats.collisions + n.radio.stats.captures).sum();
        let decoded: Vec<u64> = sim.nodes.iter().map(|n| n.radio.stats.decoded).collect();
        (events, busy, decoded, serde_json::to_string(&sim.run()).unwrap())
    };
    let plain = go(false, 1);
    assert!(plain.0 > min_events, "{}", plain.0);
    assert_eq!(plain, go(true, 1), "general path");
    assert_eq!(plain, go(false, 997), "stopped and resumed");
    (plain.1, plain.2)
}

proptest::proptest! {
    /// A static sender's stream copied from its template
    /// (`Streams::cached_stream`) is the one `one_pass_stream` writes, for
    /// the template's first frame and the later ones (other times,
    /// durations and sequence numbers), beside another sender's.
    #[test]
    fn cached_streams_match_the_one_pass_ones(
        delays in proptest::collection::vec((1u64..2_000, 0u32..50, 1u32..1000), 1..8),
        frames in proptest::collection::vec((0u64..1u64 << 40, 2_000u64..3_000_000, 0u64..1u64 << 40, 0u32..2), 1..6),
    ) {
        use super::Streams;
        use crate::phy::channel::Hearer;
        let mut acc = 0;
        let hearers: Vec<Hearer> = delays
            .iter()
            .map(|&(dt, node, p)| {
                acc += dt;
                Hearer { node, power: p as f64 * 1e-10, delay: Time(acc) }
            })
            .collect();
        let (mut cached, mut plain) = (Streams::default(), Streams::default());
        for &(now, d, base, sender) in &frames {
            let (now, d) = (Time(now), Time(d + acc));
            let (h0, hk) = (hearers[0].delay, hearers[hearers.len() - 1].delay);
            proptest::prop_assume!(super::one_pass(now, d, h0, hk));
            // (the other sender hears the first hearers only)
            let h = if sender == 0 { &hearers[..] } else { &hearers[..1] };
            let (a, b) = (cached.take(d), plain.take(d));
            let ga = cached.cached_stream(h, a, now, d, base, sender + 7);
            let gb = plain.one_pass_stream(h, b, now, d, base, sender + 7);
            proptest::prop_assert_eq!(ga, gb);
            let (sa, sb) = (&cached.slab[a as usize], &plain.slab[b as usize]);
            proptest::prop_assert_eq!(&sa.signals, &sb.signals);
            proptest::prop_assert_eq!(sa.dur, sb.dur);
            // The same frame from the template alone (`templated_stream`):
            // the same stream, `2k + 1` numbers reserved.
            let b2 = plain.take(d);
            let gb = plain.one_pass_stream(h, b2, now, d, base, sender + 7);
            let mut asked = 0;
            let got = cached.templated_stream(sender + 7, now, d, |n| {
                asked = n;
                base
            });
            let (a2, ga) = got.expect("the template takes a one-pass frame");
            proptest::prop_assert_eq!(asked, 2 * h.len() as u64 + 1);
            proptest::prop_assert_eq!(ga, gb);
            proptest::prop_assert_eq!(&cached.slab[a2 as usize].signals, &plain.slab[b2 as usize].signals);
            proptest::prop_assert_eq!(cached.slab[a2 as usize].dur, plain.slab[b2 as usize].dur);
        }
    }

    /// A template's test (`Template::accepts`) is `one_pass` for its
    /// sender's hearers (first delay at least 1, sorted), at any time and
    /// duration, the extremes of `u64` included; and `templated_stream`
    /// takes nothing when it refuses, or before the sender's template.
    #[test]
    fn template_accepts_as_one_pass(
        delays in proptest::collection::vec(1u64..5_000, 1..6),
        frames in proptest::collection::vec((0u8..4, 0u64..1u64 << 50, 0u8..4, 0u64..10_000), 1..40),
    ) {
        use super::Streams;
        use crate::phy::channel::Hearer;
        let mut acc = 0;
        let hearers: Vec<Hearer> = delays
            .iter()
            .enumerate()
            .map(|(i, &dt)| {
                acc += dt;
                Hearer { node: i as u32, power: 1e-9, delay: Time(acc) }
            })
            .collect();
        let (h0, hk) = (hearers[0].delay, hearers[hearers.len() - 1].delay);
        let pick = |w: u8, x: u64, near: u64| match w {
            0 => x,
            1 => near.saturating_add(x % 3).saturating_sub(1),
            2 => u64::MAX - x % 5_000,
            _ => u64::MAX / 2 + x,
        };
        let mut st = Streams::default();
        proptest::prop_assert!(st.templated_stream(3, Time(0), Time(hk.0), |_| 0).is_none(), "no template yet");
        let first = st.take(Time(hk.0));
        st.cached_stream(&hearers, first, Time(0), Time(hk.0), 0, 3);
        for &(wn, x, wd, y) in &frames {
            let now = Time(pick(wn, x, 0));
            let d = Time(pick(wd, y, hk.0));
            let want = super::one_pass(now, d, h0, hk);
            let (slab, free) = (st.slab.len(), st.free.len());
            let got = st.templated_stream(3, now, d, |_| 0);
            proptest::prop_assert_eq!(got.is_some(), want, "now {} d {}", now.0, d.0);
            if !want {
                proptest::prop_assert_eq!((st.slab.len(), st.free.len()), (slab, free), "nothing taken");
            }
        }
    }
}
