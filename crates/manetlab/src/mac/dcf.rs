//! IEEE 802.11 distributed coordination function (IEEE 802.11-2016 §10.3).
//!
//! The DCF is a state machine driven by the node: it is told when the PHY
//! senses energy or falls idle, when frames decode or fail, when its own
//! transmissions end and when its timers fire. It answers with [`MacAction`]s
//! (transmit a frame, set a timer, hand something up). Nothing here touches
//! the event queue or the channel directly.
//!
//! Channel access: the medium is idle when the PHY senses nothing, the radio
//! is not transmitting and the NAV has expired. A station defers DIFS (EIFS
//! after a frame that failed to decode) after the medium becomes idle, then
//! counts down its backoff one slot at a time; a slot interrupted by a busy
//! medium is not counted (§10.3.4.3). Backoff is drawn uniformly from
//! [0, CW]; CW doubles (CW = 2CW + 1) up to CWmax on each failed attempt and
//! resets to CWmin after success or a drop. After every transmission a new
//! backoff is drawn (post-backoff), so back-to-back frames are separated by
//! DIFS + backoff. A frame arriving at an idle MAC with no backoff pending,
//! on a medium idle for at least DIFS, is sent at once.

use super::edca::{AccessCategory, EdcaParams};
use super::frame::{self, Frame, FrameKind, MacAddr};
use super::rate::{DcfRate, RateControl, RateCount};
use super::MacConfig;
use crate::phy::PhyMode;
use crate::sim::{RngStream, Time};
use crate::wire::{Packet, BROADCAST};

mod airtime;
mod attempt;
mod backoff;
mod copy;
mod cts;
mod dup;
mod edca;
mod ends;
mod model;
mod ns3;
mod reports;
mod response;
mod rx;
mod stats;

pub use cts::CtsRule;
pub use ns3::{ImmediateAccess, RetryCounters};
pub use stats::MacStats;
#[cfg(test)]
pub(crate) use backoff::ARM_DEAD;
use response::Response;

/// The DCF's timers. Each carries a generation so a cancelled timer that
/// still fires is ignored.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MacTimer {
    /// DIFS/EIFS + backoff elapsed: the station may transmit.
    Access,
    /// No CTS or ACK arrived in time.
    Timeout,
    /// SIFS after a frame: send the pending response (CTS, DATA or ACK).
    Response,
}

/// What the DCF asks the node to do.
#[derive(Clone, Debug)]
pub enum MacAction {
    /// Put the MAC's outgoing frame ([`Dcf::tx_frame`]) on the air now for
    /// this duration. The frame stays in the MAC: actions stay small.
    Transmit(Time),
    /// Call `on_timer(kind, gen)` at `at`.
    Timer { at: Time, kind: MacTimer, gen: u32 },
    /// A data frame for this node (or broadcast) decoded.
    Deliver(Packet, MacAddr),
    /// A data frame for another node decoded (promiscuous tap). (The
    /// kernel's run of signal ends gets it returned by
    /// `Mac::on_rx_end_idle` instead, not pushed.)
    Overheard(Packet, MacAddr),
    /// A unicast packet was acknowledged, or a broadcast was sent.
    TxSuccess(Packet),
    /// Retries exhausted for this packet (link failure feedback).
    TxFailed(Packet),
    /// The packet outlived the interface queue's lifetime while the MAC
    /// held it (`queue.expire_in_flight`, `dcf/ns3.rs`): dropped.
    Expired(Packet),
    /// The MAC can take another packet from the interface queue.
    Ready,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    /// Nothing to send (a post-backoff may be counting down).
    Idle,
    /// A packet waits for channel access.
    Contend,
    /// Transmitting the RTS / waiting for the CTS.
    SendingRts,
    WaitCts,
    /// CTS received, DATA goes out after SIFS.
    DataPending,
    SendingData,
    WaitAck,
    SendingBroadcast,
}

