/* exchange.c: the transports of kit/exchange.h. Each is the whole of one way to move the
 * messages of a plan's links between the GPUs of processes; the variants only say when. */
#define _POSIX_C_SOURCE 200112L /* setenv */
#include "kit/exchange.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/check.h"
#include "kit/driver.h"
#include "kit/ranges.h"
#ifdef KIT_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#include "exchange_nvshmem.h" /* the nvshmem transport, and the link predicates it shares */
#ifdef KIT_HAVE_NCCL
#include <nccl.h>
/* NCCL's calls, checked like every CUDA and MPI call (exit 3 with the call and the reason). */
#define KIT_NCCL_CHECK(call)                                                                      \
  do {                                                                                            \
    ncclResult_t kit_r_ = (call);                                                                 \
    if (kit_r_ != ncclSuccess)                                                                    \
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "%s: %s", #call, ncclGetErrorString(kit_r_)); \
  } while (0)
#endif
/* Does MPI take device pointers? Asked at run time, never assumed from the build: Open MPI's
 * mpi-ext.h defines MPIX_CUDA_AWARE_SUPPORT (1 when built with CUDA) and declares
 * MPIX_Query_cuda_support(); MPICH >= 4.0 declares it in mpi.h; anything else is treated as
 * not CUDA-aware. */
#if defined(OPEN_MPI) && OPEN_MPI && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

const char *const kit_comm_names[KIT_COMM_COUNT] = {"host", "ipc", "nccl", "nvshmem", "cuda-aware"};

kit_comm kit_comm_of(const char *name) {
  for (int k = 0; k < KIT_COMM_COUNT; ++k)
    if (strcmp(name, kit_comm_names[k]) == 0) return (kit_comm)k;
  return KIT_COMM_HOST;
}

int kit_mpi_cuda_aware(void) {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
#if MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return 0; /* Open MPI built without CUDA */
#endif
#elif defined(MPICH_NUMVERSION) && MPICH_NUMVERSION >= 40000000 && !defined(OPEN_MPI)
  return MPIX_Query_cuda_support() == 1;
#else
  return 0;
#endif
}

