#!/usr/bin/env python3
"""Counts the loops a CUDA step leaves on the host: scf.for, scf.while and
scf.parallel ops outside every gpu.launch region of the module printed by
`gptc compile SPEC --target=cuda --emit=llvm` (read from a file or stdin).

usage: check-host-loops.py MLIR [--max-trips K]

Prints "N launches, M host loops" and exits 1 when M > 0, listing the
first few. With --max-trips K an scf.for from 0 to a constant of at most
K (printed as %cK) around launches is allowed and counted apart: a loop
of logarithmic depth (the embedding gradient's bitonic sort), not one per
token. Regions are followed by their braces: a gpu.launch line opens
one region, which ends at its matching closing brace.
"""
import re
import sys

LOOP = re.compile(r"\bscf\.(for|while|parallel)\b")


BOUNDED = re.compile(r"\bscf\.for %\w+ = %c0(?:_\d+)? to %c(\d+)(?:_\d+)? ")


def main():
    args = sys.argv[1:]
    max_trips = 0
    if "--max-trips" in args:
        i = args.index("--max-trips")
        max_trips = int(args[i + 1])
        del args[i:i + 2]
    path = args[0] if args else "-"
    lines = (sys.stdin if path == "-" else open(path)).read().splitlines()
    launches, loops, depth = 0, [], 0  # depth: open braces inside a launch
    bounded = []
    for number, line in enumerate(lines, 1):
        code = line.split("//")[0]
        opens, closes = code.count("{"), code.count("}")
        if depth == 0:
            if re.search(r"\bgpu\.launch\b", code) and opens > closes:
                launches += 1
                depth = opens - closes
                continue
            if LOOP.search(code):
                m = BOUNDED.search(code)
                if m and int(m.group(1)) <= max_trips:
                    bounded.append(int(m.group(1)))
                else:
                    loops.append(f"line {number}: {line.strip()[:100]}")
            continue
        depth += opens - closes
        depth = max(depth, 0)
    extra = (f" ({len(bounded)} of at most {max_trips} trips: "
             f"{', '.join(map(str, bounded))})" if bounded else "")
    print(f"{launches} launches, {len(loops)} host loops{extra}")
    if loops:
        print("\n".join(loops[:10]))
        sys.exit(1)


if __name__ == "__main__":
    main()
