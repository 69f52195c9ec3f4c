//! The CPU backend: integrand batches over fixed-size chunks, rayon for the parallelism, and a
//! fixed pairwise reduction so that the sum has the same bits for any number of threads.

mod reduce;

use std::sync::{Arc, Mutex};

use precision::Real;
use rayon::prelude::*;

use crate::backend::{require_1d, Backend, UniformGrid};
use crate::error::{Error, Result};
use crate::integrand::Integrand;

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
        require_1d(f)?;
        let mut values = vec![T::zero(); points.len()];
        let chunk = reduce::CHUNK as usize;
        // A batch of one chunk (a Gauss rule, a tanh-sinh level in f64) runs on the caller's
        // thread: handing it to the pool would cost more than evaluating it.
        if points.len() <= chunk || self.threads() == 1 {
            for (xs, ys) in points.chunks(chunk).zip(values.chunks_mut(chunk)) {
                f.eval_batch(&[xs], ys);
            }
        } else {
            self.pool.install(|| {
                points
                    .par_chunks(chunk)
                    .zip(values.par_chunks_mut(chunk))
                    .for_each(|(xs, ys)| f.eval_batch(&[xs], ys));
            });
        }
        Ok(values)
    }
}
