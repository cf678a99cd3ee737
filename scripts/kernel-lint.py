#!/usr/bin/env python3
"""Lints the kernels of a CUDA step by what they did on the emulated device.

    GPTC_EMU_STATS_JSON=P.json gptc train BUNDLE --steps 1 ...   (emulated)
    scripts/kernel-lint.py [NAME=]P.json... [--allow FILE]

Reads the per-kernel, per-instruction counters the emulated device wrote
(docs/design/emu.md, "Counters") and applies four rules to the instructions
inside loops (a loop: the PTX between a backward branch and its target):

  uncoalesced    a global load or store of B bytes a lane that touches more
                 than max(4, B) 32-byte sectors a request (8 for B <= 2): a
                 coalesced warp of 4-byte lanes is 4 sectors, a warp whose
                 lanes walk rows is 32
  bank-conflict  a shared access taking more than 2 wavefronts per phase
                 (above a 2-way bank conflict; phases: 1 for B <= 4, 2 for
                 8, 4 for 16, as ldmatrix's 4 matrices)
  div64-in-loop  a 64-bit integer division or remainder (a subroutine of
                 ~70 instructions on a GPU) in a loop, executed or not (NVPTX
                 guards each with a 32-bit division for small operands,
                 which runs instead; both are in the loop)
  accumulator    a global store to the addresses the warp loaded earlier in
                 the same iteration (a running value kept in memory)

An allowlist names the known offenders, one per line:
    BUNDLE-GLOB KERNEL-GLOB RULE REASON...
An offender not allowed fails the lint; so does an allowance that matches
no offender in any of the profiles (stale: the kernel was fixed, delete
the line).
"""

import argparse
import fnmatch
import json
import sys

RULES = ("uncoalesced", "bank-conflict", "div64-in-loop", "accumulator")


def sector_limit(nbytes):
    return 8 if nbytes <= 2 else max(4, nbytes)


def phases(nbytes, op):
    if op.startswith("ldmatrix"):
        return 4 if ".x4" in op else 2 if ".x2" in op else 1
    return 1 if nbytes <= 4 else 2 if nbytes == 8 else 4


def offences(kernel):
    """(rule, line, op, what) of each instruction breaking a rule."""
    found = []
    for ins in kernel["instructions"]:
        if not ins["loop"]:
            continue
        op, line, req = ins["op"], ins["line"], ins["requests"]
        if ins["class"] == "global" and req:
            per = ins["sectors"] / req
            if per > sector_limit(ins["bytes"]):
                what = "%.1f sectors per %d-byte request (at most %d)" % (
                    per, ins["bytes"], sector_limit(ins["bytes"]))
                if ins["partialSectors"]:
                    what += ", %d partial-sector writes" % ins["partialSectors"]
                found.append(("uncoalesced", line, op, what))
        if ins["class"] == "shared" and req:
            per = ins["wavefronts"] / req / phases(ins["bytes"], op)
            if per > 2:
                found.append(("bank-conflict", line, op,
                              "%.1f-way bank conflict" % per))
        if ins["class"] == "div64":
            found.append(("div64-in-loop", line, op,
                          "%d executions" % ins["executed"]))
        if ins.get("roundTrips"):
            found.append(("accumulator", line, op,
                          "%d stores of loaded addresses" % ins["roundTrips"]))
    return found


def read_allowlist(path):
    allowed = []
    with open(path) as f:
        for number, raw in enumerate(f, 1):
            text = raw.split("#", 1)[0].strip()
            if not text:
                continue
            parts = text.split(None, 3)
            if len(parts) < 4 or parts[2] not in RULES:
                sys.exit("%s:%d: expected 'BUNDLE-GLOB KERNEL-GLOB RULE REASON' "
                         "with RULE one of %s" % (path, number, ", ".join(RULES)))
            allowed.append({"bundle": parts[0], "glob": parts[1],
                            "rule": parts[2], "reason": parts[3],
                            "where": "%s:%d" % (path, number), "used": False})
    return allowed


def lint(name, kernels, allowed, show):
    """Prints the offences of one profile; returns (offences, new)."""
    total, new = 0, 0
    for k in kernels:
        for rule, line, op, what in offences(k):
            total += 1
            match = next((a for a in allowed if a["rule"] == rule and
                          fnmatch.fnmatchcase(name, a["bundle"]) and
                          fnmatch.fnmatchcase(k["name"], a["glob"])), None)
            if match:
                match["used"] = True
            else:
                new += 1
            if show or not match:
                print("%s %s %s: PTX line %d %s: %s%s" % (
                    "allowed" if match else "NEW", name, k["name"], line, op,
                    what, " (%s)" % match["reason"] if match else ""))
    offenders = sum(1 for k in kernels if offences(k))
    print("kernel-lint %s: %d kernels, %d offences in %d kernels, %d not "
          "allowed" % (name, len(kernels), total, offenders, new))
    return total, new


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profiles", nargs="+", metavar="[NAME=]PROFILE",
                        help="GPTC_EMU_STATS_JSON outputs, each named for "
                        "the allowlist's bundle column")
    parser.add_argument("--allow", help="allowlist file")
    parser.add_argument("--show", action="store_true",
                        help="print every offence, allowed or not")
    args = parser.parse_args()
    allowed = read_allowlist(args.allow) if args.allow else []
    new = 0
    for arg in args.profiles:
        name, _, path = arg.rpartition("=")
        with open(path) as f:
            kernels = json.load(f)["kernels"]
        new += lint(name or path, kernels, allowed, args.show)[1]
    stale = [a for a in allowed if not a["used"]]
    for a in stale:
        print("STALE %s: %s %s %s matches no offender: delete it" % (
            a["where"], a["bundle"], a["glob"], a["rule"]))
    print("kernel-lint: %d offences not allowed, %d stale allowances: %s" % (
        new, len(stale), "ok" if not new and not stale else "FAILED"))
    return 1 if new or stale else 0


if __name__ == "__main__":
    sys.exit(main())
