"""Trains the PyTorch R15 oracle (torch_r15.py) from gptc's initial weights
on the same batches and compares the losses with a gptc training log.

usage: torch-r15-agreement.py BUNDLE INIT.safetensors GPTC.log SHARD
           [--window-mask tokens|record_blocks] [--steps N] [--rtol R]
           [--dtype f64|f32] [--scalars f64|f32]
           [--final MODEL.safetensors] [--param-rtol R]

BUNDLE is the `gptc compile` directory: its spec.yaml (the spec resolved,
--set applied) gives the model, the optimizer groups and the schedules.
INIT is the model.safetensors of a `gptc train --steps 0` checkpoint (the
bundle's dtype; --save-params files are float32 whatever it is). GPTC.log
is a `gptc train --log` file (the f32 loss slot to 9 digits; a text log's
6 decimals are too coarse for f64) or a text log. The batches are the ones
gptc's data loader reads from the start of SHARD: B*T + 1 tokens per step,
advancing B*T. --dtype is the oracle's: f64 against an f64 bundle with f64
Newton-Schulz; f32 to see how far f32 drifts. --scalars f32 computes the
lr multiplier, Muon's momentum and Adam's bias corrections in float32, as
gptc's step does. --final compares every parameter of gptc's checkpoint
after the last step with the oracle's (the largest difference of a tensor
over its largest magnitude), to PARAM_RTOL.

Prints both losses per step; exits 1 on a disagreement (relative difference
above RTOL). gptc's loss is an f32 (runtime/Trainer.cpp's loss slot): half
an f32 ulp, up to 6e-8 relative, is the finest agreement it can show.
"""
import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gptc_outputs import (read_json_losses, read_losses,  # noqa: E402
                          read_safetensors)
import torch_r15  # noqa: E402


def load(path, dtype):
    return {n: np.array(v, dtype=dtype).reshape(dims)
            for n, (dims, v) in read_safetensors(path).items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bundle")
    ap.add_argument("init")
    ap.add_argument("log")
    ap.add_argument("shard")
    ap.add_argument("--window-mask", choices=["tokens", "record_blocks"],
                    help="the mask rule (default: the spec's window_unit)")
    ap.add_argument("--steps", type=int, default=0,
                    help="steps to compare (default: all of the log's)")
    ap.add_argument("--rtol", type=float, default=1e-7)
    ap.add_argument("--dtype", choices=["f64", "f32"], default="f64")
    ap.add_argument("--scalars", choices=["f64", "f32"], default="f64")
    ap.add_argument("--final", help="gptc's model.safetensors after the run")
    ap.add_argument("--param-rtol", type=float, default=1e-7)
    args = ap.parse_args()
    torch.set_num_threads(1)
    dtype = torch.float64 if args.dtype == "f64" else torch.float32

    spec = torch_r15.read_spec(os.path.join(args.bundle, "spec.yaml"))
    t = spec["training"]
    if t["batch"] != t["device_batch"] or t["ranks"] != 1:
        sys.exit("one rank without gradient accumulation only")
    B, T = t["device_batch"], t["seq_len"]
    model = torch_r15.R15(spec, load(args.init, np.float64), dtype,
                          args.window_mask)
    opt = torch_r15.Optimizers(spec, model.params, args.scalars)

    want = read_json_losses(args.log) if args.log.endswith(".jsonl") \
        else read_losses(args.log)
    if args.steps:
        want = want[:args.steps]
    if not want:
        sys.exit(f"{args.log}: no step losses")
    tokens = np.fromfile(args.shard, dtype=np.uint16,
                         offset=1024).astype(np.int64)
    if len(want) * B * T + 1 > tokens.size:
        sys.exit(f"{args.shard}: too short for {len(want)} steps")
    worst = 0.0
    for step, gptc_loss in enumerate(want):
        buf = torch.from_numpy(tokens[step * B * T:(step + 1) * B * T + 1])
        x, y = buf[:-1].view(B, T), buf[1:].view(B, T)
        loss = model.loss(x, y, step)
        loss.backward()
        opt.step(step)
        for p in model.params.values():
            p.grad = None
        rel = abs(gptc_loss - loss.item()) / abs(loss.item())
        worst = max(worst, rel)
        # gptc's f32 loss against ours rounded to f32, in f32 ulps.
        ours = np.float32(loss.item())
        ulps = (np.float32(gptc_loss) - ours) / np.spacing(ours)
        print(f"step {step + 1}: loss gptc {gptc_loss:.9f} pytorch "
              f"{loss.item():.9f} rel {rel:.2e} ({ulps:+.0f} f32 ulp, window "
              f"{torch_r15.window_tokens(spec, step)})")
    ok = worst <= args.rtol
    if args.final:
        final, pworst = load(args.final, np.float64), 0.0
        for name, p in model.params.items():
            ours = p.detach().double().numpy()
            diff = np.abs(final[name] - ours).max() / np.abs(ours).max()
            pworst = max(pworst, diff)
            if diff > args.param_rtol:
                print(f"param {name}: relative difference {diff:.2e}")
        pok = pworst <= args.param_rtol
        print(f"parameters after step {len(want)}: worst relative difference"
              f" {pworst:.2e} (tolerance {args.param_rtol:.0e}): "
              f"{'OK' if pok else 'DISAGREE'}")
        ok = ok and pok
    print(f"worst relative difference {worst:.2e} (tolerance {args.rtol:.0e})"
          f": {'OK' if worst <= args.rtol else 'DISAGREE'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
