//! The automatic method: which rule fits an integral, decided from its interval and a short
//! probe of the integrand near the endpoints, with the other rule as a fallback.
//!
//! - A polynomial in x on a finite interval ([`Tape::polynomial_degree`]): the two
//!   Gauss–Legendre rules that integrate it exactly ([`gauss_legendre::polynomial`]), without
//!   the probe: 11 evaluations for a degree-8 polynomial, where the adaptive rules took 40.
//! - An infinite bound: tanh-sinh's exp-sinh or sinh-sinh variant, which maps the whole range
//!   with doubly exponential decay (Gauss rules would need a change of variables that turns
//!   slow decay into an endpoint singularity). In dd and qd a half-infinite range whose
//!   integrand decays fast is first cut where it has decayed (`truncation`): the finite part
//!   goes to the rule chosen below, the tail to exp-sinh, since exp-sinh alone needs 3.6 times
//!   the evaluations on a tail that oscillates as it decays (sin(x)/x·e^(−x) in qd: 1839
//!   against 507).
//! - A finite interval whose integrand is singular or not analytic at an endpoint (sqrt(x),
//!   log(x), x^(-x), x ln x): tanh-sinh, which clusters its nodes doubly exponentially at the
//!   ends and converges exponentially for such integrands where Gauss rules converge only
//!   algebraically.
//! - Analytic at both ends, and an expression with no operation that can put a kink or a jump
//!   inside ([`Tape::has_kinks`]: abs, min, max, floor, ...): adaptive Gauss–Legendre, whose
//!   degree grows with the integrand's analyticity: 2 to 8 times fewer points than
//!   Gauss–Kronrod on the oscillatory integrals of the comparison suite (sin(10πx)/(πx) on
//!   [1e-6, 10] in qd: 496 against 3721).
//! - Analytic at both ends but possibly kinked inside (such an expression, or Rust code, whose
//!   operations cannot be seen): adaptive Gauss–Kronrod, whose embedded pair and QUADPACK's
//!   pessimistic error scaling stay honest where a kink makes Gauss rules of successive
//!   degrees agree by accident (Gauss–Legendre's estimate, though guarded, can still be 3 to
//!   100 times low there: |x − c|³ on [0, 1] in f64).
//!
//! The probe evaluates the integrand at distances `w·2^(-8k)`, k = 1..6, from each endpoint
//! (`w` the interval's width): for a function analytic at the endpoint, `f(e + d) - f(e)` is
//! `c·d^m (1 + O(d/L))` with an integer `m ≥ 1` (`L` the distance to its nearest
//! singularity), so the differences of successive probe values shrink by `2^(8m)` at each
//! step, the closer the nearer the end. The rate between the two nearest visible differences
//! decides: a non-integer one (sqrt: 2^4, x ln x: 2^7.6), a non-finite value, or differences
//! that vanish faster than any power (exp(-1/x)) mark the endpoint as singular, while the
//! farther rates may be off by O(2^-8 w/L) (exp(2x)·sin(3x) at 7 on [0, 7]: 2^10.5, then
//! 2^8.03). The probe costs 12 evaluations, counted in the estimate.
//!
//! When the chosen rule misses its tolerance within the caps, the other one runs on what is
//! left of the evaluation budget, and the estimate with the smaller error is returned: an
//! interior singularity that the probe cannot see does not leave the answer to a rule that
//! cannot handle it.

use precision::Real;

use super::{
    gauss_kronrod, gauss_legendre, tanh_sinh, truncation, Interval, Options, Outcome, Stage,
};
use crate::backend::Backend;
use crate::error::Result;
#[cfg(doc)]
use crate::expr::Tape;
use crate::integrand::Integrand;
use crate::options::Method;

/// The probe's distances from an endpoint, as fractions of the width: 2^-8 to 2^-48.
const PROBE_STEPS: [i32; 6] = [-8, -16, -24, -32, -40, -48];

/// The differences of successive probe values at one end.
const DIFFERENCES: usize = PROBE_STEPS.len() - 1;

/// How far the nearest observed convergence rate (in units of 8 bits per step) may be from an
/// integer for the endpoint to count as analytic. An analytic function's rate there is an
/// integer m up to O(2^-24 w/L); x ln x gives 0.948, sqrt(x) 0.5.
const RATE_SLACK: f64 = 0.03;

/// How far it may be when the next order is seen to be whole (see `looks_analytic`).
const LOOSE_RATE_SLACK: f64 = 0.25;

/// What the automatic method chose and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The method that produced the estimate.
    pub method: Method,
    /// Why, in words: the probe's finding and any fallback.
    pub reason: String,
}

