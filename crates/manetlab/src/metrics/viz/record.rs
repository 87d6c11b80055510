//! The recording's data, as written to `viz.json` (columns of numbers: one
//! array per field, one entry per event). The format is documented field by
//! field in `docs/viz.md`.

use super::{VizOptions, FRAME_KINDS, OUTCOMES};
use crate::config::SimConfig;
use crate::metrics::DropReason;
use crate::mobility::Mover;
use crate::net::routing::RouteEntry;
use crate::net::NodeId;
use crate::sim::Time;
use serde::Serialize;

/// Version of the `viz.json` layout.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Clone, Debug, Default, Serialize)]
pub struct Radio {
    pub rx_range_m: f64,
    pub cs_range_m: f64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct NodeInfo {
    /// Trajectory legs `[start_ns, x, y, vx, vy]`: from `start_ns` the node
    /// is at (x + vx·(t − start), y + vy·(t − start)), t in seconds.
    pub legs: Vec<(u64, f64, f64, f64, f64)>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowInfo {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub kind: String,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Kinds {
    pub frame: Vec<String>,
    pub outcome: Vec<String>,
    pub drop: Vec<String>,
    /// Control message names ("AODV RREQ", "DSR RERR", "ARP", ...), indexed
    /// by `frames.ctl`.
    pub ctl: Vec<String>,
}

/// Every frame started in the window (one entry per transmission).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Frames {
    pub t: Vec<u64>,
    pub dur: Vec<u64>,
    pub src: Vec<NodeId>,
    /// Receiver address, -1 for broadcast.
    pub dst: Vec<i64>,
    pub kind: Vec<u8>,
    /// uid of the carried packet, -1 for RTS/CTS/ACK.
    pub uid: Vec<i64>,
    /// Flow of the carried packet, -1 for control and RTS/CTS/ACK.
    pub flow: Vec<i64>,
    /// Control message kind (index into `kinds.ctl`), -1 otherwise.
    pub ctl: Vec<i64>,
    pub retry: Vec<u8>,
    pub bytes: Vec<u32>,
}

impl Frames {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn push(
        &mut self,
        t: Time,
        dur: Time,
        src: NodeId,
        dst: i64,
        kind: u8,
        uid: i64,
        flow: i64,
        ctl: i64,
        retry: bool,
        bytes: u32,
    ) -> u32 {
        self.t.push(t.as_ns());
        self.dur.push(dur.as_ns());
        self.src.push(src);
        self.dst.push(dst);
        self.kind.push(kind);
        self.uid.push(uid);
        self.flow.push(flow);
        self.ctl.push(ctl);
        self.retry.push(retry as u8);
        self.bytes.push(bytes);
        (self.t.len() - 1) as u32
    }
    pub fn len(&self) -> usize {
        self.t.len()
    }
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
}

/// Each receiver's outcome of a recorded frame.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Receptions {
    /// Index into `frames`.
    pub frame: Vec<u32>,
    pub node: Vec<NodeId>,
    /// Index into `kinds.outcome`.
    pub out: Vec<u8>,
    /// When the outcome was known: the last bit (the first for "captured").
    pub t: Vec<u64>,
}

impl Receptions {
    pub(super) fn push(&mut self, frame: u32, node: NodeId, out: u8, t: Time) {
        self.frame.push(frame);
        self.node.push(node);
        self.out.push(out);
        self.t.push(t.as_ns());
    }
}

/// A flow packet handed down by the source's agent.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Sent {
    pub t: Vec<u64>,
    pub flow: Vec<u32>,
    pub uid: Vec<u64>,
}

impl Sent {
    pub(super) fn push(&mut self, t: Time, flow: u32, uid: u64) {
        self.t.push(t.as_ns());
        self.flow.push(flow);
        self.uid.push(uid);
    }
}

/// A flow packet received by the destination's agent.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Delivered {
    pub t: Vec<u64>,
    pub flow: Vec<u32>,
    pub uid: Vec<u64>,
    /// Transport segment bytes (IP payload).
    pub bytes: Vec<u64>,
    /// One-way delay since the application created it.
    pub delay_ns: Vec<u64>,
}

