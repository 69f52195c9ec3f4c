//! Adaptive Gauss–Legendre quadrature for analytic integrands: on each piece, Gauss rules of
//! growing degree until successive degrees agree; a piece whose convergence would need more
//! than the largest degree is halved; the piece with the largest error is worked on first.
//!
//! The shape is Arb's (F. Johansson, "Numerical integration in arbitrary-precision ball
//! arithmetic", ICMS 2018; acb_calc_integrate): per piece, a Gauss–Legendre rule whose degree
//! is chosen for the tolerance, bisection where the degree needed exceeds a cap. Arb bounds
//! |f| on a Bernstein ellipse in ball arithmetic to predict the degree; without balls, the
//! rate comes from the rules themselves, as in mpmath's GaussLegendre (degree doubling, error
//! from successive estimates):
//!
//! ```text
//! Q_k: the n_k-point rule on the piece, n_k from DEGREES
//! d_k = |Q_k - Q_{k-1}|                       ≈ the error of Q_{k-1}
//! ρ   = (d_k / d_{k-1})^(1 / (n_{k-1} - n_{k-2}))  the observed error ratio per node
//! err(Q_k) ≈ d_k ρ^(n_k - n_{k-1})           (geometric convergence extrapolated one step)
//! ```
//!
//! With two rules only, a second reading ends a piece early: the Legendre coefficients of
//! each rule's values (exact for the interpolant, [`rules::Rule::tail`]) fall at least
//! geometrically for an analytic integrand, and the part from degree 2n on bounds the n-point
//! rule's error (`Spectral`). The newer rule's reading counts when both rules' falls are fast
//! and alike and the older rule's reading is not far below its actual error, which the
//! difference between the two rules measures: an entire integrand then takes 12 and 24 points
//! in qd where the differences need 12, 24 and 32 (sinh, e^(-x), sin on [0, 1]).
//!
//! Honesty: the extrapolation is used only when the differences decrease faster than any
//! algebraic convergence of order 8 would make them (`GEOMETRIC_ORDER`); otherwise the
//! estimate is the larger difference, and with two degrees the one difference (the error of
//! the cruder rule, a bound on the better one's once convergence has begun). No estimate is
//! below the rounding floor max(2 ε |Q|, 4 ε ∫|f|), ε the working precision's epsilon, nor
//! below a last difference small enough to be rounding noise (1000 ε ∫|f|).
//!
//! The method is for integrands analytic on the interval: inside a piece that holds a kink,
//! Gauss rules of successive degrees can agree by accident, and on 63 kinked integrals
//! (|x − c|, √|x − c|, |x − c|³ on [0, 1], seven c, f64 to qd) three estimates remain 3 to 100
//! times below the error. The automatic method therefore takes adaptive Gauss–Kronrod for any
//! expression that can have a kink.
//!
//! Analytic integrands converge at least geometrically (Trefethen, "Is Gauss quadrature
//! better than Clenshaw–Curtis?", SIAM Review 2008: O(ρ^-2n) in the Bernstein ellipse of
//! parameter ρ), entire ones faster, so the geometric extrapolation errs on the safe side
//! once the rate is established.
//!
//! Degree choice: the first two degrees double; after that the observed rate predicts the
//! degree that meets the piece's share of the tolerance (rounded up to the next entry of
//! DEGREES), and a piece whose prediction exceeds the cap for the precision, or whose
//! differences stop decreasing at the cap, is halved (its halves start over at the first
//! degree). All new nodes of a step go to the backend in one call; the worst pieces are taken
//! as in the adaptive Gauss–Kronrod method (see `adaptive.rs`).

use std::sync::Arc;

use precision::Real;

use super::adaptive::{
    equal_pieces, mapped, nothing_done, splittable, totals, with_half_width, Map, Worklist,
    MAX_DEPTH,
};
use super::{rounding_floor, timed, Interval, Options, Outcome, Stage, UNDERFLOW_FLOOR};
use crate::backend::Backend;
use crate::error::Result;
use crate::integrand::Integrand;
use crate::rules::{self, half_width, midpoint, Rule};

