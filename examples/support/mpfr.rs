//! MPFR (rug) quadrature and helpers shared by the reference generators
//! (`examples/references.rs`, `examples/compare_references.rs`): everything here computes at
//! `PREC` bits, independently of hpquad's arithmetic.

use rug::float::Constant;
use rug::Float;

/// Working precision of the quadrature and the closed forms (about 120 digits).
pub const PREC: u32 = 400;
/// Tanh-sinh stops when two successive step sizes agree to this many digits.
pub const AGREE: f64 = 100.0;
/// The finest tanh-sinh step is 2^-MAX_LEVEL.
pub const MAX_LEVEL: u32 = 16;

/// A decimal constant (or ±inf) at the working precision.
pub fn mp(text: &str) -> Float {
    match text.trim() {
        "inf" => Float::with_val(PREC, rug::float::Special::Infinity),
        "-inf" => Float::with_val(PREC, rug::float::Special::NegInfinity),
        t => match Float::parse(t) {
            Ok(parsed) => Float::with_val(PREC, parsed),
            Err(e) => panic!("bad constant {t} in the suite: {e}"),
        },
    }
}

/// Si(z) = Σ (−1)^n z^(2n+1) / ((2n+1) (2n+1)!), summed with enough guard bits for the
/// cancellation: the largest term is about e^z, so z log2(e) bits are lost.
pub fn sine_integral(z: &Float) -> Float {
    let guard = (z.to_f64() * std::f64::consts::LOG2_E) as u32 + 64;
    let prec = PREC + guard;
    let z = Float::with_val(prec, z);
    let z2 = Float::with_val(prec, &z * &z);
    let mut term = z.clone(); // (−1)^n z^(2n+1) / (2n+1)!
    let mut sum = z.clone();
    let mut n = 0u32;
    loop {
        n += 1;
        term *= &z2;
        term /= (2 * n) * (2 * n + 1);
        term = -term;
        let contribution = Float::with_val(prec, &term / (2 * n + 1));
        sum += &contribution;
        // Past the largest term (n > z) the terms fall; stop once they are below the bits kept.
        let negligible = contribution
            .get_exp()
            .is_none_or(|e| e < -(PREC as i32) - 64);
        if n as f64 > z.to_f64() && negligible {
            break;
        }
    }
    Float::with_val(PREC, sum)
}

/// One tanh-sinh result.
pub struct TanhSinh {
    pub value: Float,
    pub level: u32,
    pub points: u64,
    pub agreement: f64,
}

/// Tanh-sinh quadrature of `f` over the finite [a, b] in MPFR at `PREC` bits:
/// x = a + (b − a)(1 + tanh(π/2 sinh t))/2, trapezoid sums in t with steps 1, 1/2, 1/4, ...,
/// each reusing the last, until two agree to `AGREE` digits. Abscissas are computed from the
/// nearer endpoint, (b − a)/(1 + e^(2u)), so that they never round onto a bound; a branch stops
/// when both its weight and its term are negligible, so that integrands unbounded at an
/// endpoint (1/√x) keep the terms they need.
pub fn tanh_sinh(f: &dyn Fn(&Float) -> Float, a: &Float, b: &Float) -> Result<TanhSinh, String> {
    let width = Float::with_val(PREC, b - a);
    let half_pi = Float::with_val(PREC, Constant::Pi) / 2u32;
    let negligible = Float::with_val(PREC, Float::i_exp(1, -(PREC as i32 + 20)));
    let middle = Float::with_val(PREC, a + b) / 2u32;
    let mut sum = Float::with_val(PREC, &width * &half_pi) / 2u32 * f(&middle);
    let scale = Float::with_val(PREC, sum.abs_ref()) + Float::with_val(PREC, width.abs_ref());
    let term = |t: &Float| -> Option<Float> {
        let u = Float::with_val(PREC, t.sinh_ref()) * &half_pi;
        let cosh_u = Float::with_val(PREC, u.cosh_ref());
        let w = Float::with_val(PREC, t.cosh_ref()) * &half_pi / cosh_u.square() / 2u32;
        let e2u = Float::with_val(PREC, &u * 2u32).exp();
        let d = Float::with_val(PREC, &width / (e2u + 1u32)); // distance from a
        let near_a = Float::with_val(PREC, a + &d);
        let near_b = Float::with_val(PREC, b - &d);
        let v = (f(&near_a) + f(&near_b)) * &w * &width;
        let small =
            Float::with_val(PREC, v.abs_ref()) < Float::with_val(PREC, &negligible * &scale);
        if w.is_zero() || (w < negligible && small) {
            None
        } else {
            Some(v)
        }
    };
    let mut points = 1u64;
    let mut j = 1u32;
    while let Some(v) = term(&Float::with_val(PREC, j)) {
        sum += v;
        points += 2;
        j += 1;
    }
    let mut previous = Float::with_val(PREC, &sum);
    for level in 1..=MAX_LEVEL {
        let h = Float::with_val(PREC, Float::i_exp(1, -(level as i32)));
        let mut k = 1u64;
        while let Some(v) = term(&Float::with_val(PREC, &h * k)) {
            sum += v;
            points += 2;
            k += 2;
        }
        let estimate = Float::with_val(PREC, &sum * &h);
        let agree = agreement(&estimate, &previous);
        if agree >= AGREE {
            return Ok(TanhSinh {
                value: estimate,
                level,
                points,
                agreement: agree,
            });
        }
        previous = estimate;
    }
    Err(format!(
        "tanh-sinh did not reach {AGREE} digits with steps down to 2^-{MAX_LEVEL}"
    ))
}

/// Digits to which `x` and `y` agree: −log10 |x − y| / |y|.
pub fn agreement(x: &Float, y: &Float) -> f64 {
    let diff = Float::with_val(PREC, x - y).abs();
    if diff.is_zero() {
        return (PREC as f64) * 2f64.log10();
    }
    let rel = Float::with_val(PREC, diff / y.clone().abs());
    -rel.log10().to_f64()
}

/// `x` with `digits` significant digits in scientific notation.
pub fn decimal(x: &Float, digits: usize) -> String {
    format!("{x:.digits$}")
}
