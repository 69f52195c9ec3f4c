// Fixed-point arithmetic on 64-bit limbs for the elementary functions: twin of
// precision/src/fixed.rs, function for function (add_at, sub_at, add_scaled, top, add, mul,
// shl, shl16, shr, mul_by_limb, mul_small, bits, sub, chunk_scaled, chunk, fraction_to_qd,
// limbs_to_qd, fraction_to_dd, limbs_to_dd under the names fx_*; leading is a pointer to the
// last limbs).
// Numbers in [0, 1) as N limbs, least significant first, unit 2^-64N; the accumulator w[5] has
// the integer limb at index N. Integer arithmetic only, so the bits are the host's. The device
// computes the same integers in its own way (32-bit words for products, PTX carry chains for
// sums, no run-time indices into limb arrays): every result below is an exact integer function
// of its inputs, documented at each.
#pragma once
#include "qd.cuh"

typedef unsigned long long hpq_u64;

// w += v and w -= v over M limbs, the carry or borrow out of the last limb returned (0 or 1).
// One PTX carry chain each (add.cc/addc, sub.cc/subc on 64-bit limbs, which ptxas lowers to
// 32-bit adds with carry flags): the compare-and-select carries of plain C cost several times
// more on the GPU. Modular integer sums, so the bits are the host's whatever the chain.
// Each chain first copies v into registers of its own: the compiler may give an input the
// register of a w limb holding the same value (no early-clobber marks in CUDA's inline PTX),
// and the chain writes w limb by limb.
template <int M> __device__ __forceinline__ hpq_u64 fx_add_n(hpq_u64 *w, const hpq_u64 *v) {
    static_assert(M >= 2 && M <= 5, "fx_add_n: 2 to 5 limbs");
    hpq_u64 c;
    if constexpr (M == 2) {
        asm("{\n\t.reg .u64 v0, v1;\n\t"
            "mov.b64 v0, %3;\n\t"
            "mov.b64 v1, %4;\n\t"
            "add.cc.u64 %0, %0, v0;\n\t"
            "addc.cc.u64 %1, %1, v1;\n\t"
            "addc.u64 %2, 0, 0;\n\t}"
            : "+l"(w[0]), "+l"(w[1]), "=l"(c)
            : "l"(v[0]), "l"(v[1]));
    } else if constexpr (M == 3) {
        asm("{\n\t.reg .u64 v0, v1, v2;\n\t"
            "mov.b64 v0, %4;\n\t"
            "mov.b64 v1, %5;\n\t"
            "mov.b64 v2, %6;\n\t"
            "add.cc.u64 %0, %0, v0;\n\t"
            "addc.cc.u64 %1, %1, v1;\n\t"
            "addc.cc.u64 %2, %2, v2;\n\t"
            "addc.u64 %3, 0, 0;\n\t}"
            : "+l"(w[0]), "+l"(w[1]), "+l"(w[2]), "=l"(c)
            : "l"(v[0]), "l"(v[1]), "l"(v[2]));
    } else if constexpr (M == 4) {
        asm("{\n\t.reg .u64 v0, v1, v2, v3;\n\t"
            "mov.b64 v0, %5;\n\t"
            "mov.b64 v1, %6;\n\t"
            "mov.b64 v2, %7;\n\t"
            "mov.b64 v3, %8;\n\t"
            "add.cc.u64 %0, %0, v0;\n\t"
            "addc.cc.u64 %1, %1, v1;\n\t"
            "addc.cc.u64 %2, %2, v2;\n\t"
            "addc.cc.u64 %3, %3, v3;\n\t"
            "addc.u64 %4, 0, 0;\n\t}"
            : "+l"(w[0]), "+l"(w[1]), "+l"(w[2]), "+l"(w[3]), "=l"(c)
            : "l"(v[0]), "l"(v[1]), "l"(v[2]), "l"(v[3]));
    } else {
        asm("{\n\t.reg .u64 v0, v1, v2, v3, v4;\n\t"
            "mov.b64 v0, %6;\n\t"
            "mov.b64 v1, %7;\n\t"
            "mov.b64 v2, %8;\n\t"
            "mov.b64 v3, %9;\n\t"
            "mov.b64 v4, %10;\n\t"
            "add.cc.u64 %0, %0, v0;\n\t"
            "addc.cc.u64 %1, %1, v1;\n\t"
            "addc.cc.u64 %2, %2, v2;\n\t"
            "addc.cc.u64 %3, %3, v3;\n\t"
            "addc.cc.u64 %4, %4, v4;\n\t"
            "addc.u64 %5, 0, 0;\n\t}"
            : "+l"(w[0]), "+l"(w[1]), "+l"(w[2]), "+l"(w[3]), "+l"(w[4]), "=l"(c)
            : "l"(v[0]), "l"(v[1]), "l"(v[2]), "l"(v[3]), "l"(v[4]));
    }
    return c;
}

