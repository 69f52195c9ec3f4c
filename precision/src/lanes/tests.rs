//! Every column operation on every instruction set this CPU has gives the scalar operation's
//! bits, limb for limb, over random inputs: wide exponent ranges, mixed signs, sums and
//! differences that cancel to any depth, zeros of both signs, infinities, NaN, overflow and
//! underflow.
//!
//! Limbs are compared bit for bit, except that any NaN matches any NaN: Rust does not specify
//! NaN payloads, and a vector and a scalar add may return either operand's.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{Columns, Isa, Operand};
use crate::{Dd, Qd};

/// Inputs per operation and operand form; not a multiple of 8, so the scalar tail runs too.
const N: usize = 100_003;

fn same(x: f64, y: f64) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

/// A double with a random sign, significand and exponent in `2^-emax..2^emax`.
fn double(rng: &mut StdRng, emax: i32) -> f64 {
    let m: f64 = rng.gen_range(1.0..2.0);
    let sign = if rng.gen_bool(0.5) { -1.0 } else { 1.0 };
    sign * crate::ldexp(m, rng.gen_range(-emax..=emax))
}

/// A normalised quad-double: a random lead, then components each a random fraction of an ulp
/// of the one before (sometimes zero), summed so that the result is normalised.
fn qd_value(rng: &mut StdRng, emax: i32) -> Qd {
    let x0 = double(rng, emax);
    let mut c = [x0, 0.0, 0.0, 0.0];
    for k in 1..4 {
        if rng.gen_bool(0.9) {
            c[k] = c[k - 1] * f64::EPSILON * rng.gen_range(-0.5..0.5);
        }
    }
    Qd::from_f64(c[0]) + Qd::new(0.0, c[1], c[2], c[3])
}

fn special(rng: &mut StdRng) -> f64 {
    const SPECIAL: [f64; 10] = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
        -f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        1.0,
    ];
    SPECIAL[rng.gen_range(0..SPECIAL.len())]
}

/// A pair of quad-doubles of one of several kinds.
fn qd_pair(rng: &mut StdRng) -> (Qd, Qd) {
    match rng.gen_range(0..12) {
        // Magnitudes near each other.
        0..=2 => (qd_value(rng, 30), qd_value(rng, 30)),
        // Anything: overflow, underflow, subnormal components, huge divisors.
        3 | 4 => (qd_value(rng, 1023), qd_value(rng, 1023)),
        // b close to -a (a - b close to 2a, a + b cancelling) at a random depth.
        5..=7 => {
            let a = qd_value(rng, 300);
            let depth = rng.gen_range(0..4);
            let mut c = (-a).0;
            let k = depth.min(3);
            c[k] *= 1.0 + f64::EPSILON * rng.gen_range(-8.0..8.0f64).round();
            for x in c.iter_mut().skip(k + 1) {
                if rng.gen_bool(0.5) {
                    *x = -*x;
                }
            }
            let b = Qd::from_f64(c[0]) + Qd::new(0.0, c[1], c[2], c[3]);
            if rng.gen_bool(0.5) {
                (a, b)
            } else {
                (b, a)
            }
        }
        // Special values on either side, or on both (zeros of both signs meeting zeros).
        8 => (Qd::from_f64(special(rng)), qd_value(rng, 60)),
        9 => (qd_value(rng, 60), Qd::from_f64(special(rng))),
        // At the edge of overflow: ±MAX and an addend of the same sign from 2^780 to 2^980,
        // which stays MAX, overflows in the final normalisation, or (dd) in the first one.
        10 => {
            let sign = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
            let d = crate::ldexp(rng.gen_range(1.0..2.0), rng.gen_range(780..980));
            (Qd::MAX * sign, Qd::from_f64(sign * d))
        }
        _ => (Qd::from_f64(special(rng)), Qd::from_f64(special(rng))),
    }
}

fn qd_inputs(seed: u64) -> (Vec<Qd>, Vec<Qd>) {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..N).map(|_| qd_pair(&mut rng)).unzip()
}

fn dd_inputs(seed: u64) -> (Vec<Dd>, Vec<Dd>) {
    let (a, b) = qd_inputs(seed);
    (
        a.iter().map(|x| x.to_dd()).collect(),
        b.iter().map(|x| x.to_dd()).collect(),
    )
}

/// Asserts `got[i] == want(i)` limb for limb.
fn assert_same<T: Copy + std::fmt::Debug>(
    what: &str,
    isa: Isa,
    got: &[T],
    want: impl Fn(usize) -> T,
    limbs: impl Fn(T) -> Vec<f64>,
) {
    for (i, &g) in got.iter().enumerate() {
        let w = want(i);
        let (gl, wl) = (limbs(g), limbs(w));
        assert!(
            gl.iter().zip(&wl).all(|(&x, &y)| same(x, y)),
            "{what} on {isa:?}, element {i}: lanes {g:?}, scalar {w:?}"
        );
    }
}

