// exp, exp_m1, ln, ln_1p, log2, log10 and powf for dd_t and qd_t, written once as templates.
// Twin of precision/src/exp_log.rs, function for function and operation for operation:
//   konst, to_dd, from_dd, exp_params, exp_parts, expm1_series, exp_fixed, clean,
//   scale_one_plus, horner_from_2, ln_1p_start, ln_1p_series_params, ln_1p_series, ln_1p_newton,
//   ln_1p_reduced, split_exponent, is_odd_integer, powf_positive under the same names (ln_split
//   is hpq_ln's tail);
//   hpq_exp, hpq_exp_m1, hpq_ln, hpq_ln_1p, hpq_log2, hpq_log10, hpq_powf <-> exp ... powf.
// exp: fixed-point integer arithmetic with two tables (exp_fixed.rs, Johansson 2015), below.
// exp_m1 near 0: the fixed-point exp with the 1 subtracted in the integers, below 2^-24 (qd) or
// 2^-12 (dd) a short series. exp_parts (sinh, cosh beyond far): Cody-Waite reduction, exact
// scaling by 2^-m, a Taylor series of expm1, m doublings s <- s (s + 2). ln: fixed point, below
// 2^-24 (qd) or 2^-12 (dd) from 1 the series of ln(1 + d), Newton steps on expm1 from a 53-bit
// start computed in doubles just above that and for subnormal arguments.
// Any change here is a change there too; tests/gpu_functions.rs compares the two bit for bit.
#pragma once
#include "expansion.cuh"
#include "fixed.cuh"

// A table entry cut to the type's number of components.
template <class T> __device__ __forceinline__ T konst(const double *c) {
    return expansion<T>::from_components(c);
}

// The leading two components as a double-double.
template <class T> __device__ __forceinline__ dd_t to_dd(T x) {
    return dd_make(expansion<T>::hi(x), expansion<T>::component(x, 1));
}

// A double-double widened exactly to T.
template <class T> __device__ __forceinline__ T from_dd(dd_t x);
template <> __device__ __forceinline__ dd_t from_dd<dd_t>(dd_t x) { return x; }
template <> __device__ __forceinline__ qd_t from_dd<qd_t>(dd_t x) { return qd_from_dd(x); }

// (m, n_max, n_f64) of exp: the scaling 2^-m, the last Taylor term, the first in doubles;
// with expm1_series' n_dd, the first term in double-double, and the pieces of ln2 (and of
// ln2/64) that the reductions subtract.
template <class T> struct exp_params;
template <> struct exp_params<dd_t> {
    static constexpr int M = 6, N_MAX = 12, N_F64 = 7, N_DD = 7, LN2_PIECES = 4;
};
template <> struct exp_params<qd_t> {
    static constexpr int M = 10, N_MAX = 16, N_F64 = 13, N_DD = 9, LN2_PIECES = 7;
};

// c[2] + c[3] r + ... + c[N_MAX] r^(N_MAX - 2) by Horner's rule, each term in the least
// precision it needs: from c[N_F64] on in doubles, from c[N_DD] in double-double (of r's
// leading two components), the leading terms in T (horner_from_2; c holds 4 doubles a term).
template <class T, class P> __device__ __forceinline__ T horner_from_2(T r, const double *c) {
    double rh = hi(r);
    double q = 0.0;
#pragma unroll
    for (int n = P::N_MAX; n >= P::N_F64; --n) {
        q = __fma_rn(q, rh, c[4 * n]);
    }
    T p;
    if constexpr (P::N_DD < P::N_F64) {
        dd_t rd = to_dd(r);
        dd_t pd = dd_from_f64(q);
#pragma unroll
        for (int n = P::N_F64 - 1; n >= P::N_DD; --n) {
            pd = pd * rd + dd_make(c[4 * n], c[4 * n + 1]);
        }
        p = from_dd<T>(pd);
    } else {
        p = expansion<T>::from_f64(q);
    }
#pragma unroll
    for (int n = P::N_DD - 1; n >= 2; --n) {
        p = p * r + konst<T>(c + 4 * n);
    }
    return p;
}

// The Taylor series of expm1(r) for |r| <= 2^-7.5 (dd) or 2^-11.5 (qd): (p r + 1) r with p the
// terms from 1/2! on (expm1_series).
template <class T, class P> __device__ __forceinline__ T expm1_series(T r) {
    T p = horner_from_2<T, P>(r, HPQ_INV_FACT);
    return (p * r + 1.0) * r;
}

// exp(x) = 2^k (1 + s) for finite x with |x| <= 746 (exp_parts).
template <class T> __device__ __noinline__ T exp_parts(T x, int &k_out) {
    typedef exp_params<T> P;
    double k = round(hi(x) * HPQ_LOG2_E[0]);
    T r = x;
    if (k != 0.0) {
#pragma unroll
        for (int i = 0; i < P::LN2_PIECES; ++i) {
            r = r - k * HPQ_LN2_PIECES[i];
        }
    }
    // A tiny r needs no scaling, and scaling it could push it into the subnormals.
    int m = fabs(hi(r)) < 1.0e-9 ? 0 : P::M;
    T s = expm1_series<T, P>(expansion<T>::ldexp(r, -m));
    for (int i = 0; i < m; ++i) {
        // expm1(2a) = expm1(a) (expm1(a) + 2).
        s = s * (s + 2.0);
    }
    k_out = (int)k;
    return s;
}