/// Integrates `f` over `interval` with the method the interval and the probe call for.
pub fn auto<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    interval: Interval<T>,
    options: &Options,
) -> Result<(Outcome<T>, Choice)> {
    options.validate()?;
    let Interval { a, b } = interval;
    if a.is_nan() || b.is_nan() || a == b {
        // The methods report NaN bounds and integrate empty intervals to 0 themselves.
        let outcome = gauss_kronrod::gauss_kronrod(f, backend, interval, options)?;
        let reason = "an empty or invalid interval".to_string();
        return Ok((outcome, choice(Method::GaussKronrod, reason)));
    }
    if !a.is_finite() || !b.is_finite() {
        return infinite(f, backend, interval, options);
    }
    finite(f, backend, interval, options)
}

/// An infinite interval. A half-infinite one in dd or qd is cut where its integrand has decayed below the
/// tolerance (see `truncation`): the finite part by the rule [`finite`] chooses, the tail by
/// exp-sinh. Otherwise, or when the cut result misses the tolerance, tanh-sinh's exp-sinh or
/// sinh-sinh variant takes the whole range.
fn infinite<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    interval: Interval<T>,
    options: &Options,
) -> Result<(Outcome<T>, Choice)> {
    let Interval { a, b } = interval;
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let variant = if !lo.is_finite() && !hi.is_finite() {
        "sinh-sinh"
    } else {
        "exp-sinh"
    };
    let whole_reason = format!("an infinite interval ({variant} variant)");
    let mut budget = *options;
    let mut cut_result = None;
    if truncation::pays::<T>() && (lo.is_finite() || hi.is_finite()) {
        let end = if lo.is_finite() { lo } else { hi };
        if let Some(cut) = truncation::search(f, backend, end, lo.is_finite(), options)? {
            let point = cut.point;
            let (outcome, chosen) =
                truncation::split(f, backend, (lo, hi), cut, options, |near, budget| {
                    finite(f, backend, near, budget)
                })?;
            let (from, to) = if lo.is_finite() {
                (lo.to_string(), point.to_string())
            } else {
                (point.to_string(), hi.to_string())
            };
            let reason = format!(
                "a half-infinite interval whose integrand falls below the tolerance by {}: \
                 [{from}, {to}] by {} ({}), the tail by tanh-sinh's exp-sinh variant",
                point, chosen.method, chosen.reason
            );
            let outcome = if a < b { outcome } else { outcome.negated() };
            if outcome.converged {
                return Ok((outcome, choice(chosen.method, reason)));
            }
            budget.max_evaluations = options.max_evaluations.saturating_sub(outcome.evaluations);
            cut_result = Some((outcome, choice(chosen.method, reason)));
        }
    }
    let mut outcome = tanh_sinh::tanh_sinh(f, backend, interval, &budget)?;
    let mut chosen = choice(Method::TanhSinh, whole_reason);
    if let Some((cut, cut_choice)) = cut_result {
        // The cut missed the tolerance: the whole range by exp-sinh ran too, and the estimate
        // with the smaller error is returned.
        let spent = cut.evaluations + outcome.evaluations;
        let mut stages = cut.stages.clone();
        stages.extend(outcome.stages.iter().cloned());
        let returned = if cut.error < outcome.error {
            "the cut one is returned"
        } else {
            "exp-sinh's is returned"
        };
        chosen.reason = format!(
            "{}; it missed the tolerance (error {:.1e}), so exp-sinh took the whole range \
             (error {:.1e}) and {returned}",
            cut_choice.reason, cut.error, outcome.error
        );
        if cut.error < outcome.error {
            chosen.method = cut_choice.method;
            outcome = cut;
        }
        outcome.evaluations = spent;
        outcome.stages = stages;
    }
    Ok((outcome, chosen))
}

