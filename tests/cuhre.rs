//! CUHRE (`hpquad::methods::cuhre`) against MPFR: the Genz–Malik rule on monomials, Genz's
//! test families over [0, 1]^n for n = 2..8 with closed forms evaluated in MPFR (rug), products
//! of one-dimensional integrals in dd and qd, and the benchmark cases.
//!
//! Every result must be honest (the actual error within the estimate) and, when converged,
//! within its tolerance. Run with `--nocapture` for digits, evaluations and times.

use std::time::Instant;

use hpquad::backend::{rule_point, Backend, RULE_CLASSES};
use hpquad::cpu::CpuBackend;
use hpquad::expr::Expr;
use hpquad::integrand::Integrand;
use hpquad::methods::cuhre::host_list::HostList;
use hpquad::methods::cuhre::{
    choose_rule, cuhre, device, CubatureRule, Hyperbox, PointSet, RuleChoice, Schedule,
};
use hpquad::methods::gauss_product::{gauss_product, ProductRule};
use hpquad::methods::{Options, Outcome};
use hpquad::precision::{Dd, Qd, Real};
use hpquad::{Error, Integral, Method, Precision};
use rug::ops::Pow;
use rug::Float;

mod cubature_support;
mod mpfr_support;
use cubature_support::{complex_mul, corner_peak, oscillatory, pagani_cases, sum_terms};
use mpfr_support::{abs_error, digits, mpfr, BITS};

fn mp(x: f64) -> Float {
    Float::with_val(BITS, x)
}

/// A decimal in MPFR, exactly the number the integrand's literal stands for.
fn dec(text: &str) -> Float {
    Float::with_val(BITS, Float::parse(text).expect("a decimal"))
}

// ---------------------------------------------------------------------------------------------
// The rule on monomials
// ---------------------------------------------------------------------------------------------

/// x1^k1 ... xn^kn, evaluated with powi in the working precision.
struct Monomial(Vec<i32>);

impl Integrand for Monomial {
    fn dims(&self) -> usize {
        self.0.len()
    }

    fn eval_batch<T: Real>(&self, points: &[&[T]], out: &mut [T]) {
        for (i, y) in out.iter_mut().enumerate() {
            *y = self
                .0
                .iter()
                .enumerate()
                .fold(T::one(), |p, (d, &k)| p * points[d][i].powi(k));
        }
    }
}

/// Every exponent vector of `n` entries with total degree `degree`.
fn exponents(n: usize, degree: i32) -> Vec<Vec<i32>> {
    if n == 1 {
        return vec![vec![degree]];
    }
    (0..=degree)
        .flat_map(|k| {
            exponents(n - 1, degree - k)
                .into_iter()
                .map(move |mut rest| {
                    rest.insert(0, k);
                    rest
                })
        })
        .collect()
}

/// ∫ over the box of the monomial: Π (b^(k+1) - a^(k+1)) / (k+1), in MPFR.
fn monomial_integral(exps: &[i32], lower: &[Float], upper: &[Float]) -> Float {
    let mut product = mp(1.0);
    for ((&k, a), b) in exps.iter().zip(lower).zip(upper) {
        let hi = Float::with_val(BITS, b.pow(k + 1));
        let lo = Float::with_val(BITS, a.pow(k + 1));
        product *= Float::with_val(BITS, hi - lo) / (k + 1);
    }
    product
}

/// A rule on one region for every monomial of degree 0 to its degree + 1: up to its degree
/// (7 or 9) exact to a few hundred ulp of Σ|w f| (the floor), one more not (x1^8 or x1^10 at
/// least); its null rules (degrees 5, 3, 1 or 7, 5, 3) zero to rounding up to their degrees and
/// not blind to x1 to the next even power.
fn rule_on_monomials<T: Real>(set: PointSet, n: usize, lower: &[T], upper: &[T]) {
    let rule = CubatureRule::<T>::with_set(set, n);
    assert_eq!(rule.points(), set.points(n));
    let (degree_max, null_degrees) = match set {
        PointSet::Degree7 => (7, [5, 3, 1]),
        PointSet::Degree9 => (9, [7, 5, 3]),
    };
    let center: Vec<T> = lower
        .iter()
        .zip(upper)
        .map(|(&a, &b)| (a + b).ldexp(-1))
        .collect();
    let half: Vec<T> = lower
        .iter()
        .zip(upper)
        .map(|(&a, &b)| (b - a).ldexp(-1))
        .collect();
    let mut points = Vec::new();
    rule.abscissae(&center, &half, &mut points);
    assert_eq!(points.len(), rule.points() * n);
    let cpu = CpuBackend::new(1).expect("a pool");
    let (lo, hi): (Vec<Float>, Vec<Float>) = (
        lower.iter().map(|&x| mpfr(x)).collect(),
        upper.iter().map(|&x| mpfr(x)).collect(),
    );
    // All monomials up to n = 5; beyond, those in at most 4 variables (the rules are
    // symmetric in the axes, and their moment equations have at most 4 variables).
    let most = if n > 5 { 4 } else { n };
    for degree in 0..=degree_max + 1 {
        for exps in exponents(n, degree) {
            if exps.iter().filter(|&&k| k > 0).count() > most {
                continue;
            }
            let values = cpu
                .evaluate(&Monomial(exps.clone()), &points)
                .expect("values");
            let estimate = rule.apply(&half, &values);
            let exact = monomial_integral(&exps, &lo, &hi);
            let err = abs_error(estimate.value, &exact);
            // The rounding level: the floor sees the class sums, which cancel where the
            // monomial changes sign (x8 on [-1/9, 1/9]); the values' largest size does not.
            let volume: f64 = half.iter().map(|h| 2.0 * h.to_f64()).product();
            let largest = values.iter().map(|v| v.to_f64().abs()).fold(0.0, f64::max);
            let rounding = estimate.floor + T::epsilon().to_f64() * volume * largest;
            if degree <= degree_max {
                assert!(
                    err <= 64.0 * rounding,
                    "{} {set:?} n={n} {exps:?}: error {err:e}, floor {:e}",
                    T::NAME,
                    estimate.floor
                );
            }
            // The null rules integrate every monomial of degree at most 5, 3, 1 (or 7, 5, 3)
            // to zero (to rounding) and see x1^6, x1^4, x1^2 (or x1^8, x1^6, x1^4).
            let mut classes = [T::zero(); RULE_CLASSES];
            let mut x = vec![T::zero(); n];
            for (k, &v) in values.iter().enumerate() {
                classes[rule_point(k as u64, &center, &half, rule.generators(), &mut x)] += v;
            }
            for (space, exact_to) in rule.null_rules().iter().zip(null_degrees) {
                assert!(!space.is_empty(), "{set:?} n={n}: an empty null space");
                let mut seen: f64 = 0.0;
                for w in space {
                    let mut value = T::zero();
                    for (&wk, &sk) in w.iter().zip(&classes) {
                        value += wk * sk;
                    }
                    let norm: f64 = w.iter().map(|wk| wk.to_f64().abs()).sum::<f64>();
                    let value = value.to_f64().abs() / norm;
                    seen = seen.max(value);
                    if degree <= exact_to {
                        assert!(
                            value <= 1e4 * T::epsilon().to_f64() * largest,
                            "{} {set:?} n={n} {exps:?}: null rule of degree {exact_to} gives \
                             {value:e}",
                            T::NAME
                        );
                    }
                }
                if degree == exact_to + 1 && exps[0] == degree {
                    assert!(
                        seen > 1e-8 * largest,
                        "{} {set:?} n={n} {exps:?}: null rules of degree {exact_to} blind",
                        T::NAME
                    );
                }
            }
            if degree == degree_max + 1 && exps[0] == degree {
                assert!(
                    err > 1e-6 * exact.to_f64().abs(),
                    "x1^{degree} should not be exact"
                );
            }
        }
    }
}

#[test]
fn genz_malik_is_exact_to_degree_7_on_the_unit_cube() {
    for n in 1..=8 {
        let set = PointSet::Degree7;
        rule_on_monomials::<f64>(set, n, &vec![0.0; n], &vec![1.0; n]);
        rule_on_monomials::<Dd>(set, n, &vec![Dd::from(0); n], &vec![Dd::from(1); n]);
        rule_on_monomials::<Qd>(set, n, &vec![Qd::from(0); n], &vec![Qd::from(1); n]);
    }
}