template <int M> __device__ __forceinline__ hpq_u64 fx_sub_n(hpq_u64 *w, const hpq_u64 *v) {
    static_assert(M >= 2 && M <= 5, "fx_sub_n: 2 to 5 limbs");
    hpq_u64 c;
    if constexpr (M == 2) {
        asm("{\n\t.reg .u64 v0, v1;\n\t"
            "mov.b64 v0, %3;\n\t"
            "mov.b64 v1, %4;\n\t"
            "sub.cc.u64 %0, %0, v0;\n\t"
            "subc.cc.u64 %1, %1, v1;\n\t"
            "subc.u64 %2, 0, 0;\n\t}"
            : "+l"(w[0]), "+l"(w[1]), "=l"(c)
            : "l"(v[0]), "l"(v[1]));
    } else if constexpr (M == 3) {
        asm("{\n\t.reg .u64 v0, v1, v2;\n\t"
            "mov.b64 v0, %4;\n\t"
            "mov.b64 v1, %5;\n\t"
            "mov.b64 v2, %6;\n\t"
            "sub.cc.u64 %0, %0, v0;\n\t"
            "subc.cc.u64 %1, %1, v1;\n\t"
            "subc.cc.u64 %2, %2, v2;\n\t"
            "subc.u64 %3, 0, 0;\n\t}"
            : "+l"(w[0]), "+l"(w[1]), "+l"(w[2]), "=l"(c)
            : "l"(v[0]), "l"(v[1]), "l"(v[2]));
    } else if constexpr (M == 4) {
        asm("{\n\t.reg .u64 v0, v1, v2, v3;\n\t"
            "mov.b64 v0, %5;\n\t"
            "mov.b64 v1, %6;\n\t"
            "mov.b64 v2, %7;\n\t"
            "mov.b64 v3, %8;\n\t"
            "sub.cc.u64 %0, %0, v0;\n\t"
            "subc.cc.u64 %1, %1, v1;\n\t"
            "subc.cc.u64 %2, %2, v2;\n\t"
            "subc.cc.u64 %3, %3, v3;\n\t"
            "subc.u64 %4, 0, 0;\n\t}"
            : "+l"(w[0]), "+l"(w[1]), "+l"(w[2]), "+l"(w[3]), "=l"(c)
            : "l"(v[0]), "l"(v[1]), "l"(v[2]), "l"(v[3]));
    } else {
        asm("{\n\t.reg .u64 v0, v1, v2, v3, v4;\n\t"
            "mov.b64 v0, %6;\n\t"
            "mov.b64 v1, %7;\n\t"
            "mov.b64 v2, %8;\n\t"
            "mov.b64 v3, %9;\n\t"
            "mov.b64 v4, %10;\n\t"
            "sub.cc.u64 %0, %0, v0;\n\t"
            "subc.cc.u64 %1, %1, v1;\n\t"
            "subc.cc.u64 %2, %2, v2;\n\t"
            "subc.cc.u64 %3, %3, v3;\n\t"
            "subc.cc.u64 %4, %4, v4;\n\t"
            "subc.u64 %5, 0, 0;\n\t}"
            : "+l"(w[0]), "+l"(w[1]), "+l"(w[2]), "+l"(w[3]), "+l"(w[4]), "=l"(c)
            : "l"(v[0]), "l"(v[1]), "l"(v[2]), "l"(v[3]), "l"(v[4]));
    }
    // subc of 0 - 0 - borrow is 0 or all ones.
    return c & 1ULL;
}

// w += v 2^(64 i) for v = lo + 2^64 hi, the carry running into the integer limb N and no
// further (add_at). The host stops at the first zero carry; running on through the integer
// limb adds only zeros, and the whole sum is one carry chain over the N + 1 limbs with i
// selected limb by limb, so no array is indexed at run time (which would put w in local
// memory).
template <int N> __device__ __forceinline__ void fx_add_at(hpq_u64 *w, int i, hpq_u64 lo, hpq_u64 hi) {
    hpq_u64 v[N + 1];
#pragma unroll
    for (int l = 0; l <= N; ++l) v[l] = (lo & (0ULL - (hpq_u64)(l == i))) | (hi & (0ULL - (hpq_u64)(l == i + 1)));
    fx_add_n<N + 1>(w, v);
}

