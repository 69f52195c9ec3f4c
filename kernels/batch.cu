// Many integrals at once, one per thread: the methods of src/methods/batch/ (faq.rs,
// simpson.rs, kronrod.rs) for integrals in x of an integrand with parameters, each thread
// integrating over its own [a, b] with its own parameter values.
//
// Every operation is the host's, in the host's order, on the same types: real_t arithmetic
// through dd.cuh / qd.cuh (the host's algorithms), comparisons lexicographic on the limbs as
// the host's PartialOrd, sums in the host's accumulator (double-double for doubles, added as
// a full dd + dd), the f64 bookkeeping (error bounds, tolerances) in plain IEEE operations
// compiled with --fmad=false, and no libm/libdevice function where the host's result feeds the
// algorithm: FAQ's e^-d is exp_neg (faq.rs) and QUADPACK's x^1.5 is x * sqrt(x) (kronrod.rs),
// both mirrored here. So in dd and qd a thread's value, error and evaluation count are the
// host's bits; in double the integrand's transcendental functions are libdevice's and may move
// the last bits.
//
// The host splices in, at the one marked place, `typedef <double|dd_t|qd_t> real_t;`, the
// integrand (`integrand(real_t x)` when it has no parameter, `integrand(const real_t *x)` of
// x and the parameters otherwise), `#define HPQ_VARS <1 + parameters>`, `#define
// HPQ_BATCH_<FAQ|SIMPSON|KRONROD>` and `#define HPQ_BATCH_KERNEL
// batch_<faq|simpson|kronrod>_<f64|dd|qd>_<vars>v`, and for Gauss–Kronrod `#define
// HPQ_KRONROD_NODES <n + 1>`; the simpson depth and the kronrod pieces are
// HPQ_SIMPSON_DEPTH and HPQ_KRONROD_PIECES, the host's constants. The kernel's name says
// method, type and number of variables, so the host cannot launch it on data of another shape.
//
// The host also splices in, after the integrand, the bounds as functions of the parameters,
// `real_t hpq_bound_<k>(const real_t *params)` (k = 0, 1: x lower and upper; 2, 3: y), and
// `#define HPQ_PARAMS <parameters>`: each thread makes its own row's parameters (a sweep from
// its index, or an uploaded value) and bounds, so that the host sends no per-row data for a
// sweep and evaluates no bound.
//
// Arrays of real_t with one value per row travel limb-major as in evaluate.cu (limb j of
// element i at p[j * n + i]).
#include "reduce.cuh"
#include "rule_points.cuh"
#include "soa.cuh"

// @@INTEGRAND@@

// ---- real_t as the host's Real --------------------------------------------------------------

__device__ __forceinline__ void bq_set(double &r, double x) { r = x; }
__device__ __forceinline__ void bq_set(dd_t &r, double x) { r = dd_from_f64(x); }
__device__ __forceinline__ void bq_set(qd_t &r, double x) { r = qd_from_f64(x); }
// T::from_f64 (and T::from_i64 of a small integer, the same value).
__device__ __forceinline__ real_t R(double x) {
    real_t r;
    bq_set(r, x);
    return r;
}

// T::to_f64: the leading two limbs added.
__device__ __forceinline__ double to_f64(double a) { return a; }
__device__ __forceinline__ double to_f64(dd_t a) { return dd_to_f64(a); }
__device__ __forceinline__ double to_f64(qd_t a) { return qd_to_f64(a); }

// T::abs: negated when the leading limb's sign is negative.
__device__ __forceinline__ double bq_abs(double a) { return fabs(a); }
__device__ __forceinline__ dd_t bq_abs(dd_t a) { return signbit(a.hi) ? dd_neg(a) : a; }
__device__ __forceinline__ qd_t bq_abs(qd_t a) { return signbit(a.x[0]) ? qd_neg(a) : a; }

// T::ldexp.
__device__ __forceinline__ double bq_ldexp(double a, int k) { return hpq_ldexp(a, k); }
__device__ __forceinline__ dd_t bq_ldexp(dd_t a, int k) { return dd_ldexp(a, k); }
__device__ __forceinline__ qd_t bq_ldexp(qd_t a, int k) { return qd_ldexp(a, k); }

// ==, < and <= as the host's PartialEq (limb by limb) and PartialOrd (lexicographic on the
// limbs); never called on NaN.
__device__ __forceinline__ bool eq(double a, double b) { return a == b; }
__device__ __forceinline__ bool eq(dd_t a, dd_t b) { return a.hi == b.hi && a.lo == b.lo; }
__device__ __forceinline__ bool eq(qd_t a, qd_t b) {
    return a.x[0] == b.x[0] && a.x[1] == b.x[1] && a.x[2] == b.x[2] && a.x[3] == b.x[3];
}
__device__ __forceinline__ bool lt(double a, double b) { return a < b; }
__device__ __forceinline__ bool lt(dd_t a, dd_t b) {
    return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}
