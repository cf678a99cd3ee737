#!/usr/bin/env bash
# Peak memory of training with fused attention against --no-fuse, as the
# sequence grows: tiny-r15 (document mask + sliding window, byte-level KJV)
# at batch 1, two steps per run, peak RSS from `gptc train`'s summary.
#
#   bash bench/attention-memory.sh
#   GPTC_BENCH_FUSED_T="4096 16384" GPTC_BENCH_UNFUSED_T="1024 2048 4096" ...
#
# The fused step keeps no T x T tensor, so its memory grows with T; the
# unfused step materialises scores and probabilities per head, so its memory
# grows with T^2 (each doubling of T roughly quadruples the T^2 part). The
# target: fused at T = 16384 under 2 GiB (exit 1 when missed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null

build=${GPTC_BUILD_DIR:-build}
gptc="$(pwd)/$build/bin/gptc"
work=$(mktemp -d "${TMPDIR:-/tmp}/gptc-mem.XXXXXX")
trap 'rm -rf "$work"' EXIT
bash test/Training/Inputs/kjv-corpus.sh "$work/kjv.txt"
"$gptc" data "$work/kjv.txt" -o "$work/data" --prefix mem >/dev/null

limit_mib=2048
status=0
run() { # mode T
  local mode=$1 T=$2 flag=""
  [ "$mode" = unfused ] && flag=--no-fuse
  (cd "$work" && "$gptc" train "$OLDPWD/models/tiny-r15.yaml" $flag \
    --set training.seq_len="$T" --set training.device_batch=1 \
    --set training.batch=1 --data "$work/data/mem_train_*.bin" \
    --steps 2 --val-tokens 0 >"$work/$mode.$T.log" 2>&1) || {
    echo "bench: $mode T=$T failed:" >&2; tail -3 "$work/$mode.$T.log" >&2
    return 1; }
  local rss
  rss=$(sed -n 's/^done:.*peak RSS \([0-9.]*\) MiB.*/\1/p' "$work/$mode.$T.log")
  local rate
  rate=$(sed -n 's/^done:.* | \([0-9,]*\) tok\/s.*/\1/p' "$work/$mode.$T.log")
  printf '%-8s %7s %12s %10s\n' "$mode" "$T" "$rss" "$rate"
  if [ "$mode" = fused ] && [ "$T" = 16384 ] &&
     awk -v r="$rss" -v l="$limit_mib" 'BEGIN{exit !(r >= l)}'; then
    echo "bench: fused T=16384 peak RSS $rss MiB is over $limit_mib MiB" >&2
    status=1
  fi
}
printf '%-8s %7s %12s %10s\n' mode T "peak MiB" "tok/s"
for T in ${GPTC_BENCH_FUSED_T:-2048 4096 8192 16384}; do run fused "$T"; done
for T in ${GPTC_BENCH_UNFUSED_T:-2048 4096 8192}; do run unfused "$T"; done
exit $status
