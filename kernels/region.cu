// One region step of the adaptive cutting schemes, from the region's bounds to the groups'
// sums in one launch, for the trapezoid–Simpson pair and the Gauss–Kronrod pairs
// (src/methods/pbcaq/region.rs and pair.rs are the host's twin, operation for operation, so
// that dd and qd give the host's bits). One block of 256 threads a group of 256 intervals:
//
//   1. the group's points, strided over the block (the pair's list for its intervals:
//      trapezoid–Simpson's 2n + 1, each end shared, the group's last end evaluated by this
//      group and the next; Kronrod's 2m - 1 of each interval), their values into `values`
//      (limb-major over the region's list); the smallest index of a non-finite value into
//      flags[0] (atomicMin);
//   2. thread j's interval i = 256 g + j: its estimate, error and rounding floor (pair.rs);
//      for side cutting the piece into `pieces` and, when it is not within its share, i + 1
//      into flags[1] (atomicMax: the first accepted interval);
//   3. the group's sums over all its intervals in the fixed tree of block_reduce (the value's
//      accumulator, the lower- and upper-half errors, the floors): one partial a group;
//   4. the last block to finish (flags[2] counts them) reads first = flags[1]: the groups below
//      first's are zero and first's own is summed again from `pieces` with its lanes below
//      first zero, as the host's group_sums; it writes first and the smallest bad index after
//      the partials and resets the flags for the next step. A step is one launch and one copy
//      back (the partials), with nothing to upload but the Kronrod rule, once.
//
// The host splices in, at the one marked place, `typedef <double|dd_t|qd_t> real_t;` and the
// integrand of one variable, and `#define HPQ_REGION_TYPE <f64|dd|qd>`, which names the
// kernels (region_trapezoid_simpson_dd, ...), so that the host cannot launch them on another
// type. Doubles in block_reduce's tree (the errors and floors): plain sums, declared before
// reduce.cuh's templates, which find them by ordinary lookup (a double has no namespace for
// argument-dependent lookup to search).
__device__ __forceinline__ void acc_zero(double &a) { a = 0.0; }
__device__ __forceinline__ double acc_add(double a, double b) { return a + b; }
__device__ __forceinline__ double shfl_down(double v, int offset) {
    return __shfl_down_sync(0xffffffffu, v, offset);
}

#include "reduce.cuh"
#include "rule_points.cuh"
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
// T::from_accumulator: an f64 sum is rounded from its double-double, dd and qd are themselves.
__device__ __forceinline__ void from_acc(dd_t a, double &v) { v = dd_to_f64(a); }
__device__ __forceinline__ void from_acc(dd_t a, dd_t &v) { v = a; }
__device__ __forceinline__ void from_acc(qd_t a, qd_t &v) { v = a; }
// A value's leaf in the sums' tree: T::to_accumulator (a double is the double-double (v, 0)).
__device__ __forceinline__ dd_t leaf(double v) { return dd_make(v, 0.0); }
__device__ __forceinline__ dd_t leaf(dd_t v) { return v; }
__device__ __forceinline__ qd_t leaf(qd_t v) { return v; }

typedef unsigned long long u64;
typedef accumulator<real_t>::type acc_t;

// The region's lower end, interval width and upper end, limbs<real_t>::count doubles each
// (the host's RegionBounds, passed by value: nothing to upload).
struct RegionBounds {
    double v[12];
};

// The intervals' ends: end(i) = lower + width * i, end(n) = upper (Region::end); i < 2^53, so
// the index is exact in a double.
struct Ends {
    real_t lower, width, upper;
    u64 n;
    __device__ __forceinline__ real_t at(u64 i) const {
        if (i >= n) return upper;
        real_t index;
        make((double)i, index);
        return lower + width * index;
    }
};

__device__ __forceinline__ Ends ends_of(const RegionBounds &bounds, u64 n) {
    const int L = limbs<real_t>::count;
    Ends e;
    load(bounds.v, e.lower);
    load(bounds.v + L, e.width);
    load(bounds.v + 2 * L, e.upper);
    e.n = n;
    return e;
}

// One interval's result (pair.rs's Piece) and its width as a double, for its share.
struct Piece {
    real_t value;
    double error;
    double floor;
    double width;
};

// The paper's pair: Simpson's estimate, |Simpson - trapezoid| its error.
struct TrapezoidSimpson {
    __device__ __forceinline__ u64 points(u64 n) const { return 2 * n + 1; }
    __device__ __forceinline__ u64 first_point(u64 i) const { return 2 * i; }
    // The points past first_point(i + 1) that interval i needs: its upper end.
    __device__ __forceinline__ u64 tail() const { return 1; }

