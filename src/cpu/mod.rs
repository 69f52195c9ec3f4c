//! The CPU backend: integrand batches over fixed-size chunks, rayon for the parallelism, and a
//! fixed pairwise reduction so that the sum has the same bits for any number of threads.

mod lanes;
mod reduce;

use std::sync::{Arc, Mutex};

use precision::Real;
use rayon::prelude::*;

use crate::backend::{
    point_count, region_sums, require_1d, rule_regions, Backend, RuleGenerators, RuleSums,
    UniformGrid,
};
use crate::error::{Error, Result};
use crate::expr::zeros;
use crate::integrand::Integrand;
use crate::methods::gauss_product::{product_regions, ProductRule, ProductSums};
use crate::methods::pbcaq::region::{Region, RegionSums};

/// Runs uniform sums on a rayon thread pool of its own, built once per value.
///
/// ```
/// use hpquad::backend::{Backend, UniformGrid};
/// use hpquad::cpu::CpuBackend;
/// use hpquad::integrand::RealFn;
/// use hpquad::precision::Real;
///
/// struct Square;
/// impl RealFn for Square {
///     fn eval<T: Real>(&self, x: T) -> T { x * x }
/// }
/// let cpu = CpuBackend::new(2)?;
/// // 0^2 + 1^2 + ... + 9^2
/// let grid = UniformGrid { a: 0.0, h: 1.0, first: 0, stride: 1, count: 10 };
/// assert_eq!(cpu.uniform_sum(&Square, &grid)?, 285.0);
/// # Ok::<(), hpquad::Error>(())
/// ```
pub struct CpuBackend {
    pool: Arc<rayon::ThreadPool>,
    /// `cpu (n threads)`, for the per-stage records.
    name: Arc<str>,
}

/// A started pool: the number of threads asked for, the pool, its name.
type Pool = (usize, Arc<rayon::ThreadPool>, Arc<str>);

/// The thread pools started so far, by the number of threads asked for: a pool is started once
/// per process, not per computation (starting one costs 0.1 ms on 2 cores and 0.5 ms on 16,
/// more than a whole Gauss–Legendre integral in f64).
static POOLS: Mutex<Vec<Pool>> = Mutex::new(Vec::new());

impl CpuBackend {
    /// A backend with `threads` worker threads; 0 means one per available core. Backends with
    /// the same number share one pool, started by the first.
    pub fn new(threads: usize) -> Result<CpuBackend> {
        let mut pools = POOLS.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, pool, name)) = pools.iter().find(|(n, _, _)| *n == threads) {
            return Ok(CpuBackend {
                pool: pool.clone(),
                name: name.clone(),
            });
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("hpquad-cpu-{i}"))
            .build()
            .map_err(|e| Error::ThreadPool {
                threads,
                reason: e.to_string(),
            })?;
        let n = pool.current_num_threads();
        let name: Arc<str> = format!("cpu ({n} thread{})", if n == 1 { "" } else { "s" }).into();
        let pool = Arc::new(pool);
        pools.push((threads, pool.clone(), name.clone()));
        Ok(CpuBackend { pool, name })
    }

    /// The number of worker threads.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }
}

impl Backend for CpuBackend {
    fn device(&self) -> Arc<str> {
        self.name.clone()
    }

    fn uniform_sums<T: Real, F: Integrand>(
        &self,
        f: &F,
        grids: &[UniformGrid<T>],
    ) -> Result<Vec<T>> {
        require_1d(f)?;
        for grid in grids {
            grid.validate()?;
        }
        self.pool.install(|| reduce::grid_sums(f, grids))
    }

    fn evaluate<T: Real, F: Integrand>(&self, f: &F, points: &[T]) -> Result<Vec<T>> {
        let dims = f.dims();
        let n = point_count(dims, points.len())?;
        let mut values = zeros(n);
        let chunk = reduce::CHUNK as usize;
        let run = |(xs, ys): (&[T], &mut [T])| {
            if dims == 1 {
                f.eval_batch(&[xs], ys);
            } else {
                let columns = columns_of(xs, dims);
                let columns: Vec<&[T]> = columns.iter().map(Vec::as_slice).collect();
                f.eval_batch(&columns, ys);
            }
        };
        // A batch of one chunk (a Gauss rule, a tanh-sinh level in f64) runs on the caller's
        // thread: handing it to the pool would cost more than evaluating it.
        if n <= chunk || self.threads() == 1 {
            points
                .chunks(chunk * dims)
                .zip(values.chunks_mut(chunk))
                .for_each(run);
        } else {
            self.pool.install(|| {
                points
                    .par_chunks(chunk * dims)
                    .zip(values.par_chunks_mut(chunk))
                    .for_each(run);
            });
        }
        Ok(values)
    }
    /// The region's chunks of intervals (abscissae, values, pieces) and then its groups'
    /// sums spread over the pool's threads; the groups combined in order: the same bits as on
    /// one thread. A region of one chunk stays on the calling thread.
    fn region_step<T: Real, F: Integrand>(
        &self,
        f: &F,
        region: &Region<'_, T>,
    ) -> Result<RegionSums<T>> {
        require_1d(f)?;
        if self.threads() == 1 || region.points() <= reduce::CHUNK as usize {
            return region.step_serial(f);
        }
        self.pool.install(|| region.step_parallel(f))
    }