/* 1 if two ranks of this node drive the same device (collective over the world). */
static int devices_shared(const kit_env *env) {
  int *dev = kit_malloc((size_t)env->local_size * sizeof *dev, "devices"), shared = 0, any = 0;
  KIT_MPI_CHECK(MPI_Allgather(&env->device, 1, MPI_INT, dev, 1, MPI_INT, env->node_comm));
  for (int a = 0; a < env->local_size; ++a)
    for (int b = a + 1; b < env->local_size; ++b) shared |= dev[a] == dev[b];
  free(dev);
  KIT_MPI_CHECK(MPI_Allreduce(&shared, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  return any;
}

int kit_comm_check(const kit_env *env, const char *app, const char *variants, const char *variant,
                   const char *name) {
  if (variants && !kit_variant_in(variants, variant)) return -1;
  const kit_comm k = kit_comm_of(name);
  char why[96];
#ifndef KIT_HAVE_NCCL
  if (k == KIT_COMM_NCCL) {
    snprintf(why, sizeof why, "--comm nccl: built without NCCL (KIT_NCCL)");
    return kit_skip(env, app, variant, why);
  }
#endif
#ifndef KIT_HAVE_NVSHMEM
  if (k == KIT_COMM_NVSHMEM) {
    snprintf(why, sizeof why, "--comm nvshmem: built without NVSHMEM (KIT_NVSHMEM)");
    return kit_skip(env, app, variant, why);
  }
#endif
  /* A communicator takes one rank per GPU (NCCL refuses "duplicate GPU", NVSHMEM one PE per
   * GPU): with more ranks than GPUs this machine cannot run it. */
  if ((k == KIT_COMM_NCCL || k == KIT_COMM_NVSHMEM) && devices_shared(env)) {
    snprintf(why, sizeof why, "--comm %s: ranks share a GPU (it takes one rank per GPU)", name);
    return kit_skip(env, app, variant, why);
  }
  /* CUDA IPC maps memory of processes on this node only; the kit's NVSHMEM puts read the app's
   * own send buffers, which only a GPU of the same node can (they are not on the symmetric
   * heap, so no network transport could send them). */
  if ((k == KIT_COMM_IPC || k == KIT_COMM_NVSHMEM) && env->local_size != env->nranks) {
    snprintf(why, sizeof why, "--comm %s: the job spans several nodes (this transport stays on one)", name);
    return kit_skip(env, app, variant, why);
  }
  /* Device pointers handed to an MPI that cannot read them would crash or send garbage. */
  if (k == KIT_COMM_CUDA_AWARE && !kit_mpi_cuda_aware()) {
    snprintf(why, sizeof why, "--comm cuda-aware: this MPI library is not CUDA-aware");
    return kit_skip(env, app, variant, why);
  }
  return -1;
}

/* Message tags: what travels with send_tag t carries tag base + t. */
enum { TAG_DATA = 200, TAG_HANDLES = 200 + KIT_LINK_TAGS, TAG_TOKEN = 200 + 2 * KIT_LINK_TAGS };

static size_t send_bytes(const kit_exchange *x, int k) {
  return x->links[k].send_count * x->elem;
}
static size_t recv_bytes(const kit_exchange *x, int k) {
  return x->links[k].recv_count * x->elem;
}
/* Does link k move a message out (in) this time? (exchange_nvshmem.h declares these three.) */
int kit_exchange_sends(const kit_exchange *x, int k, void *const send[]) {
  return x->links[k].rank != MPI_PROC_NULL && x->links[k].send_count > 0 && send[k] != NULL;
}
int kit_exchange_receives(const kit_exchange *x, int k, void *const recv[]) {
  return x->links[k].rank != MPI_PROC_NULL && x->links[k].recv_count > 0 && recv[k] != NULL;
}
void kit_exchange_count_sent(kit_exchange *x, int k) {
  x->halo.messages += 1;
  x->halo.bytes += (long long)send_bytes(x, k);
}

#ifdef KIT_HAVE_CUDA
/* ipc: per link, this rank's inbox (two slots, where the neighbour writes), the neighbour's
 * inbox mapped here (where this rank writes), and interprocess events per slot: `sent`
 * recorded by the writer after its copy, `consumed` by the reader after taking the slot out.
 * A slot is written again two exchanges later, after the writer's stream has waited for the
 * reader's `consumed` of it. A link to this rank itself (a periodic slab on one rank) uses
 * its own inbox and events: a process cannot open its own IPC handles. */
typedef struct ipc_link {
  void *inbox;                                /* mine: 2 x recv bytes on my device (NULL: none) */
  void *peer_inbox;                           /* the neighbour's, mapped (NULL: nothing to send) */
  int opened;                                 /* peer_inbox and peer events were opened here */
  cudaEvent_t sent[2], consumed[2];           /* mine, shared with the neighbour */
  cudaEvent_t peer_sent[2], peer_consumed[2]; /* the neighbour's */
} ipc_link;

/* What a rank publishes on one link: its inbox and its events. */
typedef struct ipc_handles {
  int has_inbox;
  cudaIpcMemHandle_t inbox;
  cudaIpcEventHandle_t sent[2], consumed[2];
} ipc_handles;

static void ipc_init(kit_exchange *x) {
  const int n = x->nlinks;
  ipc_link *link = calloc((size_t)n + 1, sizeof *link);
  ipc_handles *mine = calloc((size_t)n + 1, sizeof *mine), *theirs = calloc((size_t)n + 1, sizeof *theirs);
  MPI_Request *req = calloc(2 * (size_t)n + 1, sizeof *req);
  MPI_Status *status = calloc(2 * (size_t)n + 1, sizeof *status);
  if (!link || !mine || !theirs || !req || !status)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory for the IPC exchange");
  int me = 0, nreq = 0;
  KIT_MPI_CHECK(MPI_Comm_rank(x->comm, &me));
  for (int k = 0; k < n; ++k) {
    const kit_link *l = &x->links[k];
    if (l->rank == MPI_PROC_NULL) continue;
    if (l->recv_count > 0) {
      KIT_CUDA_CHECK(cudaMalloc(&link[k].inbox, 2 * x->cap_recv[k]));
      KIT_CUDA_CHECK(cudaIpcGetMemHandle(&mine[k].inbox, link[k].inbox));
      mine[k].has_inbox = 1;
    }
    for (int slot = 0; slot < 2; ++slot) {
      const unsigned flags = cudaEventInterprocess | cudaEventDisableTiming;
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&link[k].sent[slot], flags));
      KIT_CUDA_CHECK(cudaEventCreateWithFlags(&link[k].consumed[slot], flags));
      KIT_CUDA_CHECK(cudaIpcGetEventHandle(&mine[k].sent[slot], link[k].sent[slot]));
      KIT_CUDA_CHECK(cudaIpcGetEventHandle(&mine[k].consumed[slot], link[k].consumed[slot]));
    }
  }
  /* My handles go out as a message of this link (send_tag); the neighbour's come in as one. */
  for (int k = 0; k < n; ++k) {
    const kit_link *l = &x->links[k];
    if (l->rank == MPI_PROC_NULL) continue;
    KIT_MPI_CHECK(MPI_Irecv(&theirs[k], (int)sizeof theirs[k], MPI_BYTE, l->rank, TAG_HANDLES + l->recv_tag,
                            x->comm, &req[nreq++]));
    KIT_MPI_CHECK(MPI_Isend(&mine[k], (int)sizeof mine[k], MPI_BYTE, l->rank, TAG_HANDLES + l->send_tag,
                            x->comm, &req[nreq++]));
  }
  KIT_MPI_CHECK(MPI_Waitall(nreq, req, status));
  for (int k = 0; k < n; ++k) {
    const kit_link *l = &x->links[k];
    if (l->rank == MPI_PROC_NULL) continue;
    if (l->rank == me) {
      /* My message on this link lands on my own link that receives its tag. */
      int other = -1;
      for (int j = 0; j < n; ++j)
        if (x->links[j].rank == me && x->links[j].recv_tag == l->send_tag) other = j;
      if (other < 0)
        kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "ipc exchange: no link of this rank receives tag %d",
                l->send_tag);
      link[k].peer_inbox = link[other].inbox;
      for (int slot = 0; slot < 2; ++slot) {
        link[k].peer_sent[slot] = link[other].sent[slot];
        link[k].peer_consumed[slot] = link[other].consumed[slot];
      }
      continue;
    }
    if (theirs[k].has_inbox)
      KIT_CUDA_CHECK(
          cudaIpcOpenMemHandle(&link[k].peer_inbox, theirs[k].inbox, cudaIpcMemLazyEnablePeerAccess));
    for (int slot = 0; slot < 2; ++slot) {
      KIT_CUDA_CHECK(cudaIpcOpenEventHandle(&link[k].peer_sent[slot], theirs[k].sent[slot]));
      KIT_CUDA_CHECK(cudaIpcOpenEventHandle(&link[k].peer_consumed[slot], theirs[k].consumed[slot]));
    }
    link[k].opened = 1;
  }
  free(mine);
  free(theirs);
  free(req);
  free(status);
  x->ipc = link;
}

