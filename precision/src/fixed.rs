//! Fixed-point arithmetic on 64-bit limbs for the elementary functions (`exp_fixed.rs`,
//! `trig_fixed.rs`, `log_fixed.rs`): numbers in [0, 1) as N limbs, least significant first, unit 2^-64N, and a
//! wider accumulator with an integer limb for the argument reductions. Products are the top half
//! of the N×N-limb product by columns (Comba's method), u64×u64→u128 each. Integer arithmetic is
//! exact and the same on every machine; `kernels/fixed.cuh` mirrors this file function for
//! function (`__umul64hi` for a product's high half).

use crate::{Dd, Qd};

/// A fixed-point number of up to 4 fractional limbs: limbs `0..N` hold the fraction (least
/// significant first, unit 2^-64N), limb `N` the integer part in two's complement.
pub(crate) type Wide = [u64; 5];

/// `w += v · 2^(64 i)` for a 128-bit `v`, the carry running into the integer limb `N`.
#[inline(always)]
pub(crate) fn add_at<const N: usize>(w: &mut Wide, i: usize, v: u128) {
    let mut carry = v;
    let mut l = i;
    while l <= N && carry != 0 {
        let s = w[l] as u128 + (carry as u64) as u128;
        w[l] = s as u64;
        carry = (carry >> 64) + (s >> 64);
        l += 1;
    }
}

/// `w -= v · 2^(64 i)`, the borrow running into the integer limb `N` (wrapping there).
#[inline(always)]
pub(crate) fn sub_at<const N: usize>(w: &mut Wide, i: usize, v: u128) {
    let mut borrow = v;
    let mut l = i;
    while l <= N && borrow != 0 {
        let (d, b) = w[l].overflowing_sub(borrow as u64);
        w[l] = d;
        borrow = (borrow >> 64) + b as u128;
        l += 1;
    }
}

/// `|c| = m 2^(e - 1075)` for a finite `c`: its integer mantissa (hidden bit included) and
/// biased exponent; a subnormal has no hidden bit and the exponent of the smallest normal.
#[inline(always)]
pub(crate) fn mantissa_exponent(c: f64) -> (u64, i32) {
    let bits = c.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & 0x000f_ffff_ffff_ffff;
    if e == 0 {
        (frac, 1)
    } else {
        (frac | 0x0010_0000_0000_0000, e)
    }
}

/// Adds `c 2^-k` to `w`, truncated to the unit 2^-64N (an error below one unit), for a finite
/// `c` with `|c| 2^-k < 2^62`; subnormal `c` included (with `k` = 0 it is below the unit).
#[inline(always)]
pub(crate) fn add_scaled<const N: usize>(w: &mut Wide, c: f64, k: i32) {
    let (m, e) = mantissa_exponent(c);
    // c 2^-k = ±m 2^(e - 1075 - k); its position in units of 2^-64N.
    let s = e - 1075 - k + 64 * N as i32;
    if m == 0 || s <= -53 {
        return;
    }
    let (m, s) = if s < 0 { (m >> -s, 0) } else { (m, s) };
    let v = (m as u128) << (s % 64);
    if c.is_sign_positive() {
        add_at::<N>(w, (s / 64) as usize, v);
    } else {
        sub_at::<N>(w, (s / 64) as usize, v);
    }
}

/// The leading N limbs of a four-limb table entry.
#[inline(always)]
pub(crate) fn top<const N: usize>(t: &[u64; 4]) -> [u64; N] {
    let mut r = [0u64; N];
    r.copy_from_slice(&t[4 - N..]);
    r
}

/// `a + b` and the carry out.
#[inline(always)]
pub(crate) fn add<const N: usize>(a: [u64; N], b: [u64; N]) -> ([u64; N], bool) {
    let mut r = [0u64; N];
    let mut carry = false;
    for i in 0..N {
        let (s, c1) = a[i].overflowing_add(b[i]);
        let (s, c2) = s.overflowing_add(carry as u64);
        r[i] = s;
        carry = c1 | c2;
    }
    (r, carry)
}

