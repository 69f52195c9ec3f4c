//! Inputs for the elementary-function agreement tests: per function, random values over its
//! documented range plus its hard regions (tiny arguments, near 1 for the logarithms, near
//! multiples of π/2 for the trigonometric functions, near ±1 for asin, acos and atanh), the
//! special values first; and the host's answer for each function.

use hpquad::expr::{Func, Func2};
use precision::{Dd, Qd};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{random_f64, specials, HostArith};

/// The host functions each device kernel mirrors.
pub trait HostFunctions: HostArith + Send + Sync {
    fn unary(f: Func, x: Self) -> Self;
    fn binary(f: Func2, x: Self, y: Self) -> Self;
    /// `x` plus a random tail below its last bit, normalised.
    fn with_tail(rng: &mut StdRng, x: f64) -> Self;
    /// `k·π/2` in this type.
    fn multiple_of_half_pi(k: f64) -> Self;
    fn add(self, d: f64) -> Self;
}

fn tail(rng: &mut StdRng, lead: f64) -> f64 {
    match rng.gen_range(0..8) {
        0 => 0.0,
        _ => lead * rng.gen_range(-1.0..1.0) * 2f64.powi(-53),
    }
}

macro_rules! host_functions {
    ($t:ident) => {
        impl HostFunctions for $t {
            fn unary(f: Func, x: $t) -> $t {
                f.apply(x)
            }
            fn binary(f: Func2, x: $t, y: $t) -> $t {
                f.apply(x, y)
            }
            fn multiple_of_half_pi(k: f64) -> $t {
                $t::FRAC_PI_2 * k
            }
            fn add(self, d: f64) -> $t {
                self + d
            }
            fn with_tail(rng: &mut StdRng, x: f64) -> $t {
                let mut v = $t::from(x);
                let mut lead = x;
                for _ in 1..<$t as hpquad::gpu::GpuReal>::LIMBS {
                    let t = tail(rng, lead);
                    v += t;
                    lead = t;
                }
                v
            }
        }
    };
}

host_functions!(Dd);
host_functions!(Qd);

impl HostFunctions for f64 {
    /// std's (the platform libm): `Func::apply` is, except for the inverse hyperbolic
    /// functions, which `Real for f64` replaces with its own.
    fn unary(f: Func, x: f64) -> f64 {
        match f {
            Func::Asinh => x.asinh(),
            Func::Acosh => x.acosh(),
            Func::Atanh => x.atanh(),
            _ => f.apply(x),
        }
    }
    fn binary(f: Func2, x: f64, y: f64) -> f64 {
        f.apply(x, y)
    }
    fn multiple_of_half_pi(k: f64) -> f64 {
        k * std::f64::consts::FRAC_PI_2
    }
    fn add(self, d: f64) -> f64 {
        self + d
    }
    fn with_tail(_: &mut StdRng, x: f64) -> f64 {
        x
    }
}

/// `2^e` times a random significand, `e` uniform in `lo..hi`, random sign if `signed`.
fn log_uniform(rng: &mut StdRng, lo: i32, hi: i32, signed: bool) -> f64 {
    let m: f64 = rng.gen_range(1.0..2.0);
    let v = m * 2f64.powi(rng.gen_range(lo..hi));
    if signed && rng.gen_bool(0.5) {
        -v
    } else {
        v
    }
}

fn sign(rng: &mut StdRng, v: f64) -> f64 {
    if rng.gen_bool(0.5) {
        -v
    } else {
        v
    }
}

