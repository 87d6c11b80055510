//! Two ns-3.37 behaviours of the DCF, each an option (on in the `ns3`
//! profile only; docs/mac.md "ns-3.37 retry counters and in-flight expiry").
//!
//! **Retry counters per station** (`mac.retry_counters = "station"`).
//! IEEE 802.11-2016 §10.3.3 keeps a short and a long retry count per frame
//! (manetlab's default, and ns-2's: `mac-802_11.cc` resets `ssrc_`/`slrc_`
//! for every new packet). ns-3.37's `WifiRemoteStationManager` keeps one
//! pair per access category for the whole station
//! (`wifi-remote-station-manager.h`: `m_ssrc[AC_BE_NQOS]`,
//! `m_slrc[AC_BE_NQOS]`), shared by every receiver and never reset when a
//! new frame starts (`wifi-remote-station-manager.cc`):
//! - `ReportRtsFailed` / `ReportDataFailed` add one (data: to the long
//!   counter if the MPDU is longer than `RtsCtsThreshold`, else the short);
//! - `NeedRetransmission` retries while the counter is below `MaxSsrc` 7 /
//!   `MaxSlrc` 4;
//! - `ReportRtsOk` zeroes the short counter, `ReportDataOk` the MPDU's own
//!   counter, `ReportFinalRtsFailed` the short, `ReportFinalDataFailed` the
//!   MPDU's own one.
//!
//! So a frame that leaves the MAC without a success or a retry-limit drop
//! (expired, below) hands its count to the next frame, and a long frame
//! dropped because its RTS failed leaves its long count behind.
//! [`Dcf::reset_counter`] is called at the success and retry-limit points
//! in either mode; with per-frame counters `load` and `finish_exchange`
//! clear both counters as before, so the default is unchanged.
//!
//! **In-flight expiry** (`queue.expire_in_flight = true`, with
//! `queue.max_delay`). ns-3.37's MAC does not take a frame out of its
//! `WifiMacQueue` while it sends and retries it: the MPDU stays at the
//! head until it is acknowledged or dropped (`FrameExchangeManager::
//! DequeueMpdu`). The queue removes every MPDU whose lifetime ended
//! (`WifiMacQueueContainer::DoExtractExpiredMpdus`: `expiryTime <= now`)
//! whenever `WifiMacQueue::WipeAllExpiredMpdus` runs, and that includes
//! the head being retried. It runs (`txop.cc`, `frame-exchange-manager.cc`)
//! - in `Txop::HasFramesToTransmit`, called by `Txop::Queue` for every
//!   packet handed to the MAC ([`Dcf::on_queue_enqueue`]) and by
//!   `Txop::NotifyChannelReleased` after every frame exchange (here: after
//!   a failed attempt, in `attempt_failed`; after a success the frame is
//!   gone anyway);
//! - in `FrameExchangeManager::StartTransmission` when channel access is
//!   granted ([`Dcf::expire_at_access`]): if the head expired, the next
//!   MPDU of the queue is sent in the same access.
//!
//! Removing an MPDU resets neither the retry counters nor the contention
//! window (`Txop::ResetCw` is called only on success and on a retry-limit
//! drop). An MPDU removed during its own exchange is still acknowledged
//! normally if the ACK comes; if it does not, ns-3 counts the failure and
//! (below the limit) has nothing left to retransmit.
//!
//! **Immediate access when the medium is idle at that instant**
//! (`mac.immediate_access = "idle-now"`). IEEE 802.11-2016 §10.3.4.2 lets a
//! frame go without a random backoff when the medium "is idle when a frame
//! is queued for transmission, and remains idle for a period of a DIFS"
//! (and the backoff timer is zero). manetlab's default reads it as ns-2's
//! successors usually do: no backoff only if the medium has *already* been
//! idle for DIFS when the frame arrives (so a frame handed over at the end
//! of a reception, e.g. a relay forwarding what it just received, always
//! draws a backoff). ns-3.37 decides at the instant the frame is queued:
//! `Txop::Queue` -> `ChannelAccessManager::NeedBackoffUponAccess` draws a
//! backoff only if the queue was empty, the backoff is zero and `IsBusy()`
//! (receiving, transmitting, NAV, CCA busy *now*); otherwise the frame
//! keeps backoff zero and waits only for DIFS after the medium is next idle
//! long enough (`GetBackoffEndFor`). A frame passed up at the end of a
//! reception is queued before the ACK for it goes out (`PhyEntity::
//! EndReceivePayload` forwards it before `SwitchFromRxEndOk`; the ACK
//! follows SIFS later), so every relay and the TCP receiver send their next
//! frame DIFS after their own ACK, with no random backoff, while the
//! neighbour that just got that ACK draws its post-backoff. Not modelled:
//! ns-3 also waits DIFS from the queueing instant itself
//! (`UpdateBackoffSlotsNow(0, now + DIFS)`), i.e. up to 50 µs (802.11b)
//! later for a frame arriving at a medium idle for long.
//!
//! Here the kernel tells the MAC when the packet it hands over expires
//! ([`Dcf::set_expiry`], from the queue's stamp) and the MAC drops it at
//! the same three points with [`MacAction::Expired`]. Plain DCF only; an
//! EDCA MAC ignores the expiry.