    /// On a thread of the pool (see [`Backend::within`]); on the calling thread for one.
    fn within<R: Send>(&self, job: impl FnOnce() -> R + Send) -> R {
        if self.threads() == 1 {
            job()
        } else {
            self.pool.install(job)
        }
    }

    /// The regions spread over the pool's threads, one region a task: each region's points
    /// are evaluated and summed on one thread in the order of its points, so the sums have the
    /// same bits for any thread count.
    fn genz_malik_sums<T: Real, F: Integrand>(
        &self,
        f: &F,
        centers: &[T],
        halfwidths: &[T],
        generators: &RuleGenerators<T>,
    ) -> Result<RuleSums<T>> {
        let dims = rule_regions(f, centers, halfwidths)?;
        let regions = centers
            .chunks_exact(dims)
            .zip(halfwidths.chunks_exact(dims));
        if centers.len() == dims || self.threads() == 1 {
            return Ok(RuleSums::collect(
                regions.map(|(c, h)| region_sums(f, c, h, generators)),
            ));
        }
        let each: Vec<_> = self.pool.install(|| {
            centers
                .par_chunks_exact(dims)
                .zip(halfwidths.par_chunks_exact(dims))
                .map(|(c, h)| region_sums(f, c, h, generators))
                .collect()
        });
        Ok(RuleSums::collect(each))
    }

    /// Every block of every region spread over the pool, then each region's blocks added in
    /// order: the bits of the calling thread's sums ([`Backend::product_sums`]' default).
    fn product_sums<T: Real, F: Integrand>(
        &self,
        f: &F,
        rule: &ProductRule<T>,
        lower: &[T],
        upper: &[T],
    ) -> Result<Vec<ProductSums<T>>> {
        let dims = product_regions(f, rule, lower, upper)?;
        let points: Vec<Vec<T>> = lower
            .chunks_exact(dims)
            .zip(upper.chunks_exact(dims))
            .map(|(l, u)| rule.axis_points(l, u))
            .collect();
        let blocks = rule.blocks();
        let jobs: Vec<(usize, u64)> = (0..points.len())
            .flat_map(|r| (0..blocks).map(move |b| (r, b)))
            .collect();
        let parts: Vec<ProductSums<T>> = if self.threads() == 1 || jobs.len() == 1 {
            jobs.iter()
                .map(|&(r, b)| rule.block_sums(f, &points[r], b))
                .collect()
        } else {
            self.pool.install(|| {
                jobs.par_iter()
                    .map(|&(r, b)| rule.block_sums(f, &points[r], b))
                    .collect()
            })
        };
        Ok(parts
            .chunks_exact(blocks as usize)
            .map(|region| {
                let mut sums = ProductSums::zero(dims);
                for part in region {
                    sums.add(part);
                }
                sums
            })
            .collect())
    }
}

/// Point-major coordinates as one column per dimension, the layout of
/// [`Integrand::eval_batch`].
fn columns_of<T: Real>(points: &[T], dims: usize) -> Vec<Vec<T>> {
    (0..dims)
        .map(|d| points.iter().skip(d).step_by(dims).copied().collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Expr;

    /// Points of three coordinates, more than one chunk, on two threads: each value is the
    /// integrand's at its own point (dyadic coordinates, so `x*y + z` is exact in f64).
    #[test]
    fn evaluate_reads_points_of_several_coordinates() -> Result<()> {
        let f = Expr::parse("x*y + z", 3).map_err(|e| Error::InvalidOption {
            option: "integrand",
            reason: e.to_string(),
        })?;
        let n = 3 * reduce::CHUNK as usize + 7;
        let point = |i: usize| [i as f64 / 8.0, (i % 5) as f64, -(i as f64) / 4.0];
        let points: Vec<f64> = (0..n).flat_map(point).collect();
        let values = CpuBackend::new(2)?.evaluate(&f, &points)?;
        assert_eq!(values.len(), n);
        for (i, v) in values.iter().enumerate() {
            let [x, y, z] = point(i);
            assert_eq!(*v, x * y + z, "point {i}");
        }
        let ragged = CpuBackend::new(1)?.evaluate(&f, &points[..4]);
        assert!(matches!(ragged, Err(Error::InvalidOption { .. })));
        Ok(())
    }
}
