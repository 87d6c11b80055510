//! Beaconing node discovery, the application of the JiST/SWANS scaling
//! experiment (Barr, Haas, van Renesse, "JiST: an efficient approach to
//! simulation using virtual machines", Software: Practice and Experience
//! 35(6), 2005, §5: every node broadcasts a heartbeat and keeps a table of
//! the neighbours it hears).
//!
//! `[beacon]` in a scenario makes every node run it: a one-hop broadcast of
//! `packet_size` payload bytes at intervals drawn uniformly in
//! `interval = [min, max]` from the node's own random stream (the first one
//! uniformly in `[start, start + max)`, so that nodes do not start in step).
//! A receiver enters the sender in its neighbour table or refreshes its
//! entry; entries not refreshed for `timeout` expire. Counters per node
//! (beacons sent, received, neighbours discovered, the table size sampled
//! at each of the node's own beacons) are summed into one [`BeaconReport`]
//! of a few numbers whatever the number of nodes; the per-node rows
//! (`per_node = true`) are off by default.
//!
//! Memory: a node's table is a small vector of (neighbour, last heard),
//! about as long as the node's neighbourhood (4-5 in the SWANS set-up);
//! nothing here grows with the number of nodes or with time.
//!
//! The endpoint that carries it over UDP broadcast, [`BeaconEndpoint`], is
//! in this file too (the app layer sits above transport).

use crate::net::packet::UDP_HEADER_BYTES;
use crate::net::{Body, Packet, BROADCAST};
use crate::sim::{NodeId, RngStream, Time};
use crate::transport::{Endpoint, EndpointCtx, EndpointTimer};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The UDP port beacons are sent from and to (flows use 10000 and up).
pub const BEACON_PORT: u16 = 9_000;
/// The flow id beacon packets carry (no `[[flow]]` has it, so flow
/// statistics ignore them; not `FLOW_NONE`, which marks routing control).
pub const BEACON_FLOW: u32 = u32::MAX - 1;

/// The `[beacon]` section.
#[derive(Clone, Debug, PartialEq)]
pub struct BeaconConfig {
    /// Beacon intervals are uniform in [min, max].
    pub interval: (Time, Time),
    /// Payload bytes of one beacon (above UDP).
    pub packet_size: u32,
    /// A neighbour not heard for this long leaves the table.
    pub timeout: Time,
    /// The first beacon is uniform in [start, start + max).
    pub start: Time,
    /// Keep per-node rows (neighbour lists) in the report.
    pub per_node: bool,
}

impl Default for BeaconConfig {
    /// SWANS's set-up: 2-5 s; a neighbour expires after three maximal
    /// intervals without a beacon.
    fn default() -> Self {
        BeaconConfig {
            interval: (Time::from_secs(2), Time::from_secs(5)),
            packet_size: 32,
            timeout: Time::from_secs(15),
            start: Time::ZERO,
            per_node: false,
        }
    }
}

/// One node's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BeaconCounters {
    pub sent: u64,
    pub received: u64,
    /// Entries added to the table (a neighbour that expired and is heard
    /// again counts again).
    pub discovered: u64,
    /// Sum of the table sizes sampled at this node's own beacons, and the
    /// number of samples.
    pub table_sum: u64,
    pub samples: u64,
}

/// One node's discovery state.
#[derive(Clone, Debug)]
pub struct Beacon {
    /// (neighbour, last heard), in order of discovery.
    table: Vec<(NodeId, Time)>,
    pub counters: BeaconCounters,
}

/// Table entries reserved when a node is built: room for the usual
/// neighbourhood (4.5-7 nodes in the SWANS set-up) at 16 B each. Reserved
/// at build, the tables of nodes with consecutive ids lie next to each
/// other on the heap, so with `[topology] order = "hilbert"` the tables a
/// frame's receivers update are close together; grown on demand they were
/// scattered wherever the allocator had room at their first beacon
/// (docs/performance.md, "Large networks").
const TABLE_START: usize = 8;

impl Beacon {
    pub fn new() -> Self {
        Beacon { table: Vec::with_capacity(TABLE_START), counters: BeaconCounters::default() }
    }

