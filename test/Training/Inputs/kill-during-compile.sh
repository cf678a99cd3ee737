#!/usr/bin/env bash
# Kills `gptc compile ARGS... -o OUT` part-way, at 30% and at 75% of the time a
# whole compile of the same spec takes here (measured first, into a scratch
# directory), and fails if a compile was not killed. A compile that
# finishes before its kill (the machine got less busy than during the
# measurement) is tried again with half the time, up to 5 times.
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
  killed=0
  for attempt in 1 2 3 4 5; do
    timeout -s KILL "$after" "$@" -o "$out" > /dev/null 2>&1
    status=$?
    if [ $status -eq 137 ]; then
      killed=1
      break
    fi
    [ $status -eq 0 ] || { echo "kill-during-compile: the compile failed ($status)" >&2; exit 1; }
    after=$(awk -v a="$after" 'BEGIN { printf "%.2f", a / 2 }')
  done
  if [ $killed -ne 1 ]; then
    echo "kill-during-compile: the compile was not killed, down to ${after}s" >&2
    exit 1
  fi
done
echo "killed two compiles of $out part-way"
