//! The reference static chain and its throughput table: the basis of the
//! "expected throughput" of a mobile TCP flow (Holland and Vaidya, MobiCom
//! 1999, tcp-manet-elfn.txt section 4.1: the throughput a flow would get if
//! it spent each second on a static chain as long as its route).
//!
//! Setup: nodes 200 m apart, one TCP bulk flow from node 0 to node `hops`,
//! 1460-byte segments, maximum window 8, static shortest-path routes,
//! 10 s warm-up. The `chain` study (crate `manetlab-studies`) runs the same
//! configuration against the paper's figure 1.

use super::runner;
use crate::config::{FlowConfig, SimConfig, Traffic};
use crate::phy::CaptureRule;
use crate::sim::Time;
use crate::transport::tcp::{DataSource, TcpConfig, TcpVariant};

/// Longest chain of the table.
pub const HOPS: u32 = 10;
/// TCP segment size of the reference chain, bytes.
pub const MSS: u32 = 1460;

/// The run config of one point of the chain.
pub fn config(hops: u32, seed: u64, duration: Time, rule: CaptureRule) -> SimConfig {
    let mut cfg = SimConfig {
        seed,
        duration,
        warmup: Time::from_secs(10),
        nodes: SimConfig::chain_positions(hops as usize + 1, 200.0),
        ..SimConfig::default()
    };
    cfg.radio.capture_rule = rule;
    let tcp = TcpConfig {
        mss: MSS,
        max_window: 8,
        variant: TcpVariant::Reno,
        record_series: false,
        record_seq_log: false,
        ..TcpConfig::default()
    };
    cfg.flows = vec![FlowConfig {
        name: format!("tcp-{hops}hop"),
        src: 0,
        dst: hops,
        traffic: Traffic::Tcp { tcp, data: DataSource::Bulk },
        start: Time::ZERO,
        stop: None,
    }];
    cfg
}

/// A fixed 64-bit FNV-1a hash (stable across Rust versions and machines).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The i-hop chain throughput table (bit/s, i = 1..=HOPS) for the radio,
/// MAC, queue and TCP settings of `like`: the basis of expected throughput.
/// Static chain, 200 m spacing, bulk TCP, `seeds` seeds of `duration` each.
/// Cached in `cache_dir` under a hash of the settings: computed once per
/// distinct setting, recomputed when any of them differs.
pub fn table(like: &SimConfig, tcp: &TcpConfig, cache_dir: &std::path::Path, seeds: u64, duration: Time) -> Vec<f64> {
    let mut tcp = tcp.clone();
    tcp.record_series = false;
    tcp.record_seq_log = false;
    let key_text = format!(
        "v1 {:?} {:?} {:?} {:?} {:?} seeds={seeds} duration={}",
        like.radio,
        like.mac,
        like.queue,
        like.arp,
        tcp,
        duration.as_ns()
    );
    let path = cache_dir.join(format!("chain-table-{:016x}.json", fnv1a(&key_text)));
    if let Ok(text) = std::fs::read_to_string(&path) {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
            if v["settings"] == key_text.as_str() {
                if let Some(t) = v["bps"].as_array().map(|a| a.iter().filter_map(|x| x.as_f64()).collect::<Vec<_>>()) {
                    if t.len() == HOPS as usize {
                        return t;
                    }
                }
            }
        }
    }
    let mut configs = Vec::new();
    for hops in 1..=HOPS {
        for s in 1..=seeds {
            let mut c = config(hops, s, duration, like.radio.capture_rule);
            c.radio = like.radio.clone();
            c.mac = like.mac.clone();
            c.queue = like.queue.clone();
            c.arp = like.arp.clone();
            if let Traffic::Tcp { tcp: t, .. } = &mut c.flows[0].traffic {
                *t = tcp.clone();
            }
            configs.push(c);
        }
    }
    let reports = runner::run_all(configs, &|_, _| {}).expect("chain configs are valid");
    let t: Vec<f64> = reports
        .chunks(seeds as usize)
        .map(|rs| rs.iter().map(|r| r.flows[0].goodput_bps).sum::<f64>() / rs.len() as f64)
        .collect();
    let _ = std::fs::create_dir_all(cache_dir);
    let json = serde_json::json!({ "settings": key_text, "bps": t });
    let tmp = path.with_extension("tmp");
    if std::fs::write(&tmp, json.to_string()).is_ok() {
        let _ = std::fs::rename(&tmp, &path);
    }
    t
}
