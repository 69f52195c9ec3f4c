//! CUHRE's region list on the device ([`crate::methods::cuhre::device`]): two slots of region
//! buffers (the list and the next one), the kernels of `kernels/cuhre_list.cu` launched on them,
//! and a few numbers back a step. With `launch.rs`, the only place that starts kernels: each
//! launch below takes buffers this file allocated with the lengths its SAFETY note states.
//!
//! Memory: a slot grows when the driver asks for room ([`RegionList::room`]), never past
//! the regions that the device's free memory held when the list was made (three quarters of it,
//! over both slots: the paper's Lmax); an allocation that fails there answers with the room
//! there is, so the driver retires more regions instead of running out of memory.

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use precision::Real;

use super::error::{alloc, driver, launch as launch_error};
use super::{function_prelude, splice, Gpu, GpuError, GpuReal, Result, CUHRE_LIST_CU};
use crate::backend::PointSet;
use crate::expr::cuda::CudaIntegrand;
use crate::methods::cuhre::device::{empty, ListSums, Raw, RegionList, Round, Share, Threshold};
use crate::methods::cuhre::CubatureRule;

/// The most dimensions of the device list: 2^16 vertices a region, one warp's loop.
pub const MAX_LIST_DIMS: usize = 16;

/// Regions a block of the rule kernel (one warp each); `HPQ_WARPS` in the kernel.
const RULE_WARPS: u32 = 4;
/// Threads of the settle, filter and split kernels (one region each).
const LIST_THREADS: u32 = 256;
/// The doubles of a reduction's output past the value's accumulator: the error and the volume
/// in double-double, the count, first_bad's bits, the density.
const SECTION: usize = 7;
/// Threads of the one block that reduces the blocks' sums.
const REDUCE_THREADS: u32 = 1024;
/// The most blocks of the rule kernel (a grid-stride loop past it).
const MAX_RULE_BLOCKS: u64 = 1 << 22;

/// The kernels' names for `type_name`, `dims` and the rule of `set`: rule, settle, filter,
/// reduce, split (`cuhre_rule_qd_5d_deg9`).
fn kernel_names(type_name: &str, dims: usize, set: PointSet) -> [String; 5] {
    ["rule", "settle", "filter", "reduce", "split"]
        .map(|k| format!("cuhre_{k}_{type_name}_{dims}d_deg{}", set.degree()))
}

impl Gpu {
    /// The complete CUDA source of the list kernels for `T`, a generated integrand of 2 to
    /// [`MAX_LIST_DIMS`] variables and the rule of point set `set`, as NVRTC sees it.
    pub fn cuhre_list_source<T: GpuReal>(
        integrand: &CudaIntegrand,
        set: PointSet,
    ) -> Result<String> {
        let dims = integrand.dims;
        if !(2..=MAX_LIST_DIMS).contains(&dims) {
            return Err(GpuError::Invalid(format!(
                "the device's region list takes 2 to {MAX_LIST_DIMS} dimensions, not {dims}"
            )));
        }
        let prelude = function_prelude(integrand)?;
        let names = kernel_names(T::NAME, dims, set);
        let kernel = format!(
            "#define HPQ_DIMS {dims}\n#define HPQ_DEGREE {}\n#define HPQ_LIST_RULE {}\n\
             #define HPQ_LIST_SETTLE {}\n#define HPQ_LIST_FILTER {}\n#define HPQ_LIST_REDUCE {}\n\
             #define HPQ_LIST_SPLIT {}",
            set.degree(),
            names[0],
            names[1],
            names[2],
            names[3],
            names[4]
        );
        splice::<T>(
            CUHRE_LIST_CU,
            "cuhre_list.cu",
            &prelude,
            &integrand.body,
            dims,
            &kernel,
        )
    }

    /// An empty region list of `dims` dimensions in `T` with the kernels of `source`
    /// ([`Gpu::cuhre_list_source`] for `T` and `set`), computing the rule of `set`.
    pub(crate) fn cuhre_list<T: Real>(
        &self,
        source: &str,
        dims: usize,
        set: PointSet,
        name: Arc<str>,
    ) -> Result<GpuList<T>> {
        let module = self.compiler.module(
            &format!("hpquad_cuhre_list_{}_deg{}.cu", T::NAME, set.degree()),
            source,
        )?;
        let names = kernel_names(T::NAME, dims, set);
        let load = |k: usize| {
            module
                .load_function(&names[k])
                .map_err(|e| driver("cuModuleGetFunction", e))
        };
        let kernels = Kernels {
            rule: load(0)?,
            settle: load(1)?,
            filter: load(2)?,
            reduce: load(3)?,
            split: load(4)?,
            name: format!("cuhre_*_{}_{dims}d_deg{}", T::NAME, set.degree()),
        };
        let stream = self.stream()?.clone();
        let ordinal = stream.context().ordinal();
        // The header's doubles, then the values' limbs (kernels/cuhre_list.cu: HPQ_K_*).
        let rule = CubatureRule::<T>::with_set(set, dims).device_table();
        let mut table = rule.header;
        table.extend(
            rule.reals
                .iter()
                .flat_map(|v| v.limbs()[..T::LIMBS].to_vec()),
        );
        let constants = stream
            .clone_htod(&table)
            .map_err(|e| alloc(ordinal, 8 * table.len(), e))?;
        let acc_limbs = if T::LIMBS == 1 { 2 } else { T::LIMBS };
        let (free, _) = stream
            .context()
            .mem_get_info()
            .map_err(|e| driver("cuMemGetInfo", e))?;
        let per_region = Slot::bytes_per_region(dims, T::LIMBS, acc_limbs);
        // Half the free memory for the two lists, a quarter for the retired one.
        let most = (free as u64 / 2) / (2 * per_region);
        let retired_most = (free as u64 / 4) / per_region;
        Ok(GpuList {
            stream: stream.clone(),
            ordinal,
            kernels,
            name,
            dims,
            set,
            limbs: T::LIMBS,
            acc_limbs,
            constants,
            current: Slot::default(),
            next: Slot::default(),
            first_bad: stream
                .clone_htod(&[u64::MAX])
                .map_err(|e| alloc(ordinal, 8, e))?,
            out: stream
                .alloc_zeros::<f64>(2 * (acc_limbs + SECTION))
                .map_err(|e| alloc(ordinal, 16 * (acc_limbs + SECTION), e))?,
            regions: 0,
            pairs: false,
            active: 0,
            most,
            retired: Slot::default(),
            kept: 0,
            revived: 0,
            retired_most,
            _real: PhantomData,
        })
    }
}

