//! Mobility: ns-2 movement files reproduce ns-2's positions; pattern
//! scaling replays the same sequence of link changes faster; moving nodes
//! change who hears whom.

mod common;
use common::*;
use manetlab::config::Position;
use manetlab::mobility::{ns2, waypoint, MobilityConfig};
use manetlab::sim::Time;
use manetlab::Simulation;

const MOVES: &str = include_str!("data/setdest-5n-30s.tcl");
/// Reference positions logged by ns-2.35 (see the header of the file).
const NS2_POSITIONS: &str = include_str!("data/ns2-positions.txt");

#[test]
fn setdest_file_gives_ns2_positions_to_the_millimetre() {
    let t = ns2::parse(MOVES, 5).unwrap();
    let mut checked = 0;
    let mut worst: f64 = 0.0;
    for line in NS2_POSITIONS.lines().filter(|l| l.starts_with("P ")) {
        let f: Vec<f64> = line[2..].split_whitespace().map(|x| x.parse().unwrap()).collect();
        let (at, node, x, y) = (Time::from_secs_f64(f[0]), f[1] as usize, f[2], f[3]);
        let p = t[node].position(at);
        let d = ((p.x - x).powi(2) + (p.y - y).powi(2)).sqrt();
        worst = worst.max(d);
        assert!(d < 1e-3, "node {node} at {at}: manetlab ({:.6}, {:.6}) vs ns-2 ({x}, {y})", p.x, p.y);
        checked += 1;
    }
    println!("{checked} positions checked, worst difference {:.2e} m", worst);
    assert_eq!(checked, 290);
}

/// The times at which the pair (a, b) comes into or goes out of range.
fn link_changes(t: &[manetlab::mobility::Trajectory], a: usize, b: usize, until: f64, step: f64) -> Vec<(f64, bool)> {
    let mut out = Vec::new();
    let mut prev = None;
    let mut s = 0.0;
    while s <= until {
        let at = Time::from_secs_f64(s);
        let up = t[a].position(at).distance(&t[b].position(at)) <= 250.0;
        if prev != Some(up) {
            out.push((s, up));
            prev = Some(up);
        }
        s += step;
    }
    out
}

#[test]
fn pattern_scaling_gives_identical_link_changes_at_half_the_times() {
    let slow = waypoint::pattern(1500.0, 300.0, Time::ZERO, 30, 11, 10.0, Time::from_secs(200));
    let fast = waypoint::pattern(1500.0, 300.0, Time::ZERO, 30, 11, 20.0, Time::from_secs(100));
    let mut changes = 0;
    for (a, b) in [(0, 1), (0, 29), (3, 17), (5, 6), (12, 20)] {
        let s = link_changes(&slow, a, b, 200.0, 0.01);
        let f = link_changes(&fast, a, b, 100.0, 0.005);
        assert_eq!(s.len(), f.len(), "pair ({a},{b})");
        for ((ts, us), (tf, uf)) in s.iter().zip(&f) {
            assert_eq!(us, uf);
            assert!((ts / 2.0 - tf).abs() <= 0.006, "({a},{b}): {ts}/2 vs {tf}");
        }
        changes += s.len();
    }
    assert!(changes > 10, "the pattern should make and break links ({changes})");
}

#[test]
fn a_receiver_walking_out_of_range_stops_receiving() {
    // 0 -> 1, node 1 walks away at 10 m/s from t = 5 s: out of range (250 m)
    // at about 5 + 15 = 20 s; CBR keeps sending until 40 s.
    let mut cfg = base(vec![Position::new(0.0, 0.0), Position::new(100.0, 0.0)], 40);
    let mut script = ns2::MovementScript { init: vec![[None; 3]; 2], moves: Vec::new() };
    script.moves.push(ns2::SetDest { at: Time::from_secs(5), node: 1, x: 1000.0, y: 0.0, speed: 10.0 });
    cfg.mobility = MobilityConfig::Trajectories(script.trajectories(&cfg.nodes));
    cfg.mac.rts_threshold = None;
    cfg.flows = vec![cbr("u", 0, 1, 500, 40_000.0, 1.0)];
    let r = Simulation::new(cfg).unwrap().run();
    let f = &r.flows[0];
    println!("sent {} received {} drops {:?}", f.sent_packets, f.received_packets, r.audit.dropped);
    // 10 packets/s: about 19 s of connectivity from 1 s.
    assert!((185..=195).contains(&f.received_packets), "{}", f.received_packets);
    assert!(r.audit.dropped.get("RET").copied().unwrap_or(0) > 0, "the rest are lost to MAC retries");
    assert!(r.audit.balances());
}
