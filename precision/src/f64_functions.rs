//! The inverse hyperbolic functions for `f64`, where Rust's `std` falls short: its `atanh`
//! loses every digit near −1 and its `acosh` most of them near 1 (each evaluates a logarithm of
//! a number close to 1 formed with a rounding error), and `asinh`/`acosh` overflow for huge
//! arguments. These follow the classic fdlibm formulas (Sun Microsystems' e_acosh.c, s_asinh.c,
//! e_atanh.c), which keep the argument of `ln_1p` exact near the difficult points; they are
//! measured against MPFR in `tests/f64_functions.rs`.

use std::f64::consts::LN_2;

/// Above 2^28, `x² + 1` is `x²` in doubles, and asinh(x) = ln(2x) to double precision.
const HUGE: f64 = 268_435_456.0;

/// `asinh(x)`, within 2 ulp for every finite `x`.
pub(crate) fn asinh(x: f64) -> f64 {
    let a = x.abs();
    let r = if a > HUGE {
        a.ln() + LN_2
    } else if a > 2.0 {
        (2.0 * a + 1.0 / (a + (a * a + 1.0).sqrt())).ln()
    } else {
        let t = a * a;
        (a + t / (1.0 + (1.0 + t).sqrt())).ln_1p()
    };
    r.copysign(x)
}

/// `acosh(x)` for `x >= 1` (NaN below), within 2 ulp.
pub(crate) fn acosh(x: f64) -> f64 {
    if x < 1.0 || x.is_nan() {
        return f64::NAN;
    }
    if x > HUGE {
        x.ln() + LN_2
    } else if x > 2.0 {
        (2.0 * x - 1.0 / (x + (x * x - 1.0).sqrt())).ln()
    } else {
        // x - 1 is exact for x in [1, 2] (Sterbenz).
        let t = x - 1.0;
        (t + (2.0 * t + t * t).sqrt()).ln_1p()
    }
}

/// `atanh(x)` for `|x| <= 1` (±inf at ±1, NaN beyond), within 2 ulp; odd by construction.
pub(crate) fn atanh(x: f64) -> f64 {
    let a = x.abs();
    let r = if a < 0.5 {
        let t = a + a;
        0.5 * (t + t * a / (1.0 - a)).ln_1p()
    } else {
        0.5 * ((a + a) / (1.0 - a)).ln_1p()
    };
    r.copysign(x)
}
