// Quad-double arithmetic on the device.
// Twin of precision/src/qd.rs, function for function and operation for operation:
//   qd_add <-> Qd::add_qd    qd_add_sloppy <-> Qd::add_sloppy (HLB sloppy_add)
//   qd_add_merged <-> Qd::add_merged (HLB ieee_add)    qd_add_f64 <-> Qd::add_f64
//   qd_mul <-> Qd::mul_qd (HLB sloppy_mul)    qd_mul_f64 <-> Qd::mul_f64
//   qd_div <-> Qd::div_qd    qd_div_f64 <-> Qd::div_f64    qd_sqrt <-> Qd::sqrt
//   qd_dd_mul <-> dd_mul    qd_dd_recip <-> dd_recip    qd_div_residual <-> div_residual
//   qd_sqrt_residual <-> sqrt_residual
//   qd_renormalise <-> renormalise    qd_quick_three_accum <-> quick_three_accum
// The operators at the end follow precision/src/ops.rs (a - b is a + (-b), and so on).
// Any change here is a change there too; tests/gpu_arith.rs compares the two bit for bit.
#pragma once
#include "dd.cuh"

// ADD_CANCEL_LIMIT, SQRT_SCALE_BELOW and SQRT_SCALE_ABOVE of precision/src/qd.rs (2^-6,
// 2^-800, 2^800); src/gpu/tables.rs checks them against the host source.
#define HPQ_QD_ADD_CANCEL_LIMIT 0x1.0000000000000p-6
#define HPQ_QD_SQRT_SCALE_BELOW 0x1.0000000000000p-800
#define HPQ_QD_SQRT_SCALE_ABOVE 0x1.0000000000000p+800

struct qd_t {
    double x[4];
};

__device__ __forceinline__ qd_t qd_make(double x0, double x1, double x2, double x3) {
    qd_t r;
    r.x[0] = x0;
    r.x[1] = x1;
    r.x[2] = x2;
    r.x[3] = x3;
    return r;
}

__device__ __forceinline__ qd_t qd_from_f64(double a) { return qd_make(a, 0.0, 0.0, 0.0); }

__device__ __forceinline__ qd_t qd_from_dd(dd_t a) { return qd_make(a.hi, a.lo, 0.0, 0.0); }

__device__ __forceinline__ qd_t qd_neg(qd_t a) {
    return qd_make(-a.x[0], -a.x[1], -a.x[2], -a.x[3]);
}

// The value rounded to a double, a zero keeping its sign (Qd::to_f64).
__device__ __forceinline__ double qd_to_f64(qd_t a) {
    return hpq_signed_zero(a.x[0] + a.x[1], a.x[0]);
}

// The rounded double-double of a quad-double, a zero keeping its sign (Qd::to_dd).
__device__ __forceinline__ dd_t qd_to_dd(qd_t a) {
    double hi, lo;
    quick_two_sum(a.x[0], a.x[1] + (a.x[2] + a.x[3]), hi, lo);
    return dd_make(hpq_signed_zero(hi, a.x[0]), lo);
}

// Component i of v, or v.x[3] for i >= 3. Indexing with a run-time i would put v in local
// memory; this chain of selects keeps it in registers and reads the same value.
__device__ __forceinline__ double qd_get(const qd_t &v, int i) {
    return i == 0 ? v.x[0] : i == 1 ? v.x[1] : i == 2 ? v.x[2] : v.x[3];
}

// v.x[i] = value for i in 0..3, in registers (see qd_get).
__device__ __forceinline__ void qd_set(qd_t &v, int i, double value) {
    v.x[0] = i == 0 ? value : v.x[0];
    v.x[1] = i == 1 ? value : v.x[1];
    v.x[2] = i == 2 ? value : v.x[2];
    v.x[3] = i == 3 ? value : v.x[3];
}

