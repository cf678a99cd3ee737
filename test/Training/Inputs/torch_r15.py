"""PyTorch oracle of gptc's R15 family (models/speedrun-r15-unet-ve.yaml):
the model, its optimizer groups and its schedules written again from the
spec's documentation (models/README.md), in float64 or float32, to check
gptc's training step against.

  spec = read_spec(BUNDLE/spec.yaml)   # the resolved spec gptc compiled
  model = R15(spec, weights, torch.float64, window_mask="tokens")
  opt = Optimizers(spec, model.params)
  loss = model.loss(x, y, step); loss.backward(); opt.step(step)

`step` counts from 0 (the first optimizer step is step 0, as in gptc's
schedules). The model (R15's features only; anything else is refused):
  x0 = norm(wte[x]), ve_j = value_embeds.j[x]
  block i: (decoder i >= L/2: x += skip_weights[i - L/2] * pop())
           x = l0 x + l1 x0;  x += attn(norm(x));  x += mlp(norm(x))
           (encoder i < L/2: push(x))
  attn: q, k, v = x Wq^T, x Wk^T, x Wv^T per head; v = a v + b ve_layout(i)
        (mirrored: i < L/2 reads i, else L-1-i); q, k = norm; rotary
        (inv_freq base^(-2j/D) in double, rounded to f32 as MLIRGen's rotary
        tables are; the record computes them in f32 too); masked
        softmax(q k^T scale) v (scale 1/sqrt(D) unless set); proj
  mlp: relu(x Wfc^T)^2 Wproj^T
  loss: mean cross entropy of c tanh(norm(x) lm_head^T / c) over the
        padded vocabulary
  norm(x) = x rsqrt(mean(x^2) + eps), eps = finfo(dtype).eps when
        norm_eps_from_dtype
  mask of (query i, key j): j <= i, i - j < sw(step), same document
        (documents start at bos_token, per row); window_mask
        "record_blocks" (the R15 record's FlexAttention block mask) also
        asks i//128 - j//128 < ceil(sw/128); None = the spec's window_unit
  sw(step) = max(g, round_g(start + (end - start) step / N))
Optimizers (per group, lr = group lr x mult(step)):
  mult: warm-up (step + 1) / W while step < W, else w + (1 - w) floor with
        w = min((N - min(step, N)) / D, 1)
  adam: torch.optim.Adam (torch.optim.AdamW when the weight decay is
        decoupled), one per group, foreach=False, its lr set to the
        scheduled one (a Python float) before each step; bias_correction
        must be true (torch's Adam always corrects); storage bf16: after
        each step the group's parameters and moments rounded to bf16
        (through f32), as gptc stores them
  muon: m(step) = start + min(step / W, 1) (momentum - start);
        lerp: buf += (1 - m)(g - buf), u = g + m (buf - g) (nesterov);
        sum: buf = m buf + g, u = g + m buf; X = u / (|u|_F + ns_eps) in
        ns_dtype, the short side first, ns_steps of A = X X^T,
        X = a X + (b A + c A A) X (or B = A X, X = a X + b B + c A B);
        p -= lr sqrt(max(1, rows / cols)) X; weight decay p -= lr wd p
        first
The schedule scalars are Python floats (f64), as gptc's compiled step
computes them whatever the parameters' type.
"""
import math
import re

import torch
import torch.nn.functional as F


def read_spec(path):
    """The resolved spec gptc writes into a bundle (BUNDLE/spec.yaml):
    block maps indented by two spaces, scalars and flow lists only."""
    def scalar(text):
        text = text.strip()
        if text[:1] in "\"'":
            return text[1:-1]
        if text in ("true", "false"):
            return text == "true"
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                pass
        return text

    root = {}
    stack = [(-1, root)]  # (indent, map) of the open block maps
    for line in open(path):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        key, _, value = line.strip().partition(":")
        while stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        value = value.strip()
        if not value:
            parent[key] = {}
            stack.append((indent, parent[key]))
        elif value.startswith("["):
            inner = value[1:-1].strip()
            parent[key] = [scalar(v) for v in inner.split(",")] if inner \
                else []
        else:
            parent[key] = scalar(value)
    return root


def glob_match(pattern, name):
    """gptc's parameter globs: `*` matches any run, dots included."""
    return re.fullmatch(".*".join(map(re.escape, pattern.split("*"))),
                        name) is not None


def require(cond, what):
    if not cond:
        raise SystemExit(f"torch_r15: not an R15 spec: {what}")


