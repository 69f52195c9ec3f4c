#!/usr/bin/env bash
# The 1-D quadrature comparison: hpquad against Arb, mpmath, scipy and Boost.Math.
#
#   bench/quadrature/run.sh                      everything: competitors, hpquad, report
#   bench/quadrature/run.sh --only competitors   Arb, mpmath, scipy, Boost (results/competitors.jsonl)
#   bench/quadrature/run.sh --only hpquad        hpquad alone (results/hpquad.jsonl), then the report
#   bench/quadrature/run.sh --only report        the report from the results already there
#
# Options: --method M (hpquad's method: auto, romberg, tanh-sinh, gauss-legendre, gauss-kronrod;
# default auto), --tolerance T (hpquad's relative tolerance; default its own), --timeout S (per
# case and library, default 30), --cases a,b,c (a subset; the report still reads every result).
# Writes bench/quadrature/results/: competitors.jsonl, hpquad.jsonl, results.csv, results.json,
# report.md, digits-vs-time.png.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=bench/quadrature
out=$here/results
venv=target/compare-venv
build=target/compare-quadrature
only=all method=auto tolerance="" timeout=30 cases=""
while [ $# -gt 0 ]; do
    case "$1" in
        --only) only=$2; shift 2 ;;
        --method) method=$2; shift 2 ;;
        --tolerance) tolerance=$2; shift 2 ;;
        --timeout) timeout=$2; shift 2 ;;
        --cases) cases=$2; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$only" in all|competitors|hpquad|report) ;; *) echo "--only: competitors, hpquad or report" >&2; exit 2 ;; esac
mkdir -p "$out" "$build"

# The Python side: a venv under target/ with python-flint (Arb), mpmath, scipy, matplotlib.
if [ ! -x $venv/bin/python ]; then python3 -m venv $venv; fi
if ! $venv/bin/python -c "import flint, mpmath, scipy, matplotlib" 2>/dev/null; then
    $venv/bin/pip install -q python-flint mpmath scipy matplotlib
fi
py=$venv/bin/python

if [ "$only" = all ] || [ "$only" = competitors ]; then
    # Boost.Math from Debian's libboost-dev; the integrands generated from the suite.
    if [ ! -f /usr/include/boost/math/quadrature/tanh_sinh.hpp ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libboost-dev
    fi
    $py $here/compare.py gen-cpp $build/cases.inc
    if [ ! -x $build/boost_quad ] || [ $here/boost_quad.cpp -nt $build/boost_quad ] \
        || [ $build/cases.inc -nt $build/boost_quad ]; then
        echo "building $build/boost_quad (about a minute)"
        g++ -O3 -std=gnu++17 -fext-numeric-literals -I$build $here/boost_quad.cpp \
            -o $build/boost_quad -lquadmath
    fi
    # Every form of every case against the suite's MPFR samples before anything is timed.
    $py $here/compare.py check
    $py $here/compare.py competitors $out/competitors.jsonl --timeout "$timeout" --cases "$cases"
fi

if [ "$only" = all ] || [ "$only" = hpquad ]; then
    cargo build --release --example compare
    $py $here/compare.py hpquad $out/hpquad.jsonl --method "$method" --tolerance "$tolerance" \
        --timeout "$((timeout * 2))" --cases "$cases"
fi

results=()
for f in $out/competitors.jsonl $out/hpquad.jsonl; do [ -f "$f" ] && results+=("$f"); done
$py $here/compare.py report "${results[@]}" --out $out
echo "wrote $out/report.md, results.csv, results.json, digits-vs-time.png"
