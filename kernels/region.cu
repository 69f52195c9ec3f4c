// One region step of the adaptive cutting schemes with the trapezoid–Simpson pair, on the
// device from the abscissae to the groups' sums (src/methods/pbcaq/region.rs is the host's
// twin, operation for operation, so that dd and qd give the host's bits):
//
//   region_points:  point k of the 2n + 1: end(k / 2) for even k, the midpoint of interval
//                   k / 2 for odd k, with end(i) = lower + width * i (end(n) = upper); its
//                   value into `values` (limb-major); the smallest k of a non-finite value
//                   into *bad (atomicMin).
//   region_pieces:  interval i's Simpson estimate, |Simpson - trapezoid| as its error and its
//                   rounding floor (pair.rs, trapezoid_simpson); for side cutting the largest
//                   i + 1 of an interval not within its share into *first (atomicMax).
//   region_reduce:  one block of 256 threads a group of 256 intervals, one thread each: the
//                   accepted intervals' (index >= *first) value, lower- and upper-half error
//                   and floor summed in the fixed tree of block_reduce; one partial a group.
//
// The host splices in, at the one marked place, `typedef <double|dd_t|qd_t> real_t;` and the
// integrand of one variable, and `#define HPQ_REGION_TYPE <f64|dd|qd>`, which names the
// kernels (region_points_dd, ...), so that the host cannot launch them on another type.
// Doubles in block_reduce's tree (the errors and floors): plain sums, declared before
// reduce.cuh's templates, which find them by ordinary lookup (a double has no namespace for
// argument-dependent lookup to search).
__device__ __forceinline__ void acc_zero(double &a) { a = 0.0; }
__device__ __forceinline__ double acc_add(double a, double b) { return a + b; }
__device__ __forceinline__ double shfl_down(double v, int offset) {
    return __shfl_down_sync(0xffffffffu, v, offset);
}

#include "reduce.cuh"
#include "soa.cuh"

// @@INTEGRAND@@

#define HPQ_CAT2(a, b) a##_##b
#define HPQ_CAT(a, b) HPQ_CAT2(a, b)

// What pair.rs asks of T, for double, dd_t and qd_t: from_f64, the exact index, to_f64, abs,
// ldexp (Real's, which precision/ mirrors in dd.cuh, qd.cuh and expansion.cuh).
__device__ __forceinline__ void make(double x, double &v) { v = x; }
__device__ __forceinline__ void make(double x, dd_t &v) { v = dd_from_f64(x); }
__device__ __forceinline__ void make(double x, qd_t &v) { v = qd_from_f64(x); }
__device__ __forceinline__ double to_double(double v) { return v; }
__device__ __forceinline__ double to_double(dd_t v) { return dd_to_f64(v); }
__device__ __forceinline__ double to_double(qd_t v) { return qd_to_f64(v); }
__device__ __forceinline__ double magnitude_of(double v) { return fabs(v); }
// Dd::abs, Qd::abs: negate when the leading component has its sign bit set (as
// expansion.cuh's, which needs the function tables that a rational integrand goes without).
__device__ __forceinline__ dd_t magnitude_of(dd_t v) { return signbit(v.hi) ? dd_neg(v) : v; }
__device__ __forceinline__ qd_t magnitude_of(qd_t v) { return signbit(v.x[0]) ? qd_neg(v) : v; }
__device__ __forceinline__ double scaled(double v, int k) { return hpq_ldexp(v, k); }
__device__ __forceinline__ dd_t scaled(dd_t v, int k) { return dd_ldexp(v, k); }
__device__ __forceinline__ qd_t scaled(qd_t v, int k) { return qd_ldexp(v, k); }
// A value's leaf in the sums' tree: T::to_accumulator (a double is the double-double (v, 0)).
__device__ __forceinline__ dd_t leaf(double v) { return dd_make(v, 0.0); }
__device__ __forceinline__ dd_t leaf(dd_t v) { return v; }
__device__ __forceinline__ qd_t leaf(qd_t v) { return v; }

// end(i) of a region of n intervals (Region::end): i < 2^53, so the index is exact in a double.
__device__ __forceinline__ real_t region_end(real_t lower, real_t width, real_t upper,
                                             unsigned long long i, unsigned long long n) {
    if (i >= n) return upper;
    real_t index;
    make((double)i, index);
    return lower + width * index;
}

