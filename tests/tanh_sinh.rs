//! Double exponential quadrature against independent references: closed forms evaluated in MPFR
//! (rug), published digits and data/references.json; its nodes against MPFR at 400 bits.

use hpquad::cpu::CpuBackend;
use hpquad::expr::Expr;
use hpquad::methods::tanh_sinh::nodes::{level, Transform};
use hpquad::methods::tanh_sinh::{max_level, tanh_sinh, MIN_LEVEL};
use hpquad::methods::{Interval, Options, Outcome};
use hpquad::precision::{Dd, Qd, Real};
use hpquad::Error;
use rug::float::Constant;
use rug::ops::Pow;
use rug::Float;

mod mpfr_support;
use mpfr_support::{abs_error, digits, mpfr, BITS};

/// ∫₀¹⁰⁰⁰ x^-x dx, published digits (the integral to ∞ differs by less than 10^-3000); 60 of
/// them are trusted.
const X_POW_MINUS_X_1000: &str = "1.99545595750013800041872469845272435208621663696797887278830006";

fn float(x: impl Into<f64>) -> Float {
    Float::with_val(BITS, x.into())
}

fn pi() -> Float {
    Float::with_val(BITS, Constant::Pi)
}

fn parse(text: &str) -> Float {
    Float::with_val(BITS, Float::parse(text).expect("a decimal number"))
}

fn cpu() -> CpuBackend {
    CpuBackend::new(1).expect("a thread pool starts")
}

/// The digits each precision must reach: 15, 30, 60.
fn wanted<T: Real>() -> f64 {
    match T::LIMBS {
        1 => 15.0,
        2 => 30.0,
        _ => 60.0,
    }
}

/// Options asking for those digits.
fn options<T: Real>() -> Options {
    Options {
        relative: Some(10f64.powf(-wanted::<T>())),
        ..Options::default()
    }
}

fn run<T: Real>(source: &str, a: f64, b: f64, options: &Options) -> hpquad::Result<Outcome<T>> {
    let f = Expr::parse(source, 1).expect("parses");
    tanh_sinh(
        &f,
        &cpu(),
        Interval::new(T::from_f64(a), T::from_f64(b)),
        options,
    )
}

/// The estimate is honest: the actual error is within it, or within 8 ε |I| (the rounding of
/// the result itself).
fn assert_honest<T: Real>(what: &str, out: &Outcome<T>, reference: &Float) {
    let actual = abs_error(out.value, reference);
    let floor = 8.0 * T::epsilon().to_f64() * reference.to_f64().abs();
    assert!(
        actual <= out.error.max(floor),
        "{what} in {}: actual error {actual:e} > estimate {:e}",
        T::NAME,
        out.error
    );
}

/// Integrates `source` over [a, b] to the precision's digits, checks them, the convergence flag,
/// the honesty of the estimate and the bookkeeping.
fn check<T: Real>(source: &str, a: f64, b: f64, reference: &Float, min_digits: f64) {
    let out = run::<T>(source, a, b, &options::<T>()).expect("integrates");
    let got = digits(out.value, reference);
    println!(
        "{:3} {source:32} [{a}, {b}]: {got:5.1} digits, error {:8.1e}, {:5} evaluations, {} levels",
        T::NAME,
        out.error,
        out.evaluations,
        out.levels
    );
    assert!(
        got >= min_digits,
        "{source} in {}: {got:.1} digits",
        T::NAME
    );
    assert!(
        out.converged,
        "{source} in {}: not converged: {out:?}",
        T::NAME
    );
    assert_honest(source, &out, reference);
    assert_eq!(out.levels as usize, out.table.len());
    assert!(out.table.iter().all(|row| row.len() == 1));
    assert_eq!(out.table.last().map(|row| row[0]), Some(out.value));
    assert_eq!(out.stages.len(), out.table.len());
    assert_eq!(
        out.stages.iter().map(|s| s.points).sum::<u64>(),
        out.evaluations
    );
}

/// Σ_{n≥1} n^-n (the sophomore's dream), to 1000 bits.
fn sophomore() -> Float {
    let mut sum = float(0);
    for n in 1..=400u32 {
        let n = float(n);
        let term = Float::with_val(BITS, (&n).pow(-n.clone()));
        sum += term;
    }
    sum
}

