#!/usr/bin/env python3
"""gpu-check.sh's report: OUT/parts.jsonl (one JSON object a finished part:
part, status pass|fail|skip, seconds, detail, and optional lines) becomes
OUT/report.json and OUT/report.md, rewritten after every part so that a
later failure or timeout loses nothing before it.

  report.py OUT [--add PART STATUS SECONDS DETAIL [LINES_FILE]]
"""
import json
import os
import sys


def add(out, part, status, seconds, detail, lines_file=None):
    lines = []
    if lines_file and os.path.exists(lines_file):
        with open(lines_file, errors="replace") as f:
            lines = [l.rstrip("\n") for l in f][:200]
    with open(os.path.join(out, "parts.jsonl"), "a") as f:
        f.write(json.dumps({"part": part, "status": status,
                            "seconds": round(float(seconds), 1),
                            "detail": detail, "lines": lines}) + "\n")


def render(out):
    parts = []
    path = os.path.join(out, "parts.jsonl")
    if os.path.exists(path):
        with open(path) as f:
            parts = [json.loads(l) for l in f if l.strip()]
    meta = {}
    meta_path = os.path.join(out, "meta.json")
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            meta = json.load(f)
    counts = {s: sum(p["status"] == s for p in parts)
              for s in ("pass", "fail", "skip")}
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump({"meta": meta, "counts": counts, "parts": parts}, f,
                  indent=1)
    md = ["# gptc GPU check", ""]
    for k, v in meta.items():
        md.append(f"- {k}: {v}")
    md += ["", f"{counts['pass']} passed, {counts['fail']} failed, "
           f"{counts['skip']} skipped", "",
           "| part | status | s | detail |", "|---|---|---|---|"]
    for p in parts:
        detail = p["detail"].replace("|", "\\|")
        md.append(f"| {p['part']} | {p['status']} | {p['seconds']} | "
                  f"{detail} |")
    for p in parts:
        if p["lines"]:
            md += ["", f"## {p['part']}", "", "```"] + p["lines"] + ["```"]
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")


def main():
    out = sys.argv[1]
    if len(sys.argv) > 2 and sys.argv[2] == "--add":
        add(out, *sys.argv[3:])
    render(out)


if __name__ == "__main__":
    main()
