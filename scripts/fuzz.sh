#!/usr/bin/env bash
# Coverage-guided fuzzing of hpquad's input paths: cargo-fuzz (libFuzzer) on the nightly
# toolchain, over the targets of fuzz/ (their bodies: fuzz/harness.rs).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     default: 60 s each for expr decimal functions integral
#
# New inputs that reach new code are added to fuzz/corpus/<target>/ (commit them after
# `cargo +nightly fuzz cmin <target>`: the ordinary test run replays them, tests/fuzz_corpus.rs);
# an input that fails is written to fuzz/artifacts/<target>/ and the run stops with its name.
# Each target prints libFuzzer's final statistics: the executions it ran, the corpus it reached.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(expr decimal functions integral)
rustup toolchain list | grep -q '^nightly' || { echo "fuzz.sh: needs the nightly toolchain (rustup toolchain install nightly)" >&2; exit 2; }
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t"
  echo "== $t: ${seconds} s"
  # -timeout: one input running over 10 s is a hang; -rss_limit_mb: a runaway allocation.
  cargo +nightly fuzz run --fuzz-dir fuzz "$t" "fuzz/corpus/$t" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 2>&1 |
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|^#[0-9]+ +DONE|ERROR|panicked|SUMMARY" || true
  if compgen -G "fuzz/artifacts/$t/*" > /dev/null; then
    echo "fuzz.sh: $t failed; inputs in fuzz/artifacts/$t/" >&2
    exit 1
  fi
done
