//! CUHRE with the region list on the device: the first phase of Arumugam et al.'s two-phase GPU
//! algorithm (`../shared/papers/cuhre-gpu-arumugam-et-al.txt`, §III: INIT-PARTITION, then
//! rounds of C-RULE, UPDATE, classification and PARTITION by prefix scan) with the filter of its
//! successor PAGANI (Sakiotis, Arumugam, Paterno, Ranjan, Terzić and Zubair, "PAGANI: a parallel
//! adaptive GPU algorithm for numerical integration", SC 2021): every round evaluates the whole
//! list, retires the regions whose error is within τ_rel of their own estimate (PAGANI's test)
//! or within a small share of the tolerance left for their volume (their estimate and error are
//! accumulated), and splits every other region in two along its axis. The list, its estimates
//! and its splits stay on the device; a round brings back a few numbers.
//!
//! ```text
//! L ← the box cut into k^n equal regions (k^n ≤ INITIAL_REGIONS)
//! (I_f, ε_f, V_f) ← 0                          the finished regions' sums
//! loop:
//!     C-RULE on every region of L; DCUHRE's parent check; floors        (settle)
//!     I ← I_f + Σ_L I_r;  ε ← ε_f + Σ_L ε_r
//!     stop if ε ≤ max(τ_abs, τ_rel |I|)                                  (met)
//!     ρ ← p (max(τ_abs, τ_rel |I|) − ε_f) / V(L)    a part p of the tolerance left a volume
//!     region r active ⇔ it can be halved, ε_r > τ_rel |I_r| and ε_r > ρ V_r   (filter)
//!         (in the first round: every region that can be halved)
//!     if ε_f > 0.75 tol: mark the worst retired regions, ε_f → ≤ 0.5 tol    (revive)
//!     if none is active or revived: active ⇔ ε_r > ρ V_r alone     (signs that cancel)
//!     retire the others: I_f += Σ I_r, ε_f += Σ ε_r (kept in the retired list)
//!     L ← both halves of each active region, then of each revived one    (split)
//! ```
//!
//! The relative test ε_r ≤ τ_rel |I_r| ([`RELATIVE_PART`]) gives each region the tolerance in
//! proportion to its part of the integral: for an integrand of one sign the finished errors add
//! to at most τ_rel |I|, so the test never overspends, and where the integral is concentrated
//! (the corner peak's, near the origin) the regions there are refined to τ_rel of their own
//! size and no further. The share of volume alone (the filter before it, ε_r ≤ ρ V_r with all of
//! the tolerance left) asks the regions at a peak for the average density's accuracy, far more
//! than their part: on the corner peak in 8 dimensions it cost 1.7·10^9 evaluations to 1e-5 and
//! 3.2·10^10 to 1e-6 (H100). The share ρ, a part p = [`VOLUME_PART`] of the tolerance still
//! unspent spread over the volume still active, finishes the regions the relative test cannot
//! (estimates near 0: a Gaussian's tails, the zero part of the discontinuous integrand, signs
//! that cancel) while leaving most of the budget to it; computed on the device right after the
//! rule, so that a round brings back one copy of a few numbers. Host-measured (the CPU
//! reference list, [`super::host_list`], the rule each integrand gets; evaluations), the
//! filter of volume alone against this one:
//!
//! | case | τ | volume alone | this filter | sequential CUHRE |
//! |---|---|---|---|---|
//! | corner peak n=8 | 1e-3 | 7.8·10^7 (13 rounds) | 7.6·10^7 (12) | 3.2·10^6 |
//! | corner peak n=8 | 1e-4 | 1.5·10^8 (17) | 1.2·10^8 (17) | 3.4·10^7 |
//! | corner peak n=8 | 1e-5 | 1.7·10^9 (21) | 6.2·10^8 (21) | 3.6·10^8 |
//! | Gaussian n=6 | 1e-5 | 4.3·10^8 (24) | 3.2·10^8 (18) | |
//! | Gaussian n=8 | 1e-3 | 5.4·10^8 (22) | 4.1·10^8 (19) | |
//! | discontinuous n=6 | 1e-4 | 6.5·10^8 (30) | 5.7·10^8 (30) | |
//! | product peak n=5 | 1e-3 | 9.6·10^7 (14) | 1.3·10^8 (11) | 3.4·10^7 |
//!
//! (Measured with the degree-9 rule's safety factor at 20; at 5, [`super::SAFETY_DEGREE9`],
//! this filter's column reads 7.3·10^7, 2.2·10^8, 1.9·10^8, 3.5·10^8, 5.7·10^8 (the
//! discontinuous integrand has the degree-7 rule) and 9.9·10^7, and the corner peak to 1e-6
//! takes 1.45·10^9.)
//!
//! With the relative test alone (p = 0) the corner peak took 6.5·10^8 to 1e-5 but the product
//! peak 2.6·10^8 to 1e-3; with p = 0.25 the 8-dimensional Gaussian brought back retired regions
//! (7.6·10^8). (These with 4^8 initial regions, see [`INITIAL_REGIONS`].)
//!
//! The first round retires nothing: every region the list retires has been through DCUHRE's
//! parent check (the initial regions have no parent).
//!
//! Where an early |I| is far above the integral (the Gaussian's peak on the edges of the initial
//! cells in 8 dimensions), regions are retired at a tolerance the integral does not have; with
//! retired regions never revisited the run could not converge (H100: the 8-dimensional
//! Gaussian to 1e-3, 3.7 digits, not converged, where the host's rounds converge). So the
//! device keeps the retired regions (corners, estimate, error, axis) in a retired list, and when
//! their errors pass 75% of the tolerance the worst of them come back (the largest density at
//! which the errors left are within 50%, a search of a few filters of the retired list; their
//! halves join the next list): the global adaptive rule's answer, as PAGANI recomputes with a
//! stricter threshold. Measured on the H100 with the filter of volume alone: the
//! 8-dimensional Gaussian to 1e-3 converges in 281 ms (4.3 digits). Triggered at 95% (to 75%)
//! it did not converge (the share left to the list shrinks towards 0 and the list doubles to
//! the cap), though the 6-dimensional Gaussian brought back fewer regions there (74 ms against
//! 94). The revival searches the density alone (the largest errors per volume come back). The
//! share of the least integral the errors allow, |I| − ε, was measured too (H100) and is
//! worse: while the coarse estimates' errors exceed |I| nothing retires and the list doubles
//! every round. A retired region that cannot be halved, or that found no room in the retired
//! list (its memory is bounded too), is retired for good; when those alone pass the tolerance
//! the run stops, `converged: false`.
//!
//! Memory (the paper's Lmax, from the device's free memory, not its Fermi constant): when the
//! halves of the active regions would not fit, ρ is raised (bisection, each step a count on the
//! device) until the active regions' halves fit, and the regions below it are retired with
//! their errors: the list never outgrows the device. That is PAGANI's answer to a full list and
//! this module's second phase; its stages are recorded as such. The paper's own second phase
//! (one thread a region, a bounded heap each) is not implemented. The evaluation cap stops the
//! run before a round that would pass it, with `converged: false` and ε as the error.
//!
//! Determinism: the list's order depends on the numbers only (compaction keeps list order),
//! and every device sum is in a fixed order for a list, so a run on a device kind gives the
//! same bits every time.
//!
//! The per-region rules are the host's: [`settle`] (DCUHRE's parent check, the floor,
//! finality) and [`is_active`] are what the device's kernels compute, and the CPU reference
//! list ([`super::host_list::HostList`]) runs the whole driver with them.

