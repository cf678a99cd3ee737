"""Compares `gptc check`'s memory line with a bundle's manifest and a run.

    check-memory.py CHECK_OUTPUT MANIFEST TRAIN_OUTPUT

The arena (the sum of the line's parts but the runtime's) must equal the
manifest's arena_bytes to the line's rounding, and the estimate (arena +
runtime) be within 25% of the run's "peak RSS N MiB". Exits 1 otherwise.
"""
import json
import re
import sys


def mib(text):
    value, unit = text.split()
    return float(value) * (1024 if unit == "GiB" else 1)


def main():
    check = open(sys.argv[1]).read()
    line = re.search(r"memory: +([0-9.]+ [MG]iB) per rank: (.*) \(the arena", check)
    parts = [mib(p) for p in re.findall(r"([0-9.]+ [MG]iB)", line.group(2))]
    estimate = mib(line.group(1))
    arena = json.load(open(sys.argv[2]))["arena_bytes"]
    rss = float(re.search(r"peak RSS ([0-9.]+) MiB", open(sys.argv[3]).read()).group(1))
    exact = abs(sum(parts) - arena / 2**20) <= 0.05 * len(parts) + 1e-9
    close = abs(estimate - rss) <= 0.25 * rss
    print(f"arena {arena} bytes {'=' if exact else '!='} the manifest's; "
          f"estimate {estimate:.1f} MiB, peak RSS {rss:.1f} MiB: "
          f"{'within' if close else 'NOT within'} 25%")
    return 0 if exact and close else 1


if __name__ == "__main__":
    sys.exit(main())
