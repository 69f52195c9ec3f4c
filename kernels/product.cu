// The sums of the tensor-product Gauss–Legendre rule over many regions of R^D, one block of 64
// threads for each block of 64 fibers of a region: the device's twin of ProductRule::block_sums
// (src/methods/gauss_product.rs), operation for operation, so that every block's partial has
// the host's bits in double, dd_t and qd_t (the host adds the blocks of a region in block order
// with ProductSums::add, as the CPU backend does).
//
// A region's rule is an m_d-point Gauss–Legendre rule on each axis d (the shape, the same for
// every region of a launch, given at launch: m_d = (shape >> 8 d) & 255).
// A fiber is the line of m_0 points along axis 0; fiber f has, on axis d >= 1, the point of
// index digit_d(f) = (f / (m_1 ... m_(d-1))) % m_d (fiber_digits). Thread i of block b takes
// fiber 64 b + i and, in the order of its points j:
//   along  += to_acc(w_j * y_j)            (accumulator<real_t>: double-double for doubles)
//   tail_k += functional_k(j) * y_j        (axis 0's four spectrum functionals, in real_t)
//   abs    += to_double(w_j) * |to_double(y_j)|   (doubles)
// and the first point whose value is not finite; then W = ((1 * w_d1) * w_d2) ... over the
// other axes' points and weighted = W * from_acc(along). The block's sums over its fibers are
// added in fiber order, each by one thread (value, the four functionals of each axis, abs and
// the first bad point: 4 D + 3 threads), as block_sums adds them:
//   value         += to_acc(weighted)
//   tails[0][k]   += W * tail_k
//   tails[d][k]   += weighted * ratio_dk(digit_d)    (d >= 1; ratio = functional / weight)
//   abs           += to_double(W) * abs_fiber
// Compiled with --fmad=false: every product is rounded before the sum that takes it, as on the
// host (Rust never contracts a * b + c).
//
// The host splices in, at the one marked place, `typedef <double|dd_t|qd_t> real_t;`, the
// integrand of D variables (`integrand(real_t x)` of one, `integrand(const real_t *x)` of
// several), `#define HPQ_DIMS D`, `#define HPQ_BLOCK_FIBERS 64` (gauss_product::BLOCK_FIBERS)
// and `#define HPQ_PRODUCT_KERNEL gauss_product_<type>_<D>d`: the kernel's name says its type
// and its dimension, so that the host cannot launch it on regions of another dimension or read
// its partials as another type's.
#include "reduce.cuh"

// @@INTEGRAND@@

#if HPQ_DIMS < 1 || HPQ_DIMS > 8
#error "HPQ_DIMS must be 1 to 8"
#endif
#if HPQ_BLOCK_FIBERS != 64
#error "HPQ_BLOCK_FIBERS must be gauss_product::BLOCK_FIBERS, 64"
#endif

// What block_sums asks of T, for double, dd_t and qd_t: from_f64, to_f64 (Dd::to_f64 and
// Qd::to_f64 round the leading pair), T::from_accumulator and T::to_accumulator.
__device__ __forceinline__ void make(double x, double &v) { v = x; }
__device__ __forceinline__ void make(double x, dd_t &v) { v = dd_from_f64(x); }
__device__ __forceinline__ void make(double x, qd_t &v) { v = qd_from_f64(x); }
__device__ __forceinline__ double to_double(double v) { return v; }
__device__ __forceinline__ double to_double(dd_t v) { return dd_to_f64(v); }
__device__ __forceinline__ double to_double(qd_t v) { return qd_to_f64(v); }
// An f64 sum is rounded from its double-double; dd and qd are their own accumulators.
__device__ __forceinline__ void from_acc(dd_t a, double &v) { v = dd_to_f64(a); }
__device__ __forceinline__ void from_acc(dd_t a, dd_t &v) { v = a; }
__device__ __forceinline__ void from_acc(qd_t a, qd_t &v) { v = a; }
// A value as an accumulator term: a double is the double-double (v, 0), added with dd_add as
// the host adds Dd + Dd (never dd_add_f64, whose bits differ).
__device__ __forceinline__ dd_t leaf(double v) { return dd_make(v, 0.0); }
__device__ __forceinline__ dd_t leaf(dd_t v) { return v; }
__device__ __forceinline__ qd_t leaf(qd_t v) { return v; }

typedef unsigned long long u64;
typedef accumulator<real_t>::type acc_t;

// The points on axis d of a launch's shape.
__device__ __forceinline__ int axis_points(u64 shape, int d) { return (int)((shape >> (8 * d)) & 255); }

