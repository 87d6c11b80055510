//! Where the testbed study's UDP packets are lost: per-node drops, MAC and
//! radio counters, per-hop losses in time windows, for one scenario/model.
//! `cargo run --release -p manetlab --example testbed_diag -- S2 sinr 1`
use manetlab::metrics::linkview::LinkViewSink;
use manetlab::sim::Time;
use manetlab::Simulation;
use manetlab_studies::testbed::{config, Model, Scenario, UDP_BPS};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let scn = match a.get(1).map(|s| s.as_str()) {
        Some("S1") => Scenario::S1,
        Some("S3") => Scenario::S3,
        _ => Scenario::S2,
    };
    let model = if a.get(2).map(|s| s.as_str()) == Some("threshold") { Model::Threshold } else { Model::Sinr };
    let seed: u64 = a.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let cfg = config(scn, model, seed, UDP_BPS, scn.duration(), false);
    let flows: Vec<u32> = (0..cfg.flows.len() as u32).collect();
    let (sink, views) = LinkViewSink::for_flows(&cfg, &flows);
    let mut sim = Simulation::new(cfg.clone()).unwrap();
    sim.set_tracer(Box::new(sink));
    sim.run_until(cfg.duration);
    let r = sim.finish();
    for f in &r.flows {
        println!(
            "flow {}: sent {} recv {} ratio {:.3} goodput {:.3} Mbit/s",
            f.name,
            f.sent_packets,
            f.received_packets,
            f.delivery_ratio.unwrap(),
            f.goodput_bps / 1e6
        );
    }
    for n in &r.nodes {
        println!(
            "node {}: drops {:?}\n   mac data {} retries {} ackfail {} retrydrops {} ok {} airtime {:.1} s | radio dec {} col {} err {}",
            n.id, n.drops, n.mac.data_sent, n.mac.retries, n.mac.ack_failures, n.mac.retry_drops, n.mac.unicast_success,
            n.mac.airtime_ns as f64 / 1e9, n.radio.decoded, n.radio.collisions, n.radio.errors
        );
    }
    let v = views.lock().unwrap().clone();
    let u = v.flow(0).unwrap();
    let win = 10u64;
    let end = cfg.duration.as_secs_f64() as u64;
    let cnt = |from: u32, to: u32, a: u64, b: u64| {
        u.links
            .get(&(from, to))
            .map_or(0, |l| l.times.iter().filter(|&&t| t >= Time::from_secs(a) && t < Time::from_secs(b)).count())
    };
    println!("window  rx2->1  rx1->0 (offered {:.1}/window)", UDP_BPS / (1470.0 * 8.0) * win as f64);
    let mut t = 0;
    while t < end {
        println!("{:3}-{:3}  {:6}  {:6}", t, t + win, cnt(2, 1, t, t + win), cnt(1, 0, t, t + win));
        t += win;
    }
}
