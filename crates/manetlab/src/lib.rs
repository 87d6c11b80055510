//! manetlab: a deterministic packet-level simulator for multi-hop 802.11 ad
//! hoc networks.
//!
//! The modules are layers, bottom up ([`LAYERS`]; none imports a layer
//! above it):
//! - [`sim`]: integer-nanosecond clock, event queue, named random streams,
//!   and the shared vocabulary (node ids, positions, drop reasons, packet
//!   uids and fates);
//! - [`wire`]: frame, packet and header formats;
//! - [`mobility`]: node movement;
//! - [`phy`]: propagation, the shared channel, each node's radio;
//! - [`mac`]: IEEE 802.11 DCF / EDCA, TDMA;
//! - [`queue`]: interface queue disciplines, backpressure;
//! - [`net`]: forwarding, routing protocols, ARP, wired links, the gateway;
//! - [`transport`]: UDP, TCP, TFRC endpoints;
//! - [`app`]: the traffic types (registry: one file per type), call quality;
//! - [`config`]: the typed description of one run;
//! - [`metrics`]: reports, statistics, the observer and the trace writers;
//! - [`node`], [`simulation`]: the kernel;
//! - [`scenario`]: scenario files, validation, building a run;
//! - [`study`]: the experiment kit (sweeps, statistics, figures, the study
//!   trait and report builder); the paper reproductions are in the
//!   `manetlab-studies` crate.
//! - [`output`]: the output tables and files, defined once;
//! - [`exec`]: running scenarios and sweeps for front ends (CLI, Python).
//!
//! [`config::SimConfig`] describes one run; `Simulation` executes it.

/// The layers of the house, bottom first. A module may name (`crate::...`)
/// only modules of its own layer or below: nothing imports upward. The rule
/// is checked by `tests/layers.rs` over every library source file (test
/// modules aside); `docs/architecture.md` explains each layer.
pub const LAYERS: &[&[&str]] = &[
    &["sim"],                // time, events, random streams, shared vocabulary
    &["wire"],               // frame, packet and header formats
    &["mobility"],           // node positions over time
    &["phy"],                // propagation, channel, radios
    &["mac"],                // 802.11 DCF/EDCA, TDMA
    &["queue"],              // interface queues, backpressure
    &["net"],                // forwarding, routing, ARP, wires, gateway
    &["transport"],          // UDP, TCP, TFRC endpoints
    &["app"],                // traffic types (registry), call quality
    &["config"],             // the typed description of one run
    &["metrics"],            // reports, traces, statistics, analytic models
    &["node", "simulation"], // the kernel: event loop, pipeline, builder
    &["scenario"],           // scenario files -> configs
    &["output"],             // the output tables and files, defined once
    &["study"],              // experiment kit (sweeps, figures, the Study trait)
    &["exec"],               // running scenarios and sweeps for front ends
];

pub mod app;
pub mod config;
pub mod exec;
pub mod mac;
pub mod metrics;
pub mod mobility;
pub mod net;
pub mod node;
pub mod output;
pub mod phy;
pub mod queue;
pub mod scenario;
pub mod sim;
pub mod simulation;
pub mod study;
pub mod transport;
pub mod wire;
pub use config::SimConfig;
pub use metrics::Report;
pub use simulation::{BuildError, Simulation};
