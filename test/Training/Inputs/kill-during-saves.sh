#!/usr/bin/env bash
# usage: kill-during-saves.sh BUNDLE OUT TRAIN_GLOB
# A run of 120 steps saving a checkpoint after every step (--keep 3) is
# killed with SIGKILL at many moments (a third of its time is spent in
# saves) and resumed from its newest checkpoint each time, until it ends.
# After every kill, each checkpoint left must hold the same bytes as the
# same step of a run never killed (so none loads and is wrong) and the
# newest must load; the last run's step_120 must equal the unkilled one's.
set -uo pipefail
bundle=$1 out=$2 train=$3
rm -rf "$out" && mkdir -p "$out"
run=(gptc train "$bundle" --data "$train" --val-tokens 0 --steps 120
     --save-every 1)
"${run[@]}" --checkpoint-dir "$out/ref" > "$out/ref.log" || exit 1
run+=(--keep 3)
kills=0 partial=0 resumes=0
same() {
  cmp -s "$1/model.safetensors" "$2/model.safetensors" &&
    cmp -s "$1/optimizer.safetensors" "$2/optimizer.safetensors"
}
for delay in 0.30 0.35 0.40 0.45 0.50 0.55 0.60 0.65 0.70 0.75 0.80 0.85 \
             0.90 0.95 1.00 1.05 1.10 1.15 1.20; do
  resume=()
  ls "$out/ckpt"/step_*/checkpoint.json > /dev/null 2>&1 && resume=(--resume "$out/ckpt")
  # (in a subshell with its stderr, so bash's "Killed" note stays quiet)
  ( timeout -s KILL "$delay" "${run[@]}" --checkpoint-dir "$out/ckpt" \
      "${resume[@]}" > "$out/killed.log" 2>&1 ) 2>/dev/null
  rc=$?
  [ ${#resume[@]} -gt 0 ] && resumes=$((resumes + 1))
  [ $rc -eq 137 ] && kills=$((kills + 1))
  ls -d "$out/ckpt"/step_*.partial-* > /dev/null 2>&1 && partial=$((partial + 1))
  for d in "$out/ckpt"/step_*; do
    case $d in *.partial-*) continue ;; esac
    [ -f "$d/checkpoint.json" ] || { echo "FAIL: $d has no checkpoint.json"; exit 1; }
    step=${d##*/step_}
    same "$d" "$out/ref/step_$step" ||
      { echo "FAIL: after a kill at ${delay}s, $d differs from the unkilled run's"; exit 1; }
  done
  [ $rc -eq 0 ] && break
done
# Finish from the newest checkpoint (the loop may have ended it already).
if ! [ -d "$out/ckpt/step_120" ]; then
  "${run[@]}" --checkpoint-dir "$out/ckpt" --resume "$out/ckpt" \
    > "$out/last.log" || { echo "FAIL: the newest checkpoint does not load"; exit 1; }
fi
same "$out/ckpt/step_120" "$out/ref/step_120" ||
  { echo "FAIL: step_120 after kills and resumes differs"; exit 1; }
echo "killed $kills times ($partial inside a save), resumed $resumes times"
echo "every checkpoint left matched the unkilled run; step_120: same bytes"
