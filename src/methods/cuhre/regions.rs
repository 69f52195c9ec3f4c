//! The subregions of a CUHRE run: their bounds, estimates and split axes (the paper's 4-tuples
//! ([x, y], I, ε, κ)), the priority queue on ε, the running totals I_g and ε_g, and the split
//! of a region in two along its axis with the children's estimates.
//!
//! After a split the children's errors are checked against the parent as DCUHRE does
//! (Berntsen, Espelid and Genz 1991, routine DADHRE; the same in Hahn's Cuba `Cuhre`): with
//! d = |I_left + I_right - I_parent| / 4 and e = ε_left + ε_right, both children's errors are
//! scaled by 1 + 2d/e and raised by d. Where the rules agreed by accident on a region that
//! the finer pair contradicts, this lifts the estimate to the contradiction; on a smooth
//! integrand d falls as h^8 against the rules' h^6, so it costs nothing asymptotically.

use std::sync::Arc;
use std::time::{Duration, Instant};

use precision::Real;

use super::rule::CubatureRule;
use crate::backend::{check_finite, region_sums, rule_point, Backend, RuleSums};
use crate::error::{Error, Result};
use crate::integrand::Integrand;
use crate::methods::adaptive::{splittable, Worklist};
use crate::methods::Stage;
use crate::rules::{half_width, midpoint};

/// The degree-7 rule's factor on the null rules' estimate where they passed the ratio test
/// (the asymptotic branch, e1), above DCUHRE's own constant 1: that test can be fooled. A kink
/// between the outermost points and the region's edge (|s| > λ3 ≈ 0.949 of the half-width) is
/// seen by no point, and some kinks inside (near s = 0.2 in two dimensions) make the null
/// rules fall by accident: on single regions with exp(-a|x1 - s|) the true error was up to
/// 5·10^3 times e1. Those errors are first order in the kink's distance from the edge, and
/// are covered in the sum by this factor on the smooth-looking regions: with 20, the C0 family
/// (kinks across every axis) keeps its true error within 0.1 to 1 of the estimate for
/// n = 2..8 (with 10 it was 1.3 times it at n = 5, with 1 twice it at n = 2). The degree-7
/// rule is the one chosen for integrands that can have kinks or jumps ([`super::choose_rule`]),
/// and for Rust code, which cannot be looked into.
///
/// Where the ratio test fails, DCUHRE's 5 max(e1, e2, e3) is used as it is (with either rule):
/// there the largest value is the degree-1 null rule's, which sees a kink at first order, and
/// on the same single regions the true error was 0.002 to 0.06 of it; the families' estimates
/// stay honest without the factor (C0 0.1 to 0.97 of it), the Gaussian, C0 and discontinuous
/// families at 25 to 40% fewer evaluations.
pub const SAFETY_DEGREE7: f64 = 20.0;

/// The degree-9 rule's factor on the asymptotic branch for a region without a parent (the
/// whole box, a list's initial regions), which no check against a coarser estimate will see.
/// That rule is chosen only for expressions with no operation that can put a kink or a jump
/// inside, where the evidence for 20 does not apply; there 20 left the cases on the CPU
/// list 17 to 440 times more accurate than claimed, and cost the corner peak in 8 dimensions
/// 2.8 times the evaluations of 5 to 1e-5 (6.2·10^8 against 2.2·10^8). DCUHRE's constant 1 is
/// not enough either: the ratio test passes by accident on some coarse regions of a peak, and
/// the list's relative filter retires such regions in its first rounds. On the CPU list
/// (tests/cuhre.rs, `the_pagani_cases_on_the_host_list`) with one factor for every region, the
/// corner peak (1 + Σ i x_i)^-9 over [0, 1]^8 to 1e-3 ended with a true error of 1.78 τ|I|
/// against a claimed 0.50 with 1, 0.75 against 0.62 with 2, and 0.25 against 0.99 with 5;
/// every other case, the Genz families for n = 2..8 and the singular integrands of
/// tests/cuhre.rs (which the expression makes without a kink operation: sqrt(x1 x2),
/// x1^(-1/3), log(x1 + x2), ...) are honest with 5, their true errors at most 0.25 of the
/// claimed. The halves of a split take [`SAFETY_DEGREE9_CHECKED`].
pub const SAFETY_DEGREE9: f64 = 5.0;

