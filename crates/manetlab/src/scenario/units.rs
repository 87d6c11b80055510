//! Quantities with units, as written in scenario files: "250m", "10s",
//! "2Mbps", "1470B", "24.5dBm", "10dB", "914MHz".
//!
//! Each quantity is a small newtype holding the SI value (metres, [`Time`],
//! bit/s, bytes, watts, a linear ratio, hertz). All of them implement
//! [`FromStr`] and serde's `Deserialize` with messages that say what is
//! allowed, and `Display` in a form that parses back to the same value.
//!
//! Integer quantities (time, data rate, size) are converted with exact
//! decimal arithmetic, so "0.1s" is exactly 100 000 000 ns and "5.5Mbps" is
//! exactly 5 500 000 bit/s. Negative values, NaN and infinities are refused;
//! so are bare numbers, except for [`Ratio`] (a plain number is linear) and
//! [`Coord`] (a plain number is metres).

use crate::sim::Time;
use serde::de::{self, Deserialize, Deserializer, Visitor};
use std::fmt;
use std::str::FromStr;

/// Why a quantity string was refused; the message names what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitError(pub String);

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UnitError {}

/// A length in metres ("250m", "1.5km", "30cm", "5mm").
#[derive(Copy, Clone, Debug, PartialEq, PartialOrd)]
pub struct Distance(pub f64);

/// The longest time a scenario may give (10^6 s, 11.6 days): far beyond
/// any experiment, and sums of a few such times stay far from the end of
/// the nanosecond counter (2^64 ns = 584 years; see `sim/time.rs`).
pub const MAX_TIME: Time = Time::from_secs(1_000_000);

/// A time or span ("10s", "1.5s", "200ms", "20us", "500ns", "2min", "1h"),
/// rounded to the nearest nanosecond, at most [`MAX_TIME`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Duration(pub Time);

/// A data rate in bit/s, greater than zero ("2Mbps", "5.5Mbps", "800kbps";
/// a capital `B` means bytes: "800KBps" = "800KB/s" = 6.4 Mbit/s).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct DataRate(pub u64);

/// A whole number of bytes ("1460B", "1.5KB" = 1500 B, "1KiB" = 1024 B).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Size(pub u32);

/// A power in watts, greater than zero ("0.28183815W", "281.8mW", "24.5dBm").
#[derive(Copy, Clone, Debug, PartialEq, PartialOrd)]
pub struct Power(pub f64);

/// A linear power ratio, greater than zero: "10dB" or a plain number
/// (`10` and `"10"` are linear).
#[derive(Copy, Clone, Debug, PartialEq, PartialOrd)]
pub struct Ratio(pub f64);

/// A frequency in hertz, greater than zero ("914MHz", "2.4GHz").
#[derive(Copy, Clone, Debug, PartialEq, PartialOrd)]
pub struct Frequency(pub f64);

/// A speed in metres per second ("1.5m/s", "36km/h"); zero allowed.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Speed(pub f64);

/// A coordinate in metres: a distance string ("200m") or a plain number of
/// metres. Unlike [`Distance`] it may be negative.
#[derive(Copy, Clone, Debug, PartialEq, PartialOrd)]
pub struct Coord(pub f64);

/// An RTS threshold: a size ("0B", "500B") or "off" (never use RTS/CTS).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RtsThreshold(pub Option<u32>);

// ---------------------------------------------------------------------------
// Number scanning

/// A decimal number split from its unit: `[-+]digits[.digits][e[-+]digits]`.
struct Number<'a> {
    negative: bool,
    /// The number without its sign.
    digits: &'a str,
    unit: &'a str,
}

fn split_number(s: &str) -> Option<Number<'_>> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut negative = false;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        negative = b[i] == b'-';
        i += 1;
    }
    let start = i;
    let mut seen_digit = false;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        seen_digit = true;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            seen_digit = true;
        }
    }
    if !seen_digit {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'-' || b[j] == b'+') {
            j += 1;
        }
        let exp_start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_start {
            i = j;
        }
    }
    // Everything up to `i` is ASCII, so these are char boundaries.
    Some(Number { negative, digits: &s[start..i], unit: s[i..].trim() })
}

/// An exact decimal: `mantissa * 10^exp10`.
struct Decimal {
    mantissa: u128,
    exp10: i64,
}

/// At most this many significant digits are kept exactly.
const MAX_DIGITS: usize = 25;

