// Error-free transformations on the device.
// Twin of precision/src/eft.rs: same functions, same names, same order of operations.
// Compiled with --fmad=false so that no a*b+c is contracted behind our back; every fused
// multiply-add is an explicit __fma_rn, exactly where the host calls f64::mul_add.
#pragma once

// a + b = s + e exactly, for any a, b (Knuth's TwoSum).
__device__ __forceinline__ void two_sum(double a, double b, double &s, double &e) {
    s = a + b;
    double bb = s - a;
    e = (a - (s - bb)) + (b - bb);
}

// a + b = s + e exactly, provided |a| >= |b| or a == 0 (Dekker's FastTwoSum).
__device__ __forceinline__ void quick_two_sum(double a, double b, double &s, double &e) {
    s = a + b;
    e = b - (s - a);
}

// a - b = s + e exactly.
__device__ __forceinline__ void two_diff(double a, double b, double &s, double &e) {
    s = a - b;
    double bb = s - a;
    e = (a - (s - bb)) - (b + bb);
}

// a * b = p + e exactly, barring underflow (TwoProd with one fma).
__device__ __forceinline__ void two_prod(double a, double b, double &p, double &e) {
    p = a * b;
    e = __fma_rn(a, b, -p);
}

// a * a = p + e exactly, barring underflow.
__device__ __forceinline__ void two_sqr(double a, double &p, double &e) {
    two_prod(a, a, p, e);
}

// s + e1 + e2 = a + b + c exactly (Hida-Li-Bailey three_sum).
__device__ __forceinline__ void three_sum(double a, double b, double c, double &s, double &e1,
                                          double &e2) {
    double t1, t2, t3;
    two_sum(a, b, t1, t2);
    two_sum(c, t1, s, t3);
    two_sum(t2, t3, e1, e2);
}

// a + b + c into (s, e), the rounding error of e dropped (Hida-Li-Bailey three_sum2).
__device__ __forceinline__ void three_sum2(double a, double b, double c, double &s, double &e) {
    double t1, t2, t3;
    two_sum(a, b, t1, t2);
    two_sum(c, t1, s, t3);
    e = t2 + t3;
}
