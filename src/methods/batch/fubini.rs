//! A 2-D integral over a rectangle by Fubini's theorem, with any of the batch's 1-D methods:
//! the outer method in x samples g(x) = ∫ f(x, y) dy, each value an inner integral in y with
//! its own steps, as the forward quadrature paper does for FAQ (Thuerck et al., Section 4,
//! (9)–(11)).
//!
//! The error is the outer method's on g plus (bx − ax) times the largest inner error: every
//! method here has positive weights summing to the width, so the inner errors reach the
//! outer sum at most that far. The integral converged when every inner integral and the
//! outer one did and, given a tolerance, the total meets it; the tolerance is shared between
//! the inner integrals and the outer one ([`tolerances`]).

use precision::Real;

use super::{Integrated, NonFiniteAt, Tolerance};

/// A 1-D method as Fubini uses it: the integrand, the interval (a < b) and the evaluations
/// left to spend.
pub type Rule1d<'m, T> =
    dyn FnMut(&mut dyn FnMut(T) -> T, T, T, u64) -> Result<Integrated<T>, NonFiniteAt<T>> + 'm;

/// ∫∫ f over [ax, bx] × [ay, by] (ax < bx, ay < by): `outer` in x over the values of `inner`
/// in y, with at most about `max_evaluations` evaluations of f (an inner integral that starts
/// with nothing left still takes its first points, and ends unconverged). `tolerance` is the
/// one the methods were given (`None` for FAQ, which has none and whose bound the caller
/// judges).
pub fn fubini<T: Real>(
    f: &mut impl FnMut(T, T) -> T,
    (ax, bx): (T, T),
    (ay, by): (T, T),
    inner: &mut Rule1d<'_, T>,
    outer: &mut Rule1d<'_, T>,
    tolerance: Option<Tolerance>,
    max_evaluations: u64,
) -> Result<Integrated<T>, NonFiniteAt<T>> {
    let mut evaluations = 0u64;
    let mut inner_error = 0.0f64;
    let mut inner_converged = true;
    // Where the last inner integral met a non-finite value: g is NaN there, which stops the
    // outer method (or, at an end, makes it sample just inside, whose success clears this),
    // and the point reported is this one.
    let mut failure: Option<NonFiniteAt<T>> = None;
    let mut g = |x: T| -> T {
        let mut row = |y: T| f(x, y);
        let left = max_evaluations.saturating_sub(evaluations);
        match inner(&mut row, ay, by, left) {
            Ok(integral) => {
                failure = None;
                evaluations += integral.evaluations;
                inner_error = inner_error.max(integral.error);
                inner_converged &= integral.converged;
                integral.value
            }
            Err(at) => {
                failure = Some(NonFiniteAt {
                    x,
                    y: Some(at.x),
                    value: at.value,
                });
                T::from_f64(f64::NAN)
            }
        }
    };
    let outer = outer(&mut g, ax, bx, max_evaluations);
    if let Some(at) = failure {
        return Err(at);
    }
    let outer = outer?;
    let error = outer.error + (bx - ax).abs().to_f64() * inner_error;
    Ok(Integrated {
        value: outer.value,
        error,
        evaluations,
        converged: outer.converged
            && inner_converged
            && tolerance.is_none_or(|t| t.is_met(error, outer.value.to_f64())),
    })
}

/// The tolerances of a rectangle of width `width` for (its inner integrals, its outer one):
/// half the relative tolerance each, and half the absolute one each, the inner half spread
/// over the width (their errors add up to the width times the largest).
pub fn tolerances(tolerance: Tolerance, width: f64) -> (Tolerance, Tolerance) {
    let inner = Tolerance {
        relative: tolerance.relative / 2.0,
        absolute: if width > 0.0 {
            tolerance.absolute / (2.0 * width)
        } else {
            tolerance.absolute
        },
    };
    let outer = Tolerance {
        relative: tolerance.relative / 2.0,
        absolute: tolerance.absolute / 2.0,
    };
    (inner, outer)
}
