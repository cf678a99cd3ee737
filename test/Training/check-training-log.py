#!/usr/bin/env python3
"""Checks a `gptc train` log: the training loss falls and so does the
validation loss.

usage: check-training-log.py LOG [--min-drop FRACTION]

Passes when the mean loss of the last 5 steps is at most (1 - FRACTION)
times the mean of the first 5 (default FRACTION 0.2), every loss is finite,
and the last validation loss is below the first one. Prints what it saw.
"""
import math
import re
import sys


def main():
    path = sys.argv[1]
    drop = 0.2
    if "--min-drop" in sys.argv:
        drop = float(sys.argv[sys.argv.index("--min-drop") + 1])
    losses, vals = [], []
    for line in open(path):
        m = re.match(r"step (\d+)/\d+ \| loss ([-+0-9.eEnaif]+)", line)
        if m:
            losses.append(float(m.group(2)))
        m = re.match(r"val step \d+/\d+ \| val_loss ([-+0-9.eEnaif]+)", line)
        if m:
            vals.append(float(m.group(1)))
    if len(losses) < 10 or len(vals) < 2:
        sys.exit(f"{path}: expected >= 10 steps and 2 validations, got "
                 f"{len(losses)} and {len(vals)}")
    if not all(math.isfinite(x) for x in losses + vals):
        sys.exit(f"{path}: non-finite loss")
    first, last = sum(losses[:5]) / 5, sum(losses[-5:]) / 5
    print(f"train loss {first:.4f} -> {last:.4f}; val {vals[0]:.4f} -> "
          f"{vals[-1]:.4f}")
    if last > (1 - drop) * first:
        sys.exit(f"{path}: training loss fell by less than {drop:.0%}")
    if vals[-1] >= vals[0]:
        sys.exit(f"{path}: validation loss did not fall")


if __name__ == "__main__":
    main()
