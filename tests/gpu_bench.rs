//! Figures for the GPU backend, printed (run with --nocapture): start-up costs with a cold or
//! warm kernel cache, and throughput of the uniform sum. Timings are read, not asserted; the
//! one assertion is the cache contract, when the caller says the cache is warm.

use std::time::Instant;

use hpquad::gpu::{self, Gpu};
use precision::{Dd, Qd};

const PI: &str = "return 4.0 / (1.0 + x * x);";
const TRANSCENDENTAL: &str = "return exp(-x * x) * cos(x);";

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Times the first and second call of each kernel. With HPQUAD_EXPECT_WARM=1 the disk cache
/// was filled by an earlier process, and NVRTC must not run.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_bench_start_up() {
    let t = Instant::now();
    let gpu = Gpu::new(0).expect("a CUDA device");
    println!("startup Gpu::new (driver init + context): {:.1} ms", ms(t));
    println!("startup cache dir: {:?}", gpu::cache_dir());
    let h = 1.0 / 1024.0;
    let t = Instant::now();
    let _ = gpu.uniform_sum(PI, h / 2.0, h, 0, 1, 1024).unwrap();
    let first_f64 = ms(t);
    let t = Instant::now();
    let _ = gpu.uniform_sum(PI, h / 2.0, h, 0, 1, 1024).unwrap();
    let second_f64 = ms(t);
    let t = Instant::now();
    let _ = gpu
        .uniform_sum(PI, Dd::from(h / 2.0), Dd::from(h), 0, 1, 1024)
        .unwrap();
    let first_dd = ms(t);
    let t = Instant::now();
    let _ = gpu
        .uniform_sum(PI, Qd::from(h / 2.0), Qd::from(h), 0, 1, 1024)
        .unwrap();
    let first_qd = ms(t);
    let t = Instant::now();
    let _ = gpu
        .uniform_sum(PI, Qd::from(h / 2.0), Qd::from(h), 0, 1, 1024)
        .unwrap();
    let second_qd = ms(t);
    let stats = gpu::compile_stats();
    println!(
        "startup first call f64 {first_f64:.1} ms, second {second_f64:.2} ms; first dd {first_dd:.1} ms; \
         first qd {first_qd:.1} ms, second {second_qd:.2} ms"
    );
    println!("startup stats {stats:?}");
    if std::env::var("HPQUAD_EXPECT_WARM").is_ok_and(|v| v == "1") {
        assert_eq!(stats.nvrtc_compiles, 0, "a warm cache must not call NVRTC");
        assert_eq!(stats.disk_hits, 3);
    }
}

fn rate<T: hpquad::gpu::GpuReal>(gpu: &Gpu, body: &str, what: &str, a: T, h: T, n: u64) {
    // The first call loads the module; the second is timed.
    let _ = gpu.uniform_sum(body, a, h, 0, 1, 1024).unwrap();
    let t = Instant::now();
    let s = gpu.uniform_sum(body, a, h, 0, 1, n).unwrap();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "throughput {what} {} n=2^{}: {:.3} s, {:.3e} evaluations/s, sum*h = {:.17e}",
        T::NAME,
        n.trailing_zeros(),
        secs,
        n as f64 / secs,
        s.to_f64() * h.to_f64()
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_bench_throughput() {
    let gpu = Gpu::new(0).expect("a CUDA device");
    for (log_n, body, what) in [
        (36u32, PI, "pi"),
        (40, PI, "pi"),
        (34, TRANSCENDENTAL, "exp*cos"),
    ] {
        let n = 1u64 << log_n;
        let h = 1.0 / n as f64;
        rate(&gpu, body, what, h / 2.0, h, n);
    }
    let n = 1u64 << 32;
    let h = Dd::ONE / Dd::from(n as f64);
    rate(&gpu, PI, "pi", h / 2.0, h, n);
    let n = 1u64 << 28;
    let h = Qd::ONE / Qd::from(n as f64);
    rate(&gpu, PI, "pi", h / 2.0, h, n);
}

/// One π sum per type (f64 2^26, dd 2^24, qd 2^20 points), for a profiler to count their
/// FP64 instructions.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_bench_profile_target() {
    let gpu = Gpu::new(0).expect("a CUDA device");
    let n = 1u64 << 26;
    let h = 1.0 / n as f64;
    let s = gpu.uniform_sum(PI, h / 2.0, h, 0, 1, n).unwrap();
    println!("profile target f64 n=2^26: sum*h = {:.17e}", s * h);
    let n = 1u64 << 24;
    let h = Dd::ONE / Dd::from(n as f64);
    let s = gpu.uniform_sum(PI, h / 2.0, h, 0, 1, n).unwrap();
    println!(
        "profile target dd n=2^24: sum*h = {:?}",
        (s * h).components()
    );
    let n = 1u64 << 20;
    let h = Qd::ONE / Qd::from(n as f64);
    let s = gpu.uniform_sum(PI, h / 2.0, h, 0, 1, n).unwrap();
    println!(
        "profile target qd n=2^20: sum*h = {:?}",
        (s * h).components()
    );
}