/// `a + b` for fractions whose sum is known to be below 1.
#[inline(always)]
pub(crate) fn add_below_one<const N: usize>(a: [u64; N], b: [u64; N]) -> [u64; N] {
    add(a, b).0
}

/// The product of two fractions, `a b` truncated to N limbs: the top half of the N×N-limb
/// product by columns (Comba), from column N-1 up (the columns below are dropped: an error below
/// N units of the last limb), for `b` whose top `Z` limbs are zero (their products are skipped).
#[inline(always)]
pub(crate) fn mul<const N: usize, const Z: usize>(a: [u64; N], b: [u64; N]) -> [u64; N] {
    let mut r = [0u64; N];
    // The running column sum t0 + 2^64 t1 + 2^128 t2.
    let (mut t0, mut t1, mut t2) = (0u64, 0u64, 0u64);
    for col in N - 1..2 * N - 1 {
        for j in 0..N - Z {
            if col >= j && col - j < N {
                let p = a[col - j] as u128 * b[j] as u128;
                let (s0, c0) = t0.overflowing_add(p as u64);
                let (s1, c1) = t1.overflowing_add((p >> 64) as u64);
                let (s1, c2) = s1.overflowing_add(c0 as u64);
                t0 = s0;
                t1 = s1;
                t2 += c1 as u64 + c2 as u64;
            }
        }
        if col >= N {
            r[col - N] = t0;
        }
        t0 = t1;
        t1 = t2;
        t2 = 0;
    }
    r[N - 1] = t0;
    r
}

/// `r · 2^k` for a fraction below 2^-k, `1 <= k <= 63` (exact).
#[inline(always)]
pub(crate) fn shl<const N: usize>(r: [u64; N], k: u32) -> [u64; N] {
    let mut s = [0u64; N];
    for i in (0..N).rev() {
        s[i] = r[i] << k | if i > 0 { r[i - 1] >> (64 - k) } else { 0 };
    }
    s
}

/// `r · 2^16` for a fraction below 2^-16 (exact).
#[inline(always)]
pub(crate) fn shl16<const N: usize>(r: [u64; N]) -> [u64; N] {
    shl(r, 16)
}

/// `floor(r / 2^k)`, `1 <= k <= 63`.
#[inline(always)]
pub(crate) fn shr<const N: usize>(r: [u64; N], k: u32) -> [u64; N] {
    let mut s = [0u64; N];
    for i in 0..N {
        s[i] = r[i] >> k | if i + 1 < N { r[i + 1] << (64 - k) } else { 0 };
    }
    s
}

/// The leading `M` limbs of an `N`-limb fraction: the fraction truncated to `M` limbs.
#[inline(always)]
pub(crate) fn leading<const N: usize, const M: usize>(v: &[u64; N]) -> [u64; M] {
    let mut r = [0u64; M];
    r.copy_from_slice(&v[N - M..]);
    r
}

/// The exact product `v c` of the `N` limbs `v` read as an integer and one limb `c`: its
/// `N + 1` limbs, least significant first, in `P > N` limbs (the rest zero). `mul_small`,
/// `atan_fixed`'s quotient and turns, and `trig`'s reduction of huge arguments cut their
/// results from it.
#[inline(always)]
pub(crate) fn mul_by_limb<const N: usize, const P: usize>(v: &[u64; N], c: u64) -> [u64; P] {
    let mut p = [0u64; P];
    let mut carry = 0u64;
    for i in 0..N {
        let t = v[i] as u128 * c as u128 + carry as u128;
        p[i] = t as u64;
        carry = (t >> 64) as u64;
    }
    p[N] = carry;
    p
}

