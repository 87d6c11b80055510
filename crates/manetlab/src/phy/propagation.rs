//! Propagation models: received power as a function of distance.

use super::RadioConfig;
use std::f64::consts::PI;

#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Propagation {
    /// Friis free space: Pr = Pt Gt Gr λ² / ((4π)² d² L).
    FreeSpace,
    /// Friis below the crossover distance 4π ht hr / λ, and the two-ray
    /// ground reflection Pt Gt Gr ht² hr² / (d⁴ L) beyond it (as ns-2).
    TwoRayGround,
    /// Log-distance path loss with log-normal shadowing (ns-2's Shadowing):
    /// Friis up to `ref_distance_m`, then the mean falls off as
    /// (d0/d)^`exponent`; every frame at every receiver draws a Gaussian
    /// deviation of `sigma_db` dB around that mean (see `docs/sinr.md`).
    /// `rx_power` returns the mean; the draw is made by the channel.
    Shadowing { exponent: f64, ref_distance_m: f64, sigma_db: f64 },
}

impl Propagation {
    pub fn name(self) -> &'static str {
        match self {
            Propagation::FreeSpace => "free-space",
            Propagation::TwoRayGround => "two-ray-ground",
            Propagation::Shadowing { .. } => "shadowing",
        }
    }

    /// Standard deviation of the per-frame shadowing draw, dB (0 for the
    /// deterministic models).
    pub fn sigma_db(self) -> f64 {
        match self {
            Propagation::Shadowing { sigma_db, .. } => sigma_db,
            _ => 0.0,
        }
    }

    /// The shadowing model with `sigma_db` = 0 that equals two-ray ground
    /// beyond its crossover distance (antenna heights `h` metres): path-loss
    /// exponent 4 from the crossover distance 4π h² / λ on, Friis below it.
    pub fn two_ray_equivalent(c: &RadioConfig, h: f64) -> Propagation {
        Propagation::Shadowing { exponent: 4.0, ref_distance_m: 4.0 * PI * h * h / c.wavelength(), sigma_db: 0.0 }
    }

    fn friis(c: &RadioConfig, d: f64) -> f64 {
        let (num, k) = Self::friis_terms(c);
        num / (k * d * d * c.system_loss)
    }

    /// Friis' numerator Pt Gt Gr λ² and (4π)²: `friis` is
    /// `num / (k d d L)`, those operations in that order (a caller that
    /// computes them itself, in SIMD lanes, gets the same bits).
    #[inline(always)]
    fn friis_terms(c: &RadioConfig) -> (f64, f64) {
        let l = c.wavelength();
        (c.tx_power_w * c.tx_gain * c.rx_gain * l * l, (4.0 * PI).powi(2))
    }

    /// Received power in watts at distance `d` metres; antenna heights in metres.
    pub fn rx_power(self, c: &RadioConfig, d: f64, ht: f64, hr: f64) -> f64 {
        let d = d.max(1e-3);
        match self {
            Propagation::FreeSpace => Self::friis(c, d),
            Propagation::TwoRayGround => {
                let crossover = 4.0 * PI * ht * hr / c.wavelength();
                if d < crossover {
                    Self::friis(c, d)
                } else {
                    c.tx_power_w * c.tx_gain * c.rx_gain * ht * ht * hr * hr / (d.powi(4) * c.system_loss)
                }
            }
            Propagation::Shadowing { exponent, ref_distance_m: d0, .. } => {
                if d <= d0 {
                    Self::friis(c, d)
                } else {
                    Self::friis(c, d0) * (d0 / d).powf(exponent)
                }
            }
        }
    }

    /// [`Propagation::rx_power`] at fixed antenna heights, with the terms
    /// that depend only on the radio and the heights computed once: the
    /// mobile receiver search (`channel.rs`) calls it for every hearer of
    /// every frame, and under two-ray ground the crossover distance and
    /// the numerator cost two divisions and six multiplications each time.
    pub fn at_heights(self, c: &RadioConfig, ht: f64, hr: f64) -> RxPowerAt<'_> {
        RxPowerAt {
            c,
            model: self,
            ht,
            hr,
            // The very expressions of `rx_power` (same operations, same
            // order: the same bits).
            crossover: 4.0 * PI * ht * hr / c.wavelength(),
            two_ray: c.tx_power_w * c.tx_gain * c.rx_gain * ht * ht * hr * hr,
        }
    }

    /// The distance at which the received power equals `pw` (inverse of
    /// `rx_power`; the model is monotone in distance).
    pub fn distance_for_power(self, c: &RadioConfig, pw: f64, ht: f64, hr: f64) -> f64 {
        let l = c.wavelength();
        let friis_d = (c.tx_power_w * c.tx_gain * c.rx_gain * l * l / ((4.0 * PI).powi(2) * pw * c.system_loss)).sqrt();
        match self {
            Propagation::FreeSpace => friis_d,
            Propagation::TwoRayGround => {
                let crossover = 4.0 * PI * ht * hr / l;
                if friis_d < crossover {
                    friis_d
                } else {
                    (c.tx_power_w * c.tx_gain * c.rx_gain * ht * ht * hr * hr / (pw * c.system_loss)).powf(0.25)
                }
            }
            Propagation::Shadowing { exponent, ref_distance_m: d0, .. } => {
                if friis_d <= d0 {
                    friis_d
                } else {
                    d0 * (Self::friis(c, d0) / pw).powf(1.0 / exponent)
                }
            }
        }
    }
}