/// Checks the four two-operand operations of a type, columns and constants, against `$op`.
macro_rules! check_binary {
    ($t:ty, $a:expr, $b:expr, $limbs:expr) => {{
        let (a, b): (&[$t], &[$t]) = ($a, $b);
        let ops: [(
            &str,
            fn(Isa, &mut [$t], Operand<$t>, Operand<$t>),
            fn($t, $t) -> $t,
        ); 4] = [
            ("add", <$t as Columns>::add_cols, |x, y| x + y),
            ("sub", <$t as Columns>::sub_cols, |x, y| x - y),
            ("mul", <$t as Columns>::mul_cols, |x, y| x * y),
            ("div", <$t as Columns>::div_cols, |x, y| x / y),
        ];
        for isa in Isa::available() {
            for (name, lanes, scalar) in ops {
                let mut d = vec![<$t>::default(); N];
                lanes(isa, &mut d, Operand::Column(a), Operand::Column(b));
                assert_same(name, isa, &d, |i| scalar(a[i], b[i]), $limbs);
                // Constants: a few values of b (and of a) of each kind.
                for k in [0, 5, 17, 42, 77, 96] {
                    let n = N / 8;
                    let mut d = vec![<$t>::default(); n];
                    lanes(isa, &mut d, Operand::Column(a), Operand::Constant(b[k]));
                    assert_same(name, isa, &d, |i| scalar(a[i], b[k]), $limbs);
                    lanes(isa, &mut d, Operand::Constant(a[k]), Operand::Column(b));
                    assert_same(name, isa, &d, |i| scalar(a[k], b[i]), $limbs);
                }
            }
        }
    }};
}

/// Checks the operations with a double and the square root.
macro_rules! check_mixed {
    ($t:ty, $a:expr, $b:expr, $limbs:expr) => {{
        let (a, b): (&[$t], &[$t]) = ($a, $b);
        let ops: [(&str, fn(Isa, &mut [$t], &[$t], f64), fn($t, f64) -> $t); 3] = [
            ("add_f64", <$t as Columns>::add_f64_cols, |x, y| x + y),
            ("mul_f64", <$t as Columns>::mul_f64_cols, |x, y| x * y),
            ("div_f64", <$t as Columns>::div_f64_cols, |x, y| x / y),
        ];
        for isa in Isa::available() {
            for (name, lanes, scalar) in ops {
                // Each double in turn over a stretch of the column.
                let stretch = 997;
                for (a, bk) in a.chunks(stretch).zip(b.iter().step_by(stretch)) {
                    let c = bk.to_f64();
                    let mut d = vec![<$t>::default(); a.len()];
                    lanes(isa, &mut d, a, c);
                    assert_same(name, isa, &d, |i| scalar(a[i], c), $limbs);
                }
            }
            let mut d = vec![<$t>::default(); N];
            <$t as Columns>::sqrt_cols(isa, &mut d, a);
            assert_same("sqrt", isa, &d, |i| a[i].sqrt(), $limbs);
            // The roots of magnitudes (a mostly positive column).
            let abs: Vec<$t> = a.iter().map(|x| x.abs()).collect();
            <$t as Columns>::sqrt_cols(isa, &mut d, &abs);
            assert_same("sqrt |a|", isa, &d, |i| abs[i].sqrt(), $limbs);
        }
    }};
}

fn dd_limbs(x: Dd) -> Vec<f64> {
    vec![x.hi, x.lo]
}

fn qd_limbs(x: Qd) -> Vec<f64> {
    x.0.to_vec()
}

#[test]
fn dd_columns_have_the_scalar_bits() {
    let (a, b) = dd_inputs(1);
    check_binary!(Dd, &a, &b, dd_limbs);
    check_mixed!(Dd, &a, &b, dd_limbs);
}

#[test]
fn qd_columns_have_the_scalar_bits() {
    let (a, b) = qd_inputs(2);
    check_binary!(Qd, &a, &b, qd_limbs);
    check_mixed!(Qd, &a, &b, qd_limbs);
}

/// Columns of ordinary values alone (magnitudes near each other, no special values), where
/// whole vectors take the renormalisation's straight-line common case, which mixed columns
/// rarely do.
#[test]
fn qd_columns_of_ordinary_values_have_the_scalar_bits() {
    let mut rng = StdRng::seed_from_u64(3);
    let (a, b): (Vec<Qd>, Vec<Qd>) = (0..N)
        .map(|_| (qd_value(&mut rng, 30), qd_value(&mut rng, 30)))
        .unzip();
    check_binary!(Qd, &a, &b, qd_limbs);
    check_mixed!(Qd, &a, &b, qd_limbs);
}

/// The inputs really reach the branches that the lanes turn into selects or hand back.
#[test]
fn inputs_reach_every_branch() {
    let (a, b) = qd_inputs(2);
    let count = |f: &dyn Fn(Qd, Qd) -> bool| a.iter().zip(&b).filter(|&(&x, &y)| f(x, y)).count();
    let lead = |x: Qd, y: Qd| x.0[0] + y.0[0];
    // Heavy cancellation (the merged sum) and the sloppy sum.
    let merged = count(&|x, y| {
        let s = lead(x, y);
        s.is_finite() && s.abs() < 0.015625 * (x.0[0].abs() + y.0[0].abs())
    });
    assert!(merged > N / 10, "{merged} merged sums");
    // Non-finite sums and products, zero divisors, huge divisors, square roots to rescale.
    assert!(count(&|x, y| !(x * y).0[0].is_finite() && x.0[0].is_finite()) > 100);
    assert!(count(&|_, y| y.0[0] == 0.0) > 100);
    assert!(count(&|_, y| y.0[0].abs() > 9.7e288 && y.0[0].is_finite()) > 100);
    assert!(count(&|x, _| x.0[0] > 0.0 && !(1.5e-241..=6.7e240).contains(&x.0[0])) > 100);
    assert!(count(&|x, _| x.0[0] < 0.0) > N / 3);
    // Exact zeros of each sign: sums that cancel exactly, -0 + -0, zero factors.
    let negative_zero = |q: Qd| q.0[0] == 0.0 && q.0[0].is_sign_negative();
    assert!(count(&|x, y| (x + y).0 == [0.0; 4] && x.0[0] != 0.0) > 100);
    assert!(count(&|x, y| negative_zero(x) && negative_zero(y)) > 50);
    assert!(count(&|x, y| negative_zero(x * y)) > 100);
    // Sums at MAX that stay finite and that overflow, in qd and in dd.
    let finite = |x: Qd, y: Qd| x.0[0].is_finite() && y.0[0].is_finite();
    let at_max = |x: Qd| x.0[0].abs() == f64::MAX;
    assert!(count(&|x, y| at_max(x) && (x + y).0[0].is_finite()) > 100);
    assert!(count(&|x, y| at_max(x) && finite(x, y) && (x + y).0[0].is_infinite()) > 100);
    let dd_sum = |x: Qd, y: Qd| x.to_dd() + y.to_dd();
    assert!(count(&|x, y| at_max(x) && dd_sum(x, y).hi.is_finite()) > 100);
    assert!(count(&|x, y| at_max(x) && finite(x, y) && dd_sum(x, y).hi.is_infinite()) > 100);
}

