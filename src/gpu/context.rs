//! Device discovery and one CUDA context per device, created on first use (or begun on a
//! thread of its own) and shared by every later call in the process.
#![deny(unsafe_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;

use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::CudaContext;

use super::error::{driver, GpuError, Result};
use super::sys;
use super::trace;

/// What hpquad needs to know about a device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The CUDA ordinal.
    pub ordinal: usize,
    /// The marketing name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// The number of streaming multiprocessors.
    pub multiprocessors: u32,
    /// Global memory in bytes.
    pub memory_bytes: u64,
    /// `(major, minor)`, e.g. `(9, 0)` for the H100.
    pub compute_capability: (u32, u32),
}

impl DeviceInfo {
    /// The NVRTC architecture option value for this device, e.g. `sm_90`.
    pub fn arch(&self) -> String {
        format!(
            "sm_{}{}",
            self.compute_capability.0, self.compute_capability.1
        )
    }
}

/// Every CUDA device on this machine. An empty list means a driver without devices; no driver
/// at all is [`GpuError::NoDriver`].
pub fn devices() -> Result<Vec<DeviceInfo>> {
    let count = sys::device_count()?;
    (0..count).map(device_info).collect()
}

/// The description of device `ordinal`.
pub fn device_info(ordinal: usize) -> Result<DeviceInfo> {
    let count = sys::device_count()?;
    if ordinal >= count {
        return Err(GpuError::NoDevice { ordinal, count });
    }
    let dev = sys::device(ordinal)?;
    let attr = |a| sys::attribute(dev, a).map(|v| v.max(0) as u32);
    Ok(DeviceInfo {
        ordinal,
        name: sys::name(dev)?,
        multiprocessors: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        memory_bytes: sys::total_memory(dev)? as u64,
        compute_capability: (
            attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        ),
    })
}

/// A device's context: being retained on a thread of its own ([`begin_context`]), or ready.
enum Slot {
    Pending(JoinHandle<Result<Arc<CudaContext>>>),
    Ready(Arc<CudaContext>),
}

fn slots() -> MutexGuard<'static, HashMap<usize, Slot>> {
    static CONTEXTS: OnceLock<Mutex<HashMap<usize, Slot>>> = OnceLock::new();
    CONTEXTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn retain(ordinal: usize) -> Result<Arc<CudaContext>> {
    trace::time("context (cuDevicePrimaryCtxRetain)", || {
        CudaContext::new(ordinal).map_err(|e| driver("cuDevicePrimaryCtxRetain", e))
    })
}

/// Starts retaining device `ordinal`'s primary context on a thread of its own and returns at
/// once; the next [`context`] call waits for it. Retaining a context takes about 0.1 s (one
/// NVIDIA H200), as long as the rest of a small warm call, and nothing before the first module
/// load needs it: a first call compiles its kernel with NVRTC meanwhile. `ordinal` must be a
/// device of this machine.
pub(crate) fn begin_context(ordinal: usize) {
    slots()
        .entry(ordinal)
        .or_insert_with(|| Slot::Pending(std::thread::spawn(move || retain(ordinal))));
}

/// Waits for the context of device `ordinal` if [`begin_context`] is still retaining it, so
/// that no thread of hpquad's is inside the driver when the process ends (a `Gpu` dropped
/// before its first launch, after an error); does nothing otherwise. A failure is dropped, as
/// [`context`] drops it: the next call tries again.
pub(crate) fn settle(ordinal: usize) {
    if pending(ordinal) {
        let _ = context(ordinal);
    }
}

/// Whether device `ordinal`'s context is being retained on a thread of its own now.
fn pending(ordinal: usize) -> bool {
    matches!(slots().get(&ordinal), Some(Slot::Pending(_)))
}

/// The process-wide context of device `ordinal`: the device's primary context, retained once
/// (or the one [`begin_context`] started, once it is ready).
pub(crate) fn context(ordinal: usize) -> Result<Arc<CudaContext>> {
    let count = sys::device_count()?;
    if ordinal >= count {
        return Err(GpuError::NoDevice { ordinal, count });
    }
    let mut slots = slots();
    let retained = match slots.remove(&ordinal) {
        Some(Slot::Ready(ctx)) => Ok(ctx),
        Some(Slot::Pending(pending)) => trace::time("waiting for the context", || {
            pending.join().unwrap_or_else(|_| {
                Err(GpuError::Invalid(
                    "the thread retaining the CUDA context panicked".into(),
                ))
            })
        }),
        None => retain(ordinal),
    };
    // A failure is not kept: the next call tries again.
    let ctx = retained?;
    slots.insert(ordinal, Slot::Ready(ctx.clone()));
    Ok(ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `Gpu` dropped before its first launch (as after an error) waits for the context its
    /// creation began, and leaves it for the next `Gpu`: no thread is left in the driver. Run
    /// alone (`--exact`), its `Gpu` is the process's first, so the context is still pending
    /// when it is dropped.
    #[test]
    #[ignore = "needs a CUDA device"]
    fn a_gpu_dropped_before_its_first_launch_settles_its_context() {
        let gpu = crate::gpu::Gpu::new(0).expect("a CUDA device");
        drop(gpu);
        assert!(!pending(0));
        assert!(matches!(slots().get(&0), Some(Slot::Ready(_))));
        let again = crate::gpu::Gpu::new(0).expect("a CUDA device");
        again.ready().expect("the context");
    }
}