// points: the axis points of the launch's regions (ProductRule::axis_points), m_0 + ... +
// m_(D-1) values of real_t a region, region-major (point j of axis d of region r at
// (r * S + o_d + j) * limbs, S the sum of the m_d and o_d = m_0 + ... + m_(d-1)). rule: for
// each axis in turn, its weights (m_d values), its four functionals (4 rows of m_d) and their
// ratios to the weights (4 rows of m_d), real_t each (axis d's at 9 o_d). partials: one
// partial a block, in block order within region order (block b of region r at (r * blocks +
// b) * P doubles, P = acc limbs + 4 D limbs + 2): the value's accumulator, the tails axis by
// axis (four values each), Σ W |f|, and the index of the block's first point whose value is
// not finite (-1 if none; below 2^53, exact). blocks: the blocks of a region, ceil(m_1 ...
// m_(D-1) / 64). shape: m_d in bits 8 d to 8 d + 7. One block of HPQ_BLOCK_FIBERS threads for
// each (region, block) pair: gridDim.x = regions * blocks; dynamic shared memory for S + 5 m_0
// values of real_t (the region's axis points, axis 0's weights and functionals).
extern "C" __global__ void __launch_bounds__(HPQ_BLOCK_FIBERS)
    HPQ_PRODUCT_KERNEL(const double *__restrict__ points, const double *__restrict__ rule,
                       double *__restrict__ partials, u64 blocks, u64 shape) {
    const int L = limbs<real_t>::count;
    const int A = limbs<acc_t>::count;
    const int D = HPQ_DIMS;
    const int F = HPQ_BLOCK_FIBERS;
    static_assert(4 * HPQ_DIMS + 3 <= HPQ_BLOCK_FIBERS, "a thread for each of the block's sums");
    // Where each axis's points start in a region's points (and a ninth of where its tables
    // start in the rule), and their sum.
    int offset[D];
    int total = 0;
    for (int d = 0; d < D; ++d) {
        offset[d] = total;
        total += axis_points(shape, d);
    }
    const int M = axis_points(shape, 0);
    extern __shared__ double dynamic[];
    real_t *axis = reinterpret_cast<real_t *>(dynamic);
    real_t *weight = axis + total;
    real_t *functional = weight + M;
    // Each fiber's W, weighted, four functionals along axis 0, Σ w |f| and first bad point.
    __shared__ real_t fiber_weight[F];
    __shared__ real_t fiber_weighted[F];
    __shared__ real_t fiber_tail[4][F];
    __shared__ double fiber_abs[F];
    __shared__ u64 fiber_bad[F];

    const u64 r = blockIdx.x / blocks;
    const u64 block = blockIdx.x % blocks;
    for (int i = threadIdx.x; i < total; i += blockDim.x) {
        load(points + (r * total + i) * L, axis[i]);
    }
    for (int i = threadIdx.x; i < 5 * M; i += blockDim.x) {
        load(rule + i * L, weight[i]);
    }
    __syncthreads();

    // The fibers of a region, m_1 ... m_(D-1).
    u64 fibers = 1;
    for (int d = 1; d < D; ++d) fibers *= axis_points(shape, d);
    const u64 first = block * F;
    const u64 left = fibers - first;
    const int count = left < (u64)F ? (int)left : F;
    real_t zero, one;
    make(0.0, zero);
    make(1.0, one);

    if ((int)threadIdx.x < count) {
        const int i = threadIdx.x;
        const u64 fiber = first + i;
        // The fiber's point on the other axes, and W, their weights' product in axis order.
        real_t x[D];
        real_t w = one;
        u64 rest = fiber;
        for (int d = 1; d < D; ++d) {
            const int m = axis_points(shape, d);
            const int digit = (int)(rest % m);
            rest /= m;
            x[d] = axis[offset[d] + digit];
            real_t wd;
            load(rule + (9 * offset[d] + digit) * L, wd);
            w = w * wd;
        }
        acc_t along;
        acc_zero(along);
        real_t tail[4] = {zero, zero, zero, zero};
        double abs = 0.0;
        u64 bad = ~0ull;
        for (int j = 0; j < M; ++j) {
            x[0] = axis[j];
#if HPQ_DIMS == 1
            const real_t y = integrand(x[0]);
#else
            const real_t y = integrand(x);
#endif
            if (bad == ~0ull && !isfinite(leading(y))) bad = fiber * M + j;
            along = acc_add(along, leaf(weight[j] * y));
            for (int k = 0; k < 4; ++k) tail[k] = tail[k] + functional[k * M + j] * y;
            abs = abs + to_double(weight[j]) * fabs(to_double(y));
        }
        real_t value;
        from_acc(along, value);
        fiber_weight[i] = w;
        fiber_weighted[i] = w * value;
        for (int k = 0; k < 4; ++k) fiber_tail[k][i] = tail[k];
        fiber_abs[i] = abs;
        fiber_bad[i] = bad;
    }
    __syncthreads();

    double *out = partials + (u64)blockIdx.x * (A + 4 * D * L + 2);
    const int t = threadIdx.x;
    if (t == 0) {
        acc_t sum;
        acc_zero(sum);
        for (int i = 0; i < count; ++i) sum = acc_add(sum, leaf(fiber_weighted[i]));
        store(out, sum);
    } else if (t <= 4 * D) {
        const int d = (t - 1) / 4, k = (t - 1) % 4;
        real_t sum = zero;
        if (d == 0) {
            for (int i = 0; i < count; ++i) sum = sum + fiber_weight[i] * fiber_tail[k][i];
        } else {
            // Fiber f's point on axis d: (f / (m_1 ... m_(d-1))) % m_d; axis d's ratio k at
            // 9 o_d + (5 + k) m_d in the rule.
            const int m = axis_points(shape, d);
            u64 stride = 1;
            for (int e = 1; e < d; ++e) stride *= axis_points(shape, e);
            const double *ratio = rule + (9 * offset[d] + (5 + k) * m) * L;
            for (int i = 0; i < count; ++i) {
                const int digit = (int)(((first + i) / stride) % m);
                real_t q;
                load(ratio + digit * L, q);
                sum = sum + fiber_weighted[i] * q;
            }
        }
        store(out + A + (d * 4 + k) * L, sum);
    } else if (t == 4 * D + 1) {
        double sum = 0.0;
        for (int i = 0; i < count; ++i) sum = sum + to_double(fiber_weight[i]) * fiber_abs[i];
        out[A + 4 * D * L] = sum;
    } else if (t == 4 * D + 2) {
        double bad = -1.0;
        for (int i = 0; i < count; ++i) {
            if (fiber_bad[i] != ~0ull) {
                bad = (double)fiber_bad[i];
                break;
            }
        }
        out[A + 4 * D * L + 1] = bad;
    }
}
