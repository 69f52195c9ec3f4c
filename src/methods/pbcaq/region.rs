//! One region step of the cutting schemes (Fig. 3's loop body): a region `[lower, upper]` cut
//! into α·β equal intervals, each approximated with its error by the rule pair, and reduced to
//! what the step's decision needs ([`RegionSums`]). [`crate::backend::Backend::region_step`]
//! runs it; every device computes the same thing in the same order, so that the bits of a run
//! depend on its regions, never on where they were evaluated:
//!
//! - interval i is `[end(i), end(i + 1)]`, `end(i) = lower + width · i` with
//!   `width = (upper - lower) / (α·β)`, the last end exactly `upper` ([`Region::end`]);
//! - its points, estimate, error and rounding floor are the pair's (`pair.rs`);
//! - side cutting ([`Cut::Side`]) accepts the intervals from the top down to the first that is
//!   not within its share of the tolerance: [`RegionSums::first`] is the one above it (0 when
//!   all are, and always 0 for block cutting, which accepts or refuses the region whole);
//! - the sums run over the accepted intervals in groups of [`GROUP`] (a GPU block of one
//!   thread an interval), each group in the fixed tree of a block reduction (`kernels/
//!   reduce.cuh`: warps of 32 lanes folded at offsets 16, 8, 4, 2, 1, then the warp sums by the
//!   first warp, its lanes past the last warp zero; intervals outside the region or below
//!   `first` are zero lanes), and the groups' sums in group order: values in
//!   `T::Accumulator`, errors and floors in f64.
//!
//! The CPU evaluates a step in chunks of [`CHUNK_POINTS`] points on one thread, of
//! [`PARALLEL_CHUNK_POINTS`] spread over its pool; the GPU in one launch (`kernels/region.cu`,
//! either pair: a block a group, the last block to finish settling side cutting's first
//! interval) that leaves only the groups' sums to copy back.

use std::ops::{Add, Range};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use precision::Real;
use rayon::prelude::*;

use super::pair::{Pair, Piece};
use crate::backend::{check_finite, Backend};
use crate::error::Result;
use crate::integrand::Integrand;

/// The intervals of a group of the sums: one block of the GPU's region kernels (256 threads).
pub const GROUP: usize = 256;

/// Lanes of a warp, in the order of the sums' tree.
const WARP: usize = 32;

/// The warps of a group.
const WARPS_PER_GROUP: usize = GROUP / WARP;

/// The points of one chunk of a step on the calling thread at most (the CPU backend's chunk,
/// one `eval_batch` call): whole intervals, at least one.
pub const CHUNK_POINTS: usize = 512;

/// The fewest points of a task of a step spread over a pool: a batch of 128 points still
/// amortises the tape's cost per operation; a block step of trapezoid–Simpson goes by whole
/// warps of 32 intervals (65 points) instead (`Region::step_parallel`). Larger regions make
/// larger tasks, a few a thread. The chunking never changes the bits: each
/// interval's piece is its own, the sums go by groups.
pub const PARALLEL_CHUNK_POINTS: usize = 128;

/// The tasks a parallel step makes a thread of its pool, at most (about): enough for the
/// threads to even out, few enough that each task's work outweighs its hand-over.
const TASKS_PER_THREAD: usize = 4;

/// How a step judges its intervals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cut {
    /// Block cutting: the region is accepted or refused whole, by the caller, on its sums.
    Block,
    /// Side cutting: interval i is accepted when its error is within `tolerance · (its width)
    /// / span` (or twice its floor), and so is every interval above it.
    Side {
        /// The absolute tolerance of the whole integral.
        tolerance: f64,
        /// The length of the whole interval, b - a, as a double.
        span: f64,
    },
}

/// One region of a cutting scheme: what [`crate::backend::Backend::region_step`] computes on.
#[derive(Debug, Clone)]
pub struct Region<'a, T> {
    /// The pair of rules on each interval.
    pub pair: &'a Pair<T>,
    /// The region's lower end.
    pub lower: T,
    /// The region's upper end.
    pub upper: T,
    /// The width of each interval: (upper - lower) / intervals, in T.
    pub width: T,
    /// α·β, the number of intervals (at least one).
    pub intervals: usize,
    /// How the step judges them.
    pub cut: Cut,
}

