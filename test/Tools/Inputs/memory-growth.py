#!/usr/bin/env python3
"""Runs a command at three sizes and checks that its peak memory grows at
most linearly with the size.

  memory-growth.py --base 1 --small 128 --large 512 [--slack 1.5] -- CMD... {n}

Every `{n}` in CMD is replaced by the size. Each run's peak resident set
(ru_maxrss of the child, from os.wait4) is printed. What the size adds to
the base run's memory must grow no faster than the size:

  (peak(large) - peak(base)) / (peak(small) - peak(base))
      <= slack * (large - base) / (small - base)

Memory a + b n meets this with slack 1; a quadratic term shows as a ratio
near the square of the size ratio. Memory is not time: the numbers are
deterministic enough for a test.
"""
import argparse
import os
import subprocess
import sys


def peak_mib(cmd):
    with open(os.devnull, "wb") as devnull:
        proc = subprocess.Popen(cmd, stdout=devnull)
        _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"memory-growth: {' '.join(cmd)} exited with {code}")
    return usage.ru_maxrss / 1024.0  # KiB on Linux


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", type=int, required=True)
    ap.add_argument("--small", type=int, required=True)
    ap.add_argument("--large", type=int, required=True)
    ap.add_argument("--slack", type=float, default=1.5)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    peaks = {}
    for n in (args.base, args.small, args.large):
        peaks[n] = peak_mib([a.replace("{n}", str(n)) for a in cmd])
        print(f"n={n}: peak RSS {peaks[n]:.1f} MiB")
    small = peaks[args.small] - peaks[args.base]
    large = peaks[args.large] - peaks[args.base]
    limit = args.slack * (args.large - args.base) / (args.small - args.base)
    ratio = large / max(small, 1.0)
    verdict = "linear" if ratio <= limit else "SUPERLINEAR"
    print(f"growth from n={args.base}: {small:.1f} -> {large:.1f} MiB, "
          f"ratio {ratio:.2f} (at most {limit:.2f}): {verdict}")
    return 0 if ratio <= limit else 1


if __name__ == "__main__":
    sys.exit(main())
