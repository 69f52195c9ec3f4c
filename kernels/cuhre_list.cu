// CUHRE with the region list kept on the device between breadth-first rounds: the paper's first
// phase (Arumugam et al., ICPP 2013, ../shared/papers/cuhre-gpu-arumugam-et-al.txt: C-RULE,
// UPDATE, PARTITION by prefix scan and compaction) with PAGANI's filter of finished regions
// (Sakiotis et al., SC 2021). The host (src/methods/cuhre/device.rs) only decides the
// threshold and reads a few numbers a round; src/gpu/cuhre.rs launches these kernels:
//
//   rule    one warp a region: the rule's class sums and fourth differences, then each null
//           rule candidate's value (one a lane), then lane 0 computes the region's estimate,
//           null-rule error (DCUHRE's ratio test and the rule's safety factor), rounding floor
//           and split axis as CubatureRule::estimate and choose_axis do on the host
//           (src/methods/cuhre/rule.rs, regions.rs);
//   settle  one thread a region: DCUHRE's check of the two children against their parent, the
//           floor, finality (device.rs: settle); block sums of values, errors and volumes;
//   filter  one thread a region: active when splittable and its error exceeds density × volume
//           and relative × |its estimate| (device.rs: is_active, PAGANI's relative test with a
//           share of volume); block sums of the finished regions and the active count;
//   reduce  one block: the blocks' sums in a fixed order, and the exclusive scan of the active
//           counts (each block's first child); after the rule, the tolerance's share per unit
//           of volume, which the filter reads on the device (one copy back a round);
//   split   one thread a region: each active region's two halves along its axis into the next
//           list, in the order of the old list, and its value as their parent's; the finished
//           ones copied to the retired list, from which the same filter and split bring the
//           worst back when the retired errors pass their part of the tolerance.
//
// The host splices in `typedef <double|dd_t|qd_t> real_t;`, the integrand of D variables,
// `#define HPQ_DIMS D`, `#define HPQ_DEGREE 7|9` (the rule: Genz and Malik's degree 7 on five
// point classes, or DCUHRE's degree 9 on nine; src/methods/cuhre/genz_malik.rs, degree9.rs) and
// the five kernel names (cuhre_rule_<type>_<D>d_deg<7|9>, ...). Every sum is in a fixed order
// for a given list, so a run gives the same bits every time.
#include "reduce.cuh"
#include "rule_points.cuh"

// @@INTEGRAND@@

#define HPQ_WARPS 4

#if HPQ_DEGREE == 9
#define HPQ_CLASSES 9
#define HPQ_AXIS_CLASSES 4
#elif HPQ_DEGREE == 7
#define HPQ_CLASSES 5
#define HPQ_AXIS_CLASSES 2
#else
#error "HPQ_DEGREE must be 7 or 9"
#endif

// The rule's table `k`, as the host lays it out (src/methods/cuhre/rule.rs: device_table and
// its `table` indices, which a host test compares with these): a header of doubles, then values
// of real_t, each at a fixed slot whatever the rule (0 where it has no such class or candidate).
// Header: ε; the candidates of each of the three null spaces (their count, as doubles); |w| and
// the number of points of each class; each candidate's 1 / its 1-norm; the rule's factors on the
// null rules' error where the ratio test passed (CubatureRule::safety), for a region without a
// parent and for a half of a split. Values: λa, λb, λc, λd,
// λv and λa²/λb²; the weight per point of each class; each candidate's weights per point of
// each class, HPQ_K_SLOTS apart.
#define HPQ_K_SLOTS 9
#define HPQ_K_MAX_CANDIDATES 27
#define HPQ_K_EPSILON 0
#define HPQ_K_SPACES 1
#define HPQ_K_ABS_WEIGHTS 4
#define HPQ_K_SIZES 13
#define HPQ_K_INVERSE_NORMS 22
#define HPQ_K_SAFETY 49
#define HPQ_K_SAFETY_CHECKED 50
#define HPQ_K_HEADER 51
#define HPQ_K_GENERATORS 0
#define HPQ_K_WEIGHTS 6
#define HPQ_K_CANDIDATES 15
#define HPQ_K_DOUBLE(i) (k[(i)])
#define HPQ_K_REAL(i) (k + HPQ_K_HEADER + (i) * limbs<real_t>::count)

