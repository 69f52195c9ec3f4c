// Double-double arithmetic on the device.
// Twin of precision/src/dd.rs, function for function and operation for operation:
//   dd_add <-> Dd::add_dd    dd_add_f64 <-> Dd::add_f64    dd_mul <-> Dd::mul_dd
//   dd_mul_f64 <-> Dd::mul_f64    dd_sqr <-> Dd::sqr    dd_div <-> Dd::div_dd
//   dd_div_f64 <-> Dd::div_f64    dd_sqrt <-> Dd::sqrt    dd_from_u64 <-> From<u64>
// The operators at the end follow precision/src/ops.rs (a - b is a + (-b), and so on).
// Any change here is a change there too; tests/gpu_arith.rs compares the two bit for bit.
#pragma once
#include "eft.cuh"

struct dd_t {
    double hi;
    double lo;
};

__device__ __forceinline__ dd_t dd_make(double hi, double lo) {
    dd_t r;
    r.hi = hi;
    r.lo = lo;
    return r;
}

__device__ __forceinline__ dd_t dd_from_f64(double x) { return dd_make(x, 0.0); }

// 2^k for k in -1022..=1023, from its bits (precision/src/lib.rs pow2).
__device__ __forceinline__ double hpq_pow2(int k) {
    return __longlong_as_double((long long)(k + 1023) << 52);
}

// x * 2^k in at most three exact steps, so that 2^k itself never over- or underflows
// (precision/src/lib.rs ldexp).
__device__ __forceinline__ double hpq_ldexp(double x, int k) {
    int step = min(max(k, -1022), 1023);
    double y = x * hpq_pow2(step);
    int rest = k - step;
    if (rest != 0) {
        int step2 = min(max(rest, -1022), 1023);
        y *= hpq_pow2(step2);
        int rest2 = rest - step2;
        if (rest2 != 0) {
            y *= hpq_pow2(min(max(rest2, -1022), 1023));
        }
    }
    return y;
}

__device__ __forceinline__ dd_t dd_ldexp(dd_t a, int k) {
    return dd_make(hpq_ldexp(a.hi, k), hpq_ldexp(a.lo, k));
}

// x, or when x is zero the zero with the sign of lead, 0 * lead (dd::signed_zero): an
// operation's trailing terms are +0 when its exact result is zero, and -0 + +0 = +0 would lose
// the sign IEEE gives that zero, which the leading intermediate `lead` has (-0 + -0 = -0,
// -0 * y = -0 for y > 0, x - x = +0).
__device__ __forceinline__ double hpq_signed_zero(double x, double lead) {
    return x == 0.0 ? 0.0 * lead : x;
}

// (hi, lo) when hi is finite; else `special` alone when the leading intermediate was not
// finite, else x alone when the leading operand x of the final sum is infinite (dd_add's first
// FastTwoSum overflowed and the final sum is inf - inf), else hi alone (the final
// normalisation overflowed: +-inf); a zero hi takes the sign of `special` (Dd::finish_with,
// Dd::finish_exceptional).
__device__ __forceinline__ dd_t dd_finish_with(double hi, double lo, double special, double x) {
    hi = hpq_signed_zero(hi, special);
    if (isfinite(hi)) return dd_make(hi, lo);
    if (!isfinite(special)) return dd_make(special, 0.0);
    if (isinf(x)) return dd_make(x, 0.0);
    return dd_make(hi, 0.0);
}

// dd_finish_with where the leading operand of the final sum is `special` itself (Dd::finish).
__device__ __forceinline__ dd_t dd_finish(double hi, double lo, double special) {
    return dd_finish_with(hi, lo, special, special);
}

__device__ __forceinline__ dd_t dd_neg(dd_t a) { return dd_make(-a.hi, -a.lo); }

// The value rounded to a double, a zero keeping its sign (Dd::to_f64).
__device__ __forceinline__ double dd_to_f64(dd_t a) { return hpq_signed_zero(a.hi + a.lo, a.hi); }

// The exact sum of two doubles.
__device__ __forceinline__ dd_t dd_from_sum(double a, double b) {
    double hi, lo;
    two_sum(a, b, hi, lo);
    return dd_finish(hi, lo, a + b);
}

// The exact product of two doubles (barring underflow).
__device__ __forceinline__ dd_t dd_from_prod(double a, double b) {
    double hi, lo;
    two_prod(a, b, hi, lo);
    return dd_finish(hi, lo, hi);
}

// Exact conversion of x < 2^63: the top 53 bits and the remainder are each a double.
__device__ __forceinline__ dd_t dd_from_u64(unsigned long long x) {
    double hi = __ull2double_rn(x);
    // hi may round up past x: the difference is then negative, and exact as a signed integer.
    double rest = __ll2double_rn((long long)(x - __double2ull_rn(hi)));
    double zh, zl;
    quick_two_sum(hi, rest, zh, zl);
    return dd_make(zh, zl);
}

