//! `GpuBackend::evaluate` (the integrand at a list of points, one launch) against the CPU's
//! `CpuBackend::evaluate`: the same bits in dd and qd, a few ulp in f64 where libdevice's
//! functions stand in for the host's libm; exact values where the limbs alone decide them
//! (`x - 1` at 1 - 1e-300); non-finite values returned as values; the empty list; the errors;
//! the hybrid's routing with buffers reused across lists of changing length. The timing test
//! prints GPU and CPU times of one call for n = 2^8 .. 2^20 points, the evidence for the
//! point-list crossover (run with `--ignored --nocapture gpu_evaluate_timing`).

use std::time::Instant;

use hpquad::backend::{check_finite, Backend};
use hpquad::cpu::CpuBackend;
use hpquad::expr::Expr;
use hpquad::gpu::{gpu_min_list_points, gpu_min_points, GpuBackend, HybridBackend};
use hpquad::integrand::RealFn;
use hpquad::precision::{Dd, Qd, Real};
use hpquad::Error;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The π integrand of the Romberg tests: `(16x - 16) / (x^4 - 2x^3 + 4x - 4)` on [0, 1].
const PI_INTEGRAND: &str = "(16*x-16)/(x^4-2*x^3+4*x-4)";
/// A rational integrand with a negative power and a constant that is not a double in dd/qd.
const RATIONAL: &str = "1/(1+x^2) - 0.1*x^-3 + x^5/(3-x)";
/// Constants that are exact doubles (3, 7, 5, 6): the host multiplies, divides, adds and
/// subtracts them with the mixed operations (`Dd * f64`), which round differently from the full
/// ones, so the device must use them too.
const MIXED: &str = "3*x + x/7 - 5 + 6*(x - 1) + 0.1*x + x^19 - x^-17";
/// exp, sin, log, sqrt and a real power; every term is positive on (0, 1], so no cancellation
/// magnifies a last-bit difference of a libdevice function in f64.
const FUNCTIONS: &str = "exp(-x)*sin(x+1) + sqrt(x)*log(2+x) + x^0.7 + pow(x, 1.5)";
/// The heavy integrand of the bench.
const HEAVY: &str = "sqrt(exp(cos(x^(x^x))))";

fn gpu() -> GpuBackend {
    GpuBackend::new(0).expect("a CUDA device")
}

fn cpu() -> CpuBackend {
    CpuBackend::new(0).expect("the CPU backend")
}

fn expr(source: &str) -> Expr {
    Expr::parse(source, 1).expect("a valid expression")
}

/// `n` points of (0, 1): first the ones whose low limbs a lossy transfer would drop (1 - 1e-300
/// and 0.5 + 1e-300 have a leading limb and a tiny second one in dd and qd), then the ends,
/// then random fractions k/m, which fill every limb.
fn points<T: Real>(n: usize, seed: u64) -> Vec<T> {
    let mut p = vec![
        T::from_limbs(&[1.0, -1e-300, 0.0, 0.0]),
        T::from_limbs(&[0.5, 1e-300, 0.0, 0.0]),
        T::from_f64(1e-300),
        T::one() - T::epsilon(),
        T::from_f64(0.5),
    ];
    let mut rng = StdRng::seed_from_u64(seed);
    while p.len() < n {
        let m = rng.gen_range(2..1i64 << 40);
        let k = rng.gen_range(1..m);
        p.push(T::from_i64(k) / T::from_i64(m));
    }
    p.truncate(n);
    p
}

/// Whether two values have the same bits in every limb. A NaN is a NaN whatever its sign and
/// payload (the host's default NaN is negative, the device's positive), and a NaN leading limb
/// makes the whole value NaN.
fn same_bits<T: Real>(x: T, y: T) -> bool {
    let (a, b) = (x.limbs(), y.limbs());
    if a[0].is_nan() && b[0].is_nan() {
        return true;
    }
    a.iter()
        .zip(&b)
        .all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()))
}

/// How many representable doubles lie between `a` and `b` (0 for the same bits).
fn ulps(a: f64, b: f64) -> u64 {
    if a.to_bits() == b.to_bits() {
        return 0;
    }
    if a.is_sign_negative() != b.is_sign_negative() {
        return u64::MAX;
    }
    a.to_bits().abs_diff(b.to_bits())
}

