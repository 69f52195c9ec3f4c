//! The functions in SIMD lanes against the scalar loop, timed as `bench/arith/run.sh` times
//! the arithmetic comparison, for a machine whose load comes and goes: rounds, each running
//! every variant once in a rotating order, each time the best of REPS passes over 1024
//! arguments; the report is each variant's median over the rounds (and its fastest round), in
//! ns per element.
//!
//! Arguments as `bench/arith`'s functions take them: half in [1/3, 2/3], half in [1/14, 3/14]
//! (interleaved). Variants: the scalar loop (`out[i] = a[i].exp()`, compiled for AVX2 and FMA
//! as the tape's loops are), and the column function (`Columns::exp_cols`, `cosh_cols`...) on
//! each instruction set the CPU has. powf takes x as above and y uniform in [0.5, 3).
//!
//! Run: `cargo bench -p hpquad-precision --bench lanes_rounds [-- ROUNDS [REPS] [NAME...]]`
//! (defaults 9 and 20; with NAMEs, only the variants whose name contains one of them, such as
//! `"Qd ln"`).

use precision::lanes::{Columns, Isa, Operand};
use precision::{Dd, Qd};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use std::time::Instant;

const N: usize = 1024;

/// A quad-double uniform in `[lo, hi)` with all four components random (as `lanes.rs`).
fn draw(rng: &mut StdRng, lo: f64, hi: f64) -> Qd {
    let x = rng.gen_range(lo..hi);
    let c1 = x * f64::EPSILON * rng.gen_range(-0.5..0.5);
    let c2 = c1 * f64::EPSILON * rng.gen_range(-0.5..0.5);
    let c3 = c2 * f64::EPSILON * rng.gen_range(-0.5..0.5);
    Qd::from_f64(x) + Qd::new(0.0, c1, c2, c3)
}

fn arguments() -> Vec<Qd> {
    let mut rng = StdRng::seed_from_u64(5);
    (0..N)
        .map(|i| {
            if i % 2 == 0 {
                draw(&mut rng, 1.0 / 3.0, 2.0 / 3.0)
            } else {
                draw(&mut rng, 1.0 / 14.0, 3.0 / 14.0)
            }
        })
        .collect()
}

/// The scalar loop, built for AVX2 and FMA where the CPU has them (as `Plan::eval_batch`).
#[inline(always)]
fn scalar_loop<T: Copy>(out: &mut [T], a: &[T], f: impl Fn(T) -> T) {
    for (y, &x) in out.iter_mut().zip(a) {
        *y = f(x);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn scalar_loop_avx2<T: Copy>(out: &mut [T], a: &[T], f: impl Fn(T) -> T) {
    scalar_loop(out, a, f)
}

fn scalar<T: Copy>(out: &mut [T], a: &[T], f: impl Fn(T) -> T) {
    #[cfg(target_arch = "x86_64")]
    if Isa::Avx2.is_available() {
        // SAFETY: the CPU has AVX2 and FMA.
        unsafe { scalar_loop_avx2(out, a, f) };
        return;
    }
    scalar_loop(out, a, f)
}

/// The best of `reps` passes (after one untimed pass), in ns per element.
fn best_ns(reps: usize, mut pass: impl FnMut()) -> f64 {
    pass();
    (0..reps)
        .map(|_| {
            let start = Instant::now();
            pass();
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
        * 1e9
        / N as f64
}

/// One variant: its name and one pass.
type Variant<'a> = (String, Box<dyn FnMut() + 'a>);

fn variants<'a, T: Copy + Default + 'a>(
    name: &str,
    args: &'a [T],
    f: fn(T) -> T,
    cols: fn(Isa, &mut [T], &[T]),
) -> Vec<Variant<'a>> {
    let mut out = vec![T::default(); N];
    let mut v: Vec<Variant<'a>> = vec![(
        format!("{name} scalar loop"),
        Box::new(move || scalar(black_box(&mut out), black_box(args), f)),
    )];
    for isa in Isa::available() {
        let mut out = vec![T::default(); N];
        v.push((
            format!("{name} lanes {isa:?}"),
            Box::new(move || cols(isa, black_box(&mut out), black_box(args))),
        ));
    }
    v
}

/// The binary variants (`powf`): `out[i] = f(a[i], b[i])` and the column function.
fn variants2<'a, T: Copy + Default + 'a>(
    name: &str,
    args: (&'a [T], &'a [T]),
    f: fn(T, T) -> T,
    cols: fn(Isa, &mut [T], Operand<'_, T>, Operand<'_, T>),
) -> Vec<Variant<'a>> {
    let (a, b) = args;
    let mut out = vec![T::default(); N];
    let mut v: Vec<Variant<'a>> = vec![(
        format!("{name} scalar loop"),
        Box::new(move || scalar2(black_box(&mut out), black_box(a), black_box(b), f)),
    )];
    for isa in Isa::available() {
        let mut out = vec![T::default(); N];
        v.push((
            format!("{name} lanes {isa:?}"),
            Box::new(move || {
                let (a, b) = (Operand::Column(black_box(a)), Operand::Column(black_box(b)));
                cols(isa, black_box(&mut out), a, b)
            }),
        ));
    }
    v
}

