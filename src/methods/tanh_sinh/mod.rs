//! Double exponential quadrature (Takahasi–Mori 1974): tanh-sinh on a finite [a, b], exp-sinh on
//! [a, ∞) and (-∞, b], sinh-sinh on (-∞, ∞), as in Bailey, "Tanh-sinh high-precision
//! quadrature" (2006), and Boost.Math's `tanh_sinh`, `exp_sinh` and `sinh_sinh`.
//!
//! A change of variables x = φ(t) whose derivative decays doubly exponentially turns the integral
//! into one over the whole line, where the trapezoid rule converges about as fast as the
//! integrand is smooth inside the interval, whatever it does at the ends:
//!
//! ```text
//! I = ∫ f(φ(t)) φ'(t) dt ≈ S_k = h_k Σ_j φ'(j h_k) f(φ(j h_k)),   h_k = 2^-k,  k = 0, 1, 2, ...
//! ```
//!
//! Level k halves the step and evaluates only the new nodes, the odd multiples of h_k, so that
//! S_k = S_(k-1) / 2 + h_k Σ_new (Bailey's "recycling"); the nodes and weights come from
//! [`nodes::level`], computed once per process in the working precision. All of a level's new
//! points go to the backend in one batch; on a device whose calls cost as much as many points
//! ([`Backend::points_per_call`]: a GPU) the next levels join that batch with every node their
//! sides could take, and are taken from it when their turn comes, so the result is the same bits
//! as one level a call (more evaluations, fewer calls; not where the evaluation cap could bind).
//!
//! - **No cancellation at the ends.** A node stores its distance δ to the end it approaches, and
//!   the point is built as `a + (b - a)/2 · δ` or `b - (b - a)/2 · δ`: near a = 0 the point is δ
//!   itself, to every bit; near b = 1 in dd or qd it is `1 - δ` with the limbs after the leading
//!   1 holding δ, where `tanh` would have given 1. Those limbs hold δ to 53 bits in dd and 159 in
//!   qd, not to the full precision, so an integrand singular at a nonzero end (1 - x)^(-1/2)
//!   is limited to about 25 digits in dd and 58 in qd there (a one-argument integrand cannot be
//!   told the exact distance; Boost passes it as a second argument). The estimate counts this
//!   (see `displacement`), so such a result says so instead of claiming full precision.
//! - **Truncation** (per side). The range of t stops where δ would lose precision (see
//!   [`nodes::Transform::t_range`]); each level adds its nodes out to that end until the side is
//!   truncated: after each level, a side keeps its nodes up to the first one beyond its last
//!   term that is not negligible (|φ' f| > ε ∫|f|); later levels skip the rest.
//! - **Non-finite values.** A NaN or ∞ at a node of a side closes the side before that node, if
//!   the last finite term could not move the result by more than a quarter of the tolerance and
//!   the terms were falling toward it (or it is below ε times the side's largest term); that
//!   term joins the error estimate. Anywhere else it is
//!   [`Error::NonFinite`](crate::Error::NonFinite) naming the point.
//! - **Error estimate** (Bailey): with d1 = log10 |S_k - S_(k-1)| / L1 and d2 = log10 |S_k -
//!   S_(k-2)| / L1, where L1 = ∫|f| from the same nodes, the digits roughly double per level, so
//!   the error of S_k is about L1 · 10^max(d1²/d2, 2 d1); see `extrapolated_error` for the
//!   safety margins. To it are added the floor that refinement cannot lower: rounding (2ε|S_k| +
//!   ε L1), the last term kept on each side (what truncation may have left out) and the cost of
//!   the rounded points near a nonzero end.
//! - **Stopping**: from level [`MIN_LEVEL`] on, when the estimate meets the tolerance
//!   (`converged`), or, without convergence, when the extrapolated error is below a floor that
//!   misses the tolerance by itself (more levels cannot help), at min(`max_levels`, [`max_level`]) levels, or before a level
//!   that would pass `max_evaluations`.
//!
//! The outcome's `table` has one row per level, holding that level's estimate S_k alone.

pub mod nodes;

