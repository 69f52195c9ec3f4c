#!/usr/bin/env bash
# Runs hpquad's whole test suite on a machine that has only the Rust toolchain, gcc and python3.
#
# The accuracy tests compare against MPFR through the `rug` crate, whose build compiles GMP and
# MPFR from source and needs m4; m4 is installed here when it is missing (the library itself
# never needs it). Tests run in release mode: they make 10^5 MPFR comparisons per function.
# Extra arguments go to `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v m4 >/dev/null 2>&1; then
  echo "scripts/test.sh: installing m4 (needed to build GMP/MPFR for the MPFR reference tests)" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq m4 >/dev/null
fi

# The API documentation builds without a warning: a bracket read as a link (write `T[i][i]` as
# code), a link to a private item or one that does not resolve fails here. Seconds, so first.
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace

cargo test --workspace --release "$@"

# The benchmark smoke test: a few seconds; exits non-zero when a precision misses its digits
# (f64 14, dd 29, qd 58 on the quick suite).
cargo run --release -- bench --quick --out target/bench-quick