/// What a region step gives back: the accepted intervals' sums ([`Region`]'s order).
#[derive(Debug, Clone, Copy)]
pub struct RegionSums<T: Real> {
    /// The first accepted interval: 0 for block cutting.
    pub first: usize,
    /// The sum of the accepted intervals' estimates.
    pub value: T::Accumulator,
    /// The sum of their errors: `error_lower + error_upper`.
    pub error: f64,
    /// The errors of the accepted intervals in the lower half (index below α·β / 2).
    pub error_lower: f64,
    /// The errors of those in the upper half.
    pub error_upper: f64,
    /// The sum of their rounding floors.
    pub floor: f64,
}

/// One group's part of [`RegionSums`].
#[derive(Debug, Clone, Copy)]
pub struct GroupSums<T: Real> {
    /// The estimates' sum.
    pub value: T::Accumulator,
    /// The errors' sum in the region's lower half.
    pub error_lower: f64,
    /// The errors' sum in its upper half.
    pub error_upper: f64,
    /// The floors' sum.
    pub floor: f64,
}

impl<T: Real> RegionSums<T> {
    /// The region's sums from its groups', in group order.
    pub fn from_groups(first: usize, groups: impl IntoIterator<Item = GroupSums<T>>) -> Self {
        let mut value = T::zero().to_accumulator();
        let (mut error_lower, mut error_upper, mut floor) = (0.0, 0.0, 0.0);
        for g in groups {
            value = value + g.value;
            error_lower += g.error_lower;
            error_upper += g.error_upper;
            floor += g.floor;
        }
        RegionSums {
            first,
            value,
            error: error_lower + error_upper,
            error_lower,
            error_upper,
            floor,
        }
    }
}

impl<'a, T: Real> Region<'a, T> {
    /// `[lower, upper]` cut into `intervals` (at least one) intervals of `pair`.
    pub fn new(pair: &'a Pair<T>, lower: T, upper: T, intervals: usize, cut: Cut) -> Self {
        let intervals = intervals.max(1);
        Region {
            pair,
            lower,
            upper,
            width: (upper - lower) / T::from_i64(intervals as i64),
            intervals,
            cut,
        }
    }

    /// The lower end of interval `i`; `upper` for `i` = α·β.
    pub fn end(&self, i: usize) -> T {
        if i >= self.intervals {
            self.upper
        } else {
            self.lower + self.width * T::from_i64(i as i64)
        }
    }

    /// The points that the step evaluates: the pair's for α·β intervals.
    pub fn points(&self) -> usize {
        self.pair.points(self.intervals)
    }

    /// The number of groups of the sums.
    pub fn groups(&self) -> usize {
        self.intervals.div_ceil(GROUP)
    }

    /// Point `k` of the region's list (the pair's abscissae over all its intervals).
    pub fn point(&self, k: usize) -> T {
        let per = self.pair.points(1);
        // The interval whose points hold k (trapezoid–Simpson: the last holds the last end).
        let i = (0..self.intervals)
            .find(|&i| k < self.pair.first_point(i + 1))
            .unwrap_or(self.intervals - 1);
        let mut points = Vec::with_capacity(per);
        self.pair
            .abscissae(&[self.end(i), self.end(i + 1)], &mut points);
        points[(k - self.pair.first_point(i)).min(per - 1)]
    }

    /// The ends of intervals `range`, into `ends`.
    fn ends(&self, range: Range<usize>, ends: &mut Vec<T>) {
        ends.clear();
        ends.extend((range.start..=range.end).map(|i| self.end(i)));
    }

    /// Whether interval `i` is within its share of `tolerance` (side cutting).
    fn within_share(&self, i: usize, piece: &Piece<T>, tolerance: f64, span: f64) -> bool {
        let width = self.end(i + 1) - self.end(i);
        piece.is_final(tolerance * (width.to_f64() / span))
    }

