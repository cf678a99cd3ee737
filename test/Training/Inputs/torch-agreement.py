"""Trains PyTorch's R8 (bench/pytorch_step.py) from gptc's initial weights on
the same batches and compares the losses with a gptc training log.

usage: torch-agreement.py BENCH_DIR INIT.params GPTC.log SHARD
                          --layers L --width D --heads H --head-dim HD
                          --seq T --batch B [--rtol R]

INIT.params is `gptc train --steps 0 --save-params` (runtime/ParamFile.h);
the batches are the ones gptc's data loader reads from the start of SHARD
(B*T + 1 tokens per step, advancing B*T). Every step's loss must agree to
RTOL relative (default 2e-4: both are f32 with bf16 Newton-Schulz, whose
rounding differs; a wrong gradient term is off by percents within two
steps). Prints both losses per step; exits 1 on a disagreement.
"""
import argparse
import sys

import numpy as np
import torch

from gptc_outputs import copy_weights, read_losses, read_params


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench_dir")
    ap.add_argument("init")
    ap.add_argument("log")
    ap.add_argument("shard")
    for name in ("layers", "width", "heads", "head-dim", "seq", "batch"):
        ap.add_argument("--" + name, type=int, required=True)
    ap.add_argument("--rtol", type=float, default=2e-4)
    args = ap.parse_args()
    sys.path.insert(0, args.bench_dir)
    import pytorch_step as ps

    torch.manual_seed(0)
    torch.set_num_threads(1)
    init = {n: np.frombuffer(v, np.float32).reshape(dims).copy()
            for n, (dims, v) in read_params(args.init).items()}
    vocab = init["wte"].shape[0]
    model = ps.GPT(vocab, args.layers, args.width, args.heads, args.head_dim)
    copy_weights(model, init)
    hidden = [p for b in model.blocks for p in b.parameters()]
    opts = [torch.optim.Adam([model.wte.weight], lr=0.3, betas=(0.9, 0.95),
                             eps=1e-8),
            torch.optim.Adam([model.lm_head.weight], lr=0.002,
                             betas=(0.9, 0.95), eps=1e-8),
            ps.Muon(hidden, lr=0.02, momentum=0.95)]

    want = read_losses(args.log)
    if not want:
        sys.exit(f"{args.log}: no step losses")
    tokens = np.fromfile(args.shard, dtype=np.uint16,
                         offset=1024).astype(np.int64)
    B, T = args.batch, args.seq
    worst = 0.0
    for step, gptc_loss in enumerate(want):
        buf = torch.from_numpy(tokens[step * B * T:(step + 1) * B * T + 1])
        x, y = buf[:-1].view(B, T), buf[1:].view(B, T)
        loss = model(x, y)
        loss.backward()
        for o in opts:
            o.step()
        model.zero_grad(set_to_none=True)
        rel = abs(gptc_loss - loss.item()) / abs(loss.item())
        worst = max(worst, rel)
        print(f"step {step + 1}: loss gptc {gptc_loss:.6f} pytorch "
              f"{loss.item():.6f} rel {rel:.2e}")
    ok = worst <= args.rtol
    print(f"worst relative difference {worst:.2e} (tolerance {args.rtol:.0e})"
          f": {'OK' if ok else 'DISAGREE'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
