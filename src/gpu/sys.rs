//! Thin safe wrappers over the few driver and NVRTC calls that cudarc exposes only as
//! `unsafe`: library presence, device attributes, the NVRTC version and compilation to a
//! cubin. With `launch.rs` and `staging.rs`, the only modules with `unsafe` code; each block
//! states why the call is sound.

use std::ffi::{c_char, CStr};

use cudarc::driver::result as cu;
use cudarc::driver::sys::{CUdevice, CUdevice_attribute};
use cudarc::nvrtc::result as rtc;
use cudarc::nvrtc::sys as rtc_sys;

use super::error::{driver, GpuError, Result};

/// Whether libcuda can be loaded. cudarc panics on a call into a missing library, so every
/// entry point checks this first.
pub(crate) fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the library by its usual names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// Whether libnvrtc can be loaded.
pub(crate) fn nvrtc_present() -> bool {
    // SAFETY: as for `driver_present`.
    unsafe { rtc_sys::is_culib_present() }
}

/// The number of devices, after initialising the driver.
pub(crate) fn device_count() -> Result<usize> {
    if !driver_present() {
        return Err(GpuError::NoDriver);
    }
    cu::init().map_err(|e| driver("cuInit", e))?;
    let n = cu::device::get_count().map_err(|e| driver("cuDeviceGetCount", e))?;
    Ok(n.max(0) as usize)
}

/// The handle of device `ordinal` (the driver is initialised by `device_count`).
pub(crate) fn device(ordinal: usize) -> Result<CUdevice> {
    cu::device::get(ordinal as i32).map_err(|e| driver("cuDeviceGet", e))
}

/// A device attribute.
pub(crate) fn attribute(dev: CUdevice, attr: CUdevice_attribute) -> Result<i32> {
    // SAFETY: `dev` comes from cuDeviceGet, as the call requires.
    unsafe { cu::device::get_attribute(dev, attr) }.map_err(|e| driver("cuDeviceGetAttribute", e))
}

/// The device's memory in bytes.
pub(crate) fn total_memory(dev: CUdevice) -> Result<usize> {
    // SAFETY: `dev` comes from cuDeviceGet.
    unsafe { cu::device::total_mem(dev) }.map_err(|e| driver("cuDeviceTotalMem", e))
}

/// The device's name.
pub(crate) fn name(dev: CUdevice) -> Result<String> {
    cu::device::get_name(dev).map_err(|e| driver("cuDeviceGetName", e))
}

/// NVRTC's `(major, minor)` version.
pub(crate) fn nvrtc_version() -> Result<(i32, i32)> {
    if !nvrtc_present() {
        return Err(GpuError::NoNvrtc);
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: both pointers are valid for a write of one c_int.
    unsafe { rtc_sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(|e| GpuError::Nvrtc {
            call: "nvrtcVersion",
            cause: format!("{e:?}"),
        })?;
    Ok((major, minor))
}

/// What a compilation that did not produce code left behind.
pub(crate) enum CompileFailure {
    /// The compiler rejected the source; its log.
    Rejected(String),
    /// An NVRTC call failed outright.
    Call(GpuError),
}

/// An NVRTC program, destroyed when dropped.
struct Program(rtc_sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program came from nvrtcCreateProgram and is destroyed once, here. A
        // failure to free it leaks a little host memory and is not worth a panic.
        let _ = unsafe { rtc::destroy_program(self.0) };
    }
}

fn nvrtc_call(call: &'static str) -> impl Fn(rtc::NvrtcError) -> CompileFailure {
    move |e| {
        CompileFailure::Call(GpuError::Nvrtc {
            call,
            cause: format!("{e:?}"),
        })
    }
}

/// Compiles `source` (named `name` in the log) with `options` to a cubin for the real
/// architecture the options name.
pub(crate) fn compile_cubin(
    source: &str,
    name: &str,
    options: &[String],
) -> std::result::Result<Vec<u8>, CompileFailure> {
    let invalid = |what: &str| {
        CompileFailure::Call(GpuError::Invalid(format!(
            "{what} of kernel '{name}' contains a NUL byte"
        )))
    };
    let c_source = std::ffi::CString::new(source).map_err(|_| invalid("the source"))?;
    let c_name = std::ffi::CString::new(name).map_err(|_| invalid("the name"))?;
    if options.iter().any(|o| o.contains('\0')) {
        return Err(invalid("an option"));
    }
    let program = Program(
        rtc::create_program(&c_source, Some(&c_name)).map_err(nvrtc_call("nvrtcCreateProgram"))?,
    );
    // SAFETY: `program` is live until the end of this function; the options contain no NUL
    // (checked above), so cudarc's CString conversion cannot panic.
    let compiled = unsafe { rtc::compile_program(program.0, options) };
    if compiled.is_err() {
        // SAFETY: live program; the log is NUL-terminated by NVRTC.
        let log =
            unsafe { rtc::get_program_log(program.0) }.map_err(nvrtc_call("nvrtcGetProgramLog"))?;
        return Err(CompileFailure::Rejected(c_chars_to_string(&log)));
    }
    let mut size = 0usize;
    // SAFETY: live, compiled program; `size` is valid for a write.
    unsafe { rtc_sys::nvrtcGetCUBINSize(program.0, &mut size) }
        .result()
        .map_err(nvrtc_call("nvrtcGetCUBINSize"))?;
    let mut cubin = vec![0u8; size];
    // SAFETY: `cubin` holds the `size` bytes NVRTC said it would write.
    unsafe { rtc_sys::nvrtcGetCUBIN(program.0, cubin.as_mut_ptr() as *mut c_char) }
        .result()
        .map_err(nvrtc_call("nvrtcGetCUBIN"))?;
    Ok(cubin)
}

fn c_chars_to_string(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars.iter().map(|&c| c as u8).collect();
    match CStr::from_bytes_until_nul(&bytes) {
        Ok(s) => s.to_string_lossy().into_owned(),
        Err(_) => String::from_utf8_lossy(&bytes).into_owned(),
    }
}