// lower, width, upper: one real_t each. values: 2n + 1 values, limb-major. bad: set to ~0 by
// the host.
extern "C" __global__ void HPQ_CAT(region_points, HPQ_REGION_TYPE)(
    const double *__restrict__ bounds, unsigned long long n, double *__restrict__ values,
    unsigned long long *__restrict__ bad) {
    const unsigned long long count = 2 * n + 1;
    const unsigned long long k = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    const int L = limbs<real_t>::count;
    real_t lower, width, upper;
    load(bounds, lower);
    load(bounds + L, width);
    load(bounds + 2 * L, upper);
    const unsigned long long i = k / 2;
    real_t x;
    if (k % 2 == 0) {
        x = region_end(lower, width, upper, i, n);
    } else {
        // pair.rs: end[0] + (end[1] - end[0]).ldexp(-1)
        const real_t a = region_end(lower, width, upper, i, n);
        const real_t b = region_end(lower, width, upper, i + 1, n);
        x = a + scaled(b - a, -1);
    }
    const real_t y = integrand(x);
    store_soa(values, k, count, y);
    if (!isfinite(leading(y))) atomicMin(bad, k);
}

// values: the 2n + 1 values. pieces: n values (limb-major), then n errors, then n floors.
// eps: T::epsilon() as a double. side: nonzero for side cutting, against tolerance and span.
// first: set to 0 by the host.
extern "C" __global__ void HPQ_CAT(region_pieces, HPQ_REGION_TYPE)(
    const double *__restrict__ bounds, unsigned long long n, const double *__restrict__ values,
    double *__restrict__ pieces, double eps, int side, double tolerance, double span,
    unsigned long long *__restrict__ first) {
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int L = limbs<real_t>::count;
    const unsigned long long count = 2 * n + 1;
    real_t lower, width, upper;
    load(bounds, lower);
    load(bounds + L, width);
    load(bounds + 2 * L, upper);
    const real_t a = region_end(lower, width, upper, i, n);
    const real_t b = region_end(lower, width, upper, i + 1, n);
    real_t fa, fm, fb, six;
    load_soa(values, 2 * i, count, fa);
    load_soa(values, 2 * i + 1, count, fm);
    load_soa(values, 2 * i + 2, count, fb);
    make(6.0, six);
    // pair.rs, trapezoid_simpson, in its order of operations.
    const real_t h = b - a;
    const real_t ends = fa + fb;
    const real_t trapezoid = ends * scaled(h, -1);
    const real_t simpson = (ends + scaled(fm, 2)) * h / six;
    const double resabs = to_double(
        (magnitude_of(fa) + magnitude_of(fb) + scaled(magnitude_of(fm), 2)) * h / six);
    const double midpoint = to_double(magnitude_of(a + scaled(h, -1)));
    // methods::rounding_floor: 2 ε |value|.
    const double rounding = 2.0 * eps * fabs(to_double(simpson));
    const double floor = fmax(4.0 * eps * resabs, rounding) +
                         2.0 / 3.0 * eps * midpoint * to_double(magnitude_of(fb - fa));
    const double error = fmax(to_double(magnitude_of(simpson - trapezoid)), floor);
    store_soa(pieces, i, n, simpson);
    pieces[L * n + i] = error;
    pieces[(L + 1) * n + i] = floor;
    // Piece::is_final against the interval's share, tolerance · width / span.
    if (side && !(error <= fmax(tolerance * (to_double(h) / span), 2.0 * floor))) {
        atomicMax(first, i + 1);
    }
}

// partials: per group, the value's accumulator (its limbs), then the lower- and upper-half
// errors and the floors. blockDim.x == 256, one block a group.
extern "C" __global__ void HPQ_CAT(region_reduce, HPQ_REGION_TYPE)(
    unsigned long long n, const double *__restrict__ pieces,
    const unsigned long long *__restrict__ first, double *__restrict__ partials) {
    typedef typename accumulator<real_t>::type A;
    const int L = limbs<real_t>::count;
    const int AL = limbs<A>::count;
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    A value;
    acc_zero(value);
    double lower_error = 0.0, upper_error = 0.0, floor = 0.0;
    if (i < n && i >= *first) {
        real_t v;
        load_soa(pieces, i, n, v);
        value = leaf(v);
        const double error = pieces[L * n + i];
        if (i < n / 2) {
            lower_error = error;
        } else {
            upper_error = error;
        }
        floor = pieces[(L + 1) * n + i];
    }
    double *out = partials + blockIdx.x * (AL + 3);
    value = block_reduce(value);
    if (threadIdx.x == 0) store(out, value);
    __syncthreads();
    lower_error = block_reduce(lower_error);
    if (threadIdx.x == 0) out[AL] = lower_error;
    __syncthreads();
    upper_error = block_reduce(upper_error);
    if (threadIdx.x == 0) out[AL + 1] = upper_error;
    __syncthreads();
    floor = block_reduce(floor);
    if (threadIdx.x == 0) out[AL + 2] = floor;
}
