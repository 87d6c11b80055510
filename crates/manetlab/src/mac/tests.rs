//! DCF unit tests: the MAC driven directly, timings checked to the
//! nanosecond. Timelines are at 2 Mbit/s DSSS: slot 20 us, SIFS 10 us,
//! DIFS 50 us, EIFS 364 us, ACK/CTS 248 us, RTS 272 us.
//!
//! ```text
//!  medium idle since 0
//!  |-- DIFS --|-- backoff slots --| DATA ... | SIFS | ACK |
//! ```

use super::dcf::{Dcf, MacAction, MacTimer};
use super::frame::{Frame, FrameKind};
use super::MacConfig;
use crate::net::{Body, Packet};
use crate::sim::rng::Purpose;
use crate::sim::{RngStream, Time};

const US: fn(u64) -> Time = Time::from_us;

struct H {
    dcf: Dcf,
    out: Vec<MacAction>,
}

impl H {
    fn new(rts: bool) -> H {
        let cfg = MacConfig { rts_threshold: if rts { Some(0) } else { None }, ..MacConfig::default() };
        H { dcf: Dcf::new(0, &cfg, false, RngStream::new(1, 0, Purpose::MacBackoff, 0)), out: Vec::new() }
    }
    /// The last timer of `kind` set, with its generation.
    fn timer(&self, kind: MacTimer) -> (Time, u32) {
        self.out
            .iter()
            .rev()
            .find_map(|a| match a {
                MacAction::Timer { at, kind: k, gen } if *k == kind => Some((*at, *gen)),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no {kind:?} timer in {:?}", self.out))
    }
    fn fire(&mut self, kind: MacTimer) -> Time {
        let (at, gen) = self.timer(kind);
        self.out.clear();
        self.dcf.on_timer(at, kind, gen, &mut self.out);
        at
    }
    fn transmitted(&self) -> Option<(FrameKind, Time)> {
        self.out.iter().find_map(|a| match a {
            MacAction::Transmit(d) => Some((self.dcf.tx_frame().kind, *d)),
            _ => None,
        })
    }
}

fn pkt(to: u32) -> Packet {
    Packet {
        uid: 1,
        src: 0,
        dst: to,
        ttl: 64,
        dscp: 0,
        size: 1028,
        next_hop: to,
        prev_hop: 0,
        created: Time::ZERO,
        flow: 0,
        body: Body::Udp { sport: 1, dport: 1, seq: 0 },
        sr: Default::default(),
    }
}

fn frame(kind: FrameKind, src: u32, dst: u32, duration: Time) -> Frame {
    Frame { kind, src, dst, duration, seq: 0, tid: None, retry: false, bytes: 14, rate: 2_000_000, packet: None }
}

#[test]
fn test_idle_medium_packet_goes_out_at_once() {
    let mut h = H::new(false);
    h.dcf.enqueue(Time::from_ms(1), pkt(1), &mut h.out);
    assert_eq!(h.timer(MacTimer::Access).0, Time::from_ms(1));
    h.fire(MacTimer::Access);
    let (kind, d) = h.transmitted().expect("DATA sent");
    assert_eq!(kind, FrameKind::Data);
    // 1028 + 36 bytes at 2 Mbit/s + 192 us PLCP.
    assert_eq!(d, US(192 + 1064 * 4));
}

#[test]
fn test_busy_medium_defers_difs_plus_backoff_and_freezes() {
    let mut h = H::new(false);
    h.dcf.on_sense_busy(US(0));
    h.dcf.enqueue(US(10), pkt(1), &mut h.out);
    assert!(h.out.is_empty(), "no access while busy");
    // Medium idle at 1000 us: countdown starts at 1050.
    h.dcf.on_signal_end(US(1000), true, &mut h.out);
    let (at, _) = h.timer(MacTimer::Access);
    let slots = (at - US(1050)).as_ns() / US(20).as_ns();
    assert_eq!(at, US(1050) + US(20) * slots);
    assert!(slots >= 3, "this seed draws {slots} slots; pick one with >= 3");
    // Busy again 2.5 slots into the countdown: 2 slots counted.
    h.out.clear();
    h.dcf.on_sense_busy(US(1050 + 50));
    h.dcf.on_signal_end(US(3000), true, &mut h.out);
    assert_eq!(h.timer(MacTimer::Access).0, US(3050) + US(20) * (slots - 2));
}

#[test]
fn test_wait_ack_timeout_backoff_counts_from_the_timeout() {
    let mut h = H::new(false);
    h.dcf.enqueue(US(0), pkt(1), &mut h.out);
    h.fire(MacTimer::Access);
    let (_, d) = h.transmitted().unwrap();
    h.out.clear();
    h.dcf.on_tx_end(d, &mut h.out);
    // ACK timeout = SIFS + ACK + slot after the frame.
    let (t_out, _) = h.timer(MacTimer::Timeout);
    assert_eq!(t_out, d + US(10 + 248 + 20));
    h.fire(MacTimer::Timeout);
    let (at, _) = h.timer(MacTimer::Access);
    assert!(at >= t_out + US(50), "retry at {at} before timeout {t_out} + DIFS");
    assert_eq!((at - (t_out + US(50))).as_ns() % US(20).as_ns(), 0);
}

#[test]
fn test_failed_frame_defers_eifs_once_then_difs() {
    let mut h = H::new(false);
    h.dcf.on_sense_busy(US(0));
    h.dcf.on_rx_end(US(1000), None, true, &mut h.out); // corrupted frame ends
    h.out.clear();
    h.dcf.enqueue(US(1100), pkt(1), &mut h.out);
    // Idle for 100 us only, and EIFS (364 us) runs from the bad frame's end.
    let (at, _) = h.timer(MacTimer::Access);
    assert!(at >= US(1364), "{at}");
    // A correct frame clears EIFS: the next deferral is DIFS.
    h.out.clear();
    h.dcf.on_sense_busy(US(1200));
    let f = frame(FrameKind::Ack, 5, 7, Time::ZERO);
    h.dcf.on_rx_end(US(1448), Some(&f), true, &mut h.out);
    let (at, _) = h.timer(MacTimer::Access);
    assert!(at >= US(1498) && at < US(1364 + 50 + 20 * 31), "{at}");
    assert_eq!((at - US(1498)).as_ns() % US(20).as_ns(), 0, "counted from DIFS, not EIFS");
}

#[test]
fn test_nav_blocks_the_cts() {
    let mut h = H::new(true);
    // Overheard RTS between others reserves the medium for 5 ms.
    h.dcf.on_sense_busy(US(0));
    let rts = frame(FrameKind::Rts, 5, 6, Time::from_ms(5));
    h.dcf.on_rx_end(US(272), Some(&rts), true, &mut h.out);
    assert_eq!(h.dcf.nav_until(), US(272) + Time::from_ms(5));
    // An RTS for us while the NAV is set is not answered.
    h.out.clear();
    h.dcf.on_sense_busy(US(1000));
    let to_us = frame(FrameKind::Rts, 8, 0, Time::from_ms(3));
    h.dcf.on_rx_end(US(1272), Some(&to_us), true, &mut h.out);
    assert!(!h.out.iter().any(|a| matches!(a, MacAction::Timer { kind: MacTimer::Response, .. })), "{:?}", h.out);
    // After the NAV it is answered with a CTS SIFS later.
    h.out.clear();
    h.dcf.on_sense_busy(US(9000));
    h.dcf.on_rx_end(US(9272), Some(&to_us), true, &mut h.out);
    assert_eq!(h.timer(MacTimer::Response).0, US(9282));
    h.fire(MacTimer::Response);
    assert_eq!(h.transmitted().map(|t| t.0), Some(FrameKind::Cts));
}

fn cts_mac(rule: super::CtsRule) -> H {
    let cfg = MacConfig { cts_rule: rule, ..MacConfig::default() };
    H { dcf: Dcf::new(0, &cfg, false, RngStream::new(1, 0, Purpose::MacBackoff, 0)), out: Vec::new() }
}

impl H {
    /// An RTS from 8 decodes at `end`; then, if a response timer was set,
    /// it fires after `during` ran. Returns whether a CTS went on the air.
    fn rts_answered(&mut self, end: Time, during: impl FnOnce(&mut H)) -> bool {
        self.out.clear();
        self.dcf.on_sense_busy(end - US(272));
        self.dcf.on_rx_end(end, Some(&frame(FrameKind::Rts, 8, 0, Time::from_ms(3))), true, &mut self.out);
        if !self.out.iter().any(|a| matches!(a, MacAction::Timer { kind: MacTimer::Response, .. })) {
            return false;
        }
        assert_eq!(self.timer(MacTimer::Response).0, end + US(10));
        let out = self.out.clone();
        during(self);
        self.out = out;
        let at = self.fire(MacTimer::Response);
        let sent = self.transmitted().map(|t| t.0) == Some(FrameKind::Cts);
        if sent {
            self.dcf.on_tx_end(at + US(248), &mut self.out);
        }
        sent
    }
}

/// `mac.cts_rule` (`dcf/cts.rs`). IEEE 802.11 checks the NAV when the RTS
/// ends; ns-2.35 builds the CTS whatever the NAV (`recvRTS`) but sends it
/// SIFS later only if `is_idle()`: no signal, NAV over, and no EIFS NAV
/// from a failed frame (`check_pktCTRL`, `recv_timer`); "ignore-nav"
/// never checks.
#[test]
fn test_cts_rule_standard_ns2_and_ignore_nav() {
    use super::CtsRule::{IgnoreNav, Ns2, Standard};
    let nav = |h: &mut H, until: Time| {
        // An overheard RTS between 5 and 6 sets the NAV to `until`.
        h.dcf.on_sense_busy(US(0));
        h.dcf.on_rx_end(US(272), Some(&frame(FrameKind::Rts, 5, 6, until - US(272))), true, &mut h.out);
        assert_eq!(h.dcf.nav_until(), until);
    };
    // NAV still set when the CTS is due (5.272 ms): only "ignore-nav" answers.
    for (rule, answered) in [(Standard, false), (Ns2, false), (IgnoreNav, true)] {
        let mut h = cts_mac(rule);
        nav(&mut h, US(5272));
        assert_eq!(h.rts_answered(US(1272), |_| {}), answered, "{rule:?}");
    }
    // NAV over 5 us after the RTS, before the CTS is due: ns-2 answers.
    for (rule, answered) in [(Standard, false), (Ns2, true), (IgnoreNav, true)] {
        let mut h = cts_mac(rule);
        nav(&mut h, US(1277));
        assert_eq!(h.rts_answered(US(1272), |_| {}), answered, "{rule:?}");
    }
    // A signal starts 5 us after the RTS: ns-2 does not answer.
    for (rule, answered) in [(Standard, true), (Ns2, false), (IgnoreNav, true)] {
        let mut h = cts_mac(rule);
        assert_eq!(h.rts_answered(US(1272), |h| h.dcf.on_sense_busy(US(1277))), answered, "{rule:?}");
    }
    // A frame failed to decode at 1.0 ms; the RTS ends 282 us later, inside
    // the EIFS (364 us): ns-2's NAV still holds; after it, both answer.
    for (rule, answered) in [(Standard, true), (Ns2, false), (IgnoreNav, true)] {
        let mut h = cts_mac(rule);
        h.dcf.on_sense_busy(US(500));
        h.dcf.on_rx_end(US(1000), None, true, &mut h.out);
        assert_eq!(h.rts_answered(US(1282), |_| {}), answered, "{rule:?}");
        assert!(h.rts_answered(US(5000), |_| {}), "{rule:?}");
    }
}

#[test]
fn test_rts_retry_limit_reports_link_failure() {
    let mut h = H::new(true);
    h.dcf.enqueue(US(0), pkt(1), &mut h.out);
    let mut failed = false;
    for attempt in 1..=7 {
        let t = h.fire(MacTimer::Access);
        let (kind, d) = h.transmitted().unwrap();
        assert_eq!(kind, FrameKind::Rts, "attempt {attempt}");
        h.out.clear();
        h.dcf.on_tx_end(t + d, &mut h.out);
        h.fire(MacTimer::Timeout);
        failed = h.out.iter().any(|a| matches!(a, MacAction::TxFailed(_)));
        assert_eq!(failed, attempt == 7, "attempt {attempt}");
    }
    assert!(failed);
    assert_eq!(h.dcf.stats.rts_failures, 7);
    assert_eq!(h.dcf.stats.retries, 6);
    assert_eq!(h.dcf.stats.retry_drops, 1);
    assert!(h.dcf.can_accept());
    assert!(h.out.iter().any(|a| matches!(a, MacAction::Ready)));
}

// ---- EDCA ----------------------------------------------------------------

/// Both access categories hold a packet when the medium falls idle; each
/// counts down from its own AIFS (AC_VO: SIFS + 2 slots, CW 7..15;
/// AC_BE: SIFS + 3 slots, CW 31 at DSSS). The first to reach zero sends;
/// on a tie AC_VO sends and AC_BE suffers an internal collision.
#[test]
fn test_edca_first_countdown_wins_and_voice_wins_ties() {
    use super::edca::AccessCategory::{BestEffort, Voice};
    let (slot, sifs) = (US(20), US(10));
    let (mut vo, mut be, mut ties) = (0, 0, 0);
    for seed in 0..400 {
        let cfg = MacConfig { rts_threshold: None, edca: true, ..MacConfig::default() };
        let mut h =
            H { dcf: Dcf::new(0, &cfg, false, RngStream::new(seed, 0, Purpose::MacBackoff, 0)), out: Vec::new() };
        assert!(h.dcf.is_edca());
        h.dcf.on_sense_busy(Time::ZERO);
        h.dcf.enqueue_ac(Time::ZERO, Packet { uid: 7, ..pkt(1) }, Voice, &mut h.out);
        assert!(!h.dcf.can_accept_ac(Voice) && h.dcf.can_accept_ac(BestEffort));
        h.dcf.enqueue_ac(Time::ZERO, Packet { uid: 8, ..pkt(1) }, BestEffort, &mut h.out);
        assert!(!h.dcf.can_accept());
        let idle = US(500);
        h.dcf.on_signal_end(idle, true, &mut h.out);
        let at = h.fire(MacTimer::Access);
        let (kind, _) = h.transmitted().expect("someone transmits");
        assert_eq!(kind, FrameKind::Data);
        let slots = ((at - idle - sifs).as_ns() / slot.as_ns()) as u32;
        assert_eq!(at, idle + sifs + slot * slots as u64, "access on a slot boundary");
        let uid = h.dcf.tx_frame().packet.unwrap().uid;
        let collided = h.dcf.stats.internal_collisions;
        if uid == 7 {
            // AIFSN 2 + backoff 0..7.
            assert!((2..=9).contains(&slots), "{slots}");
            vo += 1;
            ties += collided;
        } else {
            // AIFSN 3 + backoff 0..31, and strictly before AC_VO could.
            assert!((3..=8).contains(&slots), "{slots}");
            assert_eq!(collided, 0);
            be += 1;
        }
        let mut held = Vec::new();
        h.dcf.held(&mut |p| held.push(p.uid));
        held.sort();
        assert_eq!(held, vec![7, 8]);
    }
    println!("AC_VO first {vo}, AC_BE first {be}, internal collisions {ties}");
    assert_eq!(vo + be, 400);
    assert!(vo > 300 && be > 10, "{vo} / {be}");
    assert!(ties > 5, "{ties}");
}

/// With EDCA off the MAC is plain DCF with one backoff entity.
#[test]
fn test_plain_dcf_has_one_entity() {
    let h = H::new(false);
    assert!(!h.dcf.is_edca());
    assert!(h.dcf.can_accept_ac(super::edca::AccessCategory::Voice));
}

/// An AC_VO packet handed over when the previous AC_VO exchange ends goes
/// out SIFS later without backoff while the TXOP limit (3.264 ms at DSSS)
/// allows; AC_BE (TXOP 0) contends again.
#[test]
fn test_edca_voice_continues_its_txop_best_effort_does_not() {
    use super::edca::AccessCategory::{self, BestEffort, Voice};
    let small = |uid| Packet { uid, size: 100, ..pkt(1) };
    let sifs = US(10);
    let run = |ac: AccessCategory| {
        let cfg = MacConfig { rts_threshold: None, edca: true, ..MacConfig::default() };
        let mut h = H { dcf: Dcf::new(0, &cfg, false, RngStream::new(1, 0, Purpose::MacBackoff, 0)), out: Vec::new() };
        let mut t = Time::from_ms(1);
        h.dcf.enqueue_ac(t, small(1), ac, &mut h.out);
        let mut sent = vec![(h.fire(MacTimer::Access), 1)];
        for uid in 2..=5 {
            let (_, d) = h.transmitted().unwrap();
            t = sent.last().unwrap().0 + d;
            h.out.clear();
            h.dcf.on_tx_end(t, &mut h.out);
            // The ACK: SIFS, then 248 us.
            h.dcf.on_sense_busy(t + sifs);
            t += sifs + US(248);
            let ack = frame(FrameKind::Ack, 1, 0, Time::ZERO);
            h.out.clear();
            h.dcf.on_rx_end(t, Some(&ack), true, &mut h.out);
            assert!(h.out.iter().any(|a| matches!(a, MacAction::Ready)));
            h.out.clear();
            h.dcf.enqueue_ac(t, small(uid), ac, &mut h.out);
            let next = if h.out.iter().any(|a| matches!(a, MacAction::Timer { kind: MacTimer::Response, .. })) {
                h.fire(MacTimer::Response)
            } else {
                h.fire(MacTimer::Access)
            };
            assert_eq!(h.dcf.tx_frame().packet.unwrap().uid, uid);
            sent.push((next, uid));
            // Gap between the ACK's end and the next DATA.
            if next - t != sifs {
                break;
            }
        }
        (sent, h.dcf.stats.txop_continuations)
    };
    let (vo, cont) = run(Voice);
    // 100-byte packets at 2 Mbit/s: an exchange (SIFS + DATA + SIFS + ACK)
    // takes about 1.1 ms, so two more fit in the 3.264 ms TXOP.
    assert_eq!(cont, 2, "{vo:?}");
    assert_eq!(vo.len(), 4, "{vo:?}");
    let (be, cont) = run(BestEffort);
    assert_eq!(cont, 0);
    assert_eq!(be.len(), 2, "{be:?}");
}

#[test]
fn test_packet_arriving_during_post_backoff_keeps_the_countdown() {
    // A broadcast frame (no ACK) ends; the post-backoff starts counting
    // DIFS later. A packet handed over midway must go out when that
    // countdown ends, not earlier (slots already counted are not counted
    // twice).
    let mut h = H::new(false);
    let mut b = pkt(crate::net::BROADCAST);
    b.next_hop = crate::net::BROADCAST;
    h.dcf.enqueue(US(0), b, &mut h.out);
    h.fire(MacTimer::Access);
    let (_, d) = h.transmitted().expect("broadcast sent");
    h.out.clear();
    h.dcf.on_tx_end(d, &mut h.out);
    let (post_end, _) = h.timer(MacTimer::Access);
    let slots = (post_end - (d + US(50))).as_ns() / US(20).as_ns();
    assert!(slots >= 4, "this seed draws {slots} post-backoff slots; pick one with >= 4");
    // Midway (2.5 slots counted), a new packet arrives.
    h.out.clear();
    h.dcf.enqueue(d + US(50 + 50), pkt(1), &mut h.out);
    assert_eq!(h.timer(MacTimer::Access).0, post_end, "the countdown neither restarts nor skips slots");
    h.fire(MacTimer::Access);
    assert_eq!(h.transmitted().expect("DATA sent").0, FrameKind::Data);
}

// ---- ns-3.37 retry counters and in-flight expiry (dcf/ns3.rs) -------------

fn ns3_mac(counters: super::RetryCounters) -> H {
    let cfg = MacConfig { rts_threshold: None, retry_counters: counters, ..MacConfig::default() };
    H { dcf: Dcf::new(0, &cfg, false, RngStream::new(1, 0, Purpose::MacBackoff, 0)), out: Vec::new() }
}

impl H {
    /// One DATA attempt that gets no ACK: returns when the timeout fired
    /// and whether the packet was dropped at the retry limit.
    fn unanswered(&mut self) -> (Time, bool) {
        let t = self.fire(MacTimer::Access);
        let (kind, d) = self.transmitted().expect("DATA sent");
        assert_eq!(kind, FrameKind::Data);
        self.out.clear();
        self.dcf.on_tx_end(t + d, &mut self.out);
        let at = self.fire(MacTimer::Timeout);
        (at, self.out.iter().any(|a| matches!(a, MacAction::TxFailed(_))))
    }
    /// One DATA attempt answered by an ACK.
    fn acknowledged(&mut self) {
        let t = self.fire(MacTimer::Access);
        let (_, d) = self.transmitted().expect("DATA sent");
        self.out.clear();
        self.dcf.on_tx_end(t + d, &mut self.out);
        self.dcf.on_sense_busy(t + d + US(10));
        let ack = frame(FrameKind::Ack, 1, 0, Time::ZERO);
        self.dcf.on_rx_end(t + d + US(10 + 248), Some(&ack), true, &mut self.out);
        assert!(self.out.iter().any(|a| matches!(a, MacAction::TxSuccess(_))), "{:?}", self.out);
    }
    /// Transmissions of the packet handed over at `now` until it is
    /// dropped at the retry limit.
    fn attempts_until_dropped(&mut self, now: Time) -> u32 {
        self.out.clear();
        self.dcf.enqueue(now, pkt(1), &mut self.out);
        (1..=20).find(|_| self.unanswered().1).expect("dropped within 20 attempts")
    }
}

/// ns-3.37 keeps one short retry counter per station and AC
/// (`WifiRemoteStationManager::m_ssrc`): a frame that expires after 3
/// failed attempts hands its count to the next frame, which is dropped
/// after 7 - 3 = 4 transmissions; a success or a retry-limit drop resets
/// it (`ReportDataOk`, `ReportFinalDataFailed`). Per-frame counters give
/// every frame its 7 transmissions.
#[test]
fn test_station_retry_counter_outlives_an_expired_frame_and_resets_on_success() {
    use super::RetryCounters::{Mpdu, Station};
    let mut seen = Vec::new();
    for counters in [Mpdu, Station] {
        let mut h = ns3_mac(counters);
        h.dcf.enqueue(US(0), pkt(1), &mut h.out);
        h.dcf.set_expiry(Time::from_secs(1));
        let mut t = US(0);
        for _ in 0..3 {
            let (at, dropped) = h.unanswered();
            assert!(!dropped);
            t = at;
        }
        // The queue takes another packet after the lifetime ended, while the
        // MAC waits for access to retry: the frame is dropped as expired.
        assert!(t < Time::from_secs(1));
        h.out.clear();
        h.dcf.on_queue_enqueue(Time::from_secs(1), &mut h.out);
        assert!(matches!(h.out.first(), Some(MacAction::Expired(_))), "{:?}", h.out);
        assert!(h.out.iter().any(|a| matches!(a, MacAction::Ready)) && h.dcf.can_accept());
        assert_eq!((h.dcf.expired_in_flight, h.dcf.stats.retries), (1, 3));
        let next = h.attempts_until_dropped(Time::from_secs(1));
        // After a retry-limit drop the counter starts from zero.
        let after_drop = h.attempts_until_dropped(Time::from_secs(2));
        // A success resets it too: one failure, then an ACK, then a frame
        // that fails throughout gets all 7 transmissions.
        h.out.clear();
        h.dcf.enqueue(Time::from_secs(3), pkt(1), &mut h.out);
        assert!(!h.unanswered().1);
        h.acknowledged();
        let after_success = h.attempts_until_dropped(Time::from_secs(4));
        seen.push((next, after_drop, after_success));
    }
    assert_eq!(seen, vec![(7, 7, 7), (4, 7, 7)]);
}

/// ns-3.37 `FrameExchangeManager::StartTransmission` wipes expired MPDUs
/// when access is granted: the expired frame is not sent and the access
/// goes to the next packet at once.
#[test]
fn test_frame_expired_at_channel_access_is_dropped_and_the_next_goes_at_once() {
    let mut h = ns3_mac(super::RetryCounters::Station);
    h.dcf.on_sense_busy(US(0));
    h.dcf.enqueue(US(10), pkt(1), &mut h.out);
    h.dcf.set_expiry(US(500));
    h.dcf.on_signal_end(US(1000), true, &mut h.out);
    let t = h.fire(MacTimer::Access);
    assert!(t >= US(1050));
    assert!(h.transmitted().is_none(), "{:?}", h.out);
    assert!(matches!(h.out.first(), Some(MacAction::Expired(_))), "{:?}", h.out);
    h.out.clear();
    h.dcf.enqueue(t, pkt(1), &mut h.out);
    assert_eq!(h.timer(MacTimer::Access).0, t, "no new backoff");
    h.fire(MacTimer::Access);
    assert_eq!(h.transmitted().map(|x| x.0), Some(FrameKind::Data));
}

/// A frame whose lifetime ends during its own exchange (the queue took a
/// packet meanwhile) is still delivered if the ACK comes; if it does not,
/// it is not retried: ns-3.37 removed it from the queue, and the channel
/// release after the failure finds nothing to retransmit. The contention
/// window stays doubled for the next frame.
#[test]
fn test_frame_expired_during_its_exchange_is_acked_or_dropped_after_the_failure() {
    for acked in [true, false] {
        let mut h = ns3_mac(super::RetryCounters::Station);
        h.dcf.enqueue(US(0), pkt(1), &mut h.out);
        h.dcf.set_expiry(US(1000));
        let t = h.fire(MacTimer::Access);
        let (_, d) = h.transmitted().unwrap();
        assert!(t < US(1000) && t + d > US(3000));
        h.out.clear();
        h.dcf.on_queue_enqueue(t + US(2000), &mut h.out);
        assert!(h.out.is_empty(), "still on the air: {:?}", h.out);
        h.dcf.on_tx_end(t + d, &mut h.out);
        if acked {
            h.dcf.on_sense_busy(t + d + US(10));
            let ack = frame(FrameKind::Ack, 1, 0, Time::ZERO);
            h.dcf.on_rx_end(t + d + US(258), Some(&ack), true, &mut h.out);
            assert!(h.out.iter().any(|a| matches!(a, MacAction::TxSuccess(_))), "{:?}", h.out);
            assert_eq!(h.dcf.expired_in_flight, 0);
        } else {
            let at = h.fire(MacTimer::Timeout);
            assert!(h.out.iter().any(|a| matches!(a, MacAction::Expired(_))), "{:?}", h.out);
            assert_eq!((h.dcf.stats.ack_failures, h.dcf.stats.retries, h.dcf.expired_in_flight), (1, 0, 1));
            // The post-backoff is drawn from the doubled window (CW 63).
            let (end, _) = h.timer(MacTimer::Access);
            assert!(end >= at + US(50) && end <= at + US(50 + 63 * 20), "{end}");
        }
    }
}

// ---- ns-3.37 immediate access (dcf/ns3.rs) --------------------------------

/// A relay hands the MAC the packet it just received at the end of that
/// reception, before its ACK goes out (ns-3.37: `EndReceivePayload`
/// forwards it up before the ACK, SIFS later). With
/// `immediate_access = "idle-now"` the medium is idle at that instant, so
/// no backoff is drawn and the frame goes DIFS after the ACK
/// (`NeedBackoffUponAccess`); with the default the medium has not been
/// idle for DIFS, so a backoff of 0..=31 slots follows the DIFS.
#[test]
fn test_relay_forwards_difs_after_its_ack_without_backoff_under_idle_now() {
    use super::ImmediateAccess::{IdleForDifs, IdleNow};
    let mut slots_default = Vec::new();
    for seed in 1..=8 {
        for mode in [IdleForDifs, IdleNow] {
            let cfg = MacConfig { rts_threshold: None, immediate_access: mode, ..MacConfig::default() };
            let mut h =
                H { dcf: Dcf::new(0, &cfg, false, RngStream::new(seed, 0, Purpose::MacBackoff, 0)), out: Vec::new() };
            // DATA from node 1 for us, 0..2000 us; the packet comes back
            // down for node 2 at the same instant.
            h.dcf.on_sense_busy(US(0));
            let mut data = frame(FrameKind::Data, 1, 0, US(10 + 248));
            data.packet = Some(pkt(0));
            data.bytes = 1064;
            h.dcf.on_rx_end(US(2000), Some(&data), true, &mut h.out);
            h.dcf.enqueue(US(2000), pkt(2), &mut h.out);
            assert_eq!(h.fire(MacTimer::Response), US(2010));
            assert_eq!(h.transmitted().map(|t| t.0), Some(FrameKind::Ack));
            h.out.clear();
            h.dcf.on_tx_end(US(2010 + 248), &mut h.out);
            let at = h.timer(MacTimer::Access).0;
            let difs_after_ack = US(2258 + 50);
            assert!(at >= difs_after_ack && (at - difs_after_ack).as_ns().is_multiple_of(US(20).as_ns()), "{at:?}");
            let slots = (at - difs_after_ack).as_ns() / US(20).as_ns();
            match mode {
                IdleNow => assert_eq!(slots, 0, "seed {seed}: no backoff"),
                IdleForDifs => slots_default.push(slots),
            }
            h.fire(MacTimer::Access);
            assert_eq!(h.transmitted().map(|t| t.0), Some(FrameKind::Data));
        }
    }
    // The default draws a backoff: not all zero, all within CWmin 31.
    assert!(slots_default.iter().any(|&s| s > 0) && slots_default.iter().all(|&s| s <= 31), "{slots_default:?}");
}

/// The frames the DCF writes in place (`dcf/response.rs`) are the full
/// frames: the DATA frame sent at access and after a CTS, the CTS and the
/// ACK, field by field (packet included), as they were built whole before.
#[test]
fn test_frames_written_in_place_are_the_whole_frames() {
    let data = |retry| Frame {
        kind: FrameKind::Data,
        src: 0,
        dst: 1,
        duration: US(10 + 248), // SIFS + ACK at 2 Mbit/s
        seq: 0,
        tid: None,
        retry,
        bytes: 1028 + 36,
        rate: 2_000_000,
        packet: Some(pkt(1)),
    };
    let ctl = |kind, src, dst, duration, bytes| Frame {
        kind,
        src,
        dst,
        duration,
        seq: 0,
        tid: None,
        retry: false,
        bytes,
        rate: 2_000_000,
        packet: None,
    };
    // No RTS: the DATA frame at access.
    let mut h = H::new(false);
    h.dcf.enqueue(Time::from_ms(1), pkt(1), &mut h.out);
    h.fire(MacTimer::Access);
    assert_eq!(format!("{:?}", h.dcf.tx_frame()), format!("{:?}", data(false)));
    // RTS/CTS: the DATA frame SIFS after the CTS.
    let mut h = H::new(true);
    h.dcf.enqueue(Time::from_ms(1), pkt(1), &mut h.out);
    h.fire(MacTimer::Access);
    assert_eq!(h.dcf.tx_frame().kind, FrameKind::Rts);
    let rts = *h.dcf.tx_frame();
    h.out.clear();
    h.dcf.on_tx_end(Time::from_ms(2), &mut h.out);
    h.out.clear();
    let cts = ctl(FrameKind::Cts, 1, 0, US(10 + 4256 + 10 + 248), 14);
    h.dcf.on_rx_end(Time::from_ms(3), Some(&cts), true, &mut h.out);
    h.fire(MacTimer::Response);
    assert_eq!(format!("{:?}", h.dcf.tx_frame()), format!("{:?}", data(false)));
    // The receiver's CTS to that RTS, and its ACK to the DATA frame.
    let mut r = H {
        dcf: Dcf::new(1, &MacConfig::default(), false, RngStream::new(1, 1, Purpose::MacBackoff, 0)),
        out: Vec::new(),
    };
    r.dcf.on_rx_end(Time::from_ms(2), Some(&rts), true, &mut r.out);
    r.fire(MacTimer::Response);
    let want = ctl(FrameKind::Cts, 1, 0, rts.duration - US(10 + 248), 14);
    assert_eq!(format!("{:?}", r.dcf.tx_frame()), format!("{:?}", want));
    r.out.clear();
    r.dcf.on_tx_end(Time::from_ms(3), &mut r.out);
    r.out.clear();
    r.dcf.on_rx_end(Time::from_ms(5), Some(&data(false)), true, &mut r.out);
    r.fire(MacTimer::Response);
    assert_eq!(format!("{:?}", r.dcf.tx_frame()), format!("{:?}", ctl(FrameKind::Ack, 1, 0, Time::ZERO, 14)));
}

proptest::proptest! {
    /// `Dcf::set_reports(false, false)` (`dcf/reports.rs`) leaves out the
    /// `TxSuccess` and `Overheard` actions and changes nothing else: two
    /// MACs driven by the same random script (packets handed over, timers
    /// fired, transmissions ended, ACKs and DATA frames for this node and
    /// for another one decoded) give the same actions but those, the same
    /// frames on the air and the same `can_accept`. A third one handed its
    /// packets by reference (`MacProtocol::enqueue_ref`) gives exactly the
    /// first one's actions.
    #[test]
    fn reports_off_only_leave_out_successes_and_overheard(
        script in proptest::collection::vec(0u8..8, 1..60),
        rts in proptest::bool::ANY,
    ) {
        let mut on = H::new(rts);
        let mut off = H::new(rts);
        let mut by_ref = H::new(rts);
        off.dcf.set_reports(false, false);
        let data = |dst: u32| Frame {
            kind: FrameKind::Data,
            packet: Some(pkt(dst)),
            ..frame(FrameKind::Data, 1, dst, US(258))
        };
        let kept = |out: &[MacAction]| {
            let k: Vec<String> = out
                .iter()
                .filter(|a| !matches!(a, MacAction::TxSuccess(_) | MacAction::Overheard(..)))
                .map(|a| format!("{a:?}"))
                .collect();
            k
        };
        let mut now = Time::ZERO;
        // As the kernel calls it: a packet only when the MAC can take one,
        // a transmission's end only after it began, nothing decoded while
        // transmitting.
        let mut sending = false;
        for op in script {
            now += US(300);
            let op = match op {
                0 | 1 if !on.dcf.can_accept() => 7,
                2 if !sending => 7,
                3..=5 if sending => 2,
                op => op,
            };
            for (k, h) in [&mut on, &mut off, &mut by_ref].into_iter().enumerate() {
                let last = |kind| {
                    h.out.iter().rev().find_map(|a| match a {
                        MacAction::Timer { kind: k, gen, .. } if *k == kind => Some(*gen),
                        _ => None,
                    })
                };
                let (timeout, response, access) =
                    (last(MacTimer::Timeout), last(MacTimer::Response), last(MacTimer::Access));
                h.out.clear();
                match op {
                    0 | 1 if k == 2 => {
                        let p = pkt(if op == 0 { 1 } else { crate::net::BROADCAST });
                        super::MacProtocol::enqueue_ref(&mut h.dcf, now, &p, &mut h.out)
                    }
                    0 => h.dcf.enqueue(now, pkt(1), &mut h.out),
                    1 => h.dcf.enqueue(now, pkt(crate::net::BROADCAST), &mut h.out),
                    2 => h.dcf.on_tx_end(now, &mut h.out),
                    3 => h.dcf.on_rx_end(now, Some(&frame(FrameKind::Ack, 1, 0, Time::ZERO)), true, &mut h.out),
                    4 => h.dcf.on_rx_end(now, Some(&data(0)), true, &mut h.out),
                    5 => h.dcf.on_rx_end(now, Some(&data(2)), true, &mut h.out),
                    6 => {
                        if let Some(gen) = timeout.or(response) {
                            let kind = if timeout.is_some() { MacTimer::Timeout } else { MacTimer::Response };
                            h.dcf.on_timer(now, kind, gen, &mut h.out);
                        }
                    }
                    _ => {
                        if let Some(gen) = access {
                            h.dcf.on_timer(now, MacTimer::Access, gen, &mut h.out);
                        }
                    }
                }
            }
            if op == 2 {
                sending = false;
            }
            if on.out.iter().any(|a| matches!(a, MacAction::Transmit(_))) {
                sending = true;
            }
            proptest::prop_assert_eq!(kept(&on.out), kept(&off.out));
            proptest::prop_assert!(!off.out.iter().any(|a| matches!(a, MacAction::TxSuccess(_) | MacAction::Overheard(..))));
            proptest::prop_assert_eq!(format!("{:?}", on.dcf.tx_frame()), format!("{:?}", off.dcf.tx_frame()));
            proptest::prop_assert_eq!(on.dcf.can_accept(), off.dcf.can_accept());
            proptest::prop_assert_eq!(format!("{:?}", on.out), format!("{:?}", by_ref.out));
            proptest::prop_assert_eq!(format!("{:?}", on.dcf.tx_frame()), format!("{:?}", by_ref.dcf.tx_frame()));
            proptest::prop_assert_eq!(on.dcf.can_accept(), by_ref.dcf.can_accept());
        }
    }
}
