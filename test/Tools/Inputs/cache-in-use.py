#!/usr/bin/env python3
"""Runs `gptc cache ARGS...` while this process has BUNDLE's step.so mapped,
as a running `gptc train` has its step library loaded.

    cache-in-use.py GPTC BUNDLE ARGS...

Prints gptc's output and exit status.
"""
import mmap
import os
import subprocess
import sys

gptc, bundle, args = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(os.path.join(bundle, "step.so"), "rb") as f:
    mapped = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    r = subprocess.run([gptc, "cache"] + args, capture_output=True, text=True)
    mapped.close()
sys.stdout.write(r.stdout + r.stderr)
print(f"exit {r.returncode}")
