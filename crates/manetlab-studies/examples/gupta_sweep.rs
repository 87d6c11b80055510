//! Diagnostic for the gupta study (issue 7): relative TCP goodput of a few
//! schemes over seeds, with the AODV HELLO settings and the drop-tail
//! control-packet rule overridable from the environment, to see what moves
//! the FQ-src / FQ-dst ordering.
//!
//! `cargo run --release --example gupta_sweep -- 30 1 3` (duration, first
//! seed, seeds). Environment: `HELLO_MS`, `HELLO_LOSS` (AODV HELLO interval
//! and allowed loss), `SCHEMES` (comma list of default, retry, fq-src,
//! fq-dst, bp-src), `CASE=2`.
use manetlab::net::routing::RoutingConfig;
use manetlab::queue::{ClassKey, Knowledge};
use manetlab::sim::Time;
use manetlab::{SimConfig, Simulation};
use manetlab_studies::gupta::{self, Case, Outcome, Scheme};
use rayon::prelude::*;

fn scheme(s: &str) -> Scheme {
    match s {
        "default" => Scheme::Default,
        "retry" => Scheme::Retry,
        "fq-src" => Scheme::Fq(ClassKey::Src),
        "fq-dst" => Scheme::Fq(ClassKey::Dst),
        "bp-src" => Scheme::Bp { key: ClassKey::Src, k: 1, knowledge: Knowledge::Oracle },
        "bp-dst" => Scheme::Bp { key: ClassKey::Dst, k: 1, knowledge: Knowledge::Oracle },
        "tdma-fifo" => Scheme::Tdma { fq: false },
        "tdma-fq" => Scheme::Tdma { fq: true },
        other => panic!("unknown scheme {other}"),
    }
}

fn env<T: std::str::FromStr>(k: &str) -> Option<T> {
    std::env::var(k).ok().and_then(|v| v.parse().ok())
}

fn tweak(mut cfg: SimConfig) -> SimConfig {
    if let RoutingConfig::Aodv(a) = &mut cfg.routing {
        if let Some(ms) = env::<u64>("HELLO_MS") {
            a.hello_interval = Time::from_ms(ms);
        }
        if let Some(n) = env::<u32>("HELLO_LOSS") {
            a.allowed_hello_loss = n;
        }
    }
    cfg
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let dur: u64 = a.get(1).and_then(|s| s.parse().ok()).unwrap_or(30);
    let first: u64 = a.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let n: u64 = a.get(3).and_then(|s| s.parse().ok()).unwrap_or(3);
    let case = if env::<u32>("CASE") == Some(2) { Case::OpenSide } else { Case::Encircle };
    let names: String = std::env::var("SCHEMES").unwrap_or_else(|_| "retry,fq-src,fq-dst".into());
    let schemes: Vec<Scheme> = names.split(',').map(scheme).collect();
    let seeds: Vec<u64> = (first..first + n).collect();
    let mut jobs = Vec::new();
    for &sd in &seeds {
        jobs.push((None, sd, false, Scheme::Retry));
        if schemes.contains(&Scheme::Default) {
            jobs.push((None, sd, false, Scheme::Default));
        }
        if schemes.iter().any(|s| matches!(s, Scheme::Tdma { .. })) {
            jobs.push((None, sd, false, Scheme::Tdma { fq: false }));
        }
        for &s in &schemes {
            jobs.push((Some(s), sd, true, s));
        }
    }
    let full: Vec<(Outcome, [f64; 3])> = jobs
        .par_iter()
        .map(|&(_, sd, udp, s)| {
            let cfg = tweak(gupta::config(s, case, udp, sd, Time::from_secs(dur)));
            let r = Simulation::new(cfg).unwrap().run();
            if udp && sd == first && std::env::var("DUMP").is_ok() {
                for nr in r.nodes.iter().filter(|nr| nr.forwarded + nr.originated > 0) {
                    println!(
                        "{} node {}: orig {} fwd {} deliv {} drops {:?} routing {:?}",
                        s.id(),
                        nr.id,
                        nr.originated,
                        nr.forwarded,
                        nr.delivered,
                        nr.drops,
                        nr.routing.events
                    );
                }
                for f in &r.flows {
                    println!("  {} sent {} recv {}", f.name, f.sent_packets, f.received_packets);
                }
            }
            let ev =
                |n: usize, k: &str| r.nodes.get(n).and_then(|x| x.routing.events.get(k).copied()).unwrap_or(0) as f64;
            let extra = [
                r.nodes.get(gupta::SERVER as usize).map_or(0.0, |x| x.forwarded as f64),
                ev(80, "neighbours_lost") + ev(32, "neighbours_lost"),
                ev(80, "route_discoveries") + ev(32, "route_discoveries"),
            ];
            (Outcome::of(&r), extra)
        })
        .collect();
    let out: Vec<Outcome> = full.iter().map(|(o, _)| o.clone()).collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let init = |s: Scheme| {
        let v: Vec<f64> = jobs
            .iter()
            .zip(&out)
            .filter(|((w, _, udp, js), _)| w.is_none() && !udp && *js == s)
            .map(|(_, o)| o.tcp_bps())
            .collect();
        mean(&v)
    };
    let (init_r, init_d, init_t) = (init(Scheme::Retry), init(Scheme::Default), init(Scheme::Tdma { fq: false }));
    println!("case {:?} {dur} s seeds {seeds:?}; initial (21,12) {:.1} kbit/s", case, init_r / 1e3);
    for &s in &schemes {
        let base = match s {
            Scheme::Default => init_d,
            Scheme::Tdma { .. } => init_t,
            _ => init_r,
        };
        let rows: Vec<&Outcome> = jobs.iter().zip(&out).filter(|((w, ..), _)| *w == Some(s)).map(|(_, o)| o).collect();
        let rel: Vec<f64> = rows.iter().map(|o| 100.0 * o.tcp_bps() / base).collect();
        let udp: Vec<f64> = rows.iter().map(|o| o.udp_delivered.iter().sum::<u64>() as f64).collect();
        let ex: Vec<[f64; 3]> =
            jobs.iter().zip(&full).filter(|((w, ..), _)| *w == Some(s)).map(|(_, (_, e))| *e).collect();
        let exm = |i: usize| mean(&ex.iter().map(|e| e[i]).collect::<Vec<_>>());
        println!(
            "{:<14} mean {:5.1}%  per seed {:?}  UDP delivered {:.0}; server fwd {:.0}, src nb lost {:.1}, src RREQ {:.1}",
            s.id(),
            mean(&rel),
            rel.iter().map(|x| (x * 10.0).round() / 10.0).collect::<Vec<_>>(),
            mean(&udp),
            exm(0),
            exm(1),
            exm(2)
        );
        println!("    server fwd per seed {:?}", ex.iter().map(|e| e[0]).collect::<Vec<_>>());
    }
}
