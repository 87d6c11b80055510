//! Resumable parameter sweeps.
//!
//! A sweep is a list of [`Job`]s (a unique key and the run's [`SimConfig`])
//! executed in parallel across cores. Each finished run is written at once,
//! atomically (temporary file + rename), to `<dir>/<key>.json` together with
//! a fingerprint of its config and of the binary, and a CRC-32 of the text
//! ([`seal`]). With `resume`, a job whose file exists, reads back with a
//! matching checksum and whose fingerprint matches is loaded instead of run
//! (a damaged file is reported and its run redone), so a sweep killed
//! midway loses no finished run and, resumed, ends with exactly the results
//! of an uninterrupted one (each run is a pure function of its config, and
//! JSON keeps every `f64` bit for bit).
//!
//! Results come back in job order whatever the thread count. The result type
//! is the caller's: usually a [`crate::Report`], or a study's own summary of
//! a run when it needs more (per-second series, TCP traces).

use super::{Progress, StudyError};
use crate::config::SimConfig;
use crate::metrics::stats::Summary;
use crate::simulation::BuildError;
use rayon::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// One run of a sweep.
#[derive(Clone, Debug)]
pub struct Job {
    /// Unique within the sweep; names the result file, so keep it readable:
    /// `speed=20/pattern=7/tcp=elfn-2s`. Characters other than letters,
    /// digits and `=,.+-_` become `_` in the file name (`/` becomes `__`).
    pub key: String,
    pub config: SimConfig,
}

impl Job {
    pub fn new(key: impl Into<String>, config: SimConfig) -> Job {
        Job { key: key.into(), config }
    }
}

/// Where and how a sweep runs.
pub struct SweepOptions<'a> {
    /// Directory of the per-run result files; `None` keeps results in memory
    /// only (nothing to resume from).
    pub dir: Option<PathBuf>,
    /// Load finished runs from `dir` instead of running them again.
    pub resume: bool,
    /// Called with (runs done, runs total); resumed runs count as done.
    pub progress: Progress<'a>,
}

/// What a run's file holds.
#[derive(Serialize, Deserialize)]
struct Stored<T> {
    key: String,
    fingerprint: String,
    result: T,
    // The `crc32` field appended by `seal` is checked by `unseal` before
    // parsing (serde skips it).
}

/// The build a stored result comes from: the package version and, when
/// built from a git checkout, the commit (`build.rs`). Part of every
/// [`fingerprint`], so a different binary never silently reuses runs
/// stored by another one.
pub fn binary_version() -> String {
    format!(
        "manetlab {} ({})",
        env!("CARGO_PKG_VERSION"),
        option_env!("MANETLAB_GIT_COMMIT").unwrap_or("no git commit")
    )
}

/// A stable fingerprint of a config and the binary ([`binary_version`])
/// (FNV-1a, 64 bits, over the version and the config's `Debug` text, which
/// prints every field and every `f64` exactly).
pub fn fingerprint(cfg: &SimConfig) -> String {
    let text = format!("{}\n{cfg:?}", binary_version());
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The file name a key is stored under.
pub fn file_name(key: &str) -> String {
    let mut s = String::with_capacity(key.len() + 5);
    for c in key.chars() {
        match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '=' | ',' | '.' | '+' | '-' | '_' => s.push(c),
            '/' => s.push_str("__"),
            _ => s.push('_'),
        }
    }
    s.push_str(".json");
    s
}

/// The field [`seal`] appends to a JSON object.
const SEAL: &str = ",\"crc32\":\"";

/// Appends a CRC-32 (IEEE) of `json` (one JSON object, no trailing
/// newline) as its last field: `{...,"crc32":"89abcdef"}`. The result is
/// still one JSON object; [`unseal`] checks it. CRC-32 detects every
/// change of one byte and every burst of up to 32 bits.
pub fn seal(json: &str) -> String {
    assert!(json.ends_with('}') && json.len() > 2, "seal takes a non-empty JSON object");
    let sum = crc32fast::hash(json.as_bytes());
    format!("{}{SEAL}{sum:08x}\"}}", &json[..json.len() - 1])
}