__device__ __forceinline__ bool lt(qd_t a, qd_t b) {
    for (int i = 0; i < 4; ++i) {
        if (a.x[i] != b.x[i]) return a.x[i] < b.x[i];
    }
    return false;
}
__device__ __forceinline__ bool le(real_t a, real_t b) { return lt(a, b) || eq(a, b); }
__device__ __forceinline__ bool is_zero(real_t a) { return eq(a, R(0.0)); }
__device__ __forceinline__ bool bq_finite(real_t a) { return isfinite(leading(a)); }

// T::Accumulator: double-double for doubles (a value enters as dd_t(v, 0) through the full
// dd + dd, as Dd::from_f64(v) + acc on the host), the type itself otherwise.
__device__ __forceinline__ dd_t acc_of(double) { return dd_make(0.0, 0.0); }
__device__ __forceinline__ dd_t acc_of(dd_t) { return dd_make(0.0, 0.0); }
__device__ __forceinline__ qd_t acc_of(qd_t) { return qd_make(0.0, 0.0, 0.0, 0.0); }
__device__ __forceinline__ dd_t acc_plus(dd_t a, double v) { return dd_add(a, dd_from_f64(v)); }
__device__ __forceinline__ dd_t acc_plus(dd_t a, dd_t v) { return dd_add(a, v); }
__device__ __forceinline__ qd_t acc_plus(qd_t a, qd_t v) { return qd_add(a, v); }
__device__ __forceinline__ double acc_value(dd_t a, double) { return dd_to_f64(a); }
__device__ __forceinline__ dd_t acc_value(dd_t a, dd_t) { return a; }
__device__ __forceinline__ qd_t acc_value(qd_t a, qd_t) { return a; }
typedef decltype(acc_of(real_t())) bq_acc_t;

// ---- the integrand of one thread, its tolerance, its failure ---------------------------------

// The integrand at x with this thread's parameters (variables 1..HPQ_VARS-1).
#if HPQ_COORDS == 1
struct Point {
#if HPQ_VARS == 1
    __device__ __forceinline__ real_t at(real_t x) { return integrand(x); }
#else
    real_t vars[HPQ_VARS];
    __device__ __forceinline__ real_t at(real_t x) {
        vars[0] = x;
        return integrand(vars);
    }
#endif
};
#endif

// Tolerance (methods/batch/mod.rs): max(absolute, relative |I|).
struct Tol {
    double relative, absolute;
    __device__ __forceinline__ double target(double magnitude) const {
        return fmax(absolute, relative * fabs(magnitude));
    }
    __device__ __forceinline__ bool is_met(double error, double magnitude) const {
        return error <= target(magnitude);
    }
};

// What a thread found: the estimate, or the point where the integrand was not finite.
struct Found {
    real_t value;
    double error;
    unsigned long long evaluations;
    bool converged;
    real_t bad_x, bad_value;
};

// methods::rounding_floor (reduce.cuh).
__device__ __forceinline__ double rounding(real_t magnitude, double eps) {
    return rounding_floor(to_f64(magnitude), eps);
}

// f at an interior point, which must be finite (faq.rs's sample).
template <class F>
__device__ __forceinline__ bool sample(F &f, real_t x, unsigned long long &evaluations,
                                       Found &out, real_t &y) {
    evaluations += 1;
    y = f.at(x);
    if (bq_finite(y)) return true;
    out.bad_x = x;
    out.bad_value = y;
    return false;
}

// f at an end, sampled ε |inward| inside when not finite there (faq.rs's at_end).
template <class F>
__device__ __forceinline__ bool at_end(F &f, real_t x, real_t inward, real_t eps,
                                       unsigned long long &evaluations, Found &out,
                                       real_t &y) {
    evaluations += 1;
    y = f.at(x);
    if (bq_finite(y)) return true;
    return sample(f, x + inward * eps, evaluations, out, y);
}

#if defined(HPQ_BATCH_FAQ)
// ---- faq.rs ----------------------------------------------------------------------------------

