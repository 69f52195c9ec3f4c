// Element-wise arithmetic, one kernel per operation and type, for the host/device agreement
// tests (tests/gpu_arith.rs). The host prepends nothing; all three types are instantiated.
// Operands and results travel as limb arrays: element i of a T array is limbs<T>::count
// doubles from index i * limbs<T>::count. For the mixed operations the double operand is a
// plain array of n doubles.
#include "elementwise.cuh"

// out = EXPR(x, d) with x of type T and d a double.
#define HPQ_MIXED(NAME, T, EXPR)                                                         \
    extern "C" __global__ void NAME(const double *a, const double *b, double *out,       \
                                    unsigned long long n) {                              \
        HPQ_INDEX                                                                        \
        const int L = limbs<T>::count;                                                   \
        T x;                                                                             \
        load(a + i * L, x);                                                              \
        double d = b[i];                                                                 \
        T r = (EXPR);                                                                    \
        store(out + i * L, r);                                                           \
    }

#define HPQ_ALL_OPS(TN, T)                                                               \
    HPQ_ELEMENTWISE(arith_##TN##_add, T, x + y)                                          \
    HPQ_ELEMENTWISE(arith_##TN##_sub, T, x - y)                                          \
    HPQ_ELEMENTWISE(arith_##TN##_mul, T, x * y)                                          \
    HPQ_ELEMENTWISE(arith_##TN##_div, T, x / y)                                          \
    HPQ_ELEMENTWISE(arith_##TN##_sqrt, T, sqrt(x))                                       \
    HPQ_MIXED(arith_##TN##_add_f64, T, x + d)                                            \
    HPQ_MIXED(arith_##TN##_sub_f64, T, x - d)                                            \
    HPQ_MIXED(arith_##TN##_mul_f64, T, x * d)                                            \
    HPQ_MIXED(arith_##TN##_div_f64, T, x / d)                                            \
    HPQ_MIXED(arith_##TN##_f64_sub, T, d - x)                                            \
    HPQ_MIXED(arith_##TN##_f64_div, T, d / x)

HPQ_ALL_OPS(f64, double)
HPQ_ALL_OPS(dd, dd_t)
HPQ_ALL_OPS(qd, qd_t)