/// Arguments of exp: every range its scalar path distinguishes, and the points between them.
fn exp_arguments(seed: u64) -> Vec<Dd> {
    let mut rng = StdRng::seed_from_u64(seed);
    let ln2 = Dd::new(std::f64::consts::LN_2, 2.3190468138462996e-17);
    let lo_of = |rng: &mut StdRng, hi: f64| hi * f64::EPSILON * rng.gen_range(-0.5..0.5);
    (0..N)
        .map(|_| {
            match rng.gen_range(0..10) {
                // The whole range, beyond both thresholds.
                0..=2 => {
                    let hi = rng.gen_range(-760.0..720.0);
                    Dd::from_f64(hi) + lo_of(&mut rng, hi)
                }
                // Near a multiple of ln 2, where the reduction's first guess of k is corrected.
                3 | 4 => {
                    let k = rng.gen_range(-1075..=1024) as f64;
                    let eps = double(&mut rng, 60) * 1e-12;
                    ln2 * k + eps
                }
                // Tiny and subnormal arguments, zeros of both signs.
                5 => {
                    let hi = double(&mut rng, 1074);
                    Dd::new(hi, 0.0)
                }
                // At the thresholds: overflow, the cut-off above it, results near MIN_POSITIVE,
                // subnormal results, the underflow to zero.
                6 | 7 => {
                    let edge: f64 = [
                        709.782712893384,
                        709.782712893384 + 1e-3,
                        -708.3964185322641,
                        -745.1332191019412,
                        -740.0,
                    ][rng.gen_range(0..5)];
                    let ulps = rng.gen_range(-40i64..=40);
                    let hi = f64::from_bits(edge.to_bits().wrapping_add_signed(ulps));
                    Dd::from_f64(hi) + lo_of(&mut rng, hi)
                }
                // Special values and huge arguments.
                8 => Dd::from_f64(special(&mut rng)) * [1.0, 1e300, -1e-300][rng.gen_range(0..3)],
                // Malformed values: a low component that is no rounding error of the high one,
                // or infinite, or NaN (the lanes hand them to the scalar method).
                _ => {
                    let hi = rng.gen_range(-20.0..20.0);
                    let lo =
                        [0.75, -3.0, 1e300, f64::INFINITY, f64::NAN, 5e-324][rng.gen_range(0..6)];
                    Dd::new(hi, lo)
                }
            }
        })
        .collect()
}

#[test]
fn dd_exp_and_cosh_columns_have_the_scalar_bits() {
    let a = exp_arguments(3);
    for isa in Isa::available() {
        let mut d = vec![Dd::default(); N];
        <Dd as Columns>::exp_cols(isa, &mut d, &a);
        assert_same("exp", isa, &d, |i| a[i].exp(), dd_limbs);
        <Dd as Columns>::cosh_cols(isa, &mut d, &a);
        assert_same("cosh", isa, &d, |i| a[i].cosh(), dd_limbs);
        // cosh's own range, |x| below `far` (38.8 for dd) and a little beyond.
        let moderate = moderate_arguments(6);
        <Dd as Columns>::cosh_cols(isa, &mut d, &moderate);
        assert_same("cosh", isa, &d, |i| moderate[i].cosh(), dd_limbs);
    }
}

/// Arguments in [-45, 45] with random low components.
fn moderate_arguments(seed: u64) -> Vec<Dd> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..N)
        .map(|_| {
            let hi: f64 = rng.gen_range(-45.0..45.0);
            Dd::from_f64(hi) + hi * f64::EPSILON * rng.gen_range(-0.5..0.5)
        })
        .collect()
}

