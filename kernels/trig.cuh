// sin, cos, tan and sin_cos for dd_t and qd_t, written once as templates.
// Twin of precision/src/trig.rs, function for function and operation for operation:
//   trig_params<T> <-> TrigExpansion (REDUCTION_QD_LEVELS, SIN_COS_TERMS/SPLIT, ATAN_TERMS/SPLIT,
//   from_table, to_qd, from_qd_plus, series)    sub_multiple <-> sub_multiple
//   reduce <-> reduce    reduce_huge <-> reduce_huge    sin_cos_finite <-> sin_cos_finite
//   hpq_sin_cos <-> sin_cos    hpq_sin, hpq_cos, hpq_tan <-> sin, cos, tan (Dd::sin ...)
// Reduction by multiples of pi/1024 with exact products (Muller, "Elementary Functions",
// 3rd ed., 11.2) below 2^50, from there for every finite x by Payne-Hanek (ph_*, twin of
// precision/src/payne_hanek.rs), a table of sin, cos(j pi/1024) and short Taylor series
// (Hida-Li-Bailey).
// The tables and constants come from the generated header (src/gpu/tables.rs).
// sin_cos first tries the fixed-point path of precision/src/trig_fixed.rs (fxt_* below, step for
// step: add_pi_2, at_least_pi_2, reduce, series_4, series_2 with their sums, theta_62 and
// near_axis, sin_cos_y, Angle, Angle::half, angle, Angle::sin and cos, angle_qd, angle_dd;
// limbs_to_qd/dd are in fixed.cuh) and falls back to the above where it declines (|x| outside
// [2^-24, 2^50), or x within about 2^-24 (qd) or 2^-12 (dd) of a multiple of pi/2). sin and cos
// finish only their own result from the angle, as trig.rs's sin and cos do.
// At the end, the fixed-point atan of precision/src/atan_fixed.rs (fxa_*), which
// inverse_trig.cuh calls.
// Any change here is a change there too; tests/gpu_functions.rs compares the two bit for bit.
#pragma once
#include "expansion.cuh"
#include "fixed.cuh"

template <class T> struct trig_params;

// The per-type lengths, as `impl TrigExpansion for Dd` sets them (see the reasons there).
template <> struct trig_params<dd_t> {
    static constexpr int REDUCTION_QD_LEVELS = 1;
    static constexpr int SIN_COS_TERMS = 5;
    static constexpr int SIN_COS_FULL = 3;
    static constexpr int SIN_COS_LOWER = 0;
    static constexpr int ATAN_TERMS = 7;
    static constexpr int ATAN_FULL = 4;
    static constexpr int ATAN_LOWER = 0;

    __device__ static __forceinline__ dd_t from_table(const double *c) {
        return dd_make(c[0], c[1]);
    }
    __device__ static __forceinline__ qd_t to_qd(dd_t x) { return qd_from_dd(x); }
    __device__ static __forceinline__ dd_t from_qd_plus(qd_t s, dd_t tail) {
        return qd_to_dd(s) + tail;
    }
    // The first three of payne_hanek's pieces (from_pieces, as fx_limbs_to_dd).
    __device__ static __forceinline__ dd_t from_pieces(double *c) {
        double hi_, lo_;
        quick_two_sum(c[0], c[1] + c[2], hi_, lo_);
        return dd_make(hi_, lo_);
    }
    // Dd::series: the terms from `full` on in doubles, the first `full` in double-double.
    __device__ static __forceinline__ dd_t series(dd_t u, const double *coeffs, int len,
                                                  int full, int lower) {
        double u0 = u.hi;
        double y = coeffs[4 * (len - 1)];
        for (int m = len - 2; m >= full; --m) {
            y = __fma_rn(y, u0, coeffs[4 * m]);
        }
        dd_t z = dd_from_f64(y);
        for (int m = full - 1; m >= 0; --m) {
            const double *c = coeffs + 4 * m;
            z = c[1] == 0.0 ? z * u + c[0] : z * u + dd_make(c[0], c[1]);
        }
        return z;
    }
};

// `impl TrigExpansion for Qd`.
template <> struct trig_params<qd_t> {
    static constexpr int REDUCTION_QD_LEVELS = 3;
    static constexpr int SIN_COS_TERMS = 10;
    static constexpr int SIN_COS_FULL = 5;
    static constexpr int SIN_COS_LOWER = 2;
    static constexpr int ATAN_TERMS = 14;
    static constexpr int ATAN_FULL = 7;
    static constexpr int ATAN_LOWER = 3;

    __device__ static __forceinline__ qd_t from_table(const double *c) {
        return qd_make(c[0], c[1], c[2], c[3]);
    }
    __device__ static __forceinline__ qd_t to_qd(qd_t x) { return x; }
    __device__ static __forceinline__ qd_t from_qd_plus(qd_t s, dd_t tail) {
        return qd_add_dd(s, tail);
    }
    // All five of payne_hanek's pieces (from_pieces).
    __device__ static __forceinline__ qd_t from_pieces(double *c) { return qd_renormalise<5>(c); }
    // Qd::series: doubles from full + lower on, double-double for the next `lower`, then qd.
    __device__ static __forceinline__ qd_t series(qd_t u, const double *coeffs, int len,
                                                  int full, int lower) {
        int dd_end = full + lower;
        double u0 = u.x[0];
        double y = coeffs[4 * (len - 1)];
        for (int m = len - 2; m >= dd_end; --m) {
            y = __fma_rn(y, u0, coeffs[4 * m]);
        }
        dd_t ud = qd_to_dd(u);
        dd_t yd = dd_from_f64(y);
        for (int m = dd_end - 1; m >= full; --m) {
            yd = yd * ud + dd_make(coeffs[4 * m], coeffs[4 * m + 1]);
        }
        qd_t z = qd_from_dd(yd);
        for (int m = full - 1; m >= 0; --m) {
            const double *c = coeffs + 4 * m;
            // The leading coefficient 1 is a double, and adding a double is much cheaper.
            z = c[1] == 0.0 ? z * u + c[0] : z * u + qd_make(c[0], c[1], c[2], c[3]);
        }
        return z;
    }
};