    /// The first accepted interval given every piece: past the last one that fails its share
    /// (side cutting), else 0.
    fn first_accepted(&self, pieces: &[Piece<T>]) -> usize {
        match self.cut {
            Cut::Block => 0,
            Cut::Side { tolerance, span } => pieces
                .iter()
                .enumerate()
                .rposition(|(i, p)| !self.within_share(i, p, tolerance, span))
                .map_or(0, |i| i + 1),
        }
    }

    /// Group `g`'s sums over the accepted pieces (index at least `first`), in the tree of a
    /// GPU block (see the module's note); `pieces` are the group's.
    pub(crate) fn group_sums(&self, g: usize, pieces: &[Piece<T>], first: usize) -> GroupSums<T> {
        let zero = T::zero().to_accumulator();
        let mut value = [zero; GROUP];
        let mut error_lower = [0.0; GROUP];
        let mut error_upper = [0.0; GROUP];
        let mut floor = [0.0; GROUP];
        let middle = self.intervals / 2;
        for (j, piece) in pieces.iter().enumerate() {
            let i = g * GROUP + j;
            if i < first {
                continue;
            }
            value[j] = piece.value.to_accumulator();
            if i < middle {
                error_lower[j] = piece.error;
            } else {
                error_upper[j] = piece.error;
            }
            floor[j] = piece.floor;
        }
        GroupSums {
            value: block_tree(&mut value, zero),
            error_lower: block_tree(&mut error_lower, 0.0),
            error_upper: block_tree(&mut error_upper, 0.0),
            floor: block_tree(&mut floor, 0.0),
        }
    }

    /// The sums from every piece, the groups reduced on the calling thread.
    fn sums(&self, pieces: &[Piece<T>]) -> RegionSums<T> {
        let first = self.first_accepted(pieces);
        let groups = pieces
            .chunks(GROUP)
            .enumerate()
            .map(|(g, p)| self.group_sums(g, p, first));
        RegionSums::from_groups(first, groups)
    }

    /// The intervals of a chunk: as many whole intervals as fit `points` (trapezoid–Simpson:
    /// their 2n + 1 points, so that 255 fit 512 and no batch of one point is left over).
    fn chunk_intervals(&self, points: usize) -> usize {
        let per = self.pair.first_point(1);
        (points.saturating_sub(self.pair.points(1) - per) / per).max(1)
    }

    /// The pieces of intervals `range`, evaluated on the calling thread into `out`.
    fn chunk_pieces<F: Integrand>(
        &self,
        f: &F,
        range: Range<usize>,
        out: &mut Vec<Piece<T>>,
    ) -> Result<()> {
        let mut ends = Vec::with_capacity(range.len() + 1);
        self.ends(range, &mut ends);
        let mut points = Vec::new();
        self.pair.abscissae(&ends, &mut points);
        let mut values = vec![T::zero(); points.len()];
        for (xs, ys) in points
            .chunks(CHUNK_POINTS)
            .zip(values.chunks_mut(CHUNK_POINTS))
        {
            f.eval_batch(&[xs], ys);
        }
        check_finite(&points, &values)?;
        self.pair.estimates(&ends, &values, out);
        Ok(())
    }

    /// The step on the calling thread, chunk after chunk: BCAQ's and SCAQ's.
    pub(crate) fn step_serial<F: Integrand>(&self, f: &F) -> Result<RegionSums<T>> {
        let chunk = self.chunk_intervals(CHUNK_POINTS);
        let mut pieces = Vec::with_capacity(self.intervals);
        for start in (0..self.intervals).step_by(chunk) {
            self.chunk_pieces(f, start..(start + chunk).min(self.intervals), &mut pieces)?;
        }
        Ok(self.sums(&pieces))
    }

