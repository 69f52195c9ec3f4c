//! Batches of integrals on the GPU (issue 12 §2): one integral per device thread by the CPU's
//! algorithms, so that dd and qd rows are the CPU's bits, f64 rows within a few units in the
//! last place (the bits where the integrand is rational), failing members fail in the same rows
//! with the same messages, and batches larger than a launch run in chunks. Every value is also
//! checked against its closed form in MPFR. All need a CUDA device.

#[allow(dead_code)]
#[path = "../examples/support/mpfr.rs"]
mod mpfr_reference;
mod mpfr_support;

use hpquad::precision::{Dd, Qd, Real};
use hpquad::{
    Batch, BatchEstimate, BatchMethod, Device, Error, ParamRange, ParamValue, Precision,
    SweepColumns, Value, ValueColumn,
};
use mpfr_support::BITS;
use rug::Float;

/// The exact value of an estimate's number, in MPFR.
fn exact(value: &Value) -> Float {
    match *value {
        Value::F64(x) => mpfr_support::mpfr(x),
        Value::Dd(x) => mpfr_support::mpfr(x),
        Value::Qd(x) => mpfr_support::mpfr(x),
    }
}

/// `count` evenly spaced values of p from `start` to `stop`.
fn linspace(start: &str, stop: &str, count: u64) -> Vec<Vec<ParamValue>> {
    (0..count)
        .map(|k| vec![ParamValue::linspace(start, stop, k, count)])
        .collect()
}

/// p as an MPFR number, exactly as the batch computes it in `T` (start + k (stop − start)/(n −
/// 1) in the working precision).
fn p_of<T: Real>(row: &[ParamValue]) -> Float {
    mpfr_support::mpfr(row[0].value::<T>().expect("a number"))
}

/// The rows of a batch.
type Rows = Vec<Result<BatchEstimate, Error>>;

/// The batch on the CPU and on the GPU.
fn both(batch: &Batch, rows: &[Vec<ParamValue>]) -> (Rows, Rows) {
    let cpu = batch
        .clone()
        .device(Device::Cpu)
        .compute(rows)
        .expect("cpu batch");
    let gpu = batch
        .clone()
        .device(Device::Gpu)
        .compute(rows)
        .expect("gpu batch");
    assert_eq!(cpu.len(), gpu.len());
    (cpu, gpu)
}

/// ∫_0^1 e^(-p x) dx = (1 − e^−p)/p.
fn exp_closed(p: &Float) -> Float {
    let e = Float::with_val(BITS, -p.clone()).exp();
    Float::with_val(BITS, 1 - e) / p
}

/// ∫_0^{1/p} e^(-p x²) dx = √π erf(√p · (1/p)) / (2√p), with 1/p the bound as the batch
/// computes it (`upper`).
fn gauss_closed(p: &Float, upper: &Float) -> Float {
    let sp = Float::with_val(BITS, p.sqrt_ref());
    let erf = Float::with_val(BITS, &sp * upper).erf();
    let pi = Float::with_val(BITS, rug::float::Constant::Pi);
    Float::with_val(BITS, pi.sqrt() * erf) / (2 * sp)
}

/// Asserts that every estimate is within its reported error (and a rounding allowance) of
/// its closed form.
fn check_closed_forms(
    estimates: &[Result<BatchEstimate, Error>],
    references: &[Float],
    allowance: f64,
    what: &str,
) {
    for (k, (e, r)) in estimates.iter().zip(references).enumerate() {
        let e = e
            .as_ref()
            .unwrap_or_else(|e| panic!("{what}, row {k}: {e}"));
        let actual = Float::with_val(BITS, &exact(&e.value) - r).abs().to_f64();
        assert!(
            actual <= e.error + allowance * r.to_f64().abs(),
            "{what}, row {k}: off by {actual:e}, error estimate {:e}",
            e.error
        );
    }
}

fn precision_name(p: Precision) -> &'static str {
    match p {
        Precision::F64 => "f64",
        Precision::Dd => "dd",
        Precision::Qd => "qd",
    }
}

/// The two families in one precision: the GPU's rows against the CPU's (equal, or within
/// `ulps` units in the last place in f64) and against the closed forms.
fn families<T: Real>(precision: Precision, bits_equal: bool) {
    let eps = T::epsilon().to_f64();
    let rows = linspace("0.5", "20", 97);
    for method in BatchMethod::ALL {
        let what = format!("{} {}", precision_name(precision), method);
        // ∫_0^1 e^(-p x) dx.
        let batch = Batch::new("exp(-p*x)", &["p"])
            .unwrap()
            .bounds("0", "1")
            .method(method)
            .precision(precision);
        let (cpu, gpu) = both(&batch, &rows);
        compare(&cpu, &gpu, bits_equal, eps, &what);
        let references: Vec<Float> = rows.iter().map(|r| exp_closed(&p_of::<T>(r))).collect();
        // FAQ's bound is Theorem 1's, a bound on the trapezoids; the tolerance methods report
        // their own estimates; all within 100 ε of the value besides.
        check_closed_forms(&gpu, &references, 100.0 * eps, &what);

        // ∫_0^{1/p} e^(-p x²) dx, the upper bound computed in T per row.
        let batch = Batch::new("exp(-p*x^2)", &["p"])
            .unwrap()
            .bounds("0", "1/p")
            .method(method)
            .precision(precision);
        let (cpu, gpu) = both(&batch, &rows);
        compare(&cpu, &gpu, bits_equal, eps, &what);
        let references: Vec<Float> = rows
            .iter()
            .map(|r| {
                let p: T = r[0].value::<T>().unwrap();
                let upper = mpfr_support::mpfr(T::one() / p);
                gauss_closed(&p_of::<T>(r), &upper)
            })
            .collect();
        check_closed_forms(&gpu, &references, 100.0 * eps, &what);
    }
}