struct Kernels {
    rule: CudaFunction,
    settle: CudaFunction,
    filter: CudaFunction,
    reduce: CudaFunction,
    split: CudaFunction,
    name: String,
}

/// The buffers of one list: the corners, the parents' values (one a pair), and what the rule,
/// settle and filter kernels leave for each region; `capacity` regions.
#[derive(Default)]
struct Slot {
    capacity: u64,
    buffers: Option<SlotBuffers>,
}

struct SlotBuffers {
    lower: CudaSlice<f64>,
    upper: CudaSlice<f64>,
    parent: CudaSlice<f64>,
    value: CudaSlice<f64>,
    error: CudaSlice<f64>,
    floor: CudaSlice<f64>,
    settled: CudaSlice<f64>,
    axis: CudaSlice<i32>,
    active: CudaSlice<u8>,
    partials: CudaSlice<f64>,
    offsets: CudaSlice<u64>,
}

impl Slot {
    /// Bytes a region costs a slot.
    fn bytes_per_region(dims: usize, limbs: usize, acc_limbs: usize) -> u64 {
        let partial = (acc_limbs + 5 + 1) * 8;
        (2 * dims * limbs * 8 + limbs * 4 + limbs * 8 + 3 * 8 + 4 + 1) as u64
            + (partial as u64).div_ceil(LIST_THREADS as u64)
    }

    /// A slot of `capacity` regions.
    fn allocate(
        stream: &Arc<CudaStream>,
        capacity: u64,
        dims: usize,
        limbs: usize,
        acc_limbs: usize,
    ) -> Result<Slot> {
        let ordinal = stream.context().ordinal();
        let c = capacity.max(2) as usize;
        let blocks = c.div_ceil(LIST_THREADS as usize);
        let f64s = |n: usize| {
            stream
                .alloc_zeros::<f64>(n)
                .map_err(|e| alloc(ordinal, 8 * n, e))
        };
        let buffers = SlotBuffers {
            lower: f64s(c * dims * limbs)?,
            upper: f64s(c * dims * limbs)?,
            parent: f64s(c.div_ceil(2) * limbs)?,
            value: f64s(c * limbs)?,
            error: f64s(c)?,
            floor: f64s(c)?,
            settled: f64s(c)?,
            axis: stream
                .alloc_zeros::<i32>(c)
                .map_err(|e| alloc(ordinal, 4 * c, e))?,
            active: stream
                .alloc_zeros::<u8>(c)
                .map_err(|e| alloc(ordinal, c, e))?,
            partials: f64s(blocks * (acc_limbs + 5))?,
            offsets: stream
                .alloc_zeros::<u64>(blocks)
                .map_err(|e| alloc(ordinal, 8 * blocks, e))?,
        };
        Ok(Slot {
            capacity: c as u64,
            buffers: Some(buffers),
        })
    }
}

/// A region list of `T` on one device.
pub(crate) struct GpuList<T> {
    stream: Arc<CudaStream>,
    ordinal: usize,
    kernels: Kernels,
    name: Arc<str>,
    dims: usize,
    /// The rule the kernels compute.
    set: PointSet,
    limbs: usize,
    acc_limbs: usize,
    /// The rule's table ([`CubatureRule::device_table`]): `table::HEADER` doubles, then
    /// `table::REALS` values of `limbs` doubles.
    constants: CudaSlice<f64>,
    current: Slot,
    next: Slot,
    /// The smallest r · 2^24 + point of a non-finite value (~0: none).
    first_bad: CudaSlice<u64>,
    /// The reductions' output, two sections of acc_limbs + [`SECTION`] doubles (after the rule;
    /// after a filter): the sums, first_bad's bits, the density (the rule's section).
    out: CudaSlice<f64>,
    regions: u64,
    /// Whether the list came from a split (pairs of halves with their parents).
    pairs: bool,
    /// The active regions of the last filter.
    active: u64,
    /// The most regions a slot may hold.
    most: u64,
    /// The retired regions kept to be brought back (corners, value, settled error, axis).
    retired: Slot,
    /// Its entries in use.
    kept: u64,
    /// Its entries the last [`RegionList::revive`] marked.
    revived: u64,
    /// The most entries it may hold.
    retired_most: u64,
    _real: PhantomData<T>,
}

fn lost(what: &str) -> GpuError {
    GpuError::Invalid(format!("the region list's {what} buffers are missing"))
}