use precision::lanes::Operand;
use precision::Real;

use self::nodes::{Node, Transform};
use super::trapezoid::{in_halves, too_wide};
use super::{ordered, rounding_floor, timed, Interval, Options, Outcome};
use crate::backend::{non_finite, Backend};
use crate::columns;
use crate::error::Result;
use crate::expr::zeros;
use crate::integrand::Integrand;

/// The first level whose estimate may be accepted (h = 1/8): three levels are the least that
/// Bailey's estimate needs, and one more keeps a feature that the coarse steps stepped over (a
/// narrow peak) from passing for convergence.
pub const MIN_LEVEL: u32 = 3;

/// The finest level in precision `T` (h = 2^-10, 2^-11, 2^-12 for f64, dd, qd): the rule gains
/// digits doubly exponentially when it converges at all, so levels beyond these only double the
/// work on integrands it cannot resolve.
pub fn max_level<T: Real>() -> u32 {
    match T::LIMBS {
        1 => 10,
        2 => 11,
        _ => 12,
    }
}

/// Double exponential quadrature of `f` over `interval` (finite or infinite bounds) to the
/// tolerance in `options`. `a > b` gives the negated integral, `a == b` zero; NaN bounds are an
/// error.
///
/// ```
/// use hpquad::cpu::CpuBackend;
/// use hpquad::expr::Expr;
/// use hpquad::methods::{tanh_sinh::tanh_sinh, Interval, Options};
///
/// let cpu = CpuBackend::new(1)?;
/// let f = Expr::parse("exp(-x^2)", 1)?;
/// let whole_line = Interval::new(f64::NEG_INFINITY, f64::INFINITY);
/// let out = tanh_sinh(&f, &cpu, whole_line, &Options::default())?;
/// assert!(out.converged);
/// assert!((out.value - std::f64::consts::PI.sqrt()).abs() < 1e-14);
/// # Ok::<(), hpquad::Error>(())
/// ```
pub fn tanh_sinh<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    interval: Interval<T>,
    options: &Options,
) -> Result<Outcome<T>> {
    options.validate()?;
    ordered(interval, |a, b| {
        if a.is_finite() && b.is_finite() && too_wide(a, b) {
            // Wider than the largest number: the sums of a side's terms overflowed (x over
            // [-1.7e308, 1.7e308], whose integral is 0, gave inf), so each half on its own,
            // as the uniform-grid methods do; halves that overflow say so.
            return in_halves(a, b, options, |lo, hi, half| {
                integrate(f, backend, Placement::new(lo, hi), half)
            });
        }
        integrate(f, backend, Placement::new(a, b), options)
    })
}

/// Where the nodes of a transform land on the interval (a < b).
#[derive(Debug, Clone, Copy)]
enum Placement<T> {
    /// [a, b], tanh-sinh; `width` = b - a (infinite where that overflows), `half_width` =
    /// (b - a) / 2.
    Finite { a: T, b: T, width: T, half_width: T },
    /// [a, ∞), exp-sinh: x = a + offset.
    Upper { a: T },
    /// (-∞, b], exp-sinh reflected: x = b - offset.
    Lower { b: T },
    /// (-∞, ∞), sinh-sinh.
    Whole,
}

impl<T: Real> Placement<T> {
    fn new(a: T, b: T) -> Placement<T> {
        match (a.is_finite(), b.is_finite()) {
            // b/2 - a/2: no overflow for bounds near the largest double.
            (true, true) => Placement::Finite {
                a,
                b,
                width: b - a,
                half_width: b * 0.5 - a * 0.5,
            },
            (true, false) => Placement::Upper { a },
            (false, true) => Placement::Lower { b },
            (false, false) => Placement::Whole,
        }
    }

    fn transform(&self) -> Transform {
        match self {
            Placement::Finite { .. } => Transform::TanhSinh,
            Placement::Upper { .. } | Placement::Lower { .. } => Transform::ExpSinh,
            Placement::Whole => Transform::SinhSinh,
        }
    }

    /// The factor the weights carry besides h: the half-width, or 1.
    fn scale(&self) -> T {
        match *self {
            Placement::Finite { half_width, .. } => half_width,
            _ => T::one(),
        }
    }