use std::sync::Arc;
use std::time::Instant;

use precision::Real;

use super::regions::choose_axis;
use super::{tolerance, CubatureRule, Hyperbox};
use crate::backend::{check_finite, region_sums, rule_point, PointSet};
use crate::error::{Error, Result};
use crate::integrand::Integrand;
use crate::methods::adaptive::nothing_done;
use crate::methods::{Options, Outcome, Stage};
use crate::rules::{half_width, midpoint};

/// The regions of the initial partition at most: k^n ≤ 256, k the largest such (2 cuts an
/// axis in 6 to 8 dimensions, 3 in 5), PAGANI's start. The list doubles its active regions
/// a round, so a coarse start costs a few rounds on a device mostly idle, while a fine one
/// refines everywhere what only a part needs. On the CPU list
/// (tests/cuhre.rs, `the_pagani_cases_on_the_host_list`), with 2^16 the discontinuous
/// integrand in 6 dimensions to 1e-4 (6^6 initial regions) took 5.7·10^8 evaluations against
/// 1.1·10^8 from 2^6, the corner peak in 8 dimensions to 1e-3 7.3·10^7 (4^8 regions, one
/// round of 7.2·10^7) against 1.8·10^6, and to 1e-5 2.2·10^8 against 1.3·10^8.
pub const INITIAL_REGIONS: u64 = 256;

/// Sums over a list or its finished part, as the device reduces them.
#[derive(Debug, Clone, Copy)]
pub struct ListSums<T: Real> {
    /// Σ of the regions' estimates, in the accumulator.
    pub value: T::Accumulator,
    /// Σ of their errors (compensated on the device, rounded).
    pub error: f64,
    /// Σ of their volumes.
    pub volume: f64,
    /// After a filter: the active regions.
    pub active: u64,
    /// After the rule: the first region (in list order) with a point whose value is not
    /// finite, and that point's index in the order of [`rule_point`].
    pub bad: Option<(u64, u64)>,
}