/// One backoff entity: DCF's, or an EDCA access category's (§10.22.2).
/// `repr(C)`: the fields a signal start or end reads come first (see
/// [`Dcf`]).
#[derive(Copy, Clone, Debug)]
#[repr(C)]
struct Ac {
    /// DIFS, or AIFS[AC].
    aifs: Time,
    backoff: Option<u32>,
    /// Start of the current countdown and when it reaches zero.
    countdown_start: Time,
    access_at: Time,
    /// The backoff was counted down to this instant (EDCA).
    counted_to: Time,
    cw_min: u32,
    cw_max: u32,
    /// TXOP limit (zero: one frame exchange per access).
    txop: Time,
    cw: u32,
    current: Option<Packet>,
    current_seq: u16,
    current_retry: bool,
    /// The TID of this entity's QoS data frames (EDCA; `None` for DCF).
    tid: Option<u8>,
    ssrc: u32,
    slrc: u32,
    /// When the packet's queue lifetime ends (`None`: never), and whether
    /// it ended during the exchange in progress (`dcf/ns3.rs`).
    expires: Option<Time>,
    expired: bool,
    /// DATA attempts of the current packet that got no ACK, and the rate
    /// chosen for attempt `rate_attempt` (`u32::MAX`: none yet).
    data_failures: u32,
    rate: u64,
    rate_attempt: u32,
}

impl Ac {
    fn new(aifs: Time, cw_min: u32, cw_max: u32, txop: Time) -> Ac {
        Ac {
            aifs,
            cw_min,
            cw_max,
            txop,
            cw: cw_min,
            backoff: None,
            countdown_start: Time::ZERO,
            access_at: Time::ZERO,
            counted_to: Time::ZERO,
            current: None,
            current_seq: 0,
            current_retry: false,
            tid: None,
            ssrc: 0,
            slrc: 0,
            expires: None,
            expired: false,
            data_failures: 0,
            rate: 0,
            rate_attempt: u32::MAX,
        }
    }
}

/// `repr(C)`, the fields that every signal start and end at the node reads
/// or writes first (carrier sense, deferral, the backoff entity's countdown:
/// ~110 B from the start, two cache lines right after the radio's in
/// the node (`node.rs`, above this layer)); the frames, packets, random stream and counters
/// after them (docs/performance.md, "Large networks").
#[repr(C)]
pub struct Dcf {
    // Carrier sense and access: hot.
    sensing: bool,
    transmitting: bool,
    access_pending: bool,
    /// A response (CTS/ACK) is on the air; `state` is left as it was.
    responding: bool,
    /// ns-2 sets the NAV to EIFS past a frame that was captured out.
    nav_on_capture: bool,
    state: State,
    addr: MacAddr,
    n_acs: usize,
    /// The entity that owns the frame exchange in progress.
    active: usize,
    access_gen: u32,
    /// When the medium last became idle (energy gone and own tx over).
    idle_since: Time,
    nav_until: Time,
    /// After a frame that failed to decode, access may not start before
    /// this time (its end + EIFS); a correct frame clears it.
    eifs_until: Time,
    slot: Time,
    eifs: Time,
    // Channel access: one backoff entity per access category, each with
    // the packet it holds (one entity for plain DCF; AC_VO and AC_BE with
    // EDCA, index = `AccessCategory::index`).
    acs: [Ac; 2],

    // Cold.
    phy: PhyMode,
    sifs: Time,
    rts_threshold: Option<u32>,
    short_limit: u32,
    long_limit: u32,
    /// Retry counters per station and access category, not per frame
    /// (ns-3.37; `dcf/ns3.rs`).
    station_counters: bool,
    /// When an RTS is answered (`dcf/cts.rs`), and ns-2's EIFS NAV for it.
    cts_rule: CtsRule,
    eifs_nav: Time,
    /// A CTS, and an ACK, at the basic rate (every ACK unless rate control is adaptive).
    cts_time: Time,
    ack_basic: Time,
    /// An RTS at the basic rate; the last two other frames' (size, rate),
    /// as a key, and air time, the newer first (`dcf/airtime.rs`).
    rts_basic: Time,
    last_air: [(u64, Time); 2],
    /// `mac.immediate_access = "idle-now"` (ns-3.37; `dcf/ns3.rs`).
    immediate_if_idle: bool,
    /// Push `TxSuccess` / `Overheard` (`dcf/reports.rs`).
    report_success: bool,
    report_overheard: bool,
    /// Packets dropped by [`MacAction::Expired`] (not in `MacStats`).
    pub expired_in_flight: u64,
    /// EDCA: start of the current transmit opportunity, and the entity
    /// that may continue it with a packet handed over at the given instant
    /// (the end of its last successful exchange).
    txop_start: Time,
    txop_open: Option<(usize, Time)>,

