#!/usr/bin/env python3
"""Prints, per function of an --emit=buffers module, how many runtime GEMM
calls it makes, how many of them accumulate into C (alpha = beta = 1) and
how many scale in their epilogue (any other alpha, or a beta that is
neither 0 nor 1): `NAME: N GEMM calls, M accumulate, E scale`."""
import re
import sys

text = open(sys.argv[1]).read()
for match in re.finditer(r"func\.func @(\w+)\(.*?\n  }\n", text, re.S):
    name, body = match.group(1), match.group(0)
    constants = dict(re.findall(r"(%[\w]+) = arith\.constant ([^ ]+) : f(?:32|64)", body))
    calls = re.findall(r"call @gptc_gemm_\w+\(([^)]*)\)", body)
    if not calls:
        continue
    # GPTC_GEMM_ARGS: alpha is argument 13, beta 14.
    scales = [tuple(float(constants.get(c.split(", ")[i], "nan")) for i in (13, 14))
              for c in calls]
    accumulate = sum(1 for a, b in scales if a == 1.0 and b == 1.0)
    scale = sum(1 for a, b in scales if not (a == 1.0 and b in (0.0, 1.0)))
    print(f"{name}: {len(calls)} GEMM calls, {accumulate} accumulate, {scale} scale")
