/* hybrid_split.h: a rank's slab split along z between its GPU (the lower ng planes) and its CPU
 * cores (the upper nc planes), shared by Sourouri Paper II's two CPU+GPU schemes: `hybrid`
 * (hybrid.c, Listing 3: nested OpenMP groups) and `hybrid-naive` (hybrid_naive.c, Listing 2:
 * one team, the CPU's parts one after the other around the master's communication). The state,
 * its set-up and teardown, and the master's two pieces of a step both schemes run: launching
 * the GPU's boundary, copies and bulk, and the exchange after the CPU's boundary planes. */
#ifndef LAPLACE_HYBRID_SPLIT_H
#define LAPLACE_HYBRID_SPLIT_H
#include "cpu_kernel.h"
#include "gpu_block.h"
#include "kit/halo.h"

typedef struct laplace_split {
  laplace_ctx c;
  int ng, nc;          /* planes on the GPU and on the CPU */
  laplace_dev_block d; /* GPU part: planes 1..ng, ghosts 0 and ng+1 */
  laplace_block hb;    /* CPU part: planes 1..nc, ghost 0 is the GPU's plane ng */
  double *hu, *hun;    /* CPU fields, page-locked so planes copy asynchronously */
  cudaStream_t boundary, bulk, data;
  cudaEvent_t boundary_done, bulk_done, data_done; /* order steps without host syncs */
  kit_halo halo;                                   /* pinned staging for the GPU's external planes */
  int threads_comm, threads_interior;              /* hybrid: the two groups; hybrid-naive: 1 and the team */
  laplace_cpu_block kernel;                        /* CPU sweeps (--cpu-block, cpu_kernel.h) */
} laplace_split;

/* The split of c's slab (c->cpu_fraction), the fields, streams, events and staging; `nested`:
 * size the two thread groups of Listing 3, else one team of all the rank's threads. */
laplace_split *laplace_hybrid_setup(const laplace_ctx *c, int nested);
void laplace_hybrid_reset(void *st);
void laplace_hybrid_fetch(void *st, void *out);
const kit_halo *laplace_hybrid_halo(void *st);
void laplace_hybrid_teardown(void *st);

/* The master's first piece of a step: the GPU's boundary planes, their copies to the host (the
 * rank below's plane, the CPU's ghost), the GPU's bulk; ordered by events, not host waits. */
void laplace_hybrid_gpu_launch(laplace_split *s, double *hun);
/* The CPU's boundary planes 1 and nc of hu into hun, a worksharing loop over the enclosing
 * team (its implicit barrier ends it). */
void laplace_hybrid_cpu_boundary(laplace_split *s, const double *hu, double *hun);
/* The CPU's interior planes 2..nc-1, the same way. */
void laplace_hybrid_cpu_interior(laplace_split *s, const double *hu, double *hun);
/* The master's second piece, once the CPU's boundary planes are done: the CPU's plane 1 to the
 * GPU's ghost, the wait for the GPU's copies, MPI with the neighbour ranks, the received
 * planes into the GPU's ghosts, the GPU's swap. */
void laplace_hybrid_exchange(laplace_split *s, double *hun);
/* After the steps: the streams drained, the host fields in step order. */
void laplace_hybrid_finish(laplace_split *s, int steps);
#endif
