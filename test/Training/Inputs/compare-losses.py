"""Compares the per-step training losses of two `gptc train` logs.

    compare-losses.py A.log B.log --rtol R [--spread C.log --factor F]

Prints one line per step and a summary; exits 1 when the logs have
different steps or a loss differs by more than R relative to A's
(R = 0: the same printed digits).

With --spread, C.log is a second run of A's computation that rounds
differently (the same spec compiled with --no-fuse): a step of B also
agrees when it is no further from A than F times C is at that step.
Training amplifies rounding differences from step to step; C measures
how much for this spec, so that B is held to what any other correct
implementation would reach, and to R where C has not moved (a wrong
kernel in B shows at the first steps, where C agrees with A).
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
    ap.add_argument("--spread", help="another run of A's computation")
    ap.add_argument("--factor", type=float, default=2.0)
    args = ap.parse_args()
    a, b = losses(args.a), losses(args.b)
    c = losses(args.spread) if args.spread else None
    if not a or [s for s, _ in a] != [s for s, _ in b]:
        print(f"steps differ: {len(a)} in {args.a}, {len(b)} in {args.b}")
        return 1
    if c is not None and [s for s, _ in a] != [s for s, _ in c]:
        print(f"steps differ: {len(a)} in {args.a}, {len(c)} in {args.spread}")
        return 1

    def relative(x, y):
        return abs(float(x) - float(y)) / max(abs(float(x)), 1e-30)

    worst = 0.0
    bad = 0
    for i, ((step, x), (_, y)) in enumerate(zip(a, b)):
        rel = relative(x, y)
        same = x == y if args.rtol == 0 else rel <= args.rtol
        spread = ""
        if c is not None:
            other = relative(x, c[i][1])
            same = same or rel <= args.factor * other
            spread = f" spread {other:.2e}"
        worst = max(worst, rel)
        bad += not same
        print(f"step {step}: {x} {y} rel {rel:.2e}{spread} "
              f"{'ok' if same else 'DIFFERS'}")
    verdict = "agree" if bad == 0 else f"DIFFER at {bad} steps"
    bound = f"rtol {args.rtol:g}"
    if c is not None:
        bound += f" or {args.factor:g} x spread"
    print(f"{len(a)} steps {verdict} (max rel {worst:.2e}, {bound})")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
