//! What the adaptive Gauss methods share: bounds that may be infinite, mapped to a finite
//! interval by a change of variables, and the choice of the pieces to refine (worst first).
//!
//! Infinite intervals (a finite, b finite or not):
//!
//! ```text
//! [a, ∞):    x = a + t / (1 - t),   t ∈ [0, 1),   dx = dt / (1 - t)²
//! (-∞, b]:   x = b - t / (1 - t),   t ∈ [0, 1),   dx = dt / (1 - t)²   (the reflection)
//! (-∞, ∞):   x = t / (1 - t²),      t ∈ (-1, 1),  dx = (1 + t²) / (1 - t²)² dt
//! ```
//!
//! The Gauss rules are open (no node at an end), so t = ±1 is never evaluated. The integrand
//! is evaluated by the backend at the transformed points x, and its values multiplied by the
//! Jacobian on the host.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use precision::Real;

use super::{ordered, Interval, Outcome};
use crate::backend::{check_finite, Backend};
use crate::error::Result;
use crate::integrand::Integrand;
use crate::rules::half_width;

/// The change of variables from the interval a method works on (t) to the integrand's (x).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Map<T> {
    /// A finite interval: x = t.
    Identity,
    /// [a, ∞): x = a + t / (1 - t) on [0, 1).
    Upper(T),
    /// (-∞, b]: x = b - t / (1 - t) on [0, 1).
    Lower(T),
    /// (-∞, ∞): x = t / (1 - t²) on (-1, 1).
    Whole,
}

impl<T: Real> Map<T> {
    /// x(t).
    fn point(&self, t: T) -> T {
        match *self {
            Map::Identity => t,
            Map::Upper(a) => a + t / (T::one() - t),
            Map::Lower(b) => b - t / (T::one() - t),
            Map::Whole => t / ((T::one() - t) * (T::one() + t)),
        }
    }

    /// dx/dt.
    fn jacobian(&self, t: T) -> T {
        match *self {
            Map::Identity => T::one(),
            Map::Upper(_) | Map::Lower(_) => {
                let s = T::one() - t;
                (s * s).recip()
            }
            Map::Whole => {
                let s = (T::one() - t) * (T::one() + t);
                (t * t + 1.0) / (s * s)
            }
        }
    }

    /// f(x(t)) x'(t) at every t, from one backend call; a non-finite value of f is the error
    /// that names its point x.
    pub(crate) fn evaluate<F: Integrand, B: Backend>(
        &self,
        f: &F,
        backend: &B,
        ts: &[T],
    ) -> Result<Vec<T>> {
        if let Map::Identity = self {
            let values = backend.evaluate(f, ts)?;
            check_finite(ts, &values)?;
            return Ok(values);
        }
        let xs: Vec<T> = ts.iter().map(|&t| self.point(t)).collect();
        let mut values = backend.evaluate(f, &xs)?;
        check_finite(&xs, &values)?;
        for (v, &t) in values.iter_mut().zip(ts) {
            *v *= self.jacobian(t);
        }
        check_finite(&xs, &values)?;
        Ok(values)
    }
}

/// [`super::ordered`] with an infinite interval mapped to a finite one: `run(map, lo, hi)`
/// integrates f(x(t)) x'(t) over [lo, hi].
pub(crate) fn mapped<T: Real>(
    interval: Interval<T>,
    run: impl FnOnce(Map<T>, T, T) -> Result<Outcome<T>>,
) -> Result<Outcome<T>> {
    ordered(interval, |a, b| match (a.is_finite(), b.is_finite()) {
        (true, true) => run(Map::Identity, a, b),
        (true, false) => run(Map::Upper(a), T::zero(), T::one()),
        (false, true) => run(Map::Lower(b), T::zero(), T::one()),
        (false, false) => run(Map::Whole, -T::one(), T::one()),
    })
}

/// The most times a piece is halved. A kink or a jump inside the interval costs one halving
/// per 2 bits of accuracy (the piece holding it contributes O(width²)), so qd needs about 110;
/// [`splittable`] stops earlier on pieces near the rounding level. `Options::max_levels` is
/// Romberg's and tanh-sinh's cap, not this one.
pub(crate) const MAX_DEPTH: u32 = 160;

/// A rule's `integrate(values, half-width)` on [a, b] without the rounding of a subnormal
/// half-width: `scaled(w)` is the rule scaled by w, and halving an odd number of subnormal
/// units rounds (over [1e-310, 2e-310] the estimate was off by 5e-14 relative, against a
/// claimed 1e-15). So the rule is scaled by the whole width and the result halved, which is the
/// same bits wherever the half-width is a normal number; by the half-width where the whole
/// width overflows.
pub(crate) fn with_half_width<T: Real, R>(
    a: T,
    b: T,
    scaled: impl Fn(T) -> R,
    halve: impl Fn(R) -> R,
    finite: impl Fn(&R) -> bool,
) -> R {
    let width = b - a;
    if width.is_finite() {
        let result = scaled(width);
        if finite(&result) {
            return halve(result);
        }
    }
    scaled(half_width(a, b))
}

