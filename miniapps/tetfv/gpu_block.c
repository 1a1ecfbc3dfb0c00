/* gpu_block.c: device memory of a tetfv part (gpu_block.h): fields, the blocked matrix rows
 * (tetfv_block_rows, split.c, builds the layout on the host), the device send lists, and the
 * rank's exchange over kit/exchange.h (Paper III Sec. 3.1's separator exchange, the messages
 * going from device memory to device memory where --comm allows). */
#include "gpu_block.h"

#include <stdlib.h>
#include <string.h>

#include "kit/ranges.h"

static void *dev_alloc(size_t bytes) {
  void *p = NULL;
  KIT_CUDA_CHECK(cudaMalloc(&p, bytes + 64)); /* never zero bytes */
  return p;
}

static void upload(void *dst, const void *src, size_t bytes) {
  if (bytes) KIT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}

void tetfv_gpu_init(tetfv_gpu *g, int device, const tetfv_local *l, const double *u0, int nseg,
                    const int *cut, int pack) {
  memset(g, 0, sizeof *g);
  if (nseg > TETFV_GPU_NSEG)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "at most %d launch ranges", TETFV_GPU_NSEG);
  g->device = device;
  g->n = l->nown + l->nghost;
  KIT_CUDA_CHECK(cudaSetDevice(device));
  const size_t field = (size_t)g->n * sizeof(double);
  g->u = dev_alloc(field);
  g->un = dev_alloc(field);
  g->init = dev_alloc(field);
  upload(g->init, u0, field);
  g->nseg = nseg;
  for (int k = 0; k < nseg; ++k) {
    tetfv_dev_rows *s = &g->seg[k];
    s->r0 = cut[k];
    s->r1 = cut[k + 1];
    s->nblk = (s->r1 - s->r0) / TETFV_GPU_B;
    const size_t rows = (size_t)(s->r1 - s->r0);
    double *D = kit_malloc((rows + 1) * sizeof(double), "blocked rows");
    double *A = kit_malloc((rows * TETFV_W + 1) * sizeof(double), "blocked rows");
    int *I = kit_malloc((rows * TETFV_W + 1) * sizeof(int), "blocked rows");
    tetfv_block_rows(&l->m, s->r0, s->r1, D, A, I);
    s->D = dev_alloc(rows * sizeof(double));
    s->A = dev_alloc(rows * TETFV_W * sizeof(double));
    s->I = dev_alloc(rows * TETFV_W * sizeof(int));
    upload(s->D, D, rows * sizeof(double));
    upload(s->A, A, rows * TETFV_W * sizeof(double));
    upload(s->I, I, rows * TETFV_W * sizeof(int));
    free(D);
    free(A);
    free(I);
  }
  if (pack) {
    g->npack = l->send_off[l->nsend];
    g->send_idx = dev_alloc((size_t)g->npack * sizeof(int));
    g->sbuf = dev_alloc((size_t)g->npack * sizeof(double));
    upload(g->send_idx, l->send_idx, (size_t)g->npack * sizeof(int));
  }
  tetfv_gpu_reset(g);
}

void tetfv_gpu_reset(tetfv_gpu *g) {
  const size_t field = (size_t)g->n * sizeof(double);
  KIT_CUDA_CHECK(cudaSetDevice(g->device));
  /* Both fields hold the initial field, ghosts included, so a ghost never exchanged (the
   * stale-halo fault) keeps its initial value, as in cpu.c. */
  KIT_CUDA_CHECK(cudaMemcpy(g->u, g->init, field, cudaMemcpyDeviceToDevice));
  KIT_CUDA_CHECK(cudaMemcpy(g->un, g->init, field, cudaMemcpyDeviceToDevice));
  /* The variants' streams are non-blocking: without this their first kernels could read a
   * field still being copied. */
  KIT_CUDA_CHECK(cudaDeviceSynchronize());
}

