#!/usr/bin/env python3
"""PyTorch eager baseline for bench/step-vs-pytorch.sh.

The R8 architecture of models/speedrun-r08-untied.yaml, written the way the
speedrun writes it: untied zero-initialised head, RMSNorm after the embedding,
pre-norm blocks, QK-norm before rotary, ReLU^2 MLP, zero-initialised output
projections, causal attention; Muon (sum-form Nesterov, 5 quintic
Newton-Schulz steps in bf16 in the R3-R10 form B = A X, X = a X + b B + c A B,
scale sqrt(max(1, rows/cols))) on the hidden
matrices and Adam on wte and lm_head. One training step = forward, backward
and optimizer update, exactly what a gptc step.so does.

Prints one line: `pytorch: N tok/s (S s/step over K steps)`. With --compile
(PyTorch 2.x), the model's forward and backward and the Newton-Schulz
iteration go through torch.compile (Inductor's generated C++ and its GEMM
calls); the run fails rather than fall back to eager, prints how many graphs
Inductor compiled and how many graph breaks Dynamo took, and its line reads
`pytorch-compile: N tok/s ...`. With --dtype bf16 the forward runs under
CPU bf16 autocast, as the speedrun runs it on the GPU (f32 parameters, bf16
GEMMs and attention, the logits cast to f32 for the loss).
"""
import argparse
import time

import numpy as np
import torch
import torch.nn.functional as F

try:
    import torch._dynamo  # PyTorch 2.x: torch.compile
except ImportError:
    pass


def norm(x):
    return F.rms_norm(x, (x.size(-1),)) if hasattr(F, "rms_norm") else \
        x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + torch.finfo(x.dtype).eps)


class Rotary(torch.nn.Module):
    def __init__(self, dim, base=10000):
        super().__init__()
        self.inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))

    def forward(self, T):
        t = torch.arange(T, dtype=torch.float32)
        freqs = torch.outer(t, self.inv_freq)
        return freqs.cos()[None, :, None, :], freqs.sin()[None, :, None, :]


def apply_rotary(x, cos, sin):
    d = x.size(-1) // 2
    x1, x2 = x[..., :d], x[..., d:]
    return torch.cat([x1 * cos + x2 * sin, -x1 * sin + x2 * cos], dim=-1)


class Block(torch.nn.Module):
    def __init__(self, d, heads, head_dim):
        super().__init__()
        self.heads, self.head_dim = heads, head_dim
        hd = heads * head_dim
        self.q = torch.nn.Linear(d, hd, bias=False)
        self.k = torch.nn.Linear(d, hd, bias=False)
        self.v = torch.nn.Linear(d, hd, bias=False)
        self.proj = torch.nn.Linear(hd, d, bias=False)
        self.fc = torch.nn.Linear(d, 4 * d, bias=False)
        self.mlp_proj = torch.nn.Linear(4 * d, d, bias=False)
        torch.nn.init.zeros_(self.proj.weight)
        torch.nn.init.zeros_(self.mlp_proj.weight)
        self.rotary = Rotary(head_dim)

    def attn(self, x):
        B, T, _ = x.shape
        q = self.q(x).view(B, T, self.heads, self.head_dim)
        k = self.k(x).view(B, T, self.heads, self.head_dim)
        v = self.v(x).view(B, T, self.heads, self.head_dim)
        q, k = norm(q), norm(k)
        cos, sin = self.rotary(T)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        y = F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
            is_causal=True) if hasattr(F, "scaled_dot_product_attention") \
            else naive_attention(q, k, v)
        return self.proj(y.transpose(1, 2).contiguous().view(B, T, -1))

    def forward(self, x):
        x = x + self.attn(norm(x))
        return x + self.mlp_proj(F.relu(self.fc(norm(x))).square())


def naive_attention(q, k, v):
    # q, k, v: (B, T, H, D) -> (B, H, T, D)
    q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    T = q.size(-2)
    s = q @ k.transpose(-2, -1) / (q.size(-1) ** 0.5)
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    s = s.masked_fill(~mask, float("-inf"))
    return torch.softmax(s, dim=-1) @ v


class GPT(torch.nn.Module):
    def __init__(self, vocab, L, d, heads, head_dim):
        super().__init__()
        self.wte = torch.nn.Embedding(vocab, d)
        torch.nn.init.normal_(self.wte.weight, std=0.02)
        self.blocks = torch.nn.ModuleList(
            Block(d, heads, head_dim) for _ in range(L))
        self.lm_head = torch.nn.Linear(d, vocab, bias=False)
        torch.nn.init.zeros_(self.lm_head.weight)
        for b in self.blocks:
            for lin in (b.q, b.k, b.v, b.fc):
                torch.nn.init.normal_(lin.weight, std=0.02)

    def forward(self, idx, targets):
        x = norm(self.wte(idx))
        for b in self.blocks:
            x = b(x)
        logits = self.lm_head(norm(x)).float()
        return F.cross_entropy(logits.view(-1, logits.size(-1)),
                               targets.view(-1))