// x - k pi/1024 as a quad-double s and a double-double tail far below it (sub_multiple).
template <class T>
__device__ __forceinline__ void sub_multiple(qd_t x, double k, qd_t &s, dd_t &tail) {
    const double *p = HPQ_PI_1024_PARTS;
    double h0, l0;
    two_prod(k, p[0], h0, l0);
    s = qd_from_f64(x.x[0] - h0);
    tail = dd_make(0.0, 0.0);
    double l_prev = l0;
#pragma unroll
    for (int i = 1; i < 7; ++i) {
        double h, l;
        two_prod(k, p[i], h, l);
        double xi = i < 4 ? x.x[i] : 0.0;
        if (i <= trig_params<T>::REDUCTION_QD_LEVELS) {
            s = s + xi - l_prev - h;
        } else {
            tail = tail + xi - l_prev - h;
        }
        l_prev = l;
    }
}

// The passes after the first at most (REDUCE_PASSES).
#define HPQ_REDUCE_PASSES 6

// x = t + M pi/1024 with M = m (mod 2048), |t| <= pi/2048, for |x| < 2^50 (reduce).
template <class T> __device__ __forceinline__ T reduce(T x, unsigned int &m_out) {
    double k1 = round(hi(x) * HPQ_INV_STEP);
    if (k1 == 0.0) {
        m_out = 0;
        return x;
    }
    qd_t s;
    dd_t tail;
    sub_multiple<T>(trig_params<T>::to_qd(x), k1, s, tail);
    // k1 may miss the nearest multiple by a few (by far more when a lower component is
    // large): further passes, each leaving ~2^-52 of the last rest.
    long long m = (long long)fmod(k1, 2048.0);
    for (int pass = 0; pass < HPQ_REDUCE_PASSES; ++pass) {
        const double k = round((s.x[0] + tail.hi) * HPQ_INV_STEP);
        if (k == 0.0) break;
        sub_multiple<T>(qd_add_dd(s, tail), k, s, tail);
        m += (long long)fmod(k, 2048.0);
    }
    m_out = (unsigned int)(((m % 2048) + 2048) % 2048);
    return trig_params<T>::from_qd_plus(s, tail);
}

// ---- the reduction of huge arguments: twin of precision/src/payne_hanek.rs ---------------------
// ph_product <-> product, ph_reduce <-> reduce, ph_pieces <-> pieces. A slow path of its own
// (|x| >= 2^50), its arrays in local memory; integer arithmetic, so the host's bits.

// floor(|c| 1024/pi 2^1024) modulo 2^1088 (17 limbs, or one less) for a finite double c: m times
// the 20 limbs of 2/pi from two below bit sh = 2176 - 1024 - 9 - (e - 1075) up (product).
__device__ __forceinline__ void ph_product(double c, hpq_u64 *r) {
    hpq_u64 bits = (hpq_u64)__double_as_longlong(c);
    int e = (int)((bits >> 52) & 0x7ff);
    hpq_u64 frac = bits & 0x000fffffffffffffULL;
    // A subnormal has no hidden bit and the exponent of the smallest normal.
    hpq_u64 m = e == 0 ? frac : (frac | 0x0010000000000000ULL);
    if (e == 0) e = 1;
    int sh = 64 * 34 - 1024 - 9 - (e - 1075);
    int lo = sh / 64 - 2;
    hpq_u64 window[20], p[21];
#pragma unroll
    for (int k = 0; k < 20; ++k) window[k] = lo + k < 34 ? HPQ_TWO_OVER_PI[lo + k] : 0ULL;
    fx_mul_by_limb<20, 21>(window, m, p);
    int b = sh % 64;
#pragma unroll
    for (int i = 0; i < 17; ++i) r[i] = (p[i + 2] >> b) | ((p[i + 3] << 1) << (63 - b));
}

