#!/usr/bin/env bash
# usage: stage-parity.sh DIR SPEC [FLAGS...]
#   (DIR holds gptc's --emit=gpt as gpt.mlir; FLAGS go to gptc compile)
# For every stage after gpt: whether gptc-opt --gptc-pipeline=stop-after=
# STAGE on gpt.mlir, and start-after=PREVIOUS on gptc's --emit=PREVIOUS,
# print what gptc compile --emit=STAGE prints (up to blank lines).
set -euo pipefail
dir=$1 spec=$2
shift 2
prev=gpt
cp "$dir/gpt.mlir" "$dir/gptc-gpt.mlir"
for stage in fused grad step linalg buffers loops llvm; do
  gptc compile "$spec" "$@" --emit=$stage > "$dir/gptc-$stage.mlir"
  gptc-opt --gptc-pipeline="stop-after=$stage" "$dir/gpt.mlir" \
    > "$dir/opt-$stage.mlir"
  gptc-opt --gptc-pipeline="start-after=$prev stop-after=$stage" \
    "$dir/gptc-$prev.mlir" > "$dir/resumed-$stage.mlir"
  # (gptc's header and embedded spec are comments gptc-opt does not print)
  same() { diff -B -I '^//' -q "$dir/gptc-$stage.mlir" "$1" > /dev/null && echo same || echo DIFFER; }
  echo "$stage: stop-after $(same "$dir/opt-$stage.mlir"), start-after $prev $(same "$dir/resumed-$stage.mlir")"
  prev=$stage
done
