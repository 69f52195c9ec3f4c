//! A chunk's points and its pairwise sum in SIMD lanes ([`precision::lanes`]) for `Dd` and
//! `Qd`, with exactly the bits of the scalar code in `reduce.rs`; other types, and the lanes
//! switched off (`HPQUAD_NO_LANES`), take the scalar code.
//!
//! The points are `a + from_i64(i) * h` as column operations in the scalar order. The sum of a
//! full chunk follows the scalar recursion of [`pairwise`]: [`CHUNK`] is a power of two times
//! [`PAIRWISE_LEAF`], so the recursion halves down to leaves of exactly `PAIRWISE_LEAF` values,
//! each summed in order from zero, and adds the leaves as a perfect binary tree, left + right.
//! The lanes sum every leaf at once, one value of each per column operation, and then the tree
//! one level per operation. The leaves are laid out in bit-reversed order so that the left
//! children of a level are its first half and the right ones its second: each level is
//! `first half + second half`, two contiguous columns, and leaves its sums in the bit-reversed
//! order again. A partial chunk (the last of a grid) is summed by the scalar recursion.

use std::any::Any;

use precision::lanes::{Columns, Isa, Operand};
use precision::{Dd, Qd, Real};

use super::reduce::{pairwise, CHUNK, PAIRWISE_LEAF};
use crate::backend::UniformGrid;
use crate::expr::{lanes_enabled, zeros};

/// The leaves of a full chunk.
const LEAVES: usize = CHUNK as usize / PAIRWISE_LEAF;

// The scalar recursion splits at the middle: only for powers of two are its leaves all of
// `PAIRWISE_LEAF` values and its tree perfect.
const _: () = assert!(CHUNK.is_power_of_two() && PAIRWISE_LEAF.is_power_of_two() && LEAVES >= 1);

/// Points `start..start + len` of `grid`, as [`UniformGrid::point`] computes them (zero for an
/// index beyond an `i64`, which a validated grid does not have).
pub(super) fn points<T: Real>(grid: &UniformGrid<T>, start: u64, len: usize) -> Vec<T> {
    let mut xs = zeros(len);
    let mut grid = *grid;
    // The indices grow with k: the last is the largest.
    let indices_fit = len == 0 || grid.index(start + len as u64 - 1).is_some();
    if lanes_enabled() && indices_fit {
        if let (Some(g), Some(x)) = (
            downcast::<_, UniformGrid<Dd>>(&mut grid),
            downcast::<_, Vec<Dd>>(&mut xs),
        ) {
            lane_points::<Dd>(g, start, x);
            return xs;
        }
        if let (Some(g), Some(x)) = (
            downcast::<_, UniformGrid<Qd>>(&mut grid),
            downcast::<_, Vec<Qd>>(&mut xs),
        ) {
            lane_points::<Qd>(g, start, x);
            return xs;
        }
    }
    for (k, x) in (start..).zip(xs.iter_mut()) {
        *x = grid.point(k).unwrap_or_else(T::zero);
    }
    xs
}

/// The sum of a chunk's values, as [`pairwise`] adds them.
pub(super) fn chunk_total<T: Real>(mut values: Vec<T>) -> T::Accumulator {
    if lanes_enabled() && values.len() == CHUNK as usize {
        if let Some(v) = downcast::<_, Vec<Dd>>(&mut values) {
            let mut sum = lane_total::<Dd>(v);
            if let Some(&mut s) = downcast::<Dd, T>(&mut sum) {
                return s.to_accumulator();
            }
        }
        if let Some(v) = downcast::<_, Vec<Qd>>(&mut values) {
            let mut sum = lane_total::<Qd>(v);
            if let Some(&mut s) = downcast::<Qd, T>(&mut sum) {
                return s.to_accumulator();
            }
        }
    }
    pairwise(&values)
}

/// `value` as a `U` when `T` is `U`: how the generic code reaches the lanes of `Dd` and `Qd`.
fn downcast<T: 'static, U: 'static>(value: &mut T) -> Option<&mut U> {
    (value as &mut dyn Any).downcast_mut()
}