    /// The first beacon's time.
    pub fn first(cfg: &BeaconConfig, rng: &mut RngStream) -> Time {
        cfg.start + Time::from_ns(rng.next_u64() % cfg.interval.1.as_ns().max(1))
    }

    /// The next beacon's time after one sent at `now`.
    pub fn next(cfg: &BeaconConfig, now: Time, rng: &mut RngStream) -> Time {
        let (lo, hi) = (cfg.interval.0.as_ns(), cfg.interval.1.as_ns());
        now + Time::from_ns(lo + rng.next_u64() % (hi - lo + 1))
    }

    /// This node beacons at `now`: expire stale entries, sample the table.
    /// `count`: `now` is inside the measured interval (after the warm-up).
    pub fn on_send(&mut self, cfg: &BeaconConfig, now: Time, count: bool) {
        self.expire(cfg, now);
        if count {
            self.counters.sent += 1;
            self.counters.table_sum += self.table.len() as u64;
            self.counters.samples += 1;
        }
    }

    /// A beacon from `from` was received at `now`.
    pub fn on_heard(&mut self, now: Time, from: NodeId, count: bool) {
        match self.table.iter_mut().find(|e| e.0 == from) {
            Some(e) => e.1 = now,
            None => {
                if self.table.len() == self.table.capacity() {
                    // Grow by small steps: tables are a handful of entries.
                    self.table.reserve_exact(self.table.len().clamp(2, 8));
                }
                self.table.push((from, now));
                if count {
                    self.counters.discovered += 1;
                }
            }
        }
        if count {
            self.counters.received += 1;
        }
    }

    fn expire(&mut self, cfg: &BeaconConfig, now: Time) {
        self.table.retain(|&(_, t)| now.saturating_sub(t) <= cfg.timeout);
    }

    /// The neighbours in the table at `now` (entries heard within the
    /// timeout), sorted.
    pub fn neighbours(&self, cfg: &BeaconConfig, now: Time) -> Vec<NodeId> {
        let mut v: Vec<NodeId> =
            self.table.iter().filter(|&&(_, t)| now.saturating_sub(t) <= cfg.timeout).map(|e| e.0).collect();
        v.sort_unstable();
        v
    }
}

impl Default for Beacon {
    fn default() -> Self {
        Self::new()
    }
}

/// One node's row (`per_node = true`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct BeaconNode {
    pub node: u32,
    pub sent: u64,
    pub received: u64,
    pub discovered: u64,
    /// The neighbour table at the end of the run.
    pub neighbours: Vec<u32>,
}

/// The run's beaconing summary (`summary.json` key `beacon`): counts over
/// the measured interval (after the warm-up), summed over all nodes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct BeaconReport {
    pub nodes: u64,
    pub beacons_sent: u64,
    pub beacons_received: u64,
    pub neighbours_discovered: u64,
    /// Receptions per beacon sent (decoded copies); null when none was sent.
    pub receivers_per_beacon: Option<f64>,
    /// Radios within decode range of the sender at each transmission
    /// (received power at least the receive threshold), mean per frame
    /// sent; null when none was sent.
    pub in_range_per_frame: Option<f64>,
    /// Radios that sensed each transmission but could not decode it
    /// (power between the carrier-sense and receive thresholds): the
    /// interferers, mean per frame sent; null when none was sent.
    pub interferers_per_frame: Option<f64>,
    /// Mean neighbour-table size, sampled at every beacon sent; null when
    /// none was sent.
    pub table_size_mean: Option<f64>,
    /// Per-node rows, only with `per_node = true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_node: Option<Vec<BeaconNode>>,
}

impl BeaconReport {
    /// Adds one node's counters.
    pub fn add(&mut self, c: &BeaconCounters, table_sum: &mut (u64, u64)) {
        self.nodes += 1;
        self.beacons_sent += c.sent;
        self.beacons_received += c.received;
        self.neighbours_discovered += c.discovered;
        table_sum.0 += c.table_sum;
        table_sum.1 += c.samples;
    }
}

