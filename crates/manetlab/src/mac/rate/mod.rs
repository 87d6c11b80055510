//! Per-neighbour data-rate control of the 802.11 MAC (`docs/rate.md`).
//!
//! The DCF asks its [`RateControl`] for the rate of every unicast DATA
//! attempt and tells it how each attempt ended. One file per algorithm:
//!
//! * `constant.rs`: the configured `data_rate` always (the default);
//! * `arf.rs`: Auto Rate Fallback (Kamerman & Monteban 1997, the Lucent
//!   WaveLAN-II / Orinoco cards), with ns-3's `ArfWifiManager` semantics;
//! * `aarf.rs`: Adaptive ARF (Lacage, Manshaei & Turletti, MSWiM 2004);
//! * `minstrel.rs`: the Linux mac80211 Minstrel algorithm (EWMA success
//!   probabilities, sampling, multi-rate retry chain);
//! * `ideal.rs`: an SNR oracle (ns-3's `IdealWifiManager`).
//!
//! The rate set is every rate of the PHY standard up to the configured
//! `data_rate`. Control frames (RTS, CTS, ACK) and broadcast frames are
//! not rate-controlled: RTS and broadcast go at the basic rate, and a
//! response (CTS, ACK) at the highest basic-set rate not above the rate of
//! the frame it answers (IEEE 802.11-2016 §10.6.6.5), see [`control_rate`].

pub mod aarf;
pub mod arf;
pub mod constant;
pub mod ideal;
pub mod minstrel;

use super::frame::MacAddr;
use crate::phy::{PhyMode, PhyStandard};
use crate::sim::Time;

/// Which rate controller every node runs (`[mac] rate_control`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum RateControlKind {
    #[default]
    Constant,
    Arf,
    Aarf,
    Minstrel,
    Ideal,
}

impl RateControlKind {
    pub const ALL: [(&'static str, RateControlKind); 5] = [
        ("constant", RateControlKind::Constant),
        ("arf", RateControlKind::Arf),
        ("aarf", RateControlKind::Aarf),
        ("minstrel", RateControlKind::Minstrel),
        ("ideal", RateControlKind::Ideal),
    ];
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(_, k)| *k == self).map(|(n, _)| *n).unwrap_or("constant")
    }
}

/// A MAC-side data-rate controller, one instance per node holding state
/// per neighbour. Rates are bit/s from [`rate_set`].
pub trait RateControl: Send {
    /// The rate of attempt `attempt` (0 = first transmission) of a unicast
    /// DATA frame of `bytes` bytes to `dst`. Called once per attempt,
    /// before the RTS if one is used.
    fn data_rate(&mut self, now: Time, dst: MacAddr, bytes: u32, attempt: u32) -> u64;
    /// The DATA attempt at `rate` to `dst` was acknowledged.
    fn on_data_ok(&mut self, now: Time, dst: MacAddr, rate: u64, attempt: u32);
    /// The DATA attempt at `rate` to `dst` got no ACK.
    fn on_data_failed(&mut self, now: Time, dst: MacAddr, rate: u64, attempt: u32);
    /// A frame from `src` decoded at this node with received power
    /// `power_w` watts (the ideal oracle's input; others ignore it).
    fn on_rx_power(&mut self, _src: MacAddr, _power_w: f64) {}
}

/// Every rate of `phy`'s standard up to its `data_rate`, ascending.
pub fn rate_set(phy: &PhyMode) -> Vec<u64> {
    let v: Vec<u64> = PhyMode::valid_rates(phy.standard).iter().copied().filter(|&r| r <= phy.data_rate).collect();
    if v.is_empty() {
        vec![phy.data_rate]
    } else {
        v
    }
}

/// The mandatory rates a basic rate set holds (DSSS 1, 2; OFDM 6, 12, 24
/// Mbit/s).
fn mandatory(standard: PhyStandard) -> &'static [u64] {
    match standard {
        PhyStandard::Dsss => &[1_000_000, 2_000_000],
        PhyStandard::Ofdm => &[6_000_000, 12_000_000, 24_000_000],
    }
}

/// Rate of a control response (CTS, ACK) to a frame sent at `rate`: the
/// configured basic rate when the frame is at least that fast (the
/// behaviour without rate control), else the highest mandatory rate not
/// above `rate` (§10.6.6.5: a response never goes faster than the frame
/// that elicited it; the basic rate set is the mandatory rates up to
/// `basic_rate`).
pub fn control_rate(phy: &PhyMode, rate: u64) -> u64 {
    if rate >= phy.basic_rate {
        return phy.basic_rate;
    }
    mandatory(phy.standard).iter().copied().filter(|&r| r <= rate).max().unwrap_or(phy.lowest_rate())
}

/// Per-rate counters of one node's unicast DATA attempts.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RateCount {
    pub rate_mbps: f64,
    /// DATA attempts sent at this rate (first transmissions and retries).
    pub attempts: u64,
    /// Attempts acknowledged.
    pub acked: u64,
}

/// The controller of one node for `kind`; `seed` and `node` key Minstrel's
/// random stream, `noise_w` is the receiver noise floor the ideal oracle
/// divides by (0 under the threshold reception model: every decodable
/// frame counts as clean).
pub fn build(kind: RateControlKind, phy: &PhyMode, seed: u64, node: u32, noise_w: f64) -> Box<dyn RateControl> {
    match kind {
        RateControlKind::Constant => Box::new(constant::Constant::new(phy.data_rate)),
        RateControlKind::Arf => Box::new(arf::Arf::new(rate_set(phy))),
        RateControlKind::Aarf => Box::new(aarf::Aarf::new(rate_set(phy))),
        RateControlKind::Minstrel => Box::new(minstrel::Minstrel::new(
            phy,
            rate_set(phy),
            crate::sim::RngStream::new(seed, node as u64, crate::sim::Purpose::RateControl, 0),
        )),
        RateControlKind::Ideal => Box::new(ideal::Ideal::new(phy, rate_set(phy), noise_w)),
    }
}

