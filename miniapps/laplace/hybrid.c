/* hybrid.c: the `hybrid` variant. One MPI rank per GPU; each rank's slab is split along z
 * between its GPU (the lower ng planes) and its CPU cores (the upper nc planes), with the
 * nested OpenMP scheme of Sourouri Paper II Listing 3: an outer team of two threads, the
 * first leading a group that does MPI, GPU control and the CPU boundary planes, the
 * second leading a group that computes the CPU interior. The CPU share comes from the
 * measured triads (--cpu-fraction auto, kit/hybrid.h) or is given.
 * Unlike Listing 3, the two inner teams are opened once per run, not once per step:
 * libgomp creates a nested team's threads anew for every nested region, which cost about
 * a millisecond per step on the H200 machine. The groups meet once per step at a
 * two-party barrier between their masters (docs/architecture.md, "hybrid").
 *   mpiexec -n 2 build/bin/laplace --variant hybrid --size 512 --cpu-fraction auto */
#include <omp.h>
#include <stdlib.h>

#include "cpu_kernel.h"
#include "gpu_block.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"
#include "kit/slab.h"

typedef struct hybrid_state {
  laplace_ctx c;
  int ng, nc;          /* planes on the GPU and on the CPU */
  laplace_dev_block d; /* GPU part: planes 1..ng, ghosts 0 and ng+1 */
  laplace_block hb;    /* CPU part: planes 1..nc, ghost 0 is the GPU's plane ng */
  double *hu, *hun;    /* CPU fields, page-locked so planes copy asynchronously */
  cudaStream_t boundary, bulk, data;
  cudaEvent_t boundary_done, bulk_done, data_done; /* order steps without host syncs */
  kit_halo halo;                                   /* pinned staging for the GPU's external planes */
  int threads_comm, threads_interior;              /* sizes of the two thread groups */
  laplace_cpu_block kernel;                        /* CPU sweeps (--cpu-block, cpu_kernel.h) */
} hybrid_state;

static void *hy_setup(const void *arg) {
  const laplace_ctx *c = arg;
  hybrid_state *s = calloc(1, sizeof *s);
  s->c = *c;
  s->nc = kit_cpu_planes(c->blk.nz, c->cpu_fraction);
  s->ng = c->blk.nz - s->nc;
  const laplace_block gb = laplace_block_make(c->blk.nx, c->blk.ny, c->blk.k0, s->ng);
  laplace_dev_block_init(&s->d, c->p, &gb, c->env->device);
  s->hb = laplace_block_make(c->blk.nx, c->blk.ny, c->blk.k0 + s->ng, s->nc);
  if (s->nc > 0) {
    const size_t bytes = s->hb.points * sizeof(double);
    s->hu = kit_malloc(bytes, "hybrid CPU field");
    s->hun = kit_malloc(bytes, "hybrid CPU field");
    KIT_CUDA_CHECK(cudaHostRegister(s->hu, bytes, cudaHostRegisterDefault));
    KIT_CUDA_CHECK(cudaHostRegister(s->hun, bytes, cudaHostRegisterDefault));
    laplace_fill(c->p, &s->hb, s->hu);
    laplace_fill(c->p, &s->hb, s->hun);
  }
  int least = 0, greatest = 0;
  KIT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->boundary, cudaStreamNonBlocking, greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->data, cudaStreamNonBlocking, greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->bulk, cudaStreamNonBlocking, least));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->boundary_done, cudaEventDisableTiming));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->bulk_done, cudaEventDisableTiming));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->data_done, cudaEventDisableTiming));
  kit_halo_init(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP], c->blk.sz, 1, 1);
  /* Paper II found about 3/8 of the cores for the communication group best (6 of 16).
   * One core is left out of the groups: threads waiting at barriers spin, and on the H200
   * machines a descheduled GPU-driving thread cost milliseconds per step (docs/hybrid.md). */
  const int T = c->env->threads > 1 ? c->env->threads - 1 : 1;
  s->threads_comm = T * 3 / 8 > 1 ? T * 3 / 8 : 1;
  s->threads_interior = T - s->threads_comm > 1 ? T - s->threads_comm : 1;
  if (s->nc == 0) s->threads_comm = s->threads_interior = 1; /* nothing for the CPU to do */
  /* Collective: every rank, also one without CPU planes (its sweeps are empty). */
  s->kernel = laplace_cpu_block_resolve(&c->p->cpu_block, c->env, c->p, &s->hb, s->hu, s->hun, 1, s->nc + 1,
                                        s->threads_interior);
  if (s->nc > 0) laplace_fill(c->p, &s->hb, s->hun);
  omp_set_max_active_levels(2);
  return s;
}

