//! Diagnostic for the gupta study's "UDP through the server" variant
//! (static routes, UDP pinned through node 84): relative TCP goodput of
//! FQ-src and FQ-dst (and 802.11 (7,4)) per seed, the UDP the server
//! forwards and the ACKs' share of the server's DATA frames.
//!
//! `cargo run --release --example gupta_pinned -- 30 1 10` (duration,
//! first seed, seeds); `CASE=2` for case 2, `SCHEMES=default,retry,fq-src,fq-dst`,
//! `TIE=1` to leave the corner clients on the static tables' tie-rule paths
//! (along the edges and the UDP paths) instead of diagonals.
use manetlab::net::routing::RoutingConfig;
use manetlab::queue::ClassKey;
use manetlab::sim::Time;
use manetlab_studies::gupta::{self, Case, Outcome, Routes, Scheme};
use rayon::prelude::*;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let dur: u64 = a.get(1).and_then(|s| s.parse().ok()).unwrap_or(30);
    let first: u64 = a.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let n: u64 = a.get(3).and_then(|s| s.parse().ok()).unwrap_or(3);
    let case = if std::env::var("CASE").as_deref() == Ok("2") { Case::OpenSide } else { Case::Encircle };
    let schemes: Vec<Scheme> = std::env::var("SCHEMES")
        .unwrap_or_else(|_| "default,fq-src,fq-dst".into())
        .split(',')
        .map(|s| match s {
            "default" => Scheme::Default,
            "retry" => Scheme::Retry,
            "fq-src" => Scheme::Fq(ClassKey::Src),
            "fq-dst" => Scheme::Fq(ClassKey::Dst),
            other => panic!("unknown scheme {other}"),
        })
        .collect();
    let seeds: Vec<u64> = (first..first + n).collect();
    let mut jobs = Vec::new();
    for &sd in &seeds {
        for s in [Scheme::Default, Scheme::Retry] {
            jobs.push((sd, false, s));
        }
        for &s in &schemes {
            jobs.push((sd, true, s));
        }
    }
    let t = std::time::Instant::now();
    let out: Vec<Outcome> = jobs
        .par_iter()
        .map(|&(sd, udp, s)| {
            let mut cfg = gupta::config_with(s, case, udp, sd, Time::from_secs(dur), Routes::Pinned);
            if std::env::var("TIE").is_ok() {
                // Clients on the static tables' tie-rule paths; only UDP pinned.
                cfg.routing = RoutingConfig::Static { paths: (0..2).map(|j| case.udp_path(j)).collect() };
            }
            Outcome::measure(&cfg).unwrap()
        })
        .collect();
    println!("{} runs in {:.1} s", jobs.len(), t.elapsed().as_secs_f64());
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let sd_of = |v: &[f64]| {
        let m = mean(v);
        (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() as f64 - 1.0).max(1.0)).sqrt()
    };
    let pick = |udp: bool, s: Scheme| -> Vec<&Outcome> {
        jobs.iter().zip(&out).filter(|((_, u, js), _)| *u == udp && *js == s).map(|(_, o)| o).collect()
    };
    let init = |s: Scheme| mean(&pick(false, s).iter().map(|o| o.tcp_bps()).collect::<Vec<_>>());
    let (init_d, init_r) = (init(Scheme::Default), init(Scheme::Retry));
    println!(
        "case {case:?} {dur} s seeds {seeds:?}; pinned initial (7,4) {:.1}, (21,12) {:.1} kbit/s",
        init_d / 1e3,
        init_r / 1e3
    );
    let mut rels = Vec::new();
    for &s in &schemes {
        let base = if s == Scheme::Default { init_d } else { init_r };
        let rows = pick(true, s);
        let rel: Vec<f64> = rows.iter().map(|o| 100.0 * o.tcp_bps() / base).collect();
        let ack: Vec<f64> = rows.iter().map(|o| o.ack_share()).collect();
        let fwd: Vec<f64> = rows.iter().map(|o| o.server_forwarded as f64).collect();
        let udp: Vec<f64> = rows.iter().map(|o| o.udp_delivered.iter().sum::<u64>() as f64).collect();
        println!(
            "{:<8} {:5.1} +- {:4.1} %  per seed {:?}\n         ACK share {:.1}% {:?}; server UDP fwd {:.0}; UDP delivered {:.0}; server frames [tcp, udp, other] {:?}",
            s.id(),
            mean(&rel),
            sd_of(&rel),
            rel.iter().map(|x| x.round()).collect::<Vec<_>>(),
            mean(&ack),
            ack.iter().map(|x| x.round()).collect::<Vec<_>>(),
            mean(&fwd),
            mean(&udp),
            rows.iter().map(|o| o.server_frames).collect::<Vec<_>>()
        );
        let per_client: Vec<f64> = (0..gupta::CLIENTS.len())
            .map(|c| (mean(&rows.iter().map(|o| o.client_bps[c] / 1e3).collect::<Vec<_>>()) * 10.0).round() / 10.0)
            .collect();
        println!("         per client kbit/s (clients {:?}): {per_client:?}", gupta::CLIENTS);
        rels.push((s, rel));
    }
    let get = |k| rels.iter().find(|(s, _)| *s == Scheme::Fq(k)).map(|(_, r)| r.clone());
    if let (Some(a), Some(b)) = (get(ClassKey::Src), get(ClassKey::Dst)) {
        let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| y - x).collect();
        println!(
            "FQ dst - FQ src: {:.1} +- {:.1} points (se {:.1}); FQ dst ahead in {} of {}",
            mean(&d),
            sd_of(&d),
            sd_of(&d) / (d.len() as f64).sqrt(),
            d.iter().filter(|x| **x > 0.0).count(),
            d.len()
        );
    }
}