/// No regions' sums.
pub fn empty<T: Real>() -> ListSums<T> {
    ListSums {
        value: T::zero().to_accumulator(),
        error: 0.0,
        volume: 0.0,
        active: 0,
        bad: None,
    }
}

/// What the device needs to compute the tolerance's share after the rule: ρ =
/// `part` max(tol − spent, 0) / V(L) with tol = max(`absolute`, `relative` |`retired_value` +
/// Σ_L I_r|), and the filter's relative threshold.
#[derive(Debug, Clone, Copy, Default)]
pub struct Share {
    /// The absolute tolerance.
    pub absolute: f64,
    /// The relative tolerance (for the working precision).
    pub relative: f64,
    /// The retired regions' estimates, summed.
    pub retired_value: f64,
    /// The retired regions' errors, summed.
    pub spent: f64,
    /// The part of the tolerance left that the density spreads ([`VOLUME_PART`]).
    pub part: f64,
    /// The filter's relative threshold ([`Threshold::relative`]).
    pub per_region: f64,
}

/// A round's numbers: the list's sums after the rule, and the filter at the share's density.
#[derive(Debug, Clone, Copy)]
pub struct Round<T: Real> {
    /// Σ over the list (estimates, settled errors, volumes; `bad`).
    pub list: ListSums<T>,
    /// The filter at `density`: the finished regions' sums, the active count.
    pub finished: ListSums<T>,
    /// The share per unit of volume the device computed from [`Share`].
    pub density: f64,
}

/// A list of regions kept by a device, the retired regions it keeps to bring back, and the
/// steps of a round on them.
pub trait RegionList<T: Real> {
    /// The device, for the record.
    fn device(&self) -> Arc<str>;
    /// The point set of the rule the list computes (degree 7 or 9, fixed when it was made).
    fn point_set(&self) -> PointSet;
    /// Makes the list the regions whose corners are `lower` and `upper` (dims values a region,
    /// region-major), with no parents; the retired list empty.
    fn load(&mut self, lower: &[T], upper: &[T]) -> Result<()>;
    /// The regions in the list.
    fn regions(&self) -> u64;
    /// The rule on every region, then [`settle`] (with the parent check when the list came
    /// from a split), then the filter ([`is_active`]) at the density `share` gives: both sums.
    fn rule(&mut self, share: &Share) -> Result<Round<T>>;
    /// Marks each region active or finished by [`is_active`] at `threshold`: the sums over the
    /// finished regions, and the active count.
    fn filter(&mut self, threshold: Threshold) -> Result<ListSums<T>>;
    /// Makes room for a next list of `regions` regions if it can: the regions the next list
    /// can hold (`regions` or more when there is room).
    fn room(&mut self, regions: u64) -> Result<u64>;
    /// Makes room for `regions` more retired regions if it can: whether they fit.
    fn keep(&mut self, regions: u64) -> Result<bool>;
    /// Marks the retired regions that [`is_active`] at `threshold` to be brought back by the
    /// next split (replacing earlier marks): their sums and count.
    fn revive(&mut self, threshold: Threshold) -> Result<ListSums<T>>;
    /// The sums over the retired list (those brought back gone); clears the marks.
    fn retired(&mut self) -> Result<ListSums<T>>;
    /// Replaces the list with the halves of the regions the last filter marked active, in list
    /// order, then those of the retired regions marked by [`RegionList::revive`] (which leave
    /// the retired list); each pair's parent is the region it came from. With `keep`, the
    /// finished regions join the retired list (room made by [`RegionList::keep`]).
    fn split(&mut self, keep: bool) -> Result<()>;
    /// The corners of region `region` of the list.
    fn bounds(&mut self, region: u64) -> Result<(Vec<T>, Vec<T>)>;
}

/// One region's estimate as the rule leaves it, before [`settle`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Raw<T> {
    /// The rule's estimate.
    pub value: T,
    /// The null rules' error, times the rule's factor where the ratio test passed
    /// ([`CubatureRule::claimed_error`]).
    pub error: f64,
    /// The rounding floor.
    pub floor: f64,
    /// The axis to split along, or `None` when none can be halved.
    pub axis: Option<usize>,
}

/// The centre and half-widths of the box `lower`..`upper`, an axis each, as the rules take it.
pub fn center_and_half<T: Real>(lower: &[T], upper: &[T]) -> (Vec<T>, Vec<T>) {
    lower
        .iter()
        .zip(upper)
        .map(|(&a, &b)| (midpoint(a, b), half_width(a, b)))
        .unzip()
}