/// The exp arguments reach every path: each special value, overflow and underflow, subnormal
/// results, and reductions whose first guess of k is corrected either way.
#[test]
fn exp_arguments_reach_every_path() {
    use rug::Float;
    let a = exp_arguments(3);
    let count = |f: &dyn Fn(Dd) -> bool| a.iter().filter(|&&x| f(x)).count();
    assert!(count(&|x| x.hi.is_nan()) > 100);
    assert!(count(&|x| x.hi == f64::INFINITY) > 100);
    assert!(count(&|x| x.hi == f64::NEG_INFINITY) > 100);
    assert!(count(&|x| x.hi == 0.0 && x.hi.is_sign_negative()) > 100);
    assert!(count(&|x| x.hi.is_finite() && !x.lo.is_finite()) > 100);
    assert!(count(&|x| x.hi.is_finite() && x.lo.abs() > 0.5) > 100);
    assert!(count(&|x| x.hi.abs() < f64::MIN_POSITIVE && x.hi != 0.0) > 10);
    let e = |x: Dd| x.exp();
    assert!(count(&|x| e(x).hi == f64::INFINITY && x.hi <= 709.782712893384 + 1e-3) > 100);
    assert!(count(&|x| e(x).hi.is_finite() && x.hi > 709.0) > 100);
    assert!(count(&|x| e(x).hi > 0.0 && e(x).hi < f64::MIN_POSITIVE) > 100);
    assert!(count(&|x| e(x).hi == 0.0 && x.hi >= -745.1332191019412) > 10);
    // The first guess floor(hi log2 e) against the true floor(x / ln 2), in MPFR.
    let (mut up, mut down) = (0, 0);
    for &x in &a {
        if !(x.hi.is_finite() && x.lo.abs() < 1e-3 && x.hi.abs() < 746.0) {
            continue;
        }
        let guess = (x.hi * std::f64::consts::LOG2_E).floor();
        let exact =
            (Float::with_val(300, x.hi) + x.lo) / Float::with_val(300, rug::float::Constant::Log2);
        let k = exact.floor().to_f64();
        up += (guess < k) as usize;
        down += (guess > k) as usize;
    }
    assert!(
        up > 100 && down > 100,
        "guesses corrected up {up}, down {down}"
    );
}

#[test]
fn qd_exp_and_cosh_columns_have_the_scalar_bits() {
    // The dd arguments widened by random lower components (malformed lanes stay malformed).
    let mut rng = StdRng::seed_from_u64(4);
    let a: Vec<Qd> = exp_arguments(5)
        .iter()
        .map(|x| {
            let c2 = x.lo * f64::EPSILON * rng.gen_range(-0.5..0.5);
            let c3 = c2 * f64::EPSILON * rng.gen_range(-0.5..0.5);
            Qd::new(x.hi, x.lo, c2, c3)
        })
        .collect();
    for isa in Isa::available() {
        let mut d = vec![Qd::default(); N];
        <Qd as Columns>::exp_cols(isa, &mut d, &a);
        assert_same("exp", isa, &d, |i| a[i].exp(), qd_limbs);
        <Qd as Columns>::cosh_cols(isa, &mut d, &a);
        assert_same("cosh", isa, &d, |i| a[i].cosh(), qd_limbs);
        let moderate: Vec<Qd> = moderate_arguments(7)
            .iter()
            .map(|x| Qd::new(x.hi, x.lo, x.lo * f64::EPSILON * 0.375, 0.0))
            .collect();
        <Qd as Columns>::cosh_cols(isa, &mut d, &moderate);
        assert_same("cosh", isa, &d, |i| moderate[i].cosh(), qd_limbs);
    }
}

#[test]
fn dd_exp_m1_sinh_tanh_columns_have_the_scalar_bits() {
    // exp's arguments, and |x| from 2^-40 to 8 across exp_m1's three paths and their borders
    // (sinh and tanh take exp_m1 of |x| and 2|x|).
    let mut rng = StdRng::seed_from_u64(8);
    let mut a = exp_arguments(9);
    for x in a.iter_mut().step_by(2) {
        let hi = double(&mut rng, 40) * 0.25;
        let hi = if hi.abs() > 8.0 { hi / 1e12 } else { hi };
        *x = Dd::from_f64(hi) + hi * f64::EPSILON * rng.gen_range(-0.5..0.5);
    }
    let count = |f: &dyn Fn(f64) -> bool| a.iter().filter(|x| f(x.hi)).count();
    assert!(count(&|h| h.abs() < 1.0 / 4096.0 && h != 0.0) > 1000);
    assert!(count(&|h| (1.0 / 4096.0..0.3).contains(&h.abs())) > 1000);
    assert!(count(&|h| (0.4..200.0).contains(&h.abs())) > 1000);
    assert!(count(&|h| h < -200.0) > 1000);
    for isa in Isa::available() {
        let mut d = vec![Dd::default(); N];
        <Dd as Columns>::exp_m1_cols(isa, &mut d, &a);
        assert_same("exp_m1", isa, &d, |i| a[i].exp_m1(), dd_limbs);
        <Dd as Columns>::sinh_cols(isa, &mut d, &a);
        assert_same("sinh", isa, &d, |i| a[i].sinh(), dd_limbs);
        <Dd as Columns>::tanh_cols(isa, &mut d, &a);
        assert_same("tanh", isa, &d, |i| a[i].tanh(), dd_limbs);
    }
}

#[test]
fn qd_exp_m1_sinh_tanh_columns_have_the_scalar_bits() {
    // As the dd test, widened, with |x| down to 2^-40 (qd's series below 2^-24).
    let mut rng = StdRng::seed_from_u64(10);
    let mut a = exp_arguments(11);
    for x in a.iter_mut().step_by(2) {
        let hi = double(&mut rng, 40) * 0.25;
        let hi = if hi.abs() > 8.0 { hi / 1e12 } else { hi };
        *x = Dd::from_f64(hi) + hi * f64::EPSILON * rng.gen_range(-0.5..0.5);
    }
    let a: Vec<Qd> = a
        .iter()
        .map(|x| {
            let c2 = x.lo * f64::EPSILON * rng.gen_range(-0.5..0.5);
            Qd::new(x.hi, x.lo, c2, c2 * f64::EPSILON * rng.gen_range(-0.5..0.5))
        })
        .collect();
    let count = |f: &dyn Fn(f64) -> bool| a.iter().filter(|x| f(x.0[0])).count();
    assert!(count(&|h| h.abs() < 1.0 / 16777216.0 && h != 0.0) > 1000);
    assert!(count(&|h| (1.0 / 16777216.0..0.3).contains(&h.abs())) > 1000);
    for isa in Isa::available() {
        let mut d = vec![Qd::default(); N];
        <Qd as Columns>::exp_m1_cols(isa, &mut d, &a);
        assert_same("exp_m1", isa, &d, |i| a[i].exp_m1(), qd_limbs);
        <Qd as Columns>::sinh_cols(isa, &mut d, &a);
        assert_same("sinh", isa, &d, |i| a[i].sinh(), qd_limbs);
        <Qd as Columns>::tanh_cols(isa, &mut d, &a);
        assert_same("tanh", isa, &d, |i| a[i].tanh(), qd_limbs);
    }
}

