//! hpquad's side of the arithmetic comparison (`bench/arith/run.sh`): `Dd` and `Qd` timed on
//! the inputs of `compare_arith.py inputs`, the same way `compare_arith.cpp` times QD, Arb and
//! MPFR, one JSON line per library, operation and form.
//!
//! Usage: `arith-compare INPUTS REPS LABEL [OPS]`; the libraries print as `hpquad Dd LABEL`
//! and `hpquad Qd LABEL` (run.sh passes `native` or `default`, after the build), and the array
//! form through the SIMD lanes as `hpquad Dd lanes LABEL` and `hpquad Qd lanes LABEL`. OPS, a
//! comma-separated list such as `add,mul,pow`, times those operations only (for timing or
//! profiling a few operations without the whole table; run.sh times them all).
//!
//! The forms (the definitions of `compare_arith.py`, whose docstring is the reference):
//! - array: independent results into an output array; `x + y`, `x * y`, `x / y` and
//!   `pow(x, y)` over the pairs `(A_i, B_i)`, each function over A then B;
//! - scalar: one dependent chain from `x = A_0`: `x + B_i`, `x * M_i`, `M_i / x`, and
//!   `f(A_i + 2^-10 x)` for the functions (`pow`: `(A_i + 2^-10 x)^(B_i)`).
//!
//! The lanes libraries time the array form once more through `precision::lanes` (the column
//! operations `Columns::add_cols`, `exp_cols`... on [`Isa::best`], the widest instruction set
//! of the CPU, chosen at run time): the same inputs, the same outputs, the same checksum, for
//! every operation the lanes have (all but atan). Their lines carry the instruction set as
//! `"isa"`.
//!
//! Each time is the best of REPS passes after one untimed pass, divided by the number of
//! results of a pass. The value printed with it (the sum of the output array's leading
//! components, or the chain's last leading component) lets the report check that every
//! library computed the same thing.

use arith_compare::best_ns;
use precision::lanes::{Columns, Isa, Operand};
use precision::{Dd, Qd, Real};
use std::hint::black_box;
use std::process::ExitCode;

/// Numbers per set.
const N: usize = 1024;
/// The exact scaling of the chains' feedback, 2^-10.
const FEEDBACK: f64 = 1.0 / 1024.0;
/// The operations, in the report's order.
const OPS: [&str; 12] = [
    "add", "mul", "div", "sqrt", "exp", "log", "sin", "cos", "atan", "pow", "sinh", "cosh",
];

/// The three input sets A, B, M as quad-double components.
struct Inputs {
    sets: [Vec<[f64; 4]>; 3],
}

impl Inputs {
    /// Reads the file of `compare_arith.py inputs`: 3 sets × N numbers × 4 little-endian
    /// doubles.
    fn read(path: &str) -> Result<Inputs, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        if bytes.len() != 3 * N * 4 * 8 {
            return Err(format!(
                "{path}: {} bytes where 3 sets of {N} numbers of 4 doubles take {}",
                bytes.len(),
                3 * N * 4 * 8
            ));
        }
        let doubles: Vec<f64> = bytes
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().expect("chunks of 8")))
            .collect();
        let set = |k: usize| -> Vec<[f64; 4]> {
            (0..N)
                .map(|i| {
                    let at = (k * N + i) * 4;
                    [
                        doubles[at],
                        doubles[at + 1],
                        doubles[at + 2],
                        doubles[at + 3],
                    ]
                })
                .collect()
        };
        Ok(Inputs {
            sets: [set(0), set(1), set(2)],
        })
    }
}

/// One JSON line; `isa`, where given, is the lanes' instruction set.
fn print(lib: &str, op: &str, form: &str, ns: f64, value: f64, isa: Option<Isa>) {
    // JSON has no infinities; a non-finite value fails the report's agreement check either way.
    let value = if value.is_finite() {
        format!("{value:e}")
    } else {
        "NaN".to_string()
    };
    let isa = isa.map_or(String::new(), |isa| format!(",\"isa\":\"{isa:?}\""));
    println!(
        "{{\"lib\":\"{lib}\",\"op\":\"{op}\",\"form\":\"{form}\",\"ns\":{ns:.4},\"value\":{value}{isa}}}"
    );
}

