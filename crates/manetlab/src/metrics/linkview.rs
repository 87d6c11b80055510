//! Per-link views of chosen flows (testbed-tcp-udp-interaction.txt,
//! figures 3, 5 and 7): when each of the flow's packets was received at
//! each hop's receiver, the inter-packet delivery time on every link, and
//! the hop count of the route the delivered packets took over time.
//!
//! A [`LinkViewSink`] is a trace sink: install it with
//! `Simulation::add_observer` (or chain it behind another sink) and read the
//! [`LinkViews`] through the shared handle after the run. It looks at MAC
//! receptions of unicast data frames carrying the flow's packets (a MAC
//! retransmission decoded twice counts once) and at the destination agent's
//! receptions.

use super::trace::{Action, Layer, PacketEvent, TraceSink};
use crate::net::{NodeId, BROADCAST};
use crate::sim::Time;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// Receptions of one flow on one link.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkSeries {
    /// Reception times at `to` of the flow's packets sent by `from`.
    pub times: Vec<Time>,
    last_uid: Option<u64>,
}

/// Everything recorded for one flow.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowView {
    pub flow: u32,
    /// When set, only packets towards this node (the flow's data direction,
    /// not TCP's ACKs) are recorded.
    pub dst: Option<NodeId>,
    /// Per link (transmitter, receiver).
    pub links: BTreeMap<(NodeId, NodeId), LinkSeries>,
    /// (delivery time at the destination, hops the packet took).
    pub hops: Vec<(Time, u32)>,
    /// Hops so far of packets not yet delivered, by uid. Drops do not clear
    /// an entry: a sender's MAC may give up on a frame whose ACK was lost
    /// while the receiver forwards the packet on.
    in_transit: HashMap<u64, u32>,
}

impl FlowView {
    /// (time, gap since the previous reception) on link `from -> to`, in
    /// seconds: the inter-packet delivery time the paper plots.
    pub fn inter_delivery(&self, from: NodeId, to: NodeId) -> Vec<(f64, f64)> {
        let Some(l) = self.links.get(&(from, to)) else { return Vec::new() };
        l.times.windows(2).map(|w| (w[1].as_secs_f64(), (w[1] - w[0]).as_secs_f64())).collect()
    }

    /// Packets received on link `from -> to`.
    pub fn received(&self, from: NodeId, to: NodeId) -> usize {
        self.links.get(&(from, to)).map_or(0, |l| l.times.len())
    }

    /// The route's hop count as a step series: one point per change, from
    /// the delivered packets (the hop count of a packet is the number of
    /// links it was received on).
    pub fn hop_changes(&self) -> Vec<(f64, u32)> {
        let mut out: Vec<(f64, u32)> = Vec::new();
        for &(t, h) in &self.hops {
            if out.last().is_none_or(|&(_, last)| last != h) {
                out.push((t.as_secs_f64(), h));
            }
        }
        out
    }

    /// Fraction of the time in [from, to) during which the delivered
    /// packets took `hops` hops (each delivery's hop count holds until the
    /// next delivery).
    pub fn share_of_time_at(&self, hops: u32, from: Time, to: Time) -> f64 {
        let span = to.saturating_sub(from).as_secs_f64();
        if span <= 0.0 {
            return 0.0;
        }
        let mut at = 0.0;
        for (i, &(t, h)) in self.hops.iter().enumerate() {
            let next = self.hops.get(i + 1).map_or(to, |x| x.0);
            let (a, b) = (t.max(from), next.min(to));
            if h == hops && b > a {
                at += (b - a).as_secs_f64();
            }
        }
        at / span
    }

    /// Longest interval in [from, to) without a reception on `link`, seconds.
    pub fn longest_gap(&self, link: (NodeId, NodeId), from: Time, to: Time) -> f64 {
        self.links.get(&link).map_or((to.saturating_sub(from)).as_secs_f64(), |l| longest_gap(&l.times, from, to))
    }

    /// Delivery times of the flow's packets at its destination.
    pub fn delivery_times(&self) -> Vec<Time> {
        self.hops.iter().map(|h| h.0).collect()
    }
}

/// Longest interval in [from, to) without an entry of `times` (sorted), seconds.
pub fn longest_gap(times: &[Time], from: Time, to: Time) -> f64 {
    let mut prev = from;
    let mut gap = Time::ZERO;
    for t in times.iter().copied().filter(|t| *t >= from && *t < to).chain(std::iter::once(to)) {
        gap = gap.max(t.saturating_sub(prev));
        prev = t;
    }
    gap.as_secs_f64()
}

/// The views of every chosen flow.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkViews {
    pub flows: Vec<FlowView>,
}

impl LinkViews {
    pub fn flow(&self, flow: u32) -> Option<&FlowView> {
        self.flows.iter().find(|f| f.flow == flow)
    }

