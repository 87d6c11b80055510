//! Fuzzing (proptest, stable Rust): scenario files through the parser, the
//! validator and a short run; ns-2 movement files through the reader and
//! trajectory evaluation. The seed corpus is every file in scenarios/,
//! mutated line by line with values that broke manetlab before (times near
//! 2^64 ns, 1 ns timers, huge counts and rates, wrong types, garbage).
//!
//! The default suite runs a bounded number of cases (about 2,000, a few
//! seconds); `scripts/fuzz.sh SECONDS` runs the same targets for longer
//! (`MANETLAB_FUZZ_CASES` multiplies the case counts) and reports counts.
//! A failing case is shrunk and printed by proptest. Properties: no panic,
//! every refusal has a location and no garbled wording, no case over 10 s
//! (a watchdog thread saves and prints the input of a case still running
//! after 10 s and fails the process, so a hang cannot stall a round), and
//! the process's peak memory during every case stays under 1 GB (the peak
//! is reset before each case through /proc/self/clear_refs and read after
//! it; the largest is printed).

use manetlab::mobility::ns2::parse_script;
use manetlab::scenario::Scenario;
use manetlab::sim::{Position, Time};
use manetlab::Simulation;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::path::Path;
use std::time::Instant;

/// Wall-time limit per case (`MANETLAB_FUZZ_CASE_SECS`, default 10 s).
fn case_limit() -> f64 {
    std::env::var("MANETLAB_FUZZ_CASE_SECS").ok().and_then(|v| v.parse().ok()).unwrap_or(10.0)
}

/// Peak memory per case, GB of resident set.
const CASE_MEMORY_KB: u64 = 1 << 20;

type Running = std::sync::Mutex<std::collections::HashMap<std::thread::ThreadId, (Instant, f64, String)>>;

fn running() -> &'static Running {
    static RUNNING: std::sync::OnceLock<Running> = std::sync::OnceLock::new();
    RUNNING.get_or_init(|| {
        // The watchdog: a case over the limit is saved and the process
        // fails at once (a hang would otherwise stall the round).
        std::thread::spawn(|| loop {
            std::thread::sleep(std::time::Duration::from_millis(250));
            let map = running().lock().unwrap_or_else(|e| e.into_inner());
            // A case past twice its limit (and a second) is hung: a slower
            // one that ends is failed by `guarded` itself.
            if let Some((t, limit, input)) = map.values().find(|(t, l, _)| t.elapsed().as_secs_f64() > 2.0 * l + 1.0) {
                let path = std::env::temp_dir().join(format!("manetlab-fuzz-slow-{}.txt", std::process::id()));
                let _ = std::fs::write(&path, input);
                eprintln!(
                    "fuzz: a case ran {:.1} s (limit {limit} s); input saved to {}:\n{input}",
                    t.elapsed().as_secs_f64(),
                    path.display()
                );
                std::process::exit(3);
            }
        });
        Default::default()
    })
}

/// The process's peak resident set (kB) since the last reset, if known.
fn peak_rss_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()
}

static MAX_CASE_RSS_KB: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
/// The longest case so far, microseconds of wall time.
static MAX_CASE_US: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The per-target closing lines `scripts/fuzz.sh` reads: peak memory and
/// the longest case.
fn report_limits() {
    eprintln!(
        "fuzz: peak memory during a case at most {} MB",
        MAX_CASE_RSS_KB.load(std::sync::atomic::Ordering::Relaxed) >> 10
    );
    eprintln!("fuzz: longest case {} ms", MAX_CASE_US.load(std::sync::atomic::Ordering::Relaxed) / 1000);
}

/// Runs one case under the watchdog and the memory accounting.
fn guarded<T>(input: &str, f: impl FnOnce() -> Result<T, TestCaseError>) -> Result<T, TestCaseError> {
    guarded_within(case_limit(), input, f)
}

fn guarded_within<T>(
    limit: f64,
    input: &str,
    f: impl FnOnce() -> Result<T, TestCaseError>,
) -> Result<T, TestCaseError> {
    let me = std::thread::current().id();
    // Writing 5 resets the peak resident set (Linux 4.0+).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    running().lock().unwrap_or_else(|e| e.into_inner()).insert(me, (Instant::now(), limit, input.to_string()));
    let r = f();
    let (started, ..) = running().lock().unwrap_or_else(|e| e.into_inner()).remove(&me).expect("registered");
    let secs = started.elapsed().as_secs_f64();
    MAX_CASE_US.fetch_max((secs * 1e6) as u64, std::sync::atomic::Ordering::Relaxed);
    prop_assert!(secs < limit, "case took {secs:.1} s:\n{input}");
    if let Some(kb) = peak_rss_kb() {
        MAX_CASE_RSS_KB.fetch_max(kb, std::sync::atomic::Ordering::Relaxed);
        prop_assert!(kb < CASE_MEMORY_KB, "peak memory {} MB during the case:\n{input}", kb >> 10);
    }
    r
}