static void ipc_free(kit_exchange *x) {
  ipc_link *link = x->ipc;
  /* Nobody may still read my inbox or write into the neighbour's: drain, then meet. */
  KIT_CUDA_CHECK(cudaDeviceSynchronize());
  KIT_MPI_CHECK(MPI_Barrier(x->comm));
  for (int k = 0; k < x->nlinks; ++k) {
    if (!link[k].opened) continue;
    if (link[k].peer_inbox) KIT_CUDA_CHECK(cudaIpcCloseMemHandle(link[k].peer_inbox));
    for (int slot = 0; slot < 2; ++slot) {
      KIT_CUDA_CHECK(cudaEventDestroy(link[k].peer_sent[slot]));
      KIT_CUDA_CHECK(cudaEventDestroy(link[k].peer_consumed[slot]));
    }
  }
  KIT_MPI_CHECK(MPI_Barrier(x->comm));
  for (int k = 0; k < x->nlinks; ++k) {
    if (x->links[k].rank == MPI_PROC_NULL) continue;
    if (link[k].inbox) KIT_CUDA_CHECK(cudaFree(link[k].inbox));
    for (int slot = 0; slot < 2; ++slot) {
      KIT_CUDA_CHECK(cudaEventDestroy(link[k].sent[slot]));
      KIT_CUDA_CHECK(cudaEventDestroy(link[k].consumed[slot]));
    }
  }
  free(link);
  x->ipc = NULL;
}