impl Delivered {
    pub(super) fn push(&mut self, t: Time, flow: u32, uid: u64, bytes: u64, delay: u64) {
        self.t.push(t.as_ns());
        self.flow.push(flow);
        self.uid.push(uid);
        self.bytes.push(bytes);
        self.delay_ns.push(delay);
    }
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Drops {
    pub t: Vec<u64>,
    pub node: Vec<NodeId>,
    /// Index into `kinds.drop`.
    pub reason: Vec<u64>,
    pub uid: Vec<u64>,
    pub flow: Vec<i64>,
}

impl Drops {
    pub(super) fn push(&mut self, t: Time, node: NodeId, reason: u64, uid: u64, flow: i64) {
        self.t.push(t.as_ns());
        self.node.push(node);
        self.reason.push(reason);
        self.uid.push(uid);
        self.flow.push(flow);
    }
}

/// Interface queue lengths, one entry per change.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Queues {
    pub t: Vec<u64>,
    pub node: Vec<NodeId>,
    pub len: Vec<u64>,
}

impl Queues {
    pub(super) fn push(&mut self, t: Time, node: NodeId, len: u64) {
        self.t.push(t.as_ns());
        self.node.push(node);
        self.len.push(len);
    }
}

/// Routing-table changes: `set` 1 = the entry for `dst` is now as given,
/// 0 = the entry for `dst` was removed.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Routes {
    pub t: Vec<u64>,
    pub node: Vec<NodeId>,
    pub dst: Vec<NodeId>,
    pub next: Vec<NodeId>,
    /// -1 where the protocol keeps no hop count.
    pub hops: Vec<i64>,
    pub valid: Vec<u8>,
    /// -1 where there is no destination sequence number.
    pub seq: Vec<i64>,
    pub set: Vec<u8>,
}

impl Routes {
    pub(super) fn push(&mut self, t: Time, node: NodeId, e: &RouteEntry, set: bool) {
        self.t.push(t.as_ns());
        self.node.push(node);
        self.dst.push(e.dst);
        self.next.push(e.next_hop);
        self.hops.push(e.hops.map_or(-1, |h| h as i64));
        self.valid.push(e.valid as u8);
        self.seq.push(e.seq.map_or(-1, |s| s as i64));
        self.set.push(set as u8);
    }
}

/// `[dst, next, hops, valid, seq]` as in [`Routes`].
pub(super) fn route_row(e: &RouteEntry) -> (NodeId, NodeId, i64, u8, i64) {
    (e.dst, e.next_hop, e.hops.map_or(-1, |h| h as i64), e.valid as u8, e.seq.map_or(-1, |s| s as i64))
}

/// MAC/ARP link failures (`node` gave up on `next`).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Links {
    pub t: Vec<u64>,
    pub node: Vec<NodeId>,
    pub next: Vec<NodeId>,
}

impl Links {
    pub(super) fn push(&mut self, t: Time, node: NodeId, next: NodeId) {
        self.t.push(t.as_ns());
        self.node.push(node);
        self.next.push(next);
    }
}

/// One node's counters and routing table at the window's start (everything
/// from time 0).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Baseline {
    pub queue: u64,
    /// Frames sent by kind (`kinds.frame`).
    pub tx: [u64; 4],
    pub retries: u64,
    /// Receiver outcomes (`kinds.outcome`).
    pub rx: [u64; 5],
    /// Drops by reason (`kinds.drop`).
    pub drops: Vec<u64>,
    /// Control messages sent by kind (`kinds.ctl`; shorter if the last
    /// kinds were never sent).
    pub ctl_sent: Vec<u64>,
    pub link_failures: u64,
    /// `[dst, next, hops, valid, seq]`.
    pub routes: Vec<(NodeId, NodeId, i64, u8, i64)>,
}

/// Everything recorded (the content of `viz.json`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Recording {
    pub format: String,
    pub version: u32,
    pub scenario: String,
    pub seed: u64,
    pub duration_ns: u64,
    /// The recording window `[from, to]`.
    pub window_ns: [u64; 2],
    pub decimate: u32,
    pub sensed: bool,
    pub routing: String,
    pub radio: Radio,
    /// Bounding box of the node positions in the window `[x0, y0, x1, y1]`.
    pub area: [f64; 4],
    pub nodes: Vec<NodeInfo>,
    pub flows: Vec<FlowInfo>,
    pub kinds: Kinds,
    pub frames: Frames,
    pub rx: Receptions,
    pub sent: Sent,
    pub delivered: Delivered,
    pub drops: Drops,
    pub queues: Queues,
    pub routes: Routes,
    pub links: Links,
    pub baseline: Vec<Baseline>,
}