    /// The estimate `sum` · scale · h at the step h = 2^-level, `sum` = Σ φ' f. For a finite
    /// interval as (sum · width) · h/2, one rounding in full precision: the half-width b/2 −
    /// a/2 rounds where it is subnormal (over [1e-310, 2e-310] the estimate was off by 5e-14
    /// relative, claiming 1e-15), and halving a number that holds every bit does not. The same
    /// bits as sum · half-width · h wherever the half-width holds every bit; that form where
    /// sum · width overflows (an interval near 1.8e308 wide).
    fn estimate(&self, sum: T, level: u32) -> T {
        if let Placement::Finite { width, .. } = *self {
            let whole = sum * width;
            if whole.is_finite() {
                return whole.ldexp(-(level as i32) - 1);
            }
        }
        sum * self.scale() * precision::ldexp(1.0, -(level as i32))
    }

    /// The point of a node at t ≥ 0.
    fn right(&self, offset: T) -> T {
        match *self {
            Placement::Finite { b, half_width, .. } => b - half_width * offset,
            Placement::Upper { a } => a + offset,
            Placement::Lower { b } => b - offset,
            Placement::Whole => offset,
        }
    }

    /// The finite end that the points of a side approach, where it is not 0 (at 0 a point is
    /// its distance itself, exact), with the factor from offset to distance.
    fn end(&self, right: bool) -> Option<(T, T)> {
        let end = match *self {
            Placement::Finite { b, .. } if right => b,
            Placement::Finite { a, .. } | Placement::Upper { a } => a,
            Placement::Lower { b } => b,
            Placement::Whole => return None,
        };
        (end != T::zero()).then(|| (end, self.scale()))
    }

    /// The point of a node at t < 0 (for tanh-sinh and sinh-sinh, `offset` is its mirror's).
    fn left(&self, offset: T) -> T {
        match *self {
            Placement::Finite { a, half_width, .. } => a + half_width * offset,
            Placement::Upper { a } => a + offset,
            Placement::Lower { b } => b - offset,
            Placement::Whole => -offset,
        }
    }

    /// The points of `nodes` on the side t ≥ 0 (`right`) or t < 0, appended to `out`:
    /// [`Placement::right`] or [`Placement::left`] of each offset, in column operations where
    /// they pay ([`by_columns`]).
    fn extend(&self, nodes: &[Node<T>], right: bool, out: &mut Vec<T>) {
        if by_columns::<T>() {
            self.extend_by_columns(nodes, right, out);
        } else {
            out.extend(nodes.iter().map(|n| {
                if right {
                    self.right(n.offset)
                } else {
                    self.left(n.offset)
                }
            }));
        }
    }

    /// [`Placement::extend`] in column operations: the same bits.
    fn extend_by_columns(&self, nodes: &[Node<T>], right: bool, out: &mut Vec<T>) {
        let offsets: Vec<T> = nodes.iter().map(|n| n.offset).collect();
        let mut points = zeros::<T>(offsets.len());
        let column = Operand::Column(&offsets);
        match *self {
            Placement::Finite {
                a, b, half_width, ..
            } => {
                let mut steps = zeros::<T>(offsets.len());
                columns::mul(&mut steps, Operand::Constant(half_width), column);
                let steps = Operand::Column(&steps);
                if right {
                    columns::sub(&mut points, Operand::Constant(b), steps);
                } else {
                    columns::add(&mut points, Operand::Constant(a), steps);
                }
            }
            Placement::Upper { a } => columns::add(&mut points, Operand::Constant(a), column),
            Placement::Lower { b } => columns::sub(&mut points, Operand::Constant(b), column),
            Placement::Whole if right => points = offsets,
            Placement::Whole => points = offsets.iter().map(|&o| -o).collect(),
        }
        out.extend_from_slice(&points);
    }
}