/// The degree-9 rule's factor on the asymptotic branch for a half of a split, whose error the
/// check against its parent then lifts where the two levels disagree (see the module's text):
/// the accidents [`SAFETY_DEGREE9`] covers are coarse regions whose rules agree by chance, and
/// a finer pair that contradicts its parent is caught by d, so the halves take DCUHRE's own
/// constant. With 5 on every region the true errors of the degree-9 cases were 40 to 90 times
/// below the claimed ones at the end of a run, and the corner peak in 8 dimensions to 1e-6
/// took 1.55·10^9 evaluations on the CPU list (tests/cuhre.rs); with 2 on the halves 5.35·10^8
/// (true 0.058 τ|I| against a claimed 0.97), with 1 3.02·10^8 (true 0.107 against 0.871); to
/// 1e-5 1.27·10^8, 5.74·10^7 and 3.48·10^7; the Gaussian in 6 dimensions to 1e-5 1.30·10^8,
/// 9.20·10^7 and 6.00·10^7; the product peak in 5 to 1e-3 6.80·10^7, 5.64·10^7 and 4.72·10^7.
/// With 1, over the 28 degree-9 Genz cases of n = 2..8 every run stayed honest and converged
/// (the worst true error 0.21 of the claimed, the corner peak in 8 dimensions to 1e-4), the
/// issue's cases at most 0.24 (the corner peak to 1e-5), and the singular integrands' true
/// errors were at most 0.30 of the claimed (log(x1 + x2) to 1e-6).
pub const SAFETY_DEGREE9_CHECKED: f64 = 1.0;

/// One subregion's estimate.
#[derive(Debug, Clone, Copy)]
pub(super) struct Estimate<T> {
    pub value: T,
    pub error: f64,
    /// The axis to split along (κ), or `None` when no axis can be halved.
    pub axis: Option<usize>,
    /// Halvings from the whole box.
    pub depth: u32,
    /// False once split (its children replace it).
    pub live: bool,
}

/// The regions of one run and what it has spent.
pub(super) struct Regions<'a, T: Real, F, B> {
    pub f: &'a F,
    pub backend: &'a B,
    pub rule: CubatureRule<T>,
    dims: usize,
    /// Bounds of region k: lower[k*dims..(k+1)*dims], upper likewise.
    lower: Vec<T>,
    upper: Vec<T>,
    pub estimates: Vec<Estimate<T>>,
    /// The live regions that may still be split, worst first.
    pub worklist: Worklist,
    /// I_g and ε_g, updated at each split (compensated: f64's accumulator is double-double).
    running_value: T::Accumulator,
    running_error: <f64 as Real>::Accumulator,
    pub evaluations: u64,
    pub rounds: u32,
    pub stages: Vec<Stage>,
    /// The device of the sequential schedule's steps.
    serial: Arc<str>,
}

