/* exchange_nvshmem.cu: the nvshmem transport of kit/exchange.h (--comm nvshmem): one-sided
 * puts into the neighbours' memory, as NVIDIA's multi-gpu-programming-models' NVSHMEM Jacobi
 * and Risso's thesis Sec. 4.3 (the GPU writes its faces straight into the neighbour's receive
 * buffer), with every wait on the stream.
 *
 * Each link has an inbox of two slots on NVSHMEM's symmetric heap, on the receiver's GPU. The
 * n-th message a rank sends on a link (n = 0, 1, ...) goes into slot n % 2 of the neighbour's
 * inbox with one nvshmemx_putmem_signal_on_stream, which also sets the neighbour's `arrived`
 * word of that link to n + 1 once the data is there. The receiver's stream waits for
 * arrived >= m + 1 (its m-th message), copies the slot into the app's receive buffer, and sets
 * the writer's `freed` word to m + 1. Before writing message n >= 2 the writer's stream waits
 * for freed >= n - 1 (message n - 2, the slot's last tenant, taken out). Both counts advance
 * only when a message moves, so a message skipped at both ends (a NULL buffer) keeps them in
 * step. The host only enqueues: no MPI message per exchange (the ipc transport still trades a
 * token per link).
 *
 * Only NVSHMEM's host library is used (nvshmemx_hostlib_init_attr and the *_on_stream calls):
 * no kernel calls NVSHMEM, so nothing needs relocatable device code or NVSHMEM's static device
 * library. NVSHMEM starts over MPI_COMM_WORLD from a unique id rank 0 broadcasts (no MPI
 * plugin), with NVLink multicast off unless the user set NVSHMEM_DISABLE_NVLS (docs/devices.md). */
#include <nvshmem_host.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange_nvshmem.h"
#include "kit/check.h"
#include "kit/ranges.h"

/* NVSHMEM's calls that return a status, checked like every CUDA and MPI call. */
#define KIT_NVSHMEM_CHECK(call)                                                                             \
  do {                                                                                                      \
    int kit_s_ = (call);                                                                                    \
    if (kit_s_ != 0) kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "%s: NVSHMEM status %d", #call, kit_s_); \
  } while (0)

/* One link: where its messages go and where they come from, and how many have moved. */
typedef struct nv_link {
  size_t inbox; /* my inbox of this link: byte offset in the heap block (slot s at + s * cap) */
  size_t cap;   /* my slot's bytes (the receive count at set-up) */
  size_t peer_inbox, peer_cap;    /* the neighbour's inbox of this link, and its slot's bytes */
  int peer_link;                  /* the neighbour's index of this link: its arrived[] and freed[] entry */
  int pe;                         /* the neighbour's NVSHMEM PE (its MPI_COMM_WORLD rank) */
  unsigned long long sent, taken; /* messages sent on this link, and taken out of my inbox */
} nv_link;

typedef struct nv_state {
  nv_link *link;
  char *heap;       /* symmetric: every link's inbox */
  uint64_t *signal; /* symmetric: arrived[k] at k, freed[k] at nmax + k */
  int nmax;         /* the most links any rank has (the signal block is alike everywhere) */
} nv_state;

/* What a rank tells the neighbour on one link at set-up. */
typedef struct nv_offer {
  unsigned long long inbox, cap;
  int link;
} nv_offer;

static int users; /* exchanges that use NVSHMEM now: it stops with the last */

static void start_nvshmem(void) {
  if (users++ > 0) return;
  setenv("NVSHMEM_DISABLE_NVLS", "1", 0); /* multicast stays off unless the user asks */
  int rank = 0, size = 1;
  KIT_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  KIT_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  if (rank == 0) KIT_NVSHMEM_CHECK(nvshmemx_get_uniqueid(&id));
  KIT_MPI_CHECK(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD));
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  KIT_NVSHMEM_CHECK(nvshmemx_set_attr_uniqueid_args(rank, size, &id, &attr));
  KIT_NVSHMEM_CHECK(nvshmemx_hostlib_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr));
}

static void stop_nvshmem(void) {
  if (--users == 0) nvshmemx_hostlib_finalize();
}

static size_t round_up(size_t b) {
  return (b + 255) / 256 * 256;
}

