//! Simulation time: integer nanoseconds since the start of the run.
//!
//! One type serves for instants and spans: both are a count of nanoseconds,
//! and keeping them integer makes event order exact and machine-independent.
//!
//! Arithmetic saturates: `Time::MAX` stands for "never", so an absurdly
//! long timer lands there instead of wrapping into the past (a wrapped sum
//! used to schedule events before `now`). Validation also bounds every time
//! a scenario can give (`scenario::units::MAX_TIME`), so valid runs never
//! come near saturation.

use std::fmt;
use std::ops::{Add, AddAssign, Mul, Sub, SubAssign};

/// Nanoseconds since the start of the run (or a span of nanoseconds).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub const fn from_ns(ns: u64) -> Time {
        Time(ns)
    }
    pub const fn from_us(us: u64) -> Time {
        Time(us.saturating_mul(1_000))
    }
    pub const fn from_ms(ms: u64) -> Time {
        Time(ms.saturating_mul(1_000_000))
    }
    pub const fn from_secs(s: u64) -> Time {
        Time(s.saturating_mul(1_000_000_000))
    }
    /// Rounds to the nearest nanosecond; negative or NaN values become zero.
    pub fn from_secs_f64(s: f64) -> Time {
        if s.is_nan() || s <= 0.0 {
            Time(0)
        } else {
            Time((s * 1e9).round() as u64)
        }
    }
    pub const fn as_ns(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 * 1e-3
    }
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }
    /// Time to send `bits` at `bps` bits per second, rounded up to the next ns.
    ///
    /// `bits` * 10^9 fits in 64 bits below 1.8e10 bits (every frame and
    /// packet): then one 64-bit division, the same quotient as the 128-bit
    /// one (which compiles to a `__udivti3` call per frame; test
    /// `for_bits_matches_the_128_bit_quotient`).
    #[inline]
    pub fn for_bits(bits: u64, bps: u64) -> Time {
        debug_assert!(bps > 0);
        match bits.checked_mul(1_000_000_000) {
            Some(num) => Time(num.div_ceil(bps.max(1))),
            None => Self::for_bits_wide(bits, bps),
        }
    }
    #[cold]
    fn for_bits_wide(bits: u64, bps: u64) -> Time {
        let num = bits as u128 * 1_000_000_000u128;
        Time(u64::try_from(num.div_ceil(bps.max(1) as u128)).unwrap_or(u64::MAX))
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, o: Time) -> Time {
        Time(self.0.saturating_add(o.0))
    }
}
impl AddAssign for Time {
    fn add_assign(&mut self, o: Time) {
        self.0 = self.0.saturating_add(o.0);
    }
}
impl Sub for Time {
    type Output = Time;
    fn sub(self, o: Time) -> Time {
        debug_assert!(self.0 >= o.0, "time went negative: {} - {}", self, o);
        Time(self.0.saturating_sub(o.0))
    }
}
impl SubAssign for Time {
    fn sub_assign(&mut self, o: Time) {
        debug_assert!(self.0 >= o.0, "time went negative: {} - {}", self, o);
        self.0 = self.0.saturating_sub(o.0);
    }
}
impl Mul<u64> for Time {
    type Output = Time;
    fn mul(self, k: u64) -> Time {
        Time(self.0.saturating_mul(k))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn bits_round_up() {
        assert_eq!(Time::for_bits(8, 2_000_000), Time(4_000));
        assert_eq!(Time::for_bits(1, 3), Time(333_333_334));
        assert_eq!(Time::from_secs_f64(1.5), Time::from_ms(1500));
    }
    #[test]
    fn arithmetic_saturates_instead_of_wrapping() {
        let big = Time(u64::MAX - 5);
        assert_eq!(big + Time(10), Time::MAX);
        let mut t = big;
        t += Time(100);
        assert_eq!(t, Time::MAX);
        assert_eq!(Time(u64::MAX / 2) * 3, Time::MAX);
        assert_eq!(Time::from_secs(u64::MAX / 10), Time::MAX);
        assert_eq!(Time::for_bits(u64::MAX, 1), Time::MAX);
    }
    proptest::proptest! {
        /// The 64-bit path gives the 128-bit quotient, at and around the
        /// bound where the product stops fitting.
        #[test]
        fn for_bits_matches_the_128_bit_quotient(
            bits in proptest::prop_oneof![0u64..20_000_000, 18_446_744_000u64..18_446_745_000, proptest::num::u64::ANY],
            bps in proptest::prop_oneof![1u64..100_000_000, proptest::num::u64::ANY],
        ) {
            let want = u64::try_from((bits as u128 * 1_000_000_000).div_ceil(bps.max(1) as u128)).unwrap_or(u64::MAX);
            proptest::prop_assert_eq!(Time::for_bits(bits, bps), Time(want));
        }
    }
}
