"""f32 drift of gptc and of PyTorch from the f64 PyTorch R15 oracle
(test/Training/Inputs/torch_r15.py), over the runs bench/f32-drift.sh makes.

usage: f32_drift.py BUNDLE INIT.safetensors SHARD OUT.safetensors
           LABEL:NS:GPTC.jsonl:GPTC_MODEL.safetensors...

BUNDLE gives the spec (its spec.yaml; its dtype and ns_dtype are not used).
INIT holds the starting weights of every run (f64 values of f32 numbers);
OUT is where they are written as f32 for `gptc train --init` (written when
no GPTC runs are given). The reference is the oracle in f64 with f64
Newton-Schulz; each gptc run (LABEL, its Newton-Schulz dtype NS) is set
beside the oracle in f32 with the same NS. Both f32 models use
finfo(f32).eps in their norms (norm_eps_from_dtype), so the reference does
too. Prints per step the loss's relative difference from the reference,
gptc's and PyTorch's side by side, and after the last step the parameters'
difference: the worst tensor's largest over its largest magnitude, and
||a - b|| / ||b|| over all parameters.
"""
import json
import os
import struct
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "Training", "Inputs"))
from gptc_outputs import read_json_losses, read_safetensors  # noqa: E402
import torch_r15  # noqa: E402


def load(path):
    return {n: np.array(v, dtype=np.float64).reshape(dims)
            for n, (dims, v) in read_safetensors(path).items()}


def write_f32(path, weights):
    header, blobs, offset = {}, [], 0
    for n, w in weights.items():
        b = np.ascontiguousarray(w, dtype="<f4").tobytes()
        header[n] = {"dtype": "F32", "shape": list(w.shape),
                     "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def train(spec, init, batches, dtype, ns, grads2=None):
    """Losses per step, the final weights (f64) and the second step's
    gradients of the oracle; `grads2` replaces some of those."""
    spec = json.loads(json.dumps(spec))
    for g in spec["optimizer"]["groups"].values():
        if g["kind"] == "muon":
            g["ns_dtype"] = ns
    model = torch_r15.R15(spec, init, dtype)
    model.eps = torch.finfo(torch.float32).eps
    opt = torch_r15.Optimizers(spec, model.params)
    losses, seen = [], {}
    for step, (x, y) in enumerate(batches):
        loss = model.loss(x, y, step)
        loss.backward()
        if step == 1:
            seen = {n: p.grad.double().numpy().copy()
                    for n, p in model.params.items()}
            for n, g in (grads2 or {}).items():
                model.params[n].grad.copy_(torch.from_numpy(g))
        opt.step(step)
        for p in model.params.values():
            p.grad = None
        losses.append(loss.item())
    return losses, {n: p.detach().double().numpy()
                    for n, p in model.params.items()}, seen


def param_diff(a, ref):
    worst = max(np.abs(a[n] - r).max() / np.abs(r).max()
                for n, r in ref.items())
    num = sum(np.square(a[n] - r).sum() for n, r in ref.items())
    den = sum(np.square(r).sum() for r in ref.values())
    return worst, (num / den) ** 0.5


def main():
    bundle, init_path, shard, out = sys.argv[1:5]
    runs = [r.split(":") for r in sys.argv[5:]]
    torch.set_num_threads(1)
    init = {n: w.astype(np.float32).astype(np.float64)
            for n, w in load(init_path).items()}
    if not runs:
        write_f32(out, init)
        return 0
    spec = torch_r15.read_spec(os.path.join(bundle, "spec.yaml"))
    t = spec["training"]
    B, T, N = t["device_batch"], t["seq_len"], t["steps"]
    tokens = np.fromfile(shard, dtype=np.uint16, offset=1024).astype(np.int64)
    batches = []
    for s in range(N):
        buf = torch.from_numpy(tokens[s * B * T:(s + 1) * B * T + 1])
        batches.append((buf[:-1].view(B, T), buf[1:].view(B, T)))
    ref_loss, ref_w, ref_g2 = train(spec, init, batches, torch.float64, "f64")
    for label, ns, log, final in runs:
        ours_loss, ours_w, _ = train(spec, init, batches, torch.float32, ns)
        gptc_loss, gptc_w = read_json_losses(log)[:N], load(final)
        # The Adam parameters still at their initial moments after step 1
        # (no gradient yet): gptc's step-2 gradient g = m2 / (1 - b1), and
        # the f64 oracle's, each fed to PyTorch's f32 run instead of its own.
        ckpt = os.path.dirname(os.path.dirname(final))
        m1 = load(os.path.join(ckpt, "step_1", "optimizer.safetensors"))
        m2 = load(os.path.join(ckpt, "step_2", "optimizer.safetensors"))
        fed = {}
        for g in spec["optimizer"]["groups"].values():
            for n in init:
                if g["kind"] == "adam" and any(
                        torch_r15.glob_match(p, n) for p in g["params"]) \
                        and not m1[f"state.{n}.m"].any():
                    fed[n] = m2[f"state.{n}.m"] / np.float32(1 - g["betas"][0])
        fed_gptc = train(spec, init, batches, torch.float32, ns, fed)
        fed_f64 = train(spec, init, batches, torch.float32, ns,
                        {n: ref_g2[n] for n in fed})
        print(f"{label}: relative loss difference from the f64 oracle "
              f"(f64 Newton-Schulz), gptc f32 and PyTorch f32 with {ns} "
              "Newton-Schulz")
        print(f"  (fed: PyTorch f32 given, in step 2, gptc's or the f64 "
              f"oracle's gradient of {len(fed)} Adam parameters without one "
              f"in step 1: {', '.join(fed)})")
        print("  step  f64 loss      gptc f32   pytorch f32  fed gptc's  "
              "fed f64")
        curves = [gptc_loss, ours_loss, fed_gptc[0], fed_f64[0]]
        for s in range(N):
            print(f"  {s + 1:4d}  {ref_loss[s]:.9f}  " + "  ".join(
                f"{abs(c[s] - ref_loss[s]) / ref_loss[s]:.2e}  "
                for c in curves))
        diffs = [param_diff(w, ref_w) for w in
                 (gptc_w, ours_w, fed_gptc[1], fed_f64[1])]
        print(f"  parameters after step {N}, worst tensor: " + "  ".join(
            f"{d[0]:.2e}" for d in diffs))
        print(f"  parameters after step {N}, all in norm:  " + "  ".join(
            f"{d[1]:.2e}" for d in diffs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
