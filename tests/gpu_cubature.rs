//! The rule kernel (`GpuBackend::genz_malik`, `kernels/genz_malik.cu`) for both rules: with
//! the published weights applied to the device's class sums, Genz and Malik's degree-7 rule
//! integrates every monomial of degree at most 7 exactly over boxes, in f64, dd and qd, in 2
//! to 8 dimensions, and misses one of degree 8 (so the test would see a wrong class or a wrong
//! point); with the host's weights DCUHRE's degree-9 rule does the same to degree 9 and misses
//! degree 10; a box cut into many regions sums to the exact integral; an integer-valued
//! integrand's class sums are the CPU's bits (exact sums in any order); a non-finite value
//! names its region and point. The exact values are rationals computed in the working
//! precision.

use hpquad::backend::{PointSet, RuleGenerators};
use hpquad::expr::Expr;
use hpquad::gpu::GpuBackend;
use hpquad::precision::{Dd, Qd, Real};

fn gpu() -> GpuBackend {
    GpuBackend::new(0).expect("a CUDA device")
}

fn rational<T: Real>(p: i64, q: i64) -> T {
    T::from_i64(p) / T::from_i64(q)
}

/// Where Genz and Malik's degree-7 rule (1980) puts its points: λ2, λ3 (= λ4), λ5 and
/// λ2²/λ3² (the rule kernel's point set).
fn constants<T: Real>() -> RuleGenerators<T> {
    RuleGenerators {
        set: PointSet::Degree7,
        axis: [
            rational::<T>(9, 70).sqrt(),
            rational::<T>(9, 10).sqrt(),
            T::zero(),
            T::zero(),
        ],
        vertex: rational::<T>(9, 19).sqrt(),
        ratio: rational::<T>(1, 7),
    }
}

/// The degree-7 weights of the five classes, for a region of volume 1 in `n` dimensions.
fn weights<T: Real>(n: i64) -> [T; 5] {
    [
        rational(12824 - 9120 * n + 400 * n * n, 19683),
        rational(980, 6561),
        rational(1820 - 400 * n, 19683),
        rational(200, 19683),
        rational::<T>(6859, 19683) / T::from_i64(1 << n),
    ]
}

/// The rule's value on each region of a list, from the device's sums.
fn rule_values<T: Real>(source: &str, dims: usize, centers: &[T], halfwidths: &[T]) -> Vec<T> {
    let f = Expr::parse(source, dims).expect("a valid expression");
    let sums = gpu()
        .genz_malik(&f, centers, halfwidths, &constants::<T>())
        .expect("the rule on the device");
    assert!(sums.bad.is_none(), "{source}: {:?}", sums.bad);
    assert_eq!(sums.fourth.len(), centers.len());
    let w = weights::<T>(dims as i64);
    sums.classes
        .iter()
        .zip(halfwidths.chunks_exact(dims))
        .map(|(s, h)| {
            let volume = h.iter().fold(T::one(), |v, &hi| v * (hi + hi));
            let mut total = T::zero();
            for (wk, sk) in w.iter().zip(s) {
                total += *wk * *sk;
            }
            total * volume
        })
        .collect()
}

/// ∫ Π x_d^{p_d} over [lo_d, hi_d]: a product of (hi^(p+1) - lo^(p+1)) / (p + 1).
fn monomial_integral<T: Real>(powers: &[u32], lo: &[T], hi: &[T]) -> T {
    let mut total = T::one();
    for ((&p, &a), &b) in powers.iter().zip(lo).zip(hi) {
        let k = p as i32 + 1;
        total *= (b.powi(k) - a.powi(k)) / T::from_i64(k as i64);
    }
    total
}

fn monomial_source(powers: &[u32]) -> String {
    let factors: Vec<String> = powers
        .iter()
        .enumerate()
        .filter(|(_, &p)| p > 0)
        .map(|(d, p)| format!("x{}^{p}", d + 1))
        .collect();
    // A constant term too, so that every class carries weight.
    format!("1 + {}", factors.join("*"))
}

/// The box of the monomial tests, [-(d+1)/3, (d+2)/5] on axis d: corners, centre, half-widths.
struct MonomialBox<T> {
    lo: Vec<T>,
    hi: Vec<T>,
    centers: Vec<T>,
    halfwidths: Vec<T>,
}