impl<'a, T: Real, F: Integrand, B: Backend> Regions<'a, T, F, B> {
    pub fn new(f: &'a F, backend: &'a B, rule: CubatureRule<T>) -> Regions<'a, T, F, B> {
        Regions {
            f,
            backend,
            dims: rule.dims(),
            rule,
            lower: Vec::new(),
            upper: Vec::new(),
            estimates: Vec::new(),
            worklist: Worklist::default(),
            running_value: T::zero().to_accumulator(),
            running_error: 0.0f64.to_accumulator(),
            evaluations: 0,
            rounds: 0,
            stages: Vec::new(),
            serial: Arc::from("cpu (1 thread, calling)"),
        }
    }

    /// The running totals (I_g, ε_g).
    pub fn running(&self) -> (T, f64) {
        (
            T::from_accumulator(self.running_value),
            f64::from_accumulator(self.running_error),
        )
    }

    /// The totals summed afresh over the live regions in the order they were made (a fixed
    /// order: the steps depend only on the numbers); the running totals are reset to them.
    pub fn resum(&mut self) -> (T, f64) {
        let mut value = T::zero().to_accumulator();
        let mut error = 0.0f64.to_accumulator();
        for e in self.estimates.iter().filter(|e| e.live) {
            value = value + e.value.to_accumulator();
            error += e.error.to_accumulator();
        }
        self.running_value = value;
        self.running_error = error;
        self.running()
    }

    /// Evaluates the whole box as the first region.
    pub fn start(&mut self, lower: &[T], upper: &[T], parallel: bool) -> Result<()> {
        self.evaluate(&[(lower.to_vec(), upper.to_vec(), 0, None)], parallel)
    }

    /// Splits the regions `taken` in two along their axes and evaluates all the children's
    /// points in one batch: by the backend (`parallel`) or on the calling thread.
    pub fn split(&mut self, taken: &[usize], parallel: bool) -> Result<()> {
        let n = self.dims;
        let mut children = Vec::with_capacity(2 * taken.len());
        for &k in taken {
            let parent = self.estimates[k];
            let Some(axis) = parent.axis else { continue };
            let lower = &self.lower[k * n..(k + 1) * n];
            let upper = &self.upper[k * n..(k + 1) * n];
            let middle = midpoint(lower[axis], upper[axis]);
            let (mut left_upper, mut right_lower) = (upper.to_vec(), lower.to_vec());
            left_upper[axis] = middle;
            right_lower[axis] = middle;
            let depth = parent.depth + 1;
            children.push((lower.to_vec(), left_upper, depth, Some(k)));
            children.push((right_lower, upper.to_vec(), depth, Some(k)));
            self.estimates[k].live = false;
            self.running_value = self.running_value + (-parent.value).to_accumulator();
            self.running_error += (-parent.error).to_accumulator();
        }
        self.evaluate(&children, parallel)
    }

    /// Applies the rule to `regions` = (lower, upper, depth, parent), one call for all their
    /// class sums (the backend's, or on the calling thread), and files them.
    #[allow(clippy::type_complexity)]
    fn evaluate(
        &mut self,
        regions: &[(Vec<T>, Vec<T>, u32, Option<usize>)],
        parallel: bool,
    ) -> Result<()> {
        let n = self.dims;
        let mut centers = Vec::with_capacity(regions.len() * n);
        let mut halves = Vec::with_capacity(regions.len() * n);
        for (lower, upper, _, _) in regions {
            centers.extend(lower.iter().zip(upper).map(|(&a, &b)| midpoint(a, b)));
            halves.extend(lower.iter().zip(upper).map(|(&a, &b)| half_width(a, b)));
        }
        let start = Instant::now();
        let generators = self.rule.generators();
        let (sums, device) = if parallel {
            let device =
                self.backend
                    .device_for_rule::<T, F>(self.f, regions.len(), self.rule.set());
            let sums = self
                .backend
                .genz_malik_sums(self.f, &centers, &halves, generators)?;
            (sums, device)
        } else {
            let each = centers
                .chunks_exact(n)
                .zip(halves.chunks_exact(n))
                .map(|(c, h)| region_sums(self.f, c, h, generators));
            (RuleSums::collect(each), self.serial.clone())
        };
        if let Some((r, k)) = sums.bad {
            // Name the point as the CPU's point lists do: in the working precision, with its
            // value (evaluated again here: the device reports where, not what).
            let (c, h) = (&centers[r * n..(r + 1) * n], &halves[r * n..(r + 1) * n]);
            let mut x = vec![T::zero(); n];
            rule_point(k, c, h, generators, &mut x);
            let columns: Vec<&[T]> = x.iter().map(std::slice::from_ref).collect();
            let mut y = [T::zero()];
            self.f.eval_batch(&columns, &mut y);
            check_finite(&x, &y)?;
            let coordinates: Vec<String> = x.iter().map(|c| c.to_string()).collect();
            return Err(Error::NonFinite {
                x: format!("({})", coordinates.join(", ")),
                value: format!("{} on the device (here {})", "not a finite number", y[0]),
            });
        }
        let count = regions.len() * self.rule.points();
        self.evaluations += count as u64;
        self.rounds += 1;

        let mut made: Vec<Estimate<T>> = Vec::with_capacity(regions.len());
        let mut floors = Vec::with_capacity(regions.len());
        for (r, (lower, upper, depth, parent)) in regions.iter().enumerate() {
            let half = &halves[r * n..(r + 1) * n];
            let mut rule = self.rule.estimate_of(half, &sums, r);
            subnormal_rounding(&mut rule, lower, upper, &centers[r * n..(r + 1) * n], half);
            let axis = choose_axis(
                &rule.fourth_differences,
                &rule.difference_noise,
                lower,
                upper,
            );
            let error = self.rule.claimed_error(&rule, parent.is_some());
            made.push(Estimate {
                value: rule.value,
                error,
                axis,
                depth: *depth,
                live: true,
            });
            floors.push(rule.floor);
        }
        // Children come in pairs from one parent: the parent check needs both.
        for (pair, chunk) in regions.chunks(2).zip(made.chunks_mut(2)) {
            if let ([(.., Some(parent)), _], [left, right]) = (pair, chunk) {
                let parent = self.estimates[*parent];
                let d = ((left.value + right.value - parent.value).abs().to_f64()) / 4.0;
                let e = left.error + right.error;
                if e > 0.0 {
                    let c = 1.0 + 2.0 * d / e;
                    left.error *= c;
                    right.error *= c;
                }
                left.error += d;
                right.error += d;
            }
        }
        let mut deepest = 0;
        for ((lower, upper, depth, _), (mut estimate, floor)) in
            regions.iter().zip(made.into_iter().zip(floors))
        {
            estimate.error = estimate.error.max(floor);
            // Final: its error is rounding (within twice the floor: halving would not bring
            // it down), or no axis can be halved.
            if estimate.error <= 2.0 * floor {
                estimate.axis = None;
            }
            let index = self.estimates.len();
            if estimate.axis.is_some() {
                self.worklist.push(index, estimate.error);
            }
            self.running_value = self.running_value + estimate.value.to_accumulator();
            self.running_error += estimate.error.to_accumulator();
            self.lower.extend_from_slice(lower);
            self.upper.extend_from_slice(upper);
            self.estimates.push(estimate);
            deepest = deepest.max(*depth);
        }
        self.record(deepest, count as u64, device, start.elapsed());
        Ok(())
    }

    /// Adds a step to the record, into the last stage when it ran at the same depth on the
    /// same device.
    fn record(&mut self, level: u32, points: u64, device: Arc<str>, elapsed: Duration) {
        if let Some(last) = self.stages.last_mut() {
            if last.level == level && last.device == device {
                last.points += points;
                last.elapsed += elapsed;
                return;
            }
        }
        self.stages.push(Stage {
            level,
            points,
            device,
            elapsed,
        });
    }
}

