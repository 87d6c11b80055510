//! The receiving end of a one-way TCP connection (ns-2 `Agent/TCPSink`,
//! `TCPSink/DelAck` when delayed ACKs are on).
//!
//! ACK policy (RFC 5681 §4.2, RFC 1122 §4.2.3.2):
//! - without delayed ACKs every data segment is ACKed at once;
//! - with delayed ACKs an in-order segment is held until a second one
//!   arrives or `delack_timeout` passes;
//! - an out-of-order segment, a duplicate, and a segment that fills (part
//!   of) a hole are always ACKed at once.
//!
//! The ACK echoes the `ts` of the segment that triggered it, or for a
//! delayed ACK the `ts` of the oldest segment it acknowledges.
//! The application reads in-order data at once, so the advertised window
//! is constantly `rcv_window` (out-of-order data lies inside it).

use super::config::TcpConfig;
use super::trace::ReceiverStats;
use crate::net::TcpSeg;
use crate::sim::Time;

/// Result of handing a segment to the receiver.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RecvOutcome {
    /// Segment to send back now (ACK, or SYN-ACK), if any.
    pub ack: Option<TcpSeg>,
    /// Bytes that became deliverable in order to the application.
    pub delivered: u64,
}

/// The receiving end of a one-way TCP connection.
#[derive(Debug)]
pub struct TcpReceiver {
    delayed_ack: bool,
    delack_timeout: Time,
    rcv_window: u32,
    /// Next byte expected (the cumulative ACK).
    rcv_nxt: u64,
    /// Out-of-order data: sorted, disjoint, non-adjacent `[start, end)`.
    ooo: Vec<(u64, u64)>,
    delivered: u64,
    /// Held (delayed) ACK: ports and echo timestamp.
    held: Option<Held>,
    delack_deadline: Option<Time>,
    stats: ReceiverStats,
}

#[derive(Copy, Clone, Debug)]
struct Held {
    sport: u16,
    dport: u16,
    ts_echo: Time,
}

impl TcpReceiver {
    pub fn new(cfg: &TcpConfig) -> Self {
        TcpReceiver {
            delayed_ack: cfg.delayed_ack,
            delack_timeout: cfg.delack_timeout,
            rcv_window: cfg.rcv_window,
            rcv_nxt: 0,
            ooo: Vec::with_capacity(8),
            delivered: 0,
            held: None,
            delack_deadline: None,
            stats: ReceiverStats::default(),
        }
    }

    /// A segment from the sender arrived. Returns the ACK to send now
    /// (`None` while an ACK is being delayed, or for a pure ACK) and the
    /// bytes newly delivered in order.
    pub fn on_segment(&mut self, now: Time, seg: &TcpSeg) -> RecvOutcome {
        if seg.flags & TcpSeg::SYN != 0 {
            // Answer every SYN (a repeated one means our SYN-ACK was lost).
            let mut ack = self.make_ack(now, seg.dport, seg.sport, seg.ts);
            ack.flags |= TcpSeg::SYN;
            self.stats.acks_sent += 1;
            return RecvOutcome { ack: Some(ack), delivered: 0 };
        }
        if seg.len == 0 {
            return RecvOutcome::default(); // handshake ACK
        }
        self.stats.segments += 1;
        let (start, end) = (seg.seq, seg.seq + seg.len as u64);
        let before = self.rcv_nxt;
        let immediate = if end <= self.rcv_nxt {
            self.stats.duplicates += 1;
            true
        } else if start <= self.rcv_nxt {
            let had_hole = !self.ooo.is_empty();
            self.rcv_nxt = end;
            self.absorb_ooo();
            had_hole || !self.delayed_ack
        } else {
            self.stats.out_of_order += 1;
            self.insert_ooo(start, end);
            true
        };
        let delivered = self.rcv_nxt - before;
        self.delivered += delivered;

        let ack = if immediate {
            Some(self.ack_now(now, seg))
        } else if let Some(held) = self.held {
            // Second held segment: ACK both, echoing the older timestamp.
            Some(self.ack_now(now, &TcpSeg { ts: held.ts_echo, ..*seg }))
        } else {
            self.held = Some(Held { sport: seg.dport, dport: seg.sport, ts_echo: seg.ts });
            self.delack_deadline = Some(now + self.delack_timeout);
            None
        };
        RecvOutcome { ack, delivered }
    }

    /// Deadline of the delayed-ACK timer, if one is running.
    pub fn poll_at(&self) -> Option<Time> {
        self.delack_deadline
    }