    // Point k: end(k / 2) for even k, the midpoint of interval k / 2 for odd k (pair.rs:
    // end[0] + (end[1] - end[0]).ldexp(-1)).
    __device__ __forceinline__ real_t point(const Ends &e, u64 k) const {
        const u64 i = k / 2;
        const real_t a = e.at(i);
        if (k % 2 == 0) return a;
        const real_t b = e.at(i + 1);
        return a + scaled(b - a, -1);
    }

    // pair.rs, trapezoid_simpson, in its order of operations.
    __device__ __forceinline__ Piece piece(const Ends &e, u64 i, const double *values, u64 count,
                                           double eps) const {
        const real_t a = e.at(i);
        const real_t b = e.at(i + 1);
        real_t fa, fm, fb, six;
        load_soa(values, 2 * i, count, fa);
        load_soa(values, 2 * i + 1, count, fm);
        load_soa(values, 2 * i + 2, count, fb);
        make(6.0, six);
        const real_t h = b - a;
        const real_t ends = fa + fb;
        // (f(a) + f(b)) h halved, as h/2 where the product overflows.
        const real_t whole = ends * h;
        const real_t trapezoid =
            isfinite(leading(whole)) ? scaled(whole, -1) : ends * scaled(h, -1);
        const real_t simpson = (ends + scaled(fm, 2)) * h / six;
        const double resabs = to_double(
            (magnitude_of(fa) + magnitude_of(fb) + scaled(magnitude_of(fm), 2)) * h / six);
        const double midpoint = to_double(magnitude_of(a + scaled(h, -1)));
        const double rounding = rounding_floor(to_double(simpson), eps);
        const double floor = fmax(4.0 * eps * resabs, rounding) +
                             2.0 / 3.0 * eps * midpoint * to_double(magnitude_of(fb - fa));
        Piece p;
        p.value = simpson;
        p.floor = floor;
        p.error = fmax(to_double(magnitude_of(simpson - trapezoid)), floor);
        p.width = to_double(h);
        return p;
    }
};

// A Gauss–Kronrod pair: `rule` holds the m non-negative Kronrod nodes (largest first, the last
// one 0), then their Kronrod weights, then their Gauss weights (0 off the Gauss nodes), then
// their complements 1 - x, each a real_t of limbs<real_t>::count doubles. An interval's 2m - 1
// points are those of KronrodRule::abscissae: the points of -x and x for each node but the
// last, then the centre (rule_points.cuh).
struct Kronrod {
    const double *rule;
    int nodes;

    __device__ __forceinline__ int per() const { return 2 * nodes - 1; }
    __device__ __forceinline__ real_t table(int t, int m) const {
        real_t v;
        load(rule + (t * nodes + m) * limbs<real_t>::count, v);
        return v;
    }
    __device__ __forceinline__ u64 points(u64 n) const { return n * per(); }
    __device__ __forceinline__ u64 first_point(u64 i) const { return i * per(); }
    __device__ __forceinline__ u64 tail() const { return 0; }

    // pair.rs: rules' push_abscissae on [a, b].
    __device__ __forceinline__ real_t point(const Ends &e, u64 k) const {
        const u64 i = k / per();
        const int j = (int)(k % per());
        const real_t a = e.at(i);
        const real_t b = e.at(i + 1);
        const int m = j / 2;
        const int side = m == nodes - 1 ? 0 : (j % 2 == 0 ? -1 : 1);
        return rule_point(a, b, rule_midpoint(a, b), rule_half_width(a, b), table(0, m),
                          table(3, m), side);
    }

    // The value at the interval's point j (KronrodRule::abscissae's order).
    __device__ __forceinline__ real_t value(const double *values, u64 base, int j,
                                            u64 count) const {
        real_t f;
        load_soa(values, base + j, count, f);
        return f;
    }

    // rules::abscissa_rounding: ε Σ w_j (|p_j| + |h| min(x_j, 1 - x_j)) |f'(p_j)| |h| over the
    // points in increasing order, f' from the neighbours' values, all in doubles.
    __device__ __forceinline__ double abscissa_rounding(const double *values, u64 base,
                                                        u64 count, double c, double h,
                                                        double eps) const {
        const int n = per();
        if (n < 2) return 0.0;
        const int pairs = n / 2;
        double p[3], v[3], w[3], o[3];  // lo, mid, hi: position, value, weight, offset
        auto at = [&](int j, int s) {
            int i, k;
            double side;
            if (j < pairs) {
                i = j, side = -1.0, k = 2 * j;
            } else if (n % 2 == 1 && j == pairs) {
                i = pairs, side = 0.0, k = n - 1;
            } else {
                i = n - 1 - j, side = 1.0, k = 2 * i + 1;
            }
            const double x = to_double(table(0, i));
            p[s] = c + side * h * x;
            v[s] = to_double(value(values, base, k, count));
            w[s] = to_double(table(1, i));
            o[s] = fabs(h) * rule_offset(x, to_double(table(3, i)));
        };
        double sum = 0.0;
        at(0, 0);
        at(0, 1);
        for (int j = 0; j < n; ++j) {
            at(j + 1 < n ? j + 1 : n - 1, 2);
            const double slope = (v[2] - v[0]) / (p[2] - p[0]);
            sum += w[1] * (fabs(p[1]) + o[1]) * fabs(slope);
            p[0] = p[1], v[0] = v[1], w[0] = w[1], o[0] = o[1];
            p[1] = p[2], v[1] = v[2], w[1] = w[2], o[1] = o[2];
        }
        return eps * sum * fabs(h);
    }

