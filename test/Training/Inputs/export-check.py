"""gptc export's files read by PyTorch (safetensors.torch).

usage: export-check.py MODEL.safetensors SCHEME EXPORTED.safetensors

MODEL is a checkpoint's model.safetensors (gptc's names). Builds what the
file of SCHEME (modded-nanogpt, hf, gptc) should hold from MODEL's tensors
by this script's own table, written apart from gptc's
(runtime/ParamNames.h), and checks that EXPORTED holds exactly those
names, dtypes, shapes and values, and names its scheme in its metadata.
Prints one line, then every tensor's name, shape and dtype, sorted.
"""
import re
import sys

import torch
from safetensors import safe_open
from safetensors.torch import load_file

MODDED = {"attn.q": "attn.c_q", "attn.k": "attn.c_k", "attn.v": "attn.c_v",
          "attn.proj": "attn.c_proj", "mlp.fc": "mlp.c_fc",
          "mlp.proj": "mlp.c_proj"}
# GPT-2's Conv1D keeps [in, out]: transposed. q, k and v are c_attn's
# thirds.
HF = {"attn.qkv": "attn.c_attn", "attn.proj": "attn.c_proj",
      "mlp.fc": "mlp.c_fc", "mlp.proj": "mlp.c_proj"}


def expected(model, scheme):
    if scheme == "gptc":
        return dict(model)
    out = {}
    for name, t in model.items():
        if name == "wte":
            out["transformer.wte.weight"] = t
            continue
        if name == "lm_head":
            out["lm_head.weight"] = t
            continue
        m = re.fullmatch(r"blocks\.(\d+)\.(.+)", name)
        block, rest = (m.group(1), m.group(2)) if m else (None, None)
        if scheme == "modded-nanogpt" and rest in MODDED:
            out[f"transformer.h.{block}.{MODDED[rest]}.weight"] = t
        elif scheme == "hf" and rest in HF:
            out[f"transformer.h.{block}.{HF[rest]}.weight"] = t.T.contiguous()
        elif scheme == "hf" and rest == "attn.q":
            qkv = torch.cat([model[f"blocks.{block}.attn.{p}"] for p in "qkv"])
            out[f"transformer.h.{block}.attn.c_attn.weight"] = qkv.T.contiguous()
        elif scheme == "hf" and rest in ("attn.k", "attn.v"):
            pass
        else:
            out["gptc." + name] = t
    return out


def main(model_path, scheme, exported_path):
    want = expected(load_file(model_path), scheme)
    got = load_file(exported_path)
    if sorted(got) != sorted(want):
        sys.exit(f"names differ:\n  {sorted(got)}\nexpected\n  {sorted(want)}")
    for name, t in want.items():
        g = got[name]
        if g.dtype != t.dtype or g.shape != t.shape or not torch.equal(g, t):
            sys.exit(f"{name}: {g.dtype} {list(g.shape)} differs from the "
                     f"checkpoint's {t.dtype} {list(t.shape)}")
    with safe_open(exported_path, "pt") as f:
        names = (f.metadata() or {}).get("gptc.names")
    if names != scheme:
        sys.exit(f"metadata gptc.names is {names!r}, not {scheme!r}")
    prefixed = sum(1 for n in got if n.startswith("gptc."))
    print(f"{scheme}: {len(got)} tensors as expected from the checkpoint's, "
          f"{prefixed} of them behind gptc.")
    for name in sorted(got):
        print(name, list(got[name].shape), str(got[name].dtype))


if __name__ == "__main__":
    main(*sys.argv[1:4])