    /// Fire the delayed-ACK timer if `now >= poll_at()`; returns the ACK.
    pub fn on_timer(&mut self, now: Time) -> Option<TcpSeg> {
        match self.delack_deadline {
            Some(d) if now >= d => {}
            _ => return None,
        }
        self.delack_deadline = None;
        let held = self.held.take()?;
        self.stats.acks_sent += 1;
        Some(self.make_ack(now, held.sport, held.dport, held.ts_echo))
    }

    /// Next byte expected (the cumulative ACK value).
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }
    /// Bytes delivered in order to the application so far.
    pub fn delivered_bytes(&self) -> u64 {
        self.delivered
    }
    /// Out-of-order ranges held, `[start, end)` byte pairs.
    pub fn ooo_ranges(&self) -> &[(u64, u64)] {
        &self.ooo
    }
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }

    fn ack_now(&mut self, now: Time, seg: &TcpSeg) -> TcpSeg {
        self.held = None;
        self.delack_deadline = None;
        self.stats.acks_sent += 1;
        self.make_ack(now, seg.dport, seg.sport, seg.ts)
    }

    fn make_ack(&self, now: Time, sport: u16, dport: u16, ts_echo: Time) -> TcpSeg {
        TcpSeg {
            sport,
            dport,
            seq: 0,
            ack: self.rcv_nxt,
            len: 0,
            flags: TcpSeg::ACK,
            wnd: self.rcv_window,
            ts: now,
            ts_echo,
            elfn: false,
        }
    }

    /// Move out-of-order ranges that now touch `rcv_nxt` into the stream.
    fn absorb_ooo(&mut self) {
        let n = self.ooo.iter().take_while(|r| r.0 <= self.rcv_nxt).count();
        if n > 0 {
            self.rcv_nxt = self.rcv_nxt.max(self.ooo[n - 1].1);
            self.ooo.drain(..n);
        }
    }

    /// Insert `[start, end)`, merging with overlapping or adjacent ranges.
    fn insert_ooo(&mut self, mut start: u64, mut end: u64) {
        // first range that ends at or after `start` (could merge)
        let i = self.ooo.partition_point(|r| r.1 < start);
        // ranges from i that begin at or before `end` overlap or touch
        let j = i + self.ooo[i..].iter().take_while(|r| r.0 <= end).count();
        if i < j {
            start = start.min(self.ooo[i].0);
            end = end.max(self.ooo[j - 1].1);
            self.ooo.drain(i + 1..j);
            self.ooo[i] = (start, end);
        } else {
            self.ooo.insert(i, (start, end));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u64, len: u32, ts_ms: u64) -> TcpSeg {
        TcpSeg { sport: 10, dport: 20, seq, len, flags: TcpSeg::ACK, ts: Time::from_ms(ts_ms), ..TcpSeg::default() }
    }

    #[test]
    fn test_receiver_in_order_segment_acks_next_byte() {
        let mut r = TcpReceiver::new(&TcpConfig::default());
        let out = r.on_segment(Time::from_ms(5), &data(0, 100, 1));
        let ack = out.ack.unwrap();
        assert_eq!(out.delivered, 100);
        assert_eq!((ack.ack, ack.sport, ack.dport, ack.len), (100, 20, 10, 0));
        assert_eq!(ack.flags, TcpSeg::ACK);
        assert_eq!(ack.ts_echo, Time::from_ms(1));
        assert_eq!(ack.ts, Time::from_ms(5));
        assert_eq!(ack.wnd, TcpConfig::default().rcv_window);
    }

    #[test]
    fn test_receiver_out_of_order_fills_hole_and_ack_jumps() {
        let mut r = TcpReceiver::new(&TcpConfig::default());
        let t = Time::ZERO;
        assert_eq!(r.on_segment(t, &data(0, 100, 0)).ack.unwrap().ack, 100);
        // 100..200 lost; 200..300, 400..500, 300..400 arrive
        let o = r.on_segment(t, &data(200, 100, 0));
        assert_eq!((o.ack.unwrap().ack, o.delivered), (100, 0));
        let o = r.on_segment(t, &data(400, 100, 0));
        assert_eq!(o.ack.unwrap().ack, 100);
        assert_eq!(r.ooo_ranges(), &[(200, 300), (400, 500)]);
        let o = r.on_segment(t, &data(300, 100, 0));
        assert_eq!(o.ack.unwrap().ack, 100);
        assert_eq!(r.ooo_ranges(), &[(200, 500)]);
        // the hole is filled: cumulative ACK jumps to 500
        let o = r.on_segment(t, &data(100, 100, 0));
        assert_eq!((o.ack.unwrap().ack, o.delivered), (500, 400));
        assert!(r.ooo_ranges().is_empty());
        assert_eq!(r.delivered_bytes(), 500);
        assert_eq!(r.stats().out_of_order, 3);
    }

    #[test]
    fn test_receiver_duplicate_segment_is_reacked() {
        let mut r = TcpReceiver::new(&TcpConfig::default());
        r.on_segment(Time::ZERO, &data(0, 100, 0));
        let o = r.on_segment(Time::ZERO, &data(0, 100, 0));
        assert_eq!((o.ack.unwrap().ack, o.delivered), (100, 0));
        assert_eq!(r.stats().duplicates, 1);
    }

    #[test]
    fn test_receiver_overlapping_ranges_merge() {
        let mut r = TcpReceiver::new(&TcpConfig::default());
        let t = Time::ZERO;
        r.on_segment(t, &data(1000, 100, 0));
        r.on_segment(t, &data(500, 100, 0));
        r.on_segment(t, &data(550, 500, 0)); // bridges both
        assert_eq!(r.ooo_ranges(), &[(500, 1100)]);
        r.on_segment(t, &data(2000, 10, 0));
        r.on_segment(t, &data(1100, 10, 0)); // adjacent to the first
        assert_eq!(r.ooo_ranges(), &[(500, 1110), (2000, 2010)]);
        let o = r.on_segment(t, &data(0, 600, 0));
        assert_eq!(o.ack.unwrap().ack, 1110);
        assert_eq!(r.ooo_ranges(), &[(2000, 2010)]);
    }

    #[test]
    fn test_delack_second_segment_acks_both() {
        let cfg = TcpConfig { delayed_ack: true, ..TcpConfig::default() };
        let mut r = TcpReceiver::new(&cfg);
        let o = r.on_segment(Time::from_ms(10), &data(0, 100, 1));
        assert_eq!((o.ack, o.delivered), (None, 100));
        assert_eq!(r.poll_at(), Some(Time::from_ms(210)));
        let ack = r.on_segment(Time::from_ms(20), &data(100, 100, 2)).ack.unwrap();
        assert_eq!(ack.ack, 200);
        assert_eq!(ack.ts_echo, Time::from_ms(1), "echo the older segment");
        assert_eq!(r.poll_at(), None);
        assert_eq!(r.on_timer(Time::from_secs(1)), None);
    }

    #[test]
    fn test_delack_timer_fires_after_timeout() {
        let cfg = TcpConfig { delayed_ack: true, ..TcpConfig::default() };
        let mut r = TcpReceiver::new(&cfg);
        assert_eq!(r.on_segment(Time::from_ms(10), &data(0, 100, 3)).ack, None);
        assert_eq!(r.on_timer(Time::from_ms(209)), None);
        let ack = r.on_timer(Time::from_ms(210)).unwrap();
        assert_eq!((ack.ack, ack.ts_echo, ack.ts), (100, Time::from_ms(3), Time::from_ms(210)));
        assert_eq!(r.poll_at(), None);
    }

    #[test]
    fn test_delack_out_of_order_acks_at_once() {
        let cfg = TcpConfig { delayed_ack: true, ..TcpConfig::default() };
        let mut r = TcpReceiver::new(&cfg);
        assert_eq!(r.on_segment(Time::ZERO, &data(0, 100, 0)).ack, None);
        let ack = r.on_segment(Time::ZERO, &data(200, 100, 0)).ack.unwrap();
        assert_eq!(ack.ack, 100);
        assert_eq!(r.poll_at(), None, "the immediate ACK covers the held one");
        // filling the hole is ACKed at once too
        let ack = r.on_segment(Time::ZERO, &data(100, 100, 0)).ack.unwrap();
        assert_eq!(ack.ack, 300);
    }

    #[test]
    fn test_listen_syn_gets_syn_ack() {
        let mut r = TcpReceiver::new(&TcpConfig::default());
        let syn = TcpSeg { sport: 1, dport: 2, flags: TcpSeg::SYN, ts: Time(7), ..TcpSeg::default() };
        let sa = r.on_segment(Time(9), &syn).ack.unwrap();
        assert_eq!(sa.flags, TcpSeg::SYN | TcpSeg::ACK);
        assert_eq!((sa.ack, sa.sport, sa.dport, sa.ts_echo), (0, 2, 1, Time(7)));
        let ack = TcpSeg { flags: TcpSeg::ACK, ..syn };
        assert_eq!(r.on_segment(Time(10), &ack), RecvOutcome::default());
    }
}
