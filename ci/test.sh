#!/usr/bin/env bash
# test.sh: the README's test command. Sets up and builds (ci/setup.sh), checks the
# formatting (ci/format.sh), and runs every test with CTest: unit, cpu, mpi, gpu and smoke
# labels. GPU tests are reported as skipped
# where no CUDA device is visible. Extra arguments go to ctest (e.g. -L mpi).
set -eu
cd "$(dirname "$0")/.."
bash ci/setup.sh
# The tree's one style, before anything runs: a file that differs from .clang-format fails CI.
bash ci/format.sh
build=${KIT_BUILD_DIR:-build}
exec ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 600 "$@"