typedef accumulator<real_t>::type hpq_acc;

__device__ __forceinline__ double rounded(dd_t a, double) { return a.hi + a.lo; }
__device__ __forceinline__ dd_t rounded(dd_t a, dd_t) { return a; }
__device__ __forceinline__ qd_t rounded(qd_t a, qd_t) { return a; }

__device__ __forceinline__ double magnitude(double v) { return fabs(v); }
__device__ __forceinline__ double magnitude(dd_t v) { return fabs(v.hi + v.lo); }
__device__ __forceinline__ double magnitude(qd_t v) { return fabs(v.x[0] + v.x[1]); }
__device__ __forceinline__ double as_double(double v) { return v; }
__device__ __forceinline__ double as_double(dd_t v) { return v.hi + v.lo; }
__device__ __forceinline__ double as_double(qd_t v) { return v.x[0] + v.x[1]; }
__device__ __forceinline__ void acc_store(double *p, dd_t a) { store(p, a); }
__device__ __forceinline__ void acc_store(double *p, qd_t a) { store(p, a); }

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

// Whether [a, b] can be halved: adaptive.rs's splittable.
__device__ __forceinline__ bool splittable(real_t a, real_t b, double eps) {
    const double scale = fmax(magnitude(a), magnitude(b));
    return as_double(b - a) > 256.0 * eps * scale;
}

// Σ w_q S_q over the rule's classes in class order, in the accumulator, rounded: `w` the first
// of HPQ_CLASSES values of the table.
__device__ __forceinline__ real_t weigh(const double *w, const real_t *S) {
    hpq_acc a;
    acc_zero(a);
    for (int q = 0; q < HPQ_CLASSES; ++q) {
        real_t wq;
        load(w + q * limbs<real_t>::count, wq);
        a = acc_add(a, wq * S[q]);
    }
    return rounded(a, real_t());
}

// Each lane's point of the rule kernel: in shared memory at an odd stride (no bank conflicts
// between lanes) where the block's points fit in HPQ_POINT_BYTES, else in a local array.
#define HPQ_POINT_STRIDE (HPQ_DIMS | 1)
#define HPQ_POINT_BYTES (20 * 1024)
#define HPQ_POINTS_SHARED (HPQ_WARPS * 32 * HPQ_POINT_STRIDE * sizeof(real_t) <= HPQ_POINT_BYTES)
__device__ __forceinline__ real_t *point_of_lane(int warp, int lane) {
    __shared__ real_t points[HPQ_POINTS_SHARED ? HPQ_WARPS * 32 * HPQ_POINT_STRIDE : 1];
    return &points[HPQ_POINTS_SHARED ? (warp * 32 + lane) * HPQ_POINT_STRIDE : 0];
}

