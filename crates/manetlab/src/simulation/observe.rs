//! The observer hub: the one place the kernel hands events to observers
//! (`metrics/observe.rs`). Each hook tests once whether anyone is
//! listening; only then does it build the event (received power, frame
//! copies, queue lengths), so a run without observers pays one inlined
//! branch per hook and computes nothing.

use super::Simulation;
use crate::config::SimConfig;
use crate::mac::Frame;
use crate::metrics::observe::{
    Action, FlowEvent, FlowWhat, FrameDir, FrameEvent, Interest, Layer, Observer, PacketEvent, QueueEvent, Reception,
    ReceptionEvent,
};
use crate::metrics::{DropReason, Metrics};
use crate::net::{NodeId, Packet, BROADCAST};
use crate::phy::channel::Channel;
use crate::phy::radio::RxOutcome;
use crate::queue::QueueDisc;
use crate::sim::Time;

/// The observers: first the built-in one, the run's flow statistics and
/// packet fate table (`metrics::Metrics`, called statically at every flow
/// event, so `summary.json` is defined by that first position), then the
/// registered observers in registration order, and the optional hooks any
/// of them wants.
pub(super) struct Observers {
    pub(super) metrics: Metrics,
    list: Vec<Box<dyn Observer>>,
    interest: Interest,
}

impl Observers {
    pub(super) fn new(metrics: Metrics) -> Observers {
        Observers { metrics, list: Vec::new(), interest: Interest::default() }
    }

    pub(super) fn add(&mut self, o: Box<dyn Observer>) {
        self.interest = self.interest.or(o.interest());
        self.list.push(o);
    }

    pub(super) fn interest(&self) -> Interest {
        self.interest
    }

    /// `node` heard transmission `tx` with `outcome` (`Interest::receptions`).
    #[inline]
    pub(super) fn reception(
        &mut self,
        now: Time,
        node: NodeId,
        channel: &Channel,
        tx: crate::phy::TxId,
        power_w: Option<f64>,
        outcome: Reception,
    ) {
        if !self.interest.receptions {
            return;
        }
        let x = channel.get(tx);
        let power_w = power_w.unwrap_or_else(|| channel.power_between(x.sender, node, x.start));
        let ev =
            ReceptionEvent { time: now, node, sender: x.sender, tx_start: x.start, frame: &x.frame, power_w, outcome };
        self.list.iter_mut().for_each(|o| o.reception(&ev));
    }

    /// `node`'s routing table (`Interest::routes`).
    pub(super) fn routes(&mut self, now: Time, node: NodeId, table: &[crate::net::routing::RouteEntry]) {
        self.list.iter_mut().for_each(|o| o.routes(now, node, table));
    }

    /// `node` gave up on the link to `next_hop`.
    #[inline]
    pub(super) fn link_failure(&mut self, now: Time, node: NodeId, next_hop: NodeId) {
        self.list.iter_mut().for_each(|o| o.link_failure(now, node, next_hop));
    }

    pub(super) fn start(&mut self, cfg: &SimConfig) {
        self.list.iter_mut().for_each(|o| o.start(cfg));
    }

    #[inline]
    pub(super) fn packet(
        &mut self,
        time: Time,
        node: NodeId,
        layer: Layer,
        action: Action,
        pkt: &Packet,
        frame: Option<&Frame>,
    ) {
        if self.list.is_empty() {
            return;
        }
        let ev = PacketEvent { time, node, layer, action, pkt, frame };
        self.list.iter_mut().for_each(|o| o.packet(&ev));
    }

    #[inline]
    fn frame(&mut self, time: Time, node: NodeId, dir: FrameDir, frame: &Frame, duration: Time, power_w: f64) {
        let ev = FrameEvent { time, node, dir, frame, duration, power_w };
        self.list.iter_mut().for_each(|o| o.frame(&ev));
    }

    /// `node` puts `frame` on the air for `d`.
    #[inline]
    pub(super) fn transmit(&mut self, now: Time, node: NodeId, frame: &Frame, d: Time) {
        if self.list.is_empty() {
            return;
        }
        self.frame(now, node, FrameDir::Tx, frame, d, 0.0);
        if let Some(pkt) = frame.packet {
            self.packet(now, node, Layer::Mac, Action::Send, &pkt, Some(frame));
        }
    }