/// Rows equal (dd, qd), or values within 16 ulp and errors close (f64).
fn compare(
    cpu: &[Result<BatchEstimate, Error>],
    gpu: &[Result<BatchEstimate, Error>],
    bits_equal: bool,
    eps: f64,
    what: &str,
) {
    for (k, (c, g)) in cpu.iter().zip(gpu).enumerate() {
        if bits_equal {
            match (c, g) {
                (Ok(c), Ok(g)) => assert_eq!(c, g, "{what}, row {k}"),
                (Err(c), Err(g)) => assert_eq!(c.to_string(), g.to_string(), "{what}, row {k}"),
                _ => panic!("{what}, row {k}: cpu {c:?}, gpu {g:?}"),
            }
        } else {
            let (c, g) = (c.as_ref().unwrap(), g.as_ref().unwrap());
            let (cv, gv) = (c.value.to_f64(), g.value.to_f64());
            assert!(
                (cv - gv).abs() <= 16.0 * eps * cv.abs(),
                "{what}, row {k}: cpu {cv:e}, gpu {gv:e}"
            );
            assert_eq!(c.converged, g.converged, "{what}, row {k}");
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn dd_rows_are_the_cpu_bits() {
    families::<Dd>(Precision::Dd, true);
}

#[test]
#[ignore = "needs a CUDA device"]
fn qd_rows_are_the_cpu_bits() {
    families::<Qd>(Precision::Qd, true);
}

#[test]
#[ignore = "needs a CUDA device"]
fn f64_rows_within_a_few_ulp_of_the_cpu() {
    families::<f64>(Precision::F64, false);
}

/// A rational integrand calls no libdevice function: in f64 too the rows are the CPU's bits.
/// ∫_0^1 dx / (1 + p x²) = atan(√p)/√p.
#[test]
#[ignore = "needs a CUDA device"]
fn f64_rational_rows_are_the_cpu_bits() {
    let rows = linspace("0.25", "50", 101);
    for method in BatchMethod::ALL {
        let batch = Batch::new("1/(1+p*x^2)", &["p"])
            .unwrap()
            .bounds("0", "1")
            .method(method)
            .precision(Precision::F64);
        let (cpu, gpu) = both(&batch, &rows);
        compare(&cpu, &gpu, true, f64::EPSILON, &format!("f64 {method}"));
        let references: Vec<Float> = rows
            .iter()
            .map(|r| {
                let sp = Float::with_val(BITS, p_of::<f64>(r).sqrt_ref());
                Float::with_val(BITS, sp.clone().atan() / sp)
            })
            .collect();
        check_closed_forms(
            &gpu,
            &references,
            100.0 * f64::EPSILON,
            &format!("f64 {method}"),
        );
    }
}

/// sqrt(x − p) is NaN left of p: the members with p inside (0, 1) fail, in their own rows and
/// with the CPU's messages (the same point); those with p < 0 integrate to
/// (2/3)((1 − p)^1.5 − (−p)^1.5), checked in MPFR.
#[test]
#[ignore = "needs a CUDA device"]
fn failing_members_fail_in_the_same_rows() {
    let values = ["-2", "0.3", "-0.5", "0.75", "-1", "0.5", "-3"];
    let rows: Vec<Vec<ParamValue>> = values.iter().map(|v| vec![ParamValue::from(*v)]).collect();
    for precision in [Precision::F64, Precision::Dd, Precision::Qd] {
        for method in BatchMethod::ALL {
            let batch = Batch::new("sqrt(x-p)", &["p"])
                .unwrap()
                .bounds("0", "1")
                .method(method)
                .precision(precision);
            let (cpu, gpu) = both(&batch, &rows);
            let what = format!("{} {method}", precision_name(precision));
            for (k, (c, g)) in cpu.iter().zip(&gpu).enumerate() {
                let inside = !values[k].starts_with('-');
                match (c, g) {
                    (Err(c), Err(g)) => {
                        assert!(inside, "{what}, row {k}: {g}");
                        assert!(matches!(g, Error::NonFinite { .. }), "{what}, row {k}: {g}");
                        assert_eq!(c.to_string(), g.to_string(), "{what}, row {k}");
                    }
                    (Ok(c), Ok(g)) => {
                        assert!(!inside, "{what}, row {k}: p = {} integrated", values[k]);
                        let p = Float::with_val(BITS, Float::parse(values[k]).unwrap());
                        let one_p = Float::with_val(BITS, 1 - p.clone());
                        let r = (one_p.clone() * one_p.sqrt()
                            - Float::with_val(BITS, -p.clone()) * Float::with_val(BITS, -p).sqrt())
                            * 2
                            / 3;
                        let actual = Float::with_val(BITS, &exact(&g.value) - &r).abs().to_f64();
                        assert!(
                            actual <= g.error + 1e-12,
                            "{what}, row {k}: off by {actual:e}"
                        );
                        if precision != Precision::F64 {
                            assert_eq!(c, g, "{what}, row {k}");
                        } else {
                            let (cv, gv) = (c.value.to_f64(), g.value.to_f64());
                            assert!((cv - gv).abs() <= 16.0 * f64::EPSILON * cv.abs());
                        }
                    }
                    _ => panic!("{what}, row {k}: cpu {c:?}, gpu {g:?}"),
                }
            }
        }
    }
}

/// A million f64 integrals in launches of 300 000 (four chunks, the last short), every row
/// against the CPU and its closed form; and Auto takes the GPU for it.
#[test]
#[ignore = "needs a CUDA device"]
fn a_million_integrals_run_in_chunks() {
    let n = 1_000_000;
    let rows = linspace("0.001", "30", n);
    let batch = Batch::new("1/(1+p*x^2)", &["p"])
        .unwrap()
        .bounds("0", "1")
        .method(BatchMethod::GaussKronrod)
        .precision(Precision::F64)
        .tolerance(1e-13);
    let chunked = batch.clone().gpu_chunk(300_000);
    let (cpu, gpu) = both(&chunked, &rows);
    let whole = batch.clone().device(Device::Auto).compute(&rows).unwrap();
    for (k, ((c, g), w)) in cpu.iter().zip(&gpu).zip(&whole).enumerate() {
        let (c, g, w) = (
            c.as_ref().unwrap(),
            g.as_ref().unwrap(),
            w.as_ref().unwrap(),
        );
        // Rational: the CPU's bits, whatever the chunking.
        assert_eq!(c, g, "row {k}");
        assert_eq!(g, w, "row {k}");
        assert!(g.converged, "row {k}");
    }
    // The closed form on every thousandth row.
    for k in (0..n as usize).step_by(1000) {
        let g = gpu[k].as_ref().unwrap();
        let sp = Float::with_val(BITS, p_of::<f64>(&rows[k]).sqrt_ref());
        let r = Float::with_val(BITS, sp.clone().atan() / sp);
        let actual = Float::with_val(BITS, &exact(&g.value) - &r).abs().to_f64();
        assert!(
            actual <= g.error + 4.0 * f64::EPSILON,
            "row {k}: off by {actual:e}"
        );
    }
}

/// The Gaussian over [0, i]² (the paper's 2-D test), every method and precision, one
/// rectangle per GPU thread by Fubini: the CPU's rows (bits in dd and qd; in f64 within the
/// two estimates), and each value within its estimate of (√π/2 · erf i)², Gauss–Kronrod
/// converged.
#[test]
#[ignore = "needs a CUDA device"]
fn rectangles_are_the_cpu_rows() {
    let rows = linspace("0.1", "2", 23);
    for precision in [Precision::F64, Precision::Dd, Precision::Qd] {
        let eps = match precision {
            Precision::F64 => f64::EPSILON,
            Precision::Dd => Dd::EPSILON.to_f64(),
            Precision::Qd => Qd::EPSILON.to_f64(),
        };
        for method in BatchMethod::ALL {
            let what = format!("{} {method} 2-D", precision_name(precision));
            let tolerance = match (method, precision) {
                (BatchMethod::AdaptiveSimpson, _) => 1e-6,
                (_, Precision::F64) => 1e-12,
                (_, Precision::Dd) => 1e-26,
                (_, Precision::Qd) => 1e-50,
            };
            let batch = Batch::new_2d("exp(-(x^2+y^2))", &["i"])
                .unwrap()
                .bounds("0", "i")
                .y_bounds("0", "i")
                .method(method)
                .precision(precision)
                .tolerance(tolerance);
            let (cpu, gpu) = both(&batch, &rows);
            if precision == Precision::F64 {
                // libdevice's exp moves the last bits of the integrand, and through FAQ's
                // steps and the adaptive splits the whole walk: the two agree within their
                // estimates (and Gauss-Kronrod converges on both).
                for (k, (c, g)) in cpu.iter().zip(&gpu).enumerate() {
                    let (c, g) = (c.as_ref().unwrap(), g.as_ref().unwrap());
                    let gap = (c.value.to_f64() - g.value.to_f64()).abs();
                    assert!(gap <= c.error + g.error, "{what}, row {k}: {c:?} {g:?}");
                    if method == BatchMethod::GaussKronrod {
                        assert!(c.converged && g.converged, "{what}, row {k}");
                    }
                }
            } else {
                compare(&cpu, &gpu, true, eps, &what);
            }
            for (k, (g, row)) in gpu.iter().zip(&rows).enumerate() {
                let g = g.as_ref().unwrap();
                let i = match precision {
                    Precision::F64 => p_of::<f64>(row),
                    Precision::Dd => p_of::<Dd>(row),
                    Precision::Qd => p_of::<Qd>(row),
                };
                let half_sqrt_pi =
                    Float::with_val(BITS, Float::with_val(BITS, rug::float::Constant::Pi).sqrt())
                        / 2u32;
                let reference = Float::with_val(BITS, half_sqrt_pi * i.erf()).square();
                let error = Float::with_val(BITS, &exact(&g.value) - &reference)
                    .abs()
                    .to_f64();
                assert!(
                    error <= g.error,
                    "{what}, row {k}: error {error:e} above the estimate {:e}",
                    g.error
                );
                if method != BatchMethod::Faq {
                    assert!(
                        error <= tolerance * reference.to_f64(),
                        "{what}, row {k}: error {error:e}"
                    );
                }
                if method == BatchMethod::GaussKronrod {
                    assert!(g.converged, "{what}, row {k}: {g:?}");
                }
            }
        }
    }
}

/// Rectangles given reversed or empty in x, in y or both: 0 (with the CPU's sign) or the
/// integral of the ordered rectangle, negated once for each reversed side, the CPU's bits; members whose integrand is NaN somewhere (sqrt(y − c) for
/// c inside) fail with the CPU's message naming x and y, and one whose inner integrals
/// overflow (1e308 over y in [0, 10]) fails at x alone, as on the CPU.
#[test]
#[ignore = "needs a CUDA device"]
fn rectangles_orient_and_fail_as_on_the_cpu() {
    let corners = [
        ("1", "1"),
        ("-1", "1"),
        ("1", "-1"),
        ("-1", "-1"),
        ("0", "1"),
        ("1", "0"),
        ("-1", "0"),
        ("0", "-1"),
    ];
    let rows: Vec<Vec<ParamValue>> = corners
        .iter()
        .map(|(u, v)| vec![ParamValue::from(*u), ParamValue::from(*v)])
        .collect();
    for precision in [Precision::Dd, Precision::Qd] {
        for method in BatchMethod::ALL {
            let what = format!("{} {method} 2-D", precision_name(precision));
            let batch = Batch::new_2d("exp(-(x^2+y^2))", &["u", "v"])
                .unwrap()
                .bounds("0", "u")
                .y_bounds("0", "v")
                .method(method)
                .precision(precision);
            let (cpu, gpu) = both(&batch, &rows);
            for (k, (c, g)) in cpu.iter().zip(&gpu).enumerate() {
                // Debug shows the sign of a zero.
                assert_eq!(format!("{c:?}"), format!("{g:?}"), "{what}, row {k}");
            }
            // One side reversed: negative; both: positive.
            let sign = |k: usize| exact(&gpu[k].as_ref().unwrap().value).cmp0();
            use std::cmp::Ordering::{Greater, Less};
            assert_eq!(
                [sign(0), sign(1), sign(2), sign(3)],
                [Some(Greater), Some(Less), Some(Less), Some(Greater)],
                "{what}: the signs of the oriented rectangles"
            );
            assert_eq!(gpu[4].as_ref().unwrap().evaluations, 0, "{what}: empty x");

            let failing = Batch::new_2d("sqrt(y-c)", &["c"])
                .unwrap()
                .bounds("0", "1")
                .y_bounds("0", "1")
                .method(method)
                .precision(precision);
            let values = ["-1", "0.3", "-0.5", "0.75"];
            let rows: Vec<Vec<ParamValue>> =
                values.iter().map(|v| vec![ParamValue::from(*v)]).collect();
            let (cpu, gpu) = both(&failing, &rows);
            for (k, (c, g)) in cpu.iter().zip(&gpu).enumerate() {
                let inside = !values[k].starts_with('-');
                match (c, g) {
                    (Err(c), Err(g)) => {
                        assert!(inside, "{what}, row {k}: {g}");
                        assert!(g.to_string().contains("y = "), "{what}, row {k}: {g}");
                        assert_eq!(c.to_string(), g.to_string(), "{what}, row {k}");
                    }
                    (Ok(c), Ok(g)) => {
                        assert!(!inside, "{what}, row {k}");
                        assert_eq!(c, g, "{what}, row {k}");
                    }
                    _ => panic!("{what}, row {k}: cpu {c:?}, gpu {g:?}"),
                }
            }

            let overflowing = Batch::new_2d("1e308", &[])
                .unwrap()
                .bounds("0", "1")
                .y_bounds("0", "10")
                .method(method)
                .precision(precision);
            let (cpu, gpu) = both(&overflowing, &[vec![]]);
            let (c, g) = (cpu[0].as_ref().unwrap_err(), gpu[0].as_ref().unwrap_err());
            assert_eq!(c.to_string(), g.to_string(), "{what}: overflow");
            assert!(!g.to_string().contains("y = "), "{what}: {g}");
        }
    }
}

/// Bounds are evaluated on the device and parameters read there: a bound that is not finite
/// (sqrt(p) − sqrt(p) at p = -1, 1/p at p = 0, the y bound 1/(p − 2) at p = 2), a value that
/// is not a number and a tuple of the wrong length fail in their own rows with the CPU's
/// messages, in every precision and method, 1-D and 2-D; the rows around them are the CPU's
/// (bits in dd and qd) and within their estimates of the closed form ∫_0^b dx/(1 + p x)² =
/// b/(1 + p b) (times the y width in 2-D). Rational, so that the kernels compile quickly.
#[test]
#[ignore = "needs a CUDA device"]
fn bounds_and_parameters_fail_in_the_same_rows() {
    let rows: Vec<Vec<ParamValue>> = vec![
        vec!["1".into()],
        vec!["0".into()],
        vec!["-1".into()],
        vec!["abc".into()],
        vec![],
        vec!["2".into(), "3".into()],
        vec!["2".into()],
        vec![ParamValue::F64(0.75)],
    ];
    // Which rows fail: in 2-D p = 2 as well (its y bound).
    let fails_1d = [false, true, true, true, true, true, false, false];
    let fails_2d = [false, true, true, true, true, true, true, false];
    let bound_rows_1d = [1, 2];
    let bound_rows_2d = [1, 2, 6];
    for precision in [Precision::F64, Precision::Dd, Precision::Qd] {
        let eps = match precision {
            Precision::F64 => f64::EPSILON,
            Precision::Dd => Dd::EPSILON.to_f64(),
            Precision::Qd => Qd::EPSILON.to_f64(),
        };
        for method in BatchMethod::ALL {
            for dims in [1, 2] {
                let what = format!("{} {method} {dims}-D", precision_name(precision));
                let batch = if dims == 1 {
                    Batch::new("1/(1+p*x)^2", &["p"])
                        .unwrap()
                        .bounds("sqrt(p)-sqrt(p)", "1/p")
                } else {
                    Batch::new_2d("1/(1+p*x)^2", &["p"])
                        .unwrap()
                        .bounds("sqrt(p)-sqrt(p)", "1/p")
                        .y_bounds("0", "1/(p-2)")
                }
                .method(method)
                .precision(precision)
                .tolerance(if method == BatchMethod::AdaptiveSimpson {
                    1e-8
                } else {
                    1e3 * eps
                });
                let (cpu, gpu) = both(&batch, &rows);
                let (fails, bound_rows) = if dims == 1 {
                    (fails_1d, &bound_rows_1d[..])
                } else {
                    (fails_2d, &bound_rows_2d[..])
                };
                for (k, (c, g)) in cpu.iter().zip(&gpu).enumerate() {
                    match (c, g) {
                        (Err(c), Err(g)) => {
                            assert!(fails[k], "{what}, row {k}: {g}");
                            assert_eq!(c.to_string(), g.to_string(), "{what}, row {k}");
                            let bound = matches!(g, Error::InvalidBound { .. });
                            assert_eq!(bound, bound_rows.contains(&k), "{what}, row {k}: {g}");
                        }
                        (Ok(c), Ok(g)) => {
                            assert!(!fails[k], "{what}, row {k} integrated");
                            if precision != Precision::F64 {
                                assert_eq!(c, g, "{what}, row {k}");
                            }
                            let p = match &rows[k][0] {
                                ParamValue::F64(x) => *x,
                                other => other.value::<f64>().unwrap(),
                            };
                            // b = 1/p as the batch computes it (1 and 4/3 rounded: within
                            // 100 ε below), the y width 1/(p − 2).
                            let p = Float::with_val(BITS, p);
                            let b = Float::with_val(BITS, 1u32 / &p);
                            let pb1 = Float::with_val(BITS, &p * &b) + 1u32;
                            let mut r = Float::with_val(BITS, &b / pb1);
                            if dims == 2 {
                                r /= Float::with_val(BITS, &p - 2u32);
                            }
                            let actual = Float::with_val(BITS, &exact(&g.value) - &r).abs();
                            assert!(
                                actual.to_f64() <= g.error + 100.0 * eps * r.to_f64().abs(),
                                "{what}, row {k}: off by {actual:e}"
                            );
                        }
                        _ => panic!("{what}, row {k}: cpu {c:?}, gpu {g:?}"),
                    }
                }
            }
        }
    }
}

/// A grid of sweeps as `--param` builds it (p changes every 5 rows, q every row) with an
/// uploaded third parameter: the device makes p and q from the row's index, also across
/// launches of 4 (each launch starts mid-grid): the CPU's rows, bit for bit in every
/// precision (the integrand is rational), and ∫_0^{1+q} (1 + q x)/((1 + p x)² (1 + r)) dx =
/// ((1 − q/p)(1 − 1/(1 + p b)) + (q/p) ln(1 + p b)) / (p (1 + r)), b = 1 + q, in MPFR.
#[test]
#[ignore = "needs a CUDA device"]
fn sweeps_in_a_grid_are_the_cpu_rows() {
    let (np, nq) = (7u64, 5u64);
    let rows: Vec<Vec<ParamValue>> = (0..np)
        .flat_map(|i| {
            (0..nq).map(move |j| {
                vec![
                    ParamValue::linspace("0.5", "3", i, np),
                    ParamValue::linspace("0", "1/3", j, nq),
                    ParamValue::from(format!("0.{}", i * nq + j)),
                ]
            })
        })
        .collect();
    for precision in [Precision::F64, Precision::Dd, Precision::Qd] {
        let eps = match precision {
            Precision::F64 => f64::EPSILON,
            Precision::Dd => Dd::EPSILON.to_f64(),
            Precision::Qd => Qd::EPSILON.to_f64(),
        };
        for method in BatchMethod::ALL {
            let what = format!("{} {method}", precision_name(precision));
            let batch = Batch::new("(1+q*x)/((1+p*x)^2*(1+r))", &["p", "q", "r"])
                .unwrap()
                .bounds("0", "1+q")
                .method(method)
                .precision(precision)
                .tolerance(if method == BatchMethod::AdaptiveSimpson {
                    1e-8
                } else {
                    1e3 * eps
                });
            let (cpu, gpu) = both(&batch, &rows);
            let launches = batch
                .clone()
                .device(Device::Gpu)
                .gpu_chunk(4)
                .compute(&rows)
                .unwrap();
            for (k, ((c, g), l)) in cpu.iter().zip(&gpu).zip(&launches).enumerate() {
                let (c, g, l) = (
                    c.as_ref().unwrap(),
                    g.as_ref().unwrap(),
                    l.as_ref().unwrap(),
                );
                assert_eq!(c, g, "{what}, row {k}");
                assert_eq!(g, l, "{what}, row {k}: launches of 4");
                let value = |v: &ParamValue| match precision {
                    Precision::F64 => mpfr_support::mpfr(v.value::<f64>().unwrap()),
                    Precision::Dd => mpfr_support::mpfr(v.value::<Dd>().unwrap()),
                    Precision::Qd => mpfr_support::mpfr(v.value::<Qd>().unwrap()),
                };
                let (p, q, r) = (value(&rows[k][0]), value(&rows[k][1]), value(&rows[k][2]));
                // The upper bound 1 + q as the batch computes it.
                let b = match precision {
                    Precision::F64 => mpfr_support::mpfr(1.0 + rows[k][1].value::<f64>().unwrap()),
                    Precision::Dd => {
                        mpfr_support::mpfr(Dd::ONE + rows[k][1].value::<Dd>().unwrap())
                    }
                    Precision::Qd => {
                        mpfr_support::mpfr(Qd::ONE + rows[k][1].value::<Qd>().unwrap())
                    }
                };
                let u = Float::with_val(BITS, &p * &b) + 1u32;
                let qp = Float::with_val(BITS, &q / &p);
                let first = Float::with_val(BITS, 1u32 - qp.clone())
                    * Float::with_val(BITS, 1u32 - Float::with_val(BITS, 1u32 / &u));
                let second = qp * u.ln();
                let reference = (first + second) / (p * (r + 1u32));
                let actual = Float::with_val(BITS, &exact(&g.value) - &reference)
                    .abs()
                    .to_f64();
                assert!(
                    actual <= g.error + 100.0 * eps * reference.to_f64().abs(),
                    "{what}, row {k}: off by {actual:e}, estimate {:e}",
                    g.error
                );
            }
        }
    }
}

/// Integrals per second of a million and ten million f64 FAQ integrals ∫_0^p dx/(1 + x²) on
/// the GPU, p a sweep (made on the device) or uploaded values (`ParamValue::F64`, the same
/// numbers), each timed after a warm-up and printed; every thousandth row within its bound
/// of atan p in MPFR, and the two forms of p give the same rows.
#[test]
#[ignore = "needs a CUDA device; a timing"]
fn throughput_of_sweeps_and_uploaded_values() {
    for n in [1_000_000u64, 10_000_000] {
        let sweep = linspace("0.5", "2", n);
        let values: Vec<Vec<ParamValue>> = sweep
            .iter()
            .map(|r| vec![ParamValue::F64(r[0].value::<f64>().unwrap())])
            .collect();
        for dims in [1, 2] {
            let batch = if dims == 1 {
                Batch::new("1/(1+x^2)", &["p"]).unwrap().bounds("0", "p")
            } else {
                Batch::new_2d("1/((1+x^2)*(1+y^2))", &["p"])
                    .unwrap()
                    .bounds("0", "p")
                    .y_bounds("0", "p")
            }
            .method(BatchMethod::Faq)
            .precision(Precision::F64)
            .device(Device::Gpu);
            if dims == 2 && n > 1_000_000 {
                continue;
            }
            let mut results = Vec::new();
            for (name, rows) in [("sweep", &sweep), ("values", &values)] {
                batch.compute(rows).unwrap();
                let mut best = f64::INFINITY;
                let mut out = Vec::new();
                for _ in 0..3 {
                    let start = std::time::Instant::now();
                    out = batch.compute(rows).unwrap();
                    best = best.min(start.elapsed().as_secs_f64());
                }
                let evaluations: u64 = out.iter().map(|e| e.as_ref().unwrap().evaluations).sum();
                println!(
                    "{dims}-D FAQ f64, {n} integrals, p {name}: {:.3e} integrals/s, {:.3e} \
                     evaluations/s ({:.1} ms)",
                    n as f64 / best,
                    evaluations as f64 / best,
                    best * 1e3
                );
                results.push(out);
            }
            for (k, (a, b)) in results[0].iter().zip(&results[1]).enumerate() {
                assert_eq!(a.as_ref().unwrap(), b.as_ref().unwrap(), "{dims}-D row {k}");
            }
            for k in (0..n as usize).step_by(1000) {
                let g = results[0][k].as_ref().unwrap();
                let a = Float::with_val(BITS, p_of::<f64>(&sweep[k]).atan_ref());
                let reference = if dims == 1 { a } else { a.square() };
                let actual = Float::with_val(BITS, &exact(&g.value) - &reference)
                    .abs()
                    .to_f64();
                assert!(actual <= g.error, "{dims}-D row {k}: off by {actual:e}");
            }
        }
    }
}

/// Rows as estimates or error messages, to compare a sweep's columns with rows.
type Texts = Vec<Result<BatchEstimate, String>>;

fn column_texts(columns: &SweepColumns) -> Texts {
    (0..columns.len())
        .map(|i| columns.row(i).map_err(|e| e.to_string()))
        .collect()
}

fn row_texts(rows: &Rows) -> Texts {
    rows.iter()
        .map(|r| r.as_ref().cloned().map_err(|e| e.to_string()))
        .collect()
}

/// Rows equal, failures included (dd, qd), or (f64) the same rows failing and the others'
/// values within their two error estimates and 16 ulp: the integrand's transcendental
/// functions are libdevice's there, and a last bit moved by log moves FAQ's and the adaptive
/// methods' next points (a 1-D FAQ row on the H100 moved by 6e-14, its bound 1e-3).
fn compare_texts(a: &Texts, b: &Texts, bits_equal: bool, eps: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (k, (a, b)) in a.iter().zip(b).enumerate() {
        match (a, b) {
            _ if bits_equal => assert_eq!(a, b, "{what}, row {k}"),
            (Ok(a), Ok(b)) => {
                let (av, bv) = (a.value.to_f64(), b.value.to_f64());
                assert!(
                    (av - bv).abs() <= a.error + b.error + 16.0 * eps * av.abs(),
                    "{what}, row {k}: {av:e} against {bv:e}"
                );
            }
            (Err(_), Err(_)) => {}
            _ => panic!("{what}, row {k}: {a:?} against {b:?}"),
        }
    }
}

/// The rows of a grid of ranges, the first varying slowest.
fn grid_rows(ranges: &[ParamRange]) -> Vec<Vec<ParamValue>> {
    let mut rows: Vec<Vec<ParamValue>> = vec![vec![]];
    for r in ranges {
        rows = rows
            .into_iter()
            .flat_map(|row| {
                (0..r.count).map(move |k| {
                    let mut row = row.clone();
                    row.push(ParamValue::linspace(&r.start, &r.stop, k, r.count));
                    row
                })
            })
            .collect();
    }
    rows
}

/// `Batch::sweep` on the GPU: the CPU's columns (dd and qd: the same bits, failures with the
/// same messages in the same rows; f64: the same rows failing, values within 16 ulp), the
/// rows `compute` gives on the GPU for the same tuples, and the failed rows NaN, NaN, 0, not
/// converged in the columns. A grid of two ranges with failing members in x (a bound that is
/// not finite at c = −1, NaN inside for c = −1.5 and 0.5), every method, and a rectangle (f64
/// FAQ, dd Gauss–Kronrod).
#[test]
#[ignore = "needs a CUDA device"]
fn sweep_columns_are_the_cpu_columns() {
    let one = [
        ParamRange::new("-2", "0.5", 6),
        ParamRange::new("1", "3", 5),
    ];
    let two = [ParamRange::new("0.5", "2", 9)];
    for (precision, bits, eps) in [
        (Precision::F64, false, f64::EPSILON),
        (Precision::Dd, true, Dd::epsilon().to_f64()),
        (Precision::Qd, true, Qd::epsilon().to_f64()),
    ] {
        for method in BatchMethod::ALL {
            let what = format!("{} {method}", precision_name(precision));
            let batches = [
                (
                    Batch::new("p*log(x - c)", &["c", "p"])
                        .unwrap()
                        .bounds("0", "1/(c+1)"),
                    &one[..],
                ),
                (
                    Batch::new_2d("exp(-p*(x^2+y^2))", &["p"])
                        .unwrap()
                        .bounds("0", "1")
                        .y_bounds("0", "p"),
                    &two[..],
                ),
            ];
            for (batch, ranges) in batches {
                // One rectangle kernel per precision's representative (NVRTC takes seconds
                // over each; the others are rectangles_are_the_cpu_rows').
                let rectangle = ranges.len() == 1;
                if rectangle
                    && !matches!(
                        (precision, method),
                        (Precision::F64, BatchMethod::Faq)
                            | (Precision::Dd, BatchMethod::GaussKronrod)
                    )
                {
                    continue;
                }
                let batch = batch
                    .method(method)
                    .precision(precision)
                    .tolerance(1e3 * eps);
                let cpu = batch.clone().device(Device::Cpu).sweep(ranges).unwrap();
                let gpu = batch.clone().device(Device::Gpu).sweep(ranges).unwrap();
                let rows = batch
                    .clone()
                    .device(Device::Gpu)
                    .compute(&grid_rows(ranges))
                    .unwrap();
                let gpu_texts = column_texts(&gpu);
                compare_texts(&column_texts(&cpu), &gpu_texts, bits, eps, &what);
                compare_texts(&row_texts(&rows), &gpu_texts, true, eps, &what);
                let failed: Vec<usize> = gpu.failures().iter().map(|f| f.0).collect();
                let cpu_failed: Vec<usize> = cpu.failures().iter().map(|f| f.0).collect();
                assert_eq!(failed, cpu_failed, "{what}");
                if !rectangle {
                    // c = −1.5 (rows 5..10), −1 (10..15) and 0.5 (25..30).
                    let expected: Vec<usize> = (5..15).chain(25..30).collect();
                    assert_eq!(failed, expected, "{what}");
                }
                for &i in &failed {
                    assert!(gpu.values().get(i).to_f64().is_nan(), "{what}, row {i}");
                    assert!(gpu.errors()[i].is_nan(), "{what}, row {i}");
                    assert_eq!(gpu.evaluations()[i], 0, "{what}, row {i}");
                    assert!(!gpu.converged()[i], "{what}, row {i}");
                }
            }
        }
    }
}

/// Timings of `Batch::sweep` on the GPU, printed (run with --nocapture): a first 2-D
/// Gauss–Kronrod batch, which compiles its kernel, against the batches after it at 10^3 to
/// 10^6; then 1-D FAQ in f64 at 10^6 and 10^7 and 2-D FAQ at 10^6 (the issue's goal: 10^9
/// evaluations a second in 1-D), each with the device's part alone (`Gpu::batch`: launches
/// and copies) beside the whole call. Every sampled value is held to its closed form, atan p
/// or atan² p, within its error estimate.
#[test]
#[ignore = "needs a CUDA device; a timing"]
fn throughput_of_sweep_columns() {
    use hpquad::expr::{cuda, Expr};
    use hpquad::gpu::{BatchParams, BatchSettings, Gpu, ParamSource};
    use hpquad::methods::batch::faq::Steps;
    use hpquad::methods::batch::Tolerance;
    use std::time::Instant;

    let best = |batch: &Batch, ranges: &[ParamRange]| {
        batch.sweep(ranges).unwrap();
        let mut best = f64::INFINITY;
        let mut out = None;
        for _ in 0..3 {
            let start = Instant::now();
            let columns = batch.sweep(ranges).unwrap();
            best = best.min(start.elapsed().as_secs_f64());
            out = Some(columns);
        }
        (out.unwrap(), best)
    };
    let check = |columns: &SweepColumns, range: &ParamRange, dims: usize, what: &str| {
        assert!(columns.failures().is_empty(), "{what}");
        let ValueColumn::F64(values) = columns.values() else {
            panic!("{what}: not f64")
        };
        let p_of = range.points::<f64>().unwrap();
        for k in (0..columns.len()).step_by(997) {
            let a = Float::with_val(BITS, mpfr_support::mpfr(p_of(k as u64)).atan_ref());
            let reference = if dims == 1 { a } else { a.square() };
            let actual = Float::with_val(BITS, mpfr_support::mpfr(values[k]) - &reference)
                .abs()
                .to_f64();
            assert!(actual <= columns.errors()[k], "{what}, row {k}: {actual:e}");
        }
    };
    let bell = |dims: usize, method: BatchMethod| {
        let batch = if dims == 1 {
            Batch::new("1/(1+x^2)", &["p"]).unwrap().bounds("0", "p")
        } else {
            Batch::new_2d("1/((1+x^2)*(1+y^2))", &["p"])
                .unwrap()
                .bounds("0", "p")
                .y_bounds("0", "p")
        }
        .method(method)
        .precision(Precision::F64)
        .device(Device::Gpu);
        match method {
            BatchMethod::Faq => batch,
            _ => batch.tolerance(1e-6),
        }
    };

    // 2-D Gauss–Kronrod: the first batch pays for NVRTC (unless the disk cache has the
    // kernel), the later ones for the integrals alone.
    let gk = bell(2, BatchMethod::GaussKronrod);
    let start = Instant::now();
    gk.sweep(&[ParamRange::new("0.5", "2", 1000)]).unwrap();
    let stats = hpquad::gpu::compile_stats();
    println!(
        "2-D gauss-kronrod f64, first batch of 1000: {:.3} s ({} NVRTC compiles, {:.3} s in \
         NVRTC, {} disk-cache loads)",
        start.elapsed().as_secs_f64(),
        stats.nvrtc_compiles,
        stats.nvrtc_time.as_secs_f64(),
        stats.disk_hits
    );
    for n in [1_000u64, 10_000, 100_000, 1_000_000] {
        let range = ParamRange::new("0.5", "2", n);
        let (columns, s) = best(&gk, std::slice::from_ref(&range));
        let evaluations: u64 = columns.evaluations().iter().sum();
        println!(
            "2-D gauss-kronrod f64, {n} integrals: {:.3e} integrals/s, {:.3e} evaluations/s \
             ({:.2} ms)",
            n as f64 / s,
            evaluations as f64 / s,
            s * 1e3
        );
        assert!(
            columns.converged().iter().all(|&c| c),
            "2-D gauss-kronrod {n}"
        );
        check(&columns, &range, 2, "2-D gauss-kronrod");
    }

    // FAQ in f64: the whole sweep, and the device's part alone.
    let device = Gpu::new(0).unwrap();
    for (dims, n) in [(1, 1_000_000u64), (1, 10_000_000), (2, 1_000_000)] {
        let range = ParamRange::new("0.5", "2", n);
        let (columns, s) = best(&bell(dims, BatchMethod::Faq), std::slice::from_ref(&range));
        let evaluations: u64 = columns.evaluations().iter().sum();
        let (text, bounds) = if dims == 1 {
            ("1/(1+x^2)", vec!["0", "p"])
        } else {
            ("1/((1+x^2)*(1+y^2))", vec!["0", "p", "0", "p"])
        };
        let e = Expr::parse_with_parameters(text, dims, &["p"]).unwrap();
        let integrand = cuda::integrand::<f64>(e.tape()).unwrap();
        let bounds: Vec<_> = bounds
            .iter()
            .map(|b| {
                let b = Expr::parse_with_parameters(b, 0, &["p"]).unwrap();
                cuda::integrand::<f64>(b.tape()).unwrap()
            })
            .collect();
        let source =
            Gpu::batch_source::<f64>(&integrand, &bounds, BatchMethod::Faq, dims, 0).unwrap();
        let sources = [ParamSource::Sweep {
            start: 0.5,
            stop: 2.0,
            count: n,
            stride: 1,
        }];
        let params = BatchParams {
            rows: n as usize,
            sources: &sources,
            values: &[],
        };
        let settings = BatchSettings {
            method: BatchMethod::Faq,
            tolerance: Tolerance {
                relative: 1000.0 * f64::EPSILON,
                absolute: 0.0,
            },
            max_evaluations: u64::MAX,
            steps: Steps::default(),
            rule: None,
            chunk: 0,
        };
        let mut device_best = f64::INFINITY;
        for _ in 0..3 {
            let start = Instant::now();
            let raw = device
                .batch(&source, dims, integrand.dims, &params, &settings)
                .unwrap();
            device_best = device_best.min(start.elapsed().as_secs_f64());
            assert_eq!(raw.len(), n as usize);
        }
        println!(
            "{dims}-D faq f64, {n} integrals as a sweep: {:.3e} integrals/s, {:.3e} \
             evaluations/s ({:.1} ms; Gpu::batch alone {:.1} ms)",
            n as f64 / s,
            evaluations as f64 / s,
            s * 1e3,
            device_best * 1e3
        );
        check(&columns, &range, dims, &format!("{dims}-D faq {n}"));
    }
}
