//! The lane abstraction: a vector of doubles with the IEEE operations the double-double and
//! quad-double algorithms use, each mapped to the one instruction that computes the same bits as
//! the scalar operation (add, sub, mul, div and sqrt are correctly rounded everywhere; `mul_add`
//! is a true fused multiply-add; comparisons have Rust's NaN semantics).
//!
//! Three implementations: [`Scalar`] (one double, the portable fallback), `Avx2` (four, with
//! FMA) and `Avx512` (eight). The vector tokens can only be made by
//! [`super::dispatch`] after it has checked the CPU, which is what makes their `unsafe`
//! intrinsic calls sound.

/// A vector of `WIDTH` doubles and its lane mask.
pub(crate) trait Lanes: Copy {
    type V: Copy;
    type M: Copy;
    const WIDTH: usize;

    fn splat(self, x: f64) -> Self::V;
    /// The first `WIDTH` doubles of `s`.
    fn load(self, s: &[f64]) -> Self::V;
    /// Writes the lanes to the first `WIDTH` doubles of `s`.
    fn store(self, s: &mut [f64], v: Self::V);

    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
    fn mul(self, a: Self::V, b: Self::V) -> Self::V;
    fn div(self, a: Self::V, b: Self::V) -> Self::V;
    fn sqrt(self, a: Self::V) -> Self::V;
    /// `a * b + c` with one rounding, as `f64::mul_add`.
    fn mul_add(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    /// The sign bit flipped, as `-x` (also for zeros and NaN).
    fn neg(self, a: Self::V) -> Self::V;
    /// The sign bit cleared, as `f64::abs`.
    fn abs(self, a: Self::V) -> Self::V;

    /// `a == b` (false when either is NaN).
    fn eq(self, a: Self::V, b: Self::V) -> Self::M;
    /// `a != b` (true when either is NaN).
    fn ne(self, a: Self::V, b: Self::V) -> Self::M;
    /// `a < b` (false when either is NaN).
    fn lt(self, a: Self::V, b: Self::V) -> Self::M;
    /// `a <= b` (false when either is NaN).
    fn le(self, a: Self::V, b: Self::V) -> Self::M;
    /// `a.is_finite()`.
    fn is_finite(self, a: Self::V) -> Self::M;

    fn and(self, a: Self::M, b: Self::M) -> Self::M;
    fn or(self, a: Self::M, b: Self::M) -> Self::M;
    fn not(self, a: Self::M) -> Self::M;
    /// `m ? a : b`, lane by lane.
    fn select(self, m: Self::M, a: Self::V, b: Self::V) -> Self::V;
    /// The mask as bits, lane `i` in bit `i`.
    fn bits(self, m: Self::M) -> u32;

    /// `a > b`.
    #[inline(always)]
    fn gt(self, a: Self::V, b: Self::V) -> Self::M {
        self.lt(b, a)
    }
    /// `a >= b`.
    #[inline(always)]
    fn ge(self, a: Self::V, b: Self::V) -> Self::M {
        self.le(b, a)
    }
    /// No lane set.
    #[inline(always)]
    fn none(self) -> Self::M {
        let z = self.splat(0.0);
        self.lt(z, z)
    }
}

/// One double per lane: the portable fallback, and the reference the vector lanes are tested
/// against (it is the scalar code itself, operation for operation).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scalar;

impl Lanes for Scalar {
    type V = f64;
    type M = bool;
    const WIDTH: usize = 1;

