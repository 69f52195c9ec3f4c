//! Adaptive Gauss–Kronrod quadrature in the manner of QUADPACK's QAG (Piessens, de
//! Doncker-Kapenga, Überhuber, Kahaner, "QUADPACK", Springer 1983, §3.3 and routine QK21):
//!
//! ```text
//! integrate the whole interval with the (2n+1)-point Kronrod rule K and its n-point Gauss rule G
//! while the summed error estimate exceeds max(absolute, relative · |Σ K|):
//!     bisect the piece with the largest error (a heap), integrate both halves
//! error of a piece = resasc · min(1, (200 |K - G| / resasc)^1.5), never below 50 ε resabs
//! ```
//!
//! resabs = ∫|f| and resasc = ∫|f - mean| by the Kronrod rule. The power 1.5 is the ratio of
//! the rules' exponents for an analytic integrand (K's error goes as ρ^-(3n+1), G's as
//! ρ^-2n), so it carries over to the longer rules used here; 200 is QUADPACK's empirical
//! safety factor. QUADPACK's rounding floor is 50 ε resabs for its plain sums of 15 to 61
//! terms; the rules here sum in `T::Accumulator` (compensated for f64, see
//! [`crate::rules::Rule::integrate`]), so what is left is the values' own rounding, and the
//! floor is 4 ε resabs, ε the working precision's epsilon (2^-52, 2^-104, 2^-209).
//!
//! Differences from QAG: the rule grows with the precision ([`gauss_points`]: G10K21 for f64,
//! G20K41 for dd, G30K61 for qd: the degree grows with the digits asked for; not yet tuned
//! against the neighbouring pairs);
//! each step halves as many of the worst pieces as the tolerance asks for (the worst, then the
//! next worst while the error of the pieces left alone still exceeds half the tolerance, at
//! most [`MAX_BATCH`]) and evaluates all their new nodes in one backend call; a piece whose
//! error is its rounding floor is final (halving it would not help); a piece is not halved
//! past `adaptive::MAX_DEPTH` halvings or below a few hundred ulp of width. Infinite bounds
//! are mapped to a finite interval (see `adaptive.rs`).

use precision::Real;

use super::adaptive::{
    equal_pieces, mapped, nothing_done, splittable, totals, with_half_width, Map, Worklist,
    MAX_DEPTH,
};
use super::{rounding_floor, timed, Interval, Options, Outcome, Stage, UNDERFLOW_FLOOR};
use crate::backend::Backend;
use crate::error::Result;
use crate::integrand::Integrand;
use crate::rules::{self, midpoint, KronrodRule, KronrodSums};

/// The most pieces halved in one step.
pub const MAX_BATCH: usize = 64;

/// The Gauss rule that the Kronrod rule extends, by precision: G10K21 for f64 (QUADPACK's
/// QAGS rule), G20K41 for dd, G30K61 for qd.
pub fn gauss_points<T: Real>() -> usize {
    match T::LIMBS {
        1 => 10,
        2 => 20,
        _ => 30,
    }
}

/// One piece [a, b] (in the variable of the mapped interval) and its Kronrod estimate.
#[derive(Debug, Clone, Copy)]
struct Piece<T> {
    a: T,
    b: T,
    /// How many halvings made it.
    depth: u32,
    value: T,
    error: f64,
    /// The error that rounding alone leaves: an estimate this small cannot be improved.
    floor: f64,
    /// False once the piece has been halved (its halves replace it).
    live: bool,
}

/// The Kronrod estimate of [a, b] from the values at its nodes, QUADPACK's error (the
/// Kronrod–Gauss difference scaled by (200 d / resasc)^1.5 against resasc) and the rounding
/// floor, the largest of 4 ε ∫|f| and 2 ε |Q| for the values and of what the abscissae's
/// rounding does ([`KronrodRule::abscissa_rounding`]: e^(1000 − x) on [1000, 1600] in f64 was
/// off by 5.8e-15 with an estimate of 1.2e-15 without it), as the Gauss–Legendre method's: `(value, error, floor)`, the error not
/// yet floored. Shared with the PBCAQ family's interval rule (pbcaq/pair.rs), whose device
/// twin is kernels/region.cu: the 1.5th power is r √r (√ is correctly rounded on both sides,
/// `powf` is not, and libm and CUDA may differ in its last bit).
///
/// The sums are scaled by the whole width and halved ([`with_half_width`]), not by a
/// half-width that rounds where it is subnormal: over [1e-310, 2e-310] a PBCAQ piece was off
/// by 5e-14 relative (f64) and a region of 64 pieces by 3e-12 (dd), each claiming 1e-15 or
/// less.
pub(crate) fn quadpack_estimate<T: Real>(
    rule: &KronrodRule<T>,
    a: T,
    b: T,
    values: &[T],
) -> (T, f64, f64) {
    let sums = with_half_width(
        a,
        b,
        |w| rule.integrate(values, w),
        |s| KronrodSums {
            kronrod: s.kronrod.ldexp(-1),
            gauss: s.gauss.ldexp(-1),
            abs: s.abs.ldexp(-1),
            asc: s.asc.ldexp(-1),
        },
        |s| s.kronrod.is_finite() && s.abs.is_finite() && s.asc.is_finite(),
    );
    let resabs = sums.abs.to_f64();
    let resasc = sums.asc.to_f64();
    let mut error = (sums.kronrod - sums.gauss).abs().to_f64();
    if resasc != 0.0 && error != 0.0 {
        let r = 200.0 * error / resasc;
        error = resasc * (r * r.sqrt()).min(1.0);
    }
    let floor = (4.0 * T::epsilon().to_f64() * resabs)
        .max(rounding_floor(sums.kronrod))
        .max(rule.abscissa_rounding(values, a, b));
    (sums.kronrod, error, floor)
}

