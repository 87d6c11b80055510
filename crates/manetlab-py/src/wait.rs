//! Running Rust work off the interpreter: the work runs on its own thread
//! (with a rayon pool of `jobs` threads) while the calling thread, GIL
//! released, waits for it and every 50 ms takes the GIL back briefly to
//! check for signals (Ctrl-C raises `KeyboardInterrupt`: the work is told to
//! stop through its [`Cancel`] flag and joined before the exception
//! propagates) and to draw a progress line on standard error.

use manetlab::exec::Cancel;
use pyo3::prelude::*;
use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Progress of work in flight: `done` out of `total` (simulated ns, or runs).
#[derive(Default)]
pub struct Progress {
    pub done: AtomicU64,
    pub total: AtomicU64,
}

/// How to show progress.
#[derive(Clone, Copy)]
pub struct Show {
    /// Draw a bar on standard error.
    pub bar: bool,
    /// What is counted: "simulated" (ns, shown as %) or "runs".
    pub runs: bool,
}

/// Runs `work` on a scoped thread inside a rayon pool of `jobs` threads (all
/// cores when `None`), waiting with the GIL released. See the module doc.
pub fn run_detached<T, F>(
    py: Python<'_>,
    jobs: Option<usize>,
    cancel: &Cancel,
    progress: &Progress,
    show: Show,
    work: F,
) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> T + Send,
{
    let mut builder = rayon::ThreadPoolBuilder::new().thread_name(|i| format!("manetlab-{i}"));
    if let Some(j) = jobs {
        builder = builder.num_threads(j.max(1));
    }
    let pool = builder.build().map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    let started = Instant::now();
    let mut drawn = false;
    std::thread::scope(|s| {
        let (tx, mut rx) = mpsc::channel();
        let pool = &pool;
        s.spawn(move || {
            let out = pool.install(work);
            let _ = tx.send(out);
        });
        loop {
            // The receiver is Send, not Sync: move it into the detached
            // closure and back.
            let (r, got) = py.detach(move || {
                let got = rx.recv_timeout(Duration::from_millis(50));
                (rx, got)
            });
            rx = r;
            match got {
                Ok(out) => {
                    if drawn {
                        draw(progress, show, started, true);
                    }
                    return Ok(out);
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(pyo3::exceptions::PyRuntimeError::new_err("manetlab: the worker thread panicked"));
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if let Err(e) = py.check_signals() {
                cancel.cancel();
                // The runs stop at their next slice boundary; wait for them
                // so that no thread outlives the call.
                let _ = py.detach(move || rx.recv().is_ok());
                if drawn {
                    eprintln!();
                }
                return Err(e);
            }
            // Draw only once the work has taken a while (no flicker for short
            // runs).
            if show.bar && started.elapsed() > Duration::from_millis(1500) {
                draw(progress, show, started, false);
                drawn = true;
            }
        }
    })
}

fn draw(p: &Progress, show: Show, started: Instant, last: bool) {
    let done = p.done.load(Ordering::Relaxed);
    let total = p.total.load(Ordering::Relaxed).max(1);
    let frac = (done as f64 / total as f64).clamp(0.0, 1.0);
    let width = 30;
    let filled = (frac * width as f64).round() as usize;
    let bar: String = "=".repeat(filled) + &" ".repeat(width - filled);
    let el = started.elapsed().as_secs_f64();
    let what = if show.runs { format!("runs {done}/{total}") } else { format!("simulated {:>3.0}%", frac * 100.0) };
    let eta = if frac > 0.0 && !last { format!(", left ~{:.0} s", el * (1.0 - frac) / frac) } else { String::new() };
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "\r{what} [{bar}] {el:.0} s{eta}   ");
    if last {
        let _ = writeln!(err);
    }
    let _ = err.flush();
}