extern "C" void kit_nvshmem_init(kit_exchange *x) {
  /* The symmetric heap spans every PE: the exchange's communicator must be the whole world, so
   * that its ranks are the PEs. */
  int world = 0, size = 0;
  KIT_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &world));
  KIT_MPI_CHECK(MPI_Comm_size(x->comm, &size));
  if (size != world)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
            "--comm nvshmem: the exchange's communicator must hold every rank (%d of %d)", size, world);
  start_nvshmem();
  const int n = x->nlinks;
  nv_state *s = (nv_state *)calloc(1, sizeof *s);
  nv_offer *mine = (nv_offer *)calloc((size_t)n + 1, sizeof *mine);
  nv_offer *theirs = (nv_offer *)calloc((size_t)n + 1, sizeof *theirs);
  MPI_Request *req = (MPI_Request *)calloc(2 * (size_t)n + 1, sizeof *req);
  s->link = (nv_link *)calloc((size_t)n + 1, sizeof *s->link);
  if (!s || !mine || !theirs || !req || !s->link)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory for the NVSHMEM exchange");

  /* My inboxes, one after the other; every PE allocates the largest block any PE needs. */
  size_t bytes = 256;
  for (int k = 0; k < n; ++k) {
    nv_link *l = &s->link[k];
    l->inbox = bytes;
    l->cap = x->cap_recv[k];
    if (x->links[k].rank != MPI_PROC_NULL) bytes += 2 * round_up(l->cap);
  }
  unsigned long long most = bytes;
  int nmax = n;
  KIT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD));
  KIT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &nmax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  s->nmax = nmax > 0 ? nmax : 1;
  s->heap = (char *)nvshmem_malloc(most);
  s->signal = (uint64_t *)nvshmem_malloc(2 * (size_t)s->nmax * sizeof(uint64_t));
  if (!s->heap || !s->signal)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
            "--comm nvshmem: the symmetric heap cannot hold %llu bytes of inboxes (NVSHMEM_SYMMETRIC_SIZE)",
            most);
  KIT_CUDA_CHECK(cudaMemset(s->signal, 0, 2 * (size_t)s->nmax * sizeof(uint64_t)));
  KIT_CUDA_CHECK(cudaDeviceSynchronize());

  /* Each link's offer goes out as a message of its send tag; the neighbour's comes in on the
   * receive tag (the pairing kit_link's tags define, as for ipc's handles). */
  MPI_Group comm_group, world_group;
  KIT_MPI_CHECK(MPI_Comm_group(x->comm, &comm_group));
  KIT_MPI_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  int nreq = 0;
  for (int k = 0; k < n; ++k) {
    const kit_link *l = &x->links[k];
    if (l->rank == MPI_PROC_NULL) continue;
    mine[k].inbox = s->link[k].inbox;
    mine[k].cap = s->link[k].cap;
    mine[k].link = k;
    KIT_MPI_CHECK(MPI_Group_translate_ranks(comm_group, 1, &l->rank, world_group, &s->link[k].pe));
    KIT_MPI_CHECK(MPI_Irecv(&theirs[k], (int)sizeof theirs[k], MPI_BYTE, l->rank,
                            KIT_NVSHMEM_TAG + l->recv_tag, x->comm, &req[nreq++]));
    KIT_MPI_CHECK(MPI_Isend(&mine[k], (int)sizeof mine[k], MPI_BYTE, l->rank, KIT_NVSHMEM_TAG + l->send_tag,
                            x->comm, &req[nreq++]));
  }
  KIT_MPI_CHECK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
  KIT_MPI_CHECK(MPI_Group_free(&comm_group));
  KIT_MPI_CHECK(MPI_Group_free(&world_group));
  for (int k = 0; k < n; ++k) {
    if (x->links[k].rank == MPI_PROC_NULL) continue;
    s->link[k].peer_inbox = (size_t)theirs[k].inbox;
    s->link[k].peer_cap = (size_t)theirs[k].cap;
    s->link[k].peer_link = theirs[k].link;
    if (x->cap_send[k] > s->link[k].peer_cap)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
              "--comm nvshmem: link %d sends %zu bytes, the neighbour's inbox holds %zu", k, x->cap_send[k],
              s->link[k].peer_cap);
  }
  /* Nobody signals a PE before its signal words are zero. */
  KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  free(mine);
  free(theirs);
  free(req);
  x->nvshmem = s;
}

extern "C" void kit_nvshmem_run(kit_exchange *x, void *const send[], void *const recv[], void *stream_) {
  nv_state *s = (nv_state *)x->nvshmem;
  cudaStream_t stream = (cudaStream_t)stream_;
  uint64_t *arrived = s->signal, *freed = s->signal + s->nmax;
  int g = kit_gpu_range_begin("nvshmem_put", stream);
  for (int k = 0; k < x->nlinks; ++k) {
    const kit_link *l = &x->links[k];
    if (!kit_exchange_sends(x, k, send)) continue;
    nv_link *v = &s->link[k];
    const unsigned long long m = v->sent++;
    /* The slot's last tenant (message m - 2) must be out of the neighbour's inbox. */
    if (m >= 2) nvshmemx_signal_wait_until_on_stream(&freed[k], NVSHMEM_CMP_GE, m - 1, stream);
    nvshmemx_putmem_signal_on_stream(s->heap + v->peer_inbox + (m & 1) * round_up(v->peer_cap), send[k],
                                     l->send_count * x->elem, &arrived[v->peer_link], m + 1,
                                     NVSHMEM_SIGNAL_SET, v->pe, stream);
    kit_exchange_count_sent(x, k);
  }
  kit_gpu_range_end(g, stream);
  g = kit_gpu_range_begin("nvshmem_take", stream);
  for (int k = 0; k < x->nlinks; ++k) {
    const kit_link *l = &x->links[k];
    if (!kit_exchange_receives(x, k, recv)) continue;
    nv_link *v = &s->link[k];
    const unsigned long long m = v->taken++;
    nvshmemx_signal_wait_until_on_stream(&arrived[k], NVSHMEM_CMP_GE, m + 1, stream);
    KIT_CUDA_CHECK(cudaMemcpyAsync(recv[k], s->heap + v->inbox + (m & 1) * round_up(v->cap),
                                   l->recv_count * x->elem, cudaMemcpyDeviceToDevice, stream));
    nvshmemx_signal_op_on_stream(&freed[v->peer_link], m + 1, NVSHMEM_SIGNAL_SET, v->pe, stream);
  }
  kit_gpu_range_end(g, stream);
}

extern "C" void kit_nvshmem_free(kit_exchange *x) {
  nv_state *s = (nv_state *)x->nvshmem;
  /* Nobody may still write into my inbox or wait on my signals: drain, then meet. */
  KIT_CUDA_CHECK(cudaDeviceSynchronize());
  KIT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  nvshmem_free(s->signal);
  nvshmem_free(s->heap);
  free(s->link);
  free(s);
  x->nvshmem = NULL;
  stop_nvshmem();
}
