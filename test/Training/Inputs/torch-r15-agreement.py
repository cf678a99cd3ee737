"""Trains the PyTorch R15 oracle (torch_r15.py) from gptc's initial weights
on the same batches and compares the losses with a gptc training log.

usage: torch-r15-agreement.py BUNDLE INIT.safetensors GPTC.log SHARD
           [--window-mask tokens|record_blocks] [--steps N] [--rtol R]
           [--dtype f64|f32] [--final MODEL.safetensors] [--param-rtol R]
           [--adam-step-check BEFORE AFTER]... [--adam-rtol R]
           [--storage spec|compute]

BUNDLE is the `gptc compile` directory: its spec.yaml (the spec resolved,
--set applied) gives the model, the optimizer groups and the schedules.
INIT is the model.safetensors of a `gptc train --steps 0` checkpoint (the
bundle's dtype; --save-params files are float32 whatever it is). GPTC.log
is a `gptc train --log` file (the f32 loss slot to 9 digits; a text log's
6 decimals are too coarse for f64) or a text log. The batches are the ones
gptc's data loader reads from the start of SHARD: B*T + 1 tokens per step,
advancing B*T. --dtype is the oracle's: f64 against an f64 bundle with f64
Newton-Schulz; f32 to see how far f32 drifts. --final compares every parameter of gptc's checkpoint
after the last step with the oracle's (the largest difference of a tensor
over its largest magnitude), to PARAM_RTOL. Groups with `storage: bf16`
are rounded to bf16 after each step as gptc stores them; --storage compute
keeps them in the oracle's dtype (a control that must disagree).

--adam-step-check BEFORE AFTER (repeatable) takes two checkpoint
directories of gptc one step apart (BEFORE may be INIT's) and compares,
for every parameter of the Adam groups, gptc's value after the step with
torch.optim.Adam's from BEFORE's weights and moments, to ADAM_RTOL (the
largest difference of a tensor over its largest magnitude, and elementwise
over its elements above 1e-3 of that):
  gptc's grad: Adam fed gptc's own gradient, read back from its moments
      (m1 = m0 + (1 - b1)(g - m0)): the optimizer step alone (p, m, v);
  pytorch's grad: the oracle's gradient of BEFORE's weights on that
      step's batch; the gradients' relative difference is printed beside.

Prints both losses per step; exits 1 on a disagreement (relative difference
above RTOL). gptc's loss is an f32 (runtime/Trainer.cpp's loss slot): half
an f32 ulp, up to 6e-8 relative, is the finest agreement it can show.
"""
import argparse
import json
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


def rel(a, b):
    """|a - b| over b's largest magnitude, and elementwise over b's
    elements above 1e-3 of it."""
    d, top = np.abs(a - b), np.abs(b).max()
    big = np.abs(b) > 1e-3 * top
    return d.max() / top if top else d.max(), \
        (d[big] / np.abs(b[big])).max() if big.any() else 0.0


def one_adam_step(spec, weights, state, step, grads):
    """torch_r15.Optimizers from gptc's checkpoint (weights, Adam's m, v
    and step count) after one step on `grads` (the Adam parameters')."""
    params = {n: torch.tensor(w, dtype=torch.float64, requires_grad=True)
              for n, w in weights.items()}
    opt = torch_r15.Optimizers(spec, params)
    for name, adam in opt.adam.items():
        for p in adam.param_groups[0]["params"]:
            n = next(k for k, q in params.items() if q is p)
            p.grad = grads[n]
            adam.state[p] = {"step": torch.tensor(float(step)),
                             "exp_avg": torch.tensor(state[n + ".m"]),
                             "exp_avg_sq": torch.tensor(state[n + ".v"])}
    opt.step(step)
    return {n: (params[n].detach().numpy(), st["exp_avg"].numpy(),
                st["exp_avg_sq"].numpy(), name)
            for name, adam in opt.adam.items()
            for p, st in adam.state.items()
            for n in [next(k for k, q in params.items() if q is p)]}


