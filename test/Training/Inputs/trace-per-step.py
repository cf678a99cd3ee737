#!/usr/bin/env python3
"""Per-step driver calls from two GPTC_EMU_TRACE files of one bundle.

    trace-per-step.py SHORT.trace SHORT_STEPS LONG.trace LONG_STEPS
                      [--manifest BUNDLE/manifest.json]

Each trace line is "CALL BYTES [KERNEL]" (the emulated libcuda.so.1 with
GPTC_EMU_TRACE=FILE). Both runs do the same start-up and the same end; the
difference of their counts over the difference of their steps is what one
step does. Prints, for each call, "CALL: N per step" (N may be a fraction
when the steps differ, which a test then sees) and the bytes copied to the
host per step; exits 1 when a trace is missing or empty. With --manifest,
also the bytes copied to the device at start-up (the short run's less its
steps') against the arena's: "workspace uploaded: no" when they are at
most the bytes before the step's workspace (the slots).
"""
import json
import collections
import sys

# Printed even when neither run made them (0 per step).
WATCHED = {"cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize",
           "cuMemAlloc", "cuMemFree", "cuLaunchKernel"}


def read(path):
    calls, dtoh, htod = collections.Counter(), 0, 0
    with open(path) as f:
        for line in f:
            fields = line.split()
            if not fields:
                continue
            calls[fields[0]] += 1
            if fields[0].startswith("cuMemcpyDtoH"):
                dtoh += int(fields[1])
            if fields[0].startswith("cuMemcpyHtoD"):
                htod += int(fields[1])
    if not calls:
        sys.exit(f"{path}: an empty trace (was GPTC_EMU_TRACE set?)")
    return calls, dtoh, htod


def main():
    short, short_steps, long_, long_steps = sys.argv[1:5]
    steps = int(long_steps) - int(short_steps)
    a, a_dtoh, a_htod = read(short)
    b, b_dtoh, b_htod = read(long_)
    per_step = lambda n: f"{n / steps:g}"
    for call in sorted(set(a) | set(b) | WATCHED):
        print(f"{call}: {per_step(b[call] - a[call])} per step")
    print(f"bytes to the host: {per_step(b_dtoh - a_dtoh)} per step")
    if len(sys.argv) > 6 and sys.argv[5] == "--manifest":
        with open(sys.argv[6]) as f:
            manifest = json.load(f)
        arena = manifest["arena_bytes"]
        workspace = manifest["workspace"]
        start = a_htod - int(short_steps) * (b_htod - a_htod) / steps
        uploaded = start > arena - workspace["bytes"]
        print(f"bytes to the device at start-up: {round(start)} of the arena's "
              f"{arena} ({workspace['bytes']} of workspace); workspace "
              f"uploaded: {'yes' if uploaded else 'no'}")


if __name__ == "__main__":
    main()
