#!/usr/bin/env python3
"""Counts the SASS a CUDA bundle's kernels really run, from its cubins.

    scripts/sass-count.py BUNDLE/step.so [--emu PROFILE.json] [--nvdisasm P]
                          [--show KERNEL]...

Takes every kernel image of step.so (the fatbinaries ptxas and fatbinary
made at compile time), disassembles its sm_90 cubin with nvdisasm (the
CUDA toolkit's, or PyPI's nvidia-cuda-nvdisasm) and counts per kernel:
SASS instructions (the entry and the subroutines ptxas added to it, such
as 64-bit division), the SASS calls of division subroutines, and the
instructions inside loops (between a backward branch and its target); the
same of the sm_90 PTX beside it. SASS over PTX is how many machine
instructions a PTX instruction of that kernel becomes.

With --emu (GPTC_EMU_STATS_JSON of a step of the same bundle on the
emulated device), each kernel's executed PTX warp-instructions become SASS:
those executed inside loops at the kernel's SASS/PTX ratio over its loop
bodies, the others at its ratio outside loops, and each executed 64-bit
division (a PTX instruction) as the subroutine ptxas calls for it (its
SASS length). That is the issue count an H100 would see for that step;
the totals are printed.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

MAGIC = struct.pack("<I", 0xBA55ED50)
ENTRY = struct.Struct("<HHIQIIHHIIIQQQ")
SASS_LINE = re.compile(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)(.*);")
SASS_LABEL = re.compile(r"^(\.L_x_\d+|\$[\w$.]+):")
SASS_TARGET = re.compile(r"`\((\.L_x_\d+)\)")
PTX_LABEL = re.compile(r"^(\$?[\w$]+):\s*(.*)$", re.S)


def images(data):
    """(sm_90 cubin, sm_90 PTX text) of each fatbinary in `data`."""
    at = data.find(MAGIC)
    while at >= 0:
        _, _, header, size = struct.unpack_from("<IHHQ", data, at)
        body = data[at + header:at + header + size]
        cubin = ptx = None
        off = 0
        while off < len(body):
            fields = ENTRY.unpack_from(body, off)
            kind, head, size_, arch = fields[0], fields[2], fields[3], fields[8]
            payload = body[off + head:off + head + size_]
            off += head + size_
            if arch == 90 and kind == 2:
                cubin = payload
            elif arch == 90 and kind == 1:
                ptx = payload.rstrip(b"\0").decode()
        if cubin and ptx:
            yield cubin, ptx
        at = data.find(MAGIC, at + header + size)


def loops(instrs, labels, target_of):
    """Pcs inside loops and the innermost loops' sizes: a branch at pc b to
    a label at pc t <= b makes [t, b] a loop (a branch to itself, the
    padding after EXIT, is none)."""
    ranges = []
    for b, ins in enumerate(instrs):
        t = labels.get(target_of(ins))
        if t is not None and t < b:
            ranges.append((t, b))
    inside = set()
    for t, b in ranges:
        inside.update(range(t, b + 1))
    innermost = [r for r in ranges
                 if not any(o != r and r[0] <= o[0] and o[1] <= r[1] for o in ranges)]
    return inside, sorted(b - t + 1 for t, b in innermost)


def sass_counts(text):
    """Counts of the entry's SASS and of the subroutines after it."""
    instrs, labels, sub_at = [], {}, None
    for line in text.splitlines():
        m = SASS_LABEL.match(line.strip())
        if m:
            labels[m.group(1)] = len(instrs)
            if m.group(1).startswith("$__internal") and sub_at is None:
                sub_at = len(instrs)
            continue
        m = SASS_LINE.match(line)
        if m:
            instrs.append((m.group(1), m.group(2)))
    # The padding after the last EXIT: BRA to itself, then NOPs.
    while instrs and instrs[-1][0] == "NOP":
        instrs.pop()
    entry = instrs[:sub_at] if sub_at is not None else instrs
    subroutines = sum(1 for name in labels if name.startswith("$__internal"))

    def target(ins):
        t = SASS_TARGET.search(ins[1])
        return t.group(1) if ins[0].startswith("BRA") and t else None
    inside, innermost = loops(entry, labels, target)
    divs = sum(1 for op, rest in entry
               if op.startswith("CALL") and re.search(r"__cuda_sm\d+_(div|rem)", rest))
    return {"sass": len(entry), "sassLoop": len(inside),
            "sassLoops": innermost, "divCalls": divs,
            "subroutineSass": len(instrs) - len(entry),
            "subroutines": subroutines}


