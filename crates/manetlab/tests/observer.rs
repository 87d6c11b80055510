//! The observer interface (`metrics/observe.rs`): one trait through which
//! traces, the link view and recorders watch a run. Registering observers
//! changes nothing in the run; they see the configuration first, every
//! frame on the air with its outcome at each receiver, packet events with
//! drop reasons, and queue lengths; several observers see the same events.

mod common;
use common::*;
use manetlab::config::SimConfig;
use manetlab::metrics::observe::{Action, FrameDir, FrameEvent, Layer, Observer, PacketEvent, QueueEvent};
use manetlab::metrics::DropReason;
use manetlab::Simulation;
use std::sync::{Arc, Mutex};

#[derive(Default, Clone)]
struct Seen {
    started_with_nodes: usize,
    tx: u64,
    rx: u64,
    lost: u64,
    sent_agt: u64,
    recv_agt: u64,
    ifq_drops: u64,
    max_queue: usize,
    queue_events: u64,
    finished: bool,
    last_time: u64,
}

struct Probe(Arc<Mutex<Seen>>);

impl Observer for Probe {
    fn start(&mut self, cfg: &SimConfig) {
        self.0.lock().unwrap().started_with_nodes = cfg.nodes.len();
    }
    fn packet(&mut self, ev: &PacketEvent) {
        let mut s = self.0.lock().unwrap();
        assert!(ev.time.as_ns() >= s.last_time, "events in time order");
        s.last_time = ev.time.as_ns();
        match (ev.layer, ev.action) {
            (Layer::Agent, Action::Send) => s.sent_agt += 1,
            (Layer::Agent, Action::Recv) => s.recv_agt += 1,
            (_, Action::Drop(DropReason::Ifq)) => s.ifq_drops += 1,
            _ => {}
        }
    }
    fn frame(&mut self, ev: &FrameEvent) {
        let mut s = self.0.lock().unwrap();
        match ev.dir {
            FrameDir::Tx => s.tx += 1,
            FrameDir::Rx => {
                assert!(ev.power_w > 0.0);
                s.rx += 1
            }
            FrameDir::Lost(_) => s.lost += 1,
        }
    }
    fn queue(&mut self, ev: &QueueEvent) {
        let mut s = self.0.lock().unwrap();
        s.queue_events += 1;
        s.max_queue = s.max_queue.max(ev.len);
    }
    fn finish(&mut self) -> std::io::Result<()> {
        self.0.lock().unwrap().finished = true;
        Ok(())
    }
}

fn cfg() -> SimConfig {
    // A saturated 3-node chain: the relay's queue fills and overflows.
    let mut cfg = base(SimConfig::chain_positions(3, 200.0), 5);
    cfg.flows = vec![cbr("udp", 0, 2, 1000, 3e6, 0.1)];
    cfg
}

#[test]
fn observers_see_frames_packets_and_queues_without_changing_the_run() {
    let plain = Simulation::new(cfg()).unwrap().run();
    let a = Arc::new(Mutex::new(Seen::default()));
    let b = Arc::new(Mutex::new(Seen::default()));
    let mut sim = Simulation::new(cfg()).unwrap();
    sim.add_observer(Box::new(Probe(a.clone())));
    sim.add_observer(Box::new(Probe(b.clone())));
    let watched = sim.run();
    assert_eq!(serde_json::to_string(&plain).unwrap(), serde_json::to_string(&watched).unwrap());
    let s = a.lock().unwrap().clone();
    println!(
        "tx {} rx {} lost {} agt sent {} recv {} ifq drops {} max queue {}",
        s.tx, s.rx, s.lost, s.sent_agt, s.recv_agt, s.ifq_drops, s.max_queue
    );
    assert_eq!(s.started_with_nodes, 3);
    assert!(s.finished);
    let f = &watched.flows[0];
    assert_eq!(s.sent_agt, f.sent_packets);
    assert_eq!(s.recv_agt, f.received_packets);
    // Every transmission is heard by one or two nodes of the chain (each
    // with its own outcome), and the saturated relay overflows its queue.
    assert!(s.rx + s.lost >= s.tx && s.rx + s.lost <= 2 * s.tx, "{} {} {}", s.tx, s.rx, s.lost);
    let ifq: u64 = watched.nodes.iter().map(|n| n.drops.get("IFQ").copied().unwrap_or(0)).sum();
    assert!(ifq > 0);
    assert_eq!(s.ifq_drops, ifq);
    assert_eq!(s.max_queue, 50, "the drop-tail limit is reached");
    assert!(s.queue_events > 2 * f.received_packets);
    // The second observer saw exactly the same.
    let t = b.lock().unwrap().clone();
    assert_eq!((t.tx, t.rx, t.lost, t.queue_events, t.ifq_drops), (s.tx, s.rx, s.lost, s.queue_events, s.ifq_drops));
}