/// [`points`] in lanes: `a + from_i64(i) * h`, each operation in the scalar order (every
/// index fits an `i64`).
fn lane_points<X: Real + Columns>(grid: &UniformGrid<X>, start: u64, xs: &mut [X]) {
    let isa = Isa::best();
    let indices: Vec<X> = (start..)
        .take(xs.len())
        .map(|k| grid.index(k).map_or_else(X::zero, X::from_i64))
        .collect();
    let mut steps = zeros(xs.len());
    X::mul_cols(
        isa,
        &mut steps,
        Operand::Column(&indices),
        Operand::Constant(grid.h),
    );
    X::add_cols(isa, xs, Operand::Constant(grid.a), Operand::Column(&steps));
}

/// [`chunk_total`] of a full chunk in lanes: the leaves, then the tree a level at a time.
fn lane_total<X: Real + Columns>(values: &[X]) -> X {
    let isa = Isa::best();
    // Column `m` holds the `m`-th value of every leaf, the leaves in bit-reversed order.
    let bits = LEAVES.trailing_zeros();
    let mut columns = zeros(CHUNK as usize);
    for (m, column) in columns.chunks_exact_mut(LEAVES).enumerate() {
        for (p, c) in column.iter_mut().enumerate() {
            *c = values[bit_reversed(p, bits) * PAIRWISE_LEAF + m];
        }
    }
    let mut sum = zeros(LEAVES);
    let mut next = zeros(LEAVES);
    // Each leaf from zero, in order, as the scalar loop.
    X::add_cols(
        isa,
        &mut sum,
        Operand::Constant(X::default()),
        Operand::Column(&columns[..LEAVES]),
    );
    for column in columns.chunks_exact(LEAVES).skip(1) {
        X::add_cols(
            isa,
            &mut next,
            Operand::Column(&sum),
            Operand::Column(column),
        );
        std::mem::swap(&mut sum, &mut next);
    }
    let mut width = LEAVES;
    while width > 1 {
        width /= 2;
        let (left, right) = sum.split_at(width);
        X::add_cols(
            isa,
            &mut next[..width],
            Operand::Column(left),
            Operand::Column(right),
        );
        std::mem::swap(&mut sum, &mut next);
    }
    sum[0]
}

