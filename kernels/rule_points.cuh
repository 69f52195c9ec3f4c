// Where a Gauss–Legendre or Gauss–Kronrod rule puts its points on [a, b], as the host's
// rules::abscissae does (src/rules/mod.rs: midpoint, half_width, near_end, push_abscissae),
// operation for operation on double, dd_t and qd_t, so that region.cu and batch.cu evaluate
// the integrand at the host's points, bit for bit. A node x up to 1/2 gives c ∓ h·x; a node
// past 1/2 gives a + h·(1 − x) and b − h·(1 − x) from the end it is near, with the rule's
// complement 1 − x, so that a point near an end carries the rounding of its distance from that
// end, not of the centre.
#pragma once
#include "reduce.cuh"
#include "soa.cuh"

__device__ __forceinline__ double rule_ldexp(double v, int k) { return hpq_ldexp(v, k); }
__device__ __forceinline__ dd_t rule_ldexp(dd_t v, int k) { return dd_ldexp(v, k); }
__device__ __forceinline__ qd_t rule_ldexp(qd_t v, int k) { return qd_ldexp(v, k); }
// T::to_f64.
__device__ __forceinline__ double rule_to_f64(double v) { return v; }
__device__ __forceinline__ double rule_to_f64(dd_t v) { return dd_to_f64(v); }
__device__ __forceinline__ double rule_to_f64(qd_t v) { return qd_to_f64(v); }

// rules::midpoint: (a + b)/2, or a/2 + b/2 where a + b overflows.
template <class T>
__device__ __forceinline__ T rule_midpoint(T a, T b) {
    const T sum = a + b;
    if (isfinite(leading(sum))) return rule_ldexp(sum, -1);
    return rule_ldexp(a, -1) + rule_ldexp(b, -1);
}

// rules::half_width: (b − a)/2, or b/2 − a/2 where b − a overflows.
template <class T>
__device__ __forceinline__ T rule_half_width(T a, T b) {
    const T width = b - a;
    if (isfinite(leading(width))) return rule_ldexp(width, -1);
    return rule_ldexp(b, -1) - rule_ldexp(a, -1);
}

// The point of node x (complement 1 − x) on [a, b] with centre c and half-width h: side −1
// for −x, +1 for x, 0 for the centre (the node 0).
template <class T>
__device__ __forceinline__ T rule_point(T a, T b, T c, T h, T x, T complement, int side) {
    if (side == 0) return c;
    if (rule_to_f64(x) > 0.5) {
        const T dx = h * complement;
        return side < 0 ? a + dx : b - dx;
    }
    const T dx = h * x;
    return side < 0 ? c - dx : c + dx;
}

// The offset of node x's points from the centre or end they are formed from, over h, for
// rules::abscissa_rounding: min(x, 1 − x).
__device__ __forceinline__ double rule_offset(double x, double complement) {
    return fmin(x, complement);
}
