//! The bodies of the fuzz targets: each takes arbitrary bytes, drives one input path of hpquad
//! with them, and panics only when a property fails (a panic inside hpquad is a failure too).
//! Compiled by the cargo-fuzz targets (fuzz_targets/*.rs) and by tests/fuzz_corpus.rs, which
//! replays the saved corpus in the ordinary test run.
//!
//! - [`expr`]: the parser and tape builder on any text, the evaluator in f64, dd and qd, and the
//!   CUDA code generator; an error names a column inside the text.
//! - [`decimal`]: decimal parsing in f64, dd and qd; a parsed finite value prints and parses
//!   back to the same bits.
//! - [`functions`]: every elementary function of one and two arguments at any dd or qd value;
//!   no NaN where the argument is in the function's domain.
//! - [`integral`]: a whole computation (integrand, text bounds, method, precision, evaluation
//!   cap, tolerance); a result is a finite value or an error, never a NaN estimate.

// Each fuzz target calls one of these bodies; the replay test calls them all.
#![allow(dead_code)]

use hpquad::expr::{cuda, Expr, Func, Func2};
use hpquad::integrand::Integrand;
use hpquad::precision::{Dd, Qd, Real};
use hpquad::{Integral, Method, Precision};

/// Text from bytes, at most `max` characters (longer inputs add nothing but time).
fn text(data: &[u8], max: usize) -> String {
    String::from_utf8_lossy(data).chars().take(max).collect()
}

/// `f64` from eight bytes (any bit pattern: NaN, infinities, subnormals included).
fn f64_at(data: &[u8], at: usize) -> f64 {
    let mut bytes = [0u8; 8];
    for (k, b) in bytes.iter_mut().enumerate() {
        *b = data.get(at + k).copied().unwrap_or(0);
    }
    f64::from_le_bytes(bytes)
}

pub fn expr(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let dims = (first % 5) as usize;
    let source = text(rest, 200);
    match Expr::parse(&source, dims) {
        Err(e) => {
            assert!(!e.message().is_empty(), "{source:?}: an empty message");
            let columns = source.chars().count() + 1;
            assert!(
                (1..=columns).contains(&e.column()),
                "{source:?}: column {} outside 1..={columns}",
                e.column()
            );
        }
        Ok(f) => {
            evaluate::<f64>(&f);
            evaluate::<Dd>(&f);
            evaluate::<Qd>(&f);
            // Code generation never panics: it gives CUDA or an error.
            let _ = cuda::integrand::<f64>(f.tape());
            let _ = cuda::integrand::<Dd>(f.tape());
            let _ = cuda::integrand::<Qd>(f.tape());
        }
    }
}

/// The expression at a few points of its domain, in `T`.
fn evaluate<T: Real>(f: &Expr) {
    let dims = f.dims().max(1);
    let columns: Vec<Vec<T>> = (0..dims)
        .map(|d| {
            [0.5, -1.25, 3.0, 1e-300]
                .iter()
                .map(|&x| T::from_f64(x * (d + 1) as f64))
                .collect()
        })
        .collect();
    let columns: Vec<&[T]> = columns.iter().map(Vec::as_slice).collect();
    let mut out = vec![T::zero(); 4];
    f.eval_batch(&columns, &mut out);
    let _ = f.eval_constant::<T>();
}

pub fn decimal(data: &[u8]) {
    let source = text(data, 120);
    round_trip::<f64>(&source);
    round_trip::<Dd>(&source);
    round_trip::<Qd>(&source);
}

/// A parsed finite value prints as digits that parse back to the same value. (The same value,
/// not always the same limbs: where a lower limb is exactly half an ulp of the one above, as
/// in qd's 1e-307 + 2^-1073, the tie has two normalised forms.)
fn round_trip<T: Real>(source: &str) {
    let Ok(v) = T::parse_decimal(source) else {
        return;
    };
    if !v.is_finite() {
        return;
    }
    let printed = v.to_string();
    let back = T::parse_decimal(&printed)
        .unwrap_or_else(|e| panic!("{source:?} in {} printed {printed:?}: {e}", T::NAME));
    assert!(
        back.limbs() == v.limbs() || (back - v).to_f64() == 0.0,
        "{source:?} in {} printed {printed:?}: {:?} came back as {:?}",
        T::NAME,
        v.limbs(),
        back.limbs()
    );
}

pub fn functions(data: &[u8]) {
    let selector = data.first().copied().unwrap_or(0) as usize;
    let (hi, lo, y) = (f64_at(data, 1), f64_at(data, 9), f64_at(data, 17));
    if selector & 1 == 0 {
        one_type::<Dd>(selector >> 1, hi, lo, y);
    } else {
        one_type::<Qd>(selector >> 1, hi, lo, y);
    }
}