static void hy_reset(void *st) {
  hybrid_state *s = st;
  laplace_dev_block_reset(&s->d);
  if (s->nc > 0) {
    laplace_fill(s->c.p, &s->hb, s->hu);
    laplace_fill(s->c.p, &s->hb, s->hun);
  }
}

/* Group A's work for one step (Listing 3, tid == 0): its master does MPI and GPU control,
 * all its threads compute the CPU boundary planes. Called by every thread of group A. */
static void hy_comm_group(hybrid_state *s, double *hu, double *hun) {
  laplace_dev_block *d = &s->d;
  const laplace_block *b = &d->blk, *hb = &s->hb;
  const laplace_params *p = s->c.p;
  const size_t plane = b->sz * sizeof(double);
  const int nc = s->nc, ng = s->ng;
  double *cpu_ghost_below = nc ? hun : NULL;               /* GPU plane ng lands here */
  double *cpu_top = nc ? hun + (size_t)nc * hb->sz : NULL; /* goes to the rank above */
  double *cpu_ghost_above = nc ? hun + (size_t)(nc + 1) * hb->sz : NULL;

#pragma omp master
  {
    KIT_RANGE_PUSH("step");
    /* GPU boundary planes, their copies to the host, then the GPU bulk. As in two_stream.c,
     * events rather than host synchronisations order consecutive steps: the boundary
     * overwrites planes the previous bulk reads and reads the CPU plane copied last step;
     * the bulk waits only for the previous boundary kernels, never for the exchange. */
    KIT_CUDA_CHECK(cudaStreamWaitEvent(s->boundary, s->bulk_done, 0));
    KIT_CUDA_CHECK(cudaStreamWaitEvent(s->boundary, s->data_done, 0));
    KIT_CUDA_CHECK(cudaStreamWaitEvent(s->bulk, s->boundary_done, 0));
    int g = kit_gpu_range_begin("gpu_boundary", s->boundary);
    launch_laplace_sweep(b, d->u, d->un, 1, 2, p->alpha, p->beta, s->boundary);
    if (ng > 1) launch_laplace_sweep(b, d->u, d->un, ng, ng + 1, p->alpha, p->beta, s->boundary);
    kit_gpu_range_end(g, s->boundary);
    KIT_CUDA_CHECK(cudaEventRecord(s->boundary_done, s->boundary)); /* kernels only: see bulk */
    g = kit_gpu_range_begin("d2h", s->boundary);
    if (s->halo.send[KIT_DOWN])
      KIT_CUDA_CHECK(cudaMemcpyAsync(s->halo.send[KIT_DOWN], laplace_dev_plane(d, d->un, 1), plane,
                                     cudaMemcpyDeviceToHost, s->boundary));
    double *gpu_top_dst = nc ? cpu_ghost_below : s->halo.send[KIT_UP];
    if (gpu_top_dst)
      KIT_CUDA_CHECK(cudaMemcpyAsync(gpu_top_dst, laplace_dev_plane(d, d->un, ng), plane,
                                     cudaMemcpyDeviceToHost, s->boundary));
    kit_gpu_range_end(g, s->boundary);
    g = kit_gpu_range_begin("gpu_bulk", s->bulk);
    launch_laplace_sweep(b, d->u, d->un, 2, ng, p->alpha, p->beta, s->bulk);
    kit_gpu_range_end(g, s->bulk);
    KIT_CUDA_CHECK(cudaEventRecord(s->bulk_done, s->bulk));
    KIT_RANGE_PUSH("cpu_boundary");
  }
  /* CPU boundary planes, by the whole group (the master joins once the GPU is busy). */
  if (nc) laplace_cpu_sweep_rows(p, hb, hu, hun, 1, 2, &s->kernel);
  if (nc > 1) laplace_cpu_sweep_rows(p, hb, hu, hun, nc, nc + 1, &s->kernel);
#pragma omp master
  {
    KIT_RANGE_POP();
    if (nc) {
      int g = kit_gpu_range_begin("h2d_intra", s->data);
      KIT_CUDA_CHECK(cudaMemcpyAsync(laplace_dev_plane(d, d->un, ng + 1), hun + hb->sz, plane,
                                     cudaMemcpyHostToDevice, s->data));
      kit_gpu_range_end(g, s->data);
      KIT_CUDA_CHECK(cudaEventRecord(s->data_done, s->data));
    }
    /* The GPU's planes are in host memory (also the one the CPU reads next step) once the
     * boundary stream drains: it waits for the previous bulk, so the host stays at most
     * one step ahead of the GPU. */
    KIT_RANGE_PUSH("wait_boundary");
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
    KIT_RANGE_POP();
    KIT_RANGE_PUSH("mpi");
    /* Posted only now: the previous step's copy out of the receive buffer has drained. */
    kit_halo_irecv(&s->halo, KIT_DOWN, s->halo.recv[KIT_DOWN]);
    kit_halo_irecv(&s->halo, KIT_UP, nc ? cpu_ghost_above : s->halo.recv[KIT_UP]);
    kit_halo_isend(&s->halo, KIT_DOWN, s->halo.send[KIT_DOWN]);
    kit_halo_isend(&s->halo, KIT_UP, nc ? cpu_top : s->halo.send[KIT_UP]);
    kit_halo_waitall(&s->halo);
    KIT_RANGE_POP();
    int g = kit_gpu_range_begin("h2d", s->boundary);
    if (s->halo.recv[KIT_DOWN])
      KIT_CUDA_CHECK(cudaMemcpyAsync(laplace_dev_plane(d, d->un, 0), s->halo.recv[KIT_DOWN], plane,
                                     cudaMemcpyHostToDevice, s->boundary));
    if (!nc && s->halo.recv[KIT_UP])
      KIT_CUDA_CHECK(cudaMemcpyAsync(laplace_dev_plane(d, d->un, ng + 1), s->halo.recv[KIT_UP], plane,
                                     cudaMemcpyHostToDevice, s->boundary));
    kit_gpu_range_end(g, s->boundary);
    laplace_dev_swap(d);
    KIT_RANGE_POP();
  }
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
  hybrid_state *s = st;
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
          laplace_cpu_sweep_rows(s->c.p, &s->hb, hu, hun, 2, s->nc, &s->kernel);
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
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->data));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->bulk));
  if (steps % 2) {
    double *t_ = s->hu;
    s->hu = s->hun;
    s->hun = t_;
  }
}