/// The degrees a piece may use, growing by factors of 1.2 to 1.33 so that a predicted degree is
/// not overshot by much; doubling stays on the table from every first degree.
pub const DEGREES: [usize; 21] = [
    4, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256, 320, 384, 512,
];

/// The most pieces worked on in one step.
pub const MAX_BATCH: usize = 64;

/// The first and the largest degree (indices into [`DEGREES`]) for precision `T`: 8 to 256
/// points for f64, 12 to 384 for dd, 12 to 512 for qd (measured on the comparison suite: a
/// qd start at 12 rather than 16 takes the entire integrands on [0, 1] from 100 to 80
/// evaluations and the suite's time down by 10% in the geometric mean; 8 helps those more
/// and costs the oscillatory ones as much).
fn degree_range<T: Real>() -> (usize, usize) {
    match T::LIMBS {
        1 => (2, 17),
        2 => (4, 19),
        _ => (4, 20),
    }
}

/// The index of the smallest degree of at least `n` points (past the end when there is none).
fn at_least(n: f64) -> usize {
    DEGREES
        .iter()
        .position(|&d| d as f64 >= n)
        .unwrap_or(DEGREES.len())
}

/// How far (as a multiple of the span it was observed over) an error ratio is extrapolated,
/// in the error estimate and in the choice of the next degree.
const REACH: f64 = 2.0;

/// The least apparent algebraic order (the p of an error falling like n^-p) of two
/// successive differences for the convergence to count as geometric and be extrapolated.
/// A piece with a kink or a weak singularity inside converges like n^-1.5 to n^-4 and its
/// errors oscillate with the node positions, so two differences can suggest any rate up to
/// about twice that; extrapolating them promised 4 to 300 times too little error (|x - c|,
/// √|x - c| and |x - c|³ on [0, 1], f64 to qd). Below this order the error is the larger of
/// the last two differences.
const GEOMETRIC_ORDER: f64 = 8.0;

/// The fraction of the observed convergence rate's logarithm that the extrapolation counts
/// on (see `Piece::estimate`): measured on the comparison suite, where counting all of it left
/// four of 99 estimates 1.1 to 27 times below the error.
const RATE_TRUST: f64 = 0.75;

/// The largest fall per degree of the Legendre coefficients for [`Spectral`] to be read: a
/// slower fall is no sign of convergence (a kink's coefficients fall like a power of the
/// degree, by 0.55 to 0.8 a degree over the rules' ranges).
const MAX_FALL: f64 = 0.6;

/// How much the newer rule's coefficient fall may differ from the older rule's, as the ratio
/// of their logarithms, for the spectral reading to count. Flatter: an algebraic fall
/// flattens as the degree grows (|x − c|³ on a piece: 0.55 a degree at 12 points, 0.77 at
/// 24), an analytic one does not. Steeper: an entire integrand's coefficients c_k ~ a^k/k!
/// fall ever faster, by a ratio near 1 once a/k is small (sinh on [0, 1]: 1.17 to 1.22) but
/// near 2 while they are only beginning to fall, and then a slower part hidden beneath them
/// can surface at higher degrees (e^(4x)/√(1 + e^(4x)) on [0, 5], an e^(2x) over a pole at
/// distance π/4: 0.44 at 8 points, 0.22 at 16, 0.55 from 32 on; the reading at 16 was 25
/// times below the error).
const FALL_CONSISTENCY: (f64, f64) = (0.8, 1.35);

/// The most the older rule's spectral reading may fall short of its actual error (the
/// difference to the newer rule) for the newer rule's reading to be trusted, scaled by the
/// shortfall.
const MAX_SHORTFALL: f64 = 100.0;

/// Differences within this many ulp of the integral's scale are taken for rounding noise.
const NOISE: f64 = 1000.0;

/// A difference below this fraction of the integral's scale means that the rules have begun
/// to converge; above it they may still be sampling too coarsely to see the integrand.
pub(crate) const ONSET: f64 = 1e-3;

