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

    /// `WIDTH` values of `N` components stored one after another in `s` (array of
    /// structures), as one vector per component.
    #[inline(always)]
    fn load_aos<const N: usize>(self, s: &[f64]) -> [Self::V; N] {
        generic_load(self, s)
    }
    /// The inverse of `load_aos`.
    #[inline(always)]
    fn store_aos<const N: usize>(self, s: &mut [f64], v: [Self::V; N]) {
        generic_store(self, s, v)
    }

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
    /// Whether every lane is set.
    #[inline(always)]
    fn all(self, m: Self::M) -> bool {
        self.bits(m) == (1u32 << Self::WIDTH) - 1
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
    #[inline(always)]
    fn none(self) -> bool {
        false
    }
}

/// `Lanes::load_aos` through a buffer: for the scalar lanes, and component counts without
/// a shuffle.
#[inline(always)]
fn generic_load<L: Lanes, const N: usize>(l: L, s: &[f64]) -> [L::V; N] {
    let s = &s[..N * L::WIDTH];
    let mut buf = [[0.0; 8]; N];
    for (j, x) in s.chunks_exact(N).enumerate() {
        for k in 0..N {
            buf[k][j] = x[k];
        }
    }
    std::array::from_fn(|k| l.load(&buf[k]))
}

/// `Lanes::store_aos` through a buffer.
#[inline(always)]
fn generic_store<L: Lanes, const N: usize>(l: L, s: &mut [f64], v: [L::V; N]) {
    let s = &mut s[..N * L::WIDTH];
    let mut buf = [[0.0; 8]; N];
    for k in 0..N {
        l.store(&mut buf[k], v[k]);
    }
    for (j, x) in s.chunks_exact_mut(N).enumerate() {
        for k in 0..N {
            x[k] = buf[k][j];
        }
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
        #[inline(always)]
        fn none(self) -> __m256d {
            // A constant the compiler sees through, unlike the default's comparison.
            unsafe { _mm256_setzero_pd() }
        }
        #[inline(always)]
        fn load_aos<const N: usize>(self, s: &[f64]) -> [__m256d; N] {
            match N {
                2 => {
                    let c = transpose_2x4(self.load(&s[..4]), self.load(&s[4..8]));
                    std::array::from_fn(|k| c[k])
                }
                4 => {
                    let r = [
                        self.load(&s[..4]),
                        self.load(&s[4..8]),
                        self.load(&s[8..12]),
                        self.load(&s[12..16]),
                    ];
                    let c = transpose_4x4(r);
                    std::array::from_fn(|k| c[k])
                }
                _ => super::generic_load(self, s),
            }
        }
        #[inline(always)]
        fn store_aos<const N: usize>(self, s: &mut [f64], v: [__m256d; N]) {
            match N {
                2 => {
                    let r = untranspose_2x4(v[0], v[1 % N]);
                    self.store(&mut s[..4], r[0]);
                    self.store(&mut s[4..8], r[1]);
                }
                4 => {
                    let r = transpose_4x4([v[0], v[1 % N], v[2 % N], v[3 % N]]);
                    for (k, i) in [0, 4, 8, 12].into_iter().enumerate() {
                        self.store(&mut s[i..i + 4], r[k]);
                    }
                }
                _ => super::generic_store(self, s, v),
            }
        }
    }

    /// Four double-doubles `[h0 l0 h1 l1] [h2 l2 h3 l3]` as `[h0 h1 h2 h3] [l0 l1 l2 l3]`.
    #[inline(always)]
    fn transpose_2x4(r0: __m256d, r1: __m256d) -> [__m256d; 2] {
        // SAFETY: only called from `Avx2` methods, which exist only on CPUs with AVX2.
        unsafe {
            let p0 = _mm256_permute4x64_pd::<0xD8>(r0);
            let p1 = _mm256_permute4x64_pd::<0xD8>(r1);
            [
                _mm256_permute2f128_pd::<0x20>(p0, p1),
                _mm256_permute2f128_pd::<0x31>(p0, p1),
            ]
        }
    }

    /// The inverse of `transpose_2x4`.
    #[inline(always)]
    fn untranspose_2x4(hi: __m256d, lo: __m256d) -> [__m256d; 2] {
        // SAFETY: as `transpose_2x4`.
        unsafe {
            let p0 = _mm256_permute2f128_pd::<0x20>(hi, lo);
            let p1 = _mm256_permute2f128_pd::<0x31>(hi, lo);
            [
                _mm256_permute4x64_pd::<0xD8>(p0),
                _mm256_permute4x64_pd::<0xD8>(p1),
            ]
        }
    }

    /// The transpose of a 4x4 matrix of doubles held as four rows (its own inverse).
    #[inline(always)]
    fn transpose_4x4(r: [__m256d; 4]) -> [__m256d; 4] {
        // SAFETY: as `transpose_2x4`.
        unsafe {
            let t0 = _mm256_unpacklo_pd(r[0], r[1]);
            let t1 = _mm256_unpackhi_pd(r[0], r[1]);
            let t2 = _mm256_unpacklo_pd(r[2], r[3]);
            let t3 = _mm256_unpackhi_pd(r[2], r[3]);
            [
                _mm256_permute2f128_pd::<0x20>(t0, t2),
                _mm256_permute2f128_pd::<0x20>(t1, t3),
                _mm256_permute2f128_pd::<0x31>(t0, t2),
                _mm256_permute2f128_pd::<0x31>(t1, t3),
            ]
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
        #[inline(always)]
        fn none(self) -> __mmask8 {
            0
        }
        #[inline(always)]
        fn load_aos<const N: usize>(self, s: &[f64]) -> [__m512d; N] {
            // SAFETY: AVX-512F, as the impl; the loads are bounds-checked.
            unsafe {
                match N {
                    2 => {
                        let (r0, r1) = (self.load(&s[..8]), self.load(&s[8..16]));
                        let hi = _mm512_permutex2var_pd(r0, idx([0, 2, 4, 6, 8, 10, 12, 14]), r1);
                        let lo = _mm512_permutex2var_pd(r0, idx([1, 3, 5, 7, 9, 11, 13, 15]), r1);
                        let c = [hi, lo];
                        std::array::from_fn(|k| c[k])
                    }
                    4 => {
                        let r = [
                            self.load(&s[..8]),
                            self.load(&s[8..16]),
                            self.load(&s[16..24]),
                            self.load(&s[24..32]),
                        ];
                        let c = transpose_8x4(r);
                        std::array::from_fn(|k| c[k])
                    }
                    _ => super::generic_load(self, s),
                }
            }
        }
        #[inline(always)]
        fn store_aos<const N: usize>(self, s: &mut [f64], v: [__m512d; N]) {
            // SAFETY: as `load_aos`.
            unsafe {
                match N {
                    2 => {
                        let (hi, lo) = (v[0], v[1 % N]);
                        let r0 = _mm512_permutex2var_pd(hi, idx([0, 8, 1, 9, 2, 10, 3, 11]), lo);
                        let r1 = _mm512_permutex2var_pd(hi, idx([4, 12, 5, 13, 6, 14, 7, 15]), lo);
                        self.store(&mut s[..8], r0);
                        self.store(&mut s[8..16], r1);
                    }
                    4 => {
                        let r = untranspose_8x4([v[0], v[1 % N], v[2 % N], v[3 % N]]);
                        for (k, i) in [0, 8, 16, 24].into_iter().enumerate() {
                            self.store(&mut s[i..i + 8], r[k]);
                        }
                    }
                    _ => super::generic_store(self, s, v),
                }
            }
        }
    }

    /// A permutation index vector.
    #[inline(always)]
    unsafe fn idx(i: [i64; 8]) -> __m512i {
        _mm512_set_epi64(i[7], i[6], i[5], i[4], i[3], i[2], i[1], i[0])
    }

    /// Eight quad-doubles, two per row, as one vector per component.
    #[inline(always)]
    unsafe fn transpose_8x4(r: [__m512d; 4]) -> [__m512d; 4] {
        let even = idx([0, 4, 8, 12, 1, 5, 9, 13]);
        let odd = idx([2, 6, 10, 14, 3, 7, 11, 15]);
        // Components 0 and 1 (then 2 and 3) of the first four values, and of the last four.
        let u01 = _mm512_permutex2var_pd(r[0], even, r[1]);
        let u23 = _mm512_permutex2var_pd(r[0], odd, r[1]);
        let v01 = _mm512_permutex2var_pd(r[2], even, r[3]);
        let v23 = _mm512_permutex2var_pd(r[2], odd, r[3]);
        [
            _mm512_shuffle_f64x2::<0x44>(u01, v01),
            _mm512_shuffle_f64x2::<0xEE>(u01, v01),
            _mm512_shuffle_f64x2::<0x44>(u23, v23),
            _mm512_shuffle_f64x2::<0xEE>(u23, v23),
        ]
    }

    /// The inverse of `transpose_8x4`.
    #[inline(always)]
    unsafe fn untranspose_8x4(c: [__m512d; 4]) -> [__m512d; 4] {
        let even = idx([0, 4, 8, 12, 1, 5, 9, 13]);
        let odd = idx([2, 6, 10, 14, 3, 7, 11, 15]);
        let u01 = _mm512_shuffle_f64x2::<0x44>(c[0], c[1]);
        let v01 = _mm512_shuffle_f64x2::<0xEE>(c[0], c[1]);
        let u23 = _mm512_shuffle_f64x2::<0x44>(c[2], c[3]);
        let v23 = _mm512_shuffle_f64x2::<0xEE>(c[2], c[3]);
        [
            _mm512_permutex2var_pd(u01, even, u23),
            _mm512_permutex2var_pd(u01, odd, u23),
            _mm512_permutex2var_pd(v01, even, v23),
            _mm512_permutex2var_pd(v01, odd, v23),
        ]
    }
}