    // Frame exchange.
    timeout_gen: u32,
    /// Sequence numbering (§10.3.2.11.2, `dup.rs`).
    seqs: dup::SeqCounters,
    response: Option<Response>,
    response_gen: u32,
    /// When a due ACK or sure CTS goes on the air (`Time::MAX`: none; `arm_access`).
    reply_at: Time,
    dup_cache: dup::DupCache,
    /// The frame most recently put on the air.
    tx_frame: Frame,

    rng: RngStream,
    pub stats: MacStats,
    /// Data-rate control (`mac/rate/`).
    rate: DcfRate,
}

impl Dcf {
    pub fn new(addr: MacAddr, cfg: &MacConfig, nav_on_capture: bool, rng: RngStream) -> Dcf {
        let phy = cfg.phy;
        let dcf = Ac::new(phy.difs(), cfg.cw_min(), cfg.cw_max(), Time::ZERO);
        let (acs, n_acs) = if cfg.edca {
            let ac = |c| {
                let e = EdcaParams::default_for(c, &phy);
                Ac { tid: Some(c.tid()), ..Ac::new(e.aifs(&phy), e.cw_min, e.cw_max, e.txop) }
            };
            ([ac(AccessCategory::Voice), ac(AccessCategory::BestEffort)], 2)
        } else {
            ([dcf, dcf], 1)
        };
        Dcf {
            addr,
            phy,
            slot: phy.slot(),
            sifs: phy.sifs(),
            eifs: phy.eifs(),
            rts_threshold: cfg.rts_threshold,
            short_limit: cfg.short_retry_limit.max(1),
            long_limit: cfg.long_retry_limit.max(1),
            nav_on_capture,
            station_counters: cfg.retry_counters == RetryCounters::Station,
            cts_rule: cfg.cts_rule,
            eifs_nav: Time::ZERO,
            cts_time: phy.frame_time(frame::CTS_BYTES, phy.basic_rate),
            ack_basic: phy.frame_time(frame::ACK_BYTES, phy.basic_rate),
            rts_basic: phy.frame_time(frame::RTS_BYTES, phy.basic_rate),
            // A true entry to start from: a 14-B frame at the basic rate.
            last_air: [(
                airtime::air_key(frame::ACK_BYTES, phy.basic_rate).unwrap_or(airtime::NO_AIR_KEY),
                phy.frame_time(frame::ACK_BYTES, phy.basic_rate),
            ); 2],
            immediate_if_idle: cfg.immediate_access == ImmediateAccess::IdleNow,
            report_success: true,
            report_overheard: true,
            expired_in_flight: 0,
            sensing: false,
            transmitting: false,
            idle_since: Time::ZERO,
            nav_until: Time::ZERO,
            eifs_until: Time::ZERO,
            reply_at: Time::MAX,
            acs,
            n_acs,
            active: 0,
            access_gen: 0,
            access_pending: false,
            txop_start: Time::ZERO,
            txop_open: None,
            state: State::Idle,
            timeout_gen: 0,
            seqs: dup::SeqCounters::new(),
            response: None,
            response_gen: 0,
            responding: false,
            dup_cache: dup::DupCache::new(),
            tx_frame: Frame {
                kind: FrameKind::Ack,
                src: addr,
                dst: addr,
                duration: Time::ZERO,
                seq: 0,
                tid: None,
                retry: false,
                bytes: 0,
                rate: 0,
                packet: None,
            },
            rng,
            stats: MacStats::default(),
            rate: DcfRate::constant(&phy),
        }
    }

    /// Replaces the constant data rate by a rate controller.
    pub fn set_rate_control(&mut self, ctl: Box<dyn RateControl>) {
        self.rate = DcfRate::new(&self.phy, ctl);
    }

    /// Rate control: a frame from `src` decoded with power `power_w`.
    pub fn on_rx_power(&mut self, src: MacAddr, power_w: f64) {
        self.rate.on_rx_power(src, power_w);
    }

    /// DATA attempts and ACKs per rate.
    pub fn rate_counts(&self) -> Vec<RateCount> {
        self.rate.counts()
    }

    /// Whether the MAC holds no packet and can take one from the queue
    /// (plain DCF; with EDCA use [`Dcf::can_accept_ac`]).
    pub fn can_accept(&self) -> bool {
        if self.n_acs == 1 {
            return self.acs[0].current.is_none();
        }
        self.acs[..self.n_acs].iter().all(|a| a.current.is_none())
    }

