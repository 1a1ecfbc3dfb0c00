/* hybrid.c: the `hybrid` variant. One rank per GPU, and the rank's CPU cores take the top
 * `cpu_fraction` of its slab, the GPU the rest (Sourouri Paper II's CPU+GPU split on Risso's
 * z-decomposition). The GPU part and the CPU part are neighbours inside the rank: each step
 * the five populations leaving the GPU part's top plane go to the CPU part's lower ghost
 * plane and the five leaving the CPU part's bottom plane to the GPU part's upper ghost plane,
 * through pinned host memory; the GPU part's lower end and the CPU part's upper end talk MPI.
 * Each step:
 *   GPU (boundary stream): its two boundary planes, their face populations to the host;
 *       (bulk stream): its inner planes;
 *   CPU (all OpenMP threads, the master having queued the GPU work first): its boundary
 *       planes, MPI, its inner planes, then the ghost planes of both parts.
 * --halo (faces.h) chooses how the GPU part's faces reach pinned host memory: five copies, or
 * a pack kernel and one copy (faces.h's staged pack); the lower one goes to MPI from there,
 * the upper one to the CPU part, which reads host memory. hybrid keeps this MPI exchange of
 * its own (no --comm yet: its upper end is the CPU part's host memory, README.md "--comm").
 * With a share that gives the CPU no plane, the driver runs the two-stream variant.
 *   mpiexec -n 2 build/bin/lbm --variant hybrid --cpu-fraction 0.05 --size 128 --halo pack */
#include <stdlib.h>
#include <string.h>

#include "faces.h"
#include "kernels.h"
#include "kit/check.h"
#include "kit/ranges.h"
#include "kit/slab.h"

typedef struct hybrid_state {
  lbm_ctx c;
  lbm_dev_block d;  /* the GPU part: the lower planes */
  lbm_block cb;     /* the CPU part: the upper planes */
  double *cf, *cfn; /* its current and next lattice (host) */
  /* The GPU part's faces. Side DOWN: MPI, as --halo. Side UP: the interface with the CPU
   * part; host_out[KIT_UP] carries the GPU's populations to the CPU, host_in[KIT_UP] the
   * CPU's to the GPU (pinned). */
  lbm_dev_faces faces;
  double *up_send, *up_recv; /* the CPU part's MPI buffers with the rank above (or NULL) */
  cudaStream_t boundary, bulk;
  cudaEvent_t ghosts_in, bulk_done;
  kit_halo halo; /* side DOWN: the GPU part's MPI; side UP: the CPU part's */
} hybrid_state;

/* Every exchange buffer starts with the initial ghost populations (as cpu.c), so a message
 * or copy that never happens leaves the ghosts stale rather than zero. */
static void init_state(hybrid_state *s) {
  lbm_dev_block *d = &s->d;
  const lbm_block *cb = &s->cb;
  lbm_dev_block_reset(d);
  lbm_fill(s->c.p, cb, s->cf);
  lbm_fill(s->c.p, cb, s->cfn);
  lbm_pack(cb, s->cf, 0, 1, s->faces.host_out[KIT_UP]);
  if (s->up_recv) lbm_pack(cb, s->cf, cb->nz + 1, 0, s->up_recv);
  lbm_dev_faces_prime(&s->faces, d, s->boundary);
}

static void *hy_setup(const void *arg) {
  const lbm_ctx *c = arg;
  hybrid_state *s = calloc(1, sizeof *s);
  s->c = *c;
  const int nc = kit_cpu_planes(c->blk.nz, c->cpu_fraction), ng = c->blk.nz - nc;
  const lbm_block gb = lbm_block_make(c->blk.nx, c->blk.ny, c->blk.k0, ng);
  s->cb = lbm_block_make(c->blk.nx, c->blk.ny, c->blk.k0 + ng, nc);
  lbm_dev_block_init(&s->d, c->p, &gb, c->env->device);
  s->cf = kit_malloc(s->cb.total * sizeof(double), "CPU part lattice");
  s->cfn = kit_malloc(s->cb.total * sizeof(double), "CPU part lattice");
  const size_t count = (size_t)LBM_ZQ * c->blk.plane;
  int mode[2];
  lbm_dev_faces_mpi_modes(c, mode);
  mode[KIT_UP] = (int)c->p->halo_mode;
  lbm_dev_faces_init(&s->faces, &s->d, mode, 1);
  if (c->nbr[KIT_UP] != MPI_PROC_NULL) {
    s->up_send = kit_host_alloc(count * sizeof(double), 0);
    s->up_recv = kit_host_alloc(count * sizeof(double), 0);
  }
  int least = 0, greatest = 0;
  KIT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->boundary, cudaStreamNonBlocking, greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->bulk, cudaStreamNonBlocking, least));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->ghosts_in, cudaEventDisableTiming));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->bulk_done, cudaEventDisableTiming));
  kit_halo_init(&s->halo, MPI_COMM_WORLD, c->nbr[KIT_DOWN], c->nbr[KIT_UP], count, 0, 1);
  init_state(s);
  return s;
}

static void hy_reset(void *st) {
  init_state(st);
}

