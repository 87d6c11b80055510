//! Routing messages in traces: AODV, OLSR and DSDV in pcap as Wireshark
//! dissects them (checked with tshark; skipped with a message when tshark
//! is absent), and AODV's `-P aodv` section in the ns-2 trace.

mod common;
use common::*;
use manetlab::config::{Position, SimConfig};
use manetlab::metrics::trace::{self, Ns2Format, PcapMode, TraceOptions};
use manetlab::net::routing::{AodvConfig, DsdvConfig, OlsrConfig, RoutingConfig};
use manetlab::net::wired::{LinkConfig, WiredConfig};
use manetlab::sim::Time;
use manetlab::Simulation;
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("manetlab-rtrace-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A 4-node chain (0 - 1 - 2 - 3, 200 m), 64-byte CBR 0 -> 3 from 3 s.
fn chain(routing: RoutingConfig, secs: u64) -> SimConfig {
    let mut cfg = base(SimConfig::chain_positions(4, 200.0), secs);
    cfg.flows = vec![cbr("c", 0, 3, 64, 2048.0, 3.0)];
    cfg.routing = routing;
    cfg
}

fn run_traced(cfg: SimConfig, opts: TraceOptions, dir: &Path) {
    let sink = trace::open(dir, &opts, &cfg.nodes).unwrap().expect("tracing on");
    let mut sim = Simulation::new(cfg).unwrap();
    sim.set_tracer(sink);
    let r = sim.run();
    assert!(r.audit.balances());
}

/// tshark's rows (fields split on '|') for frames matching `filter`; None
/// when tshark is not installed.
fn tshark(file: &Path, filter: &str, fields: &[&str]) -> Option<Vec<Vec<String>>> {
    if !Command::new("tshark").arg("--version").output().is_ok_and(|o| o.status.success()) {
        println!("tshark not found: skipping the Wireshark dissection check");
        return None;
    }
    let mut cmd = Command::new("tshark");
    cmd.args(["-n", "-r"]).arg(file).args(["-o", "udp.check_checksum:TRUE", "-Y", filter]);
    cmd.args(["-T", "fields", "-E", "separator=|"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("tshark");
    assert!(out.status.success(), "tshark: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    Some(text.lines().map(|l| l.split('|').map(str::to_string).collect()).collect())
}

fn merged(dir: &Path) -> PathBuf {
    dir.join(PcapSink::MERGED_FILE_NAME)
}
use manetlab::metrics::trace::PcapSink;

const PCAP: TraceOptions = TraceOptions { ns2: None, pcap: Some(PcapMode::Merged) };

#[test]
fn tshark_decodes_aodv_messages() {
    let dir = scratch_dir("aodv");
    run_traced(chain(RoutingConfig::Aodv(AodvConfig::default()), 8), PCAP, &dir);
    let fields = ["aodv.type", "aodv.dest_ip", "aodv.orig_ip", "aodv.hopcount", "udp.checksum.status", "_ws.malformed"];
    let Some(rows) = tshark(&merged(&dir), "aodv", &fields) else { return };
    let of = |t: &str| rows.iter().filter(|r| r[0] == t).collect::<Vec<_>>();
    let (rreq, rrep) = (of("1"), of("2"));
    println!("AODV frames: {} ({} RREQ, {} RREP incl. HELLO)", rows.len(), rreq.len(), rrep.len());
    assert!(!rreq.is_empty() && !rrep.is_empty());
    // The only route sought is to node 3 (10.0.0.4), by node 0 (10.0.0.1).
    assert!(rreq.iter().all(|r| r[1] == "10.0.0.4" && r[2] == "10.0.0.1"), "{rreq:?}");
    // The reply (from node 3, or from node 2 which knows node 3 from its
    // HELLOs) travels back to node 0 with growing hop counts.
    let replies: Vec<&Vec<String>> =
        rrep.iter().copied().filter(|r| r[1] == "10.0.0.4" && r[2] == "10.0.0.1").collect();
    let hops: Vec<&str> = replies.iter().map(|r| r[3].as_str()).collect();
    assert!(hops.contains(&"2") && hops.windows(2).all(|w| w[0] < w[1]), "{hops:?}");
    // HELLOs: RREPs with hop count 0 whose destination is their originator.
    assert!(rrep.iter().any(|r| r[3] == "0" && r[1] == r[2]));
    assert!(rows.iter().all(|r| r[4] == "1" && r[5].is_empty()), "good checksums, nothing malformed");
}

#[test]
fn tshark_decodes_olsr_messages() {
    let dir = scratch_dir("olsr");
    run_traced(chain(RoutingConfig::Olsr(OlsrConfig::default()), 15), PCAP, &dir);
    let fields = [
        "olsr.message_type",
        "olsr.origin_addr",
        "olsr.neighbor_addr",
        "olsr.ansn",
        "udp.checksum.status",
        "_ws.malformed",
    ];
    let Some(rows) = tshark(&merged(&dir), "olsr", &fields) else { return };
    let hellos: Vec<_> = rows.iter().filter(|r| r[0] == "1").collect();
    let tcs: Vec<_> = rows.iter().filter(|r| r[0] == "2").collect();
    println!("OLSR frames: {} HELLO, {} TC", hellos.len(), tcs.len());
    let mut origins: Vec<&str> = hellos.iter().map(|r| r[1].as_str()).collect();
    origins.sort();
    origins.dedup();
    assert_eq!(origins, ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]);
    // Node 1's HELLOs end up listing both its neighbours.
    assert!(hellos.iter().any(|r| r[1] == "10.0.0.2" && r[2].contains("10.0.0.1") && r[2].contains("10.0.0.3")));
    // TCs come from the MPRs (1 and 2: the middle of the chain) and
    // advertise their selectors.
    assert!(!tcs.is_empty());
    assert!(tcs.iter().all(|r| r[1] == "10.0.0.2" || r[1] == "10.0.0.3"), "{tcs:?}");
    assert!(rows.iter().all(|r| r[4] == "1" && r[5].is_empty()), "good checksums, nothing malformed");
}

#[test]
fn tshark_decodes_olsr_hna_messages() {
    // A 3-node chain whose end (node 2, 10.0.0.3) is the gateway of a
    // wired-only host (node 3, 10.0.0.4): its HNA messages announce
    // 10.0.0.4/32, and the middle node (its MPR) floods them on.
    let dir = scratch_dir("olsr-hna");
    let mut cfg = base(
        vec![Position::new(0.0, 0.0), Position::new(200.0, 0.0), Position::new(400.0, 0.0), Position::new(2000.0, 0.0)],
        15,
    );
    cfg.routing = RoutingConfig::Olsr(OlsrConfig::default());
    let link = LinkConfig { a: 2, b: 3, bandwidth_bps: 10_000_000, delay: Time::from_ms(5), queue: 50 };
    cfg.wired = WiredConfig { links: vec![link], wired_only: vec![3] };
    cfg.flows = vec![cbr("c", 0, 3, 64, 2048.0, 10.0)];
    run_traced(cfg, PCAP, &dir);
    let fields = ["olsr.message_type", "olsr.origin_addr", "olsr.network_addr", "olsr.netmask", "_ws.malformed"];
    let Some(rows) = tshark(&merged(&dir), "olsr.message_type == 4", &fields) else { return };
    println!("HNA frames: {rows:?}");
    assert!(rows.len() >= 2, "{rows:?}");
    assert!(
        rows.iter().all(|r| r[0] == "4" && r[1] == "10.0.0.3" && r[2] == "10.0.0.4" && r[3] == "255.255.255.255"),
        "{rows:?}"
    );
    assert!(rows.iter().all(|r| r[4].is_empty()), "nothing malformed");
}

#[test]
fn dsdv_updates_in_pcap_carry_their_entries() {
    let dir = scratch_dir("dsdv");
    run_traced(chain(RoutingConfig::Dsdv(DsdvConfig::default()), 20), PCAP, &dir);
    // Wireshark dissects UDP 269 (IANA "manet", RFC 5498) as PacketBB,
    // which DSDV is not: read the raw UDP payload.
    let fields = ["ip.src", "udp.length", "udp.payload", "udp.checksum.status", "_ws.malformed"];
    let Some(rows) = tshark(&merged(&dir), "udp.port == 269", &fields) else { return };
    println!("DSDV frames: {}", rows.len());
    assert!(rows.len() >= 8);
    for r in &rows {
        let len: usize = r[1].parse().unwrap();
        assert_eq!((len - 8) % 12, 0, "whole 12-byte entries");
        // The first entry is the sender itself, metric 0, an even number.
        let hex = r[2].replace(':', "");
        let ip: Vec<u8> = (0..4).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap()).collect();
        assert_eq!(format!("{}.{}.{}.{}", ip[0], ip[1], ip[2], ip[3]), r[0]);
        assert_eq!(&hex[8..16], "00000000", "own metric 0");
        assert_eq!(u32::from_str_radix(&hex[16..24], 16).unwrap() % 2, 0, "own sequence number even");
        assert_eq!(r[3], "1", "good checksum");
    }
}

#[test]
fn ns2_trace_shows_aodv_messages_and_unique_uids() {
    let dir = scratch_dir("ns2aodv");
    let opts = TraceOptions { ns2: Some(Ns2Format::New), pcap: None };
    run_traced(chain(RoutingConfig::Aodv(AodvConfig::default()), 8), opts, &dir);
    let text = std::fs::read_to_string(dir.join(trace::NS2_FILE_NAME)).unwrap();
    let aodv: Vec<&str> = text.lines().filter(|l| l.contains("-It AODV")).collect();
    let kind = |c: &str| aodv.iter().filter(|l| l.ends_with(&format!("-Pc {c}"))).count();
    println!("AODV lines: {} REQUEST, {} REPLY, {} HELLO", kind("REQUEST"), kind("REPLY"), kind("HELLO"));
    assert!(kind("REQUEST") > 0 && kind("REPLY") > 0 && kind("HELLO") > 0);
    assert_eq!(
        kind("REQUEST") + kind("REPLY") + kind("HELLO") + kind("ERROR"),
        aodv.len(),
        "every AODV line has -P aodv"
    );
    let req = aodv.iter().find(|l| l.ends_with("-Pc REQUEST")).unwrap();
    assert!(req.contains("-P aodv -Pt 0x2 -Ph 0 -Pb ") && req.contains(" -Pd 3 ") && req.contains(" -Ps 0 "), "{req}");
    // Each routing packet sent by a router has its own uid: no two RTR
    // sends of different originators or messages share one.
    let mut sends: Vec<(String, String)> = aodv
        .iter()
        .filter(|l| l.starts_with("s ") && l.contains("-Nl RTR"))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let at = |k: &str| f[f.iter().position(|x| *x == k).unwrap() + 1].to_string();
            (at("-Ii"), format!("{} {} {}", at("-Hs"), at("-Pt"), at("-Pd")))
        })
        .collect();
    sends.sort();
    for w in sends.windows(2) {
        if w[0].0 == w[1].0 {
            // The same uid again: the same message relayed (a RREP hop by hop).
            assert_eq!(w[0].1.split(' ').nth(1), w[1].1.split(' ').nth(1), "uid {} reused across messages", w[0].0);
        }
    }
    let hello_uids: std::collections::HashSet<&String> =
        sends.iter().filter(|(_, k)| k.contains(" 0x1 ")).map(|(u, _)| u).collect();
    let hellos = sends.iter().filter(|(_, k)| k.contains(" 0x1 ")).count();
    assert_eq!(hello_uids.len(), hellos, "every HELLO its own uid");
}

