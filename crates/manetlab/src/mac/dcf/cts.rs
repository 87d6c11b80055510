//! The RTS receive path: when a station answers an RTS addressed to it
//! with a CTS (`mac.cts_rule`, docs/mac.md "RTS/CTS").
//!
//! - `"standard"` (default, every profile): IEEE 802.11-2016 §10.3.2.7:
//!   the NAV is checked when the RTS ends; physical carrier sense is not.
//! - `"ns2"`: ns-2.35's `Mac802_11` (`mac/mac-802_11.cc`). `recvRTS` does
//!   not look at the NAV: it builds the CTS whenever the station is not in
//!   its own exchange (`tx_state_` idle) and no response is pending
//!   (`pktCTRL_`). The check comes SIFS later, when `check_pktCTRL` is
//!   about to send the CTS: it is discarded (`DROP_MAC_BUSY`, not traced)
//!   unless `is_idle()`: no frame being received (`rx_state_`; here: the PHY
//!   senses no signal), not transmitting, and the NAV expired. ns-2's NAV
//!   also covers EIFS after every frame that failed to decode (`recv_timer`:
//!   `set_nav(EIFS)` on a collision or an error), which a later good frame
//!   does not clear; here that is `eifs_nav`, used for this check only
//!   (the station's own access still follows the EIFS rule of `dcf.rs`).
//! - `"ignore-nav"`: `recvRTS` alone, the NAV never checked. Not ns-2's
//!   rule (it leaves out `check_pktCTRL`); kept for the session-10
//!   measurement in docs/profiles.md.

use super::*;

/// When a station answers an RTS (`mac.cts_rule`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum CtsRule {
    /// NAV checked at the end of the RTS (IEEE 802.11).
    #[default]
    Standard,
    /// Medium idle SIFS after the RTS: no signal, NAV and EIFS over (ns-2.35).
    Ns2,
    /// NAV never checked.
    IgnoreNav,
}

impl CtsRule {
    /// The `mac.cts_rule` names.
    pub const ALL: [(&'static str, CtsRule); 3] =
        [("standard", CtsRule::Standard), ("ns2", CtsRule::Ns2), ("ignore-nav", CtsRule::IgnoreNav)];
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(_, k)| *k == self).map_or("standard", |(n, _)| n)
    }
}

impl Dcf {
    /// The ACK answering a DATA frame sent at `rate`.
    pub(super) fn ack_time(&self, rate: u64) -> Time {
        if !self.rate.is_adaptive() {
            return self.ack_basic; // `DcfRate::response_rate`: the basic rate
        }
        self.phy.frame_time(frame::ACK_BYTES, self.rate.response_rate(&self.phy, rate))
    }

    /// An RTS addressed to this station decoded at `now`.
    pub(super) fn on_rts(&mut self, now: Time, f: &Frame, out: &mut Vec<MacAction>) {
        let busy_exchange = matches!(
            self.state,
            State::SendingRts | State::WaitCts | State::DataPending | State::SendingData | State::WaitAck
        );
        let nav_ok = self.nav_until <= now || self.cts_rule != CtsRule::Standard;
        if nav_ok && !busy_exchange && !self.responding && self.response.is_none() {
            let duration = f.duration.saturating_sub(self.sifs + self.cts_time);
            let cts = self.response_frame(FrameKind::Cts, f, duration, frame::CTS_BYTES);
            self.respond(now, cts, out);
            if self.cts_rule != CtsRule::Ns2 {
                // Sent at its SIFS whatever the medium (`cts_may_go`):
                // a countdown armed before it is dead (`arm_access`).
                self.reply_at = now + self.sifs;
            }
        }
    }

    /// A CTS is due at `now` (SIFS after the RTS): may it go?
    pub(super) fn cts_may_go(&self, now: Time) -> bool {
        self.cts_rule != CtsRule::Ns2 || (!self.sensing && self.nav_until <= now && self.eifs_nav <= now)
    }

    /// A locked frame failed to decode at `now`.
    pub(super) fn failed_rx(&mut self, now: Time) {
        self.eifs_until = now + self.eifs;
        self.eifs_nav = self.eifs_until;
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;

    /// The CTS and ACK durations fixed at construction are the frame times
    /// they replace (DSSS long and short preamble, OFDM).
    #[test]
    fn fixed_control_frame_times() {
        use crate::phy::{PhyStandard, Preamble};
        let b = PhyMode {
            standard: PhyStandard::Dsss,
            preamble: Preamble::Long,
            data_rate: 11_000_000,
            basic_rate: 2_000_000,
        };
        let phys = [
            b,
            PhyMode { preamble: Preamble::Short, ..b },
            PhyMode { standard: PhyStandard::Ofdm, data_rate: 54_000_000, basic_rate: 24_000_000, ..b },
        ];
        for phy in phys {
            let cfg = MacConfig { phy, ..MacConfig::default() };
            let d = Dcf::new(0, &cfg, false, RngStream::new(1, 0, crate::sim::rng::Purpose::MacBackoff, 0));
            assert_eq!(d.cts_time, phy.frame_time(frame::CTS_BYTES, phy.basic_rate));
            for rate in [phy.basic_rate, phy.data_rate] {
                assert_eq!(d.ack_time(rate), phy.frame_time(frame::ACK_BYTES, d.rate.response_rate(&phy, rate)));
            }
        }
    }
}