// The leading 265 bits of the fraction f (16 limbs, unit 2^-1024) as five exact doubles, zeros
// for a zero f (pieces).
__device__ __forceinline__ void ph_pieces(const hpq_u64 *f, double *r) {
    int lead = 15;
    while (lead >= 0 && f[lead] == 0) --lead;
    if (lead < 0) {
#pragma unroll
        for (int k = 0; k < 5; ++k) r[k] = 0.0;
        return;
    }
    int z = __clzll((long long)f[lead]);
    hpq_u64 s[5];
#pragma unroll
    for (int i = 0; i < 5; ++i) {
        int k = lead - 4 + i;
        hpq_u64 a = k >= 0 ? f[k] : 0ULL;
        hpq_u64 below = k >= 1 ? f[k - 1] : 0ULL;
        s[i] = (a << z) | ((below >> 1) >> (63 - z));
    }
    const hpq_u64 m53 = (1ULL << 53) - 1;
    hpq_u64 b[5] = {s[4] >> 11, ((s[3] >> 22) | (s[4] << 42)) & m53, ((s[2] >> 33) | (s[3] << 31)) & m53,
                    ((s[1] >> 44) | (s[2] << 20)) & m53, ((s[0] >> 55) | (s[1] << 9)) & m53};
    int e = 64 * lead + 11 - z - 1024;
    double down = __longlong_as_double((long long)(-600 + 1023) << 52);
#pragma unroll
    for (int k = 0; k < 5; ++k) {
        double up = __longlong_as_double((long long)(e - 53 * k + 600 + 1023) << 52);
        r[k] = (double)b[k] * up * down;
    }
}

// x = t + M pi/1024 for the n components c of a finite x: the pieces of |f| (t = +-f pi/1024),
// whether t is negative, M mod 2048 (reduce).
__device__ __noinline__ void ph_reduce(const double *c, int n, double *pieces, bool &negative,
                                       unsigned int &m_out) {
    hpq_u64 y[17];
    for (int l = 0; l < 17; ++l) y[l] = 0;
    for (int i = 0; i < n; ++i) {
        double ci = c[i];
        if (ci == 0.0) continue;
        hpq_u64 p[17];
        ph_product(ci, p);
        hpq_u64 carry = 0;
        for (int l = 0; l < 17; ++l) {
            if (ci > 0.0) {
                hpq_u64 s1 = y[l] + p[l];
                hpq_u64 c1 = s1 < p[l];
                hpq_u64 s2 = s1 + carry;
                carry = c1 | (hpq_u64)(s2 < carry);
                y[l] = s2;
            } else {
                hpq_u64 d1 = y[l] - p[l];
                hpq_u64 b1 = y[l] < p[l];
                hpq_u64 d2 = d1 - carry;
                carry = b1 | (hpq_u64)(d1 < carry);
                y[l] = d2;
            }
        }
    }
    hpq_u64 m = y[16];
    // From 1/2 on the nearest multiple is the next one: |f| = 2^1024 - f.
    negative = (y[15] >> 63) == 1;
    if (negative) {
        m += 1;
        hpq_u64 borrow = 0;
        for (int l = 0; l < 16; ++l) {
            hpq_u64 d1 = 0ULL - y[l];
            hpq_u64 b1 = y[l] != 0;
            hpq_u64 d2 = d1 - borrow;
            borrow = b1 | (hpq_u64)(d1 < borrow);
            y[l] = d2;
        }
    }
    ph_pieces(y, pieces);
    m_out = (unsigned int)(m & 2047);
}

// The components of x and their number.
__device__ __forceinline__ int ph_components(dd_t x, double *c) {
    c[0] = x.hi;
    c[1] = x.lo;
    return 2;
}
__device__ __forceinline__ int ph_components(qd_t x, double *c) {
#pragma unroll
    for (int i = 0; i < 4; ++i) c[i] = x.x[i];
    return 4;
}

// reduce for every finite x with |x| >= 2^50, by Payne-Hanek (reduce_huge).
template <class T> __device__ __forceinline__ T reduce_huge(T x, unsigned int &m_out) {
    typedef trig_params<T> P;
    double c[4], pieces[5];
    int n = ph_components(x, c);
    bool negative;
    ph_reduce(c, n, pieces, negative, m_out);
    T t = P::from_pieces(pieces) * P::from_table(HPQ_PI_1024_PARTS);
    return negative ? -t : t;
}

// (sin x, cos x) for finite, nonzero x (sin_cos_finite).
template <class T> __device__ __noinline__ void sin_cos_finite(T x, T &sin_x, T &cos_x) {
    typedef trig_params<T> P;
    unsigned int m;
    T t = fabs(hi(x)) < HPQ_FIXED_LIMIT ? reduce(x, m) : reduce_huge(x, m);
    unsigned int q = ((m + 256) >> 9) & 3;
    int j = (int)((m + 256) & 511) - 256;
    bool negate = j < 0;
    if (negate) {
        t = -t;
    }
    T u = expansion<T>::sqr(t);
    T s = t * P::series(u, HPQ_SIN_COEFFS, P::SIN_COS_TERMS, P::SIN_COS_FULL, P::SIN_COS_LOWER);
    T c = P::series(u, HPQ_COS_COEFFS, P::SIN_COS_TERMS, P::SIN_COS_FULL, P::SIN_COS_LOWER);
    T sin_theta, cos_theta;
    if (j == 0) {
        sin_theta = s;
        cos_theta = c;
    } else {
        const double *entry = HPQ_SIN_COS_TABLE + 8 * (j < 0 ? -j : j);
        T sj = P::from_table(entry);
        T cj = P::from_table(entry + 4);
        sin_theta = sj * c + cj * s;
        cos_theta = cj * c - sj * s;
    }
    if (negate) {
        sin_theta = -sin_theta;
    }
    switch (q) {
    case 0:
        sin_x = sin_theta;
        cos_x = cos_theta;
        break;
    case 1:
        sin_x = cos_theta;
        cos_x = -sin_theta;
        break;
    case 2:
        sin_x = -sin_theta;
        cos_x = -cos_theta;
        break;
    default:
        sin_x = -cos_theta;
        cos_x = sin_theta;
        break;
    }
}

