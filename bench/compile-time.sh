#!/usr/bin/env bash
# Compile time and memory of a bundle, phase by phase (gptc compile --time):
# the spec, the MLIR pipeline, translation to LLVM IR, the parallel -O3 and
# code generation, the link. Then the growth with depth: the whole compile
# at several n_layer, its wall time and peak RSS against the smallest's
# (linear growth keeps both ratios near the n_layer ratio or below).
#
#   bash bench/compile-time.sh                 all configs, n_layer 12 48 96
#   GPTC_BENCH_CONFIGS="tiny-r08 gpt2" ...     some of: tiny-r08 small gpt2 r15
#   GPTC_BENCH_LAYERS="12 48" ...              the depths of the growth table
#   GPTC_BENCH_JOBS=1 ...                      compile threads (default: cores)
#
# Configs: tiny-r08 (models/tiny-r08.yaml), small (R8, 4 layers, width 256,
# T 256, vocab 50304), gpt2 (R8 as GPT-2 small: 12 layers, width 768, T 64,
# vocab 50304), r15 (models/speedrun-r15-unet-ve.yaml as it is).
# Targets (issue 18): gpt2 < 10 s and tiny-r08 < 3 s wall on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
gptc=${GPTC:-build/bin/gptc}
jobs=${GPTC_BENCH_JOBS:-0}
work=$(mktemp -d "${TMPDIR:-/tmp}/gptc-compile-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

r8_at() { # width layers heads seq
  echo models/speedrun-r08-untied.yaml --set model.d_model="$1" \
    --set model.n_layer="$2" --set model.n_head="$3" --set model.head_dim=64 \
    --set model.vocab_size=50304 --set model.attention.bos_token=256 \
    --set training.seq_len="$4" --set training.device_batch=4 \
    --set training.batch=4 --set training.ranks=1 --set training.dtype=f32
}
declare -A configs=(
  [tiny-r08]="models/tiny-r08.yaml"
  [small]="$(r8_at 256 4 4 256)"
  [gpt2]="$(r8_at 768 12 12 64)"
  [r15]="models/speedrun-r15-unet-ve.yaml"
)

for name in ${GPTC_BENCH_CONFIGS:-tiny-r08 small gpt2 r15}; do
  echo "== $name"
  # shellcheck disable=SC2086
  "$gptc" compile ${configs[$name]} -o "$work/$name" --time --jobs "$jobs" \
    2>&1 >/dev/null | sed 's/^/  /'
done

echo "== growth with n_layer (tiny-r08, whole bundle)"
printf '  %8s %10s %12s %22s\n' n_layer "wall s" "peak MiB" "growth (n_layer)"
first=""
for n in ${GPTC_BENCH_LAYERS:-12 48 96}; do
  "$gptc" compile models/tiny-r08.yaml -o "$work/depth-$n" --time \
    --jobs "$jobs" --set model.n_layer="$n" \
    --set compile.memory_limit_mb=1000000 2>"$work/times" >/dev/null
  read -r secs mib < <(awk '/^total/ {print $2, $3}' "$work/times")
  if [ -z "$first" ]; then
    first="$n $secs $mib"
    growth="-"
  else
    read -r n0 s0 m0 <<<"$first"
    growth=$(awk -v s="$secs" -v s0="$s0" -v m="$mib" -v m0="$m0" -v n="$n" \
      -v n0="$n0" 'BEGIN { printf "time x%.2f, mem x%.2f (x%.2f)", s / s0, m / m0, n / n0 }')
  fi
  printf '  %8d %10s %12s %22s\n' "$n" "$secs" "$mib" "$growth"
  rm -rf "$work/depth-$n"
done