use super::*;

/// Whose retry counters the DCF keeps (`mac.retry_counters`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum RetryCounters {
    /// One pair per frame, cleared for every new frame (IEEE 802.11, ns-2).
    #[default]
    Mpdu,
    /// One pair per station and access category, cleared only by a
    /// success or a retry-limit drop (ns-3.37).
    Station,
}

impl RetryCounters {
    /// The `mac.retry_counters` names.
    pub const ALL: [(&'static str, RetryCounters); 2] =
        [("mpdu", RetryCounters::Mpdu), ("station", RetryCounters::Station)];
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(_, k)| *k == self).map_or("mpdu", |(n, _)| n)
    }
}

/// When a frame handed to an idle DCF goes without a random backoff
/// (`mac.immediate_access`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum ImmediateAccess {
    /// The medium has been idle for DIFS (EIFS) already and no response is
    /// pending (manetlab's default, the ns2 profile).
    #[default]
    IdleForDifs,
    /// The medium is idle at that instant (not receiving, transmitting or
    /// under NAV); the frame still waits DIFS after the medium is idle
    /// (ns-3.37 `NeedBackoffUponAccess`).
    IdleNow,
}

impl ImmediateAccess {
    /// The `mac.immediate_access` names.
    pub const ALL: [(&'static str, ImmediateAccess); 2] =
        [("idle-for-difs", ImmediateAccess::IdleForDifs), ("idle-now", ImmediateAccess::IdleNow)];
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(_, k)| *k == self).map_or("idle-for-difs", |(n, _)| n)
    }
}

impl Dcf {
    /// Whether a frame handed to entity `i` with no backoff pending may go
    /// without one (`mac.immediate_access`); it still waits for
    /// `access_start` in either case.
    pub(super) fn may_skip_backoff(&self, now: Time, i: usize) -> bool {
        if self.immediate_if_idle {
            self.medium_idle(now)
        } else {
            self.medium_idle(now) && !self.responding && now >= self.access_start(i)
        }
    }

    /// A success or a retry-limit drop of a frame: its own counter (the
    /// long one for frames sent after RTS/CTS) starts again from zero
    /// (ns-3.37 `ReportDataOk`, `ReportFinalDataFailed`,
    /// `ReportFinalRtsFailed`).
    pub(super) fn reset_counter(&mut self, long: bool) {
        let a = &mut self.acs[self.ai()];
        if long {
            a.slrc = 0;
        } else {
            a.ssrc = 0;
        }
    }

    /// The packet just handed over (plain DCF) leaves the interface
    /// queue's lifetime at `at`.
    pub fn set_expiry(&mut self, at: Time) {
        if self.n_acs == 1 && self.acs[0].current.is_some() {
            self.acs[0].expires = Some(at);
        }
    }

    /// Whether the held packet's lifetime ended (during its exchange, or
    /// by `now`).
    pub(super) fn in_flight_expired(&self, now: Time) -> bool {
        let a = &self.acs[self.ai()];
        a.current.is_some() && (a.expired || a.expires.is_some_and(|e| e <= now))
    }

    /// The interface queue took a packet (ns-3.37 `Txop::Queue` ->
    /// `HasFramesToTransmit` -> `WipeAllExpiredMpdus`): an expired packet
    /// waiting for channel access is dropped at once (the backoff goes on,
    /// for the next packet); one in its frame exchange is marked and
    /// dropped when the exchange fails.
    pub fn on_queue_enqueue(&mut self, now: Time, out: &mut Vec<MacAction>) {
        if self.n_acs != 1 || !self.in_flight_expired(now) {
            return;
        }
        if self.state == State::Contend {
            self.drop_expired(now, out);
        } else {
            self.acs[0].expired = true;
        }
    }

    /// Channel access was granted with an expired packet (ns-3.37
    /// `FrameExchangeManager::StartTransmission`): it is dropped and the
    /// access goes to the next packet, which the kernel hands over now
    /// (no backoff is left, and the medium has been idle long enough).
    pub(super) fn expire_at_access(&mut self, now: Time, out: &mut Vec<MacAction>) -> bool {
        if !self.in_flight_expired(now) {
            return false;
        }
        self.drop_expired(now, out);
        true
    }

    /// Drops the held packet as expired; the contention window, retry
    /// counters and any backoff drawn stay as they are.
    pub(super) fn drop_expired(&mut self, now: Time, out: &mut Vec<MacAction>) {
        let a = &mut self.acs[self.ai()];
        let p = a.current.take().expect("expiring without a packet");
        a.expires = None;
        a.expired = false;
        self.expired_in_flight += 1;
        out.push(MacAction::Expired(p));
        self.state = State::Idle;
        self.schedule_access(now, out);
        out.push(MacAction::Ready);
    }
}
