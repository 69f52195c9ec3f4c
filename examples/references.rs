//! Regenerates `data/references.json`, the reference values of `hpquad bench`, with MPFR.
//!
//! ```text
//! cargo run --release --example references            # writes data/references.json
//! cargo run --release --example references -- FILE    # writes FILE
//! ```
//!
//! Each integral gets its value from a closed form evaluated in MPFR at 400 bits where one
//! exists, and otherwise from tanh-sinh quadrature written here in MPFR at 400 bits, refined
//! until two successive step sizes agree to 100 digits. Every closed form is also checked
//! against the same tanh-sinh rule, so the rule and the formulas vouch for each other, and
//! every MPFR integrand is checked against hpquad's own evaluation of the expression in
//! quad-double at a few points, so the file's expression and the MPFR function are the same
//! function. `rug` is a dev-dependency: the library and the `hpquad` command never need MPFR.

use std::error::Error;
use std::time::Instant;

use hpquad::bench::suite::{Reference, References};
use hpquad::expr::Expr;
use hpquad::integrand::Integrand;
use hpquad::precision::{Qd, Real};
use rug::float::Constant;
use rug::ops::Pow;
use rug::Float;

#[path = "support/mpfr.rs"]
mod mpfr;
use mpfr::{agreement, decimal, mp, sine_integral, tanh_sinh, AGREE, PREC};

/// Significant digits trusted and written.
const TRUSTED: u32 = 100;

type MpFn = fn(&Float) -> Float;
/// A closed form: how it reads, and its evaluation in MPFR.
type ClosedForm = (&'static str, fn() -> Float);

/// One integral: its expression for hpquad, the same function in MPFR, and its closed form if
/// it has one.
struct Spec {
    name: &'static str,
    title: &'static str,
    kind: &'static str,
    expression: &'static str,
    from: &'static str,
    to: &'static str,
    f: MpFn,
    closed: Option<ClosedForm>,
    /// Where the expression and the closed form are checked, when not [from, to]: a finite
    /// piece of an infinite interval whose tails lie below 10^-110.
    check: Option<(&'static str, &'static str)>,
}

fn main() -> Result<(), Box<dyn Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/data/references.json").into());
    let mut integrals = Vec::new();
    for spec in specs() {
        let start = Instant::now();
        check_expression(&spec)?;
        let (from, to) = spec.check.unwrap_or((spec.from, spec.to));
        let quad = tanh_sinh(&spec.f, &mp(from), &mp(to))?;
        let (value, provenance) = match spec.closed {
            Some((formula, closed)) => {
                let exact = closed();
                let agree = agreement(&exact, &quad.value);
                if agree < AGREE {
                    return Err(format!(
                        "{}: the closed form and tanh-sinh agree to only {agree:.1} digits",
                        spec.name
                    )
                    .into());
                }
                let provenance = format!(
                    "closed form {formula}, evaluated in MPFR at {PREC} bits (rug); checked \
                     against tanh-sinh quadrature in MPFR at {PREC} bits (step 2^-{}, {} \
                     points): they agree to {agree:.0} digits",
                    quad.level, quad.points
                );
                (exact, provenance)
            }
            None => {
                let provenance = format!(
                    "tanh-sinh quadrature in MPFR at {PREC} bits (rug): steps 2^-{} and 2^-{} \
                     ({} points) agree to {:.0} digits; the rule reproduces every closed-form \
                     integral of this file to 100 digits or more",
                    quad.level - 1,
                    quad.level,
                    quad.points,
                    quad.agreement
                );
                (quad.value, provenance)
            }
        };
        eprintln!(
            "{:<16} {}  ({:.1} s)",
            spec.name,
            decimal(&value, 20),
            start.elapsed().as_secs_f64()
        );
        integrals.push(Reference {
            name: spec.name.into(),
            title: spec.title.into(),
            kind: spec.kind.into(),
            expression: spec.expression.into(),
            from: spec.from.into(),
            to: spec.to.into(),
            value: decimal(&value, TRUSTED as usize),
            trusted_digits: TRUSTED,
            provenance,
        });
    }
    let file = References {
        generated_by: "cargo run --release --example references".into(),
        integrals,
    };
    std::fs::write(&path, serde_json::to_string_pretty(&file)? + "\n")?;
    eprintln!("wrote {path}");
    Ok(())
}