/// One region's estimate as the list's rule kernel computes it (`kernels/cuhre_list.cu`), here
/// on the host: the rule on the region `lower`..`upper` (its class sums in the order of its
/// points), [`CubatureRule::estimate`], the rule's factor where the ratio test passed
/// ([`CubatureRule::claimed_error`]; `checked`: the region is a half of a split, which
/// [`settle`] will check against its parent) and the axis of the largest fourth difference. The
/// reference the device's kernel is checked against (tests/gpu_cuhre_device.rs), and the CPU
/// list's ([`super::host_list`]).
pub fn estimate_region<T: Real, F: Integrand>(
    f: &F,
    rule: &CubatureRule<T>,
    lower: &[T],
    upper: &[T],
    checked: bool,
) -> Raw<T> {
    let (center, half) = center_and_half(lower, upper);
    let (classes, fourth, _) = region_sums(f, &center, &half, rule.generators());
    let e = rule.estimate(&half, &classes, &fourth);
    let axis = choose_axis(&e.fourth_differences, &e.difference_noise, lower, upper);
    Raw {
        value: e.value,
        error: rule.claimed_error(&e, checked),
        floor: e.floor,
        axis,
    }
}

/// DCUHRE's check of two halves against their parent (`parent`, their parent's estimate; none
/// for the initial regions), then the floor and finality, as in `regions.rs`: with
/// d = |I_left + I_right − I_parent| / 4 and e = ε_left + ε_right, each error becomes
/// ε (1 + 2d/e) + d; then max(ε, floor), and a region within twice its floor is final (no
/// axis). Returns the settled errors and axes.
pub fn settle<T: Real>(pair: &[Raw<T>], parent: Option<T>) -> Vec<(f64, Option<usize>)> {
    let mut errors: Vec<f64> = pair.iter().map(|r| r.error).collect();
    if let (Some(up), [left, right]) = (parent, pair) {
        let d = (left.value + right.value - up).abs().to_f64() / 4.0;
        let e = left.error + right.error;
        for error in errors.iter_mut() {
            if e > 0.0 {
                *error *= 1.0 + 2.0 * d / e;
            }
            *error += d;
        }
    }
    pair.iter()
        .zip(errors)
        .map(|(r, error)| {
            let error = error.max(r.floor);
            let axis = if error <= 2.0 * r.floor { None } else { r.axis };
            (error, axis)
        })
        .collect()
}

/// The filter's two thresholds: the tolerance left per unit of volume, and the part of its own
/// estimate a region's error may be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Threshold {
    /// The share of the tolerance per unit of volume.
    pub density: f64,
    /// The relative error a region may keep (a part of τ_rel).
    pub relative: f64,
}

impl Threshold {
    /// The volume share alone (no relative test), as the revival of retired regions judges
    /// them; `f64::INFINITY` leaves every region inactive.
    pub fn volume_only(density: f64) -> Threshold {
        Threshold {
            density,
            relative: 0.0,
        }
    }
}

/// Whether a region stays in the list: it can be halved, its error exceeds its share
/// `density` × `volume` of the tolerance left, and it exceeds `relative` × |its estimate|
/// (`magnitude`).
pub fn is_active(
    error: f64,
    axis: Option<usize>,
    magnitude: f64,
    volume: f64,
    threshold: Threshold,
) -> bool {
    axis.is_some() && error > threshold.density * volume && error > threshold.relative * magnitude
}

/// The cuts an axis of the initial partition: the largest k with k^n ≤ `most` (at most
/// [`INITIAL_REGIONS`]) and k^n rule evaluations within `cap`, at least 1.
pub fn initial_cuts(dims: usize, points: u64, cap: u64, most: u64) -> u64 {
    let most = most.min(INITIAL_REGIONS);
    let fits = |k: u64| {
        k.checked_pow(dims as u32)
            .is_some_and(|regions| regions <= most && regions.saturating_mul(points) <= cap)
    };
    let mut k = 1;
    while fits(k + 1) {
        k += 1;
    }
    k
}

/// The box cut into `cuts` equal pieces an axis, region-major corners, the first axis
/// fastest; neighbours share their edge exactly.
fn partition<T: Real>(region: &Hyperbox<T>, cuts: u64) -> (Vec<T>, Vec<T>) {
    let n = region.dims();
    let edge = |d: usize, j: u64| {
        let (a, b) = (region.lower()[d], region.upper()[d]);
        if j == cuts {
            b
        } else {
            a + (b - a) * T::from_i64(j as i64) / T::from_i64(cuts as i64)
        }
    };
    let total = cuts.pow(n as u32);
    let (mut lower, mut upper) = (Vec::new(), Vec::new());
    for cell in 0..total {
        let mut rest = cell;
        for d in 0..n {
            let j = rest % cuts;
            rest /= cuts;
            lower.push(edge(d, j));
            upper.push(edge(d, j + 1));
        }
    }
    (lower, upper)
}

/// Why a run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Finish {
    Met,
    Capped,
    Exhausted,
}