/// Whether a level's points and terms are formed in column operations rather than node by
/// node: in dd and qd, whose operations pay for the columns' copies. Measured with `auto`, one
/// thread, best of 2000 (2-core Xeon): qd √exp(cos(x^(x^x))) on [0, 1] 285 → 271 µs, qd √x on
/// [0, 1] 73.7 → 59.6 µs, dd √x 9.2 → 8.7 µs; f64 √x 4.7 → 5.7 µs, so f64 keeps the loop.
fn by_columns<T: Real>() -> bool {
    T::LIMBS > 1
}

/// One side of t = 0: which nodes are in range, and the size of every term so far.
#[derive(Debug)]
struct Side {
    /// The nodes j h_k for j ≤ n are in range at the current step h_k.
    n: usize,
    /// Whether the side still reaches the end of the transform's range of t, so that each level
    /// adds its nodes out to that end; false once truncated.
    open: bool,
    /// |φ'(j h_k) f(φ(j h_k))| for j = 0..=n (j = 0 is the center, shared by both sides); NaN
    /// where the value was not finite.
    terms: Vec<f64>,
}

impl Side {
    fn new() -> Side {
        Side {
            n: 0,
            open: true,
            terms: Vec::new(),
        }
    }

    /// How many of a later level's nodes (odd multiples of h_k, outward) this side uses.
    fn take(&self, available: usize) -> usize {
        if self.open {
            available
        } else {
            self.n.min(available)
        }
    }

    /// The most nodes the level `steps` ≥ 1 levels after the one about to be added may take
    /// of the `available` it has, whatever that level and the ones between add: an open side
    /// takes all; a closed one at most 2^steps times its nodes now, as a level at most doubles
    /// them and trimming only lowers them.
    fn at_most(&self, available: usize, steps: u32) -> usize {
        if self.open {
            available
        } else {
            available.min(self.n.saturating_mul(1 << steps.min(40)))
        }
    }

    /// Adds a level's values on this side: level 0 (`center` is the |term| at t = 0) sets the
    /// terms; a later level interleaves its nodes (odd multiples of h_k) with the previous ones.
    /// The finite terms before the first non-finite value go into `sum` and `abs`; returns the
    /// index (in `nodes`) of that first non-finite value, if any.
    fn add<T: Real>(
        &mut self,
        center: Option<f64>,
        nodes: &[Node<T>],
        values: &[T],
        sum: &mut T::Accumulator,
        abs: &mut f64,
    ) -> Option<usize> {
        // Where the term of node i goes: level 0 sets the center, then the nodes t = 1, 2, ...;
        // level k interleaves its nodes (odd multiples of h_k) with the previous ones, which
        // move to the even indices first, in place, from the last (an open side may have one
        // new node past the last old one).
        let count = nodes.len().min(values.len());
        // Node i's index in the terms: stride · i + 1.
        let stride = match center {
            Some(center) => {
                self.terms.clear();
                self.terms.push(center);
                self.terms.resize(count + 1, 0.0);
                1
            }
            None => {
                let old = self.terms.len();
                let len = (2 * old - 1).max(2 * count);
                // Room for the next level as well, which doubles the terms again: one
                // allocation every other level rather than at each.
                if self.terms.capacity() < len {
                    self.terms.reserve(2 * len - old);
                }
                self.terms.resize(len, 0.0);
                for i in (1..old).rev() {
                    self.terms[2 * i] = self.terms[i];
                }
                // The odd indices that no new node fills.
                for i in (2 * count + 1..len).step_by(2) {
                    self.terms[i] = 0.0;
                }
                2
            }
        };
        // The terms φ' f (in column operations where they pay), summed in node order up to
        // the first non-finite value.
        let products = by_columns::<T>().then(|| {
            let weights: Vec<T> = nodes[..count].iter().map(|n| n.weight).collect();
            let mut products = zeros::<T>(count);
            columns::mul(
                &mut products,
                Operand::Column(&weights),
                Operand::Column(values),
            );
            products
        });
        let mut first_bad = None;
        for (i, (node, &v)) in nodes.iter().zip(values).enumerate() {
            self.terms[stride * i + 1] = if first_bad.is_none() && v.is_finite() {
                let term = products.as_ref().map_or_else(|| node.weight * v, |p| p[i]);
                *sum = *sum + term.to_accumulator();
                let size = term.to_f64().abs();
                *abs += size;
                size
            } else {
                first_bad.get_or_insert(i);
                f64::NAN
            };
        }
        self.n = self.terms.len() - 1;
        first_bad
    }

