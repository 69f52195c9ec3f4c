// Fixed-point arithmetic on 64-bit limbs for the elementary functions: twin of
// precision/src/fixed.rs, function for function (add_at, sub_at, add_double, top, add, mul,
// shl, shl16, bits, sub, chunk_scaled, chunk under the names fx_*). Numbers in [0, 1) as N limbs, least significant
// first, unit 2^-64N; the accumulator w[5] has the integer limb at index N. Integer arithmetic
// only (__umul64hi for a product's high half), so the bits are the host's.
#pragma once

typedef unsigned long long hpq_u64;

// w += v 2^(64 i) for v = lo + 2^64 hi, the carry running into the integer limb N.
template <int N> __device__ __forceinline__ void fx_add_at(hpq_u64 *w, int i, hpq_u64 lo, hpq_u64 hi) {
    // The 128-bit carry (lo, hi), as the host's u128.
    for (int l = i; l <= N && (lo != 0 || hi != 0); ++l) {
        hpq_u64 s = w[l] + lo;
        hpq_u64 c = s < lo ? 1ULL : 0ULL;
        w[l] = s;
        lo = hi + c;
        hi = (lo < c) ? 1ULL : 0ULL;
    }
}

// w -= v 2^(64 i), the borrow running into the integer limb N (wrapping there).
template <int N> __device__ __forceinline__ void fx_sub_at(hpq_u64 *w, int i, hpq_u64 lo, hpq_u64 hi) {
    for (int l = i; l <= N && (lo != 0 || hi != 0); ++l) {
        hpq_u64 d = w[l] - lo;
        hpq_u64 b = w[l] < lo ? 1ULL : 0ULL;
        w[l] = d;
        lo = hi + b;
        hi = (lo < b) ? 1ULL : 0ULL;
    }
}

// Adds the double c to w, truncated to the unit 2^-64N.
template <int N> __device__ __forceinline__ void fx_add_double(hpq_u64 *w, double c) {
    hpq_u64 bits = (hpq_u64)__double_as_longlong(c);
    int e = (int)((bits >> 52) & 0x7ff);
    if (e == 0) return;
    hpq_u64 m = (bits & 0x000fffffffffffffULL) | 0x0010000000000000ULL;
    int s = e - 1075 + 64 * N;
    if (s <= -53) return;
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

// a + b into r; returns the carry out.
template <int N> __device__ __forceinline__ bool fx_add(const hpq_u64 *a, const hpq_u64 *b, hpq_u64 *r) {
    hpq_u64 carry = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        hpq_u64 s = a[i] + b[i];
        hpq_u64 c1 = s < a[i] ? 1ULL : 0ULL;
        hpq_u64 s2 = s + carry;
        hpq_u64 c2 = s2 < carry ? 1ULL : 0ULL;
        r[i] = s2;
        carry = c1 | c2;
    }
    return carry != 0;
}

// The top half of the N x N-limb product a b by columns from N-1 up (mul), skipping the Z
// leading limbs of b known to be zero.
template <int N, int Z> __device__ __forceinline__ void fx_mul(const hpq_u64 *a, const hpq_u64 *b, hpq_u64 *r) {
    hpq_u64 t0 = 0, t1 = 0, t2 = 0;
#pragma unroll
    for (int col = N - 1; col < 2 * N - 1; ++col) {
#pragma unroll
        for (int j = 0; j < N - Z; ++j) {
            if (col >= j && col - j < N) {
                hpq_u64 plo = a[col - j] * b[j];
                hpq_u64 phi = __umul64hi(a[col - j], b[j]);
                hpq_u64 s0 = t0 + plo;
                hpq_u64 c0 = s0 < plo ? 1ULL : 0ULL;
                hpq_u64 s1 = t1 + phi;
                hpq_u64 c1 = s1 < phi ? 1ULL : 0ULL;
                hpq_u64 s1b = s1 + c0;
                hpq_u64 c2 = s1b < c0 ? 1ULL : 0ULL;
                t0 = s0;
                t1 = s1b;
                t2 += c1 + c2;
            }
        }
        if (col >= N) r[col - N] = t0;
        t0 = t1;
        t1 = t2;
        t2 = 0;
    }
    r[N - 1] = t0;
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

// The len <= 53 bits of v from bit pos up (bits).
template <int N> __device__ __forceinline__ hpq_u64 fx_bits(const hpq_u64 *v, int pos, int len) {
    int l = pos / 64, o = pos % 64;
    hpq_u64 lo = v[l] >> o;
    hpq_u64 hi = (o > 0 && l + 1 < N) ? v[l + 1] << (64 - o) : 0ULL;
    return (lo | hi) & ((1ULL << len) - 1);
}

// a - b modulo 1 (sub).
template <int N> __device__ __forceinline__ void fx_sub(const hpq_u64 *a, const hpq_u64 *b, hpq_u64 *r) {
    hpq_u64 borrow = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        hpq_u64 d = a[i] - b[i];
        hpq_u64 b1 = a[i] < b[i] ? 1ULL : 0ULL;
        hpq_u64 d2 = d - borrow;
        hpq_u64 b2 = d < borrow ? 1ULL : 0ULL;
        r[i] = d2;
        borrow = b1 | b2;
    }
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
