/* hybrid.c: the `hybrid` variant. One MPI rank per GPU; each rank's slab is split along z
 * between its GPU (the lower ng planes) and its CPU cores (the upper nc planes; hybrid_split.h),
 * with the nested OpenMP scheme of Sourouri Paper II Listing 3: an outer team of two threads,
 * the first leading a group that does MPI, GPU control and the CPU boundary planes, the
 * second leading a group that computes the CPU interior. The CPU share comes from the
 * measured triads (--cpu-fraction auto, kit/hybrid.h) or is given.
 * Unlike Listing 3, the two inner teams are opened once per run, not once per step:
 * libgomp creates a nested team's threads anew for every nested region, which cost about
 * a millisecond per step on the H200 machine. The groups meet once per step at a
 * two-party barrier between their masters (docs/architecture.md, "hybrid").
 * hybrid_naive.c runs the same split with Listing 2's single team.
 *   mpiexec -n 2 build/bin/laplace --variant hybrid --size 512 --cpu-fraction auto */
#include <omp.h>

#include "hybrid_split.h"
#include "kit/check.h"
#include "kit/ranges.h"

static void *hy_setup(const void *arg) {
  return laplace_hybrid_setup(arg, 1);
}

/* Group A's work for one step (Listing 3, tid == 0): its master does MPI and GPU control,
 * all its threads compute the CPU boundary planes. Called by every thread of group A. */
static void hy_comm_group(laplace_split *s, const double *hu, double *hun) {
#pragma omp master
  laplace_hybrid_gpu_launch(s, hun);
  /* CPU boundary planes, by the whole group (the master joins once the GPU is busy). */
  laplace_hybrid_cpu_boundary(s, hu, hun);
#pragma omp master
  laplace_hybrid_exchange(s, hun);
}

/* The two groups' masters meet here once per step; `target` grows by 2 each step. */
static void cross_group_barrier(int *arrived, int target) {
  int v;
#pragma omp atomic capture seq_cst
  v = ++(*arrived);
  while (v < target) {
#pragma omp atomic read seq_cst
    v = *arrived;
  }
}

static void hy_run(void *st, int steps) {
  laplace_split *s = st;
  int arrived = 0;
#pragma omp parallel num_threads(2)
  {
    /* Both groups must exist, or group 0 would wait at the two-party barrier forever. */
    if (omp_get_num_threads() != 2)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "hybrid needs 2 OpenMP threads at the outer level, got %d", omp_get_num_threads());
    const int group = omp_get_thread_num(); /* 0: communication group, 1: CPU interior */
#pragma omp parallel num_threads(group == 0 ? s->threads_comm : s->threads_interior)
    {
      if (group == 0 && omp_get_thread_num() == 0) KIT_CUDA_CHECK(cudaSetDevice(s->d.device));
      for (int t = 0; t < steps; ++t) {
        /* Host fields by step parity, so no thread swaps what another reads. */
        double *hu = t % 2 ? s->hun : s->hu, *hun = t % 2 ? s->hu : s->hun;
        if (group == 0) {
          hy_comm_group(s, hu, hun);
        } else if (s->nc > 2) {
#pragma omp master
          KIT_RANGE_PUSH("cpu_interior");
          laplace_hybrid_cpu_interior(s, hu, hun);
#pragma omp master
          KIT_RANGE_POP();
        }
#pragma omp barrier
#pragma omp master
        cross_group_barrier(&arrived, 2 * (t + 1));
#pragma omp barrier
      }
    }
  }
  laplace_hybrid_finish(s, steps);
}

const laplace_variant laplace_hybrid = {
    .name = "hybrid",
    .summary = "one rank per GPU; the slab split between GPU and CPU cores, nested OpenMP groups (Paper II)",
    .needs_gpu = 1,
    .setup = hy_setup,
    .reset = laplace_hybrid_reset,
    .run = hy_run,
    .fetch = laplace_hybrid_fetch,
    .halo = laplace_hybrid_halo,
    .teardown = laplace_hybrid_teardown,
    .hybrid = 1,
};
