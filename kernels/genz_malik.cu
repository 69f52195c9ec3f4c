// The Genz–Malik rule's point sums over many regions of R^D, one block a region: what a
// cubature round asks of the device (Genz and Malik 1980; Berntsen, Espelid and Genz's DCUHRE).
//
// A region is its center c and half-widths h. The rule's points fall into five classes, whose
// values the rule weighs alike within a class:
//   0: the center;
//   1: c ± λ2 h_i e_i, for each axis i (2D points);
//   2: c ± λ3 h_i e_i (2D points);
//   3: c ± λ4 h_i e_i ± λ4 h_j e_j, for each pair i < j (2D(D-1) points);
//   4: c + Σ ±λ5 h_i e_i, every vertex of the scaled box (2^D points).
// The block returns the sum of the integrand's values over each class, and for each axis the
// fourth divided difference |(f(+λ2) + f(-λ2) - 2 f(c)) - ratio (f(+λ3) + f(-λ3) - 2 f(c))|
// (ratio = λ2² / λ3²) that picks the axis to split. The weights, the volume and the error
// estimate are the host's: the device only evaluates and sums.
//
// The host splices in, at the one marked place, `typedef <double|dd_t|qd_t> real_t;`, the
// integrand of D variables (`integrand(const real_t *x)`), `#define HPQ_DIMS D` and
// `#define HPQ_RULE_KERNEL genz_malik_<f64|dd|qd>_<D>d`: the kernel's name says its type and its
// dimension, so the host cannot launch it on regions of another shape.
//
// Points are visited by a block-stride loop over the point index; each thread sums its share
// of every class in accumulator<real_t> (double-double for doubles) and the block reduces in a
// fixed order, so a launch of a given shape gives the same bits on every run.
#include "reduce.cuh"

// @@INTEGRAND@@

__device__ __forceinline__ double rounded(dd_t a, double) { return a.hi + a.lo; }
__device__ __forceinline__ dd_t rounded(dd_t a, dd_t) { return a; }
__device__ __forceinline__ qd_t rounded(qd_t a, qd_t) { return a; }

__device__ __forceinline__ double magnitude(double v) { return fabs(v); }
__device__ __forceinline__ double magnitude(dd_t v) { return fabs(v.hi); }
__device__ __forceinline__ double magnitude(qd_t v) { return fabs(v.x[0]); }

// The pair i < j with index p in the order (0,1), (0,2), ..., (0,D-1), (1,2), ...
__device__ __forceinline__ void pair_of(unsigned p, int &i, int &j) {
    i = 0;
    while (p >= (unsigned)(HPQ_DIMS - 1 - i)) {
        p -= HPQ_DIMS - 1 - i;
        ++i;
    }
    j = i + 1 + (int)p;
}

// centers, halfwidths: regions * D values of real_t, region-major (value (r, d) at
// (r * D + d) * limbs). constants: λ2, λ3, λ4, λ5 and ratio, 5 values of real_t. sums:
// regions * 5 values of real_t (class k of region r at (r * 5 + k) * limbs). fourth: regions
// * D doubles. bad: regions entries set to ~0 by the host; entry r ends at the smallest point
// index of region r whose value is not finite, if any. blockDim.x: a multiple of 32, at most
// 1024.
extern "C" __global__ void HPQ_RULE_KERNEL(const double *__restrict__ centers,
                                           const double *__restrict__ halfwidths,
                                           const double *__restrict__ constants,
                                           double *__restrict__ sums,
                                           double *__restrict__ fourth,
                                           unsigned long long *__restrict__ bad,
                                           unsigned long long regions) {
    typedef typename accumulator<real_t>::type A;
    const int L = limbs<real_t>::count;
    const int D = HPQ_DIMS;
    __shared__ real_t c[D], step2[D], step3[D], step4[D], step5[D];
    // f(c + λ2 h_i e_i), f(c - λ2 h_i e_i), f(c + λ3 h_i e_i), f(c - λ3 h_i e_i) for axis i,
    // then f(c).
    __shared__ real_t axis_values[4 * D + 1];
    const unsigned long long on_axes = 1 + 4ull * D;
    const unsigned long long on_pairs = on_axes + 2ull * D * (D - 1);
    const unsigned long long count = on_pairs + (1ull << D);

    for (unsigned long long r = blockIdx.x; r < regions; r += gridDim.x) {
        for (int d = threadIdx.x; d < D; d += blockDim.x) {
            real_t lambda2, lambda3, lambda4, lambda5, h;
            load(constants, lambda2);
            load(constants + L, lambda3);
            load(constants + 2 * L, lambda4);
            load(constants + 3 * L, lambda5);
            load(centers + (r * D + d) * L, c[d]);
            load(halfwidths + (r * D + d) * L, h);
            step2[d] = lambda2 * h;
            step3[d] = lambda3 * h;
            step4[d] = lambda4 * h;
            step5[d] = lambda5 * h;
        }
        __syncthreads();

        A acc[5];
        for (int k = 0; k < 5; ++k) acc_zero(acc[k]);
        for (unsigned long long k = threadIdx.x; k < count; k += blockDim.x) {
            real_t x[D];
            for (int d = 0; d < D; ++d) x[d] = c[d];
            int cls;
            if (k == 0) {
                cls = 0;
            } else if (k < on_axes) {
                // 1 + 4i + {0, 1}: ±λ2 on axis i; 1 + 4i + {2, 3}: ±λ3.
                const unsigned m = (unsigned)(k - 1);
                const int i = m >> 2, which = m & 3;
                const real_t s = which < 2 ? step2[i] : step3[i];
                x[i] = (which & 1) ? x[i] - s : x[i] + s;
                cls = which < 2 ? 1 : 2;
            } else if (k < on_pairs) {
                const unsigned m = (unsigned)(k - on_axes);
                int i, j;
                pair_of(m >> 2, i, j);
                x[i] = (m & 1) ? x[i] - step4[i] : x[i] + step4[i];
                x[j] = (m & 2) ? x[j] - step4[j] : x[j] + step4[j];
                cls = 3;
            } else {
                const unsigned long long m = k - on_pairs;
                for (int d = 0; d < D; ++d) {
                    x[d] = ((m >> d) & 1) ? x[d] - step5[d] : x[d] + step5[d];
                }
                cls = 4;
            }
            const real_t y = integrand(x);
            if (!isfinite(leading(y))) atomicMin(bad + r, k);
            if (k < on_axes) axis_values[k == 0 ? 4 * D : (int)(k - 1)] = y;
            for (int q = 0; q < 5; ++q) {
                if (q == cls) acc[q] = acc_add(acc[q], y);
            }
        }
        for (int q = 0; q < 5; ++q) {
            const A total = block_reduce(acc[q]);
            if (threadIdx.x == 0) store(sums + (r * 5 + q) * L, rounded(total, real_t()));
            // block_reduce's shared scratch is reused by the next class.
            __syncthreads();
        }
        for (int d = threadIdx.x; d < D; d += blockDim.x) {
            real_t ratio;
            load(constants + 4 * L, ratio);
            const real_t centre2 = axis_values[4 * D] + axis_values[4 * D];
            const real_t second2 = axis_values[4 * d] + axis_values[4 * d + 1] - centre2;
            const real_t second3 = axis_values[4 * d + 2] + axis_values[4 * d + 3] - centre2;
            fourth[r * D + d] = magnitude(second2 - ratio * second3);
        }
        // The next region overwrites the shared arrays.
        __syncthreads();
    }
}
