/* two_stream.c: the `two-stream` variant. One MPI rank per GPU with a boundary stream and a
 * bulk stream (Bernaschi et al. Fig. 2; Sourouri Paper II Listing 1, on Paper III's mesh). The
 * rank's rows are renumbered (split.c, one device) into boundary rows, those other ranks read
 * and those that read ghosts, then the bulk. Each step the boundary rows are computed first,
 * their send lists packed by a kernel and exchanged with the neighbouring parts over --comm's
 * transport (kit/exchange.h), all on the boundary stream, while the bulk computes on the bulk
 * stream; the neighbours' values land straight in the ghost range of the new field. The bulk
 * reads no ghost, so it never waits for a message.
 * As laplace's two-stream, a step ends without a device synchronisation: events order the
 * streams (the next boundary waits for this bulk, which reads the rows it overwrites, and the
 * next bulk for this boundary), so bulk kernels run back to back while the host waits for MPI
 * (host, cuda-aware) or only queues the exchange (ipc, nccl).
 *   mpiexec -n 2 build/bin/tetfv --variant two-stream --mesh box:100 --iters 100 [--comm nccl] */
#include <stdlib.h>

#include "gpu_block.h"
#include "kit/ranges.h"

typedef struct two_stream_state {
  tetfv_ctx c;
  tetfv_split sp;   /* the rank's rows renumbered: [boundary | bulk] */
  tetfv_gpu_rank r; /* sp.l on the GPU (launch range 0: boundary rows, 1: bulk rows) and
                       its exchange */
  cudaStream_t boundary, bulk;
  cudaEvent_t boundary_done; /* this step's boundary rows are computed */
  cudaEvent_t bulk_done;     /* this step's bulk rows are computed */
} two_stream_state;

static void *ts_setup(const void *ctx) {
  const tetfv_ctx *c = ctx;
  two_stream_state *s = calloc(1, sizeof *s);
  if (!s) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  s->c = *c;
  const tetfv_local *l = c->l;
  int *dev = calloc((size_t)l->nown + 1, sizeof(int)); /* every row on device 0 */
  if (!dev) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory");
  tetfv_split_build(l, 1, dev, &s->sp);
  free(dev);
  double *u0 = kit_malloc(((size_t)l->nown + l->nghost + 1) * sizeof(double), "initial field");
  tetfv_split_permute(&s->sp, c->u0, u0);
  const int cut[3] = {0, tetfv_split_at(&s->sp, 0, TETFV_CAT_BULK), l->nown};
  tetfv_gpu_rank_init(&s->r, c->env->device, &s->sp.l, u0, 2, cut, kit_comm_of(c->p->comm),
                      c->p->no_exchange);
  free(u0);
  /* The boundary stream gets the higher priority, so its small kernels are not queued behind
   * the bulk kernel's blocks (the stall Paper II Fig. 2 shows). */
  int least = 0, greatest = 0;
  KIT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->boundary, cudaStreamNonBlocking, greatest));
  KIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s->bulk, cudaStreamNonBlocking, least));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->boundary_done, cudaEventDisableTiming));
  KIT_CUDA_CHECK(cudaEventCreateWithFlags(&s->bulk_done, cudaEventDisableTiming));
  return s;
}

static void ts_reset(void *st) {
  tetfv_gpu_rank_reset(&((two_stream_state *)st)->r);
}

static void ts_run(void *st, int steps) {
  two_stream_state *s = st;
  tetfv_gpu *g = &s->r.g;
  for (int t = 0; t < steps; ++t) {
    KIT_RANGE_PUSH("step");
    /* Boundary rows first. They overwrite rows the previous bulk read, so they wait for it. */
    if (t > 0) KIT_CUDA_CHECK(cudaStreamWaitEvent(s->boundary, s->bulk_done, 0));
    int r = kit_gpu_range_begin("boundary", s->boundary);
    tetfv_gpu_rows(g, 0, g->u, g->un, s->boundary);
    kit_gpu_range_end(r, s->boundary);
    KIT_CUDA_CHECK(cudaEventRecord(s->boundary_done, s->boundary));

    /* The bulk overlaps everything that follows. It waits only for the previous boundary
     * kernels (queued at the end of the previous step): they read rows it overwrites and wrote
     * rows it reads. It reads no ghost, so the exchange stays off its critical path. */
    r = kit_gpu_range_begin("bulk", s->bulk);
    tetfv_gpu_rows(g, 1, g->u, g->un, s->bulk);
    kit_gpu_range_end(r, s->bulk);
    KIT_CUDA_CHECK(cudaEventRecord(s->bulk_done, s->bulk));

    /* Pack and exchange on the boundary stream, behind the boundary rows they send: the layer
     * waits for the stream itself where MPI needs it (host, cuda-aware) and only queues
     * otherwise (ipc, nccl). The ghosts of the new field land on the same stream, before the
     * next boundary rows read them; the bulk never reads them, nor g.sbuf. */
    KIT_RANGE_PUSH("exchange");
    tetfv_gpu_rank_exchange(&s->r, g->un, s->boundary);
    KIT_RANGE_POP();
    KIT_CUDA_CHECK(cudaStreamWaitEvent(s->bulk, s->boundary_done, 0)); /* for the next bulk */
    tetfv_gpu_swap(g);
    KIT_RANGE_POP();
  }
  KIT_RANGE_PUSH("wait_bulk");
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->boundary));
  KIT_CUDA_CHECK(cudaStreamSynchronize(s->bulk));
  KIT_RANGE_POP();
}

static void ts_fetch(void *st, void *out) {
  double *u = out;
  two_stream_state *s = st;
  double *mine = kit_malloc(((size_t)s->sp.l.nown + 1) * sizeof(double), "fetched field");
  tetfv_gpu_fetch(&s->r.g, 0, s->sp.l.nown, mine);
  tetfv_split_unpermute(&s->sp, mine, u);
  free(mine);
}

static const kit_halo *ts_halo(void *st) {
  return &((two_stream_state *)st)->r.x.halo;
}

static void ts_teardown(void *st) {
  two_stream_state *s = st;
  KIT_CUDA_CHECK(cudaSetDevice(s->r.g.device));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->boundary));
  KIT_CUDA_CHECK(cudaStreamDestroy(s->bulk));
  KIT_CUDA_CHECK(cudaEventDestroy(s->boundary_done));
  KIT_CUDA_CHECK(cudaEventDestroy(s->bulk_done));
  tetfv_gpu_rank_free(&s->r);
  tetfv_split_free(&s->sp);
  free(s);
}

const tetfv_variant tetfv_two_stream = {
    .name = "two-stream",
    .summary = "one rank per GPU; boundary rows, pack and exchange (--comm) on one stream overlap the bulk",
    .needs_gpu = 1,
    .setup = ts_setup,
    .reset = ts_reset,
    .run = ts_run,
    .fetch = ts_fetch,
    .halo = ts_halo,
    .teardown = ts_teardown,
};
