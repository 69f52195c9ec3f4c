//! CUHRE with the region list on the device (`methods::cuhre::device`, `kernels/cuhre_list.cu`):
//! the route of `cuhre-parallel` on a `GpuBackend`. Against MPFR closed forms: the six
//! PAGANI cases (Genz families, shared with tests/cuhre.rs in tests/cubature_support), exp of a
//! sum in f64, dd and qd; honest errors, converged within the
//! tolerance, the same bits on a second run, a non-finite value named. The timing test prints
//! the six cases on the host-driven rounds (the GPU's rule kernel, a batch of the worst regions
//! a round) against the device list:
//! `cargo test --release --test gpu_cuhre_device -- --ignored --nocapture`.

use std::sync::Arc;
use std::time::Instant;

use hpquad::backend::{Backend, RuleSums, UniformGrid};
use hpquad::expr::Expr;
use hpquad::gpu::GpuBackend;
use hpquad::integrand::Integrand;
use hpquad::methods::cuhre::{cuhre, Hyperbox, Schedule};
use hpquad::methods::{Options, Outcome};
use hpquad::precision::{Dd, Qd, Real};
use hpquad::Error;
use rug::ops::Pow;
use rug::Float;

mod cubature_support;
mod mpfr_support;
use cubature_support::pagani_cases;
use mpfr_support::{abs_error, digits, BITS};

fn gpu() -> GpuBackend {
    GpuBackend::new(0).expect("a CUDA device")
}

/// The host-driven rounds on the GPU (today's route before the device list): the rule kernel
/// through `genz_malik_sums`, without `cuhre_on_device`.
struct HostRounds(GpuBackend);

impl Backend for HostRounds {
    fn device(&self) -> Arc<str> {
        self.0.device()
    }
    fn uniform_sums<T: Real, F: Integrand>(
        &self,
        f: &F,
        grids: &[UniformGrid<T>],
    ) -> hpquad::Result<Vec<T>> {
        self.0.uniform_sums(f, grids)
    }
    fn evaluate<T: Real, F: Integrand>(&self, f: &F, points: &[T]) -> hpquad::Result<Vec<T>> {
        self.0.evaluate(f, points)
    }
    fn genz_malik_sums<T: Real, F: Integrand>(
        &self,
        f: &F,
        centers: &[T],
        halfwidths: &[T],
        generators: &hpquad::backend::RuleGenerators<T>,
    ) -> hpquad::Result<RuleSums<T>> {
        self.0.genz_malik_sums(f, centers, halfwidths, generators)
    }
    fn device_for_rule<T: Real, F: Integrand>(&self, f: &F, regions: usize) -> Arc<str> {
        self.0.device_for_rule::<T, F>(f, regions)
    }
    fn rule_round<T: Real, F: Integrand>(&self, f: &F) -> usize {
        self.0.rule_round::<T, F>(f)
    }
}

fn unit<T: Real>(dims: usize) -> Hyperbox<T> {
    Hyperbox::new(vec![T::zero(); dims], vec![T::one(); dims]).expect("the unit box")
}

/// One run: the outcome and its wall time in ms.
fn timed<T: Real, B: Backend>(
    backend: &B,
    f: &Expr,
    dims: usize,
    options: &Options,
) -> (Outcome<T>, f64) {
    let start = Instant::now();
    let out = cuhre(f, backend, &unit::<T>(dims), Schedule::Parallel, options).expect("runs");
    (out, start.elapsed().as_secs_f64() * 1e3)
}