/// The density at which at most `target` regions stay active: doubled from `from` until the
/// count fits, then bisected (geometrically) 40 times; each step a filter on the device.
fn fitting_density<T: Real, L: RegionList<T>>(
    list: &mut L,
    from: f64,
    seed: f64,
    target: u64,
    relative: f64,
) -> Result<f64> {
    let at = |density| Threshold { density, relative };
    let mut low = from;
    let mut high = if from > 0.0 { 2.0 * from } else { seed };
    if !(high > 0.0 && high.is_finite()) {
        high = f64::MIN_POSITIVE;
    }
    while list.filter(at(high))?.active > target {
        low = high;
        high *= 2.0;
        if !high.is_finite() {
            return Ok(f64::MAX);
        }
    }
    for _ in 0..40 {
        let middle = if low > 0.0 {
            (low * high).sqrt()
        } else {
            high / 2.0
        };
        if list.filter(at(middle))?.active > target {
            low = middle;
        } else {
            high = middle;
        }
    }
    Ok(high)
}

/// The filter's relative threshold, a part of τ_rel: PAGANI's test (Sakiotis et al. 2021,
/// §4: a region is finished when ε_r ≤ τ_rel |I_r|), which gives each region the tolerance in
/// proportion to its part of the integral. For an integrand of one sign the finished errors
/// then add to at most τ_rel |I|; where signs cancel they may pass it, and the revival brings
/// the worst back.
pub const RELATIVE_PART: f64 = 1.0;

/// The part of the tolerance left (spread over the active volume) within which a region is
/// finished whatever its estimate: for the regions whose estimates are too small for the
/// relative test (a Gaussian's tails) or change sign. Small, so that these regions do not
/// spend the budget that the relative test relies on: host-measured (the CPU reference list),
/// 0.25 brought back retired regions on the 8-dimensional Gaussian (7.6·10^8 evaluations
/// against 4.1·10^8 at 0.1), 1 on every case (the filter of volume alone).
pub const VOLUME_PART: f64 = 0.1;

/// Retired errors past this part of the tolerance bring the worst retired regions back...
const REVIVE_AT: f64 = 0.75;
/// ...until the retired errors left are within this part.
const REVIVE_TO: f64 = 0.5;

/// Marks the retired regions to bring back: those above the largest density (a search, each
/// step a filter of the retired list) at which the retired errors left, `spent` less theirs,
/// are within `target`; all that can be halved when none is. `kept` are the retired list's
/// sums. The marks of the last call to [`RegionList::revive`] are the ones returned.
fn revive<T: Real, L: RegionList<T>>(
    list: &mut L,
    spent: f64,
    kept: &ListSums<T>,
    target: f64,
) -> Result<ListSums<T>> {
    // The largest errors per volume come back, whatever their part of their estimates.
    let at = Threshold::volume_only;
    if !(kept.error > 0.0 && kept.volume > 0.0) {
        return Ok(empty());
    }
    let enough = |s: &ListSums<T>| spent - s.error <= target;
    // [low, high]: enough at low, not at high.
    let start = kept.error / kept.volume;
    let (mut low, mut high);
    let first = list.revive(at(start))?;
    if enough(&first) {
        low = start;
        high = 4.0 * start;
        while enough(&list.revive(at(high))?) {
            low = high;
            high *= 4.0;
            if !high.is_finite() {
                return list.revive(at(low));
            }
        }
    } else {
        high = start;
        low = start / 4.0;
        loop {
            if low < start * 1e-30 {
                // Everything that can be halved.
                return list.revive(at(0.0));
            }
            if enough(&list.revive(at(low))?) {
                break;
            }
            high = low;
            low /= 4.0;
        }
    }
    for _ in 0..4 {
        let middle = (low * high).sqrt();
        if enough(&list.revive(at(middle))?) {
            low = middle;
        } else {
            high = middle;
        }
    }
    list.revive(at(low))
}

