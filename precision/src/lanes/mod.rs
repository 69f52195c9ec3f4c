//! Column arithmetic for [`Dd`] and [`Qd`] in SIMD lanes, with the scalar methods' bits.
//!
//! A column operation such as `dst[i] = a[i] + b[i]` loads a vector of elements, transposes
//! them into one vector per component (structure of arrays, in registers), runs the scalar
//! algorithm of `crate::dd` or `crate::qd` once over the vectors, and transposes back. The
//! algorithms are written once (`dd.rs`, `qd.rs`) over a lane type (`simd.rs`): eight doubles
//! with AVX-512F, four with AVX2 and FMA, one as the portable fallback; [`Isa::best`] picks the
//! widest the CPU has, at run time.
//!
//! Every lane computes exactly what the scalar method computes: the same IEEE operations in the
//! same order, the same fused multiply-adds and no others; the early returns for special values
//! (overflow, zero divisors, negative square roots) become selects of the same special values.
//! The branches that are data-dependent loops or rare rescalings rather than early returns, `Qd`
//! addition under heavy cancellation, `Qd` square root outside [2^-800, 2^800] and `Dd` square
//! root below 2^-900, are flagged per lane by the kernels and those lanes recomputed by the
//! scalar method; the rescalings of a divisor or dividend are per-lane factors (1 in the lanes
//! that need none). The tests compare limbs with the
//! scalar methods over random inputs on every instruction set the CPU has.
//!
//! The functions (`exp.rs`, `exp_m1.rs`, `hyperbolic.rs`) run `crate::exp_fixed`'s integer
//! algorithm lane by lane, on 64-bit integers in the same registers (`ints.rs`) and the
//! fixed-point limb arithmetic over them (`fixed.rs`); malformed arguments (lower components
//! that are no rounding errors of the leading one) and the paths that take another algorithm
//! (sinh and cosh of large arguments) go to the scalar method, as does every element on
//! [`Isa::Scalar`], where the integer emulation one lane wide would be slower than the scalar
//! code.
//!
//! The lanes are `std::arch` intrinsics behind a small trait rather than a SIMD crate: `pulp`
//! 0.13 (the version in the dependency tree, through the `qd` dev-dependency) has AVX-512 only on
//! nightly, and the trait needs a couple of dozen operations, each of which must be the one
//! instruction with the scalar operation's bits (fused `mul_add`, `!=` true for NaN).

mod dd;
mod eft;
mod exp;
mod exp_m1;
mod fixed;
mod hyperbolic;
mod ints;
mod log;
mod pow;
mod qd;
mod simd;
#[cfg(test)]
mod tests;
mod trig;

use ints::Ints;
use simd::{Lanes, Scalar};

use crate::{Dd, Qd};

/// The instruction set a column operation runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// One double at a time, on any CPU.
    Scalar,
    /// Four doubles per instruction: x86-64 with AVX2 and FMA.
    Avx2,
    /// Eight doubles per instruction: x86-64 with AVX-512F.
    Avx512,
}

