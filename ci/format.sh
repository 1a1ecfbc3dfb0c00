#!/usr/bin/env bash
# format.sh: the tree's one style (.clang-format) as a habit. Checks that every C, C++ and CUDA
# file git tracks is as clang-format would write it, and names those that are not; with --fix
# rewrites them in place. Takes a few seconds; ci/test.sh runs the check before the build.
#   bash ci/format.sh          # check: exit 1 and the list of files that differ
#   bash ci/format.sh --fix    # format them
# The tree is formatted with clang-format 14 (Debian 12's): another major version formats some
# constructs differently, so elsewhere the check says so and passes rather than fail on
# a difference of tools (KIT_FORMAT_ANY=1 checks anyway).
set -eu
cd "$(dirname "$0")/.."
want=14
if ! command -v clang-format >/dev/null 2>&1; then
  echo "format: clang-format is not installed (ci/setup.sh installs it): check skipped"
  exit 0
fi
have=$(clang-format --version | sed -n 's/.*version \([0-9][0-9]*\)\..*/\1/p')
if [ "$have" != "$want" ] && [ -z "${KIT_FORMAT_ANY:-}" ]; then
  echo "format: clang-format $have here; the tree is formatted with $want: check skipped"
  exit 0
fi
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cu' '*.cuh' '*.cpp' '*.hpp')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  echo "format: ${#files[@]} files formatted"
  exit 0
fi
# One clang-format for every file: its warnings name the files that differ.
mapfile -t bad < <(clang-format --dry-run --Werror "${files[@]}" 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
if [ ${#bad[@]} -gt 0 ]; then
  echo "format: ${#bad[@]} of ${#files[@]} files differ from .clang-format (fix: bash ci/format.sh --fix):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "format: ${#files[@]} files as .clang-format writes them"
