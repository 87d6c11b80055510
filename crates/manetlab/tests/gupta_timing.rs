use manetlab::queue::{ClassKey, Knowledge};
use manetlab::sim::Time;
use manetlab::study::gupta::*;
use rayon::prelude::*;
#[test]
fn timing() {
    let d: u64 = std::env::var("D").map(|s| s.parse().unwrap()).unwrap_or(40);
    let seeds: u64 = std::env::var("S").map(|s| s.parse().unwrap()).unwrap_or(2);
    let t = std::time::Instant::now();
    let schemes = [(Scheme::Retry, false), (Scheme::Default, false), (Scheme::Default, true), (Scheme::Retry, true), (Scheme::Fq(ClassKey::Src), true), (Scheme::Fq(ClassKey::Dst), true), (Scheme::Bp{key: ClassKey::Src, k:1, knowledge: Knowledge::Oracle}, true), (Scheme::Bp{key: ClassKey::Dst, k:1, knowledge: Knowledge::Oracle}, true)];
    let jobs: Vec<_> = schemes.iter().flat_map(|&(s, u)| (1..=seeds).map(move |seed| (s, u, seed))).collect();
    let out: Vec<_> = jobs.par_iter().map(|&(s, u, seed)| Outcome::of(&manetlab::Simulation::new(config(s, Case::Encircle, u, seed, Time::from_secs(d))).unwrap().run())).collect();
    for (i, &(s, u)) in schemes.iter().enumerate() {
        let o = &out[i * seeds as usize..(i + 1) * seeds as usize];
        let tcp: Vec<i64> = o.iter().map(|o| (o.tcp_bps() / 1e3) as i64).collect();
        let mean = o.iter().map(|o| o.tcp_bps()).sum::<f64>() / seeds as f64 / 1e3;
        println!("{:20} udp={u}: tcp {mean:.0} kbps {tcp:?}, udp inj {:?} del {:?}", s.id(), o.iter().map(|o| o.udp_injected.iter().sum::<u64>()).collect::<Vec<_>>(), o.iter().map(|o| o.udp_delivered.iter().sum::<u64>()).collect::<Vec<_>>());
    }
    println!("wall {:.1}s", t.elapsed().as_secs_f64());
}