/* One exchange: write into each neighbour's inbox slot, say so, take mine out. The token
 * message is sent only after this exchange's `sent` records are enqueued and the last one's
 * `consumed` records too, so every cross-process wait below finds the record it needs (the
 * record a slot gets next needs a token this rank has not sent yet). Every link trades a
 * token each time, whether or not a message moves, so both ends count exchanges alike. */
static void ipc_run(kit_exchange *x, void *const send[], void *const recv[], cudaStream_t stream) {
  ipc_link *link = x->ipc;
  const int slot = (int)(x->calls & 1);
  int g = kit_gpu_range_begin("ipc_put", stream);
  for (int k = 0; k < x->nlinks; ++k) {
    if (!kit_exchange_sends(x, k, send)) continue;
    KIT_CUDA_CHECK(cudaStreamWaitEvent(stream, link[k].peer_consumed[slot], 0));
    KIT_CUDA_CHECK(cudaMemcpyAsync((char *)link[k].peer_inbox + (size_t)slot * x->cap_send[k], send[k],
                                   send_bytes(x, k), cudaMemcpyDeviceToDevice, stream));
    KIT_CUDA_CHECK(cudaEventRecord(link[k].sent[slot], stream));
    kit_exchange_count_sent(x, k);
  }
  kit_gpu_range_end(g, stream);
  KIT_RANGE_PUSH("ipc_token");
  int token_out = slot, nreq = 0;
  for (int k = 0; k < x->nlinks; ++k) {
    const kit_link *l = &x->links[k];
    if (l->rank == MPI_PROC_NULL) continue;
    KIT_MPI_CHECK(
        MPI_Irecv(&x->token[k], 1, MPI_INT, l->rank, TAG_TOKEN + l->recv_tag, x->comm, &x->req[nreq++]));
    KIT_MPI_CHECK(
        MPI_Isend(&token_out, 1, MPI_INT, l->rank, TAG_TOKEN + l->send_tag, x->comm, &x->req[nreq++]));
  }
  KIT_MPI_CHECK(MPI_Waitall(nreq, x->req, x->status));
  KIT_RANGE_POP();
  g = kit_gpu_range_begin("ipc_take", stream);
  for (int k = 0; k < x->nlinks; ++k) {
    if (x->links[k].rank == MPI_PROC_NULL) continue;
    if (x->token[k] != slot)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "ipc exchange: rank %d is at slot %d, this rank at %d",
              x->links[k].rank, x->token[k], slot);
    if (!kit_exchange_receives(x, k, recv)) continue;
    KIT_CUDA_CHECK(cudaStreamWaitEvent(stream, link[k].peer_sent[slot], 0));
    KIT_CUDA_CHECK(cudaMemcpyAsync(recv[k], (char *)link[k].inbox + (size_t)slot * x->cap_recv[k],
                                   recv_bytes(x, k), cudaMemcpyDeviceToDevice, stream));
    KIT_CUDA_CHECK(cudaEventRecord(link[k].consumed[slot], stream));
  }
  kit_gpu_range_end(g, stream);
}
#endif

