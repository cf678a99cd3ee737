"""Decodes a val shard gptc data --doc-per-file wrote for one text file
(one document: <|endoftext|>, then the ids) with a tiktoken-format
vocabulary, and compares the bytes with the file.

usage: bpe-roundtrip.py VOCAB TEXT SHARD
"""
import base64
import struct
import sys

vocab_path, text_path, shard_path = sys.argv[1:4]
tokens = {}
for line in open(vocab_path, "rb"):
    tok, rank = line.split()
    tokens[int(rank)] = base64.b64decode(tok)
eot = max(tokens) + 1
with open(shard_path, "rb") as f:
    header = struct.unpack("<256i", f.read(1024))
    body = f.read()
ids = list(struct.unpack(f"<{len(body) // 2}H", body))
if header[2] != len(ids) or ids[:1] != [eot] or eot in ids[1:]:
    sys.exit(f"{shard_path}: not one document of {header[2]} ids")
got = b"".join(tokens[i] for i in ids[1:])
want = open(text_path, "rb").read()
if got != want:
    k = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w),
             min(len(got), len(want)))
    sys.exit(f"round trip differs at byte {k} of {len(want)}: "
             f"{got[k:k + 16]!r} != {want[k:k + 16]!r}")
print(f"round trip: {len(want)} bytes in {len(ids) - 1} ids, equal")
