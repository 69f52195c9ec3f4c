//! ln, ln_1p, log2 and powf of `Dd` and `Qd` for x near 1, where the logarithm's fixed-point
//! path gives up (|ln x| below 2^-24 in qd, 2^-12 in dd) and a series or Newton's method takes
//! over: the case of tanh-sinh nodes crowding an interval's end (hpquad issue 15, `x^(x^x)`).
//!
//! Usage: `near-one REPS [FILTER]`; prints one JSON line per operation and band of |x - 1|:
//! ns per result (the best of REPS passes over 1024 inputs, after one untimed pass) and a
//! checksum (the sum of the leading components) that two builds must agree on. FILTER, a
//! substring, times the operations whose name contains it only.
//!
//! The inputs: `x = 1 + d` with `d = ±m 2^-k`, m with a random 64-bit significand in [1, 2), k
//! uniform over the band; `ln_1p` takes `d` itself; powf's exponent `y` is uniform in [0.5, 2]
//! (as `x^x` near x = 1). The generator is a fixed-seed xorshift, so every build times the same
//! numbers.

use arith_compare::best_ns;
use precision::lanes::{Columns, Isa, Operand};
use precision::{Dd, Qd, Real};
use std::hint::black_box;

const N: usize = 1024;

/// The bands of -log2 |x - 1|: `[lo, hi)`.
const BANDS: [(i32, i32); 6] = [(8, 16), (16, 24), (24, 30), (30, 40), (40, 60), (60, 120)];

/// xorshift64*: a fixed sequence, the same on every build.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [0, 1) with 53 random bits.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / 9007199254740992.0
    }
}

/// `d = ±m 2^-k` as a `T` with random bits in every component.
fn offset<T: Real>(rng: &mut Rng, band: (i32, i32)) -> T {
    let k = band.0 + (rng.next() % (band.1 - band.0) as u64) as i32;
    let mut m = T::from_f64(1.0 + rng.unit());
    let mut scale = 1.0;
    for _ in 1..T::LIMBS {
        scale *= f64::EPSILON;
        m += T::from_f64(rng.unit() * scale);
    }
    let sign = if rng.next() & 1 == 0 { 1.0 } else { -1.0 };
    m * T::from_f64(sign * 2f64.powi(-k))
}

fn report<T: Real>(name: &str, band: (i32, i32), ns: f64, out: &[T]) {
    let sum: f64 = out.iter().map(|x| x.limbs()[0]).sum();
    println!(
        "{{\"op\":\"{name}\",\"band\":\"2^-[{},{})\",\"ns\":{ns:.2},\"value\":{sum:e}}}",
        band.0, band.1
    );
}

fn run<T: Real + Columns>(type_name: &str, reps: usize, filter: &str) {
    for band in BANDS {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ band.0 as u64);
        let d: Vec<T> = (0..N).map(|_| offset::<T>(&mut rng, band)).collect();
        let x: Vec<T> = d.iter().map(|&d| T::one() + d).collect();
        let y: Vec<T> = (0..N)
            .map(|_| T::from_f64(0.5 + 1.5 * rng.unit()))
            .collect();
        let mut out = vec![T::zero(); N];
        let mut unary = |op: &str, args: &[T], f: &dyn Fn(T) -> T| {
            let name = format!("{type_name} {op}");
            if !name.contains(filter) {
                return;
            }
            let ns = best_ns(reps, N, || {
                for (o, &a) in out.iter_mut().zip(black_box(args)) {
                    *o = f(a);
                }
                black_box(&mut out);
            });
            report(&name, band, ns, &out);
        };
        unary("ln", &x, &|a| a.ln());
        unary("ln_1p", &d, &|a| a.ln_1p());
        unary("log2", &x, &|a| a.log2());
        let name = format!("{type_name} powf");
        if name.contains(filter) {
            let ns = best_ns(reps, N, || {
                for ((o, &a), &b) in out.iter_mut().zip(black_box(&x)).zip(black_box(&y)) {
                    *o = a.powf(b);
                }
                black_box(&mut out);
            });
            report(&name, band, ns, &out);
        }
        let isa = Isa::best();
        let name = format!("{type_name} lanes ln");
        if name.contains(filter) {
            let ns = best_ns(reps, N, || {
                T::ln_cols(isa, black_box(&mut out), black_box(&x))
            });
            report(&name, band, ns, &out);
        }
        let name = format!("{type_name} lanes powf");
        if name.contains(filter) {
            let ns = best_ns(reps, N, || {
                let (a, b) = (Operand::Column(black_box(&x[..])), Operand::Column(&y[..]));
                T::powf_cols(isa, black_box(&mut out), a, b)
            });
            report(&name, band, ns, &out);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let reps = args.get(1).and_then(|r| r.parse().ok()).filter(|&r| r > 0);
    let Some(reps) = reps else {
        eprintln!("usage: near-one REPS [FILTER]");
        std::process::exit(2);
    };
    let filter = args.get(2).map_or("", |s| s.as_str());
    run::<Dd>("dd", reps, filter);
    run::<Qd>("qd", reps, filter);
}