impl Isa {
    /// The widest instruction set this CPU has.
    pub fn best() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Isa::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return Isa::Avx2;
            }
        }
        Isa::Scalar
    }

    /// Every instruction set this CPU has, narrowest first.
    pub fn available() -> Vec<Isa> {
        [Isa::Scalar, Isa::Avx2, Isa::Avx512]
            .into_iter()
            .filter(|isa| isa.is_available())
            .collect()
    }

    /// Whether this CPU has the instruction set.
    pub fn is_available(self) -> bool {
        match self {
            Isa::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// Doubles per instruction.
    pub fn width(self) -> usize {
        match self {
            Isa::Scalar => 1,
            Isa::Avx2 => 4,
            Isa::Avx512 => 8,
        }
    }
}

/// One operand of a column operation: a column, or one value for every element.
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a, T> {
    Column(&'a [T]),
    Constant(T),
}

/// Column operations: `dst[i] = a[i] op b[i]` for every `i < dst.len()`, each element the same
/// bits as the scalar operation (`a[i] + b[i]`, `a[i].sqrt()`...). The names end in `_cols`
/// so that they never clash with the operator traits' `add`, `mul`...
///
/// `isa` picks the instruction set; one this CPU lacks falls back to [`Isa::best`], so any
/// value is safe. Operand columns may be longer than `dst`.
///
/// # Panics
/// When an operand column is shorter than `dst`.
pub trait Columns: Copy + Sized {
    /// `a + b`.
    fn add_cols(isa: Isa, dst: &mut [Self], a: Operand<'_, Self>, b: Operand<'_, Self>);
    /// `a - b`.
    fn sub_cols(isa: Isa, dst: &mut [Self], a: Operand<'_, Self>, b: Operand<'_, Self>);
    /// `a * b`.
    fn mul_cols(isa: Isa, dst: &mut [Self], a: Operand<'_, Self>, b: Operand<'_, Self>);
    /// `a / b`.
    fn div_cols(isa: Isa, dst: &mut [Self], a: Operand<'_, Self>, b: Operand<'_, Self>);
    /// `a + b` for a double `b` (the mixed operation, as `Self + f64`).
    fn add_f64_cols(isa: Isa, dst: &mut [Self], a: &[Self], b: f64);
    /// `a * b` for a double `b`.
    fn mul_f64_cols(isa: Isa, dst: &mut [Self], a: &[Self], b: f64);
    /// `a / b` for a double `b`.
    fn div_f64_cols(isa: Isa, dst: &mut [Self], a: &[Self], b: f64);
    /// `a.sqrt()`.
    fn sqrt_cols(isa: Isa, dst: &mut [Self], a: &[Self]);
    /// `a.exp()` (on [`Isa::Scalar`], the scalar method: faster there than its integer
    /// arithmetic emulated one lane wide).
    fn exp_cols(isa: Isa, dst: &mut [Self], a: &[Self]);
    /// `a.cosh()` (on [`Isa::Scalar`], the scalar method).
    fn cosh_cols(isa: Isa, dst: &mut [Self], a: &[Self]);
    /// `a.exp_m1()` (on [`Isa::Scalar`], the scalar method).
    fn exp_m1_cols(isa: Isa, dst: &mut [Self], a: &[Self]);
    /// `a.sinh()` (on [`Isa::Scalar`], the scalar method).
    fn sinh_cols(isa: Isa, dst: &mut [Self], a: &[Self]);
    /// `a.tanh()` (on [`Isa::Scalar`], the scalar method).
    fn tanh_cols(isa: Isa, dst: &mut [Self], a: &[Self]);
    /// `a.ln()` (on [`Isa::Scalar`], the scalar method).
    fn ln_cols(isa: Isa, dst: &mut [Self], a: &[Self]);
    /// `a.sin()` (on [`Isa::Scalar`], the scalar method).
    fn sin_cols(isa: Isa, dst: &mut [Self], a: &[Self]);
    /// `a.cos()` (on [`Isa::Scalar`], the scalar method).
    fn cos_cols(isa: Isa, dst: &mut [Self], a: &[Self]);
    /// `dst[i] = a[i].powf(b[i])`.
    fn powf_cols(isa: Isa, dst: &mut [Self], a: Operand<'_, Self>, b: Operand<'_, Self>);
}

/// A value as `N` components.
trait Components<const N: usize>: Copy {
    fn to_array(self) -> [f64; N];
    fn from_array(c: [f64; N]) -> Self;
    /// The `N * s.len()` components of `s`, in memory order.
    fn flat(s: &[Self]) -> &[f64];
    fn flat_mut(s: &mut [Self]) -> &mut [f64];
}

/// `Components::flat` and `flat_mut` for a `#[repr(C)]` type of `N` doubles.
macro_rules! flat {
    ($n:literal) => {
        #[inline(always)]
        fn flat(s: &[Self]) -> &[f64] {
            // SAFETY: `Self` is `#[repr(C)]` with exactly $n f64 fields (or one [f64; $n]), so
            // it has the size and alignment of [f64; $n] and no padding.
            unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<f64>(), $n * s.len()) }
        }
        #[inline(always)]
        fn flat_mut(s: &mut [Self]) -> &mut [f64] {
            // SAFETY: as `flat`; the borrow is unique.
            unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<f64>(), $n * s.len()) }
        }
    };
}

