"""Compares two `gptc train --save-params` files (runtime/ParamFile.h).

    compare-params.py A.bin B.bin --rtol R

Prints the largest difference of each parameter relative to the largest
magnitude in A's copy of it; exits 1 when the files hold different
parameters or shapes, or a difference exceeds R.
"""
import argparse
import struct
import sys


def read(path):
    data = open(path, "rb").read()
    if data[:8] != b"GPTCPAR1":
        sys.exit(f"{path}: not a gptc parameter file")
    (count,) = struct.unpack_from("<I", data, 8)
    at, params = 12, {}
    for _ in range(count):
        (length,) = struct.unpack_from("<I", data, at)
        at += 4
        name = data[at:at + length].decode()
        at += length
        (rank,) = struct.unpack_from("<I", data, at)
        at += 4
        dims = struct.unpack_from(f"<{rank}q", data, at)
        at += 8 * rank
        n = 1
        for d in dims:
            n *= d
        params[name] = (dims, struct.unpack_from(f"<{n}f", data, at))
        at += 4 * n
    return params


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rtol", type=float, required=True)
    args = ap.parse_args()
    a, b = read(args.a), read(args.b)
    if a.keys() != b.keys():
        sys.exit("the files hold different parameters")
    worst = 0.0
    for name, (dims, va) in a.items():
        dims_b, vb = b[name]
        if dims != dims_b:
            sys.exit(f"{name}: shapes {dims} and {dims_b}")
        scale = max(abs(x) for x in va) or 1.0
        rel = max(abs(x - y) for x, y in zip(va, vb)) / scale
        worst = max(worst, rel)
        print(f"{name}: rel {rel:.2e}")
    ok = worst <= args.rtol
    print(f"{len(a)} parameters {'agree' if ok else 'DIFFER'} "
          f"(max rel {worst:.2e}, rtol {args.rtol:g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
