#!/usr/bin/env python3
"""Checks that `gptc compile --emit=ptx -o DIR` wrote one KERNEL.CHIP.ptx per
gpu.launch of the CUDA IR (`--emit=llvm`) and chip, and that each file holds
its chip's code and the kernel of its entry point.

usage: check-ptx-names.py IR DIR

Prints one line per entry point: its launches and PTX files per chip.
"""
import collections
import os
import re
import sys


def main():
    ir_path, directory = sys.argv[1], sys.argv[2]
    launches, func = collections.Counter(), None
    with open(ir_path) as f:
        for line in f:
            m = re.match(r"\s*func\.func @(\w+)\(", line)
            if m:
                func = m.group(1)
            elif re.match(r"\s*gpu\.launch blocks", line):
                launches[func] += 1
    files, errors = collections.Counter(), []
    for name in sorted(os.listdir(directory)):
        m = re.fullmatch(r"((\w+?)_kernel(?:_\d+)?)\.(sm_\d+)\.ptx", name)
        if not m:
            errors.append(f"{name}: not KERNEL.CHIP.ptx")
            continue
        entry, chip = m.group(2), m.group(3)
        files[entry, chip] += 1
        with open(os.path.join(directory, name)) as f:
            ptx = f.read()
        if f".target {chip}\n" not in ptx:
            errors.append(f"{name}: no .target {chip}")
        if f".visible .entry {entry}_kernel(" not in ptx:
            errors.append(f"{name}: no .entry {entry}_kernel")
    chips = sorted({chip for _, chip in files})
    for entry in sorted(launches):
        counts = " ".join(f"{files[entry, c]} {c}" for c in chips)
        print(f"{entry}: {launches[entry]} gpu.launch, PTX files: {counts}")
        for c in chips:
            if files[entry, c] != launches[entry]:
                errors.append(f"{entry}: {launches[entry]} gpu.launch but "
                              f"{files[entry, c]} {c} files")
    for entry, _ in files:
        if entry not in launches:
            errors.append(f"{entry}: PTX files but no gpu.launch")
    if errors:
        sys.exit("\n".join(sorted(set(errors))[:20]))


if __name__ == "__main__":
    main()