/// A finite interval: the probe decides between tanh-sinh, Gauss–Legendre and Gauss–Kronrod,
/// and the other rule of the pair runs when the first misses the tolerance.
fn finite<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    interval: Interval<T>,
    options: &Options,
) -> Result<(Outcome<T>, Choice)> {
    let degree = f.tape().and_then(|tape| tape.polynomial_degree(0));
    if let Some(degree) = degree.filter(|_| f.dims() == 1) {
        if let Some(outcome) = gauss_legendre::polynomial(f, backend, interval, options, degree)? {
            let reason = format!(
                "the integrand is a polynomial of degree at most {degree}, which Gauss–Legendre \
                 rules of {0} and {1} points integrate exactly (their difference is rounding)",
                gauss_legendre::exact_points(degree),
                gauss_legendre::exact_points(degree) + 1
            );
            return Ok((outcome, choice(Method::GaussLegendre, reason)));
        }
    }
    let Interval { a, b } = interval;
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let probe = probe(f, backend, lo, hi)?;
    let kinks = f.tape().is_none_or(|tape| tape.has_kinks());
    let (first, second, reason) = match probe.singular_end() {
        Some(end) => (
            Method::TanhSinh,
            Method::GaussKronrod,
            format!("the probe found the integrand singular or not analytic at {end}"),
        ),
        None if !kinks => (
            Method::GaussLegendre,
            Method::GaussKronrod,
            "the probe found the integrand analytic at both endpoints and its expression has \
             no kinks inside"
                .to_string(),
        ),
        None => (
            Method::GaussKronrod,
            Method::TanhSinh,
            format!(
                "the probe found the integrand analytic at both endpoints; {} may have kinks \
                 inside",
                if f.tape().is_some() {
                    "its expression uses abs, min, max, floor or the like, so it"
                } else {
                    "it is Rust code, which"
                }
            ),
        ),
    };

    let mut budget = *options;
    budget.max_evaluations = options.max_evaluations.saturating_sub(probe.evaluations);
    let mut outcome = run(first, f, backend, interval, &budget)?;
    let mut chosen = choice(first, reason);
    if !outcome.converged {
        budget.max_evaluations = budget.max_evaluations.saturating_sub(outcome.evaluations);
        let other = run(second, f, backend, interval, &budget)?;
        let spent = outcome.evaluations + other.evaluations;
        let mut stages = std::mem::take(&mut outcome.stages);
        stages.extend(other.stages.iter().cloned());
        chosen.reason = format!(
            "{}; {first} missed the tolerance (error {:.1e}), so {second} ran too and its \
             estimate (error {:.1e}) is {}",
            chosen.reason,
            outcome.error,
            other.error,
            if other.error < outcome.error {
                "the one returned"
            } else {
                "no better"
            }
        );
        if other.error < outcome.error {
            outcome = other;
            chosen.method = second;
        }
        outcome.evaluations = spent;
        outcome.stages = stages;
    }
    outcome.evaluations += probe.evaluations;
    outcome.stages.insert(0, probe.stage);
    Ok((outcome, chosen))
}

fn choice(method: Method, reason: String) -> Choice {
    Choice { method, reason }
}

/// Runs one of the rules auto chooses from.
fn run<T: Real, F: Integrand, B: Backend>(
    method: Method,
    f: &F,
    backend: &B,
    interval: Interval<T>,
    options: &Options,
) -> Result<Outcome<T>> {
    match method {
        Method::TanhSinh => tanh_sinh::tanh_sinh(f, backend, interval, options),
        Method::GaussLegendre => gauss_legendre::gauss_legendre(f, backend, interval, options),
        _ => gauss_kronrod::gauss_kronrod(f, backend, interval, options),
    }
}

/// The probe's finding at each end.
struct Probe {
    lower_singular: bool,
    upper_singular: bool,
    evaluations: u64,
    stage: Stage,
}

impl Probe {
    /// The first end found singular, in words.
    fn singular_end(&self) -> Option<&'static str> {
        match (self.lower_singular, self.upper_singular) {
            (true, true) => Some("both endpoints"),
            (true, false) => Some("the lower endpoint"),
            (false, true) => Some("the upper endpoint"),
            (false, false) => None,
        }
    }
}

/// Evaluates `f` at the probe points of both ends of `[lo, hi]` in one batch.
fn probe<T: Real, F: Integrand, B: Backend>(f: &F, backend: &B, lo: T, hi: T) -> Result<Probe> {
    let width = hi - lo;
    // On the stack: the probe runs on every call of a small integral.
    let mut points = [lo; 2 * PROBE_STEPS.len()];
    let (lower, upper) = points.split_at_mut(PROBE_STEPS.len());
    for ((&k, l), u) in PROBE_STEPS.iter().zip(lower).zip(upper) {
        *l = lo + width.ldexp(k);
        *u = hi - width.ldexp(k);
    }
    let start = std::time::Instant::now();
    let device = backend.device_for_points::<T, F>(f, points.len());
    let values = backend.evaluate(f, &points)?;
    let (lower, upper) = values.split_at(PROBE_STEPS.len());
    Ok(Probe {
        lower_singular: !looks_analytic(lower, &points[..PROBE_STEPS.len()]),
        upper_singular: !looks_analytic(upper, &points[PROBE_STEPS.len()..]),
        evaluations: points.len() as u64,
        stage: Stage {
            level: 0,
            points: points.len() as u64,
            device,
            elapsed: start.elapsed(),
        },
    })
}

