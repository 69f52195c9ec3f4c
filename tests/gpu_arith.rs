//! Host/device agreement of the double-double and quad-double arithmetic: kernels/dd.cuh and
//! kernels/qd.cuh against precision/src/dd.rs and qd.rs, bit for bit, on a million random
//! operands per operation plus every pair of special values.

mod gpu_support;

use gpu_support::{compare, operands, Agreement, HostArith};
use hpquad::gpu::{ArithOp, Gpu, MixedOp};
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