void tetfv_gpu_pack_dev(const tetfv_gpu *g, const double *field, cudaStream_t s) {
  launch_tetfv_pack(g->send_idx, g->npack, field, g->sbuf, s); /* nothing for npack 0 */
}

void tetfv_gpu_pack(const tetfv_gpu *g, const double *field, double *host, cudaStream_t s) {
  if (g->npack <= 0) return;
  tetfv_gpu_pack_dev(g, field, s);
  KIT_CUDA_CHECK(
      cudaMemcpyAsync(host, g->sbuf, (size_t)g->npack * sizeof(double), cudaMemcpyDeviceToHost, s));
}

void tetfv_gpu_fetch(const tetfv_gpu *g, int a, int b, double *out) {
  if (b <= a) return;
  KIT_CUDA_CHECK(cudaSetDevice(g->device));
  KIT_CUDA_CHECK(cudaMemcpy(out + a, g->u + a, (size_t)(b - a) * sizeof(double), cudaMemcpyDeviceToHost));
}

void tetfv_gpu_free(tetfv_gpu *g) {
  KIT_CUDA_CHECK(cudaSetDevice(g->device));
  KIT_CUDA_CHECK(cudaFree(g->u));
  KIT_CUDA_CHECK(cudaFree(g->un));
  KIT_CUDA_CHECK(cudaFree(g->init));
  for (int k = 0; k < g->nseg; ++k) {
    KIT_CUDA_CHECK(cudaFree(g->seg[k].D));
    KIT_CUDA_CHECK(cudaFree(g->seg[k].A));
    KIT_CUDA_CHECK(cudaFree(g->seg[k].I));
  }
  if (g->send_idx) KIT_CUDA_CHECK(cudaFree(g->send_idx));
  if (g->sbuf) KIT_CUDA_CHECK(cudaFree(g->sbuf));
  memset(g, 0, sizeof *g);
}

void tetfv_gpu_rank_init(tetfv_gpu_rank *r, int device, const tetfv_local *l, const double *u0, int nseg,
                         const int *cut, kit_comm comm, int off) {
  memset(r, 0, sizeof *r);
  tetfv_gpu_init(&r->g, device, l, u0, nseg, cut, 1); /* leaves `device` current: the layer's */
  r->nown = l->nown;
  r->off = off;
  tetfv_links_build(l, &r->plan);
  const size_t n = (size_t)r->plan.n + 1;
  r->send = kit_malloc(n * sizeof(void *), "exchange buffers");
  r->recv = kit_malloc(n * sizeof(void *), "exchange buffers");
  /* Set up even with --no-exchange: the call is collective, and the counters stay at 0. */
  kit_exchange_init_links(&r->x, comm, MPI_COMM_WORLD, r->plan.n, r->plan.link, MPI_DOUBLE, sizeof(double),
                          0);
}

void tetfv_gpu_rank_exchange(tetfv_gpu_rank *r, double *field, cudaStream_t s) {
  /* No link (one rank): nothing to pack or move, and no reason for the host transport to wait
   * for the stream. Nothing in an exchange is collective beyond the links, so skipping it
   * here leaves the other ranks (if any) unaffected. */
  if (r->off || r->plan.n == 0) return;
  int g = kit_gpu_range_begin("pack", s);
  tetfv_gpu_pack_dev(&r->g, field, s);
  kit_gpu_range_end(g, s);
  /* The field changes every step (u and un swap), so the addresses are made each time. */
  for (int k = 0; k < r->plan.n; ++k) {
    r->send[k] = r->g.sbuf + r->plan.send_at[k];
    r->recv[k] = field + r->nown + r->plan.recv_at[k];
  }
  kit_exchange_run(&r->x, r->send, r->recv, s);
}

void tetfv_gpu_rank_free(tetfv_gpu_rank *r) {
  KIT_CUDA_CHECK(cudaSetDevice(r->g.device));
  kit_exchange_free(&r->x); /* before the buffers its transport may have registered go */
  tetfv_links_free(&r->plan);
  free(r->send);
  free(r->recv);
  tetfv_gpu_free(&r->g);
}