impl Recording {
    /// Everything known before the run: nodes, trajectories, flows, radio.
    pub(super) fn header(cfg: &SimConfig, scenario: &str, opts: &VizOptions) -> Recording {
        let to = opts.to.unwrap_or(cfg.duration).min(cfg.duration);
        let from = opts.from.min(to);
        // The legs in the window, streamed from each node's generator (or
        // held legs) through a `Mover` for the positions: memory grows with
        // the window's legs, not the run's (issue 15, D4).
        let trajs = cfg.mobility.trajectories(&cfg.nodes);
        let mut area = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
        let mut grow = |x: f64, y: f64| {
            area = [area[0].min(x), area[1].min(y), area[2].max(x), area[3].max(y)];
        };
        let nodes = trajs
            .into_iter()
            .map(|tr| {
                let mut kept = Vec::new();
                let mut legs = tr.leg_iter_owned().peekable();
                // Positions at non-decreasing times: the mover never rewinds.
                let mut mover = Mover::new(tr);
                while let Some(l) = legs.next() {
                    if l.start > to {
                        break; // this and every later leg start after the window
                    }
                    let next = legs.peek().map(|n| n.start);
                    let end = next.unwrap_or(Time(u64::MAX));
                    if end <= from && next.is_some() {
                        continue; // ends before the window
                    }
                    for t in [l.start.max(from), end.min(to)] {
                        let p = mover.position(t.max(l.start));
                        grow(p.x, p.y);
                    }
                    kept.push((l.start.as_ns(), l.from.x, l.from.y, l.vx, l.vy));
                }
                NodeInfo { legs: kept }
            })
            .collect();
        if !area[0].is_finite() {
            area = [0.0, 0.0, 1.0, 1.0];
        }
        Recording {
            format: "manetlab-viz".into(),
            version: FORMAT_VERSION,
            scenario: scenario.into(),
            seed: cfg.seed,
            duration_ns: cfg.duration.as_ns(),
            window_ns: [from.as_ns(), to.as_ns()],
            decimate: opts.decimate.max(1),
            sensed: opts.sensed,
            routing: cfg.routing.name().into(),
            radio: Radio { rx_range_m: cfg.radio.rx_range(), cs_range_m: cfg.radio.cs_range() },
            area,
            nodes,
            flows: cfg
                .flows
                .iter()
                .map(|f| FlowInfo { name: f.name.clone(), src: f.src, dst: f.dst, kind: f.traffic.kind().into() })
                .collect(),
            kinds: Kinds {
                frame: FRAME_KINDS.iter().map(|s| s.to_string()).collect(),
                outcome: OUTCOMES.iter().map(|s| s.to_string()).collect(),
                drop: DropReason::ALL.iter().map(|r| r.code().to_string()).collect(),
                ctl: Vec::new(),
            },
            ..Recording::default()
        }
    }

    /// The code of control message kind `name` (added on first use).
    pub(super) fn ctl_code(&mut self, name: &str) -> u32 {
        match self.kinds.ctl.iter().position(|k| k == name) {
            Some(i) => i as u32,
            None => {
                self.kinds.ctl.push(name.to_string());
                (self.kinds.ctl.len() - 1) as u32
            }
        }
    }

    /// `viz.json`'s text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a recording serializes")
    }

    /// The hops (transmitter, receiver) recorded for packet `uid`: DATA
    /// frames carrying it that their addressee decoded, in time order.
    pub fn hops_of(&self, uid: u64) -> Vec<(NodeId, NodeId)> {
        let mut out = Vec::new();
        for i in 0..self.frames.len() {
            if self.frames.uid[i] != uid as i64 || self.frames.kind[i] != 3 || self.frames.dst[i] < 0 {
                continue;
            }
            let dst = self.frames.dst[i] as NodeId;
            let ok = (0..self.rx.frame.len())
                .any(|k| self.rx.frame[k] == i as u32 && self.rx.node[k] == dst && self.rx.out[k] == 0);
            if ok && !out.contains(&(self.frames.src[i], dst)) {
                out.push((self.frames.src[i], dst));
            }
        }
        out
    }
}
