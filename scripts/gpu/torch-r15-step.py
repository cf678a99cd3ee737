#!/usr/bin/env python3
"""The R15 step in PyTorch on the same GPU, timed as gpu-check.sh times
gptc's: the project's PyTorch model of the R15 family (torch_r15.py, the
oracle of test/Training/torch-r15-agreement.test) at the bundle's shapes
(its spec.yaml and manifest.json), with the record's FlexAttention block
mask in place of the oracle's dense one, the loss's forward and backward
under torch.compile, the optimizers as the oracle runs them (Muon's
Newton-Schulz in bf16, Adam). Parameters in the bundle's storage type
(bf16), initialised at random from the manifest's shapes; the tokens are
the pack's shard, the same ids gptc-run read.

Prints one line: `pytorch r15: median X ms/step over N steps after W of
warm-up (min, max)`, each step timed with CUDA events around the block
mask, forward, backward and the optimizer step. The logits' cross-entropy
is taken in f32 (as the record and gptc do).

  torch-r15-step.py BUNDLE SHARD [--steps 30] [--warmup 10]
"""
import argparse
import json
import os
import statistics
import sys

import numpy as np
import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_r15  # noqa: E402


class FlexR15(torch_r15.R15):
    """torch_r15.R15 on the GPU, its attention FlexAttention's."""

    def __init__(self, spec, weights, dtype, device):
        super().__init__(spec, weights, dtype, window_mask="record_blocks")
        self.device = device
        self.params = {n: p.detach().to(device).requires_grad_()
                       for n, p in self.params.items()}
        # The rotary tables in f32 (bf16 positions are not exact past 256),
        # rounded to the model's type, as gptc's and the record's are.
        half = self.D // 2
        base = spec["model"]["attention"]["rotary_base"]
        self.inv_freq = torch.tensor(
            [1.0 / base ** (2.0 * j / self.D) for j in range(half)],
            dtype=torch.float32, device=device)

    def rotary(self, x):
        T, half = x.size(1), self.D // 2
        angle = torch.outer(torch.arange(T, device=x.device,
                                         dtype=torch.float32), self.inv_freq)
        cos = angle.cos().to(x.dtype)[None, :, None, :]
        sin = angle.sin().to(x.dtype)[None, :, None, :]
        x1, x2 = x[..., :half], x[..., half:]
        return torch.cat([x1 * cos + x2 * sin, x2 * cos - x1 * sin], -1)

    def mask(self, x, step):
        """The record's BlockMask: causal, the sliding window in tokens and
        in 128-token blocks, the same document. One mask function for every
        step, reading tensors updated in place (a new function or new
        captured values would make torch.compile compile the step again)."""
        if not hasattr(self, "_doc"):
            self._doc = torch.zeros_like(x, dtype=torch.int32)
            self._sw = torch.zeros((), dtype=torch.int32, device=x.device)
            self._blocks = torch.zeros((), dtype=torch.int32, device=x.device)
            doc, sw, blocks = self._doc, self._sw, self._blocks

            def allowed(b, h, q, k):
                return ((k <= q) & (q - k < sw)
                        & (q // 128 - k // 128 < blocks)
                        & (doc[b, q] == doc[b, k]))
            self._allowed = allowed
        window = torch_r15.window_tokens(self.spec, step)
        self._sw.fill_(window)
        self._blocks.fill_(-(-window // 128))
        self._doc.copy_((x == self.bos).int().cumsum(1))
        B, T = x.shape
        return create_block_mask(self._allowed, B, None, T, T,
                                 device=x.device, _compile=True)

    def attend(self, q, k, v, block_mask):
        return flex_attention(q, k, v, block_mask=block_mask,
                              scale=self.scale)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bundle")
    ap.add_argument("shard")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=10)
    a = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("torch-r15-step: no CUDA device for PyTorch")
    spec = torch_r15.read_spec(os.path.join(a.bundle, "spec.yaml"))
    manifest = json.load(open(os.path.join(a.bundle, "manifest.json")))
    dtype = torch.bfloat16
    gen = torch.Generator().manual_seed(0)
    weights = {}
    for p in manifest["params"]:
        shape = p["shape"]
        std = 0.02 if len(shape) == 2 else 0.0
        w = torch.randn(shape, generator=gen) * std if std else \
            torch.full(shape, 0.5)
        weights[p["name"]] = w
    device = torch.device("cuda")
    model = FlexR15(spec, {n: w.numpy() for n, w in weights.items()}, dtype,
                    device)
    opt = torch_r15.Optimizers(spec, model.params)
    T = manifest["seq_len"] * manifest["device_batch"]
    header = np.fromfile(a.shard, dtype=np.int32, count=256)
    tokens = np.fromfile(a.shard, dtype=np.uint16, offset=1024,
                         count=int(header[2]))
    need = (a.steps + a.warmup) * T + 1
    if len(tokens) < need:
        raise SystemExit(f"torch-r15-step: {a.shard} has {len(tokens)} tokens,"
                         f" {need} needed")
    loss_fn = torch.compile(model.loss_masked)
    # Newton-Schulz compiled too, as the record compiles it (one graph per
    # matrix shape); Adam as torch.optim runs it (foreach=False, the
    # oracle's setting).
    torch_r15.newton_schulz = torch.compile(torch_r15.newton_schulz)
    times = []
    for step in range(a.warmup + a.steps):
        chunk = torch.from_numpy(tokens[step * T:step * T + T + 1].astype(
            np.int64)).to(device)
        x = chunk[:-1].view(manifest["device_batch"], -1)
        y = chunk[1:].view(manifest["device_batch"], -1)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        loss = loss_fn(x, y, model.mask(x, step))
        loss.backward()
        opt.step(step)
        for p in model.params.values():
            p.grad = None
        end.record()
        torch.cuda.synchronize()
        if step >= a.warmup:
            times.append(start.elapsed_time(end))
        if step == 0:
            print(f"pytorch r15: first step (compile included) "
                  f"{start.elapsed_time(end) / 1000:.1f} s, loss "
                  f"{loss.item():.4f}", flush=True)
    print(f"pytorch r15: median {statistics.median(times):.1f} ms/step over "
          f"{len(times)} steps after {a.warmup} of warm-up (min "
          f"{min(times):.1f}, max {max(times):.1f}); torch {torch.__version__}")


if __name__ == "__main__":
    main()
