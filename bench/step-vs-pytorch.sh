#!/usr/bin/env bash
# Training-step throughput on the CPU: gptc's compiled step against PyTorch
# running the same architecture and optimizer (bench/pytorch_step.py: R8 —
# untied zero-init head, embed norm, QK-norm, rotary, ReLU^2, Muon with 5 bf16
# Newton-Schulz steps on the hidden matrices, Adam on wte and lm_head), eager
# and under torch.compile (Inductor), in the same run, on the same token
# shard, with the same number of threads (2 unless GPTC_BENCH_THREADS).
#
#   bash bench/step-vs-pytorch.sh             every config
#   GPTC_BENCH_CONFIGS=small bash bench/...   some of: small t1024 gpt2 t4096
#   GPTC_BENCH_STEPS=12 ...                   steps per run (first 3 untimed)
#   GPTC_BENCH_ROUNDS=5 ...                   rounds per config (default 3)
#   GPTC_BENCH_DTYPE=bf16 ...                 the model's dtype on both
#                                             sides: f32 (default), or bf16
#                                             as the specs say (gptc's
#                                             training.dtype=bf16; PyTorch
#                                             under CPU bf16 autocast)
#   GPTC_BENCH_TORCH_NS=f32 ...               PyTorch's Newton-Schulz dtype:
#                                             bf16, f32, or auto (default):
#                                             bf16 where the CPU has
#                                             AVX512_BF16 or AMX-BF16, else
#                                             f32, since PyTorch's bf16
#                                             matmul runs at ~1 GFLOP/s on
#                                             such CPUs (gptc's bf16 GEMMs
#                                             compute in f32 on bf16-rounded
#                                             inputs there: the same FLOPs)
#
# PyTorch 2.x comes from PyPI, into a virtual environment this script makes
# (build/bench-venv, or GPTC_BENCH_VENV); the PyPI wheel runs on a machine
# without a GPU. pytorch_step.py --compile fails rather than fall back to
# eager and says how many graphs Inductor compiled.
#
# Configs (f32 parameters; f32 activations unless GPTC_BENCH_DTYPE=bf16;
# vocab 50304, one rank, no gradient accumulation):
#   small: L=4,  d=256, 4 heads of 64,  T=256,  B=4
#   t1024: L=4,  d=256, 4 heads of 64,  T=1024, B=2
#   gpt2:  L=12, d=768, 12 heads of 64, T=64,   B=4   (GPT-2 small)
#   t4096: L=4,  d=256, 4 heads of 64,  T=4096, B=1  (the small model, long)
# Prints per config: tok/s of gptc fused and --no-fuse, PyTorch eager and
# torch.compile (each the median of the interleaved rounds), the ratios
# gptc / torch.compile and fused / unfused, gptc's GFLOP/s, and its share
# of the machine's peaks measured here (bench/fma-peak.c: f32 FMA, and
# VDPBF16PS where the CPU has AVX512_BF16): the step's time with its
# FLOPs at the peak of the dtype they run in (attention f32; the weights'
# GEMMs in the model's dtype; Newton-Schulz bf16), over its measured time.
set -euo pipefail
cd "$(dirname "$0")/.."
dtype=${GPTC_BENCH_DTYPE:-f32}
case $dtype in
f32 | bf16) ;;
*)
  echo "bench: GPTC_BENCH_DTYPE: '$dtype' is not f32 or bf16" >&2
  exit 1
  ;;
esac
bash scripts/setup.sh >/dev/null

build=${GPTC_BUILD_DIR:-build}
gptc="$build/bin/gptc"
threads=${GPTC_BENCH_THREADS:-2}
steps=${GPTC_BENCH_STEPS:-10}
rounds=${GPTC_BENCH_ROUNDS:-3}
skip=3
venv=${GPTC_BENCH_VENV:-$build/bench-venv}
if ! "$venv/bin/python" -c 'import torch, numpy; torch.compile' 2>/dev/null; then
  echo "bench: installing PyTorch 2.x from PyPI into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip setuptools
  "$venv/bin/pip" install -q torch numpy
