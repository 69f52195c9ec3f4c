//! Adaptive Gauss–Kronrod for one integral of a batch: QUADPACK's QAG (Piessens et al.,
//! "QUADPACK", Springer 1983, §3.3), with the rule and the error heuristic of
//! [`crate::methods::gauss_kronrod`] (G10K21 in f64, G20K41 in dd, G30K61 in qd; the
//! Kronrod–Gauss difference scaled by (200 d / resasc)^1.5, never below the rounding floor),
//! written as a plain loop over a fixed array of pieces so that one integral maps to one GPU
//! thread:
//!
//! ```text
//! pieces ← {[a, b]} with its Kronrod value and error
//! while Σ error > max(absolute, relative · |Σ value|):
//!     worst ← the piece of largest error that can still be halved (ties: the first)
//!     stop if there is none, the array is full, or the evaluation cap would be passed
//!     replace worst by its two halves, each with a fresh rule
//! ```
//!
//! A piece is final when its error is its rounding floor or it is too narrow to halve. The
//! array holds [`MAX_PIECES`] pieces; an integral that needs more ends not converged, with
//! the error of the pieces it has.

use precision::Real;

use super::{Integrated, NonFiniteAt, Tolerance};
use crate::methods::adaptive::splittable;
use crate::methods::gauss_kronrod::quadpack_estimate;
use crate::rules::KronrodRule;

/// The most pieces one integral is split into.
pub const MAX_PIECES: usize = 64;

/// One piece and its Kronrod estimate.
#[derive(Clone, Copy)]
struct Piece<T> {
    a: T,
    b: T,
    value: T,
    error: f64,
    /// Whether halving it can still help (its error is above rounding, it is wide enough).
    open: bool,
}

/// Scratch space for one task: the abscissae and values of one piece.
pub struct Scratch<T> {
    points: Vec<T>,
    values: Vec<T>,
}

impl<T: Real> Scratch<T> {
    /// Space for a rule of `points` points.
    pub fn new(points: usize) -> Scratch<T> {
        Scratch {
            points: Vec::with_capacity(points),
            values: Vec::with_capacity(points),
        }
    }
}

/// QAG of `f` over [a, b] (a < b) with `rule` to `tolerance`, with at most `max_evaluations`.
pub fn gauss_kronrod<T: Real>(
    f: &mut impl FnMut(T) -> T,
    a: T,
    b: T,
    rule: &KronrodRule<T>,
    tolerance: Tolerance,
    max_evaluations: u64,
    scratch: &mut Scratch<T>,
) -> Result<Integrated<T>, NonFiniteAt<T>> {
    let per_piece = rule.points() as u64;
    let mut evaluations = 0u64;
    let mut piece = |a: T, b: T, evaluations: &mut u64| -> Result<Piece<T>, NonFiniteAt<T>> {
        scratch.points.clear();
        scratch.values.clear();
        rule.abscissae((a + b).ldexp(-1), (b - a).ldexp(-1), &mut scratch.points);
        for &x in &scratch.points {
            let y = f(x);
            if !y.is_finite() {
                return Err(NonFiniteAt::at(x, y));
            }
            scratch.values.push(y);
        }
        *evaluations += per_piece;
        let (value, error, floor) = quadpack_estimate(rule, a, b, &scratch.values);
        let error = error.max(floor);
        Ok(Piece {
            a,
            b,
            value,
            error,
            open: error > floor && splittable(a, b),
        })
    };

    let first = piece(a, b, &mut evaluations)?;
    let mut pieces = [first; MAX_PIECES];
    let mut count = 1;
    let mut converged = false;
    loop {
        let (value, error) = totals(&pieces[..count]);
        if tolerance.is_met(error, value.to_f64()) {
            converged = true;
            break;
        }
        if count == MAX_PIECES || evaluations + 2 * per_piece > max_evaluations {
            break;
        }
        let mut worst: Option<usize> = None;
        for (k, p) in pieces[..count].iter().enumerate() {
            if p.open && worst.map_or(true, |w| p.error > pieces[w].error) {
                worst = Some(k);
            }
        }
        let Some(w) = worst else { break };
        let Piece { a, b, .. } = pieces[w];
        let mid = (a + b).ldexp(-1);
        pieces[w] = piece(a, mid, &mut evaluations)?;
        pieces[count] = piece(mid, b, &mut evaluations)?;
        count += 1;
    }
    let (value, error) = totals(&pieces[..count]);
    Ok(Integrated {
        value,
        error,
        evaluations,
        converged: converged && tolerance.is_met(error, value.to_f64()),
    })
}

/// Σ value (in the accumulator) and Σ error, in the pieces' order.
fn totals<T: Real>(pieces: &[Piece<T>]) -> (T, f64) {
    let mut value = T::zero().to_accumulator();
    let mut error = 0.0;
    for p in pieces {
        value = value + p.value.to_accumulator();
        error += p.error;
    }
    (T::from_accumulator(value), error)
}
