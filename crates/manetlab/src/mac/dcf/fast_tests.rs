//! Session 22's small functions against the general paths they stand for
//! (`dcf/attempt.rs`, `dcf/ends.rs`): from any exchange, carrier-sense,
//! access and air-time state, the same actions and the same DCF fields.

use super::*;
use crate::mac::edca::AccessCategory;
use crate::net::Body;
use crate::phy::{PhyStandard, Preamble};
use crate::sim::rng::Purpose;
use proptest::prelude::*;

const STATES: [State; 8] = [
    State::Idle,
    State::Contend,
    State::SendingRts,
    State::WaitCts,
    State::DataPending,
    State::SendingData,
    State::WaitAck,
    State::SendingBroadcast,
];

fn packet(uid: u64, next_hop: MacAddr, size: u32) -> Packet {
    Packet {
        uid,
        src: 0,
        dst: 9,
        ttl: 64,
        dscp: 0,
        size,
        next_hop,
        prev_hop: 0,
        created: Time(5),
        flow: 1,
        body: Body::Udp { sport: 1, dport: 2, seq: uid },
        sr: Default::default(),
    }
}

/// Every field the paths under test may read or write.
fn fields(d: &Dcf) -> String {
    format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        (d.sensing, d.transmitting, d.access_pending, d.responding),
        d.state,
        (d.idle_since, d.nav_until, d.eifs_until, d.eifs_nav, d.txop_start),
        (d.access_gen, d.timeout_gen, d.response_gen),
        d.acs,
        d.tx_frame,
        d.response,
        d.stats,
        d.last_air,
        d.rate.counts(),
        d.rng.clone().uniform_incl(1 << 20),
    )
}

/// A DCF (plain or EDCA; 802.11b at 11/1 Mbit/s or the default DSSS) put
/// in the state the parameters name.
#[allow(clippy::too_many_arguments)]
fn dcf(
    edca: bool,
    fast_phy: bool,
    rts: bool,
    flags: &[bool],
    state: usize,
    backoff: Option<u32>,
    times: &[u64],
    current: Option<Packet>,
) -> Dcf {
    let phy = if fast_phy {
        PhyMode { standard: PhyStandard::Dsss, preamble: Preamble::Long, data_rate: 11_000_000, basic_rate: 1_000_000 }
    } else {
        PhyMode::default()
    };
    let cfg = MacConfig { edca, phy, rts_threshold: if rts { Some(0) } else { None }, ..MacConfig::default() };
    let mut d = Dcf::new(3, &cfg, false, RngStream::new(1, 3, Purpose::MacBackoff, 0));
    (d.sensing, d.transmitting, d.access_pending, d.responding) = (flags[0], flags[1], flags[2], flags[3]);
    d.report_overheard = flags[4];
    d.state = STATES[state];
    for a in d.acs.iter_mut() {
        a.backoff = backoff;
        a.countdown_start = Time(times[4]);
        a.counted_to = Time(times[5]);
        a.current = current;
        a.current_retry = flags[5];
    }
    (d.idle_since, d.nav_until, d.eifs_until) = (Time(times[0]), Time(times[1]), Time(times[2]));
    if flags[6] {
        d.response = Some(Response { kind: FrameKind::Ack, dst: 1, duration: Time::ZERO, bytes: 14, rate: 1 });
    }
    d
}

/// An action vector with `len` entries and room for `room` more.
fn out(len: usize, room: usize) -> Vec<MacAction> {
    let mut v = Vec::with_capacity(len + room);
    v.extend((0..len).map(|_| MacAction::Ready));
    v.shrink_to(len + room);
    v
}

