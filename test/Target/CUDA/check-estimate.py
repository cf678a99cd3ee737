"""Checks the estimated H100 step time of a `gptc compile --stats
--target=cuda` report against a record's measured time per step.

    check-estimate.py STATS --record-ms MS [--within FACTOR]
                      [--range LO_MS HI_MS]

Prints the calibrated estimate ("estimated H100 step: ~X ms") and the
roofline model's ("roofline model ...: ~Y ms") with their ratios to the
record; exits 1 when the report lacks either, when --within is given and
the roofline estimate exceeds FACTOR x the record, or when --range is
given and the calibrated estimate lies outside [LO_MS, HI_MS]. The
estimates are the compiler's static cost model (driver/report/
CostModel.h), the same numbers for the same compiler and spec: a
regression guard, not a timing.
"""
import argparse
import re
import sys

CALIBRATED = re.compile(r"^estimated H100 step: ~?([0-9.]+) ms")
ROOFLINE = re.compile(r"^  roofline model \(.*\): ~?([0-9.]+) ms")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stats")
    ap.add_argument("--record-ms", type=float, required=True)
    ap.add_argument("--within", type=float)
    ap.add_argument("--range", type=float, nargs=2, metavar=("LO", "HI"))
    args = ap.parse_args()
    with open(args.stats) as f:
        lines = f.readlines()
    calibrated = [float(m.group(1)) for m in map(CALIBRATED.match, lines) if m]
    roofline = [float(m.group(1)) for m in map(ROOFLINE.match, lines) if m]
    if len(calibrated) != 1 or len(roofline) != 1:
        print(f"expected one calibrated and one roofline estimate, found "
              f"{len(calibrated)} and {len(roofline)}")
        return 1
    ok = True
    line = (f"calibrated {calibrated[0]:.1f} ms = "
            f"{calibrated[0] / args.record_ms:.2f} x the record's "
            f"{args.record_ms:g} ms")
    if args.range:
        inside = args.range[0] <= calibrated[0] <= args.range[1]
        ok &= inside
        line += (f": {'inside' if inside else 'NOT inside'} "
                 f"{args.range[0]:g}-{args.range[1]:g} ms")
    line += (f"; roofline {roofline[0]:.1f} ms = "
             f"{roofline[0] / args.record_ms:.3f} x")
    if args.within:
        within = roofline[0] / args.record_ms <= args.within
        ok &= within
        line += f": {'within' if within else 'NOT within'} {args.within:g}x"
    print(line)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
