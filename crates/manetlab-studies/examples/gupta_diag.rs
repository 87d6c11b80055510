//! Diagnostic for the gupta study (issue 7): per-node, per-kind queue
//! occupancy, drops and MAC transmissions at the server and its neighbours
//! under a scheme. `cargo run --release --example gupta_diag -- fq-src 40 1`
use manetlab::metrics::trace::{Action, Layer, PacketEvent, TraceSink};
use manetlab::net::{Body, Packet};
use manetlab::queue::ClassKey;
use manetlab::sim::Time;
use manetlab::Simulation;
use manetlab_studies::gupta::{self, Case, Scheme, SERVER};
use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};

const KINDS: [&str; 4] = ["ack", "tcpdata", "udp", "ctl"];

fn kind(p: &Packet) -> usize {
    match p.body {
        Body::Tcp(_) if p.src == SERVER => 0,
        Body::Tcp(_) => 1,
        Body::Udp { .. } => 2,
        _ => 3,
    }
}

#[derive(Default)]
struct Stats {
    occ: BTreeMap<u32, [i64; 4]>,
    integral: BTreeMap<u32, [f64; 4]>,
    last: BTreeMap<u32, Time>,
    in_mac: HashSet<(u32, u64)>,
    drops: BTreeMap<(u32, usize, String), u64>,
    mac_tx: BTreeMap<u32, [u64; 4]>,
    mac_first: BTreeMap<u32, [u64; 4]>,
    from: Time,
}

impl Stats {
    fn touch(&mut self, node: u32, now: Time) {
        let last = self.last.entry(node).or_insert(now);
        let dt = (now.as_secs_f64() - last.as_secs_f64().max(self.from.as_secs_f64())).max(0.0);
        *last = now;
        let occ = *self.occ.entry(node).or_default();
        let i = self.integral.entry(node).or_default();
        for k in 0..4 {
            i[k] += occ[k] as f64 * dt;
        }
    }
}

struct Sink(Arc<Mutex<Stats>>, Time);

