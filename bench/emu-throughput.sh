#!/usr/bin/env bash
# Throughput of gptc's emulated CUDA device: thread-instructions per second
# of an attention-like kernel, an RMSNorm and an elementwise kernel
# (bench/emu-kernels.cu, compiled by nvcc -ptx) on one host thread.
#
#   bash bench/emu-throughput.sh
#   GPTC_EMU_THREADS=2 bash bench/emu-throughput.sh   # a pool of 2
#
# The target: at least 100 M thread-instructions/s on one core.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${GPTC_BUILD_DIR:-build}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
nice ninja -C "$build" -j2 gptc-emu-bench >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/gptc-emu-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$nvcc" -ptx -arch=sm_90 bench/emu-kernels.cu -o "$work/kernels.ptx"
GPTC_EMU_THREADS=${GPTC_EMU_THREADS:-1} "$build/bin/gptc-emu-bench" \
  "$work/kernels.ptx"
