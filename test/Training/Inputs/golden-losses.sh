#!/usr/bin/env bash
# Trains every tiny spec for the first 6 of its 200 steps (--stop-after 6:
# the schedules span the 200) on the King James Bible and prints, per
# spec, its step and validation lines (loss and lr, without timings) and the
# SHA-256 of the trained parameters (--save-params). The bits must not
# depend on which x86-64 CPU runs the test: the steps are compiled for
# x86-64-v3 (AVX2 + FMA; `native` would vectorise the reassociated
# reductions at the machine's own width) and the GEMMs run on OpenBLAS's
# Haswell kernels (gptc's AVX-512 and AMX kernels off).
#   golden-losses.sh OUT_DIR MODELS_DIR
set -euo pipefail
out=$1 models=$2
export GPTC_GEMM_AVX512=0 GPTC_GEMM_AMX=0 OPENBLAS_CORETYPE=Haswell
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
here=$(dirname "$0")
bash "$here/kjv-corpus.sh" "$out/kjv.txt"
gptc data "$out/kjv.txt" -o "$out/data" --prefix tiny > /dev/null
for spec in tiny-r03 tiny-r04 tiny-r08 tiny-r15 tiny-r21; do
  gptc compile "$models/$spec.yaml" --cpu=x86-64-v3 -o "$out/$spec" > /dev/null
  gptc train "$out/$spec" --data "$out/data/tiny_train_*.bin" \
    --val "$out/data/tiny_val_*.bin" --stop-after 6 --val-every 3 \
    --val-tokens 16384 --save-params "$out/$spec.params" |
    grep -E '^(val )?step' | sed -e 's/ | [0-9,]* tok\/s.*//' -e "s/^/$spec: /"
  echo "$spec: params sha256 $(sha256sum < "$out/$spec.params" | cut -c1-64)"
done
