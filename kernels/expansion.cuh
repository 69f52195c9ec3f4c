// What the elementary functions need of dd_t and qd_t, so that each is written once as a
// template, as the host writes it once over its crate-private trait.
// Twin of precision/src/expansion.rs: expansion<T>::COMPONENTS <-> Expansion::COMPONENTS,
//   hi, component, from_components, sqr, sqrt, recip, ldexp, abs, floor, ceil and the constants
//   (PI, FRAC_PI_2, FRAC_PI_4, LN_2, NAN, INFINITY) under the same names, and the comparison
//   operators of Dd's and Qd's PartialOrd / PartialEq (component by component, NaN unordered).
// The constants come from the generated header (src/gpu/tables.rs), taken from the very Rust
// values, so that the two sides cannot drift.
#pragma once
#include "qd.cuh"

template <class T> struct expansion;

// The rounding directions of Dd/Qd::round_components(f64::floor | f64::ceil).
struct round_down {
    __device__ static __forceinline__ double apply(double x) { return ::floor(x); }
};
struct round_up {
    __device__ static __forceinline__ double apply(double x) { return ::ceil(x); }
};

// Dd::round_components: round hi; when it is an integer already, lo too. A zero lo: x is an
// integer already and returned as it is (so that -0 stays -0).
template <class R> __device__ __forceinline__ dd_t dd_round_components(dd_t x) {
    double hi = R::apply(x.hi);
    if (hi != x.hi) {
        return dd_make(hi, 0.0);
    }
    if (x.lo == 0.0) {
        return x;
    }
    double zh, zl;
    quick_two_sum(hi, R::apply(x.lo), zh, zl);
    return dd_make(zh, zl);
}

// Qd::round_components: round the components that are integers already, then the first one
// that is not; those after it vanish.
template <class R> __device__ __forceinline__ qd_t qd_round_components(qd_t a) {
    double x[4] = {0.0, 0.0, 0.0, 0.0};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        x[i] = R::apply(a.x[i]);
        if (x[i] != a.x[i]) {
            break;
        }
    }
    return qd_renormalise<4>(x);
}

template <> struct expansion<dd_t> {
    static constexpr int COMPONENTS = 2;
    static constexpr int PRECISION_BITS = 104;
    __device__ static __forceinline__ dd_t zero() { return dd_make(0.0, 0.0); }
    __device__ static __forceinline__ dd_t one() { return dd_make(1.0, 0.0); }
    __device__ static __forceinline__ dd_t nan() { return dd_make(HPQ_NAN, 0.0); }
    __device__ static __forceinline__ dd_t infinity() { return dd_make(HPQ_INFINITY, 0.0); }
    __device__ static __forceinline__ dd_t pi() { return dd_make(HPQ_DD_PI_0, HPQ_DD_PI_1); }
    __device__ static __forceinline__ dd_t frac_pi_2() {
        return dd_make(HPQ_DD_FRAC_PI_2_0, HPQ_DD_FRAC_PI_2_1);
    }
    __device__ static __forceinline__ dd_t frac_pi_4() {
        return dd_make(HPQ_DD_FRAC_PI_4_0, HPQ_DD_FRAC_PI_4_1);
    }
    __device__ static __forceinline__ dd_t ln_2() {
        return dd_make(HPQ_DD_LN_2_0, HPQ_DD_LN_2_1);
    }
    __device__ static __forceinline__ dd_t from_f64(double x) { return dd_from_f64(x); }
    // The first two of (at least) two components.
    __device__ static __forceinline__ dd_t from_components(const double *c) {
        return dd_make(c[0], c[1]);
    }
    __device__ static __forceinline__ double hi(dd_t x) { return x.hi; }
    __device__ static __forceinline__ double component(dd_t x, int i) {
        return i == 0 ? x.hi : x.lo;
    }
    __device__ static __forceinline__ dd_t sqr(dd_t x) { return dd_sqr(x); }
    __device__ static __forceinline__ dd_t sqrt(dd_t x) { return dd_sqrt(x); }
    __device__ static __forceinline__ dd_t recip(dd_t x) { return dd_recip(x); }
    __device__ static __forceinline__ dd_t ldexp(dd_t x, int k) { return dd_ldexp(x, k); }
    // Dd::abs: negate when the leading component has its sign bit set.
    __device__ static __forceinline__ dd_t abs(dd_t x) { return signbit(x.hi) ? dd_neg(x) : x; }
    // Dd::floor, Dd::ceil.
    __device__ static __forceinline__ dd_t floor(dd_t x) {
        return dd_round_components<round_down>(x);
    }
    __device__ static __forceinline__ dd_t ceil(dd_t x) { return dd_round_components<round_up>(x); }
};