fn scale() -> u32 {
    std::env::var("MANETLAB_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1).max(1)
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config { cases: cases * scale(), failure_persistence: None, ..Config::default() })
}

fn corpus() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut v: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    v.sort();
    assert!(v.len() >= 10, "seed corpus: {} files", v.len());
    v
}

/// Values that broke manetlab once, or sit on a bound.
const VALUES: &[&str] = &[
    "\"0s\"",
    "\"1ns\"",
    "\"9ms\"",
    "\"18446744073s\"",
    "\"18446744073.709551615s\"",
    "\"1000000s\"",
    "\"1000001s\"",
    "\"1e9s\"",
    "\"1e-9s\"",
    "\"-1s\"",
    "\"1e6Mbps\"",
    "\"1e-9bps\"",
    "\"1Gbps\"",
    "\"0bps\"",
    "\"1e9m/s\"",
    "\"0m/s\"",
    "\"0B\"",
    "\"4294967296B\"",
    "\"1e30m\"",
    "\"-5m\"",
    "\"nanm\"",
    "\"x\"",
    "\"\"",
    "\"../../etc/passwd\"",
    "\"/dev/zero\"",
    "0",
    "1",
    "-1",
    "255",
    "65535",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "1e308",
    "nan",
    "inf",
    "true",
    "[]",
    "[\"1s\", \"2s\"]",
    "[[0, 1], [1, 0]]",
    "{}",
];

#[derive(Clone, Debug)]
enum Mutation {
    /// Replace the value of line `i` (if it is `key = value`).
    Value(usize, usize),
    /// Delete line `i`.
    Delete(usize),
    /// Duplicate line `i`.
    Duplicate(usize),
    /// Insert text at byte `i` (clamped to a char boundary).
    Insert(usize, String),
    /// Swap the values of two lines.
    Swap(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        6 => (any::<usize>(), 0..VALUES.len()).prop_map(|(i, v)| Mutation::Value(i, v)),
        1 => any::<usize>().prop_map(Mutation::Delete),
        1 => any::<usize>().prop_map(Mutation::Duplicate),
        1 => (any::<usize>(), "[ -~\n\\[\\]\"=.]{0,12}").prop_map(|(i, s)| Mutation::Insert(i, s)),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
    ]
}

fn mutate(text: &str, muts: &[Mutation]) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    for m in muts {
        if lines.is_empty() {
            lines.push(String::new());
        }
        let n = lines.len();
        match m {
            Mutation::Value(i, v) => {
                let l = &mut lines[i % n];
                if let Some(eq) = l.find('=') {
                    if !l.trim_start().starts_with('[') {
                        *l = format!("{}= {}", &l[..eq], VALUES[*v]);
                    }
                }
            }
            Mutation::Delete(i) => {
                lines.remove(i % n);
            }
            Mutation::Duplicate(i) => {
                let l = lines[i % n].clone();
                lines.insert(i % n, l);
            }
            Mutation::Insert(i, s) => {
                let l = &mut lines[i % n];
                let mut at = i % (l.len() + 1);
                while !l.is_char_boundary(at) {
                    at -= 1;
                }
                l.insert_str(at, s);
            }
            Mutation::Swap(a, b) => {
                let (a, b) = (a % n, b % n);
                let va = lines[a].split_once('=').map(|x| x.1.to_string());
                let vb = lines[b].split_once('=').map(|x| x.1.to_string());
                if let (Some(va), Some(vb)) = (va, vb) {
                    let ka = lines[a].split_once('=').unwrap().0.to_string();
                    let kb = lines[b].split_once('=').unwrap().0.to_string();
                    lines[a] = format!("{ka}={vb}");
                    lines[b] = format!("{kb}={va}");
                }
            }
        }
    }
    lines.join("\n")
}

/// A refusal must locate itself and read as English.
fn check_message(e: &manetlab::scenario::ScenarioError, text: &str) -> Result<(), TestCaseError> {
    let m = e.to_string();
    prop_assert!(e.line().is_some() || e.override_arg().is_some() || !m.is_empty(), "{m}");
    for garbled in ["expected a string, got string", "got got", "expected expected"] {
        prop_assert!(!m.contains(garbled), "garbled message: {m}\n--- input:\n{text}");
    }
    Ok(())
}

static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Runs a checked scenario briefly: 50 ms simulated after the first flow
/// starts, the first seed.
fn short_run(text: &str, origin: &str) -> Result<(), TestCaseError> {
    let Ok(full) = Scenario::parse(text, origin, &[] as &[&str]) else { return Ok(()) };
    let cfg = full.config(full.seed());
    let first = cfg.flows.iter().map(|f| f.start).min().unwrap_or(Time::ZERO).min(Time::from_secs(100));
    let until = first + Time::from_ms(50);
    let dur = format!("run.duration={}ns", until.as_ns());
    let short = [dur.as_str(), "run.warmup=0s"];
    let Ok(sc) = Scenario::parse(text, origin, &short) else { return Ok(()) };
    let cfg = sc.config(sc.seed());
    RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if let Ok(mut sim) = Simulation::new(cfg) {
        sim.run_until(until);
        let r = sim.finish();
        prop_assert!(r.audit.balances(), "audit does not balance: {:?}\n--- input:\n{text}", r.audit);
    }
    Ok(())
}

