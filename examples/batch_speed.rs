//! Integrals per second of a batch (issue 12's figures): ∫_0^{1/p} exp(-p x²) dx for p evenly
//! spaced in [0.5, 100], by each batch method, in f64, dd and qd, on 1 and 2 threads
//! (tolerances: 1e-12, 1e-28, 1e-56 relative; Simpson 1e-10).
//! `cargo run --release --example batch_speed -- [COUNT...]`.

use std::time::Instant;

use hpquad::{Batch, BatchMethod, ParamValue, Precision};

fn main() -> Result<(), hpquad::Error> {
    let counts: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let counts = if counts.is_empty() {
        vec![1_000, 10_000, 100_000]
    } else {
        counts
    };
    println!("method         precision  integrals  threads  integrals/s  evaluations/integral");
    for method in BatchMethod::ALL {
        for precision in [Precision::F64, Precision::Dd, Precision::Qd] {
            for &count in &counts {
                let rows: Vec<Vec<ParamValue>> = (0..count)
                    .map(|k| vec![ParamValue::linspace("0.5", "100", k, count)])
                    .collect();
                for threads in [1, 2] {
                    let batch = Batch::new("exp(-p*x^2)", &["p"])?
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
                        })
                        .threads(threads);
                    let start = Instant::now();
                    let results = batch.compute(&rows)?;
                    let seconds = start.elapsed().as_secs_f64();
                    let evaluations: u64 = results.iter().flatten().map(|e| e.evaluations).sum();
                    println!(
                        "{:14} {:9} {:10} {:8} {:12.0} {:10.1}",
                        method.to_string(),
                        precision.to_string(),
                        count,
                        threads,
                        count as f64 / seconds,
                        evaluations as f64 / count as f64
                    );
                }
            }
        }
    }
    Ok(())
}