// a + b, JMP17 Alg. 6 (AccurateDWPlusDW).
__device__ __forceinline__ dd_t dd_add(dd_t a, dd_t b) {
    double sh, sl, th, tl, vh, vl, zh, zl;
    two_sum(a.hi, b.hi, sh, sl);
    two_sum(a.lo, b.lo, th, tl);
    double c = sl + th;
    quick_two_sum(sh, c, vh, vl);
    double w = tl + vl;
    quick_two_sum(vh, w, zh, zl);
    return dd_finish_with(zh, zl, sh, vh);
}

// a + b, JMP17 Alg. 4 (DWPlusFP).
__device__ __forceinline__ dd_t dd_add_f64(dd_t a, double b) {
    double sh, sl, zh, zl;
    two_sum(a.hi, b, sh, sl);
    double v = a.lo + sl;
    quick_two_sum(sh, v, zh, zl);
    return dd_finish(zh, zl, sh);
}

// a * b, JMP17 Alg. 12 (DWTimesDW3).
__device__ __forceinline__ dd_t dd_mul(dd_t a, dd_t b) {
    double ch, cl1, zh, zl;
    two_prod(a.hi, b.hi, ch, cl1);
    double tl0 = a.lo * b.lo;
    double tl1 = __fma_rn(a.hi, b.lo, tl0);
    double cl2 = __fma_rn(a.lo, b.hi, tl1);
    double cl3 = cl1 + cl2;
    quick_two_sum(ch, cl3, zh, zl);
    return dd_finish(zh, zl, ch);
}

// a * b, JMP17 Alg. 10 (DWTimesFP3).
__device__ __forceinline__ dd_t dd_mul_f64(dd_t a, double b) {
    double ch, cl1, zh, zl;
    two_prod(a.hi, b, ch, cl1);
    double cl3 = __fma_rn(a.lo, b, cl1);
    quick_two_sum(ch, cl3, zh, zl);
    return dd_finish(zh, zl, ch);
}

// a * a, the two cross products folded into one.
__device__ __forceinline__ dd_t dd_sqr(dd_t a) {
    double ch, cl1, zh, zl;
    two_prod(a.hi, a.hi, ch, cl1);
    double tl0 = a.lo * a.lo;
    double cl2 = __fma_rn(2.0 * a.hi, a.lo, tl0);
    double cl3 = cl1 + cl2;
    quick_two_sum(ch, cl3, zh, zl);
    return dd_finish(zh, zl, ch);
}

// Above 2^960 (HUGE_DIVISOR) dd_div scales the divisor by 2^-128 (TWO_M128), below 2^-960
// (TINY_DIVISOR, not zero) by 2^128 (TWO_128), and the quotient by the same factor, exactly.
#define HPQ_DD_HUGE_DIVISOR 0x1p960
#define HPQ_DD_TWO_M128 0x1p-128
#define HPQ_DD_TINY_DIVISOR 0x1p-960
#define HPQ_DD_TWO_128 0x1p128
// Below 2^-900 (TINY_DIVIDEND, not zero) dd_div_f64 scales the dividend by 2^200 and the
// quotient by 2^-200, exactly.
#define HPQ_DD_TINY_DIVIDEND 0x1p-900
#define HPQ_DD_TWO_200 0x1p200
#define HPQ_DD_TWO_M200 0x1p-200

// dd::divisor_scale: 2^-128 above 2^960, 2^128 below 2^-960 (not zero), 1 otherwise.
__device__ __forceinline__ double dd_divisor_scale(double b) {
    double size = fabs(b);
    if (size > HPQ_DD_HUGE_DIVISOR && isfinite(size)) {
        return HPQ_DD_TWO_M128;
    }
    if (size < HPQ_DD_TINY_DIVISOR && size != 0.0) {
        return HPQ_DD_TWO_128;
    }
    return 1.0;
}

// Both components times the power of two s (Dd::scaled).
__device__ __forceinline__ dd_t dd_scaled(dd_t a, double s) { return dd_make(a.hi * s, a.lo * s); }

// a / b for a divisor that needs no scaling (Dd::div_dd_unscaled).
__device__ __forceinline__ dd_t dd_div_unscaled(dd_t a, dd_t b) {
    double th = 1.0 / b.hi;
    if (!(isfinite(th) && th != 0.0 && isfinite(a.hi))) {
        return dd_from_f64(a.hi / b.hi);
    }
    double rh = __fma_rn(-b.hi, th, 1.0);
    double rl = -b.lo * th;
    double eh, el;
    quick_two_sum(rh, rl, eh, el);
    dd_t delta = dd_mul_f64(dd_make(eh, el), th);
    dd_t m = dd_add_f64(delta, th);
    return dd_mul(a, m);
}

// a / b, JMP17 Alg. 18 (DWDivDW3), a huge or tiny divisor scaled first (Dd::div_dd).
__device__ __forceinline__ dd_t dd_div(dd_t a, dd_t b) {
    double s = dd_divisor_scale(b.hi);
    if (s != 1.0) {
        // A quotient scaled up past the largest double keeps its leading component alone.
        dd_t q = dd_scaled(dd_div_unscaled(a, dd_scaled(b, s)), s);
        return isfinite(q.hi) ? q : dd_make(q.hi, 0.0);
    }
    return dd_div_unscaled(a, b);
}