/// Arguments of ln: every range its scalar path distinguishes, and the points between them.
fn ln_arguments(seed: u64) -> Vec<Qd> {
    let mut rng = StdRng::seed_from_u64(seed);
    let tail = |rng: &mut StdRng, x: Qd| {
        let c1 = x.0[0] * f64::EPSILON * rng.gen_range(-0.5..0.5);
        let c2 = c1 * f64::EPSILON * rng.gen_range(-0.5..0.5);
        let c3 = c2 * f64::EPSILON * rng.gen_range(-0.5..0.5);
        x + Qd::new(0.0, c1, c2, c3)
    };
    (0..N)
        .map(|_| match rng.gen_range(0..12) {
            // Any positive magnitude, normal leading components.
            0..=2 => {
                let x = Qd::from_f64(double(&mut rng, 1022).abs());
                tail(&mut rng, x)
            }
            // Moderate values, the integrands' range.
            3 => {
                let x = Qd::from_f64(rng.gen_range(0.0..4.0));
                tail(&mut rng, x)
            }
            // Near 1, across the fixed path's lower limits 2^-12 (dd) and 2^-24 (qd): the
            // series below them.
            4 => {
                let d = double(&mut rng, 1) * crate::ldexp(1.0, -rng.gen_range(0..60));
                tail(&mut rng, Qd::from_f64(1.0) + d)
            }
            // At those limits: 1 ± 2^-12 (1 + t) and 1 ± 2^-24 (1 + t), |t| < 2^-20, where
            // |x - 1| is above the limit and |ln x| below it (the Newton path) for
            // 0 < t < 2^-13 or 2^-25.
            5 => {
                let limit = crate::ldexp(1.0, if rng.gen_bool(0.5) { -12 } else { -24 });
                let t = rng.gen_range(-1.0..1.0) * crate::ldexp(1.0, -rng.gen_range(20..60));
                let sign = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
                tail(
                    &mut rng,
                    Qd::from_f64(1.0) + Qd::from_f64(sign * limit) * (1.0 + t),
                )
            }
            // Just below and above powers of two (m just below 1: the fixed path takes 2m),
            // with tails of either sign at every depth.
            6 | 7 => {
                let k = rng.gen_range(-1022..=1023);
                let p = crate::ldexp(1.0, k);
                let t = crate::ldexp(1.0, k - rng.gen_range(53..220));
                let sign = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
                Qd::from_f64(p) + Qd::from_f64(sign * t)
            }
            // Near the table's borders: m = 1 + j/2^8 and the second index's last entries.
            8 => {
                let j = rng.gen_range(0..=256) as f64;
                let d = double(&mut rng, 1) * crate::ldexp(1.0, -rng.gen_range(8..120));
                let x = Qd::from_f64(1.0 + j / 256.0) + d;
                let scale = crate::ldexp(1.0, rng.gen_range(-20..20));
                tail(&mut rng, x * scale)
            }
            // Subnormal and zero leading components, special values, negative values.
            9 => match rng.gen_range(0..3) {
                0 => Qd::from_f64(double(&mut rng, 1074).abs() * 1e-300),
                1 => Qd::from_f64(special(&mut rng)),
                _ => {
                    let x = Qd::from_f64(double(&mut rng, 100).abs());
                    -tail(&mut rng, x)
                }
            },
            // Malformed values: a lower component that is no rounding error of the leading one,
            // or infinite, or NaN (the lanes hand them to the scalar method). (Not far beyond
            // the leading one: `log_fixed` indexes its tables out of bounds and panics there.)
            10 => {
                let hi = rng.gen_range(0.1..20.0);
                let lo = [2e-16, -2e-16, 1e-9, -1e-6, f64::INFINITY, f64::NAN, 5e-324]
                    [rng.gen_range(0..7)]
                    * if rng.gen_bool(0.5) { hi } else { 1.0 };
                let mut c = [hi, 0.0, 0.0, 0.0];
                c[rng.gen_range(1..4)] = lo;
                Qd(c)
            }
            // Huge and tiny normal values, where |e ln2| is largest.
            _ => {
                let k = if rng.gen_bool(0.5) { 1023 } else { -1022 };
                let x = Qd::from_f64(crate::ldexp(rng.gen_range(1.0..2.0), k));
                tail(&mut rng, x)
            }
        })
        .collect()
}