/// Whether values at distances `w·2^(-8k)`, k = 1..6, from an endpoint behave like an
/// analytic function's there: the nearest visible differences shrinking by `2^(8m)`, m a
/// whole number. `points` are the abscissae of `values`.
fn looks_analytic<T: Real>(values: &[T], points: &[T]) -> bool {
    if values.iter().any(|v| !v.is_finite()) {
        return false;
    }
    let scale = values.iter().map(|v| v.to_f64().abs()).fold(0.0, f64::max);
    let diffs: [f64; DIFFERENCES] =
        std::array::from_fn(|i| (values[i] - values[i + 1]).to_f64().abs());
    // Differences at the rounding level carry no rate: a constant near the endpoint (the
    // integrand does not depend on x there, or is exactly polynomial of low degree at the
    // probe's resolution) is analytic; differences that fall to rounding from a visible size
    // faster than any power (exp(-1/x)) are not. The rounding level is that of the values and
    // that of the abscissae, which an endpoint far from 0 moves by ε|x| (sin(10πx)/(πx) near
    // x = 20 in f64: 1e-15 where the values' own rounding is 1e-18).
    let slope = (0..DIFFERENCES)
        .map(|i| diffs[i] / (points[i] - points[i + 1]).to_f64().abs())
        .fold(0.0, f64::max);
    let reach = points.iter().map(|x| x.to_f64().abs()).fold(0.0, f64::max);
    let noise = 64.0 * T::epsilon().to_f64() * (scale + reach * slope);
    if diffs.iter().all(|&d| d <= noise) {
        return true;
    }
    let nearest = diffs
        .windows(2)
        .filter(|d| d[1] > noise)
        .map(|d| (d[0] / d[1]).log2() / 8.0)
        .next_back();
    let Some(nearest) = nearest else {
        // One visible difference, the next at the rounding level: a high power (4 − x³ in
        // f64 shows 1e-7 then 7e-15) or faster than any power (exp(-1/x): 1e-111, then 0).
        // The second leaves nothing but its variation: the values vanish with it.
        return diffs[0] < 0.5 * scale;
    };
    let m = nearest.round();
    if m < 1.0 {
        return false;
    }
    // A rate near a whole m is analytic if the next order says so too or cannot be seen; one
    // further off only if the next order is seen to be whole: an endpoint close to a point of
    // symmetry (sin(10πx)/(πx) from 10^-6, f64: 1.05) is in the middle of its change from
    // f'(a)·d to f''(a)·d²/2 at the probe's distances.
    match next_order(values, m, noise) {
        Some(rate) => {
            (nearest - m).abs() <= LOOSE_RATE_SLACK
                && rate.round() > m
                && (rate - rate.round()).abs() <= RATE_SLACK
        }
        None => (nearest - m).abs() <= RATE_SLACK,
    }
}

/// The rate at which what is left shrinks once the leading power d^m is taken out, where it
/// can be seen: `c d^m + c' d^m'` with m' > m whole for an analytic function, while a weak
/// logarithmic term under an analytic leading one gives a rate off the whole numbers
/// (x^(x^x) = x + x² ln² x + …: 2^(8·1.85) where 2^16 is due).
///
/// The remainders `r_k = Δ_k − 2^(8m) Δ_(k+1)` of successive differences Δ carry the next
/// term alone; their noise is that of the differences amplified by 2^(8m). The farthest pair
/// is left out: at w·2^-8 an oscillating integrand is not yet in its Taylor regime
/// (sin(10πx)/(πx) over [10^-6, 20]: 10π·w·2^-8 is 2.5 radians). Where fewer than two of
/// the others stand above the noise (f64 mostly) there is nothing to judge.
fn next_order<T: Real>(values: &[T], m: f64, noise: f64) -> Option<f64> {
    let diffs: [T; DIFFERENCES] = std::array::from_fn(|i| values[i] - values[i + 1]);
    let lift = 8 * m as i32;
    let floor = noise * (1.0 + 2f64.powi(lift));
    let remainders: [f64; DIFFERENCES - 1] =
        std::array::from_fn(|i| (diffs[i] - diffs[i + 1].ldexp(lift)).to_f64().abs());
    remainders[1..]
        .windows(2)
        .filter(|r| r[0] > floor && r[1] > floor)
        .map(|r| (r[0] / r[1]).log2() / 8.0)
        .next_back()
}

