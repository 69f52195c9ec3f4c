//! Heuristic forward quadrature (FAQ) with the ∂² heuristic: Thuerck, Widmer, Kuijper,
//! Goesele, "Efficient heuristic adaptive quadrature on GPUs: Design and Evaluation",
//! Euro-Par 2013 workshops, LNCS 8374, Algorithm 3; two dimensions by Fubini's theorem as in
//! its Section 4, equations (9)–(11).
//!
//! ```text
//! q ← 0, h ← h_*, p ← a
//! lastVal ← f(p); lastHill ← (f(p + 0.1h) − lastVal) / (0.1h)     capture the start
//! while p < b:
//!     p ← p + h; thisVal ← f(p)
//!     thisHill ← |thisVal − lastVal| / h                             ≈ |f'|
//!     q ← q + h (thisVal + lastVal) / 2                              trapezoid, never redone
//!     d ← max(|(thisHill − lastHill) / thisHill|, |thisHill − lastHill|)    ≈ f''
//!     h ← h_* + e^(−d) (h^* − h_*); if p + h > b: h ← b − p
//! ```
//!
//! Each interval is chosen before it is sampled and its trapezoid is kept: there is no error
//! estimate a posteriori. What is reported as the error is the paper's a-priori bound,
//! Theorem 1 in the form of the first inequality of (8), ΔI ≤ Σ h_i³/12 |f''(x_i)|, with
//! f'' at each interval the larger second divided difference of the samples at its two ends
//! (the one at the start from the probe at a + 0.1h). The paper writes 1/24, the midpoint
//! rule's constant; the algorithm sums trapezoids, whose constant is 1/12. The bound holds
//! for an integrand whose f'' the samples see (C² on [a, b]); for sqrt(x) or log(x) at 0 the
//! divided differences grow with the singularity and so does the bound, but no sampled bound
//! can be a proof.
//!
//! Choices the paper leaves open, made here:
//! - h_* and h^* are given as fractions of b − a ([`Steps`]), so that a batch over intervals
//!   of different lengths (∫_0^{1/p}) takes the same number of steps for the same shape.
//! - `lastHill` starts signed and `thisHill` is a magnitude, as Algorithm 3 writes them.
//! - 0/0 in d (two flat steps) is 0: nothing changed.
//! - The last step lands on b exactly (p + (b − p) may round off b).
//! - A non-finite value at an end (log x, sin(x)/x at 0) is replaced by the value ε (b − a)
//!   inside, as MATLAB's `quad` does, the comparator of the paper's Table 1; inside the
//!   interval it is an error naming the point.

use precision::Real;

use super::{Integrated, NonFiniteAt};

/// FAQ's smallest and largest step, h_* and h^*, as fractions of the interval's length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Steps {
    /// h_* / (b − a).
    pub min: f64,
    /// h^* / (b − a).
    pub max: f64,
}

impl Default for Steps {
    /// h_* = 0.01 (b − a), as in the paper's Figure 1, and h^* = 0.35 (b − a): the paper
    /// does not say which it used for Table 1, and these reproduce its evaluation counts
    /// against `quad` (46/46/38/62/71/21/30 % against 48/48/37/65/64/21/27 %) and its
    /// relative errors (0.009, 0.009, 0.013, 0.007, 0.001, 0.15, 0.007) best among those
    /// tried; its Figure 1's h^* = 0.05 takes two to four times the evaluations (see
    /// tests/batch.rs).
    fn default() -> Steps {
        Steps {
            min: 0.01,
            max: 0.35,
        }
    }
}

impl Steps {
    /// Whether 0 < min ≤ max ≤ 1, and min not so small that a batch member could take more
    /// than a million steps.
    pub fn is_valid(&self) -> bool {
        self.min >= 1e-6 && self.min <= self.max && self.max <= 1.0
    }
}

