// The C/C++ side of the arithmetic comparison (bench/arith/run.sh): QD's dd_real and qd_real,
// Arb and MPFR at 106 and 212 bits, timed on the inputs of `compare_arith.py inputs` the way
// hpquad/src/main.rs times hpquad's Dd and Qd; one JSON line per library, operation and form.
//
// Usage: compare_arith INPUTS REPS [LABEL]
//   Without LABEL: QD dd_real, QD qd_real, Arb 106, MPFR 106, Arb 212, MPFR 212.
//   With LABEL (the build against QD configured otherwise, -DQD_ONLY): "QD dd_real LABEL" and
//   "QD qd_real LABEL" alone.
//
// The forms (compare_arith.py's docstring is the reference):
//   array   independent results into an output array: x + y, x * y, x / y, pow(x, y) over the
//           pairs (A_i, B_i), each function over A then B;
//   scalar  one dependent chain from x = A_0: x + B_i, x * M_i, M_i / x, and f(A_i + 2^-10 x)
//           for the functions (pow: (A_i + 2^-10 x)^(B_i)).
// Each time is the best of REPS passes after one untimed pass, divided by the number of results
// of a pass. Arb and MPFR work in place on preallocated numbers: no allocation is timed.
//
// Build (run.sh): g++ -O3 -march=native -ffp-contract=off compare_arith.cpp -lqd
//   -lflint-arb -lflint -lmpfr -lgmp. -ffp-contract=off keeps g++ from fusing QD's Dekker
//   splitting into FMAs (QD is configured without FMA and relies on rounded products).

#include <qd/dd_real.h>
#include <qd/qd_real.h>
#ifndef QD_ONLY
#include <arb.h>
#include <mpfr.h>
#endif

#include <qd/fpu.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