impl<T: Real> GpuList<T> {
    /// The list's regions as the last [`RegionList::rule`] left them: each one's estimate as
    /// the rule kernel computed it, its axis after the settle kernel's finality, and its
    /// settled error.
    pub(crate) fn estimates(&self) -> Result<Vec<(Raw<T>, f64)>> {
        let n = self.regions as usize;
        let slot = self.current.buffers.as_ref().ok_or_else(|| lost("list"))?;
        let failed = |e| launch_error(&self.kernels.name, self.ordinal, e);
        let read = |buffer: &CudaSlice<f64>, len: usize| -> Result<Vec<f64>> {
            let mut host = vec![0.0; len];
            self.stream
                .memcpy_dtoh(&buffer.slice(..len), &mut host)
                .map_err(failed)?;
            Ok(host)
        };
        let values = read(&slot.value, n * self.limbs)?;
        let (errors, floors, settled) = (
            read(&slot.error, n)?,
            read(&slot.floor, n)?,
            read(&slot.settled, n)?,
        );
        let mut axes = vec![0i32; n];
        self.stream
            .memcpy_dtoh(&slot.axis.slice(..n), &mut axes)
            .map_err(failed)?;
        Ok((0..n)
            .map(|r| {
                let raw = Raw {
                    value: T::from_limbs(&values[r * self.limbs..(r + 1) * self.limbs]),
                    error: errors[r],
                    floor: floors[r],
                    axis: usize::try_from(axes[r]).ok(),
                };
                (raw, settled[r])
            })
            .collect())
    }

