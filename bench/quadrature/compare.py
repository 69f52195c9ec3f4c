#!/usr/bin/env python3
"""The quadrature comparison: competitors (Arb, mpmath, scipy, Boost.Math), hpquad, the report.

Run through run.sh, which makes the venv and builds the programs. Subcommands:

  check                     every Python and C++ form of every case against the MPFR samples
                            of the suite (and Arb's truncation points), before anything is timed
  gen-cpp FILE              the C++ integrands of the suite as `cases.inc` for boost_quad.cpp
  one LIB PREC NAME         one case by one library in this process: one JSON line
  competitors OUT           every case by every competitor, one subprocess each, with a timeout
  hpquad OUT                every case by examples/compare in f64, dd and qd: best of five
                            after a first call in one process, and a first call in a fresh one
  report RESULTS...         digits against the references, the Markdown table, the CSV, the
                            speed ratios and the plot

Each timing is taken inside the process that computes, on one thread: the first call, then the
best of up to five more (cut when they have taken 3 s together).
"""

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SUITE = os.path.join(HERE, "suite.json")
BUILD = os.path.join(ROOT, "target", "compare-quadrature")
BOOST = os.path.join(BUILD, "boost_quad")
HPQUAD = os.path.join(ROOT, "target", "release", "examples", "compare")

# The competitors and their precisions; (library, precision) is one column of the report.
PYTHON_RUNS = [("arb", "53"), ("arb", "106"), ("arb", "213"), ("mpmath", "32"), ("mpmath", "64"),
               ("scipy", "f64")]
BOOST_RUNS = [("boost", "float128"), ("boost", "cpp_bin_float_65")]
HPQUAD_PRECISIONS = ["f64", "dd", "qd"]
# scipy's quad asks for 1.5e-8 by default; it is given hpquad's default f64 tolerance (1000 units
# in the last place) instead, so that both aim at the same accuracy.
SCIPY_EPSREL = 1000 * 2.0 ** -52
# Repetitions after the first call: at most this many, stopped once they took REPEAT_BUDGET s.
REPEATS = 5
REPEAT_BUDGET = 3.0


def load_suite():
    with open(SUITE, encoding="utf-8") as f:
        return json.load(f)["cases"]


def case_named(name):
    for case in load_suite():
        if case["name"] == name:
            return case
    raise SystemExit(f"no case {name} in {SUITE}")


def timed_calls(call):
    """(result of the last call, first call's seconds, best of the repeats, repeats)."""
    start = time.perf_counter()
    result = call()
    first = time.perf_counter() - start
    best, spent, reps = math.inf, 0.0, 0
    while reps < REPEATS and spent < REPEAT_BUDGET:
        start = time.perf_counter()
        result = call()
        t = time.perf_counter() - start
        best, spent, reps = min(best, t), spent + t, reps + 1
    return result, first, (best if reps else first), reps


# ----------------------------------------------------------------------------------------------
# The integrands of each library, compiled from the suite's forms.

def mpmath_integrand(case):
    import mpmath
    from mpmath import mp
    names = {k: getattr(mpmath, k) for k in ("exp", "log", "sin", "cos", "sqrt", "sinh", "cosh")}
    names.update(pi=mp.pi, N=mp.mpf)
    return eval("lambda x: " + case["python"], names)


def math_integrand(case):
    names = {k: getattr(math, k) for k in ("exp", "log", "sin", "cos", "sqrt", "sinh", "cosh")}
    names.update(pi=math.pi, N=float)
    return eval("lambda x: " + case["python"], names)


def flint_integrand(case):
    """lambda x, a: the flint form, a being Arb's analytic flag; built after ctx.prec is set."""
    import flint
    names = {"acb": flint.acb, "arb": flint.arb, "pi": flint.acb.pi()}
    return eval("lambda x, a: " + case["flint"], names)