impl Components<2> for Dd {
    #[inline(always)]
    fn to_array(self) -> [f64; 2] {
        [self.hi, self.lo]
    }
    #[inline(always)]
    fn from_array(c: [f64; 2]) -> Dd {
        Dd::new(c[0], c[1])
    }
    flat!(2);
}

impl Components<4> for Qd {
    #[inline(always)]
    fn to_array(self) -> [f64; 4] {
        self.0
    }
    #[inline(always)]
    fn from_array(c: [f64; 4]) -> Qd {
        Qd(c)
    }
    flat!(4);
}

impl Components<1> for f64 {
    #[inline(always)]
    fn to_array(self) -> [f64; 1] {
        [self]
    }
    #[inline(always)]
    fn from_array(c: [f64; 1]) -> f64 {
        c[0]
    }
    flat!(1);
}

/// Where a kernel reads an operand of `N` components per element.
trait Source<const N: usize>: Copy {
    /// Element `i`.
    fn get(&self, i: usize) -> [f64; N];
    /// Elements `i..i + L::WIDTH`, one vector per component.
    fn load<L: Lanes>(&self, l: L, i: usize) -> [L::V; N];
}

/// A column of values stored one after another (array of structures).
#[derive(Clone, Copy)]
struct Column<'a, T>(&'a [T]);

impl<T: Components<N>, const N: usize> Source<N> for Column<'_, T> {
    #[inline(always)]
    fn get(&self, i: usize) -> [f64; N] {
        self.0[i].to_array()
    }
    #[inline(always)]
    fn load<L: Lanes>(&self, l: L, i: usize) -> [L::V; N] {
        l.load_aos(T::flat(&self.0[i..i + L::WIDTH]))
    }
}

/// One value for every element.
#[derive(Clone, Copy)]
struct Splat<const N: usize>([f64; N]);

impl<const N: usize> Source<N> for Splat<N> {
    #[inline(always)]
    fn get(&self, _: usize) -> [f64; N] {
        self.0
    }
    #[inline(always)]
    fn load<L: Lanes>(&self, l: L, _: usize) -> [L::V; N] {
        std::array::from_fn(|k| l.splat(self.0[k]))
    }
}

/// Writes elements `i..i + L::WIDTH` of `dst` from one vector per component.
#[inline(always)]
fn store<L: Lanes, T: Components<N>, const N: usize>(l: L, dst: &mut [T], i: usize, v: [L::V; N]) {
    l.store_aos(T::flat_mut(&mut dst[i..i + L::WIDTH]), v)
}

/// One column operation: the lane kernel, and the scalar method it mirrors.
trait Kernel<const N: usize, const NB: usize>: Copy {
    /// The result in every lane, and the lanes that the scalar method must redo.
    fn lanes<L: Ints>(self, l: L, a: [L::V; N], b: [L::V; NB]) -> ([L::V; N], L::M);
    fn scalar(self, a: [f64; N], b: [f64; NB]) -> [f64; N];
}

/// A kernel over whole columns, for [`dispatch`] to run on an instruction set.
trait Task {
    fn run<L: Ints>(self, l: L);
}

struct Job<'a, T, K, A, B> {
    dst: &'a mut [T],
    kernel: K,
    a: A,
    b: B,
}