// faq.rs's exp_neg: e^-d for d >= 0 from + - * / and floor, the host's bits.
__device__ double exp_neg(double d) {
    const double LN2_HI = __longlong_as_double(0x3fe62e42fee00000LL);
    const double LN2_LO = __longlong_as_double(0x3dea39ef35793c76LL);
    const double LOG2_E = __longlong_as_double(0x3ff71547652b82feLL);  // std's LOG2_E
    if (!(d < 700.0)) return 0.0;
    const double k = floor(d * LOG2_E + 0.5);
    const double r = (k * LN2_HI - d) + k * LN2_LO;
    double s = 1.0;
    for (int n = 13; n >= 1; --n) s = 1.0 + r * s / (double)n;
    return s * __longlong_as_double((1023LL - (long long)k) << 52);
}

template <class F>
__device__ bool faq(F &f, real_t a, real_t b, double step_min, double step_max, real_t eps,
                    Found &out) {
    const real_t width = b - a;
    const real_t h_min = width * R(step_min);
    const real_t h_max = width * R(step_max);
    unsigned long long evaluations = 0;

    real_t h = h_min;
    real_t p = a;
    real_t last_val;
    if (!at_end(f, a, width, eps, evaluations, out, last_val)) return false;
    const real_t probe_x = a + h / R(10.0);
    real_t probe;
    if (!sample(f, probe_x, evaluations, out, probe)) return false;
    real_t last_hill = (probe - last_val) / (probe_x - a);
    bq_acc_t q = acc_of(real_t());

    real_t last_slope = last_hill;
    real_t last_width = probe_x - a;
    bool has_left = false, has_pending = false;
    double left_d2 = 0.0, pending = 0.0, bound = 0.0;

    while (lt(p, b)) {
        const real_t ahead = p + h;
        const real_t next = le(b, ahead) ? b : ahead;
        const real_t step = next - p;
        real_t this_val;
        if (eq(next, b)) {
            if (!at_end(f, b, -width, eps, evaluations, out, this_val)) return false;
        } else {
            if (!sample(f, next, evaluations, out, this_val)) return false;
        }
        const real_t this_hill = bq_abs(this_val - last_val) / step;
        q = acc_plus(q, bq_ldexp(step * (this_val + last_val), -1));
        const real_t change = this_hill - last_hill;
        const double ratio = is_zero(change) ? 0.0 : to_f64(bq_abs(change / this_hill));
        const double d = fmax(ratio, to_f64(bq_abs(change)));
        h = h_min + R(exp_neg(d)) * (h_max - h_min);

        const real_t slope = (this_val - last_val) / step;
        const double d2 = 2.0 * to_f64(bq_abs((slope - last_slope) / (last_width + step)));
        if (has_pending) {
            bound = bound + pending / 12.0 * fmax(has_left ? left_d2 : d2, d2);
            has_pending = false;
        }
        has_left = true;
        left_d2 = d2;
        const double s = to_f64(step);
        pending = s * s * s;
        has_pending = true;
        last_slope = slope;
        last_width = step;

        p = next;
        last_val = this_val;
        last_hill = this_hill;
    }
    if (has_pending) bound = bound + pending / 12.0 * (has_left ? left_d2 : 0.0);
    out.value = acc_value(q, real_t());
    out.error = fmax(bound, rounding(out.value, to_f64(eps)));
    out.evaluations = evaluations;
    out.converged = true;
    return true;
}
#endif

#if defined(HPQ_BATCH_SIMPSON)
// ---- simpson.rs ------------------------------------------------------------------------------

struct Panel {
    real_t a, b, fa, fc, fb;
    int depth;
};

