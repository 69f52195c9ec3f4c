// Element-wise test kernels (kernels/arith.cu, kernels/functions.cu): one thread per element,
// operands and results as limb arrays (element i of a T array is limbs<T>::count doubles from
// index i * limbs<T>::count). Every kernel takes (a, b, out, n); a one-operand EXPR ignores y.
#pragma once
#include "reduce.cuh"

#define HPQ_INDEX                                                                        \
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; \
    if (i >= n) return;

// out = EXPR(x, y) with x, y of type T.
#define HPQ_ELEMENTWISE(NAME, T, EXPR)                                                   \
    extern "C" __global__ void NAME(const double *a, const double *b, double *out,       \
                                    unsigned long long n) {                              \
        HPQ_INDEX                                                                        \
        const int L = limbs<T>::count;                                                   \
        T x, y;                                                                          \
        load(a + i * L, x);                                                              \
        load(b + i * L, y);                                                              \
        (void)y;                                                                         \
        T r = (EXPR);                                                                    \
        store(out + i * L, r);                                                           \
    }