/* Links ordered by (rank, tag) of their sends (`by_send`) or receives: NCCL pairs the
 * messages between two ranks in the order they are issued, so both ends issue them by tag. */
static const kit_exchange *sort_x;
static int sort_by_send;
static int link_order(const void *a, const void *b) {
  const kit_link *la = &sort_x->links[*(const int *)a], *lb = &sort_x->links[*(const int *)b];
  if (la->rank != lb->rank) return la->rank < lb->rank ? -1 : 1;
  const int ta = sort_by_send ? la->send_tag : la->recv_tag, tb = sort_by_send ? lb->send_tag : lb->recv_tag;
  return (ta > tb) - (ta < tb);
}
static void order_links(const kit_exchange *x, int *order, int by_send) {
  for (int k = 0; k < x->nlinks; ++k) order[k] = k;
  sort_x = x;
  sort_by_send = by_send;
  qsort(order, (size_t)x->nlinks, sizeof *order, link_order);
}

void kit_exchange_init_links(kit_exchange *x, kit_comm kind, MPI_Comm comm, int nlinks, const kit_link *links,
                             MPI_Datatype type, size_t elem, int on_host) {
  memset(x, 0, sizeof *x);
  x->kind = kind;
  x->comm = comm;
  x->type = type;
  x->elem = elem;
  x->on_host = on_host;
  x->nlinks = nlinks;
  const size_t n = (size_t)nlinks + 1;
  x->links = kit_malloc(n * sizeof *x->links, "exchange links");
  x->cap_send = kit_malloc(n * sizeof *x->cap_send, "exchange capacities");
  x->cap_recv = kit_malloc(n * sizeof *x->cap_recv, "exchange capacities");
  x->stage_send = calloc(n, sizeof *x->stage_send);
  x->stage_recv = calloc(n, sizeof *x->stage_recv);
  x->req = kit_malloc(2 * n * sizeof *x->req, "exchange requests");
  x->status = kit_malloc(2 * n * sizeof *x->status, "exchange statuses");
  x->token = calloc(n, sizeof *x->token);
  x->buf_send = calloc(n, sizeof *x->buf_send);
  x->buf_recv = calloc(n, sizeof *x->buf_recv);
  x->order_send = kit_malloc(n * sizeof *x->order_send, "exchange order");
  x->order_recv = kit_malloc(n * sizeof *x->order_recv, "exchange order");
  if (!x->stage_send || !x->stage_recv || !x->token || !x->buf_send || !x->buf_recv)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "out of host memory for the exchange");
  for (int k = 0; k < nlinks; ++k) {
    const kit_link *l = &links[k];
    x->links[k] = *l;
    if (l->send_tag < 0 || l->send_tag >= KIT_LINK_TAGS || l->recv_tag < 0 || l->recv_tag >= KIT_LINK_TAGS)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "exchange link %d: tags %d, %d outside [0, %d)", k,
              l->send_tag, l->recv_tag, KIT_LINK_TAGS);
    if (l->send_count > (size_t)2147483647 || l->recv_count > (size_t)2147483647)
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "exchange link %d: a message of more than 2^31 elements",
              k);
    x->cap_send[k] = l->send_count * elem;
    x->cap_recv[k] = l->recv_count * elem;
    x->req[2 * k] = x->req[2 * k + 1] = MPI_REQUEST_NULL;
    /* Only `host` stages, and only device buffers: the others hand them to the transport. */
    if (kind == KIT_COMM_HOST && !on_host && l->rank != MPI_PROC_NULL) {
      if (l->send_count) x->stage_send[k] = kit_host_alloc(send_bytes(x, k), 1);
      if (l->recv_count) x->stage_recv[k] = kit_host_alloc(recv_bytes(x, k), 1);
    }
  }
  order_links(x, x->order_send, 1);
  order_links(x, x->order_recv, 0);
  /* Counters only (kit_halo's shape, so reports read every variant's the same way). */
  kit_halo_init_typed(&x->halo, comm, MPI_PROC_NULL, MPI_PROC_NULL, 0, type, elem, 0, 0);
