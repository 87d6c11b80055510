//! The end of a run: the report, the packet audit, and read access to
//! layer state for tests and studies.

use super::{Event, Simulation, FLOW_PORT_BASE};
use crate::config::{SimConfig, Traffic};
use crate::metrics::report::{Audit, FlowReport, HistogramBin, NodeReport, Report};
use crate::metrics::trace::Observer;
use crate::metrics::{DropReason, Fate};
use crate::net::routing;
use crate::net::{NodeId, Packet};
use crate::node::Node;
use crate::sim::Time;
use std::collections::BTreeMap;

impl Simulation {
    /// Ends the run: reports every packet still held as an END drop to the
    /// observers, finishes them (flushing trace files), and returns the
    /// report.
    pub fn finish(mut self) -> Report {
        #[cfg(feature = "event-counts")]
        self.print_counts();
        let mut report = self.report();
        if !self.obs.is_empty() {
            let mut held: Vec<(NodeId, Packet)> = Vec::new();
            for n in &self.nodes {
                node_held(n, &mut |_, p| held.push((n.id, *p)));
            }
            self.obs.finish(self.queue.now(), &held);
            self.obs.report(&mut report);
        }
        report
    }

    /// Backpressure state, when on (tests, studies).
    pub fn backpressure(&self) -> Option<&crate::queue::Backpressure> {
        self.bp.as_ref()
    }

    /// Counters of wired direction `dir` (2i: link i from `a` to `b`,
    /// 2i + 1: back).
    pub fn link_stats(&self, dir: u32) -> crate::net::wired::LinkStats {
        self.wired.stats(dir)
    }

    /// The TFRC sender of flow `flow` (None for other flows).
    pub fn tfrc_sender(&self, flow: usize) -> Option<&crate::transport::tfrc::TfrcSender> {
        let f = self.cfg.flows.get(flow)?;
        let port = (FLOW_PORT_BASE + flow as u32) as u16;
        self.nodes[f.src as usize].endpoints.iter().find(|e| e.port() == port)?.tfrc_sender()
    }

    /// A copy of the TCP sender trace of flow `flow` (None for non-TCP flows).
    pub fn tcp_trace(&self, flow: usize) -> Option<crate::transport::tcp::TcpTrace> {
        let f = self.cfg.flows.get(flow)?;
        let port = (FLOW_PORT_BASE + flow as u32) as u16;
        let ep = self.nodes[f.src as usize].endpoints.iter().find(|e| e.port() == port)?;
        ep.tcp_sender().map(|t| t.trace().clone())
    }

