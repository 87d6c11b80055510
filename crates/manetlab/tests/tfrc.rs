//! TFRC (RFC 5348) over a wired 2 Mbit/s bottleneck: alone it fills the
//! link with a smooth rate; against TCP it gets a comparable share.

mod common;
use common::*;
use manetlab::config::{FlowConfig, Position, SimConfig, Traffic};
use manetlab::net::wired::{LinkConfig, WiredConfig};
use manetlab::sim::Time;
use manetlab::transport::tcp::{DataSource, TcpConfig};
use manetlab::transport::tfrc::TfrcConfig;
use manetlab::Simulation;

const SECS: u64 = 60;
const BOTTLENECK: f64 = 2e6;

/// 0 =(10 Mbit/s, 5 ms)= 1 =(2 Mbit/s, 20 ms, 10 packets)= 2, all wired.
fn dumbbell() -> SimConfig {
    let nodes = (0..3).map(|i| Position::new(i as f64 * 5000.0, 0.0)).collect();
    let mut cfg = base(nodes, SECS);
    let l = |a, b, bps: f64, ms, queue| LinkConfig { a, b, bandwidth_bps: bps as u64, delay: Time::from_ms(ms), queue };
    cfg.wired =
        WiredConfig { links: vec![l(0, 1, 10e6, 5, 100), l(1, 2, BOTTLENECK, 20, 10)], wired_only: vec![0, 1, 2] };
    cfg
}

fn tfrc_flow(name: &str) -> FlowConfig {
    let tfrc = TfrcConfig { record_rate: true, ..TfrcConfig::default() };
    FlowConfig {
        name: name.into(),
        src: 0,
        dst: 2,
        traffic: Traffic::Tfrc { tfrc, rate_bps: None },
        start: Time::from_secs(1),
        stop: None,
    }
}

fn tcp_flow(name: &str) -> FlowConfig {
    let tcp = TcpConfig { mss: 1000, max_window: 64, ..TcpConfig::default() };
    FlowConfig {
        name: name.into(),
        src: 0,
        dst: 2,
        traffic: Traffic::Tcp { tcp, data: DataSource::Bulk },
        start: Time::from_secs(1),
        stop: None,
    }
}

/// Times at which `node`'s agent sent a packet of type `ty`.
fn agent_sends(lines: &[String], node: u32, ty: &str) -> Vec<f64> {
    let tag = format!("_{node}_");
    lines
        .iter()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0] == "s" && f[2] == tag && f[3] == "AGT" && f[6] == ty).then(|| f[1].parse().unwrap())
        })
        .collect()
}

/// Coefficient of variation of the packets received per `bin` seconds
/// over [from, SECS).
fn rate_cv(times: &[f64], bin: f64, from: f64) -> f64 {
    let n = ((SECS as f64 - from) / bin) as usize;
    let mut counts = vec![0.0f64; n];
    for &t in times {
        let i = ((t - from) / bin).floor();
        if i >= 0.0 && (i as usize) < n {
            counts[i as usize] += 1.0;
        }
    }
    let mean = counts.iter().sum::<f64>() / n as f64;
    let var = counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / n as f64;
    var.sqrt() / mean
}

