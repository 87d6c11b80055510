//! Applications: the traffic types a flow can carry, one file each, and
//! call quality (`quality.rs`).
//!
//! A traffic type implements [`TrafficModel`]: its name (`[[flow]] type`),
//! the `[[flow]]` keys it reads and their parser (written against
//! `sim::params::Params`, beside the model), and how a flow of it is built:
//! a sender endpoint at the source node and a sink endpoint at the
//! destination (transport endpoints, `transport/`, driven where it is UDP
//! by a [`TrafficSource`] defined in the same file). It is registered by
//! one line in [`traffic_types!`] below; nothing else in the tree names it.

pub mod beacon;
pub mod quality;

use crate::net::NodeId;
use crate::sim::params::{ParamError, Params};
use crate::sim::Time;
use crate::transport::Endpoint;

pub use crate::transport::TrafficSource;

/// The 802.11 MSDU limit (bytes above the MAC header): no fragmentation.
pub const MAX_MSDU: u32 = 2304;
/// Largest UDP payload: the MSDU limit less IP and UDP headers.
pub const MAX_UDP_PAYLOAD: u32 = MAX_MSDU - crate::net::IP_HEADER_BYTES - crate::net::packet::UDP_HEADER_BYTES;

/// The registry of traffic types: one line per type, naming the variant of
/// [`Traffic`] that carries its configuration and the module and type
/// implementing [`TrafficModel`]. The macro declares the module, the
/// variant, the dispatch (`kind`, `endpoints`) and the [`TRAFFIC_TYPES`]
/// table the scenario layer reads.
macro_rules! traffic_types {
    ($( $(#[$doc:meta])* $variant:ident $body:tt => $module:ident :: $model:ident, )*) => {
        $( pub mod $module; )*

        /// What a flow's source sends: one variant per registered type.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Traffic {
            $( $(#[$doc])* $variant $body, )*
        }

        impl Traffic {
            /// The type's name in reports (`kind` in flows.csv).
            pub fn kind(&self) -> &'static str {
                match self {
                    $( Traffic::$variant { .. } => <$module::$model as TrafficModel>::NAME, )*
                }
            }

            /// The flow's sender (at its source) and sink (at its destination).
            pub fn endpoints(&self, env: &FlowEnv) -> Endpoints {
                match self {
                    $( Traffic::$variant { .. } => <$module::$model as TrafficModel>::endpoints(self, env), )*
                }
            }
        }

        /// Every registered traffic type, in registration order.
        pub const TRAFFIC_TYPES: &[TrafficType] = &[
            $( TrafficType {
                name: <$module::$model as TrafficModel>::NAME,
                types: <$module::$model as TrafficModel>::TYPES,
                keys: <$module::$model as TrafficModel>::KEYS,
                parse: <$module::$model as TrafficModel>::parse,
            }, )*
        ];
    };
}

traffic_types! {
    /// UDP constant bit rate: `size` payload bytes every `interval`, each
    /// gap optionally perturbed by up to ±`jitter` (uniform).
    Cbr { size: u32, interval: Time, jitter: Time } => cbr::Cbr,
    /// UDP CBR sent in bursts: `burst` packets of `size` bytes back to back
    /// every `burst * interval` (the same mean rate as `Cbr`; written as a
    /// `cbr` flow with `burst` > 1).
    BurstyCbr { size: u32, interval: Time, burst: u32 } => burst::BurstyCbr,
    /// A one-way TCP connection carrying bulk (FTP) or finite data.
    Tcp { tcp: crate::transport::tcp::TcpConfig, data: crate::transport::tcp::DataSource } => tcp::Tcp,
    /// TFRC (RFC 5348) carrying an application that offers `rate_bps` of
    /// payload (None = always has data) in packets of `tfrc.packet_size`.
    Tfrc { tfrc: crate::transport::tfrc::TfrcConfig, rate_bps: Option<u64> } => tfrc::Tfrc,
    /// A two-way voice call between `src` and `dst` (`app/voip.rs`).
    Voip(voip::VoipConfig) => voip::Voip,
    /// UDP packets of `size` bytes with exponential gaps of mean `interval`
    /// (a Poisson process), see `app/poisson.rs`.
    Poisson { size: u32, interval: Time } => poisson::Poisson,
}

/// A traffic type as the scenario file and the kernel see it, implemented
/// beside the type and registered in [`traffic_types!`].
pub trait TrafficModel {
    /// The name in reports (flows.csv `kind`).
    const NAME: &'static str;
    /// The `[[flow]] type` values that choose it (none: made by another
    /// type's parser, as `cbr` with `burst` makes bursty CBR).
    const TYPES: &'static [&'static str];
    /// The `[[flow]]` keys it reads besides `name`, `src`, `dst`, `type`,
    /// `start` and `stop`; any other key given is refused.
    const KEYS: &'static [&'static str];
    /// Its configuration from a `[[flow]]` section (`type` chose it).
    fn parse(p: &dyn Params) -> Result<Traffic, ParamError>;
    /// The flow's two endpoints; `cfg` is this type's variant.
    fn endpoints(cfg: &Traffic, env: &FlowEnv) -> Endpoints;
}

