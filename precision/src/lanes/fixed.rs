//! [`crate::fixed`]'s fixed-point arithmetic on 64-bit limbs, lane by lane: a number is `N`
//! vectors of limbs, least significant first, each lane holding the limbs of its own number.
//! Integer arithmetic is exact, so each function computes the same integers as its scalar
//! twin; the 64×64→128 products are assembled from the vector units' 32×32→64 products.

use super::ints::Ints;

/// `N` limbs per lane, least significant first.
pub(crate) type Limbs<L, const N: usize> = [<L as Ints>::U; N];

/// The exact product `a b` as its low and high 64 bits, from four 32×32→64 products summed
/// so that no partial sum overflows (Warren, *Hacker's Delight*, 8-2 `mulhu`).
#[inline(always)]
pub(crate) fn mul_wide<L: Ints>(l: L, a: L::U, b: L::U) -> (L::U, L::U) {
    let low32 = l.u_splat(0xffff_ffff);
    let (ah, bh) = (l.shr(a, 32), l.shr(b, 32));
    let ll = l.mul32(a, b);
    let lh = l.mul32(a, bh);
    let hl = l.mul32(ah, b);
    let hh = l.mul32(ah, bh);
    // (2^32 - 1)^2 + 2 (2^32 - 1) < 2^64: neither sum overflows.
    let t = l.u_add(hl, l.shr(ll, 32));
    let u = l.u_add(l.u_and(t, low32), lh);
    let lo = l.u_or(l.shl(u, 32), l.u_and(ll, low32));
    let hi = l.u_add(l.u_add(hh, l.shr(t, 32)), l.shr(u, 32));
    (lo, hi)
}

/// `fixed::add`: `a + b` and the carry out.
#[inline(always)]
pub(crate) fn add<L: Ints, const N: usize>(
    l: L,
    a: Limbs<L, N>,
    b: Limbs<L, N>,
) -> (Limbs<L, N>, L::M) {
    let mut r = a;
    let mut carry = l.none();
    for i in 0..N {
        let s = l.u_add(a[i], b[i]);
        let c1 = l.u_lt(s, a[i]);
        let s2 = l.add_if(s, carry);
        let c2 = l.u_lt(s2, s);
        r[i] = s2;
        carry = l.or(c1, c2);
    }
    (r, carry)
}

/// `fixed::add_below_one`: `a + b` without the carry out.
#[inline(always)]
pub(crate) fn add_below_one<L: Ints, const N: usize>(
    l: L,
    a: Limbs<L, N>,
    b: Limbs<L, N>,
) -> Limbs<L, N> {
    add(l, a, b).0
}

/// `fixed::sub`: `a - b` modulo 2^(64N), wrapping.
#[inline(always)]
pub(crate) fn sub<L: Ints, const N: usize>(l: L, a: Limbs<L, N>, b: Limbs<L, N>) -> Limbs<L, N> {
    let mut r = a;
    let mut borrow = l.none();
    for i in 0..N {
        let d = l.u_sub(a[i], b[i]);
        let b1 = l.u_lt(a[i], b[i]);
        let d2 = l.sub_if(d, borrow);
        let b2 = l.u_lt(d, d2);
        r[i] = d2;
        borrow = l.or(b1, b2);
    }
    r
}