    fn record(&mut self, ev: &PacketEvent) {
        let pkt = ev.pkt;
        let Some(v) = self.flows.iter_mut().find(|f| f.flow == pkt.flow) else { return };
        if v.dst.is_some_and(|d| d != pkt.dst) {
            return;
        }
        match (ev.layer, ev.action) {
            (Layer::Mac, Action::Recv) => {
                let Some(frame) = ev.frame else { return };
                if frame.dst != ev.node || frame.dst == BROADCAST {
                    return;
                }
                let l = v.links.entry((frame.src, ev.node)).or_default();
                if l.last_uid == Some(pkt.uid) {
                    return; // the same packet again (its ACK was lost)
                }
                l.last_uid = Some(pkt.uid);
                l.times.push(ev.time);
                *v.in_transit.entry(pkt.uid).or_default() += 1;
            }
            (Layer::Agent, Action::Recv) if pkt.dst == ev.node => {
                if let Some(h) = v.in_transit.remove(&pkt.uid) {
                    v.hops.push((ev.time, h));
                }
            }
            _ => {}
        }
    }
}

/// A trace sink filling shared [`LinkViews`], optionally passing every
/// event on to another sink.
pub struct LinkViewSink {
    views: Arc<Mutex<LinkViews>>,
    next: Option<Box<dyn TraceSink>>,
}

impl LinkViewSink {
    /// A sink recording `flows`, and the handle to read them after the run.
    pub fn new(flows: &[u32]) -> (LinkViewSink, Arc<Mutex<LinkViews>>) {
        let views = Arc::new(Mutex::new(LinkViews {
            flows: flows.iter().map(|&flow| FlowView { flow, ..FlowView::default() }).collect(),
        }));
        (LinkViewSink { views: views.clone(), next: None }, views)
    }

    /// A sink recording the data direction of flows `flows` of `cfg`.
    pub fn for_flows(cfg: &crate::config::SimConfig, flows: &[u32]) -> (LinkViewSink, Arc<Mutex<LinkViews>>) {
        let (sink, views) = Self::new(flows);
        if let Ok(mut v) = views.lock() {
            for f in v.flows.iter_mut() {
                f.dst = cfg.flows.get(f.flow as usize).map(|c| c.dst);
            }
        }
        (sink, views)
    }

    /// Also hands every event to `next` (e.g. a file trace). Registering
    /// both with `Simulation::add_observer` does the same.
    pub fn chain(mut self, next: Box<dyn TraceSink>) -> Self {
        self.next = Some(next);
        self
    }
}

impl TraceSink for LinkViewSink {
    fn packet(&mut self, ev: &PacketEvent) {
        if let Ok(mut v) = self.views.lock() {
            v.record(ev);
        }
        if let Some(n) = self.next.as_mut() {
            n.packet(ev);
        }
    }
    fn frame(&mut self, ev: &super::trace::FrameEvent) {
        if let Some(n) = self.next.as_mut() {
            n.frame(ev);
        }
    }
    fn start(&mut self, cfg: &crate::config::SimConfig) {
        if let Some(n) = self.next.as_mut() {
            n.start(cfg);
        }
    }
    fn queue(&mut self, ev: &super::observe::QueueEvent) {
        if let Some(n) = self.next.as_mut() {
            n.queue(ev);
        }
    }
    fn interest(&self) -> super::observe::Interest {
        self.next.as_ref().map(|n| n.interest()).unwrap_or_default()
    }
    fn reception(&mut self, ev: &super::observe::ReceptionEvent) {
        if let Some(n) = self.next.as_mut() {
            n.reception(ev);
        }
    }
    fn routes(&mut self, time: Time, node: NodeId, table: &[crate::net::routing::RouteEntry]) {
        if let Some(n) = self.next.as_mut() {
            n.routes(time, node, table);
        }
    }
    fn link_failure(&mut self, time: Time, node: NodeId, next_hop: NodeId) {
        if let Some(n) = self.next.as_mut() {
            n.link_failure(time, node, next_hop);
        }
    }
    fn finish(&mut self) -> std::io::Result<()> {
        match self.next.as_mut() {
            Some(n) => n.finish(),
            None => Ok(()),
        }
    }
}

/// CSV of a flow's per-link inter-packet delivery times:
/// `from,to,time_s,gap_s`.
pub fn inter_delivery_csv(v: &FlowView) -> String {
    let mut s = String::from("from,to,time_s,gap_s\n");
    for &(from, to) in v.links.keys() {
        for (t, g) in v.inter_delivery(from, to) {
            s += &format!("{from},{to},{t:.6},{g:.6}\n");
        }
    }
    s
}

/// CSV of the hop count of a flow's delivered packets: `time_s,hops`.
pub fn hops_csv(v: &FlowView) -> String {
    let mut s = String::from("time_s,hops\n");
    for &(t, h) in &v.hops {
        s += &format!("{:.6},{h}\n", t.as_secs_f64());
    }
    s
}