/// Checks a text written by [`seal`]: `Ok(())` when the checksum matches,
/// else why not.
pub fn unseal(text: &str) -> Result<(), String> {
    let t = text.trim_end_matches(['\n', '\r']);
    let at = t.rfind(SEAL).ok_or("no checksum")?;
    let rest = &t[at + SEAL.len()..];
    let hex = rest.strip_suffix("\"}").filter(|h| h.len() == 8).ok_or("malformed checksum")?;
    let want = u32::from_str_radix(hex, 16).map_err(|_| "malformed checksum")?;
    let mut body = String::with_capacity(at + 1);
    body.push_str(&t[..at]);
    body.push('}');
    if crc32fast::hash(body.as_bytes()) == want {
        Ok(())
    } else {
        Err("checksum mismatch (the text was changed or damaged)".into())
    }
}

/// Runs `jobs` with `run` (in parallel), storing and resuming as `opts` says.
/// Returns the results in job order.
pub fn run<T, F>(jobs: &[Job], opts: &SweepOptions, run: F) -> Result<Vec<T>, StudyError>
where
    T: Serialize + DeserializeOwned + Send,
    F: Fn(&SimConfig) -> Result<T, BuildError> + Sync,
{
    let mut seen = HashSet::new();
    for j in jobs {
        if !seen.insert(file_name(&j.key)) {
            return Err(StudyError::Other(format!("sweep: two jobs share the key (or file name) {:?}", j.key)));
        }
    }
    if let Some(d) = &opts.dir {
        std::fs::create_dir_all(d)?;
    }
    let total = jobs.len();
    let done = AtomicUsize::new(0);
    // Load what can be resumed first, so progress starts from there.
    let mut slots: Vec<Option<T>> = jobs
        .iter()
        .map(|j| match (&opts.dir, opts.resume) {
            (Some(d), true) => load(d, j),
            _ => None,
        })
        .collect();
    let resumed = slots.iter().filter(|s| s.is_some()).count();
    done.store(resumed, Ordering::Relaxed);
    if resumed > 0 {
        (opts.progress)(resumed, total);
    }
    let todo: Vec<usize> = (0..jobs.len()).filter(|&i| slots[i].is_none()).collect();
    let fresh: Vec<(usize, Result<T, StudyError>)> =
        todo.into_par_iter()
            .map(|i| {
                let job = &jobs[i];
                let out = run(&job.config).map_err(|e| StudyError::Other(format!("{}: {e}", job.key))).and_then(|r| {
                    match &opts.dir {
                        Some(d) => store(d, job, &r).map(|()| r),
                        None => Ok(r),
                    }
                });
                (opts.progress)(done.fetch_add(1, Ordering::Relaxed) + 1, total);
                (i, out)
            })
            .collect();
    for (i, r) in fresh {
        slots[i] = Some(r?);
    }
    Ok(slots.into_iter().map(|s| s.expect("every job has a result")).collect())
}

/// Runs each job to its [`crate::Report`].
pub fn run_reports(jobs: &[Job], opts: &SweepOptions) -> Result<Vec<crate::Report>, StudyError> {
    run(jobs, opts, |cfg| Ok(crate::Simulation::new(cfg.clone())?.run()))
}

/// The stored result of `job` in `dir`, if there is one for this key and
/// config (same fingerprint).
pub fn load<T: DeserializeOwned>(dir: &Path, job: &Job) -> Option<T> {
    let path = dir.join(file_name(&job.key));
    let text = std::fs::read_to_string(&path).ok()?;
    if let Err(why) = unseal(&text) {
        eprintln!("warning: {}: {why}; running it again", path.display());
        return None;
    }
    match serde_json::from_str::<Stored<T>>(&text) {
        Ok(s) => (s.key == job.key && s.fingerprint == fingerprint(&job.config)).then_some(s.result),
        Err(e) => {
            // Not silent: a result that cannot be read back would be re-run
            // on every resume.
            eprintln!("warning: {}: stored result unreadable ({e}); running it again", path.display());
            None
        }
    }
}