fn parse_decimal(digits: &str) -> Option<Decimal> {
    let (num, exp) = match digits.find(['e', 'E']) {
        Some(k) => (&digits[..k], digits[k + 1..].parse::<i64>().ok()?),
        None => (digits, 0),
    };
    let (int, frac) = match num.find('.') {
        Some(k) => (&num[..k], &num[k + 1..]),
        None => (num, ""),
    };
    let all: String = int.chars().chain(frac.chars()).collect();
    let trimmed = all.trim_start_matches('0');
    let significant = trimmed.trim_end_matches('0');
    let trailing_zeros = trimmed.len() - significant.len();
    if significant.len() > MAX_DIGITS {
        return None;
    }
    let mantissa = if significant.is_empty() { 0 } else { significant.parse::<u128>().ok()? };
    let exp10 = exp.checked_add(trailing_zeros as i64)?.checked_sub(frac.len() as i64)?;
    Some(Decimal { mantissa, exp10 })
}

fn pow10(k: u32) -> Option<u128> {
    10u128.checked_pow(k)
}

/// `d * mul` rounded to the nearest integer (halves up); `None` if it does not fit.
fn scale_round(d: &Decimal, mul: u128) -> Option<u128> {
    if d.mantissa == 0 {
        return Some(0);
    }
    let num = d.mantissa.checked_mul(mul)?;
    if d.exp10 >= 0 {
        num.checked_mul(pow10(u32::try_from(d.exp10).ok()?)?)
    } else {
        let den = match u32::try_from(-d.exp10).ok().and_then(pow10) {
            Some(den) => den,
            // The divisor exceeds any numerator we allow: rounds to zero.
            None => return Some(0),
        };
        Some(num / den + u128::from(num % den >= den.div_ceil(2)))
    }
}

/// `d * mul` when it is a whole number; `Err(true)` if fractional, `Err(false)` if too large.
fn scale_exact(d: &Decimal, mul: u128) -> Result<u128, bool> {
    if d.mantissa == 0 {
        return Ok(0);
    }
    let num = d.mantissa.checked_mul(mul).ok_or(false)?;
    if d.exp10 >= 0 {
        let p = u32::try_from(d.exp10).ok().and_then(pow10).ok_or(false)?;
        num.checked_mul(p).ok_or(false)
    } else {
        let den = u32::try_from(-d.exp10).ok().and_then(pow10).ok_or(true)?;
        if num % den == 0 {
            Ok(num / den)
        } else {
            Err(true)
        }
    }
}

// ---------------------------------------------------------------------------
// Messages

/// What a quantity is called in messages, examples and units.
struct Kind {
    what: &'static str,
    examples: &'static str,
    units: &'static str,
}

const DISTANCE: Kind = Kind { what: "a distance", examples: "\"250m\" or \"1.5km\"", units: "m, km, cm, mm" };
const TIME: Kind = Kind { what: "a time", examples: "\"10s\" or \"200ms\"", units: "ns, us, ms, s, min, h" };
const RATE: Kind = Kind {
    what: "a data rate",
    examples: "\"2Mbps\" or \"800kbps\"",
    units: "bps, kbps, Mbps, Gbps (bits per second; also b/s, kb/s, Mb/s, Gb/s, kbit/s, Mbit/s), \
            Bps, KBps, MBps, GBps (bytes per second; also B/s, KB/s, MB/s, GB/s)",
};
const SIZE: Kind =
    Kind { what: "a size", examples: "\"1460B\" or \"1.5KB\"", units: "B, KB (=kB, 1000 B), MB, KiB (1024 B), MiB" };
const POWER: Kind =
    Kind { what: "a power", examples: "\"0.28183815W\" or \"24.5dBm\"", units: "W, mW, uW, nW, pW, dBm, dBW" };
const RATIO: Kind = Kind { what: "a ratio", examples: "\"10dB\" or 10", units: "dB, or a plain number (linear)" };
const FREQUENCY: Kind = Kind { what: "a frequency", examples: "\"914MHz\" or \"2.4GHz\"", units: "Hz, kHz, MHz, GHz" };
const SPEED: Kind = Kind { what: "a speed", examples: "\"1.5m/s\" or \"36km/h\"", units: "m/s, km/h" };
const COORD: Kind =
    Kind { what: "a coordinate", examples: "\"200m\" or 200", units: "m, km, cm, mm, or a plain number (metres)" };
const RTS: Kind = Kind { what: "an RTS threshold", examples: "\"0B\" or \"off\"", units: "B, KB, KiB, or \"off\"" };

