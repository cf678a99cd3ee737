#!/usr/bin/env python3
"""Checks the kernel images of a CUDA bundle's step.so: every fatbinary
(the `fatbinary` container, magic 0xBA55ED50) embedded in it holds an
sm_80 and an sm_90 cubin (ELF) and sm_80 and sm_90 PTX, uncompressed; each
PTX has one entry point, named by origin (STEP_KEY: grad, update, eval or
logits, then the spec key, gptc-name-kernels), the same in both PTX and
both cubins' symbol tables; no two images have the same entry point.

usage: check-fatbins.py STEP_SO [--extract DIR]

Prints one line: the images, and their entry points per step function.
With --extract, writes each image's PTX to DIR/KERNEL.CHIP.ptx (the files
of `gptc compile --emit=ptx -o DIR`).
"""
import collections
import os
import re
import struct
import sys

MAGIC = struct.pack("<I", 0xBA55ED50)
ENTRY = struct.Struct("<HHIQIIHHIIIQQQ")


def images(data):
    at = data.find(MAGIC)
    while at >= 0:
        _, _, header, size = struct.unpack_from("<IHHQ", data, at)
        yield at, data[at + header:at + header + size]
        at = data.find(MAGIC, at + header + size)


def main():
    args = sys.argv[1:]
    extract = None
    if "--extract" in args:
        i = args.index("--extract")
        extract = args[i + 1]
        del args[i:i + 2]
        os.makedirs(extract, exist_ok=True)
    data = open(args[0], "rb").read()
    ptx_of = {}
    errors, names, steps = [], set(), collections.Counter()
    count = 0
    for at, body in images(data):
        count += 1
        kinds, entries, off, ptx_of = set(), set(), 0, {}
        while off < len(body):
            (kind, _, header, size, _, _, _, _, arch, _, _, flags, _,
             uncompressed) = ENTRY.unpack_from(body, off)
            payload = body[off + header:off + header + size]
            off += header + size
            if flags & 0xA000 or uncompressed:
                errors.append(f"image at {at}: a compressed entry")
            if kind == 1:
                kinds.add(f"ptx sm_{arch}")
                text = payload.rstrip(b"\0").decode()
                found = re.findall(r"\.visible \.entry (\w+)\(", text)
                if len(found) != 1 or f".target sm_{arch}" not in text:
                    errors.append(f"image at {at}: PTX sm_{arch} entries "
                                  f"{found}")
                entries.update(found)
                ptx_of[arch] = text
            elif kind == 2:
                kinds.add(f"elf sm_{arch}")
                if not payload.startswith(b"\x7fELF"):
                    errors.append(f"image at {at}: cubin sm_{arch} not ELF")
                for name in list(entries) or [None]:
                    if name and name.encode() + b"\0" not in payload:
                        errors.append(f"image at {at}: {name} not in the "
                                      f"sm_{arch} cubin")
        want = {f"{k} sm_{a}" for k in ("elf", "ptx") for a in (80, 90)}
        if kinds != want:
            errors.append(f"image at {at}: {sorted(kinds)}, not {sorted(want)}")
        if len(entries) != 1:
            errors.append(f"image at {at}: entry points {sorted(entries)}")
            continue
        name = entries.pop()
        if extract:
            for arch, text in ptx_of.items():
                with open(os.path.join(extract, f"{name}.sm_{arch}.ptx"),
                          "w") as f:
                    f.write(text)
        ptx_of = {}
        m = re.fullmatch(r"(grad|update|eval|logits)_[a-z0-9_]+", name)
        if not m:
            errors.append(f"{name}: not named by origin")
        elif name in names:
            errors.append(f"{name}: two images")
        else:
            steps[m.group(1)] += 1
        names.add(name)
    if not count:
        errors.append("no fatbinary in " + args[0])
    if errors:
        sys.exit("\n".join(errors[:20]))
    per_step = ", ".join(f"{s} {steps[s]}" for s in
                         ("grad", "update", "eval", "logits") if steps[s])
    print(f"{count} kernel images, each sm_80 and sm_90 cubins and PTX; "
          f"entry points by origin: {per_step}")


if __name__ == "__main__":
    main()
