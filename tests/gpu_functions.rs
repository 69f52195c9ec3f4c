//! Host/device agreement of the elementary functions: kernels/exp_log.cuh, trig.cuh,
//! inverse_trig.cuh, hyperbolic.cuh and roots.cuh against precision/src/, bit for bit for `Dd`
//! and `Qd`, on a million arguments per function and type over each function's documented
//! range and its hard regions (tests/gpu_support/functions.rs), special values first.
//!
//! `f64` runs CUDA's libdevice against the host's `std`: those may differ in the last bit, so
//! for `f64` the test only reports the largest difference and bounds it.
//!
//! Each line `GPU-AGREEMENT <type> <function> max <d> ulp over <n>` goes into
//! precision/README.md.

mod gpu_support;

use gpu_support::compare;
use gpu_support::functions::{binary_inputs, unary_inputs, HostFunctions};
use hpquad::gpu::{BinaryFn, Gpu, UnaryFn};
use precision::{Dd, Qd};
use rayon::prelude::*;

const N: usize = 1_000_000;

/// `(function, identical, total, max ulp, first mismatch)` for every function of one type.
type Report = Vec<(String, usize, usize, f64, Option<String>)>;

fn check_type<T: HostFunctions>(gpu: &Gpu, seed: u64) -> Report {
    let mut report = Vec::new();
    for (i, f) in UnaryFn::ALL.into_iter().enumerate() {
        let a = unary_inputs::<T>(f, N, seed + i as u64);
        let host: Vec<T> = a.par_iter().map(|&x| T::unary(f, x)).collect();
        let dev = gpu.function(f, &a).expect("device function");
        let ag = compare(f.name(), &a, &|_| String::new(), &host, &dev);
        report.push((
            f.name().to_string(),
            ag.identical,
            ag.total,
            ag.max_ulps,
            ag.first_mismatch,
        ));
    }
    for (i, f) in BinaryFn::ALL.into_iter().enumerate() {
        let (a, b) = binary_inputs::<T>(f, N, seed + 100 + i as u64);
        let host: Vec<T> = a
            .par_iter()
            .zip(b.par_iter())
            .map(|(&x, &y)| T::binary(f, x, y))
            .collect();
        let dev = gpu.function2(f, &a, &b).expect("device function");
        let ag = compare(
            f.name(),
            &a,
            &|i| format!("{:?}", b[i].limbs()),
            &host,
            &dev,
        );
        report.push((
            f.name().to_string(),
            ag.identical,
            ag.total,
            ag.max_ulps,
            ag.first_mismatch,
        ));
    }
    report
}

fn print(name: &str, report: &Report) {
    for (f, identical, total, max_ulps, mismatch) in report {
        println!(
            "GPU-AGREEMENT {name} {f} max {max_ulps} ulp over {total} ({identical} identical)"
        );
        if let Some(m) = mismatch {
            println!("  first mismatch: {m}");
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_dd_functions_match_the_host_bit_for_bit() {
    let gpu = Gpu::new(0).expect("a CUDA device");
    let report = check_type::<Dd>(&gpu, 1000);
    print("dd", &report);
    let failed: Vec<_> = report
        .iter()
        .filter(|r| r.4.is_some())
        .map(|r| &r.0)
        .collect();
    assert!(failed.is_empty(), "dd not bit for bit: {failed:?}");
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_qd_functions_match_the_host_bit_for_bit() {
    let gpu = Gpu::new(0).expect("a CUDA device");
    let report = check_type::<Qd>(&gpu, 2000);
    print("qd", &report);
    let failed: Vec<_> = report
        .iter()
        .filter(|r| r.4.is_some())
        .map(|r| &r.0)
        .collect();
    assert!(failed.is_empty(), "qd not bit for bit: {failed:?}");
}

/// libdevice against the host's libm: reported, and bounded (both are faithful or better, so
/// a finite difference beyond 2 ulp, or a special value that differs, would be a bug).
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_f64_functions_are_within_two_ulp_of_the_host() {
    let gpu = Gpu::new(0).expect("a CUDA device");
    let report = check_type::<f64>(&gpu, 3000);
    print("f64", &report);
    let bad: Vec<_> = report
        .iter()
        .filter(|r| r.3 > 2.0)
        .map(|r| (&r.0, r.3))
        .collect();
    assert!(bad.is_empty(), "f64 beyond 2 ulp: {bad:?}");
}