// HLB renorm: a bottom-up pass of FastTwoSums, then a top-down pass that skips zeros. A zero
// result takes the sign of the leading input (hpq_signed_zero).
template <int N> __device__ __forceinline__ qd_t qd_renormalise(double c[N]) {
    if (!isfinite(c[0])) {
        return qd_from_f64(c[0]);
    }
    double lead = c[0];
    double s = c[N - 1];
#pragma unroll
    for (int i = N - 2; i >= 0; --i) {
        double hi, lo;
        quick_two_sum(c[i], s, hi, lo);
        c[i + 1] = lo;
        s = hi;
    }
    if (!isfinite(s)) {
        // The leading sum rounded past the largest double: a genuine overflow, +-inf.
        return qd_from_f64(s);
    }
    c[0] = s;

    qd_t out = qd_make(0.0, 0.0, 0.0, 0.0);
    int k = 0;
    s = c[0];
#pragma unroll
    for (int i = 1; i < N; ++i) {
        if (k == 3) {
            s += c[i];
            continue;
        }
        double hi, lo;
        quick_two_sum(s, c[i], hi, lo);
        if (lo != 0.0) {
            qd_set(out, k, hi);
            k += 1;
            s = lo;
        } else {
            s = hi;
        }
    }
    qd_set(out, k, s);
    out.x[0] = hpq_signed_zero(out.x[0], lead);
    return out;
}

// Adds c to the two-term accumulator (a, b); returns a finished component or 0 (HLB).
__device__ __forceinline__ double qd_quick_three_accum(double &a, double &b, double c) {
    double s, eb, ea;
    two_sum(b, c, s, eb);
    two_sum(a, s, s, ea);
    if (ea != 0.0 && eb != 0.0) {
        a = ea;
        b = eb;
        return s;
    }
    if (eb == 0.0) {
        b = ea;
        a = s;
        return 0.0;
    }
    a = s;
    b = eb;
    return 0.0;
}

// Yields the components of two quad-doubles, largest magnitude first (MergeByMagnitude).
struct qd_merge {
    qd_t a;
    qd_t b;
    int i;
    int j;

    __device__ __forceinline__ bool is_empty() const { return i >= 4 && j >= 4; }

    __device__ __forceinline__ double take() {
        bool from_a = j >= 4 || (i < 4 && fabs(qd_get(a, i)) > fabs(qd_get(b, j)));
        if (from_a) {
            i += 1;
            return qd_get(a, i - 1);
        }
        j += 1;
        return qd_get(b, j - 1);
    }

    // The plain sum of what has not been taken: a's rest in order, then b's.
    __device__ __forceinline__ double rest() const {
        double r = 0.0;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            if (k >= i) r += a.x[k];
        }
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            if (k >= j) r += b.x[k];
        }
        return r;
    }
};

// a + b component by component (HLB sloppy_add): pairwise TwoSums, their errors folded into
// the next component, then renormalisation; an absolute error of a few 2^-212 (|a| + |b|).
__device__ __forceinline__ qd_t qd_add_sloppy(qd_t a, qd_t b) {
    double a0 = a.x[0], a1 = a.x[1], a2 = a.x[2], a3 = a.x[3];
    double b0 = b.x[0], b1 = b.x[1], b2 = b.x[2], b3 = b.x[3];
    double s0, t0;
    two_sum(a0, b0, s0, t0);
    if (!isfinite(s0)) {
        return qd_from_f64(s0);
    }
    double s1, t1, s2, t2, s3, t3;
    two_sum(a1, b1, s1, t1);
    two_sum(a2, b2, s2, t2);
    two_sum(a3, b3, s3, t3);
    two_sum(s1, t0, s1, t0);
    three_sum(s2, t0, t1, s2, t0, t1);
    three_sum2(s3, t0, t2, s3, t0);
    t0 = t0 + t1 + t3;
    double c[5] = {s0, s1, s2, s3, t0};
    return qd_renormalise<5>(c);
}

// a + b with IEEE-style accuracy however much it cancels: the eight components merged by
// magnitude and accumulated exactly (HLB ieee_add).
__device__ __noinline__ qd_t qd_add_merged(qd_t a, qd_t b) {
    double lead = a.x[0] + b.x[0];
    if (!isfinite(lead)) {
        return qd_from_f64(lead);
    }
    qd_merge merge;
    merge.a = a;
    merge.b = b;
    merge.i = 0;
    merge.j = 0;
    double first = merge.take();
    double second = merge.take();
    double u, v;
    quick_two_sum(first, second, u, v);
    qd_t x = qd_make(0.0, 0.0, 0.0, 0.0);
    int k = 0;
    while (k < 4) {
        if (merge.is_empty()) {
            qd_set(x, k, u);
            if (k < 3) {
                qd_set(x, k + 1, v);
            }
            break;
        }
        double t = merge.take();
        double s = qd_quick_three_accum(u, v, t);
        if (s != 0.0) {
            qd_set(x, k, s);
            k += 1;
        }
    }
    x.x[3] += merge.rest();
    return qd_renormalise<4>(x.x);
}

