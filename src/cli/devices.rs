//! `hpquad devices`: the CUDA devices this machine offers, the NVRTC that compiles for them and
//! where compiled kernels are cached; or, plainly, that there are none.

use clap::Args;

use hpquad::gpu;

use super::CliError;

/// No options: the command only looks.
#[derive(Args, Debug)]
pub struct DevicesArgs {}

/// Prints one line per GPU, then NVRTC and the cache directory. No GPU is not an error: the
/// CPU does the work then, and the message says so.
pub fn run(_args: &DevicesArgs) -> Result<(), CliError> {
    match gpu::devices() {
        Ok(list) if !list.is_empty() => {
            for d in &list {
                say!(
                    "gpu {}: {}, {} multiprocessors, {:.1} GiB, compute capability {}.{}",
                    d.ordinal,
                    d.name,
                    d.multiprocessors,
                    d.memory_bytes as f64 / (1u64 << 30) as f64,
                    d.compute_capability.0,
                    d.compute_capability.1
                );
            }
        }
        Ok(_) => say!("no CUDA device found: the driver is loaded but reports no device"),
        Err(e) => say!("no CUDA device found: {e}"),
    }
    match gpu::nvrtc_version() {
        Ok((major, minor)) => say!("nvrtc {major}.{minor}"),
        Err(e) => say!("nvrtc: {e}"),
    }
    match gpu::cache_dir() {
        Some(dir) => say!("kernel cache: {}", dir.display()),
        None => say!(
            "kernel cache: none (set {} to a writable directory)",
            gpu::CACHE_DIR_VAR
        ),
    }
    say!(
        "cpu: {} threads",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    Ok(())
}