fn scenario_cases(cases: u32, run: bool) -> u64 {
    let corpus = corpus();
    // Runs take one mutation at most (most mutations are refused).
    let strategy = (0..corpus.len(), prop::collection::vec(mutation(), if run { 0..2 } else { 1..4 }));
    let n = std::cell::Cell::new(0u64);
    runner(cases)
        .run(&strategy, |(k, muts)| {
            let (name, text) = &corpus[k];
            let text = mutate(text, &muts);
            guarded(&text, || {
                match Scenario::parse(&text, name, &[] as &[&str]) {
                    Ok(_) if run => short_run(&text, name)?,
                    Ok(_) => {}
                    Err(e) => check_message(&e, &text)?,
                }
                Ok(())
            })?;
            n.set(n.get() + 1);
            Ok(())
        })
        .unwrap();
    n.get()
}

#[test]
fn fuzz_scenario_parser_and_validator() {
    let n = scenario_cases(1200, false);
    eprintln!("fuzz: {n} scenario files parsed and validated");
    report_limits();
}

#[test]
fn fuzz_scenario_short_runs() {
    let n = scenario_cases(250, true);
    let runs = RUNS.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!("fuzz: {n} scenario files validated, {runs} of them run for 50 ms");
    report_limits();
    assert!(runs * 4 > n, "too few mutated scenarios ran: {runs} of {n}");
}

#[test]
fn unmutated_corpus_runs() {
    for (name, text) in corpus() {
        Scenario::parse(&text, &name, &[] as &[&str]).unwrap_or_else(|e| panic!("{e}"));
        short_run(&text, &name).unwrap();
    }
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        (-1e4f64..1e4).prop_map(|v| format!("{v:.3}")),
        prop::sample::select(vec!["0", "-0", "1e308", "-1e308", "nan", "inf", "1e-320", "x", "", "18446744073.8"])
            .prop_map(String::from),
    ]
}

fn movement_line() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (0..6usize, prop::sample::select(vec!["X_", "Y_", "Z_", "W_"]), number())
            .prop_map(|(i, a, v)| format!("$node_({i}) set {a} {v}")),
        6 => (number(), 0..6usize, number(), number(), number())
            .prop_map(|(t, i, x, y, s)| format!("$ns_ at {t} \"$node_({i}) setdest {x} {y} {s}\"")),
        1 => "[ -~]{0,40}",
        1 => Just("$god_ set-dist 0 1 2".to_string()),
    ]
}

#[test]
fn fuzz_movement_files() {
    let n = std::cell::Cell::new(0u64);
    let strategy = prop::collection::vec(movement_line(), 0..60);
    runner(600)
        .run(&strategy, |lines| {
            let text = lines.join("\n");
            guarded(&text, || movement_case(&text))?;
            n.set(n.get() + 1);
            Ok(())
        })
        .unwrap();
    eprintln!("fuzz: {} movement files read", n.get());
    report_limits();
}

fn movement_case(text: &str) -> Result<(), TestCaseError> {
    match parse_script(text, 5) {
        Ok(script) => {
            let trajs = script.trajectories(&[Position::default(); 5]);
            for t in &trajs {
                for s in [0u64, 1, 7, 100, 10_000, 1_000_000] {
                    let _ = t.position(Time::from_secs(s));
                }
            }
        }
        Err(e) => {
            let m = e.to_string();
            // Errors name the line, never quote the file.
            prop_assert!(m.starts_with("movement file line "), "{m}");
            for l in text.lines().filter(|l| l.len() > 12) {
                prop_assert!(!m.contains(l), "the error quotes the file: {m}");
            }
        }
    }
    Ok(())
}

#[test]
fn the_watchdog_sees_a_slow_case_and_memory_is_accounted() {
    // A case that overstays its limit fails with its input (the watchdog
    // ends the process at twice the limit plus a second; this one returns
    // before that).
    let r = guarded_within(0.1, "slow input", || {
        std::thread::sleep(std::time::Duration::from_millis(250));
        Ok(())
    });
    let e = r.unwrap_err().to_string();
    assert!(e.contains("case took") && e.contains("slow input"), "{e}");
    // The peak of a case that touches 64 MB is seen.
    guarded("big", || {
        let v = vec![1u8; 64 << 20];
        std::hint::black_box(&v);
        Ok(())
    })
    .unwrap();
    if peak_rss_kb().is_some() {
        assert!(MAX_CASE_RSS_KB.load(std::sync::atomic::Ordering::Relaxed) >= 64 << 10);
    }
}