/// Per-neighbour state kept in a vector indexed by MAC address, grown
/// when a new neighbour is first addressed (not per frame).
#[derive(Clone, Debug)]
pub struct PerNeighbour<S: Clone> {
    init: S,
    v: Vec<S>,
}

impl<S: Clone> PerNeighbour<S> {
    pub fn new(init: S) -> Self {
        PerNeighbour { init, v: Vec::new() }
    }
    pub fn get(&mut self, a: MacAddr) -> &mut S {
        let i = a as usize;
        if i >= self.v.len() {
            self.v.resize(i + 1, self.init.clone());
        }
        &mut self.v[i]
    }
}

#[cfg(test)]
mod tests;

/// The DCF's side of rate control: the controller plus per-rate counters
/// of DATA attempts (kept out of `MacStats` so reports without rate
/// control are unchanged).
pub struct DcfRate {
    ctl: Box<dyn RateControl>,
    /// A controller other than the constant one: responses follow
    /// [`control_rate`]; the constant one keeps every response at the
    /// basic rate (the behaviour before rate control, even with a data
    /// rate below the basic rate).
    adaptive: bool,
    rates: Vec<u64>,
    /// (attempts, acked) per rate of `rates`.
    counts: Vec<(u64, u64)>,
    /// Not adaptive: the constant controller's rate and its index in
    /// `rates`, so a DATA attempt needs no call through `ctl` (whose
    /// `Constant` returns that rate and ignores the feedback) and no
    /// search of `rates`.
    fixed: u64,
    fixed_slot: Option<usize>,
}

impl DcfRate {
    pub fn new(phy: &PhyMode, ctl: Box<dyn RateControl>) -> DcfRate {
        let rates = PhyMode::valid_rates(phy.standard).to_vec();
        let counts = vec![(0, 0); rates.len()];
        DcfRate { ctl, adaptive: true, rates, counts, fixed: 0, fixed_slot: None }
    }
    /// The constant controller at `phy.data_rate`.
    pub fn constant(phy: &PhyMode) -> DcfRate {
        let r = Self::new(phy, Box::new(constant::Constant::new(phy.data_rate)));
        let fixed_slot = r.rates.iter().position(|&x| x == phy.data_rate);
        DcfRate { adaptive: false, fixed: phy.data_rate, fixed_slot, ..r }
    }
    /// Whether responses follow the data rate (see `adaptive`).
    #[inline]
    pub fn is_adaptive(&self) -> bool {
        self.adaptive
    }
    /// Rate of the response (CTS, ACK) to a frame sent at `rate`.
    pub fn response_rate(&self, phy: &PhyMode, rate: u64) -> u64 {
        if self.adaptive {
            control_rate(phy, rate)
        } else {
            phy.basic_rate
        }
    }
    #[inline]
    pub fn choose(&mut self, now: Time, dst: MacAddr, bytes: u32, attempt: u32) -> u64 {
        if !self.adaptive {
            return self.fixed;
        }
        self.ctl.data_rate(now, dst, bytes, attempt)
    }
    #[inline]
    fn slot(&mut self, rate: u64) -> Option<&mut (u64, u64)> {
        let i = match self.fixed_slot {
            Some(i) if rate == self.fixed => i,
            _ => self.rates.iter().position(|&r| r == rate)?,
        };
        Some(&mut self.counts[i])
    }
    /// A DATA attempt went on the air at `rate`.
    pub fn sent(&mut self, rate: u64) {
        if let Some(c) = self.slot(rate) {
            c.0 += 1;
        }
    }
    pub fn ok(&mut self, now: Time, dst: MacAddr, rate: u64, attempt: u32) {
        if let Some(c) = self.slot(rate) {
            c.1 += 1;
        }
        if self.adaptive {
            self.ctl.on_data_ok(now, dst, rate, attempt);
        }
    }
    pub fn failed(&mut self, now: Time, dst: MacAddr, rate: u64, attempt: u32) {
        if self.adaptive {
            self.ctl.on_data_failed(now, dst, rate, attempt);
        }
    }
    #[inline]
    pub fn on_rx_power(&mut self, src: MacAddr, power_w: f64) {
        if self.adaptive {
            self.ctl.on_rx_power(src, power_w);
        }
    }
    /// Per-rate counters, rates with no attempt left out.
    pub fn counts(&self) -> Vec<RateCount> {
        self.rates
            .iter()
            .zip(&self.counts)
            .filter(|(_, c)| c.0 > 0)
            .map(|(&r, &(attempts, acked))| RateCount { rate_mbps: r as f64 / 1e6, attempts, acked })
            .collect()
    }
}

/// `dcf` with the rate controller `mac.rate_control` (node `node` of a run
/// with `seed`); the constant controller leaves it as built.
pub fn dcf_with_rate_control(
    mut dcf: super::Dcf,
    mac: &super::MacConfig,
    radio: &crate::phy::RadioConfig,
    seed: u64,
    node: u32,
) -> super::Dcf {
    if mac.rate_control != RateControlKind::Constant {
        let noise = match radio.reception {
            crate::phy::Reception::Sinr { noise_figure_db } => {
                crate::phy::noise_floor_w(mac.phy.standard, noise_figure_db)
            }
            crate::phy::Reception::Threshold => 0.0,
        };
        dcf.set_rate_control(build(mac.rate_control, &mac.phy, seed, node, noise));
    }
    dcf
}
