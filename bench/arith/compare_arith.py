#!/usr/bin/env python3
"""The arithmetic comparison: the shared inputs, and the report from the timings.

Run through run.sh, which builds the programs and runs the rounds. Subcommands:

  inputs FILE               the inputs every library reads: three sets of N = 1024 numbers,
                            each number four doubles (a normalised quad-double; its first two
                            are the double-double), from a fixed seed
  report ROUNDS --out DIR   the median over the rounds of each library's time per operation
  [--readme FILE]           and form, the tables and the goals of issue 16 as DIR/report.md and
                            DIR/results.json; with --readme, the same tables replace what stands
                            between the markers `<!-- arith-compare:begin -->` and
                            `<!-- arith-compare:end -->` in FILE

The sets (the same for every library):
  A in [1/3, 2/3], B in [1/14, 3/14], M in [2/3, 3/2].

The two forms, timed the same way in every library (compare_arith.cpp for QD, Arb and MPFR,
hpquad/src/main.rs for hpquad): the best of REPS passes after one untimed pass, divided by the
number of results of a pass, in ns.
  array   independent results into an output array: x + y, x * y, x / y and pow(x, y) over the
          pairs (A_i, B_i) (1024 results); the functions over A then B (2048 results)
  scalar  one dependent chain of 1024 steps, each step waiting for the one before, from
          x = A_0: x + B_i, x * M_i, M_i / x for the arithmetic, and f(A_i + 2^-10 x) for every
          function f (pow: (A_i + 2^-10 x)^(B_i)), so that a function's scalar time includes one
          addition of the same library (and an exact scaling by 2^-10)

hpquad's array form is timed twice: as the loop out[i] = f(a[i]) over Dd / Qd (the libraries
"hpquad Dd LABEL", "hpquad Qd LABEL"), and through its SIMD lanes, the column operations of
precision::lanes (Columns::add_cols, exp_cols...) on the widest instruction set of the CPU,
chosen at run time ("hpquad Dd lanes LABEL", "hpquad Qd lanes LABEL"; every operation but atan,
which has no column operation). The lanes are the column the SIMD goals of issue 16 are
measured on.
"""

import argparse
import json
import math
import os
import platform
import random
import re
import statistics
import struct
import subprocess
import sys

N = 1024
SEED = 20261124
SETS = [("A", 1 / 3, 2 / 3), ("B", 1 / 14, 3 / 14), ("M", 2 / 3, 3 / 2)]
OPS = ["add", "mul", "div", "sqrt", "exp", "log", "sin", "cos", "atan", "pow", "sinh", "cosh"]
FUNCTIONS = OPS[4:]

# The columns: (library name as the programs print it, heading).
DD_COLUMNS = [
    ("hpquad Dd native", "hpquad Dd"),
    ("hpquad Dd default", "hpquad Dd (default build)"),
    ("QD dd_real", "QD dd_real"),
    ("QD dd_real IEEE", "QD dd_real IEEE"),
    ("Arb 106", "Arb 106"),
    ("MPFR 106", "MPFR 106"),
]
QD_COLUMNS = [
    ("hpquad Qd native", "hpquad Qd"),
    ("hpquad Qd default", "hpquad Qd (default build)"),
    ("QD qd_real", "QD qd_real"),
    ("QD qd_real IEEE", "QD qd_real IEEE"),
    ("Arb 212", "Arb 212"),
    ("MPFR 212", "MPFR 212"),
]
# hpquad's SIMD lanes (the array form only), from the native build; the default build's lanes are
# timed and checked too, and stand in results.json.
DD_LANES = ("hpquad Dd lanes native", "hpquad Dd lanes")
QD_LANES = ("hpquad Qd lanes native", "hpquad Qd lanes")
QD_LIBS = {c for c, _ in QD_COLUMNS} | {"hpquad Qd lanes native", "hpquad Qd lanes default"}
BEGIN, END = "<!-- arith-compare:begin -->", "<!-- arith-compare:end -->"