impl Kind {
    fn expected(&self, got: &str) -> UnitError {
        UnitError(format!("expected {} such as {} (units: {}), got {:?}", self.what, self.examples, self.units, got))
    }
    fn bare_number(&self, got: &str) -> UnitError {
        UnitError(format!(
            "expected {} such as {} (units: {}), got the bare number {}; write it as a string with a unit",
            self.what, self.examples, self.units, got
        ))
    }
    fn negative(&self, got: &str) -> UnitError {
        UnitError(format!("{} must not be negative, got {:?}", self.what, got))
    }
    fn zero(&self, got: &str) -> UnitError {
        UnitError(format!("{} must be greater than zero, got {:?}", self.what, got))
    }
    fn too_large(&self, got: &str) -> UnitError {
        UnitError(format!("{} is too large or has too many digits, got {:?}", self.what, got))
    }
}

/// Splits `s`, refusing empty units and (unless allowed) negative numbers.
fn number_and_unit<'a>(s: &'a str, k: &Kind, allow_negative: bool) -> Result<Number<'a>, UnitError> {
    let n = split_number(s.trim()).ok_or_else(|| k.expected(s))?;
    if n.negative && !allow_negative {
        return Err(k.negative(s));
    }
    Ok(n)
}

/// An f64 quantity: the number times `mul`, divided by `div`.
fn float_value(n: &Number, mul: f64, div: f64, s: &str, k: &Kind) -> Result<f64, UnitError> {
    let v: f64 = n.digits.parse().map_err(|_| k.expected(s))?;
    let v = v * mul / div;
    if !v.is_finite() {
        return Err(k.too_large(s));
    }
    Ok(if n.negative { -v } else { v })
}

fn decibels(n: &Number, s: &str, k: &Kind) -> Result<f64, UnitError> {
    let db = float_value(n, 1.0, 1.0, s, k)?;
    let lin = 10f64.powf(db / 10.0);
    if !lin.is_finite() {
        return Err(k.too_large(s));
    }
    if lin <= 0.0 {
        return Err(k.zero(s));
    }
    Ok(lin)
}

// ---------------------------------------------------------------------------
// Parsers

impl FromStr for Distance {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let n = number_and_unit(s, &DISTANCE, false)?;
        let (mul, div) = distance_unit(n.unit).ok_or_else(|| DISTANCE.expected(s))?;
        Ok(Distance(float_value(&n, mul, div, s, &DISTANCE)?))
    }
}

fn distance_unit(u: &str) -> Option<(f64, f64)> {
    Some(match u {
        "m" => (1.0, 1.0),
        "km" => (1000.0, 1.0),
        "cm" => (1.0, 100.0),
        "mm" => (1.0, 1000.0),
        _ => return None,
    })
}

impl FromStr for Coord {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let n = number_and_unit(s, &COORD, true)?;
        let (mul, div) = distance_unit(n.unit).ok_or_else(|| COORD.expected(s))?;
        Ok(Coord(float_value(&n, mul, div, s, &COORD)?))
    }
}

impl FromStr for Duration {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let n = number_and_unit(s, &TIME, false)?;
        let mul: u128 = match n.unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "min" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return Err(TIME.expected(s)),
        };
        let d = parse_decimal(n.digits).ok_or_else(|| TIME.too_large(s))?;
        let ns = scale_round(&d, mul).and_then(|v| u64::try_from(v).ok()).ok_or_else(|| TIME.too_large(s))?;
        if ns > MAX_TIME.as_ns() {
            return Err(UnitError(format!(
                "a time must be at most \"1000000s\" (11.6 days, the longest run manetlab simulates), got {s:?}"
            )));
        }
        Ok(Duration(Time::from_ns(ns)))
    }
}

impl FromStr for DataRate {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let n = number_and_unit(s, &RATE, false)?;
        let mul: u128 = match n.unit {
            "bps" | "b/s" | "bit/s" => 1,
            "kbps" | "Kbps" | "kb/s" | "Kb/s" | "kbit/s" => 1_000,
            "Mbps" | "Mb/s" | "Mbit/s" => 1_000_000,
            "Gbps" | "Gb/s" | "Gbit/s" => 1_000_000_000,
            "Bps" | "B/s" => 8,
            "kBps" | "KBps" | "kB/s" | "KB/s" => 8_000,
            "MBps" | "MB/s" => 8_000_000,
            "GBps" | "GB/s" => 8_000_000_000,
            _ => return Err(RATE.expected(s)),
        };
        let d = parse_decimal(n.digits).ok_or_else(|| RATE.too_large(s))?;
        let bps = scale_round(&d, mul).and_then(|v| u64::try_from(v).ok()).ok_or_else(|| RATE.too_large(s))?;
        if bps == 0 {
            return Err(if d.mantissa == 0 {
                RATE.zero(s)
            } else {
                UnitError(format!("a data rate must be at least \"1bps\" (rates are whole bits per second), got {s:?}"))
            });
        }
        Ok(DataRate(bps))
    }
}