#[test]
fn dd_ln_columns_have_the_scalar_bits() {
    let a: Vec<Dd> = ln_arguments(12)
        .iter()
        .map(|x| Dd::new(x.0[0], x.0[1]))
        .collect();
    let count = |f: &dyn Fn(Dd) -> bool| a.iter().filter(|&&x| f(x)).count();
    // Near 1 the series (|x - 1| < 2^-12) and, just above, the Newton path; both signs of ln x
    // on the fixed path, and m just below 1.
    let series = |x: Dd| (x.hi - 1.0).abs() < 1.0 / 4096.0;
    let newton = |x: Dd| !series(x) && x.hi >= f64::MIN_POSITIVE && x.ln().hi.abs() < 1.0 / 4096.0;
    assert!(count(&series) > 1000);
    assert!(count(&newton) > 0);
    assert!(count(&|x| x.hi > 1.0 && x.ln().hi > 1.0 / 4096.0) > 10_000);
    assert!(count(&|x| x.hi > 0.0 && x.ln().hi < -1.0 / 4096.0) > 10_000);
    assert!(count(&|x| x.hi.log2().fract() == 0.0 && x.lo < 0.0) > 1000);
    for isa in Isa::available() {
        let mut d = vec![Dd::default(); N];
        <Dd as Columns>::ln_cols(isa, &mut d, &a);
        assert_same("ln", isa, &d, |i| a[i].ln(), dd_limbs);
    }
}

#[test]
fn qd_ln_columns_have_the_scalar_bits() {
    let a = ln_arguments(13);
    let count = |f: &dyn Fn(Qd) -> bool| a.iter().filter(|&&x| f(x)).count();
    // Near 1 the series (|x - 1| < 2^-24) and, just above, the Newton path.
    let series = |x: Qd| (x.0[0] - 1.0).abs() < 5.960464477539063e-8;
    let newton = |x: Qd| {
        !series(x) && x.0[0] >= f64::MIN_POSITIVE && x.ln().0[0].abs() < 5.960464477539063e-8
    };
    assert!(count(&series) > 1000);
    assert!(count(&newton) > 0);
    assert!(count(&|x| x.0[0].log2().fract() == 0.0 && x.0[1] < 0.0) > 1000);
    for isa in Isa::available() {
        let mut d = vec![Qd::default(); N];
        <Qd as Columns>::ln_cols(isa, &mut d, &a);
        assert_same("ln", isa, &d, |i| a[i].ln(), qd_limbs);
    }
}

/// Arguments of sin and cos: every range `trig::sin_cos` distinguishes, and the points between.
fn trig_arguments(seed: u64) -> Vec<Qd> {
    let mut rng = StdRng::seed_from_u64(seed);
    let tail = |rng: &mut StdRng, x: Qd| {
        let c1 = x.0[0] * f64::EPSILON * rng.gen_range(-0.5..0.5);
        let c2 = c1 * f64::EPSILON * rng.gen_range(-0.5..0.5);
        let c3 = c2 * f64::EPSILON * rng.gen_range(-0.5..0.5);
        x + Qd::new(0.0, c1, c2, c3)
    };
    (0..N)
        .map(|_| match rng.gen_range(0..11) {
            // The integrands' range and somewhat beyond, both signs.
            0..=2 => {
                let x = Qd::from_f64(rng.gen_range(-8.0..8.0));
                tail(&mut rng, x)
            }
            // Every magnitude of the fixed path, 2^-24 to 2^50, and a little outside it.
            3 | 4 => {
                let x = Qd::from_f64(double(&mut rng, 52));
                tail(&mut rng, x)
            }
            // Near multiples of π/2 at every distance: the quadrant's first guess corrected
            // either way, results too small for the fixed point (the Cody–Waite path).
            5 | 6 => {
                let k = rng.gen_range(-100_000..100_000) as f64;
                let d = double(&mut rng, 1) * crate::ldexp(1.0, -rng.gen_range(0..70));
                tail(&mut rng, crate::Qd::PI * (k / 2.0) + d)
            }
            // Near the tables' borders: θ = j/2^8 and i/2^16 (θ's leading bits all ones).
            7 => {
                let j = rng.gen_range(0..=402) as f64 / 256.0;
                let d = double(&mut rng, 1) * crate::ldexp(1.0, -rng.gen_range(8..120));
                let q = rng.gen_range(0..8) as f64;
                tail(&mut rng, crate::Qd::PI * (q / 2.0) + j + d)
            }
            // Zeros, special values, huge and tiny values.
            8 => match rng.gen_range(0..3) {
                0 => Qd::from_f64(special(&mut rng)),
                1 => Qd::from_f64(double(&mut rng, 1074) * 1e-300),
                _ => {
                    let x = Qd::from_f64(double(&mut rng, 300));
                    tail(&mut rng, x)
                }
            },
            // Tiny values, the series alone (see `tiny_trig_argument`).
            9 => tiny_trig_argument(&mut rng),
            // Malformed values (the lanes hand them to the scalar method).
            _ => {
                let hi = rng.gen_range(-20.0..20.0);
                let lo = [0.75, -3.0, 1e300, f64::INFINITY, f64::NAN, 5e-324, -1e-9]
                    [rng.gen_range(0..7)];
                let mut c = [hi, 0.0, 0.0, 0.0];
                c[rng.gen_range(1..4)] = lo;
                Qd(c)
            }
        })
        .collect()
}

/// A tiny argument of sin and cos, which `trig::sin_cos` takes to the series alone (and the
/// lanes too): mostly 2^-900 to 2^-24, at times from the subnormals up to 2^-900 (where
/// `u = t²` underflows) or just below 2^-24; either sign, a random significand and mostly
/// random lower components (each a random fraction of an ulp of the one before).
fn tiny_trig_argument(rng: &mut StdRng) -> Qd {
    let e = match rng.gen_range(0..10) {
        0 => rng.gen_range(-1074..-900),
        1 => -25,
        _ => rng.gen_range(-900..-24),
    };
    let sign = if rng.gen_bool(0.5) { -1.0 } else { 1.0 };
    let x0 = sign * crate::ldexp(rng.gen_range(1.0..2.0), e);
    let mut c = [x0, 0.0, 0.0, 0.0];
    if rng.gen_bool(0.9) {
        for k in 1..4 {
            c[k] = c[k - 1] * f64::EPSILON * rng.gen_range(-0.5..0.5);
        }
    }
    Qd::from_f64(c[0]) + Qd::new(0.0, c[1], c[2], c[3])
}