    /// A signal ended at `node` with `outcome`: the frame's fate there.
    #[inline]
    pub(super) fn signal_end(
        &mut self,
        now: Time,
        node: NodeId,
        channel: &Channel,
        tx: crate::phy::TxId,
        outcome: RxOutcome,
    ) {
        if self.list.is_empty() {
            return;
        }
        if self.interest.receptions {
            let r = match outcome {
                RxOutcome::Decoded(_) => Reception::Decoded,
                RxOutcome::Failed { collided: true, .. } => Reception::Collided,
                RxOutcome::Failed { collided: false, .. } => Reception::Error,
                RxOutcome::Nothing => Reception::NotLocked,
            };
            self.reception(now, node, channel, tx, None, r);
        }
        let (id, why) = match outcome {
            RxOutcome::Decoded(id) => (id, None),
            RxOutcome::Failed { tx, collided } => (tx, Some(if collided { DropReason::Col } else { DropReason::Err })),
            RxOutcome::Nothing => return,
        };
        let t = channel.get(id);
        let frame = t.frame;
        let (d, p) = (t.end - t.start, channel.power_between(t.sender, node, t.start));
        match why {
            None => {
                self.frame(now, node, FrameDir::Rx, &frame, d, p);
                if let (Some(pkt), true) = (frame.packet, frame.dst == node || frame.dst == BROADCAST) {
                    self.packet(now, node, Layer::Mac, Action::Recv, &pkt, Some(&frame));
                }
            }
            Some(why) => {
                self.frame(now, node, FrameDir::Lost(why), &frame, d, p);
                if let (Some(pkt), true) = (frame.packet, frame.dst == node) {
                    self.packet(now, node, Layer::Mac, Action::Drop(why), &pkt, Some(&frame));
                }
            }
        }
    }

    /// `node`'s interface queue `q` may have changed length.
    #[inline]
    pub(super) fn queue(&mut self, time: Time, node: NodeId, q: &dyn QueueDisc) {
        if self.list.is_empty() {
            return;
        }
        let ev = QueueEvent { time, node, len: q.len() };
        self.list.iter_mut().for_each(|o| o.queue(&ev));
    }

    /// A flow's application-level event: the built-in flow statistics and
    /// fate table first (static call), then the registered observers.
    /// Always inlined: each call site names one `FlowWhat`, so the
    /// built-in observer's `match` folds away.
    #[inline(always)]
    pub(super) fn flow(&mut self, time: Time, flow: u32, what: FlowWhat) {
        let ev = FlowEvent { time, flow, what };
        Observer::flow(&mut self.metrics, &ev);
        self.list.iter_mut().for_each(|o| o.flow(&ev));
    }

    /// `node`'s carrier sense became busy or idle.
    #[inline]
    pub(super) fn medium(&mut self, time: Time, node: NodeId, busy: bool) {
        if self.list.is_empty() {
            return;
        }
        self.list.iter_mut().for_each(|o| o.medium(time, node, busy));
    }

    /// After `finish`: every observer adds its recordings to the report.
    pub(super) fn report(&mut self, report: &mut crate::Report) {
        self.list.iter_mut().for_each(|o| o.report(report));
    }

    /// The end of the run: every packet still held is reported as an END
    /// drop, then every observer finishes (flushes its files).
    pub(super) fn finish(&mut self, now: Time, held: &[(NodeId, Packet)]) {
        for (node, pkt) in held {
            let why = DropReason::End;
            self.packet(now, *node, Layer::of_drop(why), Action::Drop(why), pkt, None);
        }
        for o in &mut self.list {
            if let Err(e) = o.finish() {
                eprintln!("warning: trace output: {e}");
            }
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// The flow recorder endpoints write to: the endpoints' narrow interface
/// onto the observers' [`Observer::flow`] hook (the built-in flow
/// statistics first). `fate` is the packet uid table itself: endpoints
/// mark their deliveries there and read back whether a copy is a
/// duplicate, a query, not an event, so it is not an observer hook.
pub(super) struct Tap<'a> {
    pub obs: &'a mut Observers,
}

impl crate::transport::FlowRecorder for Tap<'_> {
    fn flow_sent(&mut self, flow: u32, now: Time, payload: u32) {
        self.obs.flow(now, flow, FlowWhat::Sent { payload });
    }
    fn flow_received(&mut self, flow: u32, now: Time, created: Time, payload: u32, first: bool) {
        self.obs.flow(now, flow, FlowWhat::Received { created, payload, first });
    }
    fn fate(&mut self) -> &mut crate::metrics::FateTable {
        &mut self.obs.metrics.fate
    }
}

impl Simulation {
    /// A packet event at `node` now (no-op without observers).
    #[inline]
    pub(super) fn trace(&mut self, node: NodeId, layer: Layer, action: Action, pkt: &Packet, frame: Option<&Frame>) {
        self.obs.packet(self.queue.now(), node, layer, action, pkt, frame);
    }
}