// x with an infinite or NaN leading component cleaned into a proper infinity or NaN.
template <class T> __device__ __forceinline__ T clean(T x) {
    typedef expansion<T> E;
    double h = hi(x);
    if (isfinite(h)) return x;
    if (isnan(h)) return E::nan();
    return h > 0.0 ? E::infinity() : -E::infinity();
}

// 2^k (1 + s), through overflow and underflow.
template <class T> __device__ __forceinline__ T scale_one_plus(int k, T s) {
    return clean(expansion<T>::ldexp(s + 1.0, k));
}

// ---- exp in fixed point: twin of precision/src/exp_fixed.rs, step for step --------------------
// (add_ln2, fraction_at_least_ln2, reduce, expm1_4, expm1_2, exp_fraction, exp_qd, exp_dd under
// the names fx_*; the limb arithmetic in fixed.cuh). x = k ln2 + R
// exactly in N-limb fixed point (0 <= R < ln2), R = j/2^8 + i/2^16 + r,
// exp(x) = 2^k (1 + expm1(j/2^8))(1 + expm1(i/2^16))(1 + expm1(r)) (Johansson 2015, Arb).
// Integer arithmetic only between the exact conversions, so the bits are the host's.
// w += ln2 or w -= ln2, ln2 as N fraction limbs (add_ln2).
template <int N> __device__ __forceinline__ void fx_add_ln2(hpq_u64 *w, bool subtract) {
    hpq_u64 l[N + 1];
    fx_top<N>(HPQ_LN2_FIX, l);
    l[N] = 0;
    if (subtract) {
        fx_sub_n<N + 1>(w, l);
    } else {
        fx_add_n<N + 1>(w, l);
    }
}

template <int N> __device__ __forceinline__ bool fx_fraction_at_least_ln2(const hpq_u64 *w) {
    hpq_u64 l[N];
    fx_top<N>(HPQ_LN2_FIX, l);
#pragma unroll
    for (int i = N - 1; i >= 0; --i) {
        if (w[i] != l[i]) return w[i] > l[i];
    }
    return true;
}

// x = k ln2 + R with 0 <= R < ln2 as N fraction limbs (reduce).
// The M doubles c are converted exactly one by one (M = N for exp; powf passes five).
template <int N, int M> __device__ __forceinline__ int fx_reduce(const double *c, hpq_u64 *r) {
    hpq_u64 w[5] = {0, 0, 0, 0, 0};
#pragma unroll
    for (int i = 0; i < M; ++i) fx_add_scaled<N>(w, c[i], 0);
    long long k = (long long)floor(c[0] * HPQ_LOG2_E[0]);
    // w -= k ln2 (the host's limb-by-limb products and carries sum to exactly k ln2).
    hpq_u64 l[N + 1];
    fx_top<N>(HPQ_LN2_FIX, l);
    l[N] = 0;
    fx_add_multiple<N>(w, l, k < 0 ? (hpq_u64)(-k) : (hpq_u64)k, k > 0);
    while ((long long)w[N] < 0) {
        fx_add_ln2<N>(w, false);
        k -= 1;
    }
    while (w[N] != 0 || fx_fraction_at_least_ln2<N>(w)) {
        fx_add_ln2<N>(w, true);
        k += 1;
    }
#pragma unroll
    for (int i = 0; i < N; ++i) r[i] = w[i];
    return (int)k;
}

// q = c(n) + s q with the product skipping Z leading limbs of q (one Horner step).
template <int N, int Z> __device__ __forceinline__ void fx_horner(const hpq_u64 *s, hpq_u64 *q, int n) {
    hpq_u64 p[N], c[N];
    fx_mul<N, Z>(s, q, p);
    fx_top<N>(HPQ_EXP_COEFFS + 4 * n, c);
    fx_add<N>(c, p, q);
}

// expm1(r) for 0 <= r < 2^-16, four limbs: twelve terms (expm1_4).
__device__ __forceinline__ void fx_expm1_4(const hpq_u64 *r, hpq_u64 *out) {
    hpq_u64 s[4], q[4];
    fx_shl16<4>(r, s);
    fx_top<4>(HPQ_EXP_COEFFS + 4 * 12, q);
    fx_horner<4, 3>(s, q, 11);
    fx_horner<4, 3>(s, q, 10);
    fx_horner<4, 2>(s, q, 9);
    fx_horner<4, 2>(s, q, 8);
    fx_horner<4, 2>(s, q, 7);
    fx_horner<4, 1>(s, q, 6);
    fx_horner<4, 1>(s, q, 5);
    fx_horner<4, 1>(s, q, 4);
    fx_horner<4, 1>(s, q, 3);
    fx_horner<4, 0>(s, q, 2);
    fx_horner<4, 0>(s, q, 1);
    fx_mul<4, 0>(s, q, out);
}

