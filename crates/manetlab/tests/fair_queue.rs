//! Fair queueing's buffer rule in a running network (issue 7, gupta study
//! diagnosis): a saturating UDP source on a TCP flow's path fills the shared
//! interface buffer. With drop-tail, arriving TCP packets are refused; with
//! fair queueing the UDP class (the longest) loses its last packet instead,
//! so the TCP flow is never dropped at that node's queue.

mod common;
use common::*;
use manetlab::config::{FlowConfig, SimConfig, Traffic};
use manetlab::metrics::trace::{Action, Layer, PacketEvent, TraceSink};
use manetlab::metrics::DropReason;
use manetlab::net::Body;
use manetlab::queue::{ClassKey, QueueKind};
use manetlab::sim::Time;
use manetlab::transport::tcp::{DataSource, TcpConfig};
use manetlab::{Report, Simulation};
use std::sync::{Arc, Mutex};

/// IFQ drops at node 1: (TCP, UDP).
struct IfqDrops(Arc<Mutex<(u64, u64)>>);

impl TraceSink for IfqDrops {
    fn packet(&mut self, ev: &PacketEvent) {
        if ev.node == 1 && ev.layer == Layer::Ifq && ev.action == Action::Drop(DropReason::Ifq) {
            let mut c = self.0.lock().unwrap();
            match ev.pkt.body {
                Body::Tcp(_) => c.0 += 1,
                Body::Udp { .. } => c.1 += 1,
                _ => {}
            }
        }
    }
}

fn run_chain(fair: bool) -> (Report, (u64, u64)) {
    let mut cfg = base(SimConfig::chain_positions(4, 200.0), 30);
    cfg.flows = vec![
        FlowConfig {
            name: "tcp".into(),
            src: 0,
            dst: 3,
            traffic: Traffic::Tcp { tcp: TcpConfig::default(), data: DataSource::Bulk },
            start: Time::from_secs_f64(0.5),
            stop: None,
        },
        cbr("udp", 1, 3, 1460, 2e6, 1.0),
    ];
    if fair {
        cfg.queue.kind = QueueKind::Fair { key: ClassKey::Src, quantum: None, class_limit: usize::MAX };
    }
    let counts = Arc::new(Mutex::new((0, 0)));
    let mut sim = Simulation::new(cfg).unwrap();
    sim.set_tracer(Box::new(IfqDrops(counts.clone())));
    let r = sim.run();
    assert!(r.audit.balances(), "{:?}", r.audit);
    let c = *counts.lock().unwrap();
    (r, c)
}

#[test]
fn a_full_fair_queue_drops_from_the_heavy_class_not_the_arrival() {
    let (dt, (dt_tcp, dt_udp)) = run_chain(false);
    let (fq, (fq_tcp, fq_udp)) = run_chain(true);
    let tcp = |r: &Report| r.flows[0].goodput_bps / 1e3;
    println!("drop-tail: node 1 IFQ drops tcp {dt_tcp} udp {dt_udp}, TCP {:.1} kbit/s", tcp(&dt));
    println!("fair (src): node 1 IFQ drops tcp {fq_tcp} udp {fq_udp}, TCP {:.1} kbit/s", tcp(&fq));
    // The UDP source keeps node 1's buffer full in both.
    assert!(dt_udp > 1000 && fq_udp > 1000, "{dt_udp} {fq_udp}");
    assert!(dt_tcp > 10, "drop-tail refuses TCP arrivals at the full buffer: {dt_tcp}");
    assert_eq!(fq_tcp, 0, "fair queueing pushes out UDP instead");
    assert!(tcp(&fq) > 2.0 * tcp(&dt), "TCP {:.1} vs {:.1}", tcp(&fq), tcp(&dt));
}