/// [`Propagation::rx_power`] with the heights fixed
/// ([`Propagation::at_heights`]): bit for bit the same powers.
#[derive(Clone, Copy, Debug)]
pub struct RxPowerAt<'a> {
    c: &'a RadioConfig,
    model: Propagation,
    ht: f64,
    hr: f64,
    /// Two-ray ground: 4π ht hr / λ.
    crossover: f64,
    /// Two-ray ground: Pt Gt Gr ht² hr².
    two_ray: f64,
}

impl RxPowerAt<'_> {
    /// Received power in watts at distance `d` metres.
    #[inline]
    pub fn power(&self, d: f64) -> f64 {
        match self.model {
            Propagation::TwoRayGround => self.two_ray_power(d),
            m => m.rx_power(self.c, d, self.ht, self.hr),
        }
    }

    /// Whether the model is two-ray ground ([`RxPowerAt::two_ray_power`]
    /// is then [`RxPowerAt::power`]): a caller's loop over many distances
    /// can test the model once instead of at every call.
    #[inline]
    pub fn is_two_ray(&self) -> bool {
        matches!(self.model, Propagation::TwoRayGround)
    }

    /// Two-ray ground's terms: the crossover distance, the numerator
    /// Pt Gt Gr ht² hr² and the system loss (for a caller that computes
    /// [`RxPowerAt::two_ray_power`]'s operations itself, on two distances
    /// at once: `near.rs`).
    #[inline]
    pub fn two_ray_terms(&self) -> (f64, f64, f64) {
        (self.crossover, self.two_ray, self.c.system_loss)
    }

    /// Friis' terms below two-ray ground's crossover: the numerator
    /// Pt Gt Gr λ² and (4π)² (`two_ray_power` below the crossover is
    /// `num / (((k d') d') L)` with `d' = max(d, 1e-3)`: `near_wide.rs`
    /// computes it in lanes).
    #[inline]
    pub fn friis_terms(&self) -> (f64, f64) {
        Propagation::friis_terms(self.c)
    }

    /// [`RxPowerAt::power`] under two-ray ground (the arm `power` itself
    /// takes: the same bits).
    #[inline(always)]
    pub fn two_ray_power(&self, d: f64) -> f64 {
        let d = d.max(1e-3);
        if d < self.crossover {
            Propagation::friis(self.c, d)
        } else {
            self.two_ray / (d.powi(4) * self.c.system_loss)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// `at_heights(..).power(d)` is `rx_power(d, ..)` to the bit, for
        /// every model, at distances across the crossover and heights that
        /// differ.
        #[test]
        fn power_at_fixed_heights_is_rx_power_to_the_bit(
            d in 0.0f64..3000.0,
            ht in 0.0f64..30.0,
            hr in 0.0f64..30.0,
            model in 0u8..3,
            freq in 1e8f64..6e9,
        ) {
            let c = RadioConfig { frequency_hz: freq, ..RadioConfig::default() };
            let p = match model {
                0 => Propagation::TwoRayGround,
                1 => Propagation::FreeSpace,
                _ => Propagation::Shadowing { exponent: 2.7, ref_distance_m: 1.0, sigma_db: 0.0 },
            };
            let at = p.at_heights(&c, ht, hr);
            for d in [d, d * 1e-4, 4.0 * PI * ht * hr / c.wavelength()] {
                proptest::prop_assert_eq!(at.power(d).to_bits(), p.rx_power(&c, d, ht, hr).to_bits());
            }
        }
    }
    #[test]
    fn two_ray_is_continuous_enough_and_monotone() {
        let c = RadioConfig::default();
        let mut last = f64::INFINITY;
        for d in (1..2000).map(|i| i as f64 * 0.5) {
            let p = c.propagation.rx_power(&c, d, 1.5, 1.5);
            assert!(p <= last, "not monotone at {d}");
            last = p;
        }
        // ns-2 value at 250 m (the RXThresh_ of its WaveLAN setup).
        let p250 = c.propagation.rx_power(&c, 250.0, 1.5, 1.5);
        assert!((p250 / 3.652e-10 - 1.0).abs() < 1e-3);
    }

    #[test]
    fn shadowing_inverts_and_is_monotone() {
        let c = RadioConfig {
            propagation: Propagation::Shadowing { exponent: 2.7, ref_distance_m: 1.0, sigma_db: 4.0 },
            ..RadioConfig::default()
        };
        let mut last = f64::INFINITY;
        for d in [0.2, 0.9, 1.0, 1.5, 10.0, 100.0, 400.0, 2000.0] {
            let p = c.propagation.rx_power(&c, d, 1.5, 1.5);
            assert!(p < last);
            last = p;
            let back = c.propagation.distance_for_power(&c, p, 1.5, 1.5);
            assert!((back / d - 1.0).abs() < 1e-9, "{d} -> {back}");
        }
        // Exponent 2.7 beyond 1 m: 10x the distance costs 27 dB.
        let r = c.propagation.rx_power(&c, 10.0, 1.5, 1.5) / c.propagation.rx_power(&c, 100.0, 1.5, 1.5);
        assert!((10.0 * r.log10() - 27.0).abs() < 1e-9);
    }

    #[test]
    fn shadowing_with_exponent_4_from_the_crossover_is_two_ray_ground() {
        let c = RadioConfig::default();
        let s = Propagation::two_ray_equivalent(&c, 1.5);
        for d in [1.0, 10.0, 50.0, 86.0, 87.0, 100.0, 250.0, 550.0, 1000.0] {
            let a = Propagation::TwoRayGround.rx_power(&c, d, 1.5, 1.5);
            let b = s.rx_power(&c, d, 1.5, 1.5);
            assert!((a / b - 1.0).abs() < 1e-9, "{d} m: two-ray {a:e} shadowing {b:e}");
        }
    }
}
