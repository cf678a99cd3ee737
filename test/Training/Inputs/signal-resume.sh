#!/usr/bin/env bash
# usage: signal-resume.sh GPTC BUNDLE DATA_GLOB DIR
# The signals that end a session without a person at the keyboard save a
# checkpoint that resumes bit for bit:
#   SIGHUP  (the terminal closed): sent after the third step;
#   SIGPIPE (the output's reader gone): `gptc train | head -n 3`.
# For each, resumes from the checkpoint to S + 2 steps and compares the
# parameters with an unbroken run of S + 2 steps. Prints one line each.
set -u
gptc=$1 bundle=$2 data=$3 dir=$4
here=$(dirname "$0")
mkdir -p "$dir"
check() { # NAME CKPT_DIR EXIT
  echo "$1: exit $3, $(bash "$here/resume-matches.sh" "$1" "$2" "$dir" \
    "$gptc" train "$bundle" --data "$data" --val-tokens 0 | sed "s/^$1: //")"
}
SIGNAL=HUP bash "$here/interrupt.sh" "$dir/hup.log" "$gptc" train "$bundle" \
  --data "$data" --val-tokens 0 --steps 100000 --checkpoint-dir "$dir/hup" \
  > "$dir/hup.out"
check SIGHUP "$dir/hup" "$(sed -n 's/^exit //p' "$dir/hup.out")"
"$gptc" train "$bundle" --data "$data" --val-tokens 0 --steps 100000 \
  --checkpoint-dir "$dir/pipe" 2> "$dir/pipe.err" | head -n 3 > /dev/null
check SIGPIPE "$dir/pipe" "${PIPESTATUS[0]}"
# A crash of the runtime (here a SIGSEGV from outside) is not the
# compiler's: no LLVM stack trace or bug-report banner.
SIGNAL=SEGV bash "$here/interrupt.sh" "$dir/segv.log" "$gptc" train "$bundle" \
  --data "$data" --val-tokens 0 --steps 100000 > "$dir/segv.out"
if grep -q "PLEASE submit a bug report\|Stack dump" "$dir/segv.log"; then
  echo "SIGSEGV: $(sed -n 's/^exit //p' "$dir/segv.out"), LLVM's crash banner"
else
  echo "SIGSEGV: exit $(sed -n 's/^exit //p' "$dir/segv.out"), no crash banner"
fi