impl<T, K, A, B, const N: usize, const NB: usize> Task for (Job<'_, T, K, A, B>, [(); N], [(); NB])
where
    T: Components<N>,
    K: Kernel<N, NB>,
    A: Source<N>,
    B: Source<NB>,
{
    #[inline(always)]
    fn run<L: Ints>(self, l: L) {
        let Job { dst, kernel, a, b } = self.0;
        let n = dst.len();
        let mut i = 0;
        while i + L::WIDTH <= n {
            let (r, redo) = kernel.lanes(l, a.load(l, i), b.load(l, i));
            store(l, dst, i, r);
            let mut redo = l.bits(redo);
            while redo != 0 {
                let j = i + redo.trailing_zeros() as usize;
                dst[j] = T::from_array(kernel.scalar(a.get(j), b.get(j)));
                redo &= redo - 1;
            }
            i += L::WIDTH;
        }
        let rest = n - i;
        if rest == 0 {
            return;
        }
        if L::WIDTH == 1 {
            for (j, y) in dst.iter_mut().enumerate().skip(i) {
                *y = T::from_array(kernel.scalar(a.get(j), b.get(j)));
            }
            return;
        }
        // The last, partial vector in the lanes too, the unused lanes holding copies of the
        // last element: each lane's result depends on its own operands alone, so the padding
        // changes no bit, and a short column (a tanh-sinh level, a Gauss rule of a few dozen
        // points) keeps its last elements out of the scalar method, an elementary function's
        // several times slower one.
        let mut pa = [[0.0; N]; MAX_WIDTH];
        let mut pb = [[0.0; NB]; MAX_WIDTH];
        for k in 0..L::WIDTH {
            let j = i + k.min(rest - 1);
            pa[k] = a.get(j);
            pb[k] = b.get(j);
        }
        let (r, redo) = kernel.lanes(l, gather(l, &pa), gather(l, &pb));
        let out = scatter(l, r);
        let redo = l.bits(redo);
        for (k, value) in out.iter().take(rest).enumerate() {
            let j = i + k;
            dst[j] = T::from_array(if redo >> k & 1 == 1 {
                kernel.scalar(a.get(j), b.get(j))
            } else {
                *value
            });
        }
    }
}

/// The widest vector of doubles among the instruction sets ([`simd::Avx512`]'s 8).
const MAX_WIDTH: usize = 8;

/// The first `L::WIDTH` elements of `p` as one vector per component.
#[inline(always)]
fn gather<L: Lanes, const N: usize>(l: L, p: &[[f64; N]; MAX_WIDTH]) -> [L::V; N] {
    std::array::from_fn(|k| l.load(&std::array::from_fn::<f64, MAX_WIDTH, _>(|j| p[j][k])))
}

/// The inverse of [`gather`]: one element of `N` components a lane (the lanes past
/// `L::WIDTH` zero).
#[inline(always)]
fn scatter<L: Lanes, const N: usize>(l: L, v: [L::V; N]) -> [[f64; N]; MAX_WIDTH] {
    let mut out = [[0.0; N]; MAX_WIDTH];
    for (k, &vk) in v.iter().enumerate() {
        let mut c = [0.0; MAX_WIDTH];
        l.store(&mut c, vk);
        for (o, &x) in out.iter_mut().zip(&c) {
            o[k] = x;
        }
    }
    out
}

/// Runs `task` on `isa`, or on the best instruction set this CPU has if it lacks `isa`.
#[inline(always)]
fn dispatch<T: Task>(isa: Isa, task: T) {
    let isa = if isa.is_available() { isa } else { Isa::best() };
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has the instruction set, checked just above.
        Isa::Avx512 => unsafe { on_avx512(task) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Isa::Avx2 => unsafe { on_avx2(task) },
        _ => task.run(Scalar),
    }
}

/// # Safety
/// The CPU must have AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn on_avx512<T: Task>(task: T) {
    task.run(simd::Avx512::new_unchecked())
}

/// # Safety
/// The CPU must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn on_avx2<T: Task>(task: T) {
    task.run(simd::Avx2::new_unchecked())
}

/// Checks that an operand column covers `n` elements.
fn check<T>(what: &str, o: &Operand<'_, T>, n: usize) {
    if let Operand::Column(c) = o {
        assert!(
            c.len() >= n,
            "lanes: the {what} column has {} elements, the destination {n}",
            c.len()
        );
    }
}

/// The task of running kernel `k` over `dst`, `a` and `b`.
#[allow(clippy::type_complexity)]
fn job<'a, T, K, A, B, const N: usize, const NB: usize>(
    dst: &'a mut [T],
    kernel: K,
    a: A,
    b: B,
) -> (Job<'a, T, K, A, B>, [(); N], [(); NB]) {
    (Job { dst, kernel, a, b }, [(); N], [(); NB])
}

/// Runs a two-operand kernel over every combination of column and constant operands.
fn binary<T, K, const N: usize>(isa: Isa, dst: &mut [T], a: Operand<'_, T>, b: Operand<'_, T>, k: K)
where
    T: Components<N>,
    K: Kernel<N, N>,
{
    let n = dst.len();
    check("first", &a, n);
    check("second", &b, n);
    match (a, b) {
        (Operand::Column(a), Operand::Column(b)) => {
            dispatch(isa, job(dst, k, Column(a), Column(b)))
        }
        (Operand::Column(a), Operand::Constant(b)) => {
            dispatch(isa, job(dst, k, Column(a), Splat(b.to_array())))
        }
        (Operand::Constant(a), Operand::Column(b)) => {
            dispatch(isa, job(dst, k, Splat(a.to_array()), Column(b)))
        }
        (Operand::Constant(a), Operand::Constant(b)) => {
            dst.fill(T::from_array(k.scalar(a.to_array(), b.to_array())))
        }
    }
}