template <> struct expansion<qd_t> {
    static constexpr int COMPONENTS = 4;
    static constexpr int PRECISION_BITS = 209;
    __device__ static __forceinline__ qd_t zero() { return qd_make(0.0, 0.0, 0.0, 0.0); }
    __device__ static __forceinline__ qd_t one() { return qd_make(1.0, 0.0, 0.0, 0.0); }
    __device__ static __forceinline__ qd_t nan() { return qd_make(HPQ_NAN, 0.0, 0.0, 0.0); }
    __device__ static __forceinline__ qd_t infinity() {
        return qd_make(HPQ_INFINITY, 0.0, 0.0, 0.0);
    }
    __device__ static __forceinline__ qd_t pi() {
        return qd_make(HPQ_QD_PI_0, HPQ_QD_PI_1, HPQ_QD_PI_2, HPQ_QD_PI_3);
    }
    __device__ static __forceinline__ qd_t frac_pi_2() {
        return qd_make(HPQ_QD_FRAC_PI_2_0, HPQ_QD_FRAC_PI_2_1, HPQ_QD_FRAC_PI_2_2,
                       HPQ_QD_FRAC_PI_2_3);
    }
    __device__ static __forceinline__ qd_t frac_pi_4() {
        return qd_make(HPQ_QD_FRAC_PI_4_0, HPQ_QD_FRAC_PI_4_1, HPQ_QD_FRAC_PI_4_2,
                       HPQ_QD_FRAC_PI_4_3);
    }
    __device__ static __forceinline__ qd_t ln_2() {
        return qd_make(HPQ_QD_LN_2_0, HPQ_QD_LN_2_1, HPQ_QD_LN_2_2, HPQ_QD_LN_2_3);
    }
    __device__ static __forceinline__ qd_t from_f64(double x) { return qd_from_f64(x); }
    __device__ static __forceinline__ qd_t from_components(const double *c) {
        return qd_make(c[0], c[1], c[2], c[3]);
    }
    __device__ static __forceinline__ double hi(qd_t x) { return x.x[0]; }
    __device__ static __forceinline__ double component(qd_t x, int i) { return qd_get(x, i); }
    __device__ static __forceinline__ qd_t sqr(qd_t x) { return qd_sqr(x); }
    __device__ static __forceinline__ qd_t sqrt(qd_t x) { return qd_sqrt(x); }
    __device__ static __forceinline__ qd_t recip(qd_t x) { return qd_recip(x); }
    __device__ static __forceinline__ qd_t ldexp(qd_t x, int k) { return qd_ldexp(x, k); }
    __device__ static __forceinline__ qd_t abs(qd_t x) { return signbit(x.x[0]) ? qd_neg(x) : x; }
    // Qd::floor, Qd::ceil.
    __device__ static __forceinline__ qd_t floor(qd_t x) {
        return qd_round_components<round_down>(x);
    }
    __device__ static __forceinline__ qd_t ceil(qd_t x) { return qd_round_components<round_up>(x); }
};

// Comparisons as the derived PartialEq (every component equal) and the lexicographic
// PartialOrd of Dd and Qd: the first unequal pair of components decides, NaN makes every
// ordering false. A double operand is widened with zeros, as PartialOrd<f64> does.
template <class T> __device__ __forceinline__ bool hpq_eq(const T &a, const T &b) {
    bool r = true;
#pragma unroll
    for (int i = 0; i < expansion<T>::COMPONENTS; ++i) {
        r = r && expansion<T>::component(a, i) == expansion<T>::component(b, i);
    }
    return r;
}

// -1, 0, 1 for less, equal, greater; 2 for unordered.
template <class T> __device__ __forceinline__ int hpq_cmp(const T &a, const T &b) {
#pragma unroll
    for (int i = 0; i < expansion<T>::COMPONENTS; ++i) {
        double x = expansion<T>::component(a, i), y = expansion<T>::component(b, i);
        if (x == y) continue;
        if (x < y) return -1;
        if (x > y) return 1;
        return 2;
    }
    return 0;
}

#define HPQ_COMPARISONS(T)                                                               \
    __device__ __forceinline__ bool operator==(T a, T b) { return hpq_eq(a, b); }        \
    __device__ __forceinline__ bool operator!=(T a, T b) { return !hpq_eq(a, b); }       \
    __device__ __forceinline__ bool operator<(T a, T b) { return hpq_cmp(a, b) == -1; }  \
    __device__ __forceinline__ bool operator>(T a, T b) { return hpq_cmp(a, b) == 1; }   \
    __device__ __forceinline__ bool operator<=(T a, T b) {                               \
        int c = hpq_cmp(a, b);                                                           \
        return c == -1 || c == 0;                                                        \
    }                                                                                    \
    __device__ __forceinline__ bool operator>=(T a, T b) {                               \
        int c = hpq_cmp(a, b);                                                           \
        return c == 1 || c == 0;                                                         \
    }                                                                                    \
    __device__ __forceinline__ bool operator==(T a, double b) {                          \
        return a == expansion<T>::from_f64(b);                                           \
    }                                                                                    \
    __device__ __forceinline__ bool operator!=(T a, double b) {                          \
        return a != expansion<T>::from_f64(b);                                           \
    }                                                                                    \
    __device__ __forceinline__ bool operator<(T a, double b) {                           \
        return a < expansion<T>::from_f64(b);                                            \
    }                                                                                    \
    __device__ __forceinline__ bool operator>(T a, double b) {                           \
        return a > expansion<T>::from_f64(b);                                            \
    }                                                                                    \
    __device__ __forceinline__ bool operator<=(T a, double b) {                          \
        return a <= expansion<T>::from_f64(b);                                           \
    }                                                                                    \
    __device__ __forceinline__ bool operator>=(T a, double b) {                          \
        return a >= expansion<T>::from_f64(b);                                           \
    }

HPQ_COMPARISONS(dd_t)
HPQ_COMPARISONS(qd_t)

// x.hi().is_nan() etc. read the leading component; these keep the templates short.
template <class T> __device__ __forceinline__ double hi(const T &x) { return expansion<T>::hi(x); }
