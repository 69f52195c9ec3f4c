//! From CUDA source to a loaded module: header inlining, NVRTC options taken from the device,
//! and the two-level cache (loaded modules in memory, cubins on disk).
#![deny(unsafe_code)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use cudarc::driver::CudaModule;
use cudarc::nvrtc::Ptx;

use super::cache::{cache_dir, CacheKey, DiskCache};
use super::context::{self, DeviceInfo};
use super::error::{driver, GpuError, Result};
use super::sys;
use super::trace;

/// The headers a kernel may `#include "name"`, embedded at build time.
const HEADERS: [(&str, &str); 15] = [
    ("eft.cuh", include_str!("../../kernels/eft.cuh")),
    ("dd.cuh", include_str!("../../kernels/dd.cuh")),
    ("qd.cuh", include_str!("../../kernels/qd.cuh")),
    ("reduce.cuh", include_str!("../../kernels/reduce.cuh")),
    ("soa.cuh", include_str!("../../kernels/soa.cuh")),
    (
        "rule_points.cuh",
        include_str!("../../kernels/rule_points.cuh"),
    ),
    (
        "elementwise.cuh",
        include_str!("../../kernels/elementwise.cuh"),
    ),
    ("expansion.cuh", include_str!("../../kernels/expansion.cuh")),
    ("fixed.cuh", include_str!("../../kernels/fixed.cuh")),
    ("trig.cuh", include_str!("../../kernels/trig.cuh")),
    (
        "inverse_trig.cuh",
        include_str!("../../kernels/inverse_trig.cuh"),
    ),
    ("exp_log.cuh", include_str!("../../kernels/exp_log.cuh")),
    (
        "hyperbolic.cuh",
        include_str!("../../kernels/hyperbolic.cuh"),
    ),
    ("roots.cuh", include_str!("../../kernels/roots.cuh")),
    ("integrand.cuh", include_str!("../../kernels/integrand.cuh")),
];

/// Replaces each `#include "x.cuh"` by the header's text, each header once (they are all
/// `#pragma once`), so that the compiled source is one string: its hash covers everything
/// and compiler line numbers point into it.
pub(crate) fn inline_headers(source: &str) -> Result<String> {
    let mut out = String::with_capacity(source.len() + 32 * 1024);
    let mut seen = Vec::new();
    inline_into(source, &mut out, &mut seen)?;
    Ok(out)
}