// w -= v 2^(64 i), the borrow running into the integer limb N (wrapping there) (sub_at).
template <int N> __device__ __forceinline__ void fx_sub_at(hpq_u64 *w, int i, hpq_u64 lo, hpq_u64 hi) {
    hpq_u64 v[N + 1];
#pragma unroll
    for (int l = 0; l <= N; ++l) v[l] = (lo & (0ULL - (hpq_u64)(l == i))) | (hi & (0ULL - (hpq_u64)(l == i + 1)));
    fx_sub_n<N + 1>(w, v);
}

// w += k T or w -= k T (subtract) for the integer k and the N + 1 limbs t of T, modulo
// 2^(64 (N + 1)): the host's limb-by-limb add_at / sub_at of the partial products k t[i] with
// their carries sum to exactly k T, so one product and one carry chain give its bits.
template <int N> __device__ __forceinline__ void fx_add_multiple(hpq_u64 *w, const hpq_u64 *t, hpq_u64 k, bool subtract) {
    hpq_u64 p[N + 1];
    hpq_u64 carry = 0;
#pragma unroll
    for (int l = 0; l <= N; ++l) {
        hpq_u64 lo = t[l] * k;
        hpq_u64 hi = __umul64hi(t[l], k);
        asm("add.cc.u64 %0, %0, %2;\n\taddc.u64 %1, %1, 0;" : "+l"(lo), "+l"(hi) : "l"(carry));
        p[l] = lo;
        carry = hi;
    }
    if (subtract) {
        fx_sub_n<N + 1>(w, p);
    } else {
        fx_add_n<N + 1>(w, p);
    }
}

// Adds c 2^-k to w, truncated to the unit 2^-64N, subnormal c included (add_scaled).
template <int N> __device__ __forceinline__ void fx_add_scaled(hpq_u64 *w, double c, int k) {
    hpq_u64 bits = (hpq_u64)__double_as_longlong(c);
    int e = (int)((bits >> 52) & 0x7ff);
    hpq_u64 m = bits & 0x000fffffffffffffULL;
    // A subnormal has no hidden bit and the exponent of the smallest normal.
    if (e == 0) {
        e = 1;
    } else {
        m |= 0x0010000000000000ULL;
    }
    int s = e - 1075 - k + 64 * N;
    if (m == 0 || s <= -53) return;
    if (s < 0) {
        m >>= -s;
        s = 0;
    }
    int o = s % 64;
    hpq_u64 lo = m << o;
    hpq_u64 hi = o > 0 ? m >> (64 - o) : 0ULL;
    if ((bits >> 63) == 0) {
        fx_add_at<N>(w, s / 64, lo, hi);
    } else {
        fx_sub_at<N>(w, s / 64, lo, hi);
    }
}

// The leading N limbs of a four-limb table entry.
template <int N> __device__ __forceinline__ void fx_top(const hpq_u64 *t, hpq_u64 *r) {
#pragma unroll
    for (int i = 0; i < N; ++i) r[i] = t[4 - N + i];
}

// a + b into r; returns the carry out (add). r may be a or b.
template <int N> __device__ __forceinline__ bool fx_add(const hpq_u64 *a, const hpq_u64 *b, hpq_u64 *r) {
    hpq_u64 t[N];
#pragma unroll
    for (int i = 0; i < N; ++i) t[i] = a[i];
    hpq_u64 carry = fx_add_n<N>(t, b);
#pragma unroll
    for (int i = 0; i < N; ++i) r[i] = t[i];
    return carry != 0;
}

