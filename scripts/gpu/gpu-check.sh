#!/usr/bin/env bash
# gpu-check.sh OUT: checks gptc's CUDA step on this machine's GPU with what
# scripts/gpu-pack.sh packed beside this script, in parts, each under its
# own timeout, all within 8 minutes on an H100 (a part that would start past
# GPTC_CHECK_BUDGET seconds, default 450, is skipped, saying so). After
# every part OUT/report.json and OUT/report.md are written again: a later
# failure or timeout loses nothing before it. The parts:
#   libraries    libcuda.so.1, libcublasLt.so.13, libnccl.so.2: where each
#                was found (LD_LIBRARY_PATH, the loader's cache, or the PyPI
#                nvidia-* packages' folders), added to LD_LIBRARY_PATH
#   device       nvidia-smi's name, driver, clocks and memory
#   train NAME   each tiny bundle trained for the packed steps; its losses
#                against the CPU backend's (reference/NAME.log) within the
#                emulated tests' tolerances (f32 1e-4, bf16 1e-3); a second
#                run the same bits
#   r15 step     speedrun-r15-unet-ve on one rank at the record's per-rank
#                batch: the median step over 20 steps after 10 of warm-up,
#                host wall clock between step ends, and the device's time
#                of a step's graph replays (CUDA events around each,
#                GPTC_CUDA_GRAPH_TIMES)
#   pytorch r15  the same model in PyTorch on the same GPU (torch_r15.py,
#                the tests' oracle, with the record's FlexAttention block
#                mask, torch.compile): its median step timed with CUDA
#                events, and gptc's step over it
#   memcheck, racecheck  compute-sanitizer on one step of tiny-r08 f32
#   r15 kernels  ncu's duration of each kernel of one step (kernel by
#                kernel, GPTC_CUDA_GRAPHS=0), the longest beside --stats'
#                estimate of the same kernel (reference/r15-stats.txt)
# Parts that need what this machine lacks (no GPU, no compute-sanitizer,
# no ncu, no R15 bundle) are reported as skipped, with why.
#   bash gpu-check.sh OUT
#   GPTC_CHECK_TINY_TIMEOUT=S  seconds per tiny training (default 60)
#   GPTC_CHECK_BUNDLES="A B"   only these tiny bundles (default: all)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: bash gpu-check.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Trainings run in OUT (a stopped run may save a checkpoint where it runs);
# a part's timeout sends SIGTERM (gptc-run finishes its step and stops),
# then SIGKILL 10 s later.
cd "$out"
stop() { local s=$1; shift; timeout -k 10 "$s" "$@"; }
rm -f "$out/parts.jsonl"
run=$here/bin/gptc-run
steps=$(cat "$here/steps")
budget=${GPTC_CHECK_BUDGET:-450}
tiny_timeout=${GPTC_CHECK_TINY_TIMEOUT:-60}
failed=0

# record PART STATUS START DETAIL [LINES_FILE]
record() {
  python3 "$here/tools/report.py" "$out" --add "$1" "$2" $((SECONDS - $3)) \
    "$4" ${5:+"$5"}
  echo "gpu-check: $1: $2: $4"
  [ "$2" != fail ] || failed=1
}
# limit S: S seconds, or what is left of the budget if that is less
limit() {
  local left=$((budget - SECONDS))
  echo $(( left < $1 ? (left > 1 ? left : 1) : $1 ))
}
# over_budget PART: true (and the part recorded as skipped) past the budget
over_budget() {
  if [ "$SECONDS" -ge "$budget" ]; then
    record "$1" skip "$SECONDS" "not started: ${SECONDS} s spent of the ${budget} s budget"
    return 0
  fi
  return 1
}

python3 - "$out/meta.json" "$here" <<'EOF'
import json, os, platform, sys, time
here = sys.argv[2]
meta = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "host": platform.node(), "kernel": platform.release(),
        "gptc commit": open(os.path.join(here, "commit")).read().strip(),
        "steps per tiny check": open(os.path.join(here, "steps")).read().strip()}
json.dump(meta, open(sys.argv[1], "w"), indent=1)
EOF

