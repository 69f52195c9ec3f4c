//! Results brought back from the device through pinned host memory.
//!
//! A copy from the device into ordinary (pageable) host memory goes through the driver's own
//! bounce buffer at a fraction of the bus's speed. A batch's columns therefore come back piece
//! by piece through two small pinned buffers per element type, kept for the process: while
//! one piece crosses the bus into one buffer, all cores move the previous piece out of the
//! other into its column (whose fresh pages the caller touched while the kernel ran).
//!
//! With `launch.rs` and `sys.rs`, one of the modules with `unsafe` code; each block says why
//! it is sound.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{
    result, CudaContext, CudaStream, CudaView, DevicePtr, DeviceRepr, PinnedHostSlice,
    ValidAsZeroBits,
};
use rayon::prelude::*;

use super::error::{driver, Result};

/// Elements of one piece: 2 MiB of doubles, small enough to pin once for the process and to
/// let the next piece's copy overlap the host's work on this one, large enough that a copy's
/// fixed cost (a few microseconds) is small beside its bytes.
const PIECE: usize = 1 << 18;

/// Elements the host moves in one task.
const TASK: usize = 1 << 13;

/// Copies the device's `source` (which `stream` orders after the kernel that wrote it) into
/// `to` through `pair`, piece by piece. Errors: the copy failed, or `to` is not as long.
fn copy_through<T: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync>(
    stream: &Arc<CudaStream>,
    source: &CudaView<'_, T>,
    to: &mut [T],
    pair: &mut [PinnedHostSlice<T>; 2],
) -> Result<()> {
    let n = source.len();
    if to.len() != n {
        return Err(super::GpuError::Invalid(format!(
            "{n} elements from the device cannot go into {} on the host",
            to.len()
        )));
    }
    let failed = |e| driver("cuMemcpyDtoHAsync into pinned memory", e);
    let pieces = n.div_ceil(PIECE);
    let range = |k: usize| k * PIECE..((k + 1) * PIECE).min(n);
    // Starts piece k's copy into its buffer and returns the event that marks its end.
    let copy = |k: usize, pair: &mut [PinnedHostSlice<T>; 2]| {
        let piece = source.slice(range(k));
        let (from, _read) = piece.device_ptr(stream);
        let into = pair[k % 2].as_mut_ptr().map_err(failed)?;
        // SAFETY: `into` is the buffer's PIECE >= piece.len() elements, which nothing else
        // uses while this call holds the staging's lock (the host reads a buffer only
        // after the event of its own copy); `from` is piece.len() elements of `source`,
        // which `stream` orders after the kernel that wrote them. The copy is of exactly
        // piece.len() elements (cudarc's memcpy_dtoh copies the whole destination).
        unsafe {
            result::memcpy_dtoh_async(
                std::slice::from_raw_parts_mut(into, piece.len()),
                from,
                stream.cu_stream(),
            )
        }
        .map_err(failed)?;
        stream.record_event(None).map_err(failed)
    };
    // Piece k's event sits at k mod 2, set before the loop reaches k.
    let mut ends = [None, None];
    if pieces > 0 {
        ends[0] = Some(copy(0, pair)?);
    }
    for k in 0..pieces {
        if k + 1 < pieces {
            ends[(k + 1) % 2] = Some(copy(k + 1, pair)?);
        }
        if let Some(end) = ends[k % 2].take() {
            end.synchronize().map_err(failed)?;
        }
        let r = range(k);
        let ptr = pair[k % 2].as_mut_ptr().map_err(failed)?;
        // SAFETY: the copy into this buffer has ended (its event), it wrote the first
        // r.len() elements, and the next copy goes to the other buffer.
        let staged = unsafe { std::slice::from_raw_parts(ptr, r.len()) };
        to[r]
            .par_chunks_mut(TASK)
            .zip(staged.par_chunks(TASK))
            .for_each(|(to, from)| to.copy_from_slice(from));
    }
    Ok(())
}

/// The pinned pairs of one device, one per element type the batch brings back.
pub(crate) struct Staging {
    f64s: [PinnedHostSlice<f64>; 2],
    u64s: [PinnedHostSlice<u64>; 2],
    u32s: [PinnedHostSlice<u32>; 2],
}

/// Pinned memory for `PIECE` elements of `T`, zeroed (so that nothing reads memory that was
/// never written).
fn pinned<T: DeviceRepr + ValidAsZeroBits + Copy>(
    ctx: &Arc<CudaContext>,
) -> Result<PinnedHostSlice<T>> {
    let failed = |e| driver("cuMemHostAlloc", e);
    // SAFETY: the memory is written below before anything reads it.
    let mut slice = unsafe { ctx.alloc_pinned::<T>(PIECE) }.map_err(failed)?;
    let ptr = slice.as_mut_ptr().map_err(failed)?;
    // SAFETY: `ptr` points to PIECE elements of T that this slice owns, and zero bytes are a
    // valid f64, u64 or u32 (the only element types used here).
    unsafe { std::ptr::write_bytes(ptr, 0, PIECE) };
    Ok(slice)
}

/// The element types a batch brings back, and which of the pinned pairs each uses.
pub(crate) trait Staged: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync + Sized {
    /// This type's pair.
    fn pair(staging: &mut Staging) -> &mut [PinnedHostSlice<Self>; 2];
}

impl Staged for f64 {
    fn pair(staging: &mut Staging) -> &mut [PinnedHostSlice<f64>; 2] {
        &mut staging.f64s
    }
}

impl Staged for u64 {
    fn pair(staging: &mut Staging) -> &mut [PinnedHostSlice<u64>; 2] {
        &mut staging.u64s
    }
}

impl Staged for u32 {
    fn pair(staging: &mut Staging) -> &mut [PinnedHostSlice<u32>; 2] {
        &mut staging.u32s
    }
}

/// Copies `source` into `to` through the process's pinned buffers for the device of
/// `stream` (made on first use and kept: a pinned allocation is a millisecond's work, and
/// freeing one while another call may copy through it would need the context bound).
pub(crate) fn bring_back<T: Staged>(
    stream: &Arc<CudaStream>,
    source: &CudaView<'_, T>,
    to: &mut [T],
) -> Result<()> {
    static STAGING: OnceLock<Mutex<HashMap<usize, Staging>>> = OnceLock::new();
    let ctx = stream.context();
    let mut map = STAGING
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let staging = match map.entry(ctx.ordinal()) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(e) => e.insert(Staging {
            f64s: [pinned(ctx)?, pinned(ctx)?],
            u64s: [pinned(ctx)?, pinned(ctx)?],
            u32s: [pinned(ctx)?, pinned(ctx)?],
        }),
    };
    copy_through(stream, source, to, T::pair(staging))
}