/// `p` with its low `bits` bits in reverse order.
fn bit_reversed(p: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        p.reverse_bits() >> (usize::BITS - bits)
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::columns::limbs;
    use crate::cpu::reduce::grid_sums;
    use crate::integrand::RealFn;

    /// A value with every limb in use, of either sign, magnitude 2^-40..2^40.
    fn random<X: Real>(rng: &mut StdRng) -> X {
        let q = X::from_f64(rng.gen_range(0.5..1.0)) / X::from_f64(rng.gen_range(1.0..3.0));
        let q = q.ldexp(rng.gen_range(-40..=40));
        if rng.gen() {
            -q
        } else {
            q
        }
    }

    /// Random values with the cases that take other paths: exact and near cancellation between
    /// neighbours (the `Qd` lanes redo heavy cancellation with the scalar method), zeros of
    /// both signs.
    fn random_values<X: Real>(rng: &mut StdRng, n: usize) -> Vec<X> {
        let mut v: Vec<X> = Vec::with_capacity(n);
        for _ in 0..n {
            let x = match (v.last(), rng.gen_range(0..10)) {
                (Some(&p), 0) => -p,
                (Some(&p), 1) => -p + X::from_f64(f64::EPSILON).ldexp(rng.gen_range(-200..0)),
                (_, 2) => X::from_f64(if rng.gen() { 0.0 } else { -0.0 }),
                _ => random(rng),
            };
            v.push(x);
        }
        v
    }

    fn random_grid<X: Real>(rng: &mut StdRng) -> UniformGrid<X> {
        // Indices below and beyond 2^53, where `from_i64` changes its way.
        let bits = rng.gen_range(1..62);
        UniformGrid {
            a: random(rng),
            h: random::<X>(rng).abs().ldexp(-20),
            first: rng.gen_range(0..1 << bits),
            stride: rng.gen_range(1..8),
            count: rng.gen_range(0..3 * CHUNK),
        }
    }

    /// The lanes' points have the bits of [`UniformGrid::point`], for chunks that start
    /// anywhere and have any length.
    fn points_match<X: Real + Columns>(seed: u64) {
        let mut rng = StdRng::seed_from_u64(seed);
        for _ in 0..200 {
            let grid = random_grid::<X>(&mut rng);
            let start = rng.gen_range(0..=grid.count);
            let len = rng.gen_range(0..=grid.count - start) as usize;
            let mut xs = zeros(len);
            lane_points(&grid, start, &mut xs);
            let expected: Vec<X> = (start..start + len as u64)
                .map(|k| grid.point(k).expect("the index fits"))
                .collect();
            assert_eq!(
                limbs(&xs),
                limbs(&expected),
                "{} {grid:?} from {start}",
                X::NAME
            );
        }
    }

    /// The lanes' sum of a full chunk has the bits of the scalar recursion.
    fn total_matches<X: Real<Accumulator = X> + Columns>(seed: u64) {
        let mut rng = StdRng::seed_from_u64(seed);
        for _ in 0..200 {
            let v = random_values::<X>(&mut rng, CHUNK as usize);
            let lanes = lane_total(&v);
            assert_eq!(limbs(&[lanes]), limbs(&[pairwise(&v)]), "{}", X::NAME);
        }
    }

    #[test]
    fn dd_points_match_the_scalar_points() {
        points_match::<Dd>(1);
    }

    #[test]
    fn qd_points_match_the_scalar_points() {
        points_match::<Qd>(2);
    }

    #[test]
    fn dd_chunk_total_matches_the_scalar_recursion() {
        total_matches::<Dd>(3);
    }

    #[test]
    fn qd_chunk_total_matches_the_scalar_recursion() {
        total_matches::<Qd>(4);
    }

    /// Values with lots of cancellation between neighbouring points.
    struct Wiggle;
    impl RealFn for Wiggle {
        fn eval<T: Real>(&self, x: T) -> T {
            x * x - x * 1.5 + 0.25
        }
    }

    /// The reference: every point by [`UniformGrid::point`], summed by [`pairwise`] chunk by
    /// chunk, the chunks combined in the fixed tree of `reduce.rs` (halves at the middle).
    fn reference<X: Real<Accumulator = X>>(grid: &UniformGrid<X>, lo: u64, hi: u64) -> X {
        if hi - lo == 1 {
            let end = ((lo + 1) * CHUNK).min(grid.count);
            let ys: Vec<X> = (lo * CHUNK..end)
                .map(|k| Wiggle.eval(grid.point(k).expect("the index fits")))
                .collect();
            return pairwise(&ys);
        }
        let mid = lo + (hi - lo) / 2;
        reference(grid, lo, mid) + reference(grid, mid, hi)
    }

    /// Whole uniform sums, lanes and dispatch included, over grids of full and partial chunks.
    fn sums_match<X: Real<Accumulator = X> + Columns>(seed: u64) {
        let mut rng = StdRng::seed_from_u64(seed);
        let grids: Vec<UniformGrid<X>> = (0..40).map(|_| random_grid(&mut rng)).collect();
        let sums = grid_sums(&Wiggle, &grids).expect("finite values");
        for (grid, sum) in grids.iter().zip(&sums) {
            let chunks = grid.count.div_ceil(CHUNK);
            let expected = if chunks == 0 {
                X::zero()
            } else {
                reference(grid, 0, chunks)
            };
            assert_eq!(limbs(&[*sum]), limbs(&[expected]), "{} {grid:?}", X::NAME);
        }
    }

    #[test]
    fn dd_uniform_sums_match_the_scalar_reference() {
        sums_match::<Dd>(5);
    }

    #[test]
    fn qd_uniform_sums_match_the_scalar_reference() {
        sums_match::<Qd>(6);
    }

    #[test]
    fn bit_reversal_of_six_bits() {
        assert_eq!(bit_reversed(0b000001, 6), 0b100000);
        assert_eq!(bit_reversed(0b110100, 6), 0b001011);
        assert_eq!(bit_reversed(0, 0), 0);
    }
}
