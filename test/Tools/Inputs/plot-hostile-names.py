#!/usr/bin/env python3
"""Runs `gptc plot` on logs whose names would be gnuplot commands.

    plot-hostile-names.py GPTC DIR

In DIR: a log named with a backquoted command and a quote (the PNG's
default name repeats it), and an output name with a newline followed by
gnuplot's shell escape `!`. Prints one line per case: the exit status,
whether the PNG was written, and whether either command ran (the files
they would create).
"""
import os
import subprocess
import sys

gptc, d = sys.argv[1], sys.argv[2]
os.makedirs(d, exist_ok=True)
line = '{"type":"train","step":%d,"tokens":%d,"loss":%g}\n'
body = "".join(line % (s, s * 256, 5.0 - 0.1 * s) for s in range(1, 6))

log = os.path.join(d, "run`touch backquote-ran`'quote.jsonl")
with open(log, "w") as f:
    f.write(body)
r = subprocess.run([gptc, "plot", log], cwd=d, capture_output=True, text=True)
png = log[: -len(".jsonl")] + ".png"
print(f"backquote: exit {r.returncode}, png {os.path.exists(png)}, "
      f"ran {os.path.exists(os.path.join(d, 'backquote-ran'))}")

plain = os.path.join(d, "plain.jsonl")
with open(plain, "w") as f:
    f.write(body)
out = os.path.join(d, "x.png\n!touch bang-ran\n")
r = subprocess.run([gptc, "plot", plain, "-o", out], cwd=d,
                   capture_output=True, text=True)
print(f"newline: exit {r.returncode}, "
      f"ran {os.path.exists(os.path.join(d, 'bang-ran'))}")
print(r.stderr.strip())