    /// Whether this MAC runs EDCA (one backoff entity per access category).
    pub fn is_edca(&self) -> bool {
        self.n_acs > 1
    }

    /// Whether the entity of access category `ac` holds no packet.
    pub fn can_accept_ac(&self, ac: AccessCategory) -> bool {
        self.acs[self.ac_index(ac)].current.is_none()
    }

    fn ac_index(&self, ac: AccessCategory) -> usize {
        if self.n_acs == 1 {
            0
        } else {
            ac.index()
        }
    }

    /// The packet of the exchange in progress (or last held), if any.
    pub fn current(&self) -> Option<&Packet> {
        self.acs[self.ai()].current.as_ref()
    }

    /// Visits every packet the MAC holds (end-of-run audit): one per
    /// access category.
    pub fn held(&self, f: &mut dyn FnMut(&Packet)) {
        self.acs[..self.n_acs].iter().filter_map(|a| a.current.as_ref()).for_each(f);
    }

    /// The frame being (or last) transmitted.
    pub fn tx_frame(&self) -> &Frame {
        &self.tx_frame
    }

    pub fn nav_until(&self) -> Time {
        self.nav_until
    }

    /// The rate of the current packet's next DATA attempt (chosen once per
    /// attempt; an RTS retry keeps it).
    /// `to` and `bytes`: the packet's receiver and DATA frame size.
    fn pick_rate(&mut self, now: Time, to: MacAddr, bytes: u32) -> u64 {
        let a = &self.acs[self.ai()];
        if a.rate_attempt != a.data_failures {
            let attempt = a.data_failures;
            let r = self.rate.choose(now, to, bytes, attempt);
            let a = &mut self.acs[self.ai()];
            a.rate = r;
            a.rate_attempt = attempt;
        }
        self.acs[self.ai()].rate
    }

    fn uses_rts(&self, pkt: &Packet) -> bool {
        self.rts_for(pkt.next_hop, Frame::data_bytes(pkt))
    }

    /// `uses_rts` of a packet to `to` in a DATA frame of `bytes`.
    fn rts_for(&self, to: MacAddr, bytes: u32) -> bool {
        match self.rts_threshold {
            Some(t) => to != BROADCAST && bytes > t,
            None => false,
        }
    }

    fn medium_idle(&self, now: Time) -> bool {
        !self.sensing && !self.transmitting && self.nav_until <= now
    }

    // ---- packets from above ----------------------------------------------

    /// Hands the MAC a packet (only when `can_accept`). `pkt.next_hop` is the
    /// receiver address. With EDCA the packet goes to AC_BE.
    pub fn enqueue(&mut self, now: Time, pkt: Packet, out: &mut Vec<MacAction>) {
        self.enqueue_ac(now, pkt, AccessCategory::BestEffort, out)
    }

    /// Makes `pkt` the current frame of entity `i`: next sequence number
    /// (EDCA unicast: of its <receiver, TID>; otherwise the shared one),
    /// retry counters cleared (unless they are the station's).
    fn load(&mut self, i: usize, pkt: &Packet) {
        let tid = self.acs[i].tid.filter(|_| pkt.next_hop != BROADCAST);
        let seq = self.seqs.next(pkt.next_hop, tid);
        self.load_seq(i, pkt, seq)
    }

    /// `load`'s steps after the sequence number.
    #[inline(always)]
    fn load_seq(&mut self, i: usize, pkt: &Packet, seq: u16) {
        let station = self.station_counters;
        let a = &mut self.acs[i];
        copy::copy_some(&mut a.current, pkt);
        a.current_seq = seq;
        a.current_retry = false;
        if !station {
            a.ssrc = 0;
            a.slrc = 0;
        }
        a.expires = None;
        a.expired = false;
        a.data_failures = 0;
        a.rate_attempt = u32::MAX;
    }

    /// Hands the entity of access category `ac` a packet (only when
    /// `can_accept_ac(ac)`).
    pub fn enqueue_ac(&mut self, now: Time, pkt: Packet, ac: AccessCategory, out: &mut Vec<MacAction>) {
        self.enqueue_ac_ref(now, &pkt, ac, out)
    }