static void hy_run(void *st, int steps) {
  hybrid_state *s = st;
  lbm_dev_block *d = &s->d;
  const lbm_block *cb = &s->cb;
  const lbm_params *p = s->c.p;
  const int ng = d->blk.nz, nc = cb->nz, threads = s->c.env->threads, stale = kit_fault("stale-halo");
  const double Fx = p->force[0], Fy = p->force[1], Fz = p->force[2];
  kit_halo *h = &s->halo;
  const lbm_dev_faces *x = &s->faces;
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    /* GPU: boundary planes first, their face populations out; the inner planes alongside. */
    if (t > 0) KIT_CUDA_CHECK(cudaStreamWaitEvent(s->boundary, s->bulk_done, 0));
    int r = kit_gpu_range_begin("gpu_boundary", s->boundary);
    launch_lbm_update(&d->geom, d->f, d->fn, 1, 2, p->omega, Fx, Fy, Fz, s->boundary);
    if (ng > 1) launch_lbm_update(&d->geom, d->f, d->fn, ng, ng + 1, p->omega, Fx, Fy, Fz, s->boundary);
    kit_gpu_range_end(r, s->boundary);
    r = kit_gpu_range_begin("halo_out", s->boundary);
    if (!stale) lbm_dev_faces_out(x, d, d->fn, KIT_UP, s->boundary);
    lbm_dev_faces_out(x, d, d->fn, KIT_DOWN, s->boundary);
    kit_gpu_range_end(r, s->boundary);
    if (t > 0) KIT_CUDA_CHECK(cudaStreamWaitEvent(s->bulk, s->ghosts_in, 0));
    r = kit_gpu_range_begin("gpu_bulk", s->bulk);
    launch_lbm_update(&d->geom, d->f, d->fn, 2, ng, p->omega, Fx, Fy, Fz, s->bulk);
    kit_gpu_range_end(r, s->bulk);
    KIT_CUDA_CHECK(cudaEventRecord(s->bulk_done, s->bulk));

    /* CPU: receives first, then the boundary planes and their sends, then the inner planes. */
    kit_halo_irecv(h, KIT_DOWN, lbm_dev_faces_recv_buf(x, KIT_DOWN));
    kit_halo_irecv(h, KIT_UP, s->up_recv);
    KIT_RANGE_PUSH("cpu_boundary");
    lbm_update_host(p, cb, s->cf, s->cfn, 1, 2, threads);
    if (nc > 1) lbm_update_host(p, cb, s->cf, s->cfn, nc, nc + 1, threads);
    if (s->up_send) lbm_pack(cb, s->cfn, nc, 1, s->up_send);
    if (!stale) lbm_pack(cb, s->cfn, 1, 0, x->host_in[KIT_UP]);
    KIT_RANGE_POP();
    kit_halo_isend(h, KIT_UP, s->up_send);
    KIT_RANGE_PUSH("wait_gpu_boundary");
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
    KIT_RANGE_POP();
    kit_halo_isend(h, KIT_DOWN, lbm_dev_faces_send_buf(x, KIT_DOWN));
    KIT_RANGE_PUSH("cpu_bulk");
    lbm_update_host(p, cb, s->cf, s->cfn, 2, nc, threads);
    KIT_RANGE_POP();
    KIT_RANGE_PUSH("mpi_wait");
    kit_halo_waitall(h);
    KIT_RANGE_POP();

    /* Ghost planes of the next lattices: the CPU part's from the GPU and the rank above, the
     * GPU part's from the rank below and the CPU. */
    KIT_RANGE_PUSH("unpack");
    lbm_unpack(cb, s->cfn, 0, 1, x->host_out[KIT_UP]);
    if (s->up_recv) lbm_unpack(cb, s->cfn, nc + 1, 0, s->up_recv);
    KIT_RANGE_POP();
    r = kit_gpu_range_begin("halo_in", s->boundary);
    for (int side = 0; side < 2; ++side) lbm_dev_faces_in(x, d, d->fn, side, s->boundary);
    kit_gpu_range_end(r, s->boundary);
    KIT_CUDA_CHECK(cudaEventRecord(s->ghosts_in, s->boundary));
    /* The buffers are refilled next step: the copies out of them must be done. */
    KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
    lbm_dev_swap(d);
    double *t_ = s->cf;
    s->cf = s->cfn;
    s->cfn = t_;
    KIT_RANGE_POP();
  }
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->bulk));
}

static void hy_fetch(void *st, void *out) {
  double *macro = out; /* rho, ux, uy, uz per cell */
  hybrid_state *s = st;
  lbm_dev_block_fetch(&s->d, macro);
  lbm_macroscopic(s->c.p, &s->cb, s->cf, 1, s->cb.nz + 1, macro + 4 * s->d.blk.plane * (size_t)s->d.blk.nz);
}

static void hy_fetch_lattice(void *st, double *out) {
  hybrid_state *s = st;
  lbm_dev_block_fetch_lattice(&s->d, out);
  lbm_lattice_planes(&s->cb, s->cf, out + (size_t)LBM_Q * s->d.blk.plane * (size_t)s->d.blk.nz);
}

static const kit_halo *hy_halo(void *st) {
  return &((hybrid_state *)st)->halo;
}

static void hy_teardown(void *st) {
  hybrid_state *s = st;
  KIT_CUDA_CHECK(cudaStreamDestroy(s->boundary));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->bulk));
  KIT_CUDA_CHECK(cudaEventDestroy(s->ghosts_in));
  KIT_CUDA_CHECK(cudaEventDestroy(s->bulk_done));
  kit_halo_free(&s->halo);
  lbm_dev_faces_free(&s->faces);
  if (s->up_send) kit_host_free(s->up_send, 0);
  if (s->up_recv) kit_host_free(s->up_recv, 0);
  free(s->cf);
  free(s->cfn);
  lbm_dev_block_free(&s->d);
  free(s);
}

const lbm_variant lbm_hybrid = {
    .base =
        {
            .name = "hybrid",
            .summary = "one rank per GPU; the CPU cores take the top share of the slab (--cpu-fraction), "
                       "MPI at both ends",
            .needs_gpu = 1,
            .setup = hy_setup,
            .reset = hy_reset,
            .run = hy_run,
            .fetch = hy_fetch,
            .halo = hy_halo,
            .teardown = hy_teardown,
            .hybrid = 1,
        },
    .fetch_lattice = hy_fetch_lattice,
};
