#!/usr/bin/env bash
# usage: kill-launcher.sh MARK LOG COMMAND...
# Runs COMMAND (gptc train --ranks N ..., MARK a word of its command line
# that nothing else has) with its output in LOG, SIGKILLs the launcher once
# a step is printed, and says whether mpirun and the ranks (every process
# whose command line holds MARK) were gone within 20 s. Leftovers are
# killed after.
mark=$1 log=$2
shift 2
# The job's processes: gptc, mpirun and its daemons with MARK in their
# command line (not this script, nor a shell that runs it).
job() {
  for p in $(pgrep -f -- "$mark"); do
    case "$(cat /proc/$p/comm 2>/dev/null)" in
      gptc|mpirun|orterun|orted|prte|prterun) echo "$p" ;;
    esac
  done
}
"$@" > "$log" 2>&1 &
pid=$!
# Never left running: if this script dies (its reader gone), so does it.
trap 'kill -KILL $pid 2>/dev/null' EXIT
for _ in $(seq 600); do
  [ "$(grep -c '^step [0-9]*/' "$log")" -ge 3 ] && break
  sleep 0.1
done
kill -KILL $pid
wait $pid 2>/dev/null
for i in $(seq 200); do
  if [ -z "$(job)" ]; then
    echo "job ended after the launcher was killed"
    exit 0
  fi
  sleep 0.1
done
echo "still running 20 s after the launcher was killed:"
for p in $(job); do
  echo "$p $(cat /proc/$p/comm 2>/dev/null)"
  kill -KILL "$p"
done
exit 1
