//! The Genz–Malik rule kernel (`GpuBackend::genz_malik`): with the published weights applied
//! to the device's class sums, the rule integrates every monomial of degree at most 7 exactly
//! over boxes, in f64, dd and qd, in 2 to 8 dimensions, and misses one of degree 8 (so the
//! test would see a wrong class or a wrong point); a box cut into many regions sums to the
//! exact integral; a non-finite value names its region and point. The exact values are
//! rationals computed in the working precision.

use hpquad::expr::Expr;
use hpquad::gpu::GpuBackend;
use hpquad::precision::{Dd, Qd, Real};

fn gpu() -> GpuBackend {
    GpuBackend::new(0).expect("a CUDA device")
}

fn rational<T: Real>(p: i64, q: i64) -> T {
    T::from_i64(p) / T::from_i64(q)
}

/// λ2, λ3, λ4, λ5 and λ2²/λ3² of Genz and Malik (1980).
fn constants<T: Real>() -> [T; 5] {
    [
        rational::<T>(9, 70).sqrt(),
        rational::<T>(9, 10).sqrt(),
        rational::<T>(9, 10).sqrt(),
        rational::<T>(9, 19).sqrt(),
        rational::<T>(1, 7),
    ]
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

/// The relative error of the rule on one box for the monomial `powers`.
fn monomial_error<T: Real>(powers: &[u32]) -> f64 {
    let dims = powers.len();
    let lo: Vec<T> = (0..dims).map(|d| rational(-(d as i64) - 1, 3)).collect();
    let hi: Vec<T> = (0..dims).map(|d| rational(d as i64 + 2, 5)).collect();
    let two = T::from_i64(2);
    let centers: Vec<T> = lo.iter().zip(&hi).map(|(&a, &b)| (a + b) / two).collect();
    let halfwidths: Vec<T> = lo.iter().zip(&hi).map(|(&a, &b)| (b - a) / two).collect();
    let value = rule_values(&monomial_source(powers), dims, &centers, &halfwidths)[0];
    let volume = lo.iter().zip(&hi).fold(T::one(), |v, (&a, &b)| v * (b - a));
    let exact = volume + monomial_integral(powers, &lo, &hi);
    ((value - exact) / exact).to_f64().abs()
}

fn exact_to_degree_seven<T: Real>() {
    let eps = T::epsilon().to_f64();
    let cases: [&[u32]; 7] = [
        &[7, 0],
        &[3, 4],
        &[2, 2, 3],
        &[1, 1, 1, 1, 3],
        &[0, 5, 0, 2, 0, 0],
        &[1, 1, 1, 1, 1, 1, 1],
        &[1, 1, 1, 1, 1, 1, 1, 0],
    ];
    for powers in cases {
        let err = monomial_error::<T>(powers);
        assert!(
            err < 64.0 * eps,
            "{powers:?} in {}: relative error {err:e}",
            T::NAME
        );
    }
    // Degree 8 is beyond the rule: a visible error, far above rounding.
    for powers in [&[8u32, 0][..], &[2, 2, 2, 2]] {
        let err = monomial_error::<T>(powers);
        assert!(
            err > 1e-10,
            "{powers:?} in {}: relative error {err:e}",
            T::NAME
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_rule_is_exact_to_degree_seven() {
    exact_to_degree_seven::<f64>();
    exact_to_degree_seven::<Dd>();
    exact_to_degree_seven::<Qd>();
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
        .genz_malik(
            &f,
            &[0.5, 0.5],
            &[0.5, 0.5],
            &constants::<Qd>().map(|c| c.to_f64()),
        )
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