#[test]
fn degree_9_rule_is_exact_to_degree_9_on_the_unit_cube() {
    for n in 2..=8 {
        let set = PointSet::Degree9;
        rule_on_monomials::<f64>(set, n, &vec![0.0; n], &vec![1.0; n]);
        rule_on_monomials::<Dd>(set, n, &vec![Dd::from(0); n], &vec![Dd::from(1); n]);
        rule_on_monomials::<Qd>(set, n, &vec![Qd::from(0); n], &vec![Qd::from(1); n]);
    }
}

/// A box with other bounds per axis: [-1/3, 1/2] × [1/10, 2] × [-2, -1/7] × ..., in T.
fn odd_box<T: Real>(n: usize) -> (Vec<T>, Vec<T>) {
    let lows = [
        (-1, 3),
        (1, 10),
        (-2, 1),
        (0, 1),
        (3, 4),
        (-5, 2),
        (1, 7),
        (-1, 9),
    ];
    let highs = [
        (1, 2),
        (2, 1),
        (-1, 7),
        (5, 3),
        (1, 1),
        (-1, 2),
        (9, 7),
        (1, 9),
    ];
    let r = |(p, q): (i64, i64)| T::from_i64(p) / T::from_i64(q);
    (
        (0..n).map(|k| r(lows[k])).collect(),
        (0..n).map(|k| r(highs[k])).collect(),
    )
}