/// [lo, hi] cut into `p` pieces of equal width, lowest first. The pieces are placed from lo up
/// to the middle and from hi down beyond it where hi − lo overflows, so that no point overflows
/// on the way; elsewhere lo + k·width as always.
pub(crate) fn equal_pieces<T: Real>(lo: T, hi: T, p: u64) -> Vec<(T, T)> {
    let whole = hi - lo;
    let wide = !whole.is_finite();
    let width = if wide {
        half_width(lo, hi) / T::from_i64(p as i64) * 2.0
    } else {
        whole / T::from_i64(p as i64)
    };
    let start = |k: u64| {
        if k == 0 {
            // Not lo + 0·width: with p = 1 the width of a wide interval is infinite.
            lo
        } else if wide && 2 * k > p {
            hi - width * T::from_i64((p - k) as i64)
        } else {
            lo + width * T::from_i64(k as i64)
        }
    };
    (0..p)
        .map(|k| {
            let a = start(k);
            let b = if k + 1 == p {
                hi
            } else if wide {
                start(k + 1)
            } else {
                a + width
            };
            (a, b)
        })
        .collect()
}

/// Whether [a, b] can be halved: its midpoint lies strictly inside with room for a rule's
/// nodes (a width of a few hundred units in the last place).
pub(crate) fn splittable<T: Real>(a: T, b: T) -> bool {
    let scale = a.abs().max(b.abs()).to_f64();
    (b - a).to_f64() > 256.0 * T::epsilon().to_f64() * scale
}

/// A piece in the worklist: ordered by error, the larger first; among equal errors the piece
/// created first (the smaller index) first, so that the choice never depends on anything
/// but the numbers.
#[derive(Debug, Clone, Copy)]
struct Entry {
    error: f64,
    index: usize,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Entry) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Entry) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Entry) -> Ordering {
        self.error
            .total_cmp(&other.error)
            .then_with(|| other.index.cmp(&self.index))
    }
}

/// The pieces that may still be refined, worst first (a binary heap on the error estimate).
#[derive(Debug, Default)]
pub(crate) struct Worklist {
    heap: BinaryHeap<Entry>,
}

impl Worklist {
    /// Adds piece `index` with its error estimate.
    pub(crate) fn push(&mut self, index: usize, error: f64) {
        self.heap.push(Entry { error, index });
    }

    /// Whether nothing is left to refine.
    pub(crate) fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The next pieces to refine, worst first: the worst, then the next worst as long as the
    /// error left in the pieces not taken still exceeds `target` (what refining all taken
    /// pieces must bring the total within), at most `max` pieces. Taking several at once gives
    /// the device one large batch instead of many small ones; the choice depends only on the
    /// errors, so the result is deterministic.
    pub(crate) fn take_worst(&mut self, total: f64, target: f64, max: usize) -> Vec<usize> {
        let mut taken = Vec::new();
        self.take_worst_into(total, target, max, &mut taken);
        taken
    }

    /// [`Worklist::take_worst`] into `taken` (cleared first), a buffer that the caller keeps
    /// from step to step.
    pub(crate) fn take_worst_into(
        &mut self,
        total: f64,
        target: f64,
        max: usize,
        taken: &mut Vec<usize>,
    ) {
        taken.clear();
        let mut left = total;
        while taken.len() < max && (taken.is_empty() || left > target) {
            match self.heap.pop() {
                Some(entry) => {
                    left -= entry.error;
                    taken.push(entry.index);
                }
                None => break,
            }
        }
    }
}

/// The sum of pieces' values and errors, given as (left end, value, error), from left to
/// right: a fixed order whatever order the pieces were made in, so that the result does not
/// depend on the schedule.
pub(super) fn totals<T: Real>(pieces: impl Iterator<Item = (T, T, f64)> + Clone) -> (T, f64) {
    let sum = |pieces: &mut dyn Iterator<Item = (T, T, f64)>| {
        let mut value = T::zero().to_accumulator();
        let mut error = 0.0;
        for (_, piece, piece_error) in pieces {
            value = value + piece.to_accumulator();
            error += piece_error;
        }
        (T::from_accumulator(value), error)
    };
    // Pieces made without halving are in order already (the common case of a few pieces):
    // no need to copy and sort them.
    let mut ends = pieces.clone().map(|p| p.0);
    let in_order = ends.next().is_none_or(|first| {
        ends.try_fold(first, |prev, a| (prev <= a).then_some(a))
            .is_some()
    });
    if in_order {
        return sum(&mut pieces.clone());
    }
    let mut sorted: Vec<(T, T, f64)> = pieces.collect();
    sorted.sort_by(|x, y| x.0.partial_cmp(&y.0).unwrap_or(Ordering::Equal));
    sum(&mut sorted.into_iter())
}

/// The outcome when not even the starting pieces fit the evaluation budget.
pub(super) fn nothing_done<T: Real>() -> Outcome<T> {
    Outcome {
        value: T::zero(),
        error: f64::INFINITY,
        evaluations: 0,
        levels: 0,
        converged: false,
        table: Vec::new(),
        stages: Vec::new(),
    }
}
