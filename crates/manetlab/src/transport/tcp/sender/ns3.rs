//! ns-3.37's loss recovery without SACK (`recovery = "ns3-prr"`), as
//! `tcp-socket-base.cc`, `tcp-tx-buffer.cc` and `tcp-prr-recovery.cc`
//! compute it (read, not copied). ns-3.37 runs every TCP variant with
//! `TcpPrrRecovery` (RFC 6937, reduction bound SSRB); with `Sack = false`
//! its scoreboard (`TcpTxBuffer`) emulates SACK from duplicate ACKs. What
//! that makes different from RFC 5681/6582 window inflation:
//!
//! - **Reno SACK** (`AddRenoSack`): each duplicate ACK marks the lowest
//!   not-yet-marked segment after the head "SACKed"; the marks are a
//!   prefix after the head. Pipe (RFC 6675 `SetPipe`, `BytesInFlight`) =
//!   bytes outstanding − marked − lost (not retransmitted) head. Limited
//!   transmit (`LimitedTransmit`, on by default) is the first two marks:
//!   each duplicate ACK before recovery lets one new segment out, and so
//!   does every further one while a new recovery may not start yet.
//! - **Entry** (third duplicate ACK): head marked lost, `recover` =
//!   highest byte sent, ssthresh from the controller, PRR starts with
//!   `RecoverFS` = bytes outstanding, the head is retransmitted; the RTO
//!   timer is *not* restarted.
//! - **PRR** (`DoRecovery`, on each duplicate ACK in recovery and on each
//!   partial ACK of at least one segment): `cwnd = pipe + sndcnt` with
//!   `sndcnt = ceil(prr_delivered × ssthresh / RecoverFS) − prr_out` while
//!   pipe > ssthresh, else the SSRB bound; at least one segment before the
//!   first is out. ns-3 takes pipe as of *before* this ACK's Reno mark and
//!   counts no delivery for a duplicate ACK without SACK, so each duplicate
//!   ACK in recovery still sends one new segment: the flight is not reduced
//!   during recovery, only on its exit.
//! - **Partial ACK**: the new head is marked lost and retransmitted (every
//!   time, also when it was merely late), the first partial ACK of a
//!   recovery restarts the RTO timer (ns-3 `m_isFirstPartialAck`).
//! - **Exit** (ACK ≥ `recover`): cwnd = ssthresh, then the controller's
//!   window increase with every segment the ACK acknowledges.
//! - **Left-over marks**: marks are cleared only by a timeout. When the
//!   head of the remaining window is marked (the marks ran ahead of the
//!   holes), ns-3 moves the mark on and marks the head lost
//!   (`DiscardUpTo`), which retransmits it — also outside recovery.
//!
//! After a timeout (ns-3 `CA_LOSS`) every segment is lost and resent in
//! order (go-back-N), as the classic sender does; duplicate ACKs are
//! ignored until `recover` is acknowledged.

use super::TcpSender;
use crate::sim::Time;

/// ns-3's congestion state (`TcpSocketState::TcpCongState_t`), without CWR.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) enum CaState {
    #[default]
    Open,
    Disorder,
    Recovery,
    Loss,
}

/// The Reno-SACK scoreboard and PRR counters (bytes).
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct Ns3Recovery {
    pub(super) state: CaState,
    /// Segments marked SACKed: the ones right after the head.
    sacked: u64,
    /// The head is marked lost / has been retransmitted since.
    head_lost: bool,
    head_retx: bool,
    prr_delivered: u64,
    pub(super) prr_out: u64,
    recover_fs: u64,
    /// ns-3's `m_bytesInFlight` as of the last `BytesInFlight()` before
    /// the congestion hooks run.
    stale_pipe: u64,
    /// ns-3 `m_isFirstPartialAck`.
    first_partial: bool,
}

impl Ns3Recovery {
    pub(super) fn new() -> Self {
        Ns3Recovery { first_partial: true, ..Default::default() }
    }
}

impl TcpSender {
    fn ns3(&mut self) -> &mut Ns3Recovery {
        self.ns3.as_mut().expect("ns3-prr recovery")
    }