    /// The grid index of node `i` of the level just added.
    fn index(level: u32, i: usize) -> usize {
        if level == 0 {
            i + 1
        } else {
            2 * i + 1
        }
    }

    /// Closes the side before grid index `bad` ≥ 1 (a non-finite value).
    fn close_before(&mut self, bad: usize) {
        self.n = self.n.min(bad - 1);
        self.terms.truncate(self.n + 1);
        self.open = false;
    }

    /// Whether the side, closed before a non-finite value, may stay so: its last term is
    /// within `limit` and the terms fall toward it (or it is below ε times the side's largest
    /// term).
    fn may_stay_closed(&self, limit: f64, eps: f64) -> bool {
        let edge = self.edge();
        let largest = self.terms.iter().fold(0.0f64, |m, &g| m.max(g));
        let falling = self.n == 0 || edge <= self.terms[self.n - 1] || edge <= eps * largest;
        falling && edge <= limit
    }

    /// Drops the nodes beyond the first negligible one after the last term above `negligible`.
    fn trim(&mut self, negligible: f64) {
        let last = self
            .terms
            .iter()
            .rposition(|&g| g > negligible)
            .unwrap_or(0);
        if last + 1 < self.n {
            self.n = last + 1;
            self.terms.truncate(self.n + 1);
            self.open = false;
        }
    }

    /// The last term kept: what truncation on this side may have left out.
    fn edge(&self) -> f64 {
        self.terms.get(self.n).copied().unwrap_or(0.0)
    }
}

/// A later level evaluated ahead, in the call of an earlier one
/// ([`Backend::points_per_call`]): the first `right` nodes of its right side, then nodes of its
/// left side, as their points and values.
#[derive(Debug)]
struct Ahead<T> {
    level: u32,
    right: usize,
    points: Vec<T>,
    values: Vec<T>,
}

/// Bailey's estimate of the error of S_k from e1 = |S_k - S_(k-1)| and e2 = |S_k - S_(k-2)|,
/// relative to `norm` = L1.
///
/// The digits double per level only asymptotically (the rule's error goes as exp(-cN / ln N)
/// in N nodes, so a level multiplies them by 1.8 to 1.95 in practice): the extrapolation is
/// taken only while the last gain d1/d2 lies in [1.3, 2.5], the plain difference otherwise, and
/// the extrapolated digits are discounted by 10%. On the integrals of tests/tanh_sinh.rs at
/// every level, undiscounted Bailey claimed up to 2.6 digits too many before the asymptotic
/// regime; this rule claimed none too many.
fn extrapolated_error(e1: Option<f64>, e2: Option<f64>, norm: f64) -> f64 {
    let Some(e1) = e1 else {
        return f64::INFINITY;
    };
    match e2 {
        Some(e2) if e1 > 0.0 && e1 < e2 && e2 < norm => {
            let d1 = (e1 / norm).log10();
            let d2 = (e2 / norm).log10();
            let gain = d1 / d2;
            if (1.3..=2.5).contains(&gain) {
                norm * 10f64.powf(0.9 * (d1 * gain).max(2.0 * d1))
            } else {
                e1
            }
        }
        _ => e1,
    }
}