static void hy_fetch(void *st, void *out) {
  hybrid_state *s = st;
  laplace_dev_block_fetch(&s->d, out);
  if (s->nc)
    laplace_copy_interior(&s->hb, s->hu, 1, s->nc + 1, (double *)out + (size_t)s->ng * s->hb.nx * s->hb.ny);
}

static const kit_halo *hy_halo(void *st) {
  return &((hybrid_state *)st)->halo;
}

static void hy_teardown(void *st) {
  hybrid_state *s = st;
  KIT_CUDA_CHECK(cudaStreamDestroy(s->boundary));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->bulk));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->data));
  KIT_CUDA_CHECK(cudaEventDestroy(s->boundary_done));
  KIT_CUDA_CHECK(cudaEventDestroy(s->bulk_done));
  KIT_CUDA_CHECK(cudaEventDestroy(s->data_done));
  if (s->nc) {
    KIT_CUDA_CHECK(cudaHostUnregister(s->hu));
    KIT_CUDA_CHECK(cudaHostUnregister(s->hun));
    free(s->hu);
    free(s->hun);
  }
  kit_halo_free(&s->halo);
  laplace_dev_block_free(&s->d);
  free(s);
}

const laplace_variant laplace_hybrid = {
    .name = "hybrid",
    .summary = "one rank per GPU; the slab split between GPU and CPU cores, nested OpenMP groups (Paper II)",
    .needs_gpu = 1,
    .setup = hy_setup,
    .reset = hy_reset,
    .run = hy_run,
    .fetch = hy_fetch,
    .halo = hy_halo,
    .teardown = hy_teardown,
    .hybrid = 1,
};
