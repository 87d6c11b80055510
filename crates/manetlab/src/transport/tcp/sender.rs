//! The data-sending end of a one-way TCP connection (ns-2 `Agent/TCP/*`).
//!
//! Event-free: every method takes the current time; the only timer is a
//! deadline returned by [`TcpSender::poll_at`].
//!
//! RTT measurement is sequence-based, as ns-2 without `ts_option_`: one
//! segment at a time is timed, only a segment carrying new data (never a
//! retransmission), and the measurement is abandoned on any retransmission
//! or timeout (Karn's algorithm, RFC 6298 §3). The timestamp fields of
//! `TcpSeg` are filled (`ts` = send time, `ts_echo` = last peer `ts`) but
//! not used for RTT.

mod ns3;

use super::config::{ElfnProbe, ElfnRestore, TcpConfig, TcpRecovery};
use super::congestion::{AckArrival, AckSample, CcState, CongestionControl, RecoveryStyle};
use super::rtt::RttEstimator;
use super::trace::{SenderStats, SeqEvent, TcpTrace};
use crate::net::TcpSeg;
use crate::sim::Time;

/// What the application offers to the sender.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DataSource {
    /// Always has data (ns-2 FTP).
    Bulk,
    /// This many bytes, then nothing more (unless [`TcpSender::write`] adds
    /// some).
    Finite(u64),
    /// An application writing `bytes` every `interval` from the flow's
    /// start (a CBR source over TCP); the sender sends what is written.
    Paced { bytes: u32, interval: crate::sim::Time },
}

/// Connection phase of the sender.
///
/// Pacing would add a release deadline checked in `next_segment` and
/// folded into `poll_at`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SenderState {
    /// SYN sent (or due), waiting for the SYN-ACK.
    SynSent,
    /// Data transfer.
    Established,
    /// ELFN standby (tcp-manet-elfn.txt §6): a link-failure notice arrived.
    /// The retransmission timer is off, `poll_at` is the next probe, the
    /// only segments sent are probes; congestion state, `snd_*` and the RTT
    /// estimator are frozen. Any acceptable ACK ends it
    /// ([`TcpSender::on_link_failure_notice`]).
    Standby,
}

/// The sending end of a one-way TCP connection.
///
/// Byte sequence numbers start at 0 for the first payload byte; the SYN
/// occupies no sequence space here (SYN `seq` = 0, SYN-ACK `ack` = 0), so
/// data numbering is the same with or without the handshake.
#[derive(Debug)]
pub struct TcpSender {
    cfg: TcpConfig,
    sport: u16,
    dport: u16,
    state: SenderState,
    /// One past the last byte the application offers (`u64::MAX`: bulk).
    data_end: u64,
    /// Oldest unacknowledged byte.
    snd_una: u64,
    /// Next byte to send (moves back to `snd_una` on a timeout).
    snd_nxt: u64,
    /// One past the highest byte ever sent.
    snd_max: u64,
    /// Window advertised by the receiver in its last ACK, bytes.
    awnd: u64,
    dupacks: u32,
    in_recovery: bool,
    /// RFC 6582 `recover` (exclusive: `snd_max` when set). A third dupack
    /// starts fast retransmit only when the cumulative ACK has reached it
    /// (ns-2 `bugFix_`); NewReno's recovery lasts until it is acknowledged.
    recover: u64,
    /// A partial ACK was already seen in this recovery (RFC 6582 "Impatient"
    /// timer: only the first one restarts the RTO, as ns-2's default).
    partial_seen: bool,
    /// Retransmit the segment at `snd_una` at the next `poll_transmit`.
    rtx_pending: bool,
    /// SYN is due (handshake).
    syn_pending: bool,
    syn_sent_at: Time,
    syn_retransmitted: bool,
    /// A pure ACK is due (third step of the handshake).
    ack_pending: bool,
    /// Last `ts` received from the peer, echoed in our segments.
    ts_recent: Time,
    /// Segment being timed: (byte that must be acked, time sent).
    timing: Option<(u64, Time)>,
    /// Retransmission-timer deadline.
    rto_deadline: Option<Time>,
    /// ELFN standby: next probe, a probe due now, when standby began, and
    /// the lowest unacknowledged sequence number reported lost.
    probe_deadline: Option<Time>,
    probe_pending: bool,
    /// A probe was sent in this standby period.
    probed: bool,
    standby_since: Time,
    lowest_lost: Option<u64>,
    cc: Box<dyn CongestionControl>,
    /// ns-3.37's recovery (`recovery = "ns3-prr"`), else `None`.
    ns3: Option<ns3::Ns3Recovery>,
    cc_state: CcState,
    rtt: RttEstimator,
    stats: SenderStats,
    trace: TcpTrace,
}

