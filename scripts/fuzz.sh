#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang, ASan and UBSan in their
# own build directory and runs each for SECONDS (default 20) from the seeds:
#   spec      models/*.yaml and test/Frontend/errors/*.yaml
#   shard     small shards written here (valid, truncated, bad magic)
#   manifest  fuzz/seeds/manifest/
#   safetensors  small files written here (valid, truncated, a header that
#             lies about offsets)
#   checkpoint   fuzz/seeds/checkpoint/
# Two fuzzers run at a time (GPTC_JOBS, default 2). Any crash, leak or
# sanitizer report fails the script; the reproducer is left in the build
# directory (crash-*, leak-*).
#   scripts/fuzz.sh [SECONDS]
#   GPTC_FUZZ_BUILD_DIR=dir      build directory (default build-fuzz)
#   GPTC_FUZZ_RUNS=N             stop each fuzzer after N executions instead
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
build=${GPTC_FUZZ_BUILD_DIR:-build-fuzz}
if [ ! -f "$build/build.ninja" ]; then
  mkdir -p "$build"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DGPTC_ENABLE_FUZZERS=ON > "$build/configure.log" 2>&1 \
    || { cat "$build/configure.log"; exit 1; }
fi
fuzzers="spec shard manifest safetensors checkpoint"
ninja -C "$build" -j"${GPTC_JOBS:-2}" \
  $(for f in $fuzzers; do printf 'gptc-%s-fuzzer ' "$f"; done)

corpus="$build/fuzz-corpus"
for f in $fuzzers; do mkdir -p "$corpus/$f"; done
cp models/*.yaml test/Frontend/errors/*.yaml "$corpus/spec/"
cp fuzz/seeds/manifest/* "$corpus/manifest/"
cp fuzz/seeds/checkpoint/* "$corpus/checkpoint/"
python3 - "$corpus/safetensors" <<'PY'
import json, struct, sys
d = sys.argv[1]
def st(name, header, data, lie=0):
    h = json.dumps(header).encode()
    with open(f"{d}/{name}", "wb") as f:
        f.write(struct.pack("<Q", len(h) + lie) + h + data)
w = struct.pack("<4f", 1, 2, 3, 4)
st("valid.safetensors", {"__metadata__": {"format": "pt"},
   "w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}}, w)
st("two.safetensors", {"a": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]},
   "b": {"dtype": "I64", "shape": [1], "data_offsets": [4, 12]}}, bytes(12))
st("short.safetensors", {"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, w[:8])
st("lying-length.safetensors", {"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, w[:4], lie=3)
PY
python3 - "$corpus/shard" <<'PY'
import struct, sys
d = sys.argv[1]
def shard(name, tokens, magic=20240520, version=1, count=None):
    header = [magic, version, len(tokens) if count is None else count] + [0] * 253
    with open(f"{d}/{name}", "wb") as f:
        f.write(struct.pack("<256i", *header))
        f.write(struct.pack(f"<{len(tokens)}H", *tokens))
shard("valid.bin", [1, 2, 3, 256, 65535])
shard("empty.bin", [])
shard("count-too-big.bin", [7, 8], count=3)
shard("bad-magic.bin", [1], magic=1)
PY

# Inputs up to 64 KiB (the largest seed spec is a few KiB); -rss_limit_mb
# well above what the parsers need.
args=(-max_len=65536 -rss_limit_mb=2048 -timeout=30 -print_final_stats=1)
if [ -n "${GPTC_FUZZ_RUNS:-}" ]; then
  args+=(-runs="$GPTC_FUZZ_RUNS")
else
  args+=(-max_total_time="$seconds")
fi
# The shard fuzzer writes a file per input: keep it in memory.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ]; then
  export TMPDIR=/dev/shm
fi
# Each fuzzer is single-threaded: two run at a time (GPTC_JOBS), each for
# its whole time; their reports are checked once all have run.
run_fuzzer() {
  (cd "$build" && "./bin/gptc-$1-fuzzer" "${args[@]}" "fuzz-corpus/$1" \
    > "fuzz-$1.log" 2>&1) || true
}
jobs_at_once=${GPTC_JOBS:-2}
for name in $fuzzers; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_at_once" ]; do wait -n || true; done
  run_fuzzer "$name" &
done
wait
status=0
for name in $fuzzers; do
  echo "== gptc-$name-fuzzer"
  grep -E "^(Done|#[0-9]+ *DONE|stat::number_of_executed_units|==[0-9]+==|SUMMARY)" \
    "$build/fuzz-$name.log" || true
  if ! grep -q "^stat::number_of_executed_units" "$build/fuzz-$name.log"; then
    echo "gptc-$name-fuzzer failed; see $build/fuzz-$name.log"
    status=1
  elif grep -qE "^(==[0-9]+==ERROR|SUMMARY: )" "$build/fuzz-$name.log"; then
    echo "gptc-$name-fuzzer found a problem; see $build/fuzz-$name.log"
    status=1
  fi
done
exit $status