/// Runs a kernel of a column and a double.
fn mixed<T, K, const N: usize>(isa: Isa, dst: &mut [T], a: &[T], b: f64, k: K)
where
    T: Components<N>,
    K: Kernel<N, 1>,
{
    check("first", &Operand::Column(a), dst.len());
    dispatch(isa, job::<T, K, _, _, N, 1>(dst, k, Column(a), Splat([b])));
}

/// Runs a one-operand kernel.
fn unary<T, K, const N: usize>(isa: Isa, dst: &mut [T], a: &[T], k: K)
where
    T: Components<N>,
    K: Kernel<N, 0>,
{
    check("first", &Operand::Column(a), dst.len());
    dispatch(isa, job::<T, K, _, _, N, 0>(dst, k, Column(a), Splat([])));
}

/// Defines a zero-sized kernel from a lane function and the scalar method it mirrors.
/// `$redo` says whether the lane function also returns the lanes to redo.
macro_rules! kernel {
    ($name:ident, $t:ty, $n:literal, $nb:literal, |$l:ident, $a:ident, $b:ident| $lanes:expr,
     |$sa:ident, $sb:ident| $scalar:expr) => {
        #[derive(Clone, Copy)]
        struct $name;
        impl Kernel<$n, $nb> for $name {
            #[inline(always)]
            fn lanes<L: Ints>(self, $l: L, $a: [L::V; $n], $b: [L::V; $nb]) -> ([L::V; $n], L::M) {
                $lanes
            }
            #[inline(always)]
            fn scalar(self, $sa: [f64; $n], $sb: [f64; $nb]) -> [f64; $n] {
                let $sa = <$t as Components<$n>>::from_array($sa);
                let r: $t = $scalar;
                r.to_array()
            }
        }
    };
}

kernel!(
    DdAdd,
    Dd,
    2,
    2,
    |l, a, b| (dd::add_dd(l, a, b), l.none()),
    |a, b| a + Dd::from_array(b)
);
kernel!(
    DdSub,
    Dd,
    2,
    2,
    |l, a, b| (dd::add_dd(l, a, [l.neg(b[0]), l.neg(b[1])]), l.none()),
    |a, b| a - Dd::from_array(b)
);
kernel!(
    DdMul,
    Dd,
    2,
    2,
    |l, a, b| (dd::mul_dd(l, a, b), l.none()),
    |a, b| a * Dd::from_array(b)
);
kernel!(
    DdDiv,
    Dd,
    2,
    2,
    |l, a, b| (dd::div_dd(l, a, b), l.none()),
    |a, b| a / Dd::from_array(b)
);
kernel!(
    DdAddF64,
    Dd,
    2,
    1,
    |l, a, b| (dd::add_f64(l, a, b[0]), l.none()),
    |a, b| a + b[0]
);
kernel!(
    DdMulF64,
    Dd,
    2,
    1,
    |l, a, b| (dd::mul_f64(l, a, b[0]), l.none()),
    |a, b| a * b[0]
);
kernel!(
    DdDivF64,
    Dd,
    2,
    1,
    |l, a, b| (dd::div_f64(l, a, b[0]), l.none()),
    |a, b| a / b[0]
);
kernel!(DdSqrt, Dd, 2, 0, |l, a, _b| dd::sqrt(l, a), |a, _b| a
    .sqrt());
kernel!(DdExp, Dd, 2, 0, |l, a, _b| exp::exp_dd(l, a), |a, _b| a
    .exp());
kernel!(
    DdCosh,
    Dd,
    2,
    0,
    |l, a, _b| hyperbolic::cosh_dd(l, a),
    |a, _b| a.cosh()
);
kernel!(
    DdExpM1,
    Dd,
    2,
    0,
    |l, a, _b| exp_m1::exp_m1_dd(l, a),
    |a, _b| a.exp_m1()
);