fn factorial(k: u32) -> Float {
    (1..=k).fold(float(1), |p, i| p * i)
}

fn endpoint_singularities<T: Real>() {
    let d = wanted::<T>();
    check::<T>("sqrt(x)", 0.0, 1.0, &(float(2) / 3), d);
    check::<T>("log(x)", 0.0, 1.0, &float(-1), d);
    check::<T>("1/sqrt(x)", 0.0, 1.0, &float(2), d);
    check::<T>("x^(-x)", 0.0, 1.0, &sophomore(), d);
    right_end::<T>();
}

/// A singularity at the right end, ∫₀¹ e^x / √(1 - x) dx = e √π erf(1): the points 1 - δ hold δ
/// to 53 bits in dd and 159 in qd, which limits the result to about 25 and 58 digits. The
/// estimate must say so (not converged at full precision, honest), and a tolerance the points
/// allow must converge.
fn right_end<T: Real>() {
    let e = float(1).exp();
    let reference = e * pi().sqrt() * float(1).erf();
    let source = "exp(x)/sqrt(1-x)";
    let full = run::<T>(source, 0.0, 1.0, &options::<T>()).expect("integrates");
    assert_honest(source, &full, &reference);
    let (reachable, tolerance) = if T::LIMBS == 2 {
        (24.0, 1e-22)
    } else {
        (57.0, 1e-54)
    };
    let got = digits(full.value, &reference);
    println!(
        "{:3} {source:32} [0, 1]: {got:5.1} digits, error {:8.1e}, {:5} evaluations, {} levels, converged {}",
        T::NAME,
        full.error,
        full.evaluations,
        full.levels,
        full.converged
    );
    assert!(got >= reachable, "{source} in {}: {got:.1} digits", T::NAME);
    assert!(!full.converged, "{source} in {}: {full:?}", T::NAME);
    let loose = Options {
        relative: Some(tolerance),
        ..Options::default()
    };
    let out = run::<T>(source, 0.0, 1.0, &loose).expect("integrates");
    assert!(
        out.converged,
        "{source} in {} to {tolerance:e}: {out:?}",
        T::NAME
    );
    assert_honest(source, &out, &reference);
    // The same singularity at the left end, ∫₀¹ e^(1-x) / √x dx, reaches every digit.
    check::<T>("exp(1-x)/sqrt(x)", 0.0, 1.0, &reference, wanted::<T>());
}

#[test]
fn endpoint_singularities_f64() {
    let d = wanted::<f64>();
    check::<f64>("sqrt(x)", 0.0, 1.0, &(float(2) / 3), d);
    check::<f64>("log(x)", 0.0, 1.0, &float(-1), d);
    check::<f64>("1/sqrt(x)", 0.0, 1.0, &float(2), d);
    check::<f64>("x^(-x)", 0.0, 1.0, &sophomore(), d);
}

#[test]
fn endpoint_singularities_dd() {
    endpoint_singularities::<Dd>();
}

#[test]
fn endpoint_singularities_qd() {
    endpoint_singularities::<Qd>();
}

fn infinite_intervals<T: Real>() {
    let d = wanted::<T>();
    let inf = f64::INFINITY;
    check::<T>("exp(-x^2)", -inf, inf, &pi().sqrt(), d);
    check::<T>("1/(1+x^2)", -inf, inf, &pi(), d);
    for k in [0, 1, 5, 10] {
        check::<T>(&format!("exp(-x)*x^{k}"), 0.0, inf, &factorial(k), d);
    }
    check::<T>("sin(x)/x*exp(-x)", 0.0, inf, &(pi() / 4), d);
    // (-∞, b]: ∫_{-∞}^0 e^x dx = 1, through the reflected exp-sinh.
    check::<T>("exp(x)", -inf, 0.0, &float(1), d);
}

#[test]
fn infinite_intervals_f64() {
    infinite_intervals::<f64>();
}

#[test]
fn infinite_intervals_dd() {
    infinite_intervals::<Dd>();
}

#[test]
fn infinite_intervals_qd() {
    infinite_intervals::<Qd>();
}

