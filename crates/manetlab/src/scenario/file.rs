//! The scenario file as written: TOML sections deserialized with spans.
//!
//! Nothing here checks meaning; `build` turns this into a `SimConfig` and
//! reports semantic errors at the spans kept here. Sections whose keys depend
//! on a `kind`/`type`/`protocol` are flat structs of optional keys, so a key
//! that belongs to another kind gets a precise message ("'rows' is not used by
//! kind = \"chain\"") instead of a generic serde one, and new kinds (AODV,
//! TCP flows...) slot in by adding keys and a branch in `build`.

use super::units::{Coord, DataRate, Distance, Duration, Frequency, Power, Ratio, RtsThreshold, Size, Speed};
use serde::Deserialize;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScenarioFile {
    pub run: RunSection,
    pub topology: TopologySection,
    #[serde(default)]
    pub radio: RadioSection,
    #[serde(default)]
    pub mac: MacSection,
    #[serde(default)]
    pub queue: QueueSection,
    /// `[routing]` is read by the chosen protocol's own parser
    /// (`scenario/build/routing.rs`, `net::routing::PROTOCOLS`).
    #[serde(default, rename = "routing")]
    pub _routing: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    pub flow: Vec<FlowSection>,
    /// `[[flows]]` generators, read from the document (`build/generate.rs`).
    #[serde(default)]
    #[allow(dead_code)]
    pub flows: Vec<toml::Value>,
    #[serde(default)]
    pub event: Vec<EventSection>,
    #[serde(default)]
    pub output: OutputSection,
    #[serde(default)]
    pub arp: ArpSection,
    #[serde(default)]
    pub mobility: MobilitySection,
    #[serde(default, rename = "move")]
    pub moves: Vec<MoveSection>,
    #[serde(default)]
    pub link: Vec<LinkSection>,
    #[serde(default)]
    pub wired: WiredSection,
    /// `[gateway]`: TCP controls at the Internet gateway (`net/gateway.rs`).
    pub gateway: Option<GatewaySection>,
    /// `[beacon]`: every node runs the beaconing app (`app/beacon.rs`).
    pub beacon: Option<BeaconSection>,
    /// `[sweep]`: key -> values (see `scenario::sweep`).
    #[serde(default)]
    pub sweep: std::collections::BTreeMap<String, Spanned<toml::Value>>,
}

/// A point-to-point wired link (`net/wired.rs`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LinkSection {
    pub a: Spanned<u32>,
    pub b: Spanned<u32>,
    pub bandwidth: Spanned<DataRate>,
    pub delay: Spanned<Duration>,
    /// Drop-tail queue limit of each direction (packets, default 50).
    pub queue: Option<Spanned<u32>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WiredSection {
    /// Nodes without a radio.
    pub only: Option<Spanned<Vec<Spanned<u32>>>>,
}

