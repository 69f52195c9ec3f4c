//! What the methods integrate: anything that evaluates a batch of points in any [`Real`]; the
//! two kinds there are, an expression ([`Expr`], which the GPU can compile through its tape)
//! and a Rust function ([`RealFn`], CPU only).

use precision::Real;

use crate::expr::{Expr, Tape};

/// A function of `dims()` variables that can be evaluated in f64, dd or qd.
///
/// Backends never ask for single points: they hand over a batch as one column per dimension
/// (`points[d][i]` is coordinate `d` of point `i`) so that an evaluator can work op by op over
/// the whole batch. Non-finite values are not an error here; the backend that asked checks
/// them and reports the point.
pub trait Integrand: Sync {
    /// The number of variables.
    fn dims(&self) -> usize;

    /// Writes `f(points[..][i])` to `out[i]` for every `i < out.len()`; each column of
    /// `points` has `out.len()` entries.
    fn eval_batch<T: Real>(&self, points: &[&[T]], out: &mut [T]);

    /// The integrand as a tape, for backends that compile it (the GPU); `None` for Rust code,
    /// which runs on the CPU only.
    fn tape(&self) -> Option<&Tape> {
        None
    }
}

/// A Rust function of one variable, generic over the precision, for CPU-only use.
///
/// Rust closures cannot be generic, so a function that should run in every precision is a type
/// implementing this trait:
///
/// ```
/// use hpquad::integrand::{Integrand, RealFn};
/// use hpquad::precision::Real;
///
/// struct Gaussian;
/// impl RealFn for Gaussian {
///     fn eval<T: Real>(&self, x: T) -> T {
///         (-(x * x)).exp()
///     }
/// }
/// let mut out = [0.0f64; 2];
/// Gaussian.eval_batch(&[&[0.0, 1.0]], &mut out);
/// assert_eq!(out[0], 1.0);
/// ```
pub trait RealFn: Sync {
    fn eval<T: Real>(&self, x: T) -> T;
}

impl<F: RealFn> Integrand for F {
    fn dims(&self) -> usize {
        1
    }

    fn eval_batch<T: Real>(&self, points: &[&[T]], out: &mut [T]) {
        for (y, &x) in out.iter_mut().zip(points[0]) {
            *y = self.eval(x);
        }
    }
}

impl Integrand for Expr {
    /// The variables: the coordinates, then the parameters.
    fn dims(&self) -> usize {
        self.variables()
    }

    fn eval_batch<T: Real>(&self, points: &[&[T]], out: &mut [T]) {
        self.eval_points(points, out);
    }

    fn tape(&self) -> Option<&Tape> {
        Some(Expr::tape(self))
    }
}
