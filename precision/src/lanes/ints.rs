//! 64-bit integers in the lanes: what the fixed-point functions (`crate::fixed`,
//! `crate::exp_fixed`) need to run lane by lane with the scalar code's bits. Integer arithmetic
//! is exact, so each operation only has to be the same function of its operands; the one
//! product the vector units have, 32×32→64 bits (`vpmuludq`), builds the 64×64→128 products
//! (`super::fixed`).
//!
//! The lanes share the doubles' register type bit for bit (`to_bits`, `bits_to_f64` are free) and
//! their mask type, so a comparison of integers selects doubles and the other way round.

use super::simd::{Lanes, Scalar};

/// A vector of `Lanes::WIDTH` unsigned 64-bit integers beside the doubles.
pub(crate) trait Ints: Lanes {
    type U: Copy;

    fn u_splat(self, x: u64) -> Self::U;
    /// `a + b`, wrapping.
    fn u_add(self, a: Self::U, b: Self::U) -> Self::U;
    /// `a - b`, wrapping.
    fn u_sub(self, a: Self::U, b: Self::U) -> Self::U;
    fn u_and(self, a: Self::U, b: Self::U) -> Self::U;
    fn u_or(self, a: Self::U, b: Self::U) -> Self::U;
    /// `a << s`, or 0 where `s >= 64` (lane by lane).
    fn shl_var(self, a: Self::U, s: Self::U) -> Self::U;
    /// `a >> s`, or 0 where `s >= 64`.
    fn shr_var(self, a: Self::U, s: Self::U) -> Self::U;
    /// `(a mod 2^32) (b mod 2^32)`, exact.
    fn mul32(self, a: Self::U, b: Self::U) -> Self::U;
    /// `a < b` as unsigned integers.
    fn u_lt(self, a: Self::U, b: Self::U) -> Self::M;
    fn u_eq(self, a: Self::U, b: Self::U) -> Self::M;
    /// `m ? a : b`, lane by lane.
    fn u_select(self, m: Self::M, a: Self::U, b: Self::U) -> Self::U;
    /// `a + 1` where `m`, `a` elsewhere (wrapping): a carry in.
    fn add_if(self, a: Self::U, m: Self::M) -> Self::U;
    /// `a - 1` where `m` (wrapping): a borrow in.
    fn sub_if(self, a: Self::U, m: Self::M) -> Self::U;
    /// `t[i][limb]` for each lane's `i`; an index beyond the table reads its last entry (the
    /// callers' indices are in range: this only keeps every load inside the table).
    ///
    /// # Panics
    /// When `limb >= W`, or the table has 2^31 limbs or more.
    fn gather<const W: usize, const M: usize>(
        self,
        t: &[[u64; W]; M],
        i: Self::U,
        limb: usize,
    ) -> Self::U;
    /// The bits of the doubles (`f64::to_bits`).
    fn to_bits(self, v: Self::V) -> Self::U;
    /// The doubles of the bits (`f64::from_bits`).
    fn bits_to_f64(self, u: Self::U) -> Self::V;
    /// `f64::floor`.
    fn floor(self, v: Self::V) -> Self::V;

    /// `a << s` for a constant `s < 64`.
    #[inline(always)]
    fn shl(self, a: Self::U, s: u32) -> Self::U {
        self.shl_var(a, self.u_splat(s as u64))
    }
    /// `a >> s` for a constant `s < 64`.
    #[inline(always)]
    fn shr(self, a: Self::U, s: u32) -> Self::U {
        self.shr_var(a, self.u_splat(s as u64))
    }
    /// The sign bit of `a` as an `i64`: `(a as i64) < 0`.
    #[inline(always)]
    fn i_negative(self, a: Self::U) -> Self::M {
        self.u_lt(self.u_splat(i64::MAX as u64), a)
    }
}

impl Ints for Scalar {
    type U = u64;

