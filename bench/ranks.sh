#!/usr/bin/env bash
# Data parallel on the CPU: 2 MPI ranks x 1 thread against 1 rank x 2
# threads, the same global batch, in the same run (interleaved rounds,
# medians). Config "small" of bench/step-vs-pytorch.sh (R8, L=4, d=256, 4
# heads of 64, T=256, vocab 50304, f32), global batch 4: one rank runs
# B=4, the ranks B=2 each.
#
#   bash bench/ranks.sh                 3 rounds of 12 steps (first 3 untimed)
#   GPTC_BENCH_ROUNDS=5 GPTC_BENCH_STEPS=20 bash bench/ranks.sh
#
# Prints the median step time of each, their ratio, and the ranks' share of
# the step spent waiting for collectives (gptc train's summary: time inside
# gptc_comm_wait and the blocking gathers).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null

build=${GPTC_BUILD_DIR:-build}
gptc="$build/bin/gptc"
steps=${GPTC_BENCH_STEPS:-12}
rounds=${GPTC_BENCH_ROUNDS:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/gptc-bench-ranks.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none

bash test/Training/Inputs/kjv-corpus.sh "$work/kjv.txt"
"$gptc" data "$work/kjv.txt" -o "$work/data" --prefix bench >/dev/null
shard=$(ls "$work"/data/bench_train_*.bin | head -n 1)

small=(--set model.n_layer=4 --set model.d_model=256 --set model.n_head=4
  --set model.head_dim=64 --set model.vocab_size=50304
  --set model.attention.bos_token=256 --set training.seq_len=256
  --set training.batch=4 --set training.dtype=f32
  --set training.timing_skip_steps=3)
"$gptc" compile models/speedrun-r08-untied.yaml -o "$work/one" "${small[@]}" \
  --set training.device_batch=4 --set training.ranks=1 >/dev/null
"$gptc" compile models/speedrun-r08-untied.yaml -o "$work/two" "${small[@]}" \
  --set training.device_batch=2 --set training.ranks=2 >/dev/null

# Seconds per step and the waiting share of a gptc train log.
step_of() { sed -n 's/^done:.* | \([0-9.e+-]*\) s\/step.*/\1/p' "$1"; }
wait_of() { sed -n 's/.* \([0-9.]*\)% waiting on communication.*/\1/p' "$1"; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

one="" two="" waits=""
for round in $(seq "$rounds"); do
  OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 "$gptc" train "$work/one" \
    --data "$shard" --steps "$steps" --val-tokens 0 >"$work/one.$round.log"
  mpirun -np 2 --bind-to core -x OMP_NUM_THREADS=1 -x OPENBLAS_NUM_THREADS=1 \
    "$gptc" train "$work/two" --data "$shard" --steps "$steps" \
    --val-tokens 0 >"$work/two.$round.log"
  one+=" $(step_of "$work/one.$round.log")"
  two+=" $(step_of "$work/two.$round.log")"
  waits+=" $(wait_of "$work/two.$round.log")"
done
one=$(echo "$one" | median)
two=$(echo "$two" | median)
waits=$(echo "$waits" | median)
if [ -z "$one" ] || [ -z "$two" ]; then
  echo "bench: no step time found; logs:" >&2
  cat "$work"/*.log >&2
  exit 1
fi
printf '%-22s %10s %10s\n' run "s/step" waiting
printf '%-22s %10.4f %10s\n' "1 rank x 2 threads" "$one" -
printf '%-22s %10.4f %9s%%\n' "2 ranks x 1 thread" "$two" "$waits"
awk -v a="$one" -v b="$two" \
  'BEGIN{printf "2 ranks / 1 rank: %.2fx the speed\n", a/b}'
