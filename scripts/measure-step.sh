#!/usr/bin/env bash
# Measures one CUDA training step of a spec on gptc's emulated device, at a
# scaled-down shape, for `gptc compile --target=cuda --stats --profile`:
#
#   bash scripts/measure-step.sh SPEC OUT.json [--set KEY=VALUE]...
#
# compiles SPEC with the --set overrides (the scaled shape: fewer tokens a
# step, say; kernels keep their names and code where their extents are
# launch arguments), runs one step on the emulated device with
# GPTC_EMU_STATS_JSON on Zipf-distributed tokens of the spec's vocabulary,
# and adds each kernel's SASS per executed PTX instruction from the
# bundle's cubins (scripts/sass-count.py; nvdisasm from the CUDA toolkit or
# PyPI's nvidia-cuda-nvdisasm, installed into BUILD/pyenv when missing).
# Then:  gptc compile SPEC --target=cuda --stats --profile OUT.json
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 2 ]; then
  echo "usage: measure-step.sh SPEC OUT.json [--set KEY=VALUE]..." >&2
  exit 2
fi
spec=$1 out=$2
shift 2
build=${GPTC_BUILD_DIR:-$here/build}
gptc=$build/bin/gptc
emu=$build/lib/emu
for f in "$gptc" "$emu/libcuda.so.1"; do
  [ -e "$f" ] || { echo "measure-step: $f missing: build gptc first (ninja -C $build)" >&2; exit 1; }
done
python=$build/pyenv/bin/python3
if ! "$python" -c "import nvidia.cu13" 2>/dev/null && ! command -v nvdisasm >/dev/null; then
  echo "measure-step: installing nvidia-cuda-nvdisasm (PyPI) into $build/pyenv" >&2
  [ -x "$python" ] || /usr/bin/python3 -m venv --system-site-packages "$build/pyenv"
  "$build/pyenv/bin/pip" install -q --disable-pip-version-check nvidia-cuda-nvdisasm
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/gptc-measure.XXXXXX")
trap 'rm -rf "$work"' EXIT
sets=("$@")
echo "measure-step: compiling $spec ${sets[*]:-} for the emulated device" >&2
"$gptc" compile "$spec" --target=cuda "${sets[@]}" -o "$work/bundle" >/dev/null
read -r vocab tokens < <("$python" - "$work/bundle/spec.yaml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def key(name):
    return int(re.search(r"^\s*%s:\s*(\d+)" % name, text, re.M).group(1))
print(key("vocab_size"), 4 * key("seq_len") * key("device_batch") + 1)
PY
)
mkdir -p "$work/data"
"$python" "$here/scripts/gpu/zipf-tokens.py" "$work/data/zipf_train_000001.bin" \
  --tokens "$tokens" --vocab "$vocab"
echo "measure-step: one step on the emulated device (minutes for record-sized layers)" >&2
start=$(date +%s)
LD_LIBRARY_PATH=$emu GPTC_EMU_STATS_JSON=$work/emu.json "$gptc" train "$work/bundle" \
  --data "$work/data/zipf_train_*.bin" --steps 1 --val-tokens 0 >/dev/null
echo "measure-step: the step took $(( $(date +%s) - start )) s on the emulated device" >&2
"$python" "$here/scripts/sass-count.py" "$work/bundle/step.so" --emu "$work/emu.json" \
  --annotate "$out" --shape "$(echo "$(basename "$spec") ${sets[*]:-}" | sed "s/ *$//")" >&2
echo "measure-step: wrote $out" >&2