    #[inline(always)]
    fn u_splat(self, x: u64) -> u64 {
        x
    }
    #[inline(always)]
    fn u_add(self, a: u64, b: u64) -> u64 {
        a.wrapping_add(b)
    }
    #[inline(always)]
    fn u_sub(self, a: u64, b: u64) -> u64 {
        a.wrapping_sub(b)
    }
    #[inline(always)]
    fn u_and(self, a: u64, b: u64) -> u64 {
        a & b
    }
    #[inline(always)]
    fn u_or(self, a: u64, b: u64) -> u64 {
        a | b
    }
    #[inline(always)]
    fn shl_var(self, a: u64, s: u64) -> u64 {
        if s < 64 {
            a << s
        } else {
            0
        }
    }
    #[inline(always)]
    fn shr_var(self, a: u64, s: u64) -> u64 {
        if s < 64 {
            a >> s
        } else {
            0
        }
    }
    #[inline(always)]
    fn mul32(self, a: u64, b: u64) -> u64 {
        (a as u32 as u64) * (b as u32 as u64)
    }
    #[inline(always)]
    fn u_lt(self, a: u64, b: u64) -> bool {
        a < b
    }
    #[inline(always)]
    fn u_eq(self, a: u64, b: u64) -> bool {
        a == b
    }
    #[inline(always)]
    fn u_select(self, m: bool, a: u64, b: u64) -> u64 {
        if m {
            a
        } else {
            b
        }
    }
    #[inline(always)]
    fn add_if(self, a: u64, m: bool) -> u64 {
        a.wrapping_add(m as u64)
    }
    #[inline(always)]
    fn sub_if(self, a: u64, m: bool) -> u64 {
        a.wrapping_sub(m as u64)
    }
    #[inline(always)]
    fn gather<const W: usize, const M: usize>(self, t: &[[u64; W]; M], i: u64, limb: usize) -> u64 {
        t[(i as usize).min(M - 1)][limb]
    }
    #[inline(always)]
    fn to_bits(self, v: f64) -> u64 {
        v.to_bits()
    }
    #[inline(always)]
    fn bits_to_f64(self, u: u64) -> f64 {
        f64::from_bits(u)
    }
    #[inline(always)]
    fn floor(self, v: f64) -> f64 {
        v.floor()
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Ints;
    use crate::lanes::simd::{Avx2, Avx512};
    use std::arch::x86_64::*;

    /// The sign bit, to compare unsigned integers with AVX2's signed comparison.
    const SIGN: i64 = i64::MIN;

    // SAFETY (every `unsafe` block of this impl): an `Avx2` exists only when the CPU has AVX2
    // and FMA; the gather's indices are reduced into the table first (see `gather`).
    impl Ints for Avx2 {
        type U = __m256i;

        #[inline(always)]
        fn u_splat(self, x: u64) -> __m256i {
            unsafe { _mm256_set1_epi64x(x as i64) }
        }
        #[inline(always)]
        fn u_add(self, a: __m256i, b: __m256i) -> __m256i {
            unsafe { _mm256_add_epi64(a, b) }
        }
        #[inline(always)]
        fn u_sub(self, a: __m256i, b: __m256i) -> __m256i {
            unsafe { _mm256_sub_epi64(a, b) }
        }
        #[inline(always)]
        fn u_and(self, a: __m256i, b: __m256i) -> __m256i {
            unsafe { _mm256_and_si256(a, b) }
        }
        #[inline(always)]
        fn u_or(self, a: __m256i, b: __m256i) -> __m256i {
            unsafe { _mm256_or_si256(a, b) }
        }
        #[inline(always)]
        fn shl_var(self, a: __m256i, s: __m256i) -> __m256i {
            // vpsllvq gives 0 for counts of 64 and more, as the trait asks.
            unsafe { _mm256_sllv_epi64(a, s) }
        }
        #[inline(always)]
        fn shr_var(self, a: __m256i, s: __m256i) -> __m256i {
            unsafe { _mm256_srlv_epi64(a, s) }
        }
        #[inline(always)]
        fn mul32(self, a: __m256i, b: __m256i) -> __m256i {
            unsafe { _mm256_mul_epu32(a, b) }
        }
        #[inline(always)]
        fn u_lt(self, a: __m256i, b: __m256i) -> __m256d {
            unsafe {
                let s = _mm256_set1_epi64x(SIGN);
                let gt = _mm256_cmpgt_epi64(_mm256_xor_si256(b, s), _mm256_xor_si256(a, s));
                _mm256_castsi256_pd(gt)
            }
        }
        #[inline(always)]
        fn u_eq(self, a: __m256i, b: __m256i) -> __m256d {
            unsafe { _mm256_castsi256_pd(_mm256_cmpeq_epi64(a, b)) }
        }
        #[inline(always)]
        fn i_negative(self, a: __m256i) -> __m256d {
            unsafe { _mm256_castsi256_pd(_mm256_cmpgt_epi64(_mm256_setzero_si256(), a)) }
        }
        #[inline(always)]
        fn u_select(self, m: __m256d, a: __m256i, b: __m256i) -> __m256i {
            unsafe {
                _mm256_castpd_si256(_mm256_blendv_pd(
                    _mm256_castsi256_pd(b),
                    _mm256_castsi256_pd(a),
                    m,
                ))
            }
        }
        #[inline(always)]
        fn add_if(self, a: __m256i, m: __m256d) -> __m256i {
            // A set mask lane is all ones, -1.
            unsafe { _mm256_sub_epi64(a, _mm256_castpd_si256(m)) }
        }
        #[inline(always)]
        fn sub_if(self, a: __m256i, m: __m256d) -> __m256i {
            unsafe { _mm256_add_epi64(a, _mm256_castpd_si256(m)) }
        }
        #[inline(always)]
        fn gather<const W: usize, const M: usize>(
            self,
            t: &[[u64; W]; M],
            i: __m256i,
            limb: usize,
        ) -> __m256i {
            assert!(limb < W && W * M < 1 << 31);
            // Element (min(i, M - 1), limb) of the flat table: below W M, inside it (and the
            // product of the index and W fits the 32 bits that `mul32` multiplies).
            let last = self.u_splat(M as u64 - 1);
            let i = self.u_select(self.u_lt(last, i), last, i);
            let at = self.u_add(
                self.mul32(i, self.u_splat(W as u64)),
                self.u_splat(limb as u64),
            );
            unsafe { _mm256_i64gather_epi64::<8>(t.as_ptr().cast::<i64>(), at) }
        }
        #[inline(always)]
        fn to_bits(self, v: __m256d) -> __m256i {
            unsafe { _mm256_castpd_si256(v) }
        }
        #[inline(always)]
        fn bits_to_f64(self, u: __m256i) -> __m256d {
            unsafe { _mm256_castsi256_pd(u) }
        }
        #[inline(always)]
        fn floor(self, v: __m256d) -> __m256d {
            unsafe { _mm256_round_pd::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(v) }
        }
    }

    // SAFETY (every `unsafe` block of this impl): an `Avx512` exists only when the CPU has
    // AVX-512F, which has every instruction used here; the gather's indices are reduced into
    // the table first.
    impl Ints for Avx512 {
        type U = __m512i;

        #[inline(always)]
        fn u_splat(self, x: u64) -> __m512i {
            unsafe { _mm512_set1_epi64(x as i64) }
        }
        #[inline(always)]
        fn u_add(self, a: __m512i, b: __m512i) -> __m512i {
            unsafe { _mm512_add_epi64(a, b) }
        }
        #[inline(always)]
        fn u_sub(self, a: __m512i, b: __m512i) -> __m512i {
            unsafe { _mm512_sub_epi64(a, b) }
        }
        #[inline(always)]
        fn u_and(self, a: __m512i, b: __m512i) -> __m512i {
            unsafe { _mm512_and_si512(a, b) }
        }
        #[inline(always)]
        fn u_or(self, a: __m512i, b: __m512i) -> __m512i {
            unsafe { _mm512_or_si512(a, b) }
        }
        #[inline(always)]
        fn shl_var(self, a: __m512i, s: __m512i) -> __m512i {
            unsafe { _mm512_sllv_epi64(a, s) }
        }
        #[inline(always)]
        fn shr_var(self, a: __m512i, s: __m512i) -> __m512i {
            unsafe { _mm512_srlv_epi64(a, s) }
        }
        #[inline(always)]
        fn mul32(self, a: __m512i, b: __m512i) -> __m512i {
            unsafe { _mm512_mul_epu32(a, b) }
        }
        #[inline(always)]
        fn u_lt(self, a: __m512i, b: __m512i) -> __mmask8 {
            unsafe { _mm512_cmplt_epu64_mask(a, b) }
        }
        #[inline(always)]
        fn u_eq(self, a: __m512i, b: __m512i) -> __mmask8 {
            unsafe { _mm512_cmpeq_epi64_mask(a, b) }
        }
        #[inline(always)]
        fn i_negative(self, a: __m512i) -> __mmask8 {
            unsafe { _mm512_cmplt_epi64_mask(a, _mm512_setzero_si512()) }
        }
        #[inline(always)]
        fn u_select(self, m: __mmask8, a: __m512i, b: __m512i) -> __m512i {
            unsafe { _mm512_mask_blend_epi64(m, b, a) }
        }
        #[inline(always)]
        fn add_if(self, a: __m512i, m: __mmask8) -> __m512i {
            unsafe { _mm512_mask_add_epi64(a, m, a, _mm512_set1_epi64(1)) }
        }
        #[inline(always)]
        fn sub_if(self, a: __m512i, m: __mmask8) -> __m512i {
            unsafe { _mm512_mask_sub_epi64(a, m, a, _mm512_set1_epi64(1)) }
        }
        #[inline(always)]
        fn gather<const W: usize, const M: usize>(
            self,
            t: &[[u64; W]; M],
            i: __m512i,
            limb: usize,
        ) -> __m512i {
            assert!(limb < W && W * M < 1 << 31);
            // Element (min(i, M - 1), limb) of the flat table: below W M, inside it (and the
            // product of the index and W fits the 32 bits that `mul32` multiplies).
            let last = self.u_splat(M as u64 - 1);
            let i = self.u_select(self.u_lt(last, i), last, i);
            let at = self.u_add(
                self.mul32(i, self.u_splat(W as u64)),
                self.u_splat(limb as u64),
            );
            unsafe { _mm512_i64gather_epi64::<8>(at, t.as_ptr().cast::<i64>()) }
        }
        #[inline(always)]
        fn to_bits(self, v: __m512d) -> __m512i {
            unsafe { _mm512_castpd_si512(v) }
        }
        #[inline(always)]
        fn bits_to_f64(self, u: __m512i) -> __m512d {
            unsafe { _mm512_castsi512_pd(u) }
        }
        #[inline(always)]
        fn floor(self, v: __m512d) -> __m512d {
            // Round toward -inf (mode 1), exceptions suppressed (bit 3), no scaling.
            unsafe { _mm512_roundscale_pd::<0x09>(v) }
        }
    }
}
