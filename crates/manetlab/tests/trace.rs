//! Packet-fate tracing: one packet's journey over two hops, drop reasons,
//! END drops at the end of the run.

mod common;
use common::*;
use manetlab::config::SimConfig;
use manetlab::sim::Time;

#[test]
fn one_packet_over_two_hops() {
    let mut cfg = base(SimConfig::chain_positions(3, 200.0), 2);
    cfg.flows = vec![cbr("u", 2, 0, 500, 8.0 * 500.0 / 10.0, 1.0)]; // one packet every 10 s: exactly one
    let (r, lines) = traced(cfg);
    let first: Vec<String> = lines
        .iter()
        .filter(|l| l.contains(" 0 cbr "))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            format!("{} {} {}", f[0], f[2], f[3])
        })
        .collect();
    assert_eq!(
        first,
        vec!["s _2_ AGT", "s _2_ RTR", "s _2_ MAC", "r _1_ MAC", "f _1_ RTR", "s _1_ MAC", "r _0_ MAC", "r _0_ AGT"],
        "{lines:#?}"
    );
    assert_eq!(r.audit.delivered, 1);
}

#[test]
fn queue_overflow_and_end_of_run_are_traced_with_reasons() {
    let mut cfg = base(SimConfig::chain_positions(3, 200.0), 3);
    cfg.flows = vec![cbr("u", 2, 0, 1400, 5e6, 0.5)];
    let (r, lines) = traced(cfg);
    let ifq = lines.iter().filter(|l| l.starts_with("D ") && l.contains(" IFQ IFQ ")).count() as u64;
    let end = lines.iter().filter(|l| l.starts_with("D ") && l.contains(" END ")).count() as u64;
    assert_eq!(Some(&ifq), r.audit.dropped.get("IFQ"), "IFQ drops traced = counted");
    let held: u64 = r.audit.held_at_end.values().sum();
    assert_eq!(end, held, "every packet held at the end is traced as END");
    assert!(r.audit.balances());
    let _ = Time::ZERO;
}

#[test]
fn tcp_time_sequence_log_records_network_drops() {
    use manetlab::config::Traffic;
    use manetlab::phy::CaptureRule;
    use manetlab::study::chain_table as chain;
    use manetlab::transport::tcp::SeqEvent;
    let mut cfg = chain::config(4, 1, Time::from_secs(100), CaptureRule::Ns2);
    if let Traffic::Tcp { tcp, .. } = &mut cfg.flows[0].traffic {
        tcp.record_seq_log = true;
    }
    let (report, trace) = manetlab::study::runner::run_with_tcp_trace(cfg, 0).unwrap();
    let t = trace.unwrap();
    let dropped = t.seq.iter().filter(|r| r.event == SeqEvent::Dropped).count() as u64;
    let tcp = report.flows[0].tcp.clone().unwrap();
    println!("dropped {dropped}, retransmissions {}", tcp.retransmissions);
    assert!(dropped > 0, "a 4-hop chain loses data segments");
    // Every dropped segment is sent again (timeouts may resend more).
    assert!(dropped <= tcp.retransmissions + 8);
}