// ---- sin and cos in fixed point: twin of precision/src/trig_fixed.rs ----------------------------

// w += pi/2 or w -= pi/2, pi/2 as its integer 1 and N fraction limbs (add_pi_2).
template <int N> __device__ __forceinline__ void fxt_add_pi_2(hpq_u64 *w, bool subtract) {
    hpq_u64 f[N + 1];
#pragma unroll
    for (int i = 0; i <= N; ++i) f[i] = HPQ_PI_2_FIX[5 - N + i];
    if (subtract) {
        fx_sub_n<N + 1>(w, f);
    } else {
        fx_add_n<N + 1>(w, f);
    }
}

// Whether w >= pi/2, for w >= 0 (at_least_pi_2).
template <int N> __device__ __forceinline__ bool fxt_at_least_pi_2(const hpq_u64 *w) {
    if (w[N] != 1) return w[N] > 1;
#pragma unroll
    for (int i = N - 1; i >= 0; --i) {
        hpq_u64 f = HPQ_PI_2_FIX[5 - N + i];
        if (w[i] != f) return w[i] > f;
    }
    return true;
}

// |x| = q pi/2 + theta with 0 <= theta < pi/2, for |x| < 2^50 (reduce).
template <int N> __device__ __forceinline__ long long fxt_reduce(const double *c, hpq_u64 *w) {
    bool negative = c[0] < 0.0;
#pragma unroll
    for (int i = 0; i < 5; ++i) w[i] = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) fx_add_scaled<N>(w, negative ? -c[i] : c[i], 0);
    long long q = (long long)floor(fabs(c[0]) * HPQ_FRAC_2_PI);
    // w -= q pi/2 as the host's limb-by-limb products and carries sum it: floor(q P / 2^64)
    // for the N + 2 limbs P of pi/2 from the one below the unit up to the integer 1, modulo
    // 2^(64 (N + 1)).
    hpq_u64 qa = (hpq_u64)q;
    hpq_u64 p[N + 1];
    hpq_u64 carry = __umul64hi(HPQ_PI_2_FIX[4 - N], qa);
#pragma unroll
    for (int t = 1; t <= N; ++t) {
        hpq_u64 f = HPQ_PI_2_FIX[4 - N + t];
        hpq_u64 lo = f * qa;
        hpq_u64 hi = __umul64hi(f, qa);
        asm("add.cc.u64 %0, %0, %2;\n\taddc.u64 %1, %1, 0;" : "+l"(lo), "+l"(hi) : "l"(carry));
        p[t - 1] = lo;
        carry = hi;
    }
    p[N] = qa + carry;
    fx_sub_n<N + 1>(w, p);
    while ((long long)w[N] < 0) {
        fxt_add_pi_2<N>(w, false);
        q -= 1;
    }
    while (fxt_at_least_pi_2<N>(w)) {
        fxt_add_pi_2<N>(w, true);
        q += 1;
    }
    return q;
}

// t -= or t += fx_mul_small<N, O, K>(v, c): one term of the series' sums (the host's
// `t = sub(t, mul_small(...))` and `add`).
template <int N, int O, int K, bool SUBTRACT>
__device__ __forceinline__ void fxt_term(hpq_u64 *t, const hpq_u64 *v, hpq_u64 c) {
    hpq_u64 m[O];
    fx_mul_small<N, O, K>(v, c, m);
    if (SUBTRACT) {
        fx_sub<O>(t, m, t);
    } else {
        fx_add<O>(t, m, t);
    }
}

// floor(T 2^192 / 2) for one table of numerators c, T = sum_k (-1)^(k+1) c_k u^k 2^-32(k-1)
// from the powers of u in four, three, three, two, two and one limbs (series_4's sum).
__device__ __forceinline__ void fxt_sum_4(const hpq_u64 *c, const hpq_u64 *u, const hpq_u64 *u2, const hpq_u64 *u3,
                                          const hpq_u64 *u4, const hpq_u64 *u5, const hpq_u64 *u6, hpq_u64 *out) {
    hpq_u64 t[4];
    fx_mul_small<4, 4, 64>(u, c[1], t);
    fxt_term<3, 4, 32, true>(t, u2, c[2]);
    fxt_term<3, 4, 64, false>(t, u3, c[3]);
    fxt_term<2, 4, 32, true>(t, u4, c[4]);
    fxt_term<2, 4, 64, false>(t, u5, c[5]);
    fxt_term<1, 4, 32, true>(t, u6, c[6]);
    fx_shr<4>(t, 1, out);
}

// (kappa sin r, kappa cos r) for 0 <= r < 2^-16, four limbs (series_4).
__device__ __forceinline__ void fxt_series_4(const hpq_u64 *r, hpq_u64 *ks, hpq_u64 *kc) {
    hpq_u64 s[4], u[4], u2[3], u3[3], u4[2], u5[2], u6[1], k[4], p[4], d[4];
    fx_shl16<4>(r, s);
    fx_mul<4, 0>(s, s, u);
    // leading(&u) and the like: the last limbs.
    fx_mul<3, 0>(u + 1, u + 1, u2);
    fx_mul<3, 0>(u2, u + 1, u3);
    fx_mul<2, 0>(u2 + 1, u2 + 1, u4);
    fx_mul<2, 0>(u4, u + 2, u5);
    fx_mul<1, 0>(u3 + 2, u3 + 2, u6);
    fx_top<4>(HPQ_KAPPA, k);
    fxt_sum_4(HPQ_SIN_NUMERATORS, u, u2, u3, u4, u5, u6, p);
    fx_sub<4>(k, p, d);
    fx_mul<4, 0>(r, d, ks);
    fxt_sum_4(HPQ_COS_NUMERATORS, u, u2, u3, u4, u5, u6, p);
    fx_sub<4>(k, p, kc);
}