#[test]
fn tfrc_alone_fills_the_bottleneck_smoothly() {
    let mut cfg = dumbbell();
    cfg.flows = vec![tfrc_flow("tfrc")];
    let mut sim = Simulation::new(cfg.clone()).unwrap();
    let mem = std::sync::Arc::new(std::sync::Mutex::new(manetlab::metrics::trace::MemorySink::default()));
    sim.set_tracer(Box::new(Shared(mem.clone())));
    sim.run_until(Time::from_secs(SECS));
    let s = sim.tfrc_sender(0).unwrap().summary();
    let r = sim.report();
    assert!(r.audit.balances(), "{:?}", r.audit);
    let f = &r.flows[0];
    let lines = mem.lock().unwrap().lines.clone();
    let rtt = s.rtt_s;
    // The sending rate per RTT (what arrives is smoothed by the bottleneck).
    let tfrc_cv = rate_cv(&agent_sends(&lines, 0, "tfrc"), rtt, 10.0);
    println!("TFRC: goodput {:.0} b/s, rtt {:.4} s, p {:.5}, per-RTT CV {tfrc_cv:.3}, {s:?}", f.goodput_bps, rtt, s.p);
    // The payload rate alone (40 B of headers per 1000 B are on top).
    assert!(f.goodput_bps > 0.85 * BOTTLENECK, "goodput {}", f.goodput_bps);
    assert!(s.p > 0.0 && s.feedback_received > 200);
    // Feedback about once per RTT (RTT >= 50 ms of propagation).
    assert!(rtt > 0.05 && rtt < 0.2, "rtt {rtt}");
    let per_rtt = s.feedback_received as f64 / ((SECS - 1) as f64 / rtt);
    assert!(per_rtt > 0.7 && per_rtt < 1.3, "{per_rtt} feedbacks per RTT");

    // TCP alone on the same path, its rate per the same RTT.
    let mut cfg = dumbbell();
    cfg.flows = vec![tcp_flow("tcp")];
    let (r, lines) = traced(cfg);
    let tcp_cv = rate_cv(&agent_sends(&lines, 0, "tcp"), rtt, 10.0);
    println!("TCP: goodput {:.0} b/s, per-RTT CV {tcp_cv:.3}", r.flows[0].goodput_bps);
    assert!(tfrc_cv < 0.5 * tcp_cv, "TFRC CV {tfrc_cv} vs TCP {tcp_cv}");
}

#[test]
fn tfrc_and_tcp_share_the_bottleneck() {
    let mut cfg = dumbbell();
    cfg.flows = vec![tfrc_flow("tfrc"), tcp_flow("tcp")];
    let r = run(cfg);
    let (a, b) = (r.flows[0].goodput_bps, r.flows[1].goodput_bps);
    println!("TFRC {a:.0} b/s, TCP {b:.0} b/s, ratio {:.2}", a / b);
    assert!(a / b < 2.0 && b / a < 2.0, "TFRC {a} TCP {b}");
    assert!(a + b > 0.85 * BOTTLENECK);
}

#[test]
fn data_limited_application_is_not_throttled() {
    // 500 kbit/s offered over the 2 Mbit/s path: everything goes through,
    // with the delay of an empty path (no loss, no queue).
    let mut cfg = dumbbell();
    let mut f = tfrc_flow("tfrc");
    f.traffic = Traffic::Tfrc { tfrc: TfrcConfig::default(), rate_bps: Some(500_000) };
    cfg.flows = vec![f];
    let r = run(cfg);
    let f = &r.flows[0];
    println!("{f:?}");
    assert!((f.goodput_bps / 500e3 - 1.0).abs() < 0.03, "{}", f.goodput_bps);
    assert!(f.delivery_ratio.unwrap() > 0.999);
    // 1060 B at 10 and at 2 Mbit/s + 25 ms: 30.09 ms at least.
    assert!(f.delay_p50_s.unwrap() < 0.035, "{}", f.delay_p50_s.unwrap());
}

#[test]
fn tcp_delay_is_sampled_per_segment_delivered() {
    // TCP alone loses packets at the 10-packet queue; segments that wait in
    // the receiver for a retransmission still count one delay sample each.
    let mut cfg = dumbbell();
    cfg.flows = vec![tcp_flow("tcp")];
    let r = run(cfg);
    let f = &r.flows[0];
    assert!(r.audit.dropped.get("IFQ").copied().unwrap_or(0) > 10, "{:?}", r.audit);
    assert_eq!(f.received_bytes, f.received_packets * 1000, "{f:?}");
    // The same flow's TFRC counterpart: one sample per packet too.
    let mut cfg = dumbbell();
    cfg.flows = vec![tfrc_flow("tfrc")];
    let r = run(cfg);
    assert_eq!(r.flows[0].received_bytes, r.flows[0].received_packets * 1000);
}
