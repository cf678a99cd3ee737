#!/usr/bin/env bash
# Training-step throughput on the CPU: gptc's compiled step against PyTorch
# eager (Debian's python3-torch) running the same architecture and optimizer
# (bench/pytorch_step.py: R8 — untied zero-init head, embed norm, QK-norm,
# rotary, ReLU^2, Muon with 5 bf16 Newton-Schulz steps on the hidden
# matrices, Adam on wte and lm_head) in the same run, on the same token
# shard, with the same number of threads (2 unless GPTC_BENCH_THREADS).
#
#   bash bench/step-vs-pytorch.sh             both configs
#   GPTC_BENCH_CONFIGS=small bash bench/...   one of: small gpt2 t4096
#   GPTC_BENCH_STEPS=12 ...                   steps per run (first 3 untimed)
#   GPTC_BENCH_ROUNDS=5 ...                   rounds per config (default 3)
#
# Configs (f32 parameters and activations, vocab 50304, one rank, no
# gradient accumulation):
#   small: L=4,  d=256, 4 heads of 64,  T=256, B=4
#   gpt2:  L=12, d=768, 12 heads of 64, T=64,  B=4   (GPT-2 small)
#   t4096: L=4,  d=256, 4 heads of 64,  T=4096, B=1  (the small model, long)
# Prints per config: gptc tok/s fused and with --no-fuse, pytorch tok/s (each
# the median of the interleaved rounds) and the ratios fused/pytorch and
# fused/unfused (targets: fused >= 2x pytorch on small).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "bench: installing python3-torch"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
    --no-install-recommends python3-torch python3-numpy
fi

build=${GPTC_BUILD_DIR:-build}
gptc="$build/bin/gptc"
threads=${GPTC_BENCH_THREADS:-2}
steps=${GPTC_BENCH_STEPS:-10}
rounds=${GPTC_BENCH_ROUNDS:-3}
skip=3
work=$(mktemp -d "${TMPDIR:-/tmp}/gptc-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

bash test/Training/Inputs/kjv-corpus.sh "$work/kjv.txt"
"$gptc" data "$work/kjv.txt" -o "$work/data" --prefix bench >/dev/null
shard=$(ls "$work"/data/bench_train_*.bin | head -n 1)

# config name -> "layers width heads head_dim seq batch"
declare -A configs=(
  [small]="4 256 4 64 256 4"
  [gpt2]="12 768 12 64 64 4"
  [t4096]="4 256 4 64 4096 1"
)
export OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads

# The tok/s of a gptc train log.
gptc_rate_of() { sed -n 's/^done:.* | \([0-9,]*\) tok\/s.*/\1/p' "$1" | tr -d ,; }

printf '%-6s %12s %12s %12s %8s %8s\n' config gptc no-fuse pytorch \
  vs-torch vs-nofuse
# The median of a list of numbers.
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : int((v[NR/2]+v[NR/2+1])/2)}'; }

for name in ${GPTC_BENCH_CONFIGS:-small gpt2 t4096}; do
  read -r L d H hd T B <<<"${configs[$name]}"
  for variant in fused unfused; do
    flag=""
    [ $variant = unfused ] && flag=--no-fuse
    "$gptc" compile models/speedrun-r08-untied.yaml -o "$work/$name.$variant" \
      $flag \
      --set model.n_layer="$L" --set model.d_model="$d" \
      --set model.n_head="$H" --set model.head_dim="$hd" \
      --set model.vocab_size=50304 --set model.attention.bos_token=256 \
      --set training.seq_len="$T" --set training.device_batch="$B" \
      --set training.batch="$B" --set training.ranks=1 \
      --set training.dtype=f32 --set training.timing_skip_steps=$skip \
      >/dev/null
  done
  # Rounds of (fused, unfused, pytorch), interleaved so that a slow spell of
  # the machine hits all three; each rate is the median over the rounds.
  fused_rates="" unfused_rates="" torch_rates=""
  for round in $(seq "$rounds"); do
    for variant in fused unfused; do
      "$gptc" train "$work/$name.$variant" --data "$shard" --steps "$steps" \
        --val-tokens 0 >"$work/$name.$variant.$round.log"
    done
    fused_rates+=" $(gptc_rate_of "$work/$name.fused.$round.log")"
    unfused_rates+=" $(gptc_rate_of "$work/$name.unfused.$round.log")"
    /usr/bin/python3 bench/pytorch_step.py --layers "$L" --width "$d" \
      --heads "$H" --head-dim "$hd" --seq "$T" --batch "$B" --vocab 50304 \
      --data "$shard" --steps "$steps" --skip $skip --threads "$threads" \
      >"$work/$name.torch.$round.log"
    torch_rates+=" $(sed -n 's/^pytorch: \([0-9]*\) tok\/s.*/\1/p' \
      "$work/$name.torch.$round.log")"
  done
  gptc_rate=$(echo "$fused_rates" | median)
  unfused_rate=$(echo "$unfused_rates" | median)
  torch_rate=$(echo "$torch_rates" | median)
  if [ -z "$gptc_rate" ] || [ -z "$unfused_rate" ] || [ -z "$torch_rate" ]; then
    echo "bench: $name: no rate found; logs:" >&2
    cat "$work/$name".*.log >&2
    exit 1
  fi
  ratio=$(awk -v a="$gptc_rate" -v b="$torch_rate" 'BEGIN{printf "%.2f", a/b}')
  fusion=$(awk -v a="$gptc_rate" -v b="$unfused_rate" 'BEGIN{printf "%.2f", a/b}')
  printf '%-6s %12s %12s %12s %7sx %7sx\n' "$name" "$gptc_rate" \
    "$unfused_rate" "$torch_rate" "$ratio" "$fusion"
  cpu=$(sed -n 's/^gptc train: cpu: //p' "$work/$name.fused.1.log")
done
# The GEMMs are most of a step: say which kernels gptc's ran on.
echo "gptc's GEMMs: ${cpu:-?}"