def flint_bounds(case, prec):
    """Arb's interval: the suite's bounds, or its truncation of an infinite range (None: none)."""
    if "flint_bounds" in case:
        if case["flint_bounds"] is None:
            return None
        names = {"p": prec, "sqrt": math.sqrt, "log": math.log}
        return tuple(str(eval(e, names)) for e in case["flint_bounds"])
    return case["from"], case["to"]


# ----------------------------------------------------------------------------------------------
# One case by one library.

def run_one(lib, prec, name):
    case = case_named(name)
    out = {"library": lib, "precision": prec, "case": name}
    count = [0]
    if lib == "arb":
        import flint
        flint.ctx.prec = int(prec)
        bounds = flint_bounds(case, int(prec))
        if bounds is None:
            out["failure"] = "not run: acb.integral needs a finite interval and the tail decays too slowly to truncate"
            return out
        f = flint_integrand(case)

        def counted(x, a):
            count[0] += 1
            return f(x, a)

        lo, hi = flint.arb(bounds[0]), flint.arb(bounds[1])
        out["interval"] = list(bounds)
        try:
            value, first, best, reps = timed_calls(lambda: flint.acb.integral(counted, lo, hi))
        except Exception as e:  # Arb raises where it cannot enclose at all
            out["failure"] = f"{type(e).__name__}: {e}"
            out["evaluations"] = count[0]
            return out
        re = value.real
        out["value"] = re.mid().str(int(int(prec) * 0.30103) + 5, radius=False)
        out["radius"] = re.rad().str(5, radius=False)
        out["accuracy_bits"] = value.rel_accuracy_bits()
        if not value.is_finite():
            out["failure"] = "no finite enclosure"
    elif lib == "mpmath":
        from mpmath import mp
        mp.dps = int(prec)
        f = mpmath_integrand(case)

        def counted(x):
            count[0] += 1
            return f(x)

        a = mp.mpf(case["from"]) if "inf" not in case["from"] else -mp.inf
        b = mp.mpf(case["to"]) if "inf" not in case["to"] else mp.inf
        (value, error), first, best, reps = timed_calls(lambda: mp.quad(counted, [a, b], error=True))
        out["value"] = mp.nstr(value, int(prec) + 5, min_fixed=1, max_fixed=0)
        out["error"] = mp.nstr(error, 5)
    elif lib == "scipy":
        from scipy import integrate
        f = math_integrand(case)

        def counted(x):
            count[0] += 1
            return f(x)

        a, b = float(case["from"]), float(case["to"])
        caught = []

        def call():
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                r = integrate.quad(counted, a, b, full_output=1, epsabs=0.0,
                                   epsrel=SCIPY_EPSREL)
            caught[:] = [str(x.message).split("\n")[0] for x in w]
            return r

        result, first, best, reps = timed_calls(call)
        value, error, info = result[0], result[1], result[2]
        out["value"] = repr(value)
        out["error"] = repr(error)
        out["evaluations_reported"] = info["neval"]
        if caught or len(result) > 3:
            out["warning"] = caught[0] if caught else result[3].split("\n")[0]
    else:
        raise SystemExit(f"unknown library {lib}")
    out["evaluations"] = count[0] // (reps + 1)
    out.update(first_s=first, best_s=best, reps=reps)
    return out


# ----------------------------------------------------------------------------------------------
# Checks of the forms against the suite's MPFR samples.