    /// [`Dcf::enqueue_ac`] of a copy of `*pkt`, copied once, into the entity.
    /// Plain DCF with a backoff pending (a post-backoff counting: 77 % of
    /// the 2-hop's calls) is taken with tail calls only (session 22): no
    /// draw, the shared sequence counter, the freeze (the access timer
    /// armed at the exchange's end just before) out of line; the steps of
    /// `enqueue_general`, in its order.
    #[inline(never)]
    pub fn enqueue_ac_ref(&mut self, now: Time, pkt: &Packet, ac: AccessCategory, out: &mut Vec<MacAction>) {
        if self.n_acs != 1 || self.acs[0].backoff.is_none() || self.acs[0].tid.is_some() {
            return self.enqueue_general(now, pkt, ac, out);
        }
        debug_assert!(self.acs[0].current.is_none());
        // `load(0, pkt)`: no TID, so the shared counter.
        let seq = self.seqs.next_shared();
        self.load_seq(0, pkt, seq);
        if self.state == State::Idle {
            self.state = State::Contend;
        }
        // `schedule_access` (plain DCF). A countdown armed at this instant
        // or later (the post-backoff armed at the exchange's end, just
        // before the kernel fed this packet: 38 K of the 2-hop's 50 K
        // calls) has counted no slot: its freeze (`freeze_running`) only
        // clears `access_pending` and bumps the generation (`count_down`
        // changes nothing unless `now > countdown_start`), done here;
        // a countdown that has counted slots is frozen out of line.
        if self.access_pending {
            if now > self.acs[0].countdown_start {
                return self.freeze_then_schedule(now, out);
            }
            self.access_pending = false;
            self.access_gen = self.access_gen.wrapping_add(1);
        }
        if !matches!(self.state, State::Idle | State::Contend) || self.sensing || self.transmitting || self.responding {
            return;
        }
        self.arm_access(now, out)
    }

    /// `enqueue_ac_ref`'s general path (EDCA, a backoff to draw).
    #[inline(never)]
    fn enqueue_general(&mut self, now: Time, pkt: &Packet, ac: AccessCategory, out: &mut Vec<MacAction>) {
        let i = self.ac_index(ac);
        debug_assert!(self.acs[i].current.is_none());
        if self.n_acs > 1 && self.txop_open.take() == Some((i, now)) && self.continue_txop(now, i, pkt, out) {
            return;
        }
        self.load(i, pkt);
        if self.state == State::Idle {
            self.state = State::Contend;
        }
        if self.acs[i].backoff.is_none() {
            let b = if self.may_skip_backoff(now, i) { 0 } else { self.rng.uniform_incl(self.acs[i].cw) };
            self.acs[i].backoff = Some(b);
        }
        if self.n_acs == 1 || matches!(self.state, State::Idle | State::Contend) {
            self.schedule_access(now, out);
        }
    }

    // ---- events from the PHY ----------------------------------------------

    /// The PHY started sensing energy (a signal arrived at an idle receiver).
    pub fn on_sense_busy(&mut self, now: Time) {
        self.sensing = true;
        self.medium_became_busy(now);
    }

    /// A frame was ignored because the ongoing reception captured the
    /// receiver; `end` is when it ends.
    pub fn on_captured_out(&mut self, now: Time, end: Time, out: &mut Vec<MacAction>) {
        if self.nav_on_capture {
            let until = end + self.eifs;
            if until > self.nav_until {
                self.nav_until = until;
                self.schedule_access(now, out);
            }
        }
    }

    /// A locked frame ended. `decoded` is the frame if it decoded; `idle`
    /// tells whether the PHY now senses nothing. (A lost frame's steps are
    /// few and inlined at the caller; a decoded one goes to
    /// `rx_end_decoded`, `dcf/ends.rs`.)
    #[inline(always)]
    pub fn on_rx_end(&mut self, now: Time, decoded: Option<&Frame>, idle: bool, out: &mut Vec<MacAction>) {
        match decoded {
            Some(f) => self.rx_end_decoded(now, f, idle, out),
            None => {
                self.failed_rx(now);
                self.on_signal_end(now, idle, out);
            }
        }
    }

    /// A signal that was not locked ended (or after `on_rx_end`).
    pub fn on_signal_end(&mut self, now: Time, idle: bool, out: &mut Vec<MacAction>) {
        if idle && self.sensing {
            self.sensing = false;
            if !self.transmitting {
                self.idle_since = now;
            }
        }
        self.medium_maybe_idle(now, out);
    }

