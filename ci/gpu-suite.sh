#!/usr/bin/env bash
# gpu-suite.sh [BENCH_MODES...]: everything a GPU check needs, in one run on the GPU
# machine (docs/devices.md): unpack the carried Debian packages (.deps/), configure and
# build, run the gpu, smoke and mpi tests, run the named benchmark sweeps (laplace:
# labs/scripts/laplace_sweep.sh single hybrid dual trace tune hyexp; ising:
# labs/scripts/ising_sweep.sh as ising-single ising-dual; lbm: labs/scripts/lbm_sweep.sh as
# lbm-single lbm-cavity lbm-dual; tetfv: labs/scripts/tetfv_sweep.sh as tetfv-single
# tetfv-hybrid tetfv-dual tetfv-node; bfs: labs/scripts/bfs_sweep.sh as bfs-single bfs-large bfs-dual;
# particles: labs/scripts/particles_sweep.sh as particles-single particles-large particles-dual
# particles-images particles-list;
# lbm also lbm-halo; comm-APP: labs/scripts/comm_sweep.sh APP (each --comm on 1, 2, 4 GPUs); `halo`: kit-halo-sweep on 2 and 4 GPUs (labs/11-gpu-direct); `sanitize`: compute-sanitizer
# over every GPU variant's smoke test, ci/compute_sanitize.py, after the tests, so run it with
# KIT_CTEST_LABELS=smoke at least; KIT_SKIP_TESTS=1 skips the tests; KIT_BUILD_TARGETS builds
# only those targets (then select their tests with KIT_CTEST_ARGS, and leave out the tests of
# targets not built: KIT_BUILD_TARGETS=particles wants KIT_CTEST_ARGS="-R ^particles -E fakegpu",
# since particles_fakegpu is a target of its own); KIT_CTEST_ARGS adds ctest
# arguments such as -R REGEX, KIT_CTEST_JOBS sets its parallelism, default 8), and leave logs, JSON lines and a summary in $OUT. Device command:
#   bash ci/gpu-suite.sh single hybrid ising-single       (carry: .deps)
# Before sending a tree without .git, record its version for the JSON lines:
#   git describe --always --dirty > .kit-git-describe     (and carry it: it is git-ignored)
set -u
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export KIT_CEILING_CACHE=$OUT/ceilings.txt
# NVLink multicast stays off on these machines (docs/devices.md); exchange.c sets the NCCL
# one too where the user has not.
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0} NVSHMEM_DISABLE_NVLS=${NVSHMEM_DISABLE_NVLS:-1}
log() { echo "== [${SECONDS}s] $*" | tee -a "$OUT/suite.log"; }

log "machine"
{ nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv; nvidia-smi topo -m; nproc;
  mpiexec --version | head -2; nvcc --version | tail -2; cmake --version | head -1; } >> "$OUT/suite.log" 2>&1