fn one_type<T: Real>(which: usize, hi: f64, lo: f64, y: f64) {
    // hi + lo, with lo scaled below hi's last bit so that the sum is a proper expansion.
    let x = if hi.is_finite() && lo.is_finite() && hi != 0.0 {
        let small = lo.clamp(-1.0, 1.0) * hi.abs() * f64::EPSILON * 0.25;
        T::from_f64(hi) + T::from_f64(small)
    } else {
        T::from_f64(hi)
    };
    let count = Func::ALL.len() + Func2::ALL.len();
    let k = which % count;
    if let Some(&f) = Func::ALL.get(k) {
        let value = f.apply(x);
        if x.is_finite() && in_domain(f, x) {
            assert!(
                !value.to_f64().is_nan(),
                "{}({:?}) in {} is NaN",
                f.name(),
                x.limbs(),
                T::NAME
            );
        }
    } else {
        let g = Func2::ALL[k - Func::ALL.len()];
        let b = T::from_f64(y);
        let value = g.apply(x, b);
        let due = x.is_finite()
            && b.is_finite()
            && match g {
                Func2::Pow => x.to_f64() > 0.0,
                _ => true,
            };
        if due {
            assert!(
                !value.to_f64().is_nan(),
                "{}({:?}, {y:e}) in {} is NaN",
                g.name(),
                x.limbs(),
                T::NAME
            );
        }
    }
}

/// Whether `f` has a value (finite or infinite, not NaN) at `x`, judged on the whole
/// expansion: 1 + 2^-1070 rounds to 1 as a double but is outside acos's domain (found by
/// this target: acos of it is NaN, rightly).
fn in_domain<T: Real>(f: Func, x: T) -> bool {
    let one = T::one();
    match f {
        Func::Sqrt | Func::Ln | Func::Log2 | Func::Log10 => x >= T::zero(),
        Func::Ln1p => x >= -one,
        Func::Asin | Func::Acos | Func::Atanh => x.abs() <= one,
        Func::Acosh => x >= one,
        // sin, cos and tan reduce every finite x (Payne–Hanek from 2^50 on).
        _ => true,
    }
}

pub fn integral(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let source = text(rest, 80);
    // The integrand, then the two bounds, separated by ';' (missing bounds: 0 and 1).
    let mut parts = source.split(';');
    let integrand = parts.next().unwrap_or("x");
    let lower = parts.next().unwrap_or("0");
    let upper = parts.next().unwrap_or("1");
    let method = match first % 6 {
        0 => Method::Auto,
        1 => Method::TanhSinh,
        2 => Method::GaussLegendre,
        3 => Method::GaussKronrod,
        4 => Method::Romberg,
        _ => Method::Trapezoid { intervals: 64 },
    };
    let precision = match (first / 6) % 3 {
        0 => Precision::F64,
        1 => Precision::Dd,
        _ => Precision::Qd,
    };
    // The rest of the selector picks the evaluation cap and the tolerance. With one cap of
    // 4096, the integrations that ran to it in qd (a qd powf is microseconds) were the costly
    // part of this target's own time: a cap of 1024, 256 or 64 meets the same code, each
    // method's stop at the cap among it, in a fraction of the time, and 4096 stays for what
    // needs many evaluations (an adaptive piece halved towards MAX_DEPTH, Romberg's high
    // levels). A loose tolerance takes the paths where a method converges early. Selectors
    // below 18 (every input saved before this choice existed) keep 4096 and the default
    // tolerance.
    let rest = u32::from(first / 18);
    let cap = 4096 >> (2 * (rest % 4));
    let tolerance = if (rest / 4) % 2 == 1 {
        Some(1e-8)
    } else {
        None
    };
    let Ok(integral) = Integral::new(integrand) else {
        return;
    };
    let mut integral = integral
        .bounds(lower, upper)
        .method(method)
        .precision(precision)
        .max_evaluations(cap)
        .threads(1);
    if let Some(relative) = tolerance {
        integral = integral.tolerance(relative);
    }
    if let Ok(estimate) = integral.compute() {
        assert!(
            estimate.value.to_f64().is_finite(),
            "{integrand:?} over [{lower:?}, {upper:?}] by {method:?} in {precision:?} \
             (cap {cap}, tolerance {tolerance:?}): {}",
            estimate.value.to_f64()
        );
        assert!(
            !estimate.error.is_nan(),
            "{integrand:?}: a NaN error estimate"
        );
    }
}