proptest! {
    /// `start_attempt` (and the `transmit` it ends in) against
    /// `start_attempt_general` (and `transmit_general`): unicast with and
    /// without RTS, broadcast, constant rates, new and remembered sizes,
    /// a full action vector.
    #[test]
    fn start_attempt_is_the_general_path(
        edca in any::<bool>(),
        fast_phy in any::<bool>(),
        rts in any::<bool>(),
        flags in proptest::collection::vec(any::<bool>(), 7),
        backoff in proptest::option::of(0u32..8),
        times in proptest::collection::vec(0u64..3_000_000, 6),
        broadcast in any::<bool>(),
        size in prop_oneof![Just(1500u32), Just(40), 20..2000u32],
        remembered in 0usize..3,
        room in 0usize..3,
        retries in 0u32..3,
    ) {
        let to = if broadcast { BROADCAST } else { 1 };
        let p = packet(7, to, size);
        let make = || {
            let mut d = dcf(edca, fast_phy, rts, &flags, 1, backoff, &times, Some(p));
            d.acs[d.active].data_failures = retries;
            if remembered > 0 {
                // The DATA frame's size at the data rate remembered, first or second.
                let rate = d.phy.data_rate;
                let bytes = Frame::data_bytes(&p);
                let e = (airtime::air_key(bytes, rate).unwrap(), d.phy.frame_time(bytes, rate));
                d.last_air[remembered - 1] = e;
            }
            d
        };
        let now = Time(times[3]);
        let (mut a, mut b) = (make(), make());
        let (mut out_a, mut out_b) = (out(1, room), out(1, room));
        a.start_attempt(now, &mut out_a);
        b.start_attempt_general(now, &mut out_b);
        prop_assert_eq!(format!("{out_a:?}"), format!("{out_b:?}"));
        prop_assert_eq!(fields(&a), fields(&b));
    }

    /// `transmit` against `transmit_general` for any frame in `tx_frame`
    /// (control frames, DATA at any size and rate), with and without room.
    #[test]
    fn transmit_is_the_general_path(
        fast_phy in any::<bool>(),
        flags in proptest::collection::vec(any::<bool>(), 7),
        backoff in proptest::option::of(0u32..8),
        times in proptest::collection::vec(0u64..3_000_000, 6),
        bytes in prop_oneof![Just(14u32), Just(20), Just(1534), 0..3000u32],
        basic in any::<bool>(),
        room in 0usize..3,
        remembered in any::<bool>(),
    ) {
        let make = || {
            let mut d = dcf(false, fast_phy, true, &flags, 1, backoff, &times, None);
            let rate = if basic { d.phy.basic_rate } else { d.phy.data_rate };
            d.tx_frame.bytes = bytes;
            d.tx_frame.rate = rate;
            if remembered {
                d.last_air[1] = (airtime::air_key(bytes, rate).unwrap(), d.phy.frame_time(bytes, rate));
            }
            d
        };
        let now = Time(times[3]);
        let (mut a, mut b) = (make(), make());
        let (mut out_a, mut out_b) = (out(2, room), out(2, room));
        a.transmit(now, &mut out_a);
        b.transmit_general(now, &mut out_b);
        prop_assert_eq!(format!("{out_a:?}"), format!("{out_b:?}"));
        prop_assert_eq!(fields(&a), fields(&b));
    }

    /// `rx_end_decoded` against `rx_for_me` (the body of `on_rx_end` before
    /// session 22, which takes any decoded frame): frames for this station,
    /// for another, broadcast; every kind, with and without a packet; the
    /// overheard report on and off; any exchange and access state.
    #[test]
    fn a_decoded_end_is_the_general_path(
        edca in any::<bool>(),
        rts in any::<bool>(),
        flags in proptest::collection::vec(any::<bool>(), 7),
        state in 0usize..8,
        backoff in proptest::option::of(0u32..8),
        times in proptest::collection::vec(0u64..3_000_000, 6),
        dst in 0usize..3,
        kind in 0usize..4,
        with_packet in any::<bool>(),
        held in any::<bool>(),
        duration in 0u64..2_000_000,
        idle in any::<bool>(),
    ) {
        let kinds = [FrameKind::Rts, FrameKind::Cts, FrameKind::Data, FrameKind::Ack];
        let current = held.then(|| packet(5, 1, 512));
        let f = Frame {
            kind: kinds[kind],
            src: 1,
            dst: [3, 4, BROADCAST][dst],
            duration: Time(duration),
            seq: 9,
            tid: None,
            retry: false,
            bytes: 600,
            rate: 2_000_000,
            packet: with_packet.then(|| packet(8, 3, 512)),
        };
        let make = || dcf(edca, false, rts, &flags, state, backoff, &times, current);
        let now = Time(times[3]);
        let (mut a, mut b) = (make(), make());
        let (mut out_a, mut out_b) = (out(0, 4), out(0, 4));
        a.rx_end_decoded(now, &f, idle, &mut out_a);
        b.rx_for_me(now, &f, idle, &mut out_b);
        prop_assert_eq!(format!("{out_a:?}"), format!("{out_b:?}"));
        prop_assert_eq!(fields(&a), fields(&b));
    }
}