/// What the rounding of the points near a nonzero end may cost a side: Σ |φ' f| α ρ over the
/// nodes whose point's distance to the end is off by a relative ρ > 4ε (the ε L1 floor covers
/// the rest), where α = |d ln|f| / d ln(distance)| is the local power law of f, measured between
/// neighbouring nodes (1 where it cannot be). Near b = 1 in dd, `1 - δ` keeps δ to 53 bits, so a
/// term of (1 - x)^(-1/2) there is off by about 2^-54 of itself, which this counts.
fn displacement<T: Real>(
    (end, distance_per_offset): (T, T),
    nodes: &[Node<T>],
    points: &[T],
    values: &[T],
    eps: f64,
) -> f64 {
    let m = values
        .iter()
        .position(|v| !v.is_finite())
        .unwrap_or(values.len());
    // ln|f| at nodes j - 1, j, j + 1, each computed once.
    let ln_f = |j: usize| values[j].to_f64().abs().ln();
    let mut window = [f64::NAN, if m > 0 { ln_f(0) } else { f64::NAN }];
    let mut total = 0.0;
    for j in 0..m {
        let next = if j + 1 < m { ln_f(j + 1) } else { f64::NAN };
        let [previous, current] = window;
        window = [current, next];
        let distance = distance_per_offset * nodes[j].offset;
        let rho = ((points[j] - end).abs() - distance).abs().to_f64() / distance.to_f64();
        let term = (nodes[j].weight.to_f64() * values[j].to_f64()).abs();
        // (NaN, from a distance that underflowed to 0, counts as negligible too.)
        if rho.is_nan() || rho <= 4.0 * eps || term == 0.0 {
            continue;
        }
        let mut alpha = if m == 1 { 1.0 } else { 0.0f64 };
        for (k, ln_k) in [(j.wrapping_sub(1), previous), (j + 1, next)] {
            if k < m {
                let df = (ln_k - current).abs();
                let dd = (nodes[k].ln_offset - nodes[j].ln_offset).abs();
                alpha = alpha.max(if df.is_finite() && dd > 0.0 {
                    df / dd
                } else {
                    1.0
                });
            }
        }
        total += term * alpha * rho.min(1.0);
    }
    total
}