fn specs() -> Vec<Spec> {
    vec![
        Spec {
            name: "pi",
            title: "π = ∫₀¹ (16x−16)/(x⁴−2x³+4x−4) dx",
            kind: "rational; the π integral of parallel-romberg-quad-double",
            expression: "(16*x - 16)/(x^4 - 2*x^3 + 4*x - 4)",
            from: "0",
            to: "1",
            f: |x| {
                let x2 = Float::with_val(PREC, x * x);
                let num = Float::with_val(PREC, x * 16u32) - 16u32;
                let den = Float::with_val(PREC, &x2 * &x2) - Float::with_val(PREC, &x2 * x) * 2u32
                    + Float::with_val(PREC, x * 4u32)
                    - 4u32;
                num / den
            },
            closed: Some(("π", || Float::with_val(PREC, Constant::Pi))),
            check: None,
        },
        Spec {
            name: "exp_cos",
            title: "∫₀¹ exp(cos x) dx",
            kind: "smooth; parallel-trapezoid-richardson, first integral",
            expression: "exp(cos(x))",
            from: "0",
            to: "1",
            f: |x| Float::with_val(PREC, x.cos_ref()).exp(),
            closed: None,
            check: None,
        },
        Spec {
            name: "sqrt_exp_cos_xxx",
            title: "∫₀¹ √exp(cos(x^(x^x))) dx",
            kind: "smooth inside, second derivative unbounded at 0 (x^x ln x terms); \
                   parallel-trapezoid-richardson, second integral",
            expression: "sqrt(exp(cos(x^(x^x))))",
            from: "0",
            to: "1",
            f: |x| {
                let xx = Float::with_val(PREC, x.pow(x));
                let xxx = Float::with_val(PREC, x.pow(&xx));
                xxx.cos().exp().sqrt()
            },
            closed: None,
            check: None,
        },
        Spec {
            name: "exp2x_sin3x",
            title: "∫₀⁵ e^(2x) sin 3x dx",
            kind: "smooth, growing and oscillating; pbcaq-kern-alaghband Table 2 #1",
            expression: "exp(2*x)*sin(3*x)",
            from: "0",
            to: "5",
            f: |x| Float::with_val(PREC, x * 2u32).exp() * Float::with_val(PREC, x * 3u32).sin(),
            closed: Some(("(e^10 (2 sin 15 − 3 cos 15) + 3)/13", || {
                let e10 = Float::with_val(PREC, 10u32).exp();
                let s = Float::with_val(PREC, 15u32).sin() * 2u32;
                let c = Float::with_val(PREC, 15u32).cos() * 3u32;
                (e10 * (s - c) + 3u32) / 13u32
            })),
            check: None,
        },
        Spec {
            name: "exp_m3x_cos5pix",
            title: "∫₀¹⁰ e^(−3x) cos 5πx dx",
            kind: "oscillatory, decaying; pbcaq-kern-alaghband Table 2 #5",
            expression: "exp(-3*x)*cos(5*pi*x)",
            from: "0",
            to: "10",
            f: |x| {
                let pi = Float::with_val(PREC, Constant::Pi);
                Float::with_val(PREC, x * -3i32).exp() * Float::with_val(PREC, pi * x * 5u32).cos()
            },
            closed: Some(("3 (1 − e^−30)/(9 + 25π²)", || {
                let pi = Float::with_val(PREC, Constant::Pi);
                let den = Float::with_val(PREC, &pi * &pi) * 25u32 + 9u32;
                let num =
                    (Float::with_val(PREC, 1u32) - Float::with_val(PREC, -30i32).exp()) * 3u32;
                num / den
            })),
            check: None,
        },
        Spec {
            name: "sinc_10pi",
            title: "∫ from 10⁻⁶ to 10 of sin(10πx)/(πx) dx",
            kind: "oscillatory, 50 periods, large near the lower bound; pbcaq-kern-alaghband \
                   Table 2 #6",
            expression: "sin(10*pi*x)/(pi*x)",
            from: "1e-6",
            to: "10",
            f: |x| {
                let pi = Float::with_val(PREC, Constant::Pi);
                let px = Float::with_val(PREC, &pi * x);
                Float::with_val(PREC, &px * 10u32).sin() / px
            },
            closed: Some((
                "(Si(100π) − Si(10⁻⁵ π))/π, Si by its power series at 1600 bits",
                || {
                    let pi = Float::with_val(PREC, Constant::Pi);
                    let hi = Float::with_val(PREC, &pi * 100u32);
                    let lo = Float::with_val(PREC, &pi * mp("1e-5"));
                    (sine_integral(&hi) - sine_integral(&lo)) / pi
                },
            )),
            check: None,
        },
        Spec {
            name: "peak",
            title: "∫₀¹ 1/((x − 0.3)² + 0.001) dx",
            kind: "peaked: height 1000, width 0.03 at x = 0.3",
            expression: "1/((x - 0.3)^2 + 0.001)",
            from: "0",
            to: "1",
            f: |x| {
                let d = Float::with_val(PREC, x - mp("0.3"));
                (d.square() + mp("0.001")).recip()
            },
            closed: Some(("(atan(0.7/√0.001) + atan(0.3/√0.001))/√0.001", || {
                let r = mp("0.001").sqrt();
                let a = Float::with_val(PREC, mp("0.7") / &r).atan();
                let b = Float::with_val(PREC, mp("0.3") / &r).atan();
                (a + b) / r
            })),
            check: None,
        },
        Spec {
            name: "xpow_mx",
            title: "∫₀¹ x^(−x) dx",
            kind: "endpoint-singular: x ln x in the exponent, every derivative unbounded at 0",
            expression: "x^(-x)",
            from: "0",
            to: "1",
            f: |x| {
                if x.is_zero() {
                    return Float::with_val(PREC, 1u32);
                }
                let minus_x = Float::with_val(PREC, -x);
                Float::with_val(PREC, x.pow(&minus_x))
            },
            closed: Some((
                "Σ n^(−n), n ≥ 1 (Bernoulli's sophomore's dream)",
                || {
                    // n^-n < 10^-125 from n = 80 on.
                    (1..80u32).fold(Float::with_val(PREC, 0u32), |sum, n| {
                        let n = Float::with_val(PREC, n);
                        let minus_n = Float::with_val(PREC, -&n);
                        sum + n.pow(&minus_n)
                    })
                },
            )),
            check: None,
        },
        Spec {
            name: "gauss_inf",
            title: "∫ e^(−x²) dx over (−∞, ∞)",
            kind: "infinite range: a Gaussian",
            expression: "exp(-x^2)",
            from: "-inf",
            to: "inf",
            f: |x| Float::with_val(PREC, -x.clone().square()).exp(),
            closed: Some(("√π", || Float::with_val(PREC, Constant::Pi).sqrt())),
            // The tails beyond ±16 are below e^-256/16 ≈ 10^-113.
            check: Some(("-16", "16")),
        },
    ]
}