/// Honest; within the tolerance when converged.
fn check<T: Real>(name: &str, out: &Outcome<T>, reference: &Float, tolerance: f64) {
    let err = abs_error(out.value, reference);
    assert!(
        err <= out.error,
        "{name} in {}: dishonest, actual {err:e} above the estimate {:e}",
        T::NAME,
        out.error
    );
    if out.converged {
        let bound = tolerance * reference.to_f64().abs();
        assert!(
            err <= bound,
            "{name} in {}: converged, but the actual error {err:e} passes {bound:e}",
            T::NAME
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_list_meets_the_pagani_cases_honestly() {
    let gpu = gpu();
    for case in pagani_cases() {
        let f = Expr::parse(&case.expression, case.dims).expect(case.name);
        let options = Options {
            relative: Some(case.tolerance),
            max_evaluations: 1 << 33,
            ..Options::default()
        };
        let (out, _) = timed::<f64, _>(&gpu, &f, case.dims, &options);
        check(case.name, &out, &case.reference, case.tolerance);
        // Every case the host rounds meet (tests/cuhre.rs; the corner peak and the
        // oscillatory integrand in 8 dimensions they do not, within 2^30 evaluations).
        if !(case.name.starts_with("corner") || case.name.starts_with("oscillatory")) {
            assert!(out.converged, "{}: {out:?}", case.name);
        }
        assert!(out.stages.iter().all(|s| s.device.contains("region list")));
        // The same bits on a second run.
        let (again, _) = timed::<f64, _>(&gpu, &f, case.dims, &options);
        assert_eq!(again.value.to_bits(), out.value.to_bits(), "{}", case.name);
        assert_eq!(again.evaluations, out.evaluations, "{}", case.name);
    }
}

/// exp(x1 + x2) over [0, 1]^2 is (e - 1)^2: to 1e-10 in f64, 1e-20 in dd, 1e-24 in qd, and
/// the cap gives an honest unconverged estimate.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_list_in_every_precision() {
    let gpu = gpu();
    let n = 2;
    let f = Expr::parse("exp(x1 + x2)", n).expect("parses");
    let e = Float::with_val(BITS, 1).exp();
    let reference = Float::with_val(BITS, (e - 1u32).pow(n as u32));
    let options = |tol: f64| Options {
        relative: Some(tol),
        max_evaluations: 1 << 34,
        ..Options::default()
    };
    let (out, ms) = timed::<f64, _>(&gpu, &f, n, &options(1e-10));
    check("exp sum", &out, &reference, 1e-10);
    assert!(out.converged);
    println!(
        "f64 1e-10: {:.1} digits, {ms:.1} ms",
        digits(out.value, &reference)
    );
    let (out, ms) = timed::<Dd, _>(&gpu, &f, n, &options(1e-20));
    check("exp sum", &out, &reference, 1e-20);
    assert!(out.converged, "{out:?}");
    println!(
        "dd 1e-20: {:.1} digits, {ms:.1} ms",
        digits(out.value, &reference)
    );
    let (out, ms) = timed::<Qd, _>(&gpu, &f, n, &options(1e-24));
    check("exp sum", &out, &reference, 1e-24);
    assert!(out.converged, "{out:?}");
    println!(
        "qd 1e-24: {:.1} digits, {ms:.1} ms",
        digits(out.value, &reference)
    );
    // A cap below what the Gaussian exp(-625 (x1 - 1/2)^2 - 625 (x2 - 1/2)^2) needs to 1e-12
    // (cells of 0.013 against a peak of width 0.03, the next round past the cap): not
    // converged, the error still honest. Per axis √π/25 erf(12.5).
    let capped = Options {
        relative: Some(1e-12),
        max_evaluations: 100_000,
        ..Options::default()
    };
    let pi = Float::with_val(BITS, rug::float::Constant::Pi);
    let factor: Float =
        Float::with_val(BITS, pi.sqrt_ref()) / 25u32 * Float::with_val(BITS, 12.5).erf();
    let reference = Float::with_val(BITS, factor.pow(2u32));
    let f = Expr::parse("exp(-625*((x1 - 0.5)^2 + (x2 - 0.5)^2))", n).expect("parses");
    let (out, _) = timed::<f64, _>(&gpu, &f, n, &capped);
    assert!(!out.converged && out.evaluations <= 100_000, "{out:?}");
    check("gaussian capped", &out, &reference, 1e-12);
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_list_names_a_non_finite_point() {
    let f = Expr::parse("1/(x1 - x2)", 2).expect("parses");
    let options = Options {
        relative: Some(1e-6),
        ..Options::default()
    };
    let err = cuhre(&f, &gpu(), &unit::<f64>(2), Schedule::Parallel, &options).unwrap_err();
    assert!(matches!(err, Error::NonFinite { .. }), "{err}");
    // The center of a region on the diagonal: both coordinates equal.
    let text = err.to_string();
    assert!(text.contains('('), "{text}");
}

/// The six cases, warm (a first run compiles), on the host-driven rounds against the device
/// list: ms, correct digits, evaluations, converged. The host rounds are capped at 2^30
/// evaluations.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_list_pagani_timing() {
    let gpu = gpu();
    let rounds = HostRounds(GpuBackend::new(0).expect("a CUDA device"));
    println!(
        "{:<18} {:>6} {:>9} | {:>10} {:>6} {:>12} {:>5} | {:>10} {:>6} {:>12} {:>6} {:>5} | {:>6}",
        "case",
        "tol",
        "PAGANI ms",
        "rounds ms",
        "digits",
        "evals",
        "conv",
        "list ms",
        "digits",
        "evals",
        "steps",
        "conv",
        "vs PAGANI"
    );
    for case in pagani_cases() {
        let f = Expr::parse(&case.expression, case.dims).expect(case.name);
        let list_options = Options {
            relative: Some(case.tolerance),
            max_evaluations: 1 << 36,
            ..Options::default()
        };
        let round_options = Options {
            max_evaluations: 1 << 30,
            ..list_options
        };
        timed::<f64, _>(&gpu, &f, case.dims, &list_options);
        let mut best = f64::INFINITY;
        let mut list = None;
        for _ in 0..3 {
            let (out, ms) = timed::<f64, _>(&gpu, &f, case.dims, &list_options);
            best = best.min(ms);
            list = Some(out);
        }
        let list = list.expect("ran");
        timed::<f64, _>(
            &rounds,
            &f,
            case.dims,
            &Options {
                max_evaluations: 1 << 24,
                ..round_options
            },
        );
        let (host, host_ms) = timed::<f64, _>(&rounds, &f, case.dims, &round_options);
        let conv = |c: bool| if c { "yes" } else { "NO" };
        println!(
            "{:<18} {:>6.0e} {:>9} | {:>10.1} {:>6.2} {:>12} {:>5} | {:>10.2} {:>6.2} {:>12} {:>6} {:>5} | {:>6}",
            case.name,
            case.tolerance,
            case.pagani_ms.map_or("no conv".to_string(), |m| format!("{m}")),
            host_ms,
            digits(host.value, &case.reference),
            host.evaluations,
            conv(host.converged),
            best,
            digits(list.value, &case.reference),
            list.evaluations,
            list.levels,
            conv(list.converged),
            case.pagani_ms
                .map_or("-".to_string(), |m| format!("{:.2}x", m / best)),
        );
        let per_region = hpquad::methods::cuhre::device::DEVICE_RULE.points(case.dims) as u64;
        let rounds: Vec<String> = list
            .stages
            .iter()
            .map(|s| {
                format!(
                    "{}:{}/{:.2}ms",
                    s.level,
                    s.points / per_region,
                    s.elapsed.as_secs_f64() * 1e3
                )
            })
            .collect();
        println!("    rounds (regions/ms): {}", rounds.join(" "));
        check(case.name, &list, &case.reference, case.tolerance);
    }
}