/// One rule applied to a piece.
#[derive(Debug, Clone, Copy)]
struct Step<T> {
    /// Index into DEGREES.
    degree: usize,
    value: T,
    /// ∫|f| by the same rule.
    abs: f64,
    /// What the abscissae's rounding does to `value` ([`rules::Rule::abscissa_rounding`]).
    jitter: f64,
    /// What the fall of the values' Legendre coefficients says of the rule's error.
    spectral: Option<Spectral>,
}

/// The error of an n-point rule read from its values' Legendre spectrum (see
/// [`rules::Rule::tail`]): the coefficients c_j of an integrand analytic on the piece fall at
/// least geometrically, the rule integrates P_j exactly for j < 2n, and |Q(P_j)| ≤ 2, so the
/// error is at most 2 h Σ_{j ≥ 2n} |c_j|, extrapolated from the fall per degree between the
/// middle and the top of the rule's range (its logarithm counted at [`RATE_TRUST`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spectral {
    /// The coefficients' fall per degree.
    pub(crate) fall: f64,
    /// The extrapolated error of the rule.
    pub(crate) error: f64,
}

impl Spectral {
    /// The reading of an n-point rule's `tail` on a piece of half-width `half`; `None` where
    /// the coefficients do not fall by at least [`MAX_FALL`] a degree.
    pub(crate) fn of(tail: Option<rules::Tail>, points: usize, half: f64) -> Option<Spectral> {
        let tail = tail?;
        let fall = (tail.top / tail.middle).powf(1.0 / tail.span as f64);
        // A NaN fall (no middle, or non-finite values) is no reading either.
        if fall.is_nan() || fall >= MAX_FALL || !tail.top.is_finite() {
            return None;
        }
        let trusted = fall.powf(RATE_TRUST);
        // From the top pair's upper degree, n − 1, to the first one not integrated exactly, 2n.
        let beyond = points as i32 + 1;
        let error = 2.0 * half.abs() * tail.top * trusted.powi(beyond) / (1.0 - trusted);
        Some(Spectral { fall, error })
    }
}

/// The last three rules applied to a piece, oldest first: all that its error estimate and its
/// next degree look at (kept inline, as pieces are made and dropped by the hundred).
#[derive(Debug, Clone, Copy)]
struct Recent<S> {
    items: [S; 3],
    len: usize,
}

impl<S: Copy> Recent<S> {
    fn new(first: S) -> Recent<S> {
        Recent {
            items: [first; 3],
            len: 1,
        }
    }

    /// Adds the newest, dropping the oldest of three.
    fn push(&mut self, item: S) {
        if self.len < 3 {
            self.items[self.len] = item;
            self.len += 1;
        } else {
            self.items = [self.items[1], self.items[2], item];
        }
    }

    fn as_slice(&self) -> &[S] {
        &self.items[..self.len]
    }

    fn last(&self) -> S {
        self.items[self.len - 1]
    }
}

/// One piece [a, b] (in the variable of the mapped interval) and the rules applied to it.
#[derive(Debug, Clone)]
struct Piece<T> {
    a: T,
    b: T,
    depth: u32,
    steps: Recent<Step<T>>,
    /// [`Piece::estimate`] of the steps so far, kept for the error total and the next plan.
    error: f64,
    rate: Option<f64>,
    live: bool,
}

/// What to do with a piece next.
enum Plan {
    /// Apply the rule of DEGREES[index].
    Degree(usize),
    /// Halve it.
    Halve,
}

impl<T: Real> Piece<T> {
    fn new(a: T, b: T, depth: u32, step: Step<T>, reach: f64) -> Piece<T> {
        let mut piece = Piece {
            a,
            b,
            depth,
            steps: Recent::new(step),
            error: 0.0,
            rate: None,
            live: true,
        };
        (piece.error, piece.rate) = piece.estimate(reach);
        piece
    }

    /// Records a new rule applied to the piece, and its error estimate.
    fn push(&mut self, step: Step<T>, reach: f64) {
        self.steps.push(step);
        (self.error, self.rate) = self.estimate(reach);
    }

