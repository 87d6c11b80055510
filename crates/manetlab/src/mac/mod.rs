//! Medium access: IEEE 802.11 DCF, TDMA; the MAC registry.
//!
//! `frame` defines the frames and their sizes, `dcf` the distributed
//! coordination function (carrier sense, NAV, backoff, RTS/CTS/DATA/ACK,
//! retries, duplicate detection, link-failure feedback), `tdma` a fixed
//! frame of slots. A MAC implements [`MacProtocol`] (the calls the kernel
//! makes) and [`MacModel`] (its scenario names and keys, how it is built)
//! and is registered by one line in [`macs!`].

pub mod edca;
pub use crate::wire::frame;
pub mod rate;

pub use dcf::{CtsRule, Dcf, ImmediateAccess, MacAction, MacStats, MacTimer, RetryCounters};
pub use frame::{Frame, FrameKind, MacAddr};
pub use rate::{RateControlKind, RateCount};
pub use tdma::Tdma;

use crate::phy::PhyMode;
use crate::sim::params::{ParamError, Params};
use crate::sim::Time;
use crate::wire::Packet;
use edca::AccessCategory;

#[derive(Clone, Debug, PartialEq)]
pub struct MacConfig {
    pub phy: PhyMode,
    /// Unicast frames whose MAC size exceeds this use RTS/CTS; `None` = never.
    /// ns-2's default 0 means every unicast frame.
    pub rts_threshold: Option<u32>,
    /// dot11ShortRetryLimit (attempts of frames not protected by RTS, and of RTS).
    pub short_retry_limit: u32,
    /// dot11LongRetryLimit (attempts of frames sent after RTS/CTS).
    pub long_retry_limit: u32,
    /// Overrides of the PHY's CWmin / CWmax.
    pub cw_min: Option<u32>,
    pub cw_max: Option<u32>,
    /// Which MAC: the 802.11 DCF (default) or TDMA.
    pub kind: MacKind,
    /// 802.11e EDCA with AC_VO and AC_BE and the standard's default
    /// parameters (`edca.rs`) instead of plain DCF.
    pub edca: bool,
    /// Data-rate control per neighbour (`rate/`); with anything but
    /// `Constant`, `phy.data_rate` is the highest rate used.
    pub rate_control: RateControlKind,
    /// DCF retry counters per frame (default) or per station and access
    /// category as ns-3.37 (`dcf/ns3.rs`).
    pub retry_counters: RetryCounters,
    /// When the DCF answers an RTS: IEEE 802.11 (default) or ns-2.35's
    /// rule (`dcf/cts.rs`).
    pub cts_rule: CtsRule,
    /// When a frame handed to an idle DCF with no backoff pending goes
    /// without one: medium idle for DIFS already (default) or idle at that
    /// instant (ns-3.37, `dcf/ns3.rs`).
    pub immediate_access: ImmediateAccess,
}

