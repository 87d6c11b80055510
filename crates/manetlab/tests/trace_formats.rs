//! Trace files end to end: ns-2 text (new and classic formats) and pcap
//! (parsed back here, and by tshark when it is installed).

mod common;
use common::*;
use manetlab::config::{FlowConfig, SimConfig, Traffic};
use manetlab::mac::FrameKind;
use manetlab::metrics::trace::{
    self, FrameDir, FrameEvent, Ns2Format, PacketEvent, PcapMode, PcapSink, Tee, TraceOptions, TraceSink,
};
use manetlab::metrics::trace_pcap::crc32;
use manetlab::net::NodeId;
use manetlab::sim::Time;
use manetlab::transport::tcp::{DataSource, TcpConfig};
use manetlab::{Report, Simulation};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A fresh, empty directory for one test's files.
fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("manetlab-trace-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// What the simulation handed to the sinks, for comparison with the files.
#[derive(Default)]
struct Seen {
    /// Every transmission in order: (node, kind, IP size of the packet carried).
    tx: Vec<(NodeId, FrameKind, Option<u32>)>,
    /// Frames decoded, per node.
    rx: HashMap<NodeId, usize>,
}

struct Counter(Arc<Mutex<Seen>>);

impl TraceSink for Counter {
    fn packet(&mut self, _: &PacketEvent) {}
    fn frame(&mut self, ev: &FrameEvent) {
        let mut s = self.0.lock().unwrap();
        match ev.dir {
            FrameDir::Tx => s.tx.push((ev.node, ev.frame.kind, ev.frame.packet.map(|p| p.size))),
            FrameDir::Rx => *s.rx.entry(ev.node).or_default() += 1,
            FrameDir::Lost(_) => {}
        }
    }
}

/// Runs `cfg` with the trace files of `opts` written to `dir`, plus a counter.
fn run_traced(cfg: SimConfig, opts: TraceOptions, dir: &Path) -> (Report, Seen) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let files = trace::open(dir, &opts, &cfg.nodes).unwrap().expect("tracing is on");
    let mut sim = Simulation::new(cfg).unwrap();
    sim.set_tracer(Box::new(Tee(vec![files, Box::new(Counter(seen.clone()))])));
    let r = sim.run();
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    (r, seen)
}

fn ns2(format: Ns2Format) -> TraceOptions {
    TraceOptions { ns2: Some(format), pcap: None }
}

/// One ns-2 new-format line as flag -> value (the event is under "ev").
fn fields(line: &str) -> HashMap<&str, &str> {
    let mut it = line.split_whitespace();
    let mut m = HashMap::from([("ev", it.next().unwrap())]);
    while let (Some(k), Some(v)) = (it.next(), it.next()) {
        assert!(k.starts_with('-'), "flag expected, got {k:?} in {line}");
        m.insert(k, v);
    }
    m
}

fn one_packet_chain() -> SimConfig {
    let mut cfg = base(SimConfig::chain_positions(3, 200.0), 2);
    cfg.flows = vec![cbr("u", 2, 0, 500, 8.0 * 500.0 / 10.0, 1.0)]; // one packet every 10 s: exactly one
    cfg
}

