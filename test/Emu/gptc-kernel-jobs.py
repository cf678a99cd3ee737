#!/usr/bin/env python3
"""Writes gptc-emu-run jobs for the PTX files `gptc compile --emit=ptx -o DIR`
wrote: one line per kernel of CHIP, `FILE GX GY GZ BX BY BZ BYTES`, with the
grid and block of its gpu.launch in the CUDA IR (`--emit=llvm`) and, as
BYTES, the size of its step function's arena (every tensor is a view of it).

usage: gptc-kernel-jobs.py IR DIR CHIP

Launches are matched to files in order: the outlined kernels of an entry
point are named ENTRY_kernel, ENTRY_kernel_N, ... in launch order. A launch
whose sizes are not constants gets one block of one thread.
"""
import collections
import os
import re
import sys

CONST = r"%c(\d+)(?:_\d+)?"
LAUNCH = re.compile(
    r"gpu\.launch blocks\([^)]*\) in \(%\w+ = {0}, %\w+ = {0}, %\w+ = {0}\) "
    r"threads\([^)]*\) in \(%\w+ = {0}, %\w+ = {0}, %\w+ = {0}\)".format(CONST))


def main():
    ir_path, directory, chip = sys.argv[1:4]
    launches = collections.defaultdict(list)
    arena, func = {}, None
    with open(ir_path) as f:
        for line in f:
            m = re.match(r"\s*func\.func @(\w+)\((?:%\w+: memref<(\d+)xi8>)?", line)
            if m:
                func = m.group(1)
                arena[func] = int(m.group(2) or 1 << 24)
            elif re.match(r"\s*gpu\.launch blocks", line):
                m = LAUNCH.search(line)
                launches[func].append(
                    [int(x) for x in m.groups()] if m else [1] * 6)
    files = collections.defaultdict(list)
    for name in os.listdir(directory):
        m = re.fullmatch(r"(\w+?)_kernel(?:_(\d+))?\.(sm_\d+)\.ptx", name)
        if m and m.group(3) == chip:
            files[m.group(1)].append((int(m.group(2) or -1), name))
    for entry in sorted(files):
        names = [n for _, n in sorted(files[entry])]
        if len(names) != len(launches[entry]):
            sys.exit(f"{entry}: {len(launches[entry])} launches but "
                     f"{len(names)} {chip} files")
        for name, dims in zip(names, launches[entry]):
            print(os.path.join(directory, name), *dims, arena[entry])


if __name__ == "__main__":
    main()
