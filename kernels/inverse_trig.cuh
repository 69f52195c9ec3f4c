// atan, atan2, asin and acos for dd_t and qd_t, written once as templates.
// Twin of precision/src/inverse_trig.rs, function for function and operation for operation:
//   atan_series <-> atan_series    fxa_atan2 <-> angle_fixed    atan_nonnegative <-> atan_nonnegative
//   hpq_atan, hpq_atan2, hpq_asin, hpq_acos <-> atan, atan2, asin, acos    cofunction
// The angle in fixed point (trig.cuh's fxa_*, twin of atan_fixed.rs) where the smaller coordinate
// is at least 2^-24 (qd) or 2^-12 (dd) times the larger; below, the odd series of the quotient.
// asin and acos through atan2 and sqrt((1 - x)(1 + x)).
// Any change here is a change there too; tests/gpu_functions.rs compares the two bit for bit.
#pragma once
#include "trig.cuh"

// atan t for |t| <= 1/256: t sum (-1)^m t^2m / (2m + 1).
template <class T> __device__ __forceinline__ T atan_series(T t) {
    typedef trig_params<T> P;
    return t * P::series(expansion<T>::sqr(t), HPQ_ATAN_COEFFS, P::ATAN_TERMS, P::ATAN_FULL,
                         P::ATAN_LOWER);
}

// atan a for a >= 0 (not NaN), including +inf.
template <class T> __device__ __noinline__ T atan_nonnegative(T a) {
    typedef expansion<T> E;
    double a0 = hi(a);
    if (isfinite(a0) && a0 > 0.0) {
        T z;
        if (fxa_atan2(a, E::one(), false, z)) return z;
    }
    // Below 2^-24 (qd) or 2^-12 (dd), or above the inverse, or +inf.
    if (a0 <= 1.0) {
        return atan_series(a);
    }
    return E::frac_pi_2() - atan_series(E::recip(a));
}

// atan with the special values of f64: +-0, +-pi/2 for +-inf, NaN.
template <class T> __device__ __forceinline__ T hpq_atan(T x) {
    typedef expansion<T> E;
    if (isnan(hi(x)) || x == E::zero()) {
        return x;
    }
    T z = atan_nonnegative(E::abs(x));
    return x < 0.0 ? -z : z;
}

// atan2 with the special values of f64::atan2 (C99 Annex F).
template <class T> __device__ __forceinline__ T hpq_atan2(T y, T x) {
    typedef expansion<T> E;
    if (isnan(hi(y)) || isnan(hi(x))) {
        return E::nan();
    }
    bool y_negative = signbit(hi(y));
    bool x_negative = signbit(hi(x));
    if (y == E::zero()) {
        // +-0 for x > 0 or x = +0, +-pi for x < 0 or x = -0: keeps the sign of y.
        if (x_negative) {
            return y_negative ? -E::pi() : E::pi();
        }
        return y;
    }
    T ay = E::abs(y), ax = E::abs(x);
    bool y_inf = !isfinite(hi(ay));
    bool x_inf = !isfinite(hi(ax));
    T z;
    if (y_inf && x_inf) {
        z = E::frac_pi_4();
    } else if (x == E::zero() || y_inf) {
        z = E::frac_pi_2();
    } else if (x_inf) {
        z = E::zero();
    } else if (fxa_atan2(ay, ax, x_negative, z)) {
        // The quadrant is in z already.
        return y_negative ? -z : z;
    } else if (ay <= ax) {
        z = atan_nonnegative(ay / ax);
    } else {
        z = E::frac_pi_2() - atan_nonnegative(ax / ay);
    }
    T w = x_negative ? E::pi() - z : z;
    return y_negative ? -w : w;
}

// sqrt(1 - x^2) as sqrt((1 - x)(1 + x)), accurate near +-1.
template <class T> __device__ __forceinline__ T cofunction(T x) {
    return expansion<T>::sqrt((expansion<T>::one() - x) * (x + 1.0));
}

template <class T> __device__ __forceinline__ T hpq_asin(T x) {
    typedef expansion<T> E;
    if (isnan(hi(x)) || E::abs(x) > 1.0) {
        return E::nan();
    }
    if (x == E::zero()) {
        return x;
    }
    return hpq_atan2(x, cofunction(x));
}

template <class T> __device__ __forceinline__ T hpq_acos(T x) {
    typedef expansion<T> E;
    if (isnan(hi(x)) || E::abs(x) > 1.0) {
        return E::nan();
    }
    return hpq_atan2(cofunction(x), x);
}
