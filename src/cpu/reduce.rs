//! Deterministic parallel sums over uniform grids.
//!
//! A grid is cut into chunks of [`CHUNK`] points, a size that does not depend on the number of
//! threads. Each chunk is one `eval_batch` call, summed pairwise in `T::Accumulator`; the chunk
//! sums are combined in a fixed binary tree over the chunk range (split at the middle). rayon
//! decides which thread computes which node, but never the shape of the tree, so the bits of
//! the result are the same for 1 or 64 threads.

use precision::Real;
use rayon::prelude::*;

use super::lanes;
use crate::backend::{non_finite, UniformGrid};
use crate::error::Result;
use crate::expr::zeros;
use crate::integrand::Integrand;

/// Points per chunk: large enough that an `eval_batch` call and a task amortise their cost,
/// small enough to balance a few million points over many threads.
pub(crate) const CHUNK: u64 = 512;

/// Below this many values a chunk sums them in order; above, it halves (pairwise summation).
pub(super) const PAIRWISE_LEAF: usize = 8;

/// One sum per grid, in grid order; the first error in grid order wins.
pub(crate) fn grid_sums<T: Real, F: Integrand>(f: &F, grids: &[UniformGrid<T>]) -> Result<Vec<T>> {
    let sums: Vec<Result<T>> = grids
        .par_iter()
        .map(|grid| {
            let chunks = grid.count.div_ceil(CHUNK);
            if chunks == 0 {
                return Ok(T::zero());
            }
            chunk_tree(f, grid, 0, chunks).map(T::from_accumulator)
        })
        .collect();
    sums.into_iter().collect()
}

/// The sum of chunks `lo..hi` of `grid`, combined as a fixed binary tree.
fn chunk_tree<T: Real, F: Integrand>(
    f: &F,
    grid: &UniformGrid<T>,
    lo: u64,
    hi: u64,
) -> Result<T::Accumulator> {
    if hi - lo == 1 {
        return chunk_sum(f, grid, lo);
    }
    let mid = lo + (hi - lo) / 2;
    let (left, right) = rayon::join(
        || chunk_tree(f, grid, lo, mid),
        || chunk_tree(f, grid, mid, hi),
    );
    // The left error first: the point reported is the non-finite one of smallest index.
    let left = left?;
    Ok(left + right?)
}

/// Evaluates chunk `c` of `grid` in one batch and sums it pairwise (in SIMD lanes for `Dd` and
/// `Qd`, see [`lanes`]).
fn chunk_sum<T: Real, F: Integrand>(
    f: &F,
    grid: &UniformGrid<T>,
    c: u64,
) -> Result<T::Accumulator> {
    let start = c * CHUNK;
    let end = (start + CHUNK).min(grid.count);
    let xs = lanes::points(grid, start, (end - start) as usize);
    let mut ys = zeros(xs.len());
    f.eval_batch(&[&xs], &mut ys);
    if let Some(i) = ys.iter().position(|y| !y.is_finite()) {
        return Err(non_finite(xs[i], ys[i]));
    }
    Ok(lanes::chunk_total(ys))
}

/// Pairwise (cascade) summation in the accumulator type: rounding grows as log n, not n.
pub(crate) fn pairwise<T: Real>(values: &[T]) -> T::Accumulator {
    if values.len() <= PAIRWISE_LEAF {
        let mut sum = T::Accumulator::default();
        for &v in values {
            sum = sum + v.to_accumulator();
        }
        return sum;
    }
    let (left, right) = values.split_at(values.len() / 2);
    pairwise(left) + pairwise(right)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairwise_is_exact_on_integers() {
        let v: Vec<f64> = (1..=1000).map(f64::from).collect();
        assert_eq!(f64::from_accumulator(pairwise(&v)), 500500.0);
    }

    #[test]
    fn empty_sum_is_zero() {
        assert_eq!(f64::from_accumulator(pairwise::<f64>(&[])), 0.0);
    }
}