/// Writes one finished run. JSON has no NaN or infinity (serde_json writes
/// `null`, which does not read back as an `f64`), so a result holding one
/// could never be resumed: say so at once rather than re-running it
/// silently on every `--resume`. Store such values as `Option<f64>`.
pub fn store<T: Serialize + DeserializeOwned>(dir: &Path, job: &Job, result: &T) -> Result<(), StudyError> {
    let s = Stored { key: job.key.clone(), fingerprint: fingerprint(&job.config), result };
    let text = serde_json::to_string(&s).map_err(|e| StudyError::Other(format!("{}: {e}", job.key)))?;
    if let Err(e) = serde_json::from_str::<Stored<T>>(&text) {
        eprintln!(
            "warning: run {}: its result does not read back from JSON ({e}); a NaN or infinite f64? \
             It will not resume.",
            job.key
        );
    }
    let text = seal(&text);
    let name = file_name(&job.key);
    let tmp = dir.join(format!(".{name}.tmp"));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, dir.join(name))?;
    Ok(())
}

/// Mean, standard deviation and 95% confidence half-width of a sample
/// (Student t), as reports print them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    pub n: u64,
    pub mean: f64,
    pub sd: f64,
    pub ci95: f64,
    pub min: f64,
    pub max: f64,
}

impl Aggregate {
    pub fn of(samples: impl IntoIterator<Item = f64>) -> Aggregate {
        let mut s = Summary::default();
        for x in samples {
            s.record(x);
        }
        if s.is_empty() {
            return Aggregate { n: 0, mean: f64::NAN, sd: f64::NAN, ci95: f64::NAN, min: f64::NAN, max: f64::NAN };
        }
        Aggregate {
            n: s.count(),
            mean: s.mean(),
            sd: if s.count() > 1 { s.std_dev() } else { 0.0 },
            ci95: if s.count() > 1 { s.ci95_half_width() } else { 0.0 },
            min: s.min(),
            max: s.max(),
        }
    }
}

