// sin, cos, tan and sin_cos for dd_t and qd_t, written once as templates.
// Twin of precision/src/trig.rs, function for function and operation for operation:
//   trig_params<T> <-> TrigExpansion (REDUCTION_QD_LEVELS, SIN_COS_TERMS/SPLIT, ATAN_TERMS/SPLIT,
//   from_table, to_qd, from_qd_plus, series)    sub_multiple <-> sub_multiple
//   reduce <-> reduce    sin_cos_finite <-> sin_cos_finite    hpq_sin_cos <-> sin_cos
//   hpq_sin, hpq_cos, hpq_tan <-> sin, cos, tan (Dd::sin ...)
// Reduction by multiples of pi/1024 with exact products (Muller, "Elementary Functions",
// 3rd ed., 11.2), a table of sin, cos(j pi/1024) and short Taylor series (Hida-Li-Bailey).
// The tables and constants come from the generated header (src/gpu/tables.rs).
// Any change here is a change there too; tests/gpu_functions.rs compares the two bit for bit.
#pragma once
#include "expansion.cuh"

template <class T> struct trig_params;

// The per-type lengths, as `impl TrigExpansion for Dd` sets them (see the reasons there).
template <> struct trig_params<dd_t> {
    static constexpr int REDUCTION_QD_LEVELS = 1;
    static constexpr int SIN_COS_TERMS = 5;
    static constexpr int SIN_COS_FULL = 3;
    static constexpr int SIN_COS_LOWER = 0;
    static constexpr int ATAN_TERMS = 7;
    static constexpr int ATAN_FULL = 4;
    static constexpr int ATAN_LOWER = 0;

    __device__ static __forceinline__ dd_t from_table(const double *c) {
        return dd_make(c[0], c[1]);
    }
    __device__ static __forceinline__ qd_t to_qd(dd_t x) { return qd_from_dd(x); }
    __device__ static __forceinline__ dd_t from_qd_plus(qd_t s, dd_t tail) {
        return qd_to_dd(s) + tail;
    }
    // Dd::series: the terms from `full` on in doubles, the first `full` in double-double.
    __device__ static __forceinline__ dd_t series(dd_t u, const double *coeffs, int len,
                                                  int full, int lower) {
        double u0 = u.hi;
        double y = coeffs[4 * (len - 1)];
        for (int m = len - 2; m >= full; --m) {
            y = __fma_rn(y, u0, coeffs[4 * m]);
        }
        dd_t z = dd_from_f64(y);
        for (int m = full - 1; m >= 0; --m) {
            const double *c = coeffs + 4 * m;
            z = c[1] == 0.0 ? z * u + c[0] : z * u + dd_make(c[0], c[1]);
        }
        return z;
    }
};

// `impl TrigExpansion for Qd`.
template <> struct trig_params<qd_t> {
    static constexpr int REDUCTION_QD_LEVELS = 3;
    static constexpr int SIN_COS_TERMS = 10;
    static constexpr int SIN_COS_FULL = 5;
    static constexpr int SIN_COS_LOWER = 2;
    static constexpr int ATAN_TERMS = 14;
    static constexpr int ATAN_FULL = 7;
    static constexpr int ATAN_LOWER = 3;

    __device__ static __forceinline__ qd_t from_table(const double *c) {
        return qd_make(c[0], c[1], c[2], c[3]);
    }
    __device__ static __forceinline__ qd_t to_qd(qd_t x) { return x; }
    __device__ static __forceinline__ qd_t from_qd_plus(qd_t s, dd_t tail) {
        return qd_add_dd(s, tail);
    }
    // Qd::series: doubles from full + lower on, double-double for the next `lower`, then qd.
    __device__ static __forceinline__ qd_t series(qd_t u, const double *coeffs, int len,
                                                  int full, int lower) {
        int dd_end = full + lower;
        double u0 = u.x[0];
        double y = coeffs[4 * (len - 1)];
        for (int m = len - 2; m >= dd_end; --m) {
            y = __fma_rn(y, u0, coeffs[4 * m]);
        }
        dd_t ud = qd_to_dd(u);
        dd_t yd = dd_from_f64(y);
        for (int m = dd_end - 1; m >= full; --m) {
            yd = yd * ud + dd_make(coeffs[4 * m], coeffs[4 * m + 1]);
        }
        qd_t z = qd_from_dd(yd);
        for (int m = full - 1; m >= 0; --m) {
            const double *c = coeffs + 4 * m;
            // The leading coefficient 1 is a double, and adding a double is much cheaper.
            z = c[1] == 0.0 ? z * u + c[0] : z * u + qd_make(c[0], c[1], c[2], c[3]);
        }
        return z;
    }
};

