//! Physical layer: propagation, the shared channel, and each node's radio.
//!
//! `propagation` turns distance into received power; `channel` finds who
//! hears a transmission (spatial grid, exact within the carrier-sense cut);
//! `radio` is one node's receiver state machine (thresholds and capture);
//! `mode` holds the 802.11 PHY timings and frame durations.

pub mod channel;
pub mod error_rate;
pub mod fading;
pub mod mode;
pub mod propagation;
pub mod radio;
pub mod sinr;

pub use channel::{Channel, TxId};
pub use fading::{FadingConfig, ShadowingProcess};
pub use mode::{PhyMode, PhyStandard, Preamble};
pub use propagation::Propagation;
pub use radio::{CaptureRule, Radio, RxOutcome};
pub use sinr::noise_floor_w;

/// Speed of light used for wavelength and propagation delay (as ns-2).
pub const SPEED_OF_LIGHT: f64 = 3.0e8;

/// How a radio decides whether a frame decodes.
#[derive(Copy, Clone, Debug, PartialEq, Default)]
pub enum Reception {
    /// ns-2's threshold model with a capture rule (`radio.rs`).
    #[default]
    Threshold,
    /// Cumulative interference plus thermal noise and error-rate curves
    /// (`sinr.rs`, `docs/sinr.md`); `noise_figure_db` is the receiver's.
    Sinr { noise_figure_db: f64 },
}

impl Reception {
    pub fn name(self) -> &'static str {
        match self {
            Reception::Threshold => "threshold",
            Reception::Sinr { .. } => "sinr",
        }
    }
}

/// Signals this far below the noise floor are not delivered to SINR
/// receivers (they would add under 10 % to the noise): the channel's cull
/// level for the SINR model.
pub const SINR_CULL_BELOW_NOISE: f64 = 0.1;

/// Shadowing: receivers whose mean power is more than this many standard
/// deviations below the cull level are not considered (a draw reaching the
/// cull level from there has probability < 3.2e-5).
pub const SHADOWING_CULL_SIGMAS: f64 = 4.0;

/// Radio parameters shared by every node (ns-2 WaveLAN defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct RadioConfig {
    pub propagation: Propagation,
    /// Transmit power, watts.
    pub tx_power_w: f64,
    pub frequency_hz: f64,
    pub tx_gain: f64,
    pub rx_gain: f64,
    /// Antenna height above the node's z coordinate, metres.
    pub antenna_height_m: f64,
    pub system_loss: f64,
    /// Minimum power to decode a frame, watts.
    pub rx_threshold_w: f64,
    /// Minimum power to sense the medium busy, watts.
    pub cs_threshold_w: f64,
    /// Capture ratio (linear; 10.0 = 10 dB).
    pub capture_ratio: f64,
    pub capture_rule: CaptureRule,
    pub reception: Reception,
    /// SINR reception only: the SINR (linear) a frame needs at its start
    /// for the receiver to lock onto it, ns-3's preamble detection
    /// (`ThresholdPreambleDetectionModel`, 4 dB); `None` = any frame at or
    /// above the receive threshold locks.
    pub preamble_detection_snr: Option<f64>,
    /// SINR reception only: ns-3's clear channel assessment, busy while a
    /// frame is being received or the total power reaches this (watts;
    /// `CcaEdThreshold`, -62 dBm); `None` = busy while any signal is at or
    /// above the carrier-sense threshold.
    pub energy_detection_w: Option<f64>,
    /// With `energy_detection_w`: ns-3.37's CCA in full (`sinr.rs`): signals
    /// not received hold the medium down to the carrier-sense threshold,
    /// except a reception abandoned for a transmission.
    pub cca_sensitivity_hold: bool,
    /// Per-frame fading and the shadowing process (`fading.rs`).
    pub fading: FadingConfig,
}

impl Default for RadioConfig {
    fn default() -> Self {
        RadioConfig {
            propagation: Propagation::TwoRayGround,
            tx_power_w: 0.281_838_15,
            frequency_hz: 914e6,
            tx_gain: 1.0,
            rx_gain: 1.0,
            antenna_height_m: 1.5,
            system_loss: 1.0,
            rx_threshold_w: 3.652e-10,
            cs_threshold_w: 1.559e-11,
            capture_ratio: 10.0,
            capture_rule: CaptureRule::Ns2,
            reception: Reception::Threshold,
            preamble_detection_snr: None,
            energy_detection_w: None,
            cca_sensitivity_hold: false,
            fading: FadingConfig::default(),
        }
    }
}

impl RadioConfig {
    pub fn wavelength(&self) -> f64 {
        SPEED_OF_LIGHT / self.frequency_hz
    }
    /// Received power at distance `d` between antennas of equal height.
    pub fn rx_power(&self, d: f64) -> f64 {
        let h = self.antenna_height_m;
        self.propagation.rx_power(self, d, h, h)
    }
    /// Distance at which the received power falls to `pw` (equal heights).
    pub fn range_for_power(&self, pw: f64) -> f64 {
        let h = self.antenna_height_m;
        self.propagation.distance_for_power(self, pw, h, h)
    }
    /// Sets the thresholds so that frames decode up to `rx_m` and the medium
    /// is sensed busy up to `cs_m` with the configured propagation model.
    pub fn set_ranges(&mut self, rx_m: Option<f64>, cs_m: Option<f64>) {
        if let Some(r) = rx_m {
            self.rx_threshold_w = self.rx_power(r);
        }
        if let Some(c) = cs_m {
            self.cs_threshold_w = self.rx_power(c);
        }
    }
    pub fn rx_range(&self) -> f64 {
        self.range_for_power(self.rx_threshold_w)
    }
    pub fn cs_range(&self) -> f64 {
        self.range_for_power(self.cs_threshold_w)
    }
    /// The weakest signal the channel delivers to a radio: the lower of the
    /// two thresholds (threshold model: weaker signals have no effect), and
    /// under the SINR model a tenth of the noise floor of `phy`.
    pub fn cull_power(&self, phy: &PhyMode) -> f64 {
        let t = self.cs_threshold_w.min(self.rx_threshold_w);
        match self.reception {
            Reception::Threshold => t,
            Reception::Sinr { noise_figure_db } => {
                t.min(SINR_CULL_BELOW_NOISE * sinr::noise_floor_w(phy.standard, noise_figure_db))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn wavelan_defaults_give_250_and_550_m() {
        let r = RadioConfig::default();
        assert!((r.rx_range() - 250.0).abs() < 0.5, "rx range {}", r.rx_range());
        assert!((r.cs_range() - 550.0).abs() < 0.5, "cs range {}", r.cs_range());
    }
    #[test]
    fn ranges_round_trip() {
        let mut r = RadioConfig::default();
        r.set_ranges(Some(200.0), Some(300.0));
        assert!((r.rx_range() - 200.0).abs() < 1e-6);
        assert!((r.cs_range() - 300.0).abs() < 1e-6);
        r.propagation = Propagation::FreeSpace;
        r.set_ranges(Some(100.0), None);
        assert!((r.rx_range() - 100.0).abs() < 1e-6);
    }
}
