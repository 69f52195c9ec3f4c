//! The GPU backend's errors: each says what failed and, where it can, what to do about it.

use cudarc::driver::sys::CUresult;
use cudarc::driver::DriverError;

/// Everything that can go wrong on the GPU path.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// libcuda could not be loaded: no NVIDIA driver on this machine.
    #[error("no CUDA driver: libcuda could not be loaded (is an NVIDIA driver installed?)")]
    NoDriver,
    /// libnvrtc could not be loaded.
    #[error(
        "NVRTC not found: libnvrtc could not be loaded (install the CUDA toolkit or the \
         nvidia-cuda-nvrtc package and put its lib directory on LD_LIBRARY_PATH)"
    )]
    NoNvrtc,
    /// The driver is there but there is no device with this ordinal.
    #[error("no CUDA device {ordinal}: the driver reports {count} device(s)")]
    NoDevice { ordinal: usize, count: usize },
    /// A device allocation failed for lack of memory.
    #[error("out of device memory allocating {bytes} bytes on device {ordinal}")]
    OutOfMemory { ordinal: usize, bytes: usize },
    /// NVRTC rejected a kernel: its log and the generated source line it points at.
    #[error("NVRTC could not compile kernel '{kernel}':\n{log}{}", offending_lines(.lines))]
    Compile {
        kernel: String,
        log: String,
        /// `(line number, text)` of each generated source line the log names.
        lines: Vec<(usize, String)>,
    },
    /// A kernel launch, or the work it started, failed.
    #[error("kernel '{kernel}' failed on device {ordinal}: {cause}")]
    Launch {
        kernel: String,
        ordinal: usize,
        cause: String,
    },
    /// Any other driver call failed.
    #[error("CUDA driver call '{call}' failed: {cause}")]
    Driver { call: &'static str, cause: String },
    /// NVRTC failed outside compilation proper.
    #[error("NVRTC call '{call}' failed: {cause}")]
    Nvrtc { call: &'static str, cause: String },
    /// An argument cannot describe a valid launch.
    #[error("invalid GPU request: {0}")]
    Invalid(String),
    /// The integrand was NaN or infinite at a sample point.
    #[error("the integrand is not finite at x = {x:e} (sample {index} of the sum)")]
    NonFinite { index: u64, x: f64 },
}

/// `Result` with [`GpuError`].
pub type Result<T> = std::result::Result<T, GpuError>;

fn offending_lines(lines: &[(usize, String)]) -> String {
    let mut s = String::new();
    for (n, text) in lines {
        s.push_str(&format!("\n  generated source line {n}: {text}"));
    }
    s
}

/// Names the CUDA error code of a driver error, e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`.
pub(crate) fn describe(e: &DriverError) -> String {
    match e.error_string() {
        Ok(s) => format!("{:?} ({})", e.0, s.to_string_lossy()),
        Err(_) => format!("{:?}", e.0),
    }
}

/// Maps a failed driver call to an error naming the call.
pub(crate) fn driver(call: &'static str, e: DriverError) -> GpuError {
    GpuError::Driver {
        call,
        cause: describe(&e),
    }
}

/// Maps a failed allocation: out of memory is its own error, the rest are driver errors.
pub(crate) fn alloc(ordinal: usize, bytes: usize, e: DriverError) -> GpuError {
    if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        GpuError::OutOfMemory { ordinal, bytes }
    } else {
        driver("cuMemAlloc", e)
    }
}

/// Maps a failure of a launch or of the synchronisation after it.
pub(crate) fn launch(kernel: &str, ordinal: usize, e: DriverError) -> GpuError {
    GpuError::Launch {
        kernel: kernel.to_string(),
        ordinal,
        cause: describe(&e),
    }
}