/// The reference of data/references.json for `name`, with its trusted digits.
fn suite_reference(name: &str) -> (String, f64, f64, Float, f64) {
    let json: serde_json::Value =
        serde_json::from_str(include_str!("../data/references.json")).expect("valid JSON");
    let entry = json["integrals"]
        .as_array()
        .expect("a list of integrals")
        .iter()
        .find(|e| e["name"] == name)
        .expect("the integral is in the file");
    let text = |key: &str| entry[key].as_str().expect("a string").to_string();
    (
        text("expression"),
        text("from").parse().expect("a number"),
        text("to").parse().expect("a number"),
        parse(&text("value")),
        entry["trusted_digits"].as_f64().expect("a number"),
    )
}

fn hard_ones<T: Real>() {
    let (expression, a, b, reference, trusted) = suite_reference("sqrt_exp_cos_xxx");
    check::<T>(&expression, a, b, &reference, wanted::<T>().min(trusted));
    // The published value has 60 trusted digits, so 59 is what a comparison can show.
    check::<T>(
        "x^(-x)",
        0.0,
        1000.0,
        &parse(X_POW_MINUS_X_1000),
        wanted::<T>().min(59.0),
    );
}

#[test]
fn hard_ones_f64() {
    hard_ones::<f64>();
}

#[test]
fn hard_ones_dd() {
    hard_ones::<Dd>();
}

#[test]
fn hard_ones_qd() {
    hard_ones::<Qd>();
}

/// The node at t in MPFR: (offset, weight, u) of the module's formulas.
fn exact_node(transform: Transform, t: f64) -> (Float, Float, Float) {
    let bits = 400;
    let t = Float::with_val(bits, t);
    let half_pi = Float::with_val(bits, Constant::Pi) / 2;
    let u: Float = Float::with_val(bits, t.sinh_ref()) * &half_pi;
    let ch: Float = Float::with_val(bits, t.cosh_ref()) * &half_pi;
    match transform {
        Transform::TanhSinh => {
            // 1 - tanh|u| = 1 / (e^|u| cosh u) (Boost's form; 1 - tanh would cancel) and
            // (π/2) cosh t / cosh² u.
            let c = Float::with_val(bits, u.cosh_ref());
            let e = Float::with_val(bits, Float::with_val(bits, u.abs_ref()).exp_ref());
            let delta = Float::with_val(bits, &e * &c).recip();
            let w = ch / Float::with_val(bits, &c * &c);
            (delta, w, u)
        }
        Transform::ExpSinh => {
            let x = Float::with_val(bits, u.exp_ref());
            let w = ch * &x;
            (x, w, u)
        }
        Transform::SinhSinh => {
            let x = Float::with_val(bits, u.sinh_ref()).abs();
            let w = ch * Float::with_val(bits, u.cosh_ref());
            (x, w, u)
        }
    }
}

fn relative(x: &Float, reference: &Float) -> f64 {
    let bits = 400;
    (Float::with_val(bits, x - reference) / reference)
        .abs()
        .to_f64()
}