fn integrate<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    placement: Placement<T>,
    options: &Options,
) -> Result<Outcome<T>> {
    let transform = placement.transform();
    let scale = placement.scale();
    let abs_scale = scale.to_f64().abs();
    let eps = T::epsilon().to_f64();
    let last_level = options.max_levels.min(max_level::<T>());

    let mut right = Side::new();
    let mut left = Side::new();
    // Σ φ' f over every node used so far (without h and the scale), and Σ |φ' f|.
    let mut total = T::zero().to_accumulator();
    let mut total_abs = 0.0f64;
    // Σ over the nodes near a nonzero end of what the rounding of their points may cost.
    let mut displaced = 0.0f64;
    // The first non-finite value that closed each side (right, left): point and value.
    let mut cuts: [Option<(T, T)>; 2] = [None, None];
    // Evaluations made, and those of the levels taken so far (fewer when later levels were
    // evaluated ahead and not reached).
    let (mut evaluations, mut used) = (0u64, 0u64);
    let mut ahead: Vec<Ahead<T>> = Vec::new();
    // What a run may evaluate at most, one level a call or joined: every node of every level
    // (level k ≥ 1 has at most (t_left + t_right) 2^(k-1) + 2, level 0 t_left + t_right + 3),
    // twice over for the joined ones not taken.
    let run_at_most = {
        let (t_left, t_right) = transform.t_range::<T>();
        let nodes = (t_left + t_right + 4.0) * precision::ldexp(1.0, last_level as i32);
        2 * (nodes as u64 + 3 * (u64::from(last_level) + 1))
    };
    let levels = last_level as usize + 1;
    let mut stages = Vec::with_capacity(levels);
    let mut table: Vec<Vec<T>> = Vec::with_capacity(levels);
    let mut points: Vec<T> = Vec::new();
    let (mut value, mut error, mut converged) = (T::zero(), f64::INFINITY, false);

    for level in 0..=last_level {
        let nodes = nodes::level::<T>(transform, level);
        let left_nodes = if transform.symmetric() {
            &nodes.right
        } else {
            &nodes.left
        };
        let (right_nodes, left_nodes) = if level == 0 {
            (&nodes.right[..], &left_nodes[..])
        } else {
            (
                &nodes.right[..right.take(nodes.right.len())],
                &left_nodes[..left.take(left_nodes.len())],
            )
        };
        let centered = usize::from(nodes.center.is_some());
        let count = centered + right_nodes.len() + left_nodes.len();
        let prefetched = ahead.first().is_some_and(|a| a.level == level);
        if used + count as u64 > options.max_evaluations
            || (!prefetched && evaluations + count as u64 > options.max_evaluations)
        {
            break;
        }

        // One batch: [center,] right side outward, left side outward. The buffer keeps room
        // for the next level too, which has about twice the nodes.
        points.clear();
        if points.capacity() < count {
            points.reserve(2 * count);
        }
        let values = if prefetched {
            // Evaluated ahead: this level's nodes are the first of those evaluated then.
            let a = ahead.remove(0);
            let (r, l) = (right_nodes.len(), left_nodes.len());
            points.extend_from_slice(&a.points[..r]);
            points.extend_from_slice(&a.points[a.right..a.right + l]);
            let mut values = Vec::with_capacity(count);
            values.extend_from_slice(&a.values[..r]);
            values.extend_from_slice(&a.values[a.right..a.right + l]);
            values
        } else {
            if let Some(c) = nodes.center {
                points.push(placement.right(c.offset));
            }
            placement.extend(right_nodes, true, &mut points);
            placement.extend(left_nodes, false, &mut points);
            // Where a call costs about as much as many points, the next levels join it, each
            // with every node its sides could still take (they only ever take fewer). Only
            // while the evaluation cap could not stop the run even then, so that it stops where
            // one level a call would: the same levels, the same bits.
            let room = if options.max_evaluations >= evaluations.saturating_add(run_at_most) {
                backend.points_per_call::<T, F>(f)
            } else {
                0
            };
            let mut joined = Vec::new();
            for next in level + 1..=last_level {
                let later = nodes::level::<T>(transform, next);
                let later_left = if transform.symmetric() {
                    &later.right
                } else {
                    &later.left
                };
                let steps = next - level;
                let (r, l) = (
                    right.at_most(later.right.len(), steps),
                    left.at_most(later_left.len(), steps),
                );
                let total = points.len() + r + l;
                if total > room {
                    break;
                }
                placement.extend(&later.right[..r], true, &mut points);
                placement.extend(&later_left[..l], false, &mut points);
                joined.push((next, r, l));
            }
            let batch = points.len();
            let device = backend.device_for_points::<T, F>(f, batch);
            let mut values = timed(&mut stages, level, batch as u64, device, || {
                backend.evaluate(f, &points)
            })?;
            evaluations += batch as u64;
            let mut start = count;
            for (next, r, l) in joined {
                ahead.push(Ahead {
                    level: next,
                    right: r,
                    points: points[start..start + r + l].to_vec(),
                    values: values[start..start + r + l].to_vec(),
                });
                start += r + l;
            }
            points.truncate(count);
            values.truncate(count);
            values
        };
        used += count as u64;

        let mut sum = T::zero().to_accumulator();
        let mut abs = 0.0f64;
        let center = match nodes.center {
            Some(c) => {
                let v = values[0];
                if !v.is_finite() {
                    return Err(non_finite(points[0], v));
                }
                let term = c.weight * v;
                sum = sum + term.to_accumulator();
                abs += term.to_f64().abs();
                Some(term.to_f64().abs())
            }
            None => None,
        };
        let split = centered + right_nodes.len();
        let bad_right = right.add(
            center,
            right_nodes,
            &values[centered..split],
            &mut sum,
            &mut abs,
        );
        let bad_left = left.add(center, left_nodes, &values[split..], &mut sum, &mut abs);
        total = total + sum;
        total_abs += abs;
        if let Some(end) = placement.end(true) {
            displaced += displacement(
                end,
                right_nodes,
                &points[centered..split],
                &values[centered..split],
                eps,
            );
        }
        if let Some(end) = placement.end(false) {
            displaced += displacement(end, left_nodes, &points[split..], &values[split..], eps);
        }

        let h = precision::ldexp(1.0, -(level as i32));
        let estimate = placement.estimate(T::from_accumulator(total), level);
        let norm = total_abs * h * abs_scale;

        // A non-finite value closes its side before it; whether that may stand is decided at
        // the end, at the finest step (a coarse level may not yet see the integrand's peak).
        for (k, (side, bad, offset)) in [
            (&mut right, bad_right, centered),
            (&mut left, bad_left, split),
        ]
        .into_iter()
        .enumerate()
        {
            if let Some(i) = bad {
                let (x, y) = (points[offset + i], values[offset + i]);
                let index = Side::index(level, i);
                if index < 2 {
                    // Next to the center: nothing to fall back on.
                    return Err(non_finite(x, y));
                }
                side.close_before(index);
                cuts[k] = Some((x, y));
            }
        }
        let negligible = eps * total_abs * h;
        if total_abs > 0.0 {
            right.trim(negligible);
            left.trim(negligible);
        }

        let previous = |back: usize| {
            table
                .len()
                .checked_sub(back)
                .map(|i| (estimate - table[i][0]).abs().to_f64())
        };
        let (e1, e2) = (previous(1), previous(2));
        // A side trimmed where its terms became negligible left out less than ε L1, which the
        // floor counts; an edge above that (the end of the range, a non-finite value) counts.
        let tails = [&right, &left]
            .iter()
            .map(|side| side.edge())
            .filter(|&edge| edge > negligible)
            .sum::<f64>()
            * abs_scale;
        let extrapolated = extrapolated_error(e1, e2, norm);
        let floor = rounding_floor(estimate) + eps * norm + tails + displaced * h * abs_scale;
        error = extrapolated + floor;
        value = estimate;
        table.push(vec![estimate]);
        if level >= MIN_LEVEL {
            if options.is_met::<T>(error, value.to_f64()) {
                converged = true;
                break;
            }
            // The levels have converged to what rounding, truncation and the points near the
            // ends allow, and that alone misses the tolerance: finer levels cannot help.
            if extrapolated <= floor && !options.is_met::<T>(floor, value.to_f64()) {
                break;
            }
        }
    }

    let tolerance = options
        .absolute
        .max(options.relative_for::<T>() * value.to_f64().abs());
    for (side, cut) in [(&right, cuts[0]), (&left, cuts[1])] {
        if let Some((x, y)) = cut {
            if !side.may_stay_closed(tolerance / 4.0 / abs_scale, eps) {
                return Err(non_finite(x, y));
            }
        }
    }
    Ok(Outcome {
        value,
        error,
        evaluations,
        levels: table.len() as u32,
        converged,
        table,
        stages,
    })
}

