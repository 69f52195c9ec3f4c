//! The uniform-sum kernel against the host: the same bits as a host replay of the device's
//! summation order, the same bits on every run, and clear errors.

mod gpu_support;

use gpu_support::{replay_uniform_sum, HostArith, ReplaySum};
use hpquad::gpu::{self, Gpu, GpuError};
use precision::{Dd, Qd};

const PI_BODY: &str = "return 4.0 / (1.0 + x * x);";

fn pi_host<T: ReplaySum + HostArith>(n: u64) -> (T, T) {
    // Midpoint rule on [0, 1]: a = h/2, h = 1/n.
    let h = T::same(
        hpquad::gpu::ArithOp::Div,
        T::from_f64(1.0),
        T::from_f64(n as f64),
    );
    let a = T::mixed(hpquad::gpu::MixedOp::DivF64, h, 2.0);
    (a, h)
}

fn check_pi<T: ReplaySum + HostArith>(gpu: &Gpu, f: impl Fn(T) -> T, n: u64) {
    let (a, h) = pi_host::<T>(n);
    let dev = gpu.uniform_sum(PI_BODY, a, h, 0, 1, n).expect("device sum");
    let again = gpu.uniform_sum(PI_BODY, a, h, 0, 1, n).expect("device sum");
    let host = replay_uniform_sum(f, a, h, 0, 1, n);
    println!(
        "uniform sum {} n={n}: device {:?} host replay {:?}",
        T::NAME,
        dev.limbs(),
        host.limbs()
    );
    assert!(gpu_support::same_bits(dev, again), "two runs differ");
    assert!(
        gpu_support::same_bits(dev, host),
        "device and host replay differ"
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_uniform_sum_matches_the_host_replay() {
    let gpu = Gpu::new(0).expect("a CUDA device");
    for n in [1u64, 1000, 1 << 20] {
        check_pi::<f64>(&gpu, |x| 4.0 / (1.0 + x * x), n);
        check_pi::<Dd>(&gpu, |x| 4.0 / (1.0 + x * x), n);
        check_pi::<Qd>(&gpu, |x| 4.0 / (1.0 + x * x), n);
    }
    // From 2^28 points a sum runs on more than 1024 blocks (2048 here): the replay's grid
    // must be the device's for the bits to agree. The replay takes ~2 s on one core.
    check_pi::<f64>(&gpu, |x| 4.0 / (1.0 + x * x), 1 << 28);
    // A stride and an offset: the odd points of a grid of 2^21, as a Romberg level asks.
    let h = 1.0 / (1u64 << 21) as f64;
    let dev = gpu.uniform_sum(PI_BODY, 0.0, h, 1, 2, 1 << 20).unwrap();
    let host = replay_uniform_sum(|x: f64| 4.0 / (1.0 + x * x), 0.0, h, 1, 2, 1 << 20);
    assert_eq!(dev.to_bits(), host.to_bits());
    assert_eq!(gpu.uniform_sum(PI_BODY, 0.0, h, 0, 1, 0).unwrap(), 0.0);
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_errors_are_clear() {
    let gpu = Gpu::new(0).expect("a CUDA device");
    let err = gpu
        .uniform_sum("return x +* ;", 0.0, 1.0, 0, 1, 10)
        .unwrap_err();
    println!("compile error: {err}");
    match &err {
        GpuError::Compile { lines, log, .. } => {
            assert!(!log.is_empty());
            assert!(
                lines.iter().any(|(_, text)| text.contains("+*")),
                "{lines:?}"
            );
        }
        other => panic!("expected a compile error, got {other}"),
    }
    let err = gpu
        .uniform_sum("return 1.0 / (x - 0.5);", 0.0, 0.25, 0, 1, 4)
        .unwrap_err();
    println!("non-finite: {err}");
    assert!(matches!(err, GpuError::NonFinite { index: 2, .. }), "{err}");
    let err = gpu
        .uniform_sum(PI_BODY, Dd::ZERO, Dd::ONE, u64::MAX - 1, 1, 4)
        .unwrap_err();
    assert!(matches!(err, GpuError::Invalid(_)), "{err}");
    let err = Gpu::new(1000).err().expect("no device 1000");
    println!("no device: {err}");
    assert!(matches!(err, GpuError::NoDevice { ordinal: 1000, .. }));
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_devices_are_described() {
    let devices = gpu::devices().expect("driver");
    assert!(!devices.is_empty());
    for d in &devices {
        println!(
            "device {}: {} ({}), {} SMs, {:.1} GiB",
            d.ordinal,
            d.name,
            d.arch(),
            d.multiprocessors,
            d.memory_bytes as f64 / (1u64 << 30) as f64
        );
        assert!(d.multiprocessors > 0 && d.memory_bytes > 0);
    }
    println!(
        "NVRTC {:?}, cache {:?}",
        gpu::nvrtc_version().unwrap(),
        gpu::cache_dir()
    );
}