/// Offsets and weights against MPFR: within (4 + 2|u|) ulps, where |u| (up to ~340) is the
/// condition number of e^(±2u) for the rounding error that u = π/2 sinh t carries; and each
/// (offset, weight) pair consistent to 8 ulps: the weight is the one of the t that the computed
/// offset belongs to.
fn nodes_against_mpfr<T: Real>() {
    let eps = T::epsilon().to_f64();
    let bits = 400;
    for transform in [Transform::TanhSinh, Transform::ExpSinh, Transform::SinhSinh] {
        let mut worst = (0.0f64, 0.0f64);
        for k in [0, 1, 2, 4, 6] {
            let nodes = level::<T>(transform, k);
            let all = nodes.center.iter().chain(&nodes.right).chain(&nodes.left);
            let mut count = 0;
            for node in all {
                count += 1;
                let (offset, weight, u) = exact_node(transform, node.t);
                let allowed = (4.0 + 2.0 * u.to_f64().abs()) * eps;
                let (eo, ew) = (
                    if offset.is_zero() {
                        assert_eq!(node.offset, T::zero());
                        0.0
                    } else {
                        relative(&mpfr(node.offset), &offset)
                    },
                    relative(&mpfr(node.weight), &weight),
                );
                assert!(
                    eo <= allowed && ew <= allowed,
                    "{transform:?} {} level {k} t = {}: offset {eo:e}, weight {ew:e}, allowed {allowed:e}",
                    T::NAME,
                    node.t
                );
                worst = (worst.0.max(eo / eps), worst.1.max(ew / eps));
                // The t' whose exact offset is the computed one, and its exact weight.
                let x = mpfr(node.offset);
                let half_pi = Float::with_val(bits, Constant::Pi) / 2;
                let u1 = match transform {
                    Transform::TanhSinh => {
                        let q = Float::with_val(bits, &x / (Float::with_val(bits, 2) - &x));
                        let l: Float = q.ln() / 2;
                        -l
                    }
                    Transform::ExpSinh => Float::with_val(bits, x.ln_ref()),
                    Transform::SinhSinh => Float::with_val(bits, x.asinh_ref()),
                };
                let sign = if node.t < 0.0 { -1 } else { 1 };
                let t1: Float = Float::with_val(bits, &u1 / &half_pi).asinh() * sign;
                let ch = Float::with_val(bits, t1.cosh_ref()) * &half_pi;
                let w1 = match transform {
                    Transform::TanhSinh => ch * &x * (Float::with_val(bits, 2) - &x),
                    Transform::ExpSinh => ch * &x,
                    Transform::SinhSinh => ch * Float::with_val(bits, u1.cosh_ref()),
                };
                let ec = relative(&mpfr(node.weight), &w1);
                assert!(
                    ec <= 8.0 * eps,
                    "{transform:?} {} level {k} t = {}: the weight is {:.1} ulps from its offset's",
                    T::NAME,
                    node.t,
                    ec / eps
                );
            }
            assert!(count > 0);
        }
        println!(
            "{} {transform:?}: worst offset {:.1} ulps, weight {:.1} ulps",
            T::NAME,
            worst.0,
            worst.1
        );
    }
}

#[test]
fn nodes_against_mpfr_dd() {
    nodes_against_mpfr::<Dd>();
}

#[test]
fn nodes_against_mpfr_qd() {
    nodes_against_mpfr::<Qd>();
}

#[test]
fn nodes_are_nested_and_cached() {
    // Level k holds exactly the odd multiples of 2^-k in range; a second request is the same
    // allocation.
    for k in 1..=5 {
        let nodes = level::<Dd>(Transform::TanhSinh, k);
        for (i, node) in nodes.right.iter().enumerate() {
            assert_eq!(node.t, (2 * i + 1) as f64 / f64::from(1u32 << k));
        }
        assert!(std::sync::Arc::ptr_eq(
            &nodes,
            &level::<Dd>(Transform::TanhSinh, k)
        ));
    }
    let (left, right) = Transform::ExpSinh.t_range::<Qd>();
    let exp_sinh = level::<Qd>(Transform::ExpSinh, 0);
    assert_eq!(exp_sinh.left.len(), left.floor() as usize);
    assert_eq!(exp_sinh.right.len(), right.floor() as usize);
    assert!(exp_sinh
        .left
        .iter()
        .all(|n| n.t < 0.0 && n.offset < Qd::ONE));
}

#[test]
fn points_near_the_ends_keep_their_distance() {
    // In qd the last nodes of [0, 1] lie 1e-200 and closer to the ends; x^(-1/2) at the left
    // sees that distance exactly, and (1 - x)^(-1/2) at the right to 159 bits, not a rounded 0.
    check::<Qd>("1/sqrt(x)", 0.0, 1.0, &float(2), wanted::<Qd>());
    check::<Dd>("1/sqrt(x)", 0.0, 1.0, &float(2), wanted::<Dd>());
    let loose = Options {
        relative: Some(1e-54),
        ..Options::default()
    };
    let out = run::<Qd>("1/sqrt(1-x)", 0.0, 1.0, &loose).expect("integrates");
    assert!(out.converged);
    assert!(digits(out.value, &float(2)) >= 57.0);
    assert_honest("1/sqrt(1-x)", &out, &float(2));
    // On [-1, 0] the singular end is 0 again: every digit.
    check::<Qd>("1/sqrt(-x)", -1.0, 0.0, &float(2), wanted::<Qd>());
}

