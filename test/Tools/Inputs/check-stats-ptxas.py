#!/usr/bin/env python3
"""Checks the ptxas columns of `gptc compile --stats --target=cuda` against
ptxas -v run here on the files of `gptc compile --emit=ptx -o DIR`: the same
kernels (by name), and for each the same registers and spill bytes per chip.

usage: check-stats-ptxas.py PTXAS STATS DIR

Prints one line: kernels and chips compared.
"""
import concurrent.futures
import hashlib
import os
import re
import subprocess
import sys


def ptxas_v(ptxas, path, chip):
    r = subprocess.run([ptxas, "-v", f"-arch={chip}", path, "-o", os.devnull],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{path}: ptxas failed: {r.stderr.strip()}")
    regs = int(re.search(r"Used (\d+) registers", r.stderr).group(1))
    spill = sum(int(a) + int(b) for a, b in re.findall(
        r"(\d+) bytes spill stores, (\d+) bytes spill loads", r.stderr))
    return regs, spill


def main():
    ptxas, stats_path, directory = sys.argv[1:4]
    chips, stats = [], {}
    with open(stats_path) as f:
        for line in f:
            fields = line.split()
            if fields[:1] == ["kernel"] and "regs" in fields:
                chips = [fields[i - 1] for i, x in enumerate(fields)
                         if x == "regs"]
            elif (chips and len(fields) > 3 and
                  re.fullmatch(r"[a-z]+_\w+", fields[0]) and
                  re.fullmatch(r"\d+x\d+x\d+", fields[2])):
                # name origin grid block threads launches (regs spill)...
                # then the cost columns (smem occ FLOPs bytes est).
                values = [int(x) for x in fields[6:6 + 2 * len(chips)]]
                stats[fields[0]] = {c: tuple(values[2 * i:2 * i + 2])
                                    for i, c in enumerate(chips)}
    if not stats:
        sys.exit(f"{stats_path}: no kernel rows with ptxas columns")
    files = {f[:-len(".ptx")] for f in os.listdir(directory)
             if f.endswith(".ptx")}
    expected = {f"{k}.{c}" for k in stats for c in chips}
    if files != expected:
        sys.exit(f"kernels differ: only in stats {sorted(expected - files)[:5]}"
                 f", only in {directory} {sorted(files - expected)[:5]}")
    # Assemble each distinct file once.
    by_content = {}
    for name in sorted(files):
        path = os.path.join(directory, name + ".ptx")
        with open(path, "rb") as f:
            by_content.setdefault(hashlib.sha256(f.read()).digest(),
                                  []).append(name)
    groups = list(by_content.values())
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = pool.map(
            lambda g: ptxas_v(ptxas, os.path.join(directory, g[0] + ".ptx"),
                              g[0].rsplit(".", 1)[1]), groups)
        errors = []
        for names, result in zip(groups, results):
            for name in names:
                kernel, chip = name.rsplit(".", 1)
                if stats[kernel][chip] != result:
                    errors.append(f"{kernel} {chip}: --stats says "
                                  f"{stats[kernel][chip]}, ptxas {result}")
    if errors:
        sys.exit("\n".join(sorted(errors)[:20]))
    print(f"{len(stats)} kernels x {' '.join(chips)}: registers and spill "
          f"bytes match ptxas")


if __name__ == "__main__":
    main()