impl FromStr for Size {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let n = number_and_unit(s, &SIZE, false)?;
        let mul: u128 = size_unit(n.unit).ok_or_else(|| SIZE.expected(s))?;
        let d = parse_decimal(n.digits).ok_or_else(|| SIZE.too_large(s))?;
        match scale_exact(&d, mul) {
            Ok(v) => u32::try_from(v).map(Size).map_err(|_| SIZE.too_large(s)),
            Err(true) => Err(UnitError(format!("a size must be a whole number of bytes, got {s:?}"))),
            Err(false) => Err(SIZE.too_large(s)),
        }
    }
}

fn size_unit(u: &str) -> Option<u128> {
    Some(match u {
        "B" => 1,
        "kB" | "KB" => 1_000,
        "MB" => 1_000_000,
        "KiB" => 1_024,
        "MiB" => 1_048_576,
        _ => return None,
    })
}

impl FromStr for Power {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let log = matches!(split_number(s.trim()).map(|n| n.unit), Some("dBm" | "dBW"));
        let n = number_and_unit(s, &POWER, log)?;
        let w = match n.unit {
            "W" => float_value(&n, 1.0, 1.0, s, &POWER)?,
            "mW" => float_value(&n, 1.0, 1e3, s, &POWER)?,
            "uW" | "µW" | "μW" => float_value(&n, 1.0, 1e6, s, &POWER)?,
            "nW" => float_value(&n, 1.0, 1e9, s, &POWER)?,
            "pW" => float_value(&n, 1.0, 1e12, s, &POWER)?,
            "dBm" => decibels(&n, s, &POWER)? / 1000.0,
            "dBW" => decibels(&n, s, &POWER)?,
            _ => return Err(POWER.expected(s)),
        };
        if w <= 0.0 {
            return Err(POWER.zero(s));
        }
        Ok(Power(w))
    }
}

impl FromStr for Ratio {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let log = matches!(split_number(s.trim()).map(|n| n.unit), Some("dB"));
        let n = number_and_unit(s, &RATIO, log)?;
        let r = match n.unit {
            "" => float_value(&n, 1.0, 1.0, s, &RATIO)?,
            "dB" => decibels(&n, s, &RATIO)?,
            _ => return Err(RATIO.expected(s)),
        };
        if r <= 0.0 {
            return Err(RATIO.zero(s));
        }
        Ok(Ratio(r))
    }
}

impl FromStr for Frequency {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let n = number_and_unit(s, &FREQUENCY, false)?;
        let mul = match n.unit {
            "Hz" => 1.0,
            "kHz" | "KHz" => 1e3,
            "MHz" => 1e6,
            "GHz" => 1e9,
            _ => return Err(FREQUENCY.expected(s)),
        };
        let hz = float_value(&n, mul, 1.0, s, &FREQUENCY)?;
        if hz <= 0.0 {
            return Err(FREQUENCY.zero(s));
        }
        Ok(Frequency(hz))
    }
}

impl FromStr for Speed {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let n = number_and_unit(s, &SPEED, false)?;
        let div = match n.unit {
            "m/s" | "mps" => 1.0,
            "km/h" | "kmh" => 3.6,
            _ => return Err(SPEED.expected(s)),
        };
        Ok(Speed(float_value(&n, 1.0, div, s, &SPEED)?))
    }
}

impl FromStr for RtsThreshold {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        if s.trim().eq_ignore_ascii_case("off") {
            return Ok(RtsThreshold(None));
        }
        match s.parse::<Size>() {
            Ok(Size(b)) => Ok(RtsThreshold(Some(b))),
            Err(e) if e.0.starts_with("expected") => Err(RTS.expected(s)),
            Err(e) => Err(e),
        }
    }
}

// ---------------------------------------------------------------------------
// Display: forms that parse back to the same value