fn lead<T: Real>(x: T) -> f64 {
    x.limbs()[0]
}

/// `2^-10 x`, exactly: every component scaled (as QD's `mul_pwr2`).
#[inline(always)]
fn feedback<T: Real>(x: T) -> T {
    T::from_limbs(&x.limbs().map(|c| c * FEEDBACK))
}

/// Times `out[i] = f(args[i])` over `args`; returns ns per result and the checksum.
fn array_unary<T: Real>(reps: usize, args: &[T], f: impl Fn(T) -> T) -> (f64, f64) {
    let mut out = vec![T::zero(); args.len()];
    let ns = best_ns(reps, args.len(), || {
        for (o, &x) in out.iter_mut().zip(black_box(args)) {
            *o = f(x);
        }
        black_box(&mut out);
    });
    (ns, out.iter().map(|&x| lead(x)).sum())
}

/// Times `out[i] = f(a[i], b[i])`; returns ns per result and the checksum.
fn array_binary<T: Real>(reps: usize, a: &[T], b: &[T], f: impl Fn(T, T) -> T) -> (f64, f64) {
    let mut out = vec![T::zero(); a.len()];
    let ns = best_ns(reps, a.len(), || {
        for ((o, &x), &y) in out.iter_mut().zip(black_box(a)).zip(black_box(b)) {
            *o = f(x, y);
        }
        black_box(&mut out);
    });
    (ns, out.iter().map(|&x| lead(x)).sum())
}

/// Times the column operation `cols(out, args)` (the lanes' `out[i] = f(args[i])`); returns
/// ns per result and the checksum.
fn lanes_unary<T: Real>(reps: usize, args: &[T], cols: impl Fn(&mut [T], &[T])) -> (f64, f64) {
    let mut out = vec![T::zero(); args.len()];
    let ns = best_ns(reps, args.len(), || {
        cols(black_box(&mut out), black_box(args));
    });
    (ns, out.iter().map(|&x| lead(x)).sum())
}

/// Times the column operation `cols(out, a, b)` (the lanes' `out[i] = f(a[i], b[i])`); returns
/// ns per result and the checksum.
fn lanes_binary<T: Real>(
    reps: usize,
    a: &[T],
    b: &[T],
    cols: impl Fn(&mut [T], Operand<'_, T>, Operand<'_, T>),
) -> (f64, f64) {
    let mut out = vec![T::zero(); a.len()];
    let ns = best_ns(reps, a.len(), || {
        let (x, y) = (Operand::Column(black_box(a)), Operand::Column(black_box(b)));
        cols(black_box(&mut out), x, y);
    });
    (ns, out.iter().map(|&x| lead(x)).sum())
}

/// Times the chain `x = step(x, y[i])` from `x = start`; returns ns per step and the last x.
fn chain<T: Real>(reps: usize, start: T, y: &[T], step: impl Fn(T, T) -> T) -> (f64, f64) {
    let mut last = start;
    let ns = best_ns(reps, y.len(), || {
        let mut x = black_box(start);
        for &yi in black_box(y) {
            x = step(x, yi);
        }
        last = black_box(x);
    });
    (ns, lead(last))
}

/// The array form through the lanes of `isa`, for the operations the lanes have (`None` for
/// atan, which has no column operation).
fn lanes<T: Real + Columns>(
    op: &str,
    isa: Isa,
    reps: usize,
    (a, b, ab): (&[T], &[T], &[T]),
) -> Option<(f64, f64)> {
    let binary = |cols: fn(Isa, &mut [T], Operand<'_, T>, Operand<'_, T>)| {
        Some(lanes_binary(reps, a, b, |o, x, y| cols(isa, o, x, y)))
    };
    let unary = |cols: fn(Isa, &mut [T], &[T])| Some(lanes_unary(reps, ab, |o, x| cols(isa, o, x)));
    match op {
        "add" => binary(T::add_cols),
        "mul" => binary(T::mul_cols),
        "div" => binary(T::div_cols),
        "pow" => binary(T::powf_cols),
        "sqrt" => unary(T::sqrt_cols),
        "exp" => unary(T::exp_cols),
        "log" => unary(T::ln_cols),
        "sin" => unary(T::sin_cols),
        "cos" => unary(T::cos_cols),
        "sinh" => unary(T::sinh_cols),
        "cosh" => unary(T::cosh_cols),
        "atan" => None,
        _ => unreachable!("OPS lists only these"),
    }
}