/// `fixed::mul`: the top half of the N×N-limb product by columns from column N-1 up, for `b`
/// whose top `Z` limbs are zero; the running column sum `t0 + 2^64 t1 + 2^128 t2` as the
/// scalar function keeps it, carries by comparison. (Summing the 32-bit word products into
/// per-column accumulators instead, as `kernels/fixed.cuh` does, needs no carries but four
/// times the products: measured with `benches/lanes_rounds.rs`, it made the qd exp 1.2×
/// slower in both vector widths and the dd exp no faster.)
#[inline(always)]
pub(crate) fn mul<L: Ints, const N: usize, const Z: usize>(
    l: L,
    a: Limbs<L, N>,
    b: Limbs<L, N>,
) -> Limbs<L, N> {
    let zero = l.u_splat(0);
    let mut r = [zero; N];
    let (mut t0, mut t1, mut t2) = (zero, zero, zero);
    for col in N - 1..2 * N - 1 {
        for j in 0..N - Z {
            if col >= j && col - j < N {
                let (plo, phi) = mul_wide(l, a[col - j], b[j]);
                let s0 = l.u_add(t0, plo);
                let c0 = l.u_lt(s0, plo);
                // The high half is at most 2^64 - 2: the carry joins it without overflow,
                // and one comparison finds the carry out of the middle word.
                let phi = l.add_if(phi, c0);
                let s1 = l.u_add(t1, phi);
                let c1 = l.u_lt(s1, phi);
                t0 = s0;
                t1 = s1;
                t2 = l.add_if(t2, c1);
            }
        }
        if col >= N {
            r[col - N] = t0;
        }
        t0 = t1;
        t1 = t2;
        t2 = zero;
    }
    r[N - 1] = t0;
    r
}

/// `fixed::shl16`: `r · 2^16` for a fraction below 2^-16.
#[inline(always)]
pub(crate) fn shl16<L: Ints, const N: usize>(l: L, r: Limbs<L, N>) -> Limbs<L, N> {
    let mut s = r;
    for i in (0..N).rev() {
        s[i] = l.shl(r[i], 16);
        if i > 0 {
            s[i] = l.u_or(s[i], l.shr(r[i - 1], 48));
        }
    }
    s
}

/// `fixed::shr`: `floor(r / 2^k)` for a constant `1 <= k <= 63`.
#[inline(always)]
pub(crate) fn shr<L: Ints, const N: usize>(l: L, r: Limbs<L, N>, k: u32) -> Limbs<L, N> {
    let mut s = r;
    for i in 0..N {
        s[i] = l.shr(r[i], k);
        if i + 1 < N {
            s[i] = l.u_or(s[i], l.shl(r[i + 1], 64 - k));
        }
    }
    s
}

/// `fixed::mul_small`: `floor(c v / 2^k)` modulo 2^(64 O) for `N <= 4` limbs `v`, a constant
/// `c < 2^32` and `k` 32 or 64. Each limb's product `c v_i < 2^96` from two 32×32→64 products.
#[inline(always)]
pub(crate) fn mul_small<L: Ints, const N: usize, const O: usize>(
    l: L,
    v: Limbs<L, N>,
    c: u64,
    k: u32,
) -> Limbs<L, O> {
    let z = l.u_splat(0);
    let cv = l.u_splat(c);
    // The exact product, N + 1 limbs: limb i gets the low half of c v_i and the high half
    // (below 2^32) of c v_(i-1) with the carry, which cannot carry further.
    let mut p = [z; 5];
    let mut high = z;
    for i in 0..N {
        let lo = l.mul32(v[i], cv);
        let hi = l.mul32(l.shr(v[i], 32), cv);
        let low = l.u_add(lo, l.shl(hi, 32));
        let c1 = l.u_lt(low, lo);
        let s = l.u_add(low, high);
        let c2 = l.u_lt(s, low);
        p[i] = s;
        high = l.add_if(l.add_if(l.shr(hi, 32), c1), c2);
    }
    p[N] = high;
    let mut r = [z; O];
    for (i, ri) in r.iter_mut().enumerate() {
        *ri = if k == 64 {
            p[i + 1]
        } else {
            l.u_or(l.shr(p[i], 32), l.shl(p[i + 1], 32))
        };
    }
    r
}

/// `r · 2^s` for `s < 64` lane by lane (the bits shifted out of the top limb dropped).
#[inline(always)]
pub(crate) fn shl_bits<L: Ints, const N: usize>(l: L, r: Limbs<L, N>, s: L::U) -> Limbs<L, N> {
    // A right shift by 64 (where s = 0) gives 0, as `Ints::shr_var` promises.
    let back = l.u_sub(l.u_splat(64), s);
    let mut t = r;
    for i in (0..N).rev() {
        t[i] = l.shl_var(r[i], s);
        if i > 0 {
            t[i] = l.u_or(t[i], l.shr_var(r[i - 1], back));
        }
    }
    t
}