def ptx_counts(text):
    text = re.sub(r"//[^\n]*", "", text)
    start = text.find("{", text.find(".entry"))
    body = text[start + 1:text.rfind("}")]
    instrs, labels = [], {}
    for stmt in body.split(";"):
        stmt = stmt.replace("{", " ").replace("}", " ").strip() \
            if not re.match(r"^\s*(\$?[\w$]+:\s*)?(mma|ld|st|ldmatrix|mov)", stmt) \
            else stmt.strip()
        while True:
            m = PTX_LABEL.match(stmt)
            if not m or "." in m.group(1):
                break
            labels[m.group(1)] = len(instrs)
            stmt = m.group(2).strip()
        stmt = stmt.lstrip("{}").strip()
        if not stmt or stmt.startswith("."):
            continue
        instrs.append(stmt)

    def target(s):
        m = re.match(r"^(?:@!?%\w+\s+)?bra(?:\.uni)?\s+(\$?[\w$]+)", s)
        return m.group(1) if m else None
    inside, innermost = loops(instrs, labels, target)
    return {"ptx": len(instrs), "ptxLoop": len(inside), "ptxLoops": innermost}


def mnemonics(ptx):
    """A kernel's code up to its constants: how often each mnemonic stands
    in its PTX (gptc's ptxMnemonics, MeasuredProfile.h)."""
    entry = ptx.find(".entry")
    body = ptx.find("{", entry) if entry >= 0 else -1
    counts = {}
    if body < 0:
        return counts
    for line in ptx[body + 1:].split("\n"):
        line = line.split("//", 1)[0].strip()
        if not line or line[0] in ".{}%()" or (line.endswith(":") and " " not in line):
            continue
        if line.startswith("@"):
            parts = line.split(" ", 1)
            line = parts[1].lstrip() if len(parts) > 1 else ""
        m = re.split(r"[ \t;]", line, 1)[0]
        counts[m] = counts.get(m, 0) + 1
    return counts


def find_nvdisasm(given):
    if given:
        return given
    found = shutil.which("nvdisasm")
    if found:
        return found
    for root in [os.environ.get("CUDA_HOME", "/usr/local/cuda")]:
        p = os.path.join(root, "bin", "nvdisasm")
        if os.path.exists(p):
            return p
    try:
        import nvidia.cu13  # noqa: F401  (PyPI: nvidia-cuda-nvdisasm)
        p = os.path.join(list(nvidia.cu13.__path__)[0], "bin", "nvdisasm")
        if os.path.exists(p):
            return p
    except ImportError:
        pass
    sys.exit("sass-count: nvdisasm not found (install the PyPI package "
             "nvidia-cuda-nvdisasm or give --nvdisasm)")


