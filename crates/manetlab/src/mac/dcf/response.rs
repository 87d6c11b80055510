//! The frames the DCF writes into `tx_frame` from its own state: a pending
//! response (CTS, ACK, DATA after CTS) kept as its few fields until it goes,
//! and the DATA frame written in place (moved out of `dcf.rs`, which would
//! be over 800 lines with them).

use super::*;

/// A response due SIFS after the frame that asked for it (`Dcf::respond`):
/// a CTS or an ACK, the control frame's fields, or (`kind` Data) the DATA
/// frame after a CTS (or in a TXOP), written from the active entity's packet
/// when it goes (`Dcf::put_data_frame`). What that frame reads (the entity's
/// packet, sequence number, retry bit and rate, `active`) does not change
/// while the DCF is in `DataPending`: timeouts and access timers do not act
/// in that state and no other exchange starts. Small: no frame (and its
/// packet room) is copied into and out of it.
#[derive(Copy, Clone, Debug)]
pub(super) struct Response {
    pub(super) kind: FrameKind,
    pub(super) dst: MacAddr,
    pub(super) duration: Time,
    pub(super) bytes: u32,
    pub(super) rate: u64,
}

impl Response {
    /// The DATA frame of the exchange in progress.
    pub(super) const DATA: Response = Response { kind: FrameKind::Data, dst: 0, duration: Time::ZERO, bytes: 0, rate: 0 };
}

impl Dcf {
    pub(super) fn respond(&mut self, now: Time, r: Response, out: &mut Vec<MacAction>) {
        self.response = Some(r);
        self.reply_at = Time::MAX; // (an ACK's or CTS's caller sets it after this)
        self.response_gen = self.response_gen.wrapping_add(1);
        // No saved registers: the vector's growth is out of line (`backoff.rs`).
        super::backoff::push_timer(out, now + self.sifs, MacTimer::Response, self.response_gen);
    }

    /// The response must start within SIFS + a slot (§10.3.2.9); we wait for
    /// its whole duration plus that margin.
    pub(super) fn set_timeout(&mut self, now: Time, response: Time, out: &mut Vec<MacAction>) {
        self.timeout_gen = self.timeout_gen.wrapping_add(1);
        let at = now + self.sifs + response + self.slot;
        out.push(MacAction::Timer { at, kind: MacTimer::Timeout, gen: self.timeout_gen });
    }

    /// A control response (CTS or ACK) to `to`: addressed to its sender, at
    /// the response rate for the rate `to` came at.
    pub(super) fn response_frame(&self, kind: FrameKind, to: &Frame, duration: Time, bytes: u32) -> Response {
        Response { kind, dst: to.src, duration, bytes, rate: self.rate.response_rate(&self.phy, to.rate) }
    }

    /// Writes the DATA frame of the active entity's packet into `tx_frame`
    /// (unicast: at the rate `pick_rate` chose) in place: the packet is
    /// copied once, from the entity into the frame, instead of out, into a
    /// frame and the frame into `tx_frame` (`memmove` calls of 160-200 bytes
    /// each).
    #[inline(never)]
    pub(super) fn put_data_frame(&mut self) {
        let ack = self.ack_time(self.acs[self.ai()].rate);
        self.write_data_frame(ack)
    }

    /// `put_data_frame`'s body, `ack` the unicast frame's ACK time
    /// (`ack_time` of its rate; inlined into `start_attempt`'s common
    /// case, which passes the constant rate's `ack_basic`).
    #[inline(always)]
    pub(super) fn write_data_frame(&mut self, ack: Time) {
        let a = &self.acs[self.ai()];
        let Some(p) = a.current.as_ref() else { unreachable!("a DATA frame without a packet") };
        let (duration, rate) =
            if p.next_hop == BROADCAST { (Time::ZERO, self.phy.basic_rate) } else { (self.sifs + ack, a.rate) };
        let f = &mut self.tx_frame;
        f.kind = FrameKind::Data;
        f.src = self.addr;
        f.dst = p.next_hop;
        f.duration = duration;
        f.seq = a.current_seq;
        f.tid = a.tid;
        f.retry = a.current_retry;
        f.bytes = Frame::data_bytes(p);
        f.rate = rate;
        super::copy::copy_option(&mut f.packet, &a.current);
    }
}