// lower, upper: regions * D values, region-major ((r * D + d) * limbs); checked: the regions are
// halves of a split, in pairs that HPQ_LIST_SETTLE checks against their parents (the smaller
// safety factor, HPQ_K_SAFETY_CHECKED). Outputs per region: its
// estimate (real_t), error and floor (doubles), axis (-1: none can be halved). first_bad: the
// smallest r * 2^24 + point index whose value is not finite (host-set to ~0). The points are
// those of src/backend.rs: rule_point, in its order: the center; on each axis i the axis classes
// (±λa, ±λb, then ±λc, ±λd for degree 9); the pairs ±λb e_i ± λb e_j; for degree 9 the mixed
// pairs (±λb e_i ± λa e_j, then ±λa e_i ± λb e_j, eight a pair) and the triples (±λb on three
// axes); the vertices ±λv.
extern "C" __global__ void HPQ_LIST_RULE(const double *__restrict__ lower,
                                         const double *__restrict__ upper,
                                         const double *__restrict__ k,
                                         unsigned long long regions, int checked,
                                         double *__restrict__ value, double *__restrict__ error,
                                         double *__restrict__ floor_out,
                                         int *__restrict__ axis_out,
                                         unsigned long long *__restrict__ first_bad) {
    const int D = HPQ_DIMS;
    const int L = limbs<real_t>::count;
    const int A = HPQ_AXIS_CLASSES;
    __shared__ real_t lo_s[HPQ_WARPS][D], hi_s[HPQ_WARPS][D], c_s[HPQ_WARPS][D];
    __shared__ real_t half_s[HPQ_WARPS][D];
    // λ h_d for the axis classes' generators (λa, λb, then λc, λd) and, last, the vertices' λv.
    __shared__ real_t step_s[HPQ_WARPS][HPQ_AXIS_CLASSES + 1][D];
    // f(c + λa h_i e_i), f(c - λa h_i e_i), f(c + λb h_i e_i), f(c - λb h_i e_i) for axis i,
    // then f(c).
    __shared__ real_t axis_values[HPQ_WARPS][4 * D + 1];
    // The class sums, and each null-rule candidate's |N f| / ‖N‖.
    __shared__ real_t sums_s[HPQ_WARPS][HPQ_CLASSES];
    __shared__ double candidate_s[HPQ_WARPS][HPQ_K_MAX_CANDIDATES];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
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
    const double eps = HPQ_K_DOUBLE(HPQ_K_EPSILON);
    const int candidates = (int)HPQ_K_DOUBLE(HPQ_K_SPACES) +
                           (int)HPQ_K_DOUBLE(HPQ_K_SPACES + 1) +
                           (int)HPQ_K_DOUBLE(HPQ_K_SPACES + 2);

    for (unsigned long long r = (unsigned long long)blockIdx.x * HPQ_WARPS + warp; r < regions;
         r += (unsigned long long)gridDim.x * HPQ_WARPS) {
        for (int d = lane; d < D; d += 32) {
            real_t l, u, lambda;
            load(lower + (r * D + d) * L, l);
            load(upper + (r * D + d) * L, u);
            lo_s[warp][d] = l;
            hi_s[warp][d] = u;
            // rules::half_width and rules::midpoint, as the host's regions take them.
            const real_t h = rule_half_width(l, u);
            half_s[warp][d] = h;
            c_s[warp][d] = rule_midpoint(l, u);
            for (int g = 0; g < A; ++g) {
                load(HPQ_K_REAL(HPQ_K_GENERATORS + g), lambda);
                step_s[warp][g][d] = lambda * h;
            }
            load(HPQ_K_REAL(HPQ_K_GENERATORS + 4), lambda);
            step_s[warp][A][d] = lambda * h;
        }
        __syncwarp();

        hpq_acc acc[HPQ_CLASSES];
        for (int q = 0; q < HPQ_CLASSES; ++q) acc_zero(acc[q]);
        // This lane's point: the center, each point's moved coordinates written before its value
        // and put back after it.
        real_t local_point[HPQ_POINTS_SHARED ? 1 : D];
        real_t *x = HPQ_POINTS_SHARED ? point_of_lane(warp, lane) : local_point;
        for (int d = 0; d < D; ++d) x[d] = c_s[warp][d];
        for (unsigned long long p = lane; p < count; p += 32) {
            int cls, moved[3] = {-1, -1, -1};
            if (p == 0) {
                cls = 0;
            } else if (p < on_axes) {
                // 1 + 2A i + 2g + s: the axis class g + 1 on axis i, s = 1 for minus.
                const unsigned m = (unsigned)(p - 1);
                const int i = (int)(m / (2 * A)), within = (int)(m % (2 * A)), g = within >> 1;
                const real_t s = step_s[warp][g][i];
                x[i] = (within & 1) ? x[i] - s : x[i] + s;
                moved[0] = i;
                cls = g + 1;
            } else if (p < on_pairs) {
                const unsigned m = (unsigned)(p - on_axes);
                int i, j;
                pair_of(m >> 2, i, j);
                const real_t si = step_s[warp][1][i], sj = step_s[warp][1][j];
                x[i] = (m & 1) ? x[i] - si : x[i] + si;
                x[j] = (m & 2) ? x[j] - sj : x[j] + sj;
                moved[0] = i;
                moved[1] = j;
                cls = A + 1;
            }
#if HPQ_DEGREE == 9
            else if (p < on_mixed) {
                // Bit 2 clear: λb on axis i and λa on axis j; set: λa on i and λb on j.
                const unsigned m = (unsigned)(p - on_pairs);
                int i, j;
                pair_of(m >> 3, i, j);
                const int gi = (m & 4) ? 0 : 1, gj = (m & 4) ? 1 : 0;
                const real_t si = step_s[warp][gi][i], sj = step_s[warp][gj][j];
                x[i] = (m & 1) ? x[i] - si : x[i] + si;
                x[j] = (m & 2) ? x[j] - sj : x[j] + sj;
                moved[0] = i;
                moved[1] = j;
                cls = 6;
            } else if (p < on_triples) {
                const unsigned m = (unsigned)(p - on_mixed);
                int i, j, l;
                triple_of(m >> 3, i, j, l);
                const real_t si = step_s[warp][1][i], sj = step_s[warp][1][j],
                             sl = step_s[warp][1][l];
                x[i] = (m & 1) ? x[i] - si : x[i] + si;
                x[j] = (m & 2) ? x[j] - sj : x[j] + sj;
                x[l] = (m & 4) ? x[l] - sl : x[l] + sl;
                moved[0] = i;
                moved[1] = j;
                moved[2] = l;
                cls = 7;
            }
#endif
            else {
                const unsigned long long m = p - on_triples;
                for (int d = 0; d < D; ++d) {
                    const real_t s = step_s[warp][A][d];
                    x[d] = ((m >> d) & 1) ? c_s[warp][d] - s : c_s[warp][d] + s;
                }
                cls = HPQ_CLASSES - 1;
            }
            const real_t y = integrand(x);
            if (!isfinite(leading(y))) atomicMin(first_bad, (r << 24) | p);
            if (cls == HPQ_CLASSES - 1) {
                for (int d = 0; d < D; ++d) x[d] = c_s[warp][d];
            } else {
                for (int k = 0; k < 3; ++k) {
                    if (moved[k] >= 0) x[moved[k]] = c_s[warp][moved[k]];
                }
            }
            if (p == 0) {
                axis_values[warp][4 * D] = y;
            } else if (p < on_axes) {
                // The first four points of each axis's block: ±λa, ±λb.
                const unsigned m = (unsigned)(p - 1);
                const int within = (int)(m % (2 * A));
                if (within < 4) axis_values[warp][4 * (int)(m / (2 * A)) + within] = y;
            }
            // A branch to the point's class (the same for most lanes of a pass: the classes are
            // runs of consecutive points) instead of a predicated addition into every class.
            switch (cls) {
            case 0: acc[0] = acc_add(acc[0], y); break;
            case 1: acc[1] = acc_add(acc[1], y); break;
            case 2: acc[2] = acc_add(acc[2], y); break;
            case 3: acc[3] = acc_add(acc[3], y); break;
            case 4: acc[4] = acc_add(acc[4], y); break;
#if HPQ_CLASSES == 9
            case 5: acc[5] = acc_add(acc[5], y); break;
            case 6: acc[6] = acc_add(acc[6], y); break;
            case 7: acc[7] = acc_add(acc[7], y); break;
            case 8: acc[8] = acc_add(acc[8], y); break;
#endif
            }
        }
        for (int q = 0; q < HPQ_CLASSES; ++q) acc[q] = warp_reduce(acc[q]);
        if (lane == 0) {
            for (int q = 0; q < HPQ_CLASSES; ++q) sums_s[warp][q] = rounded(acc[q], real_t());
        }
        __syncwarp();

        // The null rules' candidates, one a lane: |N f| / ‖N‖ as CubatureRule::estimate
        // weighs them.
        for (int c = lane; c < candidates; c += 32) {
            const real_t nf = weigh(HPQ_K_REAL(HPQ_K_CANDIDATES + HPQ_K_SLOTS * c), sums_s[warp]);
            candidate_s[warp][c] = magnitude(nf) * HPQ_K_DOUBLE(HPQ_K_INVERSE_NORMS + c);
        }
        __syncwarp();

        if (lane == 0) {
            const real_t *S = sums_s[warp];
            real_t volume = half_s[warp][0];
            for (int d = 1; d < D; ++d) volume = volume * half_s[warp][d];
            volume = rule_ldexp(volume, D);
            const real_t v = weigh(HPQ_K_REAL(HPQ_K_WEIGHTS), S) * volume;
            const double vol = magnitude(volume);
            // Null values within 64 ulp of the values' size (the largest class average) are
            // rounding: zero.
            double size = 0.0;
            for (int q = 0; q < HPQ_CLASSES; ++q) {
                const double points = HPQ_K_DOUBLE(HPQ_K_SIZES + q);
                if (points > 0.0) size = fmax(size, magnitude(S[q]) / points);
            }
            const double noise = 64.0 * eps * size;
            double e[3];
            int c = 0;
            for (int n = 0; n < 3; ++n) {
                const int in_space = (int)HPQ_K_DOUBLE(HPQ_K_SPACES + n);
                double largest = 0.0;
                for (int j = 0; j < in_space; ++j, ++c) largest = fmax(largest, candidate_s[warp][c]);
                e[n] = largest > noise ? largest : 0.0;
            }
            const bool asymptotic = 5.0 * e[0] <= e[1] && 5.0 * e[1] <= e[2];
#if HPQ_DEGREE == 9
            // e1 at least the terms' trend e2²/e3 (rule.rs: the degree-9 plane can be blind).
            const double trend = e[2] > 0.0 ? e[1] * (e[1] / e[2]) : 0.0;
#else
            const double trend = 0.0;
#endif
            double err =
                vol * (asymptotic ? fmax(e[0], trend) : 5.0 * fmax(e[0], fmax(e[1], e[2])));
            // The rule's factor where the ratio test passed (CubatureRule::claimed_error), the
            // smaller one when the regions are halves that HPQ_LIST_SETTLE checks (`checked`).
            if (asymptotic) err *= HPQ_K_DOUBLE(checked ? HPQ_K_SAFETY_CHECKED : HPQ_K_SAFETY);
            double mag = 0.0;
            for (int q = 0; q < HPQ_CLASSES; ++q) {
                mag += HPQ_K_DOUBLE(HPQ_K_ABS_WEIGHTS + q) * magnitude(S[q]);
            }
            const double fl = 4.0 * eps * mag * vol + 2.0 * eps * magnitude(v);

            // The axis: regions.rs's choose_axis on the fourth differences.
            real_t ratio;
            load(HPQ_K_REAL(HPQ_K_GENERATORS + 5), ratio);
            const double axis_noise =
                8.0 * eps * (4.0 * magnitude(S[0]) + (magnitude(S[1]) + magnitude(S[2])) / D);
            const real_t centre2 = axis_values[warp][4 * D] + axis_values[warp][4 * D];
            double diff[D];
            double largest = -1.0;  // differences are magnitudes
            for (int d = 0; d < D; ++d) {
                const real_t *a = &axis_values[warp][4 * d];
                const real_t second_a = a[0] + a[1] - centre2;
                const real_t second_b = a[2] + a[3] - centre2;
                diff[d] = magnitude(second_a - ratio * second_b);
                if (splittable(lo_s[warp][d], hi_s[warp][d], eps)) largest = fmax(largest, diff[d]);
            }
            int best = -1;
            double best_width = 0.0;
            for (int d = 0; d < D; ++d) {
                if (!splittable(lo_s[warp][d], hi_s[warp][d], eps)) continue;
                const double width = as_double(hi_s[warp][d] - lo_s[warp][d]);
                const bool tied = largest - diff[d] <= fmax(axis_noise, 1e-12 * largest);
                if (tied && (best < 0 || width > best_width)) {
                    best = d;
                    best_width = width;
                }
            }
            store(value + r * L, v);
            error[r] = err;
            floor_out[r] = fl;
            axis_out[r] = best;
        }
        // The next region overwrites this warp's shared arrays.
        __syncwarp();
    }
}

