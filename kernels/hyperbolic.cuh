// sinh, cosh, tanh, asinh, acosh, atanh for dd_t and qd_t, written once as templates.
// Twin of precision/src/hyperbolic.rs, function for function and operation for operation:
//   far, huge, half_exp under the same names; hpq_sinh ... hpq_atanh <-> sinh ... atanh.
// Built on exp_m1 and ln_1p so that each keeps its relative accuracy near 0 (Kahan; fdlibm).
// Any change here is a change there too; tests/gpu_functions.rs compares the two bit for bit.
#pragma once
#include "exp_log.cuh"

// Beyond |x| = far, e^-|x| is below the last bit of e^|x|.
template <class T> __device__ __forceinline__ double far() {
    return (double)(expansion<T>::PRECISION_BITS + 8) * 0.5 * HPQ_F64_LN_2;
}

// Beyond huge, x^2 + 1 = x^2 in T.
template <class T> __device__ __forceinline__ double huge() {
    return hpq_ldexp(1.0, expansion<T>::PRECISION_BITS / 2 + 4);
}

// e^|x| / 2 without overflowing before the halving.
template <class T> __device__ __forceinline__ T half_exp(T ax) {
    if (hi(ax) > 711.0) return expansion<T>::infinity();
    int k;
    T s = exp_parts(ax, k);
    return scale_one_plus(k - 1, s);
}

template <class T> __device__ __forceinline__ T hpq_sinh(T x) {
    typedef expansion<T> E;
    double h = hi(x);
    if (isnan(h) || h == 0.0) return x;
    T ax = E::abs(x);
    T r;
    if (hi(ax) > far<T>()) {
        r = half_exp(ax);
    } else {
        T e = hpq_exp_m1(ax);
        r = E::ldexp(e + e / (e + 1.0), -1);
    }
    return h < 0.0 ? -r : r;
}

template <class T> __device__ __forceinline__ T hpq_cosh(T x) {
    typedef expansion<T> E;
    double h = hi(x);
    if (isnan(h)) return x;
    T ax = E::abs(x);
    if (hi(ax) > far<T>()) return half_exp(ax);
    T e = exp_fixed(ax);
    return E::ldexp(e + E::recip(e), -1);
}

template <class T> __device__ __forceinline__ T hpq_tanh(T x) {
    typedef expansion<T> E;
    double h = hi(x);
    if (isnan(h) || h == 0.0) return x;
    T ax = E::abs(x);
    T r;
    if (hi(ax) > far<T>()) {
        r = E::one();
    } else {
        T e = hpq_exp_m1(E::ldexp(ax, 1));
        r = e / (e + 2.0);
    }
    return h < 0.0 ? -r : r;
}

template <class T> __device__ __forceinline__ T hpq_asinh(T x) {
    typedef expansion<T> E;
    double h = hi(x);
    if (!isfinite(h) || h == 0.0) return x;
    T ax = E::abs(x);
    T r;
    if (hi(ax) > huge<T>()) {
        r = hpq_ln(ax) + E::ln_2();
    } else {
        T x2 = E::sqr(ax);
        r = hpq_ln_1p(ax + x2 / (E::sqrt(x2 + 1.0) + 1.0));
    }
    return h < 0.0 ? -r : r;
}

template <class T> __device__ __forceinline__ T hpq_acosh(T x) {
    typedef expansion<T> E;
    double h = hi(x);
    if (isnan(h) || x < E::one()) return E::nan();
    if (isinf(h)) return x;
    if (h > huge<T>()) return hpq_ln(x) + E::ln_2();
    T t = x - 1.0;
    return hpq_ln_1p(t + E::sqrt(t * (t + 2.0)));
}

template <class T> __device__ __forceinline__ T hpq_atanh(T x) {
    typedef expansion<T> E;
    double h = hi(x);
    if (isnan(h) || h == 0.0) return x;
    T ax = E::abs(x);
    if (ax > E::one()) return E::nan();
    T r;
    if (ax == E::one()) {
        r = E::infinity();
    } else {
        r = E::ldexp(hpq_ln_1p(E::ldexp(ax, 1) / (-ax + 1.0)), -1);
    }
    return h < 0.0 ? -r : r;
}
