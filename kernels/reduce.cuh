// Accumulators and deterministic warp and block reductions for double, dd_t and qd_t.
// Every reduction adds in a fixed tree order (shuffle offsets 16, 8, 4, 2, 1, then the warp
// sums by warp 0 in the same order), so a launch of fixed shape gives the same bits every run.
#pragma once
#include "qd.cuh"

// The type a sum of T is accumulated in: doubles are summed in double-double (a compensated
// sum, as the host does), dd and qd in their own type.
template <typename T> struct accumulator;
template <> struct accumulator<double> { typedef dd_t type; };
template <> struct accumulator<dd_t> { typedef dd_t type; };
template <> struct accumulator<qd_t> { typedef qd_t type; };

__device__ __forceinline__ void acc_zero(dd_t &a) { a = dd_make(0.0, 0.0); }
__device__ __forceinline__ void acc_zero(qd_t &a) { a = qd_make(0.0, 0.0, 0.0, 0.0); }

__device__ __forceinline__ dd_t acc_add(dd_t a, double v) { return dd_add_f64(a, v); }
__device__ __forceinline__ dd_t acc_add(dd_t a, dd_t v) { return dd_add(a, v); }
__device__ __forceinline__ qd_t acc_add(qd_t a, qd_t v) { return qd_add(a, v); }

// acc_add without the treatment of zeros and non-finite values (dd_finish_with): for a dd
// accumulator the same bits as acc_add while the sum is finite and not zero, and a
// non-finite value or sum makes it non-finite for good. A loop of these whose result is
// acc_ordinary has acc_add's value (a zero low limb may differ in sign); otherwise the caller
// sums again with acc_add. The qd accumulator has no such form: acc_add itself.
__device__ __forceinline__ dd_t acc_add_lean(dd_t a, double v) {
    double sh, sl, zh, zl;
    two_sum(a.hi, v, sh, sl);
    quick_two_sum(sh, a.lo + sl, zh, zl);
    return dd_make(zh, zl);
}
__device__ __forceinline__ dd_t acc_add_lean(dd_t a, dd_t v) {
    double sh, sl, th, tl, vh, vl, zh, zl;
    two_sum(a.hi, v.hi, sh, sl);
    two_sum(a.lo, v.lo, th, tl);
    quick_two_sum(sh, sl + th, vh, vl);
    quick_two_sum(vh, tl + vl, zh, zl);
    return dd_make(zh, zl);
}
__device__ __forceinline__ qd_t acc_add_lean(qd_t a, qd_t v) { return qd_add(a, v); }

// Whether a dd sum of acc_add_lean's has acc_add's bits: finite and not zero.
__device__ __forceinline__ bool acc_ordinary(dd_t a) { return a.hi != 0.0 && isfinite(a.hi); }

// Whether a non-finite value makes acc_add_lean's sum non-finite for good (dd: its leading
// TwoSum carries it), so that a loop may leave the test of each value to acc_ordinary.
template <typename A> struct lean_sum_keeps_non_finite { static const bool value = false; };
template <> struct lean_sum_keeps_non_finite<dd_t> { static const bool value = true; };

// The leading component, for the finiteness test of an integrand value.
__device__ __forceinline__ double leading(double v) { return v; }
__device__ __forceinline__ double leading(dd_t v) { return v.hi; }
__device__ __forceinline__ double leading(qd_t v) { return v.x[0]; }

// methods::rounding_floor: the error rounding alone leaves in a value of size |magnitude|,
// 2 ε |magnitude|, never below UNDERFLOW_FLOOR (8 units of the smallest subnormal, 2^-1071).
__device__ __forceinline__ double rounding_floor(double magnitude, double eps) {
    return fmax(2.0 * eps * fabs(magnitude), 8.0 * 4.9406564584124654e-324);
}

// Number of doubles in each type, and their transfer to and from limb arrays.
template <typename T> struct limbs;
template <> struct limbs<double> { static const int count = 1; };
template <> struct limbs<dd_t> { static const int count = 2; };
template <> struct limbs<qd_t> { static const int count = 4; };

__device__ __forceinline__ void load(const double *p, double &v) { v = p[0]; }
__device__ __forceinline__ void load(const double *p, dd_t &v) { v = dd_make(p[0], p[1]); }
__device__ __forceinline__ void load(const double *p, qd_t &v) {
    v = qd_make(p[0], p[1], p[2], p[3]);
}
__device__ __forceinline__ void store(double *p, double v) { p[0] = v; }
__device__ __forceinline__ void store(double *p, dd_t v) {
    p[0] = v.hi;
    p[1] = v.lo;
}
__device__ __forceinline__ void store(double *p, qd_t v) {
    for (int k = 0; k < 4; ++k) p[k] = v.x[k];
}

// Shuffles every component down by `offset` lanes.
__device__ __forceinline__ dd_t shfl_down(dd_t v, int offset) {
    return dd_make(__shfl_down_sync(0xffffffffu, v.hi, offset),
                   __shfl_down_sync(0xffffffffu, v.lo, offset));
}
__device__ __forceinline__ qd_t shfl_down(qd_t v, int offset) {
    qd_t r;
    for (int k = 0; k < 4; ++k) r.x[k] = __shfl_down_sync(0xffffffffu, v.x[k], offset);
    return r;
}

// Sum over the warp, valid in lane 0. Every lane must call it.
template <typename A> __device__ __forceinline__ A warp_reduce(A v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        v = acc_add(v, shfl_down(v, offset));
    }
    return v;
}

// warp_reduce as one out-of-line copy with a rolled loop: the same additions in the same
// order, for a kernel that reduces once, at its end (the uniform sums), where block_reduce's
// ten inlined additions were a third of the code and of NVRTC's time (a qd uniform sum on an
// H100 host: cubin 115 -> 77 kB, NVRTC 806-818 -> 573-643 ms) and saved no run time.
template <typename A> __device__ __noinline__ A warp_reduce_out_of_line(A v) {
#pragma unroll 1
    for (int offset = 16; offset > 0; offset >>= 1) {
        v = acc_add(v, shfl_down(v, offset));
    }
    return v;
}

// Sum over the block, valid in thread 0. Every thread must call it; blockDim.x must be a
// multiple of 32 and at most 1024. `OutOfLine` picks warp_reduce_out_of_line (same bits).
template <bool OutOfLine = false, typename A> __device__ __forceinline__ A block_reduce(A v) {
    __shared__ A warp_sums[32];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int warps = blockDim.x >> 5;
    v = OutOfLine ? warp_reduce_out_of_line(v) : warp_reduce(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        if (lane < warps) {
            v = warp_sums[lane];
        } else {
            acc_zero(v);
        }
        v = OutOfLine ? warp_reduce_out_of_line(v) : warp_reduce(v);
    }
    return v;
}
