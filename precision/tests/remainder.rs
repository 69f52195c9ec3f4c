//! `%` (C's `fmod`: `x - trunc(x / y) y`, the sign of `x`) on `Dd` and `Qd` against MPFR's
//! exact `fmod`, bit for bit: for every finite pair the result must be the canonical expansion
//! of the exact remainder (each component the double nearest to what the ones before it
//! leave), which is the remainder itself wherever the type can hold it. Quotients from below 1
//! to 2^2000, subnormal divisors, remainders that cancel most of `x`, and remainders too wide
//! for the type.

mod common;

use common::{random, rng, samples, Exact};
use precision::{Dd, Qd};
use rand::rngs::StdRng;
use rand::Rng;
use rug::Float;
use std::ops::Range;

/// Enough bits for any sum of doubles exactly: from 2^1024 down to 2^-1074.
const EXACT: u32 = 2200;

/// The exact sum of `x`'s components (`Exact::to_mpfr` rounds to 480 bits).
fn exact<T: Components>(x: T) -> Float {
    x.parts()
        .iter()
        .fold(Float::with_val(EXACT, 0), |s, &c| s + c)
}

/// The canonical expansion of `v` in `n` components, through doubles only (each component the
/// nearest double to what the ones before leave), independent of the crate's code.
fn canonical(v: &Float, n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n];
    let mut rest = v.clone();
    for slot in out.iter_mut() {
        let c = rest.to_f64();
        *slot = c;
        rest -= c;
        if rest.is_zero() {
            break;
        }
    }
    out
}

trait Components: Exact + std::ops::Rem<Output = Self> + std::ops::Mul<f64, Output = Self> {
    const N: usize;
    fn parts(self) -> Vec<f64>;
}

impl Components for Dd {
    const N: usize = 2;
    fn parts(self) -> Vec<f64> {
        vec![self.hi, self.lo]
    }
}

impl Components for Qd {
    const N: usize = 4;
    fn parts(self) -> Vec<f64> {
        self.0.to_vec()
    }
}

/// What a class of inputs came to: pairs checked, remainders the type holds exactly, and the
/// largest relative error of the others (the rounding of a remainder too wide for the type).
struct Tally {
    pairs: usize,
    held: usize,
    worst_rounding: f64,
}

/// Checks `x % y` for pairs from `pair` and returns the tally.
fn check<T: Components>(
    what: &str,
    seed: u64,
    mut pair: impl FnMut(&mut StdRng) -> (T, T),
) -> Tally {
    let mut rng = rng(seed);
    let mut tally = Tally {
        pairs: 0,
        held: 0,
        worst_rounding: 0.0,
    };
    for _ in 0..samples() / 10 {
        let (x, y) = pair(&mut rng);
        let r = Float::with_val(EXACT, exact(x) % exact(y));
        let mut want = canonical(&r, T::N);
        if r.is_zero() {
            // fmod's zero has the sign of x.
            want[0] = if x.parts()[0].is_sign_negative() {
                -0.0
            } else {
                0.0
            };
        }
        let got = (x % y).parts();
        let same = got
            .iter()
            .zip(&want)
            .all(|(g, w)| g.to_bits() == w.to_bits());
        assert!(
            same,
            "{} {what}: {x:?} % {y:?} = {got:?}, want {want:?} (exact about {:e})",
            T::NAME,
            r.to_f64()
        );
        let sum = want.iter().fold(Float::with_val(EXACT, 0), |s, &c| s + c);
        tally.pairs += 1;
        if sum == r {
            tally.held += 1;
        } else {
            let err = Float::with_val(EXACT, &sum - &r).abs() / r.clone().abs();
            tally.worst_rounding = tally.worst_rounding.max(err.to_f64());
        }
    }
    println!(
        "REMAINDER {} {what:<40} {} pairs, {} held exactly, others rounded to 2^{:.1}",
        T::NAME,
        tally.pairs,
        tally.held,
        tally.worst_rounding.log2()
    );
    tally
}

fn both<T: Components>(rng: &mut StdRng, ex: Range<i32>, ey: Range<i32>) -> (T, T) {
    (random(rng, ex, true), random(rng, ey, true))
}

/// `n y` rounded to the type, plus a small perturbation: `x` a multiple of `y` up to its last
/// bits, so that the remainder cancels nearly all of `x`.
fn near_multiple<T: Components>(rng: &mut StdRng, ey: Range<i32>, bits: u32) -> (T, T) {
    let y: T = random(rng, ey, true);
    let n = (rng.gen::<u64>() >> (64 - bits)) as f64;
    (y * n, y)
}

/// A power of two (or three times one) over `1 + 2^-g`, a divisor with a single trailing bit
/// far below its lead: the remainder needs every bit down to `2^-g`.
fn sparse<T: Components>(rng: &mut StdRng) -> (T, T) {
    let e = rng.gen_range(60..1000);
    let g = rng.gen_range(60..1000);
    let x = Float::with_val(EXACT, 3) << e;
    let y = (Float::with_val(EXACT, 1) >> g) + 1u32;
    (T::from_mpfr(&x), T::from_mpfr(&y))
}

/// A class of pairs: its name and how to draw one.
type Class<'a, T> = (&'static str, Box<dyn Fn(&mut StdRng) -> (T, T) + 'a>);

fn all_classes<T: Components>(seed: u64) {
    let classes: Vec<Class<'_, T>> = vec![
        (
            "quotients below 2^60",
            Box::new(|r| both(r, -30..30, -30..30)),
        ),
        (
            "quotients 2^100 to 2^300",
            Box::new(|r| both(r, 100..290, -10..10)),
        ),
        (
            "x in 2^[-1074, 1024), y too",
            Box::new(|r| both(r, -1074..1024, -1074..1024)),
        ),
        (
            "quotients to 2^2000, y subnormal",
            Box::new(|r| both(r, -1074..1024, -1074..-1022)),
        ),
        ("x huge, y near 1", Box::new(|r| both(r, 900..1024, -2..2))),
        (
            "x within a few ulps of n y, n < 2^40",
            Box::new(|r| near_multiple(r, -200..200, 40)),
        ),
        (
            "x within a few ulps of n y, n < 2^8",
            Box::new(|r| near_multiple(r, -1000..1000, 8)),
        ),
        ("3 2^e % (1 + 2^-g)", Box::new(sparse)),
    ];
    let mut held = 0;
    let mut rounded = 0;
    for (k, (what, pair)) in classes.into_iter().enumerate() {
        let t = check::<T>(what, seed + k as u64, pair);
        held += t.held;
        rounded += t.pairs - t.held;
        // A rounded remainder is within half an ulp of its last component.
        let bound = if T::N == 2 { -105.0 } else { -209.0 };
        assert!(t.worst_rounding <= f64::exp2(bound));
    }
    // Both kinds occur, so that the test covers both.
    assert!(held > 0 && rounded > 0, "{held} held, {rounded} rounded");
}

#[test]
fn dd_remainder_is_exact() {
    all_classes::<Dd>(10);
}

#[test]
fn qd_remainder_is_exact() {
    all_classes::<Qd>(30);
}
