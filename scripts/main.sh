#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs the main job: checks every spec in
# models/, prints a summary of each, and compiles each to the gpt forward
# graph (written to build/ir/NAME.gpt.mlir).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${GPTC_BUILD_DIR:-build}
mkdir -p "$build/ir"
for spec in models/*.yaml; do
  name=$(basename "$spec" .yaml)
  "$build/bin/gptc" check "$spec"
  "$build/bin/gptc" compile "$spec" --emit=gpt --mlir-print-debuginfo \
    -o "$build/ir/$name.gpt.mlir"
  ops=$(grep -c ' = gpt\.' "$build/ir/$name.gpt.mlir" || true)
  echo "  compiled:  $build/ir/$name.gpt.mlir ($ops gpt ops)"
  echo
done