    /// Builds the report from the current state (normally at the end).
    pub fn report(&self) -> Report {
        let end = self.queue.now().max(self.cfg.duration);
        // Path profiles of every flow's endpoints, in mobile runs.
        let profiles: Vec<Option<Vec<crate::metrics::path::Span>>> = if self.channel.is_mobile()
            && self.cfg.record.path_profiles
        {
            // Legs streamed from each trajectory (memory independent of
            // the run's duration, issue 15 D4).
            let trajs = self.cfg.mobility.trajectories(&self.cfg.nodes);
            let range = self.cfg.radio.rx_range();
            let pairs: Vec<(usize, usize)> = self.cfg.flows.iter().map(|f| (f.src as usize, f.dst as usize)).collect();
            crate::metrics::path::path_profiles(&trajs, &pairs, range, end).into_iter().map(Some).collect()
        } else {
            Vec::new()
        };
        let flows = self
            .cfg
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let s = &self.obs.metrics.flows[i];
                let from = f.start.max(self.cfg.warmup);
                let until = f.stop.unwrap_or(end).min(end);
                let span = until.saturating_sub(from).as_secs_f64();
                let per_s = |bytes: u64| if span > 0.0 { bytes as f64 * 8.0 / span } else { 0.0 };
                let q = |p: f64| s.delay.quantile(p).map(|d| d as f64 / 1e9);
                let n = s.received_packets;
                let endpoint = |node: u32| {
                    let port = (FLOW_PORT_BASE + i as u32) as u16;
                    self.nodes[node as usize].endpoints.iter().find(|e| e.port() == port)
                };
                let voip = match (&f.traffic, endpoint(f.src), endpoint(f.dst)) {
                    (Traffic::Voip(v), Some(a), Some(b)) => match (a.voip_record(), b.voip_record()) {
                        (Some(a), Some(b)) => Some(crate::metrics::voip::VoipReport::new(&v.quality, a, b)),
                        _ => None,
                    },
                    _ => None,
                };
                FlowReport {
                    voip,
                    id: i as u32,
                    name: f.name.clone(),
                    kind: f.traffic.kind().into(),
                    path_profile: profiles.get(i).cloned().flatten(),
                    expected_bps: None,
                    tcp: self.nodes[f.src as usize]
                        .endpoints
                        .iter()
                        .find(|e| e.port() == (FLOW_PORT_BASE + i as u32) as u16)
                        .and_then(|e| e.tcp_summary()),
                    src: f.src,
                    dst: f.dst,
                    sent_packets: s.sent_packets,
                    sent_bytes: s.sent_bytes,
                    received_packets: n,
                    received_bytes: s.received_bytes,
                    duplicates: s.duplicates,
                    not_injected: s.not_injected,
                    // Undefined statistics are None, never 0 (a flow that
                    // delivered nothing has no delay; fewer than two packets
                    // have no jitter).
                    delivery_ratio: (s.sent_packets > 0).then(|| n as f64 / s.sent_packets as f64),
                    goodput_bps: per_s(s.received_bytes),
                    offered_bps: per_s(s.sent_bytes),
                    delay_mean_s: s.delay.mean().map(|d| d / 1e9),
                    delay_p50_s: q(0.5),
                    delay_p95_s: q(0.95),
                    delay_max_s: s.delay.max().map(|d| d as f64 / 1e9),
                    jitter_s: (n > 1).then(|| s.jitter.mean_abs_diff()),
                    jitter_rfc3550_s: (n > 1).then(|| s.jitter.rfc3550()),
                    first_sent_s: s.first_sent.map(Time::as_secs_f64),
                    last_sent_s: s.last_sent.map(Time::as_secs_f64),
                    first_received_s: s.first_received.map(Time::as_secs_f64),
                    last_received_s: s.last_received.map(Time::as_secs_f64),
                    interruption_max_s: (until > from).then(|| {
                        let edges = match (s.first_received, s.last_received) {
                            (Some(a), Some(b)) => a.saturating_sub(from).as_ns().max(until.saturating_sub(b).as_ns()),
                            _ => (until - from).as_ns(),
                        };
                        edges.max(s.max_gap) as f64 / 1e9
                    }),
                    hops_mean: (s.hop_packets > 0).then(|| s.hop_sum as f64 / s.hop_packets as f64),
                    dropped_packets: s.drops.values().sum(),
                    drops: s
                        .drops
                        .iter()
                        .map(|(&(node, r), &packets)| crate::metrics::report::FlowDrop {
                            node,
                            reason: DropReason::ALL[r as usize].code().to_string(),
                            packets,
                        })
                        .collect(),
                    delay_histogram: HistogramBin::of_ns(&s.delay, 4),
                    jitter_histogram: HistogramBin::of_ns(&s.jitter_hist, 4),
                }
            })
            .collect();
        let node_report = |n: &crate::node::Node| {
            let p = self.cfg.nodes[n.id as usize];
            NodeReport {
                id: n.id,
                x: p.x,
                y: p.y,
                originated: n.net.originated,
                forwarded: n.net.forwarded,
                delivered: n.net.delivered,
                link_failures: n.net.link_failures,
                drops: DropReason::ALL
                    .iter()
                    .filter(|r| n.net.drops[r.index()] > 0)
                    .map(|r| (r.code().to_string(), n.net.drops[r.index()]))
                    .collect(),
                mac: n.mac.stats(),
                radio: n.radio.stats,
                arp: n.arp.as_ref().map(|a| a.stats),
                routing: n.routing.stats(),
                data_rates: (self.cfg.mac.rate_control != crate::mac::RateControlKind::Constant)
                    .then(|| n.mac.rate_counts()),
            }
        };
        let (nodes, node_totals) = if self.cfg.record.omit_nodes {
            // Huge networks: one row at a time, summed, never all at once.
            let mut t = NodeReport {
                id: self.nodes.len() as u32,
                x: 0.0,
                y: 0.0,
                arp: None,
                data_rates: None,
                ..node_report(&self.nodes[0])
            };
            for n in &self.nodes[1..] {
                t.add(&node_report(n));
            }
            (Vec::new(), Some(t))
        } else {
            (self.nodes.iter().map(node_report).collect::<Vec<NodeReport>>(), None)
        };
        let mut routing_totals = routing::RoutingStats::default();
        for n in nodes.iter().chain(&node_totals) {
            routing_totals.merge(&n.routing);
        }
        Report {
            seed: self.cfg.seed,
            duration_s: self.cfg.duration.as_secs_f64(),
            warmup_s: self.cfg.warmup.as_secs_f64(),
            events: self.executed,
            routing_protocol: self.cfg.routing.name().to_string(),
            routing: routing_totals,
            flows,
            nodes,
            audit: self.audit(),
            gateway: self.gateway.as_ref().map(|g| g.stats()),
            timeseries: None,
            node_totals,
            beacon: self.beacon_report(),
        }
    }

    /// The beaconing summary (runs with `[beacon]`): one pass over the
    /// nodes at the end.
    fn beacon_report(&self) -> Option<crate::app::beacon::BeaconReport> {
        let cfg = self.cfg.beacon.as_ref()?;
        let mut r = crate::app::beacon::BeaconReport::default();
        let mut table = (0u64, 0u64);
        let mut rows = Vec::new();
        let now = self.queue.now();
        for n in &self.nodes {
            if let Some(b) =
                n.endpoints.iter().find_map(|e| e.app_state()?.downcast_ref::<crate::app::beacon::BeaconEndpoint>())
            {
                r.add(&b.app.counters, &mut table);
                if cfg.per_node {
                    rows.push(crate::app::beacon::BeaconNode {
                        node: n.id,
                        sent: b.app.counters.sent,
                        received: b.app.counters.received,
                        discovered: b.app.counters.discovered,
                        neighbours: b.app.neighbours(cfg, now),
                    });
                }
            }
        }
        let per = |x: u64, n: u64| (n > 0).then(|| x as f64 / n as f64);
        r.receivers_per_beacon = per(r.beacons_received, r.beacons_sent);
        r.table_size_mean = per(table.0, table.1);
        if let Some(c) = &self.air_counts {
            r.in_range_per_frame = per(c.in_range, c.frames);
            r.interferers_per_frame = per(c.sensed_only, c.frames);
        }
        r.per_node = cfg.per_node.then_some(rows);
        Some(r)
    }

    /// Accounts for every packet created by an endpoint: delivered,
    /// dropped with a reason, or held at the end (where), and otherwise
    /// `unaccounted` (with the first uids). Complete by construction
    /// (issue 15, D9): it asks every node's models through their required
    /// `held` methods (`node_held`), walks every pending event for the
    /// packets it carries (`event_packets`), and the kernel stages that
    /// park packets (links, gateway shapers). Nothing here runs per event.
    pub fn audit(&self) -> Audit {
        let mut where_held: BTreeMap<u64, &'static str> = BTreeMap::new();
        // A packet several places know of is attributed in this order of
        // precedence: a kernel stage, then a node's model (later ones in
        // node order), then a pending event (a copy on the air of a frame
        // its MAC still holds is the MAC's).
        for n in &self.nodes {
            node_held(n, &mut |place, p| {
                where_held.insert(p.uid, place);
            });
        }
        for ev in self.queue.pending() {
            self.event_packets(ev, &mut |place, p| {
                where_held.entry(p.uid).or_insert(place);
            });
        }
        self.stages_held(&mut |place, p| {
            where_held.insert(p.uid, place);
        });
        let mut a = Audit::default();
        // Drops counted by reason first, then named once per reason (a
        // `String` key and a map look-up per dropped packet were ~1 % of
        // the 2-hop's instructions: 17 K drops at its source's queue).
        let mut dropped = [0u64; DropReason::ALL.len()];
        for (uid, fate) in self.obs.metrics.fate.iter() {
            if fate == Fate::Untracked {
                continue;
            }
            a.created += 1;
            match fate {
                Fate::Delivered => a.delivered += 1,
                Fate::Untracked => {}
                Fate::Dropped(r) => dropped[r.index()] += 1,
                Fate::InFlight => match where_held.get(&uid) {
                    Some(place) => *a.held_at_end.entry(place.to_string()).or_default() += 1,
                    None => {
                        a.unaccounted += 1;
                        if a.unaccounted_uids.len() < 8 {
                            a.unaccounted_uids.push(uid);
                        }
                    }
                },
            }
        }
        for (r, n) in DropReason::ALL.iter().zip(dropped) {
            if n > 0 {
                *a.dropped.entry(r.code().to_string()).or_default() += n;
            }
        }
        a
    }
}