// floor(T 2^64 / 2) for one table of numerators, to k = 3 (series_2's sum).
__device__ __forceinline__ void fxt_sum_2(const hpq_u64 *c, const hpq_u64 *u, const hpq_u64 *u2, const hpq_u64 *u3,
                                          hpq_u64 *out) {
    hpq_u64 t[2];
    fx_mul_small<2, 2, 64>(u, c[1], t);
    fxt_term<1, 2, 32, true>(t, u2, c[2]);
    fxt_term<1, 2, 64, false>(t, u3, c[3]);
    fx_shr<2>(t, 1, out);
}

// (kappa sin r, kappa cos r) for 0 <= r < 2^-16, two limbs (series_2).
__device__ __forceinline__ void fxt_series_2(const hpq_u64 *r, hpq_u64 *ks, hpq_u64 *kc) {
    hpq_u64 s[2], u[2], u2[1], u3[1], k[2], p[2], d[2];
    fx_shl16<2>(r, s);
    fx_mul<2, 0>(s, s, u);
    fx_mul<1, 0>(u + 1, u + 1, u2);
    fx_mul<1, 0>(u2, u + 1, u3);
    fx_top<2>(HPQ_KAPPA, k);
    fxt_sum_2(HPQ_SIN_NUMERATORS, u, u2, u3, p);
    fx_sub<2>(k, p, d);
    fx_mul<2, 0>(r, d, ks);
    fxt_sum_2(HPQ_COS_NUMERATORS, u, u2, u3, p);
    fx_sub<2>(k, p, kc);
}

// Whether theta or pi/2 - theta is below about 2^-e, from theta 2^62 (theta_62, near_axis;
// PI_2_62 from the same limb of HPQ_PI_2_FIX).
template <int N> __device__ __forceinline__ bool fxt_near_axis(const hpq_u64 *w, int e) {
    hpq_u64 theta = (w[N] << 62) | (w[N - 1] >> 2);
    hpq_u64 pi_2 = (1ULL << 62) | (HPQ_PI_2_FIX[4] >> 2);
    hpq_u64 d = 1ULL << (62 - e);
    return theta < d || theta > pi_2 - d;
}

// j and (kappa sin y, kappa cos y) for theta = j/2^8 + y: the series at r and the
// three-product addition formula at a = i/2^16 (sin_cos_y).
template <int N> __device__ __forceinline__ int fxt_sin_cos_y(const hpq_u64 *w, hpq_u64 *ks, hpq_u64 *kc) {
    hpq_u64 lead = w[N - 1];
    int j = (int)((w[N] << 8) | (lead >> 56));
    int i = (int)((lead >> 48) & 0xff);
    hpq_u64 r[N];
#pragma unroll
    for (int n = 0; n < N; ++n) r[n] = w[n];
    r[N - 1] = lead & 0x0000ffffffffffffULL;
    hpq_u64 s[N], c[N];
    if constexpr (N == 4) {
        fxt_series_4(r, s, c);
    } else {
        fxt_series_2(r, s, c);
    }
    // kappa sin(a + r) = s + (sa - ca)(c + s) + ca c - sa s, kappa cos(a + r) = c - ca c - sa s.
    hpq_u64 sa[N], ca[N], p1[N], p2[N], p3[N], d[N], e[N];
    fx_top<N>(HPQ_SIN_I65536 + 4 * i, sa);
    fx_top<N>(HPQ_COS_M1_I65536 + 4 * i, ca);
    fx_mul<N, 0>(ca, c, p1);
    fx_mul<N, 0>(sa, s, p2);
    fx_sub<N>(sa, ca, d);
    fx_add<N>(c, s, e);
    fx_mul<N, 0>(d, e, p3);
    fx_add<N>(s, p3, ks);
    fx_add<N>(ks, p1, ks);
    fx_sub<N>(ks, p2, ks);
    fx_sub<N>(c, p1, kc);
    fx_sub<N>(kc, p2, kc);
    return j;
}

// |x| = q pi/2 + theta, theta = j/2^8 + y, with kappa sin y, kappa cos y and the sign of x
// (Angle).
template <int N> struct fxt_angle_t {
    long long q;
    int j;
    hpq_u64 ks[N], kc[N];
    bool negative;
};

// sin theta/2 (cosine false) or cos theta/2 from the table at j/2^8: sb kappa cos y +
// cb kappa sin y, or cb kappa cos y - sb kappa sin y (Angle::half). The pair is picked limb by
// limb, so the table entries stay in registers.
template <int N>
__device__ __forceinline__ void fxt_half(const fxt_angle_t<N> &a, bool cosine, hpq_u64 *out) {
    hpq_u64 sb[N], cb[N], x[N], y[N], p[N], t[N];
    fx_top<N>(HPQ_SIN_J256_OVER_2K + 4 * a.j, sb);
    fx_top<N>(HPQ_COS_J256_OVER_2K + 4 * a.j, cb);
#pragma unroll
    for (int n = 0; n < N; ++n) {
        x[n] = cosine ? cb[n] : sb[n];
        y[n] = cosine ? sb[n] : cb[n];
    }
    fx_mul<N, 0>(x, a.kc, p);
    fx_mul<N, 0>(y, a.ks, t);
    if (cosine) {
        fx_sub<N>(p, t, out);
    } else {
        fx_add<N>(p, t, out);
    }
}