/// `v / scale` as an exact decimal string ("5.5" for 5_500_000 / 1_000_000).
fn exact_decimal(v: u64, scale: u64) -> String {
    let int = v / scale;
    let frac = v % scale;
    if frac == 0 {
        return int.to_string();
    }
    let width = scale.ilog10() as usize;
    let f = format!("{frac:0width$}");
    format!("{int}.{}", f.trim_end_matches('0'))
}

impl fmt::Display for Distance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}m", self.0)
    }
}

impl fmt::Display for Coord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}m", self.0)
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0.as_ns();
        let (scale, unit) = if ns == 0 {
            (1_000_000_000, "s")
        } else if ns.checked_rem(60_000_000_000) == Some(0) {
            (60_000_000_000, "min")
        } else if ns >= 1_000_000_000 {
            (1_000_000_000, "s")
        } else if ns >= 1_000_000 {
            (1_000_000, "ms")
        } else if ns >= 1_000 {
            (1_000, "us")
        } else {
            (1, "ns")
        };
        write!(f, "{}{}", exact_decimal(ns, scale), unit)
    }
}

impl fmt::Display for DataRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        let (scale, unit) = if b >= 1_000_000_000 {
            (1_000_000_000, "Gbps")
        } else if b >= 1_000_000 {
            (1_000_000, "Mbps")
        } else if b >= 1_000 {
            (1_000, "kbps")
        } else {
            (1, "bps")
        };
        write!(f, "{}{}", exact_decimal(b, scale), unit)
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}

impl fmt::Display for Power {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}W", self.0)
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for Frequency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}Hz", self.0)
    }
}

impl fmt::Display for Speed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}m/s", self.0)
    }
}

impl fmt::Display for RtsThreshold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(b) => write!(f, "{b}B"),
            None => f.write_str("off"),
        }
    }
}

// ---------------------------------------------------------------------------
// Deserialize: strings always; plain numbers only where a number has a meaning

/// What a bare (unit-less) number means for a quantity, if anything.
trait Quantity: FromStr<Err = UnitError> + Sized {
    const KIND: &'static Kind;
    fn from_number(_v: f64, text: &str) -> Result<Self, UnitError> {
        Err(Self::KIND.bare_number(text))
    }
}

impl Quantity for Distance {
    const KIND: &'static Kind = &DISTANCE;
}
impl Quantity for Duration {
    const KIND: &'static Kind = &TIME;
}
impl Quantity for DataRate {
    const KIND: &'static Kind = &RATE;
}
impl Quantity for Size {
    const KIND: &'static Kind = &SIZE;
}
impl Quantity for Power {
    const KIND: &'static Kind = &POWER;
}
impl Quantity for Frequency {
    const KIND: &'static Kind = &FREQUENCY;
}
impl Quantity for Speed {
    const KIND: &'static Kind = &SPEED;
}
impl Quantity for RtsThreshold {
    const KIND: &'static Kind = &RTS;
}
impl Quantity for Ratio {
    const KIND: &'static Kind = &RATIO;
    fn from_number(v: f64, text: &str) -> Result<Self, UnitError> {
        if !v.is_finite() {
            Err(RATIO.expected(text))
        } else if v <= 0.0 {
            Err(RATIO.zero(text))
        } else {
            Ok(Ratio(v))
        }
    }
}
impl Quantity for Coord {
    const KIND: &'static Kind = &COORD;
    fn from_number(v: f64, text: &str) -> Result<Self, UnitError> {
        if v.is_finite() {
            Ok(Coord(v))
        } else {
            Err(COORD.expected(text))
        }
    }
}

struct QuantityVisitor<T>(std::marker::PhantomData<T>);

impl<T: Quantity> Visitor<'_> for QuantityVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} such as {} (units: {})", T::KIND.what, T::KIND.examples, T::KIND.units)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        v.parse::<T>().map_err(E::custom)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        T::from_number(v as f64, &v.to_string()).map_err(E::custom)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        T::from_number(v as f64, &v.to_string()).map_err(E::custom)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        T::from_number(v, &v.to_string()).map_err(E::custom)
    }
}

macro_rules! deserialize_quantity {
    ($($t:ty),*) => {$(
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(QuantityVisitor::<$t>(std::marker::PhantomData))
            }
        }
    )*};
}

deserialize_quantity!(Distance, Duration, DataRate, Size, Power, Ratio, Frequency, Speed, Coord, RtsThreshold);

#[cfg(test)]
mod tests;
