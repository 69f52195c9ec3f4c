#!/usr/bin/env python3
"""Prints ns/op per type and operation from criterion's estimates (1024 operations per
iteration), and the ratios against the goals. Usage: table.py [criterion dir]."""
import json, os, sys

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
types = ["f64", "Dd", "TwoFloat", "qd::Double", "Qd", "MPFR-212"]
ops = ["add", "mul", "div", "sqrt", "exp", "ln", "sin", "cos"]
def ns(op, form, t):
    p = os.path.join(root, f"{op}_{form}", t.replace("::", "__"), "new", "estimates.json")
    if not os.path.exists(p):
        p = os.path.join(root, f"{op}_{form}", t, "new", "estimates.json")
    try:
        return json.load(open(p))["median"]["point_estimate"] / 1024
    except OSError:
        return float("nan")
for form in ["latency", "throughput"]:
    print(f"\n{form} (ns/op)")
    print("| op | " + " | ".join(types) + " | Dd/TwoFloat | Dd/qd::Double | MPFR/Qd |")
    print("|---" * (len(types) + 4) + "|")
    for op in ops:
        v = {t: ns(op, form, t) for t in types}
        row = " | ".join(f"{v[t]:.1f}" for t in types)
        print(f"| {op} | {row} | {v['Dd']/v['TwoFloat']:.2f} | {v['Dd']/v['qd::Double']:.2f} | {v['MPFR-212']/v['Qd']:.2f} |")