// expm1(r) for 0 <= r < 2^-16, two limbs: seven terms (expm1_2).
__device__ __forceinline__ void fx_expm1_2(const hpq_u64 *r, hpq_u64 *out) {
    hpq_u64 s[2], q[2];
    fx_shl16<2>(r, s);
    fx_top<2>(HPQ_EXP_COEFFS + 4 * 7, q);
    fx_horner<2, 1>(s, q, 6);
    fx_horner<2, 1>(s, q, 5);
    fx_horner<2, 1>(s, q, 4);
    fx_horner<2, 1>(s, q, 3);
    fx_horner<2, 0>(s, q, 2);
    fx_horner<2, 0>(s, q, 1);
    fx_mul<2, 0>(s, q, out);
}

// exp(x) = 2^k (1 + v): the reduction, the tables and the series (exp_fraction).
template <int N, int M = N> __device__ __forceinline__ int fx_exp_fraction(const double *c, hpq_u64 *v) {
    hpq_u64 r[N];
    int k = fx_reduce<N, M>(c, r);
    hpq_u64 lead = r[N - 1];
    int j = (int)(lead >> 56), i = (int)((lead >> 48) & 0xff);
    r[N - 1] = lead & 0x0000ffffffffffffULL;
    hpq_u64 p[N];
    if constexpr (N == 4) {
        fx_expm1_4(r, p);
    } else {
        fx_expm1_2(r, p);
    }
    hpq_u64 a[N], b[N], ab[N], t[N];
    fx_top<N>(HPQ_EXP_J256_M1 + 4 * j, a);
    fx_top<N>(HPQ_EXP_K65536_M1 + 4 * i, b);
    // (1 + a)(1 + b) = 1 + (a + b + ab).
    fx_mul<N, 0>(a, b, t);
    fx_add<N>(a, b, ab);
    fx_add<N>(ab, t, ab);
    // (1 + ab)(1 + p), saturated below 2.
    fx_mul<N, 0>(ab, p, t);
    bool c1 = fx_add<N>(ab, p, v);
    bool c2 = fx_add<N>(v, t, v);
    if (c1 || c2) {
#pragma unroll
        for (int n = 0; n < N; ++n) v[n] = ~0ULL;
    }
    return k;
}

// 2^extra exp(x) for a quad-double with |x| <= 2^40 (exp_qd_scaled).
__device__ __forceinline__ qd_t fx_exp_qd_scaled(qd_t x, int extra) {
    hpq_u64 v[4];
    int k = fx_exp_fraction<4>(x.x, v);
    double c[5];
    c[0] = 1.0 + hpq_ldexp((double)fx_bits<4>(v, 204, 52), -52);
    c[1] = hpq_ldexp((double)fx_bits<4>(v, 151, 53), -105);
    c[2] = hpq_ldexp((double)fx_bits<4>(v, 98, 53), -158);
    c[3] = hpq_ldexp((double)fx_bits<4>(v, 45, 53), -211);
    c[4] = hpq_ldexp((double)fx_bits<4>(v, 0, 45), -256);
    return qd_ldexp(qd_renormalise<5>(c), k + extra);
}

// exp(x) for a quad-double with |x| <= 746 (exp_qd).
__device__ __forceinline__ qd_t fx_exp_qd(qd_t x) { return fx_exp_qd_scaled(x, 0); }

// exp of the exact sum of the M doubles c, |sum| <= 746 (exp_dd_sum).
template <int M> __device__ __forceinline__ dd_t fx_exp_dd_sum(const double *c) {
    hpq_u64 v[2];
    int k = fx_exp_fraction<2, M>(c, v);
    double c0 = 1.0 + hpq_ldexp((double)fx_bits<2>(v, 76, 52), -52);
    double c1 = hpq_ldexp((double)fx_bits<2>(v, 23, 53), -105) +
                hpq_ldexp((double)fx_bits<2>(v, 0, 23), -128);
    double hi_, lo_;
    quick_two_sum(c0, c1, hi_, lo_);
    return dd_ldexp(dd_make(hi_, lo_), k);
}

// exp(x) for a double-double with |x| <= 746 (exp_dd).
__device__ __forceinline__ dd_t fx_exp_dd(dd_t x) {
    double c[2] = {x.hi, x.lo};
    return fx_exp_dd_sum<2>(c);
}

// expm1(x) as (negative, |expm1 x|) for |x| <= ln2/2: k = 0 gives v, k = -1 gives
// -(1 - v)/2, the 1 subtracted in the integers (expm1_fraction).
template <int N> __device__ __forceinline__ bool fx_expm1_fraction(const double *c, hpq_u64 *m) {
    hpq_u64 v[N];
    int k = fx_exp_fraction<N>(c, v);
    if (k == 0) {
#pragma unroll
        for (int n = 0; n < N; ++n) m[n] = v[n];
        return false;
    }
    hpq_u64 zero[N];
#pragma unroll
    for (int n = 0; n < N; ++n) zero[n] = 0;
    fx_sub<N>(zero, v, m);
    return true;
}

// expm1(x) for 2^-24 <= |x| <= ln2/2 (exp_m1_qd).
__device__ __forceinline__ qd_t fx_exp_m1_qd(qd_t x) {
    hpq_u64 m[4];
    bool negative = fx_expm1_fraction<4>(x.x, m);
    qd_t r = fx_fraction_to_qd(m);
    return negative ? -qd_ldexp(r, -1) : r;
}