/// `floor(c v / 2^k)` modulo 2^(64 O), `v` read as an integer of `N <= 4` limbs, for
/// `c < 2^32` and `k` 32 or 64, `O <= 4`: a product by a small integer, shifted by half a limb
/// or a whole one.
#[inline(always)]
pub(crate) fn mul_small<const N: usize, const O: usize>(v: [u64; N], c: u64, k: u32) -> [u64; O] {
    let p: Wide = mul_by_limb(&v, c);
    let mut r = [0u64; O];
    for (i, ri) in r.iter_mut().enumerate() {
        *ri = if k == 64 {
            p[i + 1]
        } else {
            p[i] >> 32 | p[i + 1] << 32
        };
    }
    r
}

/// The `len <= 53` bits of `v` from bit `pos` up, as an integer.
#[inline(always)]
pub(crate) fn bits<const N: usize>(v: &[u64; N], pos: usize, len: usize) -> u64 {
    let (l, o) = (pos / 64, pos % 64);
    let lo = v[l] >> o;
    let hi = if o > 0 && l + 1 < N {
        v[l + 1] << (64 - o)
    } else {
        0
    };
    (lo | hi) & ((1u64 << len) - 1)
}

/// `a - b` modulo 1 (wrapping): exact whenever the true result lies in [0, 1).
#[inline(always)]
pub(crate) fn sub<const N: usize>(a: [u64; N], b: [u64; N]) -> [u64; N] {
    let mut r = [0u64; N];
    let mut borrow = false;
    for i in 0..N {
        let (d, b1) = a[i].overflowing_sub(b[i]);
        let (d, b2) = d.overflowing_sub(borrow as u64);
        r[i] = d;
        borrow = b1 | b2;
    }
    r
}

/// The `len` bits of `v` from bit `pos` up, as an exact double times 2^(pos - 64N); bits below
/// the last limb (a negative `pos`) count as zero.
#[inline(always)]
pub(crate) fn chunk<const N: usize>(v: &[u64; N], pos: i32, len: i32) -> f64 {
    chunk_scaled(v, pos, len, -64 * N as i32)
}

/// The `len` bits of the `L` limbs `v` from bit `pos` up, as an exact double times
/// 2^(pos + unit), for `pos + unit >= -1022`; bits below the last limb count as zero.
#[inline(always)]
pub(crate) fn chunk_scaled<const L: usize>(v: &[u64; L], pos: i32, len: i32, unit: i32) -> f64 {
    let (pos, len) = if pos < 0 { (0, len + pos) } else { (pos, len) };
    if len <= 0 {
        return 0.0;
    }
    // The scale is a normal power of two, built from its bits.
    let scale = f64::from_bits(((pos + unit + 1023) as u64) << 52);
    bits(v, pos as usize, len as usize) as f64 * scale
}

/// A fraction of at least 2^-24 as a quad-double: five pieces of 53 bits from its leading bit,
/// renormalised.
#[inline(always)]
pub(crate) fn fraction_to_qd(v: &[u64; 4]) -> Qd {
    limbs_to_qd(v, -256)
}

/// The four limbs `v` times 2^unit as a quad-double: `fraction_to_qd` with another unit
/// (`unit >= -1022`), for `v` of at least 2^232 units.
#[inline(always)]
pub(crate) fn limbs_to_qd(v: &[u64; 4], unit: i32) -> Qd {
    if v[3] == 0 {
        let p = 255 - v[3].leading_zeros() as i32;
        let c = |k: i32| chunk_scaled(v, p - 52 - 53 * k, 53, unit);
        return crate::qd::renormalise([c(0), c(1), c(2), c(3), c(4)]);
    }
    // The same pieces without branches on the leading bit p = 255 - z: v shifted left by z,
    // piece k is then bits [203 - 53k, 256 - 53k) (the last one's low 9 bits below the
    // limbs, zero), worth 2^(203 - 53k - z + unit) each.
    let z = v[3].leading_zeros();
    let up = |i: usize| {
        v[i] << z
            | if i > 0 {
                (v[i - 1] >> 1) >> (63 - z)
            } else {
                0
            }
    };
    let s = [up(0), up(1), up(2), up(3)];
    let m53 = (1u64 << 53) - 1;
    let b = [
        s[3] >> 11,
        (s[2] >> 22 | s[3] << 42) & m53,
        (s[1] >> 33 | s[2] << 31) & m53,
        (s[0] >> 44 | s[1] << 20) & m53,
        (s[0] << 9) & m53,
    ];
    let e = 203 + unit - z as i32;
    let c = |k: usize| b[k] as f64 * f64::from_bits(((e - 53 * k as i32 + 1023) as u64) << 52);
    crate::qd::renormalise([c(0), c(1), c(2), c(3), c(4)])
}