def check():
    import flint
    from mpmath import mp
    mp.dps = 80
    failures = 0

    def agree(value, exact):
        value, exact = mp.mpf(value), mp.mpf(exact)
        if value == exact:
            return 99.0
        return float(-mp.log10(abs(value - exact) / abs(exact)))

    for case in load_suite():
        name = case["name"]
        samples = case.get("samples")
        if not samples:
            print(f"{name}: no samples; run the reference generator"); failures += 1; continue
        xs = [x for x, _ in samples]
        fm, fs = mpmath_integrand(case), math_integrand(case)
        flint.ctx.prec = 300
        fa = flint_integrand(case)
        worst = {}
        for lib, prec in BOOST_RUNS:
            got = subprocess.run([BOOST, "eval", prec, name] + xs, capture_output=True, text=True)
            if got.returncode:
                print(f"{name}: boost eval failed: {got.stderr.strip()}"); failures += 1; continue
            worst[prec] = [v for v in got.stdout.split()]
        for i, (x, exact) in enumerate(samples):
            if abs(float(mp.mpf(exact))) < 1e-280:
                continue  # below double's range: the f64 forms cannot be compared
            checks = {
                "mpmath": (agree(fm(mp.mpf(x)), exact), 60),
                "flint": (agree(fa(flint.acb(x), False).real.mid().str(70, radius=False), exact), 60),
                "math": (agree(fs(float(x)), exact), 11),
            }
            for prec in worst:
                need = 28 if prec == "float128" else 55
                checks[prec] = (agree(worst[prec][i], exact), need)
            for form, (digits, need) in checks.items():
                if digits < need:
                    print(f"{name}: the {form} form at x = {x} agrees with MPFR to {digits:.1f} "
                          f"digits only (needs {need})")
                    failures += 1
        for prec in (53, 106, 213):
            bounds = flint_bounds(case, prec)
            if bounds and bounds != (case["from"], case["to"]):
                # Arb integrates a truncated range: the omitted tails must be below 2^-(p+5)
                # relative to the integral; estimate them with mpmath's quadrature.
                mp.dps = 80
                tail = sum(abs(mp.quad(fm, [t, sign * mp.inf])) for t, sign in
                           ((mp.mpf(bounds[0]), -1), (mp.mpf(bounds[1]), 1))
                           if not (sign < 0 and case["from"] != "-inf"))
                rel = tail / abs(mp.mpf(case["reference"]))
                if rel > mp.mpf(2) ** -(prec + 5):
                    print(f"{name}: Arb's truncation at {bounds} leaves {mp.nstr(rel, 3)} of the "
                          f"integral at {prec} bits"); failures += 1
    print(f"checked {len(load_suite())} cases: {failures} failure(s)")
    return failures


def gen_cpp(path):
    lines = ["// Written by compare.py gen-cpp from suite.json; do not edit."]
    for case in load_suite():
        lines.append(f'if (name == "{case["name"]}") {{ run([=](const T& x) -> T {{ return '
                     f'{case["cpp"]}; }}); return true; }}')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = "\n".join(lines) + "\n"
    if not os.path.exists(path) or open(path).read() != text:
        with open(path, "w") as f:
            f.write(text)


# ----------------------------------------------------------------------------------------------
# Whole runs.

def subprocess_json(cmd, timeout):
    """The last JSON line of cmd, or a failure record; wall seconds included."""
    start = time.perf_counter()
    try:
        got = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"failure": f"timeout: killed after {timeout} s", "first_s": float(timeout)}
    wall = time.perf_counter() - start
    for line in reversed(got.stdout.splitlines()):
        if line.startswith("{"):
            record = json.loads(line)
            record["process_s"] = wall
            return record
    return {"failure": f"exit {got.returncode}: {got.stderr.strip()[-300:]}", "process_s": wall}


def versions():
    """The competitors' versions, for the record."""
    import flint, mpmath, scipy
    gxx = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    boost = "unknown"
    try:
        for line in open("/usr/include/boost/version.hpp"):
            if line.startswith("#define BOOST_LIB_VERSION"):
                boost = line.split()[-1].strip('"')
    except OSError:
        pass
    return (f"python-flint {flint.__version__} (Arb in FLINT), mpmath {mpmath.__version__}, "
            f"scipy {scipy.__version__}, Boost {boost} with {gxx} -O3, Python {platform.python_version()}")


def header(what):
    return json.dumps({"library": "machine", "note": f"{what} on {machine()}, "
                       f"{time.strftime('%Y-%m-%d %H:%M %Z')}"}) + "\n"


