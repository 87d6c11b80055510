//! Counters and optional traces of a TCP sender.

use crate::sim::Time;

/// Counters of a [`TcpSender`](super::TcpSender).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data segments transmitted, retransmissions included.
    pub segments_sent: u64,
    /// Payload bytes transmitted, retransmissions included.
    pub bytes_sent: u64,
    /// Data segments sent again (fast retransmit, NewReno partial-ACK
    /// retransmits, go-back-N after a timeout).
    pub retransmissions: u64,
    /// Retransmission-timer expiries (SYN timeouts included).
    pub timeouts: u64,
    /// Fast retransmits (entries into fast recovery).
    pub fast_retransmits: u64,
    /// NewReno partial ACKs.
    pub partial_acks: u64,
    /// Payload bytes cumulatively acknowledged.
    pub bytes_acked: u64,
    /// ACK segments received (duplicates and old ones included).
    pub acks_received: u64,
    /// Duplicate ACKs received.
    pub dupacks: u64,
    /// SYN and pure-ACK segments sent (handshake).
    pub control_sent: u64,
    /// Valid (Karn) RTT samples taken.
    pub rtt_samples: u64,
    /// ELFN: link-failure notices received (all, also those that found the
    /// sender already in standby or with nothing outstanding).
    pub elfn_notices: u64,
    /// ELFN: times the sender entered standby.
    pub elfn_standbys: u64,
    /// ELFN: probes sent (also counted in `segments_sent` and, as they
    /// resend data, in `retransmissions`).
    pub elfn_probes: u64,
    /// ELFN: total time spent in standby, ns (periods ended by an ACK).
    pub elfn_standby_ns: u64,
}

/// Counters of a [`TcpReceiver`](super::TcpReceiver).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Data segments received.
    pub segments: u64,
    /// Segments wholly below the cumulative ACK point.
    pub duplicates: u64,
    /// Segments that arrived beyond a hole.
    pub out_of_order: u64,
    /// ACKs (and SYN-ACKs) sent.
    pub acks_sent: u64,
}

/// A step function recorded on change: `(time, value)` points, each value
/// holding until the next point. Several changes at the same instant keep
/// only the last value of that instant.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    enabled: bool,
    points: Vec<(Time, f64)>,
}

impl Series {
    pub fn new(enabled: bool) -> Self {
        Series { enabled, points: Vec::new() }
    }
    pub fn points(&self) -> &[(Time, f64)] {
        &self.points
    }
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }
    /// Value in force at `t` (None before the first point).
    pub fn value_at(&self, t: Time) -> Option<f64> {
        let i = self.points.partition_point(|p| p.0 <= t);
        i.checked_sub(1).map(|i| self.points[i].1)
    }
    pub(crate) fn record(&mut self, t: Time, v: f64) {
        if !self.enabled {
            return;
        }
        let n = self.points.len();
        match self.points.last_mut() {
            Some(last) if last.1 == v => {}
            Some(last) if last.0 == t => {
                last.1 = v;
                if n >= 2 && self.points[n - 2].1 == v {
                    self.points.pop();
                }
            }
            _ => self.points.push((t, v)),
        }
    }
}

/// What happened to a sequence number (time-sequence plot events).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SeqEvent {
    /// First transmission of the segment starting at `seq`.
    Sent,
    /// Retransmission of the segment starting at `seq`.
    Retransmitted,
    /// The cumulative ACK point advanced to `seq` (next byte expected).
    Acked,
    /// The network dropped the segment starting at `seq`
    /// (recorded by the simulator through `TcpSender::note_dropped`).
    Dropped,
    /// An ELFN notice reported the segment starting at `seq` lost.
    Notice,
    /// An ELFN probe (a resend of the segment starting at `seq`) sent in
    /// standby; logged instead of `Retransmitted`.
    Probe,
}

/// One time-sequence log entry. `seq` is a byte number; divide by `mss`
/// for ns-2-style packet numbers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SeqRecord {
    pub time: Time,
    pub seq: u64,
    pub event: SeqEvent,
}

/// Everything a sender records over time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpTrace {
    /// Congestion window, segments (fast-recovery inflation included).
    pub cwnd: Series,
    /// Slow-start threshold, segments.
    pub ssthresh: Series,
    /// Smoothed RTT, seconds (starts at the first sample).
    pub srtt: Series,
    /// Retransmission timeout, seconds, backoff included.
    pub rto: Series,
    seq_enabled: bool,
    /// Time-sequence log, in event order.
    pub seq: Vec<SeqRecord>,
}

impl TcpTrace {
    pub fn new(series: bool, seq_log: bool) -> Self {
        TcpTrace {
            cwnd: Series::new(series),
            ssthresh: Series::new(series),
            srtt: Series::new(series),
            rto: Series::new(series),
            seq_enabled: seq_log,
            seq: Vec::new(),
        }
    }
    /// An empty trace with the same switches.
    pub fn empty_like(&self) -> Self {
        TcpTrace::new(self.cwnd.is_enabled(), self.seq_enabled)
    }
    pub(crate) fn log(&mut self, time: Time, seq: u64, event: SeqEvent) {
        if self.seq_enabled {
            self.seq.push(SeqRecord { time, seq, event });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_series_record_keeps_changes_only() {
        let mut s = Series::new(true);
        s.record(Time(1), 1.0);
        s.record(Time(2), 1.0);
        s.record(Time(3), 2.0);
        s.record(Time(3), 3.0);
        s.record(Time(4), 3.0);
        assert_eq!(s.points(), &[(Time(1), 1.0), (Time(3), 3.0)]);
        // a same-instant change back to the previous value disappears
        s.record(Time(5), 4.0);
        s.record(Time(5), 3.0);
        assert_eq!(s.points(), &[(Time(1), 1.0), (Time(3), 3.0)]);
        assert_eq!(s.value_at(Time(0)), None);
        assert_eq!(s.value_at(Time(2)), Some(1.0));
        assert_eq!(s.value_at(Time(9)), Some(3.0));
    }

    #[test]
    fn test_series_disabled_records_nothing() {
        let mut s = Series::new(false);
        s.record(Time(1), 1.0);
        assert!(s.points().is_empty());
    }
}