    // pair.rs, kronrod (gauss_kronrod::quadpack_estimate): KronrodRule::integrate scaled by the
    // whole width and halved (with_half_width), QUADPACK's error (the 1.5th power as
    // r sqrt(r), which both sides round alike), the floor.
    __device__ __forceinline__ Piece piece(const Ends &e, u64 i, const double *values, u64 count,
                                           double eps) const {
        const real_t a = e.at(i);
        const real_t b = e.at(i + 1);
        const real_t h = b - a;
        const u64 base = i * per();
        acc_t kronrod_sum, gauss_sum;
        acc_zero(kronrod_sum);
        acc_zero(gauss_sum);
        real_t abs_sum;
        make(0.0, abs_sum);
        for (int m = 0, j = 0; m < nodes; ++m) {
            const real_t w = table(1, m);
            const real_t g = table(2, m);
            for (int s = 0; s < (m == nodes - 1 ? 1 : 2); ++s, ++j) {
                const real_t f = value(values, base, j, count);
                kronrod_sum = acc_add(kronrod_sum, leaf(w * f));
                gauss_sum = acc_add(gauss_sum, leaf(g * f));
                abs_sum = abs_sum + w * magnitude_of(f);
            }
        }
        real_t kronrod, gauss;
        from_acc(kronrod_sum, kronrod);
        from_acc(gauss_sum, gauss);
        const real_t mean = scaled(kronrod, -1);
        real_t asc_sum;
        make(0.0, asc_sum);
        for (int m = 0, j = 0; m < nodes; ++m) {
            const real_t w = table(1, m);
            for (int s = 0; s < (m == nodes - 1 ? 1 : 2); ++s, ++j) {
                asc_sum = asc_sum + w * magnitude_of(value(values, base, j, count) - mean);
            }
        }
        real_t estimate, coarse;
        double resabs, resasc;
        bool whole = isfinite(leading(h));
        if (whole) {
            const real_t width = magnitude_of(h);
            const real_t k = kronrod * h, g = gauss * h;
            const real_t abs_whole = abs_sum * width, asc_whole = asc_sum * width;
            whole = isfinite(leading(k)) && isfinite(leading(abs_whole)) &&
                    isfinite(leading(asc_whole));
            if (whole) {
                estimate = scaled(k, -1);
                coarse = scaled(g, -1);
                resabs = to_double(scaled(abs_whole, -1));
                resasc = to_double(scaled(asc_whole, -1));
            }
        }
        if (!whole) {
            const real_t half = rule_half_width(a, b);
            const real_t scale = magnitude_of(half);
            estimate = kronrod * half;
            coarse = gauss * half;
            resabs = to_double(abs_sum * scale);
            resasc = to_double(asc_sum * scale);
        }
        double error = to_double(magnitude_of(estimate - coarse));
        if (resasc != 0.0 && error != 0.0) {
            const double r = 200.0 * error / resasc;
            error = resasc * fmin(r * sqrt(r), 1.0);
        }
        const double floor = fmax(
            fmax(4.0 * eps * resabs, rounding_floor(to_double(estimate), eps)),
            abscissa_rounding(values, base, count, to_double(rule_midpoint(a, b)),
                              to_double(rule_half_width(a, b)), eps));
        Piece p;
        p.value = estimate;
        p.error = fmax(error, floor);
        p.floor = floor;
        p.width = to_double(h);
        return p;
    }
};

// The sums of a group's lanes (every thread of the block calls it): the value of an accepted
// lane, its error in the lower (i < n / 2) or upper half, its floor; into out[0 .. AL + 3].
__device__ __forceinline__ void group_sums(const Piece &p, bool accepted, u64 i, u64 n,
                                           double *out) {
    const int AL = limbs<acc_t>::count;
    acc_t value;
    acc_zero(value);
    double lower_error = 0.0, upper_error = 0.0, floor = 0.0;
    if (accepted) {
        value = leaf(p.value);
        if (i < n / 2) {
            lower_error = p.error;
        } else {
            upper_error = p.error;
        }
        floor = p.floor;
    }
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
    __syncthreads();
}

