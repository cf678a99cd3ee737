#!/usr/bin/env python3
"""What the PTX of a step's kernels does, kernel by kernel, for one chip.

    gptc compile SPEC --target=cuda --emit=ptx > step.ptx
    scripts/ptx-audit.py step.ptx [--chip sm_90] [--list div64|novector|nocpasync]
                         [--ptxas PTXAS]

Counts the kernels that contain a 64-bit integer division or remainder
(div/rem .s64/.u64: a call of a ~70-instruction subroutine in SASS), that
use vector global loads or stores (ld/st.global.v2/.v4), warp shuffles,
cp.async, and the tensor-core kernels (mma.sync) without cp.async. The
lines of --emit=ptx name each kernel and its chip ("// ----- kernel NAME
(sm_90)"). With --ptxas, each tensor-core kernel is assembled alone for
the chip (ptxas -v) and its registers, stack frame and spill stores are
printed: "  regs NAME: R registers, S bytes stack, P bytes spilled".
Exit status 0; the numbers are the report (1 when ptxas fails).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HEADER = re.compile(r"^// ----- kernel (\S+) \((sm_\d+)\)")
DIV64 = re.compile(r"\b(div|rem)\.[su]64\b")
VECTOR_GLOBAL = re.compile(r"\b(ld|st)\.global(\.[a-z]+)*\.v[24]\b")
SHUFFLE = re.compile(r"\bshfl\.sync\b")
CP_ASYNC = re.compile(r"\bcp\.async\b")
MMA = re.compile(r"\bmma\.sync\b")


def kernels(lines, chip):
    name, body = None, []
    for line in lines:
        m = HEADER.match(line)
        if m:
            if name:
                yield name, body
            name, body = (m.group(1), []) if m.group(2) == chip else (None, [])
            continue
        if name:
            body.append(line)
    if name:
        yield name, body


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ptx")
    ap.add_argument("--chip", default="sm_90")
    ap.add_argument("--list", choices=["div64", "novector", "nocpasync"])
    ap.add_argument("--ptxas", help="assemble the tensor-core kernels with it")
    args = ap.parse_args()
    with open(args.ptx) as f:
        found = list(kernels(f, args.chip))
    if not found:
        sys.exit(f"ptx-audit: {args.ptx}: no kernel for {args.chip}")
    rows = []
    for name, body in found:
        text = "\n".join(body)
        rows.append({
            "name": name,
            "div64": len(DIV64.findall(text)),
            "vector": bool(VECTOR_GLOBAL.search(text)),
            "shuffle": bool(SHUFFLE.search(text)),
            "cpasync": bool(CP_ASYNC.search(text)),
            "mma": bool(MMA.search(text)),
            "text": text,
        })
    n = len(rows)
    div = [r for r in rows if r["div64"]]
    vec = [r for r in rows if r["vector"]]
    mma = [r for r in rows if r["mma"]]
    mma_cp = [r for r in mma if r["cpasync"]]
    pct = lambda k: f"{100.0 * k / n:.1f}%"
    print(f"{args.chip}: {n} kernels")
    print(f"  64-bit division or remainder: {len(div)} kernels ({pct(len(div))}), "
          f"{sum(r['div64'] for r in div)} instructions")
    print(f"  vector global loads/stores: {len(vec)} kernels ({pct(len(vec))})")
    print(f"  warp shuffles: {sum(r['shuffle'] for r in rows)} kernels")
    print(f"  cp.async: {sum(r['cpasync'] for r in rows)} kernels; "
          f"tensor-core (mma.sync) kernels with cp.async: {len(mma_cp)} of {len(mma)}")
    if args.list:
        pick = {"div64": lambda r: r["div64"],
                "novector": lambda r: not r["vector"],
                "nocpasync": lambda r: r["mma"] and not r["cpasync"]}[args.list]
        for r in rows:
            if pick(r):
                print(f"    {r['name']}" + (f" ({r['div64']})" if args.list == "div64" else ""))
    if args.ptxas:
        for r in mma:
            print(f"  regs {r['name']}: {assemble(args.ptxas, args.chip, r['text'])}")


def assemble(ptxas, chip, text):
    """ptxas -v's registers, stack frame and spill stores of one kernel."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "kernel.ptx")
        with open(path, "w") as f:
            f.write(text)
        run = subprocess.run([ptxas, f"-arch={chip}", "-v", path, "-o",
                              os.path.join(tmp, "kernel.cubin")],
                             capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"ptx-audit: ptxas failed: {run.stderr.strip()}")
    regs = re.search(r"Used (\d+) registers", run.stderr).group(1)
    stack = re.search(r"(\d+) bytes stack frame", run.stderr).group(1)
    spill = re.search(r"(\d+) bytes spill stores", run.stderr).group(1)
    return f"{regs} registers, {stack} bytes stack, {spill} bytes spilled"


if __name__ == "__main__":
    main()