/// The GPU's values against the CPU's at the same points: the same bits in every limb, or for
/// f64 at most `f64_ulps` apart. Returns the largest distance seen in f64 ulps.
fn compare<T: Real>(source: &str, n: usize, f64_ulps: u64) -> u64 {
    let f = expr(source);
    let xs = points::<T>(n, 0x5eed ^ n as u64);
    let on_gpu = gpu().evaluate(&f, &xs).expect("GPU values");
    let on_cpu = cpu().evaluate(&f, &xs).expect("CPU values");
    assert_eq!(on_gpu.len(), xs.len(), "{source} in {}", T::NAME);
    let mut worst = 0;
    for (i, ((&g, &c), &x)) in on_gpu.iter().zip(&on_cpu).zip(&xs).enumerate() {
        let bound = if T::NAME == "f64" { f64_ulps } else { 0 };
        let d = if same_bits(g, c) {
            0
        } else {
            ulps(g.to_f64(), c.to_f64()).max(1)
        };
        assert!(
            d <= bound,
            "{source} in {} at point {i} = {x:?}: gpu {:?} cpu {:?} ({d} ulp apart)",
            T::NAME,
            g.limbs(),
            c.limbs()
        );
        worst = worst.max(d);
    }
    println!(
        "{source} in {}: {n} points, largest GPU-CPU difference {worst} ulp",
        T::NAME
    );
    worst
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_evaluate_rational_is_the_cpus_bits() {
    // 4099 points: the last block is partly empty. + - * / are IEEE on both sides (no
    // contraction into fma), so even f64 must agree bit for bit.
    for source in [PI_INTEGRAND, RATIONAL, MIXED] {
        compare::<f64>(source, 4099, 0);
        compare::<Dd>(source, 4099, 0);
        compare::<Qd>(source, 4099, 0);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_evaluate_functions_are_the_cpus_bits_in_dd_and_qd() {
    compare::<Dd>(FUNCTIONS, 3000, 0);
    compare::<Qd>(FUNCTIONS, 3000, 0);
    compare::<Dd>(HEAVY, 1000, 0);
    compare::<Qd>(HEAVY, 1000, 0);
    // libdevice against the host's libm: each function within its last bit or two, the
    // positive sum of four terms within a few.
    let worst = compare::<f64>(FUNCTIONS, 3000, 4);
    println!("f64 functions: worst {worst} ulp (bound 4)");
    compare::<f64>(HEAVY, 1000, 4);
}

/// Points of `dims` coordinates (point-major) on the GPU against the CPU, as [`compare`].
fn compare_nd<T: Real>(source: &str, dims: usize, n: usize, f64_ulps: u64) {
    let f = Expr::parse(source, dims).expect("a valid expression");
    let xs = points::<T>(n * dims, 0xd1 ^ (n * dims) as u64);
    let on_gpu = gpu().evaluate(&f, &xs).expect("GPU values");
    let on_cpu = cpu().evaluate(&f, &xs).expect("CPU values");
    assert_eq!(on_gpu.len(), n, "{source} in {}", T::NAME);
    for (i, (&g, &c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
        let bound = if T::NAME == "f64" { f64_ulps } else { 0 };
        let d = if same_bits(g, c) {
            0
        } else {
            ulps(g.to_f64(), c.to_f64()).max(1)
        };
        assert!(
            d <= bound,
            "{source} in {} at point {i} = {:?}: gpu {:?} cpu {:?} ({d} ulp apart)",
            T::NAME,
            &xs[i * dims..(i + 1) * dims],
            g.limbs(),
            c.limbs()
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_evaluate_points_of_several_coordinates() {
    // Every coordinate read from its own place: a function that weights each differently.
    // Its terms are positive on (0, 1)^3, so no cancellation magnifies a last-bit difference of
    // libdevice's exp and sin in f64 (with `- 0.1*z^3` one point was 8 ulp apart).
    const THREE: &str = "x*y^2 + exp(-z)*sin(x+2*y) + 0.1*z^3";
    const EIGHT: &str = "cos(x1 + 2*x2 + 3*x3 + 4*x4 + 5*x5 + 6*x6 + 7*x7 + 8*x8)";
    for (source, dims) in [(THREE, 3), (EIGHT, 8), ("x1 - x2", 2)] {
        compare_nd::<Dd>(source, dims, 3001, 0);
        compare_nd::<Qd>(source, dims, 3001, 0);
        compare_nd::<f64>(source, dims, 3001, 4);
    }
    // A ragged list is an error, not a guess.
    let f = Expr::parse(THREE, 3).unwrap();
    let err = gpu().evaluate(&f, &[0.5, 0.25]).unwrap_err();
    assert!(err.to_string().contains("3 variables"), "{err}");
}

/// Values that only the low limbs decide: `x - 1` at 1 - 1e-300 is exactly -1e-300, and
/// `log(x)` there is -1e-300 to the working precision; a transfer that dropped the second limb
/// would give 0 for both.
fn low_limbs_travel<T: Real>() {
    let gpu = gpu();
    let x = [T::from_limbs(&[1.0, -1e-300, 0.0, 0.0])];
    let exact = T::from_f64(-1e-300);
    let d = gpu.evaluate(&expr("x - 1"), &x).unwrap();
    assert!(same_bits(d[0], exact), "{}: {:?}", T::NAME, d[0].limbs());
    let l = gpu.evaluate(&expr("log(x)"), &x).unwrap();
    let rel = ((l[0] - exact) / exact).to_f64().abs();
    assert!(
        rel < 1e-28,
        "{}: log(1 - 1e-300) = {:?}",
        T::NAME,
        l[0].limbs()
    );
    // And values come back with every limb: 1/(3x) at x = 1 is 1/3 in the working precision,
    // whose low limbs are all non-zero.
    let third = gpu.evaluate(&expr("1/(3*x)"), &[T::one()]).unwrap();
    let want = T::one() / T::from_f64(3.0);
    assert!(want.limbs()[1] != 0.0 && want.limbs()[T::LIMBS - 1] != 0.0);
    assert!(
        same_bits(third[0], want),
        "{}: {:?}, want {:?}",
        T::NAME,
        third[0].limbs(),
        want.limbs()
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_evaluate_keeps_every_limb() {
    low_limbs_travel::<Dd>();
    low_limbs_travel::<Qd>();
}

fn non_finite_values<T: Real>() {
    let (gpu, cpu) = (gpu(), cpu());
    let cases: [(&str, [f64; 3], usize); 3] = [
        ("1/(x-0.5)", [0.25, 0.5, 0.75], 1),
        ("sqrt(x)", [4.0, 1.0, -1.0], 2),
        ("log(x)", [0.0, 1.0, 2.0], 0),
    ];
    for (source, xs, bad) in cases {
        let f = expr(source);
        let xs: Vec<T> = xs.iter().map(|&x| T::from_f64(x)).collect();
        let g = gpu
            .evaluate(&f, &xs)
            .unwrap_or_else(|e| panic!("{source} in {}: {e}", T::NAME));
        let c = cpu.evaluate(&f, &xs).unwrap();
        for (i, (gv, cv)) in g.iter().zip(&c).enumerate() {
            assert_eq!(gv.is_finite(), i != bad, "{source} in {} at {i}", T::NAME);
            assert!(
                same_bits(*gv, *cv),
                "{source} in {} at {i}: gpu {:?} cpu {:?}",
                T::NAME,
                gv.limbs(),
                cv.limbs()
            );
        }
        // The method's check then names the point, as on the CPU.
        match check_finite(&xs, &g) {
            Err(Error::NonFinite { x, .. }) => {
                assert_eq!(x, xs[bad].to_string(), "{source} in {}", T::NAME)
            }
            other => panic!("{source} in {}: {other:?}", T::NAME),
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_evaluate_returns_non_finite_values_as_values() {
    non_finite_values::<f64>();
    non_finite_values::<Dd>();
    non_finite_values::<Qd>();
}

struct Square;
impl RealFn for Square {
    fn eval<T: Real>(&self, x: T) -> T {
        x * x
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_evaluate_empty_lists_and_errors() {
    let gpu = gpu();
    let f = expr(PI_INTEGRAND);
    assert!(gpu.evaluate::<f64, _>(&f, &[]).unwrap().is_empty());
    assert!(gpu.evaluate::<Dd, _>(&f, &[]).unwrap().is_empty());
    assert!(gpu.evaluate::<Qd, _>(&f, &[]).unwrap().is_empty());
    // A Rust closure cannot be compiled for the device: a clear error, even for no points.
    for n in [0, 10] {
        let err = gpu.evaluate(&Square, &vec![0.5; n]).unwrap_err();
        assert!(
            matches!(&err, Error::Gpu(m) if m.contains("CPU only")),
            "{err}"
        );
    }
    // A function of two variables needs points of two coordinates.
    let two = Expr::parse("x*y", 2).unwrap();
    let err = gpu.evaluate(&two, &[0.5]).unwrap_err();
    assert!(err.to_string().contains("2 variables"), "{err}");
    // The hybrid runs a closure on the CPU, however many points.
    let hybrid = HybridBackend::new(cpu(), Some(gpu));
    let n = gpu_min_points::<f64>() as usize + 1;
    let xs: Vec<f64> = (0..n).map(|i| i as f64 / n as f64).collect();
    let ys = hybrid.evaluate(&Square, &xs).unwrap();
    assert!(ys.iter().zip(&xs).all(|(y, x)| *y == x * x));
    assert!(hybrid
        .device_for_points::<f64, _>(&Square, n)
        .starts_with("cpu"));
}

/// A hybrid given the GPU sends lists of at least `gpu_min_list_points(eager)` to it, whose
/// buffers are reused:
/// a long list, a short one (stale values beyond it in the device buffers), a longer one
/// (the buffers grow), each the CPU's bits.
fn hybrid_reuses_buffers<T: Real>() {
    let hybrid = HybridBackend::new(cpu(), Some(gpu()));
    let cpu = cpu();
    let f = expr(FUNCTIONS);
    let min = gpu_min_list_points::<T>(true) as usize;
    for (k, n) in [min + 1000, min, 3 * min + 7].into_iter().enumerate() {
        assert!(hybrid.device_for_points::<T, _>(&f, n).starts_with("gpu"));
        let xs = points::<T>(n, k as u64);
        let on_gpu = hybrid.evaluate(&f, &xs).unwrap();
        let on_cpu = cpu.evaluate(&f, &xs).unwrap();
        let same = on_gpu
            .iter()
            .zip(&on_cpu)
            .filter(|(g, c)| same_bits(**g, **c))
            .count();
        assert_eq!(same, n, "{} n={n}", T::NAME);
    }
    assert!(hybrid
        .device_for_points::<T, _>(&f, min - 1)
        .starts_with("cpu"));
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_evaluate_hybrid_routes_and_reuses_buffers() {
    // Point lists in f64 and dd stay on the CPU (measured: the copies cost more than the work).
    let hybrid = HybridBackend::new(cpu(), Some(gpu()));
    assert!(hybrid
        .device_for_points::<Dd, _>(&expr(FUNCTIONS), 1 << 20)
        .starts_with("cpu"));
    hybrid_reuses_buffers::<Qd>();
    // Given the GPU, qd lists go to it from the measured crossover, 2^8 points; started only
    // when needed (`--device auto`), from 2^14, where a list pays for a cold compilation.
    let f = expr(FUNCTIONS);
    assert_eq!(gpu_min_list_points::<Qd>(true), 1 << 8);
    assert!(hybrid
        .device_for_points::<Qd, _>(&f, 1 << 8)
        .starts_with("gpu"));
    let auto = HybridBackend::gpu_when_needed(cpu());
    assert!(auto
        .device_for_points::<Qd, _>(&f, (1 << 14) - 1)
        .starts_with("cpu"));
    assert!(auto
        .device_for_points::<Qd, _>(&f, 1 << 14)
        .starts_with("gpu"));
}

/// The median of `reps` timed calls of `b.evaluate`, in microseconds, after one untimed call.
fn median_us<B: Backend, T: Real>(b: &B, f: &Expr, xs: &[T], reps: usize) -> f64 {
    b.evaluate(f, xs).expect("warm-up");
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            std::hint::black_box(b.evaluate(f, xs).expect("timed call"));
            s.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2]
}

/// One row per n = 2^8, 2^9, ..., 2^20: the GPU's and the CPU's time of one evaluate call of
/// `source` in `T` (the GPU's includes packing, both copies and the launch), and the smallest
/// n from which on the GPU was faster at every n measured.
fn timing_table<T: Real>(gpu: &GpuBackend, cpu: &CpuBackend, source: &str) {
    let f = expr(source);
    let t = Instant::now();
    gpu.evaluate(&f, &points::<T>(256, 1)).expect("compile");
    println!(
        "\n{source} in {}: first GPU call (compile or cache) {:.0} ms",
        T::NAME,
        t.elapsed().as_secs_f64() * 1e3
    );
    println!(
        "| n | GPU µs | CPU µs ({} threads) | GPU/CPU |",
        cpu.threads()
    );
    println!("| --- | --- | --- | --- |");
    let mut crossover = None;
    for k in 8..=20u32 {
        let n = 1usize << k;
        let xs = points::<T>(n, k as u64);
        let reps = if k <= 16 { 9 } else { 5 };
        let g = median_us(gpu, &f, &xs, reps);
        let c = median_us(cpu, &f, &xs, reps);
        println!("| 2^{k} | {g:.0} | {c:.0} | {:.2} |", g / c);
        match (g < c, crossover) {
            (true, None) => crossover = Some(k),
            (false, Some(_)) => crossover = None,
            _ => {}
        }
    }
    match crossover {
        Some(k) => println!("crossover {source} {}: 2^{k}", T::NAME),
        None => println!("crossover {source} {}: none up to 2^20", T::NAME),
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_evaluate_timing() {
    let (gpu, cpu) = (gpu(), cpu());
    timing_table::<Qd>(&gpu, &cpu, PI_INTEGRAND);
    timing_table::<Qd>(&gpu, &cpu, HEAVY);
    timing_table::<Dd>(&gpu, &cpu, PI_INTEGRAND);
    timing_table::<f64>(&gpu, &cpu, PI_INTEGRAND);
}
