#!/usr/bin/env python3
"""Writes a token shard (runtime/data/Shard.h: 256 int32 of header, magic
20240520, version 1, the count; then uint16 ids) of N ids drawn from a Zipf
law over a vocabulary, as a tokenised text's ids fall: for timing a step on
data shaped like the record's (how often each id repeats sets the work of
the embedding gradient's segmented sums), not for learning anything.
Deterministic (a fixed seed): the GPU run and PyTorch read the same ids.

  zipf-tokens.py OUT.bin --tokens N --vocab V [--exponent 1.1]
"""
import argparse
import random
import struct
from array import array
from bisect import bisect_left
from itertools import accumulate


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--tokens", type=int, required=True)
    p.add_argument("--vocab", type=int, required=True)
    p.add_argument("--exponent", type=float, default=1.1)
    a = p.parse_args()
    if not 0 < a.vocab <= 65536 or a.tokens < 1:
        raise SystemExit("zipf-tokens: --vocab in [1, 65536], --tokens >= 1")
    # Rank r (from 1) has weight r^-s; the ranks are shuffled over the ids
    # so that frequent ids are not all small.
    rng = random.Random(20240520)
    ids = list(range(a.vocab))
    rng.shuffle(ids)
    cdf = list(accumulate((r + 1) ** -a.exponent for r in range(a.vocab)))
    total = cdf[-1]
    body = array("H", (ids[min(bisect_left(cdf, rng.random() * total),
                               a.vocab - 1)] for _ in range(a.tokens)))
    header = [0] * 256
    header[0], header[1], header[2] = 20240520, 1, a.tokens
    with open(a.out, "wb") as f:
        f.write(struct.pack("<256i", *header))
        f.write(body.tobytes())


if __name__ == "__main__":
    main()