// The endpoint carrying the app: one per node when the scenario has a
// `[beacon]` section, bound to `BEACON_PORT`. It broadcasts the node's
// beacons as UDP datagrams (no routing: one hop) and hands every beacon
// heard to the node's neighbour table. Beacons are broadcasts without a
// single destination, so they are not part of the packet audit (their uids
// are untracked, like routing control) and carry no `[[flow]]` id: the app
// counts them itself. The report reads the endpoint back through
// `Endpoint::app_state`.

pub struct BeaconEndpoint {
    cfg: Arc<BeaconConfig>,
    warmup: Time,
    seq: u64,
    pub app: Beacon,
}

impl BeaconEndpoint {
    pub fn new(cfg: Arc<BeaconConfig>, warmup: Time) -> Self {
        BeaconEndpoint { cfg, warmup, seq: 0, app: Beacon::new() }
    }
    pub fn config(&self) -> &BeaconConfig {
        &self.cfg
    }
}

impl Endpoint for BeaconEndpoint {
    fn port(&self) -> u16 {
        BEACON_PORT
    }
    /// Hands every packet it makes on at once: holds none.
    fn held(&self, _f: &mut dyn FnMut(&Packet)) {}
    fn start(&mut self, ctx: &mut EndpointCtx) {
        let at = Beacon::first(&self.cfg, ctx.rng);
        ctx.timer(at, EndpointTimer::of(0));
    }
    fn on_timer(&mut self, ctx: &mut EndpointCtx, _timer: EndpointTimer) {
        let now = ctx.now;
        self.app.on_send(&self.cfg, now, now >= self.warmup);
        let uid = ctx.metrics.fate().create_untracked();
        let body = Body::Udp { sport: BEACON_PORT, dport: BEACON_PORT, seq: self.seq };
        self.seq += 1;
        let pkt =
            Packet::new(uid, ctx.node, BROADCAST, UDP_HEADER_BYTES + self.cfg.packet_size, BEACON_FLOW, body, now);
        ctx.send(pkt);
        let next = Beacon::next(&self.cfg, now, ctx.rng);
        ctx.timer(next, EndpointTimer::of(0));
    }
    fn on_packet(&mut self, ctx: &mut EndpointCtx, pkt: &Packet) {
        self.app.on_heard(ctx.now, pkt.src, ctx.now >= self.warmup);
    }
    fn app_state(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Purpose;

    #[test]
    fn intervals_are_uniform_in_range() {
        let cfg = BeaconConfig::default();
        let mut rng = RngStream::new(3, 0, Purpose::AppJitter, 2);
        let mut sum = 0.0;
        for _ in 0..10_000 {
            let d = Beacon::next(&cfg, Time::ZERO, &mut rng).as_secs_f64();
            assert!((2.0..=5.0).contains(&d), "{d}");
            sum += d;
        }
        let mean = sum / 10_000.0;
        assert!((mean - 3.5).abs() < 0.03, "mean interval {mean}");
        let f = Beacon::first(&cfg, &mut rng).as_secs_f64();
        assert!((0.0..5.0).contains(&f));
    }

    #[test]
    fn table_discovers_refreshes_and_expires() {
        let cfg = BeaconConfig::default();
        let mut b = Beacon::new();
        b.on_heard(Time::from_secs(1), 7, true);
        b.on_heard(Time::from_secs(2), 9, true);
        b.on_heard(Time::from_secs(10), 7, true);
        assert_eq!(b.counters.discovered, 2);
        assert_eq!(b.counters.received, 3);
        assert_eq!(b.neighbours(&cfg, Time::from_secs(10)), vec![7, 9]);
        // 9 was last heard at 2 s: gone after 17 s; 7 (10 s) stays.
        b.on_send(&cfg, Time::from_secs(18), true);
        assert_eq!(b.counters.table_sum, 1);
        assert_eq!(b.neighbours(&cfg, Time::from_secs(18)), vec![7]);
        b.on_heard(Time::from_secs(19), 9, true);
        assert_eq!(b.counters.discovered, 3, "a neighbour heard again after expiry is discovered again");
    }
}