fn inline_into(source: &str, out: &mut String, seen: &mut Vec<&'static str>) -> Result<()> {
    for line in source.lines() {
        let trimmed = line.trim();
        if trimmed == "#pragma once" {
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("#include") {
            let name = rest.trim().trim_matches('"');
            let Some(&(key, text)) = HEADERS.iter().find(|(n, _)| *n == name) else {
                return Err(GpuError::Invalid(format!("unknown kernel header {name}")));
            };
            if !seen.contains(&key) {
                seen.push(key);
                inline_into(text, out, seen)?;
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    Ok(())
}

/// The NVRTC options for a device: its real architecture (so NVRTC emits a cubin the driver
/// loads without a JIT step), IEEE division and square root, no flush to zero, and no
/// contraction of `a*b+c` into fma: the dd/qd algorithms put every fma explicitly, exactly
/// where the host does, and an implicit one would change the bits. Never fast-math.
///
/// From NVRTC 13 on, `--split-compile=0` lets the optimiser work on the functions of a source
/// in parallel on all host cores: a qd integrand with elementary functions compiles in 5.7
/// instead of 9.5 s on a 16-core host (one NVIDIA H200), while a source with one large
/// function, such as a rational integrand's, is unchanged. It changes no operation, so no bit.
/// Older NVRTC releases are given the options they were tested with.
pub(crate) fn options(info: &DeviceInfo, nvrtc_version: (i32, i32)) -> Vec<String> {
    let mut options = vec![
        format!("--gpu-architecture={}", info.arch()),
        "--fmad=false".into(),
        "--ftz=false".into(),
        "--prec-div=true".into(),
        "--prec-sqrt=true".into(),
        "--std=c++17".into(),
    ];
    if nvrtc_version.0 >= 13 {
        options.push("--split-compile=0".into());
    }
    options
}

/// How modules were obtained since the process started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompileStats {
    /// Modules compiled by NVRTC.
    pub nvrtc_compiles: u64,
    /// Modules loaded from a cubin in the disk cache.
    pub disk_hits: u64,
    /// Requests answered by a module already loaded in this process.
    pub memory_hits: u64,
    /// Time spent inside NVRTC.
    pub nvrtc_time: Duration,
}

static NVRTC_COMPILES: AtomicU64 = AtomicU64::new(0);
static DISK_HITS: AtomicU64 = AtomicU64::new(0);
static MEMORY_HITS: AtomicU64 = AtomicU64::new(0);
static NVRTC_NANOS: AtomicU64 = AtomicU64::new(0);

/// The compile counters of this process.
pub fn compile_stats() -> CompileStats {
    CompileStats {
        nvrtc_compiles: NVRTC_COMPILES.load(Ordering::Relaxed),
        disk_hits: DISK_HITS.load(Ordering::Relaxed),
        memory_hits: MEMORY_HITS.load(Ordering::Relaxed),
        nvrtc_time: Duration::from_nanos(NVRTC_NANOS.load(Ordering::Relaxed)),
    }
}

/// Compiles and loads modules for one device, remembering what it loaded.
pub(crate) struct Compiler {
    ordinal: usize,
    arch: String,
    options: Vec<String>,
    nvrtc_version: (i32, i32),
    disk: DiskCache,
    loaded: Mutex<HashMap<CacheKey, Arc<CudaModule>>>,
    /// The key of every source seen in this process, by the source's length. The key is a
    /// byte-by-byte FNV-1a hash, stable across processes for the disk cache, but a qd source
    /// with functions is a few hundred kB, which that hash takes most of a millisecond over,
    /// on every launch (a point list of sqrt(exp(cos(x^(x^x)))) in qd took 0.89 ms at 256
    /// points on an H100, 0.11 ms for a rational integrand). Comparing the text with the one
    /// seen before is a memcmp: microseconds.
    keys: Mutex<HashMap<usize, Vec<SeenSource>>>,
}

/// A source's text and its cache key.
type SeenSource = (Box<str>, CacheKey);

impl Compiler {
    /// The process-wide compiler of a device.
    pub(crate) fn for_device(info: &DeviceInfo) -> Result<Arc<Compiler>> {
        static COMPILERS: OnceLock<Mutex<HashMap<usize, Arc<Compiler>>>> = OnceLock::new();
        let mut map = COMPILERS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(c) = map.get(&info.ordinal) {
            return Ok(c.clone());
        }
        let nvrtc_version = sys::nvrtc_version()?;
        let compiler = Arc::new(Compiler {
            ordinal: info.ordinal,
            arch: info.arch(),
            options: options(info, nvrtc_version),
            nvrtc_version,
            disk: DiskCache::new(cache_dir()),
            loaded: Mutex::new(HashMap::new()),
            keys: Mutex::new(HashMap::new()),
        });
        map.insert(info.ordinal, compiler.clone());
        Ok(compiler)
    }

    /// The module for `source` (headers already inlined): from memory, else from the disk
    /// cache, else compiled by NVRTC and stored on disk. The lock is held throughout, so two
    /// threads asking for the same new kernel compile it once.
    pub(crate) fn module(&self, name: &str, source: &str) -> Result<Arc<CudaModule>> {
        let key = trace::time("cache key", || self.key(source));
        let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(m) = loaded.get(&key) {
            MEMORY_HITS.fetch_add(1, Ordering::Relaxed);
            return Ok(m.clone());
        }
        // A cached cubin the driver refuses (damaged, or from another driver) is recompiled.
        let cached = trace::time("disk cache read", || self.disk.load(key));
        let from_disk = match cached {
            Some(cubin) => {
                let ctx = context::context(self.ordinal)?;
                trace::time("module load (cuModuleLoadData of the cached cubin)", || {
                    ctx.load_module(Ptx::from_binary(cubin)).ok()
                })
            }
            None => None,
        };
        let module = match from_disk {
            Some(m) => {
                DISK_HITS.fetch_add(1, Ordering::Relaxed);
                m
            }
            None => {
                let cubin = trace::time("NVRTC compile", || self.compile(name, source))?;
                self.disk.store(key, &cubin);
                let ctx = context::context(self.ordinal)?;
                trace::time("module load (cuModuleLoadData of the new cubin)", || {
                    ctx.load_module(Ptx::from_binary(cubin))
                })
                .map_err(|e| driver("cuModuleLoadData", e))?
            }
        };
        loaded.insert(key, module.clone());
        Ok(module)
    }

    /// The cache key of `source`: hashed on its first sight in this process, found by
    /// comparing texts after that.
    fn key(&self, source: &str) -> CacheKey {
        let mut keys = self.keys.lock().unwrap_or_else(|p| p.into_inner());
        let seen = keys.entry(source.len()).or_default();
        if let Some((_, key)) = seen.iter().find(|(text, _)| **text == *source) {
            return *key;
        }
        let key = CacheKey::new(source, &self.options, &self.arch, self.nvrtc_version);
        seen.push((source.into(), key));
        key
    }

    fn compile(&self, name: &str, source: &str) -> Result<Vec<u8>> {
        let start = Instant::now();
        let result = sys::compile_cubin(source, name, &self.options);
        NVRTC_NANOS.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        NVRTC_COMPILES.fetch_add(1, Ordering::Relaxed);
        result.map_err(|failure| match failure {
            sys::CompileFailure::Call(e) => e,
            sys::CompileFailure::Rejected(log) => GpuError::Compile {
                kernel: name.to_string(),
                lines: offending_lines(&log, name, source),
                log,
            },
        })
    }
}

/// The source lines an NVRTC log points at: it writes `name(LINE): error: ...`.
pub(crate) fn offending_lines(log: &str, name: &str, source: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = source.lines().collect();
    let prefix = format!("{name}(");
    let mut found: Vec<(usize, String)> = Vec::new();
    for entry in log.lines() {
        let Some(rest) = entry.strip_prefix(&prefix) else {
            continue;
        };
        let Some((number, tail)) = rest.split_once(')') else {
            continue;
        };
        if !tail
            .trim_start_matches(':')
            .trim_start()
            .starts_with("error")
        {
            continue;
        }
        let Ok(n) = number.parse::<usize>() else {
            continue;
        };
        if n >= 1 && n <= lines.len() && !found.iter().any(|(m, _)| *m == n) {
            found.push((n, lines[n - 1].trim().to_string()));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_inlined_once() {
        let src = "#include \"qd.cuh\"\n#include \"dd.cuh\"\nint main_marker;\n";
        let out = inline_headers(src).unwrap();
        assert_eq!(out.matches("struct dd_t {").count(), 1);
        assert_eq!(out.matches("struct qd_t {").count(), 1);
        assert!(!out.contains("#include"));
        assert!(!out.contains("#pragma once"));
        assert!(out.ends_with("int main_marker;\n"));
        assert!(inline_headers("#include \"nope.cuh\"").is_err());
    }

    #[test]
    fn log_lines_map_to_source() {
        let source = "line one\n  return x +* 2;\nline three\n";
        let log = "k.cu(2): error: expected an expression\nk.cu(3): warning: meh\n\n1 error";
        assert_eq!(
            offending_lines(log, "k.cu", source),
            vec![(2, "return x +* 2;".to_string())]
        );
    }

    #[test]
    fn options_come_from_the_device() {
        let info = DeviceInfo {
            ordinal: 0,
            name: "test".into(),
            multiprocessors: 132,
            memory_bytes: 1 << 36,
            compute_capability: (9, 0),
        };
        for version in [(12, 4), (13, 0)] {
            let o = options(&info, version);
            assert!(o.contains(&"--gpu-architecture=sm_90".to_string()));
            assert!(o.contains(&"--fmad=false".to_string()));
            assert!(!o.iter().any(|x| x.contains("fast-math")));
            assert_eq!(
                o.contains(&"--split-compile=0".to_string()),
                version.0 >= 13
            );
        }
    }
}
