//! ELFN end to end (tcp-manet-elfn.txt §6) on `scenarios/elfn-break.toml`:
//! a 4-hop chain whose middle relay switches its radio off for a while.
//! The relay's upstream neighbour detects the break and its route error
//! (DSR) / RERR (AODV) carries the notice back to the TCP source, which
//! probes every P instead of backing off; compared with plain Reno on the
//! same scenario and seeds.

use manetlab::config::Traffic;
use manetlab::scenario::Scenario;
use manetlab::sim::Time;
use manetlab::transport::tcp::{SeqEvent, TcpSummary, TcpTrace};
use manetlab::Simulation;
use std::path::PathBuf;

const OFF_AT: f64 = 10.0;
const END: f64 = 60.0;

struct Run {
    trace: TcpTrace,
    tcp: TcpSummary,
    routing_events: std::collections::BTreeMap<String, u64>,
}

fn run(protocol: &str, elfn: bool, seed: u64, on_at: f64) -> Run {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/elfn-break.toml");
    let mut sets =
        vec![format!("routing.protocol={protocol}"), format!("flow.0.elfn={elfn}"), format!("event.1.at={on_at}s")];
    if protocol == "aodv" {
        // Link-layer detection only (ns-2's AODV): the break is found by the
        // next packet node 1 fails to send, whose RERR carries the notice.
        // With HELLOs too, a relay whose TCP is in RTO backoff at 10 s loses
        // the neighbour by HELLO first, and that RERR carries no notice.
        sets.push("routing.link_detection=mac".into());
    }
    let sc = Scenario::load(&path, &sets).unwrap();
    let mut cfg = sc.config(seed);
    if let Traffic::Tcp { tcp, .. } = &mut cfg.flows[0].traffic {
        tcp.record_seq_log = true;
    }
    let mut sim = Simulation::new(cfg).unwrap();
    sim.run_in_steps(1, |_, _| {});
    let trace = sim.tcp_trace(0).unwrap();
    let r = sim.finish();
    assert!(r.audit.balances(), "{:?}", r.audit);
    let tcp = r.flows[0].tcp.clone().unwrap();
    Run { trace, tcp, routing_events: r.routing.events.clone() }
}

fn secs(t: f64) -> Time {
    Time::from_secs_f64(t)
}

fn times(t: &TcpTrace, ev: SeqEvent, from: f64, to: f64) -> Vec<f64> {
    t.seq
        .iter()
        .filter(|r| r.event == ev && r.time >= secs(from) && r.time < secs(to))
        .map(|r| r.time.as_secs_f64())
        .collect()
}

/// Cumulative ACK point at `t`.
fn acked_at(t: &TcpTrace, at: f64) -> u64 {
    t.seq.iter().filter(|r| r.event == SeqEvent::Acked && r.time <= secs(at)).map(|r| r.seq).max().unwrap_or(0)
}

/// Goodput (bit/s) acknowledged from `from` to the end of the run.
fn goodput_after(t: &TcpTrace, from: f64) -> f64 {
    (acked_at(t, END) - acked_at(t, from)) as f64 * 8.0 / (END - from)
}

/// First ACK that moves the ACK point after `t`.
fn first_ack_after(tr: &TcpTrace, t: f64) -> f64 {
    times(tr, SeqEvent::Acked, t, END)[0]
}

#[test]
fn dsr_chain_elfn_probes_every_interval_instead_of_backing_off() {
    let on_at = 20.0;
    let reno = run("dsr", false, 1, on_at);
    let elfn = run("dsr", true, 1, on_at);
    // The notice arrives soon after the relay disappears, from node 1's
    // route error (the break is not at the source's own link).
    assert!(elfn.routing_events.get("elfn_notices_delivered").copied().unwrap_or(0) >= 1);
    let notices = times(&elfn.trace, SeqEvent::Notice, OFF_AT, on_at);
    assert!(!notices.is_empty() && notices[0] < OFF_AT + 0.5, "{notices:?}");
    // ELFN: from the notice until the route is back, only probes, exactly
    // 2 s apart; no timeout-driven retransmission.
    let route_back = first_ack_after(&elfn.trace, on_at);
    let probes = times(&elfn.trace, SeqEvent::Probe, OFF_AT, route_back);
    assert!(probes.len() >= 4, "{probes:?}");
    assert!((probes[0] - notices[0] - 2.0).abs() < 1e-9, "first probe one interval after the notice");
    for w in probes.windows(2) {
        assert!((w[1] - w[0] - 2.0).abs() < 1e-9, "{probes:?}");
    }
    assert!(times(&elfn.trace, SeqEvent::Retransmitted, notices[0], route_back).is_empty());
    assert_eq!(
        elfn.tcp.elfn_probes as usize,
        probes.len() + times(&elfn.trace, SeqEvent::Probe, route_back, END).len()
    );
    assert!(elfn.tcp.elfn_standby_s >= route_back - notices[0] - 1e-6);
    // Plain Reno over the same outage (until its route is back):
    // retransmissions at doubling intervals.
    let reno_back = first_ack_after(&reno.trace, on_at);
    let rtx = times(&reno.trace, SeqEvent::Retransmitted, OFF_AT, reno_back);
    assert!(rtx.len() >= 3, "{rtx:?}");
    for w in rtx.windows(3) {
        let (a, b) = (w[1] - w[0], w[2] - w[1]);
        assert!(b > 1.8 * a, "backoff doubles: {rtx:?}");
    }
    assert!(reno.tcp.timeouts >= 3);
    // Both resume when DSR rediscovers the route; DSR's own request backoff
    // (ns-2's 0.5 s x 4^k up to 10 s, kept per target until a reply) sets
    // that moment, so ELFN resumes within one probe interval of Reno.
    assert!(route_back <= reno_back + 2.0, "ELFN {route_back} vs Reno {reno_back}");
    // Measured goodput after restoration (see docs/tcp.md): seed 1 114 vs
    // 136 kbit/s, 3-seed means 107 vs 115 kbit/s (DSR with ns-2's request
    // backoff and no route learning at the destination).
    // Goodput after restoration, 3-seed means (one seed on this chain is
    // dominated by which hidden-terminal losses break the route).
    let (mut g_e, mut g_r) = (goodput_after(&elfn.trace, on_at), goodput_after(&reno.trace, on_at));
    println!("DSR seed 1: ELFN {g_e:.0} vs Reno {g_r:.0} bit/s, back at {route_back:.2} vs {reno_back:.2} s");
    for seed in 2..=3 {
        g_e += goodput_after(&run("dsr", true, seed, on_at).trace, on_at);
        g_r += goodput_after(&run("dsr", false, seed, on_at).trace, on_at);
    }
    let (g_e, g_r) = (g_e / 3.0, g_r / 3.0);
    println!("DSR 3 seeds: ELFN {g_e:.0} vs Reno {g_r:.0} bit/s");
    assert!(g_e >= 0.9 * g_r, "ELFN {g_e} vs Reno {g_r}");
}