/// Where a box's sides are subnormal, halving them rounds (an odd number of units): the rule's
/// volume, from the half-widths, is then off by up to 2^-1074 / h relative on each axis, and its
/// points by as much (over [1e-310, 2e-310] × [0, 1] the estimate of 10^300 was off by 5e-14
/// relative, against a claimed 2e-15). The value is rescaled to the exact volume (b − a is exact
/// between subnormals), and the points' shifts, δ_c / h an axis, count in the floor as a
/// relative error of the rule's magnitude. Nothing changes where every half-width is exact.
fn subnormal_rounding<T: Real>(
    rule: &mut super::rule::RuleEstimate<T>,
    lower: &[T],
    upper: &[T],
    center: &[T],
    half: &[T],
) {
    let mut scale = T::one();
    let mut shift = 0.0;
    for (((&a, &b), &c), &h) in lower.iter().zip(upper).zip(center).zip(half) {
        let width = b - a;
        if width.is_finite() && width != h.ldexp(1) {
            scale *= width / h.ldexp(1);
        }
        let sum = a + b;
        if sum.is_finite() && sum != c.ldexp(1) {
            shift += ((sum - c.ldexp(1)).abs().to_f64() / h.ldexp(1).to_f64()).abs();
        }
    }
    if scale != T::one() {
        rule.value *= scale;
    }
    if shift > 0.0 || scale != T::one() {
        let magnitude = rule.floor / (4.0 * T::epsilon().to_f64());
        rule.floor += (shift + (scale - T::one()).abs().to_f64()) * magnitude
            + 2.0 * T::epsilon().to_f64() * rule.value.to_f64().abs();
    }
}

/// κ: the axis of the largest fourth difference among those that can be halved; differences
/// within their rounding noise of the largest count as equal, and then the widest axis wins
/// (so that a region where f is near-quadratic along every axis is cut across its longest
/// side), the first among equals.
pub(super) fn choose_axis<T: Real>(
    differences: &[f64],
    noise: &[f64],
    lower: &[T],
    upper: &[T],
) -> Option<usize> {
    let can = |k: usize| splittable(lower[k], upper[k]);
    let largest = (0..differences.len())
        .filter(|&k| can(k))
        .map(|k| differences[k])
        .fold(f64::NEG_INFINITY, f64::max);
    let width = |k: usize| (upper[k] - lower[k]).to_f64();
    let mut best: Option<usize> = None;
    for k in (0..differences.len()).filter(|&k| can(k)) {
        let tied = largest - differences[k] <= noise[k].max(1e-12 * largest);
        if tied && best.is_none_or(|b| width(k) > width(b)) {
            best = Some(k);
        }
    }
    best
}
