// What a generated integrand may call (src/expr/cuda.rs, its name table `device_name`): the
// elementary-function mirrors of dd_t and qd_t, a double overload of each (CUDA's libdevice,
// which may differ from the host's libm in the last bit), and the rounding, abs, min and max
// of precision/src/dd.rs and qd.rs, mirrored here with the same order of operations.
// Needs the generated constants of src/gpu/tables.rs before it.
#pragma once
#include "hyperbolic.cuh"
#include "inverse_trig.cuh"
#include "roots.cuh"

#define HPQ_F64_1(NAME, CALL)                                                            \
    __device__ __forceinline__ double hpq_##NAME(double x) { return CALL(x); }
HPQ_F64_1(exp, ::exp)
HPQ_F64_1(exp_m1, ::expm1)
HPQ_F64_1(ln, ::log)
HPQ_F64_1(ln_1p, ::log1p)
HPQ_F64_1(log2, ::log2)
HPQ_F64_1(log10, ::log10)
HPQ_F64_1(sin, ::sin)
HPQ_F64_1(cos, ::cos)
HPQ_F64_1(tan, ::tan)
HPQ_F64_1(asin, ::asin)
HPQ_F64_1(acos, ::acos)
HPQ_F64_1(atan, ::atan)
HPQ_F64_1(sinh, ::sinh)
HPQ_F64_1(cosh, ::cosh)
HPQ_F64_1(tanh, ::tanh)
HPQ_F64_1(asinh, ::asinh)
HPQ_F64_1(acosh, ::acosh)
HPQ_F64_1(atanh, ::atanh)
HPQ_F64_1(cbrt, ::cbrt)
HPQ_F64_1(floor, ::floor)
HPQ_F64_1(ceil, ::ceil)
HPQ_F64_1(trunc, ::trunc)
// f64::round: halfway cases away from zero, as C's round.
HPQ_F64_1(round, ::round)
HPQ_F64_1(abs, ::fabs)
__device__ __forceinline__ double hpq_powf(double x, double y) { return ::pow(x, y); }
__device__ __forceinline__ double hpq_atan2(double y, double x) { return ::atan2(y, x); }
__device__ __forceinline__ double hpq_hypot(double x, double y) { return ::hypot(x, y); }
// f64::min / f64::max ignore a NaN operand, as fmin / fmax do.
__device__ __forceinline__ double hpq_min(double x, double y) { return ::fmin(x, y); }
__device__ __forceinline__ double hpq_max(double x, double y) { return ::fmax(x, y); }

// Dd::abs, Qd::abs.
template <class T> __device__ __forceinline__ T hpq_abs(T x) { return expansion<T>::abs(x); }
// Dd::floor, Qd::floor.
template <class T> __device__ __forceinline__ T hpq_floor(T x) {
    return expansion<T>::floor(x);
}
// Dd::ceil, Qd::ceil.
template <class T> __device__ __forceinline__ T hpq_ceil(T x) { return expansion<T>::ceil(x); }
// Dd::trunc, Qd::trunc.
template <class T> __device__ __forceinline__ T hpq_trunc(T x) {
    return hi(x) >= 0.0 ? hpq_floor(x) : hpq_ceil(x);
}
// Dd::round, Qd::round: halfway cases away from zero.
template <class T> __device__ __forceinline__ T hpq_round(T x) {
    T t = hpq_trunc(x);
    T frac = x - t;
    if (hi(frac) >= 0.5) {
        return t + 1.0;
    } else if (hi(frac) <= -0.5) {
        return t - 1.0;
    }
    return t;
}
// Dd::min, Dd::max, Qd::min, Qd::max: a NaN `other` is ignored.
template <class T> __device__ __forceinline__ T hpq_min(T a, T b) {
    return (isnan(hi(b)) || a <= b) ? a : b;
}
template <class T> __device__ __forceinline__ T hpq_max(T a, T b) {
    return (isnan(hi(b)) || a >= b) ? a : b;
}
