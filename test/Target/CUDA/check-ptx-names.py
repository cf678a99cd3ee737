#!/usr/bin/env python3
"""Checks the files of `gptc compile --emit=ptx -o DIR`: one KERNEL.CHIP.ptx
per distinct kernel and chip, each holding its chip's code and one entry
point named KERNEL; KERNEL starts with its step function's name (grad,
update, eval, logits: gptc-name-kernels); every chip has the same kernels;
every step function of the CUDA IR (`--emit=llvm`) that launches kernels
has some, and no more than it has gpu.launch ops.

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
            m = re.match(r"\s*func\.func @gptc_(\w+)_step\(", line)
            if m:
                func = m.group(1)
            elif re.match(r"\s*gpu\.launch blocks", line):
                launches[func] += 1
    files, kernels, errors = collections.Counter(), collections.defaultdict(set), []
    for name in sorted(os.listdir(directory)):
        m = re.fullmatch(r"(([a-z]+)_\w+)\.(sm_\d+)\.ptx", name)
        if not m:
            errors.append(f"{name}: not KERNEL.CHIP.ptx")
            continue
        kernel, entry, chip = m.group(1), m.group(2), m.group(3)
        files[entry, chip] += 1
        kernels[chip].add(kernel)
        with open(os.path.join(directory, name)) as f:
            ptx = f.read()
        if f".target {chip}\n" not in ptx:
            errors.append(f"{name}: no .target {chip}")
        entries = re.findall(r"\.visible \.entry (\w+)\(", ptx)
        if entries != [kernel]:
            errors.append(f"{name}: entry points {entries}, not [{kernel}]")
    chips = sorted(kernels)
    if len({frozenset(k) for k in kernels.values()}) > 1:
        errors.append("the chips' kernels differ")
    for entry in sorted(launches):
        counts = " ".join(f"{files[entry, c]} {c}" for c in chips)
        print(f"{entry}: {launches[entry]} gpu.launch, PTX files: {counts}")
        for c in chips:
            if not 0 < files[entry, c] <= launches[entry]:
                errors.append(f"{entry}: {launches[entry]} gpu.launch but "
                              f"{files[entry, c]} {c} files")
    for entry, _ in files:
        if entry not in launches:
            errors.append(f"{entry}: PTX files but no gpu.launch")
    if errors:
        sys.exit("\n".join(sorted(set(errors))[:20]))


if __name__ == "__main__":
    main()