// a + b with IEEE-style accuracy: the sloppy sum when the leading components cancel at most
// 6 bits (|a0 + b0| >= 2^-6 (|a0| + |b0|)), else the merged one (Qd::add_qd).
__device__ __forceinline__ qd_t qd_add(qd_t a, qd_t b) {
    double a0 = a.x[0], b0 = b.x[0];
    if (fabs(a0 + b0) >= HPQ_QD_ADD_CANCEL_LIMIT * (fabs(a0) + fabs(b0))) {
        return qd_add_sloppy(a, b);
    }
    return qd_add_merged(a, b);
}

// a + b for a double: an exact chain of TwoSums, then renormalisation (HLB).
__device__ __forceinline__ qd_t qd_add_f64(qd_t a, double b) {
    double c[5], e;
    two_sum(a.x[0], b, c[0], e);
    if (!isfinite(c[0])) {
        return qd_from_f64(c[0]);
    }
    two_sum(a.x[1], e, c[1], e);
    two_sum(a.x[2], e, c[2], e);
    two_sum(a.x[3], e, c[3], e);
    c[4] = e;
    return qd_renormalise<5>(c);
}

__device__ __forceinline__ qd_t qd_add_dd(qd_t a, dd_t b) { return qd_add(a, qd_from_dd(b)); }

// a * b: partial products down to O(eps^2) exactly, the O(eps^3) ones in doubles (HLB
// sloppy_mul).
__device__ __forceinline__ qd_t qd_mul(qd_t a, qd_t b) {
    double a0 = a.x[0], a1 = a.x[1], a2 = a.x[2], a3 = a.x[3];
    double b0 = b.x[0], b1 = b.x[1], b2 = b.x[2], b3 = b.x[3];
    double p0, q0;
    two_prod(a0, b0, p0, q0);
    if (!isfinite(p0)) {
        return qd_from_f64(p0);
    }
    double p1, q1, p2, q2;
    two_prod(a0, b1, p1, q1);
    two_prod(a1, b0, p2, q2);
    double p3, q3, p4, q4, p5, q5;
    two_prod(a0, b2, p3, q3);
    two_prod(a1, b1, p4, q4);
    two_prod(a2, b0, p5, q5);

    three_sum(p1, p2, q0, p1, p2, q0);
    // Six-three sum of (p2, q1, q2) and (p3, p4, p5) into (s0, s1, s2).
    three_sum(p2, q1, q2, p2, q1, q2);
    three_sum(p3, p4, p5, p3, p4, p5);
    double s0, t0, s1, t1;
    two_sum(p2, p3, s0, t0);
    two_sum(q1, p4, s1, t1);
    double s2 = q2 + p5;
    two_sum(s1, t0, s1, t0);
    s2 = s2 + (t0 + t1);

    // O(eps^3) terms, rounded, left to right as the host writes them.
    s1 = s1 + (a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0 + q0 + q3 + q4 + q5);
    double c[5] = {p0, p1, s0, s1, s2};
    return qd_renormalise<5>(c);
}

// a * b for a double (HLB).
__device__ __forceinline__ qd_t qd_mul_f64(qd_t a, double b) {
    double a0 = a.x[0], a1 = a.x[1], a2 = a.x[2], a3 = a.x[3];
    double p0, q0;
    two_prod(a0, b, p0, q0);
    if (!isfinite(p0)) {
        return qd_from_f64(p0);
    }
    double p1, q1, p2, q2;
    two_prod(a1, b, p1, q1);
    two_prod(a2, b, p2, q2);
    double p3 = a3 * b;
    double s1, s2;
    two_sum(q0, p1, s1, s2);
    three_sum(s2, q1, p2, s2, q1, p2);
    three_sum2(q1, q2, p3, q1, q2);
    double s3 = q1;
    double s4 = q2 + p2;
    double c[5] = {p0, s1, s2, s3, s4};
    return qd_renormalise<5>(c);
}