// The doubles of one block's sums: a value accumulator, an error and a volume in double-double,
// a count.
#define HPQ_ACC_LIMBS (sizeof(hpq_acc) / sizeof(double))
#define HPQ_PARTIAL (HPQ_ACC_LIMBS + 5)

__device__ __forceinline__ double region_volume(const double *lower, const double *upper,
                                                unsigned long long r) {
    const int D = HPQ_DIMS;
    const int L = limbs<real_t>::count;
    double v = 1.0;
    for (int d = 0; d < D; ++d) {
        real_t l, u;
        load(lower + (r * D + d) * L, l);
        load(upper + (r * D + d) * L, u);
        v *= as_double(u - l);
    }
    return v;
}

// Writes block sums (value, error, volume, count) of this thread's share; every thread calls.
__device__ __forceinline__ void block_sums(hpq_acc v, dd_t e, dd_t vol, double n,
                                           double *partials) {
    double *out = partials + (unsigned long long)blockIdx.x * HPQ_PARTIAL;
    v = block_reduce(v);
    if (threadIdx.x == 0) acc_store(out, v);
    __syncthreads();
    e = block_reduce(e);
    if (threadIdx.x == 0) store(out + HPQ_ACC_LIMBS, e);
    __syncthreads();
    vol = block_reduce(vol);
    if (threadIdx.x == 0) store(out + HPQ_ACC_LIMBS + 2, vol);
    __syncthreads();
    dd_t c = block_reduce(dd_make(n, 0.0));
    if (threadIdx.x == 0) out[HPQ_ACC_LIMBS + 4] = c.hi;
}

