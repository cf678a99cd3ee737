#!/usr/bin/env bash
# usage: resume-matches.sh NAME CKPT_DIR OUT_DIR COMMAND...
# COMMAND (a gptc train without --steps) resumed from CKPT_DIR's newest
# step_S to S + 2 steps, and run unbroken to S + 2 steps, both within the
# checkpoint's run (its run_steps: the schedules span it; --stop-after):
# prints one line saying whether the two end with the same parameters.
name=$1 ckpt=$2 dir=$3
shift 3
s=$(ls "$ckpt" 2>/dev/null | sed -n 's/^step_\([0-9]*\)$/\1/p' | sort -n | tail -1)
[ -n "$s" ] || { echo "$name: no checkpoint"; exit 0; }
n=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["run_steps"])' \
  "$ckpt/step_$s/checkpoint.json")
"$@" --steps "$n" --stop-after $((s + 2)) --resume "$ckpt" \
  --save-params "$dir/$name-resumed.bin" > "$dir/$name-resumed.log" 2>&1 || {
  echo "$name: resume failed"; cat "$dir/$name-resumed.log"; exit 0; }
"$@" --steps "$n" --stop-after $((s + 2)) \
  --save-params "$dir/$name-whole.bin" \
  > "$dir/$name-whole.log" 2>&1 || {
  echo "$name: unbroken run failed"; cat "$dir/$name-whole.log"; exit 0; }
if cmp -s "$dir/$name-resumed.bin" "$dir/$name-whole.bin"; then
  echo "$name: checkpoint at step $s, resumed: same parameters"
else
  echo "$name: checkpoint at step $s, resumed: DIFFERENT parameters"
fi