#[test]
fn ns2_new_format_lines_of_a_two_hop_packet() {
    let dir = scratch_dir("ns2-new");
    let (r, _) = run_traced(one_packet_chain(), ns2(Ns2Format::New), &dir);
    assert_eq!(r.audit.delivered, 1);
    let text = std::fs::read_to_string(dir.join("trace.tr")).unwrap();
    let lines: Vec<HashMap<&str, &str>> =
        text.lines().map(fields).filter(|f| f["-It"] == "cbr" && f["-Ii"] == "0").collect();
    let got: Vec<String> =
        lines.iter().map(|f| format!("{} {} {} {}", f["ev"], f["-Ni"], f["-Nl"], f["-Il"])).collect();
    assert_eq!(
        got,
        [
            "s 2 AGT 508", // UDP header + 500 B payload
            "s 2 RTR 528", // + IP header
            "s 2 MAC 564", // + 802.11 header, LLC/SNAP, FCS
            "r 1 MAC 564",
            "f 1 RTR 528",
            "s 1 MAC 564",
            "r 0 MAC 564",
            "r 0 AGT 508",
        ],
        "{text}"
    );
    let col = |flag: &str| lines.iter().map(|f| f[flag]).collect::<Vec<_>>().join(" ");
    assert_eq!(col("-Hs"), col("-Ni"));
    assert_eq!(col("-Hd"), "-2 1 1 1 0 0 0 0");
    assert_eq!(col("-Nx"), "400.00 400.00 400.00 200.00 200.00 200.00 0.00 0.00");
    assert_eq!(col("-Md"), "0 0 1 1 1 0 0 0");
    assert_eq!(col("-Ms"), "0 0 2 2 2 1 1 1");
    assert_eq!(col("-Mt"), "0 0 800 800 800 800 800 800");
    assert_eq!(col("-Is"), ["2.10000"; 8].join(" "));
    assert_eq!(col("-Id"), ["0.10000"; 8].join(" "));
    assert_eq!(col("-Iv"), "64 64 64 64 63 63 63 63");
    assert_eq!(col("-Pf"), "0 0 0 1 1 1 2 2");
    assert_eq!(col("-Pi"), "0 0 0 0 0 0 0 0");
    assert!(lines.iter().all(|f| f["-Ne"] == "-1.000000" && f["-Nw"] == "---" && f["-If"] == "0"));
    // The NAV of a DATA frame at 2 Mbit/s: SIFS + ACK = 10 + 192 + 56 us = 0x102.
    assert_eq!(lines[2]["-Ma"], "102");
    assert_eq!(lines[0]["-t"], "1.000000000");
    // Times never decrease, and RTS/CTS/ACK exchanges are traced.
    let times: Vec<f64> = text.lines().map(|l| fields(l)["-t"].parse().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    for kind in ["RTS", "CTS", "ACK"] {
        assert_eq!(text.matches(&format!("-It {kind} ")).count(), 4, "two hops: 2 sent + 2 received {kind}s");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ns2_old_format_lines() {
    let dir = scratch_dir("ns2-old");
    run_traced(one_packet_chain(), ns2(Ns2Format::Old), &dir);
    let text = std::fs::read_to_string(dir.join("trace.tr")).unwrap();
    let cbr: Vec<&str> = text.lines().filter(|l| l.contains(" cbr ")).collect();
    assert_eq!(cbr.len(), 8, "{text}");
    assert_eq!(cbr[0], "s 1.000000000 _2_ AGT  --- 0 cbr 508 [0 0 0 0] ------- [2:10000 0:10000 64 0] [0] 0 0");
    assert!(cbr[4].starts_with("f ") && cbr[4].contains(" _1_ RTR  --- 0 cbr 528 [102 1 2 800] "), "{}", cbr[4]);
    assert!(cbr[7].starts_with("r ") && cbr[7].ends_with("[2:10000 0:10000 63 0] [0] 2 0"), "{}", cbr[7]);
    assert!(text.lines().any(|l| l.contains(" _2_ MAC  --- 0 RTS 20 [")), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The classic awk one-liner, in Rust: per flow, count `s` and `r` events at
/// the AGT layer and compare with the report; count IFQ drops and END drops.
#[test]
fn awk_style_delivery_per_flow_matches_the_report() {
    let dir = scratch_dir("ns2-awk");
    let mut cfg = base(SimConfig::chain_positions(3, 200.0), 6);
    cfg.flows = vec![cbr("heavy", 2, 0, 1000, 3e6, 0.5), cbr("light", 0, 2, 200, 50e3, 0.2)];
    let (r, _) = run_traced(cfg, ns2(Ns2Format::New), &dir);
    let text = std::fs::read_to_string(dir.join("trace.tr")).unwrap();
    let mut sent: HashMap<u32, u64> = HashMap::new();
    let mut recv: HashMap<u32, u64> = HashMap::new();
    let mut drops: HashMap<String, u64> = HashMap::new();
    for line in text.lines() {
        let f = fields(line);
        if f["-Nl"] == "AGT" {
            let flow: u32 = f["-If"].parse().unwrap();
            match f["ev"] {
                "s" => *sent.entry(flow).or_default() += 1,
                "r" => *recv.entry(flow).or_default() += 1,
                e => panic!("unexpected {e} at AGT: {line}"),
            }
        }
        if f["ev"] == "d" && f["-It"] == "cbr" && f["-Nl"] != "MAC" {
            *drops.entry(f["-Nw"].to_string()).or_default() += 1;
        }
    }
    for (i, fl) in r.flows.iter().enumerate() {
        let i = i as u32;
        assert_eq!(sent.get(&i).copied().unwrap_or(0), fl.sent_packets, "flow {i} sent");
        assert_eq!(recv.get(&i).copied().unwrap_or(0), fl.received_packets + fl.duplicates, "flow {i} received");
    }
    assert!(r.flows[0].delivery_ratio.unwrap() < 0.9, "the heavy flow saturates the chain");
    assert!(drops["IFQ"] > 0);
    assert_eq!(Some(&drops["IFQ"]), r.audit.dropped.get("IFQ"));
    assert_eq!(drops.get("END").copied().unwrap_or(0), r.audit.held_at_end.values().sum::<u64>());
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------
// pcap

/// A UDP flow one way and a TCP flow the other over a 2-hop chain, RTS/CTS on.
fn mixed_chain(secs: u64) -> SimConfig {
    let mut cfg = base(SimConfig::chain_positions(3, 200.0), secs);
    cfg.mac.phy = dsss(11.0, 1.0);
    let tcp = TcpConfig { record_series: false, record_seq_log: false, ..TcpConfig::default() };
    cfg.flows = vec![
        cbr("udp", 2, 0, 700, 400e3, 0.1),
        FlowConfig {
            name: "tcp".into(),
            src: 0,
            dst: 2,
            traffic: Traffic::Tcp { tcp, data: DataSource::Bulk },
            start: Time::from_ms(200),
            stop: None,
        },
    ];
    cfg
}

/// One record of a capture, checked on the way.
struct Rec {
    ts_ns: u64,
    /// Radiotap "present" word.
    present: u32,
    kind: FrameKind,
    /// IP total length and protocol (DATA frames).
    ip: Option<(u16, u8)>,
    /// Radiotap Rate field, 500 kbit/s units.
    rate: u8,
}

fn u16le(b: &[u8]) -> u16 {
    u16::from_le_bytes([b[0], b[1]])
}
fn u32le(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}
fn u16be(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}

fn checksum_ok(bytes: &[u8]) -> bool {
    let mut acc: u32 = bytes.chunks(2).map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32).sum();
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc == 0xffff
}

/// Parses a capture written by `PcapSink`, checking every header it meets.
fn parse_pcap(path: &Path) -> Vec<Rec> {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(b.len() >= 24, "{}: no global header", path.display());
    assert_eq!(u32le(&b[0..]), 0xa1b2_3c4d, "nanosecond magic");
    assert_eq!((u16le(&b[4..]), u16le(&b[6..])), (2, 4), "version 2.4");
    let snaplen = u32le(&b[16..]);
    assert_eq!(u32le(&b[20..]), 127, "LINKTYPE_IEEE802_11_RADIOTAP");
    let mut at = 24;
    let mut out = Vec::new();
    while at < b.len() {
        assert!(at + 16 <= b.len(), "truncated record header");
        let ts_ns = u32le(&b[at..]) as u64 * 1_000_000_000 + u32le(&b[at + 4..]) as u64;
        assert!(u32le(&b[at + 4..]) < 1_000_000_000);
        let (incl, orig) = (u32le(&b[at + 8..]) as usize, u32le(&b[at + 12..]) as usize);
        assert_eq!(incl, orig, "nothing snapped");
        assert!(incl as u32 <= snaplen);
        let rec = &b[at + 16..at + 16 + incl];
        at += 16 + incl;
        // Radiotap.
        assert_eq!((rec[0], rec[1]), (0, 0), "radiotap version 0");
        let rt_len = u16le(&rec[2..]) as usize;
        let present = u32le(&rec[4..]);
        let want_len = if present & (1 << 5) != 0 { 23 } else { 22 };
        assert_eq!(present & !(1 << 5), 0b1111, "TSFT, Flags, Rate, Channel");
        assert_eq!(rt_len, want_len);
        assert_eq!(rec[16], 0x10, "Flags: FCS at the end");
        let (mac, fcs) = rec[rt_len..].split_at(rec.len() - rt_len - 4);
        assert_eq!(fcs, crc32(mac).to_le_bytes(), "FCS");
        let (fc0, fc1) = (mac[0], mac[1]);
        assert_eq!(fc0 & 3, 0, "protocol version 0");
        assert_eq!(fc1 & 0x03, 0, "To/From DS 0 in an IBSS");
        let (kind, len_ok) = match (fc0 >> 2 & 3, fc0 >> 4) {
            (1, 11) => (FrameKind::Rts, mac.len() == 16), // + FCS: the simulator's 20 bytes
            (1, 12) => (FrameKind::Cts, mac.len() == 10),
            (1, 13) => (FrameKind::Ack, mac.len() == 10),
            (2, 0) => (FrameKind::Data, mac.len() >= 24 + 8 + 20),
            t => panic!("unexpected frame type {t:?}"),
        };
        assert!(len_ok, "{kind:?} of {} bytes", mac.len());
        let mut ip_info = None;
        if kind == FrameKind::Data {
            assert_eq!(&mac[24..32], &[0xaa, 0xaa, 3, 0, 0, 0, 8, 0], "LLC/SNAP for IPv4");
            let ip = &mac[32..];
            assert_eq!(ip[0], 0x45);
            assert!(checksum_ok(&ip[..20]), "IPv4 header checksum");
            let total = u16be(&ip[2..]);
            assert_eq!(total as usize, ip.len(), "IP total length = bytes after LLC/SNAP");
            let proto = ip[9];
            match proto {
                17 => assert_eq!(u16be(&ip[24..]) as usize, ip.len() - 20, "UDP length"),
                6 => assert_eq!(ip[32] >> 4, 5, "TCP data offset"),
                p => panic!("IP protocol {p}"),
            }
            ip_info = Some((total, proto));
        }
        out.push(Rec { ts_ns, present, kind, ip: ip_info, rate: rec[17] });
    }
    assert!(out.windows(2).all(|w| w[0].ts_ns <= w[1].ts_ns), "records in time order");
    out
}

#[test]
fn pcap_merged_holds_every_transmission_once() {
    let dir = scratch_dir("pcap-merged");
    let opts = TraceOptions { ns2: None, pcap: Some(PcapMode::Merged) };
    let (r, seen) = run_traced(mixed_chain(3), opts, &dir);
    assert!(r.flows.iter().all(|f| f.received_packets > 10), "{:?}", r.flows);
    let recs = parse_pcap(&dir.join(PcapSink::MERGED_FILE_NAME));
    assert_eq!(recs.len(), seen.tx.len());
    for (rec, (_, kind, size)) in recs.iter().zip(&seen.tx) {
        assert_eq!(rec.kind, *kind);
        assert_eq!(rec.ip.map(|(len, _)| len as u32), *size, "IP total length = packet size");
        assert_eq!(rec.present & (1 << 5), 0, "no signal on transmissions");
    }
    let udp = recs.iter().filter(|r| matches!(r.ip, Some((_, 17)))).count();
    let tcp = recs.iter().filter(|r| matches!(r.ip, Some((_, 6)))).count();
    assert!(udp > 0 && tcp > 0, "udp {udp} tcp {tcp}");
    assert!(recs.iter().any(|r| r.kind == FrameKind::Rts));
    if let Some(t) = Tshark::find() {
        t.check(&dir.join(PcapSink::MERGED_FILE_NAME), recs.len(), udp, tcp);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pcap_rate_field_is_each_frames_rate_under_rate_control() {
    // Minstrel samples several rates: the radiotap Rate of each DATA frame
    // is its own, and the capture's DATA frames per rate equal the nodes'
    // per-rate attempt counters; control frames stay at the 1 Mbit/s basic rate.
    let dir = scratch_dir("pcap-rates");
    let mut cfg = mixed_chain(3);
    cfg.mac.rate_control = manetlab::mac::RateControlKind::Minstrel;
    let opts = TraceOptions { ns2: None, pcap: Some(PcapMode::Merged) };
    let (r, _) = run_traced(cfg, opts, &dir);
    let recs = parse_pcap(&dir.join(PcapSink::MERGED_FILE_NAME));
    let mut by_rate: Vec<(u8, u64)> = Vec::new();
    for rec in recs.iter().filter(|r| r.kind == FrameKind::Data) {
        match by_rate.iter_mut().find(|(x, _)| *x == rec.rate) {
            Some(e) => e.1 += 1,
            None => by_rate.push((rec.rate, 1)),
        }
    }
    by_rate.sort();
    let mut counted: Vec<(u8, u64)> = Vec::new();
    for n in &r.nodes {
        for c in n.data_rates.as_ref().unwrap() {
            let units = (c.rate_mbps * 2.0).round() as u8;
            match counted.iter_mut().find(|(x, _)| *x == units) {
                Some(e) => e.1 += c.attempts,
                None => counted.push((units, c.attempts)),
            }
        }
    }
    counted.sort();
    assert!(by_rate.len() >= 3, "DATA rates in the capture: {by_rate:?}");
    assert_eq!(by_rate, counted);
    assert!(recs.iter().filter(|r| r.kind != FrameKind::Data).all(|r| r.rate == 2), "control frames at 1 Mbit/s");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pcap_per_node_holds_what_each_node_sent_and_decoded() {
    let dir = scratch_dir("pcap-per-node");
    let opts = TraceOptions { ns2: Some(Ns2Format::New), pcap: Some(PcapMode::PerNode) };
    let (_, seen) = run_traced(mixed_chain(2), opts, &dir);
    assert!(dir.join("trace.tr").exists());
    for node in 0..3u32 {
        let path = dir.join(PcapSink::node_file_name(node));
        let recs = parse_pcap(&path);
        let tx = seen.tx.iter().filter(|t| t.0 == node).count();
        let rx = seen.rx.get(&node).copied().unwrap_or(0);
        assert_eq!(recs.len(), tx + rx, "node {node}");
        assert_eq!(recs.iter().filter(|r| r.present & (1 << 5) != 0).count(), rx, "received frames carry a signal");
        if let Some(t) = Tshark::find() {
            let udp = recs.iter().filter(|r| matches!(r.ip, Some((_, 17)))).count();
            let tcp = recs.iter().filter(|r| matches!(r.ip, Some((_, 6)))).count();
            t.check(&path, recs.len(), udp, tcp);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn per_node_files_exist_for_silent_nodes_and_many_nodes() {
    // More nodes than per-node files kept open: the chunked writer reopens them.
    let dir = scratch_dir("pcap-many");
    let mut cfg = base(SimConfig::chain_positions(200, 200.0), 1);
    cfg.flows = vec![cbr("u", 0, 199, 1000, 2e6, 0.0)];
    let opts = TraceOptions { ns2: None, pcap: Some(PcapMode::PerNode) };
    let (_, seen) = run_traced(cfg, opts, &dir);
    for node in 0..200u32 {
        let recs = parse_pcap(&dir.join(PcapSink::node_file_name(node)));
        let tx = seen.tx.iter().filter(|t| t.0 == node).count();
        assert_eq!(recs.len(), tx + seen.rx.get(&node).copied().unwrap_or(0), "node {node}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// tshark, when installed: dissects a capture and reports what it found.
struct Tshark {
    /// The checksum-validation preferences this tshark knows (their names
    /// changed across Wireshark versions), with the status column each one
    /// turns on.
    validate: Vec<(&'static str, &'static str)>,
}

impl Tshark {
    fn find() -> Option<Tshark> {
        let ok = std::process::Command::new("tshark").arg("--version").output().is_ok_and(|o| o.status.success());
        if !ok {
            println!("tshark not found: skipping the Wireshark dissection check");
            return None;
        }
        let prefs = std::process::Command::new("tshark").args(["-G", "defaultprefs"]).output().expect("tshark -G");
        let prefs = String::from_utf8_lossy(&prefs.stdout);
        let known = |name: &str| prefs.lines().any(|l| l.trim_start_matches('#').split(':').next() == Some(name));
        let validate = [
            ("ip.check_checksum", "ip.checksum.status"),
            ("udp.check_checksum", "udp.checksum.status"),
            ("tcp.check_checksum", "tcp.checksum.status"),
            // The 802.11 FCS: "wlan.check_checksum" in Wireshark 4.0.
            ("wlan.check_checksum", "wlan.fcs.status"),
        ]
        .into_iter()
        .filter(|(p, _)| known(p))
        .collect();
        Some(Tshark { validate })
    }

    /// Asserts tshark reads `file` with no malformed packet, no expert error
    /// and no bad checksum, and sees the expected number of frames, UDP
    /// datagrams and TCP segments.
    fn check(&self, file: &Path, frames: usize, udp: usize, tcp: usize) {
        let mut cmd = std::process::Command::new("tshark");
        cmd.args(["-n", "-r"]).arg(file).args(["-T", "fields", "-E", "separator=|"]);
        for (pref, _) in &self.validate {
            cmd.args(["-o", &format!("{pref}:TRUE")]);
        }
        cmd.args(["-e", "wlan.fc.type_subtype", "-e", "udp.srcport", "-e", "tcp.srcport"]);
        cmd.args(["-e", "_ws.malformed", "-e", "_ws.expert.severity"]);
        for (_, field) in &self.validate {
            cmd.args(["-e", field]);
        }
        let out = cmd.output().expect("running tshark");
        let text = String::from_utf8_lossy(&out.stdout);
        let f = file.display();
        assert!(out.status.success(), "tshark failed on {f}: {}", String::from_utf8_lossy(&out.stderr));
        let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('|').collect()).collect();
        assert_eq!(rows.len(), frames, "frames tshark read from {f}");
        let count = |col: usize| rows.iter().filter(|r| !r[col].is_empty()).count();
        assert_eq!(count(1), udp, "UDP datagrams tshark saw in {f}");
        assert_eq!(count(2), tcp, "TCP segments tshark saw in {f}");
        assert_eq!(count(3), 0, "malformed packets in {f}:\n{text}");
        // Expert infos of severity "error" (Wireshark's 0x00800000) would mean
        // a broken header; notes and warnings (TCP analysis) are expected.
        let errors = rows.iter().filter(|r| r[4].split(',').any(|s| s == "8388608")).count();
        assert_eq!(errors, 0, "expert errors in {f}:\n{text}");
        // Checksum status 1 = good (0 bad, 2 unverified).
        for (i, (_, field)) in self.validate.iter().enumerate() {
            let want = match *field {
                "udp.checksum.status" => udp,
                "tcp.checksum.status" => tcp,
                "ip.checksum.status" => udp + tcp,
                _ => frames,
            };
            let good = rows.iter().filter(|r| r[5 + i] == "1").count();
            assert_eq!(good, want, "{field} good in {f}:\n{text}");
        }
        let expert = std::process::Command::new("tshark")
            .args(["-n", "-q", "-r"])
            .arg(file)
            .args(["-z", "expert"])
            .output()
            .expect("running tshark -z expert");
        let report = String::from_utf8_lossy(&expert.stdout);
        assert!(!report.contains("Malformed"), "tshark expert report for {f}:\n{report}");
        let checked: Vec<&str> = self.validate.iter().map(|(_, s)| *s).collect();
        println!("tshark: {f}: {frames} frames, {udp} UDP, {tcp} TCP, nothing malformed; good: {checked:?}");
    }
}

/// A 3-node chain, flow 2 -> 0; node 0's radio goes off at 1.5 s, so node 1's
/// frames to it hit the retry limit.
fn retry_limit_chain(routing: manetlab::net::routing::RoutingConfig) -> SimConfig {
    use manetlab::config::{NodeAction, NodeEvent};
    let mut cfg = base(SimConfig::chain_positions(3, 200.0), 4);
    cfg.routing = routing;
    cfg.flows = vec![cbr("u", 2, 0, 500, 8.0 * 500.0 * 4.0, 1.0)];
    cfg.node_events = vec![NodeEvent { node: 0, at: Time::from_ms(1500), action: NodeAction::RadioOff }];
    cfg
}

/// ns-2's MAC traces `D ... MAC ... RET` for every frame that reaches the
/// retry limit, whatever routing then does with the packet (AODV and DSR get
/// a copy through the transmit-failure callback), so awk scripts that count
/// retry drops see them under every routing protocol, in the same layout as
/// with static routes (where the RET drop is the packet's end).
#[test]
fn ns2_trace_has_a_mac_ret_drop_for_each_retry_limit_failure() {
    use manetlab::net::routing::aodv::{AodvConfig, LinkDetection};
    use manetlab::net::routing::RoutingConfig;
    let shape = |l: &str| -> String {
        // Event, node, layer, reason, type, MAC header and IP fields, the
        // number of fields; not the time, uid, MAC duration or size (DSR's
        // carries its source route header).
        let f: Vec<&str> = l.split_whitespace().collect();
        assert!(l.contains(" MAC  RET "), "two spaces after the layer, as ns-2: {l}");
        format!(
            "{} {} {} {} {} [_ {} {} {} {} {} {} {} {} n={}",
            f[0],
            f[2],
            f[3],
            f[4],
            f[6],
            f[9],
            f[10],
            f[11],
            f[12],
            f[13],
            f[14],
            f[15],
            f[16],
            f.len()
        )
    };
    let mut shapes = Vec::new();
    for (name, routing) in [
        ("static", RoutingConfig::Static { paths: vec![] }),
        ("aodv", RoutingConfig::Aodv(AodvConfig { link_detection: LinkDetection::Mac, ..Default::default() })),
        ("dsr", RoutingConfig::Dsr(Default::default())),
    ] {
        let dir = scratch_dir(&format!("ns2-ret-{name}"));
        let (r, _) = run_traced(retry_limit_chain(routing), ns2(Ns2Format::Old), &dir);
        let text = std::fs::read_to_string(dir.join("trace.tr")).unwrap();
        let ret: Vec<&str> = text.lines().filter(|l| l.starts_with("D ") && l.contains(" MAC  RET ")).collect();
        println!(
            "{name}: {} RET lines, node 1 link failures {}; first: {:?}",
            ret.len(),
            r.nodes[1].link_failures,
            ret.first()
        );
        assert!(r.nodes[1].link_failures >= 1, "{name}");
        // One line per retry-limit failure (node 1 is the only sender that fails).
        assert_eq!(ret.len() as u64, r.nodes.iter().map(|n| n.link_failures).sum::<u64>(), "{name}");
        let data: Vec<&&str> = ret.iter().filter(|l| l.contains(" cbr ")).collect();
        assert!(!data.is_empty(), "{name}: a data frame reached the retry limit");
        shapes.push(shape(data[0]));
        let _ = std::fs::remove_dir_all(&dir);
    }
    println!("{shapes:#?}");
    assert!(shapes.iter().all(|s| s == &shapes[0]), "{shapes:#?}");
}
