#!/usr/bin/env bash
# setup.sh: make sure the tools the kit needs are installed, then configure and build.
# Installs missing Debian packages when run as root; otherwise prints the exact
# `apt-get install` line and stops. Used by ci/quickstart.sh and ci/test.sh.
#   ci/setup.sh [TARGET...]   build only these targets (default: everything)
#   KIT_BUILD_DIR   build folder (default: build)
#   KIT_CMAKE_ARGS  extra configure arguments (e.g. -DKIT_CUDA=OFF)
#   KIT_PROGRESS_S  seconds between two build progress lines (default: 5)
set -eu -o pipefail
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

# A full build takes minutes on two cores (CUDA kernels, then every test binary): say how far
# it is, from ninja's "[done/total]" status, at most one line every KIT_PROGRESS_S seconds
# (the first and the last at once), so the terminal neither stays silent nor floods. Ninja
# prints a step when it ends and one nvcc step can take a minute, so a quiet pipe
# (read -t) also gives a line. The whole output still goes to build.log.
progress() {
  local every=${KIT_PROGRESS_S:-5} start=$SECONDS last=$SECONDS line="" part="" rc
  local ndone=0 total=0 what="" shown=0
  say() {
    last=$SECONDS shown=1
    printf 'setup: built %d/%d targets (%d%%), %d:%02d elapsed  %s\n' "$ndone" "$total" \
      $((100 * ndone / total)) $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)) "$1"
  }
  while :; do
    rc=0
    IFS= read -r -t "$every" line || rc=$?
    if [ "$rc" -gt 128 ]; then
      # Timed out: keep any partial line for the next read, and say we are still at it.
      part+=$line
      [ "$total" -gt 0 ] && [ $((SECONDS - last)) -ge "$every" ] && say "(still building; last done: ${what})"
      continue
    fi
    line=$part$line part=""
    [ "$rc" -eq 0 ] || [ -n "$line" ] || break
    printf '%s\n' "$line" >> "$build/build.log"
    if [[ $line =~ ^\[([0-9]+)/([0-9]+)\]\ (.*)$ ]]; then
      ndone=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]}
      # The step's output file, shortened to its name: what was built last.
      what=${BASH_REMATCH[3]##* } && what=${what##*/}
      if [ "$shown" -eq 0 ] || [ $((SECONDS - last)) -ge "$every" ] || [ "$ndone" -eq "$total" ]; then
        say "$what"
      fi
    fi
    [ "$rc" -eq 0 ] || break
  done
  if [ "$shown" -eq 0 ] && grep -q "no work to do" "$build/build.log"; then echo "setup: build up to date"; fi
}
: > "$build/build.log"
targets=()
[ $# -eq 0 ] || targets=(--target "$@")
echo "setup: building ${*:-everything} with $(nproc) jobs"
NINJA_STATUS="[%f/%t] " cmake --build "$build" -j "$(nproc)" "${targets[@]}" 2>&1 |
  progress || { tail -50 "$build/build.log"; exit 1; }
echo "setup: build complete (binaries in ${build}/bin)"