proptest! {
    /// `enqueue_ac_ref` against `enqueue_general` (its body before
    /// session 22): plain DCF and EDCA, with and without a backoff
    /// pending, a countdown running or not (armed before, at or after
    /// `now`: session 23's inline freeze of one that counted no slot),
    /// any access and exchange state.
    #[test]
    fn enqueue_is_the_general_path(
        at_start in any::<bool>(),
        edca in any::<bool>(),
        flags in proptest::collection::vec(any::<bool>(), 7),
        state in 0usize..2,
        backoff in proptest::option::of(0u32..8),
        times in proptest::collection::vec(0u64..3_000_000, 6),
        to in prop_oneof![Just(1u32), Just(BROADCAST)],
        voice in any::<bool>(),
        room in 0usize..3,
    ) {
        let ac = if voice { AccessCategory::Voice } else { AccessCategory::BestEffort };
        let make = || dcf(edca, false, false, &flags, state, backoff, &times, None);
        let p = packet(11, to, 700);
        let now = Time(if at_start { times[4] } else { times[3] });
        let (mut a, mut b) = (make(), make());
        let (mut out_a, mut out_b) = (out(1, room), out(1, room));
        a.enqueue_ac_ref(now, &p, ac, &mut out_a);
        b.enqueue_general(now, &p, ac, &mut out_b);
        prop_assert_eq!(format!("{out_a:?}"), format!("{out_b:?}"));
        prop_assert_eq!(fields(&a), fields(&b));
        prop_assert_eq!(a.seqs.next(to, None), b.seqs.next(to, None));
    }
}

/// `on_rx_end` of a lost frame (inlined at its callers) is `failed_rx`
/// then `on_signal_end`, and of a decoded one `rx_end_decoded`.
#[test]
fn on_rx_end_dispatches_by_outcome() {
    let times = [100, 0, 0, 5_000, 0, 0];
    let flags = [true, false, false, false, false, false, false];
    let make = || dcf(false, false, false, &flags, 1, Some(3), &times, Some(packet(1, 1, 100)));
    let (mut a, mut b) = (make(), make());
    let (mut out_a, mut out_b) = (Vec::new(), Vec::new());
    a.on_rx_end(Time(5_000), None, true, &mut out_a);
    b.failed_rx(Time(5_000));
    b.on_signal_end(Time(5_000), true, &mut out_b);
    assert_eq!(format!("{out_a:?}"), format!("{out_b:?}"));
    assert_eq!(fields(&a), fields(&b));
    assert!(!out_a.is_empty(), "the access timer re-armed");
}

/// An RTS under an adaptive rate controller (which takes the general path)
/// reserves the ACK at the data rate's control rate (`ack_time`), not at
/// the basic rate: the general path keeps main's formula (review of
/// session 22's merge, which had found `ack_basic` there). A data rate
/// below the basic rate tells the two apart (`control_rate`).
#[test]
fn an_adaptive_rts_reserves_the_ack_at_the_control_rate() {
    let phy = PhyMode { standard: PhyStandard::Dsss, preamble: Preamble::Long, data_rate: 1_000_000, basic_rate: 2_000_000 };
    let cfg = MacConfig { phy, rts_threshold: Some(0), ..MacConfig::default() };
    let mut d = Dcf::new(3, &cfg, false, RngStream::new(1, 3, Purpose::MacBackoff, 0));
    // `DcfRate::new` marks any controller adaptive (responses at the
    // control rate); the constant one keeps the data rate at 1 Mbit/s.
    d.rate = crate::mac::rate::DcfRate::new(
        &phy,
        crate::mac::rate::build(crate::mac::rate::RateControlKind::Constant, &phy, 1, 3, 0.0),
    );
    let p = packet(7, 1, 1500);
    d.state = State::Contend;
    for a in d.acs.iter_mut() {
        a.backoff = Some(0);
        a.current = Some(p);
    }
    let mut out = Vec::with_capacity(4);
    d.start_attempt(Time(1_000), &mut out);
    assert_eq!(d.tx_frame.kind, FrameKind::Rts);
    let data_time = phy.frame_time(Frame::data_bytes(&p), 1_000_000);
    let ack = phy.frame_time(frame::ACK_BYTES, 1_000_000);
    assert_ne!(ack, d.ack_basic, "the case must tell the two formulas apart");
    assert_eq!(d.tx_frame.duration, d.sifs * 3 + d.cts_time + data_time + ack);
}
