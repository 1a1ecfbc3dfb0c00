#!/usr/bin/env bash
# test.sh: the README's test command. Sets up (ci/setup.sh), builds, and runs every test
# with CTest: unit, cpu, mpi, gpu and smoke labels. GPU tests are reported as skipped
# where no CUDA device is visible. Extra arguments go to ctest (e.g. -L mpi).
set -eu
cd "$(dirname "$0")/.."
bash ci/setup.sh
build=${KIT_BUILD_DIR:-build}
exec ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 600 "$@"
