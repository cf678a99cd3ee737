#!/usr/bin/env bash
# Makes DIR: everything a lent GPU machine (CUDA and Python, but no LLVM,
# MPI or OpenBLAS; 64 MiB carried, no network) needs to check gptc's CUDA
# step, and nothing it would have to build:
#   bin/gptc-run           train/sample over CUDA bundles (tools/gptc-run:
#                          ldd lists libc, libm, libstdc++, libgcc_s only)
#   bundles/NAME/          CUDA bundles: tiny-r08 f32 and bf16, tiny-r15, a
#                          head_dim-128 tiny-r15, and (unless
#                          GPTC_PACK_TINY_ONLY=1) speedrun-r15-unet-ve for one
#                          rank at the record's per-rank batch
#   data/                  token shards: the King James Bible (bytes) for the
#                          tiny bundles; generated Zipf-distributed GPT-2 ids
#                          for R15 (its timing, not its learning)
#   reference/NAME.log     the CPU backend's losses for the same steps
#   reference/r15-stats.txt  gptc compile --stats of the R15 bundle
#   checks.tsv, steps      what gpu-check.sh runs and compares
#   gpu-check.sh, tools/   the check (see its header) and its helpers (the
#                          report, the loss comparison, the PyTorch R15)
#   README.md              how to run it and what the report says
# It fails when DIR would hold more than 48 MiB.
#   scripts/gpu-pack.sh DIR
#   GPTC_PACK_STEPS=N      training steps of each tiny check (default 10)
#   GPTC_PACK_TINY_ONLY=1  no R15 bundle (the e2e test: compiling R15 for
#                          CUDA takes minutes)
set -euo pipefail
out=${1:?usage: scripts/gpu-pack.sh DIR}
case "$out" in /*) ;; *) out=$PWD/$out ;; esac
cd "$(dirname "$0")/.."
steps=${GPTC_PACK_STEPS:-10}
build=${GPTC_BUILD_DIR:-build}
limit=$((48 << 20))

if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  echo "gpu-pack: error: $out exists and is not empty" >&2
  exit 1
fi
say() { echo "gpu-pack: $*"; }
if [ ! -x "$build/bin/gptc" ] || [ ! -x "$build/bin/gptc-run" ]; then
  say "building gptc and gptc-run (scripts/setup.sh)"
  GPTC_TARGETS="bin/gptc bin/gptc-run" bash scripts/setup.sh > /dev/null
fi
gptc=$build/bin/gptc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"/bin "$out"/bundles "$out"/data "$out"/reference "$out"/tools
cp "$build/bin/gptc-run" "$out/bin/"

say "token shards of the King James Bible (its first 800 KB: enough for the checks)"
bash test/Training/Inputs/kjv-corpus.sh "$work/kjv-all.txt"
head -c 800000 "$work/kjv-all.txt" > "$work/kjv.txt"
"$gptc" data "$work/kjv.txt" -o "$out/data" --prefix tiny > /dev/null

# NAME, SPEC, the tolerance of its losses against the CPU's (the emulated
# tests': f32 1e-4, bf16 1e-3), its compile flags.
checks=(
  "r08-f32|models/tiny-r08.yaml|1e-4|--set training.dtype=f32"
  "r08-bf16|models/tiny-r08.yaml|1e-3|"
  "r15|models/tiny-r15.yaml|1e-3|"
  "r15-d128|models/tiny-r15.yaml|1e-3|--set model.head_dim=128 --set model.n_head=1 --set model.d_model=128 --set model.n_layer=2 --set training.device_batch=2 --set training.batch=2"
)
: > "$out/checks.tsv"
for check in "${checks[@]}"; do
  IFS='|' read -r name spec rtol flags <<< "$check"
  say "bundle $name: $spec $flags"
  # shellcheck disable=SC2086
  "$gptc" compile "$spec" $flags --target=cuda -o "$out/bundles/$name" > /dev/null
  # shellcheck disable=SC2086
  "$gptc" compile "$spec" $flags -o "$work/cpu-$name" > /dev/null
  "$gptc" train "$work/cpu-$name" --data "$out/data/tiny_train_*.bin" \
    --steps "$steps" --val-tokens 0 > "$out/reference/$name.log"
  printf '%s\t%s\n' "$name" "$rtol" >> "$out/checks.tsv"
done
echo "$steps" > "$out/steps"

if [ "${GPTC_PACK_TINY_ONLY:-0}" != 1 ]; then
  r15=(models/speedrun-r15-unet-ve.yaml --set training.ranks=1
       --set training.batch=1)
  say "bundle r15-1rank: ${r15[*]} (every kernel through ptxas: minutes)"
  "$gptc" compile "${r15[@]}" --target=cuda -o "$out/bundles/r15-1rank" > /dev/null
  "$gptc" compile "${r15[@]}" --target=cuda --stats > "$out/reference/r15-stats.txt"
  # 31 steps of 65,536 tokens, GPT-2 ids in a Zipf law (as text's are).
  python3 scripts/gpu/zipf-tokens.py "$out/data/r15_train_000001.bin" \
    --tokens $((31 * 65536 + 1)) --vocab 50257
fi

cp scripts/gpu/gpu-check.sh "$out/"
cp scripts/gpu/report.py scripts/gpu/torch-r15-step.py \
  test/Training/Inputs/compare-losses.py test/Training/Inputs/torch_r15.py \
  "$out/tools/"
cp scripts/gpu/README.md "$out/README.md"
git rev-parse HEAD > "$out/commit" 2>/dev/null || echo unknown > "$out/commit"

size=$(du -sb "$out" | cut -f1)
say "$out: $((size >> 20)) MiB ($size bytes; the limit is 48 MiB)"
if [ "$size" -gt "$limit" ]; then
  echo "gpu-pack: error: $out is $size bytes, over 48 MiB" >&2
  exit 1
fi