/// `scalar` for a function of two arguments.
fn scalar2<T: Copy>(out: &mut [T], a: &[T], b: &[T], f: fn(T, T) -> T) {
    #[cfg(target_arch = "x86_64")]
    if Isa::Avx2.is_available() {
        // SAFETY: the CPU has AVX2 and FMA.
        unsafe { scalar_loop2_avx2(out, a, b, f) };
        return;
    }
    scalar_loop2(out, a, b, f)
}

#[inline(always)]
fn scalar_loop2<T: Copy>(out: &mut [T], a: &[T], b: &[T], f: fn(T, T) -> T) {
    for ((y, &x), &e) in out.iter_mut().zip(a).zip(b) {
        *y = f(x, e);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn scalar_loop2_avx2<T: Copy>(out: &mut [T], a: &[T], b: &[T], f: fn(T, T) -> T) {
    scalar_loop2(out, a, b, f)
}

fn main() {
    // `cargo bench` passes `--bench`; the numbers are the arguments that parse.
    let numbers: Vec<usize> = std::env::args().filter_map(|a| a.parse().ok()).collect();
    let rounds = numbers.first().copied().unwrap_or(9);
    let reps = numbers.get(1).copied().unwrap_or(20);
    let names: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--") && a.parse::<usize>().is_err())
        .collect();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "functions over {N} arguments, {rounds} rounds, best of {reps} passes each; load \
         average at the start: {}",
        load.split_whitespace().next().unwrap_or("?")
    );

    let qd = arguments();
    let dd: Vec<Dd> = qd.iter().map(|q| q.to_dd()).collect();
    // powf: x as above, y uniform in [0.5, 3).
    let mut rng = StdRng::seed_from_u64(6);
    let qy: Vec<Qd> = (0..N).map(|_| draw(&mut rng, 0.5, 3.0)).collect();
    let dy: Vec<Dd> = qy.iter().map(|q| q.to_dd()).collect();
    let mut all = variants("Dd exp", &dd, Dd::exp, Dd::exp_cols);
    all.extend(variants("Dd cosh", &dd, Dd::cosh, Dd::cosh_cols));
    all.extend(variants("Dd exp_m1", &dd, Dd::exp_m1, Dd::exp_m1_cols));
    all.extend(variants("Dd sinh", &dd, Dd::sinh, Dd::sinh_cols));
    all.extend(variants("Dd tanh", &dd, Dd::tanh, Dd::tanh_cols));
    all.extend(variants("Qd exp", &qd, Qd::exp, Qd::exp_cols));
    all.extend(variants("Qd cosh", &qd, Qd::cosh, Qd::cosh_cols));
    all.extend(variants("Qd exp_m1", &qd, Qd::exp_m1, Qd::exp_m1_cols));
    all.extend(variants("Qd sinh", &qd, Qd::sinh, Qd::sinh_cols));
    all.extend(variants("Qd tanh", &qd, Qd::tanh, Qd::tanh_cols));
    all.extend(variants("Dd ln", &dd, Dd::ln, Dd::ln_cols));
    all.extend(variants("Qd ln", &qd, Qd::ln, Qd::ln_cols));
    all.extend(variants("Dd sin", &dd, Dd::sin, Dd::sin_cols));
    all.extend(variants("Dd cos", &dd, Dd::cos, Dd::cos_cols));
    all.extend(variants("Qd sin", &qd, Qd::sin, Qd::sin_cols));
    all.extend(variants("Qd cos", &qd, Qd::cos, Qd::cos_cols));
    all.extend(variants2("Dd powf", (&dd, &dy), Dd::powf, Dd::powf_cols));
    all.extend(variants2("Qd powf", (&qd, &qy), Qd::powf, Qd::powf_cols));
    if !names.is_empty() {
        all.retain(|(name, _)| names.iter().any(|n| name.contains(n.as_str())));
    }

    let mut times = vec![Vec::new(); all.len()];
    for r in 0..rounds {
        for k in 0..all.len() {
            let i = (k + r) % all.len();
            times[i].push(best_ns(reps, &mut all[i].1));
        }
    }
    println!("| variant | median ns/element | fastest round |");
    println!("|---|---|---|");
    for ((name, _), t) in all.iter().zip(&mut times) {
        t.sort_by(f64::total_cmp);
        println!("| {name} | {:.1} | {:.1} |", t[t.len() / 2], t[0]);
    }
}