template <class F>
__device__ bool simpson(F &f, real_t a, real_t b, Tol tolerance,
                        unsigned long long max_evaluations, real_t fraction, real_t eps,
                        Found &out) {
    const real_t width = b - a;
    const real_t h0 = width * fraction;
    const real_t two = R(2.0);
    real_t x[7] = {a, a + h0, a + two * h0, bq_ldexp(a + b, -1), b - two * h0, b - h0, b};
    unsigned long long evaluations = 0;
    real_t y[7];
    if (!at_end(f, a, width, eps, evaluations, out, y[0])) return false;
    for (int k = 1; k < 6; ++k) {
        evaluations += 1;
        y[k] = f.at(x[k]);
        if (!bq_finite(y[k])) {
            out.bad_x = x[k];
            out.bad_value = y[k];
            return false;
        }
    }
    if (!at_end(f, b, -width, eps, evaluations, out, y[6])) return false;
    const bool nudged = evaluations > 7;

    const real_t six = R(6.0), four = R(4.0);
    real_t q0 = R(0.0);
    for (int k = 0; k <= 4; k += 2) {
        q0 = q0 + (x[k + 2] - x[k]) / six * (y[k] + four * y[k + 1] + y[k + 2]);
    }
    const real_t tol = R(tolerance.target(to_f64(q0)));
    const real_t h_min = width * eps / R(1024.0);

    Panel stack[HPQ_SIMPSON_DEPTH + 3];
    int top = 0;
    for (int k = 4; k >= 0; k -= 2) {
        stack[top].a = x[k];
        stack[top].b = x[k + 2];
        stack[top].fa = y[k];
        stack[top].fc = y[k + 1];
        stack[top].fb = y[k + 2];
        stack[top].depth = 0;
        ++top;
    }

    bq_acc_t sum = acc_of(real_t());
    real_t error = R(0.0);
    bool complete = true;
    while (top > 0) {
        --top;
        const Panel pn = stack[top];
        const real_t h = pn.b - pn.a;
        const real_t c = bq_ldexp(pn.a + pn.b, -1);
        if (lt(bq_abs(h), h_min) || eq(c, pn.a) || eq(c, pn.b) ||
            pn.depth >= HPQ_SIMPSON_DEPTH || evaluations + 2 > max_evaluations) {
            // The midpoint value stands; twice its distance from the Simpson value is its error.
            const real_t midpoint = h * pn.fc;
            sum = acc_plus(sum, midpoint);
            error = error + bq_abs(h / six * (pn.fa + four * pn.fc + pn.fb) - midpoint) * two;
            complete = false;
            continue;
        }
        const real_t d = bq_ldexp(pn.a + c, -1), e = bq_ldexp(c + pn.b, -1);
        const real_t fd = f.at(d);
        const real_t fe = f.at(e);
        evaluations += 2;
        if (!bq_finite(fd)) {
            out.bad_x = d;
            out.bad_value = fd;
            return false;
        }
        if (!bq_finite(fe)) {
            out.bad_x = e;
            out.bad_value = fe;
            return false;
        }
        const real_t q1 = h / six * (pn.fa + four * pn.fc + pn.fb);
        const real_t q2 =
            h / R(12.0) * (pn.fa + four * fd + two * pn.fc + four * fe + pn.fb);
        const real_t q = q2 + (q2 - q1) / R(15.0);
        if (le(bq_abs(q2 - q), tol)) {
            sum = acc_plus(sum, q);
            error = error + bq_abs(q2 - q);
            continue;
        }
        // Left half on top, so that it is done first.
        stack[top].a = c;
        stack[top].b = pn.b;
        stack[top].fa = pn.fc;
        stack[top].fc = fe;
        stack[top].fb = pn.fb;
        stack[top].depth = pn.depth + 1;
        stack[top + 1].a = pn.a;
        stack[top + 1].b = c;
        stack[top + 1].fa = pn.fa;
        stack[top + 1].fc = fd;
        stack[top + 1].fb = pn.fc;
        stack[top + 1].depth = pn.depth + 1;
        top += 2;
    }
    out.value = acc_value(sum, real_t());
    out.error = fmax(to_f64(error), rounding(out.value, to_f64(eps)));
    out.evaluations = evaluations;
    out.converged = complete && !nudged && tolerance.is_met(out.error, to_f64(out.value));
    return true;
}
#endif

#if defined(HPQ_BATCH_KRONROD)
// ---- kronrod.rs ------------------------------------------------------------------------------

#define HPQ_KRONROD_POINTS (2 * HPQ_KRONROD_NODES - 1)

struct Piece {
    real_t a, b, value;
    double error;
    bool open;
};

// The rule: its non-negative nodes (largest first), Kronrod and Gauss weights, complements.
// One copy a block, in shared memory (the kernel loads it): a copy in each thread's Settings
// put 4 HPQ_KRONROD_NODES numbers (4 KB in qd) into every thread's local memory.
struct Rule {
    real_t nodes[HPQ_KRONROD_NODES], weights[HPQ_KRONROD_NODES], gauss[HPQ_KRONROD_NODES];
    real_t complements[HPQ_KRONROD_NODES];
};

// methods::adaptive::splittable.
__device__ __forceinline__ bool splittable(real_t a, real_t b, double eps) {
    const real_t aa = bq_abs(a), ab = bq_abs(b);
    // T::max: self unless other is larger.
    const double scale = to_f64(le(ab, aa) ? aa : ab);
    return to_f64(b - a) > 256.0 * eps * scale;
}

// Over a rectangle each piece is a call: kronrod() reaches piece() from three places, and
// inlined at each (the rule's loops unrolled, the inner integrand inlined in each) the 2-D
// f64 kernel took NVRTC 8.4 s (ptxas 5.2 s) against 3.6 s as a call, with fewer registers
// (170 against 202) and the same operations. In x alone the inlined copies stay.
#if HPQ_COORDS == 2
#define HPQ_PIECE __noinline__
#else
#define HPQ_PIECE
#endif

