"""Greedy decoding of a gptc checkpoint by PyTorch: the oracle of
`gptc sample --temperature 0`.

usage: greedy-oracle.py BENCH_DIR MODEL.safetensors PROMPT N
           --layers L --width D --heads H --head-dim K --seq T

Loads the checkpoint's weights into the project's independent PyTorch
implementation of the R8 model (bench/pytorch_step.py, as
torch-agreement.test does), then from BOS (256) and the prompt's bytes
appends the most likely next token N times, each from the last T tokens,
and prints `ids: ...` as gptc sample --ids does.
"""
import argparse
import os
import sys

import numpy as np
import torch
from safetensors.numpy import load_file

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gptc_outputs import copy_weights  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("model")
    ap.add_argument("prompt")
    ap.add_argument("n", type=int)
    for name in ("layers", "width", "heads", "head-dim", "seq"):
        ap.add_argument("--" + name, type=int, required=True)
    args = ap.parse_args()
    sys.path.insert(0, args.bench)
    import pytorch_step as ps

    torch.manual_seed(0)
    w = load_file(args.model)
    model = ps.GPT(w["wte"].shape[0], args.layers, args.width, args.heads,
                   args.head_dim)
    copy_weights(model, w)
    vocab = 257  # the byte vocabulary; the head's padding rows are not ids
    ids = [256] + list(args.prompt.encode())
    out = []
    with torch.no_grad():
        for _ in range(args.n):
            idx = torch.tensor([ids[-args.seq:]])
            x = ps.norm(model.wte(idx))
            for b in model.blocks:
                x = b(x)
            logits = model.lm_head(ps.norm(x)).float()[0, -1, :vocab]
            nxt = int(torch.argmax(logits))
            out.append(nxt)
            if nxt == 256:
                break
            ids.append(nxt)
    print("ids: " + " ".join(map(str, out)))


if __name__ == "__main__":
    main()