// a / b for a dividend that needs no scaling, JMP17 Alg. 15 (Dd::div_f64_unscaled).
__device__ __forceinline__ dd_t dd_div_f64_unscaled(dd_t a, double b) {
    double th = a.hi / b;
    if (!(isfinite(th) && isfinite(b)) || b == 0.0) {
        return dd_from_f64(th);
    }
    double ph, pl, zh, zl;
    two_prod(th, b, ph, pl);
    double dh = a.hi - ph;
    double dt = dh - pl;
    double d = dt + a.lo;
    double tl = d / b;
    quick_two_sum(th, tl, zh, zl);
    return dd_finish(zh, zl, th);
}

// a / b, a tiny dividend scaled first (Dd::div_f64).
__device__ __forceinline__ dd_t dd_div_f64(dd_t a, double b) {
    if (fabs(a.hi) < HPQ_DD_TINY_DIVIDEND && a.hi != 0.0) {
        return dd_scaled(dd_div_f64_unscaled(dd_scaled(a, HPQ_DD_TWO_200), b), HPQ_DD_TWO_M200);
    }
    return dd_div_f64_unscaled(a, b);
}

// 1 / a.
__device__ __forceinline__ dd_t dd_recip(dd_t a) { return dd_div(dd_from_f64(1.0), a); }

// Below 2^-900 (SQRT_SCALE_BELOW) dd_sqrt scales its argument by 2^600 (SQRT_SCALE_UP) and the
// root by 2^-300 (SQRT_SCALE_DOWN), exactly: the residual of a tiny argument would underflow.
#define HPQ_DD_SQRT_SCALE_BELOW 0x1p-900
#define HPQ_DD_SQRT_SCALE_UP 0x1p600
#define HPQ_DD_SQRT_SCALE_DOWN 0x1p-300

// Square root of a positive finite a not below 2^-900: one Newton correction with an exact fma
// residual (Lefevre-Louvet-Muller-Picot 2022, SQRTDWtoDW).
__device__ __forceinline__ dd_t dd_sqrt_unscaled(dd_t a) {
    double sh = sqrt(a.hi);
    double r1 = __fma_rn(-sh, sh, a.hi);
    double r2 = a.lo + r1;
    double sl = r2 / (2.0 * sh);
    double zh, zl;
    quick_two_sum(sh, sl, zh, zl);
    return dd_make(zh, zl);
}

// Square root, NaN for negative input (Dd::sqrt); the host's recursion for a tiny argument
// lands in range, so it is dd_sqrt_unscaled here.
__device__ __forceinline__ dd_t dd_sqrt(dd_t a) {
    if (a.hi <= 0.0 || !isfinite(a.hi)) {
        return dd_make(sqrt(a.hi), 0.0);
    }
    if (a.hi < HPQ_DD_SQRT_SCALE_BELOW) {
        return dd_scaled(dd_sqrt_unscaled(dd_scaled(a, HPQ_DD_SQRT_SCALE_UP)),
                         HPQ_DD_SQRT_SCALE_DOWN);
    }
    return dd_sqrt_unscaled(a);
}

// Operators, as precision/src/ops.rs defines them for Dd.
__device__ __forceinline__ dd_t operator-(dd_t a) { return dd_neg(a); }
__device__ __forceinline__ dd_t operator+(dd_t a, dd_t b) { return dd_add(a, b); }
__device__ __forceinline__ dd_t operator-(dd_t a, dd_t b) { return dd_add(a, dd_neg(b)); }
__device__ __forceinline__ dd_t operator*(dd_t a, dd_t b) { return dd_mul(a, b); }
__device__ __forceinline__ dd_t operator/(dd_t a, dd_t b) { return dd_div(a, b); }
__device__ __forceinline__ dd_t operator+(dd_t a, double b) { return dd_add_f64(a, b); }
__device__ __forceinline__ dd_t operator-(dd_t a, double b) { return dd_add_f64(a, -b); }
__device__ __forceinline__ dd_t operator*(dd_t a, double b) { return dd_mul_f64(a, b); }
__device__ __forceinline__ dd_t operator/(dd_t a, double b) { return dd_div_f64(a, b); }
__device__ __forceinline__ dd_t operator+(double a, dd_t b) { return dd_add_f64(b, a); }
__device__ __forceinline__ dd_t operator-(double a, dd_t b) { return dd_add_f64(dd_neg(b), a); }
__device__ __forceinline__ dd_t operator*(double a, dd_t b) { return dd_mul_f64(b, a); }
__device__ __forceinline__ dd_t operator/(double a, dd_t b) { return dd_div(dd_from_f64(a), b); }
__device__ __forceinline__ dd_t sqrt(dd_t a) { return dd_sqrt(a); }