/// Integrates `f` over `region` with the list kept by `list`, to the tolerance of `options`.
pub fn run<T: Real, F: Integrand, L: RegionList<T>>(
    f: &F,
    list: &mut L,
    region: &Hyperbox<T>,
    options: &Options,
) -> Result<Outcome<T>> {
    let dims = region.dims();
    let points = list.point_set().points(dims) as u64;
    let cap = options.max_evaluations;
    let device = list.device();
    let first_phase: Arc<str> = Arc::from(format!("{device}, region list"));
    let second_phase: Arc<str> = Arc::from(format!("{device}, region list filtered to memory"));
    let mut outcome = nothing_done::<T>();
    if points > cap {
        return Ok(outcome);
    }
    let most = list.room(INITIAL_REGIONS)?;
    let cuts = initial_cuts(dims, points, cap, most);
    let (lower, upper) = partition(region, cuts);
    list.load(&lower, &upper)?;

    // The retired regions: those the retired list keeps (they can be brought back), and
    // those it had no room for (or that cannot be halved), summed for good.
    let mut kept = empty::<T>();
    let mut lost_value = T::zero().to_accumulator();
    let mut lost_error = 0.0f64.to_accumulator();
    let relative = options.relative_for::<T>();
    // The relative part of the filter: a region whose error is within τ_rel of its own
    // estimate is done.
    let per_region = RELATIVE_PART * relative;
    let mut phase = first_phase.clone();
    let mut round = 0u32;
    let finish = loop {
        let start = Instant::now();
        let regions = list.regions();
        let retired_value = lost_value + kept.value;
        let retired_error = lost_error + kept.error.to_accumulator();
        let spent = f64::from_accumulator(retired_error);
        // No region retires before DCUHRE's parent check has seen it (the initial regions
        // have no parent, and coarse ones can pass the ratio test by accident). A share and
        // threshold of 0 keep every region that can be halved.
        let (part, threshold) = if round == 0 {
            (0.0, 0.0)
        } else {
            (VOLUME_PART, per_region)
        };
        let share = Share {
            absolute: options.absolute,
            relative,
            retired_value: T::from_accumulator(retired_value).to_f64(),
            spent,
            part,
            per_region: threshold,
        };
        let sums = list.rule(&share)?;
        outcome.evaluations += regions * points;
        outcome.levels += 1;
        if let Some((r, k)) = sums.list.bad {
            return Err(non_finite(f, list, r, k)?);
        }
        let value = T::from_accumulator(retired_value + sums.list.value);
        let error = f64::from_accumulator(retired_error + sums.list.error.to_accumulator());
        outcome.value = value;
        outcome.error = error;
        if !value.to_f64().is_finite() || error.is_nan() {
            // Past the precision's range (the integral, or a region's volume): no split
            // brings it back.
            return Err(Error::Overflow {
                value: value.to_string(),
                evaluations: outcome.evaluations,
            });
        }
        let tol = tolerance::<T>(options, value);
        let mut stop = None;
        let mut marked = sums.finished;
        let mut density = sums.density;
        let mut revived = empty::<T>();
        // The relative threshold of the filter that marked the list.
        let mut relative_test = per_region;
        if error <= tol {
            stop = Some(Finish::Met);
        } else if spent > REVIVE_AT * tol {
            // The retired regions hold more than their part of the tolerance (|I| fell since
            // they were retired, or the memory bound retired them): the worst come back.
            revived = revive(list, spent, &kept, REVIVE_TO * tol)?;
            let rest = spent - revived.error;
            if rest > tol {
                // What cannot come back (no axis to halve, or no room kept it) passes the
                // tolerance alone.
                stop = Some(Finish::Exhausted);
            } else if revived.active > 0 {
                density = VOLUME_PART * (tol - rest).max(0.0) / (sums.list.volume + revived.volume);
                marked = list.filter(Threshold {
                    density,
                    relative: per_region,
                })?;
            }
        }
        if stop.is_none() && marked.active + revived.active == 0 {
            // Every region passed the relative test, yet their errors add past the tolerance:
            // their estimates cancel (|I| far below Σ|I_r|). The volume share alone judges
            // them then, and some region is above it (their errors exceed the part left).
            density = VOLUME_PART * (tol - spent).max(0.0) / sums.list.volume;
            relative_test = 0.0;
            marked = list.filter(Threshold::volume_only(density))?;
        }
        if stop.is_none() {
            let halves = 2 * (marked.active + revived.active);
            if halves == 0 {
                stop = Some(Finish::Exhausted);
            } else if outcome.evaluations.saturating_add(halves * points) > cap {
                stop = Some(Finish::Capped);
            } else {
                let room = list.room(halves)?;
                if room < halves {
                    // The halves would not fit: retire more, the smallest errors per volume,
                    // and bring back none if those alone would not fit.
                    let mut target = (room / 2).saturating_sub(revived.active);
                    if target == 0 {
                        revived = list.revive(Threshold::volume_only(f64::INFINITY))?;
                        target = room / 2;
                    }
                    let seed = sums.list.error / sums.list.volume;
                    let raised = fitting_density(list, density, seed, target, relative_test)?;
                    marked = list.filter(Threshold {
                        density: raised,
                        relative: relative_test,
                    })?;
                    phase = second_phase.clone();
                    if marked.active + revived.active == 0 {
                        stop = Some(Finish::Exhausted);
                    }
                }
            }
        }
        push_stage(&mut outcome.stages, round, regions * points, &phase, start);
        if let Some(stop) = stop {
            break stop;
        }
        let keep = list.keep(regions - marked.active)?;
        list.split(keep)?;
        if !keep {
            lost_value = lost_value + marked.value;
            lost_error += marked.error.to_accumulator();
        }
        if revived.active > 0 {
            // Summed afresh: those brought back are gone from the retired list.
            kept = list.retired()?;
        } else if keep {
            kept.value = kept.value + marked.value;
            kept.error += marked.error;
            kept.volume += marked.volume;
        }
        round += 1;
    };
    outcome.converged =
        finish == Finish::Met || options.is_met::<T>(outcome.error, outcome.value.to_f64());
    Ok(outcome)
}