/// One random argument of `f`: a tenth tiny, the rest over the range and the hard regions.
fn unary_argument<T: HostFunctions>(f: Func, rng: &mut StdRng) -> T {
    let r = rng.gen_range(0..10);
    if matches!(f, Func::Sin | Func::Cos | Func::Tan) && (1..=3).contains(&r) {
        // Near a multiple of π/2: k·π/2 in T, nudged by a tiny amount.
        let k = rng.gen_range(1..1_000_000) as f64;
        let k = sign(rng, k);
        return T::multiple_of_half_pi(k).add(log_uniform(rng, -200, -20, true));
    }
    let x = match f {
        Func::Exp | Func::ExpM1 => match r {
            0..=1 => log_uniform(rng, -70, -1, true),
            _ => rng.gen_range(-750.0..712.0),
        },
        Func::Ln | Func::Log2 | Func::Log10 => match r {
            0..=2 => 1.0 + log_uniform(rng, -60, -1, true),
            3 => precision::ldexp(1.0, rng.gen_range(-1074..1024)),
            _ => random_f64(rng).abs(),
        },
        Func::Ln1p => match r {
            0..=2 => log_uniform(rng, -80, -1, true),
            3 => -1.0 + log_uniform(rng, -60, -1, false),
            _ => log_uniform(rng, -20, 300, false),
        },
        Func::Sin | Func::Cos | Func::Tan => match r {
            0 => log_uniform(rng, -80, -1, true),
            // Payne–Hanek (precision/src/payne_hanek.rs) from 2^50 to the largest doubles.
            4 => log_uniform(rng, 50, 1023, true),
            _ => log_uniform(rng, -3, 30, true),
        },
        Func::Asin | Func::Acos | Func::Atanh => match r {
            0..=1 => log_uniform(rng, -80, -1, true),
            2..=3 => {
                let v = 1.0 - log_uniform(rng, -60, -2, false);
                sign(rng, v)
            }
            _ => rng.gen_range(-1.0..1.0),
        },
        Func::Atan | Func::Asinh | Func::Cbrt => match r {
            0..=1 => log_uniform(rng, -80, -1, true),
            2 => random_f64(rng),
            _ => log_uniform(rng, -30, 60, true),
        },
        Func::Sinh | Func::Cosh | Func::Tanh => match r {
            0..=1 => log_uniform(rng, -80, -1, true),
            _ => rng.gen_range(-720.0..720.0),
        },
        Func::Acosh => match r {
            0..=2 => 1.0 + log_uniform(rng, -60, -1, false),
            3 => log_uniform(rng, 50, 1000, false),
            _ => 1.0 + log_uniform(rng, -1, 40, false),
        },
        // No element-wise kernel (`cuda::MIRRORED`): any double.
        Func::Sqrt | Func::Floor | Func::Ceil | Func::Round | Func::Trunc | Func::Abs => {
            random_f64(rng)
        }
    };
    T::with_tail(rng, x)
}

/// `n` arguments of `f`: the special values, then random ones.
pub fn unary_inputs<T: HostFunctions>(f: Func, n: usize, seed: u64) -> Vec<T> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut v: Vec<T> = specials().into_iter().map(T::from_f64).collect();
    while v.len() < n {
        v.push(unary_argument(f, &mut rng));
    }
    v
}

/// `n` argument pairs of `f`: all pairs of special values, then random ones.
pub fn binary_inputs<T: HostFunctions>(f: Func2, n: usize, seed: u64) -> (Vec<T>, Vec<T>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let sp = specials();
    let (mut a, mut b) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for &x in &sp {
        for &y in &sp {
            a.push(T::from_f64(x));
            b.push(T::from_f64(y));
        }
    }
    while a.len() < n {
        let (x, y) = match f {
            Func2::Pow => match rng.gen_range(0..10) {
                // A negative base with an integer exponent.
                0 => (
                    -log_uniform(&mut rng, -10, 10, false),
                    rng.gen_range(-40..40) as f64,
                ),
                1 => (
                    1.0 + log_uniform(&mut rng, -50, -1, true),
                    rng.gen_range(-50.0..50.0),
                ),
                _ => (
                    log_uniform(&mut rng, -60, 60, false),
                    rng.gen_range(-50.0..50.0),
                ),
            },
            Func2::Atan2 => match rng.gen_range(0..4) {
                0 => (random_f64(&mut rng), random_f64(&mut rng)),
                _ => (
                    log_uniform(&mut rng, -30, 30, true),
                    log_uniform(&mut rng, -30, 30, true),
                ),
            },
            Func2::Hypot | Func2::Min | Func2::Max => (random_f64(&mut rng), random_f64(&mut rng)),
        };
        a.push(T::with_tail(&mut rng, x));
        b.push(T::with_tail(&mut rng, y));
    }
    (a, b)
}
