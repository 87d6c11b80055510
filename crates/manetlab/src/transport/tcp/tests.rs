//! Sender + receiver over a tiny in-test network: two FIFO links with a
//! fixed propagation delay and an optional per-segment serialisation time
//! on the data direction; chosen segments can be dropped.

use super::*;
use crate::net::TcpSeg;
use crate::sim::Time;
use std::collections::VecDeque;

const MSS: u64 = 1000;

struct Link {
    delay: Time,
    tx_time: Time,
    busy_until: Time,
    q: VecDeque<(Time, TcpSeg)>,
}

impl Link {
    fn new(delay: Time, tx_time: Time) -> Self {
        Link { delay, tx_time, busy_until: Time::ZERO, q: VecDeque::new() }
    }
    fn push(&mut self, now: Time, seg: TcpSeg) {
        let depart = now.max(self.busy_until) + self.tx_time;
        self.busy_until = depart;
        self.q.push_back((depart + self.delay, seg));
    }
    fn next(&self) -> Option<Time> {
        self.q.front().map(|e| e.0)
    }
}

type DropFn = Box<dyn FnMut(Time, &TcpSeg) -> bool>;

struct Net {
    now: Time,
    tx: TcpSender,
    rx: TcpReceiver,
    fwd: Link,
    rev: Link,
    drop_data: DropFn,
    drop_ack: DropFn,
    delivered: u64,
    max_flight: u64,
    sent: Vec<(Time, TcpSeg)>,
    timeouts_at: Vec<Time>,
    /// A dropped data segment is reported to the sender at once (ELFN).
    notify_drops: bool,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Ev {
    Fwd,
    Rev,
    TxTimer,
    RxTimer,
}

fn cfg() -> TcpConfig {
    TcpConfig { mss: MSS as u32, ..TcpConfig::default() }
}

/// Drops the first transmission of each listed segment number.
fn drop_first(segs: &[u64]) -> DropFn {
    let mut pending: Vec<u64> = segs.iter().map(|s| s * MSS).collect();
    Box::new(move |_, seg| {
        if let Some(i) = pending.iter().position(|&s| s == seg.seq && seg.len > 0) {
            pending.remove(i);
            true
        } else {
            false
        }
    })
}

impl Net {
    fn new(cfg: TcpConfig, source: DataSource, delay_ms: u64, tx_us: u64) -> Self {
        let rx = TcpReceiver::new(&cfg);
        let tx = TcpSender::new(cfg, 1000, 2000, source);
        Net {
            now: Time::ZERO,
            tx,
            rx,
            fwd: Link::new(Time::from_ms(delay_ms), Time::from_us(tx_us)),
            rev: Link::new(Time::from_ms(delay_ms), Time::ZERO),
            drop_data: Box::new(|_, _| false),
            drop_ack: Box::new(|_, _| false),
            delivered: 0,
            max_flight: 0,
            sent: Vec::new(),
            timeouts_at: Vec::new(),
            notify_drops: false,
        }
    }

    fn pump(&mut self) {
        while let Some(seg) = self.tx.poll_transmit(self.now) {
            assert_eq!(seg.ts, self.now);
            self.max_flight = self.max_flight.max(self.tx.snd_nxt() - self.tx.snd_una());
            self.sent.push((self.now, seg));
            if (self.drop_data)(self.now, &seg) {
                self.tx.note_dropped(self.now, seg.seq);
                if self.notify_drops && seg.len > 0 {
                    self.tx.on_link_failure_notice(self.now, seg.seq);
                }
            } else {
                self.fwd.push(self.now, seg);
            }
        }
    }

    fn next_event(&self) -> Option<(Time, Ev)> {
        [
            (self.fwd.next(), Ev::Fwd),
            (self.rev.next(), Ev::Rev),
            (self.tx.poll_at(), Ev::TxTimer),
            (self.rx.poll_at(), Ev::RxTimer),
        ]
        .into_iter()
        .filter_map(|(t, e)| t.map(|t| (t, e)))
        .min_by_key(|&(t, _)| t)
    }

    fn step(&mut self, ev: Ev) {
        match ev {
            Ev::Fwd => {
                let (_, seg) = self.fwd.q.pop_front().unwrap();
                let out = self.rx.on_segment(self.now, &seg);
                self.delivered += out.delivered;
                if let Some(ack) = out.ack {
                    self.send_ack(ack);
                }
            }
            Ev::Rev => {
                let (_, seg) = self.rev.q.pop_front().unwrap();
                self.tx.on_segment(self.now, &seg);
            }
            Ev::TxTimer => {
                let before = self.tx.stats().timeouts;
                self.tx.on_timer(self.now);
                if self.tx.stats().timeouts > before {
                    self.timeouts_at.push(self.now);
                }
            }
            Ev::RxTimer => {
                if let Some(ack) = self.rx.on_timer(self.now) {
                    self.send_ack(ack);
                }
            }
        }
        self.pump();
    }