    /// The best value: that of the highest degree.
    fn value(&self) -> T {
        self.last().value
    }

    fn last(&self) -> Step<T> {
        self.steps.last()
    }

    /// The rounding floor of the latest rule: the sum is compensated, so what is left is the
    /// values' own rounding, a few ulp of each, 4 ε ∫|f| in all, and the abscissae's.
    fn floor(&self) -> f64 {
        let last = self.last();
        rounding_floor(last.value)
            .max(4.0 * T::epsilon().to_f64() * last.abs)
            .max(last.jitter)
    }

    /// The error estimate of the best value, and the observed error ratio per node when the
    /// differences decrease (see the module's doc).
    ///
    /// `reach`: how far, as a multiple of the span it was observed over, the ratio may be
    /// extrapolated ([`REACH`] on a finite interval, 0 on a mapped infinite one).
    fn estimate(&self, reach: f64) -> (f64, Option<f64>) {
        let s = self.steps.as_slice();
        let k = s.len();
        let floor = self.floor();
        if k == 1 {
            // One rule says nothing of its error: all of the value may be wrong.
            return (floor.max(s[0].abs + s[0].value.to_f64().abs()), None);
        }
        let d_last = (s[k - 1].value - s[k - 2].value).abs().to_f64();
        let last = self.last();
        let scale = last.abs.max(last.value.to_f64().abs());
        // A difference within NOISE ulp of the scale may be rounding rather than
        // convergence (the abscissae's rounding, amplified by a steep integrand, is
        // invisible to the floor): then the error is of its size (twice it: the
        // difference of two independent roundings can be smaller than either).
        let noise_level = NOISE * T::epsilon().to_f64() * scale;
        let noise = if d_last <= noise_level {
            2.0 * d_last
        } else {
            0.0
        };
        if k == 2 {
            return match self.spectral(d_last, noise_level, scale, reach) {
                Some((error, rate)) => (floor.max(error).max(noise), Some(rate)),
                None => (floor.max(d_last), None),
            };
        }
        let d_prev = (s[k - 2].value - s[k - 3].value).abs().to_f64();
        let nodes = |i: usize| DEGREES[s[i].degree] as f64;
        // The algebraic order n^-p that the last two differences would show.
        let order = (d_prev / d_last).ln() / (nodes(k - 2) / nodes(k - 3)).ln();
        if d_last < d_prev && order >= GEOMETRIC_ORDER {
            let observed = nodes(k - 2) - nodes(k - 3);
            let rate = (d_last / d_prev).powf(1.0 / observed);
            // Extrapolated no further than twice the span the rate was seen over: an
            // integrand that is not analytic on the piece (an end singularity, or the ends of
            // an infinite interval mapped to a finite one) converges ever more slowly, and a
            // long geometric extrapolation would promise digits it never reaches.
            let span = (nodes(k - 1) - nodes(k - 2)).min(reach * observed);
            // The observed rate itself wanders by ±15% from one pair of degrees to the next
            // (exp(4x)/√(1 + e^(4x)) on [0, 5] in dd: 0.32, 0.285, 0.325 a node), which a
            // 16-node extrapolation turns into a factor of 8; so only RATE_TRUST of its
            // logarithm is counted.
            let extrapolated = d_last * rate.powf(RATE_TRUST * span);
            (floor.max(extrapolated).max(noise), Some(rate))
        } else {
            (floor.max(d_last).max(d_prev), None)
        }
    }