impl<T: Real> MonomialBox<T> {
    fn new(dims: usize) -> Self {
        let lo: Vec<T> = (0..dims).map(|d| rational(-(d as i64) - 1, 3)).collect();
        let hi: Vec<T> = (0..dims).map(|d| rational(d as i64 + 2, 5)).collect();
        let two = T::from_i64(2);
        let centers = lo.iter().zip(&hi).map(|(&a, &b)| (a + b) / two).collect();
        let halfwidths = lo.iter().zip(&hi).map(|(&a, &b)| (b - a) / two).collect();
        MonomialBox {
            lo,
            hi,
            centers,
            halfwidths,
        }
    }

    fn volume(&self) -> T {
        self.lo
            .iter()
            .zip(&self.hi)
            .fold(T::one(), |v, (&a, &b)| v * (b - a))
    }

    /// The relative error of `value` against the exact integral of `monomial_source(powers)`.
    fn relative_error(&self, powers: &[u32], value: T) -> f64 {
        let exact = self.volume() + monomial_integral(powers, &self.lo, &self.hi);
        ((value - exact) / exact).to_f64().abs()
    }
}

/// The degree-7 rule's relative error on the box for the monomial `powers`.
fn monomial_error<T: Real>(powers: &[u32]) -> f64 {
    let b = MonomialBox::<T>::new(powers.len());
    let value = rule_values(
        &monomial_source(powers),
        powers.len(),
        &b.centers,
        &b.halfwidths,
    )[0];
    b.relative_error(powers, value)
}

/// Within `ulps` ε of the exact value on each monomial of `exact`, and visibly off (above
/// 1e-10, far above rounding) on each of `beyond`, whose degree the rule does not reach.
fn exact_on<T: Real>(
    rule: &str,
    error: impl Fn(&[u32]) -> f64,
    exact: &[&[u32]],
    beyond: &[&[u32]],
    ulps: f64,
) {
    let eps = T::epsilon().to_f64();
    for &powers in exact {
        let err = error(powers);
        assert!(
            err < ulps * eps,
            "{rule} {powers:?} in {}: relative error {err:e}",
            T::NAME
        );
    }
    for &powers in beyond {
        let err = error(powers);
        assert!(
            err > 1e-10,
            "{rule} {powers:?} in {}: relative error {err:e}",
            T::NAME
        );
    }
}