    /// Grows `slot` (not in use) to hold at least `regions` (doubling, at most `most`); on a
    /// failed allocation, halves the request down to `at_least`. Returns the capacity.
    fn grow(&mut self, which: Which, regions: u64, at_least: u64) -> Result<u64> {
        let slot = match which {
            Which::Current => &mut self.current,
            Which::Next => &mut self.next,
            Which::Retired => &mut self.retired,
        };
        let mut want = regions.max(2 * slot.capacity).min(self.most).max(at_least);
        if slot.capacity >= regions.min(want) {
            return Ok(slot.capacity);
        }
        // Free the old buffers first: their memory may be what the new ones need.
        *slot = Slot::default();
        loop {
            match Slot::allocate(&self.stream, want, self.dims, self.limbs, self.acc_limbs) {
                Ok(s) => {
                    *slot = s;
                    return Ok(slot.capacity);
                }
                Err(GpuError::OutOfMemory { .. }) if want / 2 >= at_least.max(2) => {
                    want /= 2;
                    self.most = want;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Launches the reduction of `blocks` blocks' sums of slot `which` into section `section`
    /// of `out`, with the scan of their active counts when `scan`, and the tolerance's share
    /// per unit of volume when `share` is given.
    fn launch_reduce(
        &mut self,
        which: Which,
        blocks: u64,
        scan: bool,
        section: usize,
        share: Option<&Share>,
    ) -> Result<()> {
        let slot = match which {
            Which::Current => self.current.buffers.as_mut(),
            Which::Retired => self.retired.buffers.as_mut(),
            Which::Next => None,
        }
        .ok_or_else(|| lost("reduced"))?;
        let cfg = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (REDUCE_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let scan_flag: i32 = scan.into();
        let share_flag: i32 = share.is_some().into();
        let none = Share::default();
        let share = share.unwrap_or(&none);
        let width = self.acc_limbs + SECTION;
        let mut out = self.out.slice_mut(section * width..(section + 1) * width);
        let mut args = self.stream.launch_builder(&self.kernels.reduce);
        args.arg(&slot.partials)
            .arg(&blocks)
            .arg(&scan_flag)
            .arg(&mut self.first_bad)
            .arg(&mut slot.offsets)
            .arg(&share_flag)
            .arg(&share.absolute)
            .arg(&share.relative)
            .arg(&share.retired_value)
            .arg(&share.spent)
            .arg(&share.part)
            .arg(&mut out);
        // SAFETY: HPQ_LIST_REDUCE(const double *partials, u64 blocks, int scan, u64
        // *first_bad, u64 *offsets, int share, double absolute, double relative, double
        // retired_value, double spent, double part, double *out). The slot was allocated for
        // its capacity, whose blocks (capacity / 256, rounded up) are at least `blocks`:
        // partials holds blocks * (acc_limbs + 5) doubles and offsets `blocks` entries; out is
        // a section of acc_limbs + 7 doubles (the kernel writes its first acc_limbs + 7),
        // first_bad one u64; the kernel's real_t has `limbs` limbs (names by type).
        unsafe { args.launch(cfg) }
            .map_err(|e| launch_error(&self.kernels.name, self.ordinal, e))?;
        Ok(())
    }

    /// Launches the filter on slot `which` (its first `regions` entries): at `threshold`, or
    /// at the density the rule's reduction left in `out` when `from_device` (and the
    /// threshold's relative part); the block sums over the active entries when
    /// `tally_active`, else over the finished ones.
    fn launch_filter(
        &mut self,
        which: Which,
        regions: u64,
        threshold: Threshold,
        from_device: bool,
        tally_active: bool,
    ) -> Result<()> {
        let cfg = config(regions)?;
        let slot = match which {
            Which::Current => self.current.buffers.as_mut(),
            Which::Retired => self.retired.buffers.as_mut(),
            Which::Next => None,
        }
        .ok_or_else(|| lost("filtered"))?;
        let at = self.acc_limbs + SECTION - 1;
        let density_at = self.out.slice(at..at + 1);
        let from_device: i32 = from_device.into();
        let tally_active: i32 = tally_active.into();
        let mut args = self.stream.launch_builder(&self.kernels.filter);
        args.arg(&slot.lower)
            .arg(&slot.upper)
            .arg(&slot.value)
            .arg(&slot.settled)
            .arg(&slot.axis)
            .arg(&threshold.density)
            .arg(&threshold.relative)
            .arg(&density_at)
            .arg(&from_device)
            .arg(&tally_active)
            .arg(&regions)
            .arg(&mut slot.active)
            .arg(&mut slot.partials);
        // SAFETY: HPQ_LIST_FILTER(lower, upper, value, settled, const int *axis, double
        // density, double relative, const double *density_at, int from_device, int
        // tally_active, u64 regions, u8 *active, double *partials): one thread an entry
        // r < regions ≤ the slot's capacity (blocks of 256, `config`), reading within the
        // capacity, writing active[r] and block b's partials (b < regions / 256 rounded up,
        // within the capacity's blocks); density_at is one double of out.
        unsafe { args.launch(cfg) }
            .map_err(|e| launch_error(&self.kernels.name, self.ordinal, e))?;
        Ok(())
    }

    /// `out` back on the host (waits for the stream).
    fn read(&self) -> Result<Vec<f64>> {
        self.stream
            .clone_dtoh(&self.out)
            .map_err(|e| launch_error(&self.kernels.name, self.ordinal, e))
    }

    /// The sums of section `section` of `out` as read.
    fn sums(&self, out: &[f64], section: usize) -> ListSums<T> {
        let a = self.acc_limbs;
        let out = &out[section * (a + SECTION)..];
        let value = out[..a]
            .chunks_exact(self.limbs)
            .fold(T::zero().to_accumulator(), |s, c| {
                s + T::from_limbs(c).to_accumulator()
            });
        let bits = out[a + 5].to_bits();
        ListSums {
            value,
            error: out[a] + out[a + 1],
            volume: out[a + 2] + out[a + 3],
            active: out[a + 4] as u64,
            bad: (bits != u64::MAX).then_some((bits >> 24, bits & 0xff_ffff)),
        }
    }

    fn blocks(&self) -> u64 {
        self.regions.div_ceil(LIST_THREADS as u64)
    }
}

/// One thread an entry of `regions`, in blocks of [`LIST_THREADS`] (one block at least).
fn config(regions: u64) -> Result<LaunchConfig> {
    let blocks = u32::try_from(regions.div_ceil(LIST_THREADS as u64))
        .map_err(|_| GpuError::Invalid(format!("{regions} regions are too many")))?;
    Ok(LaunchConfig {
        grid_dim: (blocks.max(1), 1, 1),
        block_dim: (LIST_THREADS, 1, 1),
        shared_mem_bytes: 0,
    })
}

#[derive(Clone, Copy)]
enum Which {
    Current,
    Next,
    Retired,
}

impl<T: Real> RegionList<T> for GpuList<T> {
    fn device(&self) -> Arc<str> {
        self.name.clone()
    }

    fn point_set(&self) -> PointSet {
        self.set
    }

    fn load(&mut self, lower: &[T], upper: &[T]) -> crate::error::Result<()> {
        let width = self.dims;
        let regions = (lower.len() / width) as u64;
        if lower.len() != upper.len() || !lower.len().is_multiple_of(width) || regions == 0 {
            return Err(GpuError::Invalid(format!(
                "{} lower and {} upper corners are not regions of {width} dimensions",
                lower.len(),
                upper.len()
            ))
            .into());
        }
        self.grow(Which::Current, regions, regions)?;
        let slot = self.current.buffers.as_mut().ok_or_else(|| lost("list"))?;
        let flat = |v: &[T]| -> Vec<f64> {
            v.iter()
                .flat_map(|x| x.limbs()[..T::LIMBS].to_vec())
                .collect()
        };
        let ordinal = self.ordinal;
        let (l, u) = (flat(lower), flat(upper));
        self.stream
            .memcpy_htod(&l, &mut slot.lower.slice_mut(..l.len()))
            .map_err(|e| alloc(ordinal, 8 * l.len(), e))?;
        self.stream
            .memcpy_htod(&u, &mut slot.upper.slice_mut(..u.len()))
            .map_err(|e| alloc(ordinal, 8 * u.len(), e))?;
        self.regions = regions;
        self.pairs = false;
        self.kept = 0;
        self.revived = 0;
        Ok(())
    }

    fn regions(&self) -> u64 {
        self.regions
    }

    fn rule(&mut self, share: &Share) -> crate::error::Result<Round<T>> {
        let n = self.regions;
        let ordinal = self.ordinal;
        let rule_cfg = LaunchConfig {
            grid_dim: (
                n.div_ceil(RULE_WARPS as u64).clamp(1, MAX_RULE_BLOCKS) as u32,
                1,
                1,
            ),
            block_dim: (32 * RULE_WARPS, 1, 1),
            shared_mem_bytes: 0,
        };
        let list_cfg = config(n)?;
        let pairs: i32 = self.pairs.into();
        let slot = self.current.buffers.as_mut().ok_or_else(|| lost("list"))?;
        let mut args = self.stream.launch_builder(&self.kernels.rule);
        args.arg(&slot.lower)
            .arg(&slot.upper)
            .arg(&self.constants)
            .arg(&n)
            .arg(&pairs)
            .arg(&mut slot.value)
            .arg(&mut slot.error)
            .arg(&mut slot.floor)
            .arg(&mut slot.axis)
            .arg(&mut self.first_bad);
        // SAFETY: HPQ_LIST_RULE(const double *lower, const double *upper, const double *k, u64
        // regions, int checked, double *value, double *error, double *floor, int *axis, u64
        // *first_bad). The kernels were loaded by name for T and dims, so real_t has `limbs`
        // limbs and HPQ_DIMS = dims, HPQ_DEGREE the rule of `set`. n ≤ the slot's capacity:
        // lower and upper hold capacity * dims * limbs doubles, value capacity * limbs, error,
        // floor and axis capacity entries; the kernel reads and writes region r < n only; k
        // holds table::HEADER + table::REALS * limbs doubles (device_table), the kernel reads
        // below.
        unsafe { args.launch(rule_cfg) }
            .map_err(|e| launch_error(&self.kernels.name, ordinal, e))?;
        let mut args = self.stream.launch_builder(&self.kernels.settle);
        args.arg(&slot.lower)
            .arg(&slot.upper)
            .arg(&slot.value)
            .arg(&slot.error)
            .arg(&slot.floor)
            .arg(&slot.parent)
            .arg(&pairs)
            .arg(&n)
            .arg(&mut slot.axis)
            .arg(&mut slot.settled)
            .arg(&mut slot.partials);
        // SAFETY: HPQ_LIST_SETTLE(lower, upper, value, error, floor, parent, int pairs, u64
        // regions, int *axis, double *settled, double *partials): one thread a region r < n
        // in blocks of 256 (config), reading the arrays above within their capacity
        // and parent[r / 2] (capacity / 2 values) where pairs is set (n even then), writing
        // axis[r], settled[r] and block b's partials[b * (acc_limbs + 5)..] for b < blocks.
        unsafe { args.launch(list_cfg) }
            .map_err(|e| launch_error(&self.kernels.name, ordinal, e))?;
        let blocks = self.blocks();
        self.launch_reduce(Which::Current, blocks, false, 0, Some(share))?;
        let threshold = Threshold {
            density: 0.0,
            relative: share.per_region,
        };
        self.launch_filter(Which::Current, n, threshold, true, false)?;
        self.launch_reduce(Which::Current, blocks, true, 1, None)?;
        let out = self.read()?;
        let (list, finished) = (self.sums(&out, 0), self.sums(&out, 1));
        self.active = finished.active;
        Ok(Round {
            list,
            finished,
            density: out[self.acc_limbs + SECTION - 1],
        })
    }

    fn filter(&mut self, threshold: Threshold) -> crate::error::Result<ListSums<T>> {
        let n = self.regions;
        self.launch_filter(Which::Current, n, threshold, false, false)?;
        self.launch_reduce(Which::Current, self.blocks(), true, 1, None)?;
        let sums = self.sums(&self.read()?, 1);
        self.active = sums.active;
        Ok(sums)
    }

    fn room(&mut self, regions: u64) -> crate::error::Result<u64> {
        Ok(self.grow(Which::Next, regions, 2)?)
    }

    fn keep(&mut self, regions: u64) -> crate::error::Result<bool> {
        let need = self.kept + regions;
        if need <= self.retired.capacity {
            return Ok(true);
        }
        let want = need
            .max(2 * self.retired.capacity)
            .max(1 << 16)
            .min(self.retired_most);
        if want < need {
            return Ok(false);
        }
        let mut grown =
            match Slot::allocate(&self.stream, want, self.dims, self.limbs, self.acc_limbs) {
                Ok(slot) => slot,
                Err(GpuError::OutOfMemory { .. }) => {
                    self.retired_most = self.retired.capacity;
                    return Ok(false);
                }
                Err(e) => return Err(e.into()),
            };
        if let (Some(old), Some(new), true) = (
            self.retired.buffers.as_ref(),
            grown.buffers.as_mut(),
            self.kept > 0,
        ) {
            // The entries, and the marks of a revive and their offsets for the next split.
            let kept = self.kept as usize;
            let blocks = kept.div_ceil(LIST_THREADS as usize);
            let (corners, values) = (kept * self.dims * self.limbs, kept * self.limbs);
            let copy = |e| launch_error(&self.kernels.name, self.ordinal, e);
            let stream = &self.stream;
            stream
                .memcpy_dtod(
                    &old.lower.slice(..corners),
                    &mut new.lower.slice_mut(..corners),
                )
                .map_err(copy)?;
            stream
                .memcpy_dtod(
                    &old.upper.slice(..corners),
                    &mut new.upper.slice_mut(..corners),
                )
                .map_err(copy)?;
            stream
                .memcpy_dtod(
                    &old.value.slice(..values),
                    &mut new.value.slice_mut(..values),
                )
                .map_err(copy)?;
            stream
                .memcpy_dtod(
                    &old.settled.slice(..kept),
                    &mut new.settled.slice_mut(..kept),
                )
                .map_err(copy)?;
            stream
                .memcpy_dtod(&old.axis.slice(..kept), &mut new.axis.slice_mut(..kept))
                .map_err(copy)?;
            stream
                .memcpy_dtod(&old.active.slice(..kept), &mut new.active.slice_mut(..kept))
                .map_err(copy)?;
            stream
                .memcpy_dtod(
                    &old.offsets.slice(..blocks),
                    &mut new.offsets.slice_mut(..blocks),
                )
                .map_err(copy)?;
        }
        self.retired = grown;
        Ok(true)
    }

    fn revive(&mut self, threshold: Threshold) -> crate::error::Result<ListSums<T>> {
        self.revived = 0;
        if self.kept == 0 {
            return Ok(empty());
        }
        let (n, blocks) = (self.kept, self.kept.div_ceil(LIST_THREADS as u64));
        self.launch_filter(Which::Retired, n, threshold, false, true)?;
        self.launch_reduce(Which::Retired, blocks, true, 1, None)?;
        let sums = self.sums(&self.read()?, 1);
        self.revived = sums.active;
        Ok(sums)
    }

    fn retired(&mut self) -> crate::error::Result<ListSums<T>> {
        self.revived = 0;
        if self.kept == 0 {
            return Ok(empty());
        }
        let (n, blocks) = (self.kept, self.kept.div_ceil(LIST_THREADS as u64));
        let none = Threshold::volume_only(f64::INFINITY);
        self.launch_filter(Which::Retired, n, none, false, false)?;
        self.launch_reduce(Which::Retired, blocks, false, 1, None)?;
        Ok(self.sums(&self.read()?, 1))
    }

    fn split(&mut self, keep: bool) -> crate::error::Result<()> {
        let n = self.regions;
        let children = 2 * (self.active + self.revived);
        if children > self.next.capacity {
            return Err(GpuError::Invalid(format!(
                "{children} halves do not fit the next list of {} regions",
                self.next.capacity
            ))
            .into());
        }
        let finished = n - self.active;
        if keep && self.kept + finished > self.retired.capacity {
            return Err(GpuError::Invalid(format!(
                "{finished} retired regions do not fit the {} entries left",
                self.retired.capacity - self.kept
            ))
            .into());
        }
        let (no, yes): (i32, i32) = (0, 1);
        let to = self
            .next
            .buffers
            .as_mut()
            .ok_or_else(|| lost("next list"))?;
        let list = self.current.buffers.as_mut().ok_or_else(|| lost("list"))?;
        if self.revived > 0 {
            let cfg = config(self.kept)?;
            let from = self
                .retired
                .buffers
                .as_mut()
                .ok_or_else(|| lost("retired"))?;
            let mut args = self.stream.launch_builder(&self.kernels.split);
            args.arg(&from.lower)
                .arg(&from.upper)
                .arg(&mut from.value)
                .arg(&mut from.settled)
                .arg(&mut from.axis)
                .arg(&from.active)
                .arg(&from.offsets)
                .arg(&self.kept)
                .arg(&self.active)
                .arg(&yes)
                .arg(&mut to.lower)
                .arg(&mut to.upper)
                .arg(&mut to.parent)
                .arg(&no)
                .arg(&self.kept)
                .arg(&list.lower)
                .arg(&list.upper)
                .arg(&list.value)
                .arg(&list.settled)
                .arg(&list.axis);
            // SAFETY: HPQ_LIST_SPLIT(lower, upper, double *value, double *settled, int *axis,
            // active, offsets, u64 regions, u64 first, int kill, next_lower, next_upper,
            // parent, int keep, u64 keep_first, kept_lower, kept_upper, kept_value,
            // kept_settled, int *kept_axis) on the retired slot's `kept` entries, the marks
            // and offsets of the last revive (its filter and scan, `kept` entries). Marked
            // entry r, the k-th (k < revived), writes regions 2 (active + k) and
            // 2 (active + k) + 1 of the next slot (children ≤ its capacity, checked above) and
            // parent[active + k], and empties its own entry r < kept (kill). keep is 0: the
            // kept_* pointers (the current list's buffers) are not touched.
            unsafe { args.launch(cfg) }
                .map_err(|e| launch_error(&self.kernels.name, self.ordinal, e))?;
        }
        let cfg = config(n)?;
        let keep_flag: i32 = keep.into();
        let zero = 0u64;
        let mut args = self.stream.launch_builder(&self.kernels.split);
        args.arg(&list.lower)
            .arg(&list.upper)
            .arg(&mut list.value)
            .arg(&mut list.settled)
            .arg(&mut list.axis)
            .arg(&list.active)
            .arg(&list.offsets)
            .arg(&n)
            .arg(&zero)
            .arg(&no)
            .arg(&mut to.lower)
            .arg(&mut to.upper)
            .arg(&mut to.parent)
            .arg(&keep_flag)
            .arg(&self.kept);
        match self.retired.buffers.as_mut() {
            Some(kept) if keep => {
                args.arg(&mut kept.lower)
                    .arg(&mut kept.upper)
                    .arg(&mut kept.value)
                    .arg(&mut kept.settled)
                    .arg(&mut kept.axis);
            }
            _ => {
                // Not written (keep is 0): the list's corners stand in.
                args.arg(&list.lower)
                    .arg(&list.lower)
                    .arg(&list.lower)
                    .arg(&list.lower)
                    .arg(&list.lower);
            }
        }
        // SAFETY: the signature above, on the current list's n regions with the marks and
        // offsets of its last filter (`blocks` entries). Active region r, the k-th
        // (k < active), writes regions 2k and 2k + 1 of the next slot (children ≤ its
        // capacity: corners below capacity * dims * limbs) and parent[k] (capacity / 2
        // values); kill is 0, so the list itself is only read. With keep, finished region r,
        // the j-th (j < n - active), writes entry kept + j of the retired slot, below its
        // capacity (checked above). The slots are distinct allocations.
        unsafe { args.launch(cfg) }
            .map_err(|e| launch_error(&self.kernels.name, self.ordinal, e))?;
        std::mem::swap(&mut self.current, &mut self.next);
        if keep {
            self.kept += finished;
        }
        self.regions = children;
        self.pairs = true;
        self.active = 0;
        self.revived = 0;
        Ok(())
    }

    fn bounds(&mut self, region: u64) -> crate::error::Result<(Vec<T>, Vec<T>)> {
        let width = self.dims * self.limbs;
        let start = region as usize * width;
        let slot = self.current.buffers.as_ref().ok_or_else(|| lost("list"))?;
        let mut corners = Vec::new();
        for buffer in [&slot.lower, &slot.upper] {
            let mut host = vec![0.0; width];
            self.stream
                .memcpy_dtoh(&buffer.slice(start..start + width), &mut host)
                .map_err(|e| launch_error(&self.kernels.name, self.ordinal, e))?;
            corners.push(
                host.chunks_exact(self.limbs)
                    .map(T::from_limbs)
                    .collect::<Vec<T>>(),
            );
        }
        let upper = corners.pop().unwrap_or_default();
        let lower = corners.pop().unwrap_or_default();
        Ok((lower, upper))
    }
}

#[cfg(test)]
mod tests {
    //! The list kernel's source and its table, without a device: the kernel's indices into the
    //! table are the host's, and the estimate the kernel computes from the table (replayed
    //! here index for index, as `HPQ_LIST_RULE` reads it) is [`CubatureRule::estimate`]'s, bit
    //! for bit, for both rules in f64, dd and qd.
    use super::*;
    use crate::backend::{region_sums, RULE_CLASSES};
    use crate::expr::{cuda, Expr};
    use crate::methods::cuhre::device::center_and_half;
    use crate::methods::cuhre::rule::table;
    use crate::methods::cuhre::{SAFETY_DEGREE7, SAFETY_DEGREE9, SAFETY_DEGREE9_CHECKED};
    use precision::{Dd, Qd};

    /// The value of `#define name value` in `source`.
    fn define(source: &str, name: &str) -> f64 {
        let prefix = format!("#define {name} ");
        source
            .lines()
            .find_map(|line| line.strip_prefix(&prefix))
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or_else(|| panic!("no #define {name} with a number"))
    }

    #[test]
    fn the_list_kernel_reads_the_table_where_the_host_writes_it() {
        let expected = [
            ("HPQ_K_SLOTS", RULE_CLASSES),
            ("HPQ_K_MAX_CANDIDATES", table::MAX_CANDIDATES),
            ("HPQ_K_EPSILON", table::EPSILON),
            ("HPQ_K_SPACES", table::SPACES),
            ("HPQ_K_ABS_WEIGHTS", table::ABS_WEIGHTS),
            ("HPQ_K_SIZES", table::SIZES),
            ("HPQ_K_INVERSE_NORMS", table::INVERSE_NORMS),
            ("HPQ_K_SAFETY", table::SAFETY),
            ("HPQ_K_SAFETY_CHECKED", table::SAFETY_CHECKED),
            ("HPQ_K_HEADER", table::HEADER),
            ("HPQ_K_GENERATORS", table::GENERATORS),
            ("HPQ_K_WEIGHTS", table::WEIGHTS),
            ("HPQ_K_CANDIDATES", table::CANDIDATES),
        ];
        for (name, value) in expected {
            assert_eq!(define(CUHRE_LIST_CU, name), value as f64, "{name}");
        }
    }

    #[test]
    fn the_sources_are_named_after_their_type_dimension_and_rule() {
        let e = Expr::parse("exp(-x1*x2) + x3", 3).unwrap();
        let qd = cuda::integrand::<Qd>(e.tape()).unwrap();
        let list = Gpu::cuhre_list_source::<Qd>(&qd, PointSet::Degree9).unwrap();
        assert!(list.contains("#define HPQ_DEGREE 9\n"));
        assert!(list.contains("#define HPQ_LIST_RULE cuhre_rule_qd_3d_deg9\n"));
        assert!(list.contains("#define HPQ_LIST_SPLIT cuhre_split_qd_3d_deg9"));
        assert!(list.contains("typedef qd_t real_t;"));
        // The defines come before the rule's choice of classes that reads them.
        assert!(
            list.find("#define HPQ_DEGREE").unwrap() < list.find("#if HPQ_DEGREE == 9").unwrap()
        );
        assert!(!list.contains(super::super::INTEGRAND_MARKER));
        let dd = cuda::integrand::<Dd>(e.tape()).unwrap();
        let rule = Gpu::genz_malik_source::<Dd>(&dd, PointSet::Degree7).unwrap();
        assert!(rule.contains("#define HPQ_DEGREE 7\n"));
        assert!(rule.contains("#define HPQ_RULE_KERNEL genz_malik_dd_3d_deg7"));
        assert!(Gpu::cuhre_list_source::<f64>(
            &cuda::integrand::<f64>(Expr::parse("x1", 1).unwrap().tape()).unwrap(),
            PointSet::Degree7
        )
        .is_err());
    }

    /// What `HPQ_LIST_RULE` computes for a region of half-widths `half` from its class sums
    /// `sums` and fourth differences (those as the host's), reading `t` by the kernel's
    /// indices: the estimate, the error (with the safety factor for halves when `checked`) and
    /// the floor.
    fn replay<T: Real>(
        t: &crate::methods::cuhre::rule::DeviceTable<T>,
        set: PointSet,
        checked: bool,
        half: &[T],
        sums: &[T; RULE_CLASSES],
    ) -> (T, f64, f64) {
        let classes = set.classes();
        let eps = t.header[table::EPSILON];
        let weigh = |at: usize| {
            let mut a = T::zero().to_accumulator();
            for (q, &s) in sums.iter().enumerate().take(classes) {
                a = a + (t.reals[at + q] * s).to_accumulator();
            }
            T::from_accumulator(a)
        };
        let magnitude = |v: T| v.to_f64().abs();
        let volume = half[1..]
            .iter()
            .fold(half[0], |v, &h| v * h)
            .ldexp(half.len() as i32);
        let value = weigh(table::WEIGHTS) * volume;
        let vol = magnitude(volume);
        let mut size: f64 = 0.0;
        for (q, &s) in sums.iter().enumerate().take(classes) {
            let points = t.header[table::SIZES + q];
            if points > 0.0 {
                size = size.max(magnitude(s) / points);
            }
        }
        let noise = 64.0 * eps * size;
        let mut e = [0.0; 3];
        let mut c = 0;
        for (n, en) in e.iter_mut().enumerate() {
            let mut largest: f64 = 0.0;
            for _ in 0..t.header[table::SPACES + n] as usize {
                let nf = weigh(table::CANDIDATES + RULE_CLASSES * c);
                largest = largest.max(magnitude(nf) * t.header[table::INVERSE_NORMS + c]);
                c += 1;
            }
            *en = if largest > noise { largest } else { 0.0 };
        }
        let asymptotic = 5.0 * e[0] <= e[1] && 5.0 * e[1] <= e[2];
        let trend = if set == PointSet::Degree9 && e[2] > 0.0 {
            e[1] * (e[1] / e[2])
        } else {
            0.0
        };
        let mut err = vol
            * if asymptotic {
                e[0].max(trend)
            } else {
                5.0 * e[0].max(e[1].max(e[2]))
            };
        if asymptotic {
            err *= t.header[if checked {
                table::SAFETY_CHECKED
            } else {
                table::SAFETY
            }];
        }
        let mut mag = 0.0;
        for (q, &s) in sums.iter().enumerate().take(classes) {
            mag += t.header[table::ABS_WEIGHTS + q] * magnitude(s);
        }
        let floor = 4.0 * eps * mag * vol + 2.0 * eps * magnitude(value);
        (value, err, floor)
    }

    fn replays_the_estimate<T: Real>() {
        let integrands = [
            // Smooth: the asymptotic branch on small regions, the other on large ones.
            "exp(-3*(x1 - 0.3)^2 - x2) * cos(2*x3 + x1)",
            // A polynomial both rules integrate exactly: null values at rounding level.
            "1 + x1*x2 - x3^2",
            // A jump: the pessimistic branch.
            "floor(3*x1 + x2) - x3",
        ];
        for dims in [2usize, 3, 5] {
            for set in [PointSet::Degree7, PointSet::Degree9] {
                let rule = CubatureRule::<T>::with_set(set, dims);
                let t = rule.device_table();
                assert_eq!(t.header.len(), table::HEADER);
                assert_eq!(t.reals.len(), table::REALS);
                assert_eq!(t.header[table::EPSILON], T::epsilon().to_f64());
                let factors = match set {
                    PointSet::Degree7 => [SAFETY_DEGREE7, SAFETY_DEGREE7],
                    PointSet::Degree9 => [SAFETY_DEGREE9, SAFETY_DEGREE9_CHECKED],
                };
                assert_eq!(
                    [t.header[table::SAFETY], t.header[table::SAFETY_CHECKED]],
                    factors
                );
                let spaces: Vec<usize> = (0..3)
                    .map(|n| t.header[table::SPACES + n] as usize)
                    .collect();
                assert!(spaces.iter().all(|&c| c >= 1) && spaces.iter().sum::<usize>() <= 27);
                for source in integrands {
                    let names = ["x1", "x2", "x3", "x4", "x5"];
                    let mut text = source.to_string();
                    for name in &names[dims.min(3)..3] {
                        text = text.replace(name, "0.25");
                    }
                    let f = Expr::parse(&text, dims).unwrap();
                    for (lo, width) in [(0.0, 1.0), (0.375, 0.0625), (-2.5, 3.0)] {
                        let lower: Vec<T> = (0..dims)
                            .map(|d| T::from_f64(lo + 0.125 * d as f64))
                            .collect();
                        let upper: Vec<T> = lower.iter().map(|&a| a + T::from_f64(width)).collect();
                        let (center, half) = center_and_half(&lower, &upper);
                        let (sums, fourth, _) = region_sums(&f, &center, &half, rule.generators());
                        let host = rule.estimate(&half, &sums, &fourth);
                        for checked in [false, true] {
                            let (value, error, floor) = replay(&t, set, checked, &half, &sums);
                            let want = rule.claimed_error(&host, checked);
                            let name = format!(
                                "{} {set:?} n={dims} {text} from {lo} checked {checked}",
                                T::NAME
                            );
                            let bits = |v: T| v.limbs().map(f64::to_bits);
                            assert_eq!(bits(value), bits(host.value), "{name}");
                            assert_eq!(error.to_bits(), want.to_bits(), "{name}");
                            assert_eq!(floor.to_bits(), host.floor.to_bits(), "{name}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_table_replays_the_hosts_estimate_bit_for_bit() {
        replays_the_estimate::<f64>();
        replays_the_estimate::<Dd>();
        replays_the_estimate::<Qd>();
    }
}
