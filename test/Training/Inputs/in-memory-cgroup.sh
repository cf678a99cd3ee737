#!/usr/bin/env bash
# usage: in-memory-cgroup.sh --probe
#        in-memory-cgroup.sh LIMIT_BYTES COMMAND...
# Runs COMMAND in a new memory cgroup of LIMIT_BYTES under this process's
# own (cgroup v2's memory.max, or v1's memory.limit_in_bytes), and removes
# the cgroup after. --probe exits 0 when one can be made here (root, a
# writable hierarchy with the memory controller), 1 otherwise.
set -u
mine=$(grep -E '^[0-9]+:([^:]*,)?memory(,[^:]*)?:' /proc/self/cgroup | head -n 1 | cut -d: -f3)
if [ -n "$mine" ] && [ -d /sys/fs/cgroup/memory ]; then
  base=/sys/fs/cgroup/memory
  [ -d "$base$mine" ] || mine=
  limit_file=memory.limit_in_bytes
else
  mine=$(grep '^0::' /proc/self/cgroup | cut -d: -f3)
  base=/sys/fs/cgroup
  [ -d "$base$mine" ] || mine=
  limit_file=memory.max
fi
dir="$base$mine/gptc-test-$$"
if ! mkdir "$dir" 2>/dev/null; then
  [ "${1:-}" = --probe ] && exit 1
  echo "in-memory-cgroup.sh: cannot make a cgroup under $base$mine" >&2
  exit 1
fi
trap 'rmdir "$dir" 2>/dev/null' EXIT
if [ ! -w "$dir/$limit_file" ]; then
  [ "${1:-}" = --probe ] && exit 1
  echo "in-memory-cgroup.sh: no memory controller in $dir" >&2
  exit 1
fi
if [ "$1" = --probe ]; then
  echo $((64 << 20)) > "$dir/$limit_file" && sh -c "echo \$\$ > '$dir/cgroup.procs'"
  exit $?
fi
limit=$1
shift
echo "$limit" > "$dir/$limit_file" || exit 1
bash -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$dir" "$@"
