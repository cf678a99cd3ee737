#!/usr/bin/env bash
# Installs what gptc needs to build and test on Debian 12, only what is
# missing (idempotent), and configures + builds the project in build/.
#   scripts/setup.sh            install deps, configure, build
#   GPTC_BUILD_DIR=dir ...      another build directory
#   GPTC_CMAKE_ARGS="..."       extra CMake arguments (e.g. ASan)
#   GPTC_EXTRA_PACKAGES="..."   more Debian packages (scripts/test.sh: the
#                               PyTorch oracle of torch-agreement.test)
#   GPTC_TARGETS="bin/gptc"     build only these ninja targets (main.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake ninja-build g++ python3 pkg-config time
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libomp-22-dev
  libyaml-cpp-dev libgtest-dev
  libopenblas-dev libopenmpi-dev openmpi-bin
  bible-kjv gnuplot-nox
)
# shellcheck disable=SC2206
packages+=(${GPTC_EXTRA_PACKAGES:-})
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

build=${GPTC_BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
  # shellcheck disable=SC2086
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ ${GPTC_CMAKE_ARGS:-}
fi
# shellcheck disable=SC2086
ninja -C "$build" -j"${GPTC_JOBS:-2}" ${GPTC_TARGETS:-}