namespace {

constexpr int N = 1024;
constexpr int SETS = 3;  // A, B, M
constexpr double FEEDBACK = 1.0 / 1024.0;  // 2^-10
const char *const OPS[] = {"add", "mul",  "div", "sqrt", "exp",  "log",
                           "sin", "cos",  "atan", "pow", "sinh", "cosh"};

using Number = std::array<double, 4>;
using Set = std::vector<Number>;

std::vector<Set> read_inputs(const char *path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<double> d(SETS * N * 4);
  in.read(reinterpret_cast<char *>(d.data()), d.size() * sizeof(double));
  if (!in || in.peek() != EOF) {
    std::fprintf(stderr, "%s: expected %d sets of %d numbers of 4 doubles\n", path, SETS, N);
    std::exit(2);
  }
  std::vector<Set> sets(SETS, Set(N));
  for (int k = 0; k < SETS; k++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < 4; j++) sets[k][i][j] = d[(k * N + i) * 4 + j];
  return sets;
}

// Keeps the compiler from moving work across the timer or dropping the stores of a pass.
inline void clobber() { asm volatile("" ::: "memory"); }

template <class Pass>
double best_ns(int reps, int results, Pass &&pass) {
  pass();
  double best = INFINITY;
  for (int r = 0; r < reps; r++) {
    auto start = std::chrono::steady_clock::now();
    pass();
    clobber();
    std::chrono::duration<double> t = std::chrono::steady_clock::now() - start;
    if (t.count() < best) best = t.count();
  }
  return best * 1e9 / results;
}

void print(const std::string &lib, const char *op, const char *form, double ns, double value) {
  if (std::isfinite(value))
    std::printf("{\"lib\":\"%s\",\"op\":\"%s\",\"form\":\"%s\",\"ns\":%.4f,\"value\":%.17g}\n",
                lib.c_str(), op, form, ns, value);
  else
    std::printf("{\"lib\":\"%s\",\"op\":\"%s\",\"form\":\"%s\",\"ns\":%.4f,\"value\":NaN}\n",
                lib.c_str(), op, form, ns);
}

// ---------------------------------------------------------------------------------------------
// The libraries, one policy each: a value type V, load (from the quad-double components),
// lead (the value as a double), and the operations writing into their first argument.

template <class T, int K>  // T = dd_real (K = 2 components) or qd_real (K = 4)
struct Qd {
  using V = T;
  static void init(V &) {}
  static void clear(V &) {}
  static void load(V &v, const Number &c) {
    if constexpr (K == 2) v = dd_real(c[0], c[1]);
    else v = qd_real(c[0], c[1], c[2], c[3]);
  }
  static void set(V &o, const V &a) { o = a; }
  static double lead(const V &v) { return v.x[0]; }
  static void add(V &o, const V &a, const V &b) { o = a + b; }
  static void mul(V &o, const V &a, const V &b) { o = a * b; }
  static void div(V &o, const V &a, const V &b) { o = a / b; }
  static void pow(V &o, const V &a, const V &b) { o = ::pow(a, b); }
  // o = a + 2^-10 x: QD's exact scaling by a power of two, then the addition.
  static void add_feedback(V &o, const V &a, const V &x) { o = a + mul_pwr2(x, FEEDBACK); }
  static void sqrt(V &o, const V &a) { o = ::sqrt(a); }
  static void exp(V &o, const V &a) { o = ::exp(a); }
  static void log(V &o, const V &a) { o = ::log(a); }
  static void sin(V &o, const V &a) { o = ::sin(a); }
  static void cos(V &o, const V &a) { o = ::cos(a); }
  static void atan(V &o, const V &a) { o = ::atan(a); }
  static void sinh(V &o, const V &a) { o = ::sinh(a); }
  static void cosh(V &o, const V &a) { o = ::cosh(a); }
};

#ifndef QD_ONLY
// The exact value of the components, rounded to nearest at `prec` bits.
void exact_sum(mpfr_t out, const Number &c, int k) {
  mpfr_t s;
  mpfr_init2(s, 4 * 1100);  // wide enough for any four doubles: the sum is exact
  mpfr_set_d(s, c[0], MPFR_RNDN);
  for (int j = 1; j < k; j++) mpfr_add_d(s, s, c[j], MPFR_RNDN);
  mpfr_set(out, s, MPFR_RNDN);
  mpfr_clear(s);
}

template <int PREC>
struct Mpfr {
  using V = __mpfr_struct;
  static void init(V &v) { mpfr_init2(&v, PREC); }
  static void clear(V &v) { mpfr_clear(&v); }
  static void load(V &v, const Number &c) { exact_sum(&v, c, PREC > 106 ? 4 : 2); }
  static void set(V &o, const V &a) { mpfr_set(&o, &a, MPFR_RNDN); }
  static double lead(const V &v) { return mpfr_get_d(&v, MPFR_RNDN); }
  static void add(V &o, const V &a, const V &b) { mpfr_add(&o, &a, &b, MPFR_RNDN); }
  static void mul(V &o, const V &a, const V &b) { mpfr_mul(&o, &a, &b, MPFR_RNDN); }
  static void div(V &o, const V &a, const V &b) { mpfr_div(&o, &a, &b, MPFR_RNDN); }
  static void pow(V &o, const V &a, const V &b) { mpfr_pow(&o, &a, &b, MPFR_RNDN); }
  static void add_feedback(V &o, const V &a, const V &x) {
    mpfr_mul_2si(&o, &x, -10, MPFR_RNDN);
    mpfr_add(&o, &a, &o, MPFR_RNDN);
  }
  static void sqrt(V &o, const V &a) { mpfr_sqrt(&o, &a, MPFR_RNDN); }
  static void exp(V &o, const V &a) { mpfr_exp(&o, &a, MPFR_RNDN); }
  static void log(V &o, const V &a) { mpfr_log(&o, &a, MPFR_RNDN); }
  static void sin(V &o, const V &a) { mpfr_sin(&o, &a, MPFR_RNDN); }
  static void cos(V &o, const V &a) { mpfr_cos(&o, &a, MPFR_RNDN); }
  static void atan(V &o, const V &a) { mpfr_atan(&o, &a, MPFR_RNDN); }
  static void sinh(V &o, const V &a) { mpfr_sinh(&o, &a, MPFR_RNDN); }
  static void cosh(V &o, const V &a) { mpfr_cosh(&o, &a, MPFR_RNDN); }
};

template <int PREC>
struct Arb {
  using V = arb_struct;
  static void init(V &v) { arb_init(&v); }
  static void clear(V &v) { arb_clear(&v); }
  // The midpoint: the components' exact sum rounded to PREC bits (MPFR's value); radius 0.
  static void load(V &v, const Number &c) {
    mpfr_t m;
    mpfr_init2(m, PREC);
    exact_sum(m, c, PREC > 106 ? 4 : 2);
    arf_set_mpfr(arb_midref(&v), m);
    mag_zero(arb_radref(&v));
    mpfr_clear(m);
  }
  static void set(V &o, const V &a) { arb_set(&o, &a); }
  static double lead(const V &v) { return arf_get_d(arb_midref(&v), ARF_RND_NEAR); }
  static void add(V &o, const V &a, const V &b) { arb_add(&o, &a, &b, PREC); }
  static void mul(V &o, const V &a, const V &b) { arb_mul(&o, &a, &b, PREC); }
  static void div(V &o, const V &a, const V &b) { arb_div(&o, &a, &b, PREC); }
  static void pow(V &o, const V &a, const V &b) { arb_pow(&o, &a, &b, PREC); }
  static void add_feedback(V &o, const V &a, const V &x) {
    arb_mul_2exp_si(&o, &x, -10);
    arb_add(&o, &a, &o, PREC);
  }
  static void sqrt(V &o, const V &a) { arb_sqrt(&o, &a, PREC); }
  static void exp(V &o, const V &a) { arb_exp(&o, &a, PREC); }
  static void log(V &o, const V &a) { arb_log(&o, &a, PREC); }
  static void sin(V &o, const V &a) { arb_sin(&o, &a, PREC); }
  static void cos(V &o, const V &a) { arb_cos(&o, &a, PREC); }
  static void atan(V &o, const V &a) { arb_atan(&o, &a, PREC); }
  static void sinh(V &o, const V &a) { arb_sinh(&o, &a, PREC); }
  static void cosh(V &o, const V &a) { arb_cosh(&o, &a, PREC); }
};
#endif

// A vector of initialised library values, cleared at the end.
template <class L>
struct Values {
  std::vector<typename L::V> v;
  explicit Values(size_t n) : v(n) {
    for (auto &x : v) L::init(x);
  }
  Values(const Values &) = delete;
  ~Values() {
    for (auto &x : v) L::clear(x);
  }
  typename L::V &operator[](size_t i) { return v[i]; }
  size_t size() const { return v.size(); }
};

// Every operation in both forms for one library.
template <class L>
void run(const std::string &lib, const std::vector<Set> &sets, int reps) {
  Values<L> a(N), b(N), m(N), ab(2 * N), out(2 * N), x(1), t(1);
  for (int i = 0; i < N; i++) {
    L::load(a[i], sets[0][i]);
    L::load(b[i], sets[1][i]);
    L::load(m[i], sets[2][i]);
    L::load(ab[i], sets[0][i]);
    L::load(ab[N + i], sets[1][i]);
  }
  auto checksum = [&](int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += L::lead(out[i]);
    return s;
  };
  // out[i] = op(a[i], b[i]), i < N.
  auto binary = [&](auto op) {
    double ns = best_ns(reps, N, [&] {
      for (int i = 0; i < N; i++) op(out[i], a[i], b[i]);
    });
    return std::make_pair(ns, checksum(N));
  };
  // out[i] = f(ab[i]), i < 2N.
  auto unary = [&](auto f) {
    double ns = best_ns(reps, 2 * N, [&] {
      for (int i = 0; i < 2 * N; i++) f(out[i], ab[i]);
    });
    return std::make_pair(ns, checksum(2 * N));
  };
  // x = step(x, i) for i < N from x = A_0.
  auto chain = [&](auto step) {
    double ns = best_ns(reps, N, [&] {
      L::set(x[0], a[0]);
      clobber();
      for (int i = 0; i < N; i++) step(x[0], i);
    });
    return std::make_pair(ns, L::lead(x[0]));
  };
  using V = typename L::V;
  auto fn_chain = [&](auto f) {
    return chain([&](V &xv, int i) {
      L::add_feedback(t[0], a[i], xv);
      f(xv, t[0]);
    });
  };
#define UNARY(F) \
  unary([](V &o, V &p) { L::F(o, p); }), fn_chain([](V &o, V &p) { L::F(o, p); })
  for (const char *op : OPS) {
    std::pair<double, double> arr, sca;
    std::string s = op;
    if (s == "add") {
      arr = binary([](V &o, V &p, V &q) { L::add(o, p, q); });
      sca = chain([&](V &xv, int i) { L::add(xv, xv, b[i]); });
    } else if (s == "mul") {
      arr = binary([](V &o, V &p, V &q) { L::mul(o, p, q); });
      sca = chain([&](V &xv, int i) { L::mul(xv, xv, m[i]); });
    } else if (s == "div") {
      arr = binary([](V &o, V &p, V &q) { L::div(o, p, q); });
      sca = chain([&](V &xv, int i) { L::div(xv, m[i], xv); });
    } else if (s == "pow") {
      arr = binary([](V &o, V &p, V &q) { L::pow(o, p, q); });
      sca = chain([&](V &xv, int i) {
        L::add_feedback(t[0], a[i], xv);
        L::pow(xv, t[0], b[i]);
      });
    } else if (s == "sqrt") {
      std::tie(arr, sca) = std::make_pair(UNARY(sqrt));
    } else if (s == "exp") {
      std::tie(arr, sca) = std::make_pair(UNARY(exp));
    } else if (s == "log") {
      std::tie(arr, sca) = std::make_pair(UNARY(log));
    } else if (s == "sin") {
      std::tie(arr, sca) = std::make_pair(UNARY(sin));
    } else if (s == "cos") {
      std::tie(arr, sca) = std::make_pair(UNARY(cos));
    } else if (s == "atan") {
      std::tie(arr, sca) = std::make_pair(UNARY(atan));
    } else if (s == "sinh") {
      std::tie(arr, sca) = std::make_pair(UNARY(sinh));
    } else if (s == "cosh") {
      std::tie(arr, sca) = std::make_pair(UNARY(cosh));
    }
    print(lib, op, "array", arr.first, arr.second);
    print(lib, op, "scalar", sca.first, sca.second);
  }
#undef UNARY
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s INPUTS REPS [LABEL]\n", argv[0]);
    return 2;
  }
  auto sets = read_inputs(argv[1]);
  int reps = std::atoi(argv[2]);
  if (reps <= 0) {
    std::fprintf(stderr, "REPS must be a positive integer, not %s\n", argv[2]);
    return 2;
  }
  // QD's functions assume round-to-nearest double arithmetic, which x86-64's SSE2 gives; its
  // fpu_fix_start matters only for x87.
  unsigned int old_cw;
  fpu_fix_start(&old_cw);
#ifdef QD_ONLY
  if (argc != 4) {
    std::fprintf(stderr, "this build (QD_ONLY) needs a LABEL\n");
    return 2;
  }
  std::string label = std::string(" ") + argv[3];
  run<Qd<dd_real, 2>>("QD dd_real" + label, sets, reps);
  run<Qd<qd_real, 4>>("QD qd_real" + label, sets, reps);
#else
  run<Qd<dd_real, 2>>("QD dd_real", sets, reps);
  run<Qd<qd_real, 4>>("QD qd_real", sets, reps);
  run<Arb<106>>("Arb 106", sets, reps);
  run<Mpfr<106>>("MPFR 106", sets, reps);
  run<Arb<212>>("Arb 212", sets, reps);
  run<Mpfr<212>>("MPFR 212", sets, reps);
  flint_cleanup();
#endif
  fpu_fix_end(&old_cw);
  return 0;
}
