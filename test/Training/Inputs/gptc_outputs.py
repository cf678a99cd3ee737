"""Readers of what `gptc train` writes, shared by the training tests' scripts
(no numpy needed):

  read_losses(LOG)    the `step N/M | loss X` values of a training log
  read_params(FILE)   a --save-params file (runtime/ParamFile.h) as
                      {name: (dims, array('f') of the values, row-major)}
                      (always float32, whatever the bundle's dtype)
  read_safetensors(FILE)
                      a checkpoint's model.safetensors in its own dtype
                      (F64 or F32): {name: (dims, array('d' or 'f'))}
  read_json_losses(LOG.jsonl)
                      the train losses of a --log file (9 significant
                      digits: the f32 loss slot exactly)
  copy_weights(MODEL, WEIGHTS)
                      gptc's parameters ({name: numpy array}) into the
                      PyTorch R8 model of bench/pytorch_step.py
"""
import array
import json
import re
import struct
import sys


def read_losses(path):
    out = []
    with open(path) as f:
        for line in f:
            m = re.match(r"step \d+/\d+ \| loss ([-0-9.eE+naif]+)", line)
            if m:
                out.append(float(m.group(1)))
    return out


def read_params(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"GPTCPAR1":
        sys.exit(f"{path}: not a gptc parameter file")
    (count,) = struct.unpack_from("<I", data, 8)
    at, out = 12, {}
    for _ in range(count):
        (n,) = struct.unpack_from("<I", data, at)
        name = data[at + 4:at + 4 + n].decode()
        at += 4 + n
        (rank,) = struct.unpack_from("<I", data, at)
        dims = struct.unpack_from(f"<{rank}q", data, at + 4)
        at += 4 + 8 * rank
        size = 1
        for d in dims:
            size *= d
        values = array.array("f", data[at:at + 4 * size])
        if sys.byteorder == "big":  # the file is little-endian
            values.byteswap()
        out[name] = (dims, values)
        at += 4 * size
    return out


def read_json_losses(path):
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [r["loss"] for r in rows if r.get("type") == "train"]


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8:8 + n])
    codes = {"F64": "d", "F32": "f", "BF16": "H"}
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        if t["dtype"] not in codes:
            sys.exit(f"{path}: {name}: dtype {t['dtype']} not read here")
        begin, end = t["data_offsets"]
        values = array.array(codes[t["dtype"]],
                             data[8 + n + begin:8 + n + end])
        if sys.byteorder == "big":
            values.byteswap()
        if t["dtype"] == "BF16":  # the high half of an f32: exact
            values = array.array("f", struct.pack(
                f"<{len(values)}I", *(h << 16 for h in values)))
        out[name] = (tuple(t["shape"]), values)
    return out


def copy_weights(model, weights):
    import torch
    names = {"attn.q": "q", "attn.k": "k", "attn.v": "v",
             "attn.proj": "proj", "mlp.fc": "fc", "mlp.proj": "mlp_proj"}
    with torch.no_grad():
        model.wte.weight.copy_(torch.from_numpy(weights["wte"]))
        model.lm_head.weight.copy_(torch.from_numpy(weights["lm_head"]))
        for i, block in enumerate(model.blocks):
            for gptc_name, attr in names.items():
                getattr(block, attr).weight.copy_(
                    torch.from_numpy(weights[f"blocks.{i}.{gptc_name}"]))
