#!/usr/bin/env bash
# sanitize.sh: the CPU test suite built with AddressSanitizer and UndefinedBehaviorSanitizer
# (CMake preset `asan`, no CUDA). Any report fails the run.
set -eu
cd "$(dirname "$0")/.."
bash ci/setup.sh >/dev/null
cmake --preset asan > build-asan.configure.log 2>&1 || { cat build-asan.configure.log; exit 1; }
cmake --build --preset asan -j "$(nproc)" > build-asan.build.log 2>&1 || { tail -40 build-asan.build.log; exit 1; }
# MPI libraries keep some allocations until exit; leaks are not what this run looks for.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
exec ctest --preset asan -j "$(nproc)" --timeout 600 "$@"