    /// The newer rule's spectral error (and the error ratio per node it implies) on a piece of
    /// two rules (from three on, their differences give the rate), where their readings hold
    /// together: both coefficient spectra fall, the newer as
    /// fast as the older (within [`FALL_CONSISTENCY`]), the rules have begun to converge, and
    /// the older rule's reading is within [`MAX_SHORTFALL`] of its actual error, which the
    /// difference `d` to the newer rule measures (the newer rule being far more accurate);
    /// the newer reading is scaled by that shortfall. With two rules this ends a piece where
    /// the differences alone need a third (an entire integrand in qd: 12 and 24 points
    /// instead of 12, 24 and 32).
    fn spectral(&self, d: f64, noise_level: f64, scale: f64, reach: f64) -> Option<(f64, f64)> {
        let s = self.steps.as_slice();
        if reach == 0.0 || s.len() != 2 || d > ONSET * scale {
            return None;
        }
        let (older, newer) = (s[0].spectral?, s[1].spectral?);
        let steepening = newer.fall.ln() / older.fall.ln();
        if !(FALL_CONSISTENCY.0..=FALL_CONSISTENCY.1).contains(&steepening) {
            return None;
        }
        let shortfall = d / older.error.max(noise_level);
        if shortfall > MAX_SHORTFALL {
            return None;
        }
        let error = newer.error * shortfall.max(1.0);
        if error >= d.max(noise_level) {
            return None;
        }
        // The error of an n-point rule falls by the square of the coefficients' fall a node.
        Some((error, newer.fall * newer.fall))
    }

    /// The next degree for this piece to reach `target`, or halving:
    ///
    /// - while the differences are above the onset of convergence, double the degree;
    /// - at the first difference below it, one degree up (the next difference gives a rate
    ///   measured in the convergent regime, or confirms convergence at once);
    /// - with two differences below it, the degree that the observed rate says meets the
    ///   target, or halving when that is past the cap;
    /// - at the cap, halving.
    fn plan(&self, target: f64, cap: usize, reach: f64) -> Plan {
        let s = self.steps.as_slice();
        let k = s.len();
        let last = self.last();
        let n = DEGREES[last.degree] as f64;
        let scale = last.abs.max(last.value.to_f64().abs());
        let difference = |i: usize| (s[i].value - s[i - 1].value).abs().to_f64();
        let (error, rate) = (self.error, self.rate);
        let next = if k == 1 {
            // One degree up where the first rule's spectrum says it meets the target already
            // (a second rule checks the reading), else doubling.
            match last.spectral {
                Some(spectral) if reach > 0.0 && spectral.error <= target => last.degree + 1,
                _ => at_least(2.0 * n),
            }
        } else if difference(k - 1) >= ONSET * scale {
            at_least(2.0 * n)
        } else if k == 2 || difference(k - 2) >= ONSET * scale || error <= target {
            last.degree + 1
        } else {
            match rate {
                Some(rate) if rate > 0.0 => {
                    let needed = n + (target / error).ln() / rate.ln();
                    let observed = n - DEGREES[s[k - 2].degree] as f64;
                    if needed > DEGREES[cap] as f64 {
                        return Plan::Halve;
                    }
                    // No further than the estimate will extrapolate.
                    let reach = DEGREES[..]
                        .iter()
                        .rposition(|&d| d as f64 <= n + reach * observed)
                        .unwrap_or(last.degree + 1);
                    at_least(needed).min(reach).max(last.degree + 1)
                }
                // Converged to the last bit between the last two rules.
                Some(_) => last.degree + 1,
                // Differences below the onset but growing: rounding, or an integrand the
                // rules do not resolve; a finer piece tells which.
                None => return Plan::Halve,
            }
        };
        if next > cap {
            Plan::Halve
        } else {
            Plan::Degree(next)
        }
    }

    /// Whether more work could lower the error: above the floor, and a higher degree or a
    /// halving is still allowed.
    fn refinable(&self, cap: usize) -> bool {
        self.error > self.floor()
            && (self.last().degree < cap || (self.depth < MAX_DEPTH && splittable(self.a, self.b)))
    }
}

