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
import sys

from gptc_outputs import read_losses, read_params

LOSS_RTOL = 1e-5
TOL = {"adam": 1e-4, "muon": 1e-2}


def main():
    fused_log, plain_log, fused_p, plain_p, manifest = sys.argv[1:6]
    with open(manifest) as f:
        optimizer = {p["name"]: p["optimizer"] for p in json.load(f)["params"]}
    ok = True
    a, b = read_losses(fused_log), read_losses(plain_log)
    if not a or len(a) != len(b):
        print(f"loss lines differ in number: {len(a)} vs {len(b)}")
        return 1
    for step, (x, y) in enumerate(zip(a, b), 1):
        rel = abs(x - y) / max(abs(y), 1e-30)
        print(f"step {step}: loss fused {x:.6f} unfused {y:.6f} rel {rel:.2e}")
        ok &= rel <= LOSS_RTOL
    pa = {n: v for n, (_, v) in read_params(fused_p).items()}
    pb = {n: v for n, (_, v) in read_params(plain_p).items()}
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
