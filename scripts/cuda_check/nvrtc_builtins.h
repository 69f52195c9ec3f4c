// What NVRTC declares built in (the CUDA keywords, thread indices, intrinsics, math), for
// clang's check of the generated kernel sources without a CUDA toolkit: scripts/check_cuda.sh.
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __host__ __attribute__((host))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#include <__clang_cuda_builtin_vars.h>
__device__ void __syncthreads();
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ void __threadfence();
__device__ double __fma_rn(double, double, double);
__device__ double __longlong_as_double(long long);
__device__ long long __double_as_longlong(double);
__device__ int __clzll(long long);
__device__ unsigned long long __umul64hi(unsigned long long, unsigned long long);
__device__ double __shfl_down_sync(unsigned, double, unsigned, int = 32);
__device__ int __shfl_down_sync(unsigned, int, unsigned, int = 32);
__device__ unsigned long long __shfl_up_sync(unsigned, unsigned long long, unsigned, int = 32);
__device__ double __shfl_sync(unsigned, double, int, int = 32);
__device__ double __shfl_xor_sync(unsigned, double, int, int = 32);
__device__ double __ldcg(const double *);
__device__ double __ull2double_rn(unsigned long long);
__device__ double __ll2double_rn(long long);
__device__ unsigned long long __double2ull_rn(double);
__device__ int __popc(unsigned);
__device__ unsigned __ballot_sync(unsigned, int);
__device__ unsigned long long atomicMin(unsigned long long *, unsigned long long);
__device__ unsigned atomicAdd(unsigned *, unsigned);
__device__ double fabs(double);
__device__ double fmax(double, double);
__device__ double fmin(double, double);
__device__ double sqrt(double);
__device__ double floor(double);
__device__ double ceil(double);
__device__ double trunc(double);
__device__ double rint(double);
__device__ double nearbyint(double);
__device__ double ldexp(double, int);
__device__ double frexp(double, int *);
__device__ double copysign(double, double);
__device__ double fma(double, double, double);
__device__ double exp(double);
__device__ double log(double);
__device__ double pow(double, double);
__device__ bool isfinite(double);
__device__ bool isnan(double);
__device__ bool isinf(double);
__device__ bool signbit(double);
__device__ int min(int, int);
__device__ int max(int, int);
__device__ unsigned min(unsigned, unsigned);
__device__ unsigned max(unsigned, unsigned);
__device__ long long min(long long, long long);
__device__ long long max(long long, long long);
__device__ unsigned long long min(unsigned long long, unsigned long long);
__device__ unsigned long long max(unsigned long long, unsigned long long);
__device__ double round(double);
__device__ double fmod(double, double);
__device__ double remainder(double, double);
__device__ double expm1(double);
__device__ double exp2(double);
__device__ double log1p(double);
__device__ double log2(double);
__device__ double log10(double);
__device__ double sin(double);
__device__ double cos(double);
__device__ double tan(double);
__device__ double asin(double);
__device__ double acos(double);
__device__ double atan(double);
__device__ double atan2(double, double);
__device__ double sinh(double);
__device__ double cosh(double);
__device__ double tanh(double);
__device__ double asinh(double);
__device__ double acosh(double);
__device__ double atanh(double);
__device__ double cbrt(double);
__device__ double hypot(double, double);
__device__ double erf(double);
__device__ double erfc(double);
__device__ double tgamma(double);
__device__ double lgamma(double);
__device__ double sinpi(double);
__device__ double cospi(double);
__device__ double rsqrt(double);
__device__ double fdim(double, double);
__device__ int ilogb(double);
__device__ double scalbn(double, int);
__device__ long long llrint(double);
__device__ long long llround(double);
