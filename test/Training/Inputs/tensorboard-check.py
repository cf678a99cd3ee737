"""gptc train --tensorboard's event files read by TensorBoard itself.

usage: tensorboard-check.py DIR LOG.jsonl

Checks every file in DIR record by record (TFRecord framing: u64 length,
masked CRC-32C of it, the data, masked CRC-32C of the data; the CRC
computed here, apart from gptc's), then loads DIR with TensorBoard's
EventAccumulator and compares each scalar with the --log file of the same
run: the same steps, the losses equal as float32 (the slot's value), the
schedule's multiplier, each group's lr and tok/s within float32 rounding.
Prints the tags and one line per tag.
"""
import json
import os
import struct
import sys

import numpy as np
from tensorboard.backend.event_processing.event_accumulator import (
    EventAccumulator)


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def check_framing(path):
    data = open(path, "rb").read()
    at = records = 0
    while at < len(data):
        (n,) = struct.unpack_from("<Q", data, at)
        (length_crc,) = struct.unpack_from("<I", data, at + 8)
        body = data[at + 12:at + 12 + n]
        (body_crc,) = struct.unpack_from("<I", data, at + 12 + n)
        if length_crc != masked(data[at:at + 8]) or body_crc != masked(body):
            sys.exit(f"{path}: record {records}: bad CRC")
        at += 12 + n + 4
        records += 1
    return records


def main(directory, log):
    files = sorted(os.listdir(directory))
    records = sum(check_framing(os.path.join(directory, f)) for f in files)
    print(f"{len(files)} file(s), {records} records, every CRC right")

    rows = [json.loads(line) for line in open(log)]
    want = {}  # tag -> [(step, value, exact)]
    for r in rows:
        if r["type"] == "val":
            want.setdefault("val/loss", []).append((r["step"], r["val_loss"],
                                                    True))
            continue
        step = r["step"]
        want.setdefault("train/loss", []).append((step, r["loss"], True))
        want.setdefault("train/lr_mult", []).append((step, r["lr_mult"],
                                                     False))
        for group, lr in r.get("lr", {}).items():
            want.setdefault(f"train/lr/{group}", []).append((step, lr, False))
        want.setdefault("train/tok_per_s", []).append((step, r["tok_per_s"],
                                                       False))
        if "mfu" in r:
            # 4 significant digits in the log.
            want.setdefault("train/mfu", []).append((step, r["mfu"], None))

    acc = EventAccumulator(directory, size_guidance={"scalars": 0})
    acc.Reload()
    tags = sorted(acc.Tags()["scalars"])
    print("tags:", " ".join(tags))
    if tags != sorted(want):
        sys.exit(f"tags {tags} are not the log's {sorted(want)}")
    for tag in tags:
        got = acc.Scalars(tag)
        expected = want[tag]
        if [e.step for e in got] != [s for s, _, _ in expected]:
            sys.exit(f"{tag}: steps {[e.step for e in got]} are not the "
                     f"log's {[s for s, _, _ in expected]}")
        for e, (step, value, exact) in zip(got, expected):
            tb, js = np.float32(e.value), np.float32(value)
            # The log has 9 significant digits of a loss (its f32 exactly)
            # and 6 of the multiplier and the rates.
            tolerance = 5e-4 if exact is None else 1e-5
            same = tb == js if exact else abs(tb - js) <= tolerance * abs(js)
            if not same:
                sys.exit(f"{tag} at step {step}: {e.value!r} in TensorBoard, "
                         f"{value!r} in the log")
        print(f"{tag}: steps {' '.join(str(e.step) for e in got)}: "
              f"{'equal to' if expected[0][2] else 'as'} the log's")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
