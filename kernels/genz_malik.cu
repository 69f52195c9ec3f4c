// A fully symmetric cubature rule's point sums over many regions of R^D, one block a region:
// what a cubature round asks of the device (Genz and Malik 1980 and 1983; Berntsen, Espelid and
// Genz's DCUHRE). The rule is HPQ_DEGREE's: Genz and Malik's degree 7 or DCUHRE's degree 9
// (src/methods/cuhre/genz_malik.rs, degree9.rs).
//
// A region is its center c and half-widths h. The rule's points fall into classes, whose values
// the rule weighs alike within a class, in the order of src/backend.rs: rule_point:
//   0: the center;
//   1, 2 (and 3, 4 for degree 9): c ± λ h_i e_i for each axis i, λ = λa, λb (λc, λd);
//   A + 1: c ± λb h_i e_i ± λb h_j e_j, for each pair i < j (A the axis classes: 2 or 4);
//   degree 9 only: 6: c ± λb h_i e_i ± λa h_j e_j and c ± λa h_i e_i ± λb h_j e_j for each pair;
//   7: c ± λb h_i e_i ± λb h_j e_j ± λb h_l e_l, for each triple i < j < l;
//   last: c + Σ ±λv h_i e_i, every vertex of the scaled box (2^D points).
// The block returns the sum of the integrand's values over each class, and for each axis the
// fourth divided difference |(f(+λa) + f(-λa) - 2 f(c)) - ratio (f(+λb) + f(-λb) - 2 f(c))|
// (ratio = λa² / λb²) that picks the axis to split. The weights, the volume and the error
// estimate are the host's: the device only evaluates and sums.
//
// The host splices in, at the one marked place, `typedef <double|dd_t|qd_t> real_t;`, the
// integrand of D variables (`integrand(const real_t *x)`), `#define HPQ_DIMS D`,
// `#define HPQ_DEGREE 7|9` and `#define HPQ_RULE_KERNEL genz_malik_<f64|dd|qd>_<D>d_deg<7|9>`:
// the kernel's name says its type, its dimension and its rule, so the host cannot launch it on
// regions of another shape or read its sums as another rule's.
//
// Points are visited by a block-stride loop over the point index; each thread sums its share
// of every class in accumulator<real_t> (double-double for doubles) and the block reduces in a
// fixed order, so a launch of a given shape gives the same bits on every run.
#include "reduce.cuh"

// @@INTEGRAND@@

#if HPQ_DEGREE == 9
#define HPQ_CLASSES 9
#define HPQ_AXIS_CLASSES 4
#elif HPQ_DEGREE == 7
#define HPQ_CLASSES 5
#define HPQ_AXIS_CLASSES 2
#else
#error "HPQ_DEGREE must be 7 or 9"
#endif

__device__ __forceinline__ double rounded(dd_t a, double) { return a.hi + a.lo; }
__device__ __forceinline__ dd_t rounded(dd_t a, dd_t) { return a; }
__device__ __forceinline__ qd_t rounded(qd_t a, qd_t) { return a; }

// |v| rounded to a double as the host's T::to_f64 rounds (hi + lo; x0 + x1).
__device__ __forceinline__ double magnitude(double v) { return fabs(v); }
__device__ __forceinline__ double magnitude(dd_t v) { return fabs(v.hi + v.lo); }
__device__ __forceinline__ double magnitude(qd_t v) { return fabs(v.x[0] + v.x[1]); }

// The pair i < j with index p among n axes in the order (0,1), (0,2), ..., (0,n-1), (1,2), ...
// (src/backend.rs: pair_of).
__device__ __forceinline__ void pair_among(unsigned p, int n, int &i, int &j) {
    i = 0;
    while (p >= (unsigned)(n - 1 - i)) {
        p -= n - 1 - i;
        ++i;
    }
    j = i + 1 + (int)p;
}

__device__ __forceinline__ void pair_of(unsigned p, int &i, int &j) {
    pair_among(p, HPQ_DIMS, i, j);
}

// The triple i < j < l with index t among the D axes in lexicographic order (src/backend.rs:
// triple_of).
__device__ __forceinline__ void triple_of(unsigned t, int &i, int &j, int &l) {
    i = 0;
    for (;;) {
        const unsigned rest = (unsigned)(HPQ_DIMS - 1 - i);
        const unsigned with_i = rest * (rest - 1) / 2;
        if (t < with_i) break;
        t -= with_i;
        ++i;
    }
    int a, b;
    pair_among(t, HPQ_DIMS - 1 - i, a, b);
    j = i + 1 + a;
    l = i + 1 + b;
}