    /// The step with its chunks and groups spread over the current rayon pool (the CPU
    /// backend's, inside its `install`): the same bits as [`Region::step_serial`].
    pub(crate) fn step_parallel<F: Integrand>(&self, f: &F) -> Result<RegionSums<T>> {
        // No more tasks than a few a thread: a task of 65 points costs a few microseconds,
        // which rayon's hand-over per task would eat a good part of.
        let fewest = self
            .intervals
            .div_ceil(TASKS_PER_THREAD * rayon::current_num_threads());
        let chunk = self.chunk_intervals(PARALLEL_CHUNK_POINTS).max(fewest);
        if self.cut == Cut::Block && chunk >= WARP {
            return self.step_by_warps(f, chunk / WARP);
        }
        let mut pieces = vec![
            Piece {
                value: T::zero(),
                error: 0.0,
                floor: 0.0,
            };
            self.intervals
        ];
        // Each chunk fills its own pieces; the first error in chunk order names the point of
        // smallest index, as a serial pass would.
        let results: Vec<Result<()>> = pieces
            .par_chunks_mut(chunk)
            .enumerate()
            .map(|(c, out)| {
                let start = c * chunk;
                let mut own = Vec::with_capacity(out.len());
                self.chunk_pieces(f, start..start + out.len(), &mut own)?;
                out.copy_from_slice(&own);
                Ok(())
            })
            .collect();
        results.into_iter().collect::<Result<()>>()?;
        let first = self.first_accepted(&pieces);
        let groups: Vec<GroupSums<T>> = pieces
            .par_chunks(GROUP)
            .enumerate()
            .map(|(g, p)| self.group_sums(g, p, first))
            .collect();
        Ok(RegionSums::from_groups(first, groups))
    }

    /// Block cutting's step in one pass over the pool: each task evaluates `warps` warps of
    /// intervals (32 each) and folds each warp as a group's tree does; the task that finishes
    /// a group's last warp folds the group's warp sums too, so that the calling thread only
    /// adds the groups' sums in order (a serial part of one addition a group: a thread that
    /// waits on it waits for 32 additions a step, not 32 group folds). Every interval is
    /// accepted (`first` is 0), so no lane waits for another task's pieces; the lanes past the
    /// region are zero in their warp, and the warps past it zero in their group, as in
    /// [`Region::group_sums`]: the same bits, whichever task folds a group.
    fn step_by_warps<F: Integrand>(&self, f: &F, warps: usize) -> Result<RegionSums<T>> {
        let slots = WarpSlots::new(self.intervals.div_ceil(WARP));
        let per_task = warps * WARP;
        // The first error in task order names the point of smallest index.
        let results: Vec<Result<()>> = (0..self.intervals.div_ceil(per_task))
            .into_par_iter()
            .map(|t| {
                let start = t * per_task;
                let end = (start + per_task).min(self.intervals);
                let mut pieces = Vec::with_capacity(end - start);
                self.chunk_pieces(f, start..end, &mut pieces)?;
                for (w, pieces) in pieces.chunks(WARP).enumerate() {
                    slots.set_warp(t * warps + w, self.warp_sums(start + w * WARP, pieces));
                }
                slots.warps_done(t * warps..(t * warps + warps).min(slots.warps.len()));
                Ok(())
            })
            .collect();
        results.into_iter().collect::<Result<()>>()?;
        Ok(RegionSums::from_groups(0, slots.into_groups()))
    }

    /// One warp's sums (the first fold of [`block_tree`]) over `pieces`, the intervals from
    /// `start` (at most 32; the lanes past them zero), every one accepted.
    fn warp_sums(&self, start: usize, pieces: &[Piece<T>]) -> GroupSums<T> {
        let zero = T::zero().to_accumulator();
        let mut value = [zero; WARP];
        let mut error_lower = [0.0; WARP];
        let mut error_upper = [0.0; WARP];
        let mut floor = [0.0; WARP];
        let middle = self.intervals / 2;
        for (j, piece) in pieces.iter().enumerate() {
            value[j] = piece.value.to_accumulator();
            if start + j < middle {
                error_lower[j] = piece.error;
            } else {
                error_upper[j] = piece.error;
            }
            floor[j] = piece.floor;
        }
        GroupSums {
            value: warp_tree(&mut value),
            error_lower: warp_tree(&mut error_lower),
            error_upper: warp_tree(&mut error_upper),
            floor: warp_tree(&mut floor),
        }
    }

