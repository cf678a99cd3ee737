#!/usr/bin/env python3
"""Checks gptc's floor plan: which top-level folder may include which.

    check-layers.py SOURCE_ROOT [--shares]

The pipeline's story, in order: frontend -> dialects -> passes -> driver
(compile) -> runtime (run) -> commands -> tools, with the two oracles
beside them (reference/, emu/). A folder includes only the folders ALLOWED
names for it (its own always): no include points back up the story and
there are no cycles. passes/ includes two runtime headers, the ABI a step
library shares with the runtime that loads it (gptrt.h, StepLayout.h).
Every #include "X/..." of a project folder in a .cpp/.h/.c file is checked;
exits 1 naming each include that breaks the table. With --shares, prints
each folder's share of the project's lines (C++, C, TableGen, Python,
CMake) and fails when one is above 25%, and fails when a main under tools/
is 100 lines or more.
"""
import os
import re
import sys

ALLOWED = {
    "frontend": {"dialects"},
    "dialects": set(),
    "passes": {"dialects", "runtime/gptrt.h", "runtime/StepLayout.h"},
    "driver": {"frontend", "dialects", "passes", "runtime"},
    "runtime": set(),
    "commands": {"runtime"},
    "tools": {"driver", "commands", "dialects", "passes"},
    "reference": {"dialects"},
    "emu": {"runtime"},
    "unittests": None,  # tests may include anything
    "fuzz": None,
    "bench": None,
}
SOURCES = (".cpp", ".h", ".c")
COUNTED = SOURCES + (".td", ".py", ".txt")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([^"]+)"')


def allowed(folder, target, path):
    rule = ALLOWED[folder]
    if rule is None or target == folder:
        return True
    return target in rule or f"{target}/{path}" in rule


def main():
    root = sys.argv[1]
    shares = "--shares" in sys.argv
    bad, lines = [], {}
    for folder in ALLOWED:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                if name.endswith(COUNTED) or name == "CMakeLists.txt":
                    with open(path, errors="replace") as f:
                        text = f.read()
                    lines[folder] = lines.get(folder, 0) + text.count("\n")
                if not name.endswith(SOURCES):
                    continue
                for number, line in enumerate(text.splitlines(), 1):
                    m = INCLUDE.match(line)
                    if m and m.group(1) in ALLOWED and not allowed(
                            folder, m.group(1), m.group(2)):
                        bad.append(f"{rel}:{number}: {folder}/ includes "
                                   f"{m.group(1)}/{m.group(2)}")
    for b in bad:
        print(f"check-layers: {b} (not in the floor plan)")
    if not bad:
        print(f"check-layers: {len(ALLOWED)} folders, every include in the "
              "floor plan")
    if shares:
        total = sum(lines.values())
        for folder, n in sorted(lines.items(), key=lambda kv: -kv[1]):
            share = 100.0 * n / total
            flag = "  ABOVE 25%" if share > 25 else ""
            print(f"check-layers: {folder:10} {n:6} lines {share:5.1f}%{flag}")
            if share > 25:
                bad.append(folder)
        for dirpath, _, files in os.walk(os.path.join(root, "tools")):
            for name in files:
                if name.endswith(".cpp"):
                    path = os.path.join(dirpath, name)
                    n = open(path).read().count("\n")
                    print(f"check-layers: main {os.path.relpath(path, root)}"
                          f" {n} lines")
                    if n >= 100:
                        bad.append(path)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