def adam_step_check(args, spec, batch, before, after):
    """gptc's step from checkpoint BEFORE to AFTER against torch.optim.Adam's
    on every Adam parameter: fed gptc's gradient, then the oracle's."""
    def read(d):
        state = {n[len("state."):]: w for n, w in
                 load(os.path.join(d, "optimizer.safetensors"),
                      np.float64).items()}
        step = json.load(open(os.path.join(d, "checkpoint.json")))["step"]
        return load(os.path.join(d, "model.safetensors"), np.float64), \
            state, step
    (w0, s0, step), (w1, s1, step1) = read(before), read(after)
    if step1 != step + 1:
        sys.exit(f"{before} -> {after}: steps {step} -> {step1}, not one")
    model = torch_r15.R15(spec, w0, torch.float64, args.window_mask)
    x, y = batch(step)
    model.loss(x, y, step).backward()
    ours = {n: p.grad for n, p in model.params.items()}
    # gptc's gradient from its first moment: m1 = m0 + (1 - b1)(g - m0).
    theirs = {}
    for g in spec["optimizer"]["groups"].values():
        for n in w0:
            if g["kind"] == "adam" and any(
                    torch_r15.glob_match(pat, n) for pat in g["params"]):
                m0, m1 = s0[n + ".m"], s1[n + ".m"]
                grad = m0 + (m1 - m0) / (1 - g["betas"][0])
                if not g["decoupled_weight_decay"]:
                    grad = grad - g["weight_decay"] * w0[n]
                theirs[n] = torch.from_numpy(grad)
    alone = one_adam_step(spec, w0, s0, step, theirs)
    own = one_adam_step(spec, w0, s0, step, ours)
    worst = 0.0
    print(f"Adam step {step} -> {step1} ({before} -> {after}):")
    for n, (p, m, v, name) in alone.items():
        pa, pe = rel(w1[n], p)
        oa, oe = rel(w1[n], own[n][0])
        worst = max(worst, pa, pe, oa, oe)
        print(f"  {n} ({name}): gptc's grad: p {pa:.1e} (elementwise "
              f"{pe:.1e}) m {rel(s1[n + '.m'], m)[0]:.1e} v "
              f"{rel(s1[n + '.v'], v)[0]:.1e}; pytorch's grad: p {oa:.1e} "
              f"(elementwise {oe:.1e}), grad {rel(ours[n].numpy(), theirs[n].numpy())[0]:.1e}")
    ok = worst <= args.adam_rtol
    print(f"Adam step {step1}: worst relative difference {worst:.2e} "
          f"(tolerance {args.adam_rtol:.0e}): {'OK' if ok else 'DISAGREE'}")
    return ok


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
    ap.add_argument("--final", help="gptc's model.safetensors after the run")
    ap.add_argument("--param-rtol", type=float, default=1e-7)
    ap.add_argument("--adam-step-check", nargs=2, action="append",
                    default=[], metavar=("BEFORE", "AFTER"),
                    help="two checkpoint directories of gptc, one step "
                    "apart")
    ap.add_argument("--adam-rtol", type=float, default=1e-12)
    ap.add_argument("--storage", choices=["spec", "compute"], default="spec",
                    help="compute: keep every parameter in the oracle's "
                    "dtype whatever the groups' storage (a control)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    dtype = torch.float64 if args.dtype == "f64" else torch.float32

    spec = torch_r15.read_spec(os.path.join(args.bundle, "spec.yaml"))
    if args.storage == "compute":
        for g in spec["optimizer"]["groups"].values():
            g.pop("storage", None)
    t = spec["training"]
    if t["batch"] != t["device_batch"] or t["ranks"] != 1:
        sys.exit("one rank without gradient accumulation only")
    B, T = t["device_batch"], t["seq_len"]
    model = torch_r15.R15(spec, load(args.init, np.float64), dtype,
                          args.window_mask)
    opt = torch_r15.Optimizers(spec, model.params)

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

    def batch(step):
        buf = torch.from_numpy(tokens[step * B * T:(step + 1) * B * T + 1])
        return buf[:-1].view(B, T), buf[1:].view(B, T)

    worst = 0.0
    for step, gptc_loss in enumerate(want):
        x, y = batch(step)
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
    for before, after in args.adam_step_check:
        ok = adam_step_check(args, spec, batch, before, after) and ok
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