def window_tokens(spec, step):
    """The sliding window of `step` (Parameters.h windowTokens)."""
    a, n = spec["model"]["attention"], max(spec["training"]["steps"], 1)
    g = max(a["window_granularity"], 1)
    s = min(max(step, 0), n)
    num = a["window_start"] * n + (a["window_end"] - a["window_start"]) * s
    if a["window_rounding"] == "ceil":
        num += n * g - 1
    return max(num // (n * g) * g, g)


def llround(x):
    return int(math.floor(x + 0.5))


def lr_multiplier(spec, step):
    s, n = spec["schedule"], spec["training"]["steps"]
    warm = s["warmup_steps"] or (max(llround(s["warmup_fraction"] * n), 1)
                                 if s["warmup_fraction"] > 0 else 0)
    d = s["decay_steps"] or s["decay_fraction"] * n
    mult = 1.0
    if d > 0:
        w = min((n - min(step, n)) / d, 1.0)
        mult = w * (1 - s["lr_floor"]) + s["lr_floor"]
    if step < warm:
        mult = (step + 1) / warm
    return mult


class R15:
    """The model: parameters as gptc names them, loss(x, y, step)."""

    def __init__(self, spec, weights, dtype, window_mask=None):
        m, a = spec["model"], spec["model"]["attention"]
        for key, want in [("activation", "relu2"), ("tied_embedding", False),
                          ("embed_norm", True), ("attn_branch_scale", False),
                          ("shortcut_x0", True), ("value_residual", False),
                          ("unet_skips", True),
                          ("value_embeddings", "mirrored"),
                          ("logit_softcap", "tanh")]:
            require(m[key] == want, f"model.{key} is {m[key]}")
        for key, want in [("qkv", "separate"), ("qk_norm", "before_rotary"),
                          ("rotary", "standard"), ("causal", True),
                          ("document_mask", True), ("window_pattern", [])]:
            require(a[key] == want, f"model.attention.{key} is {a[key]}")
        require(a["window_unit"] in ("tokens", "record_blocks"),
                f"model.attention.window_unit is {a['window_unit']}")
        window_mask = window_mask or a["window_unit"]
        require(window_mask in ("tokens", "record_blocks"), window_mask)
        self.spec, self.dtype, self.window_mask = spec, dtype, window_mask
        self.L, self.H, self.D = m["n_layer"], m["n_head"], m["head_dim"]
        self.eps = torch.finfo(dtype).eps if m["norm_eps_from_dtype"] \
            else m["norm_eps"]
        self.cap = float(m["softcap_value"])
        self.scale = a["scale"] if a["scale"] > 0 else 1 / math.sqrt(self.D)
        self.bos = a["bos_token"]
        self.params = {n: torch.tensor(w, dtype=dtype, requires_grad=True)
                       for n, w in weights.items()}
        # inv_freq in double, rounded to float32 (MLIRGen's rotary tables).
        half = self.D // 2
        self.inv_freq = torch.tensor(
            [1.0 / a["rotary_base"] ** (2.0 * j / self.D)
             for j in range(half)], dtype=torch.float32).to(dtype)

    def norm(self, x):
        return x * torch.rsqrt(x.square().mean(-1, keepdim=True) + self.eps)

    def rotary(self, x):  # x: (B, T, H, D)
        T, half = x.size(1), self.D // 2
        angle = torch.outer(torch.arange(T, dtype=self.dtype), self.inv_freq)
        cos, sin = angle.cos()[None, :, None, :], angle.sin()[None, :, None, :]
        x1, x2 = x[..., :half], x[..., half:]
        return torch.cat([x1 * cos + x2 * sin, x2 * cos - x1 * sin], -1)

    def mask(self, x, step):
        """allowed[b, 1, i, j]: causal, in the window, same document."""
        T = x.size(1)
        sw = window_tokens(self.spec, step)
        i = torch.arange(T)[:, None]
        j = torch.arange(T)[None, :]
        allowed = (j <= i) & (i - j < sw)
        if self.window_mask == "record_blocks":
            allowed &= (i // 128 - j // 128) < -(-sw // 128)
        doc = (x == self.bos).long().cumsum(1)
        same = doc[:, :, None] == doc[:, None, :]
        return (allowed[None] & same)[:, None]

    def attn(self, x, i, ve, allowed):
        p, B, T = self.params, x.size(0), x.size(1)
        pre = f"blocks.{i}.attn."
        q, k, v = (F.linear(x, p[pre + w]).view(B, T, self.H, self.D)
                   for w in "qkv")
        lam = p[pre + "value_lambdas"]
        half = self.L // 2
        table = i if i < half else self.L - 1 - i
        v = lam[0] * v + lam[1] * ve[table].view_as(v)
        q, k = self.rotary(self.norm(q)), self.rotary(self.norm(k))
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        y = self.attend(q, k, v, allowed)
        return F.linear(y.transpose(1, 2).reshape(B, T, -1), p[pre + "proj"])

    def attend(self, q, k, v, allowed):
        """softmax(q k^T scale, masked by `allowed`) v, per head ([B, H, T,
        D]); scripts/gpu/torch-r15-step.py attends with FlexAttention."""
        s = (q @ k.transpose(-2, -1)) * self.scale
        s = s.masked_fill(~allowed, float("-inf"))
        return torch.softmax(s, -1) @ v

    def mlp(self, x, i):
        p = self.params
        h = F.relu(F.linear(x, p[f"blocks.{i}.mlp.fc"])).square()
        return F.linear(h, p[f"blocks.{i}.mlp.proj"])

    def loss(self, x, y, step):
        return self.loss_masked(x, y, self.mask(x, step))

    def loss_masked(self, x, y, allowed):
        """The loss with `allowed` from mask() (or the mask another
        attention takes, scripts/gpu/torch-r15-step.py)."""
        p, half = self.params, self.L // 2
        x0 = self.norm(F.embedding(x, p["wte"]))
        ve = [F.embedding(x, p[f"value_embeds.{j}"]) for j in range(half)]
        h, skips = x0, []
        for i in range(self.L):
            if i >= half:
                h = h + p["skip_weights"][i - half] * skips.pop()
            lam = p[f"blocks.{i}.lambdas"]
            h = lam[0] * h + lam[1] * x0
            h = h + self.attn(self.norm(h), i, ve, allowed)
            h = h + self.mlp(self.norm(h), i)
            if i < half:
                skips.append(h)
        z = F.linear(self.norm(h), p["lm_head"])
        z = self.cap * torch.tanh(z / self.cap)
        # At least f32 (bf16 logits are widened, as the record does).
        z = z.to(torch.promote_types(z.dtype, torch.float32))
        return F.cross_entropy(z.view(-1, z.size(-1)), y.reshape(-1))


def newton_schulz(G, group, dtype):
    a, b, c = group["ns_coefficients"]
    X = G.to(dtype)
    X = X / (X.norm() + group["ns_eps"])
    transposed = G.size(0) > G.size(1)
    if transposed:
        X = X.T
    for _ in range(group["ns_steps"]):
        A = X @ X.T
        if group["ns_form"] == "polynomial_then_apply":
            X = a * X + (b * A + c * A @ A) @ X
        else:
            B = A @ X
            X = a * X + b * B + c * A @ B
    return X.T if transposed else X


class Optimizers:
    """Every spec group over its parameters (matched by glob): Adam groups
    as torch.optim.Adam / AdamW (self.adam[name]), Muon groups here."""

    def __init__(self, spec, params):
        self.spec, self.groups, self.adam = spec, [], {}
        for name, g in spec["optimizer"]["groups"].items():
            members = [n for n in params
                       if any(glob_match(pat, n) for pat in g["params"])]
            require(members, f"group {name} matches nothing")
            ps = [params[n] for n in members]
            if g["kind"] == "adam":
                require(g["bias_correction"], "bias_correction false")
                kind = torch.optim.AdamW if g["decoupled_weight_decay"] \
                    else torch.optim.Adam
                self.adam[name] = kind(ps, lr=g["lr"], betas=g["betas"],
                                       eps=g["eps"],
                                       weight_decay=g["weight_decay"],
                                       foreach=False)
            else:
                require(g["ns_backend"] == "newton_schulz", "ns_backend")
                require(g["ns_normalize"] == "after_cast", "ns_normalize")
                require(not g["qkv_split"], "qkv_split")
                require(g["update_scale"] == "sqrt_max_1_ratio",
                        "update_scale")
            self.groups.append((name, g, ps))
        self.state = {}

    def momentum(self, g, step):
        w = g["momentum_warmup_steps"] or (
            max(llround(g["momentum_warmup_fraction"] *
                        self.spec["training"]["steps"]), 1)
            if g["momentum_warmup_fraction"] > 0 else 0)
        start, end = g["momentum_warmup_start"], g["momentum"]
        return start + min(step / w, 1.0) * (end - start) if w else end

    @staticmethod
    def store_bf16(adam, params):
        """storage: bf16: the parameters and moments, updated in the compute
        type, rounded once to bf16 (through f32, as gptc and PyTorch round
        f64 to bf16)."""
        def rounded(t):
            return t.to(torch.float32).to(torch.bfloat16).to(t.dtype)
        for p in params:
            p.copy_(rounded(p))
            for key in ("exp_avg", "exp_avg_sq"):
                if key in adam.state[p]:
                    adam.state[p][key].copy_(rounded(adam.state[p][key]))

    @torch.no_grad()
    def step(self, step):
        mult = lr_multiplier(self.spec, step)
        for name, g, params in self.groups:
            lr = mult * g["lr"]
            if name in self.adam:
                self.adam[name].param_groups[0]["lr"] = lr
                self.adam[name].step()
                if g.get("storage") == "bf16":
                    self.store_bf16(self.adam[name], params)
                continue
            mom, wd = self.momentum(g, step), g["weight_decay"]
            for p in params:
                grad = p.grad
                if grad is None:  # as torch's optimizers: no gradient, no step
                    continue
                buf = self.state.setdefault(id(p), torch.zeros_like(p))
                if g["momentum_form"] == "lerp":
                    buf.add_((grad - buf) * (1 - mom))
                    u = grad + (buf - grad) * mom if g["nesterov"] else buf
                else:
                    buf.mul_(mom).add_(grad)
                    u = grad + buf * mom if g["nesterov"] else buf
                ns_dtype = {"f64": torch.float64, "f32": torch.float32,
                            "bf16": torch.bfloat16}[g["ns_dtype"]]
                o = newton_schulz(u, g, ns_dtype).to(p.dtype)
                o = o * max(1.0, p.size(0) / p.size(1)) ** 0.5
                if wd:
                    p.sub_(p * lr * wd)
                p.sub_(o * lr)
