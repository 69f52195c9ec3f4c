// Boost.Math's double-exponential quadrature on the comparison suite, in two precisions:
// `float128` (boost::multiprecision::float128, i.e. __float128 through libquadmath, 113 bits)
// and `cpp_bin_float_65` (boost::multiprecision::number<cpp_bin_float<65>>, 65 decimal
// digits, about 219 bits: Boost's counterpart of quad-double).
//
// tanh_sinh on finite intervals, exp_sinh on half-infinite ones, sinh_sinh on (-inf, inf), all
// with their default tolerance (sqrt(epsilon): Boost's recommended setting, since the error
// estimate is the difference of the last two levels and the last level roughly doubles the
// digits of the one before).
//
// The integrands come from the suite file through `cases.inc`, which `compare.py gen-cpp`
// writes: one `if (name == ...)` per case calling `run(lambda)`, the lambda generic in T with
// `pi` a local of type T and `lit("0.3")` a decimal literal read in T.
//
//   boost_quad run  PRECISION NAME FROM TO   one JSON line: value, error, levels,
//                                            evaluations, first call and best of up to five
//                                            more (cut at 3 s in all), seconds
//   boost_quad eval PRECISION NAME X...      f(X) for each X, all digits (checks the forms)
//
// Build: g++ -O3 -std=c++17 -I<dir of cases.inc> boost_quad.cpp -lquadmath

#include <boost/math/constants/constants.hpp>
#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/sinh_sinh.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/float128.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

using boost::multiprecision::cpp_bin_float;
using boost::multiprecision::float128;
using boost::multiprecision::number;
using cpp_bin_float_65 = number<cpp_bin_float<65>>;

namespace {

// Seconds since `start`.
double since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// All the digits of `x` in scientific notation.
template <class T> std::string digits(const T& x) {
    return x.str(std::numeric_limits<T>::max_digits10, std::ios_base::scientific);
}

// A JSON string literal (the messages of Boost's exceptions contain quotes).
std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') { out += "\\n"; continue; }
        out += c;
    }
    return out + "\"";
}

// A bound of the suite: a decimal, "inf" or "-inf".
template <class T> T bound(const std::string& text) {
    if (text == "inf") return std::numeric_limits<T>::infinity();
    if (text == "-inf") return -std::numeric_limits<T>::infinity();
    return T(text.c_str());
}

// Calls `run` with the integrand of case `name`; false when there is no such case.
template <class T, class Run> bool with_case(const std::string& name, Run&& run) {
    using namespace boost::multiprecision;
    using std::exp; using std::log; using std::sin; using std::cos; using std::sqrt;
    using std::sinh; using std::pow;
    const T pi = boost::math::constants::pi<T>();
    auto lit = [](const char* s) { return T(s); };
    (void)lit;
#include "cases.inc"
    return false;
}

// One integration's result as Boost reports it.
template <class T> struct Outcome {
    T value = 0;
    T error = 0;
    T l1 = 0;
    std::size_t levels = 0;
};

template <class T> int run(const std::string& name, const std::string& from, const std::string& to) {
    const T a = bound<T>(from), b = bound<T>(to);
    unsigned long long evaluations = 0;
    bool found = with_case<T>(name, [&](auto g) {
        std::function<T(T)> f = [&](T x) { ++evaluations; return g(x); };
        // One integration: the integrator is built by the first call (its abscissa tables are
        // part of the first call's time) and reused by the next, as Boost intends.
        std::function<Outcome<T>()> once;
        using namespace boost::math::quadrature;
        std::unique_ptr<tanh_sinh<T>> ts;
        std::unique_ptr<exp_sinh<T>> es;
        std::unique_ptr<sinh_sinh<T>> ss;
        std::string method;
        const bool a_inf = boost::math::isinf(a), b_inf = boost::math::isinf(b);
        if (!a_inf && !b_inf) {
            method = "tanh_sinh";
            once = [&]() {
                if (!ts) ts.reset(new tanh_sinh<T>());
                Outcome<T> o;
                o.value = ts->integrate(f, a, b, boost::math::tools::root_epsilon<T>(), &o.error, &o.l1, &o.levels);
                return o;
            };
        } else if (a_inf && b_inf) {
            method = "sinh_sinh";
            once = [&]() {
                if (!ss) ss.reset(new sinh_sinh<T>());
                Outcome<T> o;
                o.value = ss->integrate(f, boost::math::tools::root_epsilon<T>(), &o.error, &o.l1, &o.levels);
                return o;
            };
        } else {
            method = "exp_sinh";
            once = [&]() {
                if (!es) es.reset(new exp_sinh<T>());
                Outcome<T> o;
                o.value = es->integrate(f, a, b, boost::math::tools::root_epsilon<T>(), &o.error, &o.l1, &o.levels);
                return o;
            };
        }
        std::string fields = "\"method\":" + json_string(method);
        try {
            auto start = std::chrono::steady_clock::now();
            Outcome<T> o = once();
            const double first = since(start);
            const unsigned long long first_evaluations = evaluations;
            double best = first, spent = 0;
            int reps = 0;
            while (reps < 5 && spent < 3.0) {
                start = std::chrono::steady_clock::now();
                o = once();
                const double t = since(start);
                best = std::min(best, t);
                spent += t;
                ++reps;
            }
            // Boost stops at its finest level without a word when the tolerance is not met:
            // its own test, error <= tolerance * L1, says whether it was.
            const bool converged = o.error <= boost::math::tools::root_epsilon<T>() * o.l1;
            std::printf("{%s,\"value\":\"%s\",\"error\":\"%s\",\"l1\":\"%s\",\"converged\":%s,"
                        "\"levels\":%zu,\"evaluations\":%llu,"
                        "\"first_s\":%.9g,\"best_s\":%.9g,\"reps\":%d}\n",
                        fields.c_str(), digits(o.value).c_str(), digits(o.error).c_str(),
                        digits(o.l1).c_str(), converged ? "true" : "false", o.levels,
                        first_evaluations, first, reps ? best : first, reps);
        } catch (const std::exception& e) {
            std::printf("{%s,\"failure\":%s,\"evaluations\":%llu}\n", fields.c_str(),
                        json_string(e.what()).c_str(), evaluations);
        }
    });
    if (!found) {
        std::fprintf(stderr, "no case %s\n", name.c_str());
        return 2;
    }
    return 0;
}

template <class T> int eval(const std::string& name, int argc, char** argv) {
    bool found = with_case<T>(name, [&](auto g) {
        for (int i = 0; i < argc; ++i) std::printf("%s\n", digits(T(g(T(argv[i])))).c_str());
    });
    return found ? 0 : 2;
}

template <class T> int dispatch(const std::string& mode, int argc, char** argv) {
    if (mode == "run" && argc == 3) return run<T>(argv[0], argv[1], argv[2]);
    if (mode == "eval" && argc >= 1) return eval<T>(argv[0], argc - 1, argv + 1);
    std::fprintf(stderr, "usage: boost_quad run PRECISION NAME FROM TO | eval PRECISION NAME X...\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) return dispatch<float128>("", 0, nullptr);
    const std::string mode = argv[1], precision = argv[2];
    if (precision == "float128") return dispatch<float128>(mode, argc - 3, argv + 3);
    if (precision == "cpp_bin_float_65") return dispatch<cpp_bin_float_65>(mode, argc - 3, argv + 3);
    std::fprintf(stderr, "unknown precision %s: float128 or cpp_bin_float_65\n", precision.c_str());
    return 2;
}