    /// RFC 6675 pipe as ns-3's `TcpTxBuffer::BytesInFlight` (bytes).
    pub(super) fn ns3_pipe(&self) -> u64 {
        let r = self.ns3.as_ref().expect("ns3-prr recovery");
        if r.state == CaState::Loss {
            // Everything is lost; what was resent (go-back-N) is in flight.
            return self.snd_nxt - self.snd_una;
        }
        let mss = self.cfg.mss as u64;
        let out = self.snd_max - self.snd_una;
        let lost = if r.head_lost && !r.head_retx { mss } else { 0 };
        out.saturating_sub(r.sacked * mss).saturating_sub(lost)
    }

    /// Segments outstanding (the sent list's length).
    fn ns3_outstanding(&self) -> u64 {
        (self.snd_max - self.snd_una).div_ceil(self.cfg.mss as u64)
    }

    /// `TcpTxBuffer::AddRenoSack`: mark the next segment after the head.
    fn ns3_add_reno_sack(&mut self) {
        let n = self.ns3_outstanding();
        let r = self.ns3();
        if r.sacked + 1 < n {
            r.sacked += 1;
        }
    }

    /// `TcpTxBuffer::MarkHeadAsLost`.
    fn ns3_mark_head_lost(&mut self) {
        let r = self.ns3();
        r.head_lost = true;
        r.head_retx = false;
    }

    /// `TcpPrrRecovery::DoRecovery`: cwnd from pipe and the PRR counters.
    fn ns3_do_recovery(&mut self, delivered: u64, retrans_acked: bool) {
        let mss = self.cfg.mss as i64;
        let ssthresh = (self.cc_state.ssthresh * mss as f64).round() as i64;
        let r = self.ns3();
        r.prr_delivered += delivered;
        let bif = r.stale_pipe as i64;
        let (pd, po, fs) = (r.prr_delivered as i64, r.prr_out as i64, r.recover_fs.max(1) as i64);
        let mut send = if bif > ssthresh {
            ((pd as f64) * (ssthresh as f64) / (fs as f64)).ceil() as i64 - po
        } else {
            // SSRB; ns-3 subtracts unsigned counters (a negative difference
            // wraps and then wins the max).
            let limit = if retrans_acked {
                let d = pd - po;
                if d < 0 {
                    d + mss
                } else {
                    d.max(delivered as i64) + mss
                }
            } else {
                delivered as i64
            };
            limit.min(ssthresh - bif)
        };
        send = send.max(if po > 0 { 0 } else { mss });
        self.cc_state.cwnd = (bif + send) as f64 / mss as f64;
    }

    fn ns3_enter_recovery(&mut self, now: Time) {
        self.ns3_add_reno_sack();
        self.ns3_mark_head_lost();
        self.recover = self.snd_max;
        self.in_recovery = true;
        let pipe = self.ns3_pipe();
        let flight = self.flight_segments();
        self.cc.on_triple_dupack(&mut self.cc_state, flight, now);
        let out = self.snd_max - self.snd_una;
        let r = self.ns3();
        r.state = CaState::Recovery;
        r.stale_pipe = pipe;
        r.prr_out = 0;
        r.prr_delivered = 0;
        r.recover_fs = out;
        self.ns3_do_recovery(0, false);
        self.rtx_pending = true;
        self.timing = None;
        self.stats.fast_retransmits += 1;
    }

