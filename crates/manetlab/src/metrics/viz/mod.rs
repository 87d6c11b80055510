//! The browser viewer's recorder: what happened on the air, in the queues
//! and in the routing tables during a window of simulated time, written as
//! `viz.json` (the data, format in `docs/viz.md`) and `viz.html` (one
//! self-contained page that animates it, [`page`]).
//!
//! [`VizRecorder`] is an observer (`metrics/observe.rs`,
//! `Simulation::add_observer`). It asks for the optional hooks
//! (`Observer::interest`: the outcome of every frame at every receiver in
//! range, routing tables) and uses queue-length and link-failure events, so
//! a run without a recorder touches none of this. It keeps node trajectories
//! as their legs (the page evaluates them exactly as `mobility::Trajectory`
//! does), every frame started in the window with each receiver's outcome,
//! agent sends and deliveries, drops, queue lengths, routing-table changes
//! and link failures, plus per-node counters at the window's start.
//!
//! Large runs: a window (`viz_window`) bounds everything, trajectories
//! included (the legs overlapping it, streamed from each node's generator:
//! memory does not grow with the run's duration); `decimate = N` keeps the frames of every N-th flow packet
//! (by uid) and drops RTS/CTS/ACK frames; `sensed = false` leaves out the
//! receivers that only sensed a frame (below the receive threshold).

pub mod page;
mod record;

pub use record::Recording;

use super::observe::{
    Action, FrameDir, FrameEvent, Interest, Layer, PacketEvent, QueueEvent, Reception, ReceptionEvent,
};
use super::trace::TraceSink;
use super::DropReason;
use crate::config::SimConfig;
use crate::mac::FrameKind;
use crate::net::routing::RouteEntry;
use crate::net::{Body, NodeId, Packet, BROADCAST, FLOW_NONE};
use crate::sim::Time;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Per-receiver outcome codes in `viz.json` (`rx.out`).
pub const OUTCOMES: [&str; 5] = ["decoded", "collided", "captured", "below threshold", "error"];
const O_DECODED: u8 = 0;
const O_COLLIDED: u8 = 1;
const O_CAPTURED: u8 = 2;
const O_WEAK: u8 = 3;
const O_ERROR: u8 = 4;
/// Frame kind codes (`frames.kind`).
pub const FRAME_KINDS: [&str; 4] = ["RTS", "CTS", "ACK", "DATA"];

/// What to record (scenario `[output] viz`, `viz_window`, `viz_decimate`,
/// `viz_sensed`; `manetlab run --viz`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct VizOptions {
    /// Record from this time...
    pub from: Time,
    /// ...to this one (None: the end of the run).
    pub to: Option<Time>,
    /// Keep the frames of every N-th flow packet (1: all frames).
    pub decimate: u32,
    /// Keep receivers that only sensed a frame (below the receive threshold).
    pub sensed: bool,
}

impl Default for VizOptions {
    fn default() -> Self {
        VizOptions { from: Time::ZERO, to: None, decimate: 1, sensed: true }
    }
}

/// File names written next to the results.
pub const JSON_FILE_NAME: &str = "viz.json";
pub const HTML_FILE_NAME: &str = "viz.html";

/// Per-node running counters (all run long; copied at the window's start).
#[derive(Clone, Debug, Default)]
struct Counters {
    queue: usize,
    tx: [u64; 4],
    retries: u64,
    rx: [u64; 5],
    drops: [u64; DropReason::ALL.len()],
    ctl_sent: Vec<u64>,
    link_failures: u64,
}

/// The recorder. See the module doc.
pub struct VizRecorder {
    opts: VizOptions,
    rx_threshold_w: f64,
    rec: Arc<Mutex<Recording>>,
    /// Local copy, moved into `rec` at `finish`.
    data: Recording,
    /// Per sender: (index in `frames`, start) of its frame on the air.
    on_air: Vec<Option<(u32, Time)>>,
    /// (sender, start, receiver) of frames captured out, awaiting their end.
    captured: Vec<(NodeId, Time, NodeId)>,
    counters: Vec<Counters>,
    tables: Vec<Vec<RouteEntry>>,
    started: bool,
    flows: Vec<(NodeId, NodeId)>,
    /// Write `viz.json` and `viz.html` here at `finish` (if set).
    out_dir: Option<PathBuf>,
}