#ifdef KIT_HAVE_CUDA
  if (kind == KIT_COMM_IPC) ipc_init(x);
#endif
#ifdef KIT_HAVE_NVSHMEM
  if (kind == KIT_COMM_NVSHMEM) kit_nvshmem_init(x);
#endif
#ifdef KIT_HAVE_NCCL
  if (kind == KIT_COMM_NCCL) {
    /* NVLink SHARP (multicast) stays off unless the user asks for it: the kit's GPU machines
     * may not use it (docs/devices.md), and plain point-to-point messages gain nothing. */
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    int rank = 0, size = 1;
    KIT_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    KIT_MPI_CHECK(MPI_Comm_size(comm, &size));
    ncclUniqueId id;
    if (rank == 0) KIT_NCCL_CHECK(ncclGetUniqueId(&id));
    KIT_MPI_CHECK(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, comm));
    ncclComm_t nc;
    KIT_NCCL_CHECK(ncclCommInitRank(&nc, size, id, rank));
    x->nccl = nc;
  }
#endif
}

void kit_exchange_init(kit_exchange *x, kit_comm kind, MPI_Comm comm, int nbr_down, int nbr_up, size_t count,
                       MPI_Datatype type, size_t elem, int on_host) {
  /* What goes down arrives at the neighbour below on its up link, and the other way round. */
  const kit_link links[2] = {
      {.rank = nbr_down, .send_count = count, .recv_count = count, .send_tag = KIT_DOWN, .recv_tag = KIT_UP},
      {.rank = nbr_up, .send_count = count, .recv_count = count, .send_tag = KIT_UP, .recv_tag = KIT_DOWN},
  };
  kit_exchange_init_links(x, kind, comm, 2, links, type, elem, on_host);
  x->halo.nbr[KIT_DOWN] = nbr_down;
  x->halo.nbr[KIT_UP] = nbr_up;
  x->halo.count = count;
}

/* A message buffer of `bytes` (at least one element, so that it is never NULL) where the
 * exchange's buffers live. */
static void *buffer_alloc(const kit_exchange *x, size_t bytes) {
  if (bytes < x->elem) bytes = x->elem;
  if (x->on_host) return kit_malloc(bytes, "exchange message");
#ifdef KIT_HAVE_CUDA
  void *p = NULL;
  KIT_CUDA_CHECK(cudaMalloc(&p, bytes));
  return p;
#else
  kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "device message buffers in a build without CUDA");
  return NULL;
#endif
}

static void buffer_free(const kit_exchange *x, void *p) {
  if (!p) return;
  if (x->on_host) {
    free(p);
    return;
  }
#ifdef KIT_HAVE_CUDA
  KIT_CUDA_CHECK(cudaFree(p));
#endif
}

void kit_exchange_buffers(kit_exchange *x, const char *use) {
  for (int k = 0; k < x->nlinks; ++k) {
    if (x->links[k].rank == MPI_PROC_NULL || (use && !use[k])) continue;
    x->buf_send[k] = buffer_alloc(x, send_bytes(x, k));
    x->buf_recv[k] = buffer_alloc(x, recv_bytes(x, k));
  }
}