// centers, halfwidths: regions * D values of real_t, region-major (value (r, d) at
// (r * D + d) * limbs). constants: λa, λb, λc, λd, λv and ratio, 6 values of real_t (λc and λd
// unread by the degree-7 rule). sums: regions * HPQ_CLASSES values of real_t (class k of
// region r at (r * HPQ_CLASSES + k) * limbs). fourth: regions * D doubles. bad: regions
// entries set to ~0 by the host; entry r ends at the smallest point index of region r whose
// value is not finite, if any. blockDim.x: a multiple of 32, at most 1024.
extern "C" __global__ void HPQ_RULE_KERNEL(const double *__restrict__ centers,
                                           const double *__restrict__ halfwidths,
                                           const double *__restrict__ constants,
                                           double *__restrict__ sums,
                                           double *__restrict__ fourth,
                                           unsigned long long *__restrict__ bad,
                                           unsigned long long regions) {
    typedef typename accumulator<real_t>::type Acc;
    const int L = limbs<real_t>::count;
    const int D = HPQ_DIMS;
    const int A = HPQ_AXIS_CLASSES;
    __shared__ real_t c[D];
    // λ h_d for the axis classes' generators (λa, λb, then λc, λd) and, last, the vertices' λv.
    __shared__ real_t step[HPQ_AXIS_CLASSES + 1][D];
    // f(c + λa h_i e_i), f(c - λa h_i e_i), f(c + λb h_i e_i), f(c - λb h_i e_i) for axis i,
    // then f(c).
    __shared__ real_t axis_values[4 * D + 1];
    const unsigned long long pairs = (unsigned long long)D * (D - 1) / 2;
    const unsigned long long on_axes = 1 + 2ull * A * D;
    const unsigned long long on_pairs = on_axes + 4ull * pairs;
#if HPQ_DEGREE == 9
    const unsigned long long on_mixed = on_pairs + 8ull * pairs;
    const unsigned long long on_triples = on_mixed + 8ull * (pairs * (D - 2) / 3);
#else
    const unsigned long long on_mixed = on_pairs;
    const unsigned long long on_triples = on_mixed;
#endif
    const unsigned long long count = on_triples + (1ull << D);

    for (unsigned long long r = blockIdx.x; r < regions; r += gridDim.x) {
        for (int d = threadIdx.x; d < D; d += blockDim.x) {
            real_t lambda, h;
            load(centers + (r * D + d) * L, c[d]);
            load(halfwidths + (r * D + d) * L, h);
            for (int g = 0; g < A; ++g) {
                load(constants + g * L, lambda);
                step[g][d] = lambda * h;
            }
            load(constants + 4 * L, lambda);
            step[A][d] = lambda * h;
        }
        __syncthreads();

        Acc acc[HPQ_CLASSES];
        for (int q = 0; q < HPQ_CLASSES; ++q) acc_zero(acc[q]);
        for (unsigned long long k = threadIdx.x; k < count; k += blockDim.x) {
            real_t x[D];
            for (int d = 0; d < D; ++d) x[d] = c[d];
            int cls;
            if (k == 0) {
                cls = 0;
            } else if (k < on_axes) {
                // 1 + 2A i + 2g + s: the axis class g + 1 on axis i, s = 1 for minus.
                const unsigned m = (unsigned)(k - 1);
                const int i = (int)(m / (2 * A)), within = (int)(m % (2 * A)), g = within >> 1;
                const real_t s = step[g][i];
                x[i] = (within & 1) ? x[i] - s : x[i] + s;
                cls = g + 1;
            } else if (k < on_pairs) {
                const unsigned m = (unsigned)(k - on_axes);
                int i, j;
                pair_of(m >> 2, i, j);
                x[i] = (m & 1) ? x[i] - step[1][i] : x[i] + step[1][i];
                x[j] = (m & 2) ? x[j] - step[1][j] : x[j] + step[1][j];
                cls = A + 1;
            }
#if HPQ_DEGREE == 9
            else if (k < on_mixed) {
                // Bit 2 clear: λb on axis i and λa on axis j; set: λa on i and λb on j.
                const unsigned m = (unsigned)(k - on_pairs);
                int i, j;
                pair_of(m >> 3, i, j);
                const int gi = (m & 4) ? 0 : 1, gj = (m & 4) ? 1 : 0;
                x[i] = (m & 1) ? x[i] - step[gi][i] : x[i] + step[gi][i];
                x[j] = (m & 2) ? x[j] - step[gj][j] : x[j] + step[gj][j];
                cls = 6;
            } else if (k < on_triples) {
                const unsigned m = (unsigned)(k - on_mixed);
                int i, j, l;
                triple_of(m >> 3, i, j, l);
                x[i] = (m & 1) ? x[i] - step[1][i] : x[i] + step[1][i];
                x[j] = (m & 2) ? x[j] - step[1][j] : x[j] + step[1][j];
                x[l] = (m & 4) ? x[l] - step[1][l] : x[l] + step[1][l];
                cls = 7;
            }
#endif
            else {
                const unsigned long long m = k - on_triples;
                for (int d = 0; d < D; ++d) {
                    x[d] = ((m >> d) & 1) ? x[d] - step[A][d] : x[d] + step[A][d];
                }
                cls = HPQ_CLASSES - 1;
            }
            const real_t y = integrand(x);
            if (!isfinite(leading(y))) atomicMin(bad + r, k);
            if (k == 0) {
                axis_values[4 * D] = y;
            } else if (k < on_axes) {
                // The first four points of each axis's block: ±λa, ±λb.
                const unsigned m = (unsigned)(k - 1);
                const int within = (int)(m % (2 * A));
                if (within < 4) axis_values[4 * (int)(m / (2 * A)) + within] = y;
            }
            for (int q = 0; q < HPQ_CLASSES; ++q) {
                if (q == cls) acc[q] = acc_add(acc[q], y);
            }
        }
        for (int q = 0; q < HPQ_CLASSES; ++q) {
            const Acc total = block_reduce(acc[q]);
            if (threadIdx.x == 0) {
                store(sums + (r * HPQ_CLASSES + q) * L, rounded(total, real_t()));
            }
            // block_reduce's shared scratch is reused by the next class.
            __syncthreads();
        }
        for (int d = threadIdx.x; d < D; d += blockDim.x) {
            real_t ratio;
            load(constants + 5 * L, ratio);
            const real_t centre2 = axis_values[4 * D] + axis_values[4 * D];
            const real_t second_a = axis_values[4 * d] + axis_values[4 * d + 1] - centre2;
            const real_t second_b = axis_values[4 * d + 2] + axis_values[4 * d + 3] - centre2;
            fourth[r * D + d] = magnitude(second_a - ratio * second_b);
        }
        // The next region overwrites the shared arrays.
        __syncthreads();
    }
}
