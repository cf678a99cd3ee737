#!/usr/bin/env bash
# Every kernel of every tiny spec on the emulated CUDA device against the
# same kernel on the CPU backend (gptc-emu-check; test/Emu/check-tiny-*.test
# do tiny-r03 and tiny-r08 in the lit suite). Prints, per spec, the kernels
# compared, any kernel that cannot run as emitted or mismatched, and the
# compile and check times.
#
#   bash bench/emu-check.sh [SPEC...]     (default: models/tiny-*.yaml)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${GPTC_BIN:-$root/build/bin}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=("$root"/models/tiny-*.yaml)
status=0
for spec in "${specs[@]}"; do
  name=$(basename "$spec" .yaml)
  t0=$(date +%s)
  "$bin/gptc" compile "$spec" --kernel-marks -o "$out/$name-cpu" > /dev/null
  "$bin/gptc" compile "$spec" --kernel-marks --target=cuda \
    -o "$out/$name-cuda" > /dev/null
  t1=$(date +%s)
  "$bin/gptc-emu-check" "$out/$name-cpu" "$out/$name-cuda" 2>&1 |
    grep -v '^gptc-emu: ' || status=1
  t2=$(date +%s)
  echo "$name: compile $((t1 - t0)) s, check $((t2 - t1)) s"
done
exit $status