impl Simulation {
    /// Ends the run at the current time (an interrupted run): `finish()`
    /// then reports the simulated time so far, as if it had been the
    /// configured duration.
    pub fn end_now(&mut self) {
        self.cfg.duration = self.queue.now();
        self.cfg.warmup = self.cfg.warmup.min(self.cfg.duration);
    }
}

/// Every packet a node's models hold, with the place the audit names:
/// interface queue, MAC, routing protocol, ARP, endpoints, in that order.
/// Each reports through its trait's required method (`QueueDisc::for_each`,
/// `MacProtocol::held`, `Routing::held`, `Endpoint::held`), none of which
/// has a default body: a model added later cannot be left out silently.
fn node_held(n: &Node, f: &mut dyn FnMut(&'static str, &Packet)) {
    n.ifq.for_each(&mut |p| f("queue", p));
    n.mac.held(&mut |p| f("mac", p));
    n.routing.held(&mut |p| f("routing", p));
    if let Some(a) = &n.arp {
        a.held(&mut |p| f("arp", p));
    }
    for e in &n.endpoints {
        e.held(&mut |p| f("endpoint", p));
    }
}

impl Simulation {
    /// The packets a pending event carries, with their place. Events are
    /// small `Copy` values that name the state they act on, so this
    /// resolves the name: the one method through which the audit sees what
    /// sits in the event queue. The match has no wildcard: a new event
    /// variant must say here what it carries.
    fn event_packets(&self, ev: &Event, f: &mut dyn FnMut(&'static str, &Packet)) {
        match *ev {
            // A frame on the air (`frames.rs`): its transmission sits in
            // the channel slot numbered like its stream until the stream is
            // reused. Its last bits passed over (`frames.rs`, `holds_frame`)
            // carry nothing: the stream may already be free and its slot
            // hold a later frame.
            Event::Frame { stream, tx } => {
                if !self.streams.holds_frame(stream) {
                    return;
                }
                if let Some(p) = &self.channel.get(tx).frame.packet {
                    f("air", p)
                }
            }
            Event::Wire { dir, arrive } => {
                if let Some(p) = self.wired.event_packet(dir, arrive) {
                    f("link", p)
                }
            }
            Event::Gateway { to_wire } => {
                if let Some(p) = self.gateway.as_ref().and_then(|g| g.event_packet(to_wire)) {
                    f("gateway", p)
                }
            }
            // Timers carry a kind and a generation, never a packet: what
            // their owner parks meanwhile it reports through `held`
            // (`node_held`). The sender's MAC keeps the frame it is
            // sending until `TxEnd` (or its ACK) and reports it.
            Event::TxEnd { .. }
            | Event::Mac { .. }
            | Event::Endpoint { .. }
            | Event::Routing { .. }
            | Event::Arp { .. }
            | Event::Node { .. }
            | Event::Backpressure { .. } => {}
        }
    }

    /// Packets parked by the kernel's stages, whether or not an event of
    /// theirs is pending: link queues and pipes, gateway shapers.
    fn stages_held(&self, f: &mut dyn FnMut(&'static str, &Packet)) {
        // Scratch between two events, empty whenever the audit runs.
        debug_assert!(self.reclaimed.is_empty());
        self.wired.held(&mut |p| f("link", p));
        if let Some(g) = &self.gateway {
            g.held(&mut |p| f("gateway", p));
        }
    }
}

#[cfg(test)]
mod tests;

/// The public way to run: observers, accessors, whole runs and runs in
/// slices (`run_until` and the event loop stay in `mod.rs`).
impl Simulation {
    /// Registers an observer (`metrics/observe.rs`): trace writers, the link
    /// view, recorders. Observers see events in registration order; a run
    /// without any pays nothing for them.
    pub fn add_observer(&mut self, mut o: Box<dyn Observer>) {
        o.attach_board(&self.board);
        self.obs.add(o);
    }

    /// Installs a trace sink: the same as [`Simulation::add_observer`].
    pub fn set_tracer(&mut self, sink: Box<dyn Observer>) {
        self.add_observer(sink);
    }

    pub fn config(&self) -> &SimConfig {
        &self.cfg
    }
    pub fn now(&self) -> Time {
        self.queue.now()
    }
    /// Events executed so far.
    pub fn events(&self) -> u64 {
        self.executed
    }

    /// Runs to the configured duration and returns the report.
    pub fn run(mut self) -> Report {
        self.run_until(self.cfg.duration);
        self.finish()
    }

    /// Runs to the end in `steps` slices, calling `progress(now, events)`
    /// after each (for progress bars); the result equals `run()`.
    pub fn run_with_progress(mut self, steps: u32, progress: impl FnMut(Time, u64)) -> Report {
        self.run_in_steps(steps, progress);
        self.finish()
    }

    /// Runs to the end in `steps` slices without finishing, so that state
    /// (e.g. TCP traces) can still be read before `finish()`.
    pub fn run_in_steps(&mut self, steps: u32, mut progress: impl FnMut(Time, u64)) {
        let steps = steps.max(1) as u64;
        let total = self.cfg.duration.as_ns();
        for k in 1..=steps {
            self.run_until(Time(total / steps * k + if k == steps { total % steps } else { 0 }));
            progress(self.now(), self.executed);
        }
    }
}