// kronrod.rs's piece and estimate: the rule on [a, b].
template <class F>
__device__ HPQ_PIECE bool piece(F &f, const Rule &rule, real_t a, real_t b, double eps,
                      unsigned long long &evaluations, Found &out, Piece &result) {
    const real_t center = rule_midpoint(a, b);
    const real_t half = rule_half_width(a, b);
    real_t values[HPQ_KRONROD_POINTS];
    int k = 0;
    for (int i = 0; i < HPQ_KRONROD_NODES; ++i) {
        const real_t x = rule.nodes[i];
        if (is_zero(x)) {
            values[k++] = f.at(center);
            if (!bq_finite(values[k - 1])) {
                out.bad_x = center;
                out.bad_value = values[k - 1];
                return false;
            }
        } else {
            const real_t xs[2] = {
                rule_point(a, b, center, half, x, rule.complements[i], -1),
                rule_point(a, b, center, half, x, rule.complements[i], 1)};
            for (int s = 0; s < 2; ++s) {
                values[k++] = f.at(xs[s]);
                if (!bq_finite(values[k - 1])) {
                    out.bad_x = xs[s];
                    out.bad_value = values[k - 1];
                    return false;
                }
            }
        }
    }
    evaluations += HPQ_KRONROD_POINTS;

    bq_acc_t kronrod_acc = acc_of(real_t()), gauss_acc = acc_of(real_t());
    real_t abs_sum = R(0.0);
    k = 0;
    for (int i = 0; i < HPQ_KRONROD_NODES; ++i) {
        const int sides = is_zero(rule.nodes[i]) ? 1 : 2;
        for (int s = 0; s < sides; ++s) {
            const real_t v = values[k + s];
            kronrod_acc = acc_plus(kronrod_acc, rule.weights[i] * v);
            gauss_acc = acc_plus(gauss_acc, rule.gauss[i] * v);
            abs_sum = abs_sum + rule.weights[i] * bq_abs(v);
        }
        k += sides;
    }
    const real_t kronrod1 = acc_value(kronrod_acc, real_t());
    const real_t gauss1 = acc_value(gauss_acc, real_t());
    const real_t mean = bq_ldexp(kronrod1, -1);
    real_t asc = R(0.0);
    k = 0;
    for (int i = 0; i < HPQ_KRONROD_NODES; ++i) {
        const int sides = is_zero(rule.nodes[i]) ? 1 : 2;
        for (int s = 0; s < sides; ++s) asc = asc + rule.weights[i] * bq_abs(values[k + s] - mean);
        k += sides;
    }
    const real_t h = bq_abs(half);
    const real_t kronrod = kronrod1 * half, gauss = gauss1 * half;
    const double resabs = to_f64(abs_sum * h);
    const double resasc = to_f64(asc * h);
    double error = to_f64(bq_abs(kronrod - gauss));
    if (resasc != 0.0 && error != 0.0) {
        const double scaled = 200.0 * error / resasc;
        error = resasc * fmin(scaled * sqrt(scaled), 1.0);
    }
    const double floor_ = fmax(4.0 * eps * resabs, rounding(kronrod, eps));
    error = fmax(error, floor_);
    result.a = a;
    result.b = b;
    result.value = kronrod;
    result.error = error;
    result.open = error > floor_ && splittable(a, b, eps);
    return true;
}

// Σ value (in the accumulator) and Σ error, in the pieces' order.
__device__ __forceinline__ void totals(const Piece *pieces, int count, real_t &value,
                                       double &error) {
    bq_acc_t sum = acc_of(real_t());
    error = 0.0;
    for (int k = 0; k < count; ++k) {
        sum = acc_plus(sum, pieces[k].value);
        error = error + pieces[k].error;
    }
    value = acc_value(sum, real_t());
}