/// The position of the leading bit of a nonzero `v` (`63 - v.leading_zeros()`), lane by lane:
/// the exponent of `v` as an exact double, or of `v >> 12` plus 12 where `v >= 2^52`. (AVX-512F
/// has no leading-zero count; AVX-512CD's would need another instruction set.)
#[inline(always)]
pub(crate) fn leading_bit<L: Ints>(l: L, v: L::U) -> L::U {
    let big = l.u_lt(l.u_splat((1 << 52) - 1), v);
    let x = l.u_select(big, l.shr(v, 12), v);
    let exponent = l.shr(l.to_bits(to_f64_52(l, x)), 52);
    let p = l.u_sub(exponent, l.u_splat(1023));
    l.u_select(big, l.u_add(p, l.u_splat(12)), p)
}

/// `m ? a : b` limb by limb.
#[inline(always)]
pub(crate) fn select_limbs<L: Ints, const W: usize>(
    l: L,
    m: L::M,
    a: Limbs<L, W>,
    b: Limbs<L, W>,
) -> Limbs<L, W> {
    let mut r = a;
    for i in 0..W {
        r[i] = l.u_select(m, a[i], b[i]);
    }
    r
}

/// `t` shifted left until its leading bit is the top bit of its last limb, and the shift `k`
/// (an integral double): the leading bit was bit `64 W - 1 - k`. For `t` nonzero in its top two
/// limbs (elsewhere the result is of no use, but harmless).
#[inline(always)]
pub(crate) fn normalise<L: Ints, const W: usize>(l: L, t: Limbs<L, W>) -> (Limbs<L, W>, L::V) {
    let z = l.u_splat(0);
    let top_zero = l.u_eq(t[W - 1], z);
    let mut up = t;
    for k in (1..W).rev() {
        up[k] = t[k - 1];
    }
    up[0] = z;
    let t = select_limbs(l, top_zero, up, t);
    let bit = leading_bit(l, t[W - 1]);
    let s = l.u_sub(l.u_splat(63), bit);
    let k = l.add(
        to_f64_52(l, s),
        l.select(top_zero, l.splat(64.0), l.splat(0.0)),
    );
    (shl_bits(l, t, s), k)
}

/// Piece `n` of `crate::fixed::chunk_scaled(t, p - 52 - 53 n, 53, unit)`, the 53-bit pieces
/// from the leading bit `p` of `t` as `log_fixed` and `fraction_to_dd`/`qd` cut them, from `s`
/// and `k` of [`normalise`]: its 53 bits times 2^(p - 52 - 53 n + unit), where
/// `top = 64 W - 1 + unit` (`p + unit = top - k`). Bits below the last limb of `t` were
/// shifted in as zeros, as `chunk_scaled` counts them.
#[inline(always)]
pub(crate) fn piece<L: Ints, const W: usize>(
    l: L,
    s: &Limbs<L, W>,
    n: usize,
    k: L::V,
    top: f64,
) -> L::V {
    let pos = 64 * W as isize - 53 - 53 * n as isize;
    let b = if pos < 0 {
        // The piece reaches below the last limb (`fraction_to_dd`'s third): zeros there.
        l.shl(s[0], -pos as u32)
    } else {
        let (i, o) = (pos as usize / 64, pos as usize % 64);
        let mut b = l.shr(s[i], o as u32);
        if o > 0 && i + 1 < W {
            b = l.u_or(b, l.shl(s[i + 1], 64 - o as u32));
        }
        b
    };
    let b = l.u_and(b, l.u_splat((1u64 << 53) - 1));
    let scale = l.sub(l.splat(top - 52.0 - 53.0 * n as f64), k);
    l.mul(to_f64_53(l, b), pow2(l, scale))
}