impl VizRecorder {
    /// A recorder for the run `cfg` (named `scenario`). The recording is
    /// readable through the returned handle after the run has finished.
    pub fn new(cfg: &SimConfig, scenario: &str, opts: VizOptions) -> (VizRecorder, Arc<Mutex<Recording>>) {
        let n = cfg.nodes.len();
        let data = Recording::header(cfg, scenario, &opts);
        let rec = Arc::new(Mutex::new(Recording::default()));
        let r = VizRecorder {
            opts,
            rx_threshold_w: cfg.radio.rx_threshold_w,
            rec: rec.clone(),
            data,
            on_air: vec![None; n],
            captured: Vec::new(),
            counters: vec![Counters::default(); n],
            tables: vec![Vec::new(); n],
            started: false,
            flows: cfg.flows.iter().map(|f| (f.src, f.dst)).collect(),
            out_dir: None,
        };
        (r, rec)
    }

    /// Also writes `viz.json` and `viz.html` into `dir` when the run ends.
    pub fn write_to(mut self, dir: PathBuf) -> Self {
        self.out_dir = Some(dir);
        self
    }

    fn in_window(&self, t: Time) -> bool {
        t >= self.opts.from && self.opts.to.is_none_or(|to| t <= to)
    }

    /// Copies the counters and tables at the first event in the window.
    fn check_start(&mut self, t: Time) {
        if !self.started && t >= self.opts.from {
            self.started = true;
            let base = self
                .counters
                .iter()
                .zip(&self.tables)
                .map(|(c, t)| record::Baseline {
                    queue: c.queue as u64,
                    tx: c.tx,
                    retries: c.retries,
                    rx: c.rx,
                    drops: c.drops.to_vec(),
                    ctl_sent: c.ctl_sent.clone(),
                    link_failures: c.link_failures,
                    routes: t.iter().map(record::route_row).collect(),
                })
                .collect();
            self.data.baseline = base;
        }
    }

    fn keep_packet_frames(&self, pkt: &Packet) -> bool {
        pkt.flow == FLOW_NONE || self.opts.decimate <= 1 || pkt.uid.is_multiple_of(self.opts.decimate as u64)
    }
}

/// The name of a routing/ARP control message ("AODV RREQ", "DSR RERR",
/// "ARP"), or None for flow data.
pub fn control_kind(pkt: &Packet) -> Option<String> {
    match &pkt.body {
        Body::Aodv(m) => Some(format!("AODV {}", m.kind().name())),
        Body::Dsr(m) => Some(format!("DSR {}", m.kind().name())),
        _ if pkt.flow == FLOW_NONE => Some(pkt.type_name().to_string()),
        _ => None,
    }
}

fn kind_code(k: FrameKind) -> u8 {
    match k {
        FrameKind::Rts => 0,
        FrameKind::Cts => 1,
        FrameKind::Ack => 2,
        FrameKind::Data => 3,
    }
}

fn drop_index(why: DropReason) -> usize {
    DropReason::ALL.iter().position(|&r| r == why).unwrap_or(0)
}

impl TraceSink for VizRecorder {
    fn interest(&self) -> Interest {
        Interest { receptions: true, routes: true }
    }

    fn packet(&mut self, ev: &PacketEvent) {
        self.check_start(ev.time);
        let node = ev.node as usize;
        let flow = ev.pkt.flow;
        let inw = self.in_window(ev.time);
        match ev.action {
            Action::Drop(why) => {
                self.counters[node].drops[drop_index(why)] += 1;
                if inw {
                    let f = if flow == FLOW_NONE { -1 } else { flow as i64 };
                    self.data.drops.push(ev.time, ev.node, drop_index(why) as u64, ev.pkt.uid, f);
                }
            }
            Action::Send
                if ev.layer == Layer::Agent
                    && inw
                    && self.flows.get(flow as usize).is_some_and(|&(s, _)| s == ev.node) =>
            {
                self.data.sent.push(ev.time, flow, ev.pkt.uid);
            }
            Action::Recv
                if ev.layer == Layer::Agent
                    && inw
                    && self.flows.get(flow as usize).is_some_and(|&(_, d)| d == ev.node) =>
            {
                let bytes = ev.pkt.size.saturating_sub(crate::net::IP_HEADER_BYTES);
                let delay = ev.time.saturating_sub(ev.pkt.created).as_ns();
                self.data.delivered.push(ev.time, flow, ev.pkt.uid, bytes as u64, delay);
            }
            _ => {}
        }
    }