kernel!(
    DdSinh,
    Dd,
    2,
    0,
    |l, a, _b| hyperbolic::sinh_dd(l, a),
    |a, _b| a.sinh()
);
kernel!(
    DdTanh,
    Dd,
    2,
    0,
    |l, a, _b| hyperbolic::tanh_dd(l, a),
    |a, _b| a.tanh()
);

kernel!(DdLn, Dd, 2, 0, |l, a, _b| log::ln_dd(l, a), |a, _b| a.ln());
kernel!(DdPowf, Dd, 2, 2, |l, a, b| pow::powf_dd(l, a, b), |a, b| a
    .powf(Dd::from_array(b)));
kernel!(
    DdSin,
    Dd,
    2,
    0,
    |l, a, _b| trig::sin_cos_dd(l, a).0,
    |a, _b| a.sin()
);
kernel!(
    DdCos,
    Dd,
    2,
    0,
    |l, a, _b| trig::sin_cos_dd(l, a).1,
    |a, _b| a.cos()
);

kernel!(QdAdd, Qd, 4, 4, |l, a, b| qd::add_qd(l, a, b), |a, b| a
    + Qd(b));
kernel!(
    QdSub,
    Qd,
    4,
    4,
    |l, a, b| qd::add_qd(l, a, [l.neg(b[0]), l.neg(b[1]), l.neg(b[2]), l.neg(b[3])]),
    |a, b| a - Qd(b)
);
kernel!(
    QdMul,
    Qd,
    4,
    4,
    |l, a, b| (qd::mul_qd(l, a, b), l.none()),
    |a, b| a * Qd(b)
);
kernel!(
    QdDiv,
    Qd,
    4,
    4,
    |l, a, b| (qd::div_qd(l, a, b), l.none()),
    |a, b| a / Qd(b)
);
kernel!(
    QdAddF64,
    Qd,
    4,
    1,
    |l, a, b| (qd::add_f64(l, a, b[0]), l.none()),
    |a, b| a + b[0]
);
kernel!(
    QdMulF64,
    Qd,
    4,
    1,
    |l, a, b| (qd::mul_f64(l, a, b[0]), l.none()),
    |a, b| a * b[0]
);
kernel!(
    QdDivF64,
    Qd,
    4,
    1,
    |l, a, b| (qd::div_f64(l, a, b[0]), l.none()),
    |a, b| a / b[0]
);
kernel!(QdSqrt, Qd, 4, 0, |l, a, _b| qd::sqrt(l, a), |a, _b| a
    .sqrt());
kernel!(QdExp, Qd, 4, 0, |l, a, _b| exp::exp_qd(l, a), |a, _b| a
    .exp());
kernel!(
    QdCosh,
    Qd,
    4,
    0,
    |l, a, _b| hyperbolic::cosh_qd(l, a),
    |a, _b| a.cosh()
);
kernel!(
    QdExpM1,
    Qd,
    4,
    0,
    |l, a, _b| exp_m1::exp_m1_qd(l, a),
    |a, _b| a.exp_m1()
);
kernel!(
    QdSinh,
    Qd,
    4,
    0,
    |l, a, _b| hyperbolic::sinh_qd(l, a),
    |a, _b| a.sinh()
);
kernel!(
    QdTanh,
    Qd,
    4,
    0,
    |l, a, _b| hyperbolic::tanh_qd(l, a),
    |a, _b| a.tanh()
);
kernel!(QdLn, Qd, 4, 0, |l, a, _b| log::ln_qd(l, a), |a, _b| a.ln());
kernel!(
    QdSin,
    Qd,
    4,
    0,
    |l, a, _b| trig::sin_cos_qd(l, a).0,
    |a, _b| a.sin()
);
kernel!(QdPowf, Qd, 4, 4, |l, a, b| pow::powf_qd(l, a, b), |a, b| a
    .powf(Qd(b)));
kernel!(
    QdCos,
    Qd,
    4,
    0,
    |l, a, _b| trig::sin_cos_qd(l, a).1,
    |a, _b| a.cos()
);

