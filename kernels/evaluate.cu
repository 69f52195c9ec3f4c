// Point lists: values[i] = f(points[i]) for i < n, in double, dd_t or qd_t, for functions of
// HPQ_DIMS variables.
//
// The host splices in, at the one marked place, `typedef <double|dd_t|qd_t> real_t;`, the
// integrand (`integrand(real_t x)` of one variable, `integrand(const real_t *x)` of several),
// `#define HPQ_DIMS <n>` and `#define HPQ_EVALUATE_KERNEL evaluate_<f64|dd|qd>[_<n>d]`: the
// kernel's name says its type and its number of variables, so the host cannot launch it on
// points of another shape.
//
// Points and values travel as structure of arrays: limb j of element i is at p[j * n + i], so
// the loads and stores of one limb by a warp are 32 consecutive doubles (one transaction per
// limb, where an array of structures would make each thread's limbs a strided access). Points
// of several variables hold their coordinates one after the other, each an array of n
// elements laid out as above. One
// thread per point; each value is the integrand's at its point alone, returned as it is, NaN
// and infinities included: what a non-finite value means is the method's decision.
#include "soa.cuh"

// @@INTEGRAND@@

// points hold HPQ_DIMS arrays of n elements of real_t, values one, limb-major (see above).
extern "C" __global__ void HPQ_EVALUATE_KERNEL(const double *__restrict__ points,
                                               double *__restrict__ values,
                                               unsigned long long n) {
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
#if HPQ_DIMS == 1
    real_t x;
    load_soa(points, i, n, x);
#else
    const unsigned long long limbs = sizeof(real_t) / sizeof(double);
    real_t x[HPQ_DIMS];
#pragma unroll
    for (int d = 0; d < HPQ_DIMS; ++d) load_soa(points + d * limbs * n, i, n, x[d]);
#endif
    store_soa(values, i, n, integrand(x));
}