    /// An acceptable ACK (`snd_una <= ack <= snd_max`) of an established
    /// sender: ns-3's `ReceivedAck` / `ProcessAck` / `DupAck`.
    pub(super) fn ns3_on_ack(&mut self, now: Time, ack: u64, is_dup: bool, echo_rtt: Option<Time>) {
        let mss = self.cfg.mss as u64;
        let old_head = self.snd_una;
        let state = self.ns3().state;
        let head_retx = self.ns3().head_retx;
        let retrans_acked = state == CaState::Recovery && ack > old_head && ack < self.recover && head_retx;
        // DiscardUpTo.
        if ack > old_head {
            let k = (ack - old_head).div_ceil(mss);
            self.stats.bytes_acked += ack - old_head;
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.trace.log(now, ack, super::SeqEvent::Acked);
            let n = self.ns3_outstanding();
            let r = self.ns3();
            r.sacked -= r.sacked.min(k - 1);
            r.head_lost = false;
            r.head_retx = false;
            if r.sacked > 0 && r.state != CaState::Loss {
                // The head itself is marked: move the mark on, head lost.
                if r.sacked >= n {
                    r.sacked = n.saturating_sub(1);
                }
                r.head_lost = true;
            }
            if self.cfg.rto_reset_on_ack {
                self.rtt.reset_backoff();
            }
        }
        let pipe = self.ns3_pipe();
        self.ns3().stale_pipe = pipe;
        let mut rtt = None;
        if ack > old_head {
            if self.cfg.timestamps {
                rtt = echo_rtt;
            } else if let Some((_, sent)) = self.timing.filter(|&(end, _)| ack >= end) {
                self.timing = None;
                rtt = Some(now - sent);
            }
            if let Some(r) = rtt {
                self.take_rtt_sample(now, r);
            }
        }

        if is_dup {
            self.ns3_dupack(now);
        }
        if ack == old_head {
            return;
        }
        let bytes = ack - old_head;
        let sample = crate::transport::tcp::AckSample { bytes, segments: bytes as f64 / mss as f64, rtt };
        if !is_dup {
            self.dupacks = 0;
        }
        let state = self.ns3().state;
        let mut restart = true;
        if ack < self.recover && state == CaState::Recovery {
            self.ns3_mark_head_lost();
            if bytes >= mss {
                self.ns3_do_recovery(bytes, retrans_acked);
            }
            self.rtx_pending = true;
            self.stats.partial_acks += 1;
            let r = self.ns3();
            restart = r.first_partial;
            r.first_partial = false;
        } else if ack < self.recover && state == CaState::Loss {
            self.cc.on_ack(&mut self.cc_state, &sample, now);
        } else {
            match state {
                CaState::Recovery => {
                    self.in_recovery = false;
                    self.dupacks = 0;
                    self.cc.on_recovery_exit(&mut self.cc_state, now);
                    self.ns3().first_partial = true;
                }
                CaState::Loss => self.ns3().first_partial = true,
                CaState::Open | CaState::Disorder => {}
            }
            self.ns3().state = CaState::Open;
            self.cc.on_ack(&mut self.cc_state, &sample, now);
        }
        if self.snd_una >= self.snd_max {
            self.rto_deadline = None;
        } else if restart {
            self.restart_timer(now);
        }
    }

    /// `TcpSocketBase::DupAck` without SACK.
    fn ns3_dupack(&mut self, now: Time) {
        self.stats.dupacks += 1;
        let state = self.ns3().state;
        if state == CaState::Loss {
            return;
        }
        if state != CaState::Recovery {
            self.dupacks += 1;
        }
        match state {
            CaState::Recovery => {
                self.ns3_add_reno_sack();
                self.ns3_do_recovery(0, false);
            }
            CaState::Open | CaState::Disorder => {
                self.ns3().state = CaState::Disorder;
                if self.dupacks == self.cfg.dupack_threshold && self.snd_una >= self.recover {
                    self.ns3_enter_recovery(now);
                } else if self.cfg.limited_transmit {
                    self.ns3_add_reno_sack();
                }
            }
            CaState::Loss => {}
        }
    }

    /// A retransmission timeout: ns-3 `ReTxTimeout` (marks cleared, all lost).
    pub(super) fn ns3_on_timeout(&mut self) {
        let r = self.ns3();
        r.state = CaState::Loss;
        r.sacked = 0;
        r.head_lost = false;
        r.head_retx = false;
    }

    /// A segment starting at `seq` is being sent.
    pub(super) fn ns3_on_send(&mut self, seq: u64, len: u64) {
        let una = self.snd_una;
        let r = self.ns3();
        if seq == una && r.head_lost {
            r.head_retx = true;
        }
        if r.state == CaState::Recovery {
            r.prr_out += len;
        }
    }

    /// What `SendPendingData` sends next outside `CA_LOSS`: the lost head
    /// if it is not yet resent, else new data, while
    /// `cwnd − pipe ≥ 1 MSS` (`None`: nothing may go).
    pub(super) fn ns3_next_seq(&self) -> Option<u64> {
        let r = self.ns3.as_ref().expect("ns3-prr recovery");
        let mss = self.cfg.mss as u64;
        let win = ((self.cc_state.cwnd * mss as f64).round() as u64).min(self.awnd);
        if self.ns3_pipe() + mss > win {
            return None;
        }
        if r.head_lost && !r.head_retx && self.snd_una < self.snd_max {
            return Some(self.snd_una);
        }
        let maxw = self.cfg.max_window as u64 * mss;
        (self.snd_max - self.snd_una + mss <= maxw && self.snd_max < self.data_end).then_some(self.snd_max)
    }
}
