//! A frame exchange's first frame (`start_attempt`) and a frame put on the
//! air (`transmit`), each with its common case in a small function whose
//! only calls are tail calls (session 22; moved here from `dcf.rs`).
//!
//! `start_attempt` (an access timer's expiry: every DATA frame of the
//! 2-hop, every RTS of the chains) and `transmit` (every frame) saved six
//! and four registers for calls their common cases never make: the rate
//! controller's (adaptive rates only), a new frame size's air time
//! (`air_time_new`: once per size and rate), a full action vector's
//! growth, the DATA frame written out of line (`put_data_frame`) and the
//! countdown's freeze in the middle of `transmit`. The common cases (a
//! constant rate, a unicast RTS or DATA frame, remembered air times, room
//! in the action vector) are taken without them; anything else goes to
//! the general paths below, the code of before, before anything is
//! changed (or after only what they would change the same way:
//! `pick_rate`'s choice, which is remembered and the same when chosen
//! again). `transmit` freezes the countdown last instead of first: the
//! freeze touches only the countdown (`access_pending`, `access_gen`, the
//! entities' `backoff`, `counted_to`), which nothing else in it reads.

use super::*;

impl Dcf {
    /// A contending station's access timer fired: its packet's first frame
    /// (RTS, or the DATA frame itself) goes on the air.
    #[inline(never)]
    pub(super) fn start_attempt(&mut self, now: Time, out: &mut Vec<MacAction>) {
        let (to, bytes) = match &self.acs[self.ai()].current {
            Some(p) => (p.next_hop, Frame::data_bytes(p)),
            None => return self.start_attempt_general(now, out),
        };
        if to == BROADCAST || self.rate.is_adaptive() {
            return self.start_attempt_general(now, out);
        }
        let rate = self.pick_rate(now, to, bytes);
        if self.rts_for(to, bytes) {
            let Some(data_time) = self.air_time_known(bytes, rate) else {
                return self.start_attempt_general(now, out);
            };
            self.txop_start = now;
            self.state = State::SendingRts;
            self.stats.rts_sent += 1;
            // `ack_time(rate)` at a constant rate (`dcf/cts.rs`).
            let duration = self.sifs * 3 + self.cts_time + data_time + self.ack_basic;
            let retry = self.acs[self.ai()].current_retry;
            let f = &mut self.tx_frame;
            f.kind = FrameKind::Rts;
            f.src = self.addr;
            f.dst = to;
            f.duration = duration;
            f.seq = 0;
            f.tid = None;
            f.retry = retry;
            f.bytes = frame::RTS_BYTES;
            f.rate = self.phy.basic_rate;
            f.packet = None;
            return self.transmit(now, out);
        }
        self.txop_start = now;
        self.state = State::SendingData;
        self.stats.data_sent += 1;
        self.rate.sent(rate);
        self.write_data_frame(self.ack_basic); // `ack_time` at a constant rate
        self.transmit(now, out)
    }

    /// Puts `tx_frame` on the air (written in place: no frame moves).
    #[inline(never)]
    pub(super) fn transmit(&mut self, now: Time, out: &mut Vec<MacAction>) {
        let (bytes, rate) = (self.tx_frame.bytes, self.tx_frame.rate);
        let Some(d) = self.air_time_known(bytes, rate) else { return self.transmit_general(now, out) };
        if out.len() == out.capacity() {
            return self.transmit_general(now, out);
        }
        self.transmitting = true;
        self.stats.bytes_on_air += bytes as u64;
        self.stats.airtime_ns += d.as_ns();
        out.push(MacAction::Transmit(d));
        self.freeze(now)
    }

    /// `start_attempt`'s general path: every frame, rate and air time.
    #[inline(never)]
    fn start_attempt_general(&mut self, now: Time, out: &mut Vec<MacAction>) {
        self.txop_start = now;
        // The packet's receiver and size only: the packet stays in its
        // entity until `put_data_frame` copies it into the frame.
        let (to, bytes) = match &self.acs[self.ai()].current {
            Some(p) => (p.next_hop, Frame::data_bytes(p)),
            None => panic!("contending without a packet"),
        };
        if to == BROADCAST {
            self.state = State::SendingBroadcast;
            self.stats.broadcast_sent += 1;
            self.put_data_frame();
            self.transmit(now, out);
        } else if self.rts_for(to, bytes) {
            self.state = State::SendingRts;
            self.stats.rts_sent += 1;
            let rate = self.pick_rate(now, to, bytes);
            let data_time = self.air_time(bytes, rate);
            // Any rate controller: under an adaptive one the ACK goes at
            // the data rate's control rate (`dcf/cts.rs` `ack_time`).
            let duration = self.sifs * 3 + self.cts_time + data_time + self.ack_time(rate);
            self.tx_frame = Frame {
                kind: FrameKind::Rts,
                src: self.addr,
                dst: to,
                duration,
                seq: 0,
                tid: None,
                retry: self.acs[self.ai()].current_retry,
                bytes: frame::RTS_BYTES,
                rate: self.phy.basic_rate,
                packet: None,
            };
            self.transmit(now, out);
        } else {
            self.state = State::SendingData;
            self.stats.data_sent += 1;
            let rate = self.pick_rate(now, to, bytes);
            self.rate.sent(rate);
            self.put_data_frame();
            self.transmit(now, out);
        }
    }

    /// `transmit`'s general path (a frame size and rate not remembered,
    /// or a full action vector): the steps in their first order.
    #[cold]
    #[inline(never)]
    fn transmit_general(&mut self, now: Time, out: &mut Vec<MacAction>) {
        let (bytes, rate) = (self.tx_frame.bytes, self.tx_frame.rate);
        let d = self.air_time(bytes, rate);
        self.freeze(now);
        self.transmitting = true;
        self.stats.bytes_on_air += bytes as u64;
        self.stats.airtime_ns += d.as_ns();
        out.push(MacAction::Transmit(d));
    }
}

#[cfg(test)]
#[path = "fast_tests.rs"]
mod tests;
