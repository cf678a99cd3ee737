#!/usr/bin/env bash
# usage: shrink-shard.sh LOG SHARD COMMAND...
# Runs COMMAND (a gptc train reading SHARD) with its output in LOG,
# truncates SHARD to its header and one step's tokens once the run has
# printed its third step, and prints the log's last line and the exit
# status.
log=$1 shard=$2
shift 2
"$@" > "$log" 2>&1 &
pid=$!
for _ in $(seq 600); do
  [ "$(grep -c '^step [0-9]*/' "$log")" -ge 3 ] && break
  sleep 0.1
done
truncate -s 2048 "$shard"
wait $pid
rc=$?
tail -n 1 "$log"
echo "exit $rc"
