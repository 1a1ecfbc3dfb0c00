/* hybrid_naive.c: the `hybrid-naive` variant, Sourouri Paper II's naive CPU+GPU version
 * (Sec. 4.1, Listing 2). The same split as `hybrid` (hybrid_split.h: the GPU the lower planes
 * of each rank's slab, the CPU cores the upper ones, --cpu-fraction), but one OpenMP team of
 * all the rank's threads does everything in turn: its master launches the GPU's boundary, copies
 * and bulk, the whole team computes the CPU's boundary planes, then the master alone trades the
 * planes (the CPU's plane to the GPU, MPI with the neighbour ranks, the received planes into the
 * GPU's ghosts) while the other threads start the CPU's interior, which the master joins only
 * when the messages are done. So MPI never overlaps the master's share of the CPU work, and the
 * next step's GPU launches wait for the whole CPU interior: the drawback `hybrid`'s nested
 * groups (Listing 3) remove, and what the two variants side by side measure.
 * Listing 2 posts its receives at the top of the step; here they are posted with the sends in
 * the exchange (laplace_hybrid_exchange, the nested variant's own), after the previous copy out
 * of the receive buffer has drained.
 *   mpiexec -n 2 build/bin/laplace --variant hybrid-naive --size 512 --cpu-fraction 0.02 */
#include <omp.h>

#include "hybrid_split.h"
#include "kit/check.h"
#include "kit/ranges.h"

static void *hn_setup(const void *arg) {
  return laplace_hybrid_setup(arg, 0);
}

static void hn_run(void *st, int steps) {
  laplace_split *s = st;
#pragma omp parallel num_threads(s->threads_interior)
  {
#pragma omp master
    KIT_CUDA_CHECK(cudaSetDevice(s->d.device));
    for (int t = 0; t < steps; ++t) {
      /* Host fields by step parity, so no thread swaps what another reads. */
      double *hu = t % 2 ? s->hun : s->hu, *hun = t % 2 ? s->hu : s->hun;
#pragma omp master
      laplace_hybrid_gpu_launch(s, hun); /* Listing 2, lines 3-15 */
      /* Lines 17-19: the team's CPU boundary planes (the worksharing loop's barrier ends them). */
      laplace_hybrid_cpu_boundary(s, hu, hun);
#pragma omp master
      laplace_hybrid_exchange(s, hun); /* lines 22-36: no barrier after, the others go on */
      /* Line 38: the CPU interior, the master's share once it is back from MPI. */
      laplace_hybrid_cpu_interior(s, hu, hun);
#pragma omp barrier
    }
  }
  laplace_hybrid_finish(s, steps);
}

const laplace_variant laplace_hybrid_naive = {
    .name = "hybrid-naive",
    .summary =
        "one rank per GPU; the slab split between GPU and CPU cores, one OpenMP team doing the "
        "CPU parts and the exchange in turn (Paper II Listing 2)",
    .needs_gpu = 1,
    .setup = hn_setup,
    .reset = laplace_hybrid_reset,
    .run = hn_run,
    .fetch = laplace_hybrid_fetch,
    .halo = laplace_hybrid_halo,
    .teardown = laplace_hybrid_teardown,
    .hybrid = 1,
};
