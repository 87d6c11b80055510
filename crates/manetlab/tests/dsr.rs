//! DSR in whole simulations: TCP over the chain against static routes, a
//! relay switched off (route error, salvaging, rediscovery), stale routes
//! from cache replies (ELFN paper section 5.1), the send buffer.

mod common;
use common::*;
use manetlab::config::{NodeAction, NodeEvent, Position, SimConfig};
use manetlab::metrics::trace::{MemorySink, PacketEvent, TraceSink};
use manetlab::net::routing::{DsrConfig, RoutingConfig};
use manetlab::phy::CaptureRule;
use manetlab::sim::Time;
use manetlab::{Report, Simulation};
use std::sync::{Arc, Mutex};

fn dsr() -> RoutingConfig {
    RoutingConfig::Dsr(DsrConfig::default())
}

fn run(cfg: SimConfig) -> Report {
    let r = Simulation::new(cfg).unwrap().run();
    assert!(r.audit.balances(), "{:?}", r.audit);
    r
}

struct Shared(Arc<Mutex<MemorySink>>);
impl TraceSink for Shared {
    fn packet(&mut self, ev: &PacketEvent) {
        self.0.lock().unwrap().packet(ev);
    }
}

fn traced(cfg: SimConfig) -> (Report, Vec<String>) {
    let mem = Arc::new(Mutex::new(MemorySink::default()));
    let mut sim = Simulation::new(cfg).unwrap();
    sim.set_tracer(Box::new(Shared(mem.clone())));
    let r = sim.run();
    assert!(r.audit.balances(), "{:?}", r.audit);
    let lines = mem.lock().unwrap().lines.clone();
    (r, lines)
}

/// Times at which node `node`'s agent received a packet of type `ty`.
fn agent_receptions(lines: &[String], node: u32, ty: &str) -> Vec<f64> {
    let tag = format!("_{node}_");
    lines
        .iter()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0] == "r" && f[2] == tag && f[3] == "AGT" && f[6] == ty).then(|| f[1].parse().unwrap())
        })
        .collect()
}

fn overhead(r: &Report) -> String {
    let s = &r.routing;
    let k = |n: &str| s.sent.get(n).map_or((0, 0), |c| (c.packets, c.bytes));
    format!("RREQ {:?} RREP {:?} RERR {:?} (packets, bytes)", k("RREQ"), k("RREP"), k("RERR"))
}

/// ns-2.35 DSR on this chain (docs/ns2-reference.md), kbit/s.
const NS2_DSR: [f64; 8] = [1286.0, 643.0, 282.0, 159.0, 127.0, 128.0, 120.0, 115.0];

/// TCP-Reno over the static chain of `study/chain.rs` (200 m, 2 Mbit/s,
/// RTS/CTS, MSS 1460, window 8, goodput over 10-100 s), DSR against the
/// static routes of the same scenario.
#[test]
fn tcp_chain_goodput_against_static_routes() {
    println!("hops  static      dsr (diff)   ns-2 dsr   kbit/s; seed 1, 10-100 s");
    for hops in 1..=8u32 {
        let base = manetlab::study::chain::config(hops, 1, Time::from_secs(100), CaptureRule::Ns2);
        let st = run(base.clone());
        let mut d = base.clone();
        d.routing = dsr();
        let r = run(d);
        let (g0, g) = (st.flows[0].goodput_bps / 1e3, r.flows[0].goodput_bps / 1e3);
        println!("{hops:4} {g0:8.1} {g:8.1} ({:+5.1}%) {:8.1}", (g / g0 - 1.0) * 100.0, NS2_DSR[hops as usize - 1]);
        println!("      {}; events {:?}; drops {:?}", overhead(&r), r.routing.events, r.audit.dropped);
        assert_eq!(r.routing_protocol, "dsr");
        assert!(r.routing.sent_of("RREQ") >= 1);
        if hops <= 2 {
            assert!((g / g0 - 1.0).abs() <= 0.10, "{hops} hops: DSR {g:.1} vs static {g0:.1} kbit/s");
            assert_eq!(r.routing.event_count("link_breaks"), 0);
        } else {
            // MAC retry exhaustion (hidden terminals) breaks routes, as in
            // ns-2's DSR: between ns-2's DSR figure (less 10%) and static.
            assert!(g <= g0 * 1.10, "{hops} hops: DSR {g:.1} vs static {g0:.1}");
            assert!(g >= NS2_DSR[hops as usize - 1] * 0.9, "{hops} hops: DSR {g:.1} vs ns-2 DSR");
        }
    }
}
