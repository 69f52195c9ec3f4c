//! The constants of `Dd` and `Qd` against MPFR: each must be the correctly rounded component
//! sequence of the true value (every component the nearest double to what the ones before it
//! leave), and the limits (`EPSILON`, `MIN_POSITIVE`, `MAX`) must be what their docs say.

mod common;

use common::{Exact, PREC};
use precision::{Dd, Qd};
use rug::float::Constant;
use rug::Float;
use std::ops::{Add, Sub};

/// The true values at 480 bits, by name.
fn reference(name: &str) -> Float {
    let pi = Float::with_val(PREC, Constant::Pi);
    match name {
        "PI" => pi,
        "TAU" => pi * 2,
        "FRAC_PI_2" => pi / 2,
        "FRAC_PI_4" => pi / 4,
        "E" => Float::with_val(PREC, 1).exp(),
        "LN_2" => Float::with_val(PREC, Constant::Log2),
        "LN_10" => Float::with_val(PREC, 10).ln(),
        _ => unreachable!("no reference for {name}"),
    }
}

/// Asserts that `got` is the component-by-component rounding of `want`.
fn assert_correctly_rounded<T: Exact + PartialEq>(name: &str, got: T, want: &Float) {
    let expected = T::from_mpfr(want);
    assert_eq!(got, expected, "{}::{name}: want {expected:?}", T::NAME);
}

/// The constants of `Dd` or `Qd` with the names `reference` knows them by.
macro_rules! constants {
    ($t:ident) => {
        [
            ("PI", $t::PI),
            ("TAU", $t::TAU),
            ("FRAC_PI_2", $t::FRAC_PI_2),
            ("FRAC_PI_4", $t::FRAC_PI_4),
            ("E", $t::E),
            ("LN_2", $t::LN_2),
            ("LN_10", $t::LN_10),
        ]
    };
}

#[test]
fn dd_constants_are_correctly_rounded() {
    for (name, c) in constants!(Dd) {
        assert_correctly_rounded(name, c, &reference(name));
    }
}

#[test]
fn qd_constants_are_correctly_rounded() {
    for (name, c) in constants!(Qd) {
        assert_correctly_rounded(name, c, &reference(name));
    }
}

/// 2^k exactly, at 480 bits.
fn pow2(k: i32) -> Float {
    Float::with_val(PREC, 1) << k
}

#[test]
fn dd_limits() {
    assert_eq!(Dd::EPSILON.to_mpfr(), pow2(-104));
    assert_eq!(Dd::EPSILON.lo, 0.0);
    // The documented threshold of full precision.
    assert_eq!(Dd::MIN_POSITIVE.to_mpfr(), pow2(-969));
    assert_eq!(Dd::MIN_POSITIVE.lo, 0.0);

    let max = Dd::MAX;
    assert!(max.hi.is_finite() && max.lo.is_finite());
    // Normalised: the components are what rounding the value component by component gives.
    assert_eq!(Dd::from_mpfr(&max.to_mpfr()), max);
    assert_eq!(max.hi + max.lo, max.hi);
    // Largest: the next trailing component would round the sum to infinity.
    assert_eq!(max.hi, f64::MAX);
    assert!((max.hi + max.lo.next_up()).is_infinite());
    // And one relative epsilon more overflows.
    assert_eq!((max * (Dd::ONE + Dd::EPSILON)).hi, f64::INFINITY);
    assert_eq!((max + max.lo).hi, f64::INFINITY);
}

#[test]
fn qd_limits() {
    assert_eq!(Qd::EPSILON.to_mpfr(), pow2(-209));
    assert_eq!(Qd::EPSILON.0[1..], [0.0; 3]);
    assert_eq!(Qd::MIN_POSITIVE.to_mpfr(), pow2(-863));
    assert_eq!(Qd::MIN_POSITIVE.0[1..], [0.0; 3]);

    let max = Qd::MAX;
    assert!(max.0.iter().all(|c| c.is_finite()));
    assert_eq!(Qd::from_mpfr(&max.to_mpfr()), max);
    assert_eq!(max.0[0], f64::MAX);
    // Canonical: each component at most half an ulp of the one before, and strictly less
    // where the one before has an odd significand (a tie would round away from it).
    for k in 0..3 {
        let (upper, lower) = (max.0[k], max.0[k + 1]);
        // (None of them is a power of two, so the spacing below is the ulp.)
        let half_ulp = (upper - upper.next_down()) / 2.0;
        let odd = upper.to_bits() & 1 == 1;
        assert!(
            lower.abs() < half_ulp || (lower.abs() == half_ulp && !odd),
            "component {} ({lower:e}) overlaps component {k} ({upper:e})",
            k + 1
        );
    }
    // Each component is as large as it can be while still rounding into the one before it.
    for k in 0..3 {
        assert_eq!(max.0[k] + max.0[k + 1], max.0[k], "component {}", k + 1);
        let bigger = max.0[k + 1].next_up();
        assert!(
            max.0[k] + bigger != max.0[k],
            "component {} is not the largest",
            k + 1
        );
    }
    assert_eq!((max * (Qd::ONE + Qd::EPSILON)).0[0], f64::INFINITY);
    // Adding the last component again goes past MAX: +inf.
    assert_eq!(bits(max + max.0[3]), bits(Qd::INFINITY));
    // Renormalising changes nothing: the operations that end in a renormalisation give MAX back
    // bit for bit when they add nothing.
    for (what, got) in [
        ("MAX + 0", max + 0.0),
        ("MAX + ZERO", max + Qd::ZERO),
        ("ZERO + MAX", Qd::ZERO + max),
        ("MAX - 0", max - 0.0),
        ("MAX * 1", max * 1.0),
        ("MAX * ONE", max * Qd::ONE),
        ("MAX / 1", max / 1.0),
        ("MAX / ONE", max / Qd::ONE),
        ("MAX + 1", max + 1.0),
    ] {
        assert_eq!(bits(got), bits(max), "{what} = {got:?}");
    }
}

