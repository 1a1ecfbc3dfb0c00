#!/usr/bin/env bash
# ncu-ising-msc.sh BIN OUT.txt: Nsight Compute on one bulk launch of the msc half-sweep kernel
# (`naive`, L = 512, the fourth launch: colour 1's bulk of the first sweep), with the
# instruction and scheduler statistics the ising README's "Multi-spin coding" quotes.
set -euo pipefail
bin=${1:-build-gpu/bin/ising}; out=${2:-ncu-ising-msc.txt}
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
"$ncu" -k regex:ising_bits_half_sweep --launch-skip 3 --launch-count 1 \
  --section SpeedOfLight --section LaunchStats --section Occupancy --section InstructionStats \
  --section SchedulerStats --section MemoryWorkloadAnalysis \
  "$bin" --variant naive --layout msc --size 512 --iters 2 --reps 1 --warmup 0 --no-verify > "$out" 2>&1
