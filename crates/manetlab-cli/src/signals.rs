//! SIGINT / SIGTERM / SIGHUP during a plain run (docs/reliability.md,
//! "Signals"): the first sets [`STOP`] (every replication stops at its next
//! slice and the outputs of the simulated time are written, exit 130), a
//! second exits at once with 130.
//!
//! On Unix a plain signal handler does it: it only swaps an atomic and
//! calls `_exit`, both async-signal-safe (signal-safety(7)). The `ctrlc`
//! crate did the same from a thread it started for the purpose, which cost
//! every process a thread start (a 2 MiB stack, a second malloc arena) and
//! its teardown at exit (issue 25, the fixed cost of a process:
//! docs/performance.md, session 14 s14dsr). Elsewhere `ctrlc` still does it.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the first signal: stop at the next slice and write what was
/// simulated.
pub static STOP: AtomicBool = AtomicBool::new(false);

/// Installs the handler (a failure is ignored, as before: the run then
/// simply cannot be interrupted cleanly).
#[cfg(unix)]
pub fn install() {
    use std::os::raw::c_int;
    extern "C" {
        // signal(2): glibc and the BSDs give it BSD semantics (the handler
        // stays installed, interrupted system calls restart).
        fn signal(signum: c_int, handler: extern "C" fn(c_int)) -> usize;
        fn _exit(status: c_int) -> !;
    }
    extern "C" fn on_signal(_: c_int) {
        if STOP.swap(true, Ordering::SeqCst) {
            // SAFETY: `_exit` is async-signal-safe and takes any status.
            unsafe { _exit(130) }
        }
    }
    // SIGHUP, SIGINT, SIGTERM: 1, 2 and 15 on every Unix (POSIX fixes these
    // three numbers). The handler is a plain `extern "C" fn(int)`.
    for sig in [1, 2, 15] {
        // SAFETY: installs a handler that only touches an atomic and `_exit`.
        unsafe {
            signal(sig, on_signal);
        }
    }
}

#[cfg(not(unix))]
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    });
}