/// Adaptive Gauss–Legendre integration of `f` over `interval` (finite or not) to the
/// tolerance in `options`, starting from `options.subintervals` equal pieces.
///
/// The outcome's `levels` counts the steps (one per stage); its `table` is empty.
pub fn gauss_legendre<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    interval: Interval<T>,
    options: &Options,
) -> Result<Outcome<T>> {
    options.validate()?;
    mapped(interval, |map, lo, hi| {
        let mut run = Run {
            f,
            backend,
            map,
            options,
            pieces: Vec::new(),
            worklist: Worklist::default(),
            stages: Vec::new(),
            evaluations: 0,
            rules: Default::default(),
            tasks: Vec::new(),
            taken: Vec::new(),
            points: Vec::new(),
        };
        run.run(lo, hi)
    })
}

/// The largest polynomial degree [`polynomial`] integrates: its rules stay within the
/// cached sizes of the adaptive method (512 points in qd).
pub const MAX_POLYNOMIAL_DEGREE: u32 = 1021;

/// The fewest Gauss–Legendre points that integrate every polynomial of degree at most `degree`
/// exactly: ⌈(degree + 1)/2⌉ (an n-point rule is exact to degree 2n − 1).
pub fn exact_points(degree: u32) -> usize {
    (degree as usize + 1).div_ceil(2)
}

/// ∫ of a polynomial of degree at most `degree` over the finite `interval`: the n-point
/// Gauss–Legendre rule, n = [`exact_points`], is exact, and so is the (n+1)-point one, so
/// their difference is the rounding of the two evaluations alone (an expanded polynomial can
/// cancel at its nodes far beyond ε |f|). The value is the (n+1)-point rule's; the error the
/// larger of twice that difference and its rounding floor. 2n + 1 evaluations in one backend
/// call, where the adaptive method needs three rules of 12 points and more (a degree-8
/// polynomial in qd: 11 against 40).
///
/// The caller vouches for the degree (`Tape::polynomial_degree`); an interval with an
/// infinite end, a degree above [`MAX_POLYNOMIAL_DEGREE`] or a cap below 2n + 1 evaluations
/// is not this rule's and is refused with `None`.
pub fn polynomial<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    interval: Interval<T>,
    options: &Options,
    degree: u32,
) -> Result<Option<Outcome<T>>> {
    options.validate()?;
    let n = exact_points(degree);
    let finite = interval.a.is_finite() && interval.b.is_finite();
    if !finite || degree > MAX_POLYNOMIAL_DEGREE || (2 * n + 1) as u64 > options.max_evaluations {
        return Ok(None);
    }
    let (low, high) = (rules::legendre::<T>(n)?, rules::legendre::<T>(n + 1)?);
    mapped(interval, |map, lo, hi| {
        let half = half_width(lo, hi);
        let mut points = Vec::with_capacity(2 * n + 1);
        low.abscissae(lo, hi, &mut points);
        high.abscissae(lo, hi, &mut points);
        let count = points.len() as u64;
        let mut stages = Vec::new();
        let device = backend.device_for_points::<T, F>(f, points.len());
        let values = timed(&mut stages, 0, count, device, || {
            map.evaluate(f, backend, &points)
        })?;
        let (coarse, fine) = values.split_at(n);
        let value = integrate(&high, fine, lo, hi);
        let difference = (value - integrate(&low, coarse, lo, hi)).abs().to_f64();
        let floor = rounding_floor(value)
            .max(4.0 * T::epsilon().to_f64() * high.integrate_abs(fine, half))
            .max(high.abscissa_rounding(fine, lo, hi));
        let error = floor.max(2.0 * difference);
        Ok(Outcome {
            value,
            error,
            evaluations: count,
            levels: 1,
            converged: options.is_met::<T>(error, value.to_f64()),
            table: Vec::new(),
            stages,
        })
    })
    .map(Some)
}

/// Work on one piece in a step: a new degree for piece `index`, or the first rule on a new
/// piece [a, b] (a half).
#[derive(Clone, Copy)]
enum Task<T> {
    Raise {
        index: usize,
        degree: usize,
    },
    Start {
        a: T,
        b: T,
        depth: u32,
        degree: usize,
    },
}

