#!/usr/bin/env bash
# Sets up (scripts/setup.sh: missing Debian packages, then a build of the
# gptc tool alone, its output kept in a log that is shown only when it
# fails) and runs the main job: makes byte-level token shards of the King
# James Bible (Debian's bible-kjv), compiles a CPU-sized spec into a
# training step and trains it, printing one line per step and a summary,
# with a checkpoint at the end (checkpoints/) and the losses drawn in
# loss.png (from run.jsonl).
# By default tiny-r08 trains 3000 steps (about a minute on 2 cores, 1.5M
# tokens): long enough for the sample to spell the Bible's common words.
#   GPTC_SPEC=models/tiny-r15.yaml bash scripts/main.sh   another spec, as written
#   GPTC_STEPS=500 bash scripts/main.sh                    fewer steps
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GPTC_BUILD_DIR:-build}
mkdir -p "$build"
setup_log="$build/setup.log"
echo "main: setting up (Debian packages, building gptc); log: $setup_log"
# The set-up runs in the background; every 30 s a line says where it is
# (ninja's [n/N] of the build), so a first run that builds for minutes
# does not look stuck.
GPTC_TARGETS=bin/gptc bash scripts/setup.sh > "$setup_log" 2>&1 &
setup_pid=$!
start=$SECONDS last=$SECONDS
while kill -0 "$setup_pid" 2>/dev/null; do
  sleep 1
  if (( SECONDS - last >= 30 )); then
    last=$SECONDS
    done_steps=$(grep -ao '^\[[0-9]*/[0-9]*\]' "$setup_log" | tail -n 1 || true)
    elapsed=$(printf '%d:%02d' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)))
    if [ -n "$done_steps" ]; then
      echo "main: building gptc, step ${done_steps//[\[\]]/} ($elapsed)"
    else
      echo "main: installing Debian packages, configuring ($elapsed)"
    fi
  fi
done
if ! wait "$setup_pid"; then
  tail -n 40 "$setup_log"
  echo "main: setup failed; the whole log is $setup_log" >&2
  exit 1
fi
echo "main: set up in $((SECONDS - start)) s"
spec=${GPTC_SPEC:-models/tiny-r08.yaml}
gptc="$build/bin/gptc"

# 1. Data: one document per chapter (the heading joined to its text).
if ! ls data/tiny_train_*.bin >/dev/null 2>&1; then
  mkdir -p data
  bible gen1:1-rev22:21 |
    awk 'BEGIN{RS="";ORS="\n\n"} length($0)<40{h=$0;next} {print h "\n" $0}' \
      > data/kjv.txt
  "$gptc" data data/kjv.txt -o data --prefix tiny
fi

# 2. Check the spec, compile it, train it. The default run: tiny-r08
# lengthened to 3000 steps, its decay the last 30% of them, validated every
# 500 (the schedule as a share of training.steps, so GPTC_STEPS rescales
# it); a spec of the user's trains as written (GPTC_STEPS: --steps).
overrides=() steps=()
if [ -z "${GPTC_SPEC:-}" ]; then
  overrides=(--set "training.steps=${GPTC_STEPS:-3000}"
    --set schedule.decay_steps=0 --set schedule.decay_fraction=0.3
    --set validation.every=500)
elif [ -n "${GPTC_STEPS:-}" ]; then
  steps=(--steps "$GPTC_STEPS")
fi
# Each run saves into a directory of its own: a second run keeps the
# first one's checkpoints.
run_dir=checkpoints/$(date +%Y%m%d-%H%M%S)
"$gptc" check "$spec" "${overrides[@]}"
"$gptc" train "$spec" "${overrides[@]}" --data 'data/tiny_train_*.bin' \
  --val 'data/tiny_val_*.bin' --checkpoint-dir "$run_dir" --log run.jsonl \
  "${steps[@]}"

# 3. The losses, drawn; and a sample of the trained model's text.
"$gptc" plot run.jsonl -o loss.png
echo "main: a sample from $run_dir (gptc sample):"
"$gptc" sample "$run_dir" --prompt "And God said" --tokens 200 \
  --temperature 0.8 --top-k 40