/// A fraction of at least 2^-12 as a double-double: three pieces from its leading bit.
#[inline(always)]
pub(crate) fn fraction_to_dd(v: &[u64; 2]) -> Dd {
    limbs_to_dd(v, -128)
}

/// The two limbs `v` times 2^unit as a double-double: `fraction_to_dd` with another unit
/// (`unit >= -1022`), for `v` of at least 2^116 units.
#[inline(always)]
pub(crate) fn limbs_to_dd(v: &[u64; 2], unit: i32) -> Dd {
    if v[1] == 0 {
        let p = 127 - v[1].leading_zeros() as i32;
        let c = |k: i32| chunk_scaled(v, p - 52 - 53 * k, 53, unit);
        let (hi, lo) = crate::eft::quick_two_sum(c(0), c(1) + c(2));
        return Dd::new(hi, lo);
    }
    // As `limbs_to_qd`: v shifted left by z, pieces at bits [75, 128), [22, 75), [-31, 22).
    let z = v[1].leading_zeros();
    let s = [v[0] << z, v[1] << z | (v[0] >> 1) >> (63 - z)];
    let m53 = (1u64 << 53) - 1;
    let b = [
        s[1] >> 11,
        (s[0] >> 22 | s[1] << 42) & m53,
        (s[0] << 31) & m53,
    ];
    let e = 75 + unit - z as i32;
    let c = |k: usize| b[k] as f64 * f64::from_bits(((e - 53 * k as i32 + 1023) as u64) << 52);
    let (hi, lo) = crate::eft::quick_two_sum(c(0), c(1) + c(2));
    Dd::new(hi, lo)
}

/// What the tests of the fixed-point functions share.
#[cfg(test)]
pub(crate) mod test_support {
    use rug::ops::Pow;
    use rug::{Float, Integer};

    /// `v 2^bits` rounded to the nearest integer: a table entry's exact value.
    pub(crate) fn nearest(v: Float, bits: u32) -> Integer {
        let scaled = v * Float::with_val(1000, 2).pow(bits);
        scaled
            .to_integer_round(rug::float::Round::Nearest)
            .expect("finite")
            .0
    }