impl TcpSender {
    /// A sender from `sport` to the receiver's `dport`. With
    /// `cfg.handshake` it starts in [`SenderState::SynSent`] with a SYN due,
    /// otherwise established with data due.
    pub fn new(cfg: TcpConfig, sport: u16, dport: u16, source: DataSource) -> Self {
        assert!(cfg.mss > 0 && cfg.max_window > 0 && cfg.dupack_threshold > 0);
        let data_end = match source {
            DataSource::Bulk => u64::MAX,
            DataSource::Finite(n) => n,
            DataSource::Paced { .. } => 0,
        };
        let cc_state = CcState {
            cwnd: cfg.initial_cwnd.max(1) as f64,
            ssthresh: cfg.initial_ssthresh.unwrap_or(cfg.max_window) as f64,
            mss: cfg.mss,
            dupack_threshold: cfg.dupack_threshold,
        };
        let rtt = RttEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto, cfg.tick);
        let state = if cfg.handshake { SenderState::SynSent } else { SenderState::Established };
        TcpSender {
            cc: cfg.variant.build(),
            ns3: (cfg.recovery == TcpRecovery::Ns3Prr).then(ns3::Ns3Recovery::new),
            trace: TcpTrace::new(cfg.record_series, cfg.record_seq_log),
            sport,
            dport,
            state,
            data_end,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            awnd: u64::MAX,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            partial_seen: false,
            rtx_pending: false,
            syn_pending: cfg.handshake,
            syn_sent_at: Time::ZERO,
            syn_retransmitted: false,
            ack_pending: false,
            ts_recent: Time::ZERO,
            timing: None,
            rto_deadline: None,
            probe_deadline: None,
            probe_pending: false,
            probed: false,
            standby_since: Time::ZERO,
            lowest_lost: None,
            cc_state,
            rtt,
            stats: SenderStats::default(),
            cfg,
        }
    }

    /// Offer `bytes` more to a [`DataSource::Finite`] sender (no effect on
    /// a bulk one). Call `poll_transmit` afterwards.
    pub fn write(&mut self, bytes: u64) {
        if self.data_end != u64::MAX {
            self.data_end = self.data_end.saturating_add(bytes).min(u64::MAX - 1);
        }
    }

    /// A segment from the receiver arrived: an ACK, or the SYN-ACK.
    /// Call `poll_transmit` afterwards (an ACK may open the window or
    /// request a retransmission).
    pub fn on_segment(&mut self, now: Time, seg: &TcpSeg) {
        self.handle_segment(now, seg);
        self.record_series(now);
    }

    /// The next segment to send at `now`, if any: a due SYN or handshake
    /// ACK, a pending fast/partial-ACK retransmission (sent regardless of
    /// the window), else the segment at `snd_nxt` when
    /// `snd_nxt + len <= snd_una + min(floor(min(cwnd, max_window)) * mss, awnd)`
    /// (or nothing is outstanding) and the application has data. Call repeatedly until `None`.
    pub fn poll_transmit(&mut self, now: Time) -> Option<TcpSeg> {
        let seg = self.next_segment(now);
        if seg.is_some() {
            self.record_series(now);
        }
        seg
    }

    /// Deadline at which [`on_timer`](Self::on_timer) must be called
    /// (the retransmission timer, or the next probe in ELFN standby), if any.
    pub fn poll_at(&self) -> Option<Time> {
        match self.state {
            SenderState::Standby => self.probe_deadline,
            _ => self.rto_deadline,
        }
    }

    /// Handle expired timers. A no-op unless `now >= poll_at()`.
    /// On RTO expiry (RFC 6298 §5.4–5.6, RFC 5681 §3.1, ns-2 go-back-N):
    /// ssthresh = max(flight/2, 2), cwnd = 1, leave fast recovery,
    /// `recover` = highest byte sent, resend from `snd_una`, double the RTO.
    /// Call `poll_transmit` afterwards.
    pub fn on_timer(&mut self, now: Time) {
        if self.state == SenderState::Standby {
            return self.on_probe_timer(now);
        }
        match self.rto_deadline {
            Some(d) if now >= d => {}
            _ => return,
        }
        self.stats.timeouts += 1;
        self.rtt.backoff();
        self.timing = None;
        match self.state {
            SenderState::SynSent => {
                self.syn_pending = true;
                self.syn_retransmitted = true;
            }
            SenderState::Established | SenderState::Standby => {
                let flight = self.flight_segments();
                self.cc.on_timeout(&mut self.cc_state, flight, now);
                self.in_recovery = false;
                self.rtx_pending = false;
                self.dupacks = 0;
                self.recover = self.snd_max;
                self.snd_nxt = self.snd_una;
                if self.ns3.is_some() {
                    self.ns3_on_timeout();
                }
            }
        }
        // ns-2 re-arms at once with the backed-off value; the resend follows.
        self.rto_deadline = Some(now + self.rtt.rto());
        self.record_series(now);
    }

    /// An Explicit Link Failure Notice (tcp-manet-elfn.txt §6): a node on
    /// the path could not forward our segment starting at `seq` because its
    /// link to the next hop broke. Ignored unless `cfg.elfn` is set, during
    /// the handshake, and when nothing is outstanding (a stale notice).
    /// Otherwise the sender enters [`SenderState::Standby`]: the
    /// retransmission timer is disabled (no timeout, no backoff), fast
    /// recovery is abandoned (cwnd deflated as on its normal end), and a
    /// probe is sent every `probe_interval`, the first one `probe_interval`
    /// from now. A notice in standby only lowers the "lowest lost" sequence.
    ///
    /// The first acceptable ACK (cumulative ACK within
    /// `[snd_una, snd_max]`, duplicate or not) ends standby before it is
    /// processed as usual: the `restore` variant is applied (keep / cwnd = 1
    /// / cwnd = 1 and RTO = initial) and the retransmission timer re-armed.
    /// If a probe had to be sent, the route was down for a whole probe
    /// interval and the segments after the ACK point are sent again
    /// go-back-N (as after a timeout; their duplicates do not start a fast
    /// retransmit). If an ACK ended standby before any probe (the segment
    /// was salvaged, or the source rerouted it), sending simply continues.
    /// Call `poll_transmit` afterwards.
    pub fn on_link_failure_notice(&mut self, now: Time, seq: u64) {
        let Some(elfn) = self.cfg.elfn else { return };
        self.stats.elfn_notices += 1;
        self.trace.log(now, seq, SeqEvent::Notice);
        if self.state == SenderState::SynSent || self.snd_una >= self.snd_max {
            return;
        }
        if self.state == SenderState::Established {
            self.state = SenderState::Standby;
            self.stats.elfn_standbys += 1;
            self.standby_since = now;
            self.lowest_lost = None;
            self.rto_deadline = None;
            self.rtx_pending = false;
            self.probe_pending = false;
            self.probed = false;
            self.timing = None;
            if self.in_recovery {
                self.in_recovery = false;
                self.cc.on_recovery_exit(&mut self.cc_state, now);
            }
            if let Some(r) = self.ns3.as_mut() {
                *r = ns3::Ns3Recovery::new();
            }
            self.probe_deadline = Some(now + elfn.probe_interval);
        }
        if seq >= self.snd_una && seq < self.snd_max {
            self.lowest_lost = Some(self.lowest_lost.map_or(seq, |l| l.min(seq)));
        }
        self.record_series(now);
    }

    /// Probe timer in standby: a probe is due; the next one in `P`.
    fn on_probe_timer(&mut self, now: Time) {
        match self.probe_deadline {
            Some(d) if now >= d => {}
            _ => return,
        }
        let p = self.cfg.elfn.map_or(Time::from_secs(1), |e| e.probe_interval);
        self.probe_pending = true;
        self.probe_deadline = Some(now + p);
    }

    /// An ACK arrived in standby: the route is back.
    fn leave_standby(&mut self, now: Time) {
        self.state = SenderState::Established;
        self.stats.elfn_standby_ns += (now - self.standby_since).as_ns();
        self.probe_deadline = None;
        self.probe_pending = false;
        self.lowest_lost = None;
        match self.cfg.elfn.map(|e| e.restore).unwrap_or_default() {
            ElfnRestore::Keep => {}
            ElfnRestore::Cwnd1 => self.cc_state.cwnd = 1.0,
            ElfnRestore::Cwnd1Rto => {
                self.cc_state.cwnd = 1.0;
                let c = &self.cfg;
                self.rtt = RttEstimator::new(c.initial_rto, c.min_rto, c.max_rto, c.tick);
            }
        }
        if self.probed {
            // The route was down for at least one probe interval: what was
            // sent before the break is presumed lost. Go-back-N from the ACK
            // point; duplicates of what did get through must not trigger a
            // fast retransmit (as after a timeout).
            self.snd_nxt = self.snd_una;
            self.recover = self.snd_max;
        }
        self.probed = false;
        self.dupacks = 0;
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// The network dropped our segment starting at `seq` (time-sequence
    /// log only; the sender does not react).
    pub fn note_dropped(&mut self, now: Time, seq: u64) {
        self.trace.log(now, seq, SeqEvent::Dropped);
    }

    // ---- observers ----

    pub fn state(&self) -> SenderState {
        self.state
    }
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    /// Name of the congestion-control variant.
    pub fn variant_name(&self) -> &'static str {
        self.cc.name()
    }
    /// Congestion window, segments.
    pub fn cwnd(&self) -> f64 {
        self.cc_state.cwnd
    }
    /// Slow-start threshold, segments.
    pub fn ssthresh(&self) -> f64 {
        self.cc_state.ssthresh
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    /// Bytes sent and not yet acknowledged (`snd_max - snd_una`).
    pub fn bytes_in_flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    pub fn in_fast_recovery(&self) -> bool {
        self.in_recovery
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    pub fn srtt(&self) -> Option<Time> {
        self.rtt.srtt()
    }
    /// Current retransmission timeout, backoff included.
    pub fn rto(&self) -> Time {
        self.rtt.rto()
    }
    /// A finite source has been entirely acknowledged.
    pub fn is_complete(&self) -> bool {
        self.data_end != u64::MAX && self.snd_una >= self.data_end
    }
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
    pub fn trace(&self) -> &TcpTrace {
        &self.trace
    }
    /// Move the recorded trace out, leaving an empty one that keeps
    /// recording (for streaming long runs to disk).
    pub fn take_trace(&mut self) -> TcpTrace {
        let fresh = self.trace.empty_like();
        std::mem::replace(&mut self.trace, fresh)
    }

    // ---- internals ----

    /// Outstanding segments, RFC 5681 FlightSize in segments (rounded up).
    fn flight_segments(&self) -> f64 {
        let bytes = self.snd_nxt - self.snd_una;
        bytes.div_ceil(self.cfg.mss as u64) as f64
    }

    /// Highest byte (exclusive) the window lets us send.
    fn send_limit(&self) -> u64 {
        let maxw = self.cfg.max_window as u64;
        let mut pkts = (self.cc_state.cwnd.floor().max(1.0) as u64).min(maxw);
        if self.cfg.limited_transmit
            && !self.in_recovery
            && self.dupacks > 0
            && self.dupacks < self.cfg.dupack_threshold
        {
            // RFC 3042: flight may reach cwnd + 2 on the first two dupacks.
            pkts = (pkts + self.dupacks.min(2) as u64).min(maxw);
        }
        let bytes = (pkts * self.cfg.mss as u64).min(self.awnd);
        self.snd_una.saturating_add(bytes)
    }

    fn arm_timer_if_idle(&mut self, now: Time) {
        if self.rto_deadline.is_none() && self.state != SenderState::Standby {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
    }

    fn restart_timer(&mut self, now: Time) {
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    fn base_seg(&self, now: Time) -> TcpSeg {
        TcpSeg {
            sport: self.sport,
            dport: self.dport,
            seq: 0,
            ack: 0,
            len: 0,
            flags: 0,
            wnd: self.cfg.rcv_window,
            ts: now,
            ts_echo: self.ts_recent,
            elfn: self.cfg.elfn.is_some(),
        }
    }

    fn data_seg(&mut self, now: Time, seq: u64, end: u64) -> TcpSeg {
        let len = (end - seq).min(self.cfg.mss as u64) as u32;
        let retransmission = seq < self.snd_max;
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        if retransmission {
            self.stats.retransmissions += 1;
            // Karn: a retransmission makes any running measurement ambiguous.
            self.timing = None;
            let ev = if self.state == SenderState::Standby { SeqEvent::Probe } else { SeqEvent::Retransmitted };
            self.trace.log(now, seq, ev);
        } else {
            self.trace.log(now, seq, SeqEvent::Sent);
            if self.timing.is_none() {
                self.timing = Some((seq + len as u64, now));
            }
        }
        if self.ns3.is_some() {
            self.ns3_on_send(seq, len as u64);
        }
        self.snd_max = self.snd_max.max(seq + len as u64);
        self.arm_timer_if_idle(now);
        TcpSeg { seq, len, flags: TcpSeg::ACK, ..self.base_seg(now) }
    }

    fn next_segment(&mut self, now: Time) -> Option<TcpSeg> {
        if self.state == SenderState::SynSent {
            if !self.syn_pending {
                return None;
            }
            self.syn_pending = false;
            self.syn_sent_at = now;
            self.stats.control_sent += 1;
            self.arm_timer_if_idle(now);
            return Some(TcpSeg { flags: TcpSeg::SYN, ..self.base_seg(now) });
        }
        if self.ack_pending {
            self.ack_pending = false;
            self.stats.control_sent += 1;
            return Some(TcpSeg { flags: TcpSeg::ACK, ..self.base_seg(now) });
        }
        if self.state == SenderState::Standby {
            if !self.probe_pending {
                return None;
            }
            self.probe_pending = false;
            let end = self.snd_max.min(self.data_end);
            let seq = match self.cfg.elfn.map(|e| e.probe).unwrap_or_default() {
                ElfnProbe::First => self.snd_una,
                ElfnProbe::LowestLost => self.lowest_lost.filter(|&l| l >= self.snd_una).unwrap_or(self.snd_una),
            };
            if seq >= end {
                return None;
            }
            self.stats.elfn_probes += 1;
            self.probed = true;
            return Some(self.data_seg(now, seq, end));
        }
        if self.rtx_pending {
            self.rtx_pending = false;
            let end = self.snd_max.min(self.data_end);
            if self.snd_una < end {
                return Some(self.data_seg(now, self.snd_una, end));
            }
        }
        if self.ns3.as_ref().is_some_and(|r| r.state != ns3::CaState::Loss) {
            let seq = self.ns3_next_seq()?;
            let seg = self.data_seg(now, seq, self.data_end);
            self.snd_nxt = self.snd_nxt.max(seq + seg.len as u64);
            return Some(seg);
        }
        // The whole segment must fit the window (an advertised window need
        // not be a multiple of the MSS); with nothing outstanding one
        // segment may always go, so a window below one MSS cannot stall.
        let len = (self.data_end.saturating_sub(self.snd_nxt)).min(self.cfg.mss as u64);
        let fits = self.snd_nxt + len <= self.send_limit() || self.snd_nxt == self.snd_una;
        if self.snd_nxt < self.data_end && fits {
            let seq = self.snd_nxt;
            let seg = self.data_seg(now, seq, self.data_end);
            self.snd_nxt = seq + seg.len as u64;
            return Some(seg);
        }
        None
    }

    fn handle_segment(&mut self, now: Time, seg: &TcpSeg) {
        if seg.flags & TcpSeg::ACK == 0 {
            return;
        }
        self.stats.acks_received += 1;
        self.ts_recent = seg.ts;
        if seg.flags & TcpSeg::SYN != 0 {
            self.on_syn_ack(now, seg);
            return;
        }
        if self.state == SenderState::SynSent {
            return;
        }
        let ack = seg.ack;
        if ack < self.snd_una || ack > self.snd_max {
            return; // old, or acknowledges bytes never sent
        }
        if self.state == SenderState::Standby {
            self.leave_standby(now);
        }
        self.awnd = seg.wnd as u64;
        let is_dup = ack == self.snd_una && seg.len == 0 && self.snd_max > self.snd_una;
        // Timestamp RTT (RFC 7323 §4): new data, no recovery under way (as
        // ns-3 keeps no RTT sample of a retransmitted segment).
        let clean = ack > self.snd_una && !self.in_recovery && self.snd_una >= self.recover;
        let echo_rtt = (clean && seg.ts_echo <= now).then(|| now - seg.ts_echo);
        if ack > self.snd_una || is_dup {
            let arrival = AckArrival { newly_acked: ack - self.snd_una, ack, snd_max: self.snd_max, echo_rtt };
            self.cc.on_ack_arrival(&mut self.cc_state, &arrival, now);
        }
        if self.ns3.is_some() {
            return self.ns3_on_ack(now, ack, is_dup, echo_rtt);
        }
        if ack > self.snd_una {
            self.on_new_ack(now, ack, echo_rtt);
        } else if is_dup {
            self.on_dupack(now);
        }
    }

    fn on_syn_ack(&mut self, now: Time, seg: &TcpSeg) {
        match self.state {
            SenderState::SynSent => {
                self.state = SenderState::Established;
                self.awnd = seg.wnd as u64;
                self.rto_deadline = None;
                if self.syn_retransmitted {
                    // RFC 6298 §5.7: no sample; back to the initial RTO.
                    self.rtt.reset_backoff();
                } else {
                    self.take_rtt_sample(now, now - self.syn_sent_at);
                }
                self.ack_pending = true;
            }
            // Our handshake ACK was lost and the SYN-ACK repeated: re-ACK.
            SenderState::Established | SenderState::Standby => self.ack_pending = true,
        }
    }

    fn take_rtt_sample(&mut self, now: Time, r: Time) {
        self.rtt.sample(r);
        self.stats.rtt_samples += 1;
        self.cc.on_rtt_sample(&mut self.cc_state, r, now);
    }

    fn on_new_ack(&mut self, now: Time, ack: u64, echo_rtt: Option<Time>) {
        let bytes = ack - self.snd_una;
        self.stats.bytes_acked += bytes;
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dupacks = 0;
        self.trace.log(now, ack, SeqEvent::Acked);
        if self.cfg.rto_reset_on_ack {
            self.rtt.reset_backoff();
        }

        let mut rtt = None;
        if self.cfg.timestamps {
            if let Some(r) = echo_rtt {
                rtt = Some(r);
                self.take_rtt_sample(now, r);
            }
        } else if let Some((end, sent)) = self.timing {
            if ack >= end {
                self.timing = None;
                rtt = Some(now - sent);
                self.take_rtt_sample(now, now - sent);
            }
        }
        let sample = AckSample { bytes, segments: bytes as f64 / self.cfg.mss as f64, rtt };

        let mut restart = true;
        if self.in_recovery {
            let full = ack >= self.recover;
            if full || self.cc.recovery_style() == RecoveryStyle::Reno {
                self.in_recovery = false;
                self.cc.on_recovery_exit(&mut self.cc_state, now);
            } else {
                // RFC 6582 §3.2 step 5: partial ACK.
                self.stats.partial_acks += 1;
                self.cc.on_partial_ack(&mut self.cc_state, &sample, now);
                self.rtx_pending = true;
                restart = !self.partial_seen;
                self.partial_seen = true;
            }
        } else {
            self.cc.on_ack(&mut self.cc_state, &sample, now);
        }

        if self.snd_una >= self.snd_max {
            self.rto_deadline = None; // RFC 6298 §5.2
        } else if restart {
            self.restart_timer(now); // RFC 6298 §5.3
        }
    }

    fn on_dupack(&mut self, now: Time) {
        self.dupacks += 1;
        self.stats.dupacks += 1;
        if self.dupacks == self.cfg.dupack_threshold && !self.in_recovery && self.snd_una >= self.recover {
            // RFC 5681 §3.2 steps 2-3 / RFC 6582 §3.2 step 2.
            let flight = self.flight_segments();
            self.cc.on_triple_dupack(&mut self.cc_state, flight, now);
            self.in_recovery = true;
            self.partial_seen = false;
            self.recover = self.snd_max;
            self.rtx_pending = true;
            self.timing = None;
            self.stats.fast_retransmits += 1;
            // ns-2 restarts the timer with the fast retransmit.
            self.restart_timer(now);
        } else {
            self.cc.on_dupack(&mut self.cc_state, self.in_recovery, now);
        }
    }

    fn record_series(&mut self, now: Time) {
        // ns / 1e9 (one rounding) so that whole seconds stay exact
        fn secs(t: Time) -> f64 {
            t.as_ns() as f64 / 1e9
        }
        if !self.trace.cwnd.is_enabled() {
            return;
        }
        self.trace.cwnd.record(now, self.cc_state.cwnd);
        self.trace.ssthresh.record(now, self.cc_state.ssthresh);
        if let Some(s) = self.rtt.srtt() {
            self.trace.srtt.record(now, secs(s));
        }
        self.trace.rto.record(now, secs(self.rtt.rto()));
    }
}