impl TraceSink for Sink {
    fn packet(&mut self, ev: &PacketEvent) {
        let mut s = self.0.lock().unwrap();
        s.from = self.1;
        let k = kind(ev.pkt);
        let n = ev.node;
        s.touch(n, ev.time);
        let counting = ev.time >= self.1;
        match (ev.layer, ev.action) {
            (Layer::Router, Action::Send | Action::Forward) => s.occ.entry(n).or_default()[k] += 1,
            (Layer::Ifq, Action::Drop(why)) => {
                s.occ.entry(n).or_default()[k] -= 1;
                if counting {
                    *s.drops.entry((n, k, format!("{why:?}"))).or_default() += 1;
                }
            }
            (Layer::Mac, Action::Send) => {
                if counting {
                    s.mac_tx.entry(n).or_default()[k] += 1;
                }
                if s.in_mac.insert((n, ev.pkt.uid)) {
                    s.occ.entry(n).or_default()[k] -= 1;
                    if counting {
                        s.mac_first.entry(n).or_default()[k] += 1;
                    }
                }
            }
            (_, Action::Drop(why)) if counting => *s.drops.entry((n, k, format!("{why:?}"))).or_default() += 1,
            _ => {}
        }
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let scheme = match a.get(1).map(String::as_str).unwrap_or("fq-src") {
        "fq-dst" => Scheme::Fq(ClassKey::Dst),
        "retry" => Scheme::Retry,
        _ => Scheme::Fq(ClassKey::Src),
    };
    let dur: f64 = a.get(2).and_then(|s| s.parse().ok()).unwrap_or(40.0);
    let seed: u64 = a.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let fixed = std::env::var("STATIC").is_ok();
    let make = |udp: bool, seed: u64| {
        let mut cfg = gupta::config(scheme, Case::Encircle, udp, seed, Time::from_secs_f64(dur));
        if fixed {
            // Diagnostic: fixed shortest-path routes, UDP on the straight 8-hop lines through the server.
            let row: Vec<u32> = (80..=88).collect();
            let col: Vec<u32> = (0..9).map(|i| 32 + 13 * i).collect();
            cfg.routing = manetlab::net::routing::RoutingConfig::Static { paths: vec![row, col] };
        }
        cfg
    };
    if let Ok(n) = std::env::var("SEEDS") {
        let n: u64 = n.parse().unwrap();
        let tcp = |r: &manetlab::metrics::Report| {
            r.flows.iter().filter(|f| f.kind != "cbr").map(|f| f.goodput_bps).sum::<f64>() / 1e3
        };
        let (mut a, mut b, mut u) = (0.0, 0.0, 0.0);
        for sd in 1..=n {
            let ri = Simulation::new(make(false, sd)).unwrap().run();
            let r = Simulation::new(make(true, sd)).unwrap().run();
            let udp: f64 = r.flows.iter().filter(|f| f.kind == "cbr").map(|f| f.goodput_bps).sum::<f64>() / 1e3;
            println!(
                "seed {sd}: initial {:.1} with UDP {:.1} kbit/s ({:.0}%), UDP {:.1} kbit/s",
                tcp(&ri),
                tcp(&r),
                100.0 * tcp(&r) / tcp(&ri),
                udp
            );
            a += tcp(&ri);
            b += tcp(&r);
            u += udp;
        }
        println!(
            "{} static={fixed}: mean initial {:.1}, with UDP {:.1} ({:.0}%), UDP {:.1}",
            scheme.id(),
            a / n as f64,
            b / n as f64,
            100.0 * b / a,
            u / n as f64
        );
        return;
    }
    let cfg = make(true, seed);
    let stats = Arc::new(Mutex::new(Stats::default()));
    let mut sim = Simulation::new(cfg).unwrap();
    sim.set_tracer(Box::new(Sink(stats.clone(), Time::from_secs_f64(gupta::UDP_START_S))));
    let r = sim.run();
    let mut s = stats.lock().unwrap();
    let end = Time::from_secs_f64(dur);
    let nodes: Vec<u32> = s.occ.keys().copied().collect();
    for n in nodes {
        s.touch(n, end);
    }
    let span = dur - gupta::UDP_START_S;
    println!("audit {:?}", r.audit);
    for n in [80u32, 81, 82, 83, 67, 93, 32, 45, 58, 71] {
        let nr = &r.nodes[n as usize];
        println!(
            "node {n} fwd {} orig {} drops {:?} routing events {:?}",
            nr.forwarded, nr.originated, nr.drops, nr.routing.events
        );
    }
    println!("scheme {} seed {seed} {dur} s", scheme.id());
    for f in &r.flows {
        println!(
            "  {:<16} goodput {:8.1} kbit/s sent {} recv {}",
            f.name,
            f.goodput_bps / 1e3,
            f.sent_packets,
            f.received_packets
        );
    }
    let interesting = [SERVER, SERVER - 13, SERVER - 1, SERVER + 1, SERVER + 13, 80, 81, 82, 32, 45, 58, 79];
    for n in interesting {
        let i = s.integral.get(&n).copied().unwrap_or_default();
        let tx = s.mac_tx.get(&n).copied().unwrap_or_default();
        let first = s.mac_first.get(&n).copied().unwrap_or_default();
        print!("node {n:3}: mean occ");
        for k in 0..4 {
            print!(" {}={:.1}", KINDS[k], i[k] / span);
        }
        print!(" | pkts sent");
        for k in 0..4 {
            print!(" {}={}", KINDS[k], first[k]);
        }
        print!(" | mac tx");
        for k in 0..3 {
            print!(" {}={}", KINDS[k], tx[k]);
        }
        println!();
        for ((dn, k, why), c) in &s.drops {
            if *dn == n {
                println!("    drop {} {why}: {c}", KINDS[*k]);
            }
        }
    }
    println!("UDP packets sent (MAC) per node after UDP start, grid rows:");
    for row in 0..13u32 {
        let line: Vec<String> = (0..13u32)
            .map(|col| s.mac_first.get(&(row * 13 + col)).map_or(0, |m| m[2]))
            .map(|v| format!("{v:5}"))
            .collect();
        println!("  {}", line.join(""));
    }
    println!("ACK packets sent (MAC) per node:");
    for row in 0..13u32 {
        let line: Vec<String> = (0..13u32)
            .map(|col| s.mac_first.get(&(row * 13 + col)).map_or(0, |m| m[0]))
            .map(|v| format!("{v:5}"))
            .collect();
        println!("  {}", line.join(""));
    }
    let mut tot: BTreeMap<(usize, String), u64> = BTreeMap::new();
    for ((_, k, why), c) in &s.drops {
        *tot.entry((*k, why.clone())).or_default() += c;
    }
    println!("all drops: {:?}", tot.iter().map(|((k, w), c)| format!("{} {w} {c}", KINDS[*k])).collect::<Vec<_>>());
}
