#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every test: lit + FileCheck suites and
# the GoogleTest unit tests, through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${GPTC_BUILD_DIR:-build}
ctest --test-dir "$build" --output-on-failure
