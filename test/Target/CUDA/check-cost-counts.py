"""Compares the static counts of `gptc compile --target=cuda --stats` with
what the emulated device counted running the same bundle
(GPTC_EMU_STATS=1), kernel by kernel, over the training step's entry
points (gptc_grad_step, gptc_update_step).

    check-cost-counts.py STATS EMU_LOG [--within F] [--share S] [--total T]
                         [--shared-total T] [--show KERNEL]...

Per distinct kernel (summed over its launches): the report's
warp-instructions (its `instr` column, thread-instructions, over 32 x the
lanes a block's warps fill) against the emulator's, and its shared and
local bytes against the emulator's. Passes when the estimate is within a
factor F (default 2) of the count for a share S (default 0.8) of the
kernels, weighted by the emulator's warp-instructions, and the step's
total within T (default 1.5) for instructions, shared and local bytes
(shared bytes within --shared-total when given). --show prints a
kernel's own ratio of instructions.
Kernels of fewer than 1024 warp-instructions are listed, not weighed.
"""
import argparse
import collections
import math
import re
import sys

ENTRY = re.compile(r"^(gptc_\w+): ")
EMU = re.compile(
    r"gptc-emu: (\S+) grid \S+ block \((\d+),(\d+),(\d+)\): (\d+) "
    r"thread-instructions, (\d+) warp-instructions, (\d+) B loaded, "
    r"(\d+) B stored, (\d+) B shared, (\d+) B local")


def number(text):
    return float(text.lstrip("~"))


def report_counts(path):
    """name -> [warp-instructions, shared bytes, local bytes] per step."""
    counts = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    entry, columns = None, None
    with open(path) as f:
        for line in f:
            m = ENTRY.match(line)
            if m:
                entry, columns = m.group(1), None
                continue
            fields = line.split()
            if fields[:2] == ["kernel", "origin"]:
                columns = fields
                continue
            if (columns is None or not line.startswith("  ") or
                    entry not in ("gptc_grad_step", "gptc_update_step") or
                    len(fields) < 10):
                if not line.startswith("  "):
                    columns = None
                continue
            if fields[0] == "GEMM":
                columns = None
                continue
            # Last columns: instr, shared B, local B, roof us, est us, bound.
            block = [int(d) for d in fields[3].split("x")]
            threads = block[0] * block[1] * block[2]
            lanes = threads / (32 * math.ceil(threads / 32))
            launches = int(fields[5])
            instr, shared, local = (number(x) for x in fields[-6:-3])
            c = counts[fields[0]]
            c[0] += launches * instr / (32 * lanes)
            c[1] += launches * shared
            c[2] += launches * local
    return counts


def emulator_counts(path):
    counts = collections.defaultdict(lambda: [0, 0, 0])
    with open(path) as f:
        for line in f:
            m = EMU.match(line)
            if m and m.group(1).startswith(("grad_", "update_")):
                c = counts[m.group(1)]
                c[0] += int(m.group(6))
                c[1] += int(m.group(9))
                c[2] += int(m.group(10))
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stats")
    ap.add_argument("emu_log")
    ap.add_argument("--within", type=float, default=2.0)
    ap.add_argument("--share", type=float, default=0.8)
    ap.add_argument("--total", type=float, default=1.5)
    ap.add_argument("--shared-total", type=float, default=None)
    ap.add_argument("--show", action="append", default=[])
    args = ap.parse_args()
    limits = [args.total, args.shared_total or args.total, args.total]
    static, measured = report_counts(args.stats), emulator_counts(args.emu_log)
    missing = sorted(set(measured) - set(static))
    if not measured or missing:
        print(f"kernels the report does not list: {missing or 'all'}")
        return 1
    weight = good = 0.0
    totals = [[0.0, 0.0] for _ in range(3)]
    outside = []
    for name, counted in measured.items():
        estimated = static[name]
        for i in range(3):
            totals[i][0] += estimated[i]
            totals[i][1] += counted[i]
        if counted[0] < 1024:
            continue
        ratio = estimated[0] / counted[0]
        weight += counted[0]
        if 1 / args.within <= ratio <= args.within:
            good += counted[0]
        else:
            outside.append((counted[0], name, ratio))
    share = good / weight
    ratios = [t[0] / t[1] if t[1] else (1.0 if not t[0] else math.inf)
              for t in totals]
    ok = share >= args.share and all(
        1 / t <= r <= t for r, t in zip(ratios, limits))
    print(f"{len(measured)} kernels: estimate within {args.within:g}x of the "
          f"emulator's warp-instructions for {100 * share:.1f}% of them "
          f"(weighted); step totals estimate/count: instructions "
          f"{ratios[0]:.2f}, shared bytes {ratios[1]:.2f}, local bytes "
          f"{ratios[2]:.2f}: {'ok' if ok else 'NOT within'} "
          f"({args.share:g} share, {args.total:g}x totals"
          + (f", {limits[1]:g}x shared" if args.shared_total else "") + ")")
    for name in args.show:
        if measured[name][0]:
            print(f"{name} instructions estimate/count "
                  f"{static[name][0] / measured[name][0]:.2f}")
        else:
            print(f"{name}: not counted by the emulator")
    for count, name, ratio in sorted(outside, reverse=True)[:8]:
        print(f"  outside: {name} {count} warp-instructions, "
              f"estimate/count {ratio:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