def write_inputs(path):
    """Each number: c0 uniform in the set's range, then c_{k+1} = c_k 2^-53 u_k with u_k
    uniform in [-0.49, 0.49], so |c_{k+1}| < ulp(c_k)/2: normalised as a double-double and as
    a quad-double, with every significand bit random."""
    rng = random.Random(SEED)
    out = bytearray()
    for _, lo, hi in SETS:
        for _ in range(N):
            c = [lo + (hi - lo) * rng.random()]
            for _ in range(3):
                c.append(c[-1] * 2.0**-53 * rng.uniform(-0.49, 0.49))
            assert c[0] + c[1] == c[0] and lo <= c[0] <= hi
            out += struct.pack("<4d", *c)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "wb") as f:
        f.write(out)


def machine():
    """The CPU model, its cores and threads, the kernel, and the package versions."""
    info = {"cpu": platform.processor() or platform.machine(), "kernel": platform.release()}
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        fields = dict(
            (k.strip(), v.strip()) for k, v in
            (line.split(":", 1) for line in lscpu.splitlines() if ":" in line))
        flags = fields.get("Flags", "").split()
        simd = [f for f in ["avx512f", "avx2", "fma"] if f in flags]
        info["cpu"] = (
            f"{fields.get('Model name', info['cpu'])} (family {fields.get('CPU family', '?')}, "
            f"model {fields.get('Model', '?')}; {', '.join(simd) or 'no AVX2/FMA'}; L1d "
            f"{fields.get('L1d cache', '?')}, L2 {fields.get('L2 cache', '?')}, L3 "
            f"{fields.get('L3 cache', '?')}"
            + (f"; a {fields['Hypervisor vendor']} guest" if "Hypervisor vendor" in fields
               else "") + ")")
        info["cpus"] = fields.get("CPU(s)", "?")
        info["threads_per_core"] = fields.get("Thread(s) per core", "?")
    except (OSError, subprocess.CalledProcessError):
        pass
    versions = {}
    for pkg in ["libqd-dev", "libmpfr-dev", "libflint-arb-dev", "libflint-dev", "g++"]:
        try:
            versions[pkg] = subprocess.run(
                ["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True,
                check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            versions[pkg] = "?"
    try:
        versions["rustc"] = subprocess.run(["rustc", "--version"], capture_output=True,
                                           text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        versions["rustc"] = "?"
    info["versions"] = versions
    info["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return info


def load_rounds(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def medians(rows):
    """{(lib, op, form): (median ns, number of rounds, min, max, median value)}."""
    groups = {}
    for r in rows:
        groups.setdefault((r["lib"], r["op"], r["form"]), []).append(r)
    out = {}
    for key, rs in groups.items():
        ns = [r["ns"] for r in rs]
        out[key] = (statistics.median(ns), len(ns), min(ns), max(ns),
                    statistics.median(r["value"] for r in rs))
    return out


def agreement(med):
    """Every library's result (the sum of an array's leading components, the chain's last
    value) against hpquad native's: a check that all computed the same operations on the same
    inputs. Returns the disagreements as text."""
    problems = []
    for (lib, op, form), (_, _, _, _, value) in sorted(med.items()):
        ref_lib = "hpquad Qd native" if lib in QD_LIBS else "hpquad Dd native"
        ref = med.get((ref_lib, op, form))
        if ref is None:
            continue
        r = ref[4]
        if not (math.isfinite(value) and abs(value - r) <= 1e-9 * max(1.0, abs(r))):
            problems.append(f"{lib} {op} {form}: {value!r} where {ref_lib} has {r!r}")
    return problems


def fmt(x):
    if x is None or not math.isfinite(x):
        return "–"
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def table(med, columns, form, ratios):
    """One Markdown table: ns per result for each column (lib, heading), then the ratios
    (lib, over_lib, heading): lib's time over over_lib's."""
    head = [h for _, h in columns] + [h for _, _, h in ratios]
    lines = ["| op | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
    for op in OPS:
        cells = []
        for lib, _ in columns:
            m = med.get((lib, op, form))
            cells.append(fmt(m[0]) if m else "–")
        for lib, over, _ in ratios:
            m, h = med.get((lib, op, form)), med.get((over, op, form))
            cells.append(f"{m[0] / h[0]:.2f}" if m and h else "–")
        lines.append(f"| {op} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def tables(med, columns, lanes, form):
    """The table of one precision and form: hpquad (and in the array form its lanes) against the
    other libraries, with the ratios other / hpquad (and Arb / lanes, MPFR / lanes)."""
    hp_lib, hp = columns[0][0], columns[0][1].split()[1]
    others = columns[2:]
    ratios = [(lib, hp_lib, f"{h} / {hp}") for lib, h in others]
    if form == "array":
        columns = [columns[0], lanes] + columns[1:]
        ratios += [(lib, lanes[0], f"{h} / {hp} lanes") for lib, h in others
                   if lib.startswith(("Arb", "MPFR"))]
    return table(med, columns, form, ratios)


def goals(med, stat=0):
    """The goals of issue 16 in both forms, on the medians (stat 0) or on each library's
    fastest round (stat 2): the text and the list of verdicts."""
    out, verdicts = [], []

    def ns(lib, op, form="array"):
        m = med.get((lib, op, form))
        return m[stat] if m else math.nan

    def line(text, ok):
        verdicts.append(ok)
        out.append(f"- {'**met**' if ok else '**not met**'}: {text}")

    for form in ["array", "scalar"]:
        out.append(f"\n{form.capitalize()} form:\n")
        worst = min(FUNCTIONS, key=lambda f: ns("Arb 212", f, form) / ns("hpquad Qd native", f, form))
        fails = [f for f in FUNCTIONS
                 if ns("hpquad Qd native", f, form) > ns("Arb 212", f, form)]
        ratios = ", ".join(f"{f} {ns('Arb 212', f, form) / ns('hpquad Qd native', f, form):.2f}×"
                           for f in FUNCTIONS)
        line(f"every Qd function at least as fast as Arb at 212 bits (Arb time / Qd time: "
             f"{ratios}; lowest {worst}"
             + (f"; slower: {', '.join(fails)}" if fails else "") + ")", not fails)
        fails = [f for f in FUNCTIONS
                 if ns("Arb 106", f, form) < 2 * ns("hpquad Dd native", f, form)]
        ratios = ", ".join(f"{f} {ns('Arb 106', f, form) / ns('hpquad Dd native', f, form):.2f}×"
                           for f in FUNCTIONS)
        line(f"every Dd function at least 2× faster than Arb at 106 bits (Arb time / Dd time: "
             f"{ratios}" + (f"; below 2×: {', '.join(fails)}" if fails else "") + ")",
             not fails)
        parts, ok = [], True
        for op in ["div", "sqrt"]:
            r = ns("MPFR 212", op, form) / ns("hpquad Qd native", op, form)
            parts.append(f"{op} {r:.2f}×")
            ok = ok and r >= 1
        line(f"Qd div and sqrt at least as fast as MPFR at 212 bits (MPFR time / Qd time: "
             f"{', '.join(parts)})", ok)
        p, e, l = (ns("hpquad Dd native", f, form) for f in ["pow", "exp", "log"])
        line(f"Dd powf (non-integer exponent) at most 1.5× (Dd exp + Dd ln): "
             f"{fmt(p)} ns against {fmt(e)} + {fmt(l)} ns, {p / (e + l):.2f}×", p <= 1.5 * (e + l))

    out.append("\nSIMD lanes (array form, the lanes column):\n")
    for what, lanes_lib, other, ops, factor in [
            ("Qd exp, log, sin, cos", QD_LANES[0], "Arb 212", ["exp", "log", "sin", "cos"], 3),
            ("Qd add and mul", QD_LANES[0], "MPFR 212", ["add", "mul"], 4),
            ("Dd exp, log, sin, cos", DD_LANES[0], "Arb 106", ["exp", "log", "sin", "cos"], 5)]:
        ratios = {op: ns(other, op) / ns(lanes_lib, op) for op in ops}
        # A missing time is NaN: the comparison fails, so a missing row is never "met".
        fails = [op for op in ops if not ratios[op] >= factor]
        lib, bits = other.split()
        line(f"{what} at least {factor}× faster than {lib} at {bits} bits ({lib} time / "
             f"{lanes_lib.split()[1]} lanes time: "
             + ", ".join(f"{op} {r:.2f}×" for op, r in ratios.items())
             + (f"; below {factor}×: {', '.join(fails)}" if fails else "") + ")", not fails)
    return "\n".join(out), verdicts


def spread(med):
    """Each library's median over its operations and forms of slowest round / fastest round."""
    libs = {}
    for (lib, _, _), m in med.items():
        libs.setdefault(lib, []).append(m[3] / m[2])
    return ", ".join(f"{lib} {statistics.median(r):.2f}" for lib, r in sorted(libs.items()))


def report(rounds_path, out_dir, readme):
    rows = load_rounds(rounds_path)
    med = medians(rows)
    meta_path = os.path.join(os.path.dirname(os.path.abspath(rounds_path)), "machine.json")
    if os.path.exists(meta_path):
        with open(meta_path, encoding="utf-8") as f:
            info = json.load(f)
    else:
        info = machine()
    n_rounds = max((r.get("round", 1) for r in rows), default=0)
    v = info.get("versions", {})
    header = (
        f"Measured {info.get('date', '?')} on {info.get('cpu', '?')}, "
        f"{info.get('cpus', '?')} logical CPUs ({info.get('threads_per_core', '?')} per core), Linux "
        f"{info.get('kernel', '?')} (load average {info.get('load_average', ['?'])[0]} when the run "
        f"began: other work shared the machine), one thread; {n_rounds} rounds, each running every "
        f"program once in turn (rotating their order), the median over the rounds of each "
        f"program's best of {info.get('reps', '?')} passes. QD {v.get('libqd-dev', '?')}, MPFR "
        f"{v.get('libmpfr-dev', '?')}, Arb {v.get('libflint-arb-dev', '?')} (FLINT "
        f"{v.get('libflint-dev', '?')}) from Debian; g++ {v.get('g++', '?')}; "
        f"{v.get('rustc', '?')}.")
    build = (
        "hpquad: `bench/arith/hpquad` built twice, with `RUSTFLAGS=\"-C target-cpu=native\"` "
        "(the first column) and without (\"default build\", what a user gets from `cargo "
        "build --release`). QD, Arb and MPFR called from `bench/arith/compare_arith.cpp`, "
        "`g++ -O3 -march=native -ffp-contract=off`: QD dd_real / qd_real are Debian's libqd "
        "(QD's default configuration: sloppy addition, sloppy multiplication and division, no "
        "FMA); \"QD IEEE\" is the same QD source (Debian's source package) configured with "
        "`--enable-ieee-add --disable-sloppy-mul --disable-sloppy-div`, compiled with the "
        "same flags as the comparison program. Arb: `arb_*` at 106 / 212 bits on exact "
        "midpoints (radius 0); its times include the propagation of the radius. MPFR: "
        "`mpfr_*` in place, round to nearest. Every library reads the same inputs "
        "(`compare_arith.py inputs`), rounded to 106 / 212 bits where the library has its own "
        "precision.")
    forms = (
        "**array**: independent results into an output array (x + y, x · y, x / y and pow(x, y) "
        "over 1024 pairs x in [1/3, 2/3], y in [1/14, 3/14]; each function over those 2048 "
        "numbers); **scalar**: the latency of one dependent chain of 1024 steps (x + y_i, x · m_i, "
        "m_i / x with m_i in [2/3, 3/2]; f(a_i + 2^-10 x) for every function f, so a function's "
        "scalar time includes one addition of the same library). ns per result, smaller is "
        "faster; the ratio columns are the other library's time over hpquad's, or over hpquad "
        "lanes' where the heading says lanes (above 1: hpquad is faster).")
    isas = sorted({r["isa"] for r in rows if "isa" in r})
    lanes = (
        "hpquad lanes (array form only): the same arrays through hpquad's SIMD lanes, the column "
        "operations of `precision::lanes` (`Columns::add_cols`, `exp_cols`, ...), on the widest "
        "instruction set of the CPU, chosen at run time (here "
        f"{', '.join(isas) or 'none recorded'}), native build; atan has no column operation "
        "(–). The default build's lanes are timed too (results.json).")
    md = [header, "", build, "", lanes, "", forms, ""]
    for form in ["array", "scalar"]:
        md.append(f"**{form.capitalize()}, 106 bits** (ns per result):\n")
        md.append(tables(med, DD_COLUMNS, DD_LANES, form))
        md.append("")
        md.append(f"**{form.capitalize()}, 212 bits** (ns per result):\n")
        md.append(tables(med, QD_COLUMNS, QD_LANES, form))
        md.append("")
    md.append("Against the goals of issue 16 (hpquad native build):")
    text_median, verdicts_median = goals(med)
    _, verdicts_fastest = goals(med, stat=2)
    md.append(text_median)
    md.append("")
    md.append("Spread over the rounds (median over the operations of the slowest round's time "
              f"over the fastest's): {spread(med)}. On each library's fastest round instead "
              "of the median, the verdicts above are "
              + ("the same." if verdicts_fastest == verdicts_median else
                 "different for: " + ", ".join(
                     str(i + 1) for i, (a, b) in enumerate(zip(verdicts_median, verdicts_fastest))
                     if a != b) + " (in the order above)."))
    problems = agreement(med)
    md.append("")
    if problems:
        md.append("Results that differ from hpquad's (more than 1e-9 relative, as a double):\n")
        md += [f"- {p}" for p in problems]
    else:
        md.append("Every library's results agree with hpquad's (the sum of each output array "
                  "and each chain's last value, as doubles, within 1e-9 relative): all "
                  "computed the same operations on the same inputs.")
    text = "\n".join(md) + "\n"
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "report.md"), "w", encoding="utf-8") as f:
        f.write("# hpquad's arithmetic against QD, Arb and MPFR\n\n"
                "Written by `bench/arith/run.sh`.\n\n" + text)
    with open(os.path.join(out_dir, "results.json"), "w", encoding="utf-8") as f:
        json.dump({"machine": info, "medians": [
            {"lib": k[0], "op": k[1], "form": k[2], "ns": v[0], "rounds": v[1], "min": v[2],
             "max": v[3], "value": v[4]} for k, v in sorted(med.items())]}, f, indent=1)
    if readme:
        with open(readme, encoding="utf-8") as f:
            old = f.read()
        pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
        if not pattern.search(old):
            raise SystemExit(f"{readme}: no {BEGIN} ... {END} section to replace")
        new = pattern.sub(lambda _: BEGIN + "\n" + text + END, old)
        with open(readme, "w", encoding="utf-8") as f:
            f.write(new)
    print(text)
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("inputs")
    p.add_argument("file")
    p = sub.add_parser("machine")
    p.add_argument("file")
    p.add_argument("--reps", type=int, required=True)
    p = sub.add_parser("report")
    p.add_argument("rounds")
    p.add_argument("--out", required=True)
    p.add_argument("--readme")
    args = ap.parse_args()
    if args.cmd == "inputs":
        write_inputs(args.file)
    elif args.cmd == "machine":
        import datetime
        info = machine()
        info["date"] = datetime.date.today().isoformat()
        info["reps"] = args.reps
        with open(args.file, "w", encoding="utf-8") as f:
            json.dump(info, f, indent=1)
    else:
        sys.exit(report(args.rounds, args.out, args.readme))


if __name__ == "__main__":
    main()