void kit_exchange_free(kit_exchange *x) {
#ifdef KIT_HAVE_NCCL
  if (x->nccl) KIT_NCCL_CHECK(ncclCommDestroy((ncclComm_t)x->nccl));
#endif
  x->nccl = NULL;
#ifdef KIT_HAVE_NVSHMEM
  if (x->nvshmem) kit_nvshmem_free(x);
#endif
#ifdef KIT_HAVE_CUDA
  if (x->ipc) ipc_free(x);
#endif
  for (int k = 0; k < x->nlinks; ++k) {
    if (x->stage_send[k]) kit_host_free(x->stage_send[k], 1);
    if (x->stage_recv[k]) kit_host_free(x->stage_recv[k], 1);
    buffer_free(x, x->buf_send[k]);
    buffer_free(x, x->buf_recv[k]);
  }
  free(x->buf_send);
  free(x->buf_recv);
  free(x->links);
  free(x->cap_send);
  free(x->cap_recv);
  free(x->stage_send);
  free(x->stage_recv);
  free(x->req);
  free(x->status);
  free(x->token);
  free(x->order_send);
  free(x->order_recv);
  kit_halo_free(&x->halo);
  x->nlinks = 0;
}

/* Link k's next messages: sc elements out, rc in, each within what the link was set up with. */
static void set_link_counts(kit_exchange *x, int k, size_t sc, size_t rc, const char *who) {
  if (x->links[k].rank == MPI_PROC_NULL) return;
  if (sc * x->elem > x->cap_send[k] || rc * x->elem > x->cap_recv[k])
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__,
            "%s: link %d: %zu and %zu elements exceed the %zu and %zu bytes set up", who, k, sc, rc,
            x->cap_send[k], x->cap_recv[k]);
  x->links[k].send_count = sc;
  x->links[k].recv_count = rc;
}

void kit_exchange_resize(kit_exchange *x, size_t count) {
  for (int k = 0; k < x->nlinks; ++k) set_link_counts(x, k, count, count, "kit_exchange_resize");
  x->halo.count = count;
}

void kit_exchange_set_counts(kit_exchange *x, const size_t *send_count, const size_t *recv_count) {
  for (int k = 0; k < x->nlinks; ++k)
    set_link_counts(x, k, send_count[k], recv_count[k], "kit_exchange_set_counts");
}

static void stream_sync(const kit_exchange *x, void *stream) {
#ifdef KIT_HAVE_CUDA
  if (!x->on_host) KIT_CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)stream));
#else
  (void)x;
  (void)stream;
#endif
}

/* A copy of one message on the stream, between device and pinned staging. */
static void stage_copy(void *dst, const void *src, size_t bytes, void *stream) {
#ifdef KIT_HAVE_CUDA
  KIT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, (cudaStream_t)stream));
#else
  (void)dst;
  (void)src;
  (void)bytes;
  (void)stream;
  kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "kit_exchange: device buffers in a build without CUDA");
#endif
}

/* Receives first, then sends (Paper II Listing 1), over MPI; mpi_wait waits for them all. */
static void mpi_post(kit_exchange *x, void *const send[], void *const recv[], void *const out[],
                     void *const in[]) {
  int nreq = 0;
  for (int k = 0; k < x->nlinks; ++k) {
    const kit_link *l = &x->links[k];
    if (kit_exchange_receives(x, k, recv))
      KIT_MPI_CHECK(MPI_Irecv(in[k], (int)l->recv_count, x->type, l->rank, TAG_DATA + l->recv_tag, x->comm,
                              &x->req[nreq++]));
  }
  for (int k = 0; k < x->nlinks; ++k) {
    const kit_link *l = &x->links[k];
    if (!kit_exchange_sends(x, k, send)) continue;
    KIT_MPI_CHECK(MPI_Isend(out[k], (int)l->send_count, x->type, l->rank, TAG_DATA + l->send_tag, x->comm,
                            &x->req[nreq++]));
    kit_exchange_count_sent(x, k);
  }
  x->pending = nreq;
}

static void mpi_wait(kit_exchange *x) {
  KIT_RANGE_PUSH("mpi");
  KIT_MPI_CHECK(MPI_Waitall(x->pending, x->req, x->status));
  x->pending = 0;
  KIT_RANGE_POP();
}

