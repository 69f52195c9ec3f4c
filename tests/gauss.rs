//! Gauss–Legendre and Gauss–Kronrod: the rules against nodes and weights computed
//! independently in MPFR (rug, 400 bits), and the adaptive methods against closed forms.

use std::time::{Duration, Instant};

use hpquad::cpu::CpuBackend;
use hpquad::expr::Expr;
use hpquad::methods::{gauss_kronrod, gauss_legendre, Interval, Options, Outcome};
use hpquad::precision::{Dd, Qd, Real};
use hpquad::rules;
use rug::Float;

mod mpfr_support;
use mpfr_support::{digits, mpfr};

/// Bits of the MPFR references: far past qd's 212.
const BITS: u32 = 400;

fn mp(x: f64) -> Float {
    Float::with_val(BITS, x)
}

/// |x - reference| in units of T's epsilon relative to |reference| (absolute near 0).
fn ulps<T: Real>(x: T, reference: &Float) -> f64 {
    let scale = reference.clone().abs().max(&mp(1e-300));
    let err = Float::with_val(BITS, &mpfr(x) - reference).abs() / scale;
    err.to_f64() / T::epsilon().to_f64()
}

/// P_n(x) and P_n'(x) in MPFR, by the recurrence and P_n' = n (x P_n - P_{n-1}) / (x² - 1).
fn legendre_mp(n: usize, x: &Float) -> (Float, Float) {
    let mut p0 = mp(1.0);
    let mut p1 = x.clone();
    for k in 1..n {
        let k = k as u32;
        let p2 = (Float::with_val(BITS, x * &p1) * (2 * k + 1) - Float::with_val(BITS, &p0 * k))
            / (k + 1);
        p0 = p1;
        p1 = p2;
    }
    let dp =
        (Float::with_val(BITS, x * &p1) - &p0) * n as u32 / (Float::with_val(BITS, x * x) - 1u32);
    (p1, dp)
}

