#!/usr/bin/env bash
# usage: split-run.sh BUNDLE OUT TRAIN_GLOB VAL_GLOB
# Trains BUNDLE 8 steps in one run (OUT/whole) and as its first 5 steps
# (--stop-after 5: the schedules span the 8) plus a run
# resumed from the step-5 checkpoint (OUT/split); prints both runs' lines
# (prefixed), then whether the losses of steps 1-8 and the two step_8
# checkpoints' files are the same.
set -euo pipefail
bundle=$1 out=$2 train=$3 val=$4
rm -rf "$out" && mkdir -p "$out"
common=(--data "$train" --val "$val" --val-tokens 4096 --val-every 3)
gptc train "$bundle" "${common[@]}" --steps 8 --checkpoint-dir "$out/whole" \
  > "$out/whole.log"
gptc train "$bundle" "${common[@]}" --steps 8 --stop-after 5 --save-every 5 \
  --checkpoint-dir "$out/split" > "$out/first.log"
gptc train "$bundle" "${common[@]}" --steps 8 --resume "$out/split" \
  --checkpoint-dir "$out/split" > "$out/resumed.log"
sed 's/^/whole: /' "$out/whole.log"
sed 's/^/first: /' "$out/first.log"
sed 's/^/resumed: /' "$out/resumed.log"
losses() { grep -o '^step [0-9]*/[0-9]* | loss [0-9.]*' "$@" | sed 's|/[0-9]*||'; }
if [ "$(losses "$out/whole.log")" = "$(cat <(losses "$out/first.log") <(losses "$out/resumed.log"))" ] \
   && [ "$(losses "$out/whole.log" | wc -l)" = 8 ]; then
  echo "losses of steps 1-8: same"
else
  echo "losses of steps 1-8: DIFFER"
fi
for f in model.safetensors optimizer.safetensors; do
  if cmp -s "$out/whole/step_8/$f" "$out/split/step_8/$f"; then
    echo "$f: same bytes"
  else
    echo "$f: DIFFER"
  fi
done