#[cfg(test)]
mod tests {
    use super::*;
    use precision::Dd;
    use std::f64::consts::PI;

    /// The probe's abscissae from 0 on [0, 1].
    fn probe_points() -> Vec<f64> {
        PROBE_STEPS.iter().map(|&k| 2f64.powi(k)).collect()
    }

    /// Whether `f` looks analytic at 0 on [0, 1].
    fn analytic_at_0(f: impl Fn(f64) -> f64) -> bool {
        let points = probe_points();
        let values: Vec<f64> = points.iter().map(|&x| f(x)).collect();
        looks_analytic(&values, &points)
    }

    #[test]
    fn analytic_endpoints_are_recognised() {
        assert!(analytic_at_0(|x| (2.0 * x).exp() * (3.0 * x).sin()));
        assert!(analytic_at_0(|x| x.cos()));
        assert!(analytic_at_0(|x| 1.0 / (1.0 + x * x)));
        assert!(analytic_at_0(|_| 2.0));
        // The π integrand at 0 in f64: 4 − O(x³), the third difference below rounding.
        assert!(analytic_at_0(|x| {
            (16.0 * x - 16.0) / (x.powi(4) - 2.0 * x.powi(3) + 4.0 * x - 4.0)
        }));
    }

    #[test]
    fn analytic_ends_of_wide_intervals_are_recognised() {
        // exp(2x)·sin(3x) at the upper end of [0, 7]: the farthest rate is 1.31, the nearer
        // ones 1.003 and 1.00001.
        let f = |x: f64| (2.0 * x).exp() * (3.0 * x).sin();
        let points: Vec<f64> = PROBE_STEPS
            .iter()
            .map(|&k| 7.0 - 7.0 * 2f64.powi(k))
            .collect();
        let values: Vec<f64> = points.iter().map(|&x| f(x)).collect();
        assert!(looks_analytic(&values, &points));
    }

    #[test]
    fn oscillating_ends_of_wide_intervals_are_recognised() {
        // sin(10πx)/(πx) over [10^-6, 20] in f64. At the lower end the rates are 1.94,
        // 1.82, 1.08 (f'(a)·d taking over from f''(a)·d²/2, 10^-6 from the point of symmetry
        // at 0), and what is left once d is taken out shrinks as d². At the upper end the
        // rounding of the abscissae (ε·20·|f'|) is the noise, not the values' (ε·|f|).
        let f = |x: f64| (10.0 * PI * x).sin() / (PI * x);
        let (a, b) = (1e-6, 20.0);
        for end in [a, b] {
            let toward = if end == a { 1.0 } else { -1.0 };
            let points: Vec<f64> = PROBE_STEPS
                .iter()
                .map(|&k| end + toward * (b - a) * 2f64.powi(k))
                .collect();
            let values: Vec<f64> = points.iter().map(|&x| f(x)).collect();
            assert!(looks_analytic(&values, &points), "at {end}");
        }
        // The same slack does not let x ln x (rate 0.96, then exactly 1) pass.
        assert!(!analytic_at_0(|x| x * x.ln()));
    }

    #[test]
    fn singular_endpoints_are_recognised() {
        assert!(!analytic_at_0(f64::sqrt));
        assert!(!analytic_at_0(f64::ln));
        assert!(!analytic_at_0(|x| 1.0 / x.sqrt()));
        assert!(!analytic_at_0(|x| x.powf(-x)));
        assert!(!analytic_at_0(|x| x * x.ln()));
        assert!(!analytic_at_0(|x| (-1.0 / x).exp()));
        assert!(!analytic_at_0(|x| 1.0 / x));
    }

    #[test]
    fn weak_logarithms_under_an_analytic_term_are_recognised() {
        // x + x² ln² x, the start of x^(x^x), in double-double: the first rate is 1, the
        // second-order one 1.85.
        let f = |x: f64| {
            let x = Dd::from(x);
            x + x * x * x.ln() * x.ln()
        };
        let points: Vec<Dd> = probe_points().into_iter().map(Dd::from).collect();
        let values: Vec<Dd> = PROBE_STEPS.iter().map(|&k| f(2f64.powi(k))).collect();
        assert!(!looks_analytic(&values, &points));
        let g = |x: f64| {
            let x = Dd::from(x);
            x + x * x * (x * 3.0).exp()
        };
        let values: Vec<Dd> = PROBE_STEPS.iter().map(|&k| g(2f64.powi(k))).collect();
        assert!(looks_analytic(&values, &points));
    }
}