def ratio(a, b):
    return a / b if b else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step_so")
    parser.add_argument("--emu", help="GPTC_EMU_STATS_JSON of a step")
    parser.add_argument("--nvdisasm")
    parser.add_argument("--show", action="append", default=[],
                        help="print this kernel's line")
    parser.add_argument("--all", action="store_true", help="print every kernel")
    parser.add_argument("--annotate", metavar="OUT",
                        help="with --emu: write the profile with each "
                        "kernel's SASS per executed PTX instruction added "
                        "(the input of gptc compile --stats --profile)")
    parser.add_argument("--shape", default="",
                        help="with --annotate: how the step was scaled, for "
                        "the report")
    args = parser.parse_args()
    nvdisasm = find_nvdisasm(args.nvdisasm)
    data = open(args.step_so, "rb").read()
    executed, profile = {}, None
    if args.annotate and not args.emu:
        sys.exit("sass-count: --annotate needs --emu")
    if args.emu:
        with open(args.emu) as f:
            profile = json.load(f)
        for k in profile["kernels"]:
            executed[k["name"]] = k
    names, cubins, ptxs = [], [], []
    for cubin, ptx in images(data):
        names.append(re.search(r"\.visible \.entry (\w+)\(", ptx).group(1))
        cubins.append(cubin)
        ptxs.append(ptx)
    kernels = {}
    with tempfile.TemporaryDirectory() as tmp:
        def disassemble(i):
            path = os.path.join(tmp, "%d.cubin" % i)
            with open(path, "wb") as f:
                f.write(cubins[i])
            try:
                out = subprocess.run([nvdisasm, "-c", path],
                                     capture_output=True, text=True)
            except OSError as e:
                sys.exit("sass-count: cannot run %s: %s" % (nvdisasm, e))
            if out.returncode:
                sys.exit("sass-count: nvdisasm failed on %s: %s" % (
                    names[i], out.stderr.strip()))
            return out.stdout
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            for i, text in enumerate(pool.map(disassemble, range(len(names)))):
                k = sass_counts(text)
                k.update(ptx_counts(ptxs[i]))
                k["mnemonics"] = mnemonics(ptxs[i])
                kernels[names[i]] = k
    total = {"sass": 0, "ptx": 0, "sassLoop": 0, "ptxLoop": 0, "dynPtx": 0,
             "dynSass": 0.0, "divCalls": 0}
    for name, k in sorted(kernels.items()):
        for key in ("sass", "ptx", "sassLoop", "ptxLoop", "divCalls"):
            total[key] += k[key]
        line = ("%s: SASS %d, PTX %d (%.2f); in loops SASS %d, PTX %d (%.2f); "
                "innermost loops SASS %s, PTX %s; %d division calls, "
                "subroutines %d SASS" % (
                    name, k["sass"], k["ptx"], ratio(k["sass"], k["ptx"]),
                    k["sassLoop"], k["ptxLoop"], ratio(k["sassLoop"], k["ptxLoop"]),
                    k["sassLoops"] or "-", k["ptxLoops"] or "-", k["divCalls"],
                    k["subroutineSass"]))
        if name in executed:
            e = executed[name]
            dyn = e["counters"]["warpInstructions"]
            in_loops = e["counters"].get("loopWarpInstructions", 0)
            div64 = e["classes"].get("div64", 0)
            straight = max(0, dyn - in_loops - div64)
            loop_scale = ratio(k["sassLoop"], k["ptxLoop"]) or 1.0
            straight_scale = ratio(k["sass"] - k["sassLoop"],
                                   k["ptx"] - k["ptxLoop"]) or 1.0
            sub_len = ratio(k["subroutineSass"], k["subroutines"])
            sass = (in_loops * loop_scale + straight * straight_scale +
                    div64 * (1 + sub_len))
            total["dynPtx"] += dyn
            total["dynSass"] += sass
            e["sass"] = {"perPtx": round(ratio(sass, dyn), 4),
                         "mnemonics": k["mnemonics"],
                         "static": k["sass"], "staticPtx": k["ptx"],
                         "divisionCalls": k["divCalls"]}
            line += ("; executed PTX %d (%d in loops, %d div64) -> SASS ~%d "
                     "(%.2f)" % (dyn, in_loops, div64, sass, ratio(sass, dyn)))
        if args.all or name in args.show:
            print(line)
    print("%d kernels: SASS %d, PTX %d (%.2f SASS a PTX instruction); in loops "
          "SASS %d, PTX %d (%.2f); %d division calls in %d kernels" % (
              len(kernels), total["sass"], total["ptx"],
              ratio(total["sass"], total["ptx"]), total["sassLoop"],
              total["ptxLoop"], ratio(total["sassLoop"], total["ptxLoop"]),
              total["divCalls"],
              sum(1 for k in kernels.values() if k["divCalls"])))
    if args.annotate:
        if args.shape:
            profile["shape"] = args.shape
        tmp = args.annotate + ".tmp"
        with open(tmp, "w") as f:
            json.dump(profile, f, indent=1)
        os.replace(tmp, args.annotate)
    if executed:
        print("executed on the emulated device: PTX %d warp-instructions, SASS "
              "~%d (%.2f)" % (total["dynPtx"], total["dynSass"],
                              ratio(total["dynSass"], total["dynPtx"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