#[test]
fn tshark_decodes_dsr_options() {
    use manetlab::net::routing::DsrConfig;
    let fields = [
        "dsr.nexthdr",
        "dsr.option.type",
        "dsr.option.rreq.targetaddress",
        "dsr.option.srcrt.segsleft",
        "ip.src",
        "udp.checksum.status",
        "_ws.malformed",
    ];
    // With the defaults (ns-2.35's flow state) only a flow's first 3
    // packets show their source route; the others go without a DSR header:
    // 3 packets x 3 hops.
    let dir = scratch_dir("dsr-flow");
    run_traced(chain(RoutingConfig::Dsr(DsrConfig::default()), 6), PCAP, &dir);
    let Some(rows) = tshark(&merged(&dir), "dsr", &fields) else { return };
    let routed = rows.iter().filter(|r| r[0] == "0x11").count();
    assert_eq!(routed, 9, "{rows:?}");
    // Every data packet source-routed, to check the encoding of each.
    let dir = scratch_dir("dsr");
    let dsr = DsrConfig { flow_state: false, ..DsrConfig::default() };
    run_traced(chain(RoutingConfig::Dsr(dsr), 6), PCAP, &dir);
    let Some(rows) = tshark(&merged(&dir), "dsr", &fields) else { return };
    let has = |r: &Vec<String>, t: &str| r[1].split(',').any(|x| x == t);
    let rreq: Vec<_> = rows.iter().filter(|r| has(r, "1")).collect();
    let rrep: Vec<_> = rows.iter().filter(|r| has(r, "2")).collect();
    // tshark shows the next header in hex: 0x11 UDP, 0x3b no next header.
    let data: Vec<_> = rows.iter().filter(|r| r[0] == "0x11").collect();
    println!("DSR frames: {} ({} RREQ, {} RREP, {} data)", rows.len(), rreq.len(), rrep.len(), data.len());
    assert!(!rreq.is_empty() && !rrep.is_empty() && data.len() > 20, "{rows:?}");
    // Node 0 (10.0.0.1) looks for node 3 (10.0.0.4); control carries no
    // transport (next header 59).
    assert!(rreq.iter().all(|r| r[2] == "10.0.0.4" && r[0] == "0x3b"), "{rreq:?}");
    // Replies travel by source route (option 96 before the reply).
    assert!(rrep.iter().all(|r| r[1].starts_with("96")), "{rrep:?}");
    // Data: a Source Route option, then UDP with a good checksum; node 0's
    // packets leave with 2 segments left (0 -> 1 -> 2 -> 3).
    assert!(data.iter().all(|r| has(r, "96") && r[5] == "1"), "{data:?}");
    assert!(data.iter().any(|r| r[4] == "10.0.0.1" && r[3] == "2"), "{data:?}");
    assert!(rows.iter().all(|r| r[6].is_empty()), "nothing malformed");
}