/// 2^52 and its bits: `2^52 + u` for `u < 2^52` is exact, and its bits are those of 2^52 plus u.
const TWO52: f64 = 4503599627370496.0;
const TWO52_BITS: u64 = 0x4330_0000_0000_0000;

/// `u as f64` for `u < 2^52` (exact).
#[inline(always)]
pub(crate) fn to_f64_52<L: Ints>(l: L, u: L::U) -> L::V {
    let t = l.bits_to_f64(l.u_or(u, l.u_splat(TWO52_BITS)));
    l.sub(t, l.splat(TWO52))
}

/// `u as f64` for `u < 2^53` (exact): its top 27 bits times 2^26 plus its low 26, each exact,
/// and so is their sum.
#[inline(always)]
pub(crate) fn to_f64_53<L: Ints>(l: L, u: L::U) -> L::V {
    let hi = to_f64_52(l, l.shr(u, 26));
    let lo = to_f64_52(l, l.u_and(u, l.u_splat((1 << 26) - 1)));
    l.add(l.mul(hi, l.splat(67108864.0)), lo)
}

/// The integer value of an integral double `x` with `|x| < 2^52`, as the bits of a
/// two's-complement `i64`.
#[inline(always)]
pub(crate) fn to_i64<L: Ints>(l: L, x: L::V) -> L::U {
    // 2^52 + 2^51 + x lies in [2^52, 2^53) (exact), where one unit is 1.
    const MAGIC: f64 = 6755399441055744.0;
    l.u_sub(
        l.to_bits(l.add(x, l.splat(MAGIC))),
        l.u_splat(MAGIC.to_bits()),
    )
}

/// 2^n for an integral double `n` in [-1022, 1023] (as `crate::pow2`): the biased exponent
/// `n + 1023` is the low bits of `2^52 + n + 1023`, shifted into place.
#[inline(always)]
pub(crate) fn pow2<L: Ints>(l: L, n: L::V) -> L::V {
    let biased = l.add(n, l.splat(TWO52 + 1023.0));
    l.bits_to_f64(l.shl(l.to_bits(biased), 52))
}