/// Arguments that are mostly tiny, so that many vectors hold no lane for the fixed point (the
/// lanes skip it there), with a few of every other kind among them.
fn tiny_trig_arguments(seed: u64) -> Vec<Qd> {
    let mut rng = StdRng::seed_from_u64(seed);
    let others = trig_arguments(seed + 1);
    (0..N)
        .map(|i| {
            if rng.gen_bool(0.97) {
                tiny_trig_argument(&mut rng)
            } else {
                others[i]
            }
        })
        .collect()
}

/// Dd's sin and cos columns of `a` on every instruction set against the scalar functions.
fn dd_sin_cos_have_the_scalar_bits(a: &[Dd]) {
    for isa in Isa::available() {
        let mut d = vec![Dd::default(); a.len()];
        <Dd as Columns>::sin_cols(isa, &mut d, a);
        assert_same("sin", isa, &d, |i| a[i].sin(), dd_limbs);
        <Dd as Columns>::cos_cols(isa, &mut d, a);
        assert_same("cos", isa, &d, |i| a[i].cos(), dd_limbs);
    }
}

/// Qd's sin and cos columns of `a` on every instruction set against the scalar functions.
fn qd_sin_cos_have_the_scalar_bits(a: &[Qd]) {
    for isa in Isa::available() {
        let mut d = vec![Qd::default(); a.len()];
        <Qd as Columns>::sin_cols(isa, &mut d, a);
        assert_same("sin", isa, &d, |i| a[i].sin(), qd_limbs);
        <Qd as Columns>::cos_cols(isa, &mut d, a);
        assert_same("cos", isa, &d, |i| a[i].cos(), qd_limbs);
    }
}

#[test]
fn dd_sin_cos_columns_have_the_scalar_bits() {
    let a: Vec<Dd> = trig_arguments(14)
        .iter()
        .map(|x| Dd::new(x.0[0], x.0[1]))
        .collect();
    // Results below 2^-12 in size near multiples of π/2 (the Cody–Waite path).
    let small = |x: Dd| {
        let (s, c) = (x.sin().hi.abs(), x.cos().hi.abs());
        x.hi.abs() > 1.0 && s.min(c) < 1.0 / 4096.0
    };
    assert!(a.iter().filter(|&&x| small(x)).count() > 1000);
    dd_sin_cos_have_the_scalar_bits(&a);
}

#[test]
fn qd_sin_cos_columns_have_the_scalar_bits() {
    let a = trig_arguments(15);
    let small = |x: Qd| {
        let (s, c) = (x.sin().0[0].abs(), x.cos().0[0].abs());
        x.0[0].abs() > 1.0 && s.min(c) < 5.96e-8
    };
    assert!(a.iter().filter(|&&x| small(x)).count() > 1000);
    qd_sin_cos_have_the_scalar_bits(&a);
}

#[test]
fn dd_sin_cos_of_tiny_arguments_have_the_scalar_bits() {
    let a: Vec<Dd> = tiny_trig_arguments(16)
        .iter()
        .map(|x| Dd::new(x.0[0], x.0[1]))
        .collect();
    dd_sin_cos_have_the_scalar_bits(&a);
}

#[test]
fn qd_sin_cos_of_tiny_arguments_have_the_scalar_bits() {
    let a = tiny_trig_arguments(17);
    qd_sin_cos_have_the_scalar_bits(&a);
}

/// Exponents for powf: moderate ones of both signs (the lanes' path), integers and
/// half-integers, |y| near and beyond 128 and 2^128, specials, and malformed values.
fn powf_exponents(seed: u64) -> Vec<Qd> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..N)
        .map(|_| match rng.gen_range(0..12) {
            0..=5 => {
                let y = double(&mut rng, 6);
                Qd::from_f64(y)
                    + Qd::new(0.0, y * f64::EPSILON * rng.gen_range(-0.5..0.5), 0.0, 0.0)
            }
            6 => Qd::from_f64(rng.gen_range(-20..20) as f64 * 0.5),
            7 => Qd::from_f64(double(&mut rng, 1) * 128.0),
            8 => Qd::from_f64(double(&mut rng, 130)),
            9 => Qd::from_f64(special(&mut rng)),
            10 => Qd::from_f64(double(&mut rng, 40) * 1e-9),
            _ => Qd::new(
                rng.gen_range(-3.0..3.0),
                [0.5, 1e300, f64::NAN, -2.0][rng.gen_range(0..4)],
                0.0,
                0.0,
            ),
        })
        .collect()
}

