"""Compares the per-step training losses of two `gptc train` logs.

    compare-losses.py A.log B.log --rtol R

Prints one line per step and a summary; exits 1 when the logs have
different steps or a loss differs by more than R relative to A's
(R = 0: the same printed digits).
"""
import argparse
import re
import sys

STEP = re.compile(r"^step (\d+)/\d+ \| loss (\S+)")


def losses(path):
    out = []
    with open(path) as f:
        for line in f:
            m = STEP.match(line)
            if m:
                out.append((int(m.group(1)), m.group(2)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rtol", type=float, required=True)
    args = ap.parse_args()
    a, b = losses(args.a), losses(args.b)
    if not a or [s for s, _ in a] != [s for s, _ in b]:
        print(f"steps differ: {len(a)} in {args.a}, {len(b)} in {args.b}")
        return 1
    worst = 0.0
    bad = 0
    for (step, x), (_, y) in zip(a, b):
        rel = abs(float(x) - float(y)) / max(abs(float(x)), 1e-30)
        same = x == y if args.rtol == 0 else rel <= args.rtol
        worst = max(worst, rel)
        bad += not same
        print(f"step {step}: {x} {y} rel {rel:.2e} {'ok' if same else 'DIFFERS'}")
    verdict = "agree" if bad == 0 else f"DIFFER at {bad} steps"
    print(f"{len(a)} steps {verdict} (max rel {worst:.2e}, rtol {args.rtol:g})")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
