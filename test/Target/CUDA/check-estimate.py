"""Checks the estimated H100 step time of a `gptc compile --stats
--target=cuda` report against a record's measured time per step.

    check-estimate.py STATS --record-ms MS --within FACTOR

Prints the estimate and its ratio to the record; exits 1 when the report
has no estimate or the ratio exceeds FACTOR. The estimate is the
compiler's static cost model (driver/report/CostModel.h), the same number
for the same compiler and spec: a regression guard, not a timing.
"""
import argparse
import re
import sys

ESTIMATE = re.compile(r"^estimated H100 step: ~([0-9.]+) ms")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stats")
    ap.add_argument("--record-ms", type=float, required=True)
    ap.add_argument("--within", type=float, required=True)
    args = ap.parse_args()
    with open(args.stats) as f:
        found = [float(m.group(1)) for m in map(ESTIMATE.match, f) if m]
    if len(found) != 1:
        print(f"expected one 'estimated H100 step' line, found {len(found)}")
        return 1
    ratio = found[0] / args.record_ms
    ok = ratio <= args.within
    print(f"estimate {found[0]:.1f} ms = {ratio:.3f} x the record's "
          f"{args.record_ms:g} ms: {'within' if ok else 'NOT within'} "
          f"{args.within:g}x")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