// One thread a region, blocks of 256 without a stride (block b's sums at partials[b]). With
// `pairs`, regions 2p and 2p + 1 are the halves of parent p (value parent[p]): DCUHRE's check
// scales both errors by 1 + 2d/(e_l + e_r) and adds d = |I_l + I_r - I_p| / 4. Then the error is
// at least the floor, and a region within twice its floor is final (axis -1).
extern "C" __global__ void HPQ_LIST_SETTLE(const double *__restrict__ lower,
                                           const double *__restrict__ upper,
                                           const double *__restrict__ value,
                                           const double *__restrict__ error,
                                           const double *__restrict__ floor_in,
                                           const double *__restrict__ parent, int pairs,
                                           unsigned long long regions, int *__restrict__ axis,
                                           double *__restrict__ settled,
                                           double *__restrict__ partials) {
    const int L = limbs<real_t>::count;
    const unsigned long long r = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    hpq_acc v;
    acc_zero(v);
    dd_t e = dd_make(0.0, 0.0), vol = dd_make(0.0, 0.0);
    if (r < regions) {
        real_t mine;
        load(value + r * L, mine);
        double err = error[r];
        if (pairs) {
            const unsigned long long p = r >> 1;
            real_t left, right, up;
            load(value + 2 * p * L, left);
            load(value + (2 * p + 1) * L, right);
            load(parent + p * L, up);
            const double d = magnitude(left + right - up) / 4.0;
            const double sum = error[2 * p] + error[2 * p + 1];
            if (sum > 0.0) err *= 1.0 + 2.0 * d / sum;
            err += d;
        }
        const double fl = floor_in[r];
        err = fmax(err, fl);
        if (err <= 2.0 * fl) axis[r] = -1;
        settled[r] = err;
        v = acc_add(v, mine);
        e = dd_make(err, 0.0);
        vol = dd_make(region_volume(lower, upper, r), 0.0);
    }
    block_sums(v, e, vol, 0.0, partials);
}