#[test]
fn both_rules_are_exact_to_their_degree_on_other_boxes() {
    for set in [PointSet::Degree7, PointSet::Degree9] {
        for n in 2..=8 {
            let (a, b) = odd_box::<f64>(n);
            rule_on_monomials(set, n, &a, &b);
            let (a, b) = odd_box::<Dd>(n);
            rule_on_monomials(set, n, &a, &b);
            // qd to four dimensions (the unit cube's test has it to eight).
            if n <= 4 {
                let (a, b) = odd_box::<Qd>(n);
                rule_on_monomials(set, n, &a, &b);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Genz's test families over [0, 1]^n
// ---------------------------------------------------------------------------------------------

/// One integral over [0, 1]^n: the integrand in x1..xn, its MPFR reference, the tolerance.
struct Case {
    name: String,
    dims: usize,
    expression: String,
    reference: Float,
    tolerance: f64,
}

/// The families' parameters, axis by axis (the first n are used); every a², a^-2 and u is a
/// short decimal, so the integrand's literals and MPFR's are the same numbers.
const OSC_A: [&str; 8] = ["0.9", "0.7", "1.1", "0.5", "1.3", "0.6", "0.8", "1.0"];
const PEAK_A_INV2: [&str; 8] = ["0.25", "0.16", "0.64", "0.25", "1", "0.64", "0.25", "1"];
const U: [&str; 8] = ["0.3", "0.6", "0.45", "0.7", "0.2", "0.55", "0.35", "0.8"];
const CORNER_A: [&str; 8] = ["0.6", "0.4", "0.5", "0.3", "0.7", "0.2", "0.45", "0.35"];
const GAUSS_A: [&str; 8] = ["2", "3", "1.5", "2.5", "1", "2", "3", "1.5"];
const C0_A: [&str; 8] = ["1", "2", "1.5", "0.5", "1", "2", "1.5", "0.5"];
const DISC_A: [&str; 8] = ["0.5", "0.8", "0.3", "0.6", "0.4", "0.7", "0.2", "0.9"];
const DISC_U: [&str; 2] = ["0.4", "0.6"];

fn genz_cases(n: usize) -> Vec<Case> {
    let pi = Float::with_val(BITS, rug::float::Constant::Pi);
    let one = || mp(1.0);
    let mut cases = Vec::new();

    // Oscillatory: cos(2π u1 + Σ a_i x_i) = Re e^{i 2π u1} Π (e^{i a} - 1) / (i a).
    let mut z = {
        let phase = Float::with_val(BITS, &pi * 2) * dec(U[0]);
        (phase.clone().cos(), phase.sin())
    };
    for a in &OSC_A[..n] {
        let a = dec(a);
        // (e^{ia} - 1)/(ia) = sin a / a + i (1 - cos a) / a
        let factor = (
            Float::with_val(BITS, a.clone().sin() / &a),
            Float::with_val(BITS, (one() - a.clone().cos()) / &a),
        );
        z = complex_mul(z, factor);
    }
    cases.push(Case {
        name: format!("oscillatory n={n}"),
        dims: n,
        expression: format!(
            "cos(2*pi*{} + {})",
            U[0],
            sum_terms(n, |i| format!("{}*x{}", OSC_A[i], i + 1))
        ),
        reference: z.0,
        tolerance: 1e-6,
    });

    // Product peak: Π 1/(a^-2 + (x - u)^2), each factor a (atan(a (1 - u)) + atan(a u)).
    let mut reference = one();
    for i in 0..n {
        let a = Float::with_val(BITS, dec(PEAK_A_INV2[i]).recip_sqrt());
        let u = dec(U[i]);
        let right = Float::with_val(BITS, &a * (one() - &u)).atan();
        let left = Float::with_val(BITS, &a * &u).atan();
        reference *= Float::with_val(BITS, &a * (right + left));
    }
    cases.push(Case {
        name: format!("product peak n={n}"),
        dims: n,
        expression: (0..n)
            .map(|i| format!("1/({} + (x{} - {})^2)", PEAK_A_INV2[i], i + 1, U[i]))
            .collect::<Vec<_>>()
            .join(" * "),
        reference,
        tolerance: 1e-6,
    });

    // Corner peak: (1 + Σ a x)^(-n-1) = Σ_v (-1)^|v| / (1 + a·v) / (n! Π a).
    let a: Vec<Float> = CORNER_A[..n].iter().map(|s| dec(s)).collect();
    let mut sum = mp(0.0);
    for v in 0..1u32 << n {
        let mut denominator = one();
        for (k, ak) in a.iter().enumerate() {
            if v >> k & 1 == 1 {
                denominator += ak;
            }
        }
        let term = Float::with_val(BITS, denominator.recip());
        if v.count_ones() % 2 == 0 {
            sum += term;
        } else {
            sum -= term;
        }
    }
    let mut scale = one();
    for (k, ak) in a.iter().enumerate() {
        scale *= Float::with_val(BITS, ak * (k as u32 + 1));
    }
    cases.push(Case {
        name: format!("corner peak n={n}"),
        dims: n,
        expression: format!(
            "(1 + {})^(-{})",
            sum_terms(n, |i| format!("{}*x{}", CORNER_A[i], i + 1)),
            n + 1
        ),
        reference: sum / scale,
        tolerance: 1e-6,
    });

    // Gaussian: exp(-Σ a² (x - u)²), each factor √π / (2a) (erf(a (1 - u)) + erf(a u)).
    let mut reference = one();
    for i in 0..n {
        let a = dec(GAUSS_A[i]);
        let u = dec(U[i]);
        let right = Float::with_val(BITS, &a * (one() - &u)).erf();
        let left = Float::with_val(BITS, &a * &u).erf();
        let root_pi = Float::with_val(BITS, pi.sqrt_ref());
        reference *= root_pi / Float::with_val(BITS, &a * 2) * (right + left);
    }
    cases.push(Case {
        name: format!("gaussian n={n}"),
        dims: n,
        expression: format!(
            "exp(-({}))",
            sum_terms(n, |i| format!("{}^2*(x{} - {})^2", GAUSS_A[i], i + 1, U[i]))
        ),
        reference,
        tolerance: 1e-6,
    });

    // C0: exp(-Σ a |x - u|), each factor (2 - e^{-a u} - e^{-a (1 - u)}) / a.
    let mut reference = one();
    for i in 0..n {
        let a = dec(C0_A[i]);
        let u = dec(U[i]);
        let left = (-Float::with_val(BITS, &a * &u)).exp();
        let right = (-Float::with_val(BITS, &a * (one() - &u))).exp();
        reference *= Float::with_val(BITS, (2 - left - right) / &a);
    }
    cases.push(Case {
        name: format!("C0 n={n}"),
        dims: n,
        expression: format!(
            "exp(-({}))",
            sum_terms(n, |i| format!("{}*abs(x{} - {})", C0_A[i], i + 1, U[i]))
        ),
        reference,
        tolerance: 1e-4,
    });

    // Discontinuous: exp(Σ a x) where x1 ≤ u1 and x2 ≤ u2, else 0; the indicator of x ≤ u on
    // [0, 1] is 1 + floor(u - x). Each factor (e^{a c} - 1) / a, c = u1, u2 or 1.
    let mut reference = one();
    for i in 0..n {
        let a = dec(DISC_A[i]);
        let c = if i < 2 { dec(DISC_U[i]) } else { one() };
        let grown = Float::with_val(BITS, &a * &c).exp_m1();
        reference *= Float::with_val(BITS, grown / &a);
    }
    cases.push(Case {
        name: format!("discontinuous n={n}"),
        dims: n,
        expression: format!(
            "exp({}) * (1 + floor({} - x1)) * (1 + floor({} - x2))",
            sum_terms(n, |i| format!("{}*x{}", DISC_A[i], i + 1)),
            DISC_U[0],
            DISC_U[1]
        ),
        reference,
        tolerance: 1e-3,
    });
    cases
}

/// Runs one case in precision T and checks honesty (and the tolerance, when converged).
fn run_case<T: Real>(
    case: &Case,
    schedule: Schedule,
    threads: usize,
    options: &Options,
) -> Outcome<T> {
    let cpu = CpuBackend::new(threads).expect("a pool");
    run_case_on(case, schedule, &cpu, options)
}

/// [`run_case`] on any backend, the backend's name in the line printed.
fn run_case_on<T: Real, B: Backend>(
    case: &Case,
    schedule: Schedule,
    backend: &B,
    options: &Options,
) -> Outcome<T> {
    let f = Expr::parse(&case.expression, case.dims).expect(&case.expression);
    let unit = Hyperbox::new(vec![T::zero(); case.dims], vec![T::one(); case.dims]).expect("box");
    // CUHRE_RULE=7 or 9 forces the rule, for comparing them; by default the integrand's.
    let mut options = *options;
    if let Ok(rule) = std::env::var("CUHRE_RULE") {
        options.cubature_rule = rule.parse().expect("CUHRE_RULE: 7, 9 or auto");
    }
    let options = &options;
    let set = choose_rule(&f, case.dims, options.cubature_rule)
        .expect("a rule")
        .set;
    let start = Instant::now();
    let out = cuhre(&f, backend, &unit, schedule, options).expect(&case.name);
    let err = abs_error(out.value, &case.reference);
    let relative = options.relative.unwrap_or(0.0);
    println!(
        "{:<22} {:?} {:>4} {:<15} {:>6.2} digits  est {:.1e} actual {:.1e} ({:.0e} of it)  {:>10} evals {:>7} steps  \
         {:>8.3} s  {}  {}",
        case.name,
        set,
        T::NAME,
        schedule.name(),
        digits(out.value, &case.reference),
        out.error,
        err,
        err / out.error,
        out.evaluations,
        out.levels,
        start.elapsed().as_secs_f64(),
        if out.converged {
            "converged"
        } else {
            "NOT converged"
        },
        backend.device()
    );
    assert!(
        err <= out.error,
        "{} {}: dishonest: actual error {err:e} above the estimate {:e}",
        case.name,
        schedule.name(),
        out.error
    );
    if out.converged {
        assert!(
            err <= relative * case.reference.to_f64().abs() + options.absolute,
            "{}: converged but the actual error {err:e} misses the tolerance",
            case.name
        );
    }
    out
}

/// [`genz_cases`] with the tolerances loosened where they would cost more than 5·10^7
/// evaluations.
fn genz_cases_within_reach(n: usize) -> Vec<Case> {
    let mut cases = genz_cases(n);
    for case in &mut cases {
        // The null rules' estimate falls a power of h slower than the error (h^6 against
        // h^8 for degree 7, h^8 against h^10 for degree 9): in 6 to 8 dimensions the
        // tighter tolerances cost 10^8 evaluations.
        if n >= 6 && case.tolerance < 1e-4 {
            case.tolerance *= 10f64.powi(n as i32 - 5);
        }
        // C0's kinks cost the most: in 7 and 8 dimensions 1e-4 takes over 5·10^7 (the
        // family has abs: the degree-7 rule).
        if n >= 7 && case.name.starts_with("C0") {
            case.tolerance = 1e-3;
        }
    }
    cases
}

#[test]
fn genz_families_in_f64_from_2_to_8_dimensions() {
    for n in 2..=8 {
        for case in genz_cases_within_reach(n) {
            let options = Options {
                relative: Some(case.tolerance),
                max_evaluations: 50_000_000,
                ..Options::default()
            };
            let parallel = run_case::<f64>(&case, Schedule::Parallel, 2, &options);
            assert!(parallel.converged, "{} did not converge", case.name);
            if n <= 5 {
                let sequential = run_case::<f64>(&case, Schedule::Sequential, 1, &options);
                assert!(sequential.converged, "{} did not converge", case.name);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The rule: chosen per integrand, or asked for
// ---------------------------------------------------------------------------------------------

/// Degree 9 for an expression with no operation that can put a kink or a jump inside, degree 7
/// for one with abs, floor, min, ... (Genz's C0 and discontinuous families), for Rust code and
/// in one dimension; either when asked for, with the reason in the estimate.
#[test]
fn the_rule_is_chosen_per_integrand_and_can_be_asked_for() {
    let auto = RuleChoice::Auto;
    for n in 2..=8 {
        for case in genz_cases(n) {
            let f = Expr::parse(&case.expression, n).expect("parses");
            let chosen = choose_rule(&f, n, auto).expect("a rule");
            let kinked = case.name.starts_with("C0") || case.name.starts_with("discontinuous");
            let want = if kinked {
                PointSet::Degree7
            } else {
                PointSet::Degree9
            };
            assert_eq!(chosen.set, want, "{}: {}", case.name, chosen.reason);
        }
    }
    let rust_code = Monomial(vec![2, 1]);
    let chosen = choose_rule(&rust_code, 2, auto).expect("a rule");
    assert_eq!(chosen.set, PointSet::Degree7);
    assert!(chosen.reason.contains("Rust code"), "{}", chosen.reason);
    let line = Expr::parse("exp(x)", 1).expect("parses");
    assert_eq!(
        choose_rule(&line, 1, auto).expect("a rule").set,
        PointSet::Degree7
    );

    // Through the builder: the rule and why, chosen by the method too under auto.
    let box_of = |source: &str| {
        Integral::with_dims(source, 2)
            .expect("parses")
            .over_box(&[0.0, 0.0], &[1.0, 1.0])
            .tolerance(1e-9)
    };
    // Auto takes the product method for a smooth expression in two variables; CUHRE, asked
    // for, chooses the degree-9 rule for it, and auto takes CUHRE for a kinked one.
    let est = box_of("exp(-x1^2 - x2)")
        .method(Method::Cuhre {
            schedule: Schedule::Parallel,
        })
        .compute()
        .expect("computes");
    assert_eq!(est.cubature_rule, Some(PointSet::Degree9));
    let reason = est.reason.clone().unwrap_or_default();
    assert!(
        reason.contains("the degree-9 rule: the expression has no operation"),
        "{reason}"
    );
    let est = box_of("exp(-abs(x1 - 0.3) - x2)")
        .compute()
        .expect("computes");
    let reason = est.reason.clone().unwrap_or_default();
    assert!(
        reason.contains("CUHRE is the n-dimensional method"),
        "{reason}"
    );
    let est = box_of("exp(-abs(x1 - 0.3) - x2)")
        .method(Method::Cuhre {
            schedule: Schedule::Sequential,
        })
        .compute()
        .expect("computes");
    assert_eq!(est.cubature_rule, Some(PointSet::Degree7));
    assert!(
        est.reason
            .as_deref()
            .unwrap_or_default()
            .starts_with("the degree-7 rule: the expression has an operation that can put a kink"),
        "{:?}",
        est.reason
    );
    for (choice, set) in [
        (RuleChoice::Degree7, PointSet::Degree7),
        (RuleChoice::Degree9, PointSet::Degree9),
    ] {
        let est = box_of("exp(-abs(x1 - 0.3) - x2)")
            .cubature_rule(choice)
            .compute()
            .expect("computes");
        assert_eq!(est.cubature_rule, Some(set));
        assert!(est.reason.unwrap_or_default().contains("rule: asked for"));
        // exp(-|x - 0.3|) over [0, 1] times (1 - e^-1).
        let exact = (2.0 - (-0.3f64).exp() - (-0.7f64).exp()) * (1.0 - (-1.0f64).exp());
        assert!(est.converged && (est.value.to_f64() - exact).abs() <= est.error);
    }

    // What cannot be: degree 9 in one dimension, a rule for a method of one variable, text
    // that is no rule.
    let m = Integral::new("exp(x)")
        .expect("parses")
        .over(0.0..1.0)
        .method(Method::Cuhre {
            schedule: Schedule::Parallel,
        })
        .cubature_rule(RuleChoice::Degree9)
        .compute()
        .expect_err("degree 9 in one dimension")
        .to_string();
    assert!(
        m.contains("degree-9 rule needs two or more variables"),
        "{m}"
    );
    let m = Integral::new("exp(x)")
        .expect("parses")
        .over(0.0..1.0)
        .method(Method::GaussKronrod)
        .cubature_rule(RuleChoice::Degree7)
        .compute()
        .expect_err("a rule for a 1-D method")
        .to_string();
    assert!(m.contains("cubature rule (7) was asked for"), "{m}");
    let m = "8".parse::<RuleChoice>().expect_err("not a rule");
    assert!(
        m.contains("unknown cubature rule '8'") && m.contains("expected 7"),
        "{m}"
    );
    assert_eq!(" AUTO ".parse::<RuleChoice>(), Ok(RuleChoice::Auto));
}

/// Integrands that the expression makes singular without an operation that has_kinks sees
/// (so the degree-9 rule runs): singular at a corner or an edge (sqrt(x1 x2), x1^(-1/3),
/// log(x1² + x2²), log(x1 + x2), log(x1 x2 x3 x4)) or kinked inside (|x1 - 0.3| written as
/// sqrt((x1 - 0.3)²)). Both rules' estimates must cover the true error (closed forms), and meet
/// the tolerance when they say they converged. On the host (f64, 2 threads) the true errors were
/// 0.02 to 0.24 of the degree-9 estimates, and 0.0001 to 0.5 of the degree-7 ones.
#[test]
fn singular_integrands_are_honest_with_either_rule() {
    let ln2 = Float::with_val(BITS, 2).ln();
    let pi = Float::with_val(BITS, rug::float::Constant::Pi);
    let frac = |p: u32, q: u32| Float::with_val(BITS, p) / q;
    let cases: Vec<(&str, usize, Float)> = vec![
        ("sqrt(x1*x2)", 2, frac(4, 9)),
        ("sqrt(x1*x2*x3*x4)", 4, frac(16, 81)),
        ("x1^(-1/3)", 2, frac(3, 2)),
        ("x1^(-1/3)", 4, frac(3, 2)),
        (
            "log(x1^2 + x2^2)",
            2,
            Float::with_val(BITS, &ln2 + Float::with_val(BITS, &pi / 2u32)) - 3u32,
        ),
        (
            "log(x1 + x2)",
            2,
            Float::with_val(BITS, &ln2 * 2u32) - frac(3, 2),
        ),
        ("log(x1*x2*x3*x4)", 4, Float::with_val(BITS, -4)),
        // ∫ |x1 - 0.3| over [0, 1] = (0.3² + 0.7²)/2.
        ("sqrt((x1 - 0.3)^2)", 2, dec("0.29")),
    ];
    let cpu = CpuBackend::new(2).expect("a pool");
    for (source, n, reference) in &cases {
        let f = Expr::parse(source, *n).expect(source);
        assert_eq!(
            choose_rule(&f, *n, RuleChoice::Auto).expect("a rule").set,
            PointSet::Degree9,
            "{source}"
        );
        let unit = Hyperbox::new(vec![0.0; *n], vec![1.0; *n]).expect("box");
        for tolerance in [1e-4, 1e-6] {
            for rule in [RuleChoice::Auto, RuleChoice::Degree7] {
                let options = Options {
                    relative: Some(tolerance),
                    max_evaluations: 1 << 25,
                    cubature_rule: rule,
                    ..Options::default()
                };
                let out = cuhre(&f, &cpu, &unit, Schedule::Parallel, &options).expect(source);
                let err = abs_error(out.value, reference);
                println!(
                    "{source:<22} n={n} tol {tolerance:.0e} rule {rule}: error {err:.1e}, \
                     estimate {:.1e} ({:.2} of it), {} evaluations, converged {}",
                    out.error,
                    err / out.error,
                    out.evaluations,
                    out.converged
                );
                assert!(
                    err <= out.error,
                    "{source} n={n} rule {rule}: actual {err:e} above the estimate {:e}",
                    out.error
                );
                assert!(out.converged, "{source} n={n} rule {rule}");
                assert!(
                    err <= tolerance * reference.to_f64().abs(),
                    "{source} n={n}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// dd and qd, determinism, the builder
// ---------------------------------------------------------------------------------------------

/// A polynomial of degree 5 over a box with bounds given as text (read in the working
/// precision) is one region (both rules exact: the error is the rounding floor), exact to the
/// precision: 30 digits in dd, 60 in qd.
#[test]
fn polynomials_over_a_box_to_the_precision_in_dd_and_qd() {
    let lower = ["-3/8", "1/8", "0"];
    let upper = ["1/2", "2", "3/4"];
    // ∫ (x1^3 x2 x3 - 2 x1 x3 + x2^5): each term a product of one-dimensional integrals.
    let mpfr_bound = |s: &str| -> Float {
        let (p, q) = s.split_once('/').unwrap_or((s, "1"));
        Float::with_val(BITS, dec(p) / dec(q))
    };
    let lo: Vec<Float> = lower.iter().map(|s| mpfr_bound(s)).collect();
    let hi: Vec<Float> = upper.iter().map(|s| mpfr_bound(s)).collect();
    let reference = monomial_integral(&[3, 1, 1], &lo, &hi)
        - Float::with_val(BITS, monomial_integral(&[1, 0, 1], &lo, &hi) * 2)
        + monomial_integral(&[0, 5, 0], &lo, &hi);
    let source = "x1^3*x2*x3 - 2*x1*x3 + x2^5";
    for (precision, tolerance, want) in [(Precision::Dd, 1e-29, 30.0), (Precision::Qd, 1e-60, 60.0)]
    {
        for schedule in [Schedule::Sequential, Schedule::Parallel] {
            let est = Integral::with_dims(source, 3)
                .expect("parses")
                .box_bounds(&lower, &upper)
                .method(Method::Cuhre { schedule })
                .precision(precision)
                .tolerance(tolerance)
                .compute()
                .expect("computes");
            let got = match est.value {
                hpquad::Value::Dd(x) => (digits(x, &reference), abs_error(x, &reference)),
                hpquad::Value::Qd(x) => (digits(x, &reference), abs_error(x, &reference)),
                hpquad::Value::F64(x) => (digits(x, &reference), abs_error(x, &reference)),
            };
            println!(
                "{precision} {schedule}: {:.1} digits, estimate {:.1e}",
                got.0, est.error
            );
            let set = est.cubature_rule.expect("a cubature");
            assert!(est.converged && est.evaluations == set.points(3) as u64);
            assert!(got.0 >= want, "{precision} {schedule}: {:.1} digits", got.0);
            assert!(got.1 <= est.error, "dishonest");
        }
    }
}

/// |x1 - 1/2|^3 x2 x3 over [0, 1]^3: a piecewise polynomial of degree 5 that one split at
/// x1 = 1/2 makes exact; the fourth differences must pick axis 1, and dd and qd reach their
/// precision. ∫ = 2 (1/2)^4 / 4 · 1/2 · 1/2 = 1/128. The halves carry DCUHRE's parent term
/// (their sum against the whole box's estimate), so they are split once more: 7 regions.
#[test]
fn a_kink_on_a_split_plane_is_found_and_integrated_to_the_precision() {
    let reference = Float::with_val(BITS, 1) / 128;
    for (precision, want) in [(Precision::Dd, 30.0), (Precision::Qd, 60.0)] {
        let est = Integral::with_dims("abs(x1 - 0.5)^3 * x2 * x3", 3)
            .expect("parses")
            .over_box(&[0.0; 3], &[1.0; 3])
            .method(Method::Cuhre {
                schedule: Schedule::Sequential,
            })
            .precision(precision)
            .tolerance(if precision == Precision::Dd {
                1e-29
            } else {
                1e-60
            })
            .compute()
            .expect("computes");
        let (d, err) = match est.value {
            hpquad::Value::Dd(x) => (digits(x, &reference), abs_error(x, &reference)),
            hpquad::Value::Qd(x) => (digits(x, &reference), abs_error(x, &reference)),
            hpquad::Value::F64(x) => (digits(x, &reference), abs_error(x, &reference)),
        };
        println!(
            "{precision}: {d:.1} digits in {} evaluations",
            est.evaluations
        );
        assert!(est.converged, "{precision}: {est}");
        // abs: the degree-7 rule.
        assert_eq!(est.cubature_rule, Some(PointSet::Degree7));
        assert!(
            est.evaluations <= 7 * PointSet::Degree7.points(3) as u64,
            "{est}"
        );
        assert!(d >= want && err <= est.error);
    }
}

/// exp(x + y + z) over [0, 1]^3 = (e - 1)^3 in f64, dd and qd at 1e-12: honest and within the
/// tolerance in every precision. (Thirty digits would take about 10^9 regions: the error
/// estimate is the degree-5 rule's, h^6 per region.)
#[test]
fn exp_of_a_sum_in_every_precision() {
    let e = Float::with_val(BITS, 1).exp();
    let case = Case {
        name: "exp(x1+x2+x3)".to_string(),
        dims: 3,
        expression: "exp(x1 + x2 + x3)".to_string(),
        reference: Float::with_val(BITS, (e - 1u32).pow(3)),
        tolerance: 1e-12,
    };
    let options = Options {
        relative: Some(case.tolerance),
        ..Options::default()
    };
    for schedule in [Schedule::Sequential, Schedule::Parallel] {
        assert!(run_case::<f64>(&case, schedule, 2, &options).converged);
        assert!(run_case::<Dd>(&case, schedule, 2, &options).converged);
        assert!(run_case::<Qd>(&case, schedule, 2, &options).converged);
    }
}

/// The same bits for 1 and 2 threads (and the sequential schedule's bits on every run).
#[test]
fn same_bits_for_any_thread_count() {
    for case in genz_cases(4) {
        let options = Options {
            relative: Some(1e-5),
            ..Options::default()
        };
        let one = run_case::<Dd>(&case, Schedule::Parallel, 1, &options);
        let two = run_case::<Dd>(&case, Schedule::Parallel, 2, &options);
        assert_eq!(one.value, two.value, "{}", case.name);
        assert_eq!(one.error, two.error, "{}", case.name);
        assert_eq!(one.evaluations, two.evaluations, "{}", case.name);
    }
}

/// The evaluation cap: not converged, the error honest.
#[test]
fn the_cap_gives_an_honest_unconverged_estimate() {
    let case = &genz_cases(5)[1];
    let options = Options {
        relative: Some(1e-12),
        max_evaluations: 200_000,
        ..Options::default()
    };
    for schedule in [Schedule::Sequential, Schedule::Parallel] {
        let out = run_case::<f64>(case, schedule, 2, &options);
        assert!(!out.converged && out.evaluations <= 200_000 && out.error.is_finite());
    }
}

#[test]
fn bad_boxes_and_methods_are_clear_errors() {
    let message = |r: Result<hpquad::Estimate, Error>| r.expect_err("an error").to_string();
    let f = || Integral::with_dims("x1*x2", 2).expect("parses");
    let m = message(f().over_box(&[0.0], &[1.0, 1.0]).compute());
    assert!(m.contains("1 lower and 2 upper"), "{m}");
    let m = message(f().over_box(&[0.0, 0.0, 0.0], &[1.0, 1.0, 1.0]).compute());
    assert!(m.contains("3 axes but the integrand has 2"), "{m}");
    let m = message(f().over_box(&[0.0, 1.0], &[1.0, 0.5]).compute());
    assert!(m.contains("axis 2 is reversed"), "{m}");
    let m = message(f().over_box(&[0.0, 1.0], &[1.0, 1.0]).compute());
    assert!(m.contains("axis 2 is empty"), "{m}");
    let m = message(f().box_bounds(&["0", "0"], &["1", "1/"]).compute());
    assert!(m.contains("axis 2"), "{m}");
    let m = message(
        f().over_box(&[0.0, 0.0], &[1.0, 1.0])
            .method(Method::Romberg)
            .compute(),
    );
    assert!(
        m.contains("romberg integrates functions of one variable"),
        "{m}"
    );
    let m = message(f().compute());
    assert!(m.contains("give a box of 2 axes"), "{m}");
    let m = message(
        f().over_box(&[0.0, 0.0], &[1.0, f64::INFINITY])
            .method(Method::Cuhre {
                schedule: Schedule::Parallel,
            })
            .compute(),
    );
    assert!(m.contains("axis 2") && m.contains("finite"), "{m}");
    // One dimension: CUHRE works as an adaptive 7-point rule.
    let est = Integral::new("exp(x)")
        .expect("parses")
        .over(0.0..1.0)
        .method(Method::Cuhre {
            schedule: Schedule::Sequential,
        })
        .tolerance(1e-12)
        .compute()
        .expect("1-D");
    assert!(est.converged && (est.value.to_f64() - (std::f64::consts::E - 1.0)).abs() < 1e-12);
}

#[test]
fn the_command_line_takes_boxes() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_hpquad"))
            .args(args)
            .output()
            .expect("runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let product = [
        "integrate",
        "x1*x2*x3",
        "--from",
        "0,0,0",
        "--to",
        "1,1,2",
        "-m",
        "cuhre",
        "-p",
        "qd",
    ];
    let (code, out, _) = run(&product);
    // x1 x2 x3 has no kink: the degree-9 rule, whose weights are solved in qd (0.5 to a few
    // units of qd's last place), and with --cubature-rule 7 Genz and Malik's exact rationals.
    assert_eq!(code, Some(0));
    let printed = Float::parse(out.lines().next().unwrap_or("")).expect("a number");
    let off = Float::with_val(BITS, Float::with_val(BITS, printed) - 0.5f64).abs();
    assert!(off < 1e-62, "{out}");
    assert!(
        out.contains("regions evaluated (77 points each, degree-9 rule)")
            && out.contains("cuhre: the degree-9 rule: the expression has no operation"),
        "{out}"
    );
    let (code, out, _) = run(&[&product[..], &["--cubature-rule", "7"]].concat());
    assert_eq!(code, Some(0));
    assert!(out.starts_with("0.5\n"), "{out}");
    assert!(
        out.contains("(33 points each, degree-7 rule)") && out.contains("rule: asked for"),
        "{out}"
    );
    let (code, _, err) = run(&[
        "integrate",
        "x1*x2",
        "--from",
        "0",
        "--to",
        "1",
        "--dim",
        "2",
        "--cubature-rule",
        "8",
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown cubature rule '8'"), "{err}");
    let (code, help, _) = run(&["integrate", "--help"]);
    assert_eq!(code, Some(0));
    assert!(help.contains("--cubature-rule"), "{help}");
    let (code, out, _) = run(&[
        "integrate",
        "x1*x2*x3*x4",
        "--from",
        "0",
        "--to",
        "1",
        "--dim",
        "4",
        "-p",
        "f64",
    ]);
    assert_eq!(code, Some(0));
    let value: f64 = out
        .lines()
        .next()
        .and_then(|l| l.parse().ok())
        .expect("a number");
    assert!(
        out.contains("gauss-product") && (value - 0.0625).abs() < 1e-15,
        "{out}"
    );
    let (code, _, err) = run(&["integrate", "x*y", "--from", "0,0", "--to", "1"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("--from gives 2 bounds and --to gives 1"),
        "{err}"
    );
    let (code, _, err) = run(&[
        "integrate",
        "x*y",
        "--from",
        "0,0",
        "--to",
        "1,1",
        "--dim",
        "3",
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--dim 3 contradicts"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// The benchmark cases (f64): `cargo test --release --test cuhre -- --ignored
// --nocapture benchmark_cases`
// ---------------------------------------------------------------------------------------------

/// The six cases (tests/cubature_support) as this file's [`Case`]s.
fn benchmark_cases() -> Vec<Case> {
    pagani_cases()
        .into_iter()
        .map(|c| Case {
            name: c.name.to_string(),
            dims: c.dims,
            expression: c.expression,
            reference: c.reference,
            tolerance: c.tolerance,
        })
        .collect()
}

#[test]
#[ignore = "the issue's benchmark: minutes in release mode"]
fn benchmark_cases_in_f64() {
    let only = std::env::var("CUHRE_CASE").ok();
    for case in benchmark_cases() {
        if only
            .as_ref()
            .is_some_and(|o| !case.name.contains(o.as_str()))
        {
            continue;
        }
        let tolerance = std::env::var("CUHRE_TOL").map_or(case.tolerance, |t| t.parse().unwrap());
        let options = Options {
            relative: Some(tolerance),
            max_evaluations: std::env::var("CUHRE_CAP")
                .map_or(Options::default().max_evaluations, |t| t.parse().unwrap()),
            ..Options::default()
        };
        if std::env::var("CUHRE_SEQ").is_ok() {
            run_case::<f64>(&case, Schedule::Sequential, 1, &options);
        }
        run_case::<f64>(&case, Schedule::Parallel, 0, &options);
        if hpquad::gpu::is_available() {
            let cpu = CpuBackend::new(0).expect("a pool");
            let gpu = hpquad::gpu::GpuBackend::new(0).expect("a CUDA device");
            let hybrid = hpquad::gpu::HybridBackend::new(cpu, Some(gpu));
            // The first call compiles the kernel (or reads it from the cache); the second is
            // the warm time.
            run_case_on::<f64, _>(&case, Schedule::Parallel, &hybrid, &options);
            run_case_on::<f64, _>(&case, Schedule::Parallel, &hybrid, &options);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The device's list algorithm on the CPU (`cuhre::host_list`): the cases without a
// device, `cargo test --release --test cuhre -- --ignored --nocapture host_list`
// ---------------------------------------------------------------------------------------------

/// The list algorithm ([`hpquad::methods::cuhre::device::run`]) on the CPU list with the rule
/// the integrand gets, to relative `tolerance` within `cap` evaluations: the outcome and the
/// retired regions brought back; the counts and the true and claimed errors (in units of
/// τ|I|) printed.
fn on_host_list(
    name: &str,
    expression: &str,
    dims: usize,
    reference: &Float,
    tolerance: f64,
    cap: u64,
) -> (Outcome<f64>, usize) {
    let f = Expr::parse(expression, dims).expect(expression);
    let set = choose_rule(&f, dims, RuleChoice::Auto).expect("a rule").set;
    let mut list = HostList::new(&f, dims, u64::MAX, set);
    let unit = Hyperbox::new(vec![0.0; dims], vec![1.0; dims]).expect("box");
    let options = Options {
        relative: Some(tolerance),
        max_evaluations: cap,
        ..Options::default()
    };
    let start = Instant::now();
    let out = device::run(&f, &mut list, &unit, &options).expect(name);
    let scale = tolerance * reference.to_f64().abs();
    println!(
        "{name:<18} {set:?} τ {tolerance:.0e}: {:>11} evaluations, {:>2} rounds, {} brought back, \
         {:>7.2} s, converged {}, true error {:.3} τ|I|, claimed {:.3} τ|I|",
        out.evaluations,
        out.levels,
        list.revived(),
        start.elapsed().as_secs_f64(),
        out.converged,
        abs_error(out.value, reference) / scale,
        out.error / scale
    );
    (out, list.revived())
}

/// Whether `out` is honest (true error within the claimed one) and, when converged, within
/// `tolerance` of the reference: the failure in words, or `None`.
fn dishonesty(name: &str, out: &Outcome<f64>, reference: &Float, tolerance: f64) -> Option<String> {
    let err = abs_error(out.value, reference);
    if err > out.error {
        Some(format!(
            "{name}: true error {err:e} above the claimed {:e}",
            out.error
        ))
    } else if out.converged && err > tolerance * reference.to_f64().abs() {
        Some(format!(
            "{name}: converged, but the true error {err:e} misses τ = {tolerance:e}"
        ))
    } else {
        None
    }
}

/// The relative filter spends each region's share of τ_rel |I| where it is: the corner peak,
/// whose integral sits near the origin, converges honestly within the tolerance, with no
/// retired region brought back (its finished errors add to at most τ_rel |I|, the integrand
/// having one sign).
#[test]
fn the_corner_peak_converges_within_the_tolerance_on_the_host_list() {
    for (n, tolerance) in [(5, 1e-6), (8, 1e-4)] {
        let (expression, reference) = corner_peak(n);
        let name = format!("corner peak n={n}");
        let (out, revived) = on_host_list(&name, &expression, n, &reference, tolerance, 1 << 32);
        assert_eq!(dishonesty(&name, &out, &reference, tolerance), None);
        assert!(out.converged, "{name}: {out:?}");
        assert_eq!(revived, 0, "{name}");
    }
}

/// The device's list algorithm on the CPU list over the Genz families, 2 to 8 dimensions, at the
/// tolerances of the rounds' test ([`genz_cases_within_reach`]):
/// honest and converged in every case, as the rounds are.
#[test]
fn the_genz_families_on_the_host_list() {
    let mut failures = Vec::new();
    for n in 2..=8 {
        for case in genz_cases_within_reach(n) {
            let (out, _) = on_host_list(
                &case.name,
                &case.expression,
                n,
                &case.reference,
                case.tolerance,
                50_000_000,
            );
            failures.extend(dishonesty(
                &case.name,
                &out,
                &case.reference,
                case.tolerance,
            ));
            if !out.converged {
                failures.push(format!("{}: not converged", case.name));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// An integral far below its integrand's magnitude (cos(3 x1 + 4 x2 + 6 x3 + 7 x4): |I| is
/// 1.2·10^-3, about 0.2% of ∫|f|): after 7 rounds every region passes the relative test
/// ε_r ≤ τ|I_r| while together their errors pass τ|I| (121 τ|I|). The list goes on by the
/// volume share alone then (it stopped there, unconverged, before), and converges honestly.
#[test]
fn an_integral_that_cancels_converges_on_the_host_list() {
    let (expression, reference) = oscillatory(&[3, 4, 6, 7]);
    let (tolerance, name) = (1e-7, "oscillatory [3, 4, 6, 7]");
    let (out, _) = on_host_list(name, &expression, 4, &reference, tolerance, 1 << 32);
    assert_eq!(dishonesty(name, &out, &reference, tolerance), None);
    assert!(out.converged, "{name}: {out:?}");
}

/// The six cases (tests/cubature_support) on the CPU list: honest, and within the
/// tolerance, at the tolerances the host reaches in a minute or two each: the corner peak at
/// 1e-3 and 1e-5 (its 1e-6 takes 10^9 evaluations and more), the oscillatory integrand within
/// the default cap of 10^8 evaluations (converged or not), the others at the issue's.
/// Ignored: minutes in all; prints the counts for the device module's table. As the benchmark
/// above, CUHRE_CASE picks cases by name, CUHRE_TOL and CUHRE_CAP replace the tolerances and
/// caps (each case must then be honest, converged or not).
#[test]
#[ignore = "minutes on two cores; prints the host list's counts"]
fn the_pagani_cases_on_the_host_list() {
    let only = std::env::var("CUHRE_CASE").ok();
    let tolerance = std::env::var("CUHRE_TOL")
        .ok()
        .map(|t| t.parse().expect("CUHRE_TOL"));
    let cap = std::env::var("CUHRE_CAP")
        .ok()
        .map(|t| t.parse().expect("CUHRE_CAP"));
    let mut failures = Vec::new();
    for case in pagani_cases() {
        if only
            .as_ref()
            .is_some_and(|o| !case.name.contains(o.as_str()))
        {
            continue;
        }
        let (tolerances, case_cap, must_converge) = match case.name {
            "corner peak n=8" => (vec![1e-3, 1e-5], 1 << 32, true),
            "oscillatory n=8" => (vec![case.tolerance], 100_000_000, false),
            _ => (vec![case.tolerance], 1 << 32, true),
        };
        let tolerances = tolerance.map_or(tolerances, |t| vec![t]);
        let must_converge = must_converge && tolerance.is_none() && cap.is_none();
        for tolerance in tolerances {
            let (out, _) = on_host_list(
                case.name,
                &case.expression,
                case.dims,
                &case.reference,
                tolerance,
                cap.unwrap_or(case_cap),
            );
            failures.extend(dishonesty(case.name, &out, &case.reference, tolerance));
            if must_converge && !out.converged {
                failures.push(format!("{} τ {tolerance:e}: not converged", case.name));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

// ---------------------------------------------------------------------------------------------
// Extreme inputs (issue 17): huge and subnormal sides, integrands and integrals past the range
// ---------------------------------------------------------------------------------------------

/// Every precision and schedule on `f` over the box [`lower`, `upper`] (f64 bounds: the MPFR
/// reference takes them as stored): the outcome, or the error.
fn extreme_runs(
    source: &str,
    lower: &[f64],
    upper: &[f64],
) -> Vec<(String, Result<hpquad::Estimate, Error>)> {
    let mut out = Vec::new();
    for precision in [Precision::F64, Precision::Dd, Precision::Qd] {
        for schedule in [Schedule::Sequential, Schedule::Parallel] {
            let est = Integral::with_dims(source, lower.len())
                .expect("parses")
                .over_box(lower, upper)
                .method(Method::Cuhre { schedule })
                .precision(precision)
                .tolerance(1e-8)
                .max_evaluations(1 << 20)
                .compute();
            out.push((format!("{source} {precision} {schedule}"), est));
        }
    }
    out
}

/// Within its estimate, and within the tolerance when converged.
fn assert_right(name: &str, est: &hpquad::Estimate, reference: &Float) {
    let err = match est.value {
        hpquad::Value::F64(x) => abs_error(x, reference),
        hpquad::Value::Dd(x) => abs_error(x, reference),
        hpquad::Value::Qd(x) => abs_error(x, reference),
    };
    println!(
        "{name}: {} error {err:e}, estimate {:e}",
        est.value, est.error
    );
    assert!(
        err <= est.error,
        "{name}: actual {err:e} above the estimate {:e}",
        est.error
    );
    if est.converged {
        assert!(err <= 1e-8 * reference.to_f64().abs(), "{name}: {err:e}");
    }
}

/// Sides wider than the largest double: [-1e308, 1e308] (b − a overflows) and [1e307, 1.7e308]
/// (a + b overflows), with a tiny other side so that the integral is a number.
#[test]
fn huge_sides_are_integrated() {
    let tiny = 2f64.powi(-1000);
    let w2 = mp(tiny);
    for (lower, upper) in [(-1e308, 1e308), (1e307, 1.7e308)] {
        let w1 = Float::with_val(BITS, mp(upper) - mp(lower));
        // ∫ (2 + x2) = W1 (2 W2 + W2²/2).
        let inner =
            Float::with_val(BITS, &w2 * 2u32) + Float::with_val(BITS, w2.clone().square() / 2u32);
        let reference = Float::with_val(BITS, &w1 * &inner);
        for (name, est) in extreme_runs("2 + x2", &[lower, 0.0], &[upper, tiny]) {
            assert_right(&name, &est.expect(&name), &reference);
        }
    }
}

/// A subnormal side: halving [1e-310, 2e-310] rounds (an odd number of units), which the
/// estimate must cover. ∫ x1·10^300 over [a, b] × [0, 10^10] = 10^310 (b² − a²)/2.
#[test]
fn subnormal_sides_are_integrated_honestly() {
    let (a, b) = (1e-310, 2e-310);
    let squares = Float::with_val(BITS, mp(b).square() - mp(a).square());
    let reference = squares * dec("1e300") * dec("1e10") / 2u32;
    for (name, est) in extreme_runs("x1*1e300", &[a, 0.0], &[b, 1e10]) {
        assert_right(&name, &est.expect(&name), &reference);
    }
    // A constant: the volume alone, 10^300 · (b − a) · 1.
    let reference = Float::with_val(BITS, mp(b) - mp(a)) * dec("1e300");
    for (name, est) in extreme_runs("1e300", &[a, 0.0], &[b, 1.0]) {
        assert_right(&name, &est.expect(&name), &reference);
    }
}

/// An integrand that overflows inside the box is a clear error naming the point; an integral
/// past the largest double (4·10^316) is an overflow, in every precision, at once.
#[test]
fn overflow_inside_is_a_clear_error() {
    for (name, est) in extreme_runs("exp(1000*x1)", &[0.0, 0.0], &[1.0, 1.0]) {
        let err = est.expect_err(&name);
        assert!(matches!(err, Error::NonFinite { .. }), "{name}: {err}");
        assert!(err.to_string().contains("inf at x = ("), "{name}: {err}");
    }
    let huge = [-1e308, -1e308];
    for (name, est) in extreme_runs("1e-300", &huge, &[1e308, 1e308]) {
        let err = est.expect_err(&name);
        assert!(
            matches!(err, Error::Overflow { evaluations, .. } if evaluations < 1000),
            "{name}: {err}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Tensor-product Gauss–Legendre cubature (hpquad::methods::gauss_product)
// ---------------------------------------------------------------------------------------------

/// One run of the product method in `T` on two threads, with the true error against the
/// reference: None when honest (and within the tolerance when converged), else what failed.
fn product_run<T: Real>(case: &Case, tolerance: f64, cap: u64) -> (Outcome<T>, Option<String>) {
    let f = Expr::parse(&case.expression, case.dims).expect("parses");
    let unit = Hyperbox::new(vec![T::zero(); case.dims], vec![T::one(); case.dims]).expect("box");
    let options = Options {
        relative: Some(tolerance),
        max_evaluations: cap,
        ..Options::default()
    };
    let cpu = CpuBackend::new(2).expect("a pool");
    let out = gauss_product(&f, &cpu, &unit, &options).expect("runs");
    let err = abs_error(out.value, &case.reference);
    let name = format!("{} {}", case.name, T::NAME);
    let failure = if err > out.error {
        Some(format!(
            "{name}: true error {err:e} above the claimed {:e}",
            out.error
        ))
    } else if out.converged && err > tolerance * case.reference.to_f64().abs() {
        Some(format!(
            "{name}: converged, but the true error {err:e} misses {tolerance:e}"
        ))
    } else {
        None
    };
    (out, failure)
}

/// The Genz families over [0, 1]^n, n = 2..4, in f64 (to 1e-10), dd (1e-24) and qd (1e-45):
/// every result honest; the smooth families (oscillatory, product peak, corner peak, Gaussian)
/// converged up to 3 dimensions, and in 4 in f64 (in dd and qd the test's caps of 2^24 and 2^22
/// evaluations stop some: the dd product peak needs 4·10^7, the qd Gaussian 1.6·10^7); the kinked ones (C0, discontinuous) honest whether or not they reach
/// the tolerance under the cap (the rule resolves no kink: an honest estimate is all it owes).
#[test]
fn gauss_product_is_honest_on_the_genz_families() {
    let mut failures = Vec::new();
    for n in 2..=4 {
        for case in genz_cases(n) {
            let smooth = !(case.name.starts_with("C0") || case.name.starts_with("discontinuous"));
            let mut check = |converged: bool, failure: Option<String>, label: &str, must: bool| {
                failures.extend(failure);
                if smooth && must && !converged {
                    failures.push(format!("{} {label}: not converged", case.name));
                }
            };
            let (out, failure) = product_run::<f64>(&case, 1e-10, 1 << 24);
            check(out.converged, failure, "f64", true);
            let (out, failure) = product_run::<Dd>(&case, 1e-24, 1 << 24);
            check(out.converged, failure, "dd", n <= 3);
            let (out, failure) = product_run::<Qd>(&case, 1e-45, 1 << 22);
            check(out.converged, failure, "qd", n <= 3);
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The Genz families in 5 to 8 dimensions in f64 to 1e-8 (cap 2^31 evaluations; `GP_DIMS`
/// picks one dimension): every result honest, the regions whose axes were raised and the
/// halves alike. Minutes on two cores, so not in CI.
#[test]
#[ignore = "long: minutes on two cores; run with --ignored --nocapture"]
fn gauss_product_is_honest_in_five_to_eight_dimensions() {
    let dims: Vec<usize> = match std::env::var("GP_DIMS") {
        Ok(n) => vec![n.parse().expect("a dimension")],
        Err(_) => (5..=8).collect(),
    };
    let mut failures = Vec::new();
    for n in dims {
        for case in genz_cases(n) {
            let start = std::time::Instant::now();
            let (out, failure) = product_run::<f64>(&case, 1e-8, 1 << 31);
            let err = abs_error(out.value, &case.reference);
            println!(
                "{}: {} evaluations, {:.1} s, converged {}, true {err:.2e}, claimed {:.2e}",
                case.name,
                out.evaluations,
                start.elapsed().as_secs_f64(),
                out.converged,
                out.error
            );
            failures.extend(failure);
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The product of m-point rules is exact for x1^(2m−1) x2^(2m−2) (degree 2m − 1 in each
/// variable) over [0, 1] × [0, 2], m the method's points an axis in each precision, and not
/// for x1^(2m) x2^(2m−2) (an error above 100 ε): the degree is the rules'.
#[test]
fn gauss_product_rule_is_exact_to_its_degree() {
    fn check<T: Real>() {
        let m = hpquad::methods::gauss_product::points_per_axis::<T>(2).expect("m");
        let rule = ProductRule::<T>::new(2, m).expect("a rule");
        let (lower, upper) = ([T::zero(); 2], [T::zero(), T::from_i64(2)]);
        let upper = [T::one(), upper[1]];
        let exact = |p: u32, q: u32| {
            let two = Float::with_val(BITS, 2);
            Float::with_val(BITS, two.pow(q + 1)) / Float::with_val(BITS, (p + 1) * (q + 1))
        };
        for (p, q, exact_wanted) in [(2 * m - 1, 2 * m - 2, true), (2 * m, 2 * m - 2, false)] {
            let f = Expr::parse(&format!("x1^{p}*x2^{q}"), 2).expect("parses");
            let sums = rule.region_sums(&f, &lower, &upper);
            let raw = rule.estimate(&lower, &upper, &sums).raw;
            let reference = exact(p as u32, q as u32);
            let relative = abs_error(raw.value, &reference) / reference.to_f64();
            let eps = T::epsilon().to_f64();
            if exact_wanted {
                assert!(
                    relative <= 64.0 * eps,
                    "{} x^{p} y^{q}: {relative:e}",
                    T::NAME
                );
            } else {
                assert!(
                    relative > 100.0 * eps,
                    "{} x^{p} y^{q}: {relative:e}",
                    T::NAME
                );
            }
        }
    }
    check::<f64>();
    check::<Dd>();
    check::<Qd>();
}

/// Integrals with series closed forms (MPFR): ∫∫ e^(xy) = Σ 1/((k+1)^2 k!) in qd to 1e-60 and
/// ∫∫∫ e^(xyz) = Σ 1/((k+1)^3 k!) in dd to 1e-30, where CUHRE stops at its cap (README); each
/// converged and honest, in a few thousand evaluations. The same bits on one thread and two.
#[test]
fn gauss_product_reaches_dd_and_qd_accuracy() {
    let series = |dims: u32| {
        let mut sum = mp(0.0);
        let mut factorial = mp(1.0);
        for k in 0..200u32 {
            if k > 0 {
                factorial *= k;
            }
            let power = Float::with_val(BITS, k + 1).pow(dims);
            sum += Float::with_val(BITS, &factorial * &power).recip();
        }
        sum
    };
    fn run<T: Real>(expression: &str, dims: usize, tolerance: f64, threads: usize) -> Outcome<T> {
        let f = Expr::parse(expression, dims).expect("parses");
        let unit = Hyperbox::new(vec![T::zero(); dims], vec![T::one(); dims]).expect("box");
        let options = Options {
            relative: Some(tolerance),
            ..Options::default()
        };
        let cpu = CpuBackend::new(threads).expect("a pool");
        gauss_product(&f, &cpu, &unit, &options).expect("runs")
    }
    /// Converged, honest, within the tolerance, in fewer than `most` evaluations, and the
    /// same bits on one thread.
    fn meets<T: Real>(expression: &str, dims: usize, tolerance: f64, reference: &Float, most: u64) {
        let out = run::<T>(expression, dims, tolerance, 2);
        let err = abs_error(out.value, reference);
        let allowed = tolerance * reference.to_f64();
        assert!(
            out.converged && err <= out.error && err <= allowed,
            "{expression} {}: {out:?} {err:e}",
            T::NAME
        );
        assert!(out.evaluations < most, "{expression}: {}", out.evaluations);
        assert_eq!(run::<T>(expression, dims, tolerance, 1).value, out.value);
    }
    meets::<Qd>("exp(x*y)", 2, 1e-60, &series(2), 10_000);
    meets::<Dd>("exp(x*y*z)", 3, 1e-30, &series(3), 100_000);
}

/// A point where the integrand is not a number is named; too many variables, a cubature rule
/// asked for beside it, and a cap below one region are clear errors.
#[test]
fn gauss_product_errors_say_what() {
    let message = |r: hpquad::Result<hpquad::Estimate>| r.expect_err("an error").to_string();
    let f = |source: &str, dims: usize| {
        Integral::with_dims(source, dims)
            .expect("parses")
            .method(Method::GaussProduct)
    };
    let m = message(
        f("log(x1 - x2)", 2)
            .over_box(&[0.0, 0.0], &[1.0, 1.0])
            .compute(),
    );
    assert!(m.contains("the integrand is -inf at x = ("), "{m}");
    let m = message(f("x1", 9).box_bounds(&["0"; 9], &["1"; 9]).compute());
    assert!(m.contains("at most 8 variables"), "{m}");
    let m = message(
        f("x1*x2", 2)
            .over_box(&[0.0, 0.0], &[1.0, 1.0])
            .cubature_rule(RuleChoice::Degree9)
            .compute(),
    );
    assert!(m.contains("has its own"), "{m}");
    let m = message(
        f("x1*x2*x3*x4*x5", 5)
            .box_bounds(&["0"; 5], &["1"; 5])
            .max_evaluations(1000)
            .compute(),
    );
    assert!(m.contains("more than the cap"), "{m}");
}

/// Auto takes the product method over a box for a smooth expression in a few dimensions, and
/// CUHRE for a kinked one, for a cubature rule asked for, and for 5 variables at 1e-6 in f64.
#[test]
fn auto_takes_the_product_method_for_smooth_integrands() {
    let est = |source: &str, dims: usize, tol: f64, rule: RuleChoice| {
        let zeros = vec![0.0; dims];
        let ones = vec![1.0; dims];
        Integral::with_dims(source, dims)
            .expect("parses")
            .over_box(&zeros, &ones)
            .tolerance(tol)
            .cubature_rule(rule)
            .compute()
            .expect("computes")
    };
    let auto = RuleChoice::Auto;
    let e = est("exp(-x1^2 - x2)", 2, 1e-12, auto);
    assert_eq!(e.method, Method::GaussProduct);
    let reason = e.reason.unwrap_or_default();
    assert!(
        reason.contains("products of Gauss–Legendre rules"),
        "{reason}"
    );
    assert_eq!(
        est("exp(-abs(x1 - 0.3) - x2)", 2, 1e-8, auto)
            .method
            .to_string(),
        "cuhre-parallel"
    );
    assert_eq!(
        est("exp(-x1^2 - x2)", 2, 1e-8, RuleChoice::Degree9)
            .method
            .to_string(),
        "cuhre-parallel"
    );
    let five = "cos(x1 + x2 + x3 + x4 + x5)";
    assert_eq!(
        est(five, 5, 1e-6, auto).method.to_string(),
        "cuhre-parallel"
    );
    assert_eq!(est(five, 5, 1e-10, auto).method, Method::GaussProduct);
}
