//! Double-double ([`Dd`], about 31 significant digits) and quad-double ([`Qd`], about 62)
//! floating-point arithmetic with elementary functions, plus the [`Real`] trait that hpquad's
//! integration methods are generic over.
//!
//! Every algorithm is straight-line IEEE double arithmetic with explicit fused multiply-adds,
//! so that the CUDA mirror in hpquad's `kernels/` computes the same bits on the GPU.

pub mod eft;
pub mod lanes;

mod constants;
mod dd;
mod decimal;
mod expansion;
mod f64_functions;
mod ops;
mod qd;
mod real;
mod remainder;

// The elementary functions, each written once for Dd and Qd over `expansion::Expansion`.
mod atan_fixed;
mod exp_fixed;
mod exp_log;
mod fixed;
mod hyperbolic;
mod inverse_trig;
mod log_fixed;
mod payne_hanek;
mod roots;
mod trig;
mod trig_fixed;

mod num_traits_impl;
#[cfg(feature = "twofloat")]
mod twofloat_impl;

pub use dd::Dd;
pub use decimal::ParseRealError;
pub use qd::Qd;
pub use real::Real;

/// `x * 2^k`, exact unless the result over- or underflows; `k` may exceed the exponent range
/// of a single power of two.
#[inline]
pub fn ldexp(x: f64, k: i32) -> f64 {
    // Scale in at most three exact steps so that 2^k itself never over- or underflows.
    let step = k.clamp(-1022, 1023);
    let mut y = x * pow2(step);
    let rest = k - step;
    if rest != 0 {
        let step2 = rest.clamp(-1022, 1023);
        y *= pow2(step2);
        let rest2 = rest - step2;
        if rest2 != 0 {
            y *= pow2(rest2.clamp(-1022, 1023));
        }
    }
    y
}

/// 2^k for k in -1022..=1023, built from its bits.
#[inline(always)]
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// The README's examples, compiled and run as doctests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