/// A stage a round: `level` is the round (halvings from the initial partition).
fn push_stage(stages: &mut Vec<Stage>, level: u32, points: u64, device: &Arc<str>, start: Instant) {
    stages.push(Stage {
        level,
        points,
        device: device.clone(),
        elapsed: start.elapsed(),
    });
}

/// The error for point `k` of region `r`, named as the CPU names it: in the working
/// precision, with its value evaluated again on the host.
fn non_finite<T: Real, F: Integrand, L: RegionList<T>>(
    f: &F,
    list: &mut L,
    r: u64,
    k: u64,
) -> Result<Error> {
    let (lower, upper) = list.bounds(r)?;
    let (center, half) = center_and_half(&lower, &upper);
    let rule = CubatureRule::<T>::with_set(list.point_set(), lower.len());
    let mut x = vec![T::zero(); lower.len()];
    rule_point(k, &center, &half, rule.generators(), &mut x);
    let columns: Vec<&[T]> = x.iter().map(std::slice::from_ref).collect();
    let mut y = [T::zero()];
    f.eval_batch(&columns, &mut y);
    if let Err(e) = check_finite(&x, &y) {
        return Ok(e);
    }
    let coordinates: Vec<String> = x.iter().map(|c| c.to_string()).collect();
    Ok(Error::NonFinite {
        x: format!("({})", coordinates.join(", ")),
        value: format!("not a finite number on the device (here {})", y[0]),
    })
}

#[cfg(test)]
mod tests {
    //! The driver on a list kept by the CPU with either rule and [`settle`] / [`is_active`]:
    //! what the device's kernels compute, one region at a time.
    use super::*;
    use crate::expr::Expr;
    use crate::methods::cuhre::host_list::HostList;

    fn integrate(
        source: &str,
        dims: usize,
        tol: f64,
        capacity: u64,
        set: PointSet,
    ) -> Outcome<f64> {
        integrate_counting(source, dims, tol, capacity, usize::MAX, set).0
    }

    /// The outcome and the retired regions brought back, the retired list holding at most
    /// `kept` entries.
    fn integrate_counting(
        source: &str,
        dims: usize,
        tol: f64,
        capacity: u64,
        kept: usize,
        set: PointSet,
    ) -> (Outcome<f64>, usize) {
        let f = Expr::parse(source, dims).unwrap();
        let mut list = HostList::new(&f, dims, capacity, set).with_retired_capacity(kept);
        let unit = Hyperbox::new(vec![0.0; dims], vec![1.0; dims]).unwrap();
        let options = Options {
            relative: Some(tol),
            ..Options::default()
        };
        let out = run(&f, &mut list, &unit, &options).unwrap();
        (out, list.revived())
    }

    #[test]
    fn the_parent_check_lifts_both_halves() {
        let raw = |value, error| Raw {
            value,
            error,
            floor: 1e-30,
            axis: Some(0),
        };
        // The halves add to 1.4 against a parent of 1.0: d = 0.1, e = 0.02, so each error
        // becomes ε (1 + 10) + 0.1.
        let out = settle(&[raw(0.7, 0.01), raw(0.7, 0.01)], Some(1.0));
        for (error, axis) in out {
            assert!((error - (0.01 * 11.0 + 0.1)).abs() < 1e-15, "{error}");
            assert_eq!(axis, Some(0));
        }
        // A region within twice its floor is final, its error the floor.
        let out = settle(
            &[Raw {
                value: 1.0,
                error: 1e-20,
                floor: 1e-18,
                axis: Some(1),
            }],
            None,
        );
        assert_eq!(out, vec![(1e-18, None)]);
        let at = |density, relative| Threshold { density, relative };
        assert!(is_active(2.0, Some(0), 1.0, 1.0, at(1.5, 0.0)));
        assert!(!is_active(1.0, Some(0), 1.0, 1.0, at(1.5, 0.0)));
        assert!(!is_active(9.0, None, 1.0, 1.0, at(1.5, 0.0)));
        // Within τ_rel of its estimate: done, whatever its share of volume.
        assert!(!is_active(2.0, Some(0), 4.0, 1.0, at(0.0, 0.5)));
        assert!(is_active(2.0, Some(0), 3.0, 1.0, at(0.0, 0.5)));
        assert!(!is_active(2.0, Some(0), 3.0, 1.0, at(2.0, 0.5)));
    }