/// The Kronrod estimate of a piece from the values at its nodes, with QUADPACK's error.
fn estimate<T: Real>(rule: &KronrodRule<T>, a: T, b: T, depth: u32, values: &[T]) -> Piece<T> {
    let (value, error, floor) = quadpack_estimate(rule, a, b, values);
    Piece {
        a,
        b,
        depth,
        value,
        error: error.max(floor),
        floor,
        live: true,
    }
}

/// Adaptive Gauss–Kronrod integration of `f` over `interval` (finite or not) to the tolerance
/// in `options`, starting from `options.subintervals` equal pieces.
///
/// The outcome's `levels` counts the steps (one per stage); its `table` is empty.
pub fn gauss_kronrod<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    interval: Interval<T>,
    options: &Options,
) -> Result<Outcome<T>> {
    options.validate()?;
    let rule = rules::kronrod::<T>(gauss_points::<T>())?;
    mapped(interval, |map, lo, hi| {
        let mut qag = Qag {
            f,
            backend,
            map,
            rule: &rule,
            options,
            pieces: Vec::new(),
            worklist: Worklist::default(),
            stages: Vec::new(),
            evaluations: 0,
        };
        qag.run(lo, hi)
    })
}

/// The state of one QAG run on [lo, hi] of f(x(t)) x'(t).
struct Qag<'a, T, F, B> {
    f: &'a F,
    backend: &'a B,
    map: Map<T>,
    rule: &'a KronrodRule<T>,
    options: &'a Options,
    pieces: Vec<Piece<T>>,
    worklist: Worklist,
    stages: Vec<Stage>,
    evaluations: u64,
}

impl<T: Real, F: Integrand, B: Backend> Qag<'_, T, F, B> {
    fn run(&mut self, lo: T, hi: T) -> Result<Outcome<T>> {
        let options = self.options;
        let per_piece = self.rule.points() as u64;

        // Step 0: the starting pieces, equal in width.
        let p = options.subintervals;
        if p * per_piece > options.max_evaluations {
            return Ok(nothing_done());
        }
        let spans: Vec<(T, T, u32)> = equal_pieces(lo, hi, p)
            .into_iter()
            .map(|(a, b)| (a, b, 0))
            .collect();
        self.integrate(&spans, 0)?;

        let mut converged = false;
        for level in 1.. {
            let (value, error) = self.totals();
            let tolerance = options
                .absolute
                .max(options.relative_for::<T>() * value.to_f64().abs())
                .max(UNDERFLOW_FLOOR);
            if error <= tolerance {
                converged = true;
                break;
            }
            let budget = options.max_evaluations.saturating_sub(self.evaluations) / (2 * per_piece);
            let max = MAX_BATCH.min(budget as usize);
            if self.worklist.is_empty() || max == 0 {
                break;
            }
            // Halve the worst pieces: each half gets a fresh Kronrod rule.
            let taken = self.worklist.take_worst(error, tolerance / 2.0, max);
            let mut spans = Vec::with_capacity(2 * taken.len());
            for &k in &taken {
                let piece = &mut self.pieces[k];
                let mid = midpoint(piece.a, piece.b);
                spans.push((piece.a, mid, piece.depth + 1));
                spans.push((mid, piece.b, piece.depth + 1));
                piece.live = false;
            }
            self.integrate(&spans, level)?;
        }

        let (value, error) = self.totals();
        Ok(Outcome {
            value,
            error,
            evaluations: self.evaluations,
            levels: self.stages.len() as u32,
            converged: converged && options.is_met::<T>(error, value.to_f64()),
            table: Vec::new(),
            stages: std::mem::take(&mut self.stages),
        })
    }

    /// Integrates the pieces `spans` = (a, b, depth), all their nodes in one backend call,
    /// and files them: in the worklist unless they are final.
    fn integrate(&mut self, spans: &[(T, T, u32)], level: u32) -> Result<()> {
        let rule = self.rule;
        let mut points = Vec::with_capacity(spans.len() * rule.points());
        for &(a, b, _) in spans {
            rule.abscissae(a, b, &mut points);
        }
        let count = points.len() as u64;
        let device = self.backend.device_for_points::<T, F>(self.f, points.len());
        let (map, f, backend) = (self.map, self.f, self.backend);
        let values = timed(&mut self.stages, level, count, device, || {
            map.evaluate(f, backend, &points)
        })?;
        self.evaluations += count;
        for (&(a, b, depth), values) in spans.iter().zip(values.chunks(rule.points())) {
            let piece = estimate(rule, a, b, depth, values);
            // A piece is final when its error is rounding alone, when it has been halved
            // MAX_DEPTH times, or when it is too narrow to halve.
            if piece.error > piece.floor && depth < MAX_DEPTH && splittable(a, b) {
                self.worklist.push(self.pieces.len(), piece.error);
            }
            self.pieces.push(piece);
        }
        Ok(())
    }

    /// The sum of the live pieces' values and errors.
    fn totals(&self) -> (T, f64) {
        totals(
            self.pieces
                .iter()
                .filter(|p| p.live)
                .map(|p| (p.a, p.value, p.error)),
        )
    }
}