/// `crate::ldexp(x, k)` for an integral double `k` in [-2044, 2046]: the same two exact steps
/// (the second a multiplication by 1 where the scalar function skips it).
#[inline(always)]
pub(crate) fn ldexp<L: Ints>(l: L, x: L::V, k: L::V) -> L::V {
    let (lo, hi) = (l.splat(-1022.0), l.splat(1023.0));
    let step = l.select(l.lt(k, lo), lo, l.select(l.gt(k, hi), hi, k));
    let rest = l.sub(k, step);
    l.mul(l.mul(x, pow2(l, step)), pow2(l, rest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lanes::simd::Scalar;
    use crate::lanes::Isa;

    /// xorshift64, for reproducible limbs.
    fn limbs(seed: u64, n: usize) -> Vec<u64> {
        let mut s = seed;
        (0..n)
            .map(|i| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                // Every fifth limb all ones or zero: the longest carry chains.
                match i % 5 {
                    0 => u64::MAX,
                    1 if i % 3 == 0 => 0,
                    _ => s,
                }
            })
            .collect()
    }

    /// Runs `f` on the lanes of `l` over `M` limbs per value, `W` values at a time, and checks
    /// every lane against `want`.
    fn check_lanes<L: Ints, const M: usize>(
        l: L,
        what: &str,
        input: &[u64],
        f: impl Fn(L, [L::U; M]) -> Vec<L::U>,
        want: impl Fn([u64; M]) -> Vec<u64>,
    ) {
        let w = L::WIDTH;
        for group in input.chunks_exact(M * w) {
            // Value k of the group is limbs group[M k..M k + M]; vector m holds limb m.
            let vecs: [L::U; M] = std::array::from_fn(|m| {
                let lanes: Vec<f64> = (0..w).map(|k| f64::from_bits(group[M * k + m])).collect();
                l.to_bits(l.load(&lanes))
            });
            let got = f(l, vecs);
            for k in 0..w {
                let value: [u64; M] = std::array::from_fn(|m| group[M * k + m]);
                let expect = want(value);
                for (g, e) in got.iter().zip(&expect) {
                    let mut out = [0.0; 8];
                    l.store(&mut out, l.bits_to_f64(*g));
                    assert_eq!(out[k].to_bits(), *e, "{what}, lane {k} of {value:x?}");
                }
            }
        }
    }

    fn check_all<L: Ints>(l: L) {
        let input = limbs(0x9e37_79b9_7f4a_7c15, 8 * 4 * 2000);
        check_lanes::<L, 2>(
            l,
            "mul_wide",
            &input,
            |l, v| {
                let (lo, hi) = mul_wide(l, v[0], v[1]);
                vec![lo, hi]
            },
            |v| {
                let p = v[0] as u128 * v[1] as u128;
                vec![p as u64, (p >> 64) as u64]
            },
        );
        check_lanes::<L, 4>(
            l,
            "add, sub, mul 2",
            &input,
            |l, v| {
                let (a, b) = ([v[0], v[1]], [v[2], v[3]]);
                let (s, _) = add(l, a, b);
                let d = sub(l, a, b);
                let p0 = mul::<L, 2, 0>(l, a, b);
                let p1 = mul::<L, 2, 1>(l, a, [b[0], l.u_splat(0)]);
                let sh = shl16(l, [a[0], l.u_and(a[1], l.u_splat(0xffff_ffff_ffff))]);
                let v = shl_bits(l, a, l.u_and(b[0], l.u_splat(63)));
                vec![
                    s[0], s[1], d[0], d[1], p0[0], p0[1], p1[0], p1[1], sh[0], sh[1], v[0], v[1],
                ]
            },
            |v| {
                let (a, b) = ([v[0], v[1]], [v[2], v[3]]);
                let (s, _) = crate::fixed::add(a, b);
                let d = crate::fixed::sub(a, b);
                let p0 = crate::fixed::mul::<2, 0>(a, b);
                let p1 = crate::fixed::mul::<2, 1>(a, [b[0], 0]);
                let sh = crate::fixed::shl16([a[0], a[1] & 0xffff_ffff_ffff]);
                let k = (b[0] & 63) as u32;
                let v = [
                    a[0] << k,
                    a[1] << k | if k > 0 { a[0] >> (64 - k) } else { 0 },
                ];
                vec![
                    s[0], s[1], d[0], d[1], p0[0], p0[1], p1[0], p1[1], sh[0], sh[1], v[0], v[1],
                ]
            },
        );
        check_lanes::<L, 8>(
            l,
            "add, mul 4",
            &input,
            |l, v| {
                let (a, b) = ([v[0], v[1], v[2], v[3]], [v[4], v[5], v[6], v[7]]);
                let (s, c) = add(l, a, b);
                let carry = l.u_select(c, l.u_splat(1), l.u_splat(0));
                let p = mul::<L, 4, 0>(l, a, b);
                let z = l.u_splat(0);
                let q = mul::<L, 4, 2>(l, a, [b[0], b[1], z, z]);
                let q1 = mul::<L, 4, 1>(l, a, [b[0], b[1], b[2], z]);
                let q3 = mul::<L, 4, 3>(l, a, [b[0], z, z, z]);
                [s.to_vec(), vec![carry], p.to_vec(), q.to_vec()]
                    .concat()
                    .into_iter()
                    .chain(q1.into_iter().chain(q3))
                    .collect()
            },
            |v| {
                let (a, b) = ([v[0], v[1], v[2], v[3]], [v[4], v[5], v[6], v[7]]);
                let (s, c) = crate::fixed::add(a, b);
                let p = crate::fixed::mul::<4, 0>(a, b);
                let q = crate::fixed::mul::<4, 2>(a, [b[0], b[1], 0, 0]);
                let q1 = crate::fixed::mul::<4, 1>(a, [b[0], b[1], b[2], 0]);
                let q3 = crate::fixed::mul::<4, 3>(a, [b[0], 0, 0, 0]);
                [s.to_vec(), vec![c as u64], p.to_vec(), q.to_vec()]
                    .concat()
                    .into_iter()
                    .chain(q1.into_iter().chain(q3))
                    .collect()
            },
        );
        check_lanes::<L, 4>(
            l,
            "mul_small, shr",
            &input,
            |l, v| {
                let c = 0xb994_6600;
                let a = mul_small::<L, 4, 4>(l, v, c, 64);
                let b = mul_small::<L, 3, 4>(l, [v[0], v[1], v[2]], c, 32);
                let d = mul_small::<L, 1, 2>(l, [v[3]], 13, 32);
                let e = shr(l, v, 1);
                [a.to_vec(), b.to_vec(), d.to_vec(), e.to_vec()].concat()
            },
            |v| {
                let c = 0xb994_6600;
                let a = crate::fixed::mul_small::<4, 4>(v, c, 64);
                let b = crate::fixed::mul_small::<3, 4>([v[0], v[1], v[2]], c, 32);
                let d = crate::fixed::mul_small::<1, 2>([v[3]], 13, 32);
                let e = crate::fixed::shr(v, 1);
                [a.to_vec(), b.to_vec(), d.to_vec(), e.to_vec()].concat()
            },
        );
        check_lanes::<L, 1>(
            l,
            "to_f64",
            &input,
            |l, v| {
                let u53 = l.shr(v[0], 11);
                let u52 = l.shr(v[0], 12);
                // Leading bits at every position: v shifted right by its own low six bits.
                let short = l.shr_var(v[0], l.u_and(v[0], l.u_splat(63)));
                vec![
                    l.to_bits(to_f64_53(l, u53)),
                    l.to_bits(to_f64_52(l, u52)),
                    leading_bit(l, l.u_or(v[0], l.u_splat(1))),
                    leading_bit(l, l.u_or(short, l.u_splat(1))),
                ]
            },
            |v| {
                let short = v[0] >> (v[0] & 63);
                vec![
                    ((v[0] >> 11) as f64).to_bits(),
                    ((v[0] >> 12) as f64).to_bits(),
                    63 - (v[0] | 1).leading_zeros() as u64,
                    63 - (short | 1).leading_zeros() as u64,
                ]
            },
        );
    }

    /// Every function gives the scalar fixed-point functions' integers on every instruction
    /// set the CPU has, over random limbs with long carry chains. (Called outside code built
    /// for the instruction set, the intrinsics are not inlined: slower, the same integers.)
    #[test]
    fn lane_fixed_point_matches_the_scalar_functions() {
        for isa in Isa::available() {
            match isa {
                Isa::Scalar => check_all(Scalar),
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `Isa::available` lists only what the CPU has.
                Isa::Avx2 => check_all(unsafe { crate::lanes::simd::Avx2::new_unchecked() }),
                #[cfg(target_arch = "x86_64")]
                // SAFETY: as above.
                Isa::Avx512 => check_all(unsafe { crate::lanes::simd::Avx512::new_unchecked() }),
                #[allow(unreachable_patterns)]
                _ => {}
            }
        }
    }

    #[test]
    fn integer_conversions_and_powers_of_two() {
        let l = Scalar;
        for k in -1100..=1100 {
            let x = k as f64;
            assert_eq!(to_i64(l, x) as i64, k);
            if (-1022..=1023).contains(&k) {
                assert_eq!(pow2(l, x), crate::ldexp(1.0, k as i32));
            }
            for v in [1.5, -3.0, 5e-324, f64::MAX, 0.0] {
                assert_eq!(
                    ldexp(l, v, x).to_bits(),
                    crate::ldexp(v, k as i32).to_bits()
                );
            }
        }
    }
}