/// The components' bits, so that -0 differs from +0.
fn bits<const N: usize>(x: impl Into<Limbs<N>>) -> [u64; N] {
    x.into().0.map(f64::to_bits)
}

struct Limbs<const N: usize>([f64; N]);

impl From<Dd> for Limbs<2> {
    fn from(x: Dd) -> Limbs<2> {
        Limbs([x.hi, x.lo])
    }
}

impl From<Qd> for Limbs<4> {
    fn from(x: Qd) -> Limbs<4> {
        Limbs(x.0)
    }
}

/// `MAX + d` for a double `d >= 0` as the docs say, as `f64::MAX + d` is for f64: `MAX` below
/// half an ulp of the last component (2^916 for dd, 2^808 for qd), +inf from there on; the same
/// for `-MAX - d`; whether `d` comes as a double or as a `Dd`/`Qd`, on either side, or as the
/// subtraction of `-d`.
#[test]
fn max_plus_a_double_stays_max_or_overflows() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let half_ulp_dd = 2f64.powi(916);
    let half_ulp_qd = 2f64.powi(808);
    // f64's own rule, for comparison: half an ulp of f64::MAX is 2^970.
    assert_eq!(f64::MAX + 2f64.powi(970).next_down(), f64::MAX);
    assert_eq!(f64::MAX + 2f64.powi(970), f64::INFINITY);
    let mut deltas = vec![0.0, 1.0, 1e200];
    for h in [half_ulp_dd, half_ulp_qd] {
        deltas.extend([h.next_down(), h, h.next_up(), h * 0.75, h * 1.5, h * 1e10]);
        for _ in 0..200 {
            deltas.push(h * 2f64.powf(rng.gen_range(-30.0..30.0)));
        }
    }
    deltas.extend([2f64.powi(970), f64::MAX]);
    for &d in &deltas {
        for sign in [1.0, -1.0] {
            let (m, d) = (sign * 1.0, sign * d);
            max_plus("dd", Dd::MAX * m, Dd::INFINITY * m, half_ulp_dd, d);
            max_plus("qd", Qd::MAX * m, Qd::INFINITY * m, half_ulp_qd, d);
        }
    }
}

/// `max + d` spelt every way (a double or a `T` on either side, or subtracted negated): `max`
/// itself for `|d|` below `half_ulp`, `infinity` from there on.
fn max_plus<T, const N: usize>(name: &str, max: T, infinity: T, half_ulp: f64, d: f64)
where
    T: Copy + std::fmt::Debug + From<f64> + Into<Limbs<N>>,
    T: Add<f64, Output = T> + Sub<f64, Output = T> + Add<Output = T> + Sub<Output = T>,
    f64: Add<T, Output = T>,
{
    let want = if d.abs() < half_ulp { max } else { infinity };
    for (what, got) in [
        ("MAX + f64", max + d),
        ("f64 + MAX", d + max),
        ("MAX - -f64", max - (-d)),
        ("MAX + T", max + T::from(d)),
        ("T + MAX", T::from(d) + max),
        ("MAX - -T", max - T::from(-d)),
    ] {
        assert_eq!(bits(got), bits(want), "{name} {what}, d = {d:e}: {got:?}");
    }
}

#[test]
fn constants_agree_with_f64() {
    assert_eq!(Dd::PI.hi, std::f64::consts::PI);
    assert_eq!(Dd::E.hi, std::f64::consts::E);
    assert_eq!(Dd::LN_2.hi, std::f64::consts::LN_2);
    assert_eq!(Dd::LN_10.hi, std::f64::consts::LN_10);
    assert_eq!(Qd::TAU.0[0], std::f64::consts::TAU);
    // The Qd constants extend the Dd ones where the Dd ones are the correct rounding.
    assert_eq!(Qd::PI.to_dd(), Dd::PI);
    assert_eq!(Qd::LN_2.to_dd(), Dd::LN_2);
}
