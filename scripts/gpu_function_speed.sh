#!/usr/bin/env bash
# Before/after timings of the dd/qd elementary functions on the GPU (trapezoid sums,
# per-stage seconds; one cold run to fill the kernel cache, then the best of two warm runs),
# then the bit-identity test. Usage, from a folder D holding hpquad-base and hpquad-new (and gpu_functions-new with TEST=new):
#   D=folder BINS="base new" DD_N=4294967296 QD_N=536870912 bash scripts/gpu_function_speed.sh
set -u
D=${D:?set D to the folder holding hpquad-<name> for each name in BINS}
export HPQUAD_CACHE_DIR=/tmp/hpq-cache
mkdir -p $HPQUAD_CACHE_DIR
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
BINS=${BINS:-"base new"}
stage() {  # bin expr prec n -> seconds of the warm run (min of 2)
  local b=$1 e=$2 p=$3 n=$4 best=
  # The kernel cache is keyed by the source alone: a small grid fills it.
  HPQUAD_GPU_MIN_POINTS=1 $D/hpquad-$b integrate "$e" --from 0 --to 1 -m trapezoid --intervals 65536 -p $p --device gpu --json > /tmp/cold.json 2>/dev/null
  for r in 1 2; do
    s=$($D/hpquad-$b integrate "$e" --from 0 --to 1 -m trapezoid --intervals $n -p $p --device gpu --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.4f %s %s" % (sum(s["seconds"] for s in d["stages"]), d["value"], d["stages"][0]["device"]))')
    echo "$b|$e|$p|$n|run$r|$s" >> $OUT/raw.txt
    t=${s%% *}
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $t < $best else 1)"; then best=$t; fi
  done
  echo $best
}
printf "%-28s %-3s %-10s" "integrand" "p" "points" > $OUT/table.txt
for b in $BINS; do printf " %9s" $b >> $OUT/table.txt; done; echo >> $OUT/table.txt
for p in dd qd; do
  if [ $p = dd ]; then n=${DD_N:-268435456}; else n=${QD_N:-33554432}; fi
  for e in 'exp(x)' 'ln(1+x)' 'sin(x)' 'cos(x)' 'sqrt(exp(cos(x^(x^x))))'; do
    printf "%-28s %-3s %-10s" "$e" $p $n >> $OUT/table.txt
    for b in $BINS; do printf " %9s" $(stage $b "$e" $p $n) >> $OUT/table.txt; done
    echo >> $OUT/table.txt
  done
done
# Fixed cost per call (module load, launch, transfer) at a small grid.
for b in $BINS; do echo "small dd exp 2^16 $b: $(stage $b 'exp(x)' dd 65536)" >> $OUT/table.txt; done
if [ -n "${TEST:-}" ]; then
  $D/gpu_functions-$TEST --include-ignored > $OUT/gpu_functions.txt 2>&1; echo "gpu_functions rc=$?" >> $OUT/table.txt
  tail -5 $OUT/gpu_functions.txt
fi
cat $OUT/table.txt