// The fixed-point angle of x from its components c, or false where theta or pi/2 - theta is
// below about 2^-e (angle).
template <int N> __device__ __forceinline__ bool fxt_angle(const double *c, int e, fxt_angle_t<N> &a) {
    hpq_u64 w[5];
    a.q = fxt_reduce<N>(c, w);
    if (fxt_near_axis<N>(w, e)) return false;
    a.j = fxt_sin_cos_y<N>(w, a.ks, a.kc);
    a.negative = c[0] < 0.0;
    return true;
}

// sin x and cos x from the angle: the half the quadrant picks, doubled in the conversion, and
// its sign (Angle::sin, Angle::cos with sin_part, cos_part, finish_qd, finish_dd).
__device__ __forceinline__ qd_t fxt_finish(const fxt_angle_t<4> &a, bool cosine, bool negative) {
    hpq_u64 v[4];
    fxt_half<4>(a, cosine, v);
    qd_t r = fx_limbs_to_qd(v, -255);
    return negative ? -r : r;
}
__device__ __forceinline__ dd_t fxt_finish(const fxt_angle_t<2> &a, bool cosine, bool negative) {
    hpq_u64 v[2];
    fxt_half<2>(a, cosine, v);
    dd_t r = fx_limbs_to_dd(v, -127);
    return negative ? -r : r;
}
template <int N> __device__ __forceinline__ auto fxt_sin(const fxt_angle_t<N> &a) {
    return fxt_finish(a, (a.q & 1) == 1, ((a.q & 2) != 0) != a.negative);
}
template <int N> __device__ __forceinline__ auto fxt_cos(const fxt_angle_t<N> &a) {
    return fxt_finish(a, (a.q & 1) == 0, (a.q & 3) == 1 || (a.q & 3) == 2);
}

// The fixed-point angle of x (angle_qd, angle_dd): e = 24 for qd_t, 12 for dd_t.
__device__ __forceinline__ bool fxt_angle_of(qd_t x, fxt_angle_t<4> &a) { return fxt_angle<4>(x.x, 24, a); }
__device__ __forceinline__ bool fxt_angle_of(dd_t x, fxt_angle_t<2> &a) {
    double xc[2] = {x.hi, x.lo};
    return fxt_angle<2>(xc, 12, a);
}

template <class T> struct fxt_limbs;
template <> struct fxt_limbs<qd_t> { static constexpr int N = 4; };
template <> struct fxt_limbs<dd_t> { static constexpr int N = 2; };

// Whether every component is finite: the host's tidy_relative sums a NaN or infinite lower
// component into the leading one, so special() gives NaN for it (the device does not tidy, and
// the Payne-Hanek path would read a NaN's bits as a number).
__device__ __forceinline__ bool hpq_components_finite(dd_t x) { return isfinite(x.hi) && isfinite(x.lo); }
__device__ __forceinline__ bool hpq_components_finite(qd_t x) {
    return isfinite(x.x[0]) && isfinite(x.x[1]) && isfinite(x.x[2]) && isfinite(x.x[3]);
}

// (sin x, cos x) with the special values of f64, or only the one a caller needs (sin_cos, sin,
// cos: the fixed-point path finishes only what is asked for).
template <class T, bool SIN, bool COS> __device__ __forceinline__ void hpq_sin_cos_parts(T x, T &s, T &c) {
    typedef expansion<T> E;
    if (x == E::zero()) {
        s = x;
        c = E::one();
        return;
    }
    if (!hpq_components_finite(x)) {
        s = E::nan();
        c = E::nan();
        return;
    }
    double ax = fabs(hi(x));
    fxt_angle_t<fxt_limbs<T>::N> a;
    if (ax >= HPQ_FIXED_LOWER && ax < HPQ_FIXED_LIMIT && fxt_angle_of(x, a)) {
        if (SIN) s = fxt_sin(a);
        if (COS) c = fxt_cos(a);
        return;
    }
    // Only the fallback's results go through memory (the call is not inlined).
    T ss, cc;
    sin_cos_finite(x, ss, cc);
    s = ss;
    c = cc;
}

template <class T> __device__ __forceinline__ void hpq_sin_cos(T x, T &s, T &c) {
    hpq_sin_cos_parts<T, true, true>(x, s, c);
}

template <class T> __device__ __forceinline__ T hpq_sin(T x) {
    T s, c;
    hpq_sin_cos_parts<T, true, false>(x, s, c);
    return s;
}

template <class T> __device__ __forceinline__ T hpq_cos(T x) {
    T s, c;
    hpq_sin_cos_parts<T, false, true>(x, s, c);
    return c;
}

template <class T> __device__ __forceinline__ T hpq_tan(T x) {
    if (x == expansion<T>::zero()) {
        return x;
    }
    T s, c;
    hpq_sin_cos(x, s, c);
    return s / c;
}