/// Implements [`Columns`] for a type from its kernels.
macro_rules! impl_columns {
    ($t:ty, $n:literal, $add:ident, $sub:ident, $mul:ident, $div:ident, $add_f64:ident,
     $mul_f64:ident, $div_f64:ident, $sqrt:ident, $exp:ident, $cosh:ident, $exp_m1:ident,
     $sinh:ident, $tanh:ident, $ln:ident, $sin:ident, $cos:ident, $powf:ident) => {
        impl Columns for $t {
            fn add_cols(isa: Isa, dst: &mut [$t], a: Operand<'_, $t>, b: Operand<'_, $t>) {
                binary::<$t, _, $n>(isa, dst, a, b, $add)
            }
            fn sub_cols(isa: Isa, dst: &mut [$t], a: Operand<'_, $t>, b: Operand<'_, $t>) {
                binary::<$t, _, $n>(isa, dst, a, b, $sub)
            }
            fn mul_cols(isa: Isa, dst: &mut [$t], a: Operand<'_, $t>, b: Operand<'_, $t>) {
                binary::<$t, _, $n>(isa, dst, a, b, $mul)
            }
            fn div_cols(isa: Isa, dst: &mut [$t], a: Operand<'_, $t>, b: Operand<'_, $t>) {
                binary::<$t, _, $n>(isa, dst, a, b, $div)
            }
            fn add_f64_cols(isa: Isa, dst: &mut [$t], a: &[$t], b: f64) {
                mixed::<$t, _, $n>(isa, dst, a, b, $add_f64)
            }
            fn mul_f64_cols(isa: Isa, dst: &mut [$t], a: &[$t], b: f64) {
                mixed::<$t, _, $n>(isa, dst, a, b, $mul_f64)
            }
            fn div_f64_cols(isa: Isa, dst: &mut [$t], a: &[$t], b: f64) {
                mixed::<$t, _, $n>(isa, dst, a, b, $div_f64)
            }
            fn sqrt_cols(isa: Isa, dst: &mut [$t], a: &[$t]) {
                unary::<$t, _, $n>(isa, dst, a, $sqrt)
            }
            fn exp_cols(isa: Isa, dst: &mut [$t], a: &[$t]) {
                unary::<$t, _, $n>(isa, dst, a, $exp)
            }
            fn cosh_cols(isa: Isa, dst: &mut [$t], a: &[$t]) {
                unary::<$t, _, $n>(isa, dst, a, $cosh)
            }
            fn exp_m1_cols(isa: Isa, dst: &mut [$t], a: &[$t]) {
                unary::<$t, _, $n>(isa, dst, a, $exp_m1)
            }
            fn sinh_cols(isa: Isa, dst: &mut [$t], a: &[$t]) {
                unary::<$t, _, $n>(isa, dst, a, $sinh)
            }
            fn tanh_cols(isa: Isa, dst: &mut [$t], a: &[$t]) {
                unary::<$t, _, $n>(isa, dst, a, $tanh)
            }
            fn ln_cols(isa: Isa, dst: &mut [$t], a: &[$t]) {
                unary::<$t, _, $n>(isa, dst, a, $ln)
            }
            fn sin_cols(isa: Isa, dst: &mut [$t], a: &[$t]) {
                unary::<$t, _, $n>(isa, dst, a, $sin)
            }
            fn cos_cols(isa: Isa, dst: &mut [$t], a: &[$t]) {
                unary::<$t, _, $n>(isa, dst, a, $cos)
            }
            fn powf_cols(isa: Isa, dst: &mut [$t], a: Operand<'_, $t>, b: Operand<'_, $t>) {
                binary::<$t, _, $n>(isa, dst, a, b, $powf)
            }
        }
    };
}

impl_columns!(
    Dd, 2, DdAdd, DdSub, DdMul, DdDiv, DdAddF64, DdMulF64, DdDivF64, DdSqrt, DdExp, DdCosh,
    DdExpM1, DdSinh, DdTanh, DdLn, DdSin, DdCos, DdPowf
);
impl_columns!(
    Qd, 4, QdAdd, QdSub, QdMul, QdDiv, QdAddF64, QdMulF64, QdDivF64, QdSqrt, QdExp, QdCosh,
    QdExpM1, QdSinh, QdTanh, QdLn, QdSin, QdCos, QdPowf
);
