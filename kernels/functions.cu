// Element-wise elementary functions, one kernel per function and type, for the host/device
// agreement tests (tests/gpu_functions.rs). The host prepends the generated constants
// (src/gpu/tables.rs) and one of `#define HPQ_FUNCTIONS_F64`, `_DD`, `_QD`, so that each type
// is a module of its own (three smaller NVRTC compiles instead of one large one).
// Operands travel as in arith.cu: element i of a T array is limbs<T>::count doubles from
// i * limbs<T>::count. Every kernel takes (a, b, out, n); a unary function ignores b.
// dd_t and qd_t use the templates that mirror precision/src/; double uses CUDA's own libdevice
// functions, which may differ from the host's std (libm) in the last bit.
#include "elementwise.cuh"
#include "hyperbolic.cuh"
#include "inverse_trig.cuh"
#include "roots.cuh"

#define HPQ_ALL_FNS(TN, T, PFX)                                                          \
    HPQ_ELEMENTWISE(fn_##TN##_exp, T, PFX##exp(x))                                       \
    HPQ_ELEMENTWISE(fn_##TN##_exp_m1, T, PFX##exp_m1(x))                                 \
    HPQ_ELEMENTWISE(fn_##TN##_ln, T, PFX##ln(x))                                         \
    HPQ_ELEMENTWISE(fn_##TN##_ln_1p, T, PFX##ln_1p(x))                                   \
    HPQ_ELEMENTWISE(fn_##TN##_log2, T, PFX##log2(x))                                     \
    HPQ_ELEMENTWISE(fn_##TN##_log10, T, PFX##log10(x))                                   \
    HPQ_ELEMENTWISE(fn_##TN##_sin, T, PFX##sin(x))                                       \
    HPQ_ELEMENTWISE(fn_##TN##_cos, T, PFX##cos(x))                                       \
    HPQ_ELEMENTWISE(fn_##TN##_tan, T, PFX##tan(x))                                       \
    HPQ_ELEMENTWISE(fn_##TN##_asin, T, PFX##asin(x))                                     \
    HPQ_ELEMENTWISE(fn_##TN##_acos, T, PFX##acos(x))                                     \
    HPQ_ELEMENTWISE(fn_##TN##_atan, T, PFX##atan(x))                                     \
    HPQ_ELEMENTWISE(fn_##TN##_sinh, T, PFX##sinh(x))                                     \
    HPQ_ELEMENTWISE(fn_##TN##_cosh, T, PFX##cosh(x))                                     \
    HPQ_ELEMENTWISE(fn_##TN##_tanh, T, PFX##tanh(x))                                     \
    HPQ_ELEMENTWISE(fn_##TN##_asinh, T, PFX##asinh(x))                                   \
    HPQ_ELEMENTWISE(fn_##TN##_acosh, T, PFX##acosh(x))                                   \
    HPQ_ELEMENTWISE(fn_##TN##_atanh, T, PFX##atanh(x))                                   \
    HPQ_ELEMENTWISE(fn_##TN##_cbrt, T, PFX##cbrt(x))                                     \
    HPQ_ELEMENTWISE(fn_##TN##_powf, T, PFX##powf(x, y))                                  \
    HPQ_ELEMENTWISE(fn_##TN##_atan2, T, PFX##atan2(x, y))                                \
    HPQ_ELEMENTWISE(fn_##TN##_hypot, T, PFX##hypot(x, y))

#if defined(HPQ_FUNCTIONS_DD)
HPQ_ALL_FNS(dd, dd_t, hpq_)
#elif defined(HPQ_FUNCTIONS_QD)
HPQ_ALL_FNS(qd, qd_t, hpq_)
#elif defined(HPQ_FUNCTIONS_F64)
// libdevice under the host's names.
__device__ __forceinline__ double f64_exp(double x) { return exp(x); }
__device__ __forceinline__ double f64_exp_m1(double x) { return expm1(x); }
__device__ __forceinline__ double f64_ln(double x) { return log(x); }
__device__ __forceinline__ double f64_ln_1p(double x) { return log1p(x); }
__device__ __forceinline__ double f64_log2(double x) { return log2(x); }
__device__ __forceinline__ double f64_log10(double x) { return log10(x); }
__device__ __forceinline__ double f64_sin(double x) { return sin(x); }
__device__ __forceinline__ double f64_cos(double x) { return cos(x); }
__device__ __forceinline__ double f64_tan(double x) { return tan(x); }
__device__ __forceinline__ double f64_asin(double x) { return asin(x); }
__device__ __forceinline__ double f64_acos(double x) { return acos(x); }
__device__ __forceinline__ double f64_atan(double x) { return atan(x); }
__device__ __forceinline__ double f64_sinh(double x) { return sinh(x); }
__device__ __forceinline__ double f64_cosh(double x) { return cosh(x); }
__device__ __forceinline__ double f64_tanh(double x) { return tanh(x); }
__device__ __forceinline__ double f64_asinh(double x) { return asinh(x); }
__device__ __forceinline__ double f64_acosh(double x) { return acosh(x); }
__device__ __forceinline__ double f64_atanh(double x) { return atanh(x); }
__device__ __forceinline__ double f64_cbrt(double x) { return cbrt(x); }
__device__ __forceinline__ double f64_powf(double x, double y) { return pow(x, y); }
__device__ __forceinline__ double f64_atan2(double x, double y) { return atan2(x, y); }
__device__ __forceinline__ double f64_hypot(double x, double y) { return hypot(x, y); }
HPQ_ALL_FNS(f64, double, f64_)
#endif
