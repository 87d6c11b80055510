//! Same inputs, same outputs: across repeated runs, thread counts, and
//! progress slicing.

mod common;
use common::*;
use manetlab::config::SimConfig;
use manetlab::sim::Time;
use manetlab::study::runner;
use manetlab::Simulation;

fn configs() -> Vec<SimConfig> {
    (1..=4)
        .map(|seed| {
            let mut cfg = base(SimConfig::grid_positions(4, 4, 180.0), 8);
            cfg.seed = seed;
            cfg.flows = vec![
                cbr("a", 0, 15, 800, 300e3, 0.1),
                cbr("b", 12, 3, 800, 300e3, 0.2),
                cbr("c", 5, 10, 400, 200e3, 0.3),
            ];
            cfg
        })
        .collect()
}

fn json(r: &manetlab::Report) -> String {
    serde_json::to_string(r).unwrap()
}

#[test]
fn thread_count_does_not_change_results() {
    let pool = |n| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
    let one = pool(1).install(|| runner::run_all(configs(), &|_, _| {})).unwrap();
    let two = pool(2).install(|| runner::run_all(configs(), &|_, _| {})).unwrap();
    assert_eq!(one.iter().map(json).collect::<Vec<_>>(), two.iter().map(json).collect::<Vec<_>>());
    // And the seeds really differ from each other.
    assert_ne!(json(&one[0]), json(&one[1]));
}

#[test]
fn running_in_slices_equals_running_at_once() {
    let cfg = configs().remove(0);
    let whole = Simulation::new(cfg.clone()).unwrap().run();
    let sliced = Simulation::new(cfg).unwrap().run_with_progress(37, |_, _| {});
    assert_eq!(json(&whole), json(&sliced));
    assert!(whole.events > 10_000);
    assert_eq!(whole.duration_s, 8.0);
    let _ = Time::ZERO;
}