#[test]
fn reversed_and_empty_intervals() {
    let opts = options::<Dd>();
    let forward = run::<Dd>("sqrt(x)", 0.0, 1.0, &opts).expect("integrates");
    let backward = run::<Dd>("sqrt(x)", 1.0, 0.0, &opts).expect("integrates");
    assert_eq!(backward.value, -forward.value);
    assert!(digits(backward.value, &(float(-2) / 3)) >= 30.0);
    let backward = run::<Dd>("exp(-x)", f64::INFINITY, 0.0, &opts).expect("integrates");
    assert!(digits(backward.value, &float(-1)) >= 30.0);
    assert!(backward.converged);
    for (a, b) in [(2.0, 2.0), (f64::INFINITY, f64::INFINITY)] {
        let empty = run::<Dd>("1/x", a, b, &opts).expect("no evaluation at all");
        assert_eq!(empty.value, Dd::ZERO);
        assert_eq!(empty.evaluations, 0);
        assert!(empty.converged);
    }
    let nan = run::<f64>("x", f64::NAN, 1.0, &opts);
    assert!(matches!(
        nan,
        Err(Error::InvalidBound { which: "lower", .. })
    ));
}

#[test]
fn caps_give_an_honest_not_converged() {
    // x^(-x) on [0, 1000] needs several levels; 60 evaluations do not reach them.
    let reference = parse(X_POW_MINUS_X_1000);
    let capped = Options {
        max_evaluations: 60,
        ..options::<Dd>()
    };
    let out = run::<Dd>("x^(-x)", 0.0, 1000.0, &capped).expect("integrates");
    assert!(!out.converged, "{out:?}");
    assert!(out.evaluations <= 60);
    assert_honest("x^(-x), capped", &out, &reference);
    // Two levels are below MIN_LEVEL: never converged, however good the value.
    let shallow = Options {
        max_levels: MIN_LEVEL - 1,
        ..options::<f64>()
    };
    let out = run::<f64>("exp(x)", 0.0, 1.0, &shallow).expect("integrates");
    assert!(!out.converged);
    assert_eq!(out.levels, MIN_LEVEL);
    assert_honest("exp, two levels", &out, &(float(1).exp() - 1));
    // Too few evaluations for the first level: nothing is claimed.
    let none = Options {
        max_evaluations: 5,
        ..options::<f64>()
    };
    let out = run::<f64>("exp(x)", 0.0, 1.0, &none).expect("integrates");
    assert!(!out.converged);
    assert_eq!(out.evaluations, 0);
    assert_eq!(out.error, f64::INFINITY);
    // A slowly decaying tail, x^-1.05 on [1, ∞) = 20, cut at 2^500: the error says so.
    let out = run::<Dd>("x^(-1.05)", 1.0, f64::INFINITY, &options::<Dd>()).expect("integrates");
    assert!(!out.converged);
    assert_honest("x^-1.05", &out, &float(20));
    assert!(max_level::<Dd>() >= MIN_LEVEL);
}

#[test]
fn non_finite_values_that_matter_are_errors() {
    // A pole at the midpoint, the node t = 0.
    let err = run::<Dd>("1/(x-0.5)", 0.0, 1.0, &options::<Dd>()).unwrap_err();
    assert!(matches!(err, Error::NonFinite { .. }), "{err}");
    // In f64, the points near 1 round to 1 while (1 - x)^(-1/2) still carries weight there.
    let err = run::<f64>("1/sqrt(1-x)", 0.0, 1.0, &options::<f64>()).unwrap_err();
    match err {
        Error::NonFinite { x, .. } => assert_eq!(x.parse::<f64>().ok(), Some(1.0)),
        other => panic!("{other}"),
    }
}

