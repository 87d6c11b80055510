//! What tracing costs: runs a scenario with every trace format off and on
//! and prints events per second and file sizes.
//!
//! cargo run --release --example trace_cost -- [scenario.toml] [out-dir]
//! (defaults: scenarios/bench/twohop-sat.toml, /tmp/manetlab-trace-cost)
use manetlab::metrics::trace::{self, Ns2Format, PcapMode, TraceOptions};
use manetlab::scenario::Scenario;
use manetlab::Simulation;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn dir_size(d: &Path) -> u64 {
    std::fs::read_dir(d).map_or(0, |r| r.filter_map(|e| e.ok()?.metadata().ok()).map(|m| m.len()).sum())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let file = args.first().map_or("scenarios/bench/twohop-sat.toml", |s| s.as_str());
    let out = PathBuf::from(args.get(1).map_or("/tmp/manetlab-trace-cost", |s| s.as_str()));
    let reps: usize = std::env::var("REPS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let sc = Scenario::from_path(Path::new(file)).unwrap_or_else(|e| panic!("{e}"));
    let cases: [(&str, TraceOptions); 6] = [
        ("off", TraceOptions::default()),
        ("ns2", TraceOptions { ns2: Some(Ns2Format::New), pcap: None }),
        ("ns2-old", TraceOptions { ns2: Some(Ns2Format::Old), pcap: None }),
        ("pcap merged", TraceOptions { ns2: None, pcap: Some(PcapMode::Merged) }),
        ("pcap per-node", TraceOptions { ns2: None, pcap: Some(PcapMode::PerNode) }),
        ("ns2 + pcap merged", TraceOptions { ns2: Some(Ns2Format::New), pcap: Some(PcapMode::Merged) }),
    ];
    println!("{file}: median of {reps} runs");
    println!("{:<18} {:>10} {:>8} {:>10} {:>10}", "trace", "events", "wall s", "Mevents/s", "MB written");
    for (name, opts) in cases {
        let dir = out.join(name.replace([' ', '+'], "-"));
        let mut walls = Vec::new();
        let mut events = 0;
        for _ in 0..reps {
            let _ = std::fs::remove_dir_all(&dir);
            let cfg = sc.config(sc.seed());
            let sink = trace::open(&dir, &opts, &cfg.nodes).expect("creating trace files");
            let t = Instant::now();
            let mut sim = Simulation::new(cfg).unwrap();
            if let Some(s) = sink {
                sim.set_tracer(s);
            }
            let r = sim.run();
            walls.push(t.elapsed().as_secs_f64());
            events = r.events;
        }
        walls.sort_by(f64::total_cmp);
        let wall = walls[walls.len() / 2];
        println!(
            "{name:<18} {events:>10} {wall:>8.3} {:>10.2} {:>10.1}",
            events as f64 / wall / 1e6,
            dir_size(&dir) as f64 / 1e6
        );
    }
}
