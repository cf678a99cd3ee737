#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every test: lit + FileCheck suites and
# the GoogleTest unit tests, through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
# python3-torch: test/Training/torch-agreement.test compares gptc's losses
# with PyTorch's from the same weights.
GPTC_EXTRA_PACKAGES="python3-torch python3-numpy" bash scripts/setup.sh
build=${GPTC_BUILD_DIR:-build}
ctest --test-dir "$build" --output-on-failure