    #[inline(always)]
    fn splat(self, x: f64) -> f64 {
        x
    }
    #[inline(always)]
    fn load(self, s: &[f64]) -> f64 {
        s[0]
    }
    #[inline(always)]
    fn store(self, s: &mut [f64], v: f64) {
        s[0] = v;
    }
    #[inline(always)]
    fn add(self, a: f64, b: f64) -> f64 {
        a + b
    }
    #[inline(always)]
    fn sub(self, a: f64, b: f64) -> f64 {
        a - b
    }
    #[inline(always)]
    fn mul(self, a: f64, b: f64) -> f64 {
        a * b
    }
    #[inline(always)]
    fn div(self, a: f64, b: f64) -> f64 {
        a / b
    }
    #[inline(always)]
    fn sqrt(self, a: f64) -> f64 {
        a.sqrt()
    }
    #[inline(always)]
    fn mul_add(self, a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
    #[inline(always)]
    fn neg(self, a: f64) -> f64 {
        -a
    }
    #[inline(always)]
    fn abs(self, a: f64) -> f64 {
        a.abs()
    }
    #[inline(always)]
    fn eq(self, a: f64, b: f64) -> bool {
        a == b
    }
    #[inline(always)]
    fn ne(self, a: f64, b: f64) -> bool {
        a != b
    }
    #[inline(always)]
    fn lt(self, a: f64, b: f64) -> bool {
        a < b
    }
    #[inline(always)]
    fn le(self, a: f64, b: f64) -> bool {
        a <= b
    }
    #[inline(always)]
    fn is_finite(self, a: f64) -> bool {
        a.is_finite()
    }
    #[inline(always)]
    fn and(self, a: bool, b: bool) -> bool {
        a & b
    }
    #[inline(always)]
    fn or(self, a: bool, b: bool) -> bool {
        a | b
    }
    #[inline(always)]
    fn not(self, a: bool) -> bool {
        !a
    }
    #[inline(always)]
    fn select(self, m: bool, a: f64, b: f64) -> f64 {
        if m {
            a
        } else {
            b
        }
    }
    #[inline(always)]
    fn bits(self, m: bool) -> u32 {
        m as u32
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) use x86::{Avx2, Avx512};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Lanes;
    use std::arch::x86_64::*;

    /// Four doubles in an AVX register, with FMA. Made only by `dispatch` once the CPU has
    /// been found to have AVX2 and FMA.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Avx2(());

    impl Avx2 {
        /// # Safety
        /// The CPU must have AVX2 and FMA.
        #[inline(always)]
        pub(crate) unsafe fn new_unchecked() -> Avx2 {
            Avx2(())
        }
    }

    // SAFETY (every `unsafe` block of this impl): an `Avx2` exists only when the CPU has AVX2
    // and FMA, and loads and stores are bounds-checked by the slice indexing first.
    impl Lanes for Avx2 {
        type V = __m256d;
        type M = __m256d;
        const WIDTH: usize = 4;

        #[inline(always)]
        fn splat(self, x: f64) -> __m256d {
            unsafe { _mm256_set1_pd(x) }
        }
        #[inline(always)]
        fn load(self, s: &[f64]) -> __m256d {
            let s = &s[..4];
            unsafe { _mm256_loadu_pd(s.as_ptr()) }
        }
        #[inline(always)]
        fn store(self, s: &mut [f64], v: __m256d) {
            let s = &mut s[..4];
            unsafe { _mm256_storeu_pd(s.as_mut_ptr(), v) }
        }
        #[inline(always)]
        fn add(self, a: __m256d, b: __m256d) -> __m256d {
            unsafe { _mm256_add_pd(a, b) }
        }
        #[inline(always)]
        fn sub(self, a: __m256d, b: __m256d) -> __m256d {
            unsafe { _mm256_sub_pd(a, b) }
        }
        #[inline(always)]
        fn mul(self, a: __m256d, b: __m256d) -> __m256d {
            unsafe { _mm256_mul_pd(a, b) }
        }
        #[inline(always)]
        fn div(self, a: __m256d, b: __m256d) -> __m256d {
            unsafe { _mm256_div_pd(a, b) }
        }
        #[inline(always)]
        fn sqrt(self, a: __m256d) -> __m256d {
            unsafe { _mm256_sqrt_pd(a) }
        }
        #[inline(always)]
        fn mul_add(self, a: __m256d, b: __m256d, c: __m256d) -> __m256d {
            unsafe { _mm256_fmadd_pd(a, b, c) }
        }
        #[inline(always)]
        fn neg(self, a: __m256d) -> __m256d {
            unsafe { _mm256_xor_pd(a, _mm256_set1_pd(-0.0)) }
        }
        #[inline(always)]
        fn abs(self, a: __m256d) -> __m256d {
            unsafe { _mm256_andnot_pd(_mm256_set1_pd(-0.0), a) }
        }
        #[inline(always)]
        fn eq(self, a: __m256d, b: __m256d) -> __m256d {
            unsafe { _mm256_cmp_pd::<_CMP_EQ_OQ>(a, b) }
        }
        #[inline(always)]
        fn ne(self, a: __m256d, b: __m256d) -> __m256d {
            unsafe { _mm256_cmp_pd::<_CMP_NEQ_UQ>(a, b) }
        }
        #[inline(always)]
        fn lt(self, a: __m256d, b: __m256d) -> __m256d {
            unsafe { _mm256_cmp_pd::<_CMP_LT_OQ>(a, b) }
        }
        #[inline(always)]
        fn le(self, a: __m256d, b: __m256d) -> __m256d {
            unsafe { _mm256_cmp_pd::<_CMP_LE_OQ>(a, b) }
        }
        #[inline(always)]
        fn is_finite(self, a: __m256d) -> __m256d {
            // |a| < inf is false for infinities and NaN.
            self.lt(self.abs(a), self.splat(f64::INFINITY))
        }
        #[inline(always)]
        fn and(self, a: __m256d, b: __m256d) -> __m256d {
            unsafe { _mm256_and_pd(a, b) }
        }
        #[inline(always)]
        fn or(self, a: __m256d, b: __m256d) -> __m256d {
            unsafe { _mm256_or_pd(a, b) }
        }
        #[inline(always)]
        fn not(self, a: __m256d) -> __m256d {
            unsafe { _mm256_xor_pd(a, _mm256_castsi256_pd(_mm256_set1_epi64x(-1))) }
        }
        #[inline(always)]
        fn select(self, m: __m256d, a: __m256d, b: __m256d) -> __m256d {
            unsafe { _mm256_blendv_pd(b, a, m) }
        }
        #[inline(always)]
        fn bits(self, m: __m256d) -> u32 {
            unsafe { _mm256_movemask_pd(m) as u32 }
        }
    }

    /// Eight doubles in an AVX-512 register, masks in `k` registers. Made only by `dispatch`
    /// once the CPU has been found to have AVX-512F.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Avx512(());

    impl Avx512 {
        /// # Safety
        /// The CPU must have AVX-512F.
        #[inline(always)]
        pub(crate) unsafe fn new_unchecked() -> Avx512 {
            Avx512(())
        }
    }

    const SIGN: i64 = i64::MIN;

    // SAFETY (every `unsafe` block of this impl): an `Avx512` exists only when the CPU has
    // AVX-512F, and loads and stores are bounds-checked by the slice indexing first.
    impl Lanes for Avx512 {
        type V = __m512d;
        type M = __mmask8;
        const WIDTH: usize = 8;

        #[inline(always)]
        fn splat(self, x: f64) -> __m512d {
            unsafe { _mm512_set1_pd(x) }
        }
        #[inline(always)]
        fn load(self, s: &[f64]) -> __m512d {
            let s = &s[..8];
            unsafe { _mm512_loadu_pd(s.as_ptr()) }
        }
        #[inline(always)]
        fn store(self, s: &mut [f64], v: __m512d) {
            let s = &mut s[..8];
            unsafe { _mm512_storeu_pd(s.as_mut_ptr(), v) }
        }
        #[inline(always)]
        fn add(self, a: __m512d, b: __m512d) -> __m512d {
            unsafe { _mm512_add_pd(a, b) }
        }
        #[inline(always)]
        fn sub(self, a: __m512d, b: __m512d) -> __m512d {
            unsafe { _mm512_sub_pd(a, b) }
        }
        #[inline(always)]
        fn mul(self, a: __m512d, b: __m512d) -> __m512d {
            unsafe { _mm512_mul_pd(a, b) }
        }
        #[inline(always)]
        fn div(self, a: __m512d, b: __m512d) -> __m512d {
            unsafe { _mm512_div_pd(a, b) }
        }
        #[inline(always)]
        fn sqrt(self, a: __m512d) -> __m512d {
            unsafe { _mm512_sqrt_pd(a) }
        }
        #[inline(always)]
        fn mul_add(self, a: __m512d, b: __m512d, c: __m512d) -> __m512d {
            unsafe { _mm512_fmadd_pd(a, b, c) }
        }
        #[inline(always)]
        fn neg(self, a: __m512d) -> __m512d {
            // Integer xor: `_mm512_xor_pd` needs AVX-512DQ.
            unsafe {
                _mm512_castsi512_pd(_mm512_xor_si512(
                    _mm512_castpd_si512(a),
                    _mm512_set1_epi64(SIGN),
                ))
            }
        }
        #[inline(always)]
        fn abs(self, a: __m512d) -> __m512d {
            unsafe { _mm512_abs_pd(a) }
        }
        #[inline(always)]
        fn eq(self, a: __m512d, b: __m512d) -> __mmask8 {
            unsafe { _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(a, b) }
        }
        #[inline(always)]
        fn ne(self, a: __m512d, b: __m512d) -> __mmask8 {
            unsafe { _mm512_cmp_pd_mask::<_CMP_NEQ_UQ>(a, b) }
        }
        #[inline(always)]
        fn lt(self, a: __m512d, b: __m512d) -> __mmask8 {
            unsafe { _mm512_cmp_pd_mask::<_CMP_LT_OQ>(a, b) }
        }
        #[inline(always)]
        fn le(self, a: __m512d, b: __m512d) -> __mmask8 {
            unsafe { _mm512_cmp_pd_mask::<_CMP_LE_OQ>(a, b) }
        }
        #[inline(always)]
        fn is_finite(self, a: __m512d) -> __mmask8 {
            self.lt(self.abs(a), self.splat(f64::INFINITY))
        }
        #[inline(always)]
        fn and(self, a: __mmask8, b: __mmask8) -> __mmask8 {
            a & b
        }
        #[inline(always)]
        fn or(self, a: __mmask8, b: __mmask8) -> __mmask8 {
            a | b
        }
        #[inline(always)]
        fn not(self, a: __mmask8) -> __mmask8 {
            !a
        }
        #[inline(always)]
        fn select(self, m: __mmask8, a: __m512d, b: __m512d) -> __m512d {
            unsafe { _mm512_mask_blend_pd(m, b, a) }
        }
        #[inline(always)]
        fn bits(self, m: __mmask8) -> u32 {
            m as u32
        }
    }
}
