/* hybrid_split.c: the GPU/CPU split of a rank's slab shared by `hybrid` and `hybrid-naive`
 * (hybrid_split.h; Sourouri Paper II Sec. 4, Listings 2 and 3). */
#include "hybrid_split.h"

#include <omp.h>
#include <stdlib.h>

#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"
#include "kit/slab.h"

laplace_split *laplace_hybrid_setup(const laplace_ctx *c, int nested) {
  laplace_split *s = calloc(1, sizeof *s);
  if (!s) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
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
  /* Listing 2's one team: every core of the rank computes both CPU parts. */
  if (!nested) s->threads_comm = 1, s->threads_interior = c->env->threads;
  if (s->nc == 0) s->threads_comm = s->threads_interior = 1; /* nothing for the CPU to do */
  /* Collective: every rank, also one without CPU planes (its sweeps are empty). */
  s->kernel = laplace_cpu_block_resolve(&c->p->cpu_block, c->env, c->p, &s->hb, s->hu, s->hun, 1, s->nc + 1,
                                        s->threads_interior);
  if (s->nc > 0) laplace_fill(c->p, &s->hb, s->hun);
  if (nested) omp_set_max_active_levels(2);
  return s;
}

void laplace_hybrid_reset(void *st) {
  laplace_split *s = st;
  laplace_dev_block_reset(&s->d);
  if (s->nc > 0) {
    laplace_fill(s->c.p, &s->hb, s->hu);
    laplace_fill(s->c.p, &s->hb, s->hun);
  }
}

void laplace_hybrid_gpu_launch(laplace_split *s, double *hun) {
  laplace_dev_block *d = &s->d;
  const laplace_block *b = &d->blk;
  const laplace_params *p = s->c.p;
  const size_t plane = b->sz * sizeof(double);
  const int nc = s->nc, ng = s->ng;
  double *cpu_ghost_below = nc ? hun : NULL; /* GPU plane ng lands here */
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
  KIT_RANGE_PUSH("cpu_boundary"); /* popped by laplace_hybrid_exchange */
}

void laplace_hybrid_cpu_boundary(laplace_split *s, const double *hu, double *hun) {
  const int nc = s->nc;
  if (nc) laplace_cpu_sweep_rows(s->c.p, &s->hb, hu, hun, 1, 2, &s->kernel);
  if (nc > 1) laplace_cpu_sweep_rows(s->c.p, &s->hb, hu, hun, nc, nc + 1, &s->kernel);
}

void laplace_hybrid_cpu_interior(laplace_split *s, const double *hu, double *hun) {
  if (s->nc > 2) laplace_cpu_sweep_rows(s->c.p, &s->hb, hu, hun, 2, s->nc, &s->kernel);
}

void laplace_hybrid_exchange(laplace_split *s, double *hun) {
  laplace_dev_block *d = &s->d;
  const laplace_block *b = &d->blk, *hb = &s->hb;
  const size_t plane = b->sz * sizeof(double);
  const int nc = s->nc, ng = s->ng;
  double *cpu_top = nc ? hun + (size_t)nc * hb->sz : NULL; /* goes to the rank above */
  double *cpu_ghost_above = nc ? hun + (size_t)(nc + 1) * hb->sz : NULL;
  KIT_RANGE_POP(); /* cpu_boundary */
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
  KIT_RANGE_POP(); /* step */
}

void laplace_hybrid_finish(laplace_split *s, int steps) {
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->data));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->bulk));
  if (steps % 2) {
    double *t_ = s->hu;
    s->hu = s->hun;
    s->hun = t_;
  }
}

void laplace_hybrid_fetch(void *st, void *out) {
  laplace_split *s = st;
  laplace_dev_block_fetch(&s->d, out);
  if (s->nc)
    laplace_copy_interior(&s->hb, s->hu, 1, s->nc + 1, (double *)out + (size_t)s->ng * s->hb.nx * s->hb.ny);
}

const kit_halo *laplace_hybrid_halo(void *st) {
  return &((laplace_split *)st)->halo;
}

void laplace_hybrid_teardown(void *st) {
  laplace_split *s = st;
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