#[test]
fn non_finite_values_beyond_negligible_terms_are_dropped() {
    // exp(-x) x^100 is 0 past x = 745 (e^-x underflows) and 0 * ∞ = NaN past x = 10^3.08
    // (x^100 overflows): NaN at the far exp-sinh nodes, where the terms have long been 0. The
    // integral is 100!.
    let out = run::<Dd>("exp(-x)*x^100", 0.0, f64::INFINITY, &options::<Dd>()).expect("integrates");
    assert!(out.converged, "{out:?}");
    assert!(digits(out.value, &factorial(100)) >= 30.0);
}

/// The CPU dressed as a device whose calls cost about as much as `room` points: tanh-sinh joins
/// its next levels into one call there.
struct CheapCalls {
    cpu: CpuBackend,
    room: usize,
}

impl hpquad::backend::Backend for CheapCalls {
    fn device(&self) -> std::sync::Arc<str> {
        self.cpu.device()
    }
    fn uniform_sums<T: Real, F: hpquad::integrand::Integrand>(
        &self,
        f: &F,
        grids: &[hpquad::backend::UniformGrid<T>],
    ) -> hpquad::Result<Vec<T>> {
        self.cpu.uniform_sums(f, grids)
    }
    fn evaluate<T: Real, F: hpquad::integrand::Integrand>(
        &self,
        f: &F,
        points: &[T],
    ) -> hpquad::Result<Vec<T>> {
        self.cpu.evaluate(f, points)
    }
    fn points_per_call<T: Real, F: hpquad::integrand::Integrand>(&self, _f: &F) -> usize {
        self.room
    }
}

/// Levels evaluated ahead in a joined call change nothing but the calls and the evaluations:
/// the same value, error, levels and table, bit for bit, as one level a call, on finite,
/// half-infinite and infinite ranges, with sides closed before a non-finite value, and under an
/// evaluation cap; fewer calls, and no more evaluations than the cap.
fn joined_levels<T: Real>() {
    let cases: [(&str, f64, f64); 6] = [
        ("sqrt(exp(cos(x^(x^x))))", 0.0, 1.0),
        ("x^(-x)", 0.0, 1000.0),
        ("log(x)/sqrt(x)", 0.0, 1.0),
        ("exp(-x^2)", f64::NEG_INFINITY, f64::INFINITY),
        ("sin(x)/x*exp(-x)", 0.0, f64::INFINITY),
        ("1/sqrt(1-x)", 0.0, 1.0),
    ];
    for (source, a, b) in cases {
        let f = Expr::parse(source, 1).expect("parses");
        let interval = Interval::new(T::from_f64(a), T::from_f64(b));
        for max_evaluations in [u64::MAX, 150] {
            let options = Options {
                max_evaluations,
                ..options::<T>()
            };
            let one = tanh_sinh(&f, &cpu(), interval, &options);
            for room in [64, 1 << 10, 1 << 14] {
                let cheap = CheapCalls { cpu: cpu(), room };
                let joined = tanh_sinh(&f, &cheap, interval, &options);
                let what = format!("{} {source} cap {max_evaluations} room {room}", T::NAME);
                match (&one, &joined) {
                    (Ok(one), Ok(joined)) => {
                        assert_eq!(one.value.limbs(), joined.value.limbs(), "{what}");
                        assert_eq!(one.error.to_bits(), joined.error.to_bits(), "{what}");
                        assert_eq!(one.converged, joined.converged, "{what}");
                        assert_eq!(one.table, joined.table, "{what}");
                        assert!(joined.stages.len() <= one.stages.len(), "{what}");
                        assert!(joined.evaluations >= one.evaluations, "{what}");
                        assert!(joined.evaluations <= max_evaluations, "{what}");
                        if room >= 1 << 10 && max_evaluations == u64::MAX {
                            assert!(joined.stages.len() < one.stages.len(), "{what}");
                        }
                    }
                    (Err(one), Err(joined)) => {
                        assert_eq!(one.to_string(), joined.to_string(), "{what}")
                    }
                    _ => panic!("{what}: {one:?} against {joined:?}"),
                }
            }
        }
    }
}

#[test]
fn joined_levels_change_nothing_f64() {
    joined_levels::<f64>();
}

#[test]
fn joined_levels_change_nothing_dd() {
    joined_levels::<Dd>();
}

#[test]
fn joined_levels_change_nothing_qd() {
    joined_levels::<Qd>();
}
