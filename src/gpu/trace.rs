//! `HPQUAD_TRACE`: the time of each phase of the GPU's fixed cost, on stderr.
//!
//! A small call on the GPU (`hpquad pi --device gpu`: milliseconds of device work) spends most
//! of its wall time before the first launch: loading the driver, creating the context,
//! loading NVRTC, finding or compiling the kernel. With `HPQUAD_TRACE` set (to anything but
//! empty or `0`), each phase prints one line `hpquad trace: <phase> <ms> ms (at <ms> ms)`,
//! the second figure measured from the first traced event of the process, so that the
//! phases of one run can be read against the process's wall time.
#![deny(unsafe_code)]

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The environment variable that turns the trace on.
pub const TRACE_VAR: &str = "HPQUAD_TRACE";

/// Whether tracing is on (read once per process) and the instant the trace started.
fn state() -> Option<Instant> {
    static STATE: OnceLock<Option<Instant>> = OnceLock::new();
    *STATE.get_or_init(|| {
        let on = std::env::var_os(TRACE_VAR).is_some_and(|v| !v.is_empty() && v != "0");
        on.then(Instant::now)
    })
}

/// Whether `HPQUAD_TRACE` is set.
pub fn enabled() -> bool {
    state().is_some()
}

/// Starts the trace's clock now (the command line calls this first, so that later phases
/// are measured from the start of `main`).
pub fn start() {
    let _ = state();
}

/// Prints that `phase` took `took`.
pub fn record(phase: &str, took: Duration) {
    if let Some(origin) = state() {
        eprintln!(
            "hpquad trace: {phase} {:.3} ms (at {:.3} ms)",
            took.as_secs_f64() * 1e3,
            origin.elapsed().as_secs_f64() * 1e3
        );
    }
}

/// Runs `work` and records its time under `phase`.
pub fn time<R>(phase: &str, work: impl FnOnce() -> R) -> R {
    if !enabled() {
        return work();
    }
    let begin = Instant::now();
    let result = work();
    record(phase, begin.elapsed());
    result
}
