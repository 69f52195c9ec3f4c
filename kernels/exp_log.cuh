// exp, exp_m1, ln, ln_1p, log2, log10 and powf for dd_t and qd_t, written once as templates.
// Twin of precision/src/exp_log.rs, function for function and operation for operation:
//   konst, to_dd, from_dd, exp_params, exp_parts, expm1_series, exp_table, clean,
//   scale_one_plus, ln_1p_start,
//   ln_1p_reduced, split_exponent, is_odd_integer, powf_positive under the same names;
//   hpq_exp, hpq_exp_m1, hpq_ln, hpq_ln_1p, hpq_log2, hpq_log10, hpq_powf <-> exp ... powf.
// exp: table-driven (Tang 1989), x = (64k + j) ln2/64 + r, 2^k 2^(j/64) (1 + expm1(r)).
// exp_parts (exp_m1, powf, sinh, cosh): Cody-Waite reduction, exact scaling by 2^-m, a Taylor
// series of expm1, m doublings s <- s (s + 2). ln: Newton steps on expm1 from a 53-bit start computed in doubles.
// Any change here is a change there too; tests/gpu_functions.rs compares the two bit for bit.
#pragma once
#include "expansion.cuh"

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

// The Taylor series of expm1(r) for |r| <= 2^-7.5 (dd) or 2^-11.5 (qd) by Horner's rule, each
// term in the least precision it needs: from 1/n_f64! on in doubles, for qd the terms from
// 1/9! on in double-double, the leading terms in T (expm1_series).
template <class T> __device__ __forceinline__ T expm1_series(T r) {
    typedef exp_params<T> P;
    double rh = hi(r);
    double q = 0.0;
#pragma unroll
    for (int n = P::N_MAX; n >= P::N_F64; --n) {
        q = __fma_rn(q, rh, HPQ_INV_FACT[4 * n]);
    }
    T p;
    if constexpr (P::N_DD < P::N_F64) {
        dd_t rd = to_dd(r);
        dd_t pd = dd_from_f64(q);
#pragma unroll
        for (int n = P::N_F64 - 1; n >= P::N_DD; --n) {
            pd = pd * rd + dd_make(HPQ_INV_FACT[4 * n], HPQ_INV_FACT[4 * n + 1]);
        }
        p = from_dd<T>(pd);
    } else {
        p = expansion<T>::from_f64(q);
    }
#pragma unroll
    for (int n = P::N_DD - 1; n >= 2; --n) {
        p = p * r + konst<T>(HPQ_INV_FACT + 4 * n);
    }
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
    T s = expm1_series(expansion<T>::ldexp(r, -m));
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

// exp(x) for finite x with |x| <= 746, table-driven (Tang 1989): x = (64k + j) ln2/64 + r with
// |r| <= ln2/128, exp(x) = 2^k 2^(j/64) (1 + expm1(r)); the table stands for six of
// exp_parts' doublings, so dd needs none and qd four (exp_table).
template <class T> __device__ __noinline__ T exp_table(T x) {
    typedef exp_params<T> P;
    double n = round(hi(x) * HPQ_INV_LN2_64);
    T r = x;
    if (n != 0.0) {
#pragma unroll
        for (int i = 0; i < P::LN2_PIECES; ++i) {
            r = r - n * HPQ_LN2_64_PIECES[i];
        }
    }
    int ni = (int)n;
    // An arithmetic shift, as Rust's i32 >> 6: k rounds towards minus infinity, j in 0..63.
    int k = ni >> 6, j = ni & 63;
    int m = fabs(hi(r)) < 1.0e-9 ? 0 : P::M - 6;
    T s = expm1_series(expansion<T>::ldexp(r, -m));
    for (int i = 0; i < m; ++i) {
        s = s * (s + 2.0);
    }
    T t = konst<T>(HPQ_EXP2_J64 + 4 * j);
    return clean(expansion<T>::ldexp(t * s + t, k));
}

template <class T> __device__ __forceinline__ T hpq_exp(T x) {
    typedef expansion<T> E;
    double h = hi(x);
    if (isnan(h)) return E::nan();
    if (h > HPQ_EXP_OVERFLOW + 1e-3) return E::infinity();
    if (h < HPQ_EXP_UNDERFLOW) return E::zero();
    return exp_table(x);
}

template <class T> __device__ __forceinline__ T hpq_exp_m1(T x) {
    typedef expansion<T> E;
    double h = hi(x);
    if (isnan(h)) return E::nan();
    if (h > HPQ_EXP_OVERFLOW + 1e-3) return E::infinity();
    if (h < -200.0) return -E::one();
    int k;
    T s = exp_parts(x, k);
    if (k == 0) return s;
    return clean(E::ldexp(s + 1.0, k) - 1.0);
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

// ln(1 + d) for 1 + d in [0.7, 1.42]: Newton steps y += t - t^2/2 on the residual of expm1.
template <class T> __device__ __noinline__ T ln_1p_reduced(T d) {
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

template <class T> __device__ __forceinline__ T hpq_ln(T x) {
    typedef expansion<T> E;
    double h = hi(x);
    if (isnan(h) || h < 0.0) return E::nan();
    if (h == 0.0) return -E::infinity();
    if (isinf(h)) return E::infinity();
    int e;
    T d = split_exponent(x, e);
    T l = ln_1p_reduced(d);
    if (e == 0) return l;
    return E::ln_2() * (double)e + l;
}

template <class T> __device__ __forceinline__ T hpq_ln_1p(T x) {
    double h = hi(x);
    if (isnan(h) || h < -1.0) return expansion<T>::nan();
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

// x^y for finite x > 0 and finite y: 2^n exp(f ln2 + y ln m) with y e = n + f exactly.
// dd takes the logarithm and the reduction in qd (powf_positive).
template <class T> __device__ __noinline__ T powf_positive(T x, T y) {
    typedef expansion<T> E;
    if constexpr (E::COMPONENTS == 2) {
        qd_t r = powf_positive(qd_from_dd(to_dd(x)), qd_from_dd(to_dd(y)));
        return clean(from_dd<T>(qd_to_dd(r)));
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
        T l = ln_1p_reduced(d);
        T z = y * l + f * E::ln_2();
        double zh = hi(z);
        if (zh > 2.0 * HPQ_EXP_OVERFLOW) return E::infinity();
        if (zh < 2.0 * HPQ_EXP_UNDERFLOW) return E::zero();
        int k;
        T s = exp_parts(z, k);
        return scale_one_plus((int)((double)k + n), s);
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
    if (xh < 0.0 && E::floor(y) != y) return E::nan();
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