    /// The value of a limb array (least significant limb first) as an integer.
    pub(crate) fn value(t: &[u64]) -> Integer {
        let mut n = Integer::new();
        for &l in t.iter().rev() {
            n <<= 64;
            n += l;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::value;
    use super::*;
    use rug::Integer;

    /// The fixed-point product against exact integer arithmetic: within N units.
    #[test]
    fn truncated_product_is_within_n_units() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..1000 {
            let a = [next(), next(), next(), next()];
            let b = [next(), next(), next(), next()];
            let exact: Integer = (value(&a) * value(&b)) >> 256;
            let got = value(&mul::<4, 0>(a, b));
            let diff = Integer::from(&exact - &got);
            assert!((0..=4).contains(&diff), "{diff}");
        }
    }

    /// `mul_small` and `shr` against exact integer arithmetic (limbs of all ones included).
    #[test]
    fn small_products_and_shifts_are_exact() {
        let mut s = 0x243f_6a88_85a3_08d3u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for round in 0..2000 {
            let v = if round % 5 == 0 {
                [u64::MAX; 4]
            } else {
                [next(), next(), next(), next()]
            };
            let c = if round % 7 == 0 {
                u32::MAX as u64
            } else {
                next() >> 32
            };
            let exact = value(&v) * c;
            let modulus = Integer::from(1) << 256;
            for k in [32u32, 64] {
                let want = Integer::from(&exact >> k) % &modulus;
                assert_eq!(value(&mul_small::<4, 4>(v, c, k)), want);
                let v3 = [v[0], v[1], v[2]];
                let want = ((value(&v3) * c) >> k) % &modulus;
                assert_eq!(value(&mul_small::<3, 4>(v3, c, k)), want);
                let want = (value(&[v[3]]) * c) >> k;
                assert_eq!(value(&mul_small::<1, 2>([v[3]], c, k)), want);
            }
            let k = (next() % 63 + 1) as u32;
            assert_eq!(value(&shr(v, k)), value(&v) >> k);
        }
    }

    /// `kernels/fixed.cuh`'s fx_mul, transliterated: the same partial products summed in 32-bit
    /// words, row by row with 64-bit multiply-adds and no carry flags.
    fn mul_words<const N: usize, const Z: usize>(a: [u64; N], b: [u64; N]) -> [u64; N] {
        let word = |v: &[u64; N], k: usize| (v[k / 2] >> (32 * (k % 2))) as u32;
        let base = 2 * (N - 1);
        let qmax = 2 * (N - Z) - 1;
        let mut acc = vec![0u32; 2 * N + 2];
        for p in 0..2 * N {
            let qmin = 2 * (N - 1 - p / 2);
            if qmin > qmax {
                continue;
            }
            let mut carry = 0u32;
            for q in qmin..=qmax {
                let t = word(&a, p) as u64 * word(&b, q) as u64
                    + acc[p + q - base] as u64
                    + carry as u64;
                acc[p + q - base] = t as u32;
                carry = (t >> 32) as u32;
            }
            acc[p + qmax + 1 - base] = carry;
        }
        let mut r = [0u64; N];
        for (k, l) in r.iter_mut().enumerate() {
            *l = acc[2 + 2 * k] as u64 | (acc[3 + 2 * k] as u64) << 32;
        }
        r
    }

    /// The device's word-level product gives mul's bits exactly (the GPU tests check the CUDA
    /// code itself; this checks the argument in its comment), on random limbs, limbs of all ones
    /// (the largest carries) and with Z leading zero limbs of b.
    #[test]
    fn word_product_is_bit_identical() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for round in 0..3000 {
            let pick = |x: u64| if round % 3 == 0 { u64::MAX } else { x };
            let a4 = [pick(next()), pick(next()), pick(next()), pick(next())];
            let b4 = [pick(next()), pick(next()), pick(next()), pick(next())];
            assert_eq!(mul_words::<4, 0>(a4, b4), mul::<4, 0>(a4, b4));
            let b = [b4[0], b4[1], b4[2], 0];
            assert_eq!(mul_words::<4, 1>(a4, b), mul::<4, 1>(a4, b));
            let b = [b4[0], b4[1], 0, 0];
            assert_eq!(mul_words::<4, 2>(a4, b), mul::<4, 2>(a4, b));
            let b = [b4[0], 0, 0, 0];
            assert_eq!(mul_words::<4, 3>(a4, b), mul::<4, 3>(a4, b));
            let (a2, b2) = ([a4[0], a4[1]], [b4[2], b4[3]]);
            assert_eq!(mul_words::<2, 0>(a2, b2), mul::<2, 0>(a2, b2));
            let b = [b2[0], 0];
            assert_eq!(mul_words::<2, 1>(a2, b), mul::<2, 1>(a2, b));
            // The lengths of trig_fixed's powers: three limbs and one.
            let (a3, b3) = ([a4[0], a4[1], a4[2]], [b4[1], b4[2], b4[3]]);
            assert_eq!(mul_words::<3, 0>(a3, b3), mul::<3, 0>(a3, b3));
            assert_eq!(
                mul_words::<1, 0>([a4[3]], [b4[0]]),
                mul::<1, 0>([a4[3]], [b4[0]])
            );
        }
    }
}