    fn send_ack(&mut self, ack: TcpSeg) {
        if !(self.drop_ack)(self.now, &ack) {
            self.rev.push(self.now, ack);
        }
    }

    /// Process every event at or before `end`; the clock ends at `end`.
    fn run_until(&mut self, end: Time) {
        self.pump();
        while let Some((t, ev)) = self.next_event() {
            if t > end {
                break;
            }
            self.now = t;
            self.step(ev);
        }
        self.now = end;
    }

    /// Run until the sender has nothing left to do.
    fn run_to_completion(&mut self, limit: Time) {
        self.pump();
        while let Some((t, ev)) = self.next_event() {
            assert!(t <= limit, "not finished by {limit}");
            self.now = t;
            self.step(ev);
        }
    }
}

// ---------------------------------------------------------------- window growth

#[test]
fn test_slow_start_ack_doubles_cwnd_per_rtt() {
    let c = TcpConfig { max_window: 1000, initial_ssthresh: Some(1000), ..cfg() };
    let mut net = Net::new(c, DataSource::Bulk, 10, 0);
    let mut seen = Vec::new();
    for k in 0..7 {
        net.run_until(Time::from_ms(20 * k + 1));
        seen.push(net.tx.cwnd());
    }
    assert_eq!(seen, vec![1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]);
    // segments sent per round double as well
    let per_round: Vec<usize> =
        (0..6).map(|k| net.sent.iter().filter(|(t, _)| *t == Time::from_ms(20 * k)).count()).collect();
    assert_eq!(per_round, vec![1, 2, 4, 8, 16, 32]);
}

#[test]
fn test_congestion_avoidance_ack_adds_one_segment_per_rtt() {
    let c = TcpConfig { max_window: 1000, initial_ssthresh: Some(4), ..cfg() };
    let mut net = Net::new(c, DataSource::Bulk, 10, 0);
    let mut seen = Vec::new();
    for k in 0..16 {
        net.run_until(Time::from_ms(20 * k + 1));
        seen.push(net.tx.cwnd());
    }
    // slow start 1, 2, 4, then linear growth
    assert_eq!(&seen[..3], &[1.0, 2.0, 4.0]);
    for w in seen[2..].windows(2) {
        let inc = w[1] - w[0];
        assert!(inc > 0.75 && inc <= 1.0 + 1e-12, "increase per RTT {inc} in {seen:?}");
    }
    // 13 RTTs of congestion avoidance from 4: about +12 segments
    let last = *seen.last().unwrap();
    assert!(last > 15.0 && last < 17.0, "{seen:?}");
}

#[test]
fn test_established_send_capped_by_max_window() {
    let c = TcpConfig { max_window: 8, ..cfg() };
    let mut net = Net::new(c, DataSource::Bulk, 10, 500);
    net.run_until(Time::from_secs(5));
    assert_eq!(net.max_flight, 8 * MSS);
    // like ns-2 (maxcwnd_ = 0) cwnd itself keeps growing in congestion
    // avoidance; only the flight is limited
    assert!(net.tx.cwnd() > 8.0);
    assert_eq!(net.tx.ssthresh(), 8.0, "initial ssthresh = window_ as in ns-2");
    assert_eq!(net.tx.stats().retransmissions, 0);
}

#[test]
fn test_established_send_capped_by_advertised_window() {
    // The receiver advertises 3.5 segments (`rcv_window`, carried in every
    // ACK's `wnd`): the flight stays within min(cwnd, max_window, awnd).
    let c = TcpConfig { max_window: 8, rcv_window: 3500, ..cfg() };
    let mut net = Net::new(c, DataSource::Bulk, 10, 500);
    net.run_until(Time::from_secs(5));
    assert_eq!(net.max_flight, 3 * MSS, "whole segments within 3500 bytes");
    assert!(net.delivered > 100 * MSS);
    assert_eq!(net.tx.stats().retransmissions, 0);
}

// ---------------------------------------------------------------- lossless transfer

#[test]
fn test_established_finite_transfer_completes() {
    let n = 300 * MSS + 123;
    let mut net = Net::new(cfg(), DataSource::Finite(n), 5, 800);
    net.run_to_completion(Time::from_secs(60));
    assert!(net.tx.is_complete());
    assert_eq!(net.delivered, n);
    assert_eq!(net.rx.delivered_bytes(), n);
    assert_eq!(net.tx.stats().bytes_acked, n);
    assert_eq!(net.tx.stats().segments_sent, 301);
    assert_eq!(net.tx.stats().retransmissions, 0);
    assert_eq!(net.tx.stats().timeouts, 0);
    assert_eq!(net.tx.poll_at(), None, "timer stopped when all is acked");
    let last = net.sent.last().unwrap().1;
    assert_eq!((last.seq, last.len), (300 * MSS, 123));
    // srtt tracked: 10 ms propagation + 0.8 ms serialisation at least
    let srtt = net.tx.srtt().unwrap();
    assert!(srtt >= Time::from_us(10_800) && srtt < Time::from_ms(20), "{srtt}");
}

#[test]
fn test_established_write_extends_finite_source() {
    let mut net = Net::new(cfg(), DataSource::Finite(5 * MSS), 5, 0);
    net.run_to_completion(Time::from_secs(10));
    assert!(net.tx.is_complete());
    net.tx.write(3 * MSS);
    assert!(!net.tx.is_complete());
    net.pump();
    net.run_to_completion(Time::from_secs(20));
    assert_eq!(net.delivered, 8 * MSS);
    assert!(net.tx.is_complete());
}

#[test]
fn test_established_ack_loss_covered_by_cumulative_acks() {
    let mut net = Net::new(cfg(), DataSource::Finite(100 * MSS), 10, 500);
    let mut k = 0u32;
    net.drop_ack = Box::new(move |_, _| {
        k += 1;
        if k == 3 {
            k = 0;
        }
        k == 0 // every third ACK
    });
    net.run_to_completion(Time::from_secs(60));
    assert_eq!(net.delivered, 100 * MSS);
    assert_eq!(net.tx.stats().retransmissions, 0);
    assert_eq!(net.tx.stats().bytes_acked, 100 * MSS);
}

// ---------------------------------------------------------------- loss recovery

#[test]
fn test_established_triple_dupack_fast_retransmit() {
    let c = TcpConfig { max_window: 8, ..cfg() };
    let mut net = Net::new(c, DataSource::Finite(100 * MSS), 10, 500);
    net.drop_data = drop_first(&[40]);
    net.run_to_completion(Time::from_secs(60));
    let st = net.tx.stats().clone();
    assert_eq!(st.fast_retransmits, 1);
    assert_eq!(st.timeouts, 0);
    assert_eq!(st.retransmissions, 1);
    assert_eq!(net.delivered, 100 * MSS);
    // 8 segments in flight at the loss: ssthresh = 8 / 2
    assert_eq!(net.tx.ssthresh(), 4.0);
    let ss = net.tx.trace().ssthresh.points();
    assert_eq!(ss.iter().map(|p| p.1).collect::<Vec<_>>(), vec![8.0, 4.0]);
    // cwnd on entering recovery: ssthresh + 3, then inflated by the other
    // 4 duplicate ACKs, then deflated to ssthresh on the new ACK
    let t_fr = ss[1].0;
    let cw = net.tx.trace().cwnd.points();
    let i = cw.iter().position(|p| p.0 == t_fr).unwrap();
    assert_eq!(cw[i].1, 7.0);
    let after: Vec<f64> = cw[i..].iter().map(|p| p.1).take(6).collect();
    assert_eq!(after, vec![7.0, 8.0, 9.0, 10.0, 11.0, 4.0]);
    // the time-sequence log shows drop, retransmission, and the ACK jump
    let log = &net.tx.trace().seq;
    let seq = 40 * MSS;
    let evs: Vec<SeqEvent> = log.iter().filter(|r| r.seq == seq).map(|r| r.event).collect();
    assert_eq!(evs, vec![SeqEvent::Sent, SeqEvent::Dropped, SeqEvent::Acked, SeqEvent::Retransmitted]);
    let jump = log.iter().filter(|r| r.event == SeqEvent::Acked).map(|r| r.seq).find(|&s| s > seq).unwrap();
    assert_eq!(jump, 48 * MSS, "cumulative ACK jumps over the buffered segments");
}

fn multi_loss(variant: TcpVariant) -> Net {
    let c = TcpConfig { max_window: 8, variant, ..cfg() };
    let mut net = Net::new(c, DataSource::Finite(200 * MSS), 10, 500);
    net.drop_data = drop_first(&[60, 62, 64]);
    net.run_to_completion(Time::from_secs(120));
    assert_eq!(net.delivered, 200 * MSS);
    assert!(net.tx.is_complete());
    net
}

#[test]
fn test_recovery_three_losses_newreno_no_timeout() {
    let net = multi_loss(TcpVariant::NewReno);
    let st = net.tx.stats();
    assert_eq!(st.timeouts, 0);
    assert_eq!(st.fast_retransmits, 1);
    assert_eq!(st.partial_acks, 2);
    assert_eq!(st.retransmissions, 3, "exactly the three lost segments");
    assert_eq!(net.tx.ssthresh(), 4.0);
}

#[test]
fn test_recovery_three_losses_reno_times_out() {
    let net = multi_loss(TcpVariant::Reno);
    let st = net.tx.stats();
    assert_eq!(st.timeouts, 1);
    // the first partial ACK ends Reno's recovery with cwnd = 4 and 6
    // segments outstanding: no more dupacks, only the RTO recovers; after it
    // go-back-N's duplicates must not trigger a second fast retransmit
    // (`recover`, ns-2 bugFix_)
    assert_eq!(st.fast_retransmits, 1);
    assert_eq!(st.partial_acks, 0);
    // at the timeout 6 segments (62..68) are outstanding: ssthresh = 6 / 2
    assert_eq!(net.tx.ssthresh(), 3.0);
    let newreno = multi_loss(TcpVariant::NewReno);
    assert!(
        net.sent.last().unwrap().0 > newreno.sent.last().unwrap().0 + Time::from_ms(150),
        "the timeout costs Reno time"
    );
}

#[test]
fn test_recovery_limited_transmit_avoids_timeout_in_small_window() {
    // segment 1 is lost while cwnd = 2: only segment 2 can produce a
    // duplicate ACK unless limited transmit sends segments 3 and 4
    for (lt, timeouts, frs) in [(false, 1, 0), (true, 0, 1)] {
        let c = TcpConfig { limited_transmit: lt, ..cfg() };
        let mut net = Net::new(c, DataSource::Finite(40 * MSS), 10, 500);
        net.drop_data = drop_first(&[1]);
        net.run_to_completion(Time::from_secs(60));
        assert_eq!(net.delivered, 40 * MSS);
        let st = net.tx.stats();
        assert_eq!((st.timeouts, st.fast_retransmits), (timeouts, frs), "limited_transmit={lt}");
    }
}

// ---------------------------------------------------------------- RTO

#[test]
fn test_rto_backoff_doubles_to_max_and_sample_resets() {
    let mut net = Net::new(cfg(), DataSource::Bulk, 10, 0);
    net.drop_data = Box::new(|t, _| t < Time::from_secs(200));
    net.run_until(Time::from_secs(213) + Time::from_ms(1));
    let gaps: Vec<u64> = std::iter::once(Time::ZERO)
        .chain(net.timeouts_at.iter().copied())
        .collect::<Vec<_>>()
        .windows(2)
        .map(|w| (w[1] - w[0]).as_ns() / 1_000_000_000)
        .collect();
    assert_eq!(gaps, vec![3, 6, 12, 24, 48, 60, 60]);
    assert!(net.timeouts_at.iter().all(|t| t.as_ns() % 1_000_000_000 == 0));
    assert_eq!(net.tx.cwnd(), 1.0);
    assert_eq!(net.tx.ssthresh(), 2.0);
    // t = 213 s: the retransmission of segment 0 gets through; its ACK at
    // 213.02 s is for a retransmitted segment: Karn, no sample, backoff kept
    net.run_until(Time::from_secs(213) + Time::from_ms(21));
    assert_eq!(net.tx.snd_una(), MSS);
    assert_eq!(net.tx.srtt(), None);
    assert_eq!(net.tx.rto(), Time::from_secs(60));
    // the next ACK covers new data timed at 213.02 s: sample of 20 ms,
    // backoff ends, RTO = max(min_rto, 20 + 4 * 10 ms) = min_rto
    net.run_until(Time::from_secs(213) + Time::from_ms(41));
    assert_eq!(net.tx.srtt(), Some(Time::from_ms(20)));
    assert_eq!(net.tx.rto(), Time::from_ms(200));
    assert_eq!(net.tx.stats().rtt_samples, 1);
    let rto = net.tx.trace().rto.points();
    assert_eq!(rto.first().unwrap().1, 3.0);
    assert_eq!(rto.last().unwrap().1, 0.2);
}

#[test]
fn test_rto_reset_on_ack_ends_backoff_without_a_sample() {
    // As test_rto_backoff_doubles_to_max_and_sample_resets, with ns-3.37's
    // NewAck: the ACK of the retransmitted segment (no sample, Karn) ends
    // the backoff: the RTO is the estimate's again (initial 3 s, no sample).
    let c = TcpConfig { rto_reset_on_ack: true, ..cfg() };
    let mut net = Net::new(c, DataSource::Bulk, 10, 0);
    net.drop_data = Box::new(|t, _| t < Time::from_secs(200));
    net.run_until(Time::from_secs(213) + Time::from_ms(1));
    assert_eq!(net.tx.rto(), Time::from_secs(60));
    net.run_until(Time::from_secs(213) + Time::from_ms(21));
    assert_eq!((net.tx.snd_una(), net.tx.srtt()), (MSS, None));
    assert_eq!(net.tx.rto(), Time::from_secs(3));
}

#[test]
fn test_timestamps_give_a_sample_per_ack_of_new_data() {
    for ts in [false, true] {
        let c = TcpConfig { timestamps: ts, max_window: 8, ..cfg() };
        let mut net = Net::new(c, DataSource::Bulk, 10, 500);
        net.run_until(Time::from_secs(2));
        let st = net.tx.stats();
        assert!(st.acks_received > 500, "{}", st.acks_received);
        if ts {
            assert_eq!(st.rtt_samples, st.acks_received);
        } else {
            // one timed segment per round trip of 8 segments
            assert!(st.rtt_samples * 6 < st.acks_received, "{} of {}", st.rtt_samples, st.acks_received);
        }
        // 8 segments of 0.5 ms queued behind 20 ms propagation
        let srtt = net.tx.srtt().unwrap();
        assert!(srtt >= Time::from_ms(20) && srtt <= Time::from_ms(25), "{srtt}");
    }
}

#[test]
fn test_rto_timeout_goes_back_n_and_recovers() {
    // a whole window lost: nothing comes back, the RTO resends from snd_una
    let c = TcpConfig { max_window: 8, ..cfg() };
    let mut net = Net::new(c, DataSource::Finite(50 * MSS), 10, 500);
    net.drop_data = drop_first(&[20, 21, 22, 23, 24, 25, 26, 27]);
    net.run_to_completion(Time::from_secs(60));
    let st = net.tx.stats();
    assert_eq!(st.timeouts, 1);
    assert_eq!(st.fast_retransmits, 0);
    assert_eq!(net.delivered, 50 * MSS);
    let t_to = net.timeouts_at[0];
    let resent: Vec<u64> = net.sent.iter().filter(|(t, _)| *t == t_to).map(|(_, s)| s.seq / MSS).collect();
    assert_eq!(resent, vec![20], "cwnd = 1 after the timeout");
    // min_rto respected: RTT is ~14 ms but the timer waited >= 200 ms
    let last_send_before = net.sent.iter().rfind(|(t, _)| *t < t_to).unwrap().0;
    assert!(t_to - last_send_before >= Time::from_ms(200));
}

#[test]
fn test_rto_karn_retransmitted_segment_gives_no_sample() {
    let mut net = Net::new(cfg(), DataSource::Bulk, 10, 0);
    net.drop_data = drop_first(&[0]);
    net.run_until(Time::from_ms(3021));
    assert_eq!(net.timeouts_at, vec![Time::from_secs(3)]);
    assert_eq!(net.tx.snd_una(), MSS);
    assert_eq!(net.tx.srtt(), None);
    assert_eq!(net.tx.rto(), Time::from_secs(6));
    net.run_until(Time::from_ms(3041));
    assert_eq!(net.tx.srtt(), Some(Time::from_ms(20)));
}

// ---------------------------------------------------------------- delayed ACK

#[test]
fn test_delack_every_second_segment_or_timeout() {
    let c = TcpConfig { delayed_ack: true, ..cfg() };
    let n = 101 * MSS;
    let mut net = Net::new(c, DataSource::Finite(n), 10, 0);
    // the lone first segment waits for the 200 ms delayed-ACK timer
    // (arrives at 10 ms, ACKed at 210 ms, ACK arrives at 220 ms)
    net.run_until(Time::from_ms(219));
    assert_eq!(net.tx.snd_una(), 0);
    net.run_until(Time::from_ms(220));
    assert_eq!(net.tx.snd_una(), MSS);
    assert_eq!(net.tx.srtt(), Some(Time::from_ms(220)));
    net.run_to_completion(Time::from_secs(60));
    assert_eq!(net.delivered, n);
    let acks = net.rx.stats().acks_sent;
    // about one ACK per two segments
    assert!((51..=56).contains(&acks), "acks {acks}");
    assert_eq!(net.tx.stats().timeouts, 0);
}

// ---------------------------------------------------------------- handshake

#[test]
fn test_handshake_syn_synack_ack_then_data() {
    let c = TcpConfig { handshake: true, ..cfg() };
    let mut net = Net::new(c, DataSource::Finite(20 * MSS), 10, 0);
    net.pump();
    assert_eq!(net.tx.state(), SenderState::SynSent);
    assert_eq!(net.sent.len(), 1);
    assert_eq!(net.sent[0].1.flags, TcpSeg::SYN);
    net.run_until(Time::from_ms(20));
    assert_eq!(net.tx.state(), SenderState::Established);
    assert_eq!(net.tx.srtt(), Some(Time::from_ms(20)), "RTT sampled on the SYN");
    let at20: Vec<(u8, u32)> =
        net.sent.iter().filter(|(t, _)| *t == Time::from_ms(20)).map(|(_, s)| (s.flags, s.len)).collect();
    assert_eq!(at20, vec![(TcpSeg::ACK, 0), (TcpSeg::ACK, MSS as u32)]);
    net.run_to_completion(Time::from_secs(10));
    assert_eq!(net.delivered, 20 * MSS);
    assert_eq!(net.tx.stats().control_sent, 2);
}

#[test]
fn test_handshake_syn_lost_retransmitted_by_rto() {
    let c = TcpConfig { handshake: true, ..cfg() };
    let mut net = Net::new(c, DataSource::Finite(5 * MSS), 10, 0);
    net.drop_data = Box::new(|t, s| t == Time::ZERO && s.flags & TcpSeg::SYN != 0);
    net.run_until(Time::from_ms(3000));
    assert_eq!(net.timeouts_at, vec![Time::from_secs(3)]);
    let syns = net.sent.iter().filter(|(_, s)| s.flags & TcpSeg::SYN != 0).count();
    assert_eq!(syns, 2);
    net.run_until(Time::from_ms(3020));
    assert_eq!(net.tx.state(), SenderState::Established);
    assert_eq!(net.tx.srtt(), None, "Karn: no sample from a retransmitted SYN");
    assert_eq!(net.tx.rto(), Time::from_secs(3), "RFC 6298 5.7: back to 3 s");
    net.run_to_completion(Time::from_secs(10));
    assert_eq!(net.delivered, 5 * MSS);
}

#[test]
fn test_handshake_lost_ack_data_still_accepted() {
    let c = TcpConfig { handshake: true, ..cfg() };
    let mut net = Net::new(c, DataSource::Finite(5 * MSS), 10, 0);
    net.drop_data = Box::new(|_, s| s.len == 0 && s.flags == TcpSeg::ACK);
    net.run_to_completion(Time::from_secs(10));
    assert_eq!(net.delivered, 5 * MSS);
}

#[test]
fn test_trace_disabled_records_nothing() {
    let c = TcpConfig { record_series: false, record_seq_log: false, ..cfg() };
    let mut net = Net::new(c, DataSource::Finite(20 * MSS), 10, 0);
    net.run_to_completion(Time::from_secs(10));
    let tr = net.tx.take_trace();
    assert!(tr.cwnd.points().is_empty() && tr.seq.is_empty() && tr.rto.points().is_empty());
}

#[test]
fn test_trace_take_leaves_recording_trace() {
    let mut net = Net::new(cfg(), DataSource::Bulk, 10, 0);
    net.run_until(Time::from_ms(50));
    let tr = net.tx.take_trace();
    assert_eq!(tr.cwnd.points()[0], (Time::ZERO, 1.0));
    assert!(tr.seq.iter().any(|r| r.event == SeqEvent::Acked));
    assert!(net.tx.trace().seq.is_empty());
    net.run_until(Time::from_ms(100));
    assert!(!net.tx.trace().seq.is_empty());
}

// ---------------------------------------------------------------- ELFN

fn elfn_cfg(restore: ElfnRestore, probe: ElfnProbe) -> TcpConfig {
    TcpConfig { max_window: 8, elfn: Some(ElfnConfig { probe_interval: Time::from_secs(2), restore, probe }), ..cfg() }
}

/// A sender with `n` segments sent at time 0 (initial window `n`), the
/// first `acked` of them acknowledged at `t_ack` (one RTT sample), driven by
/// hand.
fn sender_with_window(c: TcpConfig, n: u64, acked: u64, t_ack: Time) -> TcpSender {
    let c = TcpConfig { initial_cwnd: n as u32, ..c };
    let mut tx = TcpSender::new(c, 1000, 2000, DataSource::Bulk);
    let sent = std::iter::from_fn(|| tx.poll_transmit(Time::ZERO)).count() as u64;
    assert_eq!(sent, n);
    if acked > 0 {
        tx.on_segment(t_ack, &ack_of(acked));
    }
    tx
}

fn ack_of(n: u64) -> TcpSeg {
    TcpSeg { ack: n * MSS, flags: TcpSeg::ACK, wnd: 1 << 30, ..TcpSeg::default() }
}

#[test]
fn test_elfn_segments_ask_for_notices_only_when_configured() {
    let mut plain = TcpSender::new(cfg(), 1, 2, DataSource::Bulk);
    assert!(!plain.poll_transmit(Time::ZERO).unwrap().elfn);
    let mut e = TcpSender::new(elfn_cfg(ElfnRestore::Keep, ElfnProbe::First), 1, 2, DataSource::Bulk);
    assert!(e.poll_transmit(Time::ZERO).unwrap().elfn);
    // a notice to a sender without ELFN changes nothing
    plain.on_link_failure_notice(Time::from_ms(5), 0);
    assert_eq!(plain.state(), SenderState::Established);
    assert_eq!(plain.poll_at(), Some(Time::from_secs(3)));
    assert_eq!(plain.stats().elfn_notices, 0);
}

#[test]
fn test_elfn_standby_freezes_timer_and_probes_every_interval() {
    let c = elfn_cfg(ElfnRestore::Keep, ElfnProbe::First);
    let mut tx = sender_with_window(c, 6, 2, Time::from_ms(100));
    let (una, max, cwnd, rto) = (tx.snd_una(), tx.snd_max(), tx.cwnd(), tx.rto());
    assert_eq!((una, max), (2 * MSS, 6 * MSS));
    let t0 = Time::from_ms(150);
    tx.on_link_failure_notice(t0, 3 * MSS);
    assert_eq!(tx.state(), SenderState::Standby);
    assert_eq!(tx.poll_at(), Some(t0 + Time::from_secs(2)), "the RTO is off; the next event is the probe");
    assert_eq!(tx.poll_transmit(t0), None, "nothing is sent in standby before the probe");
    // probes every 2 s, never a timeout, never backoff
    let mut probes = Vec::new();
    for k in 1..=5u64 {
        let t = tx.poll_at().unwrap();
        assert_eq!(t, t0 + Time::from_secs(2 * k));
        tx.on_timer(t);
        let p = tx.poll_transmit(t).expect("a probe is due");
        assert_eq!(tx.poll_transmit(t), None, "one probe per interval");
        probes.push((t, p.seq, p.len));
    }
    assert!(probes.iter().all(|&(_, s, l)| s == una && l == MSS as u32), "probe = first segment of the window");
    let st = tx.stats();
    assert_eq!((st.timeouts, st.elfn_probes, st.elfn_standbys, st.elfn_notices), (0, 5, 1, 1));
    assert_eq!(tx.rto(), rto, "no backoff in standby");
    assert_eq!((tx.snd_una(), tx.snd_max(), tx.cwnd()), (una, max, cwnd), "state frozen");
    // a second notice while in standby does not restart the probe clock
    let next = tx.poll_at();
    tx.on_link_failure_notice(Time::from_secs(11), 4 * MSS);
    assert_eq!(tx.poll_at(), next);
    assert_eq!(tx.stats().elfn_standbys, 1);
    // the last probe's ACK (only the probed segment arrived): the route is back
    let t_ack = Time::from_ms(10_300);
    tx.on_segment(t_ack, &ack_of(3));
    assert_eq!(tx.state(), SenderState::Established);
    assert_eq!(tx.stats().elfn_standby_ns, (t_ack - t0).as_ns());
    assert_eq!(tx.poll_at(), Some(t_ack + tx.rto()), "retransmission timer re-armed");
    // the route was down for whole probe intervals: go-back-N from the ACK
    let resent: Vec<u64> = std::iter::from_fn(|| tx.poll_transmit(t_ack)).map(|s| s.seq / MSS).collect();
    assert_eq!(resent[0], 3, "{resent:?}");
    assert!(resent.windows(2).all(|w| w[1] == w[0] + 1), "{resent:?}");
    let log = &tx.trace().seq;
    assert_eq!(log.iter().filter(|r| r.event == SeqEvent::Probe).count(), 5);
    assert_eq!(log.iter().filter(|r| r.event == SeqEvent::Notice).count(), 2);
}

#[test]
fn test_elfn_ack_before_first_probe_resumes_without_go_back_n() {
    let c = elfn_cfg(ElfnRestore::Keep, ElfnProbe::First);
    let mut tx = sender_with_window(c, 6, 2, Time::from_ms(100));
    let max = tx.snd_max();
    tx.on_link_failure_notice(Time::from_ms(150), 2 * MSS);
    // an ACK that was already on its way (e.g. the packet was salvaged)
    tx.on_segment(Time::from_ms(160), &ack_of(4));
    assert_eq!(tx.state(), SenderState::Established);
    assert_eq!(tx.stats().elfn_probes, 0);
    assert_eq!(tx.snd_nxt(), max, "no probe was needed: nothing is resent");
    let seg = tx.poll_transmit(Time::from_ms(160)).unwrap();
    assert_eq!(seg.seq, max, "new data continues from snd_max");
}

#[test]
fn test_elfn_restore_variants() {
    let t0 = Time::from_ms(500);
    let restore_after = |r: ElfnRestore| {
        let mut tx = sender_with_window(elfn_cfg(r, ElfnProbe::First), 6, 2, Time::from_ms(100));
        let before = (tx.cwnd(), tx.rto(), tx.srtt());
        tx.on_link_failure_notice(t0, 2 * MSS);
        let t = tx.poll_at().unwrap();
        tx.on_timer(t);
        tx.poll_transmit(t).unwrap();
        // a duplicate ACK ends standby without moving snd_una (no growth)
        tx.on_segment(t + Time::from_ms(40), &ack_of(2));
        (before, (tx.cwnd(), tx.rto(), tx.srtt()))
    };
    let (b, a) = restore_after(ElfnRestore::Keep);
    assert!(b.0 > 1.0);
    assert_eq!(a, b, "keep: cwnd, RTO and SRTT as at the notice");
    let (b, a) = restore_after(ElfnRestore::Cwnd1);
    assert_eq!(a, (1.0, b.1, b.2), "cwnd1: only the window drops");
    let (b, a) = restore_after(ElfnRestore::Cwnd1Rto);
    assert!(b.2.is_some() && b.1 < Time::from_secs(3));
    assert_eq!(a, (1.0, Time::from_secs(3), None), "cwnd1-rto: window 1, RTO back to initial_rto");
}

#[test]
fn test_elfn_probe_choice_first_or_lowest_lost() {
    for (choice, want) in [(ElfnProbe::First, 2), (ElfnProbe::LowestLost, 4)] {
        let mut tx = sender_with_window(elfn_cfg(ElfnRestore::Keep, choice), 7, 2, Time::from_ms(100));
        tx.on_link_failure_notice(Time::from_ms(200), 5 * MSS);
        tx.on_link_failure_notice(Time::from_ms(210), 4 * MSS);
        tx.on_link_failure_notice(Time::from_ms(220), 6 * MSS);
        let t = tx.poll_at().unwrap();
        assert_eq!(t, Time::from_ms(2200));
        tx.on_timer(t);
        assert_eq!(tx.poll_transmit(t).unwrap().seq, want * MSS, "{choice:?}");
    }
    let mut tx = sender_with_window(elfn_cfg(ElfnRestore::Keep, ElfnProbe::LowestLost), 7, 2, Time::from_ms(100));
    tx.on_link_failure_notice(Time::from_ms(200), 0); // already acknowledged: not a lost candidate
    let t = tx.poll_at().unwrap();
    tx.on_timer(t);
    assert_eq!(tx.poll_transmit(t).unwrap().seq, 2 * MSS);
}

#[test]
fn test_elfn_stale_notices_ignored() {
    // nothing outstanding
    let mut tx = sender_with_window(elfn_cfg(ElfnRestore::Keep, ElfnProbe::First), 4, 4, Time::from_ms(100));
    assert_eq!(tx.bytes_in_flight(), 0);
    tx.on_link_failure_notice(Time::from_ms(200), 3 * MSS);
    assert_eq!(tx.state(), SenderState::Established);
    assert_eq!(tx.stats().elfn_notices, 1);
    assert_eq!(tx.stats().elfn_standbys, 0);
    // during the handshake
    let c = TcpConfig { handshake: true, ..elfn_cfg(ElfnRestore::Keep, ElfnProbe::First) };
    let mut tx = TcpSender::new(c, 1, 2, DataSource::Bulk);
    tx.poll_transmit(Time::ZERO).unwrap();
    tx.on_link_failure_notice(Time::from_ms(1), 0);
    assert_eq!(tx.state(), SenderState::SynSent);
}

#[test]
fn test_elfn_outage_no_timeouts_and_transfer_completes() {
    // Over the in-test network: every data segment sent in [1 s, 9 s) is
    // lost and reported at once (the first hop's route error); without ELFN
    // the RTO backs off through the outage, with ELFN the sender probes.
    let run = |elfn: bool| {
        let c = TcpConfig { elfn: elfn.then(ElfnConfig::default), max_window: 8, ..cfg() };
        let mut net = Net::new(c, DataSource::Finite(2000 * MSS), 10, 500);
        net.drop_data = Box::new(|t, s| s.len > 0 && t >= Time::from_secs(1) && t < Time::from_secs(9));
        net.notify_drops = elfn;
        net.run_to_completion(Time::from_secs(200));
        assert_eq!(net.delivered, 2000 * MSS);
        net
    };
    let plain = run(false);
    let elfn = run(true);
    assert!(plain.tx.stats().timeouts >= 4, "{:?}", plain.tx.stats());
    assert_eq!(elfn.tx.stats().timeouts, 0, "{:?}", elfn.tx.stats());
    // probes at 1 s + 2k; the one at 9 s + (first notice phase) gets through
    let probes: Vec<Time> = elfn.tx.trace().seq.iter().filter(|r| r.event == SeqEvent::Probe).map(|r| r.time).collect();
    assert_eq!(probes.len(), 4, "{probes:?}");
    assert!(probes.windows(2).all(|w| w[1] - w[0] == Time::from_secs(2)));
    assert!(*probes.last().unwrap() >= Time::from_secs(9));
    // resumed within one probe interval of the end of the outage, and
    // before plain Reno (whose backed-off RTO overshoots the outage)
    let resume = |n: &Net| {
        n.tx.trace().seq.iter().find(|r| r.event == SeqEvent::Acked && r.time > Time::from_secs(9)).unwrap().time
    };
    assert!(resume(&elfn) <= Time::from_secs(11) + Time::from_ms(100), "{}", resume(&elfn));
    assert!(resume(&elfn) < resume(&plain), "{} vs {}", resume(&elfn), resume(&plain));
    let done = |n: &Net| n.sent.last().unwrap().0;
    assert!(done(&elfn) < done(&plain));
}

mod ns3;
