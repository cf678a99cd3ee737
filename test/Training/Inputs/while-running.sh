#!/usr/bin/env bash
# usage: while-running.sh DIR A-COMMAND... -- B-COMMAND...
# Starts A (a long gptc train) with its output in DIR/a.log, runs B once A
# has printed its third step (output in DIR/b.log), then stops A with
# SIGINT. Prints B's output and exit status, then A's last lines and exit
# status.
dir=$1
shift
a=()
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
  a+=("$1")
  shift
done
shift
"${a[@]}" > "$dir/a.log" 2>&1 &
pid=$!
# Never left running: if this script dies (its reader gone), so does it.
trap 'kill -KILL $pid 2>/dev/null' EXIT
for _ in $(seq 600); do
  [ "$(grep -c '^step [0-9]*/' "$dir/a.log")" -ge 3 ] && break
  sleep 0.1
done
"$@" > "$dir/b.log" 2>&1
rc=$?
echo "B:"
cat "$dir/b.log"
echo "B exit $rc"
kill -INT $pid
wait $pid
rc=$?
echo "A:"
tail -n 3 "$dir/a.log"
echo "A exit $rc"