/// Every operation in both forms for one type, and the array form through the lanes as the
/// library `lanes_lib`.
fn run<T: Real + Columns>(lib: &str, lanes_lib: &str, inputs: &Inputs, reps: usize, ops: &[&str]) {
    let load = |k: usize| -> Vec<T> { inputs.sets[k].iter().map(|c| T::from_limbs(c)).collect() };
    let (a, b, m) = (load(0), load(1), load(2));
    let ab: Vec<T> = a.iter().chain(&b).copied().collect();
    let a0 = a[0];
    // A function in both forms: over A then B, and the chain x = f(A_i + 2^-10 x).
    macro_rules! unary {
        ($f:expr) => {
            (
                array_unary(reps, &ab, |x| $f(x)),
                chain(reps, a0, &a, |x, ai| $f(ai + feedback(x))),
            )
        };
    }
    for &op in ops {
        let (array, scalar) = match op {
            "add" => (
                array_binary(reps, &a, &b, |x, y| x + y),
                chain(reps, a0, &b, |x, y| x + y),
            ),
            "mul" => (
                array_binary(reps, &a, &b, |x, y| x * y),
                chain(reps, a0, &m, |x, y| x * y),
            ),
            "div" => (
                array_binary(reps, &a, &b, |x, y| x / y),
                chain(reps, a0, &m, |x, y| y / x),
            ),
            "pow" => {
                // The exponent of the chain's step i is B_i: pairs (A_i, B_i) as one slice.
                let pairs: Vec<(T, T)> = a.iter().copied().zip(b.iter().copied()).collect();
                let mut last = a0;
                let ns = best_ns(reps, N, || {
                    let mut x = black_box(a0);
                    for &(ai, bi) in black_box(&pairs) {
                        x = (ai + feedback(x)).powf(bi);
                    }
                    last = black_box(x);
                });
                (
                    array_binary(reps, &a, &b, |x, y| x.powf(y)),
                    (ns, lead(last)),
                )
            }
            // Direct calls (no function pointer), so that small functions inline as in C++.
            "sqrt" => unary!(T::sqrt),
            "exp" => unary!(T::exp),
            "log" => unary!(T::ln),
            "sin" => unary!(T::sin),
            "cos" => unary!(T::cos),
            "atan" => unary!(T::atan),
            "sinh" => unary!(T::sinh),
            "cosh" => unary!(T::cosh),
            _ => unreachable!("OPS lists only these"),
        };
        print(lib, op, "array", array.0, array.1, None);
        print(lib, op, "scalar", scalar.0, scalar.1, None);
        let isa = Isa::best();
        if let Some((ns, value)) = lanes(op, isa, reps, (&a, &b, &ab)) {
            print(lanes_lib, op, "array", ns, value, Some(isa));
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if !(4..=5).contains(&args.len()) {
        eprintln!("usage: arith-compare INPUTS REPS LABEL [OPS]");
        return ExitCode::from(2);
    }
    let ops: Vec<&str> = match args.get(4) {
        None => OPS.to_vec(),
        Some(list) => list.split(',').collect(),
    };
    if let Some(op) = ops.iter().find(|op| !OPS.contains(op)) {
        eprintln!(
            "unknown operation {op:?} in OPS (the operations: {})",
            OPS.join(",")
        );
        return ExitCode::from(2);
    }
    let inputs = match Inputs::read(&args[1]) {
        Ok(inputs) => inputs,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let reps: usize = match args[2].parse() {
        Ok(r) if r > 0 => r,
        _ => {
            eprintln!("REPS must be a positive integer, not {:?}", args[2]);
            return ExitCode::from(2);
        }
    };
    let label = &args[3];
    let (dd, dd_lanes) = (
        format!("hpquad Dd {label}"),
        format!("hpquad Dd lanes {label}"),
    );
    let (qd, qd_lanes) = (
        format!("hpquad Qd {label}"),
        format!("hpquad Qd lanes {label}"),
    );
    run::<Dd>(&dd, &dd_lanes, &inputs, reps, &ops);
    run::<Qd>(&qd, &qd_lanes, &inputs, reps, &ops);
    ExitCode::SUCCESS
}