/// Checks that the MPFR function is the same function as the expression: both at a few points
/// of the interval (chosen in qd, so both see the same x), to 50 digits.
fn check_expression(spec: &Spec) -> Result<(), Box<dyn Error>> {
    let expr = Expr::parse(spec.expression, 1)?;
    let (from, to) = spec.check.unwrap_or((spec.from, spec.to));
    let a: Qd = Expr::parse(from, 0)?.eval_constant();
    let b: Qd = Expr::parse(to, 0)?.eval_constant();
    let xs: Vec<Qd> = (1..8).map(|k| a + (b - a) * (k as f64 / 8.0)).collect();
    let mut ys = vec![Qd::zero(); xs.len()];
    expr.eval_batch(&[&xs], &mut ys);
    for (x, y) in xs.iter().zip(&ys) {
        let mut mx = Float::with_val(PREC, 0u32);
        for limb in x.limbs() {
            mx += limb;
        }
        let exact = (spec.f)(&mx);
        let mut my = Float::with_val(PREC, 0u32);
        for limb in y.limbs() {
            my += limb;
        }
        let diff = Float::with_val(PREC, &my - &exact).abs().to_f64();
        if diff > 1e-50 * (1.0 + exact.to_f64().abs()) {
            return Err(format!(
                "{}: the expression and the MPFR function differ at x = {x}: {my} vs {exact}",
                spec.name
            )
            .into());
        }
    }
    Ok(())
}
