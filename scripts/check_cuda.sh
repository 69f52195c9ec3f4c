#!/usr/bin/env bash
# Checks the cubature kernels' CUDA without a GPU or a CUDA toolkit: writes the generated
# sources (kernels/cuhre_list.cu and kernels/genz_malik.cu with their integrands spliced in, for
# both rules, f64, dd and qd, 2 to 16 dimensions; tests/gpu_cubature.rs:
# write_cubature_kernel_sources; kernels/product.cu for f64, dd and qd, 1 to 8 dimensions;
# tests/gpu_product.rs: write_product_kernel_sources), then has clang parse, type-check and
# compile each to PTX for sm_80, with scripts/cuda_check/nvrtc_builtins.h standing in for what
# NVRTC declares. A typo, an undeclared name, a wrong overload or a type error fails here, before
# device time is spent; what only NVRTC and ptxas see (register and shared memory limits,
# --fmad=false) does not.
# Needs clang (apt-get install clang-14, or set CLANG). Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."

clang=${CLANG:-$(command -v clang++-14 || command -v clang++ || true)}
if [ -z "$clang" ]; then
  echo "scripts/check_cuda.sh: no clang++ (apt-get install clang-14, or set CLANG)" >&2
  exit 2
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
HPQUAD_KERNEL_SOURCES="$out" cargo test --release --test gpu_cubature -- --ignored \
  --exact write_cubature_kernel_sources >/dev/null
HPQUAD_KERNEL_SOURCES="$out" cargo test --release --test gpu_product -- --ignored \
  --exact write_product_kernel_sources >/dev/null
count=0
for source in "$out"/*.cu; do
  if ! "$clang" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 \
      -std=c++17 -O1 -S -Werror=return-type -include scripts/cuda_check/nvrtc_builtins.h \
      "$source" -o "$out/check.ptx" 2> "$out/errors.txt"; then
    echo "scripts/check_cuda.sh: $(basename "$source") does not compile:" >&2
    grep -E "error" "$out/errors.txt" | head -20 >&2
    exit 1
  fi
  count=$((count + 1))
done
echo "scripts/check_cuda.sh: $count kernel sources compile to PTX"
