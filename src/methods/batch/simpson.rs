//! Adaptive Simpson quadrature as MATLAB's `quad` does it (Gander and Gautschi, "Adaptive
//! quadrature — revisited", BIT 40 (2000), the scheme of `quad.m`), the comparator of the
//! forward quadrature paper's Table 1:
//!
//! ```text
//! h = 0.13579 (b − a); sample a, a+h, a+2h, (a+b)/2, b−2h, b−h, b      three unequal panels
//! (a non-finite value at a or b is replaced by f(a + ε(b−a)) or f(b − ε(b−a)))
//! quadstep(a, b, fa, fc, fb):
//!     c = (a+b)/2; if b − a < ε(b−a₀)/1024 or c is a or b: stop (singularity possible)
//!     sample d = (a+c)/2, e = (c+b)/2
//!     Q1 = h/6 (fa + 4fc + fb); Q2 = h/12 (fa + 4fd + 2fc + 4fe + fb); Q = Q2 + (Q2 − Q1)/15
//!     if |Q2 − Q| ≤ tol: accept Q, else quadstep(a, c, ...) + quadstep(c, b, ...)
//! ```
//!
//! The recursion is a loop over a fixed stack of pending right halves (depth-first, left
//! first, as `quad.m` recurses), at most [`MAX_DEPTH`] deep. `quad`'s tolerance is absolute and
//! applies to each panel; here it is max(absolute, relative · |Q₀|), Q₀ the Simpson sum of
//! the three starting panels. The error reported is Σ |Q2 − Q| over the accepted panels, the
//! quantity each was tested on; the integral converged when no panel hit the minimum width,
//! the depth or the evaluation cap, no end had to be sampled inside (a singularity there is
//! invisible to the estimate: log x on [0, 1] ends 7e-6 off with a sum of 4e-7), and that
//! sum meets the tolerance.

use precision::Real;

use super::faq::at_end;
use super::{Integrated, NonFiniteAt, Tolerance};

/// The deepest halving of a starting panel; past it a panel is accepted as it is, and the
/// integral is not converged (as at `quad`'s minimum width, which f64 reaches about here).
pub const MAX_DEPTH: usize = 60;

/// A panel waiting on the stack: its ends, its values at a, c = (a+b)/2, b, and its depth.
#[derive(Clone, Copy)]
struct Panel<T> {
    a: T,
    b: T,
    fa: T,
    fc: T,
    fb: T,
    depth: usize,
}

/// `quad` of `f` over [a, b] (a < b) to `tolerance`, with at most `max_evaluations`.
pub fn adaptive_simpson<T: Real>(
    f: &mut (impl FnMut(T) -> T + ?Sized),
    a: T,
    b: T,
    tolerance: Tolerance,
    max_evaluations: u64,
) -> Result<Integrated<T>, NonFiniteAt<T>> {
    let width = b - a;
    let h = width * T::parse_decimal("0.13579").unwrap_or_else(|_| T::from_f64(0.13579));
    let two = T::from_i64(2);
    let x = [
        a,
        a + h,
        a + two * h,
        (a + b).ldexp(-1),
        b - two * h,
        b - h,
        b,
    ];
    let mut evaluations = 0u64;
    let mut y = [T::zero(); 7];
    y[0] = at_end(f, a, width, &mut evaluations)?;
    for k in 1..6 {
        evaluations += 1;
        y[k] = f(x[k]);
        if !y[k].is_finite() {
            return Err(NonFiniteAt::at(x[k], y[k]));
        }
    }
    y[6] = at_end(f, b, -width, &mut evaluations)?;
    // An end sampled just inside is a singularity that the panels' estimates do not see.
    let nudged = evaluations > 7;

    let six = T::from_i64(6);
    let mut q0 = T::zero();
    for k in [0, 2, 4] {
        q0 += (x[k + 2] - x[k]) / six * (y[k] + T::from_i64(4) * y[k + 1] + y[k + 2]);
    }
    let tol = T::from_f64(tolerance.target(q0.to_f64()));
    let h_min = width * T::epsilon() / T::from_i64(1024);

    let blank = Panel {
        a,
        b,
        fa: a,
        fc: a,
        fb: a,
        depth: 0,
    };
    let mut stack = [blank; MAX_DEPTH + 3];
    let mut top = 0;
    for k in [4, 2, 0] {
        stack[top] = Panel {
            a: x[k],
            b: x[k + 2],
            fa: y[k],
            fc: y[k + 1],
            fb: y[k + 2],
            depth: 0,
        };
        top += 1;
    }

    let mut sum = T::zero().to_accumulator();
    let mut error = T::zero();
    let mut complete = true;
    while top > 0 {
        top -= 1;
        let Panel {
            a,
            b,
            fa,
            fc,
            fb,
            depth,
        } = stack[top];
        let h = b - a;
        let c = (a + b).ldexp(-1);
        let four = T::from_i64(4);
        if h.abs() < h_min
            || c == a
            || c == b
            || depth >= MAX_DEPTH
            || evaluations + 2 > max_evaluations
        {
            // The minimum step (a singularity, possibly) or the evaluation cap: the midpoint
            // value stands, as in `quad`, and twice its distance from the panel's Simpson value
            // is counted as its error, so that an unfinished integral claims no more than it
            // has (once is the midpoint rule's error to first order: a dd batch came out 0.3%
            // beyond it).
            let midpoint = h * fc;
            sum = sum + midpoint.to_accumulator();
            error += (h / six * (fa + four * fc + fb) - midpoint).abs() * two;
            complete = false;
            continue;
        }
        let (d, e) = ((a + c).ldexp(-1), (c + b).ldexp(-1));
        let fd = f(d);
        let fe = f(e);
        evaluations += 2;
        for (x, y) in [(d, fd), (e, fe)] {
            if !y.is_finite() {
                return Err(NonFiniteAt::at(x, y));
            }
        }
        let q1 = h / six * (fa + four * fc + fb);
        let q2 = h / T::from_i64(12) * (fa + four * fd + two * fc + four * fe + fb);
        let q = q2 + (q2 - q1) / T::from_i64(15);
        if (q2 - q).abs() <= tol {
            sum = sum + q.to_accumulator();
            error += (q2 - q).abs();
            continue;
        }
        // Left half on top, so that it is done first.
        stack[top] = Panel {
            a: c,
            b,
            fa: fc,
            fc: fe,
            fb,
            depth: depth + 1,
        };
        stack[top + 1] = Panel {
            a,
            b: c,
            fa,
            fc: fd,
            fb: fc,
            depth: depth + 1,
        };
        top += 2;
    }
    let value = T::from_accumulator(sum);
    let error = error.to_f64().max(super::rounding(value));
    Ok(Integrated {
        value,
        error,
        evaluations,
        converged: complete && !nudged && tolerance.is_met(error, value.to_f64()),
    })
}