#[test]
fn dd_powf_columns_have_the_scalar_bits() {
    let x: Vec<Dd> = ln_arguments(17)
        .iter()
        .map(|x| Dd::new(x.0[0], x.0[1]))
        .collect();
    let y: Vec<Dd> = powf_exponents(18)
        .iter()
        .map(|y| Dd::new(y.0[0], y.0[1]))
        .collect();
    // The lanes' path (x > 0 normal, 0 < |y| < 128), its overflow and underflow, and x near 1.
    let lanes =
        |i: usize| x[i].hi >= f64::MIN_POSITIVE && x[i].hi.is_finite() && y[i].hi.abs() < 128.0;
    let count = |f: &dyn Fn(usize) -> bool| (0..N).filter(|&i| f(i)).count();
    assert!(count(&|i| lanes(i) && x[i].powf(y[i]).hi.is_finite()) > 20_000);
    assert!(count(&|i| lanes(i) && x[i].powf(y[i]).hi == f64::INFINITY) > 100);
    assert!(count(&|i| lanes(i) && x[i].powf(y[i]).hi == 0.0) > 100);
    assert!(count(&|i| lanes(i) && (x[i].hi - 1.0).abs() < 1e-10) > 100);
    for isa in Isa::available() {
        let mut d = vec![Dd::default(); N];
        <Dd as Columns>::powf_cols(isa, &mut d, Operand::Column(&x), Operand::Column(&y));
        assert_same("powf", isa, &d, |i| x[i].powf(y[i]), dd_limbs);
        for c in [2.5, -0.5, 1.0 / 3.0] {
            let cy = Dd::from(c);
            <Dd as Columns>::powf_cols(isa, &mut d, Operand::Column(&x), Operand::Constant(cy));
            assert_same("powf x^c", isa, &d, |i| x[i].powf(cy), dd_limbs);
        }
        let cx = Dd::from(1.5);
        <Dd as Columns>::powf_cols(isa, &mut d, Operand::Constant(cx), Operand::Column(&y));
        assert_same("powf c^y", isa, &d, |i| cx.powf(y[i]), dd_limbs);
    }
}

#[test]
fn qd_powf_columns_have_the_scalar_bits() {
    let x = ln_arguments(19);
    let y = powf_exponents(20);
    let lanes = |i: usize| {
        x[i].0[0] >= f64::MIN_POSITIVE && x[i].0[0].is_finite() && y[i].0[0].abs() < 128.0
    };
    let count = |f: &dyn Fn(usize) -> bool| (0..N).filter(|&i| f(i)).count();
    assert!(count(&|i| lanes(i) && x[i].powf(y[i]).0[0].is_finite()) > 20_000);
    assert!(count(&|i| lanes(i) && x[i].powf(y[i]).0[0] == f64::INFINITY) > 100);
    assert!(count(&|i| lanes(i) && x[i].powf(y[i]).0[0] == 0.0) > 100);
    // ln m by its series (m within 2^-24 of 1, x = 2^e m), and by the fixed point elsewhere.
    let series = |i: usize| {
        let m = x[i].0[0] / crate::ldexp(1.0, x[i].0[0].log2().round() as i32);
        lanes(i) && (m - 1.0).abs() < 5.9e-8
    };
    assert!(count(&series) > 1000);
    for isa in Isa::available() {
        let mut d = vec![Qd::default(); N];
        <Qd as Columns>::powf_cols(isa, &mut d, Operand::Column(&x), Operand::Column(&y));
        assert_same("powf", isa, &d, |i| x[i].powf(y[i]), qd_limbs);
        for c in [2.5, -0.5, 1.0 / 3.0] {
            let cy = Qd::from_f64(c);
            <Qd as Columns>::powf_cols(isa, &mut d, Operand::Column(&x), Operand::Constant(cy));
            assert_same("powf x^c", isa, &d, |i| x[i].powf(cy), qd_limbs);
        }
        let cx = Qd::from_f64(1.5);
        <Qd as Columns>::powf_cols(isa, &mut d, Operand::Constant(cx), Operand::Column(&y));
        assert_same("powf c^y", isa, &d, |i| cx.powf(y[i]), qd_limbs);
    }
}

/// A one-operand column operation of Qd.
type UnaryColumns = fn(Isa, &mut [Qd], &[Qd]);

/// Columns of every length from 1 to 17: the last, partial vector runs in the lanes with the
/// unused lanes padded, and must give each element the scalar method's bits, whatever the
/// padding (the last element repeated) and however many lanes are left over.
#[test]
fn short_columns_have_the_scalar_bits_in_their_last_vector() {
    let mut rng = StdRng::seed_from_u64(17);
    for len in 1..=17usize {
        let a: Vec<Qd> = (0..len)
            .map(|_| {
                let x = rng.gen_range(-3.0..3.0) * 10f64.powi(rng.gen_range(-12..3));
                Qd::from_f64(x) / Qd::from_f64(3.0)
            })
            .collect();
        let b: Vec<Qd> = (0..len).map(|k| a[k].abs() + Qd::from_f64(0.5)).collect();
        for isa in Isa::available() {
            let mut d = vec![Qd::default(); len];
            let unary: [(&str, UnaryColumns, fn(Qd) -> Qd, &[Qd]); 4] = [
                ("exp", <Qd as Columns>::exp_cols, |x| x.exp(), &a),
                ("ln", <Qd as Columns>::ln_cols, |x| x.ln(), &b),
                ("sin", <Qd as Columns>::sin_cols, |x| x.sin(), &a),
                ("cos", <Qd as Columns>::cos_cols, |x| x.cos(), &a),
            ];
            for (name, lanes, scalar, x) in unary {
                lanes(isa, &mut d, x);
                for (k, v) in d.iter().enumerate() {
                    assert_eq!(
                        v.0,
                        scalar(x[k]).0,
                        "{name} {isa:?} length {len} element {k}"
                    );
                }
            }
            <Qd as Columns>::powf_cols(isa, &mut d, Operand::Column(&b), Operand::Column(&a));
            for (k, v) in d.iter().enumerate() {
                assert_eq!(
                    v.0,
                    b[k].powf(a[k]).0,
                    "powf {isa:?} length {len} element {k}"
                );
            }
            <Qd as Columns>::mul_cols(isa, &mut d, Operand::Column(&a), Operand::Constant(b[0]));
            for (k, v) in d.iter().enumerate() {
                assert_eq!(v.0, (a[k] * b[0]).0, "mul {isa:?} length {len} element {k}");
            }
        }
    }
}