// expm1(x) for 2^-12 <= |x| <= ln2/2 (exp_m1_dd).
__device__ __forceinline__ dd_t fx_exp_m1_dd(dd_t x) {
    hpq_u64 m[2];
    double c[2] = {x.hi, x.lo};
    bool negative = fx_expm1_fraction<2>(c, m);
    dd_t r = fx_fraction_to_dd(m);
    return negative ? -dd_ldexp(r, -1) : r;
}

// exp(x) for finite x with |x| <= 746 in fixed point (exp_log.rs exp_fixed).
template <class T> __device__ __noinline__ T exp_fixed(T x);
template <> __device__ __noinline__ dd_t exp_fixed<dd_t>(dd_t x) { return clean(fx_exp_dd(x)); }
template <> __device__ __noinline__ qd_t exp_fixed<qd_t>(qd_t x) { return clean(fx_exp_qd(x)); }

// Where exp_m1 leaves the fixed-point path for the plain series, and the series' parameters
// there (expm1_small_params).
template <class T> struct expm1_small_params;
template <> struct expm1_small_params<dd_t> {
    static constexpr double SMALL = 0x1p-12;
    static constexpr int N_MAX = 8, N_DD = 5, N_F64 = 5;
};
template <> struct expm1_small_params<qd_t> {
    static constexpr double SMALL = 0x1p-24;
    static constexpr int N_MAX = 9, N_DD = 6, N_F64 = 8;
};

// expm1(x) in fixed point from 2^-24 (qd) or 2^-12 (dd) to about ln2/2 (exp_m1_fixed).
template <class T> __device__ __noinline__ T exp_m1_fixed(T x);
template <> __device__ __noinline__ dd_t exp_m1_fixed<dd_t>(dd_t x) { return fx_exp_m1_dd(x); }
template <> __device__ __noinline__ qd_t exp_m1_fixed<qd_t>(qd_t x) { return fx_exp_m1_qd(x); }

template <class T> __device__ __forceinline__ T hpq_exp(T x) {
    typedef expansion<T> E;
    double h = hi(x);
    if (isnan(h)) return E::nan();
    if (h > HPQ_EXP_OVERFLOW + 1e-3) return E::infinity();
    if (h < HPQ_EXP_UNDERFLOW) return E::zero();
    return exp_fixed(x);
}

template <class T> __device__ __forceinline__ T hpq_exp_m1(T x) {
    typedef expansion<T> E;
    double h = hi(x);
    if (isnan(h)) return E::nan();
    if (h > HPQ_EXP_OVERFLOW + 1e-3) return E::infinity();
    if (h < -200.0) return -E::one();
    // |x| > ln2/2 (about): exp(x) - 1 loses at most a bit or two to the subtraction.
    if (round(h * HPQ_LOG2_E[0]) != 0.0) return clean(exp_fixed(x) - 1.0);
    typedef expm1_small_params<T> P;
    if (fabs(h) >= P::SMALL) return exp_m1_fixed(x);
    return expm1_series<T, P>(x);
}

// ln(1 + d) to about 2^-51 for |d| <= 0.5 in doubles: 2 atanh(d / (2 + d)).
__device__ __forceinline__ double ln_1p_start(double d) {
    const double C[12] = {1.0,        1.0 / 3.0,  1.0 / 5.0,  1.0 / 7.0,
                          1.0 / 9.0,  1.0 / 11.0, 1.0 / 13.0, 1.0 / 15.0,
                          1.0 / 17.0, 1.0 / 19.0, 1.0 / 21.0, 1.0 / 23.0};
    double f = d / (2.0 + d);
    double f2 = f * f;
    double p = 0.0;
#pragma unroll
    for (int i = 11; i >= 0; --i) {
        p = __fma_rn(p, f2, C[i]);
    }
    return 2.0 * f * p;
}

// ln(1 + d) for 1 + d in [0.7, 1.42]: Newton steps y += t - t^2/2 on the residual of expm1
// (ln_1p_newton).
template <class T> __device__ __noinline__ T ln_1p_newton(T d) {
    double y0 = ln_1p_start(hi(d));
    dd_t ddv = to_dd(d);
    dd_t e = hpq_exp_m1(dd_from_f64(y0));
    dd_t t = (ddv - e) / (e + 1.0);
    dd_t y1 = (t - 0.5 * t.hi * t.hi) + y0;
    if constexpr (expansion<T>::COMPONENTS == 2) {
        return from_dd<T>(y1);
    } else {
        T y = from_dd<T>(y1);
        T e2 = hpq_exp_m1(y);
        dd_t t2 = to_dd(d - e2) / (to_dd(e2) + 1.0);
        t2 = t2 - 0.5 * t2.hi * t2.hi;
        return y + t2.hi + t2.lo;
    }
}