mkdir -p /tmp/deps
for f in .deps/*.deb; do [ -f "$f" ] && dpkg -x "$f" /tmp/deps; done
# METIS (tetfv) from .deps: the libraries must also be found at run time.
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
log "configure + build"
# The JSON lines name the version the sender recorded (.kit-git-describe): the copy's own .git,
# if any, may describe an older commit than its files.
version=$(head -1 .kit-git-describe 2>/dev/null)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DKIT_CUDA=ON -DKIT_GIT_OVERRIDE="${version}" \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=/tmp/deps/usr \
  -DKIT_GTEST_SOURCE_DIR=/tmp/deps/usr/src/googletest >> "$OUT/build.log" 2>&1 &&
cmake --build build-gpu -j "$(nproc)" ${KIT_BUILD_TARGETS:+--target $KIT_BUILD_TARGETS} >> "$OUT/build.log" 2>&1
build_rc=$?
if [ $build_rc -ne 0 ]; then tail -40 "$OUT/build.log"; log "BUILD FAILED"; exit 1; fi

test_rc=0
if [ -n "${KIT_SKIP_TESTS:-}" ]; then log "tests: skipped (KIT_SKIP_TESTS: a benchmark-only run of a tree already tested)"
else
log "tests: gpu, smoke, mpi"
ctest --test-dir build-gpu ${KIT_CTEST_ARGS:-} -L "${KIT_CTEST_LABELS:-gpu|smoke|mpi|unit|cpu}" -j "${KIT_CTEST_JOBS:-8}" --timeout "${KIT_CTEST_TIMEOUT:-300}" --output-on-failure > "$OUT/ctest.log" 2>&1
test_rc=$?
grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|Not Run|\(Skipped\)" "$OUT/ctest.log" | tail -25
fi

export OMP_NUM_THREADS=$(( $(nproc) / $(nvidia-smi -L | wc -l) ))
for m in "$@"; do
  log "benchmark: $m (OMP_NUM_THREADS=$OMP_NUM_THREADS)"
  case $m in
    ising-*) bash labs/scripts/ising_sweep.sh "${m#ising-}" "$OUT/ising.jsonl" build-gpu/bin/ising 2>> "$OUT/bench.log" ;;
    tetfv-*) bash labs/scripts/tetfv_sweep.sh "${m#tetfv-}" "$OUT/tetfv.jsonl" build-gpu/bin/tetfv 2>> "$OUT/bench.log" ;;
    bfs-*) bash labs/scripts/bfs_sweep.sh "${m#bfs-}" "$OUT/bfs.jsonl" build-gpu/bin/bfs 2>> "$OUT/bench.log" ;;
    particles-*) bash labs/scripts/particles_sweep.sh "${m#particles-}" "$OUT/particles.jsonl" build-gpu/bin/particles 2>> "$OUT/bench.log" ;;
    sanitize) python3 ci/compute_sanitize.py build-gpu "$OUT/sanitize" "${KIT_SANITIZE_TOOLS:-memcheck,racecheck,synccheck,initcheck}" 6 | tee "$OUT/sanitize.txt"
              tar -C "$OUT" -czf "$OUT/sanitize-logs.tgz" sanitize && rm -rf "$OUT/sanitize" ;;
    halo) for np in 2 4; do   # labs/11-gpu-direct: every transport, 8 B to 64 MB
            [ "$np" -le "$(nvidia-smi -L | wc -l)" ] || continue
            bash labs/scripts/mpirun.sh "$np" build-gpu/bin/kit-halo-sweep --comm all --json "$OUT/halo.jsonl" 2>> "$OUT/bench.log" | tee -a "$OUT/halo.txt"
          done ;;
    comm-*) bash labs/scripts/comm_sweep.sh "${m#comm-}" "$OUT/comm.jsonl" "build-gpu/bin/${m#comm-}" 2>> "$OUT/bench.log" ;;
    lbm-*) bash labs/scripts/lbm_sweep.sh "${m#lbm-}" "$OUT/lbm.jsonl" build-gpu/bin/lbm 2>> "$OUT/bench.log" ;;
    *) bash labs/scripts/laplace_sweep.sh "$m" "$OUT/laplace.jsonl" build-gpu/bin/laplace 2>> "$OUT/bench.log" ;;
  esac
done
[ -d "$OUT/traces" ] && tar -C "$OUT" -czf "$OUT/traces.tgz" traces && rm -rf "$OUT/traces"
[ -s "$OUT/laplace.jsonl" ] && python3 labs/scripts/summarize.py "$OUT/laplace.jsonl"
[ -s "$OUT/ising.jsonl" ] && python3 labs/06-ising-sliced/plot.py "$OUT/ising.jsonl"
[ -s "$OUT/tetfv.jsonl" ] && python3 labs/scripts/summarize.py "$OUT/tetfv.jsonl"
[ -s "$OUT/bfs.jsonl" ] && python3 labs/scripts/summarize.py "$OUT/bfs.jsonl"
[ -s "$OUT/particles.jsonl" ] && python3 labs/scripts/summarize.py "$OUT/particles.jsonl"
[ -s "$OUT/comm.jsonl" ] && python3 labs/scripts/summarize.py "$OUT/comm.jsonl"
[ -s "$OUT/lbm.jsonl" ] && python3 labs/scripts/summarize.py "$OUT/lbm.jsonl" && python3 - "$OUT/lbm.jsonl" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    res = {k: v for k, v in r.get("results", {}).items() if k.startswith(("ak2005", "steps_to", "mass"))}
    if any(k.startswith("ak2005") for k in res):
        print("cavity", r["params"].get("nx"), {k: (round(v, 5) if isinstance(v, float) else v) for k, v in res.items()},
              [c["name"] + ":" + c["status"] for c in r["verify"]["checks"]])
PY
grep -E "^(tile|hyexp)" "$OUT/bench.log" 2>/dev/null
grep -E "failed|FAILED" "$OUT/bench.log" 2>/dev/null | head
echo "ceilings:"; cat "$KIT_CEILING_CACHE" 2>/dev/null
echo "ctest exit $test_rc"
exit $test_rc