__device__ __forceinline__ qd_t qd_sqr(qd_t a) { return qd_mul(a, a); }

// a * b for double-doubles, JMP17 Alg. 12 without special values (qd::dd_mul).
__device__ __forceinline__ dd_t qd_dd_mul(dd_t a, dd_t b) {
    double ch, cl1, zh, zl;
    two_prod(a.hi, b.hi, ch, cl1);
    double tl0 = a.lo * b.lo;
    double tl1 = __fma_rn(a.hi, b.lo, tl0);
    double cl2 = __fma_rn(a.lo, b.hi, tl1);
    quick_two_sum(ch, cl1 + cl2, zh, zl);
    return dd_make(zh, zl);
}

// 1 / b to about 2^-104: the Newton step of JMP17 Alg. 18 on the double reciprocal
// (qd::dd_recip).
__device__ __forceinline__ dd_t qd_dd_recip(dd_t b) {
    double th = 1.0 / b.hi;
    double rh = __fma_rn(-b.hi, th, 1.0);
    double rl = -b.lo * th;
    double eh, el, ch, cl1, dh, dl, sh, sl, zh, zl;
    quick_two_sum(rh, rl, eh, el);
    two_prod(eh, th, ch, cl1);
    quick_two_sum(ch, __fma_rn(el, th, cl1), dh, dl);
    two_sum(th, dh, sh, sl);
    quick_two_sum(sh, dl + sl, zh, zl);
    return dd_make(zh, zl);
}

// a - b q for q close to a / b, to a few 2^-212 |a| (qd::div_residual, operation for
// operation): a0 - b0 qh exact, the O(u) and O(u^2) terms summed by TwoSums, the O(u^3) ones and
// the TwoSums' errors in doubles.
__device__ __forceinline__ dd_t qd_div_residual(qd_t a, qd_t b, dd_t q) {
    double qh = q.hi, ql = q.lo;
    double p00, e00, p01, e01, p10, e10, p11, e11, p20, e20;
    two_prod(b.x[0], qh, p00, e00);
    two_prod(b.x[0], ql, p01, e01);
    two_prod(b.x[1], qh, p10, e10);
    two_prod(b.x[1], ql, p11, e11);
    two_prod(b.x[2], qh, p20, e20);
    double d0 = a.x[0] - p00;
    double h, t1, t2, t3, t4;
    two_sum(d0, a.x[1], h, t1);
    two_sum(h, -e00, h, t2);
    two_sum(h, -p01, h, t3);
    two_sum(h, -p10, h, t4);
    double g, v1, v2, v3, v4, v5, v6, v7, v8, v9;
    two_sum(h, a.x[2], g, v1);
    two_sum(g, t1, g, v2);
    two_sum(g, t2, g, v3);
    two_sum(g, t3, g, v4);
    two_sum(g, t4, g, v5);
    two_sum(g, -e01, g, v6);
    two_sum(g, -e10, g, v7);
    two_sum(g, -p11, g, v8);
    two_sum(g, -p20, g, v9);
    double low = (((v1 + v2) + (v3 + v4)) + ((v5 + v6) + (v7 + v8))) +
                 (((v9 + a.x[3]) - (e11 + e20)) - (b.x[2] * ql + b.x[3] * qh));
    double rh, rl;
    two_sum(g, low, rh, rl);
    return dd_make(rh, rl);
}

// a - s^2 for s close to sqrt(a) (qd::sqrt_residual, operation for operation).
__device__ __forceinline__ dd_t qd_sqrt_residual(qd_t a, dd_t s) {
    double sh = s.hi, sl = s.lo;
    double p0, e0, p1, e1, p2, e2;
    two_prod(sh, sh, p0, e0);
    two_prod(2.0 * sh, sl, p1, e1);
    two_prod(sl, sl, p2, e2);
    double d0 = a.x[0] - p0;
    double h, t1, t2, t3;
    two_sum(d0, a.x[1], h, t1);
    two_sum(h, -e0, h, t2);
    two_sum(h, -p1, h, t3);
    double g, v1, v2, v3, v4, v5, v6;
    two_sum(h, a.x[2], g, v1);
    two_sum(g, t1, g, v2);
    two_sum(g, t2, g, v3);
    two_sum(g, t3, g, v4);
    two_sum(g, -e1, g, v5);
    two_sum(g, -p2, g, v6);
    double low = ((v1 + v2) + (v3 + v4)) + ((v5 + v6) + (a.x[3] - e2));
    double rh, rl;
    two_sum(g, low, rh, rl);
    return dd_make(rh, rl);
}

