//! EDCA channel access (IEEE 802.11-2016 §10.22.2): the winner among
//! the access categories whose backoff ended, internal collisions, and
//! continuing a TXOP.

use super::*;

impl Dcf {
    /// EDCA: the access timer fired. Every entity whose countdown ends now
    /// wants the medium; the highest-priority one gets it, and each other
    /// one holding a packet suffers an internal collision (§10.22.2.4):
    /// it doubles its CW and draws a new backoff, as after an external
    /// collision (without counting a retry). An entity whose post-backoff
    /// ends with nothing to send just stops. Entities still counting keep
    /// the slots they counted.
    pub(super) fn edca_access(&mut self, now: Time, out: &mut Vec<MacAction>) {
        let mut winner = None;
        for i in 0..self.n_acs {
            if self.acs[i].backoff.is_none() {
                continue;
            }
            if self.acs[i].access_at > now {
                self.count_down(i, now);
                continue;
            }
            self.acs[i].backoff = None;
            if self.acs[i].current.is_none() {
                continue;
            }
            if winner.is_none() {
                winner = Some(i);
            } else {
                self.stats.internal_collisions += 1;
                let a = &mut self.acs[i];
                a.cw = (2 * a.cw + 1).min(a.cw_max);
                let b = self.rng.uniform_incl(self.acs[i].cw);
                self.acs[i].backoff = Some(b);
            }
        }
        match winner {
            Some(i) => {
                self.active = i;
                self.start_attempt(now, out);
            }
            None => {
                if self.acs[..self.n_acs].iter().all(|a| a.current.is_none()) {
                    self.state = State::Idle;
                }
                self.schedule_access(now, out);
            }
        }
    }

    /// EDCA TXOP (§10.22.2.8): a packet handed to the entity that just
    /// completed an exchange, at that instant, goes out SIFS later without
    /// a new backoff if its whole exchange (DATA, SIFS, ACK) ends within
    /// the TXOP limit counted from the first frame of the opportunity.
    /// Unicast without RTS only; the post-backoff drawn at the end of the
    /// previous exchange stays frozen until the opportunity ends.
    pub(super) fn continue_txop(&mut self, now: Time, i: usize, pkt: &Packet, out: &mut Vec<MacAction>) -> bool {
        let limit = self.acs[i].txop;
        if limit == Time::ZERO
            || pkt.next_hop == BROADCAST
            || self.uses_rts(pkt)
            || !matches!(self.state, State::Idle | State::Contend)
            || self.responding
            || self.response.is_some()
        {
            return false;
        }
        let rate = self.rate.choose(now, pkt.next_hop, Frame::data_bytes(pkt), 0);
        let exchange = self.sifs * 2 + self.phy.frame_time(Frame::data_bytes(pkt), rate) + self.ack_time(rate);
        if now + exchange > self.txop_start + limit {
            return false;
        }
        self.freeze(now);
        self.load(i, pkt);
        self.active = i;
        (self.acs[i].rate, self.acs[i].rate_attempt) = (rate, 0);
        self.state = State::DataPending;
        self.stats.txop_continuations += 1;
        self.respond(now, Response::DATA, out);
        true
    }
}