// Below which |d| ln_1p_reduced takes the series (where the fixed-point logarithm gives up),
// and the series' parameters there (ln_1p_series_params, LN_1P_SERIES_DD and _QD).
template <class T> struct ln_1p_series_params;
template <> struct ln_1p_series_params<dd_t> {
    static constexpr double SMALL = 0x1p-12;
    static constexpr int N_MAX = 9, N_DD = 6, N_F64 = 6;
};
template <> struct ln_1p_series_params<qd_t> {
    static constexpr double SMALL = 0x1p-24;
    static constexpr int N_MAX = 9, N_DD = 6, N_F64 = 8;
};

// ln(1 + d) for |d| below ln_1p_series_params' SMALL by its Taylor series: d - d^2 P(-d),
// P(u) = 1/2 + u/3 + u^2/4 + ... (ln_1p_series).
template <class T> __device__ __forceinline__ T ln_1p_series(T d) {
    T p = horner_from_2<T, ln_1p_series_params<T>>(-d, HPQ_INV_N);
    return d - p * d * d;
}

// ln(1 + d) for 1 + d in [0.7, 1.42]: the series near 0, Newton's method above (ln_1p_reduced).
template <class T> __device__ __noinline__ T ln_1p_reduced(T d) {
    if (fabs(hi(d)) < ln_1p_series_params<T>::SMALL) return ln_1p_series(d);
    return ln_1p_newton(d);
}