/// The registry of MACs: one line per MAC, naming the [`MacKind`] variant
/// (with its fields, if it has any) and the module and type implementing
/// [`MacModel`] and [`MacProtocol`]. The macro declares the module, the
/// `MacKind` variant, the per-node [`Mac`] enum whose methods dispatch by
/// `match` (static calls, no virtual call per event) and the [`MACS`]
/// table from which the scenario layer reads `mac.protocol` and the
/// MAC's keys; nothing else in the tree names a MAC.
macro_rules! macs {
    ($( $(#[$doc:meta])* $variant:ident
        $({ $( $(#[$fdoc:meta])* $field:ident : $fty:ty ),* $(,)? })?
        $(( $tty:ty ))?
        => $module:ident :: $model:ident, )*) => {
        $( pub mod $module; )*

        /// The medium access protocol of every node.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
        #[non_exhaustive]
        pub enum MacKind {
            $( $(#[$doc])* $variant $({ $( $(#[$fdoc])* $field : $fty ),* })? $(( $tty ))?, )*
        }

        impl MacKind {
            /// The MAC's canonical `mac.protocol` name.
            pub fn name(&self) -> &'static str {
                match self {
                    $( MacKind::$variant { .. } => <$module::$model as MacModel>::NAMES[0], )*
                }
            }
        }

        /// A node's MAC: one variant per registered MAC (same calls, same
        /// actions).
        #[allow(clippy::large_enum_variant)]
        // (the tag first, in the node's hot lines, session 20: without it
        // the tag sat in a niche of a cold DCF field 0x4d8 bytes in, a
        // line of its own that every signal start and end read)
        #[repr(u8)]
        pub enum Mac {
            $( $variant($module::$model), )*
        }

        macro_rules! each {
            ($self:ident, $m:ident => $e:expr) => {
                match $self {
                    $( Mac::$variant($m) => $e, )*
                }
            };
        }

        impl Mac {
            /// One node's MAC as `cfg.kind` says.
            pub fn build(cfg: &MacConfig, env: &MacEnv) -> Mac {
                match cfg.kind {
                    $( MacKind::$variant { .. } => Mac::$variant(<$module::$model as MacModel>::build(cfg, env)), )*
                }
            }
        }

        /// Every registered MAC, in registration order.
        pub const MACS: &[MacEntry] = &[
            $( MacEntry {
                names: <$module::$model as MacModel>::NAMES,
                keys: <$module::$model as MacModel>::KEYS,
                parse: <$module::$model as MacModel>::parse,
            }, )*
        ];
    };
}

macs! {
    /// IEEE 802.11 DCF (`mac/dcf.rs`), EDCA with `mac.edca`.
    #[default]
    Dcf => dcf::Dcf,
    /// Fixed frame of one slot per node (`mac/tdma.rs`): a slot fits one
    /// `max_packet`-byte IP datagram plus `guard`.
    Tdma { max_packet: u32, guard: Time } => tdma::Tdma,
}

/// What a MAC may read when one node's instance is built.
pub struct MacEnv<'a> {
    pub node: MacAddr,
    /// Nodes in the run.
    pub nodes: usize,
    pub radio: &'a crate::phy::RadioConfig,
    /// The run's seed (random streams: `RngStream::new(seed, node, ...)`).
    pub seed: u64,
}

/// A MAC as the scenario file and the kernel's builder see it,
/// implemented beside the MAC and registered in [`macs!`].
pub trait MacModel: Sized {
    /// Its `mac.protocol` names, case-insensitive: canonical first.
    const NAMES: &'static [&'static str];
    /// The `[mac]` keys it reads besides the common ones (`standard`,
    /// rates, retry limits, ...); any other MAC's key is refused.
    const KEYS: &'static [&'static str];
    /// Its variant of [`MacKind`] from the `[mac]` section.
    fn parse(p: &dyn Params) -> Result<MacKind, ParamError>;
    /// One node's instance; `cfg.kind` is this MAC's variant.
    fn build(cfg: &MacConfig, env: &MacEnv) -> Self;
}

/// A registry entry: what the scenario layer needs to read `[mac]`.
pub struct MacEntry {
    pub names: &'static [&'static str],
    pub keys: &'static [&'static str],
    pub parse: fn(&dyn Params) -> Result<MacKind, ParamError>,
}

/// The calls the kernel makes into a node's MAC (dispatched by [`Mac`]).
/// The defaults are those of a MAC without carrier sense, access
/// categories or rate control (TDMA).
pub trait MacProtocol {
    /// A packet may be handed over now.
    fn can_accept(&self) -> bool;
    /// The packet being sent, if any.
    fn current(&self) -> Option<&Packet>;
    /// The frame last put on the air.
    fn tx_frame(&self) -> &Frame;
    fn stats(&self) -> MacStats;
    fn enqueue(&mut self, now: Time, pkt: Packet, out: &mut Vec<MacAction>);
    /// [`MacProtocol::enqueue`] of a copy of `*pkt` (a MAC may copy it once,
    /// straight into its own storage).
    fn enqueue_ref(&mut self, now: Time, pkt: &Packet, out: &mut Vec<MacAction>) {
        self.enqueue(now, *pkt, out)
    }
    fn on_timer(&mut self, now: Time, kind: MacTimer, gen: u32, out: &mut Vec<MacAction>);
    fn on_tx_end(&mut self, now: Time, out: &mut Vec<MacAction>);
    fn on_rx_end(&mut self, now: Time, decoded: Option<&Frame>, idle: bool, out: &mut Vec<MacAction>);
    /// The medium became busy.
    fn on_sense_busy(&mut self, _now: Time) {}
    /// The radio was captured by a stronger frame until `end`.
    fn on_captured_out(&mut self, _now: Time, _end: Time, _out: &mut Vec<MacAction>) {}
    /// A signal the radio did not lock onto ended. Under ns-2's capture
    /// rule the kernel does not report such an end while the locked frame
    /// is still on the air (`idle` would be false; `Radio::begin_signal_lazy`):
    /// a MAC must act on this call only when `idle` is true (or on
    /// `on_rx_end`).
    fn on_signal_end(&mut self, _now: Time, _idle: bool, _out: &mut Vec<MacAction>) {}
    fn is_edca(&self) -> bool {
        false
    }
    fn can_accept_ac(&self, ac: AccessCategory) -> bool {
        ac == AccessCategory::BestEffort && self.can_accept()
    }
    fn enqueue_ac(&mut self, now: Time, pkt: Packet, _ac: AccessCategory, out: &mut Vec<MacAction>) {
        self.enqueue(now, pkt, out)
    }
    /// Whether the kernel reads [`MacAction::TxSuccess`] and
    /// [`MacAction::Overheard`]: with `false` a MAC may leave them out
    /// (nothing else may change). Called once, when the run is built.
    fn set_reports(&mut self, _tx_success: bool, _overheard: bool) {}
    /// Rate control: a frame from `src` decoded at power `power_w`.
    fn on_rx_power(&mut self, _src: MacAddr, _power_w: f64) {}
    /// The packet just handed over leaves the interface queue's lifetime
    /// at `at` (`queue.expire_in_flight`); a MAC that does not model
    /// ns-3's in-flight expiry ignores it.
    fn set_expiry(&mut self, _at: Time) {}
    /// The interface queue took a packet (a MAC holding an expired packet
    /// may drop it: `MacAction::Expired`).
    fn on_queue_enqueue(&mut self, _now: Time, _out: &mut Vec<MacAction>) {}
    /// Whether timer `kind` armed with generation `gen` may still act:
    /// false only if `on_timer(kind, gen)` would now and forever ignore it
    /// (cancelled or replaced). The kernel then drops a re-arming it kept
    /// out of the queue (`simulation/timers.rs`). Arming a kind again always
    /// replaces its previous timer (a new generation).
    fn timer_live(&self, _kind: MacTimer, _gen: u32) -> bool {
        true
    }
    /// DATA attempts and ACKs per rate.
    fn rate_counts(&self) -> Vec<RateCount> {
        Vec::new()
    }
    /// Visits every packet the MAC holds (the frame in progress or being
    /// retried, per access category; any queue of its own), for the packet
    /// audit (`simulation/report.rs`). Required, with no default: a new MAC
    /// that parks packets cannot leave them out of the audit by omission.
    fn held(&self, f: &mut dyn FnMut(&Packet));
}

impl Mac {
    #[inline]
    pub fn can_accept(&self) -> bool {
        each!(self, m => m.can_accept())
    }
    #[inline]
    pub fn current(&self) -> Option<&Packet> {
        each!(self, m => MacProtocol::current(m))
    }
    #[inline]
    pub fn tx_frame(&self) -> &Frame {
        each!(self, m => MacProtocol::tx_frame(m))
    }
    #[inline]
    pub fn stats(&self) -> MacStats {
        each!(self, m => MacProtocol::stats(m))
    }
    #[inline]
    pub fn enqueue(&mut self, now: Time, pkt: Packet, out: &mut Vec<MacAction>) {
        each!(self, m => MacProtocol::enqueue(m, now, pkt, out))
    }
    #[inline]
    pub fn enqueue_ref(&mut self, now: Time, pkt: &Packet, out: &mut Vec<MacAction>) {
        each!(self, m => MacProtocol::enqueue_ref(m, now, pkt, out))
    }
    #[inline]
    pub fn on_timer(&mut self, now: Time, kind: MacTimer, gen: u32, out: &mut Vec<MacAction>) {
        each!(self, m => MacProtocol::on_timer(m, now, kind, gen, out))
    }
    #[inline]
    pub fn on_tx_end(&mut self, now: Time, out: &mut Vec<MacAction>) {
        each!(self, m => MacProtocol::on_tx_end(m, now, out))
    }
    #[inline]
    pub fn on_rx_end(&mut self, now: Time, decoded: Option<&Frame>, idle: bool, out: &mut Vec<MacAction>) {
        each!(self, m => MacProtocol::on_rx_end(m, now, decoded, idle, out))
    }
    /// `on_rx_power(f.src, power)` when a frame `f` decoded, then
    /// `on_rx_end(now, decoded, true, out)`: the medium idle after it
    /// (the kernel's run of signal ends, `simulation/frames_runs.rs`; the
    /// MAC's kind tested once for both, session 20); the DCF takes the
    /// common cases inline (`Dcf::on_rx_end_idle`). Returns the packet of
    /// an overheard data frame that the MAC reports but did not push
    /// (`MacAction::Overheard(p, src)`, to be carried out before the
    /// actions pushed into `out`; the DCF only, session 20).
    #[inline(always)]
    #[must_use = "the overheard report is returned, not pushed"]
    pub fn on_rx_end_idle<'f>(
        &mut self,
        now: Time,
        decoded: Option<&'f Frame>,
        power: f64,
        out: &mut Vec<MacAction>,
    ) -> Option<&'f Packet> {
        match self {
            Mac::Dcf(d) => {
                if let Some(f) = decoded {
                    d.on_rx_power(f.src, power);
                }
                d.on_rx_end_idle(now, decoded, out)
            }
            m => {
                if let Some(f) = decoded {
                    m.on_rx_power(f.src, power);
                }
                m.on_rx_end(now, decoded, true, out);
                None
            }
        }
    }
    #[inline]
    pub fn on_sense_busy(&mut self, now: Time) {
        each!(self, m => MacProtocol::on_sense_busy(m, now))
    }
    #[inline]
    pub fn on_captured_out(&mut self, now: Time, end: Time, out: &mut Vec<MacAction>) {
        each!(self, m => MacProtocol::on_captured_out(m, now, end, out))
    }
    #[inline]
    pub fn on_signal_end(&mut self, now: Time, idle: bool, out: &mut Vec<MacAction>) {
        each!(self, m => MacProtocol::on_signal_end(m, now, idle, out))
    }
    #[inline]
    pub fn is_edca(&self) -> bool {
        each!(self, m => MacProtocol::is_edca(m))
    }
    #[inline]
    pub fn can_accept_ac(&self, ac: AccessCategory) -> bool {
        each!(self, m => MacProtocol::can_accept_ac(m, ac))
    }
    #[inline]
    pub fn enqueue_ac(&mut self, now: Time, pkt: Packet, ac: AccessCategory, out: &mut Vec<MacAction>) {
        each!(self, m => MacProtocol::enqueue_ac(m, now, pkt, ac, out))
    }
    pub fn set_reports(&mut self, tx_success: bool, overheard: bool) {
        each!(self, m => MacProtocol::set_reports(m, tx_success, overheard))
    }
    /// Rate control: a frame from `src` decoded at power `power_w`.
    #[inline]
    pub fn on_rx_power(&mut self, src: MacAddr, power_w: f64) {
        each!(self, m => MacProtocol::on_rx_power(m, src, power_w))
    }
    #[inline]
    pub fn set_expiry(&mut self, at: Time) {
        each!(self, m => MacProtocol::set_expiry(m, at))
    }
    #[inline]
    pub fn on_queue_enqueue(&mut self, now: Time, out: &mut Vec<MacAction>) {
        each!(self, m => MacProtocol::on_queue_enqueue(m, now, out))
    }
    #[inline]
    pub fn timer_live(&self, kind: MacTimer, gen: u32) -> bool {
        each!(self, m => MacProtocol::timer_live(m, kind, gen))
    }
    /// DATA attempts and ACKs per rate (DCF only).
    pub fn rate_counts(&self) -> Vec<RateCount> {
        each!(self, m => MacProtocol::rate_counts(m))
    }
    /// Every packet the MAC holds (being sent or waiting per access category).
    pub fn held(&self, f: &mut dyn FnMut(&Packet)) {
        each!(self, m => MacProtocol::held(m, f))
    }
}

impl Default for MacConfig {
    fn default() -> Self {
        MacConfig {
            phy: PhyMode::default(),
            rts_threshold: Some(0),
            short_retry_limit: 7,
            long_retry_limit: 4,
            cw_min: None,
            cw_max: None,
            kind: MacKind::Dcf,
            edca: false,
            rate_control: RateControlKind::Constant,
            retry_counters: RetryCounters::Mpdu,
            cts_rule: CtsRule::Standard,
            immediate_access: ImmediateAccess::IdleForDifs,
        }
    }
}

impl MacConfig {
    pub fn cw_min(&self) -> u32 {
        self.cw_min.unwrap_or(self.phy.cw_min())
    }
    pub fn cw_max(&self) -> u32 {
        self.cw_max.unwrap_or(self.phy.cw_max())
    }
}

#[cfg(test)]
mod tests;