// The top half of the N x N-limb product a b by columns from N-1 up (mul), skipping the Z
// leading limbs of b known to be zero.
//
// The host sums the 128-bit products a[i] b[j] with i + j >= N - 1 (the columns from N - 1
// up) exactly and keeps the sum's top N limbs: floor(S / 2^64N) for that set of products. The
// same S is summed here in 32-bit words, which the GPU multiplies natively (a 64 x 64-bit
// product is several 32-bit multiplies there): the 64-bit pair (i, j) is the four word pairs
// (p, q) with p / 2 = i and q / 2 = j, so row p of a's words takes b's words from
// q_min = 2 (N - 1 - p / 2) up, a contiguous run. Each word product plus an accumulator word
// plus a carry word fits in 64 bits ((2^32 - 1)^2 + 2 (2^32 - 1) = 2^64 - 1), so a row is one
// chain of multiply-adds (IMAD.WIDE.U32) with no carry flags. The accumulator holds the words
// from bit 64 (N - 1) up; S < 2^128N, so it never overflows. The same integer S, so the same
// bits as the host.
template <int N, int Z> __device__ __forceinline__ void fx_mul(const hpq_u64 *a, const hpq_u64 *b, hpq_u64 *r) {
    constexpr int BASE = 2 * (N - 1);
    constexpr int QMAX = 2 * (N - Z) - 1;
    unsigned int aw[2 * N], bw[2 * N], acc[2 * N + 2];
#pragma unroll
    for (int i = 0; i < N; ++i) {
        aw[2 * i] = (unsigned int)a[i];
        aw[2 * i + 1] = (unsigned int)(a[i] >> 32);
        bw[2 * i] = (unsigned int)b[i];
        bw[2 * i + 1] = (unsigned int)(b[i] >> 32);
    }
#pragma unroll
    for (int k = 0; k < 2 * N + 2; ++k) acc[k] = 0;
#pragma unroll
    for (int p = 0; p < 2 * N; ++p) {
        const int qmin = 2 * (N - 1 - p / 2);
        if (qmin > QMAX) continue;
        unsigned int carry = 0;
#pragma unroll
        for (int q = qmin; q <= QMAX; ++q) {
            unsigned long long t = (unsigned long long)aw[p] * bw[q] + acc[p + q - BASE] + carry;
            acc[p + q - BASE] = (unsigned int)t;
            carry = (unsigned int)(t >> 32);
        }
        // The row's last word is above every earlier row's: nothing there yet.
        acc[p + QMAX + 1 - BASE] = carry;
    }
#pragma unroll
    for (int k = 0; k < N; ++k) r[k] = (hpq_u64)acc[2 + 2 * k] | ((hpq_u64)acc[3 + 2 * k] << 32);
}

// r 2^k for a fraction below 2^-k, 1 <= k <= 63 (shl).
template <int N> __device__ __forceinline__ void fx_shl(const hpq_u64 *r, int k, hpq_u64 *s) {
#pragma unroll
    for (int i = N - 1; i >= 0; --i) s[i] = (r[i] << k) | (i > 0 ? r[i - 1] >> (64 - k) : 0ULL);
}

// r 2^16 for a fraction below 2^-16 (shl16).
template <int N> __device__ __forceinline__ void fx_shl16(const hpq_u64 *r, hpq_u64 *s) {
    fx_shl<N>(r, 16, s);
}

// floor(r / 2^k), 1 <= k <= 63 (shr).
template <int N> __device__ __forceinline__ void fx_shr(const hpq_u64 *r, int k, hpq_u64 *s) {
#pragma unroll
    for (int i = 0; i < N; ++i) s[i] = (r[i] >> k) | (i + 1 < N ? r[i + 1] << (64 - k) : 0ULL);
}

// The exact product c v of the N limbs v read as an integer and one limb c: its N + 1 limbs in
// p[0..P), the rest zero (mul_by_limb). fx_mul_small, trig.cuh's atan turns and quotient and
// its reduction of huge arguments cut their results from it.
template <int N, int P> __device__ __forceinline__ void fx_mul_by_limb(const hpq_u64 *v, hpq_u64 c, hpq_u64 *p) {
    static_assert(N >= 1 && P > N, "fx_mul_by_limb");
    hpq_u64 carry = 0;
#pragma unroll
    for (int l = 0; l < N; ++l) {
        hpq_u64 lo = v[l] * c;
        hpq_u64 hi = __umul64hi(v[l], c);
        asm("add.cc.u64 %0, %0, %2;\n\taddc.u64 %1, %1, 0;" : "+l"(lo), "+l"(hi) : "l"(carry));
        p[l] = lo;
        carry = hi;
    }
    p[N] = carry;
#pragma unroll
    for (int l = N + 1; l < P; ++l) p[l] = 0;
}

