#!/usr/bin/env bash
# usage: concurrent-train.sh DIR GPTC SPEC DATA_GLOB
# Starts two `gptc train SPEC` of the same spec at once in DIR (a fresh
# directory: both must compile or reuse the same bundle) and prints each
# one's exit status and whether it compiled, waited or reused.
set -u
dir=$1 gptc=$2 spec=$3 data=$4
cd "$dir" || exit 1
for i in 1 2; do
  "$gptc" train "$spec" --data "$data" --val-tokens 0 --steps 2 \
    > "run$i.log" 2>&1 &
  pids[$i]=$!
done
for i in 1 2; do
  wait "${pids[$i]}"
  echo "run $i: exit $? $(grep -c '^step 2/2' "run$i.log") finished"
done
cat run1.log run2.log | grep -c 'gptc train: compiling' | sed 's/^/compiles: /'
cat run1.log run2.log | grep -c 'gptc train: reusing' | sed 's/^/reuses: /'
ls | grep -c 'partial' | sed 's/^/staging left: /'
