//! Shared by the cubature tests (tests/cuhre.rs on the host, tests/gpu_cuhre_device.rs and
//! tests/gpu_cubature.rs on the device): the six PAGANI cases (issue 11, §6), Genz integrands over [0, 1]^n
//! with their closed forms in MPFR and PAGANI's times on the same H100. Needs `mpfr_support`
//! declared beside it in the test crate.
#![allow(dead_code)]

use rug::ops::Pow;
use rug::Float;

use crate::mpfr_support::BITS;

/// One of the cases: the integrand in x1..xn over [0, 1]^n, its MPFR reference, the
/// relative tolerance and PAGANI's time.
pub struct PaganiCase {
    pub name: &'static str,
    pub dims: usize,
    pub expression: String,
    pub reference: Float,
    pub tolerance: f64,
    /// PAGANI on the H100 (issue 11, §6), ms; `None`: it does not converge.
    pub pagani_ms: Option<f64>,
}

/// `term(0) + term(1) + ... + term(n - 1)`.
pub fn sum_terms(n: usize, term: impl Fn(usize) -> String) -> String {
    (0..n).map(term).collect::<Vec<_>>().join(" + ")
}

/// A sum of steps in x1..xn whose values are small integers (`floor` of affine functions, a
/// term an axis): a rule's class sums of it are exact in any order, so two devices' sums must
/// agree bit for bit, and a misplaced point moves a value across a step.
pub fn integer_steps(n: usize) -> String {
    sum_terms(n, |d| {
        format!(
            "{}*floor({}*x{} - x{})",
            d % 3 + 1,
            d + 3,
            d + 1,
            (d + 1) % n + 1
        )
    })
}

/// The product of two complex numbers given as (re, im).
pub fn complex_mul(a: (Float, Float), b: (Float, Float)) -> (Float, Float) {
    let re = Float::with_val(BITS, &a.0 * &b.0) - Float::with_val(BITS, &a.1 * &b.1);
    let im = Float::with_val(BITS, &a.0 * &b.1) + Float::with_val(BITS, &a.1 * &b.0);
    (re, im)
}

/// The corner peak of the set, (1 + Σ i x_i)^(-n-1) over [0, 1]^n (i from 1): its
/// expression and integral Σ_v (-1)^|v| / (1 + Σ_{i∈v} i) / (n! Π i), v over the vertices,
/// Π i = n! (the sum cancels 8 digits at n = 8; MPFR's bits keep them).
pub fn corner_peak(n: usize) -> (String, Float) {
    let mut sum = Float::with_val(BITS, 0);
    for v in 0..1u32 << n {
        let s: u32 = (0..n as u32)
            .filter(|k| v >> k & 1 == 1)
            .map(|k| k + 1)
            .sum();
        let term = Float::with_val(BITS, Float::with_val(BITS, 1 + s).recip());
        if v.count_ones() % 2 == 0 {
            sum += term;
        } else {
            sum -= term;
        }
    }
    let factorial: u64 = (1..=n as u64).product();
    let expression = format!(
        "(1 + {})^(-{})",
        sum_terms(n, |i| format!("{}*x{}", i + 1, i + 1)),
        n + 1
    );
    let reference = sum / Float::with_val(BITS, factorial) / Float::with_val(BITS, factorial);
    (expression, reference)
}

/// The oscillatory integrand cos(Σ k_i x_i) over [0, 1]^n, n the number of `frequencies`:
/// its expression and integral Re Π (e^{i k} - 1)/(i k).
pub fn oscillatory(frequencies: &[u32]) -> (String, Float) {
    let one = || Float::with_val(BITS, 1);
    let mut z = (one(), Float::with_val(BITS, 0));
    for &k in frequencies {
        let a = Float::with_val(BITS, k);
        let factor = (
            Float::with_val(BITS, a.clone().sin() / &a),
            Float::with_val(BITS, (one() - a.clone().cos()) / &a),
        );
        z = complex_mul(z, factor);
    }
    let terms = frequencies
        .iter()
        .enumerate()
        .map(|(i, k)| format!("{k}*x{}", i + 1))
        .collect::<Vec<_>>()
        .join(" + ");
    (format!("cos({terms})"), z.0)
}

