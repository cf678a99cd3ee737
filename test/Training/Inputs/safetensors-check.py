"""gptc's checkpoints read by the `safetensors` package (PyPI).

usage:
  safetensors-check.py compare MODEL.safetensors PARAMS
      loads MODEL with safetensors.numpy (and safetensors.torch when torch
      is there) and compares every tensor with the parameters gptc wrote
      with --save-params (runtime/ParamFile.h: "GPTCPAR1", u32 count, then
      per parameter u32 name length, name, u32 rank, i64 dims, f32 values)
  safetensors-check.py rewrite IN.safetensors OUT.safetensors [--bad-shape]
                       [--modded-nanogpt-names]
      writes IN's tensors again with safetensors.numpy.save_file, in the
      reverse order (with --bad-shape the first matrix transposed; with
      --modded-nanogpt-names named as modded-nanogpt's state dict names
      them, torch.compile's _orig_mod. prefix included)
"""
import os
import sys

import numpy as np
from safetensors.numpy import load_file, save_file

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gptc_outputs import read_params  # noqa: E402


def compare(model_path, params_path):
    tensors = load_file(model_path)
    params = {n: np.array(v, np.float32).reshape(dims)
              for n, (dims, v) in read_params(params_path).items()}
    if sorted(tensors) != sorted(params):
        sys.exit(f"names differ: {sorted(tensors)} vs {sorted(params)}")
    for name, p in params.items():
        t = tensors[name]
        if t.shape != p.shape or not np.array_equal(t.astype(np.float32), p):
            sys.exit(f"{name}: differs from gptc's parameters")
    print(f"numpy: {len(tensors)} tensors equal to gptc's parameters")
    try:
        import torch
        from safetensors.torch import load_file as load_torch
    except ImportError:
        return
    pt = load_torch(model_path)
    ok = all(torch.equal(pt[n].float(), torch.from_numpy(p.copy()))
             for n, p in params.items())
    print(f"torch: {len(pt)} tensors {'equal' if ok else 'DIFFER'}")


MODDED = {"attn.q": "attn.c_q", "attn.k": "attn.c_k", "attn.v": "attn.c_v",
          "attn.proj": "attn.c_proj", "mlp.fc": "mlp.c_fc",
          "mlp.proj": "mlp.c_proj"}


def modded_name(name):
    if name == "wte":
        return "_orig_mod.transformer.wte.weight"
    if name == "lm_head":
        return "_orig_mod.lm_head.weight"
    _, i, rest = name.split(".", 2)
    return f"_orig_mod.transformer.h.{i}.{MODDED[rest]}.weight"


def rewrite(src, dst, bad_shape, modded):
    tensors = load_file(src)
    names = list(reversed(list(tensors)))
    out = {n: tensors[n] for n in names}
    if bad_shape:
        first = next(n for n in names if tensors[n].ndim == 2)
        out[first] = np.ascontiguousarray(tensors[first].T)
    if modded:
        out = {modded_name(n): t for n, t in out.items()}
    save_file(out, dst)
    print(f"wrote {len(out)} tensors to {dst}")


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        rewrite(sys.argv[2], sys.argv[3], "--bad-shape" in sys.argv,
                "--modded-nanogpt-names" in sys.argv)
