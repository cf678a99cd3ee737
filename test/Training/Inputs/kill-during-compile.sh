#!/usr/bin/env bash
# Kills `gptc compile ARGS... -o OUT` part-way, at 30% and at 75% of the time a
# whole compile of the same spec takes here (measured first, into a scratch
# directory), and fails if a compile was not killed.
#   kill-during-compile.sh OUT GPTC ARGS...
set -u
out=$1
shift
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
start=$(date +%s.%N)
"$@" -o "$scratch/whole" > /dev/null || exit 1
end=$(date +%s.%N)
for fraction in 0.30 0.75; do
  after=$(awk -v s="$start" -v e="$end" -v f="$fraction" 'BEGIN { printf "%.2f", (e - s) * f }')
  timeout -s KILL "$after" "$@" -o "$out" > /dev/null 2>&1
  if [ $? -ne 137 ]; then
    echo "kill-during-compile: the compile was not killed after ${after}s" >&2
    exit 1
  fi
done
echo "killed two compiles of $out part-way"