// The step (see the head of this file). values: the pair's points(n) values, limb-major.
// pieces: n values (limb-major), then n errors, then n floors (side cutting only). partials:
// gridDim.x groups of AL + 3 doubles, then first and the bad index (-1: none). flags: the bad
// index (~0 between steps), first (0), the blocks done (0).
template <class Pair>
__device__ __forceinline__ void region_step(const Pair &pair, const RegionBounds &bounds, u64 n,
                                            double eps, int side, double tolerance, double span,
                                            double *values, double *pieces, double *partials,
                                            u64 *flags) {
    const int L = limbs<real_t>::count;
    const int AL = limbs<acc_t>::count;
    const Ends e = ends_of(bounds, n);
    const u64 count = pair.points(n);
    const u64 groups = gridDim.x;
    const u64 i0 = (u64)blockIdx.x * blockDim.x;
    const u64 i1 = i0 + blockDim.x < n ? i0 + blockDim.x : n;

    const u64 end = pair.first_point(i1) + pair.tail();
    for (u64 k = pair.first_point(i0) + threadIdx.x; k < end; k += blockDim.x) {
        const real_t y = integrand(pair.point(e, k));
        store_soa(values, k, count, y);
        if (!isfinite(leading(y))) atomicMin(&flags[0], k);
    }
    __syncthreads();

    const u64 i = i0 + threadIdx.x;
    Piece p;
    make(0.0, p.value);
    p.error = p.floor = p.width = 0.0;
    if (i < n) {
        p = pair.piece(e, i, values, count, eps);
        if (side) {
            store_soa(pieces, i, n, p.value);
            pieces[L * n + i] = p.error;
            pieces[(L + 1) * n + i] = p.floor;
            // Piece::is_final against the interval's share, tolerance · width / span.
            if (!(p.error <= fmax(tolerance * (p.width / span), 2.0 * p.floor))) {
                atomicMax(&flags[1], i + 1);
            }
        }
    }
    group_sums(p, i < n, i, n, partials + blockIdx.x * (AL + 3));

    // The last block: every other block's pieces and flags are visible after its fence.
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&flags[2], 1ull) == groups - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    const u64 first = atomicAdd(&flags[1], 0ull);
    if (first > 0) {
        const u64 at = first / blockDim.x;
        const u64 below = (at < groups ? at : groups) * (AL + 3);
        for (u64 z = threadIdx.x; z < below; z += blockDim.x) partials[z] = 0.0;
        if (at < groups) {
            const u64 j = at * blockDim.x + threadIdx.x;
            const bool accepted = j < n && j >= first;
            Piece q;
            make(0.0, q.value);
            q.error = q.floor = q.width = 0.0;
            if (accepted) {
                double limb[4];
                for (int l = 0; l < L; ++l) limb[l] = __ldcg(pieces + l * n + j);
                load(limb, q.value);
                q.error = __ldcg(pieces + L * n + j);
                q.floor = __ldcg(pieces + (L + 1) * n + j);
            }
            group_sums(q, accepted, j, n, partials + at * (AL + 3));
        }
    }
    if (threadIdx.x == 0) {
        const u64 bad = atomicAdd(&flags[0], 0ull);
        partials[groups * (AL + 3)] = (double)first;
        partials[groups * (AL + 3) + 1] = bad == ~0ull ? -1.0 : (double)bad;
        flags[0] = ~0ull;
        flags[1] = 0;
        flags[2] = 0;
    }
}

// blockDim.x == 256 (block_reduce's tree, the host's GROUP), one block a group.
extern "C" __global__ void __launch_bounds__(256)
    HPQ_CAT(region_trapezoid_simpson, HPQ_REGION_TYPE)(RegionBounds bounds, u64 n, double eps,
                                                       int side, double tolerance, double span,
                                                       double *values, double *pieces,
                                                       double *partials, u64 *flags) {
    region_step(TrapezoidSimpson(), bounds, n, eps, side, tolerance, span, values, pieces,
                partials, flags);
}

// rule: see Kronrod; nodes: m.
extern "C" __global__ void __launch_bounds__(256)
    HPQ_CAT(region_kronrod, HPQ_REGION_TYPE)(RegionBounds bounds, u64 n, const double *rule,
                                             int nodes, double eps, int side, double tolerance,
                                             double span, double *values, double *pieces,
                                             double *partials, u64 *flags) {
    Kronrod pair;
    pair.rule = rule;
    pair.nodes = nodes;
    region_step(pair, bounds, n, eps, side, tolerance, span, values, pieces, partials, flags);
}
