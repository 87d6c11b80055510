//! The typed, validated description of one run: what `scenario/` builds from
//! a file and what `Simulation::new` consumes. Plain data in SI units
//! (seconds as `Time`, metres, watts, bit/s, bytes); no parsing here.

use crate::mac::MacConfig;
use crate::mobility::MobilityConfig;
use crate::net::arp::ArpConfig;
use crate::net::routing::RoutingConfig;
use crate::net::wired::WiredConfig;
use crate::phy::RadioConfig;
use crate::queue::QueueConfig;
use crate::sim::Time;

pub use crate::sim::Position;

/// What a flow's source sends: one variant per registered traffic type
/// (`app/mod.rs`).
pub use crate::app::Traffic;

#[derive(Clone, Debug, PartialEq)]
pub struct FlowConfig {
    /// Name shown in reports (defaults to `flow<i>`).
    pub name: String,
    pub src: u32,
    pub dst: u32,
    pub traffic: Traffic,
    pub start: Time,
    /// None = until the end of the run.
    pub stop: Option<Time>,
}

/// What a scripted node event does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NodeAction {
    /// The node's radio stops: it neither transmits nor receives frames that
    /// start from this instant on (a frame already arriving still ends
    /// normally). Its MAC, routing and applications keep running, so its
    /// transmissions fail and its neighbours stop hearing it: a node that is
    /// switched off, or moves out of range, as seen by everyone else.
    RadioOff,
    /// The radio works again (frames already on the air are not picked up).
    RadioOn,
}

/// A scripted change to one node at a given time (there is no mobility yet;
/// this is how link breaks are staged).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct NodeEvent {
    pub node: u32,
    pub at: Time,
    pub action: NodeAction,
}

/// Everything needed to run one replication; `seed` picks the random streams.
#[derive(Clone, Debug, PartialEq)]
pub struct SimConfig {
    pub seed: u64,
    pub duration: Time,
    /// Metrics count only what happens from this time on (warm-up cut).
    pub warmup: Time,
    pub nodes: Vec<Position>,
    pub radio: RadioConfig,
    pub mac: MacConfig,
    pub queue: QueueConfig,
    pub routing: RoutingConfig,
    pub arp: ArpConfig,
    /// Node movement; `nodes` holds the positions at time 0.
    pub mobility: MobilityConfig,
    pub flows: Vec<FlowConfig>,
    /// Scripted node events (radio off/on), in any order.
    pub node_events: Vec<NodeEvent>,
    /// Point-to-point wired links and radio-less nodes (`net/wired.rs`).
    pub wired: WiredConfig,
    /// TCP controls at an Internet gateway (`net/gateway.rs`).
    pub gateway: Option<crate::net::gateway::GatewayConfig>,
    /// Optional recordings in the report (`[output] interval`,
    /// `path_profile`); all off by default.
    pub record: Recording,
    /// Every node runs the beaconing node-discovery app (`[beacon]`,
    /// `app/beacon.rs`).
    pub beacon: Option<crate::app::beacon::BeaconConfig>,
}

/// What a run records beyond the standard report. Off by default: a run
/// pays nothing for what it does not record.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Recording {
    /// Time series (`Report::timeseries`, `timeseries.csv`): per interval of
    /// this length from the warm-up on, per flow and per node
    /// (`metrics/timeseries.rs`, an observer registered only when set).
    pub interval: Option<Time>,
    /// Shortest-path hop-count profiles of every flow in mobile runs
    /// (`FlowReport::path_profile`, the path-profile files, and the
    /// expected throughput of mobile TCP flows computed from them).
    pub path_profiles: bool,
    /// Leave the per-node rows out of the report (`[output] nodes =
    /// false`, for networks of 10^5-10^6 nodes): `Report::nodes` is empty
    /// and `Report::node_totals` holds their sum, so the network table is
    /// unchanged.
    pub omit_nodes: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            seed: 1,
            duration: Time::from_secs(10),
            warmup: Time::ZERO,
            nodes: Vec::new(),
            radio: RadioConfig::default(),
            mac: MacConfig::default(),
            queue: QueueConfig::default(),
            routing: RoutingConfig::default(),
            arp: ArpConfig::default(),
            mobility: MobilityConfig::default(),
            flows: Vec::new(),
            node_events: Vec::new(),
            wired: WiredConfig::default(),
            gateway: None,
            record: Recording::default(),
            beacon: None,
        }
    }
}

impl SimConfig {
    /// Nodes `0..n` on a line `spacing` metres apart (node 0 at x = 0).
    pub fn chain_positions(n: usize, spacing: f64) -> Vec<Position> {
        Position::chain(n, spacing)
    }
    /// `rows` x `cols` grid, node id = row * cols + col.
    pub fn grid_positions(rows: usize, cols: usize, spacing: f64) -> Vec<Position> {
        Position::grid(rows, cols, spacing)
    }
}