impl std::fmt::Display for Aggregate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = f.precision().unwrap_or(1);
        write!(f, "{:.p$} ± {:.p$}", self.mean, self.ci95)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{FlowConfig, Traffic};
    use crate::sim::Time;

    fn job(i: u64) -> Job {
        let mut c = SimConfig {
            seed: i,
            duration: Time::from_secs(2),
            nodes: SimConfig::chain_positions(3, 200.0),
            ..Default::default()
        };
        c.flows.push(FlowConfig {
            name: "f".into(),
            src: 0,
            dst: 2,
            traffic: Traffic::Cbr { size: 512, interval: Time::from_ms(5), jitter: Time::ZERO },
            start: Time::ZERO,
            stop: None,
        });
        Job::new(format!("seed={i}/x"), c)
    }

    #[test]
    fn file_names_are_safe_and_distinct() {
        assert_eq!(file_name("speed=20/pattern=3"), "speed=20__pattern=3.json");
        assert_eq!(file_name("a b:c"), "a_b_c.json");
    }

    #[test]
    fn resume_loads_finished_runs_and_reruns_changed_ones() {
        let dir = std::env::temp_dir().join(format!("manetlab-sweep-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let jobs: Vec<Job> = (1..=3).map(job).collect();
        let calls = AtomicUsize::new(0);
        let counting = |cfg: &SimConfig| {
            calls.fetch_add(1, Ordering::Relaxed);
            Ok(crate::Simulation::new(cfg.clone())?.run())
        };
        let opts = SweepOptions { dir: Some(dir.clone()), resume: true, progress: &|_, _| {} };
        let first = run(&jobs, &opts, counting).unwrap();
        assert_eq!(calls.load(Ordering::Relaxed), 3);
        let again = run(&jobs, &opts, counting).unwrap();
        assert_eq!(calls.load(Ordering::Relaxed), 3, "nothing rerun");
        assert_eq!(first, again, "loaded reports equal the computed ones bit for bit");
        // A changed config under the same key is run again, not loaded.
        let mut changed = jobs.clone();
        changed[1].config.duration = Time::from_secs(3);
        run(&changed, &opts, counting).unwrap();
        assert_eq!(calls.load(Ordering::Relaxed), 4);
        // Without resume everything runs.
        let fresh = SweepOptions { resume: false, ..opts };
        run(&jobs, &fresh, counting).unwrap();
        assert_eq!(calls.load(Ordering::Relaxed), 7);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn reports_of_idle_and_unreachable_flows_resume() {
        // Flows that deliver nothing (never start; no route) must leave no
        // NaN in the report, or their runs could never be resumed.
        let dir = std::env::temp_dir().join(format!("manetlab-sweep-idle-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut j = job(9);
        j.config.flows[0].start = Time::from_secs(5); // after the end
        let mut far = j.config.flows[0].clone();
        far.start = Time::ZERO;
        far.name = "unreachable".into();
        j.config.nodes[2].x = 5_000.0;
        j.config.flows.push(far);
        let jobs = vec![j];
        let calls = AtomicUsize::new(0);
        let counting = |cfg: &SimConfig| {
            calls.fetch_add(1, Ordering::Relaxed);
            Ok(crate::Simulation::new(cfg.clone())?.run())
        };
        let opts = SweepOptions { dir: Some(dir.clone()), resume: true, progress: &|_, _| {} };
        let first = run(&jobs, &opts, counting).unwrap();
        assert_eq!(first[0].flows[1].received_packets, 0);
        let again = run(&jobs, &opts, counting).unwrap();
        assert_eq!(calls.load(Ordering::Relaxed), 1, "the stored report was read back");
        assert_eq!(first, again);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_flipped_digit_in_a_stored_run_is_detected_and_the_run_redone() {
        let dir = std::env::temp_dir().join(format!("manetlab-sweep-crc-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let jobs = vec![job(4)];
        let calls = AtomicUsize::new(0);
        let counting = |cfg: &SimConfig| {
            calls.fetch_add(1, Ordering::Relaxed);
            Ok(crate::Simulation::new(cfg.clone())?.run())
        };
        let opts = SweepOptions { dir: Some(dir.clone()), resume: true, progress: &|_, _| {} };
        let first = run(&jobs, &opts, counting).unwrap();
        let path = dir.join(file_name(&jobs[0].key));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(unseal(&text).is_ok());
        // Flip one digit of the received packet count.
        let n = first[0].flows[0].received_packets.to_string();
        let at = text.find(&format!("\"received_packets\":{n}")).unwrap() + "\"received_packets\":".len();
        let mut bytes = text.into_bytes();
        bytes[at] = if bytes[at] == b'9' { b'8' } else { bytes[at] + 1 };
        std::fs::write(&path, &bytes).unwrap();
        assert!(unseal(std::str::from_utf8(&bytes).unwrap()).is_err());
        let again = run(&jobs, &opts, counting).unwrap();
        assert_eq!(calls.load(Ordering::Relaxed), 2, "the damaged run was redone");
        assert_eq!(first, again);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn seal_round_trips_and_names_the_binary() {
        let s = seal("{\"a\":1}");
        assert!(s.starts_with("{\"a\":1,\"crc32\":\""), "{s}");
        assert!(unseal(&s).is_ok() && unseal(&(s.clone() + "\n")).is_ok());
        assert!(unseal(&s.replace("1", "2")).is_err());
        assert!(unseal("{\"a\":1}").is_err());
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["a"], 1);
        assert!(fingerprint(&job(1).config) != fingerprint(&job(2).config));
        assert!(binary_version().starts_with("manetlab "));
    }

    #[test]
    fn duplicate_keys_are_refused() {
        let jobs = vec![job(1), job(1)];
        let opts = SweepOptions { dir: None, resume: false, progress: &|_, _| {} };
        assert!(run_reports(&jobs, &opts).is_err());
    }

    #[test]
    fn aggregate_matches_hand_computation() {
        let a = Aggregate::of([1.0, 2.0, 3.0, 4.0]);
        assert_eq!(a.n, 4);
        assert!((a.mean - 2.5).abs() < 1e-12);
        assert!((a.sd - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        // t(0.975, 3) = 3.182446
        assert!((a.ci95 - 3.182446 * a.sd / 2.0).abs() < 1e-5, "{a:?}");
        assert_eq!(format!("{a:.2}"), "2.50 ± 2.05");
    }
}
