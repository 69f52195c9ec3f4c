#!/usr/bin/env python3
"""Runs the precision crate's MPFR accuracy tests and prints their measurements as a Markdown
table (the one in precision/README.md).

Usage: python3 scripts/accuracy-table.py [SAMPLES]   (default 100000 inputs per check)

Each test reports its worst relative error against MPFR (480 bits) in a line
`ACCURACY <check> max rel err 2^<e> over <n> inputs (bound 2^<b>)`; this script runs them all
and tabulates those lines, dd and qd side by side where a check exists for both.
"""
import os
import re
import subprocess
import sys

samples = sys.argv[1] if len(sys.argv) > 1 else "100000"
env = dict(os.environ, HPQUAD_SAMPLES=samples)
out = subprocess.run(
    ["cargo", "test", "-p", "hpquad-precision", "--release", "--", "--nocapture", "--test-threads=2"],
    env=env, capture_output=True, text=True, check=True,
).stdout

line = re.compile(r"^ACCURACY (.+?)\s+max rel err 2\^\s*(\S+) over\s+(\d+) inputs \(bound 2\^(\S+)\)")
rows = {}
for text in out.splitlines():
    m = line.match(text)
    if not m:
        continue
    check, err, n, bound = m.group(1).strip(), m.group(2), int(m.group(3)), m.group(4)
    words = check.split()
    kind = next((w for w in words if w in ("dd", "qd")), None)
    key = " ".join(w for w in words if w != kind) if kind else check
    rows.setdefault(key, {})[kind or "-"] = (err, n, bound)

def cell(entry):
    if entry is None:
        return ""
    err, n, bound = entry
    shown = "exact" if err == "-inf" else f"2^{float(err):.1f}"
    return f"{shown} (bound 2^{float(bound):.1f}, {n} inputs)"

print("| check | dd | qd |")
print("|---|---|---|")
for key in sorted(rows):
    r = rows[key]
    print(f"| {key} | {cell(r.get('dd') or r.get('-'))} | {cell(r.get('qd'))} |")
