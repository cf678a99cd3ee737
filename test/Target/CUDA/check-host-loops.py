#!/usr/bin/env python3
"""Counts the loops a CUDA step leaves on the host: scf.for, scf.while and
scf.parallel ops outside every gpu.launch region of the module printed by
`gptc compile SPEC --target=cuda --emit=llvm` (read from a file or stdin).

usage: check-host-loops.py MLIR

Prints "N launches, M host loops" and exits 1 when M > 0, listing the
first few. Regions are followed by their braces: a gpu.launch line opens
one region, which ends at its matching closing brace.
"""
import re
import sys

LOOP = re.compile(r"\bscf\.(for|while|parallel)\b")


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "-"
    lines = (sys.stdin if path == "-" else open(path)).read().splitlines()
    launches, loops, depth = 0, [], 0  # depth: open braces inside a launch
    for number, line in enumerate(lines, 1):
        code = line.split("//")[0]
        opens, closes = code.count("{"), code.count("}")
        if depth == 0:
            if re.search(r"\bgpu\.launch\b", code) and opens > closes:
                launches += 1
                depth = opens - closes
                continue
            if LOOP.search(code):
                loops.append(f"line {number}: {line.strip()[:100]}")
            continue
        depth += opens - closes
        depth = max(depth, 0)
    print(f"{launches} launches, {len(loops)} host loops")
    if loops:
        print("\n".join(loops[:10]))
        sys.exit(1)


if __name__ == "__main__":
    main()