/// FAQ of `f` over [a, b] (a < b): the sum of the trapezoids, Theorem 1's bound as the error
/// (`converged` is left for the caller to judge against its tolerance) and the evaluations;
/// or the point where `f` is not finite.
pub fn faq<T: Real>(
    f: &mut (impl FnMut(T) -> T + ?Sized),
    a: T,
    b: T,
    steps: Steps,
) -> Result<Integrated<T>, NonFiniteAt<T>> {
    let width = b - a;
    let h_min = width * T::from_f64(steps.min);
    let h_max = width * T::from_f64(steps.max);
    let mut evaluations = 0u64;

    let mut h = h_min;
    let mut p = a;
    let mut last_val = at_end(f, a, width, &mut evaluations)?;
    let probe_x = a + h / T::from_i64(10);
    let probe = sample(f, probe_x, &mut evaluations)?;
    let mut last_hill = (probe - last_val) / (probe_x - a);
    let mut q = T::zero().to_accumulator();

    // Theorem 1's sum: the slope and width of the last interval, f'' at its left end, and
    // its h³ while it waits for f'' at its right end.
    let mut last_slope = last_hill;
    let mut last_width = probe_x - a;
    let mut left_d2: Option<f64> = None;
    let mut pending: Option<f64> = None;
    let mut bound = 0.0f64;

    while p < b {
        let next = if p + h >= b { b } else { p + h };
        let step = next - p;
        let this_val = if next == b {
            at_end(f, b, -width, &mut evaluations)?
        } else {
            sample(f, next, &mut evaluations)?
        };
        let this_hill = (this_val - last_val).abs() / step;
        q = q + (step * (this_val + last_val)).ldexp(-1).to_accumulator();
        let change = this_hill - last_hill;
        let ratio = if change == T::zero() {
            0.0
        } else {
            (change / this_hill).abs().to_f64()
        };
        let d = ratio.max(change.abs().to_f64());
        h = h_min + T::from_f64(exp_neg(d)) * (h_max - h_min);

        let slope = (this_val - last_val) / step;
        let d2 = 2.0 * ((slope - last_slope) / (last_width + step)).abs().to_f64();
        if let Some(h3) = pending.take() {
            bound += h3 / 12.0 * left_d2.unwrap_or(d2).max(d2);
        }
        left_d2 = Some(d2);
        let s = step.to_f64();
        pending = Some(s * s * s);
        last_slope = slope;
        last_width = step;

        p = next;
        last_val = this_val;
        last_hill = this_hill;
    }
    if let Some(h3) = pending {
        bound += h3 / 12.0 * left_d2.unwrap_or(0.0);
    }
    let value = T::from_accumulator(q);
    Ok(Integrated {
        value,
        error: bound.max(super::rounding(value)),
        evaluations,
        converged: true,
    })
}

/// e^(−d) for d ≥ 0 (0 for NaN and past 700), from + − × ÷ and floor alone, so that
/// `kernels/batch.cu` gives the same bits: libm's `exp` and libdevice's may differ in the last
/// bit, and the step it sets moves every later point. Cody–Waite reduction d = k ln 2 − r
/// with |r| ≤ ln 2 / 2, then e^r by Horner's rule on its Taylor series to r¹³/13! (below
/// 2^-56 there), then the exact scaling by 2^-k.
pub fn exp_neg(d: f64) -> f64 {
    // ln 2 in two parts, the first with its low 21 bits zero so that k · ln2_hi is exact.
    // fdlibm's ln2_hi and ln2_lo, by their bits (as the kernel gives them).
    let ln2_hi = f64::from_bits(0x3fe6_2e42_fee0_0000);
    let ln2_lo = f64::from_bits(0x3dea_39ef_3579_3c76);
    if d.is_nan() || d >= 700.0 {
        return 0.0;
    }
    let k = (d * std::f64::consts::LOG2_E + 0.5).floor();
    let r = (k * ln2_hi - d) + k * ln2_lo;
    let mut s = 1.0f64;
    for n in (1..=13).rev() {
        s = 1.0 + r * s / n as f64;
    }
    // 2^-k, a normal double for 0 <= k <= 1010.
    s * f64::from_bits(((1023 - k as i64) as u64) << 52)
}

/// f at an interior point, which must be finite.
fn sample<T: Real>(
    f: &mut (impl FnMut(T) -> T + ?Sized),
    x: T,
    evaluations: &mut u64,
) -> Result<T, NonFiniteAt<T>> {
    *evaluations += 1;
    let y = f(x);
    if y.is_finite() {
        Ok(y)
    } else {
        Err(NonFiniteAt::at(x, y))
    }
}

/// f at an end, sampled ε·|inward| inside (towards `x + inward`) when it is not finite there.
pub(crate) fn at_end<T: Real>(
    f: &mut (impl FnMut(T) -> T + ?Sized),
    x: T,
    inward: T,
    evaluations: &mut u64,
) -> Result<T, NonFiniteAt<T>> {
    *evaluations += 1;
    let y = f(x);
    if y.is_finite() {
        return Ok(y);
    }
    sample(f, x + inward * T::epsilon(), evaluations)
}

/// FAQ over the rectangle [ax, bx] × [ay, by] by Fubini (the paper's (9)–(11)): the outer
/// FAQ in x samples g(x) = ∫ f(x, y) dy, each by an inner FAQ in y with its own steps. The
/// error is the outer bound on g plus (bx − ax) times the largest inner bound.
pub fn faq_2d<T: Real>(
    f: &mut impl FnMut(T, T) -> T,
    x: (T, T),
    y: (T, T),
    steps: Steps,
) -> Result<Integrated<T>, NonFiniteAt<T>> {
    let mut rule = |g: &mut dyn FnMut(T) -> T, a: T, b: T, _left: u64| faq(g, a, b, steps);
    let mut outer = rule;
    super::fubini::fubini(f, x, y, &mut rule, &mut outer, None, u64::MAX)
}