// Below 2^-800 (qd::TINY_DIVIDEND, not zero) qd_div and qd_div_f64 scale the dividend by 2^300
// and the quotient by 2^-300, exactly (with the divisor's factor of dd_divisor_scale).
#define HPQ_QD_TINY_DIVIDEND 0x1p-800
#define HPQ_QD_TWO_300 0x1p300
#define HPQ_QD_TWO_M300 0x1p-300

// qd::dividend_scale: 2^300 below 2^-800 (not zero), 1 otherwise.
__device__ __forceinline__ double qd_dividend_scale(double a) {
    return (fabs(a) < HPQ_QD_TINY_DIVIDEND && a != 0.0) ? HPQ_QD_TWO_300 : 1.0;
}

// Every component times the power of two s (Qd::scaled).
__device__ __forceinline__ qd_t qd_scaled(qd_t a, double s) {
    return qd_make(a.x[0] * s, a.x[1] * s, a.x[2] * s, a.x[3] * s);
}

// a / b for operands that need no scaling: m = 1/b (double-double), q0 = a m, the residual
// r = a - b q0, q1 = r m, and q0 + q1 renormalised (Qd::div_qd_unscaled).
__device__ __forceinline__ qd_t qd_div_unscaled(qd_t a, qd_t b) {
    dd_t m = qd_dd_recip(qd_to_dd(b));
    dd_t q0 = qd_dd_mul(qd_to_dd(a), m);
    if (!(isfinite(q0.hi) && isfinite(b.x[0])) || b.x[0] == 0.0 || q0.hi == 0.0) {
        return qd_from_f64(a.x[0] / b.x[0]);
    }
    dd_t q1 = qd_dd_mul(qd_div_residual(a, b, q0), m);
    double c[4] = {q0.hi, q0.lo, q1.hi, q1.lo};
    return qd_renormalise<4>(c);
}

// a / b (Qd::div_qd): a huge or tiny divisor and a tiny dividend are scaled first by powers of
// two, and the quotient by their ratio.
__device__ __forceinline__ qd_t qd_div(qd_t a, qd_t b) {
    double sb = dd_divisor_scale(b.x[0]);
    double sa = qd_dividend_scale(a.x[0]);
    if (sa != 1.0 || sb != 1.0) {
        // A quotient scaled up past the largest double keeps its leading component alone.
        qd_t q = qd_scaled(qd_div_unscaled(qd_scaled(a, sa), qd_scaled(b, sb)), sb / sa);
        return isfinite(q.x[0]) ? q : qd_from_f64(q.x[0]);
    }
    return qd_div_unscaled(a, b);
}

// a / b for a double and a dividend that needs no scaling, as qd_div with the exact products
// b q0 (Qd::div_f64_unscaled).
__device__ __forceinline__ qd_t qd_div_f64_unscaled(qd_t a, double b) {
    dd_t q0d = dd_div_f64(qd_to_dd(a), b);
    if (!(isfinite(q0d.hi) && isfinite(b)) || b == 0.0 || q0d.hi == 0.0) {
        return qd_from_f64(a.x[0] / b);
    }
    qd_t q0 = qd_from_dd(q0d);
    qd_t r = qd_add_sloppy(a, qd_neg(qd_mul_f64(q0, b)));
    dd_t q1 = dd_div_f64(qd_to_dd(r), b);
    return qd_add_sloppy(q0, qd_from_dd(q1));
}

// a / b for a double, a tiny dividend scaled first (Qd::div_f64).
__device__ __forceinline__ qd_t qd_div_f64(qd_t a, double b) {
    double sa = qd_dividend_scale(a.x[0]);
    if (sa != 1.0) {
        return qd_scaled(qd_div_f64_unscaled(qd_scaled(a, sa), b), HPQ_QD_TWO_M300);
    }
    return qd_div_f64_unscaled(a, b);
}

