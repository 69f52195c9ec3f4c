//! Where the fixed cost of a first GPU integral goes: driver start, context, module (from the
//! disk cache when warm, NVRTC when cold), first and second launch. Prints one line a step
//! with the milliseconds since the process started.
//!
//! ```text
//! cargo run --release --example gpu_startup            # on a machine with a CUDA device
//! HPQUAD_CACHE_DIR=$(mktemp -d) ...                    # the same, cold (empty kernel cache)
//! ```

use std::time::Instant;

use hpquad::expr::{cuda, Expr};
use hpquad::gpu::{devices, Gpu};
use hpquad::precision::Qd;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let start = Instant::now();
    let mark = |what: &str| println!("{:>8.1} ms  {what}", start.elapsed().as_secs_f64() * 1e3);
    let found = devices()?;
    mark(&format!("driver started, {} device(s)", found.len()));
    let gpu = Gpu::new(0)?;
    mark("context and compiler ready");
    let f = Expr::parse("(16*x-16)/(x^4-2*x^3+4*x-4)", 1)?;
    let source = Gpu::integrand_source::<Qd>(&cuda::integrand::<Qd>(f.tape())?)?;
    mark(&format!("kernel source generated ({} bytes)", source.len()));
    let h = Qd::from(1.0) / Qd::from(1024.0);
    let sum = gpu.uniform_sum_of_source(&source, Qd::from(0.0), h, 1, 2, 512)?;
    mark(&format!(
        "first sum (module loaded or compiled): {}",
        sum.0[0]
    ));
    gpu.uniform_sum_of_source(&source, Qd::from(0.0), h, 1, 2, 512)?;
    mark("second sum");
    Ok(())
}
