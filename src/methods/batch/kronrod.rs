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
use crate::rules::{half_width, KronrodRule};

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
    f: &mut (impl FnMut(T) -> T + ?Sized),
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
        rule.abscissae(a, b, &mut scratch.points);
        // kernels/batch.cu visits the same points in the same order.
        for &x in &scratch.points {
            let y = f(x);
            if !y.is_finite() {
                return Err(NonFiniteAt::at(x, y));
            }
            scratch.values.push(y);
        }
        *evaluations += per_piece;
        let (value, error, floor) = estimate(rule, a, b, &scratch.values);
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
            if p.open && worst.is_none_or(|w| p.error > pieces[w].error) {
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

/// The Kronrod estimate of [a, b] from the values at the rule's points, QUADPACK's error and
/// the rounding floor: `(value, error, floor)`, the error not yet floored. The computation of
/// [`crate::methods::gauss_kronrod`]'s estimate (`KronrodRule::integrate`, then QUADPACK's
/// scaling), with one change so that `kernels/batch.cu` gives the same bits: x^1.5 is
/// x · √x (both correctly rounded everywhere) where `powf` is libm's on the host and
/// libdevice's on the device, and the scaled error picks the piece to split next.
fn estimate<T: Real>(rule: &KronrodRule<T>, a: T, b: T, values: &[T]) -> (T, f64, f64) {
    let half = half_width(a, b);
    let (nodes, weights, gauss_weights) = (rule.nodes(), rule.weights(), rule.gauss_weights());
    let mut kronrod = T::zero().to_accumulator();
    let mut gauss = T::zero().to_accumulator();
    let mut abs = T::zero();
    // Value k belongs to node i: two values (at −x_i, then +x_i) for each node but 0.
    let mut k = 0;
    for (i, &x) in nodes.iter().enumerate() {
        let sides = if x == T::zero() { 1 } else { 2 };
        for f in &values[k..k + sides] {
            kronrod = kronrod + (weights[i] * *f).to_accumulator();
            gauss = gauss + (gauss_weights[i] * *f).to_accumulator();
            abs += weights[i] * f.abs();
        }
        k += sides;
    }
    let kronrod = T::from_accumulator(kronrod);
    let gauss = T::from_accumulator(gauss);
    // The mean of f over [-1, 1] is kronrod / 2.
    let mean = kronrod.ldexp(-1);
    let mut asc = T::zero();
    let mut k = 0;
    for (i, &x) in nodes.iter().enumerate() {
        let sides = if x == T::zero() { 1 } else { 2 };
        for f in &values[k..k + sides] {
            asc += weights[i] * (*f - mean).abs();
        }
        k += sides;
    }
    let h = half.abs();
    let (kronrod, gauss) = (kronrod * half, gauss * half);
    let resabs = (abs * h).to_f64();
    let resasc = (asc * h).to_f64();
    let mut error = (kronrod - gauss).abs().to_f64();
    if resasc != 0.0 && error != 0.0 {
        let scaled = 200.0 * error / resasc;
        error = resasc * (scaled * scaled.sqrt()).min(1.0);
    }
    let floor = (4.0 * T::epsilon().to_f64() * resabs).max(super::rounding(kronrod));
    (kronrod, error, floor)
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
