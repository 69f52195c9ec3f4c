// Uniform sums: sum over k < count of f(a + (first + k*stride) * h), in double, dd_t or qd_t.
//
// The host prepends `typedef <double|dd_t|qd_t> real_t;` and splices the integrand in at the
// one marked place below. Each thread accumulates a grid-stride share of the points in
// accumulator<real_t> (double-double for doubles), each block reduces its threads in a fixed
// order and writes one partial; the host adds the partials in a fixed order. With the grid
// shape fixed by `count` alone, the same call gives the same bits on every run.
#include "reduce.cuh"

// The sample point a + m*h, with m converted exactly to the working type (m < 2^63).
__device__ __forceinline__ double grid_point(double a, double h, unsigned long long m) {
    return __ull2double_rn(m) * h + a;
}
__device__ __forceinline__ dd_t grid_point(dd_t a, dd_t h, unsigned long long m) {
    return dd_from_u64(m) * h + a;
}
__device__ __forceinline__ qd_t grid_point(qd_t a, qd_t h, unsigned long long m) {
    return qd_from_u64(m) * h + a;
}

// @@INTEGRAND@@

template <typename T>
__device__ __forceinline__ void uniform_sum_impl(const double *a_limbs, const double *h_limbs,
                                                 unsigned long long first,
                                                 unsigned long long stride,
                                                 unsigned long long count, double *partials,
                                                 unsigned long long *first_bad) {
    typedef typename accumulator<T>::type A;
    T a, h;
    load(a_limbs, a);
    load(h_limbs, h);
    A acc;
    acc_zero(acc);
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    const unsigned long long k0 = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    // The fast pass: acc_add_lean. With a dd accumulator no test of each value either (a
    // non-finite one leaves the sum non-finite), and a sum that is not acc_ordinary (a
    // non-finite value or sum, or zero) is done again with acc_add and each value tested, so
    // that the result and first_bad are the careful pass's (f64 sums 1.25x faster on an H100).
    constexpr bool lean = lean_sum_keeps_non_finite<A>::value;
    for (unsigned long long k = k0; k < count; k += step) {
        T y = integrand(grid_point(a, h, first + k * stride));
        if (!lean && !isfinite(leading(y))) {
            // The smallest failing index wins, whatever the order the threads ran in.
            atomicMin(first_bad, k);
        }
        acc = acc_add_lean(acc, y);
    }
    if constexpr (lean) {
        if (!acc_ordinary(acc)) {
            acc_zero(acc);
            for (unsigned long long k = k0; k < count; k += step) {
                T y = integrand(grid_point(a, h, first + k * stride));
                if (!isfinite(leading(y))) atomicMin(first_bad, k);
                acc = acc_add(acc, y);
            }
        }
    }
    acc = block_reduce<true>(acc);
    if (threadIdx.x == 0) {
        store(partials + (unsigned long long)blockIdx.x * limbs<A>::count, acc);
    }
}

// a_limbs and h_limbs hold limbs<real_t>::count doubles each; partials holds gridDim.x
// accumulators of limbs<accumulator<real_t>::type>::count doubles; *first_bad starts at
// ~0 and ends at the smallest k whose value was not finite, if any.
extern "C" __global__ void uniform_sum(const double *a_limbs, const double *h_limbs,
                                       unsigned long long first, unsigned long long stride,
                                       unsigned long long count, double *partials,
                                       unsigned long long *first_bad) {
    uniform_sum_impl<real_t>(a_limbs, h_limbs, first, stride, count, partials, first_bad);
}
