#!/usr/bin/env python3
"""Assembles every KERNEL.CHIP.ptx in a directory with ptxas for its chip
and checks it assembles with zero spill bytes.

usage: check-ptx.py PTXAS DIR

Prints one summary line: kernels, chips, max registers, spill bytes.
"""
import concurrent.futures
import os
import re
import subprocess
import sys


def assemble(ptxas, path):
    chip = path.rsplit(".", 2)[-2]
    r = subprocess.run([ptxas, "-v", f"-arch={chip}", path, "-o", os.devnull],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return path, None, None, r.stderr.strip().splitlines()[-1:]
    regs = [int(x) for x in re.findall(r"Used (\d+) registers", r.stderr)]
    spills = [int(a) + int(b) for a, b in re.findall(
        r"(\d+) bytes spill stores, (\d+) bytes spill loads", r.stderr)]
    return path, max(regs, default=0), sum(spills), None


def main():
    ptxas, directory = sys.argv[1], sys.argv[2]
    files = sorted(os.path.join(directory, f) for f in os.listdir(directory)
                   if f.endswith(".ptx"))
    if not files:
        sys.exit(f"no .ptx files in {directory}")
    chips, max_regs, spill_total, failures = set(), 0, 0, []
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for path, regs, spills, err in pool.map(lambda p: assemble(ptxas, p),
                                                files):
            chips.add(path.rsplit(".", 2)[-2])
            if err is not None:
                failures.append(f"{path}: {err}")
                continue
            max_regs = max(max_regs, regs)
            spill_total += spills
            if spills:
                failures.append(f"{path}: {spills} spill bytes")
    print(f"{len(files)} PTX files, chips {' '.join(sorted(chips))}, "
          f"max {max_regs} registers, {spill_total} spill bytes")
    if failures:
        sys.exit("\n".join(failures[:20]))


if __name__ == "__main__":
    main()