// x = 2^e m with m in about [1/sqrt2, sqrt2), for finite positive x: (e, m - 1).
template <class T> __device__ __forceinline__ T split_exponent(T x, int &e_out) {
    int bias = 0;
    if (hi(x) < HPQ_F64_MIN_POSITIVE) {
        // Subnormal leading component: bring it up so its exponent field is meaningful.
        x = expansion<T>::ldexp(x, 600);
        bias = -600;
    }
    unsigned long long bits = (unsigned long long)__double_as_longlong(hi(x));
    int e = (int)((bits >> 52) & 0x7ff) - 1023;
    double f = __longlong_as_double(
        (long long)((bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL));
    if (f > HPQ_F64_SQRT_2) {
        e += 1;
    }
    T m = expansion<T>::ldexp(x, -e);
    e_out = e + bias;
    return m - 1.0;
}

// ---- ln in fixed point: twin of precision/src/log_fixed.rs, step for step ---------------------
// (mul_reciprocal, ln_1p_4, ln_1p_2, ln_fixed, leading_bit, ln_qd, ln_dd under the names fxl_*).
// x = 2^e m, y1 = m R1[j], y2 = y1 R2[i] (short reciprocals, exact products),
// ln x = e ln2 - ln R1[j] - ln R2[i] + ln(1 + (y2 - 1)) in integers (Johansson 2015).

// y R / 2^shift for y = 1 + fraction, R < 2^34, 0 < shift < 64 (mul_reciprocal).
template <int N> __device__ __forceinline__ void fxl_mul_reciprocal(const hpq_u64 *y, hpq_u64 r, int shift, hpq_u64 *out) {
    hpq_u64 p[6];
    hpq_u64 carry = 0;
#pragma unroll
    for (int l = 0; l <= N; ++l) {
        hpq_u64 lo = y[l] * r;
        hpq_u64 hi = __umul64hi(y[l], r);
        lo += carry;
        hi += lo < carry ? 1ULL : 0ULL;
        p[l] = lo;
        carry = hi;
    }
    p[N + 1] = carry;
#pragma unroll
    for (int l = 0; l < 5; ++l) out[l] = 0;
#pragma unroll
    for (int l = 0; l <= N; ++l) out[l] = (p[l] >> shift) | (p[l + 1] << (64 - shift));
}

// q = c(n) - s q with the product skipping Z leading limbs of q (one Horner step of ln_1p).
template <int N, int Z> __device__ __forceinline__ void fxl_horner(const hpq_u64 *s, hpq_u64 *q, int n) {
    hpq_u64 p[N], c[N];
    fx_mul<N, Z>(s, q, p);
    fx_top<N>(HPQ_LOG_COEFFS + 4 * n, c);
    fx_sub<N>(c, p, q);
}

// ln(1 + d) for 0 <= d < 2^-16 + 2^-31, four limbs: fifteen terms (ln_1p_4).
__device__ __forceinline__ void fxl_ln_1p_4(const hpq_u64 *d, hpq_u64 *out) {
    hpq_u64 s[4], q[4];
    fx_shl<4>(d, 15, s);
    fx_top<4>(HPQ_LOG_COEFFS + 4 * 15, q);
    fxl_horner<4, 3>(s, q, 14);
    fxl_horner<4, 3>(s, q, 13);
    fxl_horner<4, 3>(s, q, 12);
    fxl_horner<4, 2>(s, q, 11);
    fxl_horner<4, 2>(s, q, 10);
    fxl_horner<4, 2>(s, q, 9);
    fxl_horner<4, 2>(s, q, 8);
    fxl_horner<4, 1>(s, q, 7);
    fxl_horner<4, 1>(s, q, 6);
    fxl_horner<4, 1>(s, q, 5);
    fxl_horner<4, 1>(s, q, 4);
    fxl_horner<4, 0>(s, q, 3);
    fxl_horner<4, 0>(s, q, 2);
    fxl_horner<4, 0>(s, q, 1);
    fx_mul<4, 0>(s, q, out);
}

// ln(1 + d), two limbs: eight terms (ln_1p_2).
__device__ __forceinline__ void fxl_ln_1p_2(const hpq_u64 *d, hpq_u64 *out) {
    hpq_u64 s[2], q[2];
    fx_shl<2>(d, 15, s);
    fx_top<2>(HPQ_LOG_COEFFS + 4 * 8, q);
    fxl_horner<2, 1>(s, q, 7);
    fxl_horner<2, 1>(s, q, 6);
    fxl_horner<2, 1>(s, q, 5);
    fxl_horner<2, 1>(s, q, 4);
    fxl_horner<2, 0>(s, q, 3);
    fxl_horner<2, 0>(s, q, 2);
    fxl_horner<2, 0>(s, q, 1);
    fx_mul<2, 0>(s, q, out);
}

// (negative, |ln x|) in t[5] whatever the size of |ln x| (ln_fixed_abs).
// A subnormal leading component (dd powf) takes e from its leading bit.
template <int N> __device__ __forceinline__ void fxl_ln_fixed_abs(const double *c, bool &negative, hpq_u64 *t) {
    hpq_u64 bits = (hpq_u64)__double_as_longlong(c[0]);
    int field = (int)((bits >> 52) & 0x7ff);
    int e = field == 0 ? 63 - __clzll((long long)(bits & 0x000fffffffffffffULL)) - 1074 : field - 1023;
    hpq_u64 w[5] = {0, 0, 0, 0, 0};
#pragma unroll
    for (int i = 0; i < N; ++i) fx_add_scaled<N>(w, hpq_ldexp(c[i], -e), 0);
    if (w[N] == 0) {
#pragma unroll
        for (int l = N; l >= 1; --l) w[l] = (w[l] << 1) | (w[l - 1] >> 63);
        w[0] <<= 1;
        e -= 1;
    }
    int j = (int)(w[N - 1] >> 56);
    hpq_u64 y1[5], y2[5];
    fxl_mul_reciprocal<N>(w, HPQ_LOG_R1[j], 16, y1);
    int i = (int)(y1[N - 1] >> 48);
    fxl_mul_reciprocal<N>(y1, HPQ_LOG_R2[i], 32, y2);
    hpq_u64 d[N], l1[N], l2[N], lp[N], lm[N];
#pragma unroll
    for (int n = 0; n < N; ++n) d[n] = y2[n];
    fx_top<N>(HPQ_LOG_L1 + 4 * j, l1);
    fx_top<N>(HPQ_LOG_L2 + 4 * i, l2);
    if constexpr (N == 4) {
        fxl_ln_1p_4(d, lp);
    } else {
        fxl_ln_1p_2(d, lp);
    }
    fx_add<N>(l1, l2, lm);
    fx_add<N>(lm, lp, lm);
#pragma unroll
    for (int n = 0; n < 5; ++n) t[n] = n < N ? lm[n] : 0ULL;
    // t += e ln2 (the host's limb-by-limb products and carries sum to exactly e ln2).
    hpq_u64 l[N + 1];
    fx_top<N>(HPQ_LN2_FIX, l);
    l[N] = 0;
    fx_add_multiple<N>(t, l, (hpq_u64)(e < 0 ? -e : e), e <= 0);
    negative = (long long)t[N] < 0;
    if (negative) {
        hpq_u64 borrow = 1;
#pragma unroll
        for (int n = 0; n <= N; ++n) {
            hpq_u64 v = ~t[n] + borrow;
            borrow = (v < borrow) ? 1ULL : 0ULL;
            t[n] = v;
        }
    }
}

// (negative, |ln x|) in t[5], or false where |ln x| < 2^-(64 - shift) (ln_fixed).
template <int N> __device__ __forceinline__ bool fxl_ln_fixed(const double *c, int shift, bool &negative, hpq_u64 *t) {
    fxl_ln_fixed_abs<N>(c, negative, t);
    return !(t[N] == 0 && (t[N - 1] >> shift) == 0);
}

// The position of the leading bit of |ln x| in units of 2^-64N (leading_bit).
template <int N> __device__ __forceinline__ int fxl_leading_bit(const hpq_u64 *t) {
    if (t[N] != 0) return 64 * N + 63 - __clzll((long long)t[N]);
    return 64 * N - 1 - __clzll((long long)t[N - 1]);
}

// ln x for a positive finite x with a normal leading component, or false (ln_qd, ln_dd,
// exp_log.rs ln_fixed).
__device__ __forceinline__ bool fxl_ln(qd_t x, qd_t &out) {
    bool negative;
    hpq_u64 t[5];
    if (!fxl_ln_fixed<4>(x.x, 40, negative, t)) return false;
    int p = fxl_leading_bit<4>(t);
    double c[5];
#pragma unroll
    for (int k = 0; k < 5; ++k) c[k] = fx_chunk_scaled<5>(t, p - 52 - 53 * k, 53, -256);
    qd_t r = qd_renormalise<5>(c);
    out = negative ? -r : r;
    return true;
}
__device__ __forceinline__ bool fxl_ln(dd_t x, dd_t &out) {
    bool negative;
    hpq_u64 t[5];
    double xc[2] = {x.hi, x.lo};
    if (!fxl_ln_fixed<2>(xc, 52, negative, t)) return false;
    int p = fxl_leading_bit<2>(t);
    double c0 = fx_chunk_scaled<5>(t, p - 52, 53, -128);
    double c1 = fx_chunk_scaled<5>(t, p - 105, 53, -128);
    double c2 = fx_chunk_scaled<5>(t, p - 158, 53, -128);
    double hi_, lo_;
    quick_two_sum(c0, c1 + c2, hi_, lo_);
    dd_t r = dd_make(hi_, lo_);
    out = negative ? -r : r;
    return true;
}

// The three leading 53-bit pieces of +-|ln x| (N limbs after the point), from its leading bit
// wherever it lies (log_fixed.rs pieces).
template <int N> __device__ __forceinline__ void fxl_pieces(bool negative, const hpq_u64 *t, double *l) {
    int p = 63;
#pragma unroll
    for (int k = 0; k <= N; ++k) {
        if (t[k] != 0) p = 64 * k + 63 - __clzll((long long)t[k]);
    }
#pragma unroll
    for (int k = 0; k < 3; ++k) {
        double c = fx_chunk_scaled<5>(t, p - 52 - 53 * k, 53, -64 * N);
        l[k] = negative ? -c : c;
    }
}

// ln x of a double-double as three doubles summing exactly to the two-limb fixed-point value,
// absolute error a few tens of units of 2^-128 plus |e| 2^-128 (ln_dd_pieces).
__device__ __forceinline__ void fxl_ln_dd_pieces(dd_t x, double *l) {
    bool negative;
    hpq_u64 t[5];
    double xc[2] = {x.hi, x.lo};
    fxl_ln_fixed_abs<2>(xc, negative, t);
    fxl_pieces<2>(negative, t, l);
}

// The same from the four-limb fixed-point logarithm, absolute error below 2^-245
// (ln_dd_pieces_wide).
__device__ __forceinline__ void fxl_ln_dd_pieces_wide(dd_t x, double *l) {
    bool negative;
    hpq_u64 t[5];
    double xc[4] = {x.hi, x.lo, 0.0, 0.0};
    fxl_ln_fixed_abs<4>(xc, negative, t);
    fxl_pieces<4>(negative, t, l);
}

template <class T> __device__ __forceinline__ T hpq_ln(T x) {
    typedef expansion<T> E;
    double h = hi(x);
    if (isnan(h) || h < 0.0) return E::nan();
    if (h == 0.0) return -E::infinity();
    if (isinf(h)) return E::infinity();
    // Near 1 (where the fixed point gives up) the series of ln_1p_reduced, without the fixed
    // point's attempt.
    if (h >= HPQ_F64_MIN_POSITIVE && fabs(h - 1.0) >= ln_1p_series_params<T>::SMALL) {
        T l;
        if (fxl_ln(x, l)) return l;
    }
    // ln_split: e ln2 + ln_1p_reduced(m - 1), relatively accurate also near 1.
    int e;
    T d = split_exponent(x, e);
    T l = ln_1p_reduced(d);
    if (e == 0) return l;
    return E::ln_2() * (double)e + l;
}

template <class T> __device__ __forceinline__ T hpq_ln_1p(T x) {
    double h = hi(x);
    if (isnan(h) || h < -1.0) return expansion<T>::nan();
    // ln(1 +- 0) = +-0, IEEE's sign (the Newton step would add +0 to the -0).
    if (h == 0.0) return expansion<T>::from_f64(h);
    if (h >= -0.29 && h <= 0.41) return ln_1p_reduced(x);
    return hpq_ln(x + 1.0);
}

template <class T> __device__ __forceinline__ T hpq_log2(T x) {
    double h = hi(x);
    if (isnan(h) || h <= 0.0 || isinf(h)) return hpq_ln(x);
    int e;
    T d = split_exponent(x, e);
    T l = ln_1p_reduced(d) * konst<T>(HPQ_LOG2_E);
    if (e == 0) return l;
    return l + (double)e;
}

template <class T> __device__ __forceinline__ T hpq_log10(T x) {
    T l = hpq_ln(x);
    if (isfinite(hi(l))) return l * konst<T>(HPQ_LOG10_E);
    return l;
}

// Whether y is an odd integer (false for NaN and infinities).
template <class T> __device__ __forceinline__ bool is_odd_integer(T y) {
    typedef expansion<T> E;
    T half = E::ldexp(y, -1);
    return isfinite(hi(y)) && E::floor(y) == y && E::floor(half) != half;
}

// x^y for |y| >= 2^128: overflow or underflow by the sign of y ln x unless x = 1 + d, then
// y ln x = y d - y d^2/2 as four doubles (powf_dd_near_one).
__device__ __forceinline__ dd_t powf_dd_near_one(dd_t x, dd_t y) {
    const dd_t inf = dd_make(__longlong_as_double(0x7ff0000000000000LL), 0.0);
    if (x.hi != 1.0) return (x.hi > 1.0) == (y.hi > 0.0) ? inf : dd_make(0.0, 0.0);
    double d = x.lo;
    double p0, e0, q, f;
    two_prod(y.hi, d, p0, e0);
    if (p0 > HPQ_EXP_OVERFLOW + 1e-3) return inf;
    if (p0 < HPQ_EXP_UNDERFLOW) return dd_make(0.0, 0.0);
    two_prod(y.lo, d, q, f);
    double r = -0.5 * (p0 * d);
    double c[4] = {p0, e0, q, f + r};
    return clean(fx_exp_dd_sum<4>(c));
}

// x^y = exp(y ln x) for a dd x > 0 and a finite y, in fixed point: ln x unrounded as three
// doubles (two limbs for |y| < 128, four below 2^128), y ln x as five doubles (three exact
// products), their sum converted exactly by the exp's reduction (powf_dd).
__device__ __forceinline__ dd_t powf_dd(dd_t x, dd_t y) {
    double ay = fabs(y.hi);
    if (!(ay < HPQ_POWF_DD_Y_WIDE)) return powf_dd_near_one(x, y);
    double l[3];
    if (ay < HPQ_POWF_DD_Y) {
        fxl_ln_dd_pieces(x, l);
    } else {
        fxl_ln_dd_pieces_wide(x, l);
    }
    double p0, e0, p1, e1, q1, f1;
    two_prod(y.hi, l[0], p0, e0);
    if (p0 > HPQ_EXP_OVERFLOW + 1e-3) return dd_make(__longlong_as_double(0x7ff0000000000000LL), 0.0);
    if (p0 < HPQ_EXP_UNDERFLOW) return dd_make(0.0, 0.0);
    two_prod(y.hi, l[1], p1, e1);
    two_prod(y.lo, l[0], q1, f1);
    double c[5];
    c[0] = p0;
    c[1] = e0;
    c[2] = p1;
    c[3] = q1;
    c[4] = e1 + f1 + y.hi * l[2] + y.lo * l[1];
    return clean(fx_exp_dd_sum<5>(c));
}

// x^y for finite x > 0 and finite y: dd takes powf_dd; qd 2^n exp(f ln2 + y ln m) with
// y e = n + f exactly (powf_positive).
template <class T> __device__ __noinline__ T powf_positive(T x, T y) {
    typedef expansion<T> E;
    if constexpr (E::COMPONENTS == 2) {
        return from_dd<T>(powf_dd(to_dd(x), to_dd(y)));
    } else {
        int e;
        T d = split_exponent(x, e);
        double ef = (double)e;
        double n = 0.0;
        T f = E::zero();
        if (e != 0) {
            double p0 = hi(y) * ef;
            n = round(p0);
            if (!isfinite(n) || fabs(n) > 1.0e5) {
                return n > 0.0 ? E::infinity() : E::zero();
            }
            double q0 = __fma_rn(hi(y), ef, -p0);
            f = E::from_f64(p0 - n) + q0;
#pragma unroll
            for (int i = 1; i < E::COMPONENTS; ++i) {
                double p = E::component(y, i) * ef;
                double q = __fma_rn(E::component(y, i), ef, -p);
                f = f + p + q;
            }
        }
        // ln m by its series where m is near 1 (where the fixed point gives up), in fixed point
        // elsewhere (or, just above the series' bound, where |ln m| is still below the fixed
        // point's, by Newton's method).
        T l;
        if (fabs(hi(d)) < ln_1p_series_params<T>::SMALL) {
            l = ln_1p_reduced(d);
        } else if (!fxl_ln(d + 1.0, l)) {
            l = ln_1p_reduced(d);
        }
        T z = y * l + f * E::ln_2();
        double zh = hi(z);
        if (zh > 2.0 * HPQ_EXP_OVERFLOW) return E::infinity();
        if (zh < 2.0 * HPQ_EXP_UNDERFLOW) return E::zero();
        // 2^n exp(z) by the fixed-point exp.
        return clean(fx_exp_qd_scaled(z, (int)n));
    }
}

// x^y with f64::powf's special cases.
template <class T> __device__ __forceinline__ T hpq_powf(T x, T y) {
    typedef expansion<T> E;
    double xh = hi(x), yh = hi(y);
    if (yh == 0.0 || (xh == 1.0 && E::component(x, 1) == 0.0)) return E::one();
    if (isnan(xh) || isnan(yh)) return E::nan();
    if (isinf(yh)) {
        T ax = E::abs(x);
        if (ax == E::one()) return E::one();
        if ((ax > E::one()) == (yh > 0.0)) return E::infinity();
        return E::zero();
    }
    bool negative = xh < 0.0 || (xh == 0.0 && signbit(xh));
    bool odd = is_odd_integer(y);
    // A negative base to a non-integer power. (-inf to such a power is +inf or +0.)
    if (xh < 0.0 && isfinite(xh) && E::floor(y) != y) return E::nan();
    T ax = E::abs(x);
    T r;
    if (xh == 0.0) {
        r = yh > 0.0 ? E::zero() : E::infinity();
    } else if (isinf(xh)) {
        r = yh > 0.0 ? E::infinity() : E::zero();
    } else {
        r = powf_positive(ax, y);
    }
    return negative && odd ? -r : r;
}
