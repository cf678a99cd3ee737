"""Prints the root mean square of each named parameter of a --save-params
file (runtime/ParamFile.h): `NAME rms X`; of a checkpoint's .safetensors
file, with the tensor's stored dtype: `NAME DTYPE rms X`.

usage: param-rms.py PARAMS|FILE.safetensors NAME...
"""
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
from gptc_outputs import read_params, read_safetensors  # noqa: E402


def safetensors_dtypes(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    return {name: t["dtype"] for name, t in header.items()
            if name != "__metadata__"}


def main():
    path = sys.argv[1]
    tensors = path.endswith(".safetensors")
    params = read_safetensors(path) if tensors else read_params(path)
    dtypes = safetensors_dtypes(path) if tensors else {}
    for name in sys.argv[2:]:
        _, values = params[name]
        rms = math.sqrt(sum(v * v for v in values) / len(values))
        stored = f" {dtypes[name]}" if tensors else ""
        print(f"{name}{stored} rms {rms:.3f}")


if __name__ == "__main__":
    main()
