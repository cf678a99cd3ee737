#!/usr/bin/env bash
# The sanitizer job: builds the MLIR-free code (spec frontend, data and
# runtime libraries) with AddressSanitizer and UndefinedBehaviorSanitizer
# in its own build directory, runs their unit tests, and runs the
# spec-error tests (test/Frontend/errors/) through gptc-spec-check, the
# MLIR-free `gptc check`. Any sanitizer report fails the job.
#   scripts/sanitize.sh
#   GPTC_SAN_BUILD_DIR=dir     build directory (default build-san)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GPTC_SAN_BUILD_DIR:-build-san}
if [ ! -f "$build/build.ninja" ]; then
  mkdir -p "$build"
  # -O1 -g1 (line tables), as sanitizer builds usually are: half the
  # compile time of -O2 -g (TrainerTest.cpp 24 s -> 13 s), the same reports
  # with file and line.
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DGPTC_PRECOMPILED_HEADERS=OFF \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DGPTC_ENABLE_ASAN=ON -DGPTC_ENABLE_UBSAN=ON > "$build/configure.log" 2>&1 \
    || { cat "$build/configure.log"; exit 1; }
fi
ninja -C "$build" -j"${GPTC_JOBS:-2}" gptc-unittests gptc-data-tests \
  gptc-runtime-tests gptc-spec-check

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# One thread each: the unit tests time nothing, and the machine is shared.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
"$build/bin/gptc-unittests" --gtest_brief=1
"$build/bin/gptc-data-tests" --gtest_brief=1
# The runtime tests, the longest, in two shards side by side.
pids=()
for shard in 0 1; do
  GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$shard \
    "$build/bin/gptc-runtime-tests" --gtest_brief=1 &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
lit=$(command -v lit || echo /usr/lib/llvm-22/bin/lit)
"$lit" -sv --param gptc_spec_check=1 "$build/test/Frontend/errors"
