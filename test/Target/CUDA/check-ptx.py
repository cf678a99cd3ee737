#!/usr/bin/env python3
"""Assembles every KERNEL.CHIP.ptx in a directory with ptxas for its chip
and checks it assembles with zero spill bytes.

usage: check-ptx.py PTXAS DIR

Byte-identical files (the same loop nest in every layer) are assembled once;
two ptxas processes run at a time. Prints one summary line: files, distinct
files assembled, chips, max registers, spill bytes.
"""
import concurrent.futures
import hashlib
import os
import re
import subprocess
import sys


def assemble(ptxas, path):
    chip = path.rsplit(".", 2)[-2]
    r = subprocess.run([ptxas, "-v", f"-arch={chip}", path, "-o", os.devnull],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, None, r.stderr.strip().splitlines()[-1:]
    regs = [int(x) for x in re.findall(r"Used (\d+) registers", r.stderr)]
    spills = [int(a) + int(b) for a, b in re.findall(
        r"(\d+) bytes spill stores, (\d+) bytes spill loads", r.stderr)]
    return max(regs, default=0), sum(spills), None


def main():
    ptxas, directory = sys.argv[1], sys.argv[2]
    files = sorted(os.path.join(directory, f) for f in os.listdir(directory)
                   if f.endswith(".ptx"))
    if not files:
        sys.exit(f"no .ptx files in {directory}")
    # The chip is in the file name and the .target line, so equal contents
    # mean the same chip: one file of each content stands for the others.
    same = {}
    for path in files:
        with open(path, "rb") as f:
            same.setdefault(hashlib.sha256(f.read()).digest(), []).append(path)
    chips, max_regs, spill_total, failures = set(), 0, 0, []
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        groups = list(same.values())
        for paths, (regs, spills, err) in zip(
                groups, pool.map(lambda g: assemble(ptxas, g[0]), groups)):
            chips.update(p.rsplit(".", 2)[-2] for p in paths)
            if err is not None:
                failures += [f"{p}: {err}" for p in paths]
                continue
            max_regs = max(max_regs, regs)
            spill_total += spills * len(paths)
            if spills:
                failures += [f"{p}: {spills} spill bytes" for p in paths]
    print(f"{len(files)} PTX files ({len(same)} distinct), chips "
          f"{' '.join(sorted(chips))}, max {max_regs} registers, "
          f"{spill_total} spill bytes")
    if failures:
        sys.exit("\n".join(sorted(failures)[:20]))


if __name__ == "__main__":
    main()