template <class F>
__device__ bool kronrod(F &f, const Rule &rule, real_t a, real_t b, Tol tolerance,
                        unsigned long long max_evaluations, double eps, Found &out) {
    const unsigned long long per_piece = HPQ_KRONROD_POINTS;
    unsigned long long evaluations = 0;
    Piece pieces[HPQ_KRONROD_PIECES];
    if (!piece(f, rule, a, b, eps, evaluations, out, pieces[0])) return false;
    int count = 1;
    bool converged = false;
    real_t value;
    double error;
    for (;;) {
        totals(pieces, count, value, error);
        if (tolerance.is_met(error, to_f64(value))) {
            converged = true;
            break;
        }
        if (count == HPQ_KRONROD_PIECES || evaluations + 2 * per_piece > max_evaluations) break;
        int worst = -1;
        for (int k = 0; k < count; ++k) {
            if (pieces[k].open && (worst < 0 || pieces[k].error > pieces[worst].error)) worst = k;
        }
        if (worst < 0) break;
        const real_t pa = pieces[worst].a, pb = pieces[worst].b;
        const real_t mid = bq_ldexp(pa + pb, -1);
        Piece left;
        if (!piece(f, rule, pa, mid, eps, evaluations, out, left)) return false;
        pieces[worst] = left;
        if (!piece(f, rule, mid, pb, eps, evaluations, out, pieces[count])) return false;
        ++count;
    }
    totals(pieces, count, value, error);
    out.value = value;
    out.error = error;
    out.evaluations = evaluations;
    out.converged = converged && tolerance.is_met(error, to_f64(value));
    return true;
}
#endif

// ---- one integral in x, by the method of the launch ----------------------------------------

// What every integral of a launch shares besides the tolerance.
struct Settings {
    double step_min, step_max;
    real_t fraction, eps;
#if defined(HPQ_BATCH_KRONROD)
    const Rule *rule;
#endif
};

// The method of the launch on [a, b] (a < b): the call of batch.rs's 1-D match.
template <class F>
__device__ __forceinline__ bool integrate(F &f, real_t a, real_t b, Tol tolerance,
                                          unsigned long long max_evaluations,
                                          const Settings &s, Found &out) {
#if defined(HPQ_BATCH_FAQ)
    (void)tolerance;
    (void)max_evaluations;
    return faq(f, a, b, s.step_min, s.step_max, s.eps, out);
#elif defined(HPQ_BATCH_SIMPSON)
    return simpson(f, a, b, tolerance, max_evaluations, s.fraction, s.eps, out);
#elif defined(HPQ_BATCH_KRONROD)
    return kronrod(f, *s.rule, a, b, tolerance, max_evaluations, to_f64(s.eps), out);
#else
#error "define HPQ_BATCH_FAQ, HPQ_BATCH_SIMPSON or HPQ_BATCH_KRONROD"
#endif
}

__device__ __forceinline__ void clear(Found &out) {
    out.value = R(0.0);
    out.error = 0.0;
    out.evaluations = 0;
    out.converged = true;
    out.bad_x = R(0.0);
    out.bad_value = R(0.0);
}

#if HPQ_COORDS == 2
// ---- fubini.rs: a rectangle, the outer method in x over inner integrals in y ----------------

// f(x, ·) for the inner method.
struct Row {
    real_t *vars;
    real_t x;
    __device__ __forceinline__ real_t at(real_t y) {
        vars[0] = x;
        vars[1] = y;
        return integrand(vars);
    }
};

// g(x) = ∫ f(x, y) dy over [ay, by] for the outer method: fubini.rs's closure `g`, with its
// evaluations (the inner ones alone), largest inner error, inner convergence and the failure
// of the last inner integral (cleared by a later success, as there). `at` is never inlined:
// the outer method calls it from several places, and a copy of the whole inner method at each
// made NVRTC take half a minute over a 2-D Gauss-Kronrod kernel.
struct Column {
    real_t *vars;
    real_t ay, by;
    Tol inner;
    const Settings *s;
    unsigned long long max_evaluations, evaluations;
    double inner_error;
    bool inner_converged, failed;
    real_t fail_x, fail_y, fail_value;
    __device__ __noinline__ real_t at(real_t x) {
        Row row = {vars, x};
        const unsigned long long left =
            max_evaluations > evaluations ? max_evaluations - evaluations : 0ULL;
        Found in;
        clear(in);
        if (integrate(row, ay, by, inner, left, *s, in)) {
            failed = false;
            evaluations += in.evaluations;
            inner_error = fmax(inner_error, in.error);
            inner_converged = inner_converged && in.converged;
            return in.value;
        }
        failed = true;
        fail_x = x;
        fail_y = in.bad_x;
        fail_value = in.bad_value;
        return R(__longlong_as_double(0x7ff8000000000000LL));
    }
};