fi
python="$venv/bin/python"
work=$(mktemp -d "${TMPDIR:-/tmp}/gptc-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

bash test/Training/Inputs/kjv-corpus.sh "$work/kjv.txt"
"$gptc" data "$work/kjv.txt" -o "$work/data" --prefix bench >/dev/null
shard=$(ls "$work"/data/bench_train_*.bin | head -n 1)
cc -O2 -march=native -fopenmp bench/fma-peak.c -o "$work/fma-peak"
peaks=$("$work/fma-peak" "$threads")
peak=$(echo "$peaks" | sed -n 's/^fma peak: \([0-9.]*\) .*/\1/p')
# VDPBF16PS's peak where the CPU has AVX512_BF16 (gptc's bf16 GEMMs, and so
# Newton-Schulz, run on it there), else bf16 GEMMs run at the f32 peak.
bf16_peak=$(echo "$peaks" | sed -n 's/^bf16 dot peak: \([0-9.]*\) .*/\1/p')
echo "machine: f32 FMA peak ${peak} GFLOP/s${bf16_peak:+, bf16 dot peak $bf16_peak GFLOP/s} on $threads threads (bench/fma-peak.c)"
bf16_peak=${bf16_peak:-$peak}
gemm_peak=$peak
if [ "$dtype" = bf16 ]; then gemm_peak=$bf16_peak; fi
echo "model dtype: $dtype (gptc training.dtype=$dtype; PyTorch ${dtype/bf16/bf16 autocast})"
torch_ns=${GPTC_BENCH_TORCH_NS:-auto}
if [ "$torch_ns" = auto ]; then
  torch_ns=f32
  grep -qwE 'avx512_bf16|amx_bf16' /proc/cpuinfo && torch_ns=bf16
fi
case $torch_ns in
bf16) ;;
f32) echo "PyTorch: Newton-Schulz in f32 (this CPU has no AVX512_BF16 or AMX-BF16; PyTorch's bf16 matmul is ~1 GFLOP/s on it)" ;;
*)
  echo "bench: GPTC_BENCH_TORCH_NS: '$torch_ns' is not bf16, f32 or auto" >&2
  exit 1
  ;;
esac

# config name -> "layers width heads head_dim seq batch"
declare -A configs=(
  [small]="4 256 4 64 256 4"
  [t1024]="4 256 4 64 1024 2"
  [gpt2]="12 768 12 64 64 4"
  [t4096]="4 256 4 64 4096 1"
)
vocab=50304
export OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads

# Rates in tok/s to one decimal, from the mean seconds a step that both
# print (gptc: 3 significant digits; PyTorch: milliseconds): the printed
# tok/s are whole numbers, too coarse at gpt2's ~15 tok/s for a ratio.
#   rate_of LOG PREFIX TOKENS_PER_STEP
rate_of() {
  sed -n "s/^$2.*[ (]\([0-9.]*\) s\/step.*/\1/p" "$1" |
    awk -v t="$3" '{printf "%.1f", t / $1}'
}
gptc_rate_of() { rate_of "$1" "done:" "$2"; }
# The median of a list of numbers.
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END {if (NR) printf "%.1f", (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
# FLOPs of one training step that gptc executes, in GFLOP per token, as
# "gemms attention newton-schulz": the weights' GEMMs of forward and
# backward (6 per weight), in the model's dtype; causal attention (half of
# QK^T and PV, forward and backward), whose kernels compute in f32;
# Muon's Newton-Schulz (5 steps of X X^T on one triangle, A X and A B, on
# every hidden matrix, in bf16) spread over the step's tokens.
gflop_per_token() {
  awk -v L="$1" -v d="$2" -v H="$3" -v hd="$4" -v T="$5" -v B="$6" -v V="$vocab" 'BEGIN {
    inner = H * hd
    weights = L * (4 * d * inner + 8 * d * d) + d * V
    gemms = 6 * weights
    attention = L * 6 * T * inner
    ns = 0
    # Per layer: q, k, v (inner x d), proj (d x inner), fc (4d x d), proj (d x 4d).
    r[1] = inner; c[1] = d; r[2] = inner; c[2] = d; r[3] = inner; c[3] = d
    r[4] = d; c[4] = inner; r[5] = 4 * d; c[5] = d; r[6] = d; c[6] = 4 * d
    for (i = 1; i <= 6; i++) {
      s = r[i] < c[i] ? r[i] : c[i]; l = r[i] < c[i] ? c[i] : r[i]
      ns += 5 * (s * s * l + 2 * s * s * l + 2 * s * s * l)
    }
    printf "%.6f %.6f %.6f", gemms / 1e9, attention / 1e9, L * ns / (B * T) / 1e9
  }'
}

printf '%-6s %10s %10s %10s %10s %9s %9s %9s %9s\n' config gptc no-fuse eager \
  compile vs-comp vs-nofuse GFLOP/s of-peak
for name in ${GPTC_BENCH_CONFIGS:-small t1024 gpt2 t4096}; do
  read -r L d H hd T B <<<"${configs[$name]}"
  for variant in fused unfused; do
    flag=""
    [ $variant = unfused ] && flag=--no-fuse
    "$gptc" compile models/speedrun-r08-untied.yaml -o "$work/$name.$variant" \
      $flag \
      --set model.n_layer="$L" --set model.d_model="$d" \
      --set model.n_head="$H" --set model.head_dim="$hd" \
      --set model.vocab_size=$vocab --set model.attention.bos_token=256 \
      --set training.seq_len="$T" --set training.device_batch="$B" \
      --set training.batch="$B" --set training.ranks=1 \
      --set training.dtype="$dtype" --set training.timing_skip_steps=$skip \
      >/dev/null
  done
  # Rounds of (fused, unfused, eager, compiled), interleaved so that a slow
  # spell of the machine hits all four; each rate is the median over rounds.
  fused_rates="" unfused_rates="" eager_rates="" compile_rates=""
  for round in $(seq "$rounds"); do
    for variant in fused unfused; do
      "$gptc" train "$work/$name.$variant" --data "$shard" --steps "$steps" \
        --val-tokens 0 >"$work/$name.$variant.$round.log"
    done
    fused_rates+=" $(gptc_rate_of "$work/$name.fused.$round.log" $((B * T)))"
    unfused_rates+=" $(gptc_rate_of "$work/$name.unfused.$round.log" $((B * T)))"
    for mode in eager compile; do
      flag=""
      [ $mode = compile ] && flag=--compile
      "$python" bench/pytorch_step.py --layers "$L" --width "$d" \
        --heads "$H" --head-dim "$hd" --seq "$T" --batch "$B" --vocab $vocab \
        --data "$shard" --steps "$steps" --skip $skip --threads "$threads" \
        --ns-dtype "$torch_ns" --dtype "$dtype" $flag >"$work/$name.$mode.$round.log"
    done
    eager_rates+=" $(rate_of "$work/$name.eager.$round.log" "pytorch:" \
      $((B * T)))"
    compile_rates+=" $(rate_of "$work/$name.compile.$round.log" \
      "pytorch-compile:" $((B * T)))"
  done
  gptc_rate=$(echo "$fused_rates" | median)
  unfused_rate=$(echo "$unfused_rates" | median)
  eager_rate=$(echo "$eager_rates" | median)
  compile_rate=$(echo "$compile_rates" | median)
  if [ -z "$gptc_rate" ] || [ -z "$unfused_rate" ] || [ -z "$eager_rate" ] ||
    [ -z "$compile_rate" ]; then
    echo "bench: $name: no rate found; logs:" >&2
    cat "$work/$name".*.log >&2
    exit 1
  fi
  ratio=$(awk -v a="$gptc_rate" -v b="$compile_rate" 'BEGIN{printf "%.2f", a/b}')
  fusion=$(awk -v a="$gptc_rate" -v b="$unfused_rate" 'BEGIN{printf "%.2f", a/b}')
  read -r gemm_g attention_g ns_g <<<"$(gflop_per_token "$L" "$d" "$H" "$hd" "$T" "$B")"
  gflops=$(awk -v r="$gptc_rate" -v g="$gemm_g" -v a="$attention_g" \
    -v n="$ns_g" 'BEGIN{printf "%.1f", r * (g + a + n)}')
  # The share of the peaks: the time a step would take with each part's
  # FLOPs at the peak of its dtype, over its measured time.
  of_peak=$(awk -v r="$gptc_rate" -v g="$gemm_g" -v a="$attention_g" \
    -v n="$ns_g" -v gp="$gemm_peak" -v p="$peak" -v q="$bf16_peak" \
    'BEGIN{printf "%.0f%%", 100 * r * (g / gp + a / p + n / q)}')
  printf '%-6s %10s %10s %10s %10s %8sx %8sx %9s %9s\n' "$name" "$gptc_rate" \
    "$unfused_rate" "$eager_rate" "$compile_rate" "$ratio" "$fusion" "$gflops" \
    "$of_peak"
  sed -n 's/^inductor: /  torch.compile: /p' "$work/$name.compile.1.log"
  cpu=$(sed -n 's/^gptc train: cpu: //p' "$work/$name.fused.1.log")
done
# The GEMMs are most of a step: say which kernels gptc's ran on.
echo "gptc's GEMMs: ${cpu:-?}"
echo "GFLOP/s: gptc's step FLOPs (GEMMs, causal attention, Newton-Schulz) x tok/s; of-peak: the step's time at the peaks above (the weights' GEMMs at the $dtype peak, attention at the f32 FMA peak, Newton-Schulz at the bf16 dot peak where there is one) over its measured time"