void kit_exchange_start(kit_exchange *x, void *const send[], void *const recv[], void *stream) {
  if (x->pending)
    kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "kit_exchange_start: the last exchange was not finished");
  /* The tests' stale halo: nothing moves, the ghosts keep what they held. */
  if (kit_fault("stale-halo")) return;
  x->calls++;
  switch (x->kind) {
    case KIT_COMM_HOST: {
      if (x->on_host) { /* host buffers: MPI reads and writes them; finish waits */
        mpi_post(x, send, recv, send, recv);
        break;
      }
      int g = kit_gpu_range_begin("d2h", stream);
      for (int k = 0; k < x->nlinks; ++k)
        if (kit_exchange_sends(x, k, send)) stage_copy(x->stage_send[k], send[k], send_bytes(x, k), stream);
      kit_gpu_range_end(g, stream);
      stream_sync(x, stream); /* MPI cannot wait on a stream */
      mpi_post(x, send, recv, x->stage_send, x->stage_recv);
      mpi_wait(x);
      g = kit_gpu_range_begin("h2d", stream);
      for (int k = 0; k < x->nlinks; ++k)
        if (kit_exchange_receives(x, k, recv))
          stage_copy(recv[k], x->stage_recv[k], recv_bytes(x, k), stream);
      kit_gpu_range_end(g, stream);
      break;
    }
    case KIT_COMM_IPC:
#ifdef KIT_HAVE_CUDA
      ipc_run(x, send, recv, (cudaStream_t)stream);
#endif
      break;
    case KIT_COMM_NVSHMEM:
#ifdef KIT_HAVE_NVSHMEM
      kit_nvshmem_run(x, send, recv, stream);
#else
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "--comm nvshmem: built without NVSHMEM");
#endif
      break;
    case KIT_COMM_CUDA_AWARE:
      stream_sync(x, stream); /* the send buffers are complete before MPI reads them */
      mpi_post(x, send, recv, send, recv);
      mpi_wait(x);
      break;
    case KIT_COMM_NCCL: {
#ifdef KIT_HAVE_NCCL
      /* One group: NCCL pairs the messages between two ranks in issue order, so receives go
       * by (rank, recv_tag) and sends by (rank, send_tag), the order the other end uses. */
      const int g = kit_gpu_range_begin("nccl", stream);
      KIT_NCCL_CHECK(ncclGroupStart());
      for (int i = 0; i < x->nlinks; ++i) {
        const int k = x->order_recv[i];
        if (kit_exchange_receives(x, k, recv))
          KIT_NCCL_CHECK(ncclRecv(recv[k], recv_bytes(x, k), ncclChar, x->links[k].rank, (ncclComm_t)x->nccl,
                                  (cudaStream_t)stream));
      }
      for (int i = 0; i < x->nlinks; ++i) {
        const int k = x->order_send[i];
        if (!kit_exchange_sends(x, k, send)) continue;
        KIT_NCCL_CHECK(ncclSend(send[k], send_bytes(x, k), ncclChar, x->links[k].rank, (ncclComm_t)x->nccl,
                                (cudaStream_t)stream));
        kit_exchange_count_sent(x, k);
      }
      KIT_NCCL_CHECK(ncclGroupEnd());
      kit_gpu_range_end(g, stream);
#else
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "--comm nccl: built without NCCL");
#endif
      break;
    }
    default:
      kit_die(KIT_EXIT_RUNTIME, __FILE__, __LINE__, "kit_exchange_run: unknown transport %d", (int)x->kind);
  }
}

void kit_exchange_finish(kit_exchange *x) {
  if (x->pending) mpi_wait(x);
}

void kit_exchange_run(kit_exchange *x, void *const send[], void *const recv[], void *stream) {
  kit_exchange_start(x, send, recv, stream);
  kit_exchange_finish(x);
}
