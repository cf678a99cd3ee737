#!/usr/bin/env bash
# usage: interrupt.sh LOG COMMAND...
# Runs COMMAND (a gptc train) with its output in LOG, sends it SIGINT (or
# $SIGNAL) once it has printed its third step, and prints the log's last
# lines and the exit status.
log=$1
shift
"$@" > "$log" 2>&1 &
pid=$!
# Never left running: if this script dies (its reader gone), so does it.
trap 'kill -KILL $pid 2>/dev/null' EXIT
for _ in $(seq 600); do
  grep -q '^step [0-9]*/' "$log" && [ "$(grep -c '^step [0-9]*/' "$log")" -ge 3 ] && break
  sleep 0.1
done
kill -"${SIGNAL:-INT}" $pid
wait $pid
rc=$?
tail -n 3 "$log"
echo "exit $rc"