    /// The step through `backend`'s point lists: every abscissa on the calling thread, one
    /// [`Backend::evaluate`], the pieces and sums on the calling thread. What a backend
    /// without a region step of its own does (the default of
    /// [`Backend::region_step`]).
    pub(crate) fn step_by_evaluate<B: Backend + ?Sized, F: Integrand>(
        &self,
        backend: &B,
        f: &F,
    ) -> Result<RegionSums<T>> {
        let mut ends = Vec::with_capacity(self.intervals + 1);
        self.ends(0..self.intervals, &mut ends);
        let mut points = Vec::with_capacity(self.points());
        self.pair.abscissae(&ends, &mut points);
        let values = backend.evaluate(f, &points)?;
        check_finite(&points, &values)?;
        self.sums_of_values(&ends, &values)
    }

    /// The pieces and sums from the values at every point of the region (`ends` its ends).
    fn sums_of_values(&self, ends: &[T], values: &[T]) -> Result<RegionSums<T>> {
        let mut pieces = Vec::with_capacity(self.intervals);
        self.pair.estimates(ends, values, &mut pieces);
        Ok(self.sums(&pieces))
    }
}

/// The sum of a group's lanes in the order of `block_reduce` (kernels/reduce.cuh): each warp
/// folded, then the warp sums by one warp whose lanes past the last warp are `zero`.
fn block_tree<A: Copy + Add<Output = A>>(lanes: &mut [A; GROUP], zero: A) -> A {
    let mut warps = [zero; WARP];
    for (w, lanes) in lanes.chunks_exact_mut(WARP).enumerate() {
        warps[w] = warp_tree(lanes);
    }
    warp_tree(&mut warps)
}

/// A warp's shuffle reduction: lane i adds lane i + offset for offsets 16, 8, 4, 2, 1; the sum
/// is lane 0's.
fn warp_tree<A: Copy + Add<Output = A>>(lanes: &mut [A]) -> A {
    let mut offset = WARP / 2;
    while offset > 0 {
        for i in 0..offset {
            lanes[i] = lanes[i] + lanes[i + offset];
        }
        offset /= 2;
    }
    lanes[0]
}

/// The warp and group sums of a block step spread over a pool ([`Region::step_by_warps`]):
/// each slot set once, by the task that computes it, and read only after it is set.
struct WarpSlots<T: Real> {
    /// Each warp's sums.
    warps: Vec<OnceLock<GroupSums<T>>>,
    /// Each group's warps set so far: the task that sets its last one folds the group.
    done: Vec<AtomicUsize>,
    /// Each group's sums.
    groups: Vec<OnceLock<GroupSums<T>>>,
}

impl<T: Real> WarpSlots<T> {
    /// Empty slots for `warps` warps.
    fn new(warps: usize) -> Self {
        let groups = warps.div_ceil(WARPS_PER_GROUP);
        WarpSlots {
            warps: (0..warps).map(|_| OnceLock::new()).collect(),
            done: (0..groups).map(|_| AtomicUsize::new(0)).collect(),
            groups: (0..groups).map(|_| OnceLock::new()).collect(),
        }
    }

    fn set_warp(&self, w: usize, sums: GroupSums<T>) {
        // Each warp is one task's, set once.
        let _ = self.warps[w].set(sums);
    }

    /// Counts warps `range` (set by the calling task) into their groups, and folds each group
    /// whose last warp this was.
    fn warps_done(&self, range: Range<usize>) {
        let mut w = range.start;
        while w < range.end {
            let g = w / WARPS_PER_GROUP;
            let group = g * WARPS_PER_GROUP..((g + 1) * WARPS_PER_GROUP).min(self.warps.len());
            let mine = range.end.min(group.end) - w;
            // AcqRel: the warps that the other tasks set before their count are seen by the
            // task that completes the group.
            if self.done[g].fetch_add(mine, Ordering::AcqRel) + mine == group.len() {
                let _ = self.groups[g].set(self.fold_group(group));
            }
            w += mine;
        }
    }