// fubini.rs's fubini on [ax, bx] × [ay, by] (ax < bx, ay < by). Returns 0 (done), 2 (a
// value that is not finite at (bad_x, bad_y)) or 3 (the outer method met a value of g that is
// not finite, at bad_x alone).
__device__ int fubini(real_t *vars, real_t ax, real_t bx, real_t ay, real_t by, Tol tolerance,
                      unsigned long long max_evaluations, const Settings &s, Found &out,
                      real_t &bad_y) {
#if defined(HPQ_BATCH_FAQ)
    // faq_2d: no tolerance, no cap.
    const Tol inner = tolerance, outer = tolerance;
    max_evaluations = ~0ULL;
#else
    // fubini::tolerances for the width bx - ax.
    const double width = to_f64(bx - ax);
    const Tol inner = {tolerance.relative / 2.0,
                       width > 0.0 ? tolerance.absolute / (2.0 * width) : tolerance.absolute};
    const Tol outer = {tolerance.relative / 2.0, tolerance.absolute / 2.0};
#endif
    Column g;
    g.vars = vars;
    g.ay = ay;
    g.by = by;
    g.inner = inner;
    g.s = &s;
    g.max_evaluations = max_evaluations;
    g.evaluations = 0;
    g.inner_error = 0.0;
    g.inner_converged = true;
    g.failed = false;
    Found o;
    clear(o);
    const bool ok = integrate(g, ax, bx, outer, max_evaluations, s, o);
    if (g.failed) {
        out.bad_x = g.fail_x;
        bad_y = g.fail_y;
        out.bad_value = g.fail_value;
        return 2;
    }
    if (!ok) {
        out.bad_x = o.bad_x;
        out.bad_value = o.bad_value;
        return 3;
    }
    out.value = o.value;
    out.error = o.error + to_f64(bq_abs(bx - ax)) * g.inner_error;
    out.evaluations = g.evaluations;
#if defined(HPQ_BATCH_FAQ)
    out.converged = o.converged && g.inner_converged;
#else
    out.converged =
        o.converged && g.inner_converged && tolerance.is_met(out.error, to_f64(o.value));
#endif
    return 0;
}
#endif

// ---- a row's parameters and bounds ---------------------------------------------------------

// Parameter v of row `row`: swept (plan[3v] = count > 0: point k = (row / stride) mod count of
// `count` evenly spaced from start to stop, batch.rs's ParamValue::Linspace in the host's
// operations: start + k (stop - start) / (count - 1), start when count is 1) or uploaded
// (count 0: column plan[3v + 2] of `columns`, n values limb-major).
__device__ __forceinline__ real_t parameter(int v, const unsigned long long *plan,
                                            const double *sweep, const double *columns,
                                            unsigned long long i, unsigned long long n,
                                            unsigned long long row) {
    const int L = limbs<real_t>::count;
    const unsigned long long count = plan[3 * v], stride = plan[3 * v + 1];
    real_t x;
    if (count == 0) {
        load_soa(columns + plan[3 * v + 2] * L * n, i, n, x);
        return x;
    }
    real_t start, stop;
    load(sweep + 2 * v * L, start);
    if (count == 1) return start;
    load(sweep + (2 * v + 1) * L, stop);
    // count <= 2^53 (the host sends no longer sweep), so k and count - 1 are exact doubles,
    // as T::from_i64 makes them.
    const double k = (double)((row / stride) % count);
    return start + R(k) * (stop - start) / R((double)(count - 1));
}

#if HPQ_PARAMS > 0
#define HPQ_PARAM_SLOTS HPQ_PARAMS
#else
#define HPQ_PARAM_SLOTS 1
#endif

// ---- the kernel ------------------------------------------------------------------------------

