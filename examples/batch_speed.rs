//! Integrals per second of a batch (issue 12's figures): ∫_0^{1/p} exp(-p x²) dx for p evenly
//! spaced in [0.5, 100], by each batch method, in f64, dd and qd, on 1 and 2 threads
//! (tolerances: 1e-12, 1e-28, 1e-56 relative; Simpson 1e-10), and when a CUDA device is
//! present, FAQ and Gauss–Kronrod on the GPU (threads "gpu", one integral per device thread,
//! 10^3 to 10^7 integrals unless counts are given; the first launch of each kind includes the
//! kernel's compilation, so each is timed on a second run).
//! `cargo run --release --example batch_speed -- [COUNT...]`.

use std::time::Instant;

use hpquad::{Batch, BatchMethod, Device, ParamValue, Precision};

fn main() -> Result<(), hpquad::Error> {
    let counts: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let given = !counts.is_empty();
    let counts = if given {
        counts
    } else {
        vec![1_000, 10_000, 100_000]
    };
    let gpu_counts = if given {
        counts.clone()
    } else {
        vec![1_000, 10_000, 100_000, 1_000_000, 10_000_000]
    };
    let gpu = hpquad::gpu::is_available();
    println!("method         precision  integrals  threads  integrals/s  evaluations/integral");
    for method in BatchMethod::ALL {
        for precision in [Precision::F64, Precision::Dd, Precision::Qd] {
            for &count in &counts {
                let rows: Vec<Vec<ParamValue>> = (0..count)
                    .map(|k| vec![ParamValue::linspace("0.5", "100", k, count)])
                    .collect();
                for threads in [1, 2] {
                    let batch = batch(method, precision)?.threads(threads);
                    let start = Instant::now();
                    let results = batch.compute(&rows)?;
                    let seconds = start.elapsed().as_secs_f64();
                    report(
                        method,
                        precision,
                        count,
                        &threads.to_string(),
                        seconds,
                        &results,
                    );
                }
            }
            if !gpu || method == BatchMethod::AdaptiveSimpson {
                continue;
            }
            for &count in &gpu_counts {
                let rows: Vec<Vec<ParamValue>> = (0..count)
                    .map(|k| vec![ParamValue::linspace("0.5", "100", k, count)])
                    .collect();
                let batch = batch(method, precision)?.device(Device::Gpu);
                // The first run compiles the kernel (or loads it from the cache).
                batch.compute(&rows[..rows.len().min(10)])?;
                let start = Instant::now();
                let results = batch.compute(&rows)?;
                let seconds = start.elapsed().as_secs_f64();
                report(method, precision, count, "gpu", seconds, &results);
            }
        }
    }
    Ok(())
}

/// The batch of the table for `method` in `precision`.
fn batch(method: BatchMethod, precision: Precision) -> Result<Batch, hpquad::Error> {
    Ok(Batch::new("exp(-p*x^2)", &["p"])?
        .bounds("0", "1/p")
        .method(method)
        .precision(precision)
        // Simpson's order 4 (6 after its extrapolation) cannot reach dd's
        // digits within its cap: it is asked for 1e-10 in every precision.
        .tolerance(match (method, precision) {
            (BatchMethod::AdaptiveSimpson, _) => 1e-10,
            (_, Precision::F64) => 1e-12,
            (_, Precision::Dd) => 1e-28,
            (_, Precision::Qd) => 1e-56,
        }))
}

/// One line of the table.
fn report(
    method: BatchMethod,
    precision: Precision,
    count: u64,
    threads: &str,
    seconds: f64,
    results: &[Result<hpquad::BatchEstimate, hpquad::Error>],
) {
    let evaluations: u64 = results.iter().flatten().map(|e| e.evaluations).sum();
    println!(
        "{:14} {:9} {:10} {:>8} {:12.0} {:10.1}",
        method.to_string(),
        precision.to_string(),
        count,
        threads,
        count as f64 / seconds,
        evaluations as f64 / count as f64
    );
}
