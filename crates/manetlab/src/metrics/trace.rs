//! Packet-fate tracing: every send, receive, forward and drop at every layer,
//! and every frame on the air, handed to a [`TraceSink`].
//!
//! Tracing is off unless a sink is installed (`Simulation::set_tracer`); the
//! hooks then cost one branch each. Sinks write formats: ns-2's wireless
//! trace text ([`super::trace_ns2`]) and pcap with radiotap/802.11 headers
//! ([`super::trace_pcap`]); [`open`] builds the sinks a [`TraceOptions`]
//! asks for. The formats are described in `docs/tracing.md`.

use super::DropReason;
use crate::config::Position;
use crate::mac::Frame;
use crate::net::{NodeId, Packet};
use crate::sim::Time;
use std::io;
use std::path::Path;

pub use super::trace_ns2::{Ns2Format, Ns2Sink};
pub use super::trace_pcap::{PcapMode, PcapSink};

/// The layer an event happened at (ns-2's trace levels).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Layer {
    /// Application / transport agent ("AGT").
    Agent,
    /// Routing / network layer ("RTR").
    Router,
    /// Interface queue ("IFQ").
    Ifq,
    /// MAC ("MAC").
    Mac,
}

impl Layer {
    pub fn ns2(self) -> &'static str {
        match self {
            Layer::Agent => "AGT",
            Layer::Router => "RTR",
            Layer::Ifq => "IFQ",
            Layer::Mac => "MAC",
        }
    }
    /// The layer at which a drop with this reason happens.
    pub fn of_drop(why: DropReason) -> Layer {
        match why {
            DropReason::Ifq | DropReason::Arp | DropReason::Pace => Layer::Ifq,
            DropReason::Ret | DropReason::Col | DropReason::Err | DropReason::Dup => Layer::Mac,
            DropReason::End => Layer::Ifq,
            DropReason::Bps => Layer::Agent,
            _ => Layer::Router,
        }
    }
}

/// What happened to a packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// "s": sent by this layer (handed down).
    Send,
    /// "r": received by this layer (from below).
    Recv,
    /// "f": forwarded by the router.
    Forward,
    /// "D": dropped, with the reason.
    Drop(DropReason),
}

impl Action {
    pub fn ns2(self) -> &'static str {
        match self {
            Action::Send => "s",
            Action::Recv => "r",
            Action::Forward => "f",
            Action::Drop(_) => "D",
        }
    }
}

/// One traced packet event.
#[derive(Copy, Clone, Debug)]
pub struct PacketEvent<'a> {
    pub time: Time,
    pub node: NodeId,
    pub layer: Layer,
    pub action: Action,
    pub pkt: &'a Packet,
    /// For MAC-level events: the frame carrying the packet.
    pub frame: Option<&'a Frame>,
}

/// Direction of a frame event.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FrameDir {
    /// The node put the frame on the air.
    Tx,
    /// The node decoded the frame.
    Rx,
    /// The node's receiver lost the frame (collision or error).
    Lost(DropReason),
}

/// One traced frame (every kind: RTS, CTS, DATA, ACK).
#[derive(Copy, Clone, Debug)]
pub struct FrameEvent<'a> {
    pub time: Time,
    pub node: NodeId,
    pub dir: FrameDir,
    pub frame: &'a Frame,
    /// Air time of the frame.
    pub duration: Time,
    /// Received power, watts (Rx and Lost; 0 for Tx).
    pub power_w: f64,
}

/// What one receiver made of a frame (the per-receiver outcome of a
/// transmission, for the browser viewer's recorder, `metrics/viz`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reception {
    /// At the frame's first bit: the receiver stays locked on another,
    /// stronger frame (capture), so this one is ignored.
    Captured,
    /// At the last bit: decoded.
    Decoded,
    /// At the last bit: the locked frame was lost to an overlapping signal.
    Collided,
    /// At the last bit: the locked frame was lost for being too weak or
    /// because the receiver transmitted meanwhile (or, under the SINR model,
    /// to bit errors).
    Error,
    /// At the last bit: the receiver was not locked on this frame (it was
    /// too weak to lock onto, was captured out, or lost the receiver in a
    /// collision to a frame that lasted longer).
    NotLocked,
}

/// One receiver's view of one transmission: every radio within
/// carrier-sense range gets one event at the last bit (and one more at the
/// first bit when the frame is captured out).
#[derive(Copy, Clone, Debug)]
pub struct ReceptionEvent<'a> {
    pub time: Time,
    /// The receiver.
    pub node: NodeId,
    /// The transmitter and when it started sending the frame.
    pub sender: NodeId,
    pub tx_start: Time,
    pub frame: &'a Frame,
    /// Received power, watts.
    pub power_w: f64,
    pub outcome: Reception,
}

/// Which optional (more costly) hooks a sink wants; the simulation asks once
/// when the sink is installed and skips the others entirely.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Interest {
    /// [`TraceSink::reception`] for every (frame, receiver in range).
    pub receptions: bool,
    /// [`TraceSink::queue_len`] whenever an interface queue may have changed.
    pub queues: bool,
    /// [`TraceSink::routes`] after every call into a node's routing protocol.
    pub routes: bool,
}

impl Interest {
    pub fn or(self, o: Interest) -> Interest {
        Interest {
            receptions: self.receptions || o.receptions,
            queues: self.queues || o.queues,
            routes: self.routes || o.routes,
        }
    }
}

/// A trace consumer. Sinks are owned by the simulation and must be `Send`.
pub trait TraceSink: Send {
    fn packet(&mut self, ev: &PacketEvent);
    fn frame(&mut self, _ev: &FrameEvent) {}
    /// The optional hooks below that this sink wants (none by default).
    fn interest(&self) -> Interest {
        Interest::default()
    }
    /// A receiver's outcome of a frame (only with `Interest::receptions`).
    fn reception(&mut self, _ev: &ReceptionEvent) {}
    /// `node`'s interface queue holds `len` packets (only with
    /// `Interest::queues`; may repeat an unchanged length).
    fn queue_len(&mut self, _time: Time, _node: NodeId, _len: usize) {}
    /// `node`'s routing table after its protocol handled an event (only with
    /// `Interest::routes`; usually unchanged).
    fn routes(&mut self, _time: Time, _node: NodeId, _table: &[crate::net::routing::RouteEntry]) {}
    /// `node`'s MAC (or ARP) gave up on the link to `next_hop`: the link
    /// failure the routing protocol is told about.
    fn link_failure(&mut self, _time: Time, _node: NodeId, _next_hop: NodeId) {}
    /// Called once when the run ends (flush files).
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

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
    fn queue_len(&mut self, time: Time, node: NodeId, len: usize) {
        self.0.iter_mut().for_each(|s| s.queue_len(time, node, len));
    }
    fn routes(&mut self, time: Time, node: NodeId, table: &[crate::net::routing::RouteEntry]) {
        self.0.iter_mut().for_each(|s| s.routes(time, node, table));
    }
    fn link_failure(&mut self, time: Time, node: NodeId, next_hop: NodeId) {
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
/// returns the sink to install with `Simulation::set_tracer`: `None` when
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
///     sim.set_tracer(sink);
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