// x - k pi/1024 as a quad-double s and a double-double tail far below it (sub_multiple).
template <class T>
__device__ __forceinline__ void sub_multiple(qd_t x, double k, qd_t &s, dd_t &tail) {
    const double *p = HPQ_PI_1024_PARTS;
    double h0, l0;
    two_prod(k, p[0], h0, l0);
    s = qd_from_f64(x.x[0] - h0);
    tail = dd_make(0.0, 0.0);
    double l_prev = l0;
#pragma unroll
    for (int i = 1; i < 7; ++i) {
        double h, l;
        two_prod(k, p[i], h, l);
        double xi = i < 4 ? x.x[i] : 0.0;
        if (i <= trig_params<T>::REDUCTION_QD_LEVELS) {
            s = s + xi - l_prev - h;
        } else {
            tail = tail + xi - l_prev - h;
        }
        l_prev = l;
    }
}

// x = t + M pi/1024 with M = m (mod 2048), |t| <= pi/2048 (reduce).
template <class T> __device__ __forceinline__ T reduce(T x, unsigned int &m_out) {
    double k1 = round(hi(x) * HPQ_INV_STEP);
    if (k1 == 0.0) {
        m_out = 0;
        return x;
    }
    qd_t s;
    dd_t tail;
    sub_multiple<T>(trig_params<T>::to_qd(x), k1, s, tail);
    // k1 may miss the nearest multiple by one (or more beyond 2^50): a second pass.
    double k2 = round((s.x[0] + tail.hi) * HPQ_INV_STEP);
    if (k2 != 0.0) {
        sub_multiple<T>(qd_add_dd(s, tail), k2, s, tail);
    }
    long long m = (long long)(fmod(k1, 2048.0) + fmod(k2, 2048.0));
    m_out = (unsigned int)(((m % 2048) + 2048) % 2048);
    return trig_params<T>::from_qd_plus(s, tail);
}

// (sin x, cos x) for finite, nonzero x below NAN_LIMIT (sin_cos_finite).
template <class T> __device__ __noinline__ void sin_cos_finite(T x, T &sin_x, T &cos_x) {
    typedef trig_params<T> P;
    unsigned int m;
    T t = reduce(x, m);
    unsigned int q = ((m + 256) >> 9) & 3;
    int j = (int)((m + 256) & 511) - 256;
    bool negate = j < 0;
    if (negate) {
        t = -t;
    }
    T u = expansion<T>::sqr(t);
    T s = t * P::series(u, HPQ_SIN_COEFFS, P::SIN_COS_TERMS, P::SIN_COS_FULL, P::SIN_COS_LOWER);
    T c = P::series(u, HPQ_COS_COEFFS, P::SIN_COS_TERMS, P::SIN_COS_FULL, P::SIN_COS_LOWER);
    T sin_theta, cos_theta;
    if (j == 0) {
        sin_theta = s;
        cos_theta = c;
    } else {
        const double *entry = HPQ_SIN_COS_TABLE + 8 * (j < 0 ? -j : j);
        T sj = P::from_table(entry);
        T cj = P::from_table(entry + 4);
        sin_theta = sj * c + cj * s;
        cos_theta = cj * c - sj * s;
    }
    if (negate) {
        sin_theta = -sin_theta;
    }
    switch (q) {
    case 0:
        sin_x = sin_theta;
        cos_x = cos_theta;
        break;
    case 1:
        sin_x = cos_theta;
        cos_x = -sin_theta;
        break;
    case 2:
        sin_x = -sin_theta;
        cos_x = -cos_theta;
        break;
    default:
        sin_x = -cos_theta;
        cos_x = sin_theta;
        break;
    }
}

// (sin x, cos x) with the special values of f64 (sin_cos).
template <class T> __device__ __forceinline__ void hpq_sin_cos(T x, T &s, T &c) {
    typedef expansion<T> E;
    if (x == E::zero()) {
        s = x;
        c = E::one();
        return;
    }
    if (isnan(hi(x)) || fabs(hi(x)) >= HPQ_NAN_LIMIT) {
        s = E::nan();
        c = E::nan();
        return;
    }
    sin_cos_finite(x, s, c);
}

template <class T> __device__ __forceinline__ T hpq_sin(T x) {
    T s, c;
    hpq_sin_cos(x, s, c);
    return s;
}

template <class T> __device__ __forceinline__ T hpq_cos(T x) {
    T s, c;
    hpq_sin_cos(x, s, c);
    return c;
}

template <class T> __device__ __forceinline__ T hpq_tan(T x) {
    if (x == expansion<T>::zero()) {
        return x;
    }
    T s, c;
    hpq_sin_cos(x, s, c);
    return s / c;
}
