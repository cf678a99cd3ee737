#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every test: lit + FileCheck suites and
# the GoogleTest unit tests, through ctest (after the format check,
# scripts/check-format.sh); then the sanitizer job
# (scripts/sanitize.sh: the MLIR-free unit tests and the spec-error tests
# under ASan+UBSan) and each fuzzer for 20 s (scripts/fuzz.sh).
#   GPTC_FUZZ_SECONDS=N   seconds per fuzzer (default 20; 0 skips them)
set -euo pipefail
cd "$(dirname "$0")/.."
# python3-torch: test/Training/torch-agreement.test compares gptc's losses
# with PyTorch's from the same weights. clang: the libFuzzer targets.
GPTC_EXTRA_PACKAGES="python3-torch python3-numpy python3-venv python3-pip clang clang-format-22" \
  bash scripts/setup.sh
# From PyPI only, in a virtual environment over Debian's python3
# (python3-venv) in the build dir: the safetensors package
# (checkpoint-safetensors.test) and tiktoken (the oracle of
# bpe-tokenizer.test).
build=${GPTC_BUILD_DIR:-build}
if ! "$build/pyenv/bin/python3" -c "import safetensors, tiktoken" 2>/dev/null; then
  echo "test: installing safetensors and tiktoken (PyPI) into $build/pyenv"
  /usr/bin/python3 -m venv --system-site-packages "$build/pyenv"
  "$build/pyenv/bin/pip" install -q --disable-pip-version-check \
    safetensors tiktoken
fi
# The C/C++ sources follow .clang-format (clang-format 22).
bash scripts/check-format.sh
ctest --test-dir "$build" --output-on-failure
bash scripts/sanitize.sh
if [ "${GPTC_FUZZ_SECONDS:-20}" != 0 ]; then
  bash scripts/fuzz.sh "${GPTC_FUZZ_SECONDS:-20}"
fi
