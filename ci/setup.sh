#!/usr/bin/env bash
# setup.sh: make sure the tools the kit needs are installed, then configure and build.
# Installs missing Debian packages when run as root; otherwise prints the exact
# `apt-get install` line and stops. Used by ci/quickstart.sh and ci/test.sh.
#   KIT_BUILD_DIR   build folder (default: build)
#   KIT_CMAKE_ARGS  extra configure arguments (e.g. -DKIT_CUDA=OFF)
set -eu
cd "$(dirname "$0")/.."

missing=()
need() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
need cmake cmake
need ninja ninja-build
need cc gcc
need c++ g++
need mpicc libmpich-dev
need mpiexec mpich
need python3 python3
# The one style of the tree (ci/format.sh, run by ci/test.sh).
need clang-format clang-format
if [ ! -f /usr/include/gtest/gtest.h ] && [ ! -d /usr/src/googletest ]; then missing+=(libgtest-dev googletest); fi
# METIS partitions tetfv's meshes (and particles' irregular domains).
if [ ! -f /usr/include/metis.h ]; then missing+=(libmetis-dev); fi
# A CMake older than 3.25 cannot configure the kit.
if command -v cmake >/dev/null 2>&1; then
  v=$(cmake --version | head -1 | awk '{print $3}')
  if [ "$(printf '%s\n3.25\n' "$v" | sort -V | head -1)" != "3.25" ]; then missing+=(cmake); fi
fi

if [ ${#missing[@]} -gt 0 ]; then
  pkgs=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${pkgs}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
  else
    echo "setup: missing packages. Install them with:"
    echo "  sudo apt-get install -y ${pkgs}"
    exit 1
  fi
fi

build=${KIT_BUILD_DIR:-build}
# The CUDA toolkit is optional: used when nvcc is found (GPU variants then build, and skip
# at run time where there is no GPU).
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
echo "setup: configuring and building in ${build}/ (logs: ${build}/configure.log, ${build}/build.log)"
mkdir -p "$build"
# shellcheck disable=SC2086
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${KIT_CMAKE_ARGS:-} > "$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
grep -E "^-- kit:" "$build/configure.log" || true
cmake --build "$build" -j "$(nproc)" > "$build/build.log" 2>&1 || { tail -50 "$build/build.log"; exit 1; }
echo "setup: build complete (binaries in ${build}/bin)"
