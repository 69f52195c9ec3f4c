//! Element-by-element arithmetic on columns of any [`Real`], for the methods' own bookkeeping
//! (a rule's points, its products with the values): `Dd` and `Qd` in SIMD lanes
//! ([`precision::lanes`]), every element the bits of the scalar operation; other types, and the
//! lanes switched off (`HPQUAD_NO_LANES`), one element at a time.
//!
//! ```text
//! mul(dst, a, b):  dst[i] = a[i] * b[i]   (an operand may be one value for every element)
//! ```
//!
//! The integrand's own operations go through the tape's lanes (`expr::eval`); this is for the
//! few operations around them, which in qd cost as much as the integrand on short rules (the
//! Legendre coefficients of a 24-point rule's values: four products a point).

use std::any::TypeId;

use precision::lanes::{Columns, Isa, Operand};
use precision::{Dd, Qd, Real};

use crate::expr::lanes_enabled;

/// The operations a column can take.
#[derive(Clone, Copy, Debug)]
enum Op {
    Add,
    Sub,
    Mul,
}

/// `dst[i] = a[i] + b[i]` for every `i < dst.len()`.
///
/// # Panics
/// When an operand column is shorter than `dst`.
pub(crate) fn add<T: Real>(dst: &mut [T], a: Operand<'_, T>, b: Operand<'_, T>) {
    apply(Op::Add, dst, a, b);
}

/// `dst[i] = a[i] - b[i]` for every `i < dst.len()`.
///
/// # Panics
/// When an operand column is shorter than `dst`.
pub(crate) fn sub<T: Real>(dst: &mut [T], a: Operand<'_, T>, b: Operand<'_, T>) {
    apply(Op::Sub, dst, a, b);
}

/// `dst[i] = a[i] * b[i]` for every `i < dst.len()`.
///
/// # Panics
/// When an operand column is shorter than `dst`.
pub(crate) fn mul<T: Real>(dst: &mut [T], a: Operand<'_, T>, b: Operand<'_, T>) {
    apply(Op::Mul, dst, a, b);
}

fn apply<T: Real>(op: Op, dst: &mut [T], a: Operand<'_, T>, b: Operand<'_, T>) {
    let n = dst.len();
    for operand in [a, b] {
        if let Operand::Column(c) = operand {
            assert!(c.len() >= n, "an operand column of {} for {n}", c.len());
        }
    }
    if lanes_enabled() && n > 0 {
        if TypeId::of::<T>() == TypeId::of::<Dd>() {
            // SAFETY: T is Dd.
            unsafe { in_lanes::<Dd>(op, cast(dst), cast_operand(a), cast_operand(b)) };
            return;
        }
        if TypeId::of::<T>() == TypeId::of::<Qd>() {
            // SAFETY: T is Qd.
            unsafe { in_lanes::<Qd>(op, cast(dst), cast_operand(a), cast_operand(b)) };
            return;
        }
    }
    let at = |operand: Operand<'_, T>, i: usize| match operand {
        Operand::Column(c) => c[i],
        Operand::Constant(v) => v,
    };
    for (i, d) in dst.iter_mut().enumerate() {
        let (x, y) = (at(a, i), at(b, i));
        *d = match op {
            Op::Add => x + y,
            Op::Sub => x - y,
            Op::Mul => x * y,
        };
    }
}

fn in_lanes<X: Columns>(op: Op, dst: &mut [X], a: Operand<'_, X>, b: Operand<'_, X>) {
    let isa = Isa::best();
    match op {
        Op::Add => X::add_cols(isa, dst, a, b),
        Op::Sub => X::sub_cols(isa, dst, a, b),
        Op::Mul => X::mul_cols(isa, dst, a, b),
    }
}

/// # Safety
/// `T` and `U` must be the same type.
unsafe fn cast<T, U>(s: &mut [T]) -> &mut [U] {
    std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<U>(), s.len())
}

/// # Safety
/// `T` and `U` must be the same type.
unsafe fn cast_operand<T: Copy, U: Copy>(o: Operand<'_, T>) -> Operand<'_, U> {
    match o {
        Operand::Column(c) => {
            Operand::Column(std::slice::from_raw_parts(c.as_ptr().cast::<U>(), c.len()))
        }
        Operand::Constant(v) => Operand::Constant(std::ptr::from_ref(&v).cast::<U>().read()),
    }
}

/// The limbs of each value as bits: what the tests compare, so that equal values of other
/// bits (signed zeros, non-canonical limbs) count as different.
#[cfg(test)]
pub(crate) fn limbs<X: Real>(v: &[X]) -> Vec<[u64; 4]> {
    v.iter().map(|x| x.limbs().map(f64::to_bits)).collect()
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use super::*;

    /// Values with every limb in use, of either sign, 2^-60..2^60, with zeros and exact
    /// negatives of their neighbours among them.
    fn random_values<X: Real>(rng: &mut StdRng, n: usize) -> Vec<X> {
        let mut v: Vec<X> = Vec::with_capacity(n);
        for _ in 0..n {
            let x = match (v.last(), rng.gen_range(0..8)) {
                (Some(&p), 0) => -p,
                (_, 1) => X::zero(),
                _ => {
                    let q = X::from_f64(rng.gen_range(0.5..1.0)) / X::from_f64(3.0);
                    let q = q.ldexp(rng.gen_range(-60..=60));
                    if rng.gen() {
                        -q
                    } else {
                        q
                    }
                }
            };
            v.push(x);
        }
        v
    }

    /// Every operation, column or constant operands, lengths 0 to 40 (the lanes' partial last
    /// vectors included): the scalar operation's bits.
    fn scalar_bits<X: Real>() {
        let mut rng = StdRng::seed_from_u64(17);
        for n in 0..=40 {
            let a = random_values::<X>(&mut rng, n + 3);
            let b = random_values::<X>(&mut rng, n);
            let c = random_values::<X>(&mut rng, 1)[0];
            for (name, f, scalar) in [
                (
                    "add",
                    add::<X> as fn(&mut [X], _, _),
                    (|x, y| x + y) as fn(X, X) -> X,
                ),
                ("sub", sub::<X>, |x, y| x - y),
                ("mul", mul::<X>, |x, y| x * y),
            ] {
                let mut got = vec![X::zero(); n];
                f(&mut got, Operand::Column(&a), Operand::Column(&b));
                let want: Vec<X> = (0..n).map(|i| scalar(a[i], b[i])).collect();
                assert_eq!(limbs(&got), limbs(&want), "{} {name} n={n}", X::NAME);
                f(&mut got, Operand::Constant(c), Operand::Column(&b));
                let want: Vec<X> = (0..n).map(|i| scalar(c, b[i])).collect();
                assert_eq!(limbs(&got), limbs(&want), "{} {name} c, n={n}", X::NAME);
                f(&mut got, Operand::Column(&a), Operand::Constant(c));
                let want: Vec<X> = (0..n).map(|i| scalar(a[i], c)).collect();
                assert_eq!(limbs(&got), limbs(&want), "{} {name} _, c n={n}", X::NAME);
            }
        }
    }

    #[test]
    fn columns_have_the_scalar_bits() {
        scalar_bits::<f64>();
        scalar_bits::<Dd>();
        scalar_bits::<Qd>();
    }

    #[test]
    #[should_panic(expected = "an operand column of 2 for 3")]
    fn a_short_operand_is_refused() {
        let mut dst = [Qd::zero(); 3];
        mul(
            &mut dst,
            Operand::Column(&[Qd::one(); 2]),
            Operand::Constant(Qd::one()),
        );
    }
}
