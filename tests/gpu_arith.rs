//! Host/device agreement of the double-double and quad-double arithmetic: kernels/dd.cuh and
//! kernels/qd.cuh against precision/src/dd.rs and qd.rs, bit for bit, on a million random
//! operands per operation plus every pair of special values; and the device's signed zeros
//! (and the infinities and overflows around them) against IEEE's, as f64 gives them.

mod gpu_support;

use gpu_support::functions::HostFunctions;
use gpu_support::{compare, operands, same_bits, Agreement, HostArith};
use hpquad::backend::Backend;
use hpquad::expr::cuda::{MIRRORED, MIRRORED2};
use hpquad::expr::{Expr, Func};
use hpquad::gpu::{ArithOp, Gpu, GpuBackend, MixedOp};
use precision::{Dd, Qd};

const N: usize = 1_000_000;
const SAME: [ArithOp; 5] = [
    ArithOp::Add,
    ArithOp::Sub,
    ArithOp::Mul,
    ArithOp::Div,
    ArithOp::Sqrt,
];
const MIXED: [MixedOp; 6] = [
    MixedOp::AddF64,
    MixedOp::SubF64,
    MixedOp::MulF64,
    MixedOp::DivF64,
    MixedOp::F64Sub,
    MixedOp::F64Div,
];

