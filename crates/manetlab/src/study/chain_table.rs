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

/// Version of the cache file format (bumped when the file's layout or the
/// meaning of its numbers changes).
const CACHE_FORMAT: u32 = 2;

/// The cached table in `path` if it is intact and was computed for exactly
/// `settings` (which name the binary, see [`table`]); else why not.
fn load_cached(path: &std::path::Path, settings: &str) -> Result<Vec<f64>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    super::sweep::unseal(&text)?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    if v["format"] != CACHE_FORMAT {
        return Err(format!("format {} (this build reads {CACHE_FORMAT})", v["format"]));
    }
    if v["settings"] != settings {
        return Err("computed for other settings or another build".into());
    }
    let t: Vec<f64> = v["bps"].as_array().ok_or("no bps")?.iter().filter_map(|x| x.as_f64()).collect();
    if t.len() != HOPS as usize || !t.iter().all(|x| x.is_finite() && *x >= 0.0) {
        return Err("malformed table".into());
    }
    Ok(t)
}

/// Writes the cache file through a temporary file of this process and
/// thread (synced, then renamed over the target): concurrent processes
/// sharing `$MANETLAB_CACHE` (sweep shards) never see half a file, and two
/// that compute the same table at once write identical files.
fn store_cached(path: &std::path::Path, settings: &str, t: &[f64]) -> std::io::Result<()> {
    use std::io::Write;
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let json = serde_json::json!({ "format": CACHE_FORMAT, "settings": settings, "bps": t }).to_string();
    let text = super::sweep::seal(&json);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("chain-table");
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = path.with_file_name(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// The cache file name of a table for `settings`.
pub fn cache_file(settings: &str) -> String {
    format!("chain-table-{:016x}.json", fnv1a(settings))
}

/// The i-hop chain throughput table (bit/s, i = 1..=HOPS) for the radio,
/// MAC, queue and TCP settings of `like`: the basis of expected throughput.
/// Static chain, 200 m spacing, bulk TCP, `seeds` seeds of `duration` each.
///
/// Cached in `cache_dir` (`$MANETLAB_CACHE`) under a hash of everything
/// the numbers depend on: the binary ([`super::sweep::binary_version`]:
/// the chain's own setup is code), the radio, MAC, queue, ARP and TCP
/// settings, the seeds and the duration. The file holds those settings in
/// full, a format version and a CRC-32; a file that does not match all
/// three (edited, damaged, from another build) is reported on standard
/// error and the table computed again, so results never depend on a stale
/// or tampered cache. Written atomically (see `store_cached`).
pub fn table(like: &SimConfig, tcp: &TcpConfig, cache_dir: &std::path::Path, seeds: u64, duration: Time) -> Vec<f64> {
    table_with_progress(like, tcp, cache_dir, seeds, duration, &|_, _| {})
}

/// [`table`], calling `progress(done, total)` as the chain runs finish
/// when the table is computed (not at all when it is loaded from the cache).
pub fn table_with_progress(
    like: &SimConfig,
    tcp: &TcpConfig,
    cache_dir: &std::path::Path,
    seeds: u64,
    duration: Time,
    progress: super::Progress,
) -> Vec<f64> {
    let mut tcp = tcp.clone();
    tcp.record_series = false;
    tcp.record_seq_log = false;
    let key_text = format!(
        "{} | {:?} {:?} {:?} {:?} {:?} seeds={seeds} duration={}",
        super::sweep::binary_version(),
        like.radio,
        like.mac,
        like.queue,
        like.arp,
        tcp,
        duration.as_ns()
    );
    let path = cache_dir.join(cache_file(&key_text));
    match load_cached(&path, &key_text) {
        Ok(t) => return t,
        Err(why) if path.exists() => {
            eprintln!("warning: {}: {why}; computing the chain table again", path.display());
        }
        Err(_) => {}
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
    let reports = runner::run_all(configs, progress).expect("chain configs are valid");
    let t: Vec<f64> = reports
        .chunks(seeds as usize)
        .map(|rs| rs.iter().map(|r| r.flows[0].goodput_bps).sum::<f64>() / rs.len() as f64)
        .collect();
    let _ = std::fs::create_dir_all(cache_dir);
    if let Err(e) = store_cached(&path, &key_text, &t) {
        eprintln!("warning: {}: {e}; the chain table is not cached", path.display());
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edited_or_damaged_cache_file_is_recomputed_not_used() {
        let dir = std::env::temp_dir().join(format!("manetlab-chain-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let like = config(1, 1, Time::from_secs(11), crate::phy::CaptureRule::Ns2);
        let Traffic::Tcp { tcp, .. } = &like.flows[0].traffic else { unreachable!() };
        let d = Time::from_secs(11);
        let first = table(&like, tcp, &dir, 1, d);
        assert!(first[0] > 100e3, "{first:?}");
        let files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(files.len(), 1, "one file, no temporary left: {files:?}");
        let text = std::fs::read_to_string(&files[0]).unwrap();
        assert!(text.contains("\"format\":2") && text.contains(&super::super::sweep::binary_version()));
        // Halve the 1-hop figure (the reproducer of D15): detected, recomputed.
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let one = v["bps"][0].as_f64().unwrap();
        let edited = text.replacen(&format!("{one}"), &format!("{}", one / 2.0), 1);
        assert_ne!(edited, text);
        std::fs::write(&files[0], edited).unwrap();
        assert_eq!(table(&like, tcp, &dir, 1, d), first);
        assert_eq!(std::fs::read_to_string(&files[0]).unwrap(), text, "rewritten intact");
        // A truncated file too.
        std::fs::write(&files[0], &text[..text.len() / 2]).unwrap();
        assert_eq!(table(&like, tcp, &dir, 1, d), first);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
