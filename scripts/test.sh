#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every test, in two suites, each timed:
#   fast  `check-gptc`: dialects, passes, frontend, tools and targets (lit)
#         and the GoogleTest unit tests (ctest -LE e2e), after the format
#         check (scripts/check-format.sh)
#   e2e   `check-gptc-e2e`: trainings, the emulated CUDA device, ranks
#         (ctest -L e2e)
# then the sanitizer job (scripts/sanitize.sh: the MLIR-free unit tests and
# the spec-error tests under ASan+UBSan) and each fuzzer for 10 s
# (scripts/fuzz.sh).
#   GPTC_SUITE=fast|e2e|all   which suites (default all; fast skips the
#                             sanitizer job and the fuzzers too)
#   GPTC_FUZZ_SECONDS=N       seconds per fuzzer (default 10; 0 skips them)
set -euo pipefail
cd "$(dirname "$0")/.."
# Each part's wall time, printed at the end (and as it finishes).
times=()
timed() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  times+=("$(printf '%-10s %5d s' "$name" $((SECONDS - start)))")
  echo "test: $name took $((SECONDS - start)) s"
}
# python3-torch: test/Training/torch-agreement.test compares gptc's losses
# with PyTorch's from the same weights. clang: the libFuzzer targets.
# iproute2 (ip) and util-linux (unshare): the two hosts of
# test/Training/ranks-two-hosts*.test, made from network namespaces.
GPTC_EXTRA_PACKAGES="python3-torch python3-numpy python3-venv python3-pip clang clang-format-22 iproute2 util-linux" \
  timed setup bash scripts/setup.sh
# From PyPI only, in a virtual environment over Debian's python3
# (python3-venv) in the build dir: the safetensors package
# (checkpoint-safetensors.test), tiktoken (the oracle of
# bpe-tokenizer.test), tensorboard (the reader of gptc train
# --tensorboard's files: tensorboard.test) and nvidia-cuda-nvdisasm (the
# toolkit's SASS disassembler, which the CUDA 13 toolkit here lacks:
# sass-count.test).
build=${GPTC_BUILD_DIR:-build}
if ! "$build/pyenv/bin/python3" -c "import safetensors, tiktoken, tensorboard, nvidia.cu13" 2>/dev/null ||
   ! ls "$build"/pyenv/lib/python3*/site-packages/nvidia/cu13/bin/nvdisasm >/dev/null 2>&1; then
  echo "test: installing safetensors, tiktoken, tensorboard and nvidia-cuda-nvdisasm (PyPI) into $build/pyenv"
  /usr/bin/python3 -m venv --system-site-packages "$build/pyenv"
  "$build/pyenv/bin/pip" install -q --disable-pip-version-check \
    safetensors tiktoken tensorboard nvidia-cuda-nvdisasm
fi
# The C/C++ sources follow .clang-format (clang-format 22).
bash scripts/check-format.sh
suite=${GPTC_SUITE:-all}
# Two jobs: ctest runs the unit-test programs and lit side by side; lit
# runs its tests two at a time.
if [ "$suite" != e2e ]; then
  timed fast ctest --test-dir "$build" -LE e2e -j2 --output-on-failure
fi
if [ "$suite" != fast ]; then
  timed e2e ctest --test-dir "$build" -L e2e --output-on-failure
fi
if [ "$suite" = all ]; then
  timed sanitize bash scripts/sanitize.sh
  if [ "${GPTC_FUZZ_SECONDS:-10}" != 0 ]; then
    timed fuzz bash scripts/fuzz.sh "${GPTC_FUZZ_SECONDS:-10}"
  fi
fi
printf 'test: %s\n' "${times[@]}"