fn check_type<T: HostArith>(gpu: &Gpu, seed: u64) -> Vec<(String, Agreement)> {
    let (a, b, d) = operands::<T>(N, seed);
    let mut report = Vec::new();
    for op in SAME {
        let host: Vec<T> = a.iter().zip(&b).map(|(&x, &y)| T::same(op, x, y)).collect();
        let dev = gpu.arith(op, &a, &b).expect("device arithmetic");
        let what = format!("{} {:?}", T::NAME, op);
        let ag = compare(&what, &a, &|i| format!("{:?}", b[i].limbs()), &host, &dev);
        report.push((what, ag));
    }
    for op in MIXED {
        let host: Vec<T> = a
            .iter()
            .zip(&d)
            .map(|(&x, &y)| T::mixed(op, x, y))
            .collect();
        let dev = gpu.arith_f64(op, &a, &d).expect("device arithmetic");
        let what = format!("{} {:?}", T::NAME, op);
        let ag = compare(&what, &a, &|i| format!("{:e}", d[i]), &host, &dev);
        report.push((what, ag));
    }
    report
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_arithmetic_matches_the_host_bit_for_bit() {
    let gpu = Gpu::new(0).expect("a CUDA device");
    let mut all = check_type::<f64>(&gpu, 1);
    all.extend(check_type::<Dd>(&gpu, 2));
    all.extend(check_type::<Qd>(&gpu, 3));
    let mut failed = Vec::new();
    for (what, ag) in &all {
        println!(
            "agreement {what:<14} {}/{} identical, max difference {} ulp",
            ag.identical, ag.total, ag.max_ulps
        );
        if let Some(m) = &ag.first_mismatch {
            println!("  first mismatch: {m}");
            failed.push(what.clone());
        }
    }
    assert!(failed.is_empty(), "not bit for bit: {failed:?}");
}

/// A device result: the host's bits, and where IEEE's result `want` (f64's, on the leading
/// components) is a zero or an infinity, that value in the leading component and zeros below.
fn ieee<T: HostArith>(what: &str, device: T, host: T, want: f64) {
    let (d, h) = (device.limbs(), host.limbs());
    assert!(
        same_bits(device, host),
        "{} {what}: device {d:?}, host {h:?}",
        T::NAME
    );
    if want == 0.0 || want.is_infinite() {
        assert!(
            d[0].to_bits() == want.to_bits() && d[1..].iter().all(|&x| x == 0.0),
            "{} {what}: device {d:?}, want {want:?}",
            T::NAME
        );
    }
}

/// Pairs whose sums, differences, products or quotients are zeros or infinities of a sign:
/// zeros of both signs meeting each other and other values, values with every limb in use
/// against themselves and their negations, products and quotients that underflow, and sums at
/// MAX that overflow (in dd through the first normalisation of `Dd::add_dd`).
fn zero_pairs<T: HostFunctions>() -> (Vec<T>, Vec<T>) {
    let lift = <T as HostArith>::from_f64;
    let mut pairs = Vec::new();
    for x in [0.0, -0.0] {
        for y in [
            0.0,
            -0.0,
            1.0 / 3.0,
            -1.0 / 3.0,
            1e300,
            -5e-324,
            f64::INFINITY,
            -f64::INFINITY,
        ] {
            pairs.push((lift(x), lift(y)));
            pairs.push((lift(y), lift(x)));
        }
    }
    let third = T::same(ArithOp::Div, lift(1.0), lift(3.0));
    let big = T::same(ArithOp::Mul, lift(1e300), third);
    let small = T::same(ArithOp::Mul, lift(-1e-290), third);
    for v in [third, big, small] {
        let minus = T::same(ArithOp::Sub, lift(0.0), v);
        pairs.extend([(v, v), (v, minus), (minus, v)]);
    }
    pairs.extend([
        (lift(-1e-200), lift(1e-200)),
        (lift(1e-200), lift(-1e-200)),
        (lift(-1e-300), lift(1e300)),
    ]);
    // MAX (of the type: f64::MAX and its largest lower components) plus 2^916 and 2^808.
    let max = T::same(ArithOp::Add, lift(f64::MAX), lift(9.979201547673598e291));
    let max = if T::NAME == "qd" {
        T::same(ArithOp::Add, max, lift(5.5395696628011126e275))
    } else {
        max
    };
    for d in [2f64.powi(916), 2f64.powi(808), 2f64.powi(960)] {
        let minus = T::same(ArithOp::Sub, lift(0.0), max);
        pairs.extend([(max, lift(d)), (lift(d), max), (minus, lift(-d))]);
    }
    pairs.into_iter().unzip()
}

fn check_signed_zeros<T: HostFunctions + precision::Real>(gpu: &Gpu, backend: &GpuBackend) {
    let head = |x: T| HostArith::limbs(x)[0];
    let (a, b) = zero_pairs::<T>();
    for op in SAME {
        let dev = gpu.arith(op, &a, &b).expect("device arithmetic");
        for i in 0..a.len() {
            let want = f64::same(op, head(a[i]), head(b[i]));
            let what = format!(
                "{op:?} {:?} {:?}",
                HostArith::limbs(a[i]),
                HostArith::limbs(b[i])
            );
            ieee(&what, dev[i], T::same(op, a[i], b[i]), want);
        }
    }
    for op in MIXED {
        for d in [0.0, -0.0, f64::INFINITY, -f64::INFINITY] {
            let ds = vec![d; a.len()];
            let dev = gpu.arith_f64(op, &a, &ds).expect("device arithmetic");
            for i in 0..a.len() {
                let want = f64::mixed(op, head(a[i]), d);
                let what = format!("{op:?} {:?} {d:?}", HostArith::limbs(a[i]));
                ieee(&what, dev[i], T::mixed(op, a[i], d), want);
            }
        }
    }
    // The functions at zeros, at the arguments where they are zeros, and at tiny ones.
    let args = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        -800.0,
        -f64::INFINITY,
        1e-300,
        -1e-300,
        -5e-324,
        0.25,
    ];
    let x: Vec<T> = args
        .iter()
        .map(|&v| <T as HostArith>::from_f64(v))
        .collect();
    for &f in MIRRORED {
        let dev = gpu.function(f, &x).expect("device function");
        for i in 0..x.len() {
            let what = format!("{f:?}({:?})", args[i]);
            ieee(&what, dev[i], T::unary(f, x[i]), f64::unary(f, args[i]));
        }
    }
    let pair_args = [
        0.0,
        -0.0,
        0.5,
        -2.0,
        3.0,
        -3.0,
        f64::INFINITY,
        -f64::INFINITY,
        -1e-300,
    ];
    let (mut px, mut py) = (Vec::new(), Vec::new());
    for &u in &pair_args {
        for &v in &pair_args {
            px.push(u);
            py.push(v);
        }
    }
    let lift =
        |v: &Vec<f64>| -> Vec<T> { v.iter().map(|&u| <T as HostArith>::from_f64(u)).collect() };
    let (tx, ty) = (lift(&px), lift(&py));
    for &f in MIRRORED2 {
        let dev = gpu.function2(f, &tx, &ty).expect("device function");
        for i in 0..tx.len() {
            let what = format!("{f:?}({:?}, {:?})", px[i], py[i]);
            let host = T::binary(f, tx[i], ty[i]);
            ieee(&what, dev[i], host, f64::binary(f, px[i], py[i]));
        }
    }
    // The rounding functions (which have no element-wise kernel) and negation, in an
    // evaluated integrand.
    let points = [0.0, -0.0, 0.25, -0.25, 0.5, -0.5, -0.75, 1.5, -1.5, -1e-300];
    let xs: Vec<T> = points
        .iter()
        .map(|&v| <T as HostArith>::from_f64(v))
        .collect();
    type Rounding<T> = (&'static str, fn(T) -> T, fn(f64) -> f64);
    let rounding: [Rounding<T>; 6] = [
        ("floor(x)", |x| T::unary(Func::Floor, x), f64::floor),
        ("ceil(x)", |x| T::unary(Func::Ceil, x), f64::ceil),
        ("trunc(x)", |x| T::unary(Func::Trunc, x), f64::trunc),
        ("round(x)", |x| T::unary(Func::Round, x), f64::round),
        ("-x", |x| -x, |x| -x),
        ("log1p(x)", |x| T::unary(Func::Ln1p, x), f64::ln_1p),
    ];
    for (source, host, reference) in rounding {
        let f = Expr::parse(source, 1).expect("a valid expression");
        let dev = backend.evaluate(&f, &xs).expect("device values");
        for i in 0..xs.len() {
            let what = format!("{source} at {:?}", points[i]);
            ieee(&what, dev[i], host(xs[i]), reference(points[i]));
        }
    }
}

/// The device's zeros carry IEEE's signs, and its overflows at MAX are IEEE's infinities:
/// every basic operation on the cases above, the functions with element-wise kernels at zeros
/// and where they give zeros, the rounding functions through an evaluated integrand; each
/// result also the host's bits.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_signed_zeros_are_ieee() {
    let gpu = Gpu::new(0).expect("a CUDA device");
    let backend = GpuBackend::new(0).expect("a CUDA device");
    check_signed_zeros::<Dd>(&gpu, &backend);
    check_signed_zeros::<Qd>(&gpu, &backend);
}