    /// A group's sums from its warps' (every one set): the warp sums folded by one warp whose
    /// lanes past the group's last warp are zero (the second fold of [`block_tree`]).
    fn fold_group(&self, warps: Range<usize>) -> GroupSums<T> {
        let zero = T::zero().to_accumulator();
        let blank = GroupSums {
            value: zero,
            error_lower: 0.0,
            error_upper: 0.0,
            floor: 0.0,
        };
        let mut lanes = [blank; WARP];
        for (lane, slot) in lanes.iter_mut().zip(&self.warps[warps]) {
            *lane = *slot
                .get()
                .expect("a group is folded after its last warp is set");
        }
        GroupSums {
            value: warp_tree(&mut lanes.map(|l| l.value)),
            error_lower: warp_tree(&mut lanes.map(|l| l.error_lower)),
            error_upper: warp_tree(&mut lanes.map(|l| l.error_upper)),
            floor: warp_tree(&mut lanes.map(|l| l.floor)),
        }
    }

    /// The groups' sums in group order, once every task has succeeded.
    fn into_groups(self) -> impl Iterator<Item = GroupSums<T>> {
        self.groups.into_iter().map(|g| {
            g.into_inner()
                .expect("every group is folded when every task succeeded")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use precision::Dd;

    #[test]
    fn region_ends_tile_the_region() {
        let pair = Pair::<f64>::TrapezoidSimpson;
        let region = Region::new(&pair, 1.0, 2.0, 4, Cut::Block);
        let ends: Vec<f64> = (0..=4).map(|i| region.end(i)).collect();
        assert_eq!(ends, vec![1.0, 1.25, 1.5, 1.75, 2.0]);
        // The points in list order, the last end last.
        let points: Vec<f64> = (0..region.points()).map(|k| region.point(k)).collect();
        assert_eq!(
            points,
            vec![1.0, 1.125, 1.25, 1.375, 1.5, 1.625, 1.75, 1.875, 2.0]
        );
    }

    #[test]
    fn the_block_tree_adds_every_lane_once() {
        // Integers: exact in any order, so the tree must give the plain sum.
        let mut lanes = [0.0; GROUP];
        for (i, l) in lanes.iter_mut().enumerate() {
            *l = i as f64;
        }
        assert_eq!(
            block_tree(&mut lanes, 0.0),
            (GROUP * (GROUP - 1) / 2) as f64
        );
    }

    /// x² on [0, 3] in 600 intervals (three groups, the last partial): Simpson is exact on
    /// each, so the sum is 9 to the accumulator's rounding; every step gives the same bits,
    /// and side cutting with no tolerance accepts only what rounding alone leaves.
    #[test]
    fn every_step_gives_the_same_sums() -> Result<()> {
        let f = crate::expr::Expr::parse("x^2", 1).expect("parses");
        let pair = Pair::<Dd>::TrapezoidSimpson;
        let region = Region::new(&pair, Dd::from(0), Dd::from(3), 600, Cut::Block);
        let cpu = crate::cpu::CpuBackend::new(2)?;
        let serial = region.step_serial(&f)?;
        let parallel = cpu.region_step(&f, &region)?;
        let by_evaluate = region.step_by_evaluate(&cpu, &f)?;
        for s in [&parallel, &by_evaluate] {
            assert_eq!(s.value, serial.value);
            assert_eq!(s.error.to_bits(), serial.error.to_bits());
            assert_eq!(s.floor.to_bits(), serial.floor.to_bits());
        }
        let nine = Dd::from_accumulator(serial.value);
        assert!((nine - Dd::from(9)).abs().to_f64() < 1e-29, "{nine}");
        assert_eq!(serial.first, 0);
        Ok(())
    }
}
