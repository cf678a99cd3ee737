"""Prints the root mean square of each named parameter of a --save-params
file (runtime/ParamFile.h): `NAME rms X`.

usage: param-rms.py PARAMS NAME...
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from gptc_outputs import read_params  # noqa: E402


def main():
    params = read_params(sys.argv[1])
    for name in sys.argv[2:]:
        _, values = params[name]
        rms = math.sqrt(sum(v * v for v in values) / len(values))
        print(f"{name} rms {rms:.3f}")


if __name__ == "__main__":
    main()
