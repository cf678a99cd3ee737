#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs the main job: makes byte-level token
# shards of the King James Bible (Debian's bible-kjv), compiles a CPU-sized
# spec into a training step and trains it, printing one line per step and a
# summary.
#   GPTC_SPEC=models/tiny-r15.yaml bash scripts/main.sh   another spec
#   GPTC_STEPS=50 bash scripts/main.sh                     fewer steps
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${GPTC_BUILD_DIR:-build}
spec=${GPTC_SPEC:-models/tiny-r08.yaml}
gptc="$build/bin/gptc"

# 1. Data: one document per chapter (the heading joined to its text).
if ! ls data/tiny_train_*.bin >/dev/null 2>&1; then
  mkdir -p data
  bible gen1:1-rev22:21 |
    awk 'BEGIN{RS="";ORS="\n\n"} length($0)<40{h=$0;next} {print h "\n" $0}' \
      > data/kjv.txt
  "$gptc" data data/kjv.txt -o data --prefix tiny
fi

# 2. Check the spec, compile it, train it.
"$gptc" check "$spec"
steps=()
[ -n "${GPTC_STEPS:-}" ] && steps=(--steps "$GPTC_STEPS")
"$gptc" train "$spec" --data 'data/tiny_train_*.bin' \
  --val 'data/tiny_val_*.bin' "${steps[@]}"