// ---- atan in fixed point: twin of precision/src/atan_fixed.rs ----------------------------------
// fxa_* step for step (add_scaled is fixed.cuh's fx_add_scaled): mul_limb, turn, quotient,
// series_4, series_2, theta, with_pi_2, angle, atan2_qd, atan2_dd. inverse_trig.cuh calls fxa_atan2.

// floor(v c / 2^shift) for a fraction v, an integer c and 0 < shift < 64 (mul_limb): the N + 1
// limbs of v c, then the N limbs from bit shift up.
template <int N> __device__ __forceinline__ void fxa_mul_limb(const hpq_u64 *v, hpq_u64 c, int shift, hpq_u64 *r) {
    hpq_u64 p[N + 1];
    fx_mul_by_limb<N, N + 1>(v, c, p);
#pragma unroll
    for (int l = 0; l < N; ++l) r[l] = (p[l] >> shift) | (p[l + 1] << (64 - shift));
}

// One table step (turn): (a, b) turned by -atan(c/2^shift), c lowered from the guess while the
// new b is negative; returns c. a1, b1 must not be a or b.
template <int N>
__device__ __forceinline__ int fxa_turn(const hpq_u64 *a, const hpq_u64 *b, hpq_u64 guess, int shift, hpq_u64 *a1,
                                        hpq_u64 *b1) {
    hpq_u64 c = guess;
    while (true) {
        hpq_u64 t[N];
        fxa_mul_limb<N>(b, c, shift, t);
        fx_add<N>(a, t, a1);
        fxa_mul_limb<N>(a, c, shift, t);
        fx_sub<N>(b, t, b1);
        if ((b1[N - 1] >> 63) == 0 || c == 0) return (int)c;
        c -= 1;
    }
}

// t = b/a for a in [1/8, 1/2), 0 <= b < 2^-15 a, with terms powers of e = 1 - a y (quotient).
template <int N> __device__ __forceinline__ void fxa_quotient(const hpq_u64 *a, const hpq_u64 *b, int terms, hpq_u64 *t) {
    double d = fx_chunk<N>(a, 64 * N - 54, 53);
    double y = __longlong_as_double(__double_as_longlong(1.0 / d) - 16);
    hpq_u64 bits = (hpq_u64)__double_as_longlong(y);
    hpq_u64 m = (bits & 0x000fffffffffffffULL) | 0x0010000000000000ULL;
    int shift = 1075 - (int)((bits >> 52) & 0x7ff);
    hpq_u64 ay[N], e[N], u[N], zero[N], p[N], q[N];
#pragma unroll
    for (int i = 0; i < N; ++i) zero[i] = 0;
    fxa_mul_limb<N>(a, m, shift, ay);
    fx_sub<N>(zero, ay, e);
    fxa_mul_limb<N>(b, m, shift, u);
#pragma unroll
    for (int i = 0; i < N; ++i) p[i] = e[i];
    for (int n = 1; n < terms; ++n) {
        fx_mul<N, 0>(e, p, q);
        fx_add<N>(e, q, p);
    }
    fx_mul<N, 0>(u, p, q);
    fx_add<N>(u, q, t);
}

// atan t for 0 <= t < 2^-16 (1 + 2^-30), four limbs (series_4).
__device__ __forceinline__ void fxa_series_4(const hpq_u64 *t, hpq_u64 *out) {
    hpq_u64 s[4], v[4], p[4], q[4];
    fx_shl<4>(t, 15, s);
    fx_mul<4, 0>(s, s, v);
    fx_top<4>(HPQ_ATAN_SERIES + 4 * 6, p);
    fx_mul<4, 2>(v, p, q);
    fx_sub<4>(HPQ_ATAN_SERIES + 4 * 5, q, p);
    fx_mul<4, 2>(v, p, q);
    fx_sub<4>(HPQ_ATAN_SERIES + 4 * 4, q, p);
    fx_mul<4, 1>(v, p, q);
    fx_sub<4>(HPQ_ATAN_SERIES + 4 * 3, q, p);
    fx_mul<4, 1>(v, p, q);
    fx_sub<4>(HPQ_ATAN_SERIES + 4 * 2, q, p);
    fx_mul<4, 0>(v, p, q);
    fx_sub<4>(HPQ_ATAN_SERIES + 4 * 1, q, p);
    fx_mul<4, 0>(v, p, q);
    fx_mul<4, 0>(t, q, p);
    fx_sub<4>(t, p, out);
}

// The same to k = 3, two limbs (series_2).
__device__ __forceinline__ void fxa_series_2(const hpq_u64 *t, hpq_u64 *out) {
    hpq_u64 s[2], v[2], p[2], q[2], k[2];
    fx_shl<2>(t, 15, s);
    fx_mul<2, 0>(s, s, v);
    fx_top<2>(HPQ_ATAN_SERIES + 4 * 3, p);
    fx_mul<2, 1>(v, p, q);
    fx_top<2>(HPQ_ATAN_SERIES + 4 * 2, k);
    fx_sub<2>(k, q, p);
    fx_mul<2, 0>(v, p, q);
    fx_top<2>(HPQ_ATAN_SERIES + 4 * 1, k);
    fx_sub<2>(k, q, p);
    fx_mul<2, 0>(v, p, q);
    fx_mul<2, 0>(t, q, p);
    fx_sub<2>(t, p, out);
}