/// `[beacon]` (`app/beacon.rs`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BeaconSection {
    /// [min, max] of the uniform beacon interval.
    pub interval: Option<Spanned<[Duration; 2]>>,
    pub packet_size: Option<Spanned<Size>>,
    pub timeout: Option<Spanned<Duration>>,
    pub start: Option<Spanned<Duration>>,
    pub per_node: Option<Spanned<bool>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GatewaySection {
    pub node: Spanned<u32>,
    /// Advertised-window clamp, segments.
    pub window: Option<Spanned<u32>>,
    pub pacing: Option<Spanned<DataRate>>,
    pub ack_pacing: Option<Spanned<DataRate>>,
    /// FIFO limit of each shaper, packets (default 50).
    pub pacing_queue: Option<Spanned<u32>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunSection {
    pub name: Option<Spanned<String>>,
    pub duration: Spanned<Duration>,
    pub warmup: Option<Spanned<Duration>>,
    pub seed: Option<u64>,
    pub replications: Option<Spanned<u32>>,
    /// "ns2" (default), "ns3", "cmu1999": checked and applied by `profile.rs`.
    #[allow(dead_code)]
    pub profile: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TopologySection {
    pub kind: Spanned<String>,
    pub nodes: Option<Spanned<u32>>,
    pub spacing: Option<Spanned<Distance>>,
    pub rows: Option<Spanned<u32>>,
    pub cols: Option<Spanned<u32>>,
    pub area: Option<Spanned<Vec<Distance>>>,
    pub positions: Option<Spanned<Vec<Spanned<Vec<Coord>>>>>,
    /// `kind = "random"` only: "id" (default) or "hilbert" (`order.rs`).
    pub order: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RadioSection {
    pub propagation: Option<Spanned<String>>,
    pub tx_power: Option<Power>,
    pub frequency: Option<Frequency>,
    pub tx_gain: Option<Ratio>,
    pub rx_gain: Option<Ratio>,
    pub antenna_height: Option<Spanned<Distance>>,
    pub system_loss: Option<Ratio>,
    pub rx_range: Option<Spanned<Distance>>,
    pub rx_threshold: Option<Spanned<Power>>,
    pub cs_range: Option<Spanned<Distance>>,
    pub cs_threshold: Option<Spanned<Power>>,
    pub capture_threshold: Option<Ratio>,
    pub capture_rule: Option<Spanned<String>>,
    pub path_loss_exponent: Option<Spanned<f64>>,
    pub reference_distance: Option<Spanned<Distance>>,
    pub shadowing_deviation: Option<Spanned<Ratio>>,
    pub reception: Option<Spanned<String>>,
    pub noise_figure: Option<Spanned<Ratio>>,
    /// SINR reception: SINR a frame needs at its start to be locked onto
    /// (ns-3 preamble detection, 4 dB).
    pub preamble_detection_threshold: Option<Spanned<Ratio>>,
    /// SINR reception: ns-3's CCA energy-detection threshold (-62 dBm).
    pub energy_detection_threshold: Option<Spanned<Power>>,
    /// With `energy_detection_threshold`: ns-3.37's CCA in full (phy/sinr.rs).
    pub cca_sensitivity_hold: Option<Spanned<bool>>,
    /// "none" (default), "nakagami" or "rayleigh" (Nakagami m = 1).
    pub fading: Option<Spanned<String>>,
    pub nakagami_m: Option<Spanned<f64>>,
    /// "per-frame" (default, ns-2) or "correlated".
    pub shadowing: Option<Spanned<String>>,
    pub shadowing_decorrelation: Option<Spanned<Distance>>,
    pub shadowing_coherence_time: Option<Spanned<Duration>>,
}

/// The keys every MAC shares. `protocol` and each MAC's own keys are read
/// by the MAC's parser (`scenario/build/radio.rs`, `mac::MACS`), which
/// also refuses unknown keys.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct MacSection {
    pub standard: Option<Spanned<String>>,
    pub data_rate: Option<Spanned<DataRate>>,
    pub basic_rate: Option<Spanned<DataRate>>,
    pub preamble: Option<Spanned<String>>,
    pub rts_threshold: Option<RtsThreshold>,
    pub short_retry_limit: Option<Spanned<u32>>,
    pub long_retry_limit: Option<Spanned<u32>>,
    pub cw_min: Option<Spanned<u32>>,
    pub cw_max: Option<Spanned<u32>>,
    /// 802.11e EDCA (AC_VO / AC_BE) instead of DCF.
    pub edca: Option<Spanned<bool>>,
    /// "constant" (default), "arf", "aarf", "minstrel", "ideal".
    pub rate_control: Option<Spanned<String>>,
    /// "mpdu" (default) or "station" (ns-3.37's retry counters).
    pub retry_counters: Option<Spanned<String>>,
    /// "standard" (default), "ns2" or "ignore-nav": when an RTS is answered.
    pub cts_rule: Option<Spanned<String>>,
    /// "idle-for-difs" (default) or "idle-now" (ns-3.37's immediate access).
    pub immediate_access: Option<Spanned<String>>,
}

/// The keys every discipline shares. `kind` and each discipline's own
/// keys are read by its parser (`scenario/build.rs`,
/// `queue::DISCIPLINES`), which also refuses unknown keys.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct QueueSection {
    pub limit: Option<Spanned<u32>>,
    pub control_first: Option<bool>,
    /// Lifetime of a packet in the queue (ns-3 `WifiMacQueue` `MaxDelay`).
    pub max_delay: Option<Spanned<Duration>>,
    /// The lifetime also ends the packet the MAC is sending or retrying
    /// (ns-3.37's `WifiMacQueue` keeps it at the head).
    pub expire_in_flight: Option<Spanned<bool>>,
    pub backpressure: Option<BackpressureSection>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BackpressureSection {
    pub threshold: Option<Spanned<u32>>,
    pub key: Option<Spanned<String>>,
    pub knowledge: Option<Spanned<String>>,
    pub stale: Option<Spanned<Duration>>,
    pub udp_only: Option<bool>,
}

/// The keys every `[[flow]]` has; its traffic type's own keys are read
/// from the document by the type's parser (`app/`, `build/flow.rs`), which
/// also refuses unknown keys.
#[derive(Debug, Deserialize)]
pub(crate) struct FlowSection {
    pub name: Option<Spanned<String>>,
    pub src: Spanned<u32>,
    pub dst: Spanned<u32>,
    #[serde(rename = "type")]
    pub kind: Spanned<String>,
    pub start: Option<Spanned<Duration>>,
    pub stop: Option<Spanned<Duration>>,
}

/// A scripted node event.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EventSection {
    pub node: Spanned<u32>,
    pub at: Spanned<Duration>,
    pub action: Spanned<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OutputSection {
    pub dir: Option<Spanned<String>>,
    /// Trace formats: "ns2", "ns2-old", "pcap".
    pub trace: Option<Spanned<Vec<Spanned<String>>>>,
    /// pcap layout: "merged" or "per-node".
    pub pcap: Option<Spanned<String>>,
    /// Write the browser viewer `viz.html` (and `viz.json`).
    pub viz: Option<Spanned<bool>>,
    /// The viewer's recording window `[from, to]`.
    pub viz_window: Option<Spanned<Vec<Spanned<Duration>>>>,
    /// Keep the frames of every N-th flow packet.
    pub viz_decimate: Option<Spanned<u32>>,
    /// Record receivers that only sensed a frame.
    pub viz_sensed: Option<Spanned<bool>>,
    /// Time series interval (`timeseries.csv`).
    pub interval: Option<Spanned<Duration>>,
    /// Record shortest-path profiles of mobile flows (path-profile files).
    pub path_profile: Option<Spanned<bool>>,
    /// Per-node rows in the report and nodes.csv (default true).
    pub nodes: Option<Spanned<bool>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ArpSection {
    pub mode: Option<Spanned<String>>,
    pub max_requests: Option<Spanned<u32>>,
    pub queue_limit: Option<Spanned<u32>>,
    pub retry_interval: Option<Spanned<Duration>>,
    pub report_failure: Option<Spanned<bool>>,
    pub dead_time: Option<Spanned<Duration>>,
    pub ns3_cache: Option<Spanned<bool>>,
    pub report_drops: Option<Spanned<bool>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MobilitySection {
    pub model: Option<Spanned<String>>,
    /// random-waypoint: [min, max].
    pub speed: Option<Spanned<Vec<Speed>>>,
    /// pattern: mean speed v (node speeds uniform in [0.9v, 1.1v]).
    pub mean_speed: Option<Spanned<Speed>>,
    pub pause: Option<Spanned<Duration>>,
    /// pattern: which movie (default: the run seed).
    pub pattern: Option<Spanned<u64>>,
    /// ns2-file: path of an ns-2 movement file, relative to the scenario.
    pub file: Option<Spanned<String>>,
    /// random-waypoint: start in the stationary distribution.
    pub steady_state: Option<Spanned<bool>>,
    /// gauss-markov: memory 0..1, update step, deviations.
    pub alpha: Option<Spanned<f64>>,
    pub step: Option<Spanned<Duration>>,
    pub speed_sd: Option<Spanned<Speed>>,
    pub direction_sd: Option<Spanned<f64>>,
    /// rpgm: number of groups and the radius around each reference point.
    pub groups: Option<Spanned<u32>>,
    pub radius: Option<Spanned<Distance>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MoveSection {
    pub node: Spanned<u32>,
    pub at: Spanned<Duration>,
    pub to: Spanned<Vec<Coord>>,
    pub speed: Spanned<Speed>,
}