/// The state of one run on [lo, hi] of f(x(t)) x'(t).
struct Run<'a, T, F, B> {
    f: &'a F,
    backend: &'a B,
    map: Map<T>,
    options: &'a Options,
    pieces: Vec<Piece<T>>,
    worklist: Worklist,
    stages: Vec<Stage>,
    evaluations: u64,
    /// The rules of [`DEGREES`] fetched so far, by index: each is looked up in the process-wide
    /// cache once per run rather than once per piece and step.
    rules: [Option<Arc<Rule<T>>>; DEGREES.len()],
    /// The next step's tasks, the pieces it takes from the worklist and its nodes: buffers
    /// kept from step to step, as a small integral is only a few steps of a few dozen nodes
    /// and allocating them anew would cost as much as the rules' arithmetic.
    tasks: Vec<Task<T>>,
    taken: Vec<usize>,
    points: Vec<T>,
}

impl<T: Real, F: Integrand, B: Backend> Run<'_, T, F, B> {
    fn run(&mut self, lo: T, hi: T) -> Result<Outcome<T>> {
        let options = self.options;
        let (first, cap) = degree_range::<T>();

        let p = options.subintervals;
        if p * DEGREES[first] as u64 > options.max_evaluations {
            return Ok(nothing_done());
        }
        self.tasks.extend(
            equal_pieces(lo, hi, p)
                .into_iter()
                .map(|(a, b)| Task::Start {
                    a,
                    b,
                    depth: 0,
                    degree: first,
                }),
        );
        self.perform(0)?;

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
            if self.worklist.is_empty() {
                break;
            }
            self.worklist
                .take_worst_into(error, tolerance / 2.0, MAX_BATCH, &mut self.taken);
            // Each piece's share of the tolerance, by width.
            // Half-widths: the whole width may overflow.
            let total_half = half_width(lo, hi).to_f64();
            let reach = self.reach();
            self.tasks.clear();
            let mut cost = 0u64;
            for &k in &self.taken {
                let piece = &self.pieces[k];
                let share = 0.5 * tolerance * (half_width(piece.a, piece.b).to_f64() / total_half);
                let halvable = piece.depth < MAX_DEPTH && splittable(piece.a, piece.b);
                let plan = match piece.plan(share, cap, reach) {
                    Plan::Halve if !halvable => Plan::Degree(piece.last().degree + 1),
                    plan => plan,
                };
                let points = match plan {
                    Plan::Degree(d) if d <= cap => DEGREES[d],
                    Plan::Degree(_) => continue, // final: neither a higher degree nor a halving
                    Plan::Halve => 2 * DEGREES[first],
                };
                if self.evaluations + cost + points as u64 > options.max_evaluations {
                    // Out of budget: this piece stays as it is.
                    self.worklist.push(k, piece.error);
                    continue;
                }
                cost += points as u64;
                match plan {
                    Plan::Degree(degree) => self.tasks.push(Task::Raise { index: k, degree }),
                    Plan::Halve => {
                        let (a, b) = (piece.a, piece.b);
                        let mid = midpoint(a, b);
                        let depth = piece.depth + 1;
                        self.tasks.extend([
                            Task::Start {
                                a,
                                b: mid,
                                depth,
                                degree: first,
                            },
                            Task::Start {
                                a: mid,
                                b,
                                depth,
                                degree: first,
                            },
                        ]);
                        // Its halves replace it.
                        self.pieces[k].live = false;
                    }
                }
            }
            if self.tasks.is_empty() {
                break;
            }
            self.perform(level)?;
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

    /// How far an observed error ratio is extrapolated: [`REACH`] spans on a finite interval;
    /// none on an infinite one, whose map to a finite one makes the integrand non-analytic at
    /// the ends (e^(-x²) becomes e^(-t²/(1-t²)²) (1+t²)/(1-t²)²), where the rules converge
    /// ever more slowly and any extrapolation promised more than they delivered (measured:
    /// 14 digits for an estimate of 15 in f64).
    fn reach(&self) -> f64 {
        match self.map {
            Map::Identity => REACH,
            _ => 0.0,
        }
    }

    /// Evaluates the nodes of all of `self.tasks` in one backend call and updates the pieces.
    fn perform(&mut self, level: u32) -> Result<()> {
        let (_, cap) = degree_range::<T>();
        let reach = self.reach();
        let count = self
            .tasks
            .iter()
            .map(|task| match *task {
                Task::Raise { degree, .. } | Task::Start { degree, .. } => DEGREES[degree],
            })
            .sum();
        self.points.clear();
        self.points.reserve(count);
        for i in 0..self.tasks.len() {
            let (a, b, degree) = match self.tasks[i] {
                Task::Raise { index, degree } => {
                    (self.pieces[index].a, self.pieces[index].b, degree)
                }
                Task::Start { a, b, degree, .. } => (a, b, degree),
            };
            let rule = self.rule(degree)?;
            rule.abscissae(a, b, &mut self.points);
        }
        let count = self.points.len() as u64;
        let device = self
            .backend
            .device_for_points::<T, F>(self.f, self.points.len());
        let (map, f, backend, points) = (self.map, self.f, self.backend, &self.points);
        let values = timed(&mut self.stages, level, count, device, || {
            map.evaluate(f, backend, points)
        })?;
        self.evaluations += count;

        let mut offset = 0;
        for i in 0..self.tasks.len() {
            let task = self.tasks[i];
            let degree = match task {
                Task::Raise { degree, .. } | Task::Start { degree, .. } => degree,
            };
            let rule = self.rule(degree)?;
            let values = &values[offset..offset + rule.points()];
            offset += rule.points();
            // The spectrum is read on a piece's first two rules only (`Piece::spectral`), and
            // not past its top pair where that is above ONSET of the mean |f| (no reading
            // could follow): its four sums of products cost as much as a cheap integrand.
            let apply = |a: T, b: T, degree: usize, read: bool| {
                let half = half_width(a, b);
                let abs = rule.integrate_abs(values, half);
                let spectral = read
                    .then(|| {
                        let h = half.to_f64().abs();
                        let tail = rule.tail(values, ONSET * abs / (2.0 * h));
                        Spectral::of(tail, rule.points(), h)
                    })
                    .flatten();
                Step {
                    degree,
                    value: integrate(&rule, values, a, b),
                    abs,
                    jitter: rule.abscissa_rounding(values, a, b),
                    spectral,
                }
            };
            let index = match task {
                Task::Raise { index, degree } => {
                    let piece = &mut self.pieces[index];
                    let read = piece.steps.as_slice().len() == 1;
                    let step = apply(piece.a, piece.b, degree, read);
                    piece.push(step, reach);
                    index
                }
                Task::Start {
                    a,
                    b,
                    depth,
                    degree,
                } => {
                    let piece = Piece::new(a, b, depth, apply(a, b, degree, true), reach);
                    self.pieces.push(piece);
                    self.pieces.len() - 1
                }
            };
            let piece = &self.pieces[index];
            if piece.refinable(cap) {
                self.worklist.push(index, piece.error);
            }
        }
        Ok(())
    }

    /// The rule of `DEGREES[degree]`, from the process-wide cache on its first use in this run.
    fn rule(&mut self, degree: usize) -> Result<Arc<Rule<T>>> {
        if let Some(rule) = &self.rules[degree] {
            return Ok(rule.clone());
        }
        let rule = rules::legendre::<T>(DEGREES[degree])?;
        self.rules[degree] = Some(rule.clone());
        Ok(rule)
    }

    /// The sum of the live pieces' values and errors.
    fn totals(&self) -> (T, f64) {
        totals(
            self.pieces
                .iter()
                .filter(|p| p.live)
                .map(|p| (p.a, p.value(), p.error)),
        )
    }
}
/// `rule` on [a, b] from its values there, without rounding a subnormal half-width.
fn integrate<T: Real>(rule: &Rule<T>, values: &[T], a: T, b: T) -> T {
    with_half_width(
        a,
        b,
        |w| rule.integrate(values, w),
        |v| v.ldexp(-1),
        |v| v.is_finite(),
    )
}
