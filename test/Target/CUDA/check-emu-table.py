#!/usr/bin/env python3
"""Checks GPTC_EMU_STATS=1's report on stderr: the per-kernel table at exit
has one row for every kernel a launch line names, with the launches counted,
and its counters agree with GPTC_EMU_STATS_JSON's for the same run.

    check-emu-table.py STDERR PROFILE.json
"""

import json
import re
import sys

LAUNCH = re.compile(r"^gptc-emu: (\S+) grid \(")
HEADER = "gptc-emu: counters per kernel"


def main():
    stderr, profile = sys.argv[1], sys.argv[2]
    launches, rows, in_table = {}, {}, False
    with open(stderr) as f:
        for line in f:
            m = LAUNCH.match(line)
            if m:
                launches[m.group(1)] = launches.get(m.group(1), 0) + 1
            elif line.startswith(HEADER):
                in_table = True
            elif in_table and not line.startswith("kernel "):
                cols = line.split()
                if len(cols) > 14 and cols[1].isdigit():
                    rows[cols[0]] = cols
    with open(profile) as f:
        kernels = {k["name"]: k for k in json.load(f)["kernels"]}
    bad = []
    for name, n in launches.items():
        if name not in rows:
            bad.append("%s: launched, no table row" % name)
        elif int(rows[name][1]) != n:
            bad.append("%s: %s launches in the table, %d launch lines" % (
                name, rows[name][1], n))
        elif int(rows[name][2]) != kernels[name]["counters"]["warpInstructions"]:
            bad.append("%s: warp-instructions differ from the JSON" % name)
    for name in rows:
        if name not in launches:
            bad.append("%s: a table row without launches" % name)
    for b in bad:
        print(b)
    sectors = sum(k["counters"]["globalLoadSectors"] for k in kernels.values())
    print("%d kernels launched, %d table rows, %d in the JSON, %d load "
          "sectors: %s" % (len(launches), len(rows), len(kernels), sectors,
                           "FAILED" if bad or not sectors else "ok"))
    return 1 if bad or not sectors else 0


if __name__ == "__main__":
    sys.exit(main())
