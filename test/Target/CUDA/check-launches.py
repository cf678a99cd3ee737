#!/usr/bin/env python3
"""Checks the launches of a CUDA training step from the report of
`gptc compile SPEC --target=cuda --stats` (read from a file or stdin).

usage: check-launches.py STATS [--gemm-calls N] [--loop-launches K]

Checks, and prints one summary line when all hold:
- every kernel with at least 4096 work items launches blocks of at least
  128 threads, but for kernels that stage shared tiles (smem > 0), whose
  block is a team of whole warps sized to fit its tiles: at least 64 (the
  tensor-core dK/dV kernel over head_dim 64 runs 2 warps a block);
- every grid and block is within the device limits (grid x < 2^31,
  y and z <= 65535; block x, y <= 1024, z <= 64, at most 1024 threads);
- every launch site launches once per call of its entry point (no kernel
  launched from a loop, such as once per token): per training step
  (gptc_grad_step and gptc_update_step) launches equal launch sites; with
  --loop-launches K a site may launch up to K times from a host loop of
  logarithmic depth (the embedding gradient's bitonic sort: log2 N
  (log2 N + 1) / 2 stages), printed by name;
  printed beside them, the distinct kernels (PTX entry points) they run
  and launches per distinct kernel (the same code again per layer);
- the attention kernels (origin *.attn.sdpa) that stage shared tiles: how
  many (a block-level flash kernel has shared memory, smem > 0);
- with --gemm-calls N: the step's GEMM calls (cuBLASLt) number N (the CPU
  step's count: no GEMM became a kernel).
"""
import re
import sys

STEP_ENTRIES = ("gptc_grad_step", "gptc_update_step")
KERNEL = re.compile(
    r"^  ([a-z]\w*)\s+(\S+)\s+(\d+)x(\d+)x(\d+)\s+(\d+)x(\d+)x(\d+)"
    r"\s+(\d+|-)\s+(\d+)\s")
ENTRY = re.compile(r"^(gptc_\w+): (\d+) launch sites, (\d+) launches of "
                   r"(\d+) distinct kernels, (\d+) GEMM calls")
STEP = re.compile(r"per training step .*: (\d+) kernel launches"
                  r"(?: of \d+ distinct kernels \([0-9.]+ per kernel\))?, "
                  r"(\d+) GEMM calls")


def main():
    args = sys.argv[1:]
    gemm_calls, loop_launches = None, 1
    if "--gemm-calls" in args:
        i = args.index("--gemm-calls")
        gemm_calls = int(args[i + 1])
        del args[i:i + 2]
    if "--loop-launches" in args:
        i = args.index("--loop-launches")
        loop_launches = int(args[i + 1])
        del args[i:i + 2]
    text = open(args[0]).read() if args and args[0] != "-" else sys.stdin.read()
    failures, kernels, busy, attention = [], 0, 0, 0
    entries, names, step_gemms, entry = {}, {}, None, None
    looped = {}  # entry -> [(kernel, launches)] of sites launched in a loop
    for line in text.splitlines():
        m = ENTRY.match(line)
        if m:
            entry = m.group(1)
            entries[entry] = (int(m.group(2)), int(m.group(3)))
            names[entry] = set()
            continue
        m = STEP.search(line)
        if m:
            step_gemms = int(m.group(2))
            continue
        m = KERNEL.match(line)
        if not m:
            continue
        kernels += 1
        name, origin = m.group(1), m.group(2)
        if entry in names:
            names[entry].add(name)
        site_launches = int(m.group(10))
        if site_launches > 1 and entry in STEP_ENTRIES:
            looped.setdefault(entry, []).append((name, site_launches))
            if site_launches > loop_launches:
                failures.append(f"{name} ({origin}): {site_launches} launches "
                                f"from one site (at most {loop_launches})")
        gx, gy, gz, bx, by, bz = (int(m.group(i)) for i in range(3, 9))
        items = None if m.group(9) == "-" else int(m.group(9))
        threads = bx * by * bz
        # smem, then occ FLOPs bytes instr shared-B local-B roof est bound.
        smem = line.split()[-10]
        staged = smem.isdigit() and int(smem) > 0
        if items is not None and items >= 4096:
            busy += 1
            if threads < (64 if staged else 128):
                failures.append(f"{name} ({origin}): {items} work items in "
                                f"blocks of {threads} threads")
        if not (gx < 2**31 and gy <= 65535 and gz <= 65535):
            failures.append(f"{name}: grid {gx}x{gy}x{gz} over the limits")
        if not (bx <= 1024 and by <= 1024 and bz <= 64 and threads <= 1024):
            failures.append(f"{name}: block {bx}x{by}x{bz} over the limits")
        if (entry == "gptc_grad_step" and origin.endswith(".attn.sdpa") and
                staged):
            attention += 1
    if not kernels:
        sys.exit("no kernel rows in the stats report")
    launches = []
    for name in STEP_ENTRIES:
        if name not in entries:
            sys.exit(f"no {name} in the stats report")
        sites, calls = entries[name]
        in_loops = looped.get(name, [])
        text = f"{name} {calls} launches from {sites} sites"
        if in_loops:
            text += " (" + ", ".join(f"{n} {k} times from a host loop"
                                     for n, k in in_loops) + ")"
        launches.append(text)
        if calls != sites + sum(k - 1 for _, k in in_loops):
            failures.append(f"{name}: {calls} launches from {sites} sites")
    step_kernels = set().union(*(names[n] for n in STEP_ENTRIES))
    step_calls = sum(entries[n][1] for n in STEP_ENTRIES)
    launches.append(f"{step_calls} launches of {len(step_kernels)} distinct "
                    f"kernels ({step_calls / max(len(step_kernels), 1):.1f} "
                    f"per kernel)")
    if gemm_calls is not None and step_gemms != gemm_calls:
        failures.append(f"{step_gemms} GEMM calls per step, not {gemm_calls}")
    if failures:
        print("\n".join(failures[:20]))
        sys.exit(f"{len(failures)} failures")
    print(f"{kernels} kernels: {busy} with >= 4096 work items, all in blocks "
          f">= 128 threads (64 with shared tiles); grids and blocks within the limits; "
          f"{'; '.join(launches)}; {attention} grad-step attention kernels "
          f"with shared tiles; {step_gemms} GEMM calls per step")


if __name__ == "__main__":
    main()