__device__ __forceinline__ qd_t qd_recip(qd_t a) { return qd_div(qd_from_f64(1.0), a); }

__device__ __forceinline__ qd_t qd_ldexp(qd_t a, int k) {
    return qd_make(hpq_ldexp(a.x[0], k), hpq_ldexp(a.x[1], k), hpq_ldexp(a.x[2], k),
                   hpq_ldexp(a.x[3], k));
}

// The body of qd_sqrt for a positive finite a in [2^-800, 2^800]: the double-double root s,
// then one Newton step s + (a - s^2) / (2s), the residual from the exact square of s's
// components, the quotient by a double-double reciprocal of 2s (Karp-Markstein 1997).
__device__ __forceinline__ qd_t qd_sqrt_in_range(qd_t a) {
    dd_t s = dd_sqrt(qd_to_dd(a));
    dd_t r = qd_sqrt_residual(a, s);
    dd_t c = qd_dd_mul(r, qd_dd_recip(dd_make(2.0 * s.hi, 2.0 * s.lo)));
    double x[4] = {s.hi, s.lo, c.hi, c.lo};
    return qd_renormalise<4>(x);
}

// Square root, NaN for negative input (Qd::sqrt). An argument outside [2^-800, 2^800] is first
// scaled exactly by an even power of two into [1, 4), and the root back by half of it; the
// host's recursive call lands in range, so it is qd_sqrt_in_range here.
__device__ __forceinline__ qd_t qd_sqrt(qd_t a) {
    double a0 = a.x[0];
    if (a0 <= 0.0 || !isfinite(a0)) {
        return qd_from_f64(sqrt(a0));
    }
    if (!(a0 >= HPQ_QD_SQRT_SCALE_BELOW && a0 <= HPQ_QD_SQRT_SCALE_ABOVE)) {
        // The binary exponent of a0 (-1023 for a subnormal, which the scaling still brings
        // near 1), halved towards minus infinity (an arithmetic shift).
        int half_exp = ((int)((__double_as_longlong(a0) >> 52) & 0x7ff) - 1023) >> 1;
        return qd_ldexp(qd_sqrt_in_range(qd_ldexp(a, -2 * half_exp)), half_exp);
    }
    return qd_sqrt_in_range(a);
}

// Exact conversion of x < 2^63 (Qd::from(u64) = Qd::from_dd(Dd::from(u64))).
__device__ __forceinline__ qd_t qd_from_u64(unsigned long long x) {
    return qd_from_dd(dd_from_u64(x));
}

// Operators, as precision/src/ops.rs defines them for Qd.
__device__ __forceinline__ qd_t operator-(qd_t a) { return qd_neg(a); }
__device__ __forceinline__ qd_t operator+(qd_t a, qd_t b) { return qd_add(a, b); }
__device__ __forceinline__ qd_t operator-(qd_t a, qd_t b) { return qd_add(a, qd_neg(b)); }
__device__ __forceinline__ qd_t operator*(qd_t a, qd_t b) { return qd_mul(a, b); }
__device__ __forceinline__ qd_t operator/(qd_t a, qd_t b) { return qd_div(a, b); }
__device__ __forceinline__ qd_t operator+(qd_t a, double b) { return qd_add_f64(a, b); }
__device__ __forceinline__ qd_t operator-(qd_t a, double b) { return qd_add_f64(a, -b); }
__device__ __forceinline__ qd_t operator*(qd_t a, double b) { return qd_mul_f64(a, b); }
__device__ __forceinline__ qd_t operator/(qd_t a, double b) { return qd_div_f64(a, b); }
__device__ __forceinline__ qd_t operator+(double a, qd_t b) { return qd_add_f64(b, a); }
__device__ __forceinline__ qd_t operator-(double a, qd_t b) { return qd_add_f64(qd_neg(b), a); }
__device__ __forceinline__ qd_t operator*(double a, qd_t b) { return qd_mul_f64(b, a); }
__device__ __forceinline__ qd_t operator/(double a, qd_t b) { return qd_div(qd_from_f64(a), b); }
__device__ __forceinline__ qd_t sqrt(qd_t a) { return qd_sqrt(a); }
