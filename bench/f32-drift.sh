#!/usr/bin/env bash
# f32 drift over 10 steps of tiny-r15: gptc in f32 and PyTorch in f32 (the
# R15 oracle, test/Training/Inputs/torch_r15.py), each against the oracle
# in f64, from the same initial weights (gptc's f64 init rounded to f32) on
# the same batches; the setup of test/Training/torch-r15-agreement.test
# (seq 512, window 64 + 16 step, lr warm-up 2 and decay 5, momentum
# warm-up 8). Two runs: Newton-Schulz in f32 and in the spec's bf16.
#
#   bash bench/f32-drift.sh [gptc compile options, e.g. --no-fuse]
#
# Environment: GPTC (default build/bin/gptc), GPTC_PYTHON (a python with
# torch and numpy; default build/pyenv/bin/python), GPTC_DRIFT_DIR (work
# directory, default a new temporary one); the runtime's own variables
# (GPTC_GEMM_AVX512=0, ...) reach gptc train. Prints both curves per run
# (bench/f32_drift.py).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gptc=${GPTC:-$root/build/bin/gptc}
python=${GPTC_PYTHON:-$root/build/pyenv/bin/python}
dir=${GPTC_DRIFT_DIR:-$(mktemp -d)}
mkdir -p "$dir"
data=$root/build/test/fixtures/data
sets=(--set training.seq_len=512 --set training.steps=10
      --set model.attention.window_start=64
      --set model.attention.window_end=224
      --set model.attention.window_granularity=16
      --set schedule.warmup_steps=2 --set schedule.decay_steps=5
      --set optimizer.groups.hidden.momentum_warmup_steps=8)
train=(--val-tokens 0 --data "$data/tiny_train_*.bin")

"$gptc" compile "$root/models/tiny-r15.yaml" -o "$dir/b64" "${sets[@]}" \
  --set training.dtype=f64 --set optimizer.groups.hidden.ns_dtype=f64 >/dev/null
rm -rf "$dir/init"
"$gptc" train "$dir/b64" --steps 0 "${train[@]}" --checkpoint-dir "$dir/init" \
  >/dev/null
"$python" "$root/bench/f32_drift.py" "$dir/b64" \
  "$dir/init/step_0/model.safetensors" "" "$dir/init-f32.safetensors"
runs=()
for ns in f32 bf16; do
  "$gptc" compile "$root/models/tiny-r15.yaml" -o "$dir/b32-$ns" "${sets[@]}" \
    --set training.dtype=f32 --set optimizer.groups.hidden.ns_dtype=$ns "$@" \
    >/dev/null
  rm -rf "$dir/run-$ns" "$dir/run-$ns.jsonl"
  "$gptc" train "$dir/b32-$ns" --steps 10 "${train[@]}" \
    --init "$dir/init-f32.safetensors" --log "$dir/run-$ns.jsonl" \
    --checkpoint-dir "$dir/run-$ns" --save-every 1 >/dev/null
  runs+=("ns $ns:$ns:$dir/run-$ns.jsonl:$dir/run-$ns/step_10/model.safetensors")
done
"$python" "$root/bench/f32_drift.py" "$dir/b64" "$dir/init-f32.safetensors" \
  "$data/tiny_train_000001.bin" "" "${runs[@]}"