#[test]
fn aodv_chain_elfn_resumes_sooner_than_backed_off_reno() {
    // AODV: the source's rediscovery starts with the first packet after the
    // RERR (its discovery gives up after RREQ_RETRIES and drops what it
    // buffered), so TCP's own timing decides when it tries again.
    for on_at in [20.0, 25.0] {
        let (mut ge, mut gr, mut be, mut br) = (0.0, 0.0, 0.0, 0.0);
        for seed in 1..=3 {
            let reno = run("aodv", false, seed, on_at);
            let elfn = run("aodv", true, seed, on_at);
            assert!(elfn.routing_events.get("elfn_notices_sent").copied().unwrap_or(0) >= 1);
            assert!(elfn.tcp.elfn_probes >= 1 && elfn.tcp.elfn_standbys >= 1, "{:?}", elfn.tcp);
            // probes 2 s apart through the outage
            let back = first_ack_after(&elfn.trace, on_at);
            let probes = times(&elfn.trace, SeqEvent::Probe, OFF_AT, back);
            assert!(probes.windows(2).all(|w| (w[1] - w[0] - 2.0).abs() < 1e-9), "{probes:?}");
            ge += goodput_after(&elfn.trace, on_at);
            gr += goodput_after(&reno.trace, on_at);
            be += back;
            br += first_ack_after(&reno.trace, on_at);
        }
        // Measured (3 seeds; docs/tcp.md): outage to 20 s: goodput after it
        // 214 vs 109 kbit/s, first new ACK at 21.3 s vs 39.2 s; outage to
        // 25 s: 148 vs 124 kbit/s, 34.8 s vs 39.2 s. A probe that waits in
        // the source's buffer cannot beat AODV's pending discovery (its
        // RREQ backoff), so ELFN does not always resume within P.
        println!(
            "outage until {on_at}: ELFN {:.0} vs Reno {:.0} bit/s, back at {:.2} vs {:.2} s",
            ge / 3.0,
            gr / 3.0,
            be / 3.0,
            br / 3.0
        );
        assert!(ge >= gr, "outage until {on_at}: ELFN {} vs Reno {} bit/s", ge / 3.0, gr / 3.0);
        assert!(be < br, "outage until {on_at}: ELFN resumes at {} vs Reno {}", be / 3.0, br / 3.0);
    }
}

#[test]
fn elfn_scenario_keys() {
    let base =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/elfn-break.toml"))
            .unwrap();
    let sc = Scenario::parse(
        &base,
        "elfn-break.toml",
        &["flow.0.elfn_restore=cwnd1-rto", "flow.0.elfn_probe_packet=lost", "flow.0.elfn_probe=0.5s"],
    )
    .unwrap();
    let Traffic::Tcp { tcp, .. } = &sc.config(1).flows[0].traffic else { panic!() };
    let e = tcp.elfn.unwrap();
    assert_eq!(e.probe_interval, Time::from_ms(500));
    assert_eq!(format!("{:?} {:?}", e.restore, e.probe), "Cwnd1Rto LowestLost");
    let off = Scenario::parse(&base, "elfn-break.toml", &["flow.0.elfn=false"]).unwrap();
    let Traffic::Tcp { tcp, .. } = &off.config(1).flows[0].traffic else { panic!() };
    assert_eq!(tcp.elfn, None, "elfn = false keeps the variant keys but turns ELFN off");
    for (set, msg) in [("flow.0.elfn_restore=\"half\"", "elfn_restore"), ("flow.0.elfn_probe=0s", "greater than zero")]
    {
        let e = Scenario::parse(&base, "elfn-break.toml", &[set]).unwrap_err().to_string();
        assert!(e.contains(msg), "{set}: {e}");
    }
    let stray = base.replace("elfn = true\n", "");
    let e = Scenario::parse(&stray, "x.toml", &[] as &[&str]).unwrap_err().to_string();
    assert!(e.contains("has no effect without 'flow.0.elfn = true'"), "{e}");
    let cbr = "[run]\nduration = \"5s\"\n[topology]\nkind = \"chain\"\nnodes = 2\nspacing = \"100m\"\n[[flow]]\nsrc = 0\ndst = 1\ntype = \"cbr\"\npacket_size = \"100B\"\nrate = \"8kbps\"\nelfn = true\n";
    let e = Scenario::parse(cbr, "x.toml", &[] as &[&str]).unwrap_err().to_string();
    assert!(e.contains("'flow.0.elfn' is not used by type = \"cbr\""), "{e}");
}
