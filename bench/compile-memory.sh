#!/usr/bin/env bash
# Compile time and peak memory of gptc against n_layer: one line per
# (stage, n_layer), and the growth from the smallest n_layer of each stage
# next to the growth of n_layer itself (linear growth keeps the memory
# ratio at or below the n_layer ratio). Calibrates the estimate `gptc
# check` prints (frontend/CompileCost.cpp).
#   bench/compile-memory.sh [SPEC] [STAGES] [N_LAYERS]
#   defaults: models/tiny-r08.yaml, "gpt grad step bundle", "16 64 256"
#   (stage `bundle` writes a whole bundle: -o DIR instead of --emit)
set -euo pipefail
cd "$(dirname "$0")/.."
spec=${1:-models/tiny-r08.yaml}
stages=${2:-gpt grad step bundle}
layers=${3:-16 64 256}
gptc=${GPTC:-build/bin/gptc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf "%-7s %8s %10s %12s %10s\n" stage n_layer seconds "peak MiB" growth
for stage in $stages; do
  first=""
  for n in $layers; do
    if [ "$stage" = bundle ]; then
      out=(-o "$tmp/bundle-$n")
    else
      out=(--emit="$stage")
    fi
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$gptc" compile "$spec" \
      "${out[@]}" --set model.n_layer="$n" \
      --set compile.memory_limit_mb=1000000 > /dev/null
    read -r secs kib < "$tmp/time"
    mib=$((kib / 1024))
    if [ -z "$first" ]; then
      first="$n $mib"
      growth="-"
    else
      read -r n0 m0 <<< "$first"
      growth=$(awk -v m="$mib" -v m0="$m0" -v n="$n" -v n0="$n0" \
        'BEGIN { printf "x%.2f (n x%.2f)", m / m0, n / n0 }')
    fi
    printf "%-7s %8d %10s %12d %10s\n" "$stage" "$n" "$secs" "$mib" "$growth"
  done
done