// One thread a region, the blocks of HPQ_LIST_SETTLE: active[r] = 1 when region r has an axis,
// its error exceeds density × its volume (the density is *density_at when from_device, the
// rule's reduction having computed it there) and relative × |its estimate| (device.rs:
// is_active). The block's sums are over the finished regions,
// or over the active ones with `tally_active` (the retired regions brought back); its count is
// the active ones.
extern "C" __global__ void HPQ_LIST_FILTER(const double *__restrict__ lower,
                                           const double *__restrict__ upper,
                                           const double *__restrict__ value,
                                           const double *__restrict__ settled,
                                           const int *__restrict__ axis, double density,
                                           double relative,
                                           const double *__restrict__ density_at,
                                           int from_device, int tally_active,
                                           unsigned long long regions,
                                           unsigned char *__restrict__ active,
                                           double *__restrict__ partials) {
    const int L = limbs<real_t>::count;
    const unsigned long long r = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (from_device) density = *density_at;
    hpq_acc v;
    acc_zero(v);
    dd_t e = dd_make(0.0, 0.0), vol = dd_make(0.0, 0.0);
    double n = 0.0;
    if (r < regions) {
        const double volume = region_volume(lower, upper, r);
        real_t mine;
        load(value + r * L, mine);
        const bool on = axis[r] >= 0 && settled[r] > density * volume &&
                        settled[r] > relative * magnitude(mine);
        active[r] = on ? 1 : 0;
        if (on) n = 1.0;
        if (on == (tally_active != 0)) {
            v = acc_add(v, mine);
            e = dd_make(settled[r], 0.0);
            vol = dd_make(volume, 0.0);
        }
    }
    block_sums(v, e, vol, n, partials);
}