// theta = atan(Y/X) for X in [1/8, 1/4), 0 <= Y <= X (1 + 2^-52) (theta).
template <int N> __device__ __forceinline__ void fxa_theta(const hpq_u64 *x, const hpq_u64 *y, double ratio, hpq_u64 *th) {
    hpq_u64 a1[N], b1[N], a2[N], b2[N], t[N], s[N], tj[N], ti[N];
    hpq_u64 g = (hpq_u64)(ratio * 256.0);
    int j = fxa_turn<N>(x, y, g < 256ULL ? g : 256ULL, 8, a1, b1);
    hpq_u64 g2 = (hpq_u64)((double)b1[N - 1] / (double)a1[N - 1] * 65536.0);
    int i = fxa_turn<N>(a1, b1, g2 < 256ULL ? g2 : 256ULL, 16, a2, b2);
    fxa_quotient<N>(a2, b2, N == 4 ? 4 : 2, t);
    if constexpr (N == 4) {
        fxa_series_4(t, s);
    } else {
        fxa_series_2(t, s);
    }
    fx_top<N>(HPQ_ATAN_J256 + 4 * j, tj);
    fx_top<N>(HPQ_ATAN_I65536 + 4 * i, ti);
    fx_add<N>(tj, ti, tj);
    fx_add<N>(tj, s, th);
}

// w = pi/2 - w (subtract) or w = pi/2 + w over the N + 1 limbs of w (with_pi_2).
template <int N> __device__ __forceinline__ void fxa_with_pi_2(hpq_u64 *w, bool subtract) {
    hpq_u64 p[N + 1];
#pragma unroll
    for (int i = 0; i < N; ++i) p[i] = HPQ_PI_2_FIX[5 - N + i];
    p[N] = 1;
    if (subtract) {
        fx_sub_n<N + 1>(p, w);
#pragma unroll
        for (int i = 0; i <= N; ++i) w[i] = p[i];
    } else {
        fx_add_n<N + 1>(w, p);
    }
}

// The angle of (x, y) (of (-x, y) when x_negative) for finite x, y > 0, the integer limb at N,
// or false where the smaller over the larger is below 1/limit (angle).
template <int N>
__device__ __forceinline__ bool fxa_angle(const double *y, const double *x, bool x_negative, double limit,
                                          hpq_u64 *w) {
    bool swap = y[0] > x[0];
    double num[N], den[N];
#pragma unroll
    for (int l = 0; l < N; ++l) {
        num[l] = swap ? x[l] : y[l];
        den[l] = swap ? y[l] : x[l];
    }
    if (!(num[0] * limit >= den[0])) return false;
    // k = floor(log2 den[0]) + 3, subnormal den[0] included.
    hpq_u64 bits = (hpq_u64)__double_as_longlong(den[0]);
    int e = (int)((bits >> 52) & 0x7ff);
    int k = e != 0 ? e - 1020 : -1008 - __clzll((long long)(bits & 0x000fffffffffffffULL));
    hpq_u64 wx[5], wy[5];
#pragma unroll
    for (int l = 0; l < 5; ++l) {
        wx[l] = 0;
        wy[l] = 0;
    }
#pragma unroll
    for (int l = 0; l < N; ++l) {
        fx_add_scaled<N>(wx, den[l], k);
        fx_add_scaled<N>(wy, num[l], k);
    }
    hpq_u64 th[N];
    fxa_theta<N>(wx, wy, num[0] / den[0], th);
#pragma unroll
    for (int l = 0; l < 5; ++l) w[l] = l < N ? th[l] : 0ULL;
    if (swap) fxa_with_pi_2<N>(w, true);
    if (x_negative) {
        // pi - w = pi/2 + (pi/2 - w).
        fxa_with_pi_2<N>(w, true);
        fxa_with_pi_2<N>(w, false);
    }
    return true;
}

// atan2(y, x) for y > 0 in fixed point, |y| and |x| finite and nonzero (atan2_qd, atan2_dd).
__device__ __forceinline__ bool fxa_atan2(qd_t y, qd_t x, bool x_negative, qd_t &z) {
    hpq_u64 w[5];
    if (!fxa_angle<4>(y.x, x.x, x_negative, HPQ_QD_RATIO_LIMIT, w)) return false;
    int p = w[4] != 0 ? 319 - __clzll((long long)w[4]) : 255 - __clzll((long long)w[3]);
    double c[5];
#pragma unroll
    for (int k = 0; k < 5; ++k) c[k] = fx_chunk_scaled<5>(w, p - 52 - 53 * k, 53, -256);
    z = qd_renormalise<5>(c);
    return true;
}
__device__ __forceinline__ bool fxa_atan2(dd_t y, dd_t x, bool x_negative, dd_t &z) {
    hpq_u64 w[5];
    double yc[2] = {y.hi, y.lo}, xc[2] = {x.hi, x.lo};
    if (!fxa_angle<2>(yc, xc, x_negative, HPQ_DD_RATIO_LIMIT, w)) return false;
    int p = w[2] != 0 ? 191 - __clzll((long long)w[2]) : 127 - __clzll((long long)w[1]);
    double c0 = fx_chunk_scaled<3>(w, p - 52, 53, -128);
    double c1 = fx_chunk_scaled<3>(w, p - 105, 53, -128);
    double c2 = fx_chunk_scaled<3>(w, p - 158, 53, -128);
    double hi_, lo_;
    quick_two_sum(c0, c1 + c2, hi_, lo_);
    z = dd_make(hi_, lo_);
    return true;
}