    #[test]
    fn the_initial_partition_tiles_the_box() {
        assert_eq!(initial_cuts(8, 401, u64::MAX, u64::MAX), 2);
        assert_eq!(initial_cuts(5, 93, u64::MAX, u64::MAX), 3);
        assert_eq!(initial_cuts(3, 45, 45 * 26, u64::MAX), 2);
        assert_eq!(initial_cuts(3, 45, u64::MAX, 200), 5);
        let unit = Hyperbox::new(vec![0.0, -1.0], vec![1.0, 2.0]).unwrap();
        let (lower, upper) = partition(&unit, 3);
        let volume: f64 = lower
            .chunks(2)
            .zip(upper.chunks(2))
            .map(|(l, u)| (u[0] - l[0]) * (u[1] - l[1]))
            .sum();
        assert!((volume - 3.0).abs() < 1e-14);
        assert_eq!(&upper[16..18], &[1.0, 2.0]);
    }

    /// The Gaussian exp(-25 Σ (x_i - 1/2)^2) over [0, 1]^3: (√π erf(5/2) / 5)^3, erf(2.5) to
    /// 16 digits from Abramowitz and Stegun's table (0.999593047982555).
    #[test]
    fn the_driver_meets_the_tolerance_honestly() {
        for set in [PointSet::Degree7, PointSet::Degree9] {
            meets_the_tolerance_honestly(set);
        }
    }

    fn meets_the_tolerance_honestly(set: PointSet) {
        let factor = std::f64::consts::PI.sqrt() * 0.999_593_047_982_555 / 5.0;
        let exact = factor.powi(3);
        let source = "exp(-25*((x1-0.5)^2+(x2-0.5)^2+(x3-0.5)^2))";
        // The degree-9 rule is held to a tighter tolerance: 1e-7 takes it few rounds.
        let tol = match set {
            PointSet::Degree7 => 1e-7,
            PointSet::Degree9 => 1e-11,
        };
        let out = integrate(source, 3, tol, u64::MAX, set);
        assert!(out.converged, "{out:?}");
        let err = (out.value - exact).abs();
        assert!(
            err <= out.error && out.error <= tol * exact,
            "{err:e} {:e}",
            out.error
        );
        assert!(out.levels > 1 && out.stages.len() == out.levels as usize);
        // A list that may hold 2000 regions only: the second phase retires more each round,
        // and the result is still honest (converged or not).
        let small = integrate(source, 3, tol, 2000, set);
        let err = (small.value - exact).abs();
        assert!(err <= small.error, "{err:e} {:e}", small.error);
        assert!(small
            .stages
            .iter()
            .any(|s| s.device.ends_with("filtered to memory")));
        assert!(!small.converged || small.error <= tol * exact);
    }

    /// A list that may hold 2000 regions (the 3-D Gaussian of the test above): the memory
    /// bound retires regions past the tolerance's share, the worst of them come back while
    /// there is room, and the result is honest whether or not it converges; the same run with
    /// no room for retired regions can only retire them for good. The 4-D Gaussian with its
    /// peak on the edges of the initial cells (16 a side) converges honestly.
    #[test]
    fn retired_regions_come_back() {
        for set in [PointSet::Degree7, PointSet::Degree9] {
            retired_regions_come_back_with(set);
        }
    }

    fn retired_regions_come_back_with(set: PointSet) {
        let factor = std::f64::consts::PI.sqrt() * 0.999_593_047_982_555 / 5.0;
        let exact = factor.powi(3);
        let source = "exp(-25*((x1-0.5)^2+(x2-0.5)^2+(x3-0.5)^2))";
        let (out, revived) = integrate_counting(source, 3, 1e-9, 2000, usize::MAX, set);
        let err = (out.value - exact).abs();
        assert!(revived > 0);
        assert!(err <= out.error, "{err:e} {:e}", out.error);
        assert!(!out.converged || out.error <= 1e-9 * exact);
        let (lost, none) = integrate_counting(source, 3, 1e-9, 2000, 0, set);
        assert_eq!(none, 0);
        assert!((lost.value - exact).abs() <= lost.error);
        // Per axis √π/25 erf(12.5), erf(12.5) = 1 in f64.
        let exact = (std::f64::consts::PI.sqrt() / 25.0).powi(4);
        let source = "exp(-625*((x1-0.5)^2+(x2-0.5)^2+(x3-0.5)^2+(x4-0.5)^2))";
        let (out, _) = integrate_counting(source, 4, 1e-6, u64::MAX, usize::MAX, set);
        let err = (out.value - exact).abs();
        assert!(out.converged && err <= out.error, "{err:e} {:e}", out.error);
        assert!(out.error <= 1e-6 * exact);
    }
}
