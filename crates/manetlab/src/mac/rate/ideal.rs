//! An SNR oracle, as ns-3's `IdealWifiManager`: every DATA frame goes at
//! the highest rate whose SNR threshold is at or below the last SNR
//! observed on the link; with none observed yet, at the lowest rate.
//!
//! Thresholds: the SNR at which a 1536-byte frame (a 1500-byte datagram)
//! decodes with probability [`TARGET_SUCCESS`] under the error-rate curves
//! of `phy/error_rate.rs` (ns-3 uses a bit error rate of 1e-6, which for
//! 12288 bits is a 98.8 % frame success).
//!
//! The observed SNR: ns-3 carries the SNR the receiver measured back to
//! the sender inside the ACK. Here the oracle uses the SNR at which this
//! node last decoded a frame *from* the neighbour (its ACKs, CTSs and
//! data): equal transmit powers and reciprocal path loss (shadowing is
//! drawn per link, the same both ways) make that the same mean SNR; only
//! the per-frame fading draw differs. Interference is not counted (an SNR,
//! not an SINR, as ns-3).

use super::{PerNeighbour, RateControl};
use crate::mac::frame::MacAddr;
use crate::phy::{error_rate, PhyMode};
use crate::sim::Time;

/// Frame success probability a rate must reach at the observed SNR.
pub const TARGET_SUCCESS: f64 = 0.99;
/// Frame size the thresholds are computed for (1500-byte IP + 36 bytes).
pub const THRESHOLD_BYTES: u32 = 1536;

pub struct Ideal {
    rates: Vec<u64>,
    /// Linear SNR thresholds, per rate.
    thresholds: Vec<f64>,
    noise_w: f64,
    /// Last observed SNR per neighbour (linear; negative = none yet).
    snr: PerNeighbour<f64>,
}

impl Ideal {
    /// `noise_w` = 0: reception by threshold, every decoded frame is clean
    /// and the highest rate is used once the neighbour has been heard.
    pub fn new(phy: &PhyMode, rates: Vec<u64>, noise_w: f64) -> Ideal {
        let thresholds = rates
            .iter()
            .map(|&r| 10f64.powf(error_rate::sinr_db_for(phy.standard, r, THRESHOLD_BYTES, TARGET_SUCCESS) / 10.0))
            .collect();
        Ideal { rates, thresholds, noise_w, snr: PerNeighbour::new(-1.0) }
    }
    /// The SNR threshold of each rate, dB.
    pub fn thresholds_db(&self) -> Vec<(u64, f64)> {
        self.rates.iter().zip(&self.thresholds).map(|(&r, &t)| (r, 10.0 * t.log10())).collect()
    }
}

impl RateControl for Ideal {
    fn data_rate(&mut self, _now: Time, dst: MacAddr, _bytes: u32, _attempt: u32) -> u64 {
        let snr = *self.snr.get(dst);
        if snr < 0.0 {
            return self.rates[0];
        }
        let mut best = self.rates[0];
        for (r, t) in self.rates.iter().zip(&self.thresholds) {
            if snr >= *t {
                best = *r;
            }
        }
        best
    }
    fn on_data_ok(&mut self, _now: Time, _dst: MacAddr, _rate: u64, _attempt: u32) {}
    fn on_data_failed(&mut self, _now: Time, _dst: MacAddr, _rate: u64, _attempt: u32) {}
    fn on_rx_power(&mut self, src: MacAddr, power_w: f64) {
        *self.snr.get(src) = if self.noise_w > 0.0 { power_w / self.noise_w } else { f64::INFINITY };
    }
}
