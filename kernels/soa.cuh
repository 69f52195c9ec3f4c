// Structure-of-arrays transfer of double, dd_t and qd_t: limb j of element i of an array of n
// elements is at p[j * n + i], so that a warp's loads and stores of one limb are 32
// consecutive doubles (one transaction per limb). Shared by the point-list and batch kernels.
#pragma once
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
