//! The CPU backend: integrand batches over fixed-size chunks, rayon for the parallelism, and a
//! fixed pairwise reduction so that the sum has the same bits for any number of threads.

mod reduce;

use precision::Real;

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
    pool: rayon::ThreadPool,
}

impl CpuBackend {
    /// A backend with `threads` worker threads; 0 means one per available core.
    pub fn new(threads: usize) -> Result<CpuBackend> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("hpquad-cpu-{i}"))
            .build()
            .map_err(|e| Error::ThreadPool {
                threads,
                reason: e.to_string(),
            })?;
        Ok(CpuBackend { pool })
    }

    /// The number of worker threads.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }
}

impl Backend for CpuBackend {
    fn device(&self) -> String {
        let n = self.threads();
        format!("cpu ({n} thread{})", if n == 1 { "" } else { "s" })
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
}