/// A flow's sender (installed at its source) and sink (at its destination).
pub struct Endpoints {
    pub sender: Box<dyn Endpoint>,
    pub sink: Box<dyn Endpoint>,
}

/// A registry entry: what the scenario layer needs to read a `[[flow]]`.
pub struct TrafficType {
    pub name: &'static str,
    pub types: &'static [&'static str],
    pub keys: &'static [&'static str],
    pub parse: fn(&dyn Params) -> Result<Traffic, ParamError>,
}

/// What a traffic type may read when its endpoints are built.
#[derive(Copy, Clone, Debug)]
pub struct FlowEnv {
    /// The flow's index (its statistics and random streams).
    pub flow: u32,
    /// The port both endpoints are bound to.
    pub port: u16,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: Time,
    /// The flow's stop time, at most the end of the run.
    pub stop: Time,
    /// The run's warm-up (statistics count from here).
    pub warmup: Time,
}

/// `'<section>.packet_size'` as a UDP payload of 1 B to `max` B (`what`
/// describes the limit in messages).
pub(crate) fn payload_size(p: &dyn Params, max: u32, what: &str) -> Result<Option<u32>, ParamError> {
    match p.bytes("packet_size")? {
        Some(s) if s.v == 0 || s.v > max => Err(p.error(
            crate::sim::params::ParamErrorKind::OutOfRange,
            s.at,
            "packet_size",
            &format!("{{key}} must be from 1B to {max}B ({what}), got {}B", s.v),
        )),
        s => Ok(s.map(|s| s.v)),
    }
}

/// A packet interval given as `interval` or as `rate` (bit/s of `size`-byte
/// payloads), not both; None when neither is given.
pub(crate) fn interval_or_rate(
    p: &dyn Params,
    size: u32,
) -> Result<Option<(Time, crate::sim::params::Loc)>, ParamError> {
    use crate::sim::params::ParamErrorKind::*;
    let key = |k: &str| format!("'{}.{k}'", p.section());
    match (p.rate("rate")?, p.duration("interval")?) {
        (Some(a), Some(b)) => {
            let later = if a.at.0 > b.at.0 { a.at } else { b.at };
            Err(ParamError::new(
                Inconsistent,
                later,
                format!("give either {} or {}, not both", key("rate"), key("interval")),
            ))
        }
        (None, None) => Ok(None),
        (Some(r), None) => {
            let ns = (size as u128 * 8 * 1_000_000_000 + r.v as u128 / 2) / r.v as u128;
            if ns == 0 {
                return Err(ParamError::new(
                    OutOfRange,
                    r.at,
                    format!("{} is too high: packets would be less than 1 ns apart", key("rate")),
                ));
            }
            Ok(Some((Time::from_ns(ns as u64), r.at)))
        }
        (None, Some(iv)) => {
            if iv.v == Time::ZERO {
                return Err(ParamError::new(
                    OutOfRange,
                    iv.at,
                    format!("{} must be greater than zero", key("interval")),
                ));
            }
            Ok(Some((iv.v, iv.at)))
        }
    }
}