def competitors(out, timeout, only_cases):
    python = sys.executable
    with open(out, "w") as f:
        f.write(header(f"competitors ({versions()}; timeout {timeout:g} s per case)"))
        for case in load_suite():
            if only_cases and case["name"] not in only_cases:
                continue
            for lib, prec in PYTHON_RUNS + BOOST_RUNS:
                if lib == "boost":
                    cmd = [BOOST, "run", prec, case["name"], case["from"], case["to"]]
                else:
                    cmd = [python, __file__, "one", lib, prec, case["name"]]
                record = subprocess_json(cmd, timeout)
                record.update(library=lib, precision=prec, case=case["name"])
                f.write(json.dumps(record) + "\n"); f.flush()
                shown = record.get("failure") or record.get("value", "")[:22]
                print(f"{case['name']:<20} {lib:>7} {prec:>16}  {shown:<40} "
                      f"{record.get('best_s', record.get('first_s', 0)) * 1e3:10.2f} ms", flush=True)


def hpquad(out, method, timeout, only_cases, tolerance):
    extra = ["--method", method] + (["--tolerance", tolerance] if tolerance else [])
    with open(out, "w") as f:
        f.write(header(f"hpquad (examples/compare, method {method}"
                       f"{', tolerance ' + tolerance if tolerance else ''})"))
        for case in load_suite():
            if only_cases and case["name"] not in only_cases:
                continue
            for prec in HPQUAD_PRECISIONS:
                base = [HPQUAD, "--suite", SUITE, "--case", case["name"], "--precision", prec] + extra
                record = subprocess_json(base, timeout)
                fresh = subprocess_json(base + ["--once"], timeout)
                record["fresh_first_s"] = fresh.get("first_s")
                record.update(library="hpquad", precision=prec, case=case["name"])
                f.write(json.dumps(record) + "\n"); f.flush()
                shown = record.get("failure") or record.get("value", "")[:22]
                print(f"{case['name']:<20} hpquad {prec:>4} {record.get('method_ran', method):>14}  "
                      f"{shown:<40} {record.get('best_s', record.get('first_s', 0)) * 1e3:10.2f} ms",
                      flush=True)


# ----------------------------------------------------------------------------------------------
# The report.

COLUMNS = [("hpquad", "f64"), ("scipy", "f64"), ("arb", "53"),
           ("hpquad", "dd"), ("boost", "float128"), ("mpmath", "32"), ("arb", "106"),
           ("hpquad", "qd"), ("boost", "cpp_bin_float_65"), ("mpmath", "64"), ("arb", "213")]

# (hpquad precision, competitor, digits that count as full precision for hpquad)
RATIOS = [("qd", ("arb", "213"), 62), ("dd", ("arb", "106"), 31), ("f64", ("arb", "53"), 15),
          ("qd", ("boost", "cpp_bin_float_65"), 62), ("qd", ("mpmath", "64"), 62),
          ("dd", ("boost", "float128"), 31), ("dd", ("mpmath", "32"), 31),
          ("f64", ("scipy", "f64"), 15)]


def converged(r):
    """Whether the library itself claims success: hpquad's and Boost's converged flags
    (Boost's own test, error <= sqrt(eps) L1), no scipy warning, and mpmath's error estimate
    within 10^5 eps of the value (mpmath's quad never says it missed)."""
    if r.get("warning") or r.get("converged") is False:
        return False
    if r["library"] == "mpmath" and r.get("error") and r.get("value"):
        from mpmath import mp
        mp.dps = 130
        return mp.mpf(r["error"]) <= mp.mpf(10) ** (5 - int(r["precision"])) * abs(mp.mpf(r["value"]))
    return True