// The sum of v over lanes 0..lane of the warp. Every lane must call it.
__device__ __forceinline__ unsigned long long inclusive_warp_scan(unsigned long long v,
                                                                  int lane) {
    for (int offset = 1; offset < 32; offset <<= 1) {
        const unsigned long long below = __shfl_up_sync(0xffffffffu, v, offset);
        if (lane >= offset) v += below;
    }
    return v;
}

// One block of 1024 threads: the sums of `blocks` partials (thread t adds a contiguous run of
// them in order, then the block tree), into out[0 .. HPQ_PARTIAL), then *first_bad's bits (and
// *first_bad is reset for the next rule); with `scan`, offsets[b] = the active regions of the
// blocks before b. With `share`, out[HPQ_PARTIAL + 1] = the tolerance's share per unit of the
// list's volume (device.rs: the density): tol = max(absolute, relative |retired_value + I|),
// part * max(tol - spent, 0) / volume.
// 1024 threads: at most 64 registers each (the qd accumulator's sums and the scan's counts
// need more without the bound, and the launch fails).
extern "C" __global__ void __launch_bounds__(1024)
    HPQ_LIST_REDUCE(const double *__restrict__ partials, unsigned long long blocks, int scan,
                    unsigned long long *__restrict__ first_bad,
                    unsigned long long *__restrict__ offsets, int share, double absolute,
                    double relative, double retired_value, double spent, double part,
                    double *__restrict__ out) {
    const unsigned long long per = (blocks + blockDim.x - 1) / blockDim.x;
    const unsigned long long start = threadIdx.x * per;
    const unsigned long long stop = start + per < blocks ? start + per : blocks;
    hpq_acc v;
    acc_zero(v);
    dd_t e = dd_make(0.0, 0.0), vol = dd_make(0.0, 0.0);
    unsigned long long n = 0;
    for (unsigned long long b = start; b < stop; ++b) {
        const double *p = partials + b * HPQ_PARTIAL;
        hpq_acc pv;
        load(p, pv);
        v = acc_add(v, pv);
        e = dd_add(e, dd_make(p[HPQ_ACC_LIMBS], p[HPQ_ACC_LIMBS + 1]));
        vol = dd_add(vol, dd_make(p[HPQ_ACC_LIMBS + 2], p[HPQ_ACC_LIMBS + 3]));
        n += (unsigned long long)p[HPQ_ACC_LIMBS + 4];
    }
    // The counts' exclusive scan over the threads (thread t's first offset) and their total:
    // inclusive scans in each warp, then over the warps' totals.
    __shared__ unsigned long long warp_scan[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const unsigned long long inclusive = inclusive_warp_scan(n, lane);
    if (lane == 31) warp_scan[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        const unsigned long long total_of_lane = lane < warps ? warp_scan[lane] : 0;
        const unsigned long long w = inclusive_warp_scan(total_of_lane, lane);
        if (lane < warps) warp_scan[lane] = w;
    }
    __syncthreads();
    const unsigned long long first = inclusive - n + (warp > 0 ? warp_scan[warp - 1] : 0);
    const unsigned long long total = warp_scan[warps - 1];
    v = block_reduce(v);
    if (threadIdx.x == 0) acc_store(out, v);
    __syncthreads();
    e = block_reduce(e);
    if (threadIdx.x == 0) store(out + HPQ_ACC_LIMBS, e);
    __syncthreads();
    vol = block_reduce(vol);
    if (threadIdx.x == 0) {
        store(out + HPQ_ACC_LIMBS + 2, vol);
        out[HPQ_ACC_LIMBS + 4] = (double)total;
        out[HPQ_ACC_LIMBS + 5] = __longlong_as_double((long long)*first_bad);
        *first_bad = ~0ull;
        if (share) {
            const double integral = retired_value + as_double(rounded(v, real_t()));
            const double tol = fmax(absolute, relative * fabs(integral));
            const double volume = vol.hi + vol.lo;
            out[HPQ_ACC_LIMBS + 6] = volume > 0.0 ? part * fmax(tol - spent, 0.0) / volume : 0.0;
        }
    }
    if (scan) {
        unsigned long long at = first;
        for (unsigned long long b = start; b < stop; ++b) {
            offsets[b] = at;
            at += (unsigned long long)partials[b * HPQ_PARTIAL + HPQ_ACC_LIMBS + 4];
        }
    }
}

// One thread a region of the old list, the blocks of HPQ_LIST_FILTER: active region r, the
// k-th active one in list order, becomes regions 2 (first + k) (the lower half along its axis)
// and 2 (first + k) + 1 of the next list, and parent[first + k] its value; with `kill` (the
// retired list: these regions are brought back) its entry is emptied (no axis, value and error
// 0). With `keep`, finished region r, the j-th finished one (j = r - k), is copied to entry
// keep_first + j of the retired list (corners, value, error, axis).
extern "C" __global__ void HPQ_LIST_SPLIT(const double *__restrict__ lower,
                                          const double *__restrict__ upper,
                                          double *__restrict__ value,
                                          double *__restrict__ settled,
                                          int *__restrict__ axis,
                                          const unsigned char *__restrict__ active,
                                          const unsigned long long *__restrict__ offsets,
                                          unsigned long long regions, unsigned long long first,
                                          int kill, double *__restrict__ next_lower,
                                          double *__restrict__ next_upper,
                                          double *__restrict__ parent, int keep,
                                          unsigned long long keep_first,
                                          double *__restrict__ kept_lower,
                                          double *__restrict__ kept_upper,
                                          double *__restrict__ kept_value,
                                          double *__restrict__ kept_settled,
                                          int *__restrict__ kept_axis) {
    const int D = HPQ_DIMS;
    const int L = limbs<real_t>::count;
    __shared__ unsigned warp_counts[32];
    const unsigned long long r = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const bool on = r < regions && active[r];
    const unsigned mask = __ballot_sync(0xffffffffu, on);
    if (lane == 0) warp_counts[warp] = __popc(mask);
    __syncthreads();
    if (r >= regions) return;
    unsigned before = 0;
    for (int w = 0; w < warp; ++w) before += warp_counts[w];
    // The active regions before r in list order.
    const unsigned long long k =
        offsets[blockIdx.x] + before + __popc(mask & ((1u << lane) - 1u));
    if (!on) {
        if (keep) {
            const unsigned long long j = keep_first + (r - k);
            for (int d = 0; d < D; ++d) {
                for (int l = 0; l < L; ++l) {
                    kept_lower[(j * D + d) * L + l] = lower[(r * D + d) * L + l];
                    kept_upper[(j * D + d) * L + l] = upper[(r * D + d) * L + l];
                }
            }
            for (int l = 0; l < L; ++l) kept_value[j * L + l] = value[r * L + l];
            kept_settled[j] = settled[r];
            kept_axis[j] = axis[r];
        }
        return;
    }
    const unsigned long long to = first + k;
    const int a = axis[r];
    for (int d = 0; d < D; ++d) {
        real_t l, u;
        load(lower + (r * D + d) * L, l);
        load(upper + (r * D + d) * L, u);
        real_t left_upper = u, right_lower = l;
        if (d == a) {
            const real_t middle = rule_midpoint(l, u);
            left_upper = middle;
            right_lower = middle;
        }
        store(next_lower + (2 * to * D + d) * L, l);
        store(next_upper + (2 * to * D + d) * L, left_upper);
        store(next_lower + ((2 * to + 1) * D + d) * L, right_lower);
        store(next_upper + ((2 * to + 1) * D + d) * L, u);
    }
    real_t mine;
    load(value + r * L, mine);
    store(parent + to * L, mine);
    if (kill) {
        axis[r] = -1;
        settled[r] = 0.0;
        for (int l = 0; l < L; ++l) value[r * L + l] = 0.0;
    }
}