/// The Gaussian exp(-625 Σ (x_i - 1/2)^2) over [0, 1]^n: its expression and integral,
/// (√π/25 erf(12.5))^n (per axis ∫ exp(-625 t^2) over [-1/2, 1/2]).
pub fn gaussian(n: usize) -> (String, Float) {
    let pi = Float::with_val(BITS, rug::float::Constant::Pi);
    let factor: Float =
        Float::with_val(BITS, pi.sqrt_ref()) / 25u32 * Float::with_val(BITS, 12.5).erf();
    (
        format!(
            "exp(-625*({}))",
            sum_terms(n, |i| format!("(x{} - 0.5)^2", i + 1))
        ),
        Float::with_val(BITS, factor.pow(n as u32)),
    )
}

/// The six cases (i from 1 in the formulas): corner peak, two Gaussians, discontinuous,
/// product peak, oscillatory.
pub fn pagani_cases() -> Vec<PaganiCase> {
    let one = || Float::with_val(BITS, 1);
    let mut cases = Vec::new();
    let (expression, reference) = corner_peak(8);
    cases.push(PaganiCase {
        name: "corner peak n=8",
        dims: 8,
        expression,
        reference,
        tolerance: 1e-6,
        pagani_ms: Some(16.7),
    });
    for (n, tolerance, ms, name) in [
        (6usize, 1e-5, 243.0, "gaussian n=6"),
        (8, 1e-3, 451.0, "gaussian n=8"),
    ] {
        let (expression, reference) = gaussian(n);
        cases.push(PaganiCase {
            name,
            dims: n,
            expression,
            reference,
            tolerance,
            pagani_ms: Some(ms),
        });
    }
    // Discontinuous exp(Σ (i+4) x_i) on x_i ≤ (3+i)/10, n = 6: Π (e^{(i+4)(3+i)/10} - 1)/(i+4).
    let mut reference = one();
    for i in 1..=6u32 {
        let a = Float::with_val(BITS, i + 4);
        let c = Float::with_val(BITS, 3 + i) / 10u32;
        reference *= Float::with_val(BITS, &a * &c).exp_m1() / a;
    }
    cases.push(PaganiCase {
        name: "discontinuous n=6",
        dims: 6,
        expression: format!(
            "exp({}) * {}",
            sum_terms(6, |i| format!("{}*x{}", i + 5, i + 1)),
            (0..6)
                .map(|i| format!("(1 + floor(0.{} - x{}))", 4 + i, i + 1))
                .collect::<Vec<_>>()
                .join(" * ")
        ),
        reference,
        tolerance: 1e-4,
        pagani_ms: Some(13.8),
    });
    // Product peak Π 1/(1/2500 + (x_i - 1/2)^2), n = 5: per axis 100 atan(25).
    let factor = Float::with_val(BITS, 25).atan() * 100u32;
    cases.push(PaganiCase {
        name: "product peak n=5",
        dims: 5,
        expression: (0..5)
            .map(|i| format!("1/(0.0004 + (x{} - 0.5)^2)", i + 1))
            .collect::<Vec<_>>()
            .join(" * "),
        reference: Float::with_val(BITS, factor.pow(5u32)),
        tolerance: 1e-3,
        pagani_ms: Some(9.2),
    });
    let (expression, reference) = oscillatory(&[1, 2, 3, 4, 5, 6, 7, 8]);
    cases.push(PaganiCase {
        name: "oscillatory n=8",
        dims: 8,
        expression,
        reference,
        tolerance: 1e-6,
        pagani_ms: None,
    });
    cases
}
