//! The endpoint carrying the beaconing app (`app/beacon.rs`): one per node
//! when the scenario has a `[beacon]` section, bound to `BEACON_PORT`. It
//! broadcasts the node's beacons as UDP datagrams (no routing: one hop)
//! and hands every beacon heard to the node's neighbour table.
//!
//! Beacons are broadcasts without a single destination, so they are not
//! part of the packet audit (their uids are untracked, like routing
//! control) and carry no `[[flow]]` id: the app counts them itself.

use super::{Endpoint, EndpointCtx};
use crate::app::beacon::{Beacon, BeaconConfig, BEACON_FLOW, BEACON_PORT};
use crate::net::packet::UDP_HEADER_BYTES;
use crate::net::{Body, Packet, BROADCAST};
use crate::sim::Time;
use std::sync::Arc;

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
    fn start(&mut self, ctx: &mut EndpointCtx) {
        let at = Beacon::first(&self.cfg, ctx.rng);
        ctx.timer(at, super::EndpointTimer::of(0));
    }
    fn on_timer(&mut self, ctx: &mut EndpointCtx, _timer: super::EndpointTimer) {
        let now = ctx.now;
        self.app.on_send(&self.cfg, now, now >= self.warmup);
        let uid = ctx.metrics.fate().create_untracked();
        let body = Body::Udp { sport: BEACON_PORT, dport: BEACON_PORT, seq: self.seq };
        self.seq += 1;
        let pkt =
            Packet::new(uid, ctx.node, BROADCAST, UDP_HEADER_BYTES + self.cfg.packet_size, BEACON_FLOW, body, now);
        ctx.send(pkt);
        let next = Beacon::next(&self.cfg, now, ctx.rng);
        ctx.timer(next, super::EndpointTimer::of(0));
    }
    fn on_packet(&mut self, ctx: &mut EndpointCtx, pkt: &Packet) {
        self.app.on_heard(ctx.now, pkt.src, ctx.now >= self.warmup);
    }
    fn beacon(&self) -> Option<&BeaconEndpoint> {
        Some(self)
    }
}
