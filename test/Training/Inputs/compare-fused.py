"""Compares a fused and an unfused (--no-fuse) training run of one spec.

usage: compare-fused.py FUSED.log UNFUSED.log FUSED.params UNFUSED.params
                        MANIFEST.json

Logs: the `step N/M | loss X` lines must agree to LOSS_RTOL relative.
Params (runtime/ParamFile.h): every parameter must agree elementwise to
TOL[optimizer] * max|unfused parameter| (per parameter; the optimizer of
each parameter from the bundle's manifest.json). Prints the worst
deviations; exits 1 when a tolerance is broken.

Why Muon's tolerance is wider: Muon orthogonalises the gradient, and the
speedrun models zero-initialise the attention and MLP output projections,
so the first gradient of the matrices before them is pure round-off. Both
paths orthogonalise their own round-off into a full-size update (lr times
an orthogonal matrix), so those matrices differ by up to a few lr-sized
steps' worth of direction, and the bf16 Newton-Schulz adds its ulps.
Adam's update of a non-vanishing gradient is stable.
"""
import json
import re
import struct
import sys

LOSS_RTOL = 1e-5
TOL = {"adam": 1e-4, "muon": 1e-2}


def losses(path):
    out = []
    with open(path) as f:
        for line in f:
            m = re.match(r"step (\d+)/\d+ \| loss ([-0-9.eE+naif]+)", line)
            if m:
                out.append(float(m.group(2)))
    return out


def params(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"GPTCPAR1":
        sys.exit(f"{path}: not a gptc parameter file")
    (count,) = struct.unpack_from("<I", data, 8)
    pos, out = 12, {}
    for _ in range(count):
        (n,) = struct.unpack_from("<I", data, pos)
        name = data[pos + 4 : pos + 4 + n].decode()
        pos += 4 + n
        (rank,) = struct.unpack_from("<I", data, pos)
        dims = struct.unpack_from(f"<{rank}q", data, pos + 4)
        pos += 4 + 8 * rank
        size = 1
        for d in dims:
            size *= d
        out[name] = struct.unpack_from(f"<{size}f", data, pos)
        pos += 4 * size
    return out


def main():
    fused_log, plain_log, fused_p, plain_p, manifest = sys.argv[1:6]
    with open(manifest) as f:
        optimizer = {p["name"]: p["optimizer"] for p in json.load(f)["params"]}
    ok = True
    a, b = losses(fused_log), losses(plain_log)
    if not a or len(a) != len(b):
        print(f"loss lines differ in number: {len(a)} vs {len(b)}")
        return 1
    for step, (x, y) in enumerate(zip(a, b), 1):
        rel = abs(x - y) / max(abs(y), 1e-30)
        print(f"step {step}: loss fused {x:.6f} unfused {y:.6f} rel {rel:.2e}")
        ok &= rel <= LOSS_RTOL
    pa, pb = params(fused_p), params(plain_p)
    if pa.keys() != pb.keys():
        print("parameter names differ")
        return 1
    worst = {}
    for name in pb:
        scale = max(max(abs(v) for v in pb[name]), 1e-30)
        dev = max(abs(x - y) for x, y in zip(pa[name], pb[name])) / scale
        opt = optimizer[name]
        worst.setdefault(opt, ("", 0.0))
        if dev >= worst[opt][1]:
            worst[opt] = (name, dev)
        if dev > TOL[opt]:
            print(f"param {name} ({opt}): max deviation {dev:.2e} of max|p|")
            ok = False
    for opt, (name, dev) in sorted(worst.items()):
        print(f"params ({opt}): worst {name} {dev:.2e} of max|p| "
              f"(tolerance {TOL[opt]:g})")
    print("OK" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