/// The n-point Gauss–Legendre rule in MPFR: the non-negative zeros of P_n (largest first) by
/// bisection on the sign changes of P_n between Chebyshev-like brackets, then Newton; weights
/// 2 / ((1 - x²) P_n'(x)²).
fn legendre_rule_mp(n: usize) -> Vec<(Float, Float)> {
    let mut out = Vec::new();
    // Bracket each zero by a scan of [0, 1] (neighbouring zeros are more than 2/n² apart).
    let steps = 8 * n * n;
    let mut previous = (1.0f64, legendre_mp(n, &mp(1.0)).0);
    for s in (0..steps).rev() {
        let x = s as f64 / steps as f64;
        let p = legendre_mp(n, &mp(x)).0;
        if p.is_zero() || (p.is_sign_negative() != previous.1.is_sign_negative()) {
            let mut lo = mp(x);
            let mut hi = mp(previous.0);
            if p.is_zero() {
                hi = lo.clone();
            }
            for _ in 0..60 {
                let mid = Float::with_val(BITS, &lo + &hi) / 2u32;
                let pm = legendre_mp(n, &mid).0;
                if pm.is_sign_negative() == legendre_mp(n, &lo).0.is_sign_negative() {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let mut z = Float::with_val(BITS, &lo + &hi) / 2u32;
            for _ in 0..12 {
                let (p, dp) = legendre_mp(n, &z);
                if !p.is_zero() {
                    z -= p / dp;
                }
            }
            let (_, dp) = legendre_mp(n, &z);
            let w = mp(2.0)
                / ((mp(1.0) - Float::with_val(BITS, &z * &z)) * Float::with_val(BITS, &dp * &dp));
            out.push((z, w));
            if out.len() == n.div_ceil(2) {
                break;
            }
        }
        previous = (x, p);
    }
    out
}

#[test]
fn legendre_rules_match_mpfr() {
    for n in [1, 2, 7, 10, 20, 30, 64, 160] {
        let reference = legendre_rule_mp(n);
        assert_eq!(reference.len(), n.div_ceil(2), "n = {n}");
        check_legendre::<f64>(n, &reference);
        check_legendre::<Dd>(n, &reference);
        check_legendre::<Qd>(n, &reference);
    }
}

/// The largest error, in ulp of the complement itself, of a rule's 1 − x against MPFR's
/// 1 − x for the reference nodes x: the points near the ends are placed with it, so it must
/// be good relative to its own size (a node's ulp near 1 is up to 10⁴ of its complement's for
/// a rule of 100 points).
fn complement_ulps<T: Real>(complements: &[T], reference: &[(Float, Float)]) -> f64 {
    assert_eq!(complements.len(), reference.len());
    complements
        .iter()
        .zip(reference)
        .map(|(&c, (x, _))| ulps(c, &Float::with_val(BITS, 1 - x)))
        .fold(0.0, f64::max)
}

fn check_legendre<T: Real>(n: usize, reference: &[(Float, Float)]) {
    let rule = rules::legendre::<T>(n).expect("a rule");
    assert_eq!(rule.points(), n);
    assert_eq!(rule.nodes().len(), reference.len());
    let (mut node_ulps, mut weight_ulps) = (0.0f64, 0.0f64);
    for (k, (x, w)) in reference.iter().enumerate() {
        node_ulps = node_ulps.max(ulps(rule.nodes()[k], x));
        weight_ulps = weight_ulps.max(ulps(rule.weights()[k], w));
    }
    let complement_ulps = complement_ulps(rule.complements(), reference);
    println!(
        "GL n = {n:3} {:>3}: nodes {node_ulps:.2} ulp, weights {weight_ulps:.2} ulp, \
         complements {complement_ulps:.2} ulp",
        T::NAME
    );
    // qd's own operations are good to a few of its epsilon (2^-209), not to half of one, and
    // its weights and complements come from a recurrence of n steps in qd itself (there is no
    // wider type to run it in), whose rounding grows with n: weights 6 ulp at 64 points, 43 at
    // 160, 17 at 257 (complements 1.4 at 64, 18 at 160)
    // (a relative 1e-61 at most, below the 1000 ε of qd's default tolerance).
    let allowed = match T::LIMBS {
        4 => (n as f64 / 3.0).max(8.0),
        _ => 2.0,
    };
    assert!(
        node_ulps <= allowed && weight_ulps <= allowed && complement_ulps <= allowed,
        "GL {n} {}: nodes {node_ulps} ulp, weights {weight_ulps} ulp, complements \
         {complement_ulps} ulp",
        T::NAME
    );
}

/// Solves the square system `a x = b` in MPFR (Gaussian elimination, partial pivoting).
fn solve_mp(mut a: Vec<Vec<Float>>, mut b: Vec<Float>) -> Vec<Float> {
    let m = b.len();
    for col in 0..m {
        let pivot = (col..m)
            .max_by(|&i, &j| {
                a[i][col]
                    .clone()
                    .abs()
                    .partial_cmp(&a[j][col].clone().abs())
                    .expect("finite")
            })
            .expect("rows");
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..m {
            let factor = Float::with_val(BITS, &a[row][col] / &a[col][col]);
            let pivot_row = a[col].clone();
            for (target, p) in a[row].iter_mut().zip(&pivot_row).skip(col) {
                *target -= Float::with_val(BITS, &factor * p);
            }
            let t = Float::with_val(BITS, &factor * &b[col]);
            b[row] -= t;
        }
    }
    let mut x = vec![mp(0.0); m];
    for row in (0..m).rev() {
        let mut s = b[row].clone();
        for k in row + 1..m {
            s -= Float::with_val(BITS, &a[row][k] * &x[k]);
        }
        x[row] = s / &a[row][row];
    }
    x
}

/// P_0(x) .. P_degree(x) in MPFR.
fn legendre_all_mp(degree: usize, x: &Float) -> Vec<Float> {
    let mut p = vec![mp(1.0), x.clone()];
    for k in 1..degree {
        let k32 = k as u32;
        let next = (Float::with_val(BITS, x * &p[k]) * (2 * k32 + 1)
            - Float::with_val(BITS, &p[k - 1] * k32))
            / (k32 + 1);
        p.push(next);
    }
    p.truncate(degree + 1);
    p
}

/// The (2n+1)-point Gauss–Kronrod rule in MPFR, without Patterson's recurrence or Monegato's
/// weight formulas: E_{n+1} = P_{n+1} + Σ c_j P_j from its defining orthogonality
/// ∫ P_n P_k E = 0 (k < n + 1), the integrals by an MPFR Gauss rule exact for their degree;
/// its zeros by bisection between the Gauss nodes; the weights from the moment equations
/// Σ w_i P_k(x_i) = ∫ P_k (k = 0, 2, .., 2n), a linear system.
fn kronrod_rule_mp(n: usize) -> Vec<(Float, Float)> {
    let gauss = legendre_rule_mp(n);
    let quad = legendre_rule_mp(2 * n + 2);
    // Quadrature of g over [-1, 1] with the symmetric MPFR rule.
    let integrate = |g: &dyn Fn(&Float) -> Float| -> Float {
        let mut s = mp(0.0);
        for (x, w) in &quad {
            let neg = Float::with_val(BITS, -x);
            let v = if x.is_zero() { g(x) } else { g(x) + g(&neg) };
            s += Float::with_val(BITS, w * &v);
        }
        s
    };
    // Unknowns c_j for j = n-1, n-3, ... >= 0 (E has the parity of n + 1); conditions for odd
    // k <= n (P_n P_k E is odd for even k, its integral zero whatever c is).
    let js: Vec<usize> = (0..n).rev().step_by(2).collect();
    let ks: Vec<usize> = (1..=n).step_by(2).collect();
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &k in &ks {
        let row: Vec<Float> = js
            .iter()
            .map(|&j| {
                integrate(&|x: &Float| {
                    let p = legendre_all_mp(n + 1, x);
                    Float::with_val(BITS, &p[n] * &p[k]) * &p[j]
                })
            })
            .collect();
        a.push(row);
        b.push(-integrate(&|x: &Float| {
            let p = legendre_all_mp(n + 1, x);
            Float::with_val(BITS, &p[n] * &p[k]) * &p[n + 1]
        }));
    }
    let c = if js.is_empty() {
        Vec::new()
    } else {
        solve_mp(a, b)
    };
    let e = |x: &Float| -> Float {
        let p = legendre_all_mp(n + 1, x);
        let mut s = p[n + 1].clone();
        for (cj, &j) in c.iter().zip(&js) {
            s += Float::with_val(BITS, cj * &p[j]);
        }
        s
    };
    // Zeros of E: one above the largest Gauss node, one between consecutive ones, 0 for even n.
    let mut nodes = Vec::new();
    let mut upper = mp(1.0);
    for (g, _) in &gauss {
        let (mut lo, mut hi) = (g.clone(), upper.clone());
        let lo_negative = e(&lo).is_sign_negative();
        for _ in 0..(BITS + 8) {
            let mid = Float::with_val(BITS, &lo + &hi) / 2u32;
            if e(&mid).is_sign_negative() == lo_negative {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        nodes.push(lo);
        nodes.push(g.clone());
        upper = g.clone();
    }
    if n.is_multiple_of(2) {
        nodes.push(mp(0.0));
    }
    // Moment equations for the half weights (each non-zero node stands for ±x).
    let m = nodes.len();
    let mut a = Vec::new();
    let mut b = Vec::new();
    for i in 0..m {
        let k = 2 * i;
        a.push(
            nodes
                .iter()
                .map(|x| {
                    let pk = legendre_all_mp(k.max(1), x)[k].clone();
                    if x.is_zero() {
                        pk
                    } else {
                        pk * 2u32
                    }
                })
                .collect(),
        );
        b.push(if k == 0 { mp(2.0) } else { mp(0.0) });
    }
    let w = solve_mp(a, b);
    nodes.into_iter().zip(w).collect()
}

#[test]
fn kronrod_rules_match_mpfr() {
    for n in [1, 2, 3, 7, 10, 15, 20, 30] {
        let reference = kronrod_rule_mp(n);
        assert_eq!(reference.len(), n + 1, "n = {n}");
        let gauss = legendre_rule_mp(n);
        check_kronrod::<f64>(n, &reference, &gauss);
        check_kronrod::<Dd>(n, &reference, &gauss);
        check_kronrod::<Qd>(n, &reference, &gauss);
    }
}

fn check_kronrod<T: Real>(n: usize, reference: &[(Float, Float)], gauss: &[(Float, Float)]) {
    let rule = rules::kronrod::<T>(n).expect("a rule");
    assert_eq!(rule.points(), 2 * n + 1);
    assert_eq!(rule.nodes().len(), n + 1);
    let (mut node_ulps, mut weight_ulps, mut gauss_ulps) = (0.0f64, 0.0f64, 0.0f64);
    for (k, (x, w)) in reference.iter().enumerate() {
        node_ulps = node_ulps.max(ulps(rule.nodes()[k], x));
        weight_ulps = weight_ulps.max(ulps(rule.weights()[k], w));
        if k % 2 == 1 {
            gauss_ulps = gauss_ulps.max(ulps(rule.gauss_weights()[k], &gauss[k / 2].1));
        } else {
            assert_eq!(
                rule.gauss_weights()[k],
                T::zero(),
                "K{} node {k}",
                2 * n + 1
            );
        }
    }
    let complement_ulps = complement_ulps(rule.complements(), reference);
    println!(
        "GK n = {n:3} {:>3}: nodes {node_ulps:.2} ulp, weights {weight_ulps:.2} ulp, Gauss \
         weights {gauss_ulps:.2} ulp, complements {complement_ulps:.2} ulp",
        T::NAME
    );
    let allowed = if T::LIMBS == 4 { 8.0 } else { 2.0 };
    assert!(
        node_ulps <= allowed
            && weight_ulps <= allowed
            && gauss_ulps <= allowed
            && complement_ulps <= allowed,
        "GK {n} {}: nodes {node_ulps}, weights {weight_ulps}, Gauss weights {gauss_ulps}, \
         complements {complement_ulps}",
        T::NAME
    );
}

/// The reference value of a named integral in data/references.json (computed there in MPFR).
fn reference(name: &str) -> Float {
    let text = include_str!("../data/references.json");
    let json: serde_json::Value = serde_json::from_str(text).expect("valid JSON");
    let entry = json["integrals"]
        .as_array()
        .expect("a list")
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no reference named {name}"));
    let value = entry["value"].as_str().expect("a decimal string");
    Float::with_val(BITS, Float::parse(value).expect("a number"))
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Method {
    Legendre,
    Kronrod,
}

/// A bound as text in T ("inf" and "-inf" for the infinities).
fn bound<T: Real>(text: &str) -> T {
    match text {
        "inf" => T::from_f64(f64::INFINITY),
        "-inf" => T::from_f64(f64::NEG_INFINITY),
        _ => T::parse_decimal(text).expect("a decimal"),
    }
}

/// Runs `method` on the expression over [a, b] in T to a relative tolerance.
fn run<T: Real>(
    method: Method,
    source: &str,
    a: &str,
    b: &str,
    relative: f64,
) -> (Outcome<T>, Duration) {
    let f = Expr::parse(source, 1).expect("parses");
    let cpu = CpuBackend::new(1).expect("a CPU backend");
    let interval = Interval::new(bound::<T>(a), bound::<T>(b));
    let options = Options {
        relative: Some(relative),
        ..Options::default()
    };
    let go = || match method {
        Method::Legendre => gauss_legendre::gauss_legendre(&f, &cpu, interval, &options),
        Method::Kronrod => gauss_kronrod::gauss_kronrod(&f, &cpu, interval, &options),
    };
    go().expect("integrates"); // the first call computes the rules
    let start = Instant::now();
    let out = go().expect("integrates");
    (out, start.elapsed())
}

/// The method, asked for a relative `tolerance`, converges, has `goal` correct digits in T,
/// and its error estimate is honest: the actual error is within the estimate, or within 16
/// ulp of the value (32 for the ill-conditioned sin(10πx)/(πx)).
fn check<T: Real>(
    method: Method,
    (source, a, b): (&str, &str, &str),
    exact: &Float,
    tolerance: f64,
    goal: f64,
) {
    let (out, elapsed) = run::<T>(method, source, a, b, tolerance);
    let got = digits(out.value, exact);
    let actual = Float::with_val(BITS, &mpfr(out.value) - exact)
        .abs()
        .to_f64();
    println!(
        "{method:?} {:>3} {source} on [{a}, {b}]: {got:.1} digits, {} evaluations, {} steps, \
         {:.0} us, error {:.1e} (estimated {:.1e})",
        T::NAME,
        out.evaluations,
        out.levels,
        elapsed.as_secs_f64() * 1e6,
        actual,
        out.error
    );
    assert!(
        out.converged,
        "{method:?} {} {source}: not converged: {out:?}",
        T::NAME
    );
    assert!(
        got >= goal,
        "{method:?} {} {source}: {got:.1} digits",
        T::NAME
    );
    // sin(10πx)/(πx) is ill-conditioned at rounded nodes (|x f'/f| up to 10π·10): its
    // values at the nodes a machine can represent differ from the exact ones by up to 300 ulp,
    // and that error, invisible to any quadrature estimate, reaches the integral (measured:
    // 16.4 ulp for one 256-point Gauss–Legendre rule on the whole of [1e-6, 10] in dd).
    let allowance = if source.starts_with("sin(10*pi*x)") {
        32.0
    } else {
        16.0
    };
    let ulp = T::epsilon().to_f64() * exact.to_f64().abs();
    assert!(
        actual <= out.error || actual <= allowance * ulp,
        "{method:?} {} {source}: error {actual:e} above its estimate {:e}",
        T::NAME,
        out.error
    );
    assert_eq!(
        out.stages.iter().map(|s| s.points).sum::<u64>(),
        out.evaluations
    );
}

/// Every precision to its goal: 15 digits in f64 (14.5 where the integrand's own rounding
/// allows no more), 31 in dd, 60 in qd. The tolerances are 22 ulp in f64 (the rounding floor
/// alone is 4 ε ∫|f|, more than 1e-15 of an oscillating integral), 1e-30 and 1e-60.
fn check_all(method: Method, source: &str, a: &str, b: &str, exact: &Float) {
    // sin(10πx) up to x = 10: a node x is rounded by up to ε|x|/2, which moves the value by
    // |f'(x)| ε |x|/2, up to 50 ε; over a few hundred nodes these add to about 30 ε of the
    // integral (measured: 8.4e-15 in f64), which the estimate now counts
    // (Rule::abscissa_rounding), so a tolerance below it cannot be met honestly.
    let oscillating = source.starts_with("sin(10*pi*x)");
    let (f64_tolerance, f64_goal, dd_tolerance, dd_goal) = if oscillating {
        (3e-14, 13.5, 1e-29, 29.5)
    } else {
        (5e-15, 15.0, 1e-30, 31.0)
    };
    let problem = (source, a, b);
    check::<f64>(method, problem, exact, f64_tolerance, f64_goal);
    check::<Dd>(method, problem, exact, dd_tolerance, dd_goal);
    check::<Qd>(method, problem, exact, 1e-60, 60.0);
}

const ANALYTIC: [(&str, &str, &str, &str); 4] = [
    ("exp2x_sin3x", "exp(2*x)*sin(3*x)", "0", "5"),
    ("pi", "(16*x-16)/(x^4-2*x^3+4*x-4)", "0", "1"),
    ("exp_cos", "exp(cos(x))", "0", "1"),
    ("sinc_10pi", "sin(10*pi*x)/(pi*x)", "1e-6", "10"),
];

#[test]
fn kronrod_analytic_integrals() {
    for (name, source, a, b) in ANALYTIC {
        check_all(Method::Kronrod, source, a, b, &reference(name));
    }
}

#[test]
fn kronrod_peak() {
    check_all(
        Method::Kronrod,
        "1/((x-0.3)^2+0.001)",
        "0",
        "1",
        &reference("peak"),
    );
}

#[test]
fn legendre_analytic_integrals() {
    for (name, source, a, b) in ANALYTIC {
        check_all(Method::Legendre, source, a, b, &reference(name));
    }
}

#[test]
fn legendre_peak() {
    check_all(
        Method::Legendre,
        "1/((x-0.3)^2+0.001)",
        "0",
        "1",
        &reference("peak"),
    );
}

/// A piece whose integrand is steep at an end far from the piece's centre: e^(−x) on [0, 600]
/// (1 − e^(−600)). Points formed as centre − h·x carried the centre's rounding, ε·300 next to
/// 0, which e^(−x) there turned into an f64 result off by 1.1e-14 with an estimate of 8.9e-16
/// (14 digits); formed from the nearer end they carry their own. Shifted to [1000, 1600] the
/// points next to 1000 carry ε·1000 whatever forms them, so f64 cannot have 15 digits there:
/// it must say so, with an estimate that covers its error.
#[test]
fn points_near_an_end_far_from_the_centre() {
    let exact = Float::with_val(BITS, 1) - Float::with_val(BITS, -600).exp();
    for method in [Method::Legendre, Method::Kronrod] {
        check_all(method, "exp(-x)", "0", "600", &exact);
        let (out, _) = run::<f64>(method, "exp(1000-x)", "1000", "1600", 5e-15);
        let actual = Float::with_val(BITS, &mpfr(out.value) - &exact)
            .abs()
            .to_f64();
        assert!(
            !out.converged && actual <= out.error,
            "{method:?} f64 exp(1000-x) on [1000, 1600]: error {actual:e}, estimate {:e}, \
             converged {}",
            out.error,
            out.converged
        );
    }
}

/// ∫_0^1 x^k dx = 1/(k+1) by a rule mapped to [0, 1], in qd.
fn monomial_error(points: &[Qd], values_weighted: impl Fn(&[Qd]) -> Qd, k: i32) -> f64 {
    let values: Vec<Qd> = points.iter().map(|&x| x.powi(k)).collect();
    let exact = Qd::from(1) / Qd::from(k as i64 + 1);
    (values_weighted(&values) - exact).abs().to_f64()
}

#[test]
fn rules_are_exact_on_monomials_up_to_their_degree() {
    let half = Qd::from_f64(0.5);
    for n in [5usize, 10, 16] {
        let gauss = rules::legendre::<Qd>(n).expect("a rule");
        let mut points = Vec::new();
        gauss.abscissae(Qd::zero(), Qd::one(), &mut points);
        assert_eq!(points.len(), n);
        for k in 0..2 * n as i32 {
            let err = monomial_error(&points, |v| gauss.integrate(v, half), k);
            assert!(err < 1e-62, "G{n} on x^{k}: {err:e}");
        }
        // Degree 2n is past its reach: the error is the rule's, far above qd's rounding.
        let err = monomial_error(&points, |v| gauss.integrate(v, half), 2 * n as i32);
        assert!(err > 1e-50, "G{n} on x^{}: {err:e}", 2 * n);

        let kronrod = rules::kronrod::<Qd>(n).expect("a rule");
        let mut points = Vec::new();
        kronrod.abscissae(Qd::zero(), Qd::one(), &mut points);
        assert_eq!(points.len(), 2 * n + 1);
        // K(2n+1) is exact to degree 3n+1 (3n+2 for odd n, by symmetry); its Gauss part to 2n-1.
        let degree = if n % 2 == 1 { 3 * n + 2 } else { 3 * n + 1 };
        for k in 0..=degree as i32 {
            let err = monomial_error(&points, |v| kronrod.integrate(v, half).kronrod, k);
            assert!(err < 1e-62, "K{} on x^{k}: {err:e}", 2 * n + 1);
            if k < 2 * n as i32 {
                let err = monomial_error(&points, |v| kronrod.integrate(v, half).gauss, k);
                assert!(err < 1e-62, "G{n} inside K{} on x^{k}: {err:e}", 2 * n + 1);
            }
        }
        let err = monomial_error(
            &points,
            |v| kronrod.integrate(v, half).kronrod,
            degree as i32 + 1,
        );
        assert!(err > 1e-50, "K{} on x^{}: {err:e}", 2 * n + 1, degree + 1);
    }
}

#[test]
fn rules_refuse_sizes_out_of_range() {
    assert!(rules::legendre::<f64>(0).is_err());
    assert!(rules::legendre::<f64>(rules::MAX_LEGENDRE_POINTS + 1).is_err());
    assert!(rules::kronrod::<Dd>(0).is_err());
    assert!(rules::kronrod::<Dd>(rules::MAX_KRONROD_GAUSS_POINTS + 1).is_err());
    // The cache hands out the same rule.
    let first = rules::kronrod::<Qd>(12).expect("a rule");
    let second = rules::kronrod::<Qd>(12).expect("a rule");
    assert!(std::sync::Arc::ptr_eq(&first, &second));
}

fn mp_pi() -> Float {
    Float::with_val(BITS, rug::float::Constant::Pi)
}

#[test]
fn infinite_intervals_with_both_methods() {
    let sqrt_pi = mp_pi().sqrt();
    for method in [Method::Kronrod, Method::Legendre] {
        check_all(method, "exp(-x^2)", "-inf", "inf", &sqrt_pi);
        check_all(method, "1/(1+x^2)", "-inf", "inf", &mp_pi());
        check_all(method, "exp(-x)*x^3", "0", "inf", &mp(6.0));
        // (-∞, b]: the reflection; ∫_{-∞}^{1} e^x dx = e.
        let e = Float::with_val(BITS, 1u32).exp();
        check_all(method, "exp(x)", "-inf", "1", &e);
    }
}

#[test]
fn reversed_empty_and_invalid_intervals() {
    let f = Expr::parse("exp(-x)*x^3", 1).expect("parses");
    let cpu = CpuBackend::new(1).expect("a CPU backend");
    let options = Options::default();
    let inf = f64::INFINITY;
    for method in [Method::Kronrod, Method::Legendre] {
        let go = |a: f64, b: f64| match method {
            Method::Legendre => {
                gauss_legendre::gauss_legendre(&f, &cpu, Interval::new(a, b), &options)
            }
            Method::Kronrod => {
                gauss_kronrod::gauss_kronrod(&f, &cpu, Interval::new(a, b), &options)
            }
        };
        let forward = go(0.0, inf).expect("integrates");
        let backward = go(inf, 0.0).expect("integrates");
        assert_eq!(backward.value, -forward.value, "{method:?}");
        assert!(
            (forward.value - 6.0).abs() < 1e-13,
            "{method:?}: {}",
            forward.value
        );
        let empty = go(2.0, 2.0).expect("integrates");
        assert_eq!(
            (empty.value, empty.evaluations, empty.converged),
            (0.0, 0, true)
        );
        assert!(matches!(
            go(f64::NAN, 1.0),
            Err(hpquad::Error::InvalidBound { .. })
        ));
        assert!(matches!(
            go(0.0, f64::NAN),
            Err(hpquad::Error::InvalidBound { .. })
        ));
        // sqrt of a negative number: a non-finite value is an error naming its point.
        let g = Expr::parse("sqrt(x)", 1).expect("parses");
        let err = match method {
            Method::Legendre => {
                gauss_legendre::gauss_legendre(&g, &cpu, Interval::new(-1.0, 1.0), &options)
            }
            Method::Kronrod => {
                gauss_kronrod::gauss_kronrod(&g, &cpu, Interval::new(-1.0, 1.0), &options)
            }
        };
        assert!(
            matches!(err, Err(hpquad::Error::NonFinite { .. })),
            "{method:?}: {err:?}"
        );
    }
}

/// An integrand no budget of 3000 points resolves to 60 digits: ln x on [0, 1] (a logarithmic
/// singularity at 0, where the methods can only halve). The outcome says so, and its error
/// estimate covers the actual error.
#[test]
fn not_converged_is_said_and_its_estimate_is_honest() {
    let f = Expr::parse("log(x)", 1).expect("parses");
    let cpu = CpuBackend::new(1).expect("a CPU backend");
    let options = Options {
        relative: Some(1e-60),
        max_evaluations: 3000,
        ..Options::default()
    };
    for method in [Method::Kronrod, Method::Legendre] {
        let interval = Interval::new(Qd::from(0), Qd::from(1));
        let out = match method {
            Method::Legendre => gauss_legendre::gauss_legendre(&f, &cpu, interval, &options),
            Method::Kronrod => gauss_kronrod::gauss_kronrod(&f, &cpu, interval, &options),
        }
        .expect("runs");
        let actual = Float::with_val(BITS, &mpfr(out.value) + 1u32)
            .abs()
            .to_f64();
        println!(
            "{method:?} qd log(x) on [0, 1] with 3000 points: error {actual:.1e} (estimated \
             {:.1e}), {} evaluations, converged {}",
            out.error, out.evaluations, out.converged
        );
        assert!(!out.converged, "{method:?}");
        assert!(out.evaluations <= 3000, "{method:?}: {}", out.evaluations);
        assert!(
            actual <= out.error,
            "{method:?}: error {actual:e} above {:e}",
            out.error
        );
        assert!(actual < 1e-3, "{method:?}: {actual:e}: no progress at all");
    }
}

#[test]
fn results_do_not_depend_on_threads() {
    let f = Expr::parse("1/((x-0.3)^2+0.001)", 1).expect("parses");
    let one = CpuBackend::new(1).expect("a CPU backend");
    let two = CpuBackend::new(2).expect("a CPU backend");
    let interval = Interval::new(Dd::from(0), Dd::from(1));
    let options = Options::default();
    let a = gauss_kronrod::gauss_kronrod(&f, &one, interval, &options).expect("integrates");
    let b = gauss_kronrod::gauss_kronrod(&f, &two, interval, &options).expect("integrates");
    assert_eq!(
        (a.value, a.error, a.evaluations),
        (b.value, b.error, b.evaluations)
    );
    let a = gauss_legendre::gauss_legendre(&f, &one, interval, &options).expect("integrates");
    let b = gauss_legendre::gauss_legendre(&f, &two, interval, &options).expect("integrates");
    assert_eq!(
        (a.value, a.error, a.evaluations),
        (b.value, b.error, b.evaluations)
    );
}

/// `Rule::tail` reads the Legendre coefficients of a polynomial of degree below n exactly:
/// values Σ a_k P_k at the rule's points (P_k in MPFR at the points as rounded in T) give
/// back max(|a_m|, |a_(m+1)|) and max(|a_(n-2)|, |a_(n-1)|), m = n/2.
fn check_tail<T: Real>(n: usize) {
    let rule = rules::legendre::<T>(n).expect("a rule");
    let mut points = Vec::new();
    rule.abscissae(-T::one(), T::one(), &mut points);
    let m = n / 2;
    let terms = [
        (0, 0.75),
        (m, -5.0),
        (m + 1, 2.5),
        (n - 2, 0.125),
        (n - 1, -3.0),
    ];
    let values: Vec<T> = points
        .iter()
        .map(|&x| {
            let x = mpfr(x);
            let mut sum = mp(0.0);
            for (k, a) in terms {
                let p = if k == 0 {
                    mp(1.0)
                } else {
                    legendre_mp(k, &x).0
                };
                sum += p * a;
            }
            T::from_f64(sum.to_f64()) + T::from_f64((sum.clone() - sum.to_f64()).to_f64())
        })
        .collect();
    let tail = rule
        .tail(&values, f64::INFINITY)
        .expect("a rule of 7 points or more");
    // The top pair is read first, and above a ceiling the middle is not.
    assert!(rule.tail(&values, 2.9).is_none());
    // The values carry ε relative rounding each; the functionals sum n of them.
    let slack = 16.0 * n as f64 * T::epsilon().to_f64();
    assert!(
        (tail.middle - 5.0).abs() <= 5.0 * slack && (tail.top - 3.0).abs() <= 3.0 * slack,
        "{} n = {n}: {tail:?}",
        T::NAME
    );
    assert_eq!(tail.span, n - 2 - m);
}

#[test]
fn legendre_tails_are_the_legendre_coefficients() {
    for n in [7, 8, 9, 12, 24, 40] {
        check_tail::<f64>(n);
        check_tail::<Dd>(n);
        check_tail::<Qd>(n);
    }
    let six = rules::legendre::<f64>(6).expect("a rule");
    assert!(six.tail(&[0.0; 6], f64::INFINITY).is_none());
}

/// Entire integrands end after two rules on their spectrum's reading (12 and 24 points in qd
/// where the differences alone need a third rule), honestly; and the reading is refused where
/// a slower part hides under a fast-falling one (e^(4x)/√(1 + e^(4x)) on [0, 5]: e^(2x) over
/// a pole at distance π/4), which it once underestimated 25 times in f64.
#[test]
fn spectral_readings_end_entire_integrands_early_and_honestly() {
    let one = mp(1.0);
    let entire = [
        ("sinh(x)", Float::with_val(BITS, one.cosh_ref()) - 1u32),
        (
            "exp(-x)",
            1u32 - Float::with_val(BITS, (-one.clone()).exp_ref()),
        ),
        ("sin(x)", 1u32 - Float::with_val(BITS, one.cos_ref())),
    ];
    for (source, exact) in &entire {
        check::<f64>(Method::Legendre, (source, "0", "1"), exact, 5e-15, 15.0);
        check::<Dd>(Method::Legendre, (source, "0", "1"), exact, 1e-30, 31.0);
        check::<Qd>(Method::Legendre, (source, "0", "1"), exact, 1e-60, 60.0);
        let (out, _) = run::<Qd>(Method::Legendre, source, "0", "1", 1e-60);
        assert_eq!(out.evaluations, 12 + 24, "qd {source}");
        // At f64's default tolerance, 1000 ε: the 8-point rule's reading meets it already.
        let (out, _) = run::<f64>(Method::Legendre, source, "0", "1", 1000.0 * f64::EPSILON);
        assert_eq!(out.evaluations, 8 + 10, "f64 {source}");
    }
    let e20 = Float::with_val(BITS, mp(20.0).exp_ref());
    let hidden_pole = (Float::with_val(BITS, (e20 + 1u32).sqrt_ref())
        - Float::with_val(BITS, mp(2.0).sqrt_ref()))
        / 2u32;
    let problem = ("exp(4*x)/sqrt(1+exp(4*x))", "0", "5");
    check::<f64>(Method::Legendre, problem, &hidden_pole, 5e-15, 15.0);
    check::<Dd>(Method::Legendre, problem, &hidden_pole, 1e-30, 31.0);
    check::<Qd>(Method::Legendre, problem, &hidden_pole, 1e-60, 60.0);
}
