// cbrt and hypot for dd_t and qd_t, written once as templates.
// Twin of precision/src/roots.rs, function for function and operation for operation:
//   exponent, cbrt_start under the same names; hpq_cbrt, hpq_hypot <-> cbrt, hypot.
// Any change here is a change there too; tests/gpu_functions.rs compares the two bit for bit.
#pragma once
#include "exp_log.cuh"

// The unbiased exponent field of a double.
__device__ __forceinline__ int exponent(double h) {
    return (int)(((unsigned long long)__double_as_longlong(h) >> 52) & 0x7ff) - 1023;
}

// cbrt m for m in [1, 8) to about 53 bits: Halley's iteration from a linear start.
__device__ __forceinline__ double cbrt_start(double m) {
    double g = __fma_rn(m - 1.0, 1.0 / 7.0, 1.0);
    for (int i = 0; i < 3; ++i) {
        double g3 = g * g * g;
        g = g * (g3 + 2.0 * m) / (2.0 * g3 + m);
    }
    return g;
}

template <class T> __device__ __forceinline__ T hpq_cbrt(T x) {
    typedef expansion<T> E;
    double h = hi(x);
    if (!isfinite(h) || h == 0.0) return x;
    T ax = E::abs(x);
    int bias = 0;
    if (hi(ax) < 1e-290) {
        // The trailing components may be subnormal: work on a scaled copy.
        ax = E::ldexp(ax, 600);
        bias = -200;
    } else if (hi(ax) > 1e290) {
        ax = E::ldexp(ax, -600);
        bias = 200;
    }
    int ex = exponent(hi(ax));
    // i32::div_euclid(3): the floor of ex / 3.
    int q = ex >= 0 ? ex / 3 : -((-ex + 2) / 3);
    T m = E::ldexp(ax, -3 * q);
    double y0 = cbrt_start(hi(m));

    dd_t y = dd_from_f64(y0);
    dd_t y3 = dd_sqr(y) * y0;
    dd_t rho = (to_dd(m) - y3) / y3;
    double c = rho.hi * rho.hi * (-1.0 / 9.0);
    dd_t y1 = y + y * (rho / 3.0 + c);
    T r;
    if constexpr (E::COMPONENTS == 2) {
        r = from_dd<T>(y1);
    } else {
        T yq = from_dd<T>(y1);
        T yq3 = E::sqr(yq) * yq;
        dd_t rq = to_dd(m - yq3) / to_dd(yq3);
        dd_t cq = y1 * (rq / 3.0 + rq.hi * rq.hi * (-1.0 / 9.0));
        r = yq + cq.hi + cq.lo;
    }
    r = E::ldexp(r, q + bias);
    return h < 0.0 ? -r : r;
}

template <class T> __device__ __forceinline__ T hpq_hypot(T x, T y) {
    typedef expansion<T> E;
    T ax = E::abs(x), ay = E::abs(y);
    if (isinf(hi(ax)) || isinf(hi(ay))) return E::infinity();
    if (isnan(hi(ax)) || isnan(hi(ay))) return E::nan();
    T a, b;
    if (ax >= ay) {
        a = ax;
        b = ay;
    } else {
        a = ay;
        b = ax;
    }
    if (hi(a) == 0.0) return E::zero();
    int bias = 0;
    if (hi(a) < 1e-290) {
        a = E::ldexp(a, 600);
        b = E::ldexp(b, 600);
        bias = -600;
    }
    int e = exponent(hi(a));
    a = E::ldexp(a, -e);
    b = E::ldexp(b, -e);
    return clean(E::ldexp(E::sqrt(E::sqr(a) + E::sqr(b)), e + bias));
}
