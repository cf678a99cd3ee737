#!/usr/bin/env python3
"""Prints, per function of an --emit=buffers module, how many runtime GEMM
calls it makes and how many of them accumulate into C (beta = 1):
`NAME: N GEMM calls, M accumulate`."""
import re
import sys

text = open(sys.argv[1]).read()
for match in re.finditer(r"func\.func @(\w+)\(.*?\n  }\n", text, re.S):
    name, body = match.group(1), match.group(0)
    constants = dict(re.findall(r"(%[\w]+) = arith\.constant ([^ ]+) : f(?:32|64)", body))
    calls = re.findall(r"call @gptc_gemm_\w+\(([^)]*)\)", body)
    if not calls:
        continue
    betas = [constants.get(c.split(", ")[13], "?") for c in calls]
    accumulate = sum(1 for b in betas if b != "0.000000e+00")
    print(f"{name}: {len(calls)} GEMM calls, {accumulate} accumulate")