fn exact_to_degree_seven<T: Real>() {
    let exact: [&[u32]; 7] = [
        &[7, 0],
        &[3, 4],
        &[2, 2, 3],
        &[1, 1, 1, 1, 3],
        &[0, 5, 0, 2, 0, 0],
        &[1, 1, 1, 1, 1, 1, 1],
        &[1, 1, 1, 1, 1, 1, 1, 0],
    ];
    exact_on::<T>(
        "degree 7",
        monomial_error::<T>,
        &exact,
        &[&[8, 0], &[2, 2, 2, 2]],
        64.0,
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_rule_is_exact_to_degree_seven() {
    exact_to_degree_seven::<f64>();
    exact_to_degree_seven::<Dd>();
    exact_to_degree_seven::<Qd>();
}

/// The degree-9 rule's relative error on the box for the monomial `powers`, from the device's
/// class sums and the host's weights ([`CubatureRule`], exact on every monomial of degree 9
/// on the host: tests/cuhre.rs).
fn degree9_monomial_error<T: Real>(powers: &[u32]) -> f64 {
    let dims = powers.len();
    let b = MonomialBox::<T>::new(dims);
    let rule = CubatureRule::<T>::with_set(PointSet::Degree9, dims);
    let f = Expr::parse(&monomial_source(powers), dims).expect("a valid expression");
    let sums = gpu()
        .genz_malik(&f, &b.centers, &b.halfwidths, rule.generators())
        .expect("the rule on the device");
    assert!(sums.bad.is_none() && sums.fourth.len() == dims);
    let mut value = T::zero();
    for (w, s) in rule.weights().iter().zip(&sums.classes[0]) {
        value += *w * *s;
    }
    b.relative_error(powers, value * b.volume())
}

fn exact_to_degree_nine<T: Real>() {
    let exact: [&[u32]; 8] = [
        &[9, 0],
        &[4, 4],
        &[2, 3, 4],
        &[2, 2, 2, 3],
        &[1, 1, 1, 1, 5],
        &[0, 4, 0, 2, 0, 2],
        &[2, 1, 2, 1, 2, 1, 0],
        &[1, 1, 1, 1, 1, 1, 1, 2],
    ];
    exact_on::<T>(
        "degree 9",
        degree9_monomial_error::<T>,
        &exact,
        &[&[10, 0], &[2, 2, 2, 4]],
        4096.0,
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_degree_9_rule_is_exact_to_degree_nine() {
    exact_to_degree_nine::<f64>();
    exact_to_degree_nine::<Dd>();
    exact_to_degree_nine::<Qd>();
}

/// An integrand whose values are small integers (floor of affine functions): every class sum
/// is exact in any order, so the device's sums and fourth differences are the CPU's bits, for
/// both rules, in f64, dd and qd, on regions of 2 to 9 dimensions (the degree-9 triples from
/// three). A wrong point would move a value across a step and change a sum.
fn integer_sums_are_the_cpus<T: Real>(dims: usize, set: PointSet) {
    let f = Expr::parse(&integer_steps(dims), dims).expect("parses");
    let rule = CubatureRule::<T>::with_set(set, dims);
    let (mut centers, mut halves) = (Vec::new(), Vec::new());
    for r in 0..300i64 {
        for d in 0..dims as i64 {
            centers.push(rational::<T>((r * 7 + d * 5) % 23 - 11, 13));
            halves.push(rational::<T>(1 + (r + 2 * d) % 7, 17));
        }
    }
    let cpu = CpuBackend::new(2)
        .expect("a pool")
        .genz_malik_sums(&f, &centers, &halves, rule.generators())
        .expect("CPU sums");
    let on_gpu = gpu()
        .genz_malik_sums(&f, &centers, &halves, rule.generators())
        .expect("GPU sums");
    assert_eq!((cpu.bad, on_gpu.bad), (None, None));
    let bits = |v: &T| v.limbs().map(f64::to_bits);
    for (r, (a, b)) in cpu.classes.iter().zip(&on_gpu.classes).enumerate() {
        for k in 0..set.classes() {
            assert_eq!(
                bits(&a[k]),
                bits(&b[k]),
                "{} {set:?} n={dims} region {r} class {k}",
                T::NAME
            );
        }
    }
    let fourth = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        fourth(&cpu.fourth),
        fourth(&on_gpu.fourth),
        "{} {set:?}",
        T::NAME
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_integer_class_sums_are_the_cpus_bits() {
    for set in [PointSet::Degree7, PointSet::Degree9] {
        for dims in [2, 3, 4, 6, 9] {
            integer_sums_are_the_cpus::<f64>(dims, set);
            integer_sums_are_the_cpus::<Dd>(dims, set);
            integer_sums_are_the_cpus::<Qd>(dims, set);
        }
    }
}

/// [0, 1]^3 cut into 10^3 cubes (more regions than one wave of blocks covers twice): the
/// rule values add up to the exact integral of a degree-7 polynomial.
fn many_regions<T: Real>() {
    let (dims, cuts) = (3usize, 10i64);
    let half = rational::<T>(1, 2 * cuts);
    let mut centers = Vec::new();
    for i in 0..cuts.pow(3) {
        let index = [i % cuts, (i / cuts) % cuts, i / (cuts * cuts)];
        centers.extend(index.iter().map(|&k| rational::<T>(2 * k + 1, 2 * cuts)));
    }
    let halfwidths = vec![half; centers.len()];
    let values = rule_values("x^3*y^2*z^2 + x*z", dims, &centers, &halfwidths);
    let mut total = T::zero();
    for v in values {
        total += v;
    }
    // 1/4 * 1/3 * 1/3 + 1/2 * 1/2
    let exact = rational::<T>(1, 36) + rational::<T>(1, 4);
    let err = ((total - exact) / exact).to_f64().abs();
    assert!(
        err < 1e4 * T::epsilon().to_f64(),
        "{} regions in {}: relative error {err:e}",
        cuts.pow(3),
        T::NAME
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_rule_over_many_regions_adds_up() {
    many_regions::<f64>();
    many_regions::<Dd>();
    many_regions::<Qd>();
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_rule_names_a_non_finite_point_and_picks_the_rough_axis() {
    let gpu = gpu();
    // 1/x1 is infinite at the center of the second region (index 0 of the kernel's order).
    let f = Expr::parse("1/x1 + x2", 2).unwrap();
    let centers = [0.5, 0.5, 0.0, 0.5];
    let halfwidths = [0.25; 4];
    let sums = gpu
        .genz_malik(&f, &centers, &halfwidths, &constants::<f64>())
        .unwrap();
    assert_eq!(sums.bad, Some((1, 0)));
    // exp(8 x2) varies along x2 only: its fourth difference there dwarfs x1's (which is 0).
    let f = Expr::parse("exp(8*x2) + x1", 2).unwrap();
    let sums = gpu
        .genz_malik(&f, &[0.5, 0.5], &[0.5, 0.5], &constants::<f64>())
        .unwrap();
    assert!(
        sums.fourth[1] > 1.0 && sums.fourth[0] < 1e-12,
        "{:?}",
        sums.fourth
    );
    // A one-dimensional integrand is not a cubature.
    let err = gpu
        .genz_malik(
            &Expr::parse("x", 1).unwrap(),
            &[0.5],
            &[0.5],
            &constants::<f64>(),
        )
        .unwrap_err();
    assert!(err.to_string().contains("2 to"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// CUHRE through the GPU backends, and the device's class sums against the CPU's
// ---------------------------------------------------------------------------------------------

mod cubature_support;
mod mpfr_support;

use cubature_support::integer_steps;

use hpquad::backend::Backend;
use hpquad::cpu::CpuBackend;
use hpquad::gpu::HybridBackend;
use hpquad::methods::cuhre::{cuhre, CubatureRule, Hyperbox, Schedule};
use hpquad::methods::Options;
use mpfr_support::{abs_error, BITS};
use rug::Float;

/// exp(-Σ a² (x - u)²) over [0, 1]^n: Π √π / (2a) (erf(a (1 - u)) + erf(a u)), in MPFR.
fn gaussian(n: usize) -> (String, Float) {
    let (a, u) = (["2", "3", "1.5", "2.5"], ["0.3", "0.6", "0.45", "0.7"]);
    let dec = |s: &str| Float::with_val(BITS, Float::parse(s).expect("a decimal"));
    let pi = Float::with_val(BITS, rug::float::Constant::Pi);
    let mut reference = Float::with_val(BITS, 1);
    let mut terms = Vec::new();
    for i in 0..n {
        let (ai, ui) = (dec(a[i]), dec(u[i]));
        let right = Float::with_val(BITS, &ai * (1 - ui.clone())).erf();
        let left = Float::with_val(BITS, &ai * &ui).erf();
        let root_pi = Float::with_val(BITS, pi.sqrt_ref());
        reference *= root_pi / Float::with_val(BITS, &ai * 2) * (right + left);
        terms.push(format!("{}^2*(x{} - {})^2", a[i], i + 1, u[i]));
    }
    (format!("exp(-({}))", terms.join(" + ")), reference)
}

/// (1 + Σ a x)^(-n-1) over [0, 1]^n: Σ_v (-1)^|v| / (1 + a·v) / (n! Π a), in MPFR.
fn corner_peak(n: usize) -> (String, Float) {
    let a = ["0.6", "0.4", "0.5", "0.3"];
    let dec = |s: &str| Float::with_val(BITS, Float::parse(s).expect("a decimal"));
    let mut sum = Float::with_val(BITS, 0);
    for v in 0..1u32 << n {
        let mut denominator = Float::with_val(BITS, 1);
        for (k, ak) in a[..n].iter().enumerate() {
            if v >> k & 1 == 1 {
                denominator += dec(ak);
            }
        }
        let term = Float::with_val(BITS, denominator.recip());
        if v.count_ones() % 2 == 0 {
            sum += term;
        } else {
            sum -= term;
        }
    }
    let mut scale = Float::with_val(BITS, 1);
    for (k, ak) in a[..n].iter().enumerate() {
        scale *= dec(ak) * (k as u32 + 1);
    }
    let terms: Vec<String> = (0..n).map(|i| format!("{}*x{}", a[i], i + 1)).collect();
    (
        format!("(1 + {})^(-{})", terms.join(" + "), n + 1),
        sum / scale,
    )
}

/// CUHRE's rounds on `backend` for one case in `T`: honest, within the tolerance when
/// converged, and the record names the device.
fn cuhre_on<T: Real, B: Backend>(backend: &B, source: &str, n: usize, reference: &Float, tol: f64) {
    let f = Expr::parse(source, n).expect(source);
    let unit = Hyperbox::new(vec![T::zero(); n], vec![T::one(); n]).expect("box");
    let options = Options {
        relative: Some(tol),
        ..Options::default()
    };
    let out = cuhre(&f, backend, &unit, Schedule::Parallel, &options).expect(source);
    let err = abs_error(out.value, reference);
    let devices: Vec<&str> = out.stages.iter().map(|s| &*s.device).collect();
    println!(
        "{source} in {}: error {err:.1e}, estimate {:.1e}, {} evaluations, {} rounds, {devices:?}",
        T::NAME,
        out.error,
        out.evaluations,
        out.levels
    );
    assert!(out.converged, "{source} in {}", T::NAME);
    assert!(err <= out.error, "{source} in {}: dishonest", T::NAME);
    assert!(
        err <= tol * reference.to_f64().abs(),
        "{source}: misses the tolerance"
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuhre_on_the_gpu_backend_is_honest() {
    let gpu = gpu();
    for n in [2, 4] {
        let (source, reference) = gaussian(n);
        cuhre_on::<f64, _>(&gpu, &source, n, &reference, 1e-8);
        // dd to 1e-10 in 2 dimensions; in 4, 1e-10 takes more than the cap of evaluations in
        // the GPU's large rounds (the H100 run).
        cuhre_on::<Dd, _>(
            &gpu,
            &source,
            n,
            &reference,
            if n == 2 { 1e-10 } else { 1e-8 },
        );
        let (source, reference) = corner_peak(n);
        cuhre_on::<f64, _>(&gpu, &source, n, &reference, 1e-8);
        // The 4-D corner peak in dd to 1e-12 passed the cap of evaluations (H100 run).
        cuhre_on::<Dd, _>(
            &gpu,
            &source,
            n,
            &reference,
            if n == 2 { 1e-12 } else { 1e-10 },
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuhre_on_the_hybrid_backend_is_honest_and_records_the_gpu() {
    let hybrid = HybridBackend::new(CpuBackend::new(0).expect("a pool"), Some(gpu()));
    let (source, reference) = gaussian(3);
    // qd: a round of regions × 127 points passes the list threshold (2^14) on the GPU.
    cuhre_on::<Qd, _>(&hybrid, &source, 3, &reference, 1e-12);
    cuhre_on::<Dd, _>(&hybrid, &source, 3, &reference, 1e-10);
    // Through the builder with Device::Gpu.
    let est = hpquad::Integral::with_dims(&source, 3)
        .expect("parses")
        .over_box(&[0.0; 3], &[1.0; 3])
        .method(hpquad::Method::Cuhre {
            schedule: Schedule::Parallel,
        })
        .precision(hpquad::Precision::Qd)
        .device(hpquad::Device::Gpu)
        .tolerance(1e-12)
        .compute()
        .expect("computes");
    let value = match est.value {
        hpquad::Value::Qd(x) => abs_error(x, &reference),
        other => panic!("{other:?}"),
    };
    assert!(est.converged && value <= est.error, "{est}");
    assert!(
        est.stages.iter().any(|s| s.device.starts_with("gpu")),
        "{:?}",
        est.stages
    );
}

/// The device's class sums and fourth differences against the CPU backend's, region by
/// region: the same points, summed in another order, so equal within a small relative bound
/// of the classes' sizes (not bit for bit).
fn sums_agree<T: Real>(dims: usize, set: PointSet) {
    let f = Expr::parse("exp(x1 - x2) * cos(3*x1 + x2) + x2^3", dims).expect("parses");
    let rule = CubatureRule::<T>::with_set(set, dims);
    let (mut centers, mut halves) = (Vec::new(), Vec::new());
    for r in 0..500i64 {
        for d in 0..dims as i64 {
            centers.push(rational::<T>((r * 7 + d * 3) % 19 - 9, 10));
            halves.push(rational::<T>(1 + (r + d) % 5, 40));
        }
    }
    let cpu = CpuBackend::new(2)
        .expect("a pool")
        .genz_malik_sums(&f, &centers, &halves, rule.generators())
        .expect("CPU sums");
    let gpu = gpu()
        .genz_malik_sums(&f, &centers, &halves, rule.generators())
        .expect("GPU sums");
    assert_eq!(cpu.bad, None);
    assert_eq!(gpu.bad, None);
    let bound = 1e3 * T::epsilon().to_f64();
    for (r, (a, b)) in cpu.classes.iter().zip(&gpu.classes).enumerate() {
        for k in 0..set.classes() {
            let size = a[k].to_f64().abs().max(1.0);
            let diff = (a[k] - b[k]).to_f64().abs();
            assert!(
                diff <= bound * size,
                "{} {set:?} region {r} class {k}: {diff:e}",
                T::NAME
            );
        }
        assert!(a[set.classes()..]
            .iter()
            .chain(&b[set.classes()..])
            .all(|v| *v == T::zero()));
    }
    for (i, (a, b)) in cpu.fourth.iter().zip(&gpu.fourth).enumerate() {
        assert!(
            (a - b).abs() <= 1e-12 * a.abs().max(1.0),
            "{} fourth {i}",
            T::NAME
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_class_sums_match_the_cpu() {
    for set in [PointSet::Degree7, PointSet::Degree9] {
        for dims in [2, 5] {
            sums_agree::<f64>(dims, set);
            sums_agree::<Dd>(dims, set);
            sums_agree::<Qd>(dims, set);
        }
    }
}

/// Writes the cubature kernels' sources (the list kernels and the rule kernel, both rules, f64,
/// dd and qd, 2 to 16 dimensions, integrands with and without the function library) into the
/// directory `HPQUAD_KERNEL_SOURCES` (by default `hpquad_kernel_sources` in the temporary
/// directory), for scripts/check_cuda.sh, which has clang compile them without a GPU. The
/// sources are generated on the host; no device is used.
#[test]
#[ignore = "writes the kernel sources for scripts/check_cuda.sh"]
fn write_cubature_kernel_sources() {
    use hpquad::expr::cuda;
    use hpquad::gpu::Gpu;
    let dir = std::env::var("HPQUAD_KERNEL_SOURCES").unwrap_or_else(|_| {
        let dir = std::env::temp_dir().join("hpquad_kernel_sources");
        std::fs::create_dir_all(&dir).expect("a directory");
        dir.to_string_lossy().into_owned()
    });
    let integrands = [
        ("x1*x2 - floor(3*x1)", 2usize),
        ("exp(-(x1 - 0.5)^2 - x2*x3)", 3),
        (
            "cos(x1 + 2*x2 + 3*x3 + 4*x4 + 5*x5 + 6*x6 + 7*x7 + 8*x8)",
            8,
        ),
        ("x1*x16 + 1", 16),
    ];
    for (source, dims) in integrands {
        let e = Expr::parse(source, dims).expect(source);
        for set in [PointSet::Degree7, PointSet::Degree9] {
            let write = |kind: &str, name: &str, text: String| {
                let file = format!("{dir}/{kind}_{name}_{dims}d_deg{}.cu", set.degree());
                std::fs::write(&file, text).expect("writes");
            };
            let code = cuda::integrand::<f64>(e.tape()).expect("f64 code");
            write(
                "list",
                "f64",
                Gpu::cuhre_list_source::<f64>(&code, set).expect("a source"),
            );
            write(
                "rule",
                "f64",
                Gpu::genz_malik_source::<f64>(&code, set).expect("a source"),
            );
            let code = cuda::integrand::<Dd>(e.tape()).expect("dd code");
            write(
                "list",
                "dd",
                Gpu::cuhre_list_source::<Dd>(&code, set).expect("a source"),
            );
            write(
                "rule",
                "dd",
                Gpu::genz_malik_source::<Dd>(&code, set).expect("a source"),
            );
            let code = cuda::integrand::<Qd>(e.tape()).expect("qd code");
            write(
                "list",
                "qd",
                Gpu::cuhre_list_source::<Qd>(&code, set).expect("a source"),
            );
            write(
                "rule",
                "qd",
                Gpu::genz_malik_source::<Qd>(&code, set).expect("a source"),
            );
        }
    }
}