NS_DTYPE = torch.bfloat16


def newton_schulz5(G, steps=5, eps=1e-7):
    a, b, c = (3.4445, -4.7750, 2.0315)
    X = G.to(NS_DTYPE)
    X = X / (X.norm() + eps)
    transposed = G.size(0) > G.size(1)
    if transposed:
        X = X.T
    for _ in range(steps):  # the R3-R10 form, as models/speedrun-r08 says
        A = X @ X.T
        B = A @ X
        X = a * X + b * B + c * A @ B
    if transposed:
        X = X.T
    return X


class Muon(torch.optim.Optimizer):
    def __init__(self, params, lr=0.02, momentum=0.95):
        super().__init__(params, dict(lr=lr, momentum=momentum))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                state = self.state[p]
                if "buf" not in state:
                    state["buf"] = torch.zeros_like(g)
                buf = state["buf"]
                buf.mul_(group["momentum"]).add_(g)
                g = g.add(buf, alpha=group["momentum"])
                g = newton_schulz5(g)
                g = g * max(1, p.size(0) / p.size(1)) ** 0.5
                p.add_(g.to(p.dtype), alpha=-group["lr"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, required=True)
    ap.add_argument("--width", type=int, required=True)
    ap.add_argument("--heads", type=int, required=True)
    ap.add_argument("--head-dim", type=int, required=True)
    ap.add_argument("--seq", type=int, required=True)
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--vocab", type=int, required=True)
    ap.add_argument("--data", required=True, help="a .bin token shard")
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--skip", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--compile", action="store_true",
                    help="torch.compile the model and Newton-Schulz")
    ap.add_argument("--ns-dtype", choices=["bf16", "f32"], default="bf16",
                    help="Newton-Schulz's dtype: bf16 as the speedrun, or "
                    "f32 on CPUs where PyTorch's bf16 matmul is slow (no "
                    "AVX512_BF16: about 1 GFLOP/s against 60-120 for f32)")
    ap.add_argument("--dtype", choices=["f32", "bf16"], default="f32",
                    help="the model's compute dtype: f32, or bf16 autocast "
                    "as the speedrun (f32 parameters, bf16 GEMMs and "
                    "attention, f32 logits and loss)")
    args = ap.parse_args()
    global NS_DTYPE
    NS_DTYPE = torch.bfloat16 if args.ns_dtype == "bf16" else torch.float32
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    raw = np.fromfile(args.data, dtype=np.uint16, offset=1024).astype(np.int64)
    B, T = args.batch, args.seq
    model = GPT(args.vocab, args.layers, args.width, args.heads,
                args.head_dim)
    hidden = [p for b in model.blocks for p in b.parameters()]
    opts = [torch.optim.Adam([model.wte.weight], lr=0.3, betas=(0.9, 0.95),
                             eps=1e-8),
            torch.optim.Adam([model.lm_head.weight], lr=0.002,
                             betas=(0.9, 0.95), eps=1e-8),
            Muon(hidden, lr=0.02, momentum=0.95)]
    global newton_schulz5
    if args.compile:
        torch._dynamo.config.suppress_errors = False  # no silent eager
        model = torch.compile(model, dynamic=False)
        newton_schulz5 = torch.compile(newton_schulz5, dynamic=False)
    times, pos = [], 0
    for step in range(args.steps):
        if pos + B * T + 1 > raw.size:
            pos = 0
        buf = torch.from_numpy(raw[pos:pos + B * T + 1])
        pos += B * T
        x, y = buf[:-1].view(B, T), buf[1:].view(B, T)
        t0 = time.perf_counter()
        with torch.autocast("cpu", dtype=torch.bfloat16,
                            enabled=args.dtype == "bf16"):
            loss = model(x, y)
        loss.backward()
        for o in opts:
            o.step()
        model.zero_grad(set_to_none=True)
        times.append(time.perf_counter() - t0)
        print(f"pytorch step {step + 1}/{args.steps} | loss {loss.item():.4f}"
              f" | {times[-1]:.3f} s", flush=True)
    kept = times[args.skip:]
    mean = sum(kept) / len(kept)
    label = "pytorch"
    if args.compile:
        from torch._dynamo.utils import counters
        graphs = counters["stats"]["unique_graphs"]
        breaks = sum(counters["graph_break"].values())
        print(f"inductor: {graphs} graphs compiled, {breaks} graph breaks")
        if graphs == 0:
            raise SystemExit("pytorch_step: torch.compile compiled nothing")
        label = "pytorch-compile"
    print(f"{label}: {B * T / mean:.0f} tok/s ({mean:.3f} s/step over "
          f"{len(kept)} steps)")


if __name__ == "__main__":
    main()
