// Point lists: values[i] = f(points[i]) for i < n, in double, dd_t or qd_t.
//
// The host splices in, at the one marked place, `typedef <double|dd_t|qd_t> real_t;`, the
// integrand and `#define HPQ_EVALUATE_KERNEL evaluate_<f64|dd|qd>`: the kernel's name says its
// type, so the host cannot launch it on limbs of another type.
//
// Points and values travel as structure of arrays: limb j of element i is at p[j * n + i], so
// the loads and stores of one limb by a warp are 32 consecutive doubles (one transaction per
// limb, where an array of structures would make each thread's limbs a strided access). One
// thread per point; each value is the integrand's at its point alone, returned as it is, NaN
// and infinities included: what a non-finite value means is the method's decision.
#include "qd.cuh"

__device__ __forceinline__ void load_soa(const double *p, unsigned long long i,
                                         unsigned long long n, double &v) {
    v = p[i];
}
__device__ __forceinline__ void load_soa(const double *p, unsigned long long i,
                                         unsigned long long n, dd_t &v) {
    v = dd_make(p[i], p[n + i]);
}
__device__ __forceinline__ void load_soa(const double *p, unsigned long long i,
                                         unsigned long long n, qd_t &v) {
    v = qd_make(p[i], p[n + i], p[2 * n + i], p[3 * n + i]);
}

__device__ __forceinline__ void store_soa(double *p, unsigned long long i, unsigned long long n,
                                          double v) {
    p[i] = v;
}
__device__ __forceinline__ void store_soa(double *p, unsigned long long i, unsigned long long n,
                                          dd_t v) {
    p[i] = v.hi;
    p[n + i] = v.lo;
}
__device__ __forceinline__ void store_soa(double *p, unsigned long long i, unsigned long long n,
                                          qd_t v) {
    for (int k = 0; k < 4; ++k) p[k * n + i] = v.x[k];
}

// @@INTEGRAND@@

// points and values hold n elements of real_t each, limb-major (see above).
extern "C" __global__ void HPQ_EVALUATE_KERNEL(const double *__restrict__ points,
                                               double *__restrict__ values,
                                               unsigned long long n) {
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    real_t x;
    load_soa(points, i, n, x);
    store_soa(values, i, n, integrand(x));
}