// floor(c v / 2^K) modulo 2^(64 O) for the N <= 4 limbs v read as an integer, c < 2^32 and
// K 32 or 64 (mul_small): the exact N + 1 limbs of c v, then O limbs from bit K up.
template <int N, int O, int K> __device__ __forceinline__ void fx_mul_small(const hpq_u64 *v, hpq_u64 c, hpq_u64 *r) {
    static_assert(N >= 1 && N <= 4 && O >= 1 && O <= 4 && (K == 32 || K == 64), "fx_mul_small");
    hpq_u64 p[5];
    fx_mul_by_limb<N, 5>(v, c, p);
#pragma unroll
    for (int i = 0; i < O; ++i) r[i] = K == 64 ? p[i + 1] : (p[i] >> 32) | (p[i + 1] << 32);
}

// The len <= 53 bits of v from bit pos up (bits). The limbs are picked by masks, not by a
// run-time index, so v stays in registers.
template <int N> __device__ __forceinline__ hpq_u64 fx_bits(const hpq_u64 *v, int pos, int len) {
    int l = pos / 64, o = pos % 64;
    // Masks rather than selects: the compiler turns a chain of selects between loads of v back
    // into one load at a run-time index.
    hpq_u64 x = 0, y = 0;
#pragma unroll
    for (int k = 0; k < N; ++k) {
        x |= v[k] & (0ULL - (hpq_u64)(k == l));
        y |= v[k] & (0ULL - (hpq_u64)(k == l + 1));
    }
    hpq_u64 lo = x >> o;
    hpq_u64 hi = o > 0 ? y << (64 - o) : 0ULL;
    return (lo | hi) & ((1ULL << len) - 1);
}

// a - b modulo 1 (sub). r may be a or b.
template <int N> __device__ __forceinline__ void fx_sub(const hpq_u64 *a, const hpq_u64 *b, hpq_u64 *r) {
    hpq_u64 t[N];
#pragma unroll
    for (int i = 0; i < N; ++i) t[i] = a[i];
    fx_sub_n<N>(t, b);
#pragma unroll
    for (int i = 0; i < N; ++i) r[i] = t[i];
}

// The len bits of the L limbs v from bit pos up as an exact double times 2^(pos + unit), bits
// below the last limb counting as zero (chunk_scaled).
template <int L> __device__ __forceinline__ double fx_chunk_scaled(const hpq_u64 *v, int pos, int len, int unit) {
    if (pos < 0) {
        len += pos;
        pos = 0;
    }
    if (len <= 0) return 0.0;
    double scale = __longlong_as_double((long long)(pos + unit + 1023) << 52);
    return (double)fx_bits<L>(v, pos, len) * scale;
}

// The same with the unit 2^-64N of N limbs (chunk).
template <int N> __device__ __forceinline__ double fx_chunk(const hpq_u64 *v, int pos, int len) {
    return fx_chunk_scaled<N>(v, pos, len, -64 * N);
}

// The four limbs v times 2^unit as a quad-double, for v of at least 2^232 units (limbs_to_qd:
// the host cuts the same pieces without branches).
__device__ __forceinline__ qd_t fx_limbs_to_qd(const hpq_u64 *v, int unit) {
    int p = 255 - __clzll((long long)v[3]);
    double c[5];
#pragma unroll
    for (int k = 0; k < 5; ++k) c[k] = fx_chunk_scaled<4>(v, p - 52 - 53 * k, 53, unit);
    return qd_renormalise<5>(c);
}

// A fraction of at least 2^-24 as a quad-double (fraction_to_qd).
__device__ __forceinline__ qd_t fx_fraction_to_qd(const hpq_u64 *v) { return fx_limbs_to_qd(v, -256); }

// The two limbs v times 2^unit as a double-double, for v of at least 2^116 units (limbs_to_dd).
__device__ __forceinline__ dd_t fx_limbs_to_dd(const hpq_u64 *v, int unit) {
    int p = 127 - __clzll((long long)v[1]);
    double c0 = fx_chunk_scaled<2>(v, p - 52, 53, unit);
    double c1 = fx_chunk_scaled<2>(v, p - 105, 53, unit);
    double c2 = fx_chunk_scaled<2>(v, p - 158, 53, unit);
    double hi_, lo_;
    quick_two_sum(c0, c1 + c2, hi_, lo_);
    return dd_make(hi_, lo_);
}

// A fraction of at least 2^-12 as a double-double (fraction_to_dd).
__device__ __forceinline__ dd_t fx_fraction_to_dd(const hpq_u64 *v) { return fx_limbs_to_dd(v, -128); }