def digits_of(record, case):
    """Correct digits of the record's value against the reference, capped at the trusted ones."""
    from mpmath import mp
    mp.dps = 130
    if "value" not in record or record.get("failure"):
        return None
    try:
        value = mp.mpf(record["value"])
    except (ValueError, TypeError):
        return None
    if not mp.isfinite(value):
        return None
    ref = mp.mpf(case["reference"])
    trusted = case["trusted_digits"]
    if value == ref:
        return float(trusted)
    return max(0.0, min(float(trusted), float(-mp.log10(abs(value - ref) / abs(ref)))))


def machine():
    model, cores = platform.processor() or "unknown CPU", os.cpu_count()
    try:
        info = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in info.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except OSError:
        pass
    return f"{model}, {cores} cores ({platform.system()} {platform.release()})"


def report(paths, outdir, plot):
    cases = load_suite()
    by_name = {c["name"]: c for c in cases}
    results = {}
    meta = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.startswith("#"):
                    continue
                r = json.loads(line)
                if r.get("library") == "machine":
                    meta[os.path.basename(path)] = r
                    continue
                r["digits"] = digits_of(r, by_name[r["case"]])
                results[(r["case"], r["library"], r["precision"])] = r
    os.makedirs(outdir, exist_ok=True)
    rows = sorted(results.values(), key=lambda r: ([c["name"] for c in cases].index(r["case"]),
                                                    r["library"], r["precision"]))
    fields = ["case", "library", "precision", "method", "method_ran", "digits", "value", "error",
              "evaluations", "first_s", "best_s", "fresh_first_s", "reps", "converged",
              "accuracy_bits", "radius", "warning", "failure"]
    import csv
    with open(os.path.join(outdir, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)

    def ok(r):
        return r is not None and r.get("digits") is not None

    def cell(r):
        if r is None:
            return "–"
        if r.get("failure"):
            f = r["failure"]
            short = ("timeout" if f.startswith("timeout") else "no encl." if "enclosure" in f
                     else "n/a" if f.startswith("not run") else "fail")
            return f"{short} ({r['first_s'] * 1e3:.3g} ms)" if "first_s" in r else short
        d = r["digits"]
        t = r["best_s"] * 1e3
        mark = "" if converged(r) else "*"
        return f"{d:.0f}{mark} / {t:.3g}"

    lines = [f"# 1-D quadrature: hpquad against Arb, mpmath, scipy, Boost.Math", "",
             f"Machine: {machine()}. One thread per process. Each cell: correct digits (against "
             f"the MPFR reference, capped at its trusted digits) / milliseconds, the best of up to "
             f"five calls after a first one. `*`: the library reported no convergence (scipy "
             f"warning, hpquad `converged: false`). A failure shows the time it took.", ""]
    for name, r in sorted(meta.items()):
        lines.append(f"- `{name}`: {r.get('note', '')}")
    lines.append("")
    head = "| integral | " + " | ".join(f"{lib} {p}" for lib, p in COLUMNS) + " |"
    lines += [head, "|" + "---|" * (len(COLUMNS) + 1)]
    for c in cases:
        cells = [cell(results.get((c["name"], lib, p))) for lib, p in COLUMNS]
        lines.append(f"| {c['name']} | " + " | ".join(cells) + " |")
    lines += ["", "## Speed ratios (geometric mean of competitor time / hpquad time)", "",
              "Counted where both returned a finite value and hpquad's digits are at least the "
              "competitor's or at least the full precision (15 / 31 / 62); best-of-five times. "
              "Above 1: hpquad is faster.", "",
              "| hpquad | competitor | cases counted | of | geometric mean | min | max |",
              "|---|---|---|---|---|---|---|"]
    ratio_rows = []
    for hp, comp, full in RATIOS:
        ratios = []
        both = 0
        for c in cases:
            h = results.get((c["name"], "hpquad", hp))
            o = results.get((c["name"],) + comp)
            if not (ok(h) and ok(o)):
                continue
            both += 1
            if h["digits"] >= min(o["digits"], full) or h["digits"] >= full:
                ratios.append(o["best_s"] / h["best_s"])
        if ratios:
            g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
            lines.append(f"| {hp} | {comp[0]} {comp[1]} | {len(ratios)} | {both} | {g:.3g} | "
                         f"{min(ratios):.3g} | {max(ratios):.3g} |")
        else:
            lines.append(f"| {hp} | {comp[0]} {comp[1]} | 0 | {both} | – | – | – |")
        ratio_rows.append((hp, comp, ratios))
    lines += ["", "## Failures and warnings", ""]
    for r in rows:
        if r.get("failure") or not converged(r):
            why = r.get("failure") or r.get("warning") or (
                f"no convergence by its own estimate (error {r.get('error')}); "
                f"{r['digits']:.0f} correct digits" if r.get("digits") is not None
                else "no convergence")
            lines.append(f"- {r['case']}, {r['library']} {r['precision']}: {why}")
    lines += ["", "## Cases", "", "| name | integral | from | to | reference (30 digits) | trusted | source |",
              "|---|---|---|---|---|---|---|"]
    for c in cases:
        lines.append(f"| {c['name']} | {c['title']} | {c['from']} | {c['to']} | "
                     f"{c['reference'][:32]} | {c['trusted_digits']} | {c['source']} |")
    with open(os.path.join(outdir, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump({"machine": machine(), "results": rows}, f, indent=1)
    if plot:
        draw(results, cases, os.path.join(outdir, "digits-vs-time.png"))
    print("\n".join(lines[: len(cases) + 30]))


def draw(results, cases, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(11, 7))
    markers = "os^vD<>ph*X"
    for i, (lib, p) in enumerate(COLUMNS):
        pts = [(r["best_s"], r["digits"]) for c in cases
               for r in [results.get((c["name"], lib, p))] if r and r.get("digits") is not None]
        if pts:
            # Exact results (digits capped at the reference's 100) are drawn at 70.
            hp = lib == "hpquad"
            ax.scatter([t for t, _ in pts], [min(d, 70) for _, d in pts], label=f"{lib} {p}",
                       marker=markers[i % len(markers)], alpha=0.9 if hp else 0.6,
                       s=60 if hp else 30, edgecolors="black" if hp else "none")
    ax.set_xscale("log")
    ax.set_xlabel("seconds (best of five, one thread)")
    ax.set_ylabel("correct digits (exact results drawn at 70)")
    ax.set_ylim(-2, 72)
    ax.set_title(f"1-D quadrature suite: digits against time\n{machine()}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("check")
    g = sub.add_parser("gen-cpp"); g.add_argument("file")
    o = sub.add_parser("one"); o.add_argument("lib"); o.add_argument("prec"); o.add_argument("name")
    c = sub.add_parser("competitors"); c.add_argument("out")
    c.add_argument("--timeout", type=float, default=30); c.add_argument("--cases", default="")
    h = sub.add_parser("hpquad"); h.add_argument("out")
    h.add_argument("--method", default="auto"); h.add_argument("--tolerance", default="")
    h.add_argument("--timeout", type=float, default=60); h.add_argument("--cases", default="")
    r = sub.add_parser("report"); r.add_argument("results", nargs="+")
    r.add_argument("--out", default=os.path.join(HERE, "results")); r.add_argument("--no-plot", action="store_true")
    a = p.parse_args()
    if a.cmd == "check":
        sys.exit(1 if check() else 0)
    if a.cmd == "gen-cpp":
        gen_cpp(a.file)
    elif a.cmd == "one":
        print(json.dumps(run_one(a.lib, a.prec, a.name)))
    elif a.cmd == "competitors":
        competitors(a.out, a.timeout, [x for x in a.cases.split(",") if x])
    elif a.cmd == "hpquad":
        hpquad(a.out, a.method, a.timeout, [x for x in a.cases.split(",") if x], a.tolerance)
    elif a.cmd == "report":
        report(a.results, a.out, not a.no_plot)


if __name__ == "__main__":
    main()