# --- libraries ------------------------------------------------------------
start=$SECONDS
find_lib() {
  local name=$1 d p
  for d in ${LD_LIBRARY_PATH:+${LD_LIBRARY_PATH//:/ }}; do
    [ -e "$d/$name" ] && { echo "$d (LD_LIBRARY_PATH)"; return; }
  done
  p=$(ldconfig -p 2>/dev/null | awk -v n="$name" '$1 == n { print $NF; exit }')
  [ -n "$p" ] && { echo "$(dirname "$p") (the loader's cache)"; return; }
  for d in $(python3 -c 'import site; print(" ".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null); do
    for p in "$d"/nvidia/*/lib/"$name"; do
      [ -e "$p" ] && { echo "$(dirname "$p") (PyPI nvidia-* package)"; return; }
    done
  done
}
: > "$out/libraries.txt"
missing=""
for lib in libcuda.so.1 libcublasLt.so.13 libnccl.so.2; do
  where=$(find_lib "$lib")
  if [ -z "$where" ]; then
    echo "$lib: not found" >> "$out/libraries.txt"
    missing="$missing $lib"
    continue
  fi
  echo "$lib: $where" >> "$out/libraries.txt"
  dir=${where%% (*}
  case ":${LD_LIBRARY_PATH:-}:" in
    *":$dir:"*) ;;
    *) export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
  esac
done
if [ -z "$missing" ]; then
  record libraries pass $start "all three found" "$out/libraries.txt"
else
  # libnccl.so.2 serves several ranks only; one rank runs without it.
  case "$missing" in
    " libnccl.so.2") record libraries pass $start "found; no libnccl.so.2 (one rank needs none)" "$out/libraries.txt" ;;
    *) record libraries fail $start "missing:$missing" "$out/libraries.txt" ;;
  esac
fi

# --- device ---------------------------------------------------------------
start=$SECONDS
gpu=0
if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then
  gpu=1
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total,power.limit --format=csv > "$out/device.txt" 2>&1
  record device pass $start "$(sed -n 2p "$out/device.txt")" "$out/device.txt"
else
  record device skip $start "no nvidia-smi or no GPU: not a GPU machine (the tiny parts run on whatever libcuda.so.1 is found: here $(grep '^libcuda' "$out/libraries.txt"))"
fi

# --- tiny bundles against the CPU -----------------------------------------
while IFS=$'\t' read -r name rtol; do
  case " ${GPTC_CHECK_BUNDLES:-$name} " in *" $name "*) ;; *) continue ;; esac
  over_budget "train $name" && continue
  start=$SECONDS
  log=$out/$name.log
  if ! stop "$(limit "$tiny_timeout")" "$run" train "$here/bundles/$name" \
      --data "$here/data/tiny_train_*.bin" --steps "$steps" --val-tokens 0 \
      > "$log" 2>&1; then
    record "train $name" fail $start "gptc-run failed or timed out (${tiny_timeout} s): $(tail -1 "$log")" "$log"
    continue
  fi
  python3 "$here/tools/compare-losses.py" "$here/reference/$name.log" "$log" \
    --rtol "$rtol" > "$out/$name.cmp" 2>&1
  agree=$?
  versus=$(tail -1 "$out/$name.cmp")
  stop "$(limit "$tiny_timeout")" "$run" train "$here/bundles/$name" \
    --data "$here/data/tiny_train_*.bin" --steps "$steps" --val-tokens 0 \
    > "$out/$name.again.log" 2>&1
  python3 "$here/tools/compare-losses.py" "$log" "$out/$name.again.log" \
    --rtol 0 > "$out/$name.again.cmp" 2>&1
  same=$?
  grep -m1 '^gptc train: cuda:' "$log" >> "$out/$name.cmp"
  cat "$out/$name.again.cmp" >> "$out/$name.cmp"
  detail="vs CPU: $versus; twice: $(tail -1 "$out/$name.again.cmp")"
  if [ $agree = 0 ] && [ $same = 0 ]; then
    record "train $name" pass $start "$detail" "$out/$name.cmp"
  else
    record "train $name" fail $start "$detail" "$out/$name.cmp"
  fi
done < "$here/checks.tsv"

# --- R15 on one rank ------------------------------------------------------
r15=$here/bundles/r15-1rank
why_not_r15=""
[ -d "$r15" ] || why_not_r15="no R15 bundle in the pack (packed with GPTC_PACK_TINY_ONLY=1)"
[ $gpu = 1 ] || why_not_r15="${why_not_r15:-no GPU (the emulated device would take hours)}"
if ! over_budget "r15 step"; then
  start=$SECONDS
  if [ -n "$why_not_r15" ]; then
    record "r15 step" skip $start "$why_not_r15"
  elif GPTC_CUDA_GRAPH_TIMES="$out/r15-graphs.txt" stop "$(limit 150)" \
      "$run" train "$r15" --data "$here/data/r15_train_*.bin" --steps 30 \
      --val-tokens 0 --log "$out/r15.jsonl" > "$out/r15.log" 2>&1; then
    median=$(python3 - "$out/r15.jsonl" "$out/r15-graphs.txt" <<'EOF'
import collections, json, os, statistics, sys
t = [json.loads(l)["elapsed"] for l in open(sys.argv[1])
     if json.loads(l).get("type") == "train"]
d = [b - a for a, b in zip(t, t[1:])][9:]
# Each entry point's replays in order: the step's device time is the sum
# of its grad and update replays (CUDA events around each).
g = collections.defaultdict(list)
for line in open(sys.argv[2]) if os.path.exists(sys.argv[2]) else []:
    entry, ms = line.split()
    g[entry].append(float(ms))
steps = [sum(v) for v in zip(*(r[10:] for r in g.values()))]
device = (f"; device {statistics.median(steps):.1f} ms/step (CUDA events "
          f"around the {len(g)} graph replays of a step)") if steps else ""
print(f"median {1000 * statistics.median(d):.1f} ms/step over {len(d)} steps "
      f"after 10 of warm-up (min {1000 * min(d):.1f}, max {1000 * max(d):.1f})"
      + device)
EOF
)
    gptc_ms=$(echo "$median" | sed -n 's/^median \([0-9.]*\) ms.*/\1/p')
    if [ -z "$gptc_ms" ]; then
      record "r15 step" fail $start "trained, but its times did not parse (r15.jsonl, r15-graphs.txt)" "$out/r15.log"
    else
      record "r15 step" pass $start "$median; the record: 161 ms a step on 8 H100s at this per-rank batch" "$out/r15.log"
    fi
  else
    record "r15 step" fail $start "gptc-run failed or timed out: $(tail -1 "$out/r15.log")" "$out/r15.log"
  fi
fi

if ! over_budget "pytorch r15"; then
  start=$SECONDS
  if [ -n "$why_not_r15" ]; then
    record "pytorch r15" skip $start "$why_not_r15"
  elif ! stop "$(limit 60)" python3 -c 'import torch; from torch.nn.attention.flex_attention import flex_attention; assert torch.cuda.is_available()' > "$out/torch.txt" 2>&1; then
    record "pytorch r15" skip $start "no PyTorch with CUDA and FlexAttention for python3: $(tail -1 "$out/torch.txt")"
  elif stop "$(limit 240)" python3 "$here/tools/torch-r15-step.py" "$r15" \
      "$here/data/r15_train_000001.bin" --steps 20 --warmup 10 \
      > "$out/pytorch.log" 2>&1; then
    result=$(grep '^pytorch r15: median' "$out/pytorch.log" | tail -1)
    torch_ms=$(echo "$result" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
    ratio=""
    [ -n "${gptc_ms:-}" ] && [ -n "$torch_ms" ] &&
      ratio="; gptc / PyTorch = $(python3 -c "print(f'{$gptc_ms / $torch_ms:.2f}')")"
    if [ -n "$torch_ms" ]; then
      record "pytorch r15" pass $start "$result$ratio" "$out/pytorch.log"
    else
      record "pytorch r15" fail $start "ran, but printed no median" "$out/pytorch.log"
    fi
  else
    record "pytorch r15" fail $start "failed or timed out: $(tail -1 "$out/pytorch.log")" "$out/pytorch.log"
  fi
fi

# --- compute-sanitizer ----------------------------------------------------
for tool in memcheck racecheck; do
  over_budget "$tool" && continue
  start=$SECONDS
  if ! command -v compute-sanitizer > /dev/null; then
    record "$tool" skip $start "no compute-sanitizer on this machine (the emulated device checks every access and, with GPTC_EMU_RACECHECK=1, shared memory)"
    continue
  fi
  log=$out/$tool.log
  stop "$(limit 90)" compute-sanitizer --tool "$tool" --error-exitcode 1 \
    "$run" train "$here/bundles/r08-f32" --data "$here/data/tiny_train_*.bin" \
    --steps 1 --val-tokens 0 > "$log" 2>&1
  rc=$?
  summary=$(grep -m1 -E '(ERROR|RACECHECK) SUMMARY' "$log" || echo "no summary (rc $rc)")
  if [ $rc = 0 ]; then
    record "$tool" pass $start "$summary" "$log"
  else
    record "$tool" fail $start "rc $rc: $summary" "$log"
  fi
done

if ! over_budget "r15 kernels"; then
  start=$SECONDS
  if [ -n "$why_not_r15" ]; then
    record "r15 kernels" skip $start "$why_not_r15"
  elif ! command -v ncu > /dev/null; then
    record "r15 kernels" skip $start "no ncu on this machine"
  elif GPTC_CUDA_GRAPHS=0 stop "$(limit 150)" ncu --csv --print-units base \
      --metrics gpu__time_duration.sum \
      "$run" train "$r15" --data "$here/data/r15_train_*.bin" --steps 1 \
      --val-tokens 0 > "$out/r15-ncu.csv" 2> "$out/r15-ncu.err"; then
    python3 - "$out/r15-ncu.csv" "$here/reference/r15-stats.txt" > "$out/r15-kernels.txt" <<'EOF'
import csv, collections, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
if len(rows) < 2:
    sys.exit(0)  # nothing profiled: an empty summary fails the part
head, body = rows[0], rows[1:]
name, value = head.index("Kernel Name"), head.index("Metric Value")
total = collections.Counter()
for r in body:
    total[r[name]] += float(r[value].replace(",", "")) / 1e6  # ns (base units) -> ms
stats = open(sys.argv[2]).read().splitlines()
print(f"{len(body)} launches, {sum(total.values()):.2f} ms in kernels")
for k, ms in total.most_common(25):
    est = next((l.strip() for l in stats if k in l), "not in --stats")
    print(f"{ms:9.3f} ms  {k}\n           --stats: {est}")
EOF
    if [ -s "$out/r15-kernels.txt" ]; then
      record "r15 kernels" pass $start "$(head -1 "$out/r15-kernels.txt")" "$out/r15-kernels.txt"
    else
      record "r15 kernels" fail $start "ncu ran, but its CSV held no kernel" "$out/r15-ncu.err"
    fi
  else
    record "r15 kernels" fail $start "ncu failed or timed out" "$out/r15-ncu.err"
  fi
fi

echo "gpu-check: report in $out/report.md"
exit $failed
