"""Edits a bundle's manifest.json in place, as a careless or hostile hand
would, for bundle-integrity.test:
  edit-manifest.py MANIFEST drop-workspace   arena without the workspace
  edit-manifest.py MANIFEST swap-offsets     two slots' offsets swapped
  edit-manifest.py MANIFEST library-of OTHER_BUNDLE
                                             step_library of another bundle
"""
import json
import sys

path, edit = sys.argv[1], sys.argv[2]
with open(path) as f:
    m = json.load(f)
if edit == "drop-workspace":
    m["arena_bytes"] = m["workspace"]["offset"]
    m["workspace"]["bytes"] = 0
elif edit == "swap-offsets":
    slots = {s["name"]: s for s in m["slots"]}
    a, b = slots["loss"], slots["eval_loss"]
    a["offset"], b["offset"] = b["offset"], a["offset"]
elif edit == "library-of":
    with open(sys.argv[3] + "/manifest.json") as f:
        m["step_library"] = json.load(f)["step_library"]
else:
    sys.exit("unknown edit " + edit)
with open(path, "w") as f:
    json.dump(m, f, indent=2)
