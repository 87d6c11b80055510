//! Progress of long commands: a bar on a terminal; on anything else (batch
//! jobs, CI logs) a plain line every few seconds, so a job's log shows it
//! is alive and how far it got.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Seconds between plain progress lines (`MANETLAB_PROGRESS_SECS`, default 5).
fn plain_interval() -> Duration {
    let s = std::env::var("MANETLAB_PROGRESS_SECS").ok().and_then(|v| v.parse::<f64>().ok()).unwrap_or(5.0);
    Duration::from_secs_f64(s.max(0.0))
}

#[derive(Clone, Copy)]
enum Kind {
    /// "runs 12/40"
    Runs,
    /// "simulated 35%"
    Percent,
}

struct Plain {
    kind: Kind,
    started: Instant,
    every: Duration,
    last: Mutex<Option<Instant>>,
    len: AtomicU64,
}

/// A progress meter with the calls of an indicatif bar.
pub(crate) struct Meter {
    bar: ProgressBar,
    plain: Option<Plain>,
}

impl Meter {
    fn new(kind: Kind, len: u64, quiet: bool, template: &str) -> Meter {
        if quiet {
            return Meter { bar: ProgressBar::hidden(), plain: None };
        }
        if !std::io::stderr().is_terminal() {
            let plain = Plain {
                kind,
                started: Instant::now(),
                every: plain_interval(),
                last: Mutex::new(None),
                len: AtomicU64::new(len),
            };
            return Meter { bar: ProgressBar::hidden(), plain: Some(plain) };
        }
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
        bar.set_style(ProgressStyle::with_template(template).unwrap().progress_chars("=> "));
        Meter { bar, plain: None }
    }

    /// A meter over runs (studies, sweeps).
    pub fn runs(quiet: bool) -> Meter {
        Meter::new(Kind::Runs, 1, quiet, "{spinner} runs {pos}/{len} [{bar:40}] elapsed {elapsed}, left ~{eta}")
    }

    /// A meter over simulated time (ns).
    pub fn simulated(total_ns: u64, quiet: bool) -> Meter {
        Meter::new(
            Kind::Percent,
            total_ns,
            quiet,
            "{spinner} simulated {percent:>3}% [{bar:40}] elapsed {elapsed}, left ~{eta}",
        )
    }

    pub fn set_length(&self, len: u64) {
        self.bar.set_length(len);
        if let Some(p) = &self.plain {
            p.len.store(len, Ordering::Relaxed);
        }
    }

    pub fn set_position(&self, pos: u64) {
        self.bar.set_position(pos);
        let Some(p) = &self.plain else { return };
        let now = Instant::now();
        let Ok(mut last) = p.last.lock() else { return };
        let due = match *last {
            Some(t) => now.duration_since(t) >= p.every,
            None => now.duration_since(p.started) >= p.every,
        };
        if !due {
            return;
        }
        *last = Some(now);
        let len = p.len.load(Ordering::Relaxed).max(1);
        let pct = (pos as f64 / len as f64 * 100.0).min(100.0);
        let elapsed = now.duration_since(p.started).as_secs_f64();
        match p.kind {
            Kind::Runs => eprintln!("progress: runs {pos}/{len} ({pct:.0}%), {elapsed:.0} s elapsed"),
            Kind::Percent => eprintln!("progress: simulated {pct:.0}%, {elapsed:.0} s elapsed"),
        }
    }

    pub fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }
}