    fn receive(&mut self, now: Time, f: &Frame, out: &mut Vec<MacAction>) {
        if f.dst != self.addr {
            if f.dst == BROADCAST {
                if let Some(p) = f.packet {
                    out.push(MacAction::Deliver(p, f.src));
                }
                return;
            }
            return self.overheard(now, f, out);
        }
        match f.kind {
            FrameKind::Rts => self.on_rts(now, f, out),
            FrameKind::Cts => {
                if self.state == State::WaitCts && self.acs[self.ai()].current.map(|p| p.next_hop) == Some(f.src) {
                    self.timeout_gen = self.timeout_gen.wrapping_add(1);
                    self.acs[self.ai()].ssrc = 0;
                    self.state = State::DataPending;
                    self.respond(now, Response::DATA, out);
                }
            }
            FrameKind::Data => {
                if self.response.is_none() && !self.responding {
                    let ack = self.response_frame(FrameKind::Ack, f, Time::ZERO, frame::ACK_BYTES);
                    self.respond(now, ack, out);
                    self.reply_at = now + self.sifs;
                }
                if self.dup_cache.is_duplicate(f) {
                    self.stats.duplicates += 1;
                } else if let Some(p) = f.packet {
                    out.push(MacAction::Deliver(p, f.src));
                }
            }
            FrameKind::Ack => {
                if self.state == State::WaitAck {
                    self.timeout_gen = self.timeout_gen.wrapping_add(1);
                    self.stats.unicast_success += 1;
                    let a = &self.acs[self.ai()];
                    if let Some(p) = a.current {
                        self.rate.ok(now, p.next_hop, a.rate, a.data_failures);
                        self.reset_counter(self.uses_rts(&p));
                    }
                    self.succeeded(out);
                    if self.n_acs > 1 && self.acs[self.ai()].txop > Time::ZERO {
                        self.txop_open = Some((self.active, now));
                    }
                    self.finish_exchange(now, out);
                }
            }
        }
    }

    // ---- timers -----------------------------------------------------------

    pub fn on_timer(&mut self, now: Time, kind: MacTimer, gen: u32, out: &mut Vec<MacAction>) {
        match kind {
            MacTimer::Access if gen == self.access_gen && self.access_pending => {
                self.access_pending = false;
                if self.n_acs == 1 {
                    self.acs[0].backoff = None;
                    if self.state == State::Contend {
                        if !self.expire_at_access(now, out) {
                            self.start_attempt(now, out);
                        }
                    } else {
                        // Post-backoff finished with nothing to send.
                        self.state = State::Idle;
                    }
                } else {
                    self.edca_access(now, out);
                }
            }
            MacTimer::Timeout if gen == self.timeout_gen => {
                if !matches!(self.state, State::WaitCts | State::WaitAck) {
                    return;
                }
                // The backoff after a failed exchange counts from the
                // timeout, not from the end of our own frame (§10.3.2.9).
                if !self.sensing {
                    self.idle_since = self.idle_since.max(now);
                }
                let (exhausted, long) = if self.state == State::WaitCts {
                    self.stats.rts_failures += 1;
                    self.acs[self.ai()].ssrc += 1;
                    (self.acs[self.ai()].ssrc >= self.short_limit, false)
                } else {
                    self.stats.ack_failures += 1;
                    let p = self.acs[self.ai()].current.expect("ACK timeout without a packet");
                    let a = &mut self.acs[self.ai()];
                    self.rate.failed(now, p.next_hop, a.rate, a.data_failures);
                    a.data_failures += 1;
                    if self.uses_rts(&p) {
                        self.acs[self.ai()].slrc += 1;
                        (self.acs[self.ai()].slrc >= self.long_limit, true)
                    } else {
                        self.acs[self.ai()].ssrc += 1;
                        (self.acs[self.ai()].ssrc >= self.short_limit, false)
                    }
                };
                if exhausted {
                    self.reset_counter(long);
                }
                self.attempt_failed(now, exhausted, out);
            }
            MacTimer::Response if gen == self.response_gen => {
                if let Some(r) = self.response.take() {
                    self.reply_at = Time::MAX;
                    let kind = r.kind;
                    if self.transmitting || (kind == FrameKind::Cts && !self.cts_may_go(now)) {
                        return; // not while transmitting (cannot happen with SIFS spacing); `cts.rs`
                    }
                    if kind == FrameKind::Data {
                        self.put_data_frame();
                        self.state = State::SendingData;
                        self.stats.data_sent += 1;
                        self.rate.sent(self.tx_frame.rate);
                    } else {
                        // The control frame, written in place.
                        let f = &mut self.tx_frame;
                        f.kind = kind;
                        f.src = self.addr;
                        f.dst = r.dst;
                        f.duration = r.duration;
                        f.seq = 0;
                        f.tid = None;
                        f.retry = false;
                        f.bytes = r.bytes;
                        f.rate = r.rate;
                        f.packet = None;
                        self.responding = true;
                        if kind == FrameKind::Cts {
                            self.stats.cts_sent += 1;
                        } else {
                            self.stats.ack_sent += 1;
                        }
                    }
                    self.transmit(now, out);
                }
            }
            _ => {}
        }
    }

