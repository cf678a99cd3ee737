"""A small byte-level BPE vocabulary, and tiktoken as the oracle of gptc's
BPE tokenizer (runtime/data/BpeTokenizer.h).

usage:
  bpe-oracle.py make TEXT VOCAB [--merges N]
      learns N merges (default 300) on TEXT's GPT-2 pre-tokenised pieces
      and writes VOCAB in tiktoken's format (base64 token, rank), the 256
      bytes first in a shuffled order
  bpe-oracle.py check VOCAB TEXT SHARD
      encodes TEXT with tiktoken (the same vocabulary, GPT-2's pattern,
      <|endoftext|> after the largest rank) and compares with SHARD, the
      val shard gptc data --doc-per-file --tokenizer VOCAB wrote for TEXT
      (one document: <|endoftext|>, then the ids)
"""
import base64
import collections
import random
import sys

import numpy as np
import regex
import tiktoken

PAT = (r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+"""
       r"""|\s+(?!\S)|\s+""")


def make(text_path, vocab_path, merges):
    text = open(text_path, encoding="utf-8", newline="").read()
    words = collections.Counter(regex.findall(PAT, text))
    order = list(range(256))
    random.Random(0).shuffle(order)
    ranks = {bytes([b]): r for r, b in enumerate(order)}
    seqs = {w: [bytes([b]) for b in w.encode()] for w in words}
    for _ in range(merges):
        pairs = collections.Counter()
        for w, parts in seqs.items():
            for a, b in zip(parts, parts[1:]):
                pairs[a, b] += words[w]
        if not pairs:
            break
        (a, b), _ = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))
        ranks[a + b] = len(ranks)
        for w, parts in seqs.items():
            out, i = [], 0
            while i < len(parts):
                if i + 1 < len(parts) and parts[i] == a and parts[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(parts[i])
                    i += 1
            seqs[w] = out
    with open(vocab_path, "w") as f:
        for tok, r in sorted(ranks.items(), key=lambda kv: kv[1]):
            f.write(f"{base64.b64encode(tok).decode()} {r}\n")
    print(f"wrote {len(ranks)} tokens to {vocab_path}")


def check(vocab_path, text_path, shard_path):
    ranks = {}
    for line in open(vocab_path):
        tok, r = line.split()
        ranks[base64.b64decode(tok)] = int(r)
    eot = max(ranks.values()) + 1
    enc = tiktoken.Encoding(name="test", pat_str=PAT, mergeable_ranks=ranks,
                            special_tokens={"<|endoftext|>": eot})
    text = open(text_path, encoding="utf-8", newline="").read()
    want = [eot] + enc.encode_ordinary(text)
    got = np.fromfile(shard_path, dtype="<u2", offset=1024).tolist()
    if got == want:
        print(f"tiktoken: {len(want)} ids equal")
        return
    k = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w),
             min(len(got), len(want)))
    sys.exit(f"differ at id {k} of {len(want)} (gptc {got[k:k + 5]}, "
             f"tiktoken {want[k:k + 5]}): "
             f"{enc.decode(want[max(k - 5, 1):k + 5])!r}")


if __name__ == "__main__":
    if sys.argv[1] == "make":
        n = int(sys.argv[sys.argv.index("--merges") + 1]) \
            if "--merges" in sys.argv else 300
        make(sys.argv[2], sys.argv[3], n)
    else:
        check(sys.argv[2], sys.argv[3], sys.argv[4])