#[cfg(test)]
mod tests {
    use precision::{Dd, Qd};

    use super::*;
    use crate::columns::limbs;

    /// Every placement's points of a level, both sides, in column operations against
    /// [`Placement::right`] and [`Placement::left`] one node at a time: the same bits, in every
    /// precision (whichever of the two `by_columns` picks for it).
    fn points_are_the_formulas<X: Real>() {
        let third = X::one() / X::from_f64(3.0);
        let bounds = [
            (X::zero(), X::one()),
            (-third, X::from_f64(1000.0) + third),
            (third, X::from_f64(f64::INFINITY)),
            (X::from_f64(f64::NEG_INFINITY), -third),
            (X::from_f64(f64::NEG_INFINITY), X::from_f64(f64::INFINITY)),
        ];
        for (a, b) in bounds {
            let placement = Placement::new(a, b);
            let level = nodes::level::<X>(placement.transform(), 4);
            let left_nodes = if placement.transform().symmetric() {
                &level.right
            } else {
                &level.left
            };
            let mut got = Vec::new();
            placement.extend_by_columns(&level.right, true, &mut got);
            placement.extend_by_columns(left_nodes, false, &mut got);
            let mut want: Vec<X> = level
                .right
                .iter()
                .map(|n| placement.right(n.offset))
                .collect();
            want.extend(left_nodes.iter().map(|n| placement.left(n.offset)));
            assert!(!want.is_empty());
            assert_eq!(limbs(&got), limbs(&want), "{} on [{a:?}, {b:?}]", X::NAME);
        }
    }

    #[test]
    fn placed_points_have_the_formulas_bits() {
        points_are_the_formulas::<f64>();
        points_are_the_formulas::<Dd>();
        points_are_the_formulas::<Qd>();
    }
}