    /// Whether `on_timer(kind, gen)` could still act (see
    /// `MacProtocol::timer_live`): generations only grow, and an access
    /// timer whose countdown was frozen stays dead.
    pub fn timer_live(&self, kind: MacTimer, gen: u32) -> bool {
        match kind {
            MacTimer::Access => gen == self.access_gen && self.access_pending,
            MacTimer::Timeout => gen == self.timeout_gen,
            MacTimer::Response => gen == self.response_gen,
        }
    }

    /// Our transmission ended.
    pub fn on_tx_end(&mut self, now: Time, out: &mut Vec<MacAction>) {
        self.transmitting = false;
        if !self.sensing {
            self.idle_since = now;
        }
        if self.responding {
            self.responding = false;
        } else {
            match self.state {
                State::SendingRts => {
                    self.state = State::WaitCts;
                    self.set_timeout(now, self.cts_time, out);
                }
                State::SendingData => {
                    let p = self.acs[self.ai()].current.expect("sending data without a packet");
                    if p.next_hop == BROADCAST {
                        unreachable!("broadcast uses SendingBroadcast");
                    }
                    self.state = State::WaitAck;
                    self.set_timeout(now, self.ack_time(self.acs[self.ai()].rate), out);
                }
                State::SendingBroadcast => {
                    self.succeeded(out);
                    self.finish_exchange(now, out);
                    return;
                }
                _ => {}
            }
        }
        self.medium_maybe_idle(now, out);
    }

    fn attempt_failed(&mut self, now: Time, exhausted: bool, out: &mut Vec<MacAction>) {
        if exhausted {
            self.stats.retry_drops += 1;
            let p = self.acs[self.ai()].current.take().expect("failed attempt without a packet");
            out.push(MacAction::TxFailed(p));
            self.finish_exchange(now, out);
        } else {
            self.acs[self.ai()].cw = (2 * self.acs[self.ai()].cw + 1).min(self.acs[self.ai()].cw_max);
            self.acs[self.ai()].backoff = Some(self.draw_backoff());
            self.state = State::Contend;
            if self.in_flight_expired(now) {
                return self.drop_expired(now, out);
            }
            self.stats.retries += 1;
            self.acs[self.ai()].current_retry = true;
            self.schedule_access(now, out);
        }
    }

    /// Success or drop: reset CW, start the post-backoff, ask for more.
    fn finish_exchange(&mut self, now: Time, out: &mut Vec<MacAction>) {
        if self.n_acs == 1 {
            // Plain DCF: the steps below on its one entity (`active` is 0).
            let station = self.station_counters;
            let a = &mut self.acs[0];
            a.cw = a.cw_min;
            if !station {
                a.ssrc = 0;
                a.slrc = 0;
            }
            self.state = if a.current.is_some() { State::Contend } else { State::Idle };
            let b = self.rng.uniform_incl(self.acs[0].cw);
            self.acs[0].backoff = Some(b);
            self.schedule_access(now, out);
            return out.push(MacAction::Ready);
        }
        self.acs[self.ai()].cw = self.acs[self.ai()].cw_min;
        if !self.station_counters {
            self.acs[self.ai()].ssrc = 0;
            self.acs[self.ai()].slrc = 0;
        }
        self.state =
            if self.acs[..self.n_acs].iter().any(|a| a.current.is_some()) { State::Contend } else { State::Idle };
        self.acs[self.ai()].backoff = Some(self.draw_backoff());
        self.schedule_access(now, out);
        out.push(MacAction::Ready);
    }
}