    fn frame(&mut self, ev: &FrameEvent) {
        if ev.dir != FrameDir::Tx {
            return;
        }
        self.check_start(ev.time);
        let f = ev.frame;
        let node = ev.node as usize;
        let k = kind_code(f.kind);
        self.counters[node].tx[k as usize] += 1;
        self.counters[node].retries += f.retry as u64;
        let ctl = f.packet.as_ref().and_then(control_kind).map(|name| self.data.ctl_code(&name));
        if let Some(c) = ctl {
            let v = &mut self.counters[node].ctl_sent;
            if v.len() <= c as usize {
                v.resize(c as usize + 1, 0);
            }
            v[c as usize] += 1;
        }
        self.on_air[node] = None;
        if !self.in_window(ev.time) {
            return;
        }
        let keep = match &f.packet {
            Some(p) => self.keep_packet_frames(p),
            None => self.opts.decimate <= 1,
        };
        if !keep {
            return;
        }
        let (uid, flow) = match &f.packet {
            Some(p) => (p.uid as i64, if p.flow == FLOW_NONE { -1 } else { p.flow as i64 }),
            None => (-1, -1),
        };
        let dst = if f.dst == BROADCAST { -1 } else { f.dst as i64 };
        let idx = self.data.frames.push(
            ev.time,
            ev.duration,
            ev.node,
            dst,
            k,
            uid,
            flow,
            ctl.map_or(-1, |c| c as i64),
            f.retry,
            f.bytes,
        );
        self.on_air[node] = Some((idx, ev.time));
    }

    fn reception(&mut self, ev: &ReceptionEvent) {
        match ev.outcome {
            Reception::Captured => self.captured.push((ev.sender, ev.tx_start, ev.node)),
            Reception::NotLocked => {
                let key = (ev.sender, ev.tx_start, ev.node);
                if let Some(i) = self.captured.iter().position(|&c| c == key) {
                    self.captured.swap_remove(i);
                    return; // already seen as captured at its first bit
                }
            }
            _ => {}
        }
        let weak = ev.power_w < self.rx_threshold_w;
        let out = match ev.outcome {
            Reception::Captured => O_CAPTURED,
            Reception::Decoded => O_DECODED,
            Reception::Collided => O_COLLIDED,
            Reception::Error | Reception::NotLocked if weak => O_WEAK,
            Reception::Error => O_ERROR,
            Reception::NotLocked => O_COLLIDED,
        };
        self.counters[ev.node as usize].rx[out as usize] += 1;
        let Some((idx, _)) = self.on_air[ev.sender as usize].filter(|&(_, s)| s == ev.tx_start) else {
            return; // a frame outside the window, or decimated
        };
        if out == O_WEAK && !self.opts.sensed {
            return;
        }
        self.data.rx.push(idx, ev.node, out, ev.time);
    }

    fn queue(&mut self, ev: &QueueEvent) {
        let (time, node, len) = (ev.time, ev.node, ev.len);
        let c = &mut self.counters[node as usize];
        if c.queue == len {
            return;
        }
        c.queue = len;
        self.check_start(time);
        if self.in_window(time) {
            self.data.queues.push(time, node, len as u64);
        }
    }

    fn routes(&mut self, time: Time, node: NodeId, table: &[RouteEntry]) {
        if self.tables[node as usize].as_slice() == table {
            return;
        }
        self.check_start(time);
        let old = &mut self.tables[node as usize];
        if self.started && self.opts.to.is_none_or(|to| time <= to) {
            // Changed or added entries, then removed ones.
            for e in table {
                if !old.iter().any(|o| o == e) {
                    self.data.routes.push(time, node, e, true);
                }
            }
            for o in old.iter() {
                if !table.iter().any(|e| e.dst == o.dst) {
                    self.data.routes.push(time, node, o, false);
                }
            }
        }
        old.clear();
        old.extend_from_slice(table);
    }

    fn link_failure(&mut self, time: Time, node: NodeId, next_hop: NodeId) {
        self.check_start(time);
        self.counters[node as usize].link_failures += 1;
        if self.in_window(time) {
            self.data.links.push(time, node, next_hop);
        }
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.check_start(Time(u64::MAX));
        let data = std::mem::take(&mut self.data);
        if let Some(dir) = &self.out_dir {
            std::fs::create_dir_all(dir)?;
            let json = data.to_json();
            std::fs::write(dir.join(JSON_FILE_NAME), &json)?;
            std::fs::write(dir.join(HTML_FILE_NAME), page::html(&json))?;
        }
        if let Ok(mut r) = self.rec.lock() {
            *r = data;
        }
        Ok(())
    }
}