// Row i of the launch is row first + i of the batch. Its parameters come from `plan`,
// `constants` (the sweeps' ends) and `columns` (see `parameter`); its bounds are
// hpq_bound_0 .. hpq_bound_{2 HPQ_COORDS - 1} of the parameters (x lower, x upper, then y),
// the host's bound tapes in the host's operations.
// constants (real_t, `limbs` doubles each, one after the other): Simpson's 0.13579, ε, then for
// Gauss–Kronrod the rule's HPQ_KRONROD_NODES nodes, Kronrod weights, Gauss weights and
// complements (launch.rs's KRONROD_TABLES), then
// each parameter's sweep start and stop (zeros for an uploaded one).
// Outputs: value (n values of real_t, limb-major), error (n doubles), evaluations (n), status
// (n: 0 converged, 1 not converged, 2 a value that is not finite at (x, y), 3 in 2-D: the outer
// integral met a value that is not finite at x, with no y, 4 + k: bound k is not finite), and
// for each row of status 2 or more one failure: its row i in failed_rows[f] and (x, y, the
// value) in failed_at[3 f L ..] (real_t each, `limbs` doubles), f taken from the counter
// `failures` (zero before the launch), so that a batch without failures copies none of it back.
extern "C" __global__ void HPQ_BATCH_KERNEL(
    const double *__restrict__ columns, const unsigned long long *__restrict__ plan,
    const double *__restrict__ constants, double *__restrict__ value,
    double *__restrict__ error, unsigned long long *__restrict__ evaluations,
    unsigned int *__restrict__ status, unsigned int *__restrict__ failures,
    unsigned long long *__restrict__ failed_rows, double *__restrict__ failed_at,
    unsigned long long n, unsigned long long first, double relative, double absolute,
    double step_min, double step_max, unsigned long long max_evaluations) {
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int L = limbs<real_t>::count;
    int sweep_at = 2;
#if defined(HPQ_BATCH_KRONROD)
    // The block's threads load the rule together, before any of them leaves.
    __shared__ Rule rule;
    for (int k = threadIdx.x; k < HPQ_KRONROD_NODES; k += blockDim.x) {
        load(constants + (2 + k) * L, rule.nodes[k]);
        load(constants + (2 + HPQ_KRONROD_NODES + k) * L, rule.weights[k]);
        load(constants + (2 + 2 * HPQ_KRONROD_NODES + k) * L, rule.gauss[k]);
        load(constants + (2 + 3 * HPQ_KRONROD_NODES + k) * L, rule.complements[k]);
    }
    __syncthreads();
    sweep_at += 4 * HPQ_KRONROD_NODES;
#endif
    if (i >= n) return;
    Settings s;
    s.step_min = step_min;
    s.step_max = step_max;
    load(constants, s.fraction);
    load(constants + L, s.eps);
#if defined(HPQ_BATCH_KRONROD)
    s.rule = &rule;
#endif
    const Tol tolerance = {relative, absolute};

    // The parameters, then the bounds of this row (batch.rs's Task::prepare): the first that
    // is not finite ends the row.
    real_t params[HPQ_PARAM_SLOTS];
    params[0] = R(0.0);
    for (int v = 0; v < HPQ_PARAMS; ++v) {
        params[v] = parameter(v, plan, constants + sweep_at * L, columns, i, n, first + i);
    }
    real_t ends[2 * HPQ_COORDS];
    ends[0] = hpq_bound_0(params);
    ends[1] = hpq_bound_1(params);
#if HPQ_COORDS == 2
    ends[2] = hpq_bound_2(params);
    ends[3] = hpq_bound_3(params);
#endif
    Found out;
    clear(out);
    unsigned int code = 0;
    real_t bad_y = R(0.0);
    for (int k = 0; k < 2 * HPQ_COORDS; ++k) {
        if (!bq_finite(ends[k])) {
            code = 4 + k;
            out.bad_value = ends[k];
            break;
        }
    }
    if (code == 0) {
        const real_t a = ends[0], b = ends[1];
#if HPQ_COORDS == 1
        Point f;
#if HPQ_VARS > 1
        for (int v = 1; v < HPQ_VARS; ++v) f.vars[v] = params[v - 1];
#endif
        // batch.rs's oriented: 0 when empty, the ordered interval, negated when reversed.
        if (!eq(a, b)) {
            const bool reversed = !lt(a, b);
            const real_t lo = reversed ? b : a, hi = reversed ? a : b;
            code = integrate(f, lo, hi, tolerance, max_evaluations, s, out) ? 0u : 2u;
            if (code == 0 && reversed) out.value = -out.value;
        }
#else
        real_t vars[HPQ_VARS];
        for (int v = 2; v < HPQ_VARS; ++v) vars[v] = params[v - 2];
        const real_t ay = ends[2], by = ends[3];
        // batch.rs's oriented in x around oriented in y: an empty side gives 0, each reversed
        // side negates (in that order, so that an x reversed around an empty y gives -0 there
        // too).
        if (!eq(a, b)) {
            const bool flip_x = !lt(a, b);
            const real_t ax = flip_x ? b : a, bx = flip_x ? a : b;
            if (!eq(ay, by)) {
                const bool flip_y = !lt(ay, by);
                const real_t lo = flip_y ? by : ay, hi = flip_y ? ay : by;
                code = fubini(vars, ax, bx, lo, hi, tolerance, max_evaluations, s, out, bad_y);
                if (code == 0 && flip_y) out.value = -out.value;
            }
            if (code == 0 && flip_x) out.value = -out.value;
        }
#endif
    }
    store_soa(value, i, n, out.value);
    error[i] = out.error;
    evaluations[i] = out.evaluations;
    status[i] = code != 0 ? code : (out.converged ? 0u : 1u);
    if (code != 0) {
        const unsigned int f = atomicAdd(failures, 1u);
        failed_rows[f] = i;
        store(failed_at + (3ull * f) * L, out.bad_x);
        store(failed_at + (3ull * f + 1) * L, bad_y);
        store(failed_at + (3ull * f + 2) * L, out.bad_value);
    }
}
