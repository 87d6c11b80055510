//! Packet-fate tracing: every send, receive, forward and drop at every layer,
//! and every frame on the air, handed to a [`TraceSink`].
//!
//! A trace sink is an [`Observer`] (`metrics/observe.rs`); tracing is off
//! unless one is registered (`Simulation::add_observer`). Sinks write
//! formats: ns-2's wireless trace text ([`super::trace_ns2`]) and pcap with radiotap/802.11 headers
//! ([`super::trace_pcap`]); [`open`] builds the sinks a [`TraceOptions`]
//! asks for. The formats are described in `docs/tracing.md`.

use crate::config::Position;
use std::io;
use std::path::Path;

pub use super::trace_ns2::{Ns2Format, Ns2Sink};
pub use super::trace_pcap::{PcapMode, PcapSink};

/// The observer under its first name (trace sinks were the first observers).
pub use super::observe::Observer as TraceSink;
pub use super::observe::{
    Action, FrameDir, FrameEvent, Interest, Layer, Observer, PacketEvent, QueueEvent, Reception, ReceptionEvent,
};

/// A sink that keeps events in memory as text lines (tests, small runs).
#[derive(Default)]
pub struct MemorySink {
    pub lines: Vec<String>,
}

impl TraceSink for MemorySink {
    fn packet(&mut self, ev: &PacketEvent) {
        let why = match ev.action {
            Action::Drop(r) => r.code(),
            _ => "---",
        };
        self.lines.push(format!(
            "{} {:.9} _{}_ {} {} {} {} {} [{} -> {}]",
            ev.action.ns2(),
            ev.time.as_secs_f64(),
            ev.node,
            ev.layer.ns2(),
            why,
            ev.pkt.uid,
            ev.pkt.type_name(),
            ev.pkt.size,
            ev.pkt.src,
            ev.pkt.dst
        ));
    }
}

/// Fans events out to several sinks.
#[derive(Default)]
pub struct Tee(pub Vec<Box<dyn TraceSink>>);

impl TraceSink for Tee {
    fn start(&mut self, cfg: &crate::config::SimConfig) {
        self.0.iter_mut().for_each(|s| s.start(cfg));
    }
    fn queue(&mut self, ev: &QueueEvent) {
        self.0.iter_mut().for_each(|s| s.queue(ev));
    }
    fn attach_board(&mut self, board: &crate::wire::board::WireBoard) {
        self.0.iter_mut().for_each(|s| s.attach_board(board));
    }
    fn packet(&mut self, ev: &PacketEvent) {
        self.0.iter_mut().for_each(|s| s.packet(ev));
    }
    fn frame(&mut self, ev: &FrameEvent) {
        self.0.iter_mut().for_each(|s| s.frame(ev));
    }
    fn interest(&self) -> Interest {
        self.0.iter().fold(Interest::default(), |a, s| a.or(s.interest()))
    }
    fn reception(&mut self, ev: &ReceptionEvent) {
        self.0.iter_mut().for_each(|s| s.reception(ev));
    }
    fn routes(&mut self, time: crate::sim::Time, node: crate::net::NodeId, table: &[crate::net::routing::RouteEntry]) {
        self.0.iter_mut().for_each(|s| s.routes(time, node, table));
    }
    fn link_failure(&mut self, time: crate::sim::Time, node: crate::net::NodeId, next_hop: crate::net::NodeId) {
        self.0.iter_mut().for_each(|s| s.link_failure(time, node, next_hop));
    }
    fn finish(&mut self) -> std::io::Result<()> {
        self.0.iter_mut().try_for_each(|s| s.finish())
    }
}

/// Which trace files a run writes (scenario `[output] trace` and `pcap`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceOptions {
    /// ns-2 wireless trace text, `trace.tr`.
    pub ns2: Option<Ns2Format>,
    /// pcap capture(s): `trace.pcap`, or `trace-node<i>.pcap` per node.
    pub pcap: Option<PcapMode>,
}

impl TraceOptions {
    /// No trace at all.
    pub fn is_off(&self) -> bool {
        self.ns2.is_none() && self.pcap.is_none()
    }
}

/// File name of the ns-2 trace written by [`open`].
pub const NS2_FILE_NAME: &str = "trace.tr";

/// Creates the trace files `opts` asks for in `dir` (created if missing) and
/// returns the sink to register with `Simulation::add_observer`: `None` when
/// tracing is off, a [`Tee`] when several formats are on. `positions` are
/// the run's node positions (`SimConfig::nodes`): they fill the ns-2
/// position fields and give the number of per-node pcap files.
///
/// ```no_run
/// # use manetlab::{Simulation, scenario::Scenario, metrics::trace};
/// # use std::path::Path;
/// let sc = Scenario::from_path(Path::new("scenarios/default.toml")).unwrap();
/// let cfg = sc.config(sc.seed());
/// let sink = trace::open(Path::new("out/default"), &sc.trace, &cfg.nodes)?;
/// let mut sim = Simulation::new(cfg).unwrap();
/// if let Some(sink) = sink {
///     sim.add_observer(sink);
/// }
/// let report = sim.run(); // flushes the trace files
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn open(dir: &Path, opts: &TraceOptions, positions: &[Position]) -> io::Result<Option<Box<dyn TraceSink>>> {
    if opts.is_off() {
        return Ok(None);
    }
    std::fs::create_dir_all(dir)?;
    let mut sinks: Vec<Box<dyn TraceSink>> = Vec::new();
    if let Some(format) = opts.ns2 {
        let file = std::fs::File::create(dir.join(NS2_FILE_NAME))?;
        let out = io::BufWriter::with_capacity(256 * 1024, file);
        sinks.push(Box::new(Ns2Sink::new(out, format, positions)));
    }
    if let Some(mode) = opts.pcap {
        sinks.push(Box::new(PcapSink::create(dir, mode, positions.len())?));
    }
    Ok(Some(if sinks.len() == 1 { sinks.pop().expect("one sink") } else { Box::new(Tee(sinks)) }))
}
